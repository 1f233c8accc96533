//! CPU reference encoder and decoder of the `rle` chunk format (`format.rs`). The encoder emits
//! the canonical encoding (the GPU encoder must match it byte for byte); the decoder accepts any
//! valid token sequence and reports, never panics on, anything else.
//!
//! Speed comes from scanning eight bytes at a time for run starts and run ends, and from writing
//! into a buffer sized by `max_compressed_len` up front instead of pushing byte by byte.

use super::format::{
    max_compressed_len, max_segment_len, segment_count, LONG_RUN, LONG_RUN_PAYLOAD, MAX_LITERAL,
    MAX_SHORT_RUN, MIN_RUN, SEGMENT_HEADER, SEGMENT_SIZE, SHORT_RUN_BASE,
};
use crate::error::ChunkStatus;

const WORD: usize = 8;
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;
/// Bytes the encoder and decoder copy in one fixed-size move where the buffers have room.
const SMALL: usize = 32;

/// The word at `w[at..at + 8]`, little-endian (the lowest byte is `w[at]`). With `at` and `N`
/// constant the bounds check folds away.
#[inline(always)]
fn word_at<const N: usize>(w: &[u8; N], at: usize) -> u64 {
    let mut b = [0u8; WORD];
    b.copy_from_slice(&w[at..at + WORD]);
    u64::from_le_bytes(b)
}

/// Nonzero iff `x` has a zero byte; its lowest set bit is the high bit of the lowest zero byte
/// (false positives of this test only ever sit above a true zero byte).
#[inline(always)]
fn zero_bytes(x: u64) -> u64 {
    x.wrapping_sub(ONES) & !x & HIGH
}

