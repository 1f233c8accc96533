//! Apache ORC's run-length encodings, byte for byte as the ORC specification defines them: Byte
//! RLE, Boolean RLE, Integer RLE version 1 and version 2 (codec ids 2 and 3, `orc-rle-v1` and
//! `orc-rle-v2`). This module owns the CPU reference encoders and decoders, the helpers they
//! share (varints, zigzag, the RLEv2 bit-width table), and the typed-array `.wz` codecs.
//!
//! Every decoder bounds-checks every read and write and returns a `ChunkStatus` on bad input:
//! `Truncated` (the stream ends inside a group), `Corrupt` (an invalid width, patch or varint, or
//! a value that overflows the stream's domain or the output type), `Overflow` (more values than
//! `out` holds) and `Underflow` (the stream ends before `out` is full).

pub mod bool_rle;
pub mod byte_rle;
pub mod chunked;
pub mod format;
pub mod gpu;
pub mod int_rle_v1;
pub mod int_rle_v2;
pub mod v2_decode;
pub mod v2_encode;

mod container_codec;

pub use container_codec::OrcRleCodec;

pub use bool_rle::{decode_bool_rle, decode_bool_rle_prefix, encode_bool_rle};
pub use byte_rle::{decode_byte_rle, decode_byte_rle_prefix, encode_byte_rle};
pub use int_rle_v1::{
    decode_int_rle_v1, decode_int_rle_v1_prefix, decode_int_rle_v1_prefix_end, encode_int_rle_v1,
};
pub use int_rle_v2::{decode_int_rle_v2, decode_int_rle_v2_prefix, encode_int_rle_v2};
pub use v2_decode::decode_int_rle_v2_prefix_end;

use crate::error::ChunkStatus;

/// The integer types the ORC integer decoders write and the encoders read. A stream is either
/// signed (its values are i64, zigzag-encoded where the format says so) or unsigned (u64); a
/// decoded value that does not fit `Self` is corruption.
pub trait OrcInt: Copy + Default + Send + Sync + 'static {
    /// Whether the type is signed (the `.wz` codecs encode signed types as signed streams).
    const SIGNED: bool;
    /// Size of one value in bytes.
    const BYTES: usize;
    /// `v` as `Self`, `None` when out of range.
    fn from_i64(v: i64) -> Option<Self>;
    /// `v` as `Self`, `None` when out of range.
    fn from_u64(v: u64) -> Option<Self>;
    /// The value, widened.
    fn to_i128(self) -> i128;
    /// Reads one value from `BYTES` little-endian bytes (`bytes.len() == BYTES`).
    fn from_le_slice(bytes: &[u8]) -> Self;
    /// Writes the value as `BYTES` little-endian bytes (`out.len() == BYTES`).
    fn write_le(self, out: &mut [u8]);
    /// The smallest value of `Self` that a signed (i64) stream can hold.
    #[doc(hidden)]
    const LO_I64: i64;
    /// The largest value of `Self` that a signed (i64) stream can hold.
    #[doc(hidden)]
    const HI_I64: i64;
    /// The largest value of `Self` that an unsigned (u64) stream can hold (the smallest is 0).
    #[doc(hidden)]
    const HI_U64: u64;
    /// The low `BYTES` bytes of `bits` as `Self` (an `as` cast).
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
    /// The 8 bytes of `word` (little-endian), each sign-extended from an i8.
    #[doc(hidden)]
    fn from_i8x8(word: u64) -> [Self; 8];
}

