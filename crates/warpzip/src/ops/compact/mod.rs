//! Compressstore (stream compaction): keep the elements whose mask bit is set, in order, in a
//! new array. Owns the mask forms (packed bits, one byte per flag, repeating pattern), the
//! scalar reference (`cpu`), the SIMD fast path (`cpu_simd`) and the GPU launches (`gpu`,
//! `kernels/ops/compact.cu`); the three agree element for element.
//!
//! The packed mask is least significant bit first: element `i` is kept when bit `i % 8` of byte
//! `i / 8` is set (the same bits as little-endian `u32` or `u64` words). A mask may be longer
//! than the values (the extra bits are ignored), never shorter.

internal_mod!(cpu);
mod cpu_pattern;
internal_mod!(cpu_simd);
internal_mod!(gpu);
internal_mod!(masks);

use crate::device::Device;
use crate::error::{Error, Result};
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use std::fmt::Debug;
use std::str::FromStr;

mod sealed {
    pub trait Sealed {}
}

/// The storage width of an element: all that compaction looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Width {
    W8,
    W16,
    W32,
    W64,
}

/// An element type that can be compacted: u8, u16, u32, u64, f32, f64 (sealed: the SIMD and
/// GPU paths move these as plain bits of their width).
pub trait CompactElem:
    sealed::Sealed
    + DeviceRepr
    + ValidAsZeroBits
    + Copy
    + Default
    + PartialEq
    + Debug
    + Send
    + Sync
    + 'static
{
    /// The type's name: `u32`, `f64`, ...
    const NAME: &'static str;
    /// The suffix of the GPU entry points (the unsigned integer of the same width).
    const KERNEL_TYPE: &'static str;
    /// The storage width.
    const WIDTH: Width;
    /// The value stored in `bytes` (little-endian, exactly `size_of::<Self>()` bytes).
    fn from_le(bytes: &[u8]) -> Option<Self>;
    /// Appends the little-endian bytes of `self`.
    fn extend_le(self, out: &mut Vec<u8>);
}

macro_rules! compact_elem {
    ($t:ty, $name:literal, $kernel:literal, $width:ident) => {
        impl sealed::Sealed for $t {}
        impl CompactElem for $t {
            const NAME: &'static str = $name;
            const KERNEL_TYPE: &'static str = $kernel;
            const WIDTH: Width = Width::$width;
            fn from_le(bytes: &[u8]) -> Option<Self> {
                Some(<$t>::from_le_bytes(bytes.try_into().ok()?))
            }
            fn extend_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    };
}

compact_elem!(u8, "u8", "u8", W8);
compact_elem!(u16, "u16", "u16", W16);
compact_elem!(u32, "u32", "u32", W32);
compact_elem!(u64, "u64", "u64", W64);
compact_elem!(f32, "f32", "u32", W32);
compact_elem!(f64, "f64", "u64", W64);

/// Reads raw little-endian values; the length must be a multiple of the element size.
pub fn values_from_le_bytes<T: CompactElem>(bytes: &[u8]) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    if !bytes.len().is_multiple_of(size) {
        return Err(Error::InvalidArgument(format!(
            "{} bytes is not a whole number of {} values ({size} bytes each)",
            bytes.len(),
            T::NAME
        )));
    }
    let mut values =
        crate::error::try_with_capacity(bytes.len() / size, "the values to select from")?;
    for c in bytes.chunks_exact(size) {
        values
            .push(T::from_le(c).ok_or_else(|| Error::InvalidArgument("bad element bytes".into()))?);
    }
    Ok(values)
}

/// The raw little-endian bytes of `values`.
pub fn values_to_le_bytes<T: CompactElem>(values: &[T]) -> Vec<u8> {
    let mut out = Vec::with_capacity(std::mem::size_of_val(values));
    for &v in values {
        v.extend_le(&mut out);
    }
    out
}

/// A mask of period `p`: element `i` is kept when `keep[i % p]`. A projection (keep some
/// columns of rows of `p` values) is the common case; it needs no scan on the GPU.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    keep: Vec<bool>,
    /// `before[r]`: kept positions among `0..r` (length p + 1).
    before: Vec<u32>,
    /// The kept positions, ascending.
    kept: Vec<u32>,
    /// The pattern as packed 64-bit words over lcm(p, 64) elements, when that is short.
    word_cycle: Option<Vec<u64>>,
}

/// Patterns up to this many words of lcm(p, 64) bits get a precomputed word cycle.
const PATTERN_CYCLE_WORDS: usize = 4096;

