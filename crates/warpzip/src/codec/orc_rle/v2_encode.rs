//! The Integer RLE v2 encoder. It cuts the values as a good ORC writer does: 3..=10 repeats of
//! one value become SHORT_REPEAT, longer repeats DELTA with width 0 (up to 512 values); the
//! values between repeats go in groups of up to 512, each written as whichever of DELTA (for
//! monotone groups), DIRECT and PATCHED_BASE is smallest (groups of up to 3 values are always
//! DIRECT, as in the Apache ORC writers), PATCHED_BASE being considered only
//! when a few outliers blow up DIRECT's width (ORC's rule: the 90th and 100th percentile bit
//! widths differ by more than 1; the data width is then the 95th percentile of the values minus
//! their minimum, and the rest goes into patches). Widths are the specification's preferred
//! (non-deprecated) ones, so the specification's worked examples come out byte for byte.

use super::int_rle_v2::{
    bits_needed, closest_aligned_width, closest_fixed_width, encode_width, DELTA, DIRECT,
    MAX_GROUP, MAX_PATCHES, PATCHED_BASE, SHORT_REPEAT_MAX, SHORT_REPEAT_MIN,
};
use super::{negative_for_unsigned, stream_value, varint_len, write_varint, zigzag_encode, OrcInt};
use crate::error::{Error, Result};

/// Appends the Integer RLE v2 encoding of `values` to `out` (`signed`: a signed stream, whose
/// values are zigzag-encoded i64; else an unsigned u64 stream, which cannot hold a negative
/// value: `Error::InvalidArgument`).
pub fn encode_int_rle_v2<T: OrcInt>(values: &[T], signed: bool, out: &mut Vec<u8>) -> Result<()> {
    let mut wide: Vec<i128> =
        crate::error::try_with_capacity(values.len(), "the ORC RLE encoder's values")?;
    for &v in values {
        wide.push(stream_value(v, signed).ok_or_else(negative_for_unsigned)?);
    }
    let enc = Encoder { signed };
    let n = wide.len();
    let mut i = 0usize;
    while i < n {
        // A long monotone stretch (sorted keys with short repeats) is often smaller as one
        // DELTA group than cut at every repeat: write whichever of the two is smaller.
        let m = monotone_len(&wide, i, MAX_GROUP);
        if m > SHORT_REPEAT_MAX {
            let stretch = &wide[i..i + m];
            if let Some((width, cost)) = enc.delta_plan(stretch) {
                let mut greedy = Vec::new();
                enc.greedy(stretch, &mut greedy)?;
                if cost < greedy.len() {
                    enc.emit(stretch, Plan::Delta { width }, out)?;
                } else {
                    out.extend_from_slice(&greedy);
                }
                i += m;
                continue;
            }
        }
        i = enc.greedy_step(&wide, i, out)?;
    }
    Ok(())
}

/// Length of the stretch from `i` that one DELTA group can hold (at most `cap`): every delta has
/// the sign of the first, a first delta of 0 counting as increasing.
fn monotone_len(v: &[i128], i: usize, cap: usize) -> usize {
    let Some(&next) = v.get(i + 1) else {
        return v.len() - i;
    };
    let up = next >= v[i];
    let mut len = 2;
    while len < cap && i + len < v.len() {
        let d = v[i + len] - v[i + len - 1];
        if (up && d < 0) || (!up && d > 0) {
            break;
        }
        len += 1;
    }
    len
}

impl Encoder {
    /// The greedy cut of `v`: repeats, then groups between them.
    fn greedy(&self, v: &[i128], out: &mut Vec<u8>) -> Result<()> {
        let mut i = 0;
        while i < v.len() {
            i = self.greedy_step(v, i, out)?;
        }
        Ok(())
    }

