//! The CPU `rle` codec, token layout 2: canonical bytes against a naive reference encoder, round
//! trips, every decoder status on hand-made streams, no panics on truncated or bit-flipped
//! chunks, the codec parameters, the real corpora, golden files, and the fuzz corpus.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::testdata;

use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use warpzip::api::CompressOptions;
use warpzip::codec::rle::format::{
    check_codec_params, codec_params, max_compressed_len, max_segment_len, payload_len,
    DEFAULT_CHUNK_SIZE, SEGMENT_SIZE,
};
use warpzip::codec::rle::{chunked, cpu};
use warpzip::format::{write_container, Container, Header};
use warpzip::{ChunkStatus, CodecId, Device, Error};

/// Sizes at and around the segment boundaries.
const EDGE_SIZES: &[usize] = &[
    0, 1, 2, 3, 4, 127, 128, 129, 130, 4095, 4096, 4097, 8191, 8193,
];

// ---------------------------------------------------------------------------------------------
// The reference: obviously correct, slow. A segment is built from its tokens, each a control
// byte and a payload, as `u16 m`, then every payload, then every control.

/// One token: its control byte and its payload.
type Token = (u8, Vec<u8>);

/// The bytes of a segment made of `tokens`.
fn segment(tokens: &[Token]) -> Vec<u8> {
    let mut out = u16::try_from(tokens.len()).unwrap().to_le_bytes().to_vec();
    for (_, payload) in tokens {
        out.extend_from_slice(payload);
    }
    out.extend(tokens.iter().map(|(c, _)| *c));
    out
}

/// A literal token of 1..=128 bytes.
fn lit(bytes: &[u8]) -> Token {
    assert!((1..=128).contains(&bytes.len()));
    ((bytes.len() - 1) as u8, bytes.to_vec())
}

/// A short run token of 3..=129 bytes.
fn short(len: usize, value: u8) -> Token {
    assert!((3..=129).contains(&len));
    (0x80 + (len - 3) as u8, vec![value])
}

/// A long run token of any u16 length.
fn long(len: u16, value: u8) -> Token {
    let [lo, hi] = len.to_le_bytes();
    (0xFF, vec![lo, hi, value])
}

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

fn reference_flush_literals(pending: &mut Vec<u8>, tokens: &mut Vec<Token>) {
    for piece in pending.chunks(128) {
        tokens.push(lit(piece));
    }
    pending.clear();
}

/// The canonical tokens of one segment.
fn reference_tokens(seg: &[u8]) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut pending = Vec::new();
    for (value, len) in maximal_runs(seg) {
        if len < 3 {
            pending.extend(std::iter::repeat_n(value, len));
            continue;
        }
        reference_flush_literals(&mut pending, &mut tokens);
        if len <= 129 {
            tokens.push(short(len, value));
        } else {
            tokens.push(long(u16::try_from(len).unwrap(), value));
        }
    }
    reference_flush_literals(&mut pending, &mut tokens);
    tokens
}

fn reference_encode_segment(seg: &[u8]) -> Vec<u8> {
    segment(&reference_tokens(seg))
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

/// A valid but usually non-canonical token sequence for one segment: literals of random
/// lengths (adjacent, and holding runs), runs split at random points, runs of any length
/// (1 to 4096, short ones too) stored as long runs, and long runs of length 0 anywhere.
fn random_valid_tokens(seg: &[u8], rng: &mut StdRng) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < seg.len() {
        if rng.gen_bool(0.05) {
            tokens.push(long(0, rng.gen()));
        }
        let run = seg[i..].iter().take_while(|&&b| b == seg[i]).count();
        let pick = rng.gen_range(0..10);
        if run >= 3 && pick < 7 {
            let len = rng.gen_range(3..=run);
            if len > 129 || pick == 0 {
                tokens.push(long(u16::try_from(len).unwrap(), seg[i]));
            } else {
                tokens.push(short(len, seg[i]));
            }
            i += len;
        } else if pick == 7 {
            // A long run shorter than any run token's minimum.
            let len = rng.gen_range(1..=run.min(2));
            tokens.push(long(len as u16, seg[i]));
            i += len;
        } else {
            let len = rng.gen_range(1..=(seg.len() - i).min(128));
            tokens.push(lit(&seg[i..i + len]));
            i += len;
        }
    }
    if rng.gen_bool(0.1) {
        tokens.push(long(0, rng.gen()));
    }
    tokens
}

