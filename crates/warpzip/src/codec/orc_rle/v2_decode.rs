//! The Integer RLE v2 reference decoder. Each group is parsed from a bounds-checked slice; bit
//! unpacking reads whole big-endian words where the input allows and falls back to zero-padded
//! loads at its end. Every value is range-checked into the stream's domain and the output type
//! exactly as wide (i128) arithmetic would: linear runs check their first and last values,
//! other groups keep a running "out of range" flag in 64-bit offset arithmetic and report it
//! once per group, so no input can overflow and every status matches the value-by-value rules.

use super::int_rle_v2::{closest_fixed_width, decode_width, MAX_GROUP, MAX_PATCHES};
use super::{
    domain_range, fits_bits, fits_wide, put_linear, read_varint, take, window16, zigzag_decode,
    OrcInt, PrefixEnd, PrefixTracker,
};
use crate::error::ChunkStatus;

/// Decodes an Integer RLE v2 stream (`signed`: zigzag-encoded i64 values, else u64) into exactly
/// `out.len()` values.
pub fn decode_int_rle_v2<T: OrcInt>(
    input: &[u8],
    signed: bool,
    out: &mut [T],
) -> Result<(), ChunkStatus> {
    if signed {
        decode_all::<T, true>(input, out)
    } else {
        decode_all::<T, false>(input, out)
    }
}

fn decode_all<T: OrcInt, const S: bool>(input: &[u8], out: &mut [T]) -> Result<(), ChunkStatus> {
    let mut scratch = [0u64; MAX_GROUP];
    let mut pos = 0usize;
    let mut at = 0usize;
    loop {
        (pos, at) = short_groups::<T, S>(input, pos, out, at);
        let Some(group) = input.get(pos..).filter(|g| !g.is_empty()) else {
            break;
        };
        pos += decode_group::<T, S>(group, out, &mut at, &mut scratch)?;
    }
    if at < out.len() {
        return Err(ChunkStatus::Underflow);
    }
    Ok(())
}

/// Output slots a short group writes from [`short_groups`]: at least the longest SHORT_REPEAT
/// (10 values).
const SHORT_SLOTS: usize = 16;

/// Input bytes a short group reads from its header on: a 2-byte DIRECT header and two 8-byte
/// loads of values of up to 8 bytes.
const SHORT_WINDOW: usize = 2 + 8 + 8;

/// How [`short_groups`] reads a group by its first byte: header bytes (0: not a short group),
/// bytes per value, and the values of a SHORT_REPEAT (0 for DIRECT, whose count is the second
/// byte plus one).
#[derive(Clone, Copy)]
struct ShortHeader {
    head: u8,
    bytes: u8,
    repeat: u8,
}

/// [`ShortHeader`] of every first byte: SHORT_REPEAT of any width, DIRECT of whole-byte widths
/// with a length below 257 (the length's high bit clear).
const SHORT_HEADERS: [ShortHeader; 256] = {
    let mut table = [ShortHeader {
        head: 0,
        bytes: 0,
        repeat: 0,
    }; 256];
    let mut b0 = 0usize;
    while b0 < 256 {
        let byte = b0 as u8;
        if byte >> 6 == 0 {
            table[b0] = ShortHeader {
                head: 1,
                bytes: ((byte >> 3) & 7) + 1,
                repeat: (byte & 7) + 3,
            };
        } else if byte >> 6 == 1 && byte & 1 == 0 {
            let width = decode_width(byte >> 1);
            if width.is_multiple_of(8) {
                table[b0] = ShortHeader {
                    head: 2,
                    bytes: (width / 8) as u8,
                    repeat: 0,
                };
            }
        }
        b0 += 1;
    }
    table
};

