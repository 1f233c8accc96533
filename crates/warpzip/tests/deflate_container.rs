//! The `deflate` codec in `.wz` containers, on the CPU: round trips at every level, every chunk a
//! raw RFC 1951 stream that zlib (flate2) decodes on its own, option validation, a golden file,
//! and damaged chunks (re-checksummed so that the inflater, not the checksum, must catch them).
//!
//! Regenerate the golden file with `WARPZIP_BLESS=1 cargo test -p warpzip --test
//! deflate_container` (only for a new format version).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use flate2::{Decompress, FlushDecompress, Status};
use std::path::PathBuf;
use warpzip::api::{self, CompressOptions};
use warpzip::format::{write_container, ChunkSpan, Container, ElemType, Header};
use warpzip::{CodecId, Device, Error};

/// A corpus file of the repository's test data (`testdata/corpora/<dir>/<name>`).
fn corpus(dir: &str, name: &str) -> Vec<u8> {
    let path = common::testdata().join("corpora").join(dir).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Deterministic bytes that depend on no library's RNG.
fn lcg_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

fn opts(level: Option<i32>, chunk_size: Option<u32>) -> CompressOptions {
    CompressOptions {
        level,
        chunk_size,
        ..CompressOptions::for_codec(CodecId::Deflate)
    }
}

/// Inflates `stream` with zlib (flate2, raw: wbits = -15) and checks it is exactly one stream.
fn zlib_inflate_exact(stream: &[u8], expected_len: usize) -> Vec<u8> {
    let mut d = Decompress::new(false);
    let mut out = Vec::with_capacity(expected_len + 1);
    let status = d
        .decompress_vec(stream, &mut out, FlushDecompress::Finish)
        .unwrap();
    assert_eq!(status, Status::StreamEnd, "one complete stream");
    assert_eq!(
        d.total_in() as usize,
        stream.len(),
        "nothing after the stream"
    );
    out
}

/// Checks every chunk of `wz` against `data` through zlib, and returns the chunk count.
fn check_chunks_with_zlib(wz: &[u8], data: &[u8]) -> usize {
    let c = Container::parse(wz).unwrap();
    let chunk_size = c.header.chunk_size as usize;
    for i in 0..c.chunk_count() {
        let want = &data[i * chunk_size..(i * chunk_size + chunk_size).min(data.len())];
        let got = zlib_inflate_exact(c.chunk_bytes(i), want.len());
        assert!(got == want, "chunk {i} differs through zlib");
    }
    c.chunk_count()
}

#[test]
fn every_level_round_trips_and_every_chunk_is_a_zlib_raw_stream() {
    let data = corpus("calgary", "book1");
    let mut sizes = Vec::new();
    for level in 1..=12 {
        let wz = api::compress(&data, &opts(Some(level), Some(64 << 10)), &Device::Cpu).unwrap();
        let c = Container::parse(&wz).unwrap();
        assert_eq!(c.header.codec, CodecId::Deflate);
        assert_eq!(c.header.codec_params, vec![1, level as u8], "level {level}");
        assert_eq!(c.header.chunk_size, 64 << 10);
        assert_eq!(
            api::decompress(&wz, &Device::Cpu).unwrap(),
            data,
            "level {level}"
        );
        assert_eq!(
            check_chunks_with_zlib(&wz, &data),
            data.len().div_ceil(64 << 10)
        );
        sizes.push(wz.len());
    }
    // Level 1 is the largest output and level 12 the smallest (not strictly monotone between).
    assert!(sizes[0] > sizes[11], "{sizes:?}");
    assert!(sizes[11] < data.len() / 2, "book1 compresses: {sizes:?}");
}

#[test]
fn defaults_are_level_6_and_chunks_sized_to_the_input() {
    let data = corpus("canterbury", "kennedy.xls");
    assert_eq!(api::default_chunk_size(CodecId::Deflate), 128 << 10);
    let wz = api::compress(&data, &opts(None, None), &Device::Cpu).unwrap();
    let c = Container::parse(&wz).unwrap();
    assert_eq!(c.header.codec_params, vec![1, 6]);
    // A 1 MB input is small: the smallest chunks (32 KiB) keep a GPU busy.
    assert_eq!(c.header.chunk_size, 32 << 10);
    assert_eq!(c.chunk_count(), data.len().div_ceil(32 << 10));
    // Inputs of 128 MiB and more get the default 128 KiB.
    assert_eq!(
        warpzip::codec::deflate::format::auto_chunk_size(128 << 20),
        128 << 10
    );
    assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), data);
    check_chunks_with_zlib(&wz, &data);
    assert_eq!(CodecId::from_name("deflate").unwrap(), CodecId::Deflate);
    assert_eq!(CodecId::from_u16(4).unwrap(), CodecId::Deflate);
    assert!(CodecId::ALL.contains(&CodecId::Deflate));
}