fn random_valid_segment(seg: &[u8], rng: &mut StdRng) -> Vec<u8> {
    segment(&random_valid_tokens(seg, rng))
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

/// A chunk with one segment per entry of `segments` (table built here).
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

/// A chunk of one segment made of `tokens`.
fn chunk_of_tokens(tokens: &[Token]) -> Vec<u8> {
    chunk_of(&[&segment(tokens)])
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

    /// Random token counts and controls behind a valid table: the decoder's segment walk sees
    /// every shape of count, payload and control area, not only a table that fails first.
    #[test]
    fn random_segments_never_panic(
        segments in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..80), 1..4),
        m in prop::collection::vec(0u16..40, 4),
        n in 0usize..(3 * 4096 + 7),
    ) {
        let segs: Vec<Vec<u8>> = segments
            .iter()
            .zip(&m)
            .map(|(s, &m)| [&m.to_le_bytes()[..], s].concat())
            .collect();
        let refs: Vec<&[u8]> = segs.iter().map(Vec::as_slice).collect();
        let _ = decode(&chunk_of(&refs), n);
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
    // Segment 0: 4000 literal bytes (31 literals of 128, one of 32), then a short run of 96
    // nines, whose value is the last payload byte and whose control is the segment's last byte.
    let seg0 = &enc[8..8 + first_end];
    assert_eq!(seg0.len(), 2 + 4000 + 1 + 33);
    assert_eq!(&seg0[..2], &[33, 0]);
    assert_eq!(&seg0[2..4002], &data[..4000]);
    assert_eq!(seg0[4002], 9);
    assert_eq!(&seg0[4003..4034], &[0x7F; 31]);
    assert_eq!(&seg0[4034..], &[0x1F, 0x80 + 93]);
    // Segment 1 is a short run of 104 nines: count 1, value 9, control 0x80 + 101.
    assert_eq!(&enc[8 + first_end..], &[1, 0, 9, 0x80 + 101]);
}

#[test]
fn worked_example_from_the_docs() {
    let input = b"aaaaabccde";
    let enc = encode(input);
    assert_eq!(
        enc,
        [
            0x0A, 0x00, 0x00, 0x00, // segment table: segment 0 ends 10 bytes after it
            0x02, 0x00, // m = 2 tokens
            0x61, // payload of token 0: the run's value 'a'
            0x62, 0x63, 0x63, 0x64, 0x65, // payload of token 1: "bccde"
            0x82, // control 0: short run of 0x82 - 0x80 + 3 = 5
            0x04, // control 1: literal of 0x04 + 1 = 5
        ]
    );
    assert_eq!(decode(&enc, 10).unwrap(), input);
}

