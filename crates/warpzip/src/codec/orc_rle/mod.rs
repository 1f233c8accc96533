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

pub use bool_rle::{decode_bool_rle, decode_bool_rle_prefix, encode_bool_rle};
pub use byte_rle::{decode_byte_rle, decode_byte_rle_prefix, encode_byte_rle};
pub use int_rle_v1::{decode_int_rle_v1, decode_int_rle_v1_prefix, encode_int_rle_v1};
pub use int_rle_v2::{decode_int_rle_v2, decode_int_rle_v2_prefix, encode_int_rle_v2};

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
}

macro_rules! impl_orc_int {
    ($($t:ty => $signed:expr),*) => {$(
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
        }
    )*};
}

impl_orc_int!(i8 => true, i16 => true, i32 => true, i64 => true,
              u8 => false, u16 => false, u32 => false, u64 => false);

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

/// Writes the values of one output run: narrows stream values (i64 for a signed stream, u64 for
/// an unsigned one) to `T`, refusing to write past the end of `out`.
pub(crate) struct Sink<'a, T> {
    pub out: &'a mut [T],
    pub pos: usize,
    pub signed: bool,
}

impl<'a, T: OrcInt> Sink<'a, T> {
    pub fn new(out: &'a mut [T], signed: bool) -> Self {
        Sink {
            out,
            pos: 0,
            signed,
        }
    }

    /// Whether every slot of `out` is written.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.pos >= self.out.len()
    }

    /// The next `n` slots, or `Overflow` when fewer remain. Advances past them.
    #[inline(always)]
    pub fn take(&mut self, n: usize) -> Result<&mut [T], ChunkStatus> {
        let end = self.pos.checked_add(n).ok_or(ChunkStatus::Overflow)?;
        let dst = self
            .out
            .get_mut(self.pos..end)
            .ok_or(ChunkStatus::Overflow)?;
        self.pos = end;
        Ok(dst)
    }

    /// Narrows a stream value given as its 64 raw bits.
    #[inline(always)]
    pub fn narrow_bits(signed: bool, bits: u64) -> Result<T, ChunkStatus> {
        let v = if signed {
            T::from_i64(bits as i64)
        } else {
            T::from_u64(bits)
        };
        v.ok_or(ChunkStatus::Corrupt)
    }

    /// Narrows a wide value (base + delta arithmetic) into the stream's domain, then into `T`.
    #[inline(always)]
    pub fn narrow_wide(signed: bool, v: i128) -> Result<T, ChunkStatus> {
        let t = if signed {
            i64::try_from(v).ok().and_then(T::from_i64)
        } else {
            u64::try_from(v).ok().and_then(T::from_u64)
        };
        t.ok_or(ChunkStatus::Corrupt)
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