/// Decodes the consecutive short groups from `input[pos..]` into `out` from `at` and returns
/// where they end (input offset, output slot): the repeats and scattered values that make up
/// most groups of columns such as dates, each as long as chance makes it. A SHORT_REPEAT and a
/// DIRECT group of one or two whole-byte values are one case (a repeat is a 1-value DIRECT group
/// with a 1-byte header, used `count` times), read through a table of first bytes: its first
/// value goes to a block of 16 slots and its second (or the first again) to slot 1, without a
/// branch on the kind, width or count, so the branch predictor sees one loop. Slots past the
/// group hold junk that later values overwrite. Stops, with nothing written for it, at any
/// other group, a value that does not fit `T`, or where fewer than [`SHORT_WINDOW`] bytes or
/// [`SHORT_SLOTS`] slots remain: the careful decoder takes that group, with the same values and
/// status.
#[inline(always)]
fn short_groups<T: OrcInt, const S: bool>(
    input: &[u8],
    mut pos: usize,
    out: &mut [T],
    mut at: usize,
) -> (usize, usize) {
    while let Some(window) = input.get(pos..pos.wrapping_add(SHORT_WINDOW)) {
        let Some(block) = out.get_mut(at..at.wrapping_add(SHORT_SLOTS)) else {
            break;
        };
        let h = SHORT_HEADERS[usize::from(window[0])];
        let (head, bytes) = (usize::from(h.head), usize::from(h.bytes));
        // A DIRECT group's length less one, 0 for a repeat.
        let direct = usize::from(window[1]) & (usize::from(h.repeat == 0) * 0xff);
        let shift = 64 - 8 * u32::from(h.bytes.max(1));
        let first = stream_bits::<S>(be64(window, head) >> shift);
        let second = stream_bits::<S>(be64(window, head + bytes) >> shift);
        let two = direct == 1;
        let short = (head != 0) & (direct <= 1);
        if !(short & fits_bits::<T, S>(first) & (!two | fits_bits::<T, S>(second))) {
            break;
        }
        let first = T::from_bits(first);
        let slot1 = if two { T::from_bits(second) } else { first };
        block.fill(first);
        block[1] = slot1;
        pos += head + bytes * (1 + direct);
        at += usize::from(h.repeat) + direct + usize::from(h.repeat == 0);
    }
    (pos, at)
}

/// Decodes the group at the front of `g` (not empty) into `out` from `*at`; returns its length.
#[inline(always)]
fn decode_group<T: OrcInt, const S: bool>(
    g: &[u8],
    out: &mut [T],
    at: &mut usize,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    match g[0] >> 6 {
        0 => short_repeat::<T, S>(g, out, at),
        1 => direct::<T, S>(g, out, at, scratch),
        2 => patched_base::<T, S>(g, out, at, scratch),
        _ => delta::<T, S>(g, out, at, scratch),
    }
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
    decode_int_rle_v2_prefix_end(input, signed, skip, out).map(|end| end.end)
}

/// [`decode_int_rle_v2_prefix`], also saying where the next value lies (see [`PrefixEnd`]).
pub fn decode_int_rle_v2_prefix_end<T: OrcInt>(
    input: &[u8],
    signed: bool,
    skip: usize,
    out: &mut [T],
) -> Result<PrefixEnd, ChunkStatus> {
    if signed {
        prefix::<T, true>(input, skip, out)
    } else {
        prefix::<T, false>(input, skip, out)
    }
}

fn prefix<T: OrcInt, const S: bool>(
    input: &[u8],
    skip: usize,
    out: &mut [T],
) -> Result<PrefixEnd, ChunkStatus> {
    let mut scratch = [0u64; MAX_GROUP];
    let mut group = [T::default(); MAX_GROUP];
    let mut pos = 0usize;
    let mut t = PrefixTracker::new(skip);
    while t.wants_more(out.len()) {
        let bytes = input.get(pos..).filter(|g| !g.is_empty());
        let g = bytes.ok_or(ChunkStatus::Underflow)?;
        let start = pos;
        // Groups that land whole in `out` are decoded in place, the others through `group`
        // (no group holds more than MAX_GROUP values, so neither way can overflow).
        let len = match (g[0] >> 6, g.get(1)) {
            (0, _) => Some(usize::from(g[0] & 7) + 3),
            (_, Some(&b1)) => Some(group_len(g[0], b1)),
            (_, None) => None,
        };
        if len.is_some_and(|len| t.lands_whole(len, out.len())) {
            pos += decode_group::<T, S>(g, out, &mut t.written, &mut scratch)?;
            t.placed(start, pos);
            continue;
        }
        let mut len = 0usize;
        pos += decode_group::<T, S>(g, &mut group, &mut len, &mut scratch)?;
        t.take(start, pos, &group[..len], out);
    }
    Ok(t.finish())
}

/// The 9-bit length field of DIRECT, PATCHED_BASE and DELTA headers, plus one.
#[inline(always)]
fn group_len(b0: u8, b1: u8) -> usize {
    ((usize::from(b0 & 1) << 8) | usize::from(b1)) + 1
}

/// The stream value (raw 64 bits) of an encoded varint or bit-packed value.
#[inline(always)]
fn stream_bits<const S: bool>(raw: u64) -> u64 {
    if S {
        zigzag_decode(raw) as u64
    } else {
        raw
    }
}

