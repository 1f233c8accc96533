//! The Integer RLE v2 reference decoder. Each group is parsed from a bounds-checked slice; bit
//! unpacking reads whole big-endian words where the input allows and falls back to zero-padded
//! loads at its end. Wide arithmetic (base + delta, base + patched value) is done in i128 and
//! range-checked into the stream's domain, so no input can overflow.

use super::int_rle_v2::{decode_width, MAX_GROUP};
use super::{read_varint, zigzag_decode, OrcInt, Sink};
use crate::error::ChunkStatus;

/// Decodes an Integer RLE v2 stream (`signed`: zigzag-encoded i64 values, else u64) into exactly
/// `out.len()` values.
pub fn decode_int_rle_v2<T: OrcInt>(
    input: &[u8],
    signed: bool,
    out: &mut [T],
) -> Result<(), ChunkStatus> {
    let mut sink = Sink::new(out, signed);
    let mut scratch = [0u64; MAX_GROUP];
    let mut pos = 0usize;
    while pos < input.len() {
        let group = &input[pos..];
        let used = match group[0] >> 6 {
            0 => short_repeat(group, &mut sink)?,
            1 => direct(group, &mut sink, &mut scratch)?,
            2 => patched_base(group, &mut sink, &mut scratch)?,
            _ => delta(group, &mut sink, &mut scratch)?,
        };
        pos += used;
    }
    if !sink.is_full() {
        return Err(ChunkStatus::Underflow);
    }
    Ok(())
}

/// Decodes `out.len()` values from the Integer RLE v2 stream `input` after discarding its first
/// `skip` values, and stops as soon as `out` is full even where the stream goes on: the read of
/// one ORC row group, which starts at a group's first byte (`skip` values into it) and ends
/// wherever the row group's values end. Every group touched is decoded whole, exactly as
/// [`decode_int_rle_v2`] decodes it. Returns the input bytes read, up to the end of the last
/// group touched. `Underflow` when the stream ends before `skip + out.len()` values, `Truncated`
/// when it ends inside a group.
pub fn decode_int_rle_v2_prefix<T: OrcInt>(
    input: &[u8],
    signed: bool,
    skip: usize,
    out: &mut [T],
) -> Result<usize, ChunkStatus> {
    let mut scratch = [0u64; MAX_GROUP];
    let mut group = [T::default(); MAX_GROUP];
    let mut pos = 0usize;
    let mut skip = skip;
    let mut written = 0usize;
    while written < out.len() || skip > 0 {
        let bytes = input.get(pos..).filter(|g| !g.is_empty());
        let g = bytes.ok_or(ChunkStatus::Underflow)?;
        let mut sink = Sink::new(&mut group[..], signed);
        pos += match g[0] >> 6 {
            0 => short_repeat(g, &mut sink)?,
            1 => direct(g, &mut sink, &mut scratch)?,
            2 => patched_base(g, &mut sink, &mut scratch)?,
            _ => delta(g, &mut sink, &mut scratch)?,
        };
        let len = sink.pos;
        let skipped = len.min(skip);
        skip -= skipped;
        let n = (len - skipped).min(out.len() - written);
        out[written..written + n].copy_from_slice(&group[skipped..skipped + n]);
        written += n;
    }
    Ok(pos)
}

/// The 9-bit length field of DIRECT, PATCHED_BASE and DELTA headers, plus one.
#[inline(always)]
fn group_len(b0: u8, b1: u8) -> usize {
    ((usize::from(b0 & 1) << 8) | usize::from(b1)) + 1
}

fn short_repeat<T: OrcInt>(g: &[u8], sink: &mut Sink<'_, T>) -> Result<usize, ChunkStatus> {
    let width = usize::from((g[0] >> 3) & 7) + 1;
    let count = usize::from(g[0] & 7) + 3;
    let bytes = g.get(1..1 + width).ok_or(ChunkStatus::Truncated)?;
    let raw = bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let bits = if sink.signed {
        zigzag_decode(raw) as u64
    } else {
        raw
    };
    let value = Sink::<T>::narrow_bits(sink.signed, bits)?;
    sink.take(count)?.fill(value);
    Ok(1 + width)
}

fn direct<T: OrcInt>(
    g: &[u8],
    sink: &mut Sink<'_, T>,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    let header = g.get(..2).ok_or(ChunkStatus::Truncated)?;
    let width = decode_width(header[0] >> 1);
    let len = group_len(header[0], header[1]);
    let vals = &mut scratch[..len];
    let used = unpack_be(&g[2..], width, vals)?;
    let signed = sink.signed;
    let dst = sink.take(len)?;
    if signed {
        for (d, &v) in dst.iter_mut().zip(vals.iter()) {
            *d = Sink::<T>::narrow_bits(true, zigzag_decode(v) as u64)?;
        }
    } else {
        for (d, &v) in dst.iter_mut().zip(vals.iter()) {
            *d = Sink::<T>::narrow_bits(false, v)?;
        }
    }
    Ok(2 + used)
}