#[test]
fn long_runs_store_their_length_in_a_u16() {
    // 4096 = 0x1000: payload 00 10 and the value, control 0xFF.
    assert_eq!(
        encode(&[5u8; 4096]),
        [6, 0, 0, 0, 1, 0, 0x00, 0x10, 5, 0xFF]
    );
    // 130 = 0x82, the length itself (no bias).
    assert_eq!(encode(&[5u8; 130]), [6, 0, 0, 0, 1, 0, 0x82, 0x00, 5, 0xFF]);
    assert_eq!(encode(&[5u8; 129]), [4, 0, 0, 0, 1, 0, 5, 0xFE]);
    assert_eq!(encode(&[5u8; 3]), [4, 0, 0, 0, 1, 0, 5, 0x80]);
    assert_eq!(encode(&[5u8; 2]), [5, 0, 0, 0, 1, 0, 5, 5, 0x01]);
    assert_eq!(encode(&[]), Vec::<u8>::new());
    // One long run per segment; the one-byte tail segment is a literal.
    assert_eq!(
        encode(&[5u8; 8193]),
        [
            6, 0, 0, 0, 12, 0, 0, 0, 16, 0, 0, 0, // table
            1, 0, 0x00, 0x10, 5, 0xFF, // segment 0
            1, 0, 0x00, 0x10, 5, 0xFF, // segment 1
            1, 0, 5, 0x00, // segment 2
        ]
    );
    // A long run and a literal: payloads first, in token order, then the controls.
    let mut data = vec![7u8; 300];
    data.extend(b"xy");
    assert_eq!(
        encode(&data),
        [9, 0, 0, 0, 2, 0, 0x2C, 0x01, 7, b'x', b'y', 0xFF, 0x01]
    );
}

#[test]
fn sizes_and_bounds() {
    assert_eq!(max_segment_len(1), 4);
    assert_eq!(max_segment_len(128), 131);
    assert_eq!(max_segment_len(129), 133);
    assert_eq!(max_segment_len(4096), 2 + 4096 + 32);
    assert_eq!(max_compressed_len(0), 0);
    assert_eq!(max_compressed_len(1), 4 + 4);
    assert_eq!(max_compressed_len(4096), 4 + 4130);
    assert_eq!(max_compressed_len(4097), 8 + 4130 + 4);
    let mib = 1usize << 20;
    let growth = max_compressed_len(mib) as f64 / mib as f64 - 1.0;
    assert!(growth < 0.0093, "growth {growth}");
    // Input without any run of three is all literals: the bound is reached exactly.
    for n in [1, 2, 127, 128, 129, 4095, 4096, 4097, 3 * 4096 + 200] {
        let data: Vec<u8> = (0..n).map(|i| (i % 256) as u8).collect();
        assert_eq!(encode(&data).len(), max_compressed_len(n), "n = {n}");
    }
    // Payload sizes by control byte.
    assert_eq!(payload_len(0x00), 1);
    assert_eq!(payload_len(0x7F), 128);
    assert_eq!(payload_len(0x80), 1);
    assert_eq!(payload_len(0xFE), 1);
    assert_eq!(payload_len(0xFF), 3);
}

