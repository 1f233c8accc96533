//! Inflate on the CPU (`codec::deflate`, libdeflate) through `inflate_batch`: differential
//! against libdeflate (levels 1..=12) and zlib (flate2, levels 0..=9) on the Canterbury and
//! Calgary corpora and synthetic data chunked at awkward sizes; crafted pathological streams
//! from our own bit writer (`common/deflate_writer.rs`); crafted invalid streams with their
//! statuses; random corruption judged by zlib; output capacity and `consumed`; the inflate fuzz
//! corpus. `tests/gpu_deflate.rs` runs the same cases (`common/deflate_cases.rs`) on the GPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/deflate_writer.rs"]
mod deflate_writer;

#[path = "common/deflate_cases.rs"]
mod deflate_cases;

use deflate_cases::*;
use deflate_writer::*;
use std::path::PathBuf;
use warpzip::codec::deflate::cpu;
use warpzip::device::Device;
use warpzip::error::ChunkStatus;

#[test]
fn writer_matches_rfc_1951_examples() {
    // Fixed codes (RFC 1951 3.2.6): literal 0 is 00110000, 144 is 110010000, 256 is 0000000,
    // 280 is 11000000.
    let t = Table::new(&fixed_lit_lens());
    assert_eq!((t.codes[0], t.lens[0]), (0b0011_0000, 8));
    assert_eq!((t.codes[143], t.lens[143]), (0b1011_1111, 8));
    assert_eq!((t.codes[144], t.lens[144]), (0b1_1001_0000, 9));
    assert_eq!((t.codes[256], t.lens[256]), (0, 7));
    assert_eq!((t.codes[280], t.lens[280]), (0b1100_0000, 8));
    // The RFC's example: lengths (3, 3, 3, 3, 3, 2, 4, 4) give 010 011 100 101 110 00 1110 1111.
    let t = Table::new(&[3, 3, 3, 3, 3, 2, 4, 4]);
    assert_eq!(t.codes, vec![2, 3, 4, 5, 6, 0, 14, 15]);
    assert_eq!(t.kraft(), 32768);
    // An empty final stored block and an empty final fixed block, as zlib writes them.
    let mut w = DeflateWriter::new();
    w.stored(true, &[]);
    assert_eq!(w.finish(), vec![0x01, 0x00, 0x00, 0xFF, 0xFF]);
    let mut w = DeflateWriter::new();
    w.fixed(true, &[]);
    assert_eq!(w.finish(), vec![0x03, 0x00]);
    assert_eq!(length_symbol(3), (257, 0, 0));
    assert_eq!(length_symbol(257), (284, 5, 30));
    assert_eq!(length_symbol(258), (285, 0, 0));
    assert_eq!(distance_code(32768), (29, 13, 8191));
    assert_eq!(distance_code(5), (4, 1, 0));
    // Huffman lengths respect the limit and stay complete.
    let freqs: Vec<u64> = (0..40).map(|i| 1u64 << (i % 30)).collect();
    let lens = huffman_lengths(&freqs, 15);
    assert!(lens.iter().all(|&l| (1..=15).contains(&l)));
    assert_eq!(Table::new(&lens).kraft(), 32768);
    // Repeat codes reproduce the lengths.
    let lens: Vec<u8> = [
        vec![0u8; 200],
        vec![8; 20],
        vec![0; 5],
        vec![3; 2],
        vec![0; 11],
    ]
    .concat();
    let mut back = Vec::new();
    for s in rle_code_lengths(&lens) {
        match s.sym {
            16 => {
                let prev = *back.last().unwrap();
                back.extend(std::iter::repeat_n(prev, 3 + s.extra as usize));
            }
            17 => back.extend(std::iter::repeat_n(0, 3 + s.extra as usize)),
            18 => back.extend(std::iter::repeat_n(0, 11 + s.extra as usize)),
            l => back.push(l),
        }
    }
    assert_eq!(back, lens);
}

/// CI runs a subset of the chunkings; `WARPZIP_DEFLATE_FULL=1` runs the GPU tests' full matrix.
fn scale() -> Scale {
    Scale {
        full: std::env::var("WARPZIP_DEFLATE_FULL").as_deref() == Ok("1"),
    }
}

#[test]
fn cpu_inflates_the_corpora_from_every_level() {
    let files = corpus_files();
    assert!(files.len() >= 4, "only {} corpus files", files.len());
    differential(&Device::Cpu, &files, &all_compressors(), scale());
}

#[test]
fn cpu_inflates_random_and_compressible_data_from_every_level() {
    let n = if scale().full { 1 << 20 } else { 300_000 };
    differential(&Device::Cpu, &synthetic(n, 1), &all_compressors(), scale());
}

#[test]
fn cpu_inflates_pathological_streams() {
    pathological_decode(&Device::Cpu);
}

#[test]
fn cpu_rejects_crafted_invalid_streams() {
    crafted_invalid_statuses(&Device::Cpu);
}

#[test]
fn cpu_output_capacity_and_consumed() {
    capacity_and_consumed(&Device::Cpu);
}