fn patched_base<T: OrcInt>(
    g: &[u8],
    sink: &mut Sink<'_, T>,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    let header = g.get(..4).ok_or(ChunkStatus::Truncated)?;
    let width = decode_width(header[0] >> 1);
    let len = group_len(header[0], header[1]);
    let base_bytes = usize::from(header[2] >> 5) + 1;
    let patch_width = decode_width(header[2]);
    let gap_width = u32::from(header[3] >> 5) + 1;
    let patch_count = usize::from(header[3] & 0x1f);
    if gap_width + patch_width > 64 {
        return Err(ChunkStatus::Corrupt);
    }
    let mut pos = 4usize;
    let base_raw = g
        .get(pos..pos + base_bytes)
        .ok_or(ChunkStatus::Truncated)?
        .iter()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    pos += base_bytes;
    // Sign and magnitude: the top bit of the base's bytes is the sign.
    let sign_bit = 1u64 << (base_bytes * 8 - 1);
    let base = if base_raw & sign_bit != 0 {
        -i128::from(base_raw & !sign_bit)
    } else {
        i128::from(base_raw)
    };
    let vals = &mut scratch[..len];
    pos += unpack_be(&g[pos..], width, vals)?;
    let entry_width = super::int_rle_v2::closest_fixed_width(gap_width + patch_width);
    let mut entries = [0u64; super::int_rle_v2::MAX_PATCHES];
    let entries = &mut entries[..patch_count];
    pos += unpack_be(&g[pos..], entry_width, entries)?;

    let signed = sink.signed;
    let dst = sink.take(len)?;
    for (d, &v) in dst.iter_mut().zip(vals.iter()) {
        *d = Sink::<T>::narrow_wide(signed, base + i128::from(v))?;
    }
    // Patches: each gap counts from the previous patch; a gap of 255 with a zero patch only
    // skips ahead (gaps longer than 255 are written as such fillers).
    let patch_mask = if patch_width == 64 {
        u64::MAX
    } else {
        (1u64 << patch_width) - 1
    };
    let mut index = 0usize;
    let mut last_patched: Option<usize> = None;
    for &entry in entries.iter() {
        let gap = (entry >> patch_width) as usize;
        let patch = entry & patch_mask;
        if gap == 255 && patch == 0 {
            index += 255;
            continue;
        }
        index += gap;
        if last_patched == Some(index) {
            return Err(ChunkStatus::Corrupt);
        }
        let v = *vals.get(index).ok_or(ChunkStatus::Corrupt)?;
        let patched = u128::from(v) | (u128::from(patch) << width);
        let patched = i128::try_from(patched).map_err(|_| ChunkStatus::Corrupt)?;
        dst[index] = Sink::<T>::narrow_wide(signed, base + patched)?;
        last_patched = Some(index);
    }
    Ok(pos)
}

fn delta<T: OrcInt>(
    g: &[u8],
    sink: &mut Sink<'_, T>,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    let header = g.get(..2).ok_or(ChunkStatus::Truncated)?;
    let code = (header[0] >> 1) & 0x1f;
    let width = if code == 0 { 0 } else { decode_width(code) };
    let len = group_len(header[0], header[1]);
    let signed = sink.signed;
    let mut pos = 2usize;
    let raw = read_varint(g, &mut pos)?;
    let base = if signed {
        i128::from(zigzag_decode(raw))
    } else {
        i128::from(raw)
    };
    let delta_base = i128::from(zigzag_decode(read_varint(g, &mut pos)?));
    if width == 0 {
        // Fixed delta: the values are linear, so checking the first and the last checks all.
        let dst = sink.take(len)?;
        Sink::<T>::narrow_wide(signed, base)?;
        Sink::<T>::narrow_wide(signed, base + delta_base * (len as i128 - 1))?;
        let mut v = base;
        for d in dst.iter_mut() {
            *d = Sink::<T>::narrow_wide(signed, v)?;
            v += delta_base;
        }
        return Ok(pos);
    }
    let deltas = &mut scratch[..len.saturating_sub(2)];
    pos += unpack_be(&g[pos..], width, deltas)?;
    let dst = sink.take(len)?;
    let mut v = base;
    dst[0] = Sink::<T>::narrow_wide(signed, v)?;
    if len >= 2 {
        v += delta_base;
        dst[1] = Sink::<T>::narrow_wide(signed, v)?;
        let decreasing = delta_base < 0;
        for (d, &step) in dst[2..].iter_mut().zip(deltas.iter()) {
            if decreasing {
                v -= i128::from(step);
            } else {
                v += i128::from(step);
            }
            *d = Sink::<T>::narrow_wide(signed, v)?;
        }
    }
    Ok(pos)
}