/// The worst cases of the growth proof: runs of three between literal bytes, and runs of 130
/// (the longest a long run does not pay for) between them, stay within the bound.
#[test]
fn worst_case_shapes_stay_within_the_bound() {
    for pattern in [
        &[(1u8, 3usize), (2, 1)][..],
        &[(1, 3), (2, 1), (3, 1)],
        &[(1, 130), (2, 1)],
        &[(1, 130), (2, 2)],
        &[(1, 1), (2, 2)],
        &[(1, 2), (2, 2)],
    ] {
        for n in [4096, 4097, 8192 + 17] {
            check_chunk(&from_runs(pattern, n));
        }
    }
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
    // Longer than a segment: the pieces' segments, back to back.
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
    // A run of three stored as (part of) a literal.
    assert_eq!(
        decode(&chunk_of_tokens(&[lit(b"aaabb")]), 5).unwrap(),
        b"aaabb"
    );
    // Two adjacent literals, payloads `ab` `c`, controls 01 00.
    let adjacent = chunk_of_tokens(&[lit(b"ab"), lit(b"c")]);
    assert_eq!(adjacent, [7, 0, 0, 0, 2, 0, b'a', b'b', b'c', 0x01, 0x00]);
    assert_eq!(decode(&adjacent, 3).unwrap(), b"abc");
    // A run split in two, and in three with a long piece.
    assert_eq!(
        decode(&chunk_of_tokens(&[short(3, b'x'), short(4, b'x')]), 7).unwrap(),
        b"xxxxxxx"
    );
    assert_eq!(
        decode(
            &chunk_of_tokens(&[short(129, b'x'), long(200, b'x'), short(3, b'x')]),
            332
        )
        .unwrap(),
        vec![b'x'; 332]
    );
    // Short lengths stored as long runs, 1 and 2 (below a run token's minimum) included.
    assert_eq!(
        decode(&chunk_of_tokens(&[long(5, b'y')]), 5).unwrap(),
        b"yyyyy"
    );
    assert_eq!(
        decode(&chunk_of_tokens(&[long(1, b'p'), long(2, b'q')]), 3).unwrap(),
        b"pqq"
    );
    // Long runs of length 0 decode to nothing, wherever they stand.
    assert_eq!(
        decode(
            &chunk_of_tokens(&[long(0, 1), lit(b"ab"), long(0, 2), lit(b"c"), long(0, 3)]),
            3
        )
        .unwrap(),
        b"abc"
    );
    // A long run filling the segment, in the last (short) segment of a chunk too.
    let full = segment(&[long(4096, b'z')]);
    let tail = segment(&[long(10, b'w')]);
    let mut expected = vec![b'z'; 4096];
    expected.extend([b'w'; 10]);
    assert_eq!(decode(&chunk_of(&[&full, &tail]), 4106).unwrap(), expected);
    // The longest literal.
    let bytes: Vec<u8> = (0..128).collect();
    assert_eq!(
        decode(&chunk_of_tokens(&[lit(&bytes)]), 128).unwrap(),
        bytes
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
    assert_eq!(decode(&[5, 0, 0, 0, 1, 0, b'x', 0x80], 3), Err(Truncated));
    // ... checked entry by entry: a decreasing entry after it is not reached.
    assert_eq!(
        decode(&[9, 0, 0, 0, 1, 0, 0, 0, 1, 0, b'x', 0x80], 4099),
        Err(Truncated)
    );
    // A segment shorter than its token count: 0 or 1 bytes.
    assert_eq!(decode(&chunk_of(&[&[]]), 10), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[1]]), 10), Err(Truncated));
    let full = encode(&[3u8; 4096]);
    assert_eq!(decode(&chunk_of(&[&full[4..], &[]]), 4097), Err(Truncated));
    // More controls than bytes after the count.
    assert_eq!(decode(&chunk_of(&[&[3, 0, b'x', 0x80]]), 3), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[1, 0]]), 3), Err(Truncated));
    assert_eq!(
        decode(&chunk_of(&[&[0xFF, 0xFF, 0x80, b'x']]), 3),
        Err(Truncated)
    );
    // A literal's payload past the payload area.
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, b'a', 0x09]]), 10),
        Err(Truncated)
    );
    // ... even where the segment has bytes enough: the payload area ends at the controls.
    assert_eq!(
        decode(&chunk_of(&[&[2, 0, b'a', b'b', 0x02, 0x00]]), 4),
        Err(Truncated)
    );
    // A literal cut short at the end of the first segment.
    let mut seg0 = vec![1, 0];
    seg0.extend([1u8; 127]);
    seg0.push(0x7F);
    assert_eq!(
        decode(&chunk_of(&[&seg0, &segment(&[lit(&[1])])]), 4097),
        Err(Truncated)
    );
    // A run's value byte missing; all controls and no payload.
    assert_eq!(decode(&chunk_of(&[&[1, 0, 0x87]]), 10), Err(Truncated));
    assert_eq!(decode(&chunk_of(&[&[2, 0, 0x80, 0x80]]), 6), Err(Truncated));
    // A long run's payload cut after 0, 1 or 2 of its 3 bytes.
    assert_eq!(decode(&chunk_of(&[&[1, 0, 0xFF]]), 200), Err(Truncated));
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, 0x10, 0xFF]]), 200),
        Err(Truncated)
    );
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, 0x10, 0x00, 0xFF]]), 200),
        Err(Truncated)
    );
    // ... after earlier tokens took their payload.
    assert_eq!(
        decode(&chunk_of(&[&[2, 0, b'a', 0x10, 0x00, 0x00, 0xFF]]), 200),
        Err(Truncated)
    );
    // Truncated is checked before overflow for each token: these would overflow too.
    assert_eq!(decode(&chunk_of(&[&[1, 0, b'a', 0x09]]), 5), Err(Truncated));
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, 0xFF, 0xFF, 0xFF]]), 5),
        Err(Truncated)
    );
    // A token count one too many takes the last payload byte for a control.
    let mut enc = encode(b"aaaaabccde");
    enc[4] += 1;
    assert_eq!(decode(&enc, 10), Err(Truncated));
}

