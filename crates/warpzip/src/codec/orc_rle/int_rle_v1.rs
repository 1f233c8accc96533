//! ORC Integer RLE version 1: a control byte 0..=127 is a run of `c + 3` values, followed by a
//! delta byte (i8) and the first value as a varint, each value `delta` more than the previous;
//! a control byte 128..=255 (as i8, -128..=-1) is `-c` literal varints. Signed streams zigzag
//! every varint value.

use super::{
    negative_for_unsigned, read_varint, stream_value, write_varint, zigzag_decode, zigzag_encode,
    OrcInt, Sink,
};
use crate::error::{ChunkStatus, Result};

/// Shortest run a run group stores.
pub const MIN_RUN: usize = 3;
/// Longest run one group stores.
pub const MAX_RUN: usize = 130;
/// Longest literal group.
pub const MAX_LITERALS: usize = 128;

#[inline(always)]
fn read_value(input: &[u8], pos: &mut usize, signed: bool) -> Result<i128, ChunkStatus> {
    let raw = read_varint(input, pos)?;
    Ok(if signed {
        i128::from(zigzag_decode(raw))
    } else {
        i128::from(raw)
    })
}

/// Decodes an Integer RLE v1 stream (`signed` says whether its values are zigzag-encoded i64 or
/// plain u64) into exactly `out.len()` values.
pub fn decode_int_rle_v1<T: OrcInt>(
    input: &[u8],
    signed: bool,
    out: &mut [T],
) -> Result<(), ChunkStatus> {
    let mut sink = Sink::new(out, signed);
    let mut pos = 0usize;
    while pos < input.len() {
        let control = input[pos];
        pos += 1;
        if control < 0x80 {
            let len = usize::from(control) + MIN_RUN;
            let delta = i128::from(*input.get(pos).ok_or(ChunkStatus::Truncated)? as i8);
            pos += 1;
            let base = read_value(input, &mut pos, signed)?;
            let dst = sink.take(len)?;
            // The run is linear: when its first and last values fit, so do all between.
            let last = base + delta * (len as i128 - 1);
            Sink::<T>::narrow_wide(signed, base)?;
            Sink::<T>::narrow_wide(signed, last)?;
            let mut v = base;
            for d in dst.iter_mut() {
                *d = Sink::<T>::narrow_wide(signed, v)?;
                v += delta;
            }
        } else {
            let len = 256 - usize::from(control);
            let dst = sink.take(len)?;
            // Two loops, so that neither tests the signedness per value.
            if signed {
                for d in dst.iter_mut() {
                    let raw = read_varint(input, &mut pos)?;
                    *d = T::from_i64(zigzag_decode(raw)).ok_or(ChunkStatus::Corrupt)?;
                }
            } else {
                for d in dst.iter_mut() {
                    let raw = read_varint(input, &mut pos)?;
                    *d = T::from_u64(raw).ok_or(ChunkStatus::Corrupt)?;
                }
            }
        }
    }
    if !sink.is_full() {
        return Err(ChunkStatus::Underflow);
    }
    Ok(())
}

/// Decodes `out.len()` values from the Integer RLE v1 stream `input` after discarding its first
/// `skip` values, and stops as soon as `out` is full even where the stream goes on: the read of
/// one ORC row group, which starts at a group's first byte (`skip` values into it) and ends
/// wherever the row group's values end. Every group touched is decoded whole, exactly as
/// [`decode_int_rle_v1`] decodes it. Returns the input bytes read, up to the end of the last
/// group touched. `Underflow` when the stream ends before `skip + out.len()` values, `Truncated`
/// when it ends inside a group.
pub fn decode_int_rle_v1_prefix<T: OrcInt>(
    input: &[u8],
    signed: bool,
    skip: usize,
    out: &mut [T],
) -> Result<usize, ChunkStatus> {
    let mut group = [T::default(); MAX_RUN];
    let mut pos = 0usize;
    let mut skip = skip;
    let mut written = 0usize;
    while written < out.len() || skip > 0 {
        let start = pos;
        let control = *input.get(pos).ok_or(ChunkStatus::Underflow)?;
        pos += 1;
        let len = if control < 0x80 {
            // Delta byte, then the base as a varint.
            input.get(pos).ok_or(ChunkStatus::Truncated)?;
            pos += 1;
            read_varint(input, &mut pos)?;
            usize::from(control) + MIN_RUN
        } else {
            let len = 256 - usize::from(control);
            for _ in 0..len {
                read_varint(input, &mut pos)?;
            }
            len
        };
        let values = &mut group[..len];
        decode_int_rle_v1(&input[start..pos], signed, values)?;
        let skipped = len.min(skip);
        skip -= skipped;
        let n = (len - skipped).min(out.len() - written);
        out[written..written + n].copy_from_slice(&values[skipped..skipped + n]);
        written += n;
    }
    Ok(pos)
}

