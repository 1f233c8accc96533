//! The CPU `rle` codec: canonical bytes against a naive reference encoder, round trips, every
//! decoder status on hand-made streams, no panics on truncated or bit-flipped chunks, the real
//! corpora, golden files, and the fuzz corpus.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::shared_data;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use warpzip::codec::rle::format::{max_compressed_len, DEFAULT_CHUNK_SIZE, SEGMENT_SIZE};
use warpzip::codec::rle::{chunked, cpu};
use warpzip::{ChunkStatus, Error};

/// Sizes at and around the segment boundaries.
const EDGE_SIZES: &[usize] = &[
    0, 1, 2, 3, 4, 127, 128, 129, 130, 4095, 4096, 4097, 8191, 8193,
];

// ---------------------------------------------------------------------------------------------
// The reference: obviously correct, slow.

/// Cuts `seg` into maximal runs of equal bytes: (value, length).
fn maximal_runs(seg: &[u8]) -> Vec<(u8, usize)> {
    let mut runs: Vec<(u8, usize)> = Vec::new();
    for &b in seg {
        match runs.last_mut() {
            Some((v, n)) if *v == b => *n += 1,
            _ => runs.push((b, 1)),
        }
    }
    runs
}

fn reference_flush_literals(lit: &mut Vec<u8>, out: &mut Vec<u8>) {
    for piece in lit.chunks(128) {
        out.push((piece.len() - 1) as u8);
        out.extend_from_slice(piece);
    }
    lit.clear();
}

fn reference_encode_segment(seg: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut lit = Vec::new();
    for (value, len) in maximal_runs(seg) {
        if len < 3 {
            lit.extend(std::iter::repeat_n(value, len));
            continue;
        }
        reference_flush_literals(&mut lit, &mut out);
        if len <= 129 {
            out.push(0x80 + (len - 3) as u8);
        } else {
            out.push(0xFF);
            let mut v = len - 130;
            loop {
                let b = (v & 0x7F) as u8;
                v >>= 7;
                if v == 0 {
                    out.push(b);
                    break;
                }
                out.push(b | 0x80);
            }
        }
        out.push(value);
    }
    reference_flush_literals(&mut lit, &mut out);
    out
}

fn reference_encode_chunk(input: &[u8]) -> Vec<u8> {
    let mut table = Vec::new();
    let mut body = Vec::new();
    for seg in input.chunks(4096) {
        body.extend(reference_encode_segment(seg));
        table.extend((body.len() as u32).to_le_bytes());
    }
    table.extend(body);
    table
}

// ---------------------------------------------------------------------------------------------
// Helpers.

fn encode(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    cpu::encode_chunk(input, &mut out);
    out
}

fn decode(input: &[u8], n: usize) -> Result<Vec<u8>, ChunkStatus> {
    let mut out = vec![0u8; n];
    cpu::decode_chunk(input, &mut out).map(|()| out)
}

/// Checks everything a chunk's encoding must satisfy.
fn check_chunk(input: &[u8]) {
    let enc = encode(input);
    assert!(
        enc.len() <= max_compressed_len(input.len()),
        "{} > bound {} for n = {}",
        enc.len(),
        max_compressed_len(input.len()),
        input.len()
    );
    let reference = reference_encode_chunk(input);
    assert!(enc == reference, "not canonical for n = {}", input.len());
    assert_eq!(decode(&enc, input.len()).as_deref(), Ok(input));
    // Appending keeps what is already in the buffer.
    let mut appended = vec![0xAB; 5];
    cpu::encode_chunk(input, &mut appended);
    assert_eq!(&appended[..5], &[0xAB; 5]);
    assert_eq!(&appended[5..], &enc[..]);
}