#[test]
fn overflowing_streams_are_reported() {
    use ChunkStatus::Overflow;
    assert_eq!(
        decode(&chunk_of_tokens(&[short(10, b'x')]), 5),
        Err(Overflow)
    );
    assert_eq!(
        decode(&chunk_of_tokens(&[lit(&[b'l'; 10])]), 5),
        Err(Overflow)
    );
    assert_eq!(
        decode(&chunk_of_tokens(&[long(256, b'x')]), 100),
        Err(Overflow)
    );
    // A long run larger than any segment.
    assert_eq!(
        decode(&chunk_of_tokens(&[long(u16::MAX, b'x')]), 4096),
        Err(Overflow)
    );
    assert_eq!(
        decode(&chunk_of_tokens(&[long(4097, b'x')]), 4096),
        Err(Overflow)
    );
    // The second token overflows.
    assert_eq!(
        decode(&chunk_of_tokens(&[short(3, b'x'), short(3, b'y')]), 5),
        Err(Overflow)
    );
    // Overflow of a token comes before a later token's missing payload.
    assert_eq!(
        decode(&chunk_of(&[&[2, 0, b'x', 0x87, 0x80]]), 5),
        Err(Overflow)
    );
    // Overflow of the short last segment of a chunk.
    let full = encode(&[3u8; 4096]);
    assert_eq!(
        decode(&chunk_of(&[&full[4..], &segment(&[short(3, b'x')])]), 4097),
        Err(Overflow)
    );
}

#[test]
fn underflowing_streams_are_reported() {
    use ChunkStatus::Underflow;
    assert_eq!(
        decode(&chunk_of_tokens(&[short(3, b'x')]), 10),
        Err(Underflow)
    );
    // No tokens at all.
    assert_eq!(decode(&chunk_of(&[&[0, 0]]), 10), Err(Underflow));
    // A payload without controls.
    assert_eq!(
        decode(&chunk_of(&[&[0, 0, b'a', b'b', b'c']]), 3),
        Err(Underflow)
    );
    // Only empty long runs.
    assert_eq!(
        decode(&chunk_of_tokens(&[long(0, b'x'), long(0, b'y')]), 5),
        Err(Underflow)
    );
    // Underflow is checked before leftover payload.
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, b'x', b'y', 0x80]]), 10),
        Err(Underflow)
    );
    let full = encode(&[3u8; 4096]);
    assert_eq!(
        decode(&chunk_of(&[&full[4..], &segment(&[short(3, b'x')])]), 4100),
        Err(Underflow)
    );
    // The first failing segment decides, even when a later one fails differently.
    assert_eq!(
        decode(&chunk_of(&[&segment(&[short(3, b'x')]), &[0xFF]]), 5000),
        Err(Underflow)
    );
    // A token count one too few turns the first control into payload.
    let mut enc = encode(b"aaaaabccde");
    enc[4] -= 1;
    assert_eq!(decode(&enc, 10), Err(Underflow));
}

