//! The `.wz` container, version 1: round trips, golden files that freeze the byte layout, and
//! damaged input (every truncation, every header bit flip, payload flips, each rule broken on
//! its own). The codec is irrelevant here, so payloads are arbitrary bytes labelled `rle`.
//!
//! Regenerate the golden files and the fuzz seed corpus with
//! `WARPZIP_BLESS=1 cargo test -p warpzip --test container` (a format change is a new version:
//! never bless over a released version's golden files).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use warpzip::format::{
    header_len, peek_header, write_container, ChunkSpan, Container, ElemType, Header,
};
use warpzip::{CodecId, Error};
use xxhash_rust::xxh3::xxh3_64;

// ---------------------------------------------------------------------------------------------
// Helpers

/// Deterministic bytes that do not depend on any library's RNG (golden files must not change
/// when a dependency does).
fn lcg_bytes(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 56) as u8
        })
        .collect()
}

fn header(elem_type: ElemType, shape: &[u64], total_len: u64, chunk_size: u32) -> Header {
    Header {
        codec: CodecId::Rle,
        codec_params: vec![0x00, 0x10, 0x00, 0x00],
        elem_type,
        shape: shape.to_vec(),
        total_len,
        chunk_size,
    }
}

fn uncompressed_lens(h: &Header) -> Vec<u32> {
    let cs = u64::from(h.chunk_size);
    let count = h.total_len.div_ceil(cs);
    (0..count)
        .map(|i| (h.total_len - i * cs).min(cs) as u32)
        .collect()
}

/// A payload buffer holding chunks of `compressed_lens` bytes, with `gap` filler bytes before
/// each chunk, and, when `reversed`, the chunks laid out last to first.
fn layout(
    h: &Header,
    compressed_lens: &[u32],
    gap: usize,
    reversed: bool,
    seed: u64,
) -> (Vec<u8>, Vec<ChunkSpan>) {
    let ulens = uncompressed_lens(h);
    assert_eq!(ulens.len(), compressed_lens.len());
    let mut payload = Vec::new();
    let mut spans = vec![
        ChunkSpan {
            offset: 0,
            compressed_len: 0,
            uncompressed_len: 0
        };
        ulens.len()
    ];
    let mut order: Vec<usize> = (0..ulens.len()).collect();
    if reversed {
        order.reverse();
    }
    for i in order {
        payload.extend(std::iter::repeat_n(0xEE, gap));
        spans[i] = ChunkSpan {
            offset: payload.len(),
            compressed_len: compressed_lens[i],
            uncompressed_len: ulens[i],
        };
        payload.extend(lcg_bytes(
            seed ^ ((i as u64) << 32),
            compressed_lens[i] as usize,
        ));
    }
    (payload, spans)
}

fn write(h: &Header, payload: &[u8], spans: &[ChunkSpan]) -> Vec<u8> {
    let mut out = Vec::new();
    let n = write_container(&mut out, h, payload, spans).expect("write");
    assert_eq!(n, out.len() as u64);
    out
}

/// A small valid file: 3 chunks of 40 uncompressed bytes (last one 20), varied compressed sizes.
fn small_file() -> Vec<u8> {
    let h = header(ElemType::U16, &[50], 100, 40);
    let (payload, spans) = layout(&h, &[7, 0, 13], 3, true, 42);
    write(&h, &payload, &spans)
}

fn payload_start(bytes: &[u8]) -> usize {
    // Straight from the documented layout, so that it works on files the reader rejects.
    let u32_at = |o: usize| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()) as usize;
    32 + 8 * usize::from(bytes[11]) + u32_at(28) + 24 * u32_at(24) + 8
}

/// Recomputes the header checksum after a test edited the header or table on purpose.
fn reseal(bytes: &mut [u8]) {
    let start = payload_start(bytes);
    let sum = xxh3_64(&bytes[..start - 8]);
    bytes[start - 8..start].copy_from_slice(&sum.to_le_bytes());
}

fn corrupt_container_msg(result: warpzip::Result<Container<'_>>) -> String {
    match result {
        Err(Error::CorruptContainer(msg)) => msg,
        other => panic!("expected CorruptContainer, got {other:?}"),
    }
}

fn truncated_msg(result: warpzip::Result<Container<'_>>) -> String {
    match result {
        Err(Error::Truncated(msg)) => msg,
        other => panic!("expected Truncated, got {other:?}"),
    }
}

