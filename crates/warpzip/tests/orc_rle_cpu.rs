//! The ORC run-length encodings on the CPU (`codec::orc_rle`): the ORC specification's worked
//! examples byte for byte, property round trips of every sub-encoding and width, precise error
//! statuses, damaged streams (an error or a valid decode, never a panic), the `.wz` codecs
//! through the public API, the fuzz seeds, and an #[ignore]d decode-speed measurement.
//!
//! Regenerate the fuzz seeds (of `orc_rle_decode` and `orc_rle_prefix`) with
//! `WARPZIP_BLESS=1 cargo test -p warpzip --test orc_rle_cpu fuzz_corpus`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use std::path::PathBuf;
use warpzip::codec::orc_rle::{
    decode_bool_rle, decode_bool_rle_prefix, decode_byte_rle, decode_byte_rle_prefix,
    decode_int_rle_v1, decode_int_rle_v1_prefix, decode_int_rle_v2, decode_int_rle_v2_prefix,
    encode_bool_rle, encode_byte_rle, encode_int_rle_v1, encode_int_rle_v2, OrcInt,
};
use warpzip::format::ElemType;
use warpzip::{ChunkStatus, CodecId, CompressOptions, Device, Error};

fn v2<T: OrcInt>(values: &[T], signed: bool) -> Vec<u8> {
    let mut out = Vec::new();
    encode_int_rle_v2(values, signed, &mut out).unwrap();
    out
}

fn v1<T: OrcInt>(values: &[T], signed: bool) -> Vec<u8> {
    let mut out = Vec::new();
    encode_int_rle_v1(values, signed, &mut out).unwrap();
    out
}

fn dec_v2<T: OrcInt>(bytes: &[u8], signed: bool, n: usize) -> Result<Vec<T>, ChunkStatus> {
    let mut out = vec![T::default(); n];
    decode_int_rle_v2(bytes, signed, &mut out).map(|()| out)
}

fn dec_v1<T: OrcInt>(bytes: &[u8], signed: bool, n: usize) -> Result<Vec<T>, ChunkStatus> {
    let mut out = vec![T::default(); n];
    decode_int_rle_v1(bytes, signed, &mut out).map(|()| out)
}

/// The first byte's top two bits of every v2 group, in order (walks the stream by re-decoding
/// prefixes is overkill; the tests that need sub-encodings check the first group only).
fn first_tag(bytes: &[u8]) -> u8 {
    bytes[0] >> 6
}

// ---------------------------------------------------------------------------------------------
// The specification's examples
// ---------------------------------------------------------------------------------------------

#[test]
fn spec_v2_short_repeat() {
    let values = [10000u64; 5];
    let bytes = [0x0a, 0x27, 0x10];
    assert_eq!(v2(&values, false), bytes);
    assert_eq!(dec_v2::<u64>(&bytes, false, 5).unwrap(), values);
}

#[test]
fn spec_v2_direct() {
    let values = [23713u64, 43806, 57005, 48879];
    let bytes = [0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef];
    assert_eq!(v2(&values, false), bytes);
    assert_eq!(dec_v2::<u64>(&bytes, false, 4).unwrap(), values);
    assert_eq!(
        dec_v2::<u16>(&bytes, false, 4).unwrap(),
        [23713u16, 43806, 57005, 48879]
    );
}

#[test]
fn spec_v2_patched_base() {
    let values = [
        2030u64, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120, 2130,
        2140, 2150, 2160, 2170, 2180, 2190,
    ];
    let bytes = [
        0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50,
        0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8,
    ];
    assert_eq!(v2(&values, false), bytes);
    assert_eq!(dec_v2::<u64>(&bytes, false, 20).unwrap(), values);
    assert_eq!(dec_v2::<i32>(&bytes, false, 20).unwrap()[3], 1_000_000);
}

#[test]
fn spec_v2_delta() {
    let values = [2u64, 3, 5, 7, 11, 13, 17, 19, 23, 29];
    let bytes = [0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46];
    assert_eq!(v2(&values, false), bytes);
    assert_eq!(dec_v2::<u64>(&bytes, false, 10).unwrap(), values);
}

#[test]
fn spec_v1_examples() {
    // 100 instances of 7.
    let sevens = [7u64; 100];
    assert_eq!(v1(&sevens, false), [0x61, 0x00, 0x07]);
    assert_eq!(
        dec_v1::<u64>(&[0x61, 0x00, 0x07], false, 100).unwrap(),
        sevens
    );
    // 100 down to 1.
    let down: Vec<u64> = (1..=100).rev().collect();
    assert_eq!(v1(&down, false), [0x61, 0xff, 0x64]);
    assert_eq!(
        dec_v1::<u64>(&[0x61, 0xff, 0x64], false, 100).unwrap(),
        down
    );
    // A literal group of [2, 3, 4, 7, 11] (our encoder writes 2, 3, 4 as a run instead).
    let lit = [0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b];
    assert_eq!(dec_v1::<u64>(&lit, false, 5).unwrap(), [2, 3, 4, 7, 11]);
    assert_eq!(
        v1(&[2u64, 3, 4, 7, 11], false),
        [0x00, 0x01, 0x02, 0xfe, 0x07, 0x0b]
    );
}

#[test]
fn spec_varints_and_zigzag() {
    for (v, bytes) in [
        (0u64, vec![0x00]),
        (1, vec![0x01]),
        (127, vec![0x7f]),
        (128, vec![0x80, 0x01]),
        (129, vec![0x81, 0x01]),
        (16383, vec![0xff, 0x7f]),
        (16384, vec![0x80, 0x80, 0x01]),
        (16385, vec![0x81, 0x80, 0x01]),
    ] {
        // One literal of v in RLE v1.
        let mut stream = vec![0xff];
        stream.extend_from_slice(&bytes);
        assert_eq!(v1(&[v], false), stream, "{v}");
        assert_eq!(dec_v1::<u64>(&stream, false, 1).unwrap(), [v]);
    }
    for (v, zz) in [(0i64, 0u64), (-1, 1), (1, 2), (-2, 3), (2, 4)] {
        assert_eq!(warpzip::codec::orc_rle::zigzag_encode(v), zz);
        assert_eq!(warpzip::codec::orc_rle::zigzag_decode(zz), v);
    }
}