#[test]
fn corrupt_streams_are_reported() {
    use ChunkStatus::Corrupt;
    // Payload bytes left over once the tokens have filled the segment.
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, b'x', b'y', 0x80]]), 3),
        Err(Corrupt)
    );
    assert_eq!(
        decode(&chunk_of(&[&[1, 0, 0x05, 0x00, b'x', 0, 0, 0xFF]]), 5),
        Err(Corrupt)
    );
    // A decreasing table.
    assert_eq!(
        decode(&[6, 0, 0, 0, 4, 0, 0, 0, 1, 0, b'x', 0x80, 0, 0], 4097),
        Err(Corrupt)
    );
    // ... checked entry by entry: an entry past the token area after it is not reached.
    assert_eq!(
        decode(
            &[4, 0, 0, 0, 2, 0, 0, 0, 99, 0, 0, 0, 1, 0, b'x', 0x80],
            8193
        ),
        Err(Corrupt)
    );
    // Bytes after the last segment.
    assert_eq!(decode(&[4, 0, 0, 0, 1, 0, b'x', 0x80, 0], 3), Err(Corrupt));
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
// Codec parameters: segment size 4096, token layout 2.

#[test]
fn codec_params_name_token_layout_2() {
    assert_eq!(
        codec_params(),
        [0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00]
    );
    check_codec_params(&codec_params()).unwrap();
    // Layout 1: the segment size alone.
    match check_codec_params(&[0x00, 0x10, 0x00, 0x00]) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("layout 1"), "{msg}"),
        other => panic!("layout-1 params accepted or misreported: {other:?}"),
    }
    for bad in [
        &[][..],
        &[0x00, 0x10, 0x00],
        &[0x00, 0x20, 0x00, 0x00],
        &[0x00, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00],
        &[0x00, 0x10, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00],
        &[0x00, 0x20, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00],
        &[0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x00],
        &[0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00],
    ] {
        match check_codec_params(bad) {
            Err(Error::Unsupported(msg)) => {
                assert!(!msg.contains("layout 1"), "{bad:02x?}: {msg}");
            }
            other => panic!("{bad:02x?}: expected Unsupported, got {other:?}"),
        }
    }
}

/// A container written now carries the layout-2 params; the same chunks under layout-1 params
/// are refused by `decompress`, naming the layout.
#[test]
fn containers_carry_the_token_layout() {
    let data = mixed_input(3 * 4096 + 10, 31);
    let opts = CompressOptions {
        chunk_size: Some(8192),
        ..CompressOptions::default()
    };
    let wz = warpzip::compress(&data, &opts, &Device::Cpu).unwrap();
    assert_eq!(&wz[28..32], &[8, 0, 0, 0], "P");
    assert_eq!(&wz[32..40], &codec_params()[..]);
    assert_eq!(warpzip::decompress(&wz, &Device::Cpu).unwrap(), data);

    let parsed = Container::parse(&wz).unwrap();
    assert_eq!(parsed.header.codec, CodecId::Rle);
    let (payload, spans) = chunked::compress(&data, 8192).unwrap();
    let rewrite = |params: &[u8]| {
        let header = Header {
            codec_params: params.to_vec(),
            ..parsed.header.clone()
        };
        let mut out = Vec::new();
        write_container(&mut out, &header, &payload, &spans).unwrap();
        out
    };
    assert_eq!(rewrite(&codec_params()), wz);
    match warpzip::decompress(&rewrite(&[0x00, 0x10, 0x00, 0x00]), &Device::Cpu) {
        Err(Error::Unsupported(msg)) => assert!(msg.contains("layout 1"), "{msg}"),
        other => panic!("a layout-1 container decoded or misreported: {other:?}"),
    }
    assert!(matches!(
        warpzip::decompress(
            &rewrite(&[0x00, 0x10, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00]),
            &Device::Cpu
        ),
        Err(Error::Unsupported(_))
    ));
}

// ---------------------------------------------------------------------------------------------
// Real data.