impl Pattern {
    /// A pattern from its flags (period = `keep.len()`, at least 1, at most `u32::MAX`).
    pub fn new(keep: &[bool]) -> Result<Pattern> {
        if keep.is_empty() {
            return Err(Error::InvalidArgument(
                "a pattern needs at least one flag".into(),
            ));
        }
        if keep.len() > u32::MAX as usize {
            return Err(Error::InvalidArgument(format!(
                "a pattern of period {} is longer than {}",
                keep.len(),
                u32::MAX
            )));
        }
        let what = "a select pattern";
        let mut before = crate::error::try_with_capacity(keep.len() + 1, what)?;
        let mut kept = crate::error::try_with_capacity(keep.iter().filter(|&&k| k).count(), what)?;
        let mut acc = 0u32;
        for (i, &k) in keep.iter().enumerate() {
            before.push(acc);
            if k {
                kept.push(i as u32);
                acc += 1;
            }
        }
        before.push(acc);
        let p = keep.len();
        let words = p / gcd(p, 64);
        let word_cycle = (words <= PATTERN_CYCLE_WORDS).then(|| {
            (0..words)
                .map(|w| {
                    (0..64).fold(0u64, |acc, j| {
                        acc | (u64::from(keep[(w * 64 + j) % p]) << j)
                    })
                })
                .collect()
        });
        Ok(Pattern {
            keep: crate::error::try_to_vec(keep, what)?,
            before,
            kept,
            word_cycle,
        })
    }

    /// The period p.
    pub fn period(&self) -> usize {
        self.keep.len()
    }

    /// Kept positions per period.
    pub fn ones(&self) -> usize {
        self.kept.len()
    }

    /// The flags of one period.
    pub fn flags(&self) -> &[bool] {
        &self.keep
    }

    /// The kept positions of one period, ascending.
    pub fn kept_positions(&self) -> &[u32] {
        &self.kept
    }

    /// True when element `i` is kept.
    pub fn keeps(&self, i: usize) -> bool {
        self.keep.get(i % self.keep.len()).copied().unwrap_or(false)
    }

    /// Kept elements among the first `n`.
    pub fn count_before(&self, n: u64) -> u64 {
        let p = self.keep.len() as u64;
        let r = (n % p) as usize;
        (n / p) * self.kept.len() as u64 + u64::from(self.before.get(r).copied().unwrap_or(0))
    }