    /// Writes the next repeat or group of `v` starting at `i`; returns where it ended.
    fn greedy_step(&self, wide: &[i128], i: usize, out: &mut Vec<u8>) -> Result<usize> {
        let enc = self;
        let n = wide.len();
        let mut i = i;
        let run = equal_run(wide, i, MAX_GROUP);
        if run >= SHORT_REPEAT_MIN {
            if run <= SHORT_REPEAT_MAX {
                enc.short_repeat(wide[i], run, out);
            } else {
                enc.fixed_delta(wide[i], 0, run, out)?;
            }
            return Ok(i + run);
        }
        let start = i;
        let end = n.min(start + MAX_GROUP);
        while i < end && equal_run(wide, i, SHORT_REPEAT_MIN) < SHORT_REPEAT_MIN {
            i += 1;
        }
        enc.group(&wide[start..i], out)?;
        Ok(i)
    }
}

/// Number of values equal to `v[i]` starting at `i`, at most `cap`.
fn equal_run(v: &[i128], i: usize, cap: usize) -> usize {
    let x = v[i];
    v[i..].iter().take(cap).take_while(|&&y| y == x).count()
}

struct Encoder {
    signed: bool,
}

/// A sub-encoding chosen for a group, with its size in bytes.
enum Plan {
    Direct { width: u32 },
    Delta { width: u32 },
    Patched(Box<PatchedPlan>),
}

struct PatchedPlan {
    min: i128,
    width: u32,
    base_bytes: usize,
    patch_width: u32,
    gap_width: u32,
    /// (gap, patch) entries in order, fillers included.
    entries: Vec<(u64, u64)>,
}

impl Encoder {
    /// The value as the stream's unsigned bits: zigzag for a signed stream.
    fn zz(&self, v: i128) -> u64 {
        if self.signed {
            zigzag_encode(v as i64)
        } else {
            v as u64
        }
    }

    fn short_repeat(&self, v: i128, count: usize, out: &mut Vec<u8>) {
        let raw = self.zz(v);
        let bytes = (bits_needed(raw) as usize).div_ceil(8).max(1);
        out.push((((bytes - 1) as u8) << 3) | (count - SHORT_REPEAT_MIN) as u8);
        out.extend_from_slice(&raw.to_be_bytes()[8 - bytes..]);
    }

    fn header2(tag: u8, code: u8, len: usize) -> [u8; 2] {
        let l = len - 1;
        [(tag << 6) | (code << 1) | ((l >> 8) as u8 & 1), l as u8]
    }

    fn fixed_delta(&self, first: i128, delta: i128, len: usize, out: &mut Vec<u8>) -> Result<()> {
        let d = i64::try_from(delta)
            .map_err(|_| Error::InvalidArgument("delta does not fit i64".into()))?;
        out.extend_from_slice(&Self::header2(DELTA, 0, len));
        write_varint(out, self.zz(first));
        write_varint(out, zigzag_encode(d));
        Ok(())
    }

    fn group(&self, g: &[i128], out: &mut Vec<u8>) -> Result<()> {
        let len = g.len();
        if len == 0 {
            return Ok(());
        }
        let zz: Vec<u64> = g.iter().map(|&v| self.zz(v)).collect();
        let max_bits = zz.iter().map(|&v| bits_needed(v)).max().unwrap_or(0);
        let direct_width = closest_aligned_width(max_bits);
        let mut best = (
            2 + (direct_width as usize * len).div_ceil(8),
            Plan::Direct {
                width: direct_width,
            },
        );
        // Groups of up to SHORT_REPEAT_MIN values are always DIRECT, as the Apache ORC writers
        // (Java and C++) write them: a DELTA might save a byte or two, but readers then parse
        // two varints for two or three values (SSB dates: 12% of the groups).
        if len <= SHORT_REPEAT_MIN {
            return self.emit(g, best.1, out);
        }

        if let Some((width, cost)) = self.delta_plan(g) {
            if cost <= best.0 {
                best = (cost, Plan::Delta { width });
            }
        }
        if let Some((plan, cost)) = self.patched_plan(g, &zz) {
            if cost < best.0 {
                best = (cost, Plan::Patched(Box::new(plan)));
            }
        }
        self.emit(g, best.1, out)
    }