fn round_trip_chunked(data: &[u8], chunk_size: usize) {
    let (payload, spans) = chunked::compress(data, chunk_size).unwrap();
    assert_eq!(spans.len(), data.len().div_ceil(chunk_size));
    let mut expected_offset = 0;
    let mut chunks = Vec::new();
    for (span, piece) in spans.iter().zip(data.chunks(chunk_size)) {
        assert_eq!(span.offset, expected_offset, "spans must be contiguous");
        assert_eq!(span.uncompressed_len as usize, piece.len());
        let bytes = &payload[span.offset..span.offset + span.compressed_len as usize];
        assert!(bytes == encode(piece), "chunk differs from encode_chunk");
        chunks.push((bytes, piece.len()));
        expected_offset += span.compressed_len as usize;
    }
    assert_eq!(expected_offset, payload.len());
    let mut out = vec![0u8; data.len()];
    chunked::decompress_into(&chunks, &mut out).unwrap();
    assert!(out == data, "chunked round trip differs");
}

/// Input of `len` bytes built by repeating `runs` (value, length) cyclically.
fn from_runs(runs: &[(u8, usize)], len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(len);
    if runs.is_empty() {
        out.resize(len, 0x5A);
        return out;
    }
    'fill: loop {
        for &(v, n) in runs {
            for _ in 0..n {
                if out.len() == len {
                    break 'fill;
                }
                out.push(v);
            }
        }
    }
    out
}

fn size_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![prop::sample::select(EDGE_SIZES.to_vec()), 0usize..20_000]
}

fn runs_strategy() -> impl Strategy<Value = Vec<(u8, usize)>> {
    let symbol = prop::sample::select(vec![0u8, 1, b'a', 0xFF]);
    let length = prop_oneof![1usize..6, 1usize..5000, 125usize..135];
    prop::collection::vec((symbol, length), 1..40)
}

/// A valid but usually non-canonical token stream for one segment: random literal lengths,
/// runs split at random points, long runs with padded varints.
fn random_valid_segment(seg: &[u8], rng: &mut StdRng) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < seg.len() {
        let run = seg[i..].iter().take_while(|&&b| b == seg[i]).count();
        if run >= 3 && rng.gen_bool(0.7) {
            let len = rng.gen_range(3..=run);
            if len >= 130 && rng.gen_bool(0.8) {
                // Long run; varint padded to a random length of 1..=3 bytes where it fits.
                let v = len - 130;
                let min_bytes = if v < 0x80 { 1 } else { 2 };
                let bytes = rng.gen_range(min_bytes..=3);
                out.push(0xFF);
                for k in 0..bytes {
                    let b = ((v >> (7 * k)) & 0x7F) as u8;
                    out.push(if k + 1 < bytes { b | 0x80 } else { b });
                }
                out.push(seg[i]);
                i += len;
            } else {
                let len = len.min(129);
                out.push(0x80 + (len - 3) as u8);
                out.push(seg[i]);
                i += len;
            }
        } else {
            let len = rng.gen_range(1..=(seg.len() - i).min(128));
            out.push((len - 1) as u8);
            out.extend_from_slice(&seg[i..i + len]);
            i += len;
        }
    }
    out
}

fn random_valid_chunk(input: &[u8], rng: &mut StdRng) -> Vec<u8> {
    let mut table = Vec::new();
    let mut body = Vec::new();
    for seg in input.chunks(SEGMENT_SIZE) {
        body.extend(random_valid_segment(seg, rng));
        table.extend((body.len() as u32).to_le_bytes());
    }
    table.extend(body);
    table
}

/// A chunk of `n` bytes with one segment per entry of `segments` (table built here).
fn chunk_of(segments: &[&[u8]]) -> Vec<u8> {
    let mut table = Vec::new();
    let mut body = Vec::new();
    for s in segments {
        body.extend_from_slice(s);
        table.extend((body.len() as u32).to_le_bytes());
    }
    table.extend(body);
    table
}