macro_rules! impl_orc_int {
    ($($t:ty => $signed:expr, $widen:ident),*) => {$(
        impl OrcInt for $t {
            const SIGNED: bool = $signed;
            const BYTES: usize = std::mem::size_of::<$t>();
            #[inline(always)]
            fn from_i64(v: i64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn from_u64(v: u64) -> Option<Self> {
                <$t>::try_from(v).ok()
            }
            #[inline(always)]
            fn to_i128(self) -> i128 {
                i128::from(self)
            }
            #[inline(always)]
            fn from_le_slice(bytes: &[u8]) -> Self {
                let mut raw = [0u8; std::mem::size_of::<$t>()];
                let n = raw.len().min(bytes.len());
                raw[..n].copy_from_slice(&bytes[..n]);
                <$t>::from_le_bytes(raw)
            }
            #[inline(always)]
            fn write_le(self, out: &mut [u8]) {
                let raw = self.to_le_bytes();
                let n = raw.len().min(out.len());
                out[..n].copy_from_slice(&raw[..n]);
            }
            const LO_I64: i64 = if (<$t>::MIN as i128) < (i64::MIN as i128) {
                i64::MIN
            } else {
                <$t>::MIN as i64
            };
            const HI_I64: i64 = if (<$t>::MAX as i128) > (i64::MAX as i128) {
                i64::MAX
            } else {
                <$t>::MAX as i64
            };
            const HI_U64: u64 = <$t>::MAX as u64;
            #[inline(always)]
            fn from_bits(bits: u64) -> Self {
                bits as $t
            }
            #[inline(always)]
            fn from_i8x8(word: u64) -> [Self; 8] {
                $widen(word).map(|v| v as $t)
            }
        }
    )*};
}

impl_orc_int!(i8 => true, i8x8, i16 => true, i16x8, i32 => true, i32x8, i64 => true, i64x8,
              u8 => false, i8x8, u16 => false, i16x8, u32 => false, i32x8, u64 => false, i64x8);

/// The bytes of `word`, little-endian, as i8s.
#[inline(always)]
fn i8x8(word: u64) -> [i8; 8] {
    word.to_le_bytes().map(|b| b as i8)
}

/// The bytes of `word`, little-endian, sign-extended to i16.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn i16x8(word: u64) -> [i16; 8] {
    use std::arch::x86_64::{_mm_cvtsi64_si128, _mm_srai_epi16, _mm_unpacklo_epi8};
    // SAFETY: SSE2 is part of every x86_64 target; `__m128i` and `[i16; 8]` are both 16 bytes
    // of plain data.
    unsafe {
        let v = _mm_cvtsi64_si128(word as i64);
        std::mem::transmute(_mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8))
    }
}

/// The bytes of `word`, little-endian, sign-extended to i32.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn i32x8(word: u64) -> [i32; 8] {
    use std::arch::x86_64::{
        __m128i, _mm_cvtsi64_si128, _mm_srai_epi32, _mm_unpackhi_epi16, _mm_unpacklo_epi16,
        _mm_unpacklo_epi8,
    };
    // SAFETY: as in `i16x8`; two `__m128i` are 32 bytes of plain data, as `[i32; 8]`.
    unsafe {
        let v = _mm_cvtsi64_si128(word as i64);
        let bytes = _mm_unpacklo_epi8(v, v);
        let lanes: [__m128i; 2] = [
            _mm_srai_epi32(_mm_unpacklo_epi16(bytes, bytes), 24),
            _mm_srai_epi32(_mm_unpackhi_epi16(bytes, bytes), 24),
        ];
        std::mem::transmute(lanes)
    }
}