#[test]
fn chunk_sizes_and_levels_are_validated() {
    let data = vec![7u8; 1000];
    for bad in [0, 1, (32 << 10) - 1, (4 << 20) + 1, 64 << 20] {
        let err = api::compress(&data, &opts(None, Some(bad)), &Device::Cpu).unwrap_err();
        match &err {
            Error::InvalidArgument(msg) => {
                assert!(msg.contains(&bad.to_string()), "{msg}");
                assert!(msg.contains("32 KiB") && msg.contains("4 MiB"), "{msg}");
            }
            other => panic!("chunk size {bad}: {other:?}"),
        }
    }
    for good in [32 << 10, 100_000, 4 << 20] {
        let wz = api::compress(&data, &opts(None, Some(good)), &Device::Cpu).unwrap();
        assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), data);
    }
    for bad in [-1, 0, 13, 100] {
        let err = api::compress(&data, &opts(Some(bad), None), &Device::Cpu).unwrap_err();
        match &err {
            Error::InvalidArgument(msg) => assert!(msg.contains("level"), "{msg}"),
            other => panic!("level {bad}: {other:?}"),
        }
    }
    // A typed input needs a chunk size that is a whole number of elements.
    let typed = CompressOptions {
        elem_type: Some(ElemType::U64),
        ..opts(None, Some(100_001))
    };
    assert!(matches!(
        api::validate_options(&typed),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn incompressible_tiny_empty_and_typed_inputs_round_trip() {
    let random = lcg_bytes(1, 300_000);
    let wz = api::compress(&random, &opts(Some(9), Some(32 << 10)), &Device::Cpu).unwrap();
    let c = Container::parse(&wz).unwrap();
    for (i, entry) in c.chunks.iter().enumerate() {
        // Stored blocks: 5 bytes of block header per 64 KiB at most, plus a little.
        assert!(
            entry.compressed_len <= entry.uncompressed_len + 16,
            "chunk {i}: {entry:?}"
        );
    }
    assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), random);
    check_chunks_with_zlib(&wz, &random);

    for data in [Vec::new(), vec![42u8], b"abcabcabc".to_vec()] {
        let wz = api::compress(&data, &opts(None, None), &Device::Cpu).unwrap();
        assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), data);
    }

    let values: Vec<u8> = (0..50_000u32).flat_map(|v| (v / 7).to_le_bytes()).collect();
    let typed = CompressOptions {
        elem_type: Some(ElemType::U32),
        ..opts(Some(4), Some(64 << 10))
    };
    let wz = api::compress(&values, &typed, &Device::Cpu).unwrap();
    assert_eq!(
        Container::parse(&wz).unwrap().header.elem_type,
        ElemType::U32
    );
    assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), values);
}

/// A container of `chunks` (compressed bytes, uncompressed length) with valid checksums.
fn container_of(chunks: &[(Vec<u8>, u32)], chunk_size: u32, params: &[u8]) -> Vec<u8> {
    let mut payload = Vec::new();
    let mut spans = Vec::new();
    for (bytes, len) in chunks {
        spans.push(ChunkSpan {
            offset: payload.len(),
            compressed_len: bytes.len() as u32,
            uncompressed_len: *len,
        });
        payload.extend_from_slice(bytes);
    }
    let header = Header {
        codec: CodecId::Deflate,
        codec_params: params.to_vec(),
        elem_type: ElemType::Bytes,
        shape: Vec::new(),
        total_len: chunks.iter().map(|(_, l)| u64::from(*l)).sum(),
        chunk_size,
    };
    let mut out = Vec::new();
    write_container(&mut out, &header, &payload, &spans).unwrap();
    out
}

fn raw_deflate(data: &[u8]) -> Vec<u8> {
    let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(6).unwrap());
    let mut out = vec![0u8; c.deflate_compress_bound(data.len())];
    let n = c.deflate_compress(data, &mut out).unwrap();
    out.truncate(n);
    out
}