fn invalid_argument_msg(result: warpzip::Result<u64>) -> String {
    match result {
        Err(Error::InvalidArgument(msg)) => msg,
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

fn bless() -> bool {
    std::env::var_os("WARPZIP_BLESS").is_some()
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus_dir() -> PathBuf {
    manifest_dir().join("../../fuzz/corpus/container_parse")
}

// ---------------------------------------------------------------------------------------------
// Golden files

struct GoldenCase {
    name: &'static str,
    header: Header,
    payload: Vec<u8>,
    spans: Vec<ChunkSpan>,
}

/// The generator of `tests/data/container_v1_*.wz`. It must stay deterministic: it uses only
/// `lcg_bytes` and fixed numbers.
fn golden_cases() -> Vec<GoldenCase> {
    let empty = header(ElemType::Bytes, &[], 0, 4096);
    let flat = header(ElemType::Bytes, &[], 10_000, 4096);
    let (flat_payload, flat_spans) = layout(&flat, &[37, 0, 21], 0, false, 1);
    let mut shaped = header(ElemType::F32, &[3, 5, 7], 420, 128);
    shaped.codec_params = vec![1, 2, 3, 4, 5, 6, 7];
    let (shaped_payload, shaped_spans) = layout(&shaped, &[5, 9, 3, 11], 2, true, 2);
    vec![
        GoldenCase {
            name: "container_v1_empty.wz",
            header: empty,
            payload: Vec::new(),
            spans: Vec::new(),
        },
        GoldenCase {
            name: "container_v1_flat.wz",
            header: flat,
            payload: flat_payload,
            spans: flat_spans,
        },
        GoldenCase {
            name: "container_v1_shaped.wz",
            header: shaped,
            payload: shaped_payload,
            spans: shaped_spans,
        },
    ]
}

fn golden_path(name: &str) -> PathBuf {
    manifest_dir().join("tests/data").join(name)
}

#[test]
fn golden_files_are_byte_identical_to_todays_writer() {
    for case in golden_cases() {
        let bytes = write(&case.header, &case.payload, &case.spans);
        let path = golden_path(case.name);
        if bless() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let golden = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (bless with WARPZIP_BLESS=1)", path.display()));
        assert!(
            golden == bytes,
            "{}: the writer's output changed; a format change needs a new version",
            case.name
        );
    }
}

#[test]
fn golden_empty_has_the_expected_fields() {
    let bytes = std::fs::read(golden_path("container_v1_empty.wz")).unwrap();
    assert_eq!(bytes.len(), 32 + 4 + 8);
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(c.header, header(ElemType::Bytes, &[], 0, 4096));
    assert!(c.chunks.is_empty());
    assert!(c.payload.is_empty());
    c.verify_all().unwrap();
}

#[test]
fn golden_flat_has_the_expected_fields() {
    let bytes = std::fs::read(golden_path("container_v1_flat.wz")).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(c.header.codec, CodecId::Rle);
    assert_eq!(c.header.codec_params, vec![0x00, 0x10, 0x00, 0x00]);
    assert_eq!(c.header.elem_type, ElemType::Bytes);
    assert!(c.header.shape.is_empty());
    assert_eq!(c.header.total_len, 10_000);
    assert_eq!(c.header.chunk_size, 4096);
    let sizes: Vec<(u64, u32, u32)> = c
        .chunks
        .iter()
        .map(|e| (e.offset, e.compressed_len, e.uncompressed_len))
        .collect();
    assert_eq!(sizes, vec![(0, 37, 4096), (37, 0, 4096), (37, 21, 1808)]);
    assert_eq!(c.payload.len(), 58);
    assert_eq!(bytes.len(), 32 + 4 + 3 * 24 + 8 + 58);
    assert_eq!(c.compressed_len(), bytes.len() as u64);
    assert_eq!(c.chunk_bytes(0), &lcg_bytes(1, 37)[..]);
    assert_eq!(c.chunk_bytes(2), &lcg_bytes(1 ^ (2 << 32), 21)[..]);
    c.verify_all().unwrap();
}

#[test]
fn golden_shaped_has_the_expected_fields() {
    let bytes = std::fs::read(golden_path("container_v1_shaped.wz")).unwrap();
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(c.header.elem_type, ElemType::F32);
    assert_eq!(c.header.shape, vec![3, 5, 7]);
    assert_eq!(c.header.codec_params, vec![1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(c.header.total_len, 420);
    assert_eq!(c.header.chunk_size, 128);
    let lens: Vec<(u32, u32)> = c
        .chunks
        .iter()
        .map(|e| (e.compressed_len, e.uncompressed_len))
        .collect();
    assert_eq!(lens, vec![(5, 128), (9, 128), (3, 128), (11, 36)]);
    for (i, (clen, _)) in lens.iter().enumerate() {
        assert_eq!(
            c.chunk_bytes(i),
            &lcg_bytes(2 ^ ((i as u64) << 32), *clen as usize)[..]
        );
    }
    c.verify_all().unwrap();
}

/// Reads the golden file by the offsets in `docs/format.md`, without the library, so that the
/// documentation and the code cannot drift apart.
#[test]
fn golden_shaped_matches_the_documented_byte_layout() {
    let b = std::fs::read(golden_path("container_v1_shaped.wz")).unwrap();
    let u16_at = |o: usize| u16::from_le_bytes(b[o..o + 2].try_into().unwrap());
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    assert_eq!(&b[0..4], &[0x89, 0x57, 0x5A, 0x0A]);
    assert_eq!(u16_at(4), 1, "version");
    assert_eq!(u16_at(6), CodecId::Rle.to_u16(), "codec");
    assert_eq!(u16_at(8), 0, "flags");
    assert_eq!(b[10], 9, "element type f32");
    assert_eq!(b[11], 3, "ndim");
    assert_eq!(u32_at(12), 128, "chunk size");
    assert_eq!(u64_at(16), 420, "total size");
    assert_eq!(u32_at(24), 4, "chunk count");
    assert_eq!(u32_at(28), 7, "codec params length");
    assert_eq!((u64_at(32), u64_at(40), u64_at(48)), (3, 5, 7), "dims");
    assert_eq!(&b[56..63], &[1, 2, 3, 4, 5, 6, 7], "codec params");
    let table = 63;
    let payload = table + 4 * 24 + 8;
    assert_eq!(
        u64_at(table + 4 * 24),
        xxh3_64(&b[..table + 4 * 24]),
        "header checksum"
    );
    let mut expected_offset = 0;
    for i in 0..4 {
        let e = table + 24 * i;
        let (offset, clen, ulen) = (u64_at(e), u32_at(e + 8) as u64, u32_at(e + 12));
        assert_eq!(offset, expected_offset);
        assert_eq!(ulen, if i < 3 { 128 } else { 36 });
        let start = payload + offset as usize;
        let chunk = &b[start..start + clen as usize];
        assert_eq!(u64_at(e + 16), xxh3_64(chunk), "chunk {i} checksum");
        expected_offset += clen;
    }
    assert_eq!(b.len(), payload + expected_offset as usize);
}

// ---------------------------------------------------------------------------------------------
// Round trips

fn arb_case() -> impl Strategy<Value = (Header, Vec<u32>, usize, bool, u64)> {
    let elem = (0..ElemType::ALL.len()).prop_map(|i| ElemType::ALL[i]);
    let shape = prop_oneof![Just(Vec::new()), prop::collection::vec(0u64..7, 1..=4),];
    (
        elem,
        shape,
        0u64..3000,
        1u32..700,
        prop::collection::vec(any::<u8>(), 0..=64),
        0usize..4,
        any::<bool>(),
        any::<u64>(),
    )
        .prop_map(
            |(elem_type, shape, flat_len, chunk_size, params, gap, rev, seed)| {
                let total_len = if shape.is_empty() {
                    // A flat stream holds a whole number of elements.
                    flat_len - flat_len % elem_type.size()
                } else {
                    shape.iter().product::<u64>() * elem_type.size()
                };
                let h = Header {
                    codec: CodecId::Rle,
                    codec_params: params,
                    elem_type,
                    shape,
                    total_len,
                    chunk_size,
                };
                let mut rng = StdRng::seed_from_u64(seed);
                let count = total_len.div_ceil(u64::from(chunk_size)) as usize;
                let clens = (0..count).map(|_| rng.gen_range(0..40)).collect();
                (h, clens, gap, rev, seed)
            },
        )
}

proptest! {
    #[test]
    fn round_trip_preserves_header_table_and_chunks(
        (h, clens, gap, rev, seed) in arb_case()
    ) {
        let (payload, spans) = layout(&h, &clens, gap, rev, seed);
        let bytes = write(&h, &payload, &spans);
        let c = Container::parse(&bytes).unwrap();
        prop_assert_eq!(&c.header, &h);
        prop_assert_eq!(peek_header(&bytes).unwrap(), h.clone());
        prop_assert_eq!(c.chunk_count(), spans.len());
        prop_assert_eq!(c.compressed_len(), bytes.len() as u64);
        prop_assert_eq!(
            bytes.len() as u64,
            header_len(&h, spans.len() as u32) + clens.iter().map(|&l| u64::from(l)).sum::<u64>()
        );
        let mut expected_offset = 0u64;
        for (i, span) in spans.iter().enumerate() {
            let want = &payload[span.offset..span.offset + span.compressed_len as usize];
            prop_assert_eq!(c.chunk_bytes(i), want);
            prop_assert_eq!(c.chunks[i].offset, expected_offset);
            prop_assert_eq!(c.chunks[i].compressed_len, span.compressed_len);
            prop_assert_eq!(c.chunks[i].uncompressed_len, span.uncompressed_len);
            prop_assert_eq!(c.uncompressed_offset(i), i as u64 * u64::from(h.chunk_size));
            expected_offset += u64::from(span.compressed_len);
        }
        prop_assert_eq!(c.uncompressed_offset(spans.len()), h.total_len);
        prop_assert!(c.chunk_bytes(spans.len()).is_empty());
        c.verify_all().unwrap();
    }

    /// Whatever the writer is given, it either refuses or writes a file the reader accepts.
    #[test]
    fn writer_never_writes_a_file_the_reader_rejects(
        ndim in 0usize..6,
        dims in prop::collection::vec(0u64..5, 5),
        elem in 0..ElemType::ALL.len(),
        total_len in 0u64..300,
        chunk_size in 0u32..100,
        params_len in 60usize..70,
        span_specs in prop::collection::vec((0usize..120, 0u32..30, 0u32..110), 0..12),
        (fit_total, fit_spans) in (any::<bool>(), any::<bool>()),
    ) {
        // Without the `fit_*` nudges almost every case would be refused early; with them, many
        // reach the later rules or succeed.
        let mut h = Header {
            codec: CodecId::Rle,
            codec_params: vec![7; params_len],
            elem_type: ElemType::ALL[elem],
            shape: dims[..ndim.min(5)].to_vec(),
            total_len,
            chunk_size,
        };
        if fit_total && !h.shape.is_empty() {
            h.total_len = h.shape.iter().product::<u64>() * h.elem_type.size();
        }
        let payload = lcg_bytes(9, 100);
        let mut spans: Vec<ChunkSpan> = span_specs
            .iter()
            .map(|&(offset, compressed_len, uncompressed_len)| ChunkSpan {
                offset,
                compressed_len,
                uncompressed_len,
            })
            .collect();
        if fit_spans && chunk_size > 0 {
            let ulens = uncompressed_lens(&h);
            spans.resize(ulens.len(), ChunkSpan { offset: 90, compressed_len: 10, uncompressed_len: 0 });
            for (span, ulen) in spans.iter_mut().zip(ulens) {
                span.uncompressed_len = ulen;
                span.offset %= payload.len();
                span.compressed_len = span.compressed_len.min((payload.len() - span.offset) as u32);
            }
        }
        let mut out = Vec::new();
        match write_container(&mut out, &h, &payload, &spans) {
            Ok(n) => {
                prop_assert_eq!(n, out.len() as u64);
                let c = Container::parse(&out).unwrap();
                prop_assert_eq!(&c.header, &h);
                c.verify_all().unwrap();
            }
            Err(Error::InvalidArgument(_)) => prop_assert!(out.is_empty()),
            Err(other) => prop_assert!(false, "unexpected error {other:?}"),
        }
    }

    /// Arbitrary bytes after a valid fixed header never panic the parser.
    #[test]
    fn parse_never_panics_on_a_valid_prefix_and_random_tail(
        tail in prop::collection::vec(any::<u8>(), 0..400),
        cut in 0usize..200,
    ) {
        let mut bytes = small_file();
        bytes.truncate(cut.min(bytes.len()));
        bytes.extend(tail);
        if let Ok(c) = Container::parse(&bytes) {
            let _ = c.verify_all();
        }
        let _ = peek_header(&bytes);
    }
}

#[test]
fn zero_chunks_round_trip_with_and_without_a_shape() {
    for shape in [vec![], vec![0], vec![4, 0, 2]] {
        let h = header(ElemType::I64, &shape, 0, 1000);
        let bytes = write(&h, &[], &[]);
        assert_eq!(bytes.len() as u64, header_len(&h, 0));
        let c = Container::parse(&bytes).unwrap();
        assert_eq!(c.header, h);
        assert_eq!(c.chunk_count(), 0);
        c.verify_all().unwrap();
    }
}

#[test]
fn largest_limits_round_trip() {
    let mut h = header(ElemType::U64, &[1, 1, 1, 1 << 27], 1 << 30, 1 << 30);
    h.codec_params = (0..64).collect();
    let (payload, spans) = layout(&h, &[3], 0, false, 5);
    let bytes = write(&h, &payload, &spans);
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(c.header, h);
    assert_eq!(c.chunks[0].uncompressed_len, 1 << 30);
}

// ---------------------------------------------------------------------------------------------
// Damaged input

#[test]
fn every_truncation_is_reported_as_truncated() {
    let golden_flat = std::fs::read(golden_path("container_v1_flat.wz")).unwrap();
    let golden_empty = std::fs::read(golden_path("container_v1_empty.wz")).unwrap();
    for file in [small_file(), golden_flat, golden_empty] {
        for len in 0..file.len() {
            let msg = truncated_msg(Container::parse(&file[..len]));
            assert!(!msg.is_empty(), "cut at {len}");
        }
        assert!(Container::parse(&file).is_ok());
    }
}

#[test]
fn every_bit_flip_in_header_and_table_is_an_error() {
    for file in [
        small_file(),
        write(&header(ElemType::Bytes, &[], 0, 9), &[], &[]),
    ] {
        let start = payload_start(&file);
        for bit in 0..start * 8 {
            let mut bad = file.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(
                Container::parse(&bad).is_err(),
                "flipping bit {bit} of byte {} was accepted",
                bit / 8
            );
        }
    }
}

#[test]
fn a_payload_bit_flip_names_its_chunk() {
    let file = small_file();
    let start = payload_start(&file);
    let c = Container::parse(&file).unwrap();
    let chunk_of = |pos: usize| {
        c.chunks
            .iter()
            .position(|e| {
                let o = start + e.offset as usize;
                (o..o + e.compressed_len as usize).contains(&pos)
            })
            .unwrap()
    };
    for bit in start * 8..file.len() * 8 {
        let mut bad = file.clone();
        bad[bit / 8] ^= 1 << (bit % 8);
        let want = chunk_of(bit / 8);
        let damaged = Container::parse(&bad).expect("payload damage is found by verify");
        match damaged.verify_all() {
            Err(Error::Corrupt { chunk, reason }) => {
                assert_eq!(chunk, want, "bit {bit}");
                assert!(reason.contains("checksum mismatch"), "{reason}");
            }
            other => panic!("bit {bit}: expected Corrupt, got {other:?}"),
        }
        for i in 0..damaged.chunk_count() {
            assert_eq!(damaged.verify_chunk(i).is_ok(), i != want);
        }
    }
}

#[test]
fn verify_all_reports_the_lowest_failing_chunk() {
    let h = header(ElemType::Bytes, &[], 64 * 10, 10);
    let (payload, spans) = layout(&h, &[4; 64], 0, false, 3);
    let mut file = write(&h, &payload, &spans);
    let start = payload_start(&file);
    for chunk in [63, 40, 17] {
        file[start + chunk * 4] ^= 0x80;
        match Container::parse(&file).unwrap().verify_all() {
            Err(Error::Corrupt { chunk: got, .. }) => assert_eq!(got, chunk),
            other => panic!("expected Corrupt, got {other:?}"),
        }
    }
}

#[test]
fn wrong_magic_is_not_a_wz_file() {
    let mut file = small_file();
    file[1] = b'X';
    assert!(corrupt_container_msg(Container::parse(&file)).contains("not a .wz file"));
    assert!(corrupt_container_msg(Container::parse(b"PK\x03")).contains("magic"));
    assert!(corrupt_container_msg(Container::parse(b"hello, world")).contains("magic"));
}

#[test]
fn newer_version_is_unsupported_and_version_zero_is_corrupt() {
    // Version 2 is a frame of a stream (tests/stream.rs); 3 is newer than this build.
    let mut file = small_file();
    file[4] = 3;
    match Container::parse(&file) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("version 3"), "{msg}"),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    file[4] = 0;
    assert!(corrupt_container_msg(Container::parse(&file)).contains("version 0"));
}

#[test]
fn unknown_codec_is_unsupported() {
    let mut file = small_file();
    file[6] = 0xFE;
    assert!(matches!(
        Container::parse(&file),
        Err(Error::Unsupported(msg)) if msg.contains("codec")
    ));
}

#[test]
fn nonzero_flags_are_rejected() {
    for bit in 0..16 {
        let mut file = small_file();
        file[8 + bit / 8] ^= 1 << (bit % 8);
        reseal(&mut file);
        assert!(corrupt_container_msg(Container::parse(&file)).contains("flags"));
    }
}

#[test]
fn each_header_field_rule_has_a_clear_message() {
    // (byte offset, new little-endian bytes, words the message must contain)
    let cases: &[(usize, &[u8], &str)] = &[
        (10, &[11], "element type"),
        (10, &[0xFF], "element type"),
        (11, &[5], "ndim"),
        (12, &[0, 0, 0, 0], "chunk size is 0"),
        (12, &[1, 0, 0, 0x40], "exceeds the maximum"),
        (24, &[4, 0, 0, 0], "chunk count is 4"),
        (24, &[0, 0, 0, 0], "chunk count is 0"),
        (28, &[65, 0, 0, 0], "codec params length"),
        (28, &[0xFF, 0xFF, 0xFF, 0xFF], "codec params length"),
        (32, &[51], "shape"),
        (16, &[99], "shape"),
    ];
    for &(offset, patch, words) in cases {
        let mut file = small_file();
        file[offset..offset + patch.len()].copy_from_slice(patch);
        let msg = corrupt_container_msg(Container::parse(&file));
        assert!(
            msg.contains(words),
            "patch at {offset}: {msg:?} lacks {words:?}"
        );
    }
}

#[test]
fn total_that_needs_too_many_chunks_is_rejected() {
    // 2^40 bytes in 1-byte chunks would be 2^40 chunks: more than the u32 field holds.
    let mut file = write(&header(ElemType::Bytes, &[], 0, 1), &[], &[]);
    file[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(corrupt_container_msg(Container::parse(&file)).contains("2^32"));
}

#[test]
fn huge_chunk_count_in_a_tiny_file_is_truncated_before_allocating() {
    let mut file = write(&header(ElemType::Bytes, &[], 0, 1), &[], &[]);
    file[16..24].copy_from_slice(&u64::from(u32::MAX).to_le_bytes());
    file[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    file.resize(100, 0);
    let msg = truncated_msg(Container::parse(&file));
    assert!(msg.contains("4294967295 chunks"), "{msg}");
}

#[test]
fn header_checksum_mismatch_is_reported() {
    let mut file = small_file();
    let start = payload_start(&file);
    file[start - 1] ^= 1;
    assert!(corrupt_container_msg(Container::parse(&file)).contains("header checksum mismatch"));
    // The checksum covers the table too.
    let mut file = small_file();
    file[32 + 8 + 4 + 24 + 20] ^= 4;
    assert!(corrupt_container_msg(Container::parse(&file)).contains("header checksum mismatch"));
}

/// Offset of chunk `i`'s table entry in `small_file()` (one dim, 4 bytes of params).
fn small_entry(i: usize) -> usize {
    32 + 8 + 4 + 24 * i
}

#[test]
fn table_rules_have_clear_messages_even_with_a_valid_checksum() {
    // Offsets must be contiguous.
    let mut file = small_file();
    let e = small_entry(2);
    file[e..e + 8].copy_from_slice(&8u64.to_le_bytes());
    reseal(&mut file);
    let msg = corrupt_container_msg(Container::parse(&file));
    assert!(
        msg.contains("chunk 2 starts at payload offset 8, expected 7"),
        "{msg}"
    );

    // The first chunk starts at 0.
    let mut file = small_file();
    file[small_entry(0)] = 1;
    reseal(&mut file);
    assert!(corrupt_container_msg(Container::parse(&file)).contains("chunk 0 starts"));

    // Uncompressed sizes: chunk_size for all but the last, the rest for the last.
    let mut file = small_file();
    let e = small_entry(1) + 12;
    file[e..e + 4].copy_from_slice(&39u32.to_le_bytes());
    reseal(&mut file);
    let msg = corrupt_container_msg(Container::parse(&file));
    assert!(
        msg.contains("chunk 1 has uncompressed size 39, expected 40"),
        "{msg}"
    );

    let mut file = small_file();
    let e = small_entry(2) + 12;
    file[e..e + 4].copy_from_slice(&40u32.to_le_bytes());
    reseal(&mut file);
    let msg = corrupt_container_msg(Container::parse(&file));
    assert!(
        msg.contains("chunk 2 has uncompressed size 40, expected 20"),
        "{msg}"
    );

    // A compressed size that runs past the payload is truncation.
    let mut file = small_file();
    let e = small_entry(2) + 8;
    file[e..e + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(&mut file);
    assert!(truncated_msg(Container::parse(&file)).contains("payload"));
}

#[test]
fn trailing_bytes_are_rejected() {
    let mut file = small_file();
    file.push(0);
    let msg = corrupt_container_msg(Container::parse(&file));
    assert!(msg.contains("1 trailing bytes"), "{msg}");
}

/// A typed flat stream holds a whole number of elements, as a shaped one does: the reader
/// rejects a total size that is not (docs/format.md, validation step 11), and the writer
/// refuses to write one.
#[test]
fn a_typed_flat_stream_of_a_partial_element_is_rejected() {
    // 9 bytes in chunks of 4: 4, 4, 1.
    let h = header(ElemType::Bytes, &[], 9, 4);
    let (payload, spans) = layout(&h, &[2, 3, 1], 0, false, 6);
    let file = write(&h, &payload, &spans);
    assert!(Container::parse(&file).is_ok());
    for elem in [ElemType::U16, ElemType::I32, ElemType::F64] {
        let mut bad = file.clone();
        bad[10] = elem.to_u8();
        reseal(&mut bad);
        let msg = corrupt_container_msg(Container::parse(&bad));
        assert!(msg.contains("not a whole number of"), "{elem}: {msg}");
        let mut typed = h.clone();
        typed.elem_type = elem;
        let mut sink = Vec::new();
        let msg = invalid_argument_msg(write_container(&mut sink, &typed, &payload, &spans));
        assert!(msg.contains("not a whole number of"), "{elem}: {msg}");
        assert!(sink.is_empty());
    }
    // 40,001 bytes of i32: the total alone decides, whatever the chunk size.
    let mut big = header(ElemType::Bytes, &[], 40_001, 1 << 20);
    big.codec_params = Vec::new();
    let (payload, spans) = layout(&big, &[5], 0, false, 7);
    let mut bad = write(&big, &payload, &spans);
    bad[10] = ElemType::I32.to_u8();
    reseal(&mut bad);
    assert!(corrupt_container_msg(Container::parse(&bad)).contains("40001"));
}

// ---------------------------------------------------------------------------------------------
// Which error each condition gives, in the order docs/format.md ("Validation") lists the steps

fn unsupported_msg(result: warpzip::Result<Container<'_>>) -> String {
    match result {
        Err(Error::Unsupported(msg)) => msg,
        other => panic!("expected Unsupported, got {other:?}"),
    }
}

/// Step 1: the magic is compared over the bytes the file has, so a short file that starts
/// like a `.wz` file is truncated and one that does not is not a `.wz` file at all.
#[test]
fn a_file_inside_the_magic_is_truncated_unless_its_bytes_differ() {
    assert!(truncated_msg(Container::parse(&[])).contains("magic"));
    assert!(truncated_msg(Container::parse(&[0x89, 0x57, 0x5A])).contains("magic"));
    assert!(corrupt_container_msg(Container::parse(&[0x89, 0x58])).contains("not a .wz file"));
    assert!(corrupt_container_msg(Container::parse(&[0x1F, 0x8B, 8])).contains("not a .wz file"));
}

/// Steps 2 and 3: the version is read and checked before anything after it, so a short file
/// of a newer version is unsupported, and one of version 1 that ends in the fixed header is
/// truncated.
#[test]
fn the_version_is_checked_before_the_rest_of_the_fixed_header_is_read() {
    let file = small_file();
    assert!(truncated_msg(Container::parse(&file[..5])).contains("format version"));
    assert!(truncated_msg(Container::parse(&file[..12])).contains("chunk size"));
    assert!(truncated_msg(Container::parse(&file[..31])).contains("codec params length"));
    for len in [6, 12, 20, 31] {
        let mut v3 = file[..len].to_vec();
        v3[4] = 3;
        assert!(
            unsupported_msg(Container::parse(&v3)).contains("version 3"),
            "{len}"
        );
        let mut v0 = file[..len].to_vec();
        v0[4] = 0;
        assert!(corrupt_container_msg(Container::parse(&v0)).contains("version 0"));
    }
}

/// Steps 4 to 8 look only at the 32 bytes of the fixed header: they are checked once it is
/// read, even when the file ends right after it, and before the dims are read.
#[test]
fn fixed_header_rules_apply_to_a_file_that_ends_after_the_fixed_header() {
    let file = small_file();
    let mut codec = file[..32].to_vec();
    codec[6] = 0xFE;
    assert!(unsupported_msg(Container::parse(&codec)).contains("codec"));
    // An unknown codec in a file that ends inside the fixed header is truncation.
    assert!(truncated_msg(Container::parse(&codec[..20])).contains("total size"));
    let cases: &[(usize, u8, &str)] = &[
        (8, 1, "flags"),
        (10, 11, "element type"),
        (11, 5, "ndim"),
        (28, 65, "codec params length"),
    ];
    for &(offset, value, words) in cases {
        let mut bad = file[..32].to_vec();
        bad[offset] = value;
        let msg = corrupt_container_msg(Container::parse(&bad));
        assert!(msg.contains(words), "{offset}: {msg}");
    }
    // With those rules met, the file is truncated in the dims.
    assert!(truncated_msg(Container::parse(&file[..32])).contains("dims"));
}

/// Step 9: a file that ends inside the dims or the codec params is truncated, whatever the
/// fields that are checked after them (chunk size, dims against total size, chunk count) say.
#[test]
fn a_file_that_ends_inside_the_dims_or_params_is_truncated() {
    let file = small_file();
    // small_file: one dim (bytes 32..40), 4 bytes of params (40..44).
    for len in [33, 39] {
        let mut bad = file[..len].to_vec();
        assert!(
            truncated_msg(Container::parse(&bad)).contains("dims"),
            "{len}"
        );
        bad[12..16].copy_from_slice(&0u32.to_le_bytes());
        bad[24..28].copy_from_slice(&9u32.to_le_bytes());
        assert!(
            truncated_msg(Container::parse(&bad)).contains("dims"),
            "{len}"
        );
    }
    for len in [40, 43] {
        let mut bad = file[..len].to_vec();
        assert!(truncated_msg(Container::parse(&bad)).contains("codec params"));
        bad[16..24].copy_from_slice(&7u64.to_le_bytes());
        assert!(truncated_msg(Container::parse(&bad)).contains("codec params"));
    }
    // Once the dims and params are read, the header rules come before the table's length.
    let mut bad = file[..44].to_vec();
    bad[32..40].copy_from_slice(&51u64.to_le_bytes());
    assert!(corrupt_container_msg(Container::parse(&bad)).contains("shape"));
    bad[32..40].copy_from_slice(&50u64.to_le_bytes());
    assert!(truncated_msg(Container::parse(&bad)).contains("header and table"));
}

/// Steps 13 to 16: a short table or header checksum is truncation (before the checksum is
/// compared); a header checksum mismatch comes before the table's rules; a short payload is
/// truncation and a long one corrupt.
#[test]
fn table_and_payload_errors_come_in_the_documented_order() {
    let file = small_file();
    let start = payload_start(&file);
    let mut cut = file[..start - 1].to_vec();
    cut[start - 9] ^= 1;
    assert!(truncated_msg(Container::parse(&cut)).contains("header and table"));
    // A table entry that breaks a rule, without a reseal: the checksum speaks first.
    let mut bad = file.clone();
    bad[small_entry(1)] = 9;
    assert!(corrupt_container_msg(Container::parse(&bad)).contains("header checksum"));
    reseal(&mut bad);
    assert!(corrupt_container_msg(Container::parse(&bad)).contains("chunk 1 starts"));
    // The payload's length is checked last: a short payload with a bad table entry is corrupt.
    let short = &bad[..bad.len() - 1];
    assert!(corrupt_container_msg(Container::parse(short)).contains("chunk 1 starts"));
    assert!(truncated_msg(Container::parse(&file[..file.len() - 1])).contains("payload"));
    let mut long = file.clone();
    long.push(0);
    assert!(corrupt_container_msg(Container::parse(&long)).contains("trailing"));
}

// ---------------------------------------------------------------------------------------------
// Codec chunk sizes the writer never writes: what warpzip's CPU reader does with them, as
// docs/format.md says ("a reader may reject"; warpzip decodes them, or names the chunk)

/// A container of `data` cut at `chunk_size`, each chunk encoded by `encode`.
fn sealed(
    codec: CodecId,
    elem_type: ElemType,
    params: Vec<u8>,
    data: &[u8],
    chunk_size: usize,
    encode: impl Fn(&[u8]) -> Vec<u8>,
) -> Vec<u8> {
    let mut payload = Vec::new();
    let mut spans = Vec::new();
    for chunk in data.chunks(chunk_size) {
        let bytes = encode(chunk);
        spans.push(ChunkSpan {
            offset: payload.len(),
            compressed_len: bytes.len() as u32,
            uncompressed_len: chunk.len() as u32,
        });
        payload.extend_from_slice(&bytes);
    }
    let h = Header {
        codec,
        codec_params: params,
        elem_type,
        shape: Vec::new(),
        total_len: data.len() as u64,
        chunk_size: chunk_size as u32,
    };
    write(&h, &payload, &spans)
}

#[test]
fn rle_chunks_of_a_size_that_is_no_multiple_of_the_segment_are_refused() {
    use warpzip::codec::rle;
    let data: Vec<u8> = lcg_bytes(8, 12_000).iter().map(|b| b % 3).collect();
    let file = sealed(
        CodecId::Rle,
        ElemType::Bytes,
        rle::format::codec_params(),
        &data,
        5000,
        |chunk| {
            let mut out = Vec::new();
            rle::cpu::encode_chunk(chunk, &mut out);
            out
        },
    );
    assert_eq!(Container::parse(&file).unwrap().chunk_count(), 3);
    // The container is valid; the rle decoder refuses the chunk size on every device.
    assert!(matches!(
        warpzip::decompress(&file, &warpzip::Device::Cpu),
        Err(Error::CorruptContainer(m)) if m.contains("5000")
    ));
}

#[test]
fn orc_rle_chunks_of_partial_values_name_the_first_such_chunk() {
    use warpzip::codec::orc_rle::{chunked, format};
    let layout = format::Layout::default_for(ElemType::I32);
    let params = format::codec_params(ElemType::I32, layout).unwrap();
    let values: Vec<u8> = [7i32, -3, 12]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let encode = |chunk: &[u8]| {
        if chunk.len().is_multiple_of(4) {
            chunked::encode_chunk(chunk, ElemType::I32, format::RleVersion::V2, layout).unwrap()
        } else {
            vec![0; 3]
        }
    };
    // 12 bytes in chunks of 6: chunk 0 holds a value and a half.
    let file = sealed(
        CodecId::OrcRleV2,
        ElemType::I32,
        params.clone(),
        &values,
        6,
        encode,
    );
    match warpzip::decompress(&file, &warpzip::Device::Cpu) {
        Err(Error::Corrupt { chunk: 0, .. }) => {}
        other => panic!("expected Corrupt in chunk 0, got {other:?}"),
    }
    // One chunk: its size is the total, a whole number of values, whatever the chunk size.
    let file = sealed(
        CodecId::OrcRleV2,
        ElemType::I32,
        params,
        &values,
        14,
        encode,
    );
    assert_eq!(
        warpzip::decompress(&file, &warpzip::Device::Cpu).unwrap(),
        values
    );
}

#[test]
fn deflate_chunks_below_the_writers_smallest_size_decode() {
    use warpzip::codec::deflate;
    let data: Vec<u8> = lcg_bytes(9, 5000).iter().map(|b| b'a' + b % 4).collect();
    let file = sealed(
        CodecId::Deflate,
        ElemType::Bytes,
        deflate::format::codec_params(6).unwrap(),
        &data,
        1000,
        |chunk| {
            let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(6).unwrap());
            let mut out = vec![0u8; c.deflate_compress_bound(chunk.len())];
            let n = c.deflate_compress(chunk, &mut out).unwrap();
            out.truncate(n);
            out
        },
    );
    assert_eq!(Container::parse(&file).unwrap().chunk_count(), 5);
    assert_eq!(
        warpzip::decompress(&file, &warpzip::Device::Cpu).unwrap(),
        data
    );
}

#[test]
fn verify_chunk_out_of_range_is_an_invalid_argument() {
    let file = small_file();
    let c = Container::parse(&file).unwrap();
    assert!(matches!(c.verify_chunk(3), Err(Error::InvalidArgument(_))));
    assert!(c.chunk_bytes(3).is_empty());
    assert!(c.chunk_bytes(usize::MAX).is_empty());
    assert_eq!(c.uncompressed_offset(2), 80);
    assert_eq!(c.uncompressed_offset(usize::MAX), 100);
}

#[test]
fn peek_header_reads_a_file_whose_table_is_missing() {
    let file = small_file();
    let h = peek_header(&file[..32 + 8 + 4]).unwrap();
    assert_eq!(h, header(ElemType::U16, &[50], 100, 40));
    assert!(matches!(peek_header(&file[..40]), Err(Error::Truncated(_))));
}

// ---------------------------------------------------------------------------------------------
// The writer refuses what the reader would reject

#[test]
fn writer_rejects_inconsistent_input() {
    let h = header(ElemType::U16, &[50], 100, 40);
    let (payload, spans) = layout(&h, &[7, 0, 13], 0, false, 4);
    let mut sink = Vec::new();
    let mut w = |h: &Header, spans: &[ChunkSpan]| {
        let r = write_container(&mut sink, h, &payload, spans);
        assert!(sink.is_empty(), "wrote bytes before refusing");
        invalid_argument_msg(r)
    };

    assert!(w(&h, &spans[..2]).contains("2 chunk spans given"));
    let mut bad = spans.clone();
    bad[0].uncompressed_len = 41;
    assert!(w(&h, &bad).contains("chunk 0 has uncompressed size 41"));
    let mut bad = spans.clone();
    bad[2].offset = 10;
    assert!(w(&h, &bad).contains("past the payload"));
    let mut bad = spans.clone();
    bad[2].offset = usize::MAX;
    assert!(w(&h, &bad).contains("past the payload"));

    let mut bad = h.clone();
    bad.shape = vec![49];
    assert!(w(&bad, &spans).contains("shape"));
    bad.shape = vec![1, 1, 1, 1, 50];
    assert!(w(&bad, &spans).contains("ndim"));
    let mut bad = h.clone();
    bad.codec_params = vec![0; 65];
    assert!(w(&bad, &spans).contains("codec params"));
    let mut bad = h.clone();
    bad.chunk_size = 0;
    assert!(w(&bad, &spans).contains("chunk size is 0"));
    bad.chunk_size = (1 << 30) + 1;
    assert!(w(&bad, &spans).contains("exceeds the maximum"));
    let mut bad = h.clone();
    bad.shape = vec![u64::MAX, 2];
    assert!(w(&bad, &spans).contains("shape"));
}

// ---------------------------------------------------------------------------------------------
// Fuzz seed corpus

/// Small valid and broken files for `fuzz/corpus/container_parse/`.
fn corpus_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let valid = small_file();
    let start = payload_start(&valid);
    let empty = write(&header(ElemType::Bytes, &[], 0, 4096), &[], &[]);
    let mut seeds = vec![
        ("valid_small.wz", valid.clone()),
        ("valid_empty.wz", empty.clone()),
        ("truncated_table.wz", valid[..start - 10].to_vec()),
        ("truncated_payload.wz", valid[..valid.len() - 1].to_vec()),
    ];
    let mut bad = valid.clone();
    bad[0] = b'P';
    seeds.push(("bad_magic.wz", bad));
    let mut bad = valid.clone();
    bad[start - 3] ^= 0x10;
    seeds.push(("bad_header_checksum.wz", bad));
    let mut bad = valid.clone();
    bad[start + 2] ^= 0x01;
    seeds.push(("bad_chunk_checksum.wz", bad));
    let mut bad = empty;
    bad[16..24].copy_from_slice(&u64::from(u32::MAX).to_le_bytes());
    bad[12..16].copy_from_slice(&1u32.to_le_bytes());
    bad[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
    seeds.push(("huge_chunk_count.wz", bad));
    let mut bad = valid.clone();
    let e = small_entry(1);
    bad[e..e + 8].copy_from_slice(&3u64.to_le_bytes());
    reseal(&mut bad);
    seeds.push(("noncontiguous_offsets.wz", bad));
    let mut bad = valid;
    bad.extend_from_slice(b"tail");
    seeds.push(("trailing_bytes.wz", bad));
    seeds
}

#[test]
fn fuzz_corpus_never_panics_the_parser() {
    let dir = corpus_dir();
    if bless() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in corpus_seeds() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= corpus_seeds().len(),
        "seed corpus is missing files"
    );
    let mut valid = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        if let Ok(c) = Container::parse(&bytes) {
            if c.verify_all().is_ok() {
                valid += 1;
            }
        }
        let _ = peek_header(&bytes);
    }
    assert!(valid >= 2, "the corpus should hold valid files too");
}

#[test]
fn corpus_seeds_fail_the_way_their_names_say() {
    for (name, bytes) in corpus_seeds() {
        let result = Container::parse(&bytes).and_then(|c| c.verify_all());
        assert_eq!(
            result.is_ok(),
            name.starts_with("valid"),
            "{name}: {result:?}"
        );
    }
}