/// The stream value `bits` as a wide integer.
#[inline(always)]
fn wide<const S: bool>(bits: u64) -> i128 {
    if S {
        i128::from(bits as i64)
    } else {
        i128::from(bits)
    }
}

fn short_repeat<T: OrcInt, const S: bool>(
    g: &[u8],
    out: &mut [T],
    at: &mut usize,
) -> Result<usize, ChunkStatus> {
    let width = usize::from((g[0] >> 3) & 7) + 1;
    let count = usize::from(g[0] & 7) + 3;
    let raw = match g.get(1..9) {
        // One big-endian load: the value is its first `width` bytes.
        Some(word) => be64(word, 0) >> (64 - 8 * width),
        None => {
            let bytes = g.get(1..1 + width).ok_or(ChunkStatus::Truncated)?;
            bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
        }
    };
    let bits = stream_bits::<S>(raw);
    if !fits_bits::<T, S>(bits) {
        return Err(ChunkStatus::Corrupt);
    }
    let start = *at;
    let value = T::from_bits(bits);
    take(out, at, count)?;
    // A block of the longest repeat (10) where `out` has room, so the count costs no branch; the
    // slots past the run belong to values not decoded yet.
    match out.get_mut(start..start + 10) {
        Some(block) => block.fill(value),
        None => out[start..start + count].fill(value),
    }
    Ok(1 + width)
}

/// Whether `T` holds every stream value of `width` bits: 0..2^width, or zigzagged
/// -2^(width-1)..2^(width-1).
#[inline(always)]
fn width_fits<T: OrcInt, const S: bool>(width: u32) -> bool {
    let top = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    if S {
        fits_wide::<T, S>(-(i128::from(top) + 1) / 2) && fits_wide::<T, S>(i128::from(top / 2))
    } else {
        top <= domain_range::<T, S>().1
    }
}

/// Writes the bit-packed values `vals` (of `width` bits) as stream values of `T`; `Corrupt`
/// when one does not fit.
#[inline(always)]
fn convert<T: OrcInt, const S: bool>(
    vals: &[u64],
    width: u32,
    dst: &mut [T],
) -> Result<(), ChunkStatus> {
    for (d, &v) in dst.iter_mut().zip(vals.iter()) {
        *d = T::from_bits(stream_bits::<S>(v));
    }
    if width_fits::<T, S>(width) {
        return Ok(());
    }
    let (lo, span) = domain_range::<T, S>();
    let bad = vals.iter().fold(false, |bad, &v| {
        bad | (stream_bits::<S>(v).wrapping_sub(lo) > span)
    });
    if bad {
        return Err(ChunkStatus::Corrupt);
    }
    Ok(())
}

/// DIRECT values of a whole number of bytes, converted straight from the input: each lane is
/// read big-endian and zigzagged at its own width (so the compiler can vectorize), then widened.
macro_rules! direct_aligned {
    ($name:ident, $bytes:expr, $u:ty, $i:ty) => {
        #[inline(always)]
        fn $name<T: OrcInt, const S: bool>(data: &[u8], dst: &mut [T]) {
            for (d, c) in dst.iter_mut().zip(data.chunks_exact($bytes)) {
                let mut raw = [0u8; $bytes];
                raw.copy_from_slice(c);
                let u = <$u>::from_be_bytes(raw);
                let bits = if S {
                    (((u >> 1) as $i) ^ ((u & 1) as $i).wrapping_neg()) as i64 as u64
                } else {
                    u as u64
                };
                *d = T::from_bits(bits);
            }
        }
    };
}
direct_aligned!(direct_8, 1, u8, i8);
direct_aligned!(direct_16, 2, u16, i16);
direct_aligned!(direct_32, 4, u32, i32);
direct_aligned!(direct_64, 8, u64, i64);

