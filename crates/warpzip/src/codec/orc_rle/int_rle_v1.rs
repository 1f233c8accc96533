//! ORC Integer RLE version 1: a control byte 0..=127 is a run of `c + 3` values, followed by a
//! delta byte (i8) and the first value as a varint, each value `delta` more than the previous;
//! a control byte 128..=255 (as i8, -128..=-1) is `-c` literal varints. Signed streams zigzag
//! every varint value.

use super::{
    domain_range, fill_linear, negative_for_unsigned, put_linear, read_varint, read_varint_window,
    squeeze7, stream_value, window16, write_varint, zigzag_decode, zigzag_encode, OrcInt,
    PrefixEnd, PrefixTracker,
};
use crate::error::{ChunkStatus, Result};

/// Shortest run a run group stores.
pub const MIN_RUN: usize = 3;
/// Longest run one group stores.
pub const MAX_RUN: usize = 130;
/// Longest literal group.
pub const MAX_LITERALS: usize = 128;

/// The stream value (raw 64 bits) of a varint.
#[inline(always)]
fn stream_bits<const S: bool>(raw: u64) -> u64 {
    if S {
        zigzag_decode(raw) as u64
    } else {
        raw
    }
}

/// Calls `f::<T, SIGNED, WIDE, SHORT>(args)` for the decoder instance the stream's first bytes
/// pick ([`starts_wide`], [`starts_short`]); every instance decodes every stream alike.
macro_rules! by_instance {
    ($f:ident::<$t:ty>($($arg:expr),*), $signed:expr, $input:expr) => {
        match ($signed, starts_wide($input), starts_short($input)) {
            (true, true, _) => $f::<$t, true, true, false>($($arg),*),
            (true, false, true) => $f::<$t, true, false, true>($($arg),*),
            (true, false, false) => $f::<$t, true, false, false>($($arg),*),
            (false, true, _) => $f::<$t, false, true, false>($($arg),*),
            (false, false, true) => $f::<$t, false, false, true>($($arg),*),
            (false, false, false) => $f::<$t, false, false, false>($($arg),*),
        }
    };
}

/// Decodes an Integer RLE v1 stream (`signed` says whether its values are zigzag-encoded i64 or
/// plain u64) into exactly `out.len()` values.
pub fn decode_int_rle_v1<T: OrcInt>(
    input: &[u8],
    signed: bool,
    out: &mut [T],
) -> Result<(), ChunkStatus> {
    by_instance!(decode_all::<T>(input, out), signed, input)
}

/// Whether the stream's first group, or the one after a first run group, is a literal group of
/// [`BATCH`] or more values whose first varint takes more than a byte (ship dates). Such streams
/// are decoded by the instance of the decoder that reads [`varint_batches`] (`WIDE`), the others
/// by one without them, which keeps its registers for runs and short groups (the batches
/// inline, or a call to them, cost RLE v1 order keys 3-10%, one core). Either instance decodes
/// every stream, the same way; this only picks the faster, and looks at a few bytes only, as
/// streams can be short (sub-blocks of 512 values).
#[inline(always)]
fn starts_wide(input: &[u8]) -> bool {
    let wide_at = |pos: usize| {
        matches!(input.get(pos..pos.saturating_add(2)), Some(&[control, first])
            if (0x80..=(256 - BATCH) as u8).contains(&control) && first >= 0x80)
    };
    if wide_at(0) {
        return true;
    }
    // A run group: its control byte, delta byte and base varint.
    match input.first() {
        Some(&control) if control < 0x80 => input
            .get(2..)
            .and_then(|rest| rest.iter().take(10).position(|&b| b < 0x80))
            .is_some_and(|k| wide_at(2 + k + 1)),
        _ => false,
    }
}

/// Whether the stream's first group is a run with a one-byte base or a literal group of at
/// most 8 values whose first varint is one byte (line numbers). Such streams are decoded by the
/// instance of the decoder that runs [`short_groups`] before each group it decodes (`SHORT`);
/// the others (order keys, whose runs have bases of several bytes and whose literal groups
/// would leave [`short_groups`] at every one; ship dates) by one without it. As with
/// [`starts_wide`], either instance decodes every stream the same way.
#[inline(always)]
fn starts_short(input: &[u8]) -> bool {
    match input.first() {
        Some(&control) if control < 0x80 => input.get(2).is_some_and(|&base| base < 0x80),
        Some(&control) => control >= 248 && input.get(1).is_some_and(|&first| first < 0x80),
        None => false,
    }
}

#[inline(never)]
fn decode_all<T: OrcInt, const S: bool, const WIDE: bool, const SHORT: bool>(
    input: &[u8],
    out: &mut [T],
) -> Result<(), ChunkStatus> {
    let mut pos = 0usize;
    let mut at = 0usize;
    while pos < input.len() {
        if SHORT {
            (pos, at) = short_groups::<T, S>(input, pos, out, at);
            if pos >= input.len() {
                break;
            }
        }
        pos = decode_group::<T, S, false, WIDE>(input, pos, out, &mut at)?;
    }
    if at < out.len() {
        return Err(ChunkStatus::Underflow);
    }
    Ok(())
}