    /// Mask bits of elements `64 * word .. 64 * word + 63`.
    pub fn word(&self, word: usize) -> u64 {
        match &self.word_cycle {
            Some(cycle) if !cycle.is_empty() => cycle[word % cycle.len()],
            _ => {
                let p = self.keep.len();
                let mut r = ((word as u128 * 64) % p as u128) as usize;
                let mut w = 0u64;
                for j in 0..64 {
                    if self.keep[r] {
                        w |= 1 << j;
                    }
                    r += 1;
                    if r == p {
                        r = 0;
                    }
                }
                w
            }
        }
    }
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl FromStr for Pattern {
    type Err = Error;

    /// Parses flags separated by commas (and optional spaces): `1,0,0,1`.
    fn from_str(text: &str) -> Result<Pattern> {
        let flags = text
            .split(',')
            .map(|f| match f.trim() {
                "1" => Ok(true),
                "0" => Ok(false),
                other => Err(Error::InvalidArgument(format!(
                    "pattern flag '{other}' is not 0 or 1 (example: 1,0,0,1)"
                ))),
            })
            .collect::<Result<Vec<bool>>>()?;
        Pattern::new(&flags)
    }
}

/// Which elements to keep.
#[derive(Clone, Copy, Debug)]
pub enum Mask<'a> {
    /// Packed bits, least significant first: bit `i % 8` of byte `i / 8` keeps element `i`.
    Bits(&'a [u8]),
    /// One byte per element; nonzero keeps.
    Flags(&'a [u8]),
    /// A repeating pattern.
    Pattern(&'a Pattern),
}

impl Mask<'_> {
    /// Fails with `InvalidArgument` when the mask covers fewer than `n` elements.
    pub fn check(&self, n: usize) -> Result<()> {
        match *self {
            Mask::Bits(bits) if bits.len() < n.div_ceil(8) => Err(Error::InvalidArgument(format!(
                "the mask is shorter than the values: {} bytes hold {} bits, {n} values need {} \
                 bytes",
                bits.len(),
                bits.len() as u64 * 8,
                n.div_ceil(8)
            ))),
            Mask::Flags(flags) if flags.len() < n => Err(Error::InvalidArgument(format!(
                "the mask is shorter than the values: {} flags for {n} values",
                flags.len()
            ))),
            _ => Ok(()),
        }
    }

    /// Elements kept among the first `n` (the mask must cover them: see `check`).
    pub fn count(&self, n: usize) -> Result<usize> {
        self.check(n)?;
        self.count_range(0, n)
    }

    /// Elements kept among `start .. start + len` (covered by the mask; `start` a multiple of 8).
    pub(crate) fn count_range(&self, start: usize, len: usize) -> Result<usize> {
        let end = start + len;
        match *self {
            Mask::Bits(bits) => {
                let first = start / 8;
                let full = end / 8;
                let body = bits
                    .get(first..full)
                    .ok_or_else(|| Error::InvalidArgument("mask range out of bounds".into()))?;
                let mut c: usize = popcount_bytes(body);
                if !end.is_multiple_of(8) {
                    let last = bits.get(full).copied().unwrap_or(0);
                    c += (last & ((1u8 << (end % 8)) - 1)).count_ones() as usize;
                }
                Ok(c)
            }
            Mask::Flags(flags) => Ok(flags
                .get(start..end)
                .ok_or_else(|| Error::InvalidArgument("mask range out of bounds".into()))?
                .iter()
                .filter(|&&f| f != 0)
                .count()),
            Mask::Pattern(p) => {
                Ok((p.count_before(end as u64) - p.count_before(start as u64)) as usize)
            }
        }
    }

    /// Packed words for elements `start .. start + n` (`start` a multiple of 64), bits at or
    /// past `n` clear; `words.len()` must be `n.div_ceil(64)`.
    pub(crate) fn fill_words(&self, start: usize, n: usize, words: &mut [u64]) {
        match *self {
            Mask::Bits(bits) => {
                let first = start / 8;
                for (w, word) in words.iter_mut().enumerate() {
                    let at = first + 8 * w;
                    let mut b = [0u8; 8];
                    if let Some(src) = bits.get(at..(at + 8).min(bits.len())) {
                        b[..src.len()].copy_from_slice(src);
                    }
                    *word = u64::from_le_bytes(b);
                }
            }
            Mask::Flags(flags) => {
                for (w, word) in words.iter_mut().enumerate() {
                    let at = start + 64 * w;
                    let end = (at + 64).min(start + n).min(flags.len());
                    *word = flags.get(at..end).map_or(0, flags_to_bits);
                }
            }
            Mask::Pattern(p) => {
                for (w, word) in words.iter_mut().enumerate() {
                    *word = p.word(start / 64 + w);
                }
            }
        }
        if !n.is_multiple_of(64) {
            if let Some(last) = words.last_mut() {
                *last &= (1u64 << (n % 64)) - 1;
            }
        }
    }
}

/// Set bits in `bytes`, eight bytes at a time.
fn popcount_bytes(bytes: &[u8]) -> usize {
    let mut chunks = bytes.chunks_exact(8);
    let mut c = 0usize;
    for ch in &mut chunks {
        let mut b = [0u8; 8];
        b.copy_from_slice(ch);
        c += u64::from_le_bytes(b).count_ones() as usize;
    }
    c + chunks
        .remainder()
        .iter()
        .map(|b| b.count_ones() as usize)
        .sum::<usize>()
}

/// Up to 64 byte flags as bits (nonzero byte sets its bit), eight flags per step without
/// branches: bit 7 of each byte of `((x & 0x7f..) + 0x7f..) | x` is set exactly when the byte is
/// nonzero; the multiply gathers the eight bit-7s into the top byte.
pub(crate) fn flags_to_bits(flags: &[u8]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut w = 0u64;
    for (i, ch) in flags.chunks(8).enumerate().take(8) {
        let mut b = [0u8; 8];
        b[..ch.len()].copy_from_slice(ch);
        let x = u64::from_le_bytes(b);
        let nz = (((x & LOW7) + LOW7) | x) & HIGH;
        let bits = (nz >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        w |= bits << (8 * i);
    }
    w
}

/// Kept elements of `values` under `mask`, on `device`: the SIMD fast path on the CPU, the
/// single-pass kernel on a GPU. Fails with `InvalidArgument` when the mask is too short.
pub fn select_masked<T: CompactElem>(
    values: &[T],
    mask: Mask<'_>,
    device: &Device,
) -> Result<Vec<T>> {
    match device {
        Device::Cpu => cpu_simd::select(values, mask),
        Device::Gpu(gpu) => {
            let count = mask.count(values.len())?;
            let mut out = crate::error::try_filled(T::default(), count, "the selected values")?;
            gpu::select_host(gpu, values, mask, &mut out)?;
            Ok(out)
        }
    }
}

/// Kept elements of `values` under the packed bitmask `mask_bits` (least significant bit first).
pub fn select<T: CompactElem>(values: &[T], mask_bits: &[u8], device: &Device) -> Result<Vec<T>> {
    select_masked(values, Mask::Bits(mask_bits), device)
}

/// Kept elements of `values` under one byte per flag (nonzero keeps).
pub fn select_flags<T: CompactElem>(values: &[T], flags: &[u8], device: &Device) -> Result<Vec<T>> {
    select_masked(values, Mask::Flags(flags), device)
}

/// Kept elements of `values` under a repeating pattern.
pub fn select_pattern<T: CompactElem>(
    values: &[T],
    pattern: &Pattern,
    device: &Device,
) -> Result<Vec<T>> {
    select_masked(values, Mask::Pattern(pattern), device)
}

/// Writes the kept elements to the front of `out` and returns how many there are. Fails, writing
/// nothing, when `out` is too short or the mask shorter than the values.
pub fn select_into<T: CompactElem>(
    values: &[T],
    mask: Mask<'_>,
    out: &mut [T],
    device: &Device,
) -> Result<usize> {
    let count = mask.count(values.len())?;
    let len = out.len();
    let dst = out.get_mut(..count).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the output holds {len} elements but {count} are selected"
        ))
    })?;
    match device {
        Device::Cpu => cpu_simd::select_into(values, mask, dst),
        Device::Gpu(gpu) => gpu::select_host(gpu, values, mask, dst),
    }
}