#[test]
fn cpu_agrees_with_zlib_on_corrupted_streams() {
    let tally = random_corruption(&Device::Cpu, 20_000, 7);
    eprintln!("corrupted streams on the CPU: {tally:?}");
}

#[test]
fn cpu_rejects_cut_streams() {
    cut_streams_are_truncated(&Device::Cpu, 3000, 8);
}

/// Regression: libdeflate decodes the zero bits it reads past the end of a cut stream, and
/// with an exact-size output those filled it, so `cpu::inflate` said `Overflow` for a
/// truncated stream. It now asks zlib why the room ran out.
#[test]
fn cpu_cut_stream_with_exact_room_is_corrupt_not_overflow() {
    let data = vec![0u8; 2568];
    let stream = compress_chunks(RefCompressor::Libdeflate(1), &data, usize::MAX).remove(0);
    let mut out = vec![0u8; data.len()];
    assert_eq!(cpu::inflate(&stream, &mut out).status, ChunkStatus::Ok);
    for cut in 0..stream.len() {
        let r = cpu::inflate(&stream[..cut], &mut out);
        assert_eq!(r.status, ChunkStatus::Corrupt, "cut at {cut}");
    }
    // A real lack of room is still Overflow, by one byte or by many.
    for cap in [0, 1, data.len() - 1] {
        let r = cpu::inflate(&stream, &mut out[..cap]);
        assert_eq!(r.status, ChunkStatus::Overflow, "room {cap}");
    }
}

#[test]
fn empty_batch_and_mismatched_lengths() {
    let r = warpzip::codec::deflate::inflate_batch(&Device::Cpu, &[], &mut []).unwrap();
    assert!(r.is_empty());
    let mut out = [0u8; 4];
    let mut outs: Vec<&mut [u8]> = vec![&mut out];
    assert!(warpzip::codec::deflate::inflate_batch(&Device::Cpu, &[], &mut outs).is_err());
}

// ---------------------------------------------------------------------------------------------
// The fuzz targets' logic (`fuzz/fuzz_targets/inflate_cpu.rs`), run over their corpora.

/// The fuzz input format: two bytes (little-endian) of output capacity, then the stream.
fn fuzz_check(data: &[u8]) {
    let Some((cap, stream)) = data.split_first_chunk::<2>() else {
        return;
    };
    let cap = usize::from(u16::from_le_bytes(*cap));
    let mut out = vec![0u8; cap];
    let r = cpu::inflate(stream, &mut out);
    if r.status == ChunkStatus::Ok {
        assert!(r.written <= cap && r.consumed <= stream.len(), "{r:?}");
    }
    match zlib_inflate(stream, cap) {
        Zlib::Ok {
            out: want,
            consumed,
        } => {
            assert_eq!(r.status, ChunkStatus::Ok, "zlib decodes, libdeflate: {r:?}");
            assert_eq!((r.written, r.consumed), (want.len(), consumed));
            assert!(out[..r.written] == want[..]);
        }
        Zlib::Overflow => assert_ne!(r.status, ChunkStatus::Ok),
        Zlib::Rejected => {}
    }
}

/// Seeds: a few streams of every block type, pathological and invalid ones.
fn fuzz_seeds() -> Vec<(String, Vec<u8>)> {
    let with_cap = |cap: usize, s: &[u8]| {
        let mut v = (cap.min(65535) as u16).to_le_bytes().to_vec();
        v.extend_from_slice(s);
        v
    };
    let mut seeds = Vec::new();
    for c in pathological() {
        if c.stream.len() < 4096 && c.data.len() < 65536 {
            seeds.push((c.name, with_cap(c.data.len(), &c.stream)));
        }
    }
    for c in crafted_invalid() {
        if c.stream.len() < 4096 {
            seeds.push((c.name, with_cap(c.cap, &c.stream)));
        }
    }
    for (name, data) in synthetic(3000, 3) {
        for comp in [
            RefCompressor::Libdeflate(6),
            RefCompressor::Zlib(0),
            RefCompressor::Zlib(9),
        ] {
            let s = compress_chunks(comp, &data, usize::MAX).remove(0);
            seeds.push((format!("{name} {comp:?}"), with_cap(data.len(), &s)));
        }
    }
    seeds
}

fn seed_file_name(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

#[test]
fn fuzz_corpus_runs_clean() {
    let seeds = fuzz_seeds();
    for target in ["inflate_cpu", "inflate_gpu"] {
        let dir =
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fuzz/corpus")).join(target);
        if std::env::var("WARPZIP_BLESS").as_deref() == Ok("1") {
            std::fs::create_dir_all(&dir).unwrap();
            for (name, bytes) in &seeds {
                std::fs::write(dir.join(seed_file_name(name)), bytes).unwrap();
            }
        }
        let mut count = 0;
        for entry in std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("fuzz corpus {} missing: {e}", dir.display()))
        {
            let path = entry.unwrap().path();
            fuzz_check(&std::fs::read(&path).unwrap());
            count += 1;
        }
        assert!(count > 0, "fuzz corpus {} is empty", dir.display());
    }
}