/// Decodes the short groups from `input[pos]` on into `out` from `at`, while each is one
/// [`short_groups`] takes: a run whose base varint takes at most 8 bytes, or a literal group of
/// at most 8 one-byte varints, that decodes without error where 16 input bytes remain from its
/// first and `out` has room for its values and for 8 (TPC-H line numbers: runs of 3 to 7 values,
/// 3 bytes each, and literal groups of 1 or 2 values; order keys: runs of 3 to 7 keys). Returns
/// the offset and output index after the last group decoded: the group there (if any) is one
/// for [`decode_group`], which decodes it or says what is wrong with it.
///
/// Each group writes a block of 8 values, past the group's end where it is shorter (those slots
/// belong to values not decoded yet, or to the next group, which overwrites them).
#[inline(always)]
fn short_groups<T: OrcInt, const S: bool>(
    input: &[u8],
    mut pos: usize,
    out: &mut [T],
    mut at: usize,
) -> (usize, usize) {
    let (lo, span) = domain_range::<T, S>();
    // One-byte varints hold -64..=63 (signed streams) or 0..=127: every type holds them but for
    // the negative ones in unsigned types.
    let small_can_fail = S && !T::SIGNED;
    while let Some(window) = window16(input, pos) {
        let word = |k: usize| {
            let mut raw = [0u8; 8];
            raw.copy_from_slice(&window[k..k + 8]);
            u64::from_le_bytes(raw)
        };
        let head = word(0);
        let control = head as u8;
        let (len, used) = if control < 0x80 {
            let len = usize::from(control) + MIN_RUN;
            let delta = i64::from((head >> 8) as u8 as i8);
            let one_byte = head & 0x80_0000 == 0;
            // The base: one byte, or up to 8 (longer ones are left to `decode_group`).
            let (raw, varint_len) = if one_byte {
                ((head >> 16) & 0x7f, 1)
            } else {
                let varint = word(2);
                let stops = !varint & HIGH_BITS;
                if stops == 0 {
                    break;
                }
                let keep = stops ^ (stops - 1);
                (
                    squeeze7(varint & keep & !HIGH_BITS),
                    (stops.trailing_zeros() / 8 + 1) as usize,
                )
            };
            let base = stream_bits::<S>(raw);
            // Bases of one byte are -64..=63 (or 0..=127), 129 deltas at most +-128 * 129 away:
            // in i32 and i64 every such run fits.
            if !(one_byte && S && T::SIGNED && T::BYTES >= 4) {
                let first = base.wrapping_sub(lo);
                let last = first.checked_add_signed(delta * (len as i64 - 1));
                if first > span || last.is_none_or(|last| last > span) {
                    break;
                }
            }
            let Some(dst) = out
                .get_mut(at..)
                .filter(|rest| len <= rest.len())
                .and_then(|rest| rest.first_chunk_mut::<8>())
            else {
                break;
            };
            let step = delta as u64;
            for (k, d) in dst.iter_mut().enumerate() {
                *d = T::from_bits(base.wrapping_add(step.wrapping_mul(k as u64)));
            }
            if len > 8 {
                if let Some(rest) = out.get_mut(at + 8..at + len) {
                    fill_linear(rest, base.wrapping_add(step.wrapping_mul(8)), step);
                }
            }
            (len, 2 + varint_len)
        } else {
            let len = 256 - usize::from(control);
            let body = word(1);
            let lanes = u64::MAX >> (64 - 8 * len.min(8));
            if len > 8
                || body & HIGH_BITS & lanes != 0
                || (small_can_fail && body & LOW_BITS & lanes != 0)
            {
                break;
            }
            let Some(dst) = out
                .get_mut(at..)
                .and_then(|rest| rest.first_chunk_mut::<8>())
            else {
                break;
            };
            put_one_bytes::<T, S>(body, dst);
            (len, 1 + len)
        };
        pos += used;
        at += len;
    }
    (pos, at)
}

/// Decodes the group at `input[pos]` (`pos < input.len()`) into `out` from `*at`; returns the
/// offset after it. A run's delta byte and base come before its values are claimed from `out`,
/// a literal group's values are claimed first. In a literal group a value that does not fit
/// `T` is `Corrupt` where it comes before a damaged varint; the row-group reader (`PREFIX`)
/// reads a group's varints before it checks their values, so there a damaged varint wins.
#[inline(always)]
fn decode_group<T: OrcInt, const S: bool, const PREFIX: bool, const WIDE: bool>(
    input: &[u8],
    mut pos: usize,
    out: &mut [T],
    at: &mut usize,
) -> Result<usize, ChunkStatus> {
    let control = input[pos];
    pos += 1;
    if control < 0x80 {
        let len = usize::from(control) + MIN_RUN;
        let delta = *input.get(pos).ok_or(ChunkStatus::Truncated)? as i8;
        pos += 1;
        let raw = match window16(input, pos) {
            Some(window) if window[0] < 0x80 => {
                pos += 1;
                u64::from(window[0])
            }
            Some(window) => {
                let (raw, n) = read_varint_window(window)?;
                pos += n;
                raw
            }
            None => {
                // Near the input's end. A copy of the offset, so `pos` itself stays a register.
                let mut at = pos;
                let raw = read_varint(input, &mut at)?;
                pos = at;
                raw
            }
        };
        let base = stream_bits::<S>(raw);
        let start = claim(out.len(), at, len)?;
        // The run is linear: when its first and last values fit, so do all between. As offsets
        // from the lowest value `T` holds, the first fits when it is at most `span`, and the
        // last (at most 130 * 128 away) when adding the distance neither wraps nor passes it.
        let (lo, span) = domain_range::<T, S>();
        let first = base.wrapping_sub(lo);
        let distance = i64::from(delta) * (len as i64 - 1);
        let last = first.checked_add_signed(distance);
        if first > span || last.is_none_or(|last| last > span) {
            return Err(ChunkStatus::Corrupt);
        }
        put_linear(out, start, len, base, i64::from(delta) as u64);
        Ok(pos)
    } else {
        let len = 256 - usize::from(control);
        let start = claim(out.len(), at, len)?;
        literals::<T, S, PREFIX, WIDE>(input, pos, out, start, start + len)
    }
}

/// Claims the next `n` slots of an output of `len` values from `*at`, or `Overflow` when fewer
/// remain; returns the first.
#[inline(always)]
fn claim(len: usize, at: &mut usize, n: usize) -> Result<usize, ChunkStatus> {
    let start = *at;
    let end = start.checked_add(n).ok_or(ChunkStatus::Overflow)?;
    if end > len {
        return Err(ChunkStatus::Overflow);
    }
    *at = end;
    Ok(start)
}

