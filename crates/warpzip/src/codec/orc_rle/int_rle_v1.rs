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