/// Mixed data: runs, text, noise, short runs of two.
fn mixed_input(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        match rng.gen_range(0..4) {
            0 => {
                let v: u8 = rng.gen();
                let n = rng.gen_range(1..600);
                out.extend(std::iter::repeat_n(v, n));
            }
            1 => out.extend_from_slice(b"the quick brown fox jumps over the lazy dog  "),
            2 => {
                for _ in 0..rng.gen_range(1..300) {
                    out.push(rng.gen());
                }
            }
            _ => {
                for _ in 0..rng.gen_range(1..50) {
                    let v = rng.gen_range(0..3u8);
                    out.push(v);
                    out.push(v);
                }
            }
        }
    }
    out.truncate(len);
    out
}

// ---------------------------------------------------------------------------------------------
// Property tests.

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_are_canonical_and_round_trip(
        data in size_strategy().prop_flat_map(|n| prop::collection::vec(any::<u8>(), n))
    ) {
        check_chunk(&data);
    }

    #[test]
    fn few_symbol_bytes_are_canonical_and_round_trip(
        data in size_strategy().prop_flat_map(|n| {
            prop::collection::vec(prop::sample::select(vec![0u8, 7]), n)
        })
    ) {
        check_chunk(&data);
    }

    #[test]
    fn run_heavy_input_is_canonical_and_round_trips(
        runs in runs_strategy(),
        n in size_strategy(),
    ) {
        check_chunk(&from_runs(&runs, n));
    }

    #[test]
    fn chunked_round_trips(
        runs in runs_strategy(),
        n in 0usize..40_000,
        segments_per_chunk in 1usize..4,
        noisy in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let data = if noisy { mixed_input(n, seed) } else { from_runs(&runs, n) };
        round_trip_chunked(&data, segments_per_chunk * SEGMENT_SIZE);
    }

    #[test]
    fn decoder_accepts_non_canonical_streams(
        runs in runs_strategy(),
        n in size_strategy(),
        seed in any::<u64>(),
    ) {
        let data = from_runs(&runs, n);
        let mut rng = StdRng::seed_from_u64(seed);
        let stream = random_valid_chunk(&data, &mut rng);
        let decoded = decode(&stream, n);
        prop_assert_eq!(decoded.as_deref(), Ok(&data[..]));
    }

    #[test]
    fn random_streams_never_panic(
        stream in prop::collection::vec(any::<u8>(), 0..300),
        n in 0usize..9000,
    ) {
        let _ = decode(&stream, n);
    }
}

// ---------------------------------------------------------------------------------------------
// Fixed examples.

#[test]
fn edge_sizes_of_every_shape_are_canonical() {
    for &n in EDGE_SIZES
        .iter()
        .chain(&[2 * 4096 + 1, 3 * 4096 - 1, 5 * 4096])
    {
        check_chunk(&vec![0u8; n]);
        check_chunk(&(0..n).map(|i| (i * 7 + i / 3) as u8).collect::<Vec<_>>());
        check_chunk(&(0..n).map(|i| (i / 2) as u8).collect::<Vec<_>>());
        check_chunk(&(0..n).map(|i| (i / 3) as u8).collect::<Vec<_>>());
        check_chunk(&mixed_input(n, n as u64));
    }
}

#[test]
fn run_across_segment_boundary_is_split() {
    // 4000 literal-ish bytes, then a run of 200 that straddles the boundary at 4096.
    let mut data: Vec<u8> = (0..4000).map(|i| (i % 251) as u8).collect();
    data.extend([9u8; 200]);
    check_chunk(&data);
    let enc = encode(&data);
    let first_end = u32::from_le_bytes(enc[0..4].try_into().unwrap()) as usize;
    // Segment 1 starts with a run of 104 nines: a short run token.
    assert_eq!(&enc[8 + first_end..], &[0x80 + 101, 9]);
}

#[test]
fn worked_example_from_the_docs() {
    let input = b"aaaaabccde";
    let enc = encode(input);
    assert_eq!(
        enc,
        [0x08, 0x00, 0x00, 0x00, 0x82, 0x61, 0x04, 0x62, 0x63, 0x63, 0x64, 0x65]
    );
    assert_eq!(decode(&enc, 10).unwrap(), input);
}