/// Reads the literal varints of `out[start..end]` from `input[pos..]`; returns the offset after
/// them. `WIDE`: runs of short multi-byte varints go through [`varint_batches`].
#[inline(always)]
fn literals<T: OrcInt, const S: bool, const PREFIX: bool, const WIDE: bool>(
    input: &[u8],
    mut pos: usize,
    out: &mut [T],
    start: usize,
    end: usize,
) -> Result<usize, ChunkStatus> {
    let (lo, span) = domain_range::<T, S>();
    // One-byte varints hold -64..=63 (signed streams) or 0..=127: every type holds them but for
    // the negative ones in unsigned types.
    let small_can_fail = S && !T::SIGNED;
    let mut bad = false;
    let mut i = start;
    // A group's first 32 one-byte varints (all of a short group) in one straight piece of code,
    // then the rest one by one or 8 at a time.
    if input.get(pos).is_some_and(|&b| b < 0x80) {
        if let Some(small) = one_byte_block::<T, S>(input, pos, out, i, end - i) {
            bad = small_can_fail && small.negative;
            i += small.values;
            pos += small.values;
        }
    }
    while i < end {
        if let Some(window) = window16(input, pos) {
            if window[0] < 0x80 {
                let mut raw = [0u8; 8];
                raw.copy_from_slice(&window[..8]);
                let word = u64::from_le_bytes(raw);
                let left = end - i;
                // The bytes of the group's remaining values (at least 1).
                let lanes = u64::MAX >> (64 - 8 * left.min(8));
                if word & HIGH_BITS & lanes == 0 {
                    // Up to 8 one-byte varints at once; a block of 8 is written where `out`
                    // has room (the slots past the group belong to values not decoded yet).
                    if let Some(block) = out.get_mut(i..i + 8) {
                        put_one_bytes::<T, S>(word, block);
                        bad |= small_can_fail && word & LOW_BITS & lanes != 0;
                        let n = left.min(8);
                        i += n;
                        pos += n;
                        continue;
                    }
                }
                // One one-byte varint.
                let bits = stream_bits::<S>(u64::from(window[0]));
                bad |= bits.wrapping_sub(lo) > span;
                out[i] = T::from_bits(bits);
                i += 1;
                pos += 1;
                continue;
            }
            let mut raw8 = [0u8; 8];
            raw8.copy_from_slice(&window[..8]);
            let word = u64::from_le_bytes(raw8);
            let stops = !word & HIGH_BITS;
            if stops != 0 {
                // Varints of 2 to 4 bytes (ship dates): all that end in the next 32 bytes at
                // once, where this one ends in its first 4 bytes and 8 or more values are left.
                if stops & 0x8080_8080 != 0 && end - i >= 8 {
                    // Eight at a time while the next eight are all that short.
                    if WIDE {
                        let (values, used, batch_bad) =
                            varint_batches::<T, S>(input, pos, &mut out[i..end]);
                        bad |= batch_bad;
                        if values != 0 {
                            i += values;
                            pos += used;
                            continue;
                        }
                    }
                    if let Some(block) = input.get(pos..pos + VARINT_BLOCK + 4) {
                        let (n, used) = short_varints::<T, S>(block, &mut out[i..end], &mut bad);
                        i += n;
                        pos += used;
                        continue;
                    }
                }
                // Varints of up to 8 bytes: this one, and the next where it also ends in the
                // same 8 bytes, from one load (the second's start does not wait for a load of
                // its own).
                let first = stops.trailing_zeros() / 8 + 1;
                let low = u64::MAX >> (64 - 8 * first);
                let bits = stream_bits::<S>(squeeze7(word & low & !HIGH_BITS));
                bad |= bits.wrapping_sub(lo) > span;
                out[i] = T::from_bits(bits);
                i += 1;
                let next = stops & (stops - 1);
                if next != 0 && i < end {
                    let upto = next.trailing_zeros() / 8 + 1;
                    let mask = (u64::MAX >> (64 - 8 * upto)) & !low;
                    let bits2 =
                        stream_bits::<S>(squeeze7((word & mask & !HIGH_BITS) >> (8 * first)));
                    bad |= bits2.wrapping_sub(lo) > span;
                    out[i] = T::from_bits(bits2);
                    i += 1;
                    pos += upto as usize;
                } else {
                    pos += first as usize;
                }
                continue;
            }
            // Nine or ten bytes. Ten or more bytes remain, so a varint error here can only be
            // `Corrupt`.
            let (raw, n) = read_varint_window(window)?;
            pos += n;
            let bits = stream_bits::<S>(raw);
            bad |= bits.wrapping_sub(lo) > span;
            out[i] = T::from_bits(bits);
            i += 1;
            continue;
        }
        // Near the input's end. A copy of the offset, so `pos` itself stays a register.
        let mut at = pos;
        let raw = match read_varint(input, &mut at) {
            Ok(raw) => raw,
            Err(_) if bad && !PREFIX => return Err(ChunkStatus::Corrupt),
            Err(e) => return Err(e),
        };
        pos = at;
        let bits = stream_bits::<S>(raw);
        bad |= bits.wrapping_sub(lo) > span;
        out[i] = T::from_bits(bits);
        i += 1;
    }
    if bad {
        return Err(ChunkStatus::Corrupt);
    }
    Ok(pos)
}

/// Values one batch of [`varint_batches`] decodes.
const BATCH: usize = 8;
/// Bytes [`varint_batches`] needs from a batch's window on: the 64 whose stop bits it holds (and
/// 4 more, so that each varint starting in them is one 4-byte read), and the 32 after them.
const BATCH_WINDOW: usize = 96;