/// The first `i >= from` where `s[i] == s[i + 1] == s[i + 2]`, if any.
#[inline]
fn find_triple(s: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    // Words at i, i + 1, i + 2: byte j of `(a ^ b) | (b ^ c)` is zero iff a triple starts at
    // i + j. Sixteen positions per step.
    while let Some(w) = s.get(i..i + 2 * WORD + 2) {
        let w: &[u8; 2 * WORD + 2] = w.try_into().ok()?;
        let (a0, b0, c0) = (word_at(w, 0), word_at(w, 1), word_at(w, 2));
        let (a1, b1, c1) = (word_at(w, 8), word_at(w, 9), word_at(w, 10));
        let lo = zero_bytes((a0 ^ b0) | (b0 ^ c0));
        let hi = zero_bytes((a1 ^ b1) | (b1 ^ c1));
        if lo | hi != 0 {
            let hit = if lo != 0 {
                lo.trailing_zeros()
            } else {
                64 + hi.trailing_zeros()
            };
            return Some(i + (hit / 8) as usize);
        }
        i += 2 * WORD;
    }
    while let Some([a, b, c]) = s.get(i..i + 3) {
        if a == b && b == c {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The first `i >= from` where `s[i] != value`, or `s.len()`.
#[inline]
fn run_end(s: &[u8], from: usize, value: u8) -> usize {
    let pattern = ONES.wrapping_mul(u64::from(value));
    let mut i = from;
    while let Some(w) = s.get(i..i + 2 * WORD) {
        let Ok(w) = <&[u8; 2 * WORD]>::try_from(w) else {
            break;
        };
        let lo = word_at(w, 0) ^ pattern;
        let hi = word_at(w, 8) ^ pattern;
        if lo != 0 {
            return i + (lo.trailing_zeros() / 8) as usize;
        }
        if hi != 0 {
            return i + WORD + (hi.trailing_zeros() / 8) as usize;
        }
        i += 2 * WORD;
    }
    while let Some(&b) = s.get(i) {
        if b != value {
            return i;
        }
        i += 1;
    }
    s.len()
}

/// Copies `src[at..at + len]` to `dst[to..to + len]`; where both have `SMALL` bytes there it
/// moves exactly `SMALL` (one fixed-size copy, no call), spilling bytes the caller overwrites.
#[inline(always)]
fn copy_short(src: &[u8], at: usize, len: usize, dst: &mut [u8], to: usize) -> Option<()> {
    if len <= SMALL {
        if let (Some(s), Some(d)) = (src.get(at..at + SMALL), dst.get_mut(to..to + SMALL)) {
            d.copy_from_slice(s);
            return Some(());
        }
    }
    dst.get_mut(to..to + len)?
        .copy_from_slice(src.get(at..at + len)?);
    Some(())
}

/// One segment being encoded: its payload is written straight into the output, after the
/// token count; its control bytes are gathered here and appended once the payload is done.
struct SegmentWriter<'a> {
    dst: &'a mut [u8],
    /// Next payload byte's offset in `dst`.
    o: usize,
    /// The controls so far (scratch reused from segment to segment).
    ctrl: &'a mut [u8; SEGMENT_SIZE],
    m: usize,
}

impl SegmentWriter<'_> {
    #[inline(always)]
    fn control(&mut self, c: u8) {
        // At most one control per segment byte: a token decodes to at least one byte.
        if let Some(slot) = self.ctrl.get_mut(self.m) {
            *slot = c;
        }
        self.m += 1;
    }

    /// Literal tokens for `seg[from..to]`.
    #[inline]
    fn literals(&mut self, seg: &[u8], from: usize, to: usize) {
        let mut at = from;
        while at < to {
            let len = (to - at).min(MAX_LITERAL);
            self.control((len - 1) as u8);
            at += len;
        }
        // Cannot fail: `dst` holds the segment's worst case; a spill past these bytes is
        // overwritten by the next token or cut by the final truncate.
        let _ = copy_short(seg, from, to - from, self.dst, self.o);
        self.o += to - from;
    }

    /// One run token (`len >= MIN_RUN`, `len <= SEGMENT_SIZE`).
    #[inline]
    fn run(&mut self, len: usize, value: u8) {
        if len <= MAX_SHORT_RUN {
            self.control(SHORT_RUN_BASE + (len - MIN_RUN) as u8);
        } else {
            self.control(LONG_RUN);
            // `len <= SEGMENT_SIZE` fits the u16.
            self.dst[self.o..self.o + 2].copy_from_slice(&(len as u16).to_le_bytes());
            self.o += 2;
        }
        self.dst[self.o] = value;
        self.o += 1;
    }

    /// Writes the token count and appends the controls; returns the segment's length.
    fn finish(self) -> usize {
        let m = self.m.min(SEGMENT_SIZE);
        // `m <= SEGMENT_SIZE` fits the u16.
        self.dst[..SEGMENT_HEADER].copy_from_slice(&(m as u16).to_le_bytes());
        self.dst[self.o..self.o + m].copy_from_slice(&self.ctrl[..m]);
        self.o + m
    }
}

/// Encodes one segment (`seg.len() <= SEGMENT_SIZE`) into `dst`, which holds at least
/// `max_segment_len(seg.len())` bytes; returns the bytes written. `ctrl` is scratch.
fn encode_segment_into(seg: &[u8], dst: &mut [u8], ctrl: &mut [u8; SEGMENT_SIZE]) -> usize {
    let mut w = SegmentWriter {
        dst,
        o: SEGMENT_HEADER,
        ctrl,
        m: 0,
    };
    let mut lit_start = 0;
    let mut pos = 0;
    // `pos` is 0 or the end of a maximal run, so the first triple at or after it starts a
    // maximal run: a triple one byte earlier would have been found first.
    while let Some(start) = find_triple(seg, pos) {
        let value = seg.get(start).copied().unwrap_or(0);
        let end = run_end(seg, start + MIN_RUN, value);
        w.literals(seg, lit_start, start);
        w.run(end - start, value);
        pos = end;
        lit_start = end;
    }
    w.literals(seg, lit_start, seg.len());
    w.finish()
}

/// Appends the canonical encoding of `seg`'s segments to `out`: one segment for every
/// `SEGMENT_SIZE` bytes of `seg` (the last may be shorter), back to back, without a table.
pub fn encode_segment(seg: &[u8], out: &mut Vec<u8>) {
    let mut ctrl = [0u8; SEGMENT_SIZE];
    for piece in seg.chunks(SEGMENT_SIZE) {
        let base = out.len();
        out.resize(base + max_segment_len(piece.len()), 0);
        let written = encode_segment_into(piece, &mut out[base..], &mut ctrl);
        out.truncate(base + written);
    }
}

/// Writes the canonical encoding of one chunk (segment table, then the segments' tokens) to the
/// front of `dst` and returns its length, or `None` if `dst` is shorter than
/// `max_compressed_len(input.len())` or the encoding would not fit the u32 table.
pub fn encode_chunk_into(input: &[u8], dst: &mut [u8]) -> Option<usize> {
    let bound = max_compressed_len(input.len());
    if dst.len() < bound || u32::try_from(bound).is_err() {
        return None;
    }
    let table_len = 4 * segment_count(input.len());
    let (table, body) = dst.split_at_mut(table_len);
    let mut o = 0;
    let mut ctrl = [0u8; SEGMENT_SIZE];
    for (seg, entry) in input.chunks(SEGMENT_SIZE).zip(table.chunks_exact_mut(4)) {
        o += encode_segment_into(seg, &mut body[o..], &mut ctrl);
        // `o <= bound`, which fits a u32 (checked above).
        entry.copy_from_slice(&(o as u32).to_le_bytes());
    }
    Some(table_len + o)
}

/// Appends the canonical encoding of one chunk to `out`: the segment table (filled in as the
/// segments are encoded behind it, so nothing is copied), then every segment's tokens.
///
/// A chunk's compressed size must fit the u32 table; for an `input` so large that it might not
/// (over 4 GiB), nothing is appended.
pub fn encode_chunk(input: &[u8], out: &mut Vec<u8>) {
    let bound = max_compressed_len(input.len());
    if u32::try_from(bound).is_err() {
        return;
    }
    let base = out.len();
    out.resize(base + bound, 0);
    let written = encode_chunk_into(input, &mut out[base..]).unwrap_or(0);
    out.truncate(base + written);
}

/// Decodes one chunk into `out`, whose length is the chunk's recorded uncompressed size.
///
/// Checks, in order: the table fits (`Truncated`); every entry is at least the previous one
/// (`Corrupt`) and at most the token area's length (`Truncated`); the last entry is the token
/// area's length, no trailing bytes (`Corrupt`); then segment by segment, token by token, as in
/// `decode_segment`. On error `out` holds partial output.
pub fn decode_chunk(input: &[u8], out: &mut [u8]) -> Result<(), ChunkStatus> {
    let k = segment_count(out.len());
    let table_len = k.checked_mul(4).ok_or(ChunkStatus::Truncated)?;
    let (table, tokens) = input
        .split_at_checked(table_len)
        .ok_or(ChunkStatus::Truncated)?;
    let entry = |e: &[u8]| -> usize {
        let mut b = [0u8; 4];
        b.copy_from_slice(e);
        u32::from_le_bytes(b) as usize
    };
    let mut prev = 0usize;
    for e in table.chunks_exact(4) {
        let end = entry(e);
        if end < prev {
            return Err(ChunkStatus::Corrupt);
        }
        if end > tokens.len() {
            return Err(ChunkStatus::Truncated);
        }
        prev = end;
    }
    if prev != tokens.len() {
        return Err(ChunkStatus::Corrupt);
    }
    let mut start = 0usize;
    for (seg_out, e) in out.chunks_mut(SEGMENT_SIZE).zip(table.chunks_exact(4)) {
        let end = entry(e);
        let seg_in = tokens.get(start..end).ok_or(ChunkStatus::Corrupt)?;
        decode_segment(seg_in, seg_out)?;
        start = end;
    }
    Ok(())
}

/// Decodes one segment `seg_in` (token count, payload, controls) into exactly `seg_out`.
///
/// Fewer than 2 bytes, or more controls than bytes after the count, is `Truncated`. Then token
/// by token: a payload past the payload area is `Truncated`; an output past the end of
/// `seg_out` is `Overflow`. Tokens ending before `seg_out` is full is `Underflow`; payload bytes
/// left after the last token is `Corrupt`.
pub fn decode_segment(seg_in: &[u8], seg_out: &mut [u8]) -> Result<(), ChunkStatus> {
    let Some((count, rest)) = seg_in.split_first_chunk::<SEGMENT_HEADER>() else {
        return Err(ChunkStatus::Truncated);
    };
    let m = usize::from(u16::from_le_bytes(*count));
    let pay_len = rest.len().checked_sub(m).ok_or(ChunkStatus::Truncated)?;
    let (payload, controls) = rest.split_at(pay_len);
    let mut ip = 0usize;
    let mut op = 0usize;
    for &c in controls {
        let room = seg_out.len() - op;
        if c < SHORT_RUN_BASE {
            let len = usize::from(c) + 1;
            if ip + len > payload.len() {
                return Err(ChunkStatus::Truncated);
            }
            if len > room {
                return Err(ChunkStatus::Overflow);
            }
            copy_short(payload, ip, len, seg_out, op).ok_or(ChunkStatus::Truncated)?;
            ip += len;
            op += len;
        } else {
            let (len, value) = if c == LONG_RUN {
                let Some(&[lo, hi, v]) = payload.get(ip..ip + LONG_RUN_PAYLOAD) else {
                    return Err(ChunkStatus::Truncated);
                };
                ip += LONG_RUN_PAYLOAD;
                (usize::from(u16::from_le_bytes([lo, hi])), v)
            } else {
                let v = *payload.get(ip).ok_or(ChunkStatus::Truncated)?;
                ip += 1;
                (usize::from(c - SHORT_RUN_BASE) + MIN_RUN, v)
            };
            if len > room {
                return Err(ChunkStatus::Overflow);
            }
            // Short runs: one fixed-size store where the segment has room (the spill is
            // overwritten by later tokens), else an exact fill.
            match seg_out.get_mut(op..op + SMALL) {
                Some(d) if len <= SMALL => d.copy_from_slice(&[value; SMALL]),
                _ => seg_out
                    .get_mut(op..op + len)
                    .ok_or(ChunkStatus::Overflow)?
                    .fill(value),
            }
            op += len;
        }
    }
    if op != seg_out.len() {
        return Err(ChunkStatus::Underflow);
    }
    if ip != payload.len() {
        return Err(ChunkStatus::Corrupt);
    }
    Ok(())
}