#[test]
fn long_runs_use_leb128() {
    let enc = encode(&[5u8; 4096]);
    // 4096 - 130 = 3966 = 0x0F7E -> 0xFE 0x1E.
    assert_eq!(enc, [4, 0, 0, 0, 0xFF, 0xFE, 0x1E, 5]);
    assert_eq!(encode(&[5u8; 130]), [3, 0, 0, 0, 0xFF, 0x00, 5]);
    assert_eq!(encode(&[5u8; 129]), [2, 0, 0, 0, 0xFE, 5]);
    assert_eq!(encode(&[5u8; 3]), [2, 0, 0, 0, 0x80, 5]);
    assert_eq!(encode(&[5u8; 2]), [3, 0, 0, 0, 0x01, 5, 5]);
    assert_eq!(encode(&[]), Vec::<u8>::new());
}

#[test]
fn encode_segment_matches_reference() {
    let data = mixed_input(3 * SEGMENT_SIZE, 11);
    for seg in data.chunks(SEGMENT_SIZE) {
        let mut out = vec![1, 2, 3];
        cpu::encode_segment(seg, &mut out);
        assert_eq!(&out[..3], &[1, 2, 3]);
        assert_eq!(out[3..], reference_encode_segment(seg));
    }
    // Longer than a segment: the pieces' streams, back to back.
    let mut whole = Vec::new();
    cpu::encode_segment(&data, &mut whole);
    let pieces: Vec<u8> = data
        .chunks(SEGMENT_SIZE)
        .flat_map(reference_encode_segment)
        .collect();
    assert_eq!(whole, pieces);
}

#[test]
fn encode_chunk_into_rejects_short_buffers() {
    let data = mixed_input(5000, 3);
    let mut dst = vec![0u8; max_compressed_len(data.len()) - 1];
    assert_eq!(cpu::encode_chunk_into(&data, &mut dst), None);
    let mut dst = vec![0u8; max_compressed_len(data.len())];
    let n = cpu::encode_chunk_into(&data, &mut dst).unwrap();
    assert_eq!(dst[..n], encode(&data));
}

#[test]
fn non_canonical_hand_made_streams_decode() {
    // A run of three inside a literal.
    assert_eq!(
        decode(&chunk_of(&[&[0x04, b'a', b'a', b'a', b'b', b'b']]), 5).unwrap(),
        b"aaabb"
    );
    // Two adjacent literals.
    assert_eq!(
        decode(&chunk_of(&[&[0x01, b'a', b'b', 0x00, b'c']]), 3).unwrap(),
        b"abc"
    );
    // Two adjacent runs of the same value.
    assert_eq!(
        decode(&chunk_of(&[&[0x80, b'x', 0x81, b'x']]), 7).unwrap(),
        b"xxxxxxx"
    );
    // A long run with a padded (non-minimal) three-byte varint: 130 + 1.
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0x81, 0x80, 0x00, b'z']]), 131).unwrap(),
        vec![b'z'; 131]
    );
    // A long run whose varint is 0x7F in two bytes: 130 + 127 = 257.
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0xFF, 0x00, b'q']]), 257).unwrap(),
        vec![b'q'; 257]
    );
}

#[test]
fn truncated_streams_are_reported() {
    use ChunkStatus::Truncated;
    // The table does not fit.
    assert_eq!(decode(&[], 10), Err(Truncated));
    assert_eq!(decode(&[1, 0, 0], 10), Err(Truncated));
    assert_eq!(decode(&[8, 0, 0, 0, 0, 0, 0], 4097), Err(Truncated));
    // A table entry past the token area.
    assert_eq!(decode(&[5, 0, 0, 0, 0x80, b'x'], 3), Err(Truncated));
    // A literal's payload past the segment's bytes.
    assert_eq!(decode(&chunk_of(&[&[0x09, b'a']]), 10), Err(Truncated));
    // A literal cut by the segment boundary (its bytes belong to segment 1).
    let seg0: Vec<u8> = [&[0x7F][..], &[1u8; 127][..]].concat();
    assert_eq!(
        decode(&chunk_of(&[&seg0, &[0x00, 1]]), 4097),
        Err(Truncated)
    );
    // A run's value byte, a varint's bytes.
    assert_eq!(decode(&chunk_of(&[&[0x87]]), 10), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[0xFF]]), 200), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[0xFF, 0x80]]), 200), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[0xFF, 0x05]]), 200), Err(Truncated));
}

