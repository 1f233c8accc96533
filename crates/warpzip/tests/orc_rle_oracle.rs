//! The CPU reference decoders of ORC Integer RLE v1 and v2 against a deliberately plain oracle,
//! written here from the statuses `codec::orc_rle` documents, value by value and byte by byte:
//! same values on success and the same `ChunkStatus` on every failure, on encoded streams of the
//! shapes the fast paths take (short literal groups of one-byte varints, groups at the very end
//! of a stream, short DIRECT groups between repeats) and on the same streams truncated,
//! bit-flipped and decoded into outputs of the wrong length.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use warpzip::codec::orc_rle::{
    decode_int_rle_v1, decode_int_rle_v2, encode_int_rle_v1, encode_int_rle_v2, OrcInt,
};
use warpzip::ChunkStatus;

/// Reads a base-128 varint byte by byte: `Truncated` where the input ends inside it, `Corrupt`
/// where it holds more than 64 bits.
fn oracle_varint(input: &[u8], pos: &mut usize) -> Result<u64, ChunkStatus> {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = *input.get(*pos).ok_or(ChunkStatus::Truncated)?;
        *pos += 1;
        let low = u64::from(byte & 0x7f);
        if shift == 63 && low > 1 {
            return Err(ChunkStatus::Corrupt);
        }
        value |= low << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
        if shift > 63 {
            return Err(ChunkStatus::Corrupt);
        }
    }
}