    /// Writes `g` as one group of the planned sub-encoding.
    fn emit(&self, g: &[i128], plan: Plan, out: &mut Vec<u8>) -> Result<()> {
        let len = g.len();
        match plan {
            Plan::Direct { width } => {
                let zz: Vec<u64> = g.iter().map(|&v| self.zz(v)).collect();
                let code = code_of(width)?;
                out.extend_from_slice(&Self::header2(DIRECT, code, len));
                let mut w = BitWriter::new(out);
                for &v in &zz {
                    w.put(v, width);
                }
                w.finish();
            }
            Plan::Delta { width } => {
                let first_delta = if len >= 2 { g[1] - g[0] } else { 0 };
                if width == 0 {
                    return self.fixed_delta(g[0], first_delta, len, out);
                }
                let d = i64::try_from(first_delta)
                    .map_err(|_| Error::InvalidArgument("delta does not fit i64".into()))?;
                out.extend_from_slice(&Self::header2(DELTA, code_of(width)?, len));
                write_varint(out, self.zz(g[0]));
                write_varint(out, zigzag_encode(d));
                let mut w = BitWriter::new(out);
                for pair in g.windows(2).skip(1) {
                    w.put((pair[1] - pair[0]).unsigned_abs() as u64, width);
                }
                w.finish();
            }
            Plan::Patched(p) => {
                let l = len - 1;
                out.push((PATCHED_BASE << 6) | (code_of(p.width)? << 1) | ((l >> 8) as u8 & 1));
                out.push(l as u8);
                out.push((((p.base_bytes - 1) as u8) << 5) | code_of(p.patch_width)?);
                out.push((((p.gap_width - 1) as u8) << 5) | p.entries.len() as u8);
                let magnitude = p.min.unsigned_abs() as u64;
                let mut base = magnitude;
                if p.min < 0 {
                    base |= 1u64 << (p.base_bytes * 8 - 1);
                }
                out.extend_from_slice(&base.to_be_bytes()[8 - p.base_bytes..]);
                let mask = low_mask(p.width);
                let mut w = BitWriter::new(out);
                for &v in g {
                    w.put(((v - p.min) as u64) & mask, p.width);
                }
                w.finish();
                let entry_width = closest_fixed_width(p.gap_width + p.patch_width);
                let mut w = BitWriter::new(out);
                for &(gap, patch) in &p.entries {
                    w.put((gap << p.patch_width) | patch, entry_width);
                }
                w.finish();
            }
        }
        Ok(())
    }

    /// DELTA's width and size for a monotone group (width 0: one fixed delta), else `None`.
    fn delta_plan(&self, g: &[i128]) -> Option<(u32, usize)> {
        let len = g.len();
        if len < 2 {
            return None;
        }
        let first = g[1] - g[0];
        let first64 = i64::try_from(first).ok()?;
        let header = 2 + varint_len(self.zz(g[0])) + varint_len(zigzag_encode(first64));
        let deltas = g.windows(2).map(|p| p[1] - p[0]);
        if deltas.clone().all(|d| d == first) {
            return Some((0, header));
        }
        // The sign of the first delta gives the direction of the whole group.
        let monotone = if first >= 0 {
            deltas.clone().all(|d| d >= 0)
        } else {
            deltas.clone().all(|d| d <= 0)
        };
        if !monotone {
            return None;
        }
        let max_step = deltas.skip(1).map(|d| d.unsigned_abs()).max().unwrap_or(0);
        let max_step = u64::try_from(max_step).ok()?;
        // Width code 0 means "fixed delta", so a varying delta takes at least 2 bits.
        let width = closest_aligned_width(bits_needed(max_step)).max(2);
        Some((width, header + (width as usize * (len - 2)).div_ceil(8)))
    }