fn direct<T: OrcInt, const S: bool>(
    g: &[u8],
    out: &mut [T],
    at: &mut usize,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    let header = g.get(..2).ok_or(ChunkStatus::Truncated)?;
    let width = decode_width(header[0] >> 1);
    let len = group_len(header[0], header[1]);
    if width.is_multiple_of(8) {
        let nbytes = len * (width as usize / 8);
        let data = g.get(2..2 + nbytes).ok_or(ChunkStatus::Truncated)?;
        let start = *at;
        take(out, at, len)?;
        // A short group of 8, 16, 32 or 64-bit values that all fit `T` (the scattered values
        // between repeats) is written as one block of 16 bytes' worth of values from the 16
        // bytes at its values, so its length costs no loop: the values past the group and the
        // slots past it in `out` belong to what comes next. Where the input or `out` has no
        // room for the block, the group is written alone.
        let block = 16 / (width as usize / 8);
        let window = (nbytes <= 16 && width.is_power_of_two() && width_fits::<T, S>(width))
            .then(|| window16(g, 2))
            .flatten()
            .filter(|_| out.len() - start >= block);
        let (data, dst): (&[u8], &mut [T]) = match window {
            Some(window) => (window, &mut out[start..start + block]),
            None => (data, &mut out[start..start + len]),
        };
        match width {
            8 => direct_8::<T, S>(data, dst),
            16 => direct_16::<T, S>(data, dst),
            32 => direct_32::<T, S>(data, dst),
            64 => direct_64::<T, S>(data, dst),
            _ => {
                let vals = &mut scratch[..len];
                unpack_be(data, width, vals)?;
                convert::<T, S>(vals, width, dst)?;
                return Ok(2 + nbytes);
            }
        }
        if !width_fits::<T, S>(width) {
            // Some values may not fit `T`: check them all.
            let vals = &mut scratch[..len];
            unpack_be(data, width, vals)?;
            let (lo, span) = domain_range::<T, S>();
            let bad = vals.iter().fold(false, |bad, &v| {
                bad | (stream_bits::<S>(v).wrapping_sub(lo) > span)
            });
            if bad {
                return Err(ChunkStatus::Corrupt);
            }
        }
        return Ok(2 + nbytes);
    }
    let vals = &mut scratch[..len];
    let used = unpack_be(&g[2..], width, vals)?;
    let dst = take(out, at, len)?;
    convert::<T, S>(vals, width, dst)?;
    Ok(2 + used)
}