/// A raw stream value as a wide integer: zigzagged i64 for a signed stream, else u64.
fn oracle_value(raw: u64, signed: bool) -> i128 {
    if signed {
        i128::from(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    } else {
        i128::from(raw)
    }
}

/// `v` as `T`, `None` where it lies outside the stream's domain or `T`.
fn oracle_fit<T: OrcInt>(v: i128, signed: bool) -> Option<T> {
    if signed {
        T::from_i64(i64::try_from(v).ok()?)
    } else {
        T::from_u64(u64::try_from(v).ok()?)
    }
}

/// Integer RLE v1, as the module documents it: a run's delta and base are read before its
/// values are claimed (`Overflow`), a literal group's values are claimed first; a literal value
/// that does not fit makes a later damaged varint of its group `Corrupt`.
fn oracle_v1<T: OrcInt>(input: &[u8], signed: bool, n: usize) -> Result<Vec<T>, ChunkStatus> {
    let mut out: Vec<T> = Vec::with_capacity(n);
    let mut pos = 0usize;
    while pos < input.len() {
        let control = input[pos];
        pos += 1;
        if control < 0x80 {
            let len = usize::from(control) + 3;
            let delta = i128::from(*input.get(pos).ok_or(ChunkStatus::Truncated)? as i8);
            pos += 1;
            let base = oracle_value(oracle_varint(input, &mut pos)?, signed);
            if out.len() + len > n {
                return Err(ChunkStatus::Overflow);
            }
            for i in 0..len as i128 {
                out.push(oracle_fit(base + i * delta, signed).ok_or(ChunkStatus::Corrupt)?);
            }
        } else {
            let len = 256 - usize::from(control);
            if out.len() + len > n {
                return Err(ChunkStatus::Overflow);
            }
            let mut bad = false;
            for _ in 0..len {
                match oracle_varint(input, &mut pos) {
                    Ok(raw) => match oracle_fit(oracle_value(raw, signed), signed) {
                        Some(v) => out.push(v),
                        None => {
                            bad = true;
                            out.push(T::default());
                        }
                    },
                    Err(_) if bad => return Err(ChunkStatus::Corrupt),
                    Err(e) => return Err(e),
                }
            }
            if bad {
                return Err(ChunkStatus::Corrupt);
            }
        }
    }
    if out.len() < n {
        return Err(ChunkStatus::Underflow);
    }
    Ok(out)
}

/// The width of a 5-bit RLEv2 width code.
fn oracle_width(code: u8) -> usize {
    const TABLE: [usize; 8] = [26, 28, 30, 32, 40, 48, 56, 64];
    match code & 0x1f {
        c @ 0..=23 => usize::from(c) + 1,
        c => TABLE[usize::from(c) - 24],
    }
}

/// Integer RLE v2 streams of SHORT_REPEAT and DIRECT groups: a repeat's value is checked before
/// its count is claimed, a DIRECT group's values after. `None` where a group of another kind
/// comes before the decode ends (the oracle does not cover those).
fn oracle_v2<T: OrcInt>(
    input: &[u8],
    signed: bool,
    n: usize,
) -> Option<Result<Vec<T>, ChunkStatus>> {
    let mut out: Vec<T> = Vec::with_capacity(n);
    let mut pos = 0usize;
    while pos < input.len() {
        let b0 = input[pos];
        match b0 >> 6 {
            0 => {
                let width = usize::from((b0 >> 3) & 7) + 1;
                let count = usize::from(b0 & 7) + 3;
                let Some(bytes) = input.get(pos + 1..pos + 1 + width) else {
                    return Some(Err(ChunkStatus::Truncated));
                };
                let raw = bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
                let Some(v) = oracle_fit::<T>(oracle_value(raw, signed), signed) else {
                    return Some(Err(ChunkStatus::Corrupt));
                };
                if out.len() + count > n {
                    return Some(Err(ChunkStatus::Overflow));
                }
                out.extend(std::iter::repeat_n(v, count));
                pos += 1 + width;
            }
            1 => {
                let Some(&b1) = input.get(pos + 1) else {
                    return Some(Err(ChunkStatus::Truncated));
                };
                let width = oracle_width(b0 >> 1);
                let len = ((usize::from(b0 & 1) << 8) | usize::from(b1)) + 1;
                let nbytes = (width * len).div_ceil(8);
                let Some(data) = input.get(pos + 2..pos + 2 + nbytes) else {
                    return Some(Err(ChunkStatus::Truncated));
                };
                if out.len() + len > n {
                    return Some(Err(ChunkStatus::Overflow));
                }
                for i in 0..len {
                    let mut raw = 0u64;
                    for bit in i * width..(i + 1) * width {
                        let b = (data[bit / 8] >> (7 - bit % 8)) & 1;
                        raw = (raw << 1) | u64::from(b);
                    }
                    match oracle_fit::<T>(oracle_value(raw, signed), signed) {
                        Some(v) => out.push(v),
                        None => return Some(Err(ChunkStatus::Corrupt)),
                    }
                }
                pos += 2 + nbytes;
            }
            _ => return None,
        }
    }
    if out.len() < n {
        return Some(Err(ChunkStatus::Underflow));
    }
    Some(Ok(out))
}

/// The damaged variants of `stream` one case tries: whole, cut at `cut`, and with bit `flip`
/// flipped (both taken modulo the stream's length).
fn variants(stream: &[u8], cut: usize, flip: usize) -> Vec<Vec<u8>> {
    let mut all = vec![stream.to_vec()];
    if !stream.is_empty() {
        all.push(stream[..cut % stream.len()].to_vec());
        let mut flipped = stream.to_vec();
        let bit = flip % (stream.len() * 8);
        flipped[bit / 8] ^= 1 << (bit % 8);
        all.push(flipped.clone());
        // Flipped and cut: the damage near the end, where the careful paths take over.
        flipped.truncate(flipped.len() - (cut % 5).min(flipped.len()));
        all.push(flipped);
    }
    all
}

/// Output lengths to decode into: exact, one short (`Overflow`), a few long (`Underflow`).
fn lengths(n: usize) -> [usize; 3] {
    [n, n.saturating_sub(1), n + 3]
}

fn check_v1<T: OrcInt + PartialEq + std::fmt::Debug>(stream: &[u8], signed: bool, n: usize) {
    let mut out = vec![T::default(); n];
    let got = decode_int_rle_v1(stream, signed, &mut out).map(|()| out);
    let want = oracle_v1::<T>(stream, signed, n);
    assert_eq!(
        got,
        want,
        "v1 {} signed {signed} n {n} stream {stream:02x?}",
        std::any::type_name::<T>()
    );
}

fn check_v2<T: OrcInt + PartialEq + std::fmt::Debug>(stream: &[u8], signed: bool, n: usize) {
    let Some(want) = oracle_v2::<T>(stream, signed, n) else {
        return;
    };
    let mut out = vec![T::default(); n];
    let got = decode_int_rle_v2(stream, signed, &mut out).map(|()| out);
    assert_eq!(
        got,
        want,
        "v2 {} signed {signed} n {n} stream {stream:02x?}",
        std::any::type_name::<T>()
    );
}

/// Values for v1 streams: short stretches of small values (one-byte varints in literal groups
/// of any length, broken by short runs), with now and then a larger value and a long stretch.
fn small_values() -> impl Strategy<Value = Vec<i64>> {
    proptest::collection::vec(
        prop_oneof![
            8 => proptest::collection::vec(-64i64..64, 1..40),
            2 => proptest::collection::vec(0i64..11, 1..200),
            1 => proptest::collection::vec(-70_000i64..70_000, 1..8),
            1 => (any::<i64>(), 3usize..12).prop_map(|(v, k)| vec![v; k]),
        ],
        0..12,
    )
    .prop_map(|parts| parts.concat())
}

/// Values for v2 streams of repeats and short DIRECT groups: each value repeated 1 to 7 times.
fn repeated_values() -> impl Strategy<Value = Vec<i64>> {
    proptest::collection::vec(
        (
            prop_oneof![
                3 => -100i64..100,
                3 => 19_920_101i64..19_990_000,
                1 => any::<i32>().prop_map(i64::from),
                1 => any::<i64>(),
            ],
            1usize..8,
        ),
        0..60,
    )
    .prop_map(|parts| {
        parts
            .into_iter()
            .flat_map(|(v, k)| std::iter::repeat_n(v, k))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn v1_matches_the_oracle(values in small_values(), cut in any::<usize>(), flip in any::<usize>()) {
        let mut signed_stream = Vec::new();
        encode_int_rle_v1(&values, true, &mut signed_stream).unwrap();
        let unsigned: Vec<u64> = values.iter().map(|v| v.unsigned_abs()).collect();
        let mut unsigned_stream = Vec::new();
        encode_int_rle_v1(&unsigned, false, &mut unsigned_stream).unwrap();
        for stream in variants(&signed_stream, cut, flip) {
            for n in lengths(values.len()) {
                check_v1::<i64>(&stream, true, n);
                check_v1::<i16>(&stream, true, n);
                check_v1::<i8>(&stream, true, n);
                check_v1::<u16>(&stream, true, n);
                check_v1::<u32>(&stream, false, n);
            }
        }
        for stream in variants(&unsigned_stream, cut, flip) {
            for n in lengths(values.len()) {
                check_v1::<u64>(&stream, false, n);
                check_v1::<u8>(&stream, false, n);
                check_v1::<i16>(&stream, false, n);
            }
        }
    }

    #[test]
    fn v2_matches_the_oracle(values in repeated_values(), cut in any::<usize>(), flip in any::<usize>()) {
        let mut stream = Vec::new();
        encode_int_rle_v2(&values, true, &mut stream).unwrap();
        for stream in variants(&stream, cut, flip) {
            for n in lengths(values.len()) {
                check_v2_all(&stream, n);
            }
        }
    }

    #[test]
    fn random_bytes_match_the_oracle(bytes in proptest::collection::vec(any::<u8>(), 0..120), n in 0usize..300) {
        check_v1::<i64>(&bytes, true, n);
        check_v1::<u16>(&bytes, true, n);
        check_v1::<u8>(&bytes, false, n);
        check_v2::<i32>(&bytes, true, n);
        check_v2::<u64>(&bytes, false, n);
    }
}

/// Long literal groups of one-byte varints end exactly at the stream's end, and one byte later.
#[test]
fn one_byte_groups_at_the_end_match_the_oracle() {
    for len in 1..=128usize {
        for pad in 0..3usize {
            let values: Vec<i64> = (0..len as i64).map(|i| (i * 7) % 13 - 6).collect();
            let mut stream = Vec::new();
            encode_int_rle_v1(&vec![0i64; pad * 3], true, &mut stream).unwrap();
            encode_int_rle_v1(&values, true, &mut stream).unwrap();
            let n = pad * 3 + len;
            for cut in 0..=stream.len() {
                for m in lengths(n) {
                    check_v1::<i16>(&stream[..cut], true, m);
                    check_v1::<u8>(&stream[..cut], true, m);
                }
            }
        }
    }
}

/// Width codes of whole-byte DIRECT widths (8 to 64 bits) and a few others.
const DIRECT_CODES: [u8; 11] = [7, 15, 23, 27, 28, 29, 30, 31, 3, 11, 24];

/// One raw RLEv2 group of the kinds the short-group path reads: a SHORT_REPEAT (`kind` 0) of
/// width `w % 8 + 1` bytes and count `c % 8 + 3`, or a DIRECT group (`kind` 1) of one of
/// [`DIRECT_CODES`] and 1 to 4 values; `bytes` gives the value bits, or `edge` makes them the
/// types' edges (all ones, all zeros, a small value then a large one).
fn raw_v2_group(kind: u8, w: u8, c: u8, edge: u8, bytes: &[u8]) -> Vec<u8> {
    let fill = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|i| match edge % 5 {
                0 => 0xff,
                1 => 0x00,
                2 if i == 0 => 0x7f,
                // A small first value, a large second one.
                3 => [0x00, 0xff][usize::from(2 * i >= n)],
                _ => bytes[i % bytes.len()] ^ (i as u8).wrapping_mul(0x9d),
            })
            .collect()
    };
    if kind == 0 {
        let width = usize::from(w % 8) + 1;
        let mut g = vec![((w % 8) << 3) | (c % 8)];
        g.extend(fill(width));
        g
    } else {
        let code = DIRECT_CODES[usize::from(w) % DIRECT_CODES.len()];
        let len = usize::from(c % 4) + 1;
        let width = oracle_width(code);
        let mut g = vec![0x40 | (code << 1), (len - 1) as u8];
        g.extend(fill((width * len).div_ceil(8)));
        g
    }
}

/// [`check_v2`] into every output type the tests use, from signed and unsigned streams.
fn check_v2_all(stream: &[u8], n: usize) {
    check_v2::<i64>(stream, true, n);
    check_v2::<i32>(stream, true, n);
    check_v2::<i16>(stream, true, n);
    check_v2::<i8>(stream, true, n);
    check_v2::<u32>(stream, true, n);
    check_v2::<u64>(stream, false, n);
    check_v2::<u32>(stream, false, n);
    check_v2::<i32>(stream, false, n);
    check_v2::<u8>(stream, false, n);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    /// Streams of short SHORT_REPEAT and DIRECT groups built byte by byte, with values at the
    /// types' edges, whole, cut and bit-flipped, into outputs of exact, short and long lengths.
    #[test]
    fn short_v2_groups_match_the_oracle(
        groups in proptest::collection::vec(
            (0u8..2, any::<u8>(), any::<u8>(), any::<u8>(), proptest::collection::vec(any::<u8>(), 1..9)),
            0..40,
        ),
        cut in any::<usize>(),
        flip in any::<usize>(),
        extra in 0usize..20,
    ) {
        let mut stream = Vec::new();
        let mut n = 0usize;
        for (kind, w, c, edge, bytes) in &groups {
            stream.extend(raw_v2_group(*kind, *w, *c, *edge, bytes));
            n += if *kind == 0 { usize::from(c % 8) + 3 } else { usize::from(c % 4) + 1 };
        }
        for stream in variants(&stream, cut, flip) {
            for m in lengths(n) {
                check_v2_all(&stream, m);
            }
            check_v2_all(&stream, n + extra);
            check_v2_all(&stream, n.saturating_sub(extra));
        }
    }

    /// Dates as the benchmark makes them (each repeated 1 to 7 times), encoded.
    #[test]
    fn v2_dates_match_the_oracle(
        parts in proptest::collection::vec((19_920_101i64..19_980_802, 1usize..8), 0..200),
        cut in any::<usize>(),
        flip in any::<usize>(),
    ) {
        let values: Vec<i64> = parts.iter().flat_map(|&(v, k)| std::iter::repeat_n(v, k)).collect();
        let mut stream = Vec::new();
        encode_int_rle_v2(&values, true, &mut stream).unwrap();
        for stream in variants(&stream, cut, flip) {
            for m in lengths(values.len()) {
                check_v2_all(&stream, m);
            }
        }
    }
}