/// Reads `dst.len()` big-endian values of `width` bits (1..=64) packed back to back from the
/// front of `input`; returns the bytes they take (padded to a whole byte).
pub(crate) fn unpack_be(input: &[u8], width: u32, dst: &mut [u64]) -> Result<usize, ChunkStatus> {
    let bits = (width as usize)
        .checked_mul(dst.len())
        .ok_or(ChunkStatus::Corrupt)?;
    let nbytes = bits.div_ceil(8);
    let data = input.get(..nbytes).ok_or(ChunkStatus::Truncated)?;
    match width {
        8 => {
            for (d, &b) in dst.iter_mut().zip(data) {
                *d = u64::from(b);
            }
        }
        16 => {
            for (d, b) in dst.iter_mut().zip(data.chunks_exact(2)) {
                *d = u64::from(u16::from_be_bytes([b[0], b[1]]));
            }
        }
        32 => {
            for (d, b) in dst.iter_mut().zip(data.chunks_exact(4)) {
                *d = u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
            }
        }
        64 => {
            for (d, b) in dst.iter_mut().zip(data.chunks_exact(8)) {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(b);
                *d = u64::from_be_bytes(raw);
            }
        }
        1..=56 => {
            let mut bit = 0usize;
            for d in dst.iter_mut() {
                *d = bits_at(data, bit, width);
                bit += width as usize;
            }
        }
        57..=63 => {
            let mut bit = 0usize;
            let low = 32u32;
            let high = width - low;
            for d in dst.iter_mut() {
                let hi = bits_at(data, bit, high);
                let lo = bits_at(data, bit + high as usize, low);
                *d = (hi << low) | lo;
                bit += width as usize;
            }
        }
        _ => return Err(ChunkStatus::Corrupt),
    }
    Ok(nbytes)
}

/// The `width` (1..=56) bits starting at bit `bit` of `data`, big-endian; bits past the end of
/// `data` read as zero.
#[inline(always)]
fn bits_at(data: &[u8], bit: usize, width: u32) -> u64 {
    let byte = bit >> 3;
    let shift = (bit & 7) as u32;
    let word = match data.get(byte..byte + 8) {
        Some(w) => {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(w);
            u64::from_be_bytes(raw)
        }
        None => {
            let mut raw = [0u8; 8];
            let tail = data.get(byte..).unwrap_or(&[]);
            raw[..tail.len()].copy_from_slice(tail);
            u64::from_be_bytes(raw)
        }
    };
    (word << shift) >> (64 - width)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::v2_encode::encode_int_rle_v2;
    use super::*;

    /// Values that make the encoder use every sub-encoding: short repeats, a long fixed-delta
    /// run, a varying delta run, direct values and patched-base outliers.
    fn sample() -> (Vec<i64>, Vec<u8>) {
        let mut values: Vec<i64> = vec![4; 5];
        values.extend(0..700);
        values.extend((0..100).map(|i| i * i));
        values.extend((0..300).map(|i| (i * 7919) % 1000 - 500));
        values.extend((0..200).map(|i| if i % 50 == 7 { 1 << 40 } else { i % 13 }));
        values.extend([i64::MIN, i64::MAX, -1]);
        let mut encoded = Vec::new();
        encode_int_rle_v2(&values, true, &mut encoded).unwrap();
        (values, encoded)
    }

    #[test]
    fn prefix_decodes_any_window_and_stops_early() {
        let (values, encoded) = sample();
        let total = values.len();
        for skip in [
            0usize,
            1,
            4,
            5,
            6,
            511,
            512,
            517,
            704,
            805,
            1105,
            1300,
            total - 1,
        ] {
            for n in [0usize, 1, 2, 100, total - skip] {
                if skip + n > total {
                    continue;
                }
                let mut out = vec![0i64; n];
                decode_int_rle_v2_prefix(&encoded, true, skip, &mut out).unwrap();
                assert_eq!(out, &values[skip..skip + n], "skip {skip} n {n}");
            }
        }
        let mut out = vec![0i64; total];
        assert_eq!(
            decode_int_rle_v2_prefix(&encoded, true, 0, &mut out).unwrap(),
            encoded.len()
        );
        // Starting at the second group's first byte: the first is the short repeat of 4s.
        let mut whole = vec![0i64; 5];
        let first = decode_int_rle_v2_prefix(&encoded, true, 0, &mut whole).unwrap();
        let mut out = vec![0i64; 10];
        decode_int_rle_v2_prefix(&encoded[first..], true, 3, &mut out).unwrap();
        assert_eq!(out, &values[8..18]);
    }

    #[test]
    fn prefix_reports_short_streams() {
        let (values, encoded) = sample();
        let mut out = vec![0i64; values.len() + 1];
        assert_eq!(
            decode_int_rle_v2_prefix(&encoded, true, 0, &mut out),
            Err(ChunkStatus::Underflow)
        );
        // A DIRECT header without its values.
        assert_eq!(
            decode_int_rle_v2_prefix(&[0x4e, 0x09], true, 0, &mut [0i64; 1]),
            Err(ChunkStatus::Truncated)
        );
        assert_eq!(
            decode_int_rle_v2_prefix::<i64>(&[], true, 0, &mut []),
            Ok(0)
        );
    }
}