#[test]
fn overflowing_streams_are_reported() {
    use ChunkStatus::Overflow;
    assert_eq!(decode(&chunk_of(&[&[0x87, b'x']]), 5), Err(Overflow));
    let mut lit = vec![0x09];
    lit.extend([b'l'; 10]);
    assert_eq!(decode(&chunk_of(&[&lit]), 5), Err(Overflow));
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0x00, b'x']]), 100),
        Err(Overflow)
    );
    // Overflow is checked before a literal's payload is read.
    assert_eq!(decode(&chunk_of(&[&[0x09, b'a']]), 5), Err(Overflow));
    // A long run larger than any segment.
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0xFF, 0xFF, 0x7F, b'x']]), 4096),
        Err(Overflow)
    );
    // Overflow of the short last segment of a chunk.
    let full = encode(&[3u8; 4096]);
    let seg0 = &full[4..];
    assert_eq!(
        decode(&chunk_of(&[seg0, &[0x80, b'x']]), 4097),
        Err(Overflow)
    );
}

#[test]
fn underflowing_streams_are_reported() {
    use ChunkStatus::Underflow;
    assert_eq!(decode(&chunk_of(&[&[0x80, b'x']]), 10), Err(Underflow));
    assert_eq!(decode(&chunk_of(&[&[]]), 10), Err(Underflow));
    let full = encode(&[3u8; 4096]);
    assert_eq!(
        decode(&chunk_of(&[&full[4..], &[0x80, b'x']]), 4100),
        Err(Underflow)
    );
    // The first failing segment decides, even when a later one fails differently.
    assert_eq!(
        decode(&chunk_of(&[&[0x80, b'x'], &[0xFF]]), 5000),
        Err(Underflow)
    );
}

#[test]
fn corrupt_streams_are_reported() {
    use ChunkStatus::Corrupt;
    // Bytes left over in a segment after it is full.
    assert_eq!(
        decode(&chunk_of(&[&[0x80, b'x', 0x00, b'y']]), 3),
        Err(Corrupt)
    );
    // A varint of more than three bytes.
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0x80, 0x80, 0x80, 0x00, b'x']]), 4096),
        Err(Corrupt)
    );
    // A decreasing table.
    assert_eq!(
        decode(&[4, 0, 0, 0, 2, 0, 0, 0, 0x80, b'x', 0, 0], 4097),
        Err(Corrupt)
    );
    // Bytes after the last segment.
    assert_eq!(decode(&[2, 0, 0, 0, 0x80, b'x', 0], 3), Err(Corrupt));
    // An empty chunk with bytes.
    assert_eq!(decode(&[0], 0), Err(Corrupt));
    assert_eq!(decode(&[], 0), Ok(vec![]));
}

#[test]
fn every_truncation_is_an_error_and_never_panics() {
    let data = mixed_input(3 * SEGMENT_SIZE - 100, 5);
    let enc = encode(&data);
    for cut in 0..enc.len() {
        assert_eq!(
            decode(&enc[..cut], data.len()),
            Err(ChunkStatus::Truncated),
            "cut at {cut}"
        );
    }
    assert_eq!(decode(&enc, data.len()).unwrap(), data);
}

#[test]
fn every_bit_flip_never_panics() {
    let data = mixed_input(2 * SEGMENT_SIZE + 300, 9);
    let enc = encode(&data);
    assert!(enc.len() < 6000, "keep this test small: {}", enc.len());
    let mut flipped = enc.clone();
    let mut decoded_ok = 0;
    for byte in 0..enc.len() {
        for bit in 0..8 {
            flipped[byte] ^= 1 << bit;
            if decode(&flipped, data.len()).is_ok() {
                decoded_ok += 1;
            }
            flipped[byte] ^= 1 << bit;
        }
    }
    // Flipped payload bytes of literals and run values still decode; control bytes mostly not.
    assert!(decoded_ok > 0 && decoded_ok < enc.len() * 8);
}