/// Decodes varints of at most 4 bytes (ship dates) from `input[pos..]` into `out`, [`BATCH`] at
/// a time while `out` has room for [`BATCH`] more and the next [`BATCH`] are all that short.
/// Returns the values made, the bytes they took and whether one of them does not fit `T`.
///
/// The varints' ends come from the stop bits of a 64-byte window, those of the varints decoded
/// cleared: finding them is a chain of bit clears that no load waits on, and the window moves on
/// by 32 bytes (its next stop bits read one batch ahead) where a batch ends in its second half.
/// Each varint is then one 4-byte read, and the 8 are squeezed in lanes at once.
#[inline(always)]
fn varint_batches<T: OrcInt, const S: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [T],
) -> (usize, usize, bool) {
    let Some(first) = input
        .get(pos..)
        .and_then(|rest| rest.first_chunk::<BATCH_WINDOW>())
    else {
        return (0, 0, false);
    };
    let mut stops = stop_bits(first, 0) | stop_bits(first, 32) << 32;
    // The window is `input[base..base + 64]`; the next varint starts at `base + start`, where
    // `start <= 32`: the next 8 varints of at most 4 bytes end in the window.
    let mut base = pos;
    let mut start = 0usize;
    let mut made = 0usize;
    let mut bad = false;
    while let (Some(window), Some(dst)) = (
        input
            .get(base..)
            .and_then(|rest| rest.first_chunk::<BATCH_WINDOW>()),
        out.get_mut(made..)
            .and_then(|rest| rest.first_chunk_mut::<BATCH>()),
    ) {
        let next = stop_bits(window, 64);
        let mut left = stops;
        let mut words = [0u32; BATCH];
        // The first varint starts at `start <= 32` (the mask only spares the check), each other
        // one after the stop before it: past the window (fewer than 8 stops in it) at 65, junk
        // refused below but inside `window`.
        let mut at = start & 63;
        for word in &mut words {
            let mut le = [0u8; 4];
            le.copy_from_slice(&window[at..at + 4]);
            *word = u32::from_le_bytes(le);
            at = left.trailing_zeros() as usize + 1;
            left &= left.wrapping_sub(1);
        }
        let Some((values, batch_bad)) = squeeze_lanes::<T, S>(&words) else {
            break;
        };
        if at > 64 {
            break;
        }
        *dst = values;
        bad |= batch_bad;
        made += BATCH;
        // Where the batch ends in the window's second half, the window moves on by 32 bytes:
        // without a branch, which the varints' lengths would make hard to foresee.
        let moved = usize::from(at >= 32);
        let keep_next = 0u64.wrapping_sub(moved as u64);
        base += 32 * moved;
        start = at - 32 * moved;
        stops = (left >> (32 * moved)) | (next << 32 & keep_next);
    }
    (made, base + start - pos, bad)
}

/// The stop bits (high bit clear) of `window[from..from + 32]`: bit `k` for byte `from + k`.
#[inline(always)]
fn stop_bits(window: &[u8; BATCH_WINDOW], from: usize) -> u64 {
    let Some(bytes) = window.get(from..).and_then(|rest| rest.first_chunk::<32>()) else {
        return 0;
    };
    #[cfg(target_arch = "x86_64")]
    let more = {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_movemask_epi8};
        let p = bytes.as_ptr().cast::<__m128i>();
        // SAFETY: SSE2 is part of every x86_64 target; the two unaligned 16-byte loads read
        // the 32 bytes of `bytes`.
        let (low, high) = unsafe {
            (
                _mm_movemask_epi8(_mm_loadu_si128(p)),
                _mm_movemask_epi8(_mm_loadu_si128(p.add(1))),
            )
        };
        (low as u32 & 0xffff) | (high as u32) << 16
    };
    #[cfg(not(target_arch = "x86_64"))]
    let more = continuation_bits_swar(bytes);
    u64::from(!more)
}

/// The high bits of 32 bytes (bit `k` for byte `k`), 8 bytes at a time in a 64-bit word: the
/// portable [`stop_bits`].
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn continuation_bits_swar(bytes: &[u8; 32]) -> u32 {
    let mut bits = 0u32;
    for (k, raw) in bytes.chunks_exact(8).enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(raw);
        // Byte j's high bit, shifted down to bit 8j, moves to bit 56 + j: the products of the
        // multiply land on distinct bits, so no carry disturbs the top byte.
        let high = (u64::from_le_bytes(le) & HIGH_BITS) >> 7;
        bits |= ((high.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32) << (8 * k);
    }
    bits
}

/// The values of [`BATCH`] varints, each read as the 4 bytes from its first; `None` where one
/// of them has no stop byte in those 4 (it is longer). Also says whether a value does not fit
/// `T`.
#[inline(always)]
fn squeeze_lanes<T: OrcInt, const S: bool>(words: &[u32; BATCH]) -> Option<([T; BATCH], bool)> {
    // Values from varints of at most 4 bytes (28 bits) fit every type of 32 bits or more but
    // for the negative ones in unsigned types.
    let check = T::BYTES < 4 || (S && !T::SIGNED);
    let (lo, span) = domain_range::<T, S>();
    let mut long = false;
    let mut bad = false;
    let mut values = [T::default(); BATCH];
    for (value, &word) in values.iter_mut().zip(words) {
        // The bytes up to the first stop.
        let stop = !word & 0x8080_8080;
        long |= stop == 0;
        let x = word & (stop ^ stop.wrapping_sub(1)) & 0x7f7f_7f7f;
        let x = (x & 0x007f_007f) | ((x & 0x7f00_7f00) >> 1);
        let x = (x & 0x0000_3fff) | ((x & 0x3fff_0000) >> 2);
        let bits = if S {
            (((x >> 1) as i32) ^ (x & 1).wrapping_neg() as i32) as i64 as u64
        } else {
            u64::from(x)
        };
        if check {
            bad |= bits.wrapping_sub(lo) > span;
        }
        *value = T::from_bits(bits);
    }
    if long {
        return None;
    }
    Some((values, bad))
}

/// Bytes of input [`short_varints`] reads the varint ends from.
const VARINT_BLOCK: usize = 32;

/// Decodes the varints of at most 4 bytes that end in the first [`VARINT_BLOCK`] bytes of
/// `block` (which has 4 more, so that every such varint is one 4-byte read) into `out`, in order,
/// stopping before a longer one or when `out` is full; `bad` is set where a value does not fit
/// `T`. Returns the values made and the bytes they took. The ends come from the stop bits of
/// four independent loads, so reading a varint does not wait for the one before it.
#[inline(always)]
fn short_varints<T: OrcInt, const S: bool>(
    block: &[u8],
    out: &mut [T],
    bad: &mut bool,
) -> (usize, usize) {
    let (lo, span) = domain_range::<T, S>();
    let mut n = 0usize;
    let mut start = 0usize;
    for k in 0..VARINT_BLOCK / 8 {
        let mut word = [0u8; 8];
        word.copy_from_slice(&block[8 * k..8 * k + 8]);
        let mut stops = !u64::from_le_bytes(word) & HIGH_BITS;
        while stops != 0 {
            let last = 8 * k + stops.trailing_zeros() as usize / 8;
            let len = last + 1 - start;
            if n == out.len() || len > 4 {
                return (n, start);
            }
            let mut raw = [0u8; 4];
            raw.copy_from_slice(&block[start..start + 4]);
            let x = u32::from_le_bytes(raw) & (u32::MAX >> (32 - 8 * len)) & 0x7f7f_7f7f;
            // `squeeze7`'s first two steps, in 32 bits (calling `squeeze7` measured 4% slower
            // on v1 ship dates: 1.98 -> 1.90 GB/s, one core).
            let x = (x & 0x007f_007f) | ((x & 0x7f00_7f00) >> 1);
            let x = (x & 0x0000_3fff) | ((x & 0x3fff_0000) >> 2);
            let bits = stream_bits::<S>(u64::from(x));
            *bad |= bits.wrapping_sub(lo) > span;
            out[n] = T::from_bits(bits);
            n += 1;
            start = last + 1;
            stops &= stops - 1;
        }
    }
    (n, start)
}