#[test]
fn varints_decode_at_every_length_and_position() {
    use warpzip::codec::orc_rle::{read_varint, write_varint};
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for bits in 0..=64u32 {
        for _ in 0..50 {
            let v = if bits == 0 {
                0
            } else {
                rng.gen::<u64>() >> (64 - bits)
            };
            let mut enc = Vec::new();
            write_varint(&mut enc, v);
            for pad in 0..12 {
                let mut buf = enc.clone();
                buf.extend(std::iter::repeat_n(0xffu8, pad));
                let mut pos = 0;
                assert_eq!(read_varint(&buf, &mut pos), Ok(v), "{v} pad {pad}");
                assert_eq!(pos, enc.len());
                let mut pos = 0;
                let cut = &enc[..enc.len() - 1];
                assert_eq!(read_varint(cut, &mut pos), Err(ChunkStatus::Truncated));
            }
        }
    }
    // An 11-byte varint, and a 10th byte carrying more than bit 63.
    let mut pos = 0;
    let long = [
        0xffu8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x81, 0x00, 0, 0,
    ];
    assert_eq!(read_varint(&long, &mut pos), Err(ChunkStatus::Corrupt));
    let mut pos = 0;
    let wide = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02];
    assert_eq!(read_varint(&wide, &mut pos), Err(ChunkStatus::Corrupt));
    let mut pos = 0;
    let max = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01];
    assert_eq!(read_varint(&max, &mut pos), Ok(u64::MAX));
}

#[test]
fn spec_byte_and_bool_rle() {
    let mut out = Vec::new();
    encode_byte_rle(&[0u8; 100], &mut out);
    assert_eq!(out, [0x61, 0x00]);
    let mut out = Vec::new();
    encode_byte_rle(&[0x44, 0x45], &mut out);
    assert_eq!(out, [0xfe, 0x44, 0x45]);
    let mut bytes = [1u8; 2];
    decode_byte_rle(&[0xfe, 0x44, 0x45], &mut bytes).unwrap();
    assert_eq!(bytes, [0x44, 0x45]);
    // [0xff, 0x80]: one true followed by seven false values.
    let mut bools = [true; 8];
    decode_bool_rle(&[0xff, 0x80], &mut bools).unwrap();
    assert_eq!(
        bools,
        [true, false, false, false, false, false, false, false]
    );
    let mut out = Vec::new();
    encode_bool_rle(&bools, &mut out);
    assert_eq!(out, [0xff, 0x80]);
}

// ---------------------------------------------------------------------------------------------
// Sub-encoding choice
// ---------------------------------------------------------------------------------------------

#[test]
fn encoder_picks_the_sub_encodings_an_orc_writer_would() {
    // 3..=10 repeats: SHORT_REPEAT; 11+: DELTA with width 0.
    for n in 3..=10 {
        assert_eq!(first_tag(&v2(&vec![-5i32; n], true)), 0, "{n}");
    }
    let long = v2(&vec![7i64; 500], true);
    assert_eq!(first_tag(&long), 3);
    assert_eq!(long.len(), 4);
    // Fixed delta: one DELTA group of 512 values in a handful of bytes.
    let seq: Vec<u32> = (1000..1512).collect();
    let bytes = v2(&seq, false);
    assert_eq!(first_tag(&bytes), 3);
    assert!(bytes.len() <= 6, "{}", bytes.len());
    // Random values: DIRECT.
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let random: Vec<u32> = (0..512).map(|_| rng.gen()).collect();
    assert_eq!(first_tag(&v2(&random, false)), 1);
    // Small values with a few huge outliers: PATCHED_BASE.
    let mut outliers: Vec<i64> = (0..512).map(|_| rng.gen_range(0..200)).collect();
    outliers[17] = 1 << 40;
    outliers[400] = -(1 << 35);
    let bytes = v2(&outliers, true);
    assert_eq!(first_tag(&bytes), 2);
    assert!(bytes.len() < 2 + 512 * 6, "{}", bytes.len());
    assert_eq!(dec_v2::<i64>(&bytes, true, 512).unwrap(), outliers);
}

// ---------------------------------------------------------------------------------------------
// Round trips
// ---------------------------------------------------------------------------------------------

fn round_trip<T: OrcInt + PartialEq + std::fmt::Debug>(values: &[T], signed: bool) {
    let b2 = v2(values, signed);
    assert_eq!(
        dec_v2::<T>(&b2, signed, values.len()).unwrap(),
        values,
        "v2 {b2:02x?}"
    );
    let b1 = v1(values, signed);
    assert_eq!(
        dec_v1::<T>(&b1, signed, values.len()).unwrap(),
        values,
        "v1 {b1:02x?}"
    );
}

/// Values shaped to hit every sub-encoding: repeats, fixed and varying deltas (up and down),
/// random values of a given width, and small values with outliers.
fn shaped(seed: u64, n: usize, width: u32) -> Vec<u64> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let kind = rng.gen_range(0..6);
        let len = rng.gen_range(1..700usize);
        let start: u64 = rng.gen::<u64>() & mask;
        match kind {
            0 => out.extend(std::iter::repeat_n(start, len)),
            1 => {
                let step = rng.gen_range(0..4u64);
                out.extend((0..len as u64).map(|i| start.wrapping_add(i * step) & mask));
            }
            2 => {
                let mut v = start;
                for _ in 0..len {
                    out.push(v);
                    v = v.saturating_sub(rng.gen_range(0..1000)) & mask;
                }
            }
            3 => out.extend((0..len).map(|_| rng.gen::<u64>() & mask)),
            4 => out.extend((0..len).map(|_| {
                if rng.gen_range(0..40) == 0 {
                    rng.gen::<u64>() & mask
                } else {
                    (start & 0xff) + rng.gen_range(0..16)
                }
            })),
            _ => {
                let mut v = start;
                for _ in 0..len {
                    out.push(v);
                    v = v.wrapping_add(rng.gen_range(0..3)) & mask;
                }
            }
        }
    }
    out.truncate(n);
    out
}