/// The bytes of `word`, little-endian, sign-extended to i64.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn i64x8(word: u64) -> [i64; 8] {
    use std::arch::x86_64::{
        __m128i, _mm_cvtsi64_si128, _mm_srai_epi32, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi8,
    };
    // SAFETY: as in `i16x8`; four `__m128i` are 64 bytes of plain data, as `[i64; 8]`.
    unsafe {
        let v = _mm_cvtsi64_si128(word as i64);
        let bytes = _mm_unpacklo_epi8(v, v);
        let low = _mm_srai_epi32(_mm_unpacklo_epi16(bytes, bytes), 24);
        let high = _mm_srai_epi32(_mm_unpackhi_epi16(bytes, bytes), 24);
        let low_sign = _mm_srai_epi32(low, 31);
        let high_sign = _mm_srai_epi32(high, 31);
        let lanes: [__m128i; 4] = [
            _mm_unpacklo_epi32(low, low_sign),
            _mm_unpackhi_epi32(low, low_sign),
            _mm_unpacklo_epi32(high, high_sign),
            _mm_unpackhi_epi32(high, high_sign),
        ];
        std::mem::transmute(lanes)
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn i16x8(word: u64) -> [i16; 8] {
    i8x8(word).map(i16::from)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn i32x8(word: u64) -> [i32; 8] {
    i8x8(word).map(i32::from)
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn i64x8(word: u64) -> [i64; 8] {
    i8x8(word).map(i64::from)
}

/// ORC's zigzag: moves the sign to the least significant bit.
#[inline(always)]
pub fn zigzag_encode(v: i64) -> u64 {
    ((v as u64) << 1) ^ ((v >> 63) as u64)
}

/// Inverse of [`zigzag_encode`].
#[inline(always)]
pub fn zigzag_decode(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

/// Reads a base-128 varint (Protocol Buffers style, little-endian groups of 7 bits) at `*pos`.
/// More than 64 bits of value is `Corrupt`; the input ending inside the varint is `Truncated`.
#[inline(always)]
pub fn read_varint(input: &[u8], pos: &mut usize) -> Result<u64, ChunkStatus> {
    // One-byte varints (small values) first: no masks needed.
    if let Some(&byte) = input.get(*pos) {
        if byte < 0x80 {
            *pos += 1;
            return Ok(u64::from(byte));
        }
    }
    // Fast path: a varint of at most 8 bytes inside an 8-byte window, decoded without a
    // loop: find the first byte without a continuation bit, keep the bytes up to it, and
    // squeeze out the continuation bits in three shift-and-mask steps.
    if let Some(window) = input.get(*pos..pos.saturating_add(8)) {
        let mut raw = [0u8; 8];
        raw.copy_from_slice(window);
        let word = u64::from_le_bytes(raw);
        let stops = !word & 0x8080_8080_8080_8080;
        if stops != 0 {
            let len = (stops.trailing_zeros() / 8 + 1) as usize;
            let keep = if len == 8 {
                u64::MAX
            } else {
                (1u64 << (len * 8)) - 1
            };
            let x = word & keep & 0x7f7f_7f7f_7f7f_7f7f;
            let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
            let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
            let x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
            *pos += len;
            return Ok(x);
        }
        // Nine or ten bytes (large or negative 64-bit values): the first eight hold 56 bits.
        let x = word & 0x7f7f_7f7f_7f7f_7f7f;
        let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
        let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
        let low = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
        if let Some(&ninth) = input.get(pos.saturating_add(8)) {
            if ninth < 0x80 {
                *pos += 9;
                return Ok(low | (u64::from(ninth) << 56));
            }
            if let Some(&tenth) = input.get(pos.saturating_add(9)) {
                // The tenth byte carries only bit 63 and ends the varint.
                if tenth > 1 {
                    return Err(ChunkStatus::Corrupt);
                }
                *pos += 10;
                return Ok(low | (u64::from(ninth & 0x7f) << 56) | (u64::from(tenth) << 63));
            }
        }
    }
    // Fast path: ten bytes (the longest varint) are available, so no per-byte length check.
    if let Some(window) = input.get(*pos..pos.saturating_add(10)) {
        let mut result = 0u64;
        for (k, &byte) in window.iter().enumerate() {
            result |= u64::from(byte & 0x7f) << (7 * k);
            if byte & 0x80 == 0 {
                if k == 9 && byte > 1 {
                    return Err(ChunkStatus::Corrupt);
                }
                *pos += k + 1;
                return Ok(result);
            }
        }
        return Err(ChunkStatus::Corrupt);
    }
    read_varint_slow(input, pos)
}

/// Squeezes the continuation bits out of up to 8 varint bytes (little-endian in `x`, their
/// high bits already cleared): 56 bits of value.
#[inline(always)]
fn squeeze7(x: u64) -> u64 {
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

/// [`read_varint`] where 16 bytes remain (`window`, from the varint on, so the longest varint
/// fits): no length checks and no branch on the varint's length. Returns the value and the
/// bytes it takes; `Corrupt` exactly where `read_varint` would be (no `Truncated` can occur).
#[inline(always)]
pub(crate) fn read_varint_window(window: &[u8; 16]) -> Result<(u64, usize), ChunkStatus> {
    let mut raw = [0u8; 8];
    raw.copy_from_slice(&window[..8]);
    let word = u64::from_le_bytes(raw);
    let stops = !word & 0x8080_8080_8080_8080;
    if stops != 0 {
        // The bytes up to and including the first without a continuation bit.
        let keep = stops ^ (stops - 1);
        let len = (stops.trailing_zeros() / 8 + 1) as usize;
        return Ok((squeeze7(word & keep & 0x7f7f_7f7f_7f7f_7f7f), len));
    }
    // Nine or ten bytes, without a branch on which: a tenth byte (when the ninth continues)
    // carries only bit 63 and ends the varint.
    let low = squeeze7(word & 0x7f7f_7f7f_7f7f_7f7f);
    let ninth = window[8];
    let more = ninth >> 7;
    let tenth = window[9] & 0u8.wrapping_sub(more);
    if tenth > 1 {
        return Err(ChunkStatus::Corrupt);
    }
    Ok((
        low | (u64::from(ninth & 0x7f) << 56) | (u64::from(tenth) << 63),
        9 + usize::from(more),
    ))
}

/// The 16 bytes of `input` from `pos`, when there are that many.
#[inline(always)]
pub(crate) fn window16(input: &[u8], pos: usize) -> Option<&[u8; 16]> {
    input.get(pos..pos.checked_add(16)?)?.try_into().ok()
}

/// [`read_varint`] near the end of the input: checks every byte.
#[inline(never)]
fn read_varint_slow(input: &[u8], pos: &mut usize) -> Result<u64, ChunkStatus> {
    let mut result = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = *input.get(*pos).ok_or(ChunkStatus::Truncated)?;
        *pos += 1;
        let low = u64::from(byte & 0x7f);
        if shift == 63 && low > 1 {
            return Err(ChunkStatus::Corrupt);
        }
        result |= low << shift;
        if byte & 0x80 == 0 {
            return Ok(result);
        }
        shift += 7;
        if shift > 63 {
            return Err(ChunkStatus::Corrupt);
        }
    }
}

/// Appends `v` as a base-128 varint.
pub fn write_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes of `v` as a varint.
pub fn varint_len(v: u64) -> usize {
    (64 - v.leading_zeros() as usize).max(1).div_ceil(7)
}

/// Where `T`'s values lie in a stream's domain, as `(lo, span)`: a stream value given as its 64
/// raw bits `b` (an i64 for a signed stream, a u64 for an unsigned one) fits `T` exactly when
/// `b.wrapping_sub(lo) <= span`.
#[inline(always)]
pub(crate) fn domain_range<T: OrcInt, const S: bool>() -> (u64, u64) {
    if S {
        let lo = T::LO_I64 as u64;
        (lo, (T::HI_I64 as u64).wrapping_sub(lo))
    } else {
        (0, T::HI_U64)
    }
}

/// Whether the stream value with raw bits `bits` fits `T`.
#[inline(always)]
pub(crate) fn fits_bits<T: OrcInt, const S: bool>(bits: u64) -> bool {
    let (lo, span) = domain_range::<T, S>();
    bits.wrapping_sub(lo) <= span
}

/// Whether the wide value `v` (base + delta arithmetic) lies in the stream's domain and fits `T`.
#[inline(always)]
pub(crate) fn fits_wide<T: OrcInt, const S: bool>(v: i128) -> bool {
    let (lo, span) = domain_range::<T, S>();
    let lo = if S {
        i128::from(lo as i64)
    } else {
        i128::from(lo)
    };
    v >= lo && v - lo <= i128::from(span)
}

/// The next `n` slots of `out` from `*at`, or `Overflow` when fewer remain. Advances past them.
#[inline(always)]
pub(crate) fn take<'a, T>(
    out: &'a mut [T],
    at: &mut usize,
    n: usize,
) -> Result<&'a mut [T], ChunkStatus> {
    let end = at.checked_add(n).ok_or(ChunkStatus::Overflow)?;
    let dst = out.get_mut(*at..end).ok_or(ChunkStatus::Overflow)?;
    *at = end;
    Ok(dst)
}

/// Writes `dst[i] = base + i * step` (raw 64-bit stream values, wrapping; the caller checked
/// that every value fits `T`).
#[inline(always)]
pub(crate) fn fill_linear<T: OrcInt>(dst: &mut [T], base: u64, step: u64) {
    if step == 0 {
        dst.fill(T::from_bits(base));
        return;
    }
    let mut x = base;
    for d in dst.iter_mut() {
        *d = T::from_bits(x);
        x = x.wrapping_add(step);
    }
}

/// Writes `base + i * step` (raw 64-bit stream values, wrapping; the caller checked that every
/// value fits `T`) to `out[at..at + len]` (the caller checked that it lies in `out`). Short
/// runs are written as one block of 8 where `out` has room, so their length costs no branch;
/// the slots after the run that this overwrites belong to values not decoded yet.
#[inline(always)]
pub(crate) fn put_linear<T: OrcInt>(out: &mut [T], at: usize, len: usize, base: u64, step: u64) {
    if let Some(block) = out.get_mut(at..at + 8) {
        let mut x = base;
        if step == 0 {
            block.fill(T::from_bits(base));
        } else {
            for d in block.iter_mut() {
                *d = T::from_bits(x);
                x = x.wrapping_add(step);
            }
        }
        if len > 8 {
            if let Some(rest) = out.get_mut(at + 8..at + len) {
                fill_linear(rest, x, step);
            }
        }
    } else if let Some(dst) = out.get_mut(at..at + len) {
        fill_linear(dst, base, step);
    }
}

/// Where a prefix decode (the read of one ORC row group) started and stopped, each position as
/// (byte offset of a run or group, values of it to skip) in canonical form: the run or group
/// that holds the value (a start may skip across whole runs; this one does not). `start` is
/// where the first value written lies; `resume` where the value after the last one written
/// lies, a run used up to its end given as (its end, 0). Two row groups read one after the
/// other exactly when the first's `resume` is the second's `start`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrefixEnd {
    /// Input bytes read, up to the end of the last run or group touched.
    pub end: usize,
    /// Byte offset of the run or group holding the first value written.
    pub start_byte: usize,
    /// Values of that run or group before the first value written.
    pub start_skip: usize,
    /// Byte offset of the run or group holding the next value.
    pub resume_byte: usize,
    /// Values of that run or group before the next value.
    pub resume_skip: usize,
}

/// The bookkeeping of a prefix decode (`decode_int_rle_v1_prefix_end`,
/// `decode_int_rle_v2_prefix_end`): values still to skip, values written, and where the first
/// written and the next value lie. A decoder asks `lands_whole` for each group: if so it decodes
/// the group straight into `out` at `written` and calls `placed`, else it decodes the group into
/// scratch and hands it to `take`.
pub(crate) struct PrefixTracker {
    skip: usize,
    /// Values written to `out` so far.
    pub(crate) written: usize,
    end: PrefixEnd,
    first: Option<(usize, usize)>,
}

impl PrefixTracker {
    pub(crate) fn new(skip: usize) -> Self {
        PrefixTracker {
            skip,
            written: 0,
            end: PrefixEnd::default(),
            first: None,
        }
    }

    /// Whether values remain to skip, or room remains in an output of `out_len` values.
    #[inline(always)]
    pub(crate) fn wants_more(&self, out_len: usize) -> bool {
        self.written < out_len || self.skip > 0
    }

    /// Whether a group of `len` values lands whole in an output of `out_len` values: nothing is
    /// left to skip and it fits.
    #[inline(always)]
    pub(crate) fn lands_whole(&self, len: usize, out_len: usize) -> bool {
        self.skip == 0 && len <= out_len - self.written
    }

    /// Records the group at bytes `start..pos`, decoded straight into the output (its values
    /// already counted in `written`).
    #[inline(always)]
    pub(crate) fn placed(&mut self, start: usize, pos: usize) {
        self.first.get_or_insert((start, 0));
        self.end.end = pos;
        (self.end.resume_byte, self.end.resume_skip) = (pos, 0);
    }

    /// Takes the group at bytes `start..pos`, decoded into `group`: drops what is left to skip
    /// and copies what fits of the rest into `out`.
    #[inline(always)]
    pub(crate) fn take<T: Copy>(&mut self, start: usize, pos: usize, group: &[T], out: &mut [T]) {
        let len = group.len();
        let skipped = len.min(self.skip);
        self.skip -= skipped;
        let n = (len - skipped).min(out.len() - self.written);
        out[self.written..self.written + n].copy_from_slice(&group[skipped..skipped + n]);
        self.written += n;
        if n > 0 {
            self.first.get_or_insert((start, skipped));
        }
        self.end.end = pos;
        (self.end.resume_byte, self.end.resume_skip) = if skipped + n == len {
            (pos, 0)
        } else {
            (start, skipped + n)
        };
    }

    /// Where the decode ended.
    pub(crate) fn finish(mut self) -> PrefixEnd {
        (self.end.start_byte, self.end.start_skip) = self.first.unwrap_or_default();
        self.end
    }
}

/// A value of `T` in the stream's domain, widened: a signed stream holds i64, an unsigned one
/// u64. `None` when it does not fit (a negative value for an unsigned stream).
pub(crate) fn stream_value<T: OrcInt>(v: T, signed: bool) -> Option<i128> {
    let w = v.to_i128();
    let fits = if signed {
        i64::try_from(w).is_ok()
    } else {
        u64::try_from(w).is_ok()
    };
    fits.then_some(w)
}

/// Error for an encoder input that the chosen stream cannot hold.
pub(crate) fn negative_for_unsigned() -> crate::error::Error {
    crate::error::Error::InvalidArgument(
        "a negative value cannot be written to an unsigned ORC integer stream".into(),
    )
}