fn corpus_files() -> Vec<PathBuf> {
    let root = testdata().join("corpora");
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

/// A seed of the fuzz corpus: name, output length, stream, the status it decodes with.
type Seed = (&'static str, u16, Vec<u8>, Result<(), ChunkStatus>);

/// Seeds of the fuzz corpus, written to `seed_<name>` by `WARPZIP_BLESS=1`.
fn fuzz_seeds() -> Vec<Seed> {
    use ChunkStatus::{Corrupt, Overflow, Truncated, Underflow};
    let mixed = mixed_input(2 * 4096 + 5, 77);
    let n_mixed = mixed.len() as u16;
    let mut rng = StdRng::seed_from_u64(78);
    vec![
        ("empty", 0, vec![], Ok(())),
        ("worked_example", 10, encode(b"aaaaabccde"), Ok(())),
        ("long_run", 4096, encode(&[5u8; 4096]), Ok(())),
        ("mixed_three_segments", n_mixed, encode(&mixed), Ok(())),
        (
            "non_canonical",
            n_mixed,
            random_valid_chunk(&mixed, &mut rng),
            Ok(()),
        ),
        (
            "zero_length_long_run",
            3,
            chunk_of_tokens(&[lit(b"ab"), long(0, b'z'), lit(b"c")]),
            Ok(()),
        ),
        (
            "short_run_as_long",
            5,
            chunk_of_tokens(&[long(5, b'y')]),
            Ok(()),
        ),
        ("segment_too_short", 10, chunk_of(&[&[1]]), Err(Truncated)),
        (
            "count_past_segment",
            10,
            chunk_of(&[&[3, 0, b'x', 0x80]]),
            Err(Truncated),
        ),
        (
            "truncated_literal",
            10,
            chunk_of(&[&[1, 0, b'a', 0x09]]),
            Err(Truncated),
        ),
        (
            "long_run_cut",
            200,
            chunk_of(&[&[1, 0, 0x10, 0x00, 0xFF]]),
            Err(Truncated),
        ),
        (
            "overflow_run",
            5,
            chunk_of_tokens(&[short(10, b'x')]),
            Err(Overflow),
        ),
        (
            "underflow",
            10,
            chunk_of_tokens(&[short(3, b'x')]),
            Err(Underflow),
        ),
        (
            "payload_left_over",
            3,
            chunk_of(&[&[1, 0, b'x', b'y', 0x80]]),
            Err(Corrupt),
        ),
        (
            "decreasing_table",
            4097,
            vec![6, 0, 0, 0, 4, 0, 0, 0, 1, 0, b'x', 0x80, 0, 0],
            Err(Corrupt),
        ),
    ]
}

#[test]
fn fuzz_seeds_decode_as_intended() {
    for (name, n, stream, expected) in fuzz_seeds() {
        let mut out = vec![0u8; usize::from(n)];
        assert_eq!(
            cpu::decode_chunk(&stream, &mut out),
            expected,
            "seed {name}"
        );
    }
}

#[test]
fn fuzz_corpus_runs_clean() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/rle_decode"
    ));
    let seeds = fuzz_seeds();
    let seed_bytes = |n: u16, stream: &[u8]| [&n.to_le_bytes()[..], stream].concat();
    if std::env::var("WARPZIP_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(&dir).unwrap();
        // Seeds no longer made here (an older format's) go.
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let made = seeds.iter().any(|(s, ..)| name == format!("seed_{s}"));
            if name.starts_with("seed_") && !made {
                std::fs::remove_file(&path).unwrap();
            }
        }
        for (name, n, stream, _) in &seeds {
            std::fs::write(dir.join(format!("seed_{name}")), seed_bytes(*n, stream)).unwrap();
        }
    }
    // Every seed file holds what `fuzz_seeds` makes now, and there is no other `seed_` file.
    for (name, n, stream, _) in &seeds {
        let path = dir.join(format!("seed_{name}"));
        let stored = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("{} missing ({e}); run with WARPZIP_BLESS=1", path.display())
        });
        assert!(
            stored == seed_bytes(*n, stream),
            "{} is stale; run with WARPZIP_BLESS=1",
            path.display()
        );
    }
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {} missing: {e}", dir.display()));
    let mut count = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            !name.starts_with("seed_") || seeds.iter().any(|(s, ..)| name == format!("seed_{s}")),
            "{} is not made by fuzz_seeds (stale?); run with WARPZIP_BLESS=1",
            path.display()
        );
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
    let corpora = testdata().join("corpora");
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