#[test]
fn every_width_round_trips_for_every_type() {
    for width in 1..=64u32 {
        let raw = shaped(u64::from(width), 3000, width);
        round_trip(&raw, false);
        let signed: Vec<i64> = raw.iter().map(|&v| v as i64).collect();
        round_trip(&signed, true);
        // Narrow types: the values that fit.
        let as_i32: Vec<i32> = raw.iter().map(|&v| v as i32).collect();
        round_trip(&as_i32, true);
        let as_u16: Vec<u16> = raw.iter().map(|&v| v as u16).collect();
        round_trip(&as_u16, false);
        let as_i8: Vec<i8> = raw.iter().map(|&v| v as i8).collect();
        round_trip(&as_i8, true);
        let as_u8: Vec<u8> = raw.iter().map(|&v| v as u8).collect();
        round_trip(&as_u8, false);
        let as_u32: Vec<u32> = raw.iter().map(|&v| v as u32).collect();
        round_trip(&as_u32, false);
        let as_i16: Vec<i16> = raw.iter().map(|&v| v as i16).collect();
        round_trip(&as_i16, true);
    }
}

#[test]
fn extremes_round_trip() {
    let ext = [i64::MIN, i64::MAX, 0, -1, 1, i64::MIN + 1, i64::MAX - 1];
    let mut all = Vec::new();
    for &a in &ext {
        for &b in &ext {
            for &c in &ext {
                all.extend_from_slice(&[a, b, c]);
                round_trip(&[a, b, c], true);
                round_trip(&[a, b], true);
                round_trip(&[a, a, a, a, b, b, b, c], true);
            }
        }
    }
    round_trip(&all, true);
    round_trip(&vec![i64::MIN; 600], true);
    round_trip(&[i64::MAX; 7], true);
    let uext = [u64::MAX, 0, 1, u64::MAX - 1, i64::MAX as u64, 1 << 63];
    let mut uall = Vec::new();
    for &a in &uext {
        for &b in &uext {
            uall.extend_from_slice(&[a, b, a]);
            round_trip(&[a, b, a], false);
            round_trip(&[a, b, b, b], false);
        }
    }
    round_trip(&uall, false);
    round_trip(&vec![u64::MAX; 300], false);
    // Outliers at the extremes of the domain.
    let mut patched: Vec<i64> = (0..512).map(|i| i % 50).collect();
    patched[3] = i64::MAX;
    patched[300] = i64::MIN;
    round_trip(&patched, true);
    let mut upatched: Vec<u64> = (0..512).map(|i| i % 50).collect();
    upatched[3] = u64::MAX;
    upatched[511] = 1 << 62;
    round_trip(&upatched, false);
    // Patches with gaps longer than 255.
    let mut gaps: Vec<u32> = (0..512).map(|i| (i % 7) as u32).collect();
    gaps[0] = 1 << 30;
    gaps[300] = 1 << 29;
    gaps[511] = 1 << 31;
    round_trip(&gaps, false);
    round_trip(&[u8::MAX, 0, u8::MAX], false);
    round_trip(&[i8::MIN, i8::MAX, 0, i8::MIN], true);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn prop_i64_round_trip(seed in any::<u64>(), n in 0usize..2000, width in 1u32..=64) {
        let v: Vec<i64> = shaped(seed, n, width).into_iter().map(|x| x as i64).collect();
        round_trip(&v, true);
    }

    #[test]
    fn prop_u64_round_trip(seed in any::<u64>(), n in 0usize..2000, width in 1u32..=64) {
        round_trip(&shaped(seed, n, width), false);
    }

    #[test]
    fn prop_any_values(v in proptest::collection::vec(any::<i64>(), 0..600)) {
        round_trip(&v, true);
    }

    #[test]
    fn prop_small_types(v in proptest::collection::vec(any::<i16>(), 0..1200),
                        u in proptest::collection::vec(any::<u32>(), 0..1200)) {
        round_trip(&v, true);
        round_trip(&u, false);
    }

    #[test]
    fn prop_byte_and_bool_rle(v in proptest::collection::vec(0u8..4, 0..3000),
                              b in proptest::collection::vec(any::<bool>(), 0..3000)) {
        let mut enc = Vec::new();
        encode_byte_rle(&v, &mut enc);
        let mut back = vec![0u8; v.len()];
        prop_assert_eq!(decode_byte_rle(&enc, &mut back), Ok(()));
        prop_assert_eq!(&back, &v);
        let mut enc = Vec::new();
        encode_bool_rle(&b, &mut enc);
        let mut back = vec![false; b.len()];
        prop_assert_eq!(decode_bool_rle(&enc, &mut back), Ok(()));
        prop_assert_eq!(&back, &b);
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

#[test]
fn statuses_are_precise() {
    let bytes = v2(&[1u32, 2, 3, 4, 9, 1, 7], false);
    assert_eq!(dec_v2::<u32>(&bytes, false, 6), Err(ChunkStatus::Overflow));
    assert_eq!(dec_v2::<u32>(&bytes, false, 8), Err(ChunkStatus::Underflow));
    assert_eq!(
        dec_v2::<u32>(&bytes[..bytes.len() - 1], false, 7),
        Err(ChunkStatus::Truncated)
    );
    assert_eq!(dec_v2::<u32>(&[], false, 0), Ok(vec![]));
    assert_eq!(dec_v2::<u32>(&[], false, 1), Err(ChunkStatus::Underflow));
    // A value that does not fit the output type.
    let big = v2(&[300u32, 301, 5000], false);
    assert_eq!(dec_v2::<u8>(&big, false, 3), Err(ChunkStatus::Corrupt));
    // DELTA that overflows the domain: base u64::MAX, delta +1.
    let mut overflow = vec![0xc0, 0x01];
    overflow.extend_from_slice(&[0xff; 9]);
    overflow.push(0x01);
    overflow.push(0x02);
    assert_eq!(
        dec_v2::<u64>(&overflow, false, 2),
        Err(ChunkStatus::Corrupt)
    );
    // A varint longer than 64 bits.
    let mut long = vec![0xff];
    long.extend_from_slice(&[0xff; 10]);
    long.push(0x01);
    assert_eq!(dec_v1::<u64>(&long, false, 1), Err(ChunkStatus::Corrupt));
    // A patch whose gap points past the group.
    let mut bad_patch = v2(
        &[
            2030u64, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 2120,
            2130, 2140, 2150, 2160, 2170, 2180, 2190,
        ],
        false,
    );
    let n = bad_patch.len();
    bad_patch[n - 2] = 0x3c; // gap 0 -> patch at index 0 is fine; make the gap huge instead:
    bad_patch[3] = (bad_patch[3] & 0x1f) | (7 << 5); // gap width 8 bits
    assert!(dec_v2::<u64>(&bad_patch, false, 20).is_err());
    // Negative values cannot go into an unsigned stream.
    let mut out = Vec::new();
    assert!(matches!(
        encode_int_rle_v2(&[-1i32], false, &mut out),
        Err(Error::InvalidArgument(_))
    ));
    // Byte RLE.
    let mut four = [0u8; 4];
    assert_eq!(
        decode_byte_rle(&[0x00, 0x07], &mut four),
        Err(ChunkStatus::Underflow)
    );
    assert_eq!(
        decode_byte_rle(&[0x02, 0x07], &mut four),
        Err(ChunkStatus::Overflow)
    );
    assert_eq!(
        decode_byte_rle(&[0xfc, 1, 2, 3], &mut four),
        Err(ChunkStatus::Truncated)
    );
    assert_eq!(
        decode_byte_rle(&[0x01], &mut four),
        Err(ChunkStatus::Truncated)
    );
}

/// Runs every decoder on `data` as the fuzz target does: each must return, and a stream that
/// decodes must re-encode and decode back to the same values.
fn fuzz_one(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let Some((&n, stream)) = rest.split_first() else {
        return;
    };
    let n = usize::from(n) * 4 + usize::from(sel >> 4);
    let signed = sel & 1 == 1;
    macro_rules! check {
        ($t:ty, $dec:ident, $enc:ident) => {{
            let mut out = vec![<$t>::default(); n];
            if $dec(stream, signed, &mut out).is_ok() {
                let mut again = Vec::new();
                $enc(&out, signed, &mut again).unwrap();
                let mut back = vec![<$t>::default(); n];
                assert_eq!($dec(&again, signed, &mut back), Ok(()));
                assert_eq!(back, out);
            }
        }};
    }
    match (sel >> 1) & 7 {
        0 => check!(i64, decode_int_rle_v2, encode_int_rle_v2),
        1 => check!(u64, decode_int_rle_v2, encode_int_rle_v2),
        2 => check!(i32, decode_int_rle_v2, encode_int_rle_v2),
        3 => check!(u8, decode_int_rle_v2, encode_int_rle_v2),
        4 => check!(i64, decode_int_rle_v1, encode_int_rle_v1),
        5 => check!(u16, decode_int_rle_v1, encode_int_rle_v1),
        6 => {
            let mut out = vec![0u8; n];
            if decode_byte_rle(stream, &mut out).is_ok() {
                let mut again = Vec::new();
                encode_byte_rle(&out, &mut again);
                let mut back = vec![0u8; n];
                assert_eq!(decode_byte_rle(&again, &mut back), Ok(()));
                assert_eq!(back, out);
            }
        }
        _ => {
            let mut out = vec![false; n];
            if decode_bool_rle(stream, &mut out).is_ok() {
                let mut again = Vec::new();
                encode_bool_rle(&out, &mut again);
                let mut back = vec![!out.first().copied().unwrap_or(false); n];
                assert_eq!(decode_bool_rle(&again, &mut back), Ok(()));
                assert_eq!(back, out);
            }
        }
    }
}

#[test]
fn truncated_and_bit_flipped_streams_never_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for round in 0..40u64 {
        let values: Vec<i64> = shaped(round, 700, 1 + (round % 64) as u32)
            .into_iter()
            .map(|v| v as i64)
            .collect();
        for (version, stream) in [(2, v2(&values, true)), (1, v1(&values, true))] {
            for cut in (0..stream.len()).step_by(7) {
                let as_v2 = dec_v2::<i64>(&stream[..cut], true, values.len());
                let as_v1 = dec_v1::<i64>(&stream[..cut], true, values.len());
                // A cut stream lacks the bytes of its last values: its own decoder must refuse
                // it (the other version's decoder may read anything into it, but not panic).
                let own = if version == 2 { &as_v2 } else { &as_v1 };
                assert!(
                    own.is_err(),
                    "round {round}, v{version} cut at {cut}: decoded"
                );
            }
            for _ in 0..200 {
                let mut bad = stream.clone();
                let i = rng.gen_range(0..bad.len());
                bad[i] ^= 1 << rng.gen_range(0..8);
                let _ = dec_v2::<i64>(&bad, true, values.len());
                let _ = dec_v2::<u32>(&bad, false, values.len());
                let _ = dec_v1::<i16>(&bad, true, values.len());
            }
        }
    }
}

#[test]
#[ignore = "slow: millions of random inputs; run with --release --ignored"]
fn fuzz_random_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(99);
    let rounds: usize = std::env::var("ORC_FUZZ_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3_000_000);
    let mut buf = Vec::new();
    for _ in 0..rounds {
        let len = rng.gen_range(0..64);
        buf.clear();
        buf.extend((0..len).map(|_| rng.gen::<u8>()));
        fuzz_one(&buf);
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzz seeds
// ---------------------------------------------------------------------------------------------

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/orc_rle_decode")
}

fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let with = |sel: u8, n: u8, stream: &[u8]| {
        let mut v = vec![sel, n];
        v.extend_from_slice(stream);
        v
    };
    let patched = [
        0x8e, 0x13, 0x2b, 0x21, 0x07, 0xd0, 0x1e, 0x00, 0x14, 0x70, 0x28, 0x32, 0x3c, 0x46, 0x50,
        0x5a, 0x64, 0x6e, 0x78, 0x82, 0x8c, 0x96, 0xa0, 0xaa, 0xb4, 0xbe, 0xfc, 0xe8,
    ];
    vec![
        // sel: low bit signed, bits 1..3 the decoder, high nibble adds to n; n = byte * 4 + hi.
        ("seed_v2_short_repeat", with(0x12, 1, &[0x0a, 0x27, 0x10])),
        (
            "seed_v2_direct",
            with(
                0x02,
                1,
                &[0x5e, 0x03, 0x5c, 0xa1, 0xab, 0x1e, 0xde, 0xad, 0xbe, 0xef],
            ),
        ),
        ("seed_v2_patched", with(0x02, 5, &patched)),
        (
            "seed_v2_delta",
            with(0x22, 2, &[0xc6, 0x09, 0x02, 0x02, 0x22, 0x42, 0x42, 0x46]),
        ),
        ("seed_v2_truncated", with(0x02, 5, &patched[..20])),
        ("seed_v1_run", with(0x08, 25, &[0x61, 0x00, 0x07])),
        (
            "seed_v1_literals",
            with(0x5a, 1, &[0xfb, 0x02, 0x03, 0x04, 0x07, 0x0b]),
        ),
        ("seed_byte_rle", with(0x0c, 25, &[0x61, 0x00])),
        ("seed_bool_rle", with(0x8e, 0, &[0xff, 0x80])),
        (
            "seed_varint_too_long",
            with(
                0x08,
                0,
                &[
                    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
                ],
            ),
        ),
    ]
}

#[test]
fn fuzz_corpus_never_panics_the_decoders() {
    let dir = corpus_dir();
    if std::env::var_os("WARPZIP_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in seeds() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        fuzz_one(&std::fs::read(entry.unwrap().path()).unwrap());
        count += 1;
    }
    assert!(count >= seeds().len(), "{count} seeds in {}", dir.display());
    for (_, bytes) in seeds() {
        fuzz_one(&bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// Fuzz seeds of the row-group decoders (`fuzz/fuzz_targets/orc_rle_prefix.rs`)
// ---------------------------------------------------------------------------------------------

/// Runs `data` through the `_prefix` decoders as the `orc_rle_prefix` fuzz target does; must
/// match `fuzz/fuzz_targets/orc_rle_prefix.rs`. Byte 0: signedness (bit 0), decoder (bits 1..3),
/// a nibble `lo`; skip = byte 1 * 4 + (lo & 3) (Boolean RLE: byte 1 bytes, then `lo` bits);
/// count = byte 2 * 4 + (lo >> 2). An accepted read lies inside the input, decodes alone to the
/// same values, and matches decoding `skip + count` values from the start.
fn fuzz_one_prefix(data: &[u8]) {
    let [sel, b1, b2, stream @ ..] = data else {
        return;
    };
    let lo = usize::from(sel >> 4);
    let skip = usize::from(*b1) * 4 + (lo & 3);
    let n = usize::from(*b2) * 4 + (lo >> 2);
    let signed = sel & 1 == 1;
    macro_rules! check_int {
        ($t:ty, $dec:ident) => {{
            let mut out = vec![<$t>::default(); n];
            if let Ok(used) = $dec(stream, signed, skip, &mut out) {
                assert!(
                    used <= stream.len(),
                    "read {used} of {} bytes",
                    stream.len()
                );
                let mut again = vec![<$t>::default(); n];
                assert_eq!($dec(&stream[..used], signed, skip, &mut again), Ok(used));
                assert_eq!(again, out);
                let mut whole = vec![<$t>::default(); skip + n];
                assert_eq!($dec(stream, signed, 0, &mut whole), Ok(used));
                assert_eq!(whole[skip..], out[..]);
            }
        }};
    }
    match (sel >> 1) & 7 {
        0 => check_int!(i64, decode_int_rle_v2_prefix),
        1 => check_int!(u64, decode_int_rle_v2_prefix),
        2 => check_int!(i32, decode_int_rle_v2_prefix),
        3 => check_int!(u8, decode_int_rle_v2_prefix),
        4 => check_int!(i64, decode_int_rle_v1_prefix),
        5 => check_int!(u16, decode_int_rle_v1_prefix),
        6 => {
            let mut out = vec![0u8; n];
            if let Ok(used) = decode_byte_rle_prefix(stream, skip, &mut out) {
                assert!(
                    used <= stream.len(),
                    "read {used} of {} bytes",
                    stream.len()
                );
                let mut again = vec![0u8; n];
                assert_eq!(
                    decode_byte_rle_prefix(&stream[..used], skip, &mut again),
                    Ok(used)
                );
                assert_eq!(again, out);
                let mut whole = vec![0u8; skip + n];
                assert_eq!(decode_byte_rle_prefix(stream, 0, &mut whole), Ok(used));
                assert_eq!(whole[skip..], out[..]);
            }
        }
        _ => {
            let (skip_bytes, skip_bits) = (usize::from(*b1), sel >> 4);
            let mut out = vec![false; n];
            let result = decode_bool_rle_prefix(stream, skip_bytes, skip_bits, &mut out);
            if skip_bits > 7 {
                assert!(result.is_err(), "skip_bits {skip_bits} accepted");
            }
            if let Ok(used) = result {
                assert!(
                    used <= stream.len(),
                    "read {used} of {} bytes",
                    stream.len()
                );
                let mut again = vec![false; n];
                assert_eq!(
                    decode_bool_rle_prefix(&stream[..used], skip_bytes, skip_bits, &mut again),
                    Ok(used)
                );
                assert_eq!(again, out);
                let skip = skip_bytes * 8 + usize::from(skip_bits);
                let mut whole = vec![false; skip + n];
                assert_eq!(decode_bool_rle_prefix(stream, 0, 0, &mut whole), Ok(used));
                assert_eq!(whole[skip..], out[..]);
            }
        }
    }
}

fn prefix_corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/orc_rle_prefix")
}

/// Seeds for `orc_rle_prefix`: streams written by the encoders, each behind a header that asks
/// for a window crossing group boundaries (or a broken request: a stream cut short, a skip past
/// the end, a bit skip over 7).
fn prefix_seeds() -> Vec<(&'static str, Vec<u8>)> {
    // decoder: 0..=3 RLE v2 as i64/u64/i32/u8, 4/5 RLE v1 as i64/u16, 6 Byte RLE, 7 Boolean RLE.
    let with = |decoder: u8, signed: bool, lo: u8, b1: u8, b2: u8, stream: &[u8]| {
        let mut v = vec![u8::from(signed) | (decoder << 1) | (lo << 4), b1, b2];
        v.extend_from_slice(stream);
        v
    };
    let mixed: Vec<i64> = shaped(11, 900, 24)
        .into_iter()
        .map(|v| v as i64 - (1 << 23))
        .collect();
    let outliers: Vec<u64> = (0..700u64)
        .map(|i| if i % 97 == 5 { 1 << 40 } else { 2000 + i % 17 })
        .collect();
    let linear: Vec<i32> = (0..800).map(|i| 3 * i - 1000).collect();
    let small: Vec<u8> = (0..300)
        .map(|i| [7u8, 7, 7, 7, 9, 200][i / 11 % 6])
        .collect();
    let narrow: Vec<u16> = shaped(12, 600, 16).into_iter().map(|v| v as u16).collect();
    let bytes: Vec<u8> = (0..900usize)
        .map(|i| if i % 300 < 150 { 0x41 } else { (i * 37) as u8 })
        .collect();
    let bools: Vec<bool> = (0..2000).map(|i| i % 13 < 6 || i > 1500).collect();
    let mut byte_rle = Vec::new();
    encode_byte_rle(&bytes, &mut byte_rle);
    let mut bool_rle = Vec::new();
    encode_bool_rle(&bools, &mut bool_rle);
    let v2_mixed = v2(&mixed, true);
    let v1_mixed = v1(&mixed, true);
    vec![
        // skip 130 * 4 + 2 = 522 values, read 60 * 4 + 1 = 241.
        (
            "seed_v2_i64_mixed",
            with(0, true, 0b0110, 130, 60, &v2_mixed),
        ),
        // skip 601, read 88.
        (
            "seed_v2_u64_patched",
            with(1, false, 0b0001, 150, 22, &v2(&outliers, false)),
        ),
        // skip 511 (the end of the first 512-value group), read 252.
        (
            "seed_v2_i32_delta",
            with(2, true, 0b0011, 127, 63, &v2(&linear, true)),
        ),
        (
            "seed_v2_u8_repeats",
            with(3, false, 0b1000, 20, 30, &v2(&small, false)),
        ),
        (
            "seed_v2_truncated",
            with(0, true, 0, 100, 100, &v2_mixed[..v2_mixed.len() / 2]),
        ),
        // skip 130 (one whole RLEv1 run), read 400.
        (
            "seed_v1_i64_mixed",
            with(4, true, 0b0010, 32, 100, &v1_mixed),
        ),
        (
            "seed_v1_u16",
            with(5, false, 0b1101, 99, 40, &v1(&narrow, false)),
        ),
        (
            "seed_v1_skip_past_end",
            with(4, true, 0b0011, 255, 1, &v1(&mixed[..50], true)),
        ),
        // skip 129 bytes (inside the first run), read 500.
        ("seed_byte_rle", with(6, false, 0b0001, 32, 125, &byte_rle)),
        // skip 31 bytes and 5 bits, read 177 booleans.
        ("seed_bool_rle", with(7, false, 5, 31, 44, &bool_rle)),
        ("seed_bool_bad_bit_skip", with(7, false, 9, 2, 3, &bool_rle)),
    ]
}

#[test]
fn fuzz_corpus_prefix_never_panics_the_row_group_decoders() {
    let dir = prefix_corpus_dir();
    if std::env::var_os("WARPZIP_BLESS").is_some() {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in prefix_seeds() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        fuzz_one_prefix(&std::fs::read(entry.unwrap().path()).unwrap());
        count += 1;
    }
    let seeds = prefix_seeds();
    assert!(count >= seeds.len(), "{count} seeds in {}", dir.display());
    for (_, bytes) in seeds {
        fuzz_one_prefix(&bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// The .wz codecs
// ---------------------------------------------------------------------------------------------

fn le_bytes<T: OrcInt>(values: &[T]) -> Vec<u8> {
    let mut out = vec![0u8; values.len() * T::BYTES];
    for (d, v) in out.chunks_exact_mut(T::BYTES).zip(values) {
        v.write_le(d);
    }
    out
}

#[test]
fn wz_round_trip_every_type_on_the_cpu() {
    let raw = shaped(5, 70_000, 40);
    let cases: Vec<(ElemType, Vec<u8>)> = vec![
        (
            ElemType::I8,
            le_bytes(&raw.iter().map(|&v| v as i8).collect::<Vec<_>>()),
        ),
        (
            ElemType::U8,
            le_bytes(&raw.iter().map(|&v| v as u8).collect::<Vec<_>>()),
        ),
        (
            ElemType::I16,
            le_bytes(&raw.iter().map(|&v| v as i16).collect::<Vec<_>>()),
        ),
        (
            ElemType::U16,
            le_bytes(&raw.iter().map(|&v| v as u16).collect::<Vec<_>>()),
        ),
        (
            ElemType::I32,
            le_bytes(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>()),
        ),
        (
            ElemType::U32,
            le_bytes(&raw.iter().map(|&v| v as u32).collect::<Vec<_>>()),
        ),
        (
            ElemType::I64,
            le_bytes(&raw.iter().map(|&v| v as i64).collect::<Vec<_>>()),
        ),
        (ElemType::U64, le_bytes(&raw)),
    ];
    for codec in [CodecId::OrcRleV1, CodecId::OrcRleV2] {
        for (elem, data) in &cases {
            let opts = CompressOptions {
                chunk_size: Some(4096 * elem.size() as u32),
                elem_type: Some(*elem),
                ..CompressOptions::for_codec(codec)
            };
            let wz = warpzip::compress(data, &opts, &Device::Cpu).unwrap();
            let parsed = warpzip::api::inspect(&wz).unwrap();
            assert_eq!(parsed.header.elem_type, *elem);
            assert_eq!(parsed.header.codec, codec);
            assert_eq!(
                &warpzip::decompress(&wz, &Device::Cpu).unwrap(),
                data,
                "{codec} {elem}"
            );
        }
    }
    // Sorted keys compress well.
    let keys: Vec<u32> = (0..100_000u32).map(|i| i / 3).collect();
    let data = le_bytes(&keys);
    let opts = CompressOptions {
        elem_type: Some(ElemType::U32),
        ..CompressOptions::for_codec(CodecId::OrcRleV2)
    };
    let wz = warpzip::compress(&data, &opts, &Device::Cpu).unwrap();
    assert!(wz.len() * 10 < data.len(), "{}", wz.len());
    assert_eq!(warpzip::decompress(&wz, &Device::Cpu).unwrap(), data);
    // Empty input.
    let wz = warpzip::compress(&[], &opts, &Device::Cpu).unwrap();
    assert!(warpzip::decompress(&wz, &Device::Cpu).unwrap().is_empty());
}

/// Deterministic i32 column for the golden files: every sub-encoding of both versions, from
/// plain arithmetic (no RNG whose algorithm could change).
fn golden_column() -> Vec<i32> {
    let mut v: Vec<i32> = vec![10000; 5];
    v.extend([23713, 43806, 57005, 48879]);
    v.extend([2, 3, 5, 7, 11, 13, 17, 19, 23, 29]);
    v.extend([
        2030, 2000, 2020, 1000000, 2040, 2050, 2060, 2070, 2080, 2090,
    ]);
    v.extend((0..700).map(|i| i / 3));
    v.extend((0..600).map(|i| ((i * 2654435761u32 as i64) % 100_000) as i32 - 50_000));
    v.extend(std::iter::repeat_n(i32::MIN, 40));
    v.extend((0..300).map(|i| if i % 97 == 5 { i32::MAX - i } else { i % 13 }));
    v
}

#[test]
fn wz_golden_files_are_stable() {
    let data = le_bytes(&golden_column());
    for (codec, name) in [
        (CodecId::OrcRleV1, "orc_rle_v1_golden.wz"),
        (CodecId::OrcRleV2, "orc_rle_v2_golden.wz"),
    ] {
        let opts = CompressOptions {
            elem_type: Some(ElemType::I32),
            chunk_size: Some(4096),
            ..CompressOptions::for_codec(codec)
        };
        let wz = warpzip::compress(&data, &opts, &Device::Cpu).unwrap();
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        if std::env::var_os("WARPZIP_BLESS").is_some() {
            std::fs::write(&path, &wz).unwrap();
        }
        let golden = std::fs::read(&path).unwrap();
        assert_eq!(
            warpzip::decompress(&golden, &Device::Cpu).unwrap(),
            data,
            "{name}"
        );
        assert!(
            wz == golden,
            "{name}: the encoder's bytes changed (a new format version?)"
        );
    }
}

/// Containers of chunk layout 1 (one ORC stream per chunk, what builds before layout 2 wrote)
/// still decode: the golden column at chunk size 4096.
#[test]
fn wz_layout1_files_still_decode() {
    let data = le_bytes(&golden_column());
    for name in ["orc_rle_v1_layout1.wz", "orc_rle_v2_layout1.wz"] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let old = std::fs::read(&path).unwrap();
        let parsed = warpzip::format::Container::parse(&old).unwrap();
        assert_eq!(parsed.header.codec_params.first(), Some(&1), "{name}");
        assert_eq!(
            warpzip::decompress(&old, &Device::Cpu).unwrap(),
            data,
            "{name}"
        );
    }
}

/// Layout 2: the index names where every sub-block's stream ends, and the streams together
/// are one ORC stream of the chunk's values (a plain ORC reader decodes them).
#[test]
fn indexed_chunks_hold_one_stream_per_sub_block() {
    use warpzip::codec::orc_rle::chunked;
    use warpzip::codec::orc_rle::format::{split_indexed, Layout, RleVersion};
    let values: Vec<i32> = golden_column();
    let data = le_bytes(&values);
    for version in [RleVersion::V1, RleVersion::V2] {
        for sub_block in [1u32, 7, 100, 512, 5000] {
            let layout = Layout::indexed(sub_block).unwrap();
            let chunk = chunked::encode_chunk(&data, ElemType::I32, version, layout).unwrap();
            let (ends, streams) = split_indexed(&chunk, values.len(), sub_block).unwrap();
            assert_eq!(ends.len(), values.len().div_ceil(sub_block as usize));
            let mut start = 0usize;
            for (j, &end) in ends.iter().enumerate() {
                let lo = j * sub_block as usize;
                let hi = (lo + sub_block as usize).min(values.len());
                let mut out = vec![0i32; hi - lo];
                match version {
                    RleVersion::V1 => {
                        decode_int_rle_v1(&streams[start..end as usize], true, &mut out)
                    }
                    RleVersion::V2 => {
                        decode_int_rle_v2(&streams[start..end as usize], true, &mut out)
                    }
                }
                .unwrap();
                assert_eq!(out, values[lo..hi], "{version:?} {sub_block} sub-block {j}");
                start = end as usize;
            }
            let mut whole = vec![0i32; values.len()];
            match version {
                RleVersion::V1 => decode_int_rle_v1(streams, true, &mut whole),
                RleVersion::V2 => decode_int_rle_v2(streams, true, &mut whole),
            }
            .unwrap();
            assert_eq!(whole, values);
            let mut back = vec![0u8; data.len()];
            chunked::decode_chunk(&chunk, ElemType::I32, version, layout, &mut back).unwrap();
            assert_eq!(back, data);
        }
    }
}

/// A damaged index is refused before any stream is read: an end that goes backwards or past
/// the streams, a last end short of them, an index cut short.
#[test]
fn indexed_chunks_with_bad_indexes_are_refused() {
    use warpzip::codec::orc_rle::chunked;
    use warpzip::codec::orc_rle::format::{Layout, RleVersion};
    let data = le_bytes(&golden_column());
    let layout = Layout::indexed(300).unwrap();
    let chunk = chunked::encode_chunk(&data, ElemType::I32, RleVersion::V2, layout).unwrap();
    let n_sub = (data.len() / 4).div_ceil(300);
    let decode = |bytes: &[u8]| {
        let mut out = vec![0u8; data.len()];
        chunked::decode_chunk(bytes, ElemType::I32, RleVersion::V2, layout, &mut out)
    };
    assert_eq!(decode(&chunk), Ok(()));
    let set = |j: usize, v: u32| {
        let mut c = chunk.clone();
        c[4 * j..4 * j + 4].copy_from_slice(&v.to_le_bytes());
        c
    };
    let end = |j: usize| u32::from_le_bytes(chunk[4 * j..4 * j + 4].try_into().unwrap());
    // Backwards.
    assert_eq!(decode(&set(2, end(0) - 1)), Err(ChunkStatus::Corrupt));
    // The last end short of, or past, the streams.
    assert_eq!(
        decode(&set(n_sub - 1, end(n_sub - 1) - 1)),
        Err(ChunkStatus::Corrupt)
    );
    assert_eq!(
        decode(&set(n_sub - 1, end(n_sub - 1) + 1)),
        Err(ChunkStatus::Corrupt)
    );
    // A middle end moved: the index is consistent, but a sub-block's stream no longer holds
    // exactly its values.
    assert!(decode(&set(1, end(1) + 1)).is_err());
    // Shorter than its index.
    assert_eq!(decode(&chunk[..4 * n_sub - 2]), Err(ChunkStatus::Truncated));
}

#[test]
fn wz_rejects_bad_arguments() {
    let cpu = Device::Cpu;
    let v2opts = CompressOptions::for_codec(CodecId::OrcRleV2);
    // No element type, or a non-integer one.
    assert!(matches!(
        warpzip::compress(&[0; 8], &v2opts, &cpu),
        Err(Error::InvalidArgument(_))
    ));
    let f32opts = CompressOptions {
        elem_type: Some(ElemType::F32),
        ..v2opts.clone()
    };
    assert!(matches!(
        warpzip::compress(&[0; 8], &f32opts, &cpu),
        Err(Error::InvalidArgument(_))
    ));
    // A length that is not a whole number of values.
    let i32opts = CompressOptions {
        elem_type: Some(ElemType::I32),
        ..v2opts.clone()
    };
    assert!(matches!(
        warpzip::compress(&[0; 7], &i32opts, &cpu),
        Err(Error::InvalidArgument(_))
    ));
    // A chunk size that is not a multiple of the element size.
    let odd = CompressOptions {
        chunk_size: Some(1002),
        ..i32opts.clone()
    };
    assert!(matches!(
        warpzip::compress(&[0; 8], &odd, &cpu),
        Err(Error::InvalidArgument(_))
    ));
    let leveled = CompressOptions {
        level: Some(1),
        ..i32opts
    };
    assert!(matches!(
        warpzip::compress(&[0; 8], &leveled, &cpu),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn wz_damaged_chunk_is_named() {
    let keys: Vec<i64> = (0..20_000i64).map(|i| i * 3 - 7000).collect();
    let data = le_bytes(&keys);
    let opts = CompressOptions {
        elem_type: Some(ElemType::I64),
        chunk_size: Some(8 * 4096),
        ..CompressOptions::for_codec(CodecId::OrcRleV1)
    };
    let wz = warpzip::compress(&data, &opts, &Device::Cpu).unwrap();
    let parsed = warpzip::format::Container::parse(&wz).unwrap();
    assert_eq!(parsed.chunk_count(), 5);
    let chunks: Vec<(&[u8], usize)> = (0..parsed.chunk_count())
        .map(|i| {
            (
                parsed.chunk_bytes(i),
                parsed.chunks[i].uncompressed_len as usize,
            )
        })
        .collect();
    let mut bad: Vec<Vec<u8>> = chunks.iter().map(|(b, _)| b.to_vec()).collect();
    bad[2].pop();
    let bad_refs: Vec<(&[u8], usize)> = bad
        .iter()
        .zip(&chunks)
        .map(|(b, &(_, n))| (b.as_slice(), n))
        .collect();
    let mut out = vec![0u8; data.len()];
    let err = warpzip::codec::orc_rle::chunked::decompress_into(
        &bad_refs,
        ElemType::I64,
        warpzip::codec::orc_rle::format::RleVersion::V1,
        warpzip::codec::orc_rle::format::Layout::default_for(ElemType::I64),
        &mut out,
    )
    .unwrap_err();
    assert!(matches!(err, Error::Corrupt { chunk: 2, .. }), "{err}");
}

// ---------------------------------------------------------------------------------------------
// Speed
// ---------------------------------------------------------------------------------------------

fn time_decode<T: OrcInt>(name: &str, values: &[T], signed: bool, version: u8) {
    let mut enc = Vec::new();
    if version == 1 {
        encode_int_rle_v1(values, signed, &mut enc).unwrap();
    } else {
        encode_int_rle_v2(values, signed, &mut enc).unwrap();
    }
    let mut out = vec![T::default(); values.len()];
    let mut times = Vec::new();
    for _ in 0..7 {
        let t = std::time::Instant::now();
        if version == 1 {
            decode_int_rle_v1(&enc, signed, &mut out).unwrap();
        } else {
            decode_int_rle_v2(&enc, signed, &mut out).unwrap();
        }
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let bytes = (values.len() * T::BYTES) as f64;
    println!(
        "RLE v{version} {name:<28} {:>6.2} bits/value  decode {:>6.2} GB/s (one thread)",
        enc.len() as f64 * 8.0 / values.len() as f64,
        bytes / times[3] / 1e9
    );
}

#[test]
#[ignore = "timing; run with --release --ignored --nocapture"]
fn cpu_decode_speed() {
    let n = 16 << 20;
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    // TPC-H l_orderkey-like: sorted keys, 1..7 rows per order, keys with gaps.
    let mut orderkey = Vec::with_capacity(n);
    let mut k = 1i64;
    while orderkey.len() < n {
        for _ in 0..rng.gen_range(1..8) {
            orderkey.push(k);
        }
        k += if rng.gen_range(0..8) == 0 { 25 } else { 1 };
    }
    orderkey.truncate(n);
    // SSB lo_orderdate-like: dates as yyyymmdd ints, random.
    let dates: Vec<i32> = (0..n)
        .map(|_| {
            19920101
                + rng.gen_range(0..7) * 10000
                + rng.gen_range(0..12) * 100
                + rng.gen_range(0..28)
        })
        .collect();
    let quantity: Vec<i32> = (0..n).map(|_| rng.gen_range(1..51)).collect();
    let random: Vec<i64> = (0..n).map(|_| rng.gen()).collect();
    let sorted_dense: Vec<i64> = (0..n as i64).collect();
    for version in [2u8, 1] {
        time_decode("l_orderkey (i64)", &orderkey, true, version);
        time_decode("lo_orderdate (i32)", &dates, true, version);
        time_decode("quantity 1..50 (i32)", &quantity, true, version);
        time_decode("random (i64)", &random, true, version);
        time_decode("dense sorted (i64)", &sorted_dense, true, version);
    }
}