/// What [`one_byte_block`] read: the values, and whether one of them is negative (a signed
/// stream's odd byte).
struct OneByteBlock {
    values: usize,
    negative: bool,
}

/// Lanes a [`one_byte_block`] decodes at most.
const BLOCK_LANES: usize = 32;

/// The continuation bit and the zigzag sign bit of each byte of a little-endian word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// Writes the 8 one-byte varints of `word` (continuation bits clear) to `dst` (8 slots). Each
/// byte is a value of -64..=63 (zigzagged, here all 8 at once) or 0..=127, so sign-extending it
/// gives the value in every type.
#[inline(always)]
fn put_one_bytes<T: OrcInt, const S: bool>(word: u64, dst: &mut [T]) {
    let values = if S {
        ((word >> 1) & !HIGH_BITS) ^ ((word & LOW_BITS) * 0xff)
    } else {
        word
    };
    dst.copy_from_slice(&T::from_i8x8(values));
}

/// The next `min(left, 32)` literal values of a group (`left >= 1`) when they are all one-byte
/// varints, read from the 32 bytes at `input[pos..]` into a block of 32 slots of `out` from `at`
/// without a branch on how many: short groups of small values, each as long as chance makes it,
/// cost no loop that the branch predictor cannot foresee. Past the group the block holds junk
/// that later values overwrite (those slots belong to values not decoded yet). `None` (nothing
/// written) where fewer than 32 bytes or slots remain, or a varint among them is longer.
#[inline(always)]
fn one_byte_block<T: OrcInt, const S: bool>(
    input: &[u8],
    pos: usize,
    out: &mut [T],
    at: usize,
    left: usize,
) -> Option<OneByteBlock> {
    let bytes: &[u8; BLOCK_LANES] = input
        .get(pos..pos.checked_add(BLOCK_LANES)?)?
        .try_into()
        .ok()?;
    let n = left.min(BLOCK_LANES);
    let mut words = [0u64; BLOCK_LANES / 8];
    let mut high = 0u64;
    let mut low = 0u64;
    for (k, (word, raw)) in words.iter_mut().zip(bytes.chunks_exact(8)).enumerate() {
        let mut le = [0u8; 8];
        le.copy_from_slice(raw);
        *word = u64::from_le_bytes(le);
        // The group's bytes in this word: 0 to 8 of them.
        let mine = n.saturating_sub(8 * k).min(8) as u32;
        let lanes = u64::MAX.checked_shr(64 - 8 * mine).unwrap_or(0);
        high |= *word & HIGH_BITS & lanes;
        low |= *word & LOW_BITS & lanes;
    }
    if high != 0 {
        return None;
    }
    let block = out.get_mut(at..at.checked_add(BLOCK_LANES)?)?;
    for (dst, &word) in block.chunks_exact_mut(8).zip(words.iter()) {
        put_one_bytes::<T, S>(word, dst);
    }
    Some(OneByteBlock {
        values: n,
        negative: S && low != 0,
    })
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
    decode_int_rle_v1_prefix_end(input, signed, skip, out).map(|end| end.end)
}

/// [`decode_int_rle_v1_prefix`], also saying where the next value lies (see [`PrefixEnd`]).
pub fn decode_int_rle_v1_prefix_end<T: OrcInt>(
    input: &[u8],
    signed: bool,
    skip: usize,
    out: &mut [T],
) -> Result<PrefixEnd, ChunkStatus> {
    by_instance!(prefix::<T>(input, skip, out), signed, input)
}

#[inline(never)]
fn prefix<T: OrcInt, const S: bool, const WIDE: bool, const SHORT: bool>(
    input: &[u8],
    skip: usize,
    out: &mut [T],
) -> Result<PrefixEnd, ChunkStatus> {
    let mut group = [T::default(); MAX_RUN];
    let mut pos = 0usize;
    let mut t = PrefixTracker::new(skip);
    while t.wants_more(out.len()) {
        if SHORT && t.skip == 0 {
            let (next, written) = short_groups::<T, S>(input, pos, out, t.written);
            if next != pos {
                t.written = written;
                t.placed(pos, next);
                pos = next;
                if !t.wants_more(out.len()) {
                    break;
                }
            }
        }
        let start = pos;
        let control = *input.get(pos).ok_or(ChunkStatus::Underflow)?;
        let len = if control < 0x80 {
            usize::from(control) + MIN_RUN
        } else {
            256 - usize::from(control)
        };
        // Groups that land whole in `out` are decoded in place, the others through `group`.
        if t.lands_whole(len, out.len()) {
            pos = decode_group::<T, S, true, WIDE>(input, pos, out, &mut t.written)?;
            t.placed(start, pos);
            continue;
        }
        let mut filled = 0usize;
        pos = decode_group::<T, S, true, WIDE>(input, pos, &mut group, &mut filled)?;
        t.take(start, pos, &group[..len], out);
    }
    Ok(t.finish())
}