fn patched_base<T: OrcInt, const S: bool>(
    g: &[u8],
    out: &mut [T],
    at: &mut usize,
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
    let entry_width = closest_fixed_width(gap_width + patch_width);
    let mut entries = [0u64; MAX_PATCHES];
    let entries = &mut entries[..patch_count];
    pos += unpack_be(&g[pos..], entry_width, entries)?;

    let dst = take(out, at, len)?;
    // Every unpatched value base + v must fit: checking the smallest and the largest v checks
    // them all. The base's magnitude is below 2^63, so it is an i64 and base + v wraps right.
    let (min, max) = vals
        .iter()
        .fold((u64::MAX, 0u64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let fit =
        fits_wide::<T, S>(base + i128::from(min)) && fits_wide::<T, S>(base + i128::from(max));
    if !(vals.is_empty() || fit) {
        return Err(ChunkStatus::Corrupt);
    }
    let base_bits = base as i64 as u64;
    for (d, &v) in dst.iter_mut().zip(vals.iter()) {
        *d = T::from_bits(base_bits.wrapping_add(v));
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
        let value = base + patched;
        if !fits_wide::<T, S>(value) {
            return Err(ChunkStatus::Corrupt);
        }
        dst[index] = T::from_bits(value as u64);
        last_patched = Some(index);
    }
    Ok(pos)
}

fn delta<T: OrcInt, const S: bool>(
    g: &[u8],
    out: &mut [T],
    at: &mut usize,
    scratch: &mut [u64; MAX_GROUP],
) -> Result<usize, ChunkStatus> {
    let header = g.get(..2).ok_or(ChunkStatus::Truncated)?;
    let code = (header[0] >> 1) & 0x1f;
    let width = if code == 0 { 0 } else { decode_width(code) };
    let len = group_len(header[0], header[1]);
    let mut pos = 2usize;
    let base = stream_bits::<S>(read_varint(g, &mut pos)?);
    let delta_base = zigzag_decode(read_varint(g, &mut pos)?);
    if width == 0 {
        // Fixed delta: the values are linear, so checking the first and the last checks all.
        let start = *at;
        take(out, at, len)?;
        let first = wide::<S>(base);
        let last = first + i128::from(delta_base) * (len as i128 - 1);
        if !(fits_wide::<T, S>(first) && fits_wide::<T, S>(last)) {
            return Err(ChunkStatus::Corrupt);
        }
        put_linear(out, start, len, base, delta_base as u64);
        return Ok(pos);
    }
    let deltas = &mut scratch[..len.saturating_sub(2)];
    pos += unpack_be(&g[pos..], width, deltas)?;
    let dst = take(out, at, len)?;
    // The running value as an offset from the lowest value `T` holds: a value fits when its
    // offset is at most `span`, and a step that carries or borrows leaves the range.
    let (lo, span) = domain_range::<T, S>();
    let mut u = base.wrapping_sub(lo);
    let mut bad = u > span;
    dst[0] = T::from_bits(base);
    if len >= 2 {
        let (next, carry) = u.overflowing_add_signed(delta_base);
        bad |= carry | (next > span);
        u = next;
        dst[1] = T::from_bits(u.wrapping_add(lo));
        if delta_base < 0 {
            for (d, &step) in dst[2..].iter_mut().zip(deltas.iter()) {
                let (next, borrow) = u.overflowing_sub(step);
                bad |= borrow;
                u = next;
                *d = T::from_bits(u.wrapping_add(lo));
            }
        } else {
            for (d, &step) in dst[2..].iter_mut().zip(deltas.iter()) {
                let (next, carry) = u.overflowing_add(step);
                bad |= carry | (next > span);
                u = next;
                *d = T::from_bits(u.wrapping_add(lo));
            }
        }
    }
    if bad {
        return Err(ChunkStatus::Corrupt);
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
                *d = be64(b, 0);
            }
        }
        1 => unpack_fixed::<1>(data, dst),
        2 => unpack_fixed::<2>(data, dst),
        3 => unpack_fixed::<3>(data, dst),
        4 => unpack_fixed::<4>(data, dst),
        5 => unpack_fixed::<5>(data, dst),
        6 => unpack_fixed::<6>(data, dst),
        7 => unpack_fixed::<7>(data, dst),
        9 => unpack_fixed::<9>(data, dst),
        10 => unpack_fixed::<10>(data, dst),
        11 => unpack_fixed::<11>(data, dst),
        12 => unpack_fixed::<12>(data, dst),
        13 => unpack_fixed::<13>(data, dst),
        14 => unpack_fixed::<14>(data, dst),
        15 => unpack_fixed::<15>(data, dst),
        17 => unpack_fixed::<17>(data, dst),
        18 => unpack_fixed::<18>(data, dst),
        19 => unpack_fixed::<19>(data, dst),
        20 => unpack_fixed::<20>(data, dst),
        21 => unpack_fixed::<21>(data, dst),
        22 => unpack_fixed::<22>(data, dst),
        23 => unpack_fixed::<23>(data, dst),
        24 => unpack_fixed::<24>(data, dst),
        26 => unpack_fixed::<26>(data, dst),
        28 => unpack_fixed::<28>(data, dst),
        30 => unpack_fixed::<30>(data, dst),
        40 => unpack_fixed::<40>(data, dst),
        48 => unpack_fixed::<48>(data, dst),
        56 => unpack_fixed::<56>(data, dst),
        25 | 27 | 29 | 31 | 33..=39 | 41..=47 | 49..=55 => unpack_from(data, width, dst, 0),
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

/// The 8 bytes of `s` from `at`, big-endian.
#[inline(always)]
fn be64(s: &[u8], at: usize) -> u64 {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&s[at..at + 8]);
    u64::from_be_bytes(raw)
}

/// [`unpack_be`] for one width `W` (1..=56) known at compile time: blocks of 8 values (`W`
/// bytes) are read with unrolled 8-byte loads while 8 bytes past the block remain in `data`;
/// the last values one by one.
#[inline(never)]
fn unpack_fixed<const W: usize>(data: &[u8], dst: &mut [u64]) {
    let mut done = 0usize;
    let mut byte = 0usize;
    for block in dst.chunks_exact_mut(8) {
        let Some(window) = data.get(byte..byte + W + 8) else {
            break;
        };
        for (i, d) in block.iter_mut().enumerate() {
            let bit = i * W;
            let word = be64(window, bit / 8);
            *d = (word << (bit % 8)) >> (64 - W);
        }
        byte += W;
        done += 8;
    }
    unpack_from(data, W as u32, &mut dst[done..], done * W);
}

/// Reads values of `width` (1..=56) bits from bit `bit` of `data` on, one by one.
#[inline(always)]
fn unpack_from(data: &[u8], width: u32, dst: &mut [u64], mut bit: usize) {
    for d in dst.iter_mut() {
        *d = bits_at(data, bit, width);
        bit += width as usize;
    }
}

/// The `width` (1..=56) bits starting at bit `bit` of `data`, big-endian; bits past the end of
/// `data` read as zero.
#[inline(always)]
fn bits_at(data: &[u8], bit: usize, width: u32) -> u64 {
    let byte = bit >> 3;
    let shift = (bit & 7) as u32;
    let word = match data.get(byte..byte + 8) {
        Some(w) => be64(w, 0),
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
