//! `warpzip bench --codec deflate` on the CPU: a plain file is cut, compressed and timed, the
//! chunk files it writes are read back as chunk files (decoded as they are), and a chunk file
//! with a damaged stream is an error, not a figure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;

/// Deterministic English-like text: words of a small vocabulary, `len` bytes.
fn text(len: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the", "warp", "decodes", "a", "chunk", "of", "deflate", "while", "every", "lane", "reads",
        "bits", "and", "writes", "bytes", "to", "memory", "quickly", "GPU", "table",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(WORDS[(state % WORDS.len() as u64) as usize].as_bytes());
        out.push(if state.is_multiple_of(11) {
            b'\n'
        } else {
            b' '
        });
    }
    out.truncate(len);
    out
}

#[test]
fn deflate_bench_times_a_file_and_the_chunk_files_it_writes() {
    let dir = TempDir::new("deflate-bench");
    fs::write(dir.path("small.txt"), text(100_000)).unwrap();
    let o = warpzip(
        &dir,
        &[
            "bench",
            "--device",
            "cpu",
            "--codec",
            "deflate",
            "--runs",
            "1",
            "--chunk-size",
            "16K",
            "--level",
            "6",
            "--csv",
            "rows.csv",
            "--write-chunks",
            "chunks",
            "small.txt",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("deflate decode (libdeflate, all cores)"),
        "{out}"
    );
    assert!(out.contains("small.txt, 16 KiB chunks, level 6"), "{out}");
    assert!(out.contains("7 chunks"), "{out}");
    assert!(out.contains("deflate compress level 12"), "{out}");
    // Two decode rows and twelve compression levels, plus the header.
    let csv = fs::read_to_string(dir.path("rows.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 + 12, "{csv}");

    // The chunk file it wrote: u64 count, 7 size pairs, the streams; read back as a chunk file.
    let chunk_file = dir.path("chunks/small.txt.16KiB.l6.z");
    let bytes = fs::read(&chunk_file).unwrap();
    assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 7);
    assert_eq!(u64::from_le_bytes(bytes[8..16].try_into().unwrap()), 16_384);
    let o = warpzip(
        &dir,
        &[
            "bench",
            "--device",
            "cpu",
            "--codec",
            "deflate",
            "--runs",
            "1",
            "chunks/small.txt.16KiB.l6.z",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("small.txt.16KiB.l6.z (chunk file, 16 KiB chunks)"),
        "{out}"
    );

    // The same file with a damaged stream (its size table intact) fails and names the chunk.
    let mut damaged = bytes.clone();
    let header = 8 + 16 * 7;
    for b in &mut damaged[header + 2..header + 40] {
        *b = 0xff;
    }
    fs::write(dir.path("damaged.z"), &damaged).unwrap();
    let o = warpzip(
        &dir,
        &[
            "bench",
            "--device",
            "cpu",
            "--codec",
            "deflate",
            "damaged.z",
        ],
    );
    assert!(!o.status.success(), "{}", stdout(&o));
    assert!(stderr(&o).contains("chunk 0"), "{}", stderr(&o));
}