/// Appends the Integer RLE v1 encoding of `values` to `out`: every stretch of 3 or more values
/// with one delta in -128..=127 becomes run groups (at most 130 values each), the values between
/// runs literal groups of at most 128. An unsigned stream (`signed == false`) cannot hold a
/// negative value: `Error::InvalidArgument`.
pub fn encode_int_rle_v1<T: OrcInt>(values: &[T], signed: bool, out: &mut Vec<u8>) -> Result<()> {
    let wide: Vec<i128> = values
        .iter()
        .map(|&v| stream_value(v, signed))
        .collect::<Option<Vec<i128>>>()
        .ok_or_else(negative_for_unsigned)?;
    let put = |out: &mut Vec<u8>, v: i128| {
        let raw = if signed {
            zigzag_encode(v as i64)
        } else {
            v as u64
        };
        write_varint(out, raw);
    };
    let n = wide.len();
    let mut i = 0usize;
    while i < n {
        let run = run_len(&wide, i);
        if run >= MIN_RUN {
            let delta = wide[i + 1] - wide[i];
            out.push((run - MIN_RUN) as u8);
            out.push(delta as i8 as u8);
            put(out, wide[i]);
            i += run;
            continue;
        }
        let start = i;
        while i < n && i - start < MAX_LITERALS && run_len(&wide, i) < MIN_RUN {
            i += 1;
        }
        out.push((256 - (i - start)) as u8);
        for &v in &wide[start..i] {
            put(out, v);
        }
    }
    Ok(())
}

/// Length of the run starting at `i` whose values differ by one delta in -128..=127 (at most
/// `MAX_RUN`); 1 when no such run of 2 or more starts there.
fn run_len(v: &[i128], i: usize) -> usize {
    let Some(&next) = v.get(i + 1) else {
        return 1;
    };
    let delta = next - v[i];
    if !(-128..=127).contains(&delta) {
        return 1;
    }
    let mut len = 2;
    while len < MAX_RUN && i + len < v.len() && v[i + len] - v[i + len - 1] == delta {
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn sample() -> (Vec<i64>, Vec<u8>) {
        // A run longer than one group, literals, a descending run, large values.
        let mut values: Vec<i64> = (0..300).collect();
        values.extend([7, -3, 1 << 40, i64::MIN, i64::MAX, 12]);
        values.extend((0..50).map(|i| 1000 - 5 * i));
        let mut encoded = Vec::new();
        encode_int_rle_v1(&values, true, &mut encoded).unwrap();
        (values, encoded)
    }

    #[test]
    fn prefix_decodes_any_window_and_stops_early() {
        let (values, encoded) = sample();
        let total = values.len();
        for skip in [0usize, 1, 129, 130, 131, 299, 300, 303, 306, 355] {
            for n in [0usize, 1, 3, 64, total - skip] {
                if skip + n > total {
                    continue;
                }
                let mut out = vec![0i64; n];
                decode_int_rle_v1_prefix(&encoded, true, skip, &mut out).unwrap();
                assert_eq!(out, &values[skip..skip + n], "skip {skip} n {n}");
            }
        }
        let mut out = vec![0i64; total];
        assert_eq!(
            decode_int_rle_v1_prefix(&encoded, true, 0, &mut out).unwrap(),
            encoded.len()
        );
        // Narrower outputs still refuse values that do not fit.
        let mut narrow = vec![0i32; total];
        assert_eq!(
            decode_int_rle_v1_prefix(&encoded, true, 0, &mut narrow),
            Err(ChunkStatus::Corrupt)
        );
    }

    #[test]
    fn prefix_reports_short_streams() {
        let (values, encoded) = sample();
        let mut out = vec![0i64; values.len() + 1];
        assert_eq!(
            decode_int_rle_v1_prefix(&encoded, true, 0, &mut out),
            Err(ChunkStatus::Underflow)
        );
        // A run without its base, and literals cut short.
        assert_eq!(
            decode_int_rle_v1_prefix(&[0x00, 0x01], true, 0, &mut [0i64; 1]),
            Err(ChunkStatus::Truncated)
        );
        assert_eq!(
            decode_int_rle_v1_prefix(&[0xfe, 0x02], true, 0, &mut [0i64; 1]),
            Err(ChunkStatus::Truncated)
        );
        assert_eq!(
            decode_int_rle_v1_prefix::<i64>(&[], true, 0, &mut []),
            Ok(0)
        );
    }
}