/// Appends the Integer RLE v1 encoding of `values` to `out`: every stretch of 3 or more values
/// with one delta in -128..=127 becomes run groups (at most 130 values each), the values between
/// runs literal groups of at most 128. An unsigned stream (`signed == false`) cannot hold a
/// negative value: `Error::InvalidArgument`.
pub fn encode_int_rle_v1<T: OrcInt>(values: &[T], signed: bool, out: &mut Vec<u8>) -> Result<()> {
    let mut wide: Vec<i128> =
        crate::error::try_with_capacity(values.len(), "the ORC RLE encoder's values")?;
    for &v in values {
        wide.push(stream_value(v, signed).ok_or_else(negative_for_unsigned)?);
    }
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
    use proptest::prelude::{Just, Strategy};
    use proptest::prop_oneof;

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

    /// Literal groups of varints of mixed lengths (1 to 5 bytes), so that the 32-byte blocks of
    /// `short_varints` end inside groups, at groups' ends and before longer varints.
    #[test]
    fn short_varint_blocks_decode_as_the_values_say() {
        let mut seed = 0x5eed_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for trial in 0..200 {
            let groups = 1 + next() % 5;
            let mut values: Vec<i64> = Vec::new();
            let mut stream = Vec::new();
            for _ in 0..groups {
                let len = 1 + (next() % 128) as usize;
                stream.push((256 - len) as u8);
                for _ in 0..len {
                    // 7 to 35 bits of zigzagged value: 1 to 5 varint bytes.
                    let bits = 7 * (1 + next() % 5) - next() % 7;
                    let v = (next() & ((1u64 << bits) - 1)) as i64 - (1i64 << (bits - 1));
                    values.push(v);
                    write_varint(&mut stream, zigzag_encode(v));
                }
            }
            let mut out = vec![0i64; values.len()];
            decode_int_rle_v1(&stream, true, &mut out).unwrap();
            assert_eq!(out, values, "trial {trial}");
            // Into i16, the values that do not fit make the stream corrupt, and it decodes
            // where all fit.
            let mut narrow = vec![0i16; values.len()];
            let fits = values.iter().all(|&v| i16::try_from(v).is_ok());
            let got = decode_int_rle_v1(&stream, true, &mut narrow);
            if fits {
                got.unwrap();
                assert!(narrow.iter().zip(&values).all(|(&a, &b)| i64::from(a) == b));
            } else {
                assert_eq!(got, Err(ChunkStatus::Corrupt), "trial {trial}");
            }
            // Cut short: never a panic, and an error.
            let cut = &stream[..stream.len() - 1 - (next() as usize % stream.len().min(40))];
            assert!(
                decode_int_rle_v1(cut, true, &mut out).is_err(),
                "trial {trial}"
            );
        }
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

    // The fast paths against a plain byte-by-byte reference, on literal groups of varints of
    // every length (1 to 10 bytes, and longer ones that are corrupt), with the streams cut short
    // and bit-flipped, decoded by both instances of the decoder (`WIDE` or not).

    /// A varint byte by byte: `Truncated` where the input ends inside it, `Corrupt` where it
    /// holds more than 64 bits.
    fn reference_varint(input: &[u8], pos: &mut usize) -> Result<u64, ChunkStatus> {
        let mut value = 0u64;
        for k in 0..10 {
            let byte = *input.get(*pos).ok_or(ChunkStatus::Truncated)?;
            *pos += 1;
            let low = u64::from(byte & 0x7f);
            if k == 9 && low > 1 {
                return Err(ChunkStatus::Corrupt);
            }
            value |= low << (7 * k);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(ChunkStatus::Corrupt)
    }

    /// A raw varint as `T`, `None` where it does not fit (zigzagged where `signed`).
    fn reference_fit<T: OrcInt>(raw: u64, signed: bool) -> Option<T> {
        if signed {
            T::from_i64(zigzag_decode(raw))
        } else {
            T::from_u64(raw)
        }
    }

    /// The group at `input[*pos]` (which exists), decoded whole, as the module documents it. A
    /// literal group is claimed (`room` values left, else `Overflow`) before its varints are
    /// read, a run after its delta and base; in a literal group a damaged varint is `Corrupt`
    /// where a value before it does not fit `T`, unless `prefix` (there the damage wins).
    fn reference_group<T: OrcInt>(
        input: &[u8],
        pos: &mut usize,
        signed: bool,
        room: usize,
        prefix: bool,
    ) -> Result<Vec<T>, ChunkStatus> {
        let control = input[*pos];
        *pos += 1;
        if control < 0x80 {
            let len = usize::from(control) + MIN_RUN;
            let delta = *input.get(*pos).ok_or(ChunkStatus::Truncated)? as i8;
            *pos += 1;
            let raw = reference_varint(input, pos)?;
            if len > room {
                return Err(ChunkStatus::Overflow);
            }
            let base = if signed {
                i128::from(zigzag_decode(raw))
            } else {
                i128::from(raw)
            };
            return (0..len as i128)
                .map(|k| {
                    let v = base + k * i128::from(delta);
                    let fits = if signed {
                        i64::try_from(v).ok().and_then(T::from_i64)
                    } else {
                        u64::try_from(v).ok().and_then(T::from_u64)
                    };
                    fits.ok_or(ChunkStatus::Corrupt)
                })
                .collect();
        }
        let len = 256 - usize::from(control);
        if len > room {
            return Err(ChunkStatus::Overflow);
        }
        let mut values = Vec::with_capacity(len);
        let mut bad = false;
        for _ in 0..len {
            match reference_varint(input, pos) {
                Ok(raw) => match reference_fit::<T>(raw, signed) {
                    Some(v) => values.push(v),
                    None => {
                        bad = true;
                        values.push(T::default());
                    }
                },
                Err(_) if bad && !prefix => return Err(ChunkStatus::Corrupt),
                Err(e) => return Err(e),
            }
        }
        if bad {
            return Err(ChunkStatus::Corrupt);
        }
        Ok(values)
    }

    /// [`decode_int_rle_v1`] into `n` values, group by group.
    fn reference_whole<T: OrcInt>(
        input: &[u8],
        signed: bool,
        n: usize,
    ) -> Result<Vec<T>, ChunkStatus> {
        let mut out = Vec::new();
        let mut pos = 0usize;
        while pos < input.len() {
            let group = reference_group::<T>(input, &mut pos, signed, n - out.len(), false)?;
            out.extend(group);
        }
        if out.len() < n {
            return Err(ChunkStatus::Underflow);
        }
        Ok(out)
    }

    /// [`decode_int_rle_v1_prefix`]: `n` values after `skip`, every group touched decoded whole;
    /// also the offset after the last group touched.
    fn reference_prefix<T: OrcInt>(
        input: &[u8],
        signed: bool,
        skip: usize,
        n: usize,
    ) -> Result<(Vec<T>, usize), ChunkStatus> {
        let mut out = Vec::new();
        let mut skip = skip;
        let mut pos = 0usize;
        while out.len() < n || skip > 0 {
            if pos >= input.len() {
                return Err(ChunkStatus::Underflow);
            }
            let group = reference_group::<T>(input, &mut pos, signed, MAX_RUN, true)?;
            let skipped = group.len().min(skip);
            skip -= skipped;
            let take = (group.len() - skipped).min(n - out.len());
            out.extend_from_slice(&group[skipped..skipped + take]);
        }
        Ok((out, pos))
    }

    /// How the varints of a generated stream are spread over lengths: weights of 1 to 10 bytes
    /// and of corrupt ones (11 bytes, or a tenth byte above 1).
    #[derive(Clone, Debug)]
    struct Shape {
        weights: [u32; 11],
        runs: u32,
    }

    fn shape() -> impl Strategy<Value = Shape> {
        prop_oneof![
            // Ship dates: 2 and 3 bytes.
            Just(Shape {
                weights: [0, 1, 15, 0, 0, 0, 0, 0, 0, 0, 0],
                runs: 0
            }),
            // 1 to 4 bytes.
            Just(Shape {
                weights: [2, 3, 4, 2, 0, 0, 0, 0, 0, 0, 0],
                runs: 1
            }),
            // Now and then a longer one.
            Just(Shape {
                weights: [4, 20, 60, 10, 1, 1, 1, 1, 1, 1, 1],
                runs: 1
            }),
            // Anything.
            proptest::array::uniform11(0u32..8).prop_map(|mut weights| {
                weights[2] += 1;
                Shape { weights, runs: 1 }
            }),
        ]
    }

    /// A xorshift generator from `seed` (the test streams' source of bytes).
    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut state = seed | 1;
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// A stream of groups (mostly literal groups of 128) shaped by `shape`, from `seed`; and the
    /// values its group headers claim.
    fn shaped_stream(shape: &Shape, seed: u64, groups: usize) -> (Vec<u8>, usize) {
        let mut next = xorshift(seed);
        let total: u32 = shape.weights.iter().sum();
        let mut stream = Vec::new();
        let mut values = 0usize;
        for _ in 0..groups {
            if shape.runs > 0 && next().is_multiple_of(8) {
                let len = 3 + (next() % 128) as usize;
                stream.push((len - 3) as u8);
                stream.push(next() as u8);
                write_varint(&mut stream, next() >> (next() % 64));
                values += len;
                continue;
            }
            let len = if next().is_multiple_of(2) {
                MAX_LITERALS
            } else {
                1 + (next() % 128) as usize
            };
            stream.push((256 - len) as u8);
            values += len;
            for _ in 0..len {
                let mut pick = (next() % u64::from(total)) as u32;
                let mut bytes = 0;
                while pick >= shape.weights[bytes] {
                    pick -= shape.weights[bytes];
                    bytes += 1;
                }
                // `bytes` 0..=9: a varint of bytes + 1 bytes, its last byte any (a tenth byte
                // mostly 0 or 1); 10: one of 11 bytes.
                let last = match bytes {
                    9 if !next().is_multiple_of(4) => (next() % 2) as u8,
                    _ => (next() & 0x7f) as u8,
                };
                for _ in 0..bytes {
                    stream.push(next() as u8 | 0x80);
                }
                stream.push(last);
            }
        }
        (stream, values)
    }

    /// The stream whole, cut at `cut` and with bit `flip` flipped (both modulo its length).
    fn damaged(stream: &[u8], cut: usize, flip: usize) -> Vec<Vec<u8>> {
        let mut all = vec![stream.to_vec()];
        if !stream.is_empty() {
            all.push(stream[..cut % stream.len()].to_vec());
            let mut flipped = stream.to_vec();
            let bit = flip % (stream.len() * 8);
            flipped[bit / 8] ^= 1 << (bit % 8);
            all.push(flipped);
        }
        all
    }

    /// Both instances of the whole and the prefix decoders against the references.
    fn check_fast_paths<T: OrcInt + PartialEq + std::fmt::Debug, const S: bool>(
        stream: &[u8],
        n: usize,
        skip: usize,
        take: usize,
    ) {
        let want = reference_whole::<T>(stream, S, n);
        // The instances: plain, `WIDE`, `SHORT`.
        for wide in ["plain", "wide", "short"] {
            let mut out = vec![T::default(); n];
            let got = match wide {
                "wide" => decode_all::<T, S, true, false>(stream, &mut out),
                "short" => decode_all::<T, S, false, true>(stream, &mut out),
                _ => decode_all::<T, S, false, false>(stream, &mut out),
            };
            assert_eq!(
                got.map(|()| out),
                want,
                "{} signed {S} {wide} n {n} stream {stream:02x?}",
                std::any::type_name::<T>()
            );
        }
        let mut out = vec![T::default(); n];
        assert_eq!(decode_int_rle_v1(stream, S, &mut out).map(|()| out), want);
        let want = reference_prefix::<T>(stream, S, skip, take);
        for wide in ["plain", "wide", "short"] {
            let mut out = vec![T::default(); take];
            let got = match wide {
                "wide" => prefix::<T, S, true, false>(stream, skip, &mut out),
                "short" => prefix::<T, S, false, true>(stream, skip, &mut out),
                _ => prefix::<T, S, false, false>(stream, skip, &mut out),
            };
            assert_eq!(
                got.map(|end| (out, end.end)),
                want,
                "prefix {} signed {S} {wide} skip {skip} take {take} stream {stream:02x?}",
                std::any::type_name::<T>()
            );
        }
    }

    fn check_every_type(stream: &[u8], n: usize, skip: usize, take: usize) {
        check_fast_paths::<i64, true>(stream, n, skip, take);
        check_fast_paths::<i32, true>(stream, n, skip, take);
        check_fast_paths::<i16, true>(stream, n, skip, take);
        check_fast_paths::<u32, true>(stream, n, skip, take);
        check_fast_paths::<u64, false>(stream, n, skip, take);
        check_fast_paths::<i32, false>(stream, n, skip, take);
        check_fast_paths::<u16, false>(stream, n, skip, take);
        check_fast_paths::<u8, false>(stream, n, skip, take);
    }

    /// `stream` (holding `values` values), whole, cut and bit-flipped, through every type with
    /// outputs of the exact length, one short (`Overflow`) or longer (`Underflow`) as `extra`
    /// picks, and a prefix of `take` values after `skip` (both taken modulo what fits).
    fn check_damaged(
        stream: &[u8],
        values: usize,
        cut: usize,
        flip: usize,
        extra: usize,
        skip: usize,
        take: usize,
    ) {
        for bytes in damaged(stream, cut, flip) {
            let n = match extra {
                0 => values,
                1 => values.saturating_sub(1),
                _ => values + 2,
            };
            let skip = skip % (values + 1);
            let take = take % (values + 2 - skip);
            check_every_type(&bytes, n, skip, take);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn prop_varint_fast_paths_match_the_reference(
            shape in shape(),
            seed in proptest::prelude::any::<u64>(),
            groups in 1usize..6,
            cut in proptest::prelude::any::<usize>(),
            flip in proptest::prelude::any::<usize>(),
            extra in 0usize..3,
            skip in proptest::prelude::any::<usize>(),
            take in proptest::prelude::any::<usize>(),
        ) {
            let (stream, values) = shaped_stream(&shape, seed, groups);
            check_damaged(&stream, values, cut, flip, extra, skip, take);
        }
    }

    /// A stream of many short groups (the shape of `short_groups`, TPC-H line numbers) from
    /// `seed`: runs of 3 to 10 values (now and then up to 130) with any delta and bases of mostly
    /// one byte (sometimes large, up to 10 bytes), literal groups of 1 to 10 varints of mostly one
    /// byte; and the values its group headers claim.
    fn short_stream(seed: u64, groups: usize) -> (Vec<u8>, usize) {
        let mut next = xorshift(seed);
        let mut stream = Vec::new();
        let mut values = 0usize;
        for _ in 0..groups {
            let varint = |stream: &mut Vec<u8>, pick: u64, bits: u64| match pick % 16 {
                0 => write_varint(stream, bits),
                1 => write_varint(stream, bits >> (bits % 64)),
                2 => write_varint(stream, bits & 0xffff),
                _ => write_varint(stream, bits & 0x7f),
            };
            if !next().is_multiple_of(3) {
                let len = if next().is_multiple_of(16) {
                    3 + (next() % 128) as usize
                } else {
                    3 + (next() % 8) as usize
                };
                stream.push((len - 3) as u8);
                // Mostly small deltas (+-1, 0), sometimes any.
                let delta = match next() % 4 {
                    0 => next() as u8,
                    1 => 0,
                    2 => 0xff,
                    _ => 1,
                };
                stream.push(delta);
                varint(&mut stream, next(), next());
                values += len;
            } else {
                let len = 1 + (next() % 10) as usize;
                stream.push((256 - len) as u8);
                for _ in 0..len {
                    varint(&mut stream, next(), next());
                }
                values += len;
            }
        }
        (stream, values)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        #[test]
        fn prop_short_groups_match_the_reference(
            seed in proptest::prelude::any::<u64>(),
            groups in 1usize..60,
            cut in proptest::prelude::any::<usize>(),
            flip in proptest::prelude::any::<usize>(),
            extra in 0usize..3,
            skip in proptest::prelude::any::<usize>(),
            take in proptest::prelude::any::<usize>(),
        ) {
            let (stream, values) = short_stream(seed, groups);
            check_damaged(&stream, values, cut, flip, extra, skip, take);
        }
    }

    /// Streams of short varints (the batches' shape) with one longer or corrupt varint at every
    /// offset of a group, and cut at every length: every batch boundary and window end.
    #[test]
    fn varint_batches_stop_where_the_reference_does() {
        let shape = Shape {
            weights: [1, 6, 10, 2, 0, 0, 0, 0, 0, 0, 0],
            runs: 0,
        };
        let (base, _) = shaped_stream(&shape, 0x0dd5_eed5, 3);
        // The second group's varints start here; find each one's first byte.
        let mut starts = Vec::new();
        let mut pos = 0usize;
        for _ in 0..2 {
            let control = base[pos];
            pos += 1;
            let len = 256 - usize::from(control);
            for _ in 0..len {
                starts.push(pos);
                reference_varint(&base, &mut pos).unwrap();
            }
        }
        let long: [&[u8]; 4] = [
            &[0x81, 0x82, 0x83, 0x84, 0x05],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
            &[0x80; 11],
        ];
        for (k, &at) in starts.iter().enumerate().step_by(3) {
            // The varint at `at` replaced by a longer one: its group holds as many values.
            let mut end = at;
            reference_varint(&base, &mut end).unwrap();
            let stream = [&base[..at], long[k % 4], &base[end..]].concat();
            check_every_type(&stream, count_values(&stream), 0, 64);
        }
        let n = count_values(&base);
        for cut in 0..base.len() {
            check_fast_paths::<i32, true>(&base[..cut], n, cut % 7, n / 2);
            check_fast_paths::<i16, true>(&base[..cut], n, 0, n);
        }
    }

    #[test]
    fn stop_bits_are_the_bytes_high_bits() {
        let mut seed = 0x600d_5eed_u64;
        for _ in 0..2000 {
            let mut window = [0u8; BATCH_WINDOW];
            let density = seed % 9;
            for b in window.iter_mut() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                // From all bytes continuing to none, through mixes.
                *b = (seed as u8 & 0x7f) | if seed >> 60 < density * 2 { 0 } else { 0x80 };
            }
            for from in [0, 32, 64] {
                let want = (0..32).fold(0u32, |acc, k| acc | u32::from(window[from + k] >> 7) << k);
                assert_eq!(stop_bits(&window, from), u64::from(!want));
                let bytes: &[u8; 32] = window[from..from + 32].try_into().unwrap();
                assert_eq!(continuation_bits_swar(bytes), want);
            }
        }
    }

    /// The values a stream's group headers claim, to its end.
    fn count_values(stream: &[u8]) -> usize {
        let mut pos = 0usize;
        let mut n = 0usize;
        while let Some(&control) = stream.get(pos) {
            pos += 1;
            if control < 0x80 {
                n += usize::from(control) + MIN_RUN;
                pos += 1;
                let _ = reference_varint(stream, &mut pos);
            } else {
                let len = 256 - usize::from(control);
                n += len;
                for _ in 0..len {
                    if reference_varint(stream, &mut pos).is_err() {
                        return n;
                    }
                }
            }
        }
        n
    }
}