    /// PATCHED_BASE for a group whose widths vary a lot, with its size; `None` when ORC's rule
    /// says no or the patches do not fit the format's limits.
    fn patched_plan(&self, g: &[i128], zz: &[u64]) -> Option<(PatchedPlan, usize)> {
        let len = g.len();
        let p90 = percentile_bits(zz.iter().copied(), len, 90);
        let p100 = percentile_bits(zz.iter().copied(), len, 100);
        if p100 <= p90 + 1 {
            return None;
        }
        let min = *g.iter().min()?;
        // The base is stored as sign and magnitude in at most 8 bytes.
        let magnitude = u64::try_from(min.unsigned_abs()).ok()?;
        if magnitude > i64::MAX as u64 {
            return None;
        }
        let base_bytes = (bits_needed(magnitude) as usize + 1).div_ceil(8);
        let adjusted: Vec<u64> = g
            .iter()
            .map(|&v| u64::try_from(v - min).ok())
            .collect::<Option<Vec<u64>>>()?;
        let width = closest_aligned_width(percentile_bits(adjusted.iter().copied(), len, 95));
        let all = percentile_bits(adjusted.iter().copied(), len, 100);
        if all <= width {
            return None;
        }
        let mut entries = Vec::new();
        let mut last = 0usize;
        let mut max_patch = 0u64;
        let mut max_gap = 0u64;
        for (i, &a) in adjusted.iter().enumerate() {
            let patch = if width >= 64 { 0 } else { a >> width };
            if patch == 0 {
                continue;
            }
            let mut gap = (i - last) as u64;
            while gap > 255 {
                entries.push((255u64, 0u64));
                gap -= 255;
            }
            max_gap = max_gap.max(gap);
            max_patch = max_patch.max(patch);
            entries.push((gap, patch));
            last = i;
        }
        if entries.len() > MAX_PATCHES {
            return None;
        }
        let has_fillers = entries.iter().any(|&(g, p)| g == 255 && p == 0);
        let gap_width = if has_fillers {
            8
        } else {
            bits_needed(max_gap).max(1)
        };
        let patch_width = closest_fixed_width(bits_needed(max_patch));
        if gap_width + patch_width > 64 {
            return None;
        }
        let entry_width = closest_fixed_width(gap_width + patch_width) as usize;
        let cost = 4
            + base_bytes
            + (width as usize * len).div_ceil(8)
            + (entry_width * entries.len()).div_ceil(8);
        Some((
            PatchedPlan {
                min,
                width,
                base_bytes,
                patch_width,
                gap_width,
                entries,
            },
            cost,
        ))
    }
}

fn code_of(width: u32) -> Result<u8> {
    encode_width(width)
        .ok_or_else(|| Error::InvalidArgument(format!("width {width} has no RLEv2 code")))
}

fn low_mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// The smallest table width that holds at least `pct` percent of the values (ORC's percentile
/// of bit widths, over widths rounded up to the 5-bit table).
fn percentile_bits(values: impl Iterator<Item = u64>, len: usize, pct: usize) -> u32 {
    let mut hist = [0usize; 65];
    for v in values {
        hist[closest_fixed_width(bits_needed(v)) as usize] += 1;
    }
    let mut allowed_above = (len * (100 - pct) / 100) as isize;
    for width in (0..=64).rev() {
        allowed_above -= hist[width] as isize;
        if allowed_above < 0 {
            return width as u32;
        }
    }
    1
}

/// Appends big-endian bit-packed values, padding the last byte with zeros on `finish`.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    bits: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            bits: 0,
        }
    }

    fn put(&mut self, value: u64, width: u32) {
        let mut left = width;
        while left > 0 {
            let take = left.min(8 - self.bits);
            let chunk = (value >> (left - take)) & ((1u64 << take) - 1);
            self.acc = (self.acc << take) | chunk;
            self.bits += take;
            left -= take;
            if self.bits == 8 {
                self.out.push(self.acc as u8);
                self.acc = 0;
                self.bits = 0;
            }
        }
    }

    fn finish(self) {
        if self.bits > 0 {
            self.out.push((self.acc << (8 - self.bits)) as u8);
        }
    }
}
