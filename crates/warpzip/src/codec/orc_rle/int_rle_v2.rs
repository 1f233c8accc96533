//! ORC Integer RLE version 2: groups of 1..=512 values, each one of four sub-encodings named by
//! the top two bits of its first byte: SHORT_REPEAT (0), DIRECT (1), PATCHED_BASE (2) and DELTA
//! (3). Bit-packed values are big-endian; widths use the 5-bit table of [`decode_width`].
//! The decoder lives in `v2_decode.rs`, the encoder in `v2_encode.rs`.

pub use super::v2_decode::{decode_int_rle_v2, decode_int_rle_v2_prefix};
pub use super::v2_encode::encode_int_rle_v2;

/// Sub-encoding tag of SHORT_REPEAT.
pub const SHORT_REPEAT: u8 = 0;
/// Sub-encoding tag of DIRECT.
pub const DIRECT: u8 = 1;
/// Sub-encoding tag of PATCHED_BASE.
pub const PATCHED_BASE: u8 = 2;
/// Sub-encoding tag of DELTA.
pub const DELTA: u8 = 3;
/// Most values in one group.
pub const MAX_GROUP: usize = 512;
/// Fewest and most values of a SHORT_REPEAT group.
pub const SHORT_REPEAT_MIN: usize = 3;
/// Most values of a SHORT_REPEAT group.
pub const SHORT_REPEAT_MAX: usize = 10;
/// Most patches (including gap fillers) of a PATCHED_BASE group.
pub const MAX_PATCHES: usize = 31;

/// Bit width for a 5-bit width code (DIRECT, PATCHED_BASE data and patches, and DELTA codes
/// other than 0): codes 0..=23 are widths 1..=24, then 26, 28, 30, 32, 40, 48, 56, 64.
#[inline(always)]
pub const fn decode_width(code: u8) -> u32 {
    match code & 0x1f {
        c @ 0..=23 => c as u32 + 1,
        24 => 26,
        25 => 28,
        26 => 30,
        27 => 32,
        28 => 40,
        29 => 48,
        30 => 56,
        _ => 64,
    }
}

/// The 5-bit code of a width the table holds (see [`closest_fixed_width`]); `None` otherwise.
pub fn encode_width(width: u32) -> Option<u8> {
    Some(match width {
        1..=24 => (width - 1) as u8,
        26 => 24,
        28 => 25,
        30 => 26,
        32 => 27,
        40 => 28,
        48 => 29,
        56 => 30,
        64 => 31,
        _ => return None,
    })
}

/// Smallest width of the table that holds `bits` bits (1 for 0).
pub fn closest_fixed_width(bits: u32) -> u32 {
    match bits {
        0..=24 => bits.max(1),
        25..=26 => 26,
        27..=28 => 28,
        29..=30 => 30,
        31..=32 => 32,
        33..=40 => 40,
        41..=48 => 48,
        49..=56 => 56,
        _ => 64,
    }
}

/// Smallest of the widths the specification prefers (1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64;
/// the others are marked deprecated) that holds `bits` bits.
pub fn closest_aligned_width(bits: u32) -> u32 {
    match bits {
        0..=1 => 1,
        2 => 2,
        3..=4 => 4,
        5..=8 => 8,
        9..=16 => 16,
        17..=24 => 24,
        25..=32 => 32,
        33..=40 => 40,
        41..=48 => 48,
        49..=56 => 56,
        _ => 64,
    }
}

/// Bits needed for `v` (0 for 0).
#[inline(always)]
pub fn bits_needed(v: u64) -> u32 {
    64 - v.leading_zeros()
}