#[test]
fn damaged_chunks_are_reported_by_index() {
    let cs = 32 << 10;
    let a = corpus("canterbury", "alice29.txt");
    // Two whole chunks and a shorter last one (only the last may record another length).
    let pieces: Vec<&[u8]> = vec![&a[..cs], &a[cs..2 * cs], &a[2 * cs..2 * cs + 20_000]];
    let good: Vec<(Vec<u8>, u32)> = pieces
        .iter()
        .map(|p| (raw_deflate(p), p.len() as u32))
        .collect();
    let whole = container_of(&good, cs as u32, &[1, 6]);
    assert_eq!(
        api::decompress(&whole, &Device::Cpu).unwrap(),
        a[..2 * cs + 20_000]
    );

    let chunk_error = |chunks: Vec<(Vec<u8>, u32)>| -> (usize, String) {
        match api::decompress(&container_of(&chunks, cs as u32, &[1, 6]), &Device::Cpu) {
            Err(Error::Corrupt { chunk, reason }) => (chunk, reason),
            other => panic!("expected a corrupt chunk, got {other:?}"),
        }
    };
    // Chunk 1 cut short.
    let mut bad = good.clone();
    let half = bad[1].0.len() / 2;
    bad[1].0.truncate(half);
    assert_eq!(chunk_error(bad).0, 1);
    // Chunk 2 followed by bytes that are not part of its stream.
    let mut bad = good.clone();
    bad[2].0.extend_from_slice(b"xyz");
    assert_eq!(chunk_error(bad).0, 2);
    // The last chunk records one byte more than it inflates to, or one byte less.
    let mut bad = good.clone();
    bad[2].1 += 1;
    let (chunk, reason) = chunk_error(bad);
    assert_eq!(chunk, 2);
    assert!(reason.contains("shorter"), "{reason}");
    let mut bad = good.clone();
    bad[2].1 -= 1;
    let (chunk, reason) = chunk_error(bad);
    assert_eq!(chunk, 2);
    assert!(reason.contains("exceeds"), "{reason}");
    // Chunk 0 holds a valid stream one byte short of the chunk size.
    let mut bad = good.clone();
    bad[0].0 = raw_deflate(&a[..cs - 1]);
    assert_eq!(chunk_error(bad).0, 0);
    // A reserved block type (BTYPE = 11) in chunk 1.
    let mut bad = good.clone();
    bad[1].0 = vec![0x07, 0x00, 0x00];
    assert_eq!(chunk_error(bad).0, 1);
    // An empty chunk is no stream at all.
    let mut bad = good.clone();
    bad[0].0.clear();
    assert_eq!(chunk_error(bad).0, 0);
    // The documented example: zlib's 7 bytes for `abcabcabc` are a valid chunk.
    let zlib_chunk = vec![0x4b, 0x4c, 0x4a, 0x4e, 0x04, 0x23, 0x00];
    let wz = container_of(&[(zlib_chunk, 9)], cs as u32, &[1, 6]);
    assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), b"abcabcabc");
    // Unknown params are refused before any chunk is touched.
    for params in [&[2u8, 6][..], &[1, 0], &[1, 13], &[1], &[1, 6, 0]] {
        assert!(
            matches!(
                api::decompress(&container_of(&good, cs as u32, params), &Device::Cpu),
                Err(Error::Unsupported(_))
            ),
            "{params:?}"
        );
    }
}

/// The golden input: deterministic text-like bytes (words from a fixed list).
fn golden_input() -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "warp", "zip", "deflate", "gpu", "chunk", "stream", "lane", "\n",
    ];
    let mut state = 12345u64;
    let mut out = Vec::new();
    while out.len() < 100_000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(WORDS[(state >> 61) as usize].as_bytes());
        out.push(b' ');
    }
    out.truncate(100_000);
    out
}

#[test]
fn golden_file_decodes() {
    let data = golden_input();
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/deflate_v1_golden.wz");
    if std::env::var_os("WARPZIP_BLESS").is_some() {
        let wz = api::compress(&data, &opts(Some(6), Some(32 << 10)), &Device::Cpu).unwrap();
        std::fs::write(&path, wz).unwrap();
    }
    // The encoder's bytes may change with libdeflate's version; what is frozen is that this
    // file, written by version 1 of the layout, decodes.
    let golden = std::fs::read(&path).unwrap();
    let c = Container::parse(&golden).unwrap();
    assert_eq!(c.header.codec.to_u16(), 4);
    assert_eq!(c.header.codec_params, vec![1, 6]);
    assert_eq!(c.chunk_count(), 4);
    assert_eq!(api::decompress(&golden, &Device::Cpu).unwrap(), data);
    check_chunks_with_zlib(&golden, &data);
}