#[test]
fn chunked_rejects_bad_arguments() {
    for bad in [0, 1, 4095, 4097, 5000, 3 * 4096 + 1] {
        assert!(matches!(
            chunked::compress(b"abc", bad),
            Err(Error::InvalidArgument(_))
        ));
    }
    let (payload, spans) = chunked::compress(&[], 4096).unwrap();
    assert!(payload.is_empty() && spans.is_empty());
    chunked::decompress_into(&[], &mut []).unwrap();

    let enc = encode(b"hello");
    let mut out = vec![0u8; 6];
    assert!(matches!(
        chunked::decompress_into(&[(&enc, 5)], &mut out),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        chunked::decompress_into(&[(&enc, usize::MAX), (&enc, 7)], &mut out),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn chunked_reports_the_lowest_failing_chunk() {
    let data = mixed_input(10 * 4096, 21);
    let (payload, spans) = chunked::compress(&data, 4096).unwrap();
    let mut chunks: Vec<(Vec<u8>, usize)> = spans
        .iter()
        .map(|s| {
            (
                payload[s.offset..s.offset + s.compressed_len as usize].to_vec(),
                s.uncompressed_len as usize,
            )
        })
        .collect();
    chunks[3].0.pop();
    chunks[7].0.push(0);
    chunks[9].0.truncate(2);
    let refs: Vec<(&[u8], usize)> = chunks.iter().map(|(c, n)| (&c[..], *n)).collect();
    let mut out = vec![0u8; data.len()];
    match chunked::decompress_into(&refs, &mut out) {
        Err(Error::Corrupt { chunk, reason }) => {
            assert_eq!(chunk, 3);
            assert_eq!(reason, ChunkStatus::Truncated.reason());
        }
        other => panic!("expected chunk 3 to fail, got {other:?}"),
    }
    match chunked::decompress_into(&refs[4..], &mut out[4 * 4096..]) {
        Err(Error::Corrupt { chunk, reason }) => {
            assert_eq!(chunk, 3); // index 7 of the whole, 3 of this slice
            assert_eq!(reason, ChunkStatus::Corrupt.reason());
        }
        other => panic!("expected a corrupt chunk, got {other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Real data.

fn corpus_files() -> Vec<PathBuf> {
    let root = shared_data().join("corpora");
    let mut files = Vec::new();
    for corpus in ["canterbury", "calgary"] {
        let dir = root.join(corpus);
        let entries = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() >= 20,
        "expected the Canterbury and Calgary corpora, found {files:?}"
    );
    files
}

#[test]
fn real_corpora_round_trip_and_are_canonical() {
    for path in corpus_files() {
        let data = std::fs::read(&path).unwrap();
        for chunk_size in [DEFAULT_CHUNK_SIZE as usize, 64 * 1024] {
            round_trip_chunked(&data, chunk_size);
        }
        for piece in data.chunks(64 * 1024) {
            assert!(
                encode(piece) == reference_encode_chunk(piece),
                "{} is not canonical",
                path.display()
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Golden files: a change to them is a format change.

const GOLDEN_LEN: usize = 10_000;
const GOLDEN_CHUNK_SIZE: usize = 8192;

/// The golden input: a fixed LCG drives a mix of runs, literals, pairs and text.
fn golden_input() -> Vec<u8> {
    let mut state: u32 = 12345;
    let mut next = move || {
        state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        state >> 16
    };
    let mut out = Vec::with_capacity(GOLDEN_LEN);
    while out.len() < GOLDEN_LEN {
        let kind = next() % 5;
        let len = (next() % 300) as usize + 1;
        match kind {
            0 => out.extend(std::iter::repeat_n(next() as u8, len)),
            1 => out.extend((0..len).map(|_| next() as u8)),
            2 => out.extend((0..len).map(|i| b"warpzip "[i % 8])),
            3 => out.extend((0..len).map(|i| (i / 2) as u8)),
            _ => out.extend(std::iter::repeat_n(0u8, len * 5)),
        }
    }
    out.truncate(GOLDEN_LEN);
    out
}

fn golden_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data"))
}

/// Reads a golden file; with `WARPZIP_BLESS=1` (re)writes it from `fresh` first.
fn golden(name: &str, fresh: &[u8]) -> Vec<u8> {
    let path = golden_dir().join(name);
    if std::env::var("WARPZIP_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(golden_dir()).unwrap();
        std::fs::write(&path, fresh).unwrap();
    }
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "golden file {} missing ({e}); run with WARPZIP_BLESS=1 to create it",
            path.display()
        )
    })
}

#[test]
fn golden_files_are_stable() {
    let input = golden_input();
    let (payload, spans) = chunked::compress(&input, GOLDEN_CHUNK_SIZE).unwrap();
    let stored_input = golden("rle_golden_input.bin", &input);
    let stored_chunks = golden("rle_golden_chunk.bin", &payload);
    assert!(stored_input == input, "golden input generator changed");
    assert!(
        stored_chunks == payload,
        "rle encoding changed: this is a format change"
    );
    assert_eq!(spans.len(), 2);
    for piece in input.chunks(GOLDEN_CHUNK_SIZE) {
        check_chunk(piece);
    }

    // Decode the stored bytes, finding chunk 0's end from its own table (2 segments).
    let table_end = u32::from_le_bytes(stored_chunks[4..8].try_into().unwrap()) as usize;
    let first = &stored_chunks[..8 + table_end];
    let second = &stored_chunks[8 + table_end..];
    let mut out = vec![0u8; GOLDEN_LEN];
    chunked::decompress_into(
        &[
            (first, GOLDEN_CHUNK_SIZE),
            (second, GOLDEN_LEN - GOLDEN_CHUNK_SIZE),
        ],
        &mut out,
    )
    .unwrap();
    assert!(out == stored_input);
}

// ---------------------------------------------------------------------------------------------
// The fuzz target's logic (`fuzz/fuzz_targets/rle_decode.rs`), run over its corpus.

/// Must match `fuzz/fuzz_targets/rle_decode.rs`.
fn rle_decode_check(data: &[u8]) {
    let Some((len_bytes, stream)) = data.split_first_chunk::<2>() else {
        return;
    };
    let n = usize::from(u16::from_le_bytes(*len_bytes)) % (3 * 4096 + 7);
    let mut out = vec![0u8; n];
    if cpu::decode_chunk(stream, &mut out).is_ok() {
        let mut again = Vec::new();
        cpu::encode_chunk(&out, &mut again);
        assert!(again.len() <= max_compressed_len(n));
        let mut back = vec![0u8; n];
        assert_eq!(cpu::decode_chunk(&again, &mut back), Ok(()));
        assert!(back == out, "re-encoded chunk does not round-trip");
    }
}

/// Seeds of the fuzz corpus: (name, output length, stream). Written by `WARPZIP_BLESS=1`.
fn fuzz_seeds() -> Vec<(&'static str, u16, Vec<u8>)> {
    let mixed = mixed_input(2 * 4096 + 5, 77);
    let mut rng = StdRng::seed_from_u64(78);
    vec![
        ("empty", 0, vec![]),
        ("worked_example", 10, encode(b"aaaaabccde")),
        ("long_run", 4096, encode(&[5u8; 4096])),
        ("mixed_three_segments", mixed.len() as u16, encode(&mixed)),
        (
            "non_canonical",
            mixed.len() as u16,
            random_valid_chunk(&mixed, &mut rng),
        ),
        (
            "padded_varint",
            131,
            chunk_of(&[&[0xFF, 0x81, 0x80, 0x00, b'z']]),
        ),
        (
            "varint_too_long",
            4096,
            chunk_of(&[&[0xFF, 0x80, 0x80, 0x80, 0x00, b'x']]),
        ),
        ("truncated_literal", 10, chunk_of(&[&[0x09, b'a']])),
        ("overflow_run", 5, chunk_of(&[&[0x87, b'x']])),
        ("underflow", 10, chunk_of(&[&[0x80, b'x']])),
        (
            "decreasing_table",
            4097,
            vec![4, 0, 0, 0, 2, 0, 0, 0, 0x80, b'x', 0, 0],
        ),
    ]
}

#[test]
fn fuzz_corpus_runs_clean() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/rle_decode"
    ));
    if std::env::var("WARPZIP_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, n, stream) in fuzz_seeds() {
            let mut bytes = n.to_le_bytes().to_vec();
            bytes.extend(stream);
            std::fs::write(dir.join(format!("seed_{name}")), bytes).unwrap();
        }
    }
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {} missing: {e}", dir.display()));
    let mut count = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        rle_decode_check(&std::fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count > 0, "fuzz corpus {} is empty", dir.display());
}

// ---------------------------------------------------------------------------------------------
// Throughput (release mode): cargo test --release -p warpzip --test rle_cpu -- --ignored --nocapture

fn time_per_byte(mut f: impl FnMut(), bytes: usize) -> f64 {
    // Best of several repetitions of at least ~200 ms total.
    let mut reps = 1;
    loop {
        let t = std::time::Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed().as_secs_f64() > 0.05 {
            break;
        }
        reps *= 2;
    }
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    bytes as f64 / best / 1e9
}

#[test]
#[ignore = "timing; run in release mode"]
fn throughput_single_core() {
    let corpora = shared_data().join("corpora");
    let mut rng = StdRng::seed_from_u64(1);
    let random: Vec<u8> = (0..4 << 20).map(|_| rng.gen()).collect();
    let mut inputs: Vec<(String, Vec<u8>)> = vec![("random 4 MiB".into(), random)];
    for name in [
        "canterbury/alice29.txt",
        "calgary/book1",
        "canterbury/ptt5",
        "canterbury/kennedy.xls",
        "calgary/pic",
        "calgary/geo",
    ] {
        inputs.push((name.into(), std::fs::read(corpora.join(name)).unwrap()));
    }
    inputs.push(("mixed 4 MiB".into(), mixed_input(4 << 20, 2)));
    // WARPZIP_BENCH_ONLY=<substring> times only the inputs whose name contains it.
    let only = std::env::var("WARPZIP_BENCH_ONLY").unwrap_or_default();
    inputs.retain(|(name, _)| name.contains(&only));
    let chunk = DEFAULT_CHUNK_SIZE as usize;
    for (name, data) in &inputs {
        let mut enc = Vec::with_capacity(max_compressed_len(data.len()) + 64);
        let encode_gbs = time_per_byte(
            || {
                enc.clear();
                for piece in data.chunks(chunk) {
                    cpu::encode_chunk(piece, &mut enc);
                }
            },
            data.len(),
        );
        let mut pieces = Vec::new();
        for piece in data.chunks(chunk) {
            let mut e = Vec::new();
            cpu::encode_chunk(piece, &mut e);
            pieces.push(e);
        }
        let mut out = vec![0u8; data.len()];
        let decode_gbs = time_per_byte(
            || {
                for (e, o) in pieces.iter().zip(out.chunks_mut(chunk)) {
                    cpu::decode_chunk(e, o).unwrap();
                }
            },
            data.len(),
        );
        assert!(out == *data);
        let ratio = data.len() as f64 / pieces.iter().map(Vec::len).sum::<usize>() as f64;
        println!(
            "{name:24} {:>9} B  ratio {ratio:7.2}  encode {encode_gbs:6.2} GB/s  decode {decode_gbs:6.2} GB/s",
            data.len()
        );
    }
}
