//! The CPU fast path. The mask is taken 64 elements at a time as one word: empty words are
//! skipped without touching their values, full words are copied, and the rest are compacted
//! with AVX-512 `vpcompress` (VBMI2 for 8- and 16-bit elements) or, without AVX-512, an AVX2
//! permutation from a lookup table. The level is detected at run time; the work is split into
//! chunks of `CHUNK` elements that rayon compacts in parallel, each into its own slice of the
//! output (placed by a prefix sum of the chunks' popcounts).

use super::cpu_pattern::{self, PatternShuffles};
use super::{CompactElem, Mask, Width};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::mem::MaybeUninit;

/// Elements per parallel chunk (a multiple of 64).
pub const CHUNK: usize = 1 << 16;

/// An instruction-set level of the fast path.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Bit iteration (`trailing_zeros`) with empty words skipped and full words copied; any CPU.
    Portable,
    /// AVX2: permutes (32/64-bit) and byte shuffles (8/16-bit) from lookup tables.
    Avx2,
    /// AVX-512F `vpcompressd/q` for 32- and 64-bit elements (8/16-bit use AVX2).
    Avx512,
    /// AVX-512 VBMI2 adds `vpcompressb/w` for 8- and 16-bit elements.
    Avx512Vbmi2,
}

impl Level {
    /// Every level, slowest first.
    pub const ALL: [Level; 4] = [
        Level::Portable,
        Level::Avx2,
        Level::Avx512,
        Level::Avx512Vbmi2,
    ];

    /// A short name for tables: `portable`, `avx2`, `avx512`, `avx512-vbmi2`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Portable => "portable",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Avx512Vbmi2 => "avx512-vbmi2",
        }
    }

    /// True when this CPU can run the level.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = is_x86_feature_detected!("avx2");
            let avx512 = avx2 && is_x86_feature_detected!("avx512f");
            match self {
                Level::Portable => true,
                Level::Avx2 => avx2,
                Level::Avx512 => avx512,
                Level::Avx512Vbmi2 => {
                    avx512
                        && is_x86_feature_detected!("avx512bw")
                        && is_x86_feature_detected!("avx512vbmi2")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Level::Portable
        }
    }

    /// The levels this CPU can run, slowest first.
    pub fn available_levels() -> Vec<Level> {
        Level::ALL.into_iter().filter(|l| l.available()).collect()
    }
}

/// The best level this CPU runs.
pub fn detect() -> Level {
    Level::ALL
        .into_iter()
        .rev()
        .find(|l| l.available())
        .unwrap_or(Level::Portable)
}

/// Kept elements of `values` under `mask`, at the best level, in parallel.
pub fn select<T: CompactElem>(values: &[T], mask: Mask<'_>) -> Result<Vec<T>> {
    select_with(values, mask, detect())
}

/// Like `select`, at a chosen level (`Unsupported` when this CPU lacks it).
pub fn select_with<T: CompactElem>(values: &[T], mask: Mask<'_>, level: Level) -> Result<Vec<T>> {
    require(level)?;
    mask.check(values.len())?;
    let counts = chunk_counts(values.len(), mask)?;
    let total: usize = counts.iter().sum();
    let mut out: Vec<T> = crate::error::try_with_capacity(total, "the selected values")?;
    let region = out
        .spare_capacity_mut()
        .get_mut(..total)
        .ok_or_else(|| internal("output allocation is short"))?;
    compact_chunks(values, mask, level, &counts, region)?;
    // SAFETY: `compact_chunks` returned Ok, so every chunk wrote its whole region, and the
    // regions tile `0..total` of the spare capacity: all `total` elements are initialized.
    unsafe { out.set_len(total) };
    Ok(out)
}

/// Writes the kept elements to the front of `out` and returns their number, at the best level.
pub fn select_into<T: CompactElem>(values: &[T], mask: Mask<'_>, out: &mut [T]) -> Result<usize> {
    select_into_with(values, mask, detect(), out)
}

/// Like `select_into`, at a chosen level.
pub fn select_into_with<T: CompactElem>(
    values: &[T],
    mask: Mask<'_>,
    level: Level,
    out: &mut [T],
) -> Result<usize> {
    require(level)?;
    mask.check(values.len())?;
    let counts = chunk_counts(values.len(), mask)?;
    let total: usize = counts.iter().sum();
    let len = out.len();
    let region = out.get_mut(..total).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the output holds {len} elements but {total} are selected"
        ))
    })?;
    // SAFETY: MaybeUninit<T> has the layout of T, and the region is only ever written with
    // initialized T values, so it stays initialized for the caller's `&mut [T]`.
    let region = unsafe { &mut *(region as *mut [T] as *mut [MaybeUninit<T>]) };
    compact_chunks(values, mask, level, &counts, region)?;
    Ok(total)
}

fn require(level: Level) -> Result<()> {
    if level.available() {
        Ok(())
    } else {
        Err(Error::Unsupported(format!(
            "this CPU cannot run the {} compaction path",
            level.name()
        )))
    }
}

fn internal(what: &str) -> Error {
    Error::InvalidArgument(format!("internal error in compaction: {what}"))
}

/// Kept elements of every chunk.
fn chunk_counts(n: usize, mask: Mask<'_>) -> Result<Vec<usize>> {
    (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let start = c * CHUNK;
            mask.count_range(start, CHUNK.min(n - start))
        })
        .collect()
}

/// Compacts every chunk into its region of `dst`, which holds exactly the kept elements.
fn compact_chunks<T: CompactElem>(
    values: &[T],
    mask: Mask<'_>,
    level: Level,
    counts: &[usize],
    dst: &mut [MaybeUninit<T>],
) -> Result<()> {
    let mut regions = Vec::with_capacity(counts.len());
    let mut rest = dst;
    for &c in counts {
        let (head, tail) = rest
            .split_at_mut_checked(c)
            .ok_or_else(|| internal("chunk counts exceed the output"))?;
        regions.push(head);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(internal("chunk counts fall short of the output"));
    }
    let shuffles = match mask {
        Mask::Pattern(p) if level != Level::Portable && level.available() => {
            PatternShuffles::new(p, std::mem::size_of::<T>()).map(|sh| (p, sh))
        }
        _ => None,
    };
    regions
        .into_par_iter()
        .enumerate()
        .try_for_each(|(c, region)| {
            let start = c * CHUNK;
            let chunk = values
                .get(start..values.len().min(start + CHUNK))
                .ok_or_else(|| internal("chunk out of range"))?;
            if let Some((p, sh)) = &shuffles {
                let expected = region.len();
                let (used, wrote) = sh.compact(chunk, start, region);
                return if cpu_pattern::finish_scalar(p, chunk, start, used, region, wrote)
                    == expected
                {
                    Ok(())
                } else {
                    Err(internal("a chunk's pattern disagrees with its count"))
                };
            }
            let mut words = [0u64; CHUNK / 64];
            let words = words
                .get_mut(..chunk.len().div_ceil(64))
                .ok_or_else(|| internal("chunk too long"))?;
            fill_words(level, mask, start, chunk.len(), words);
            let expected = region.len();
            let written = compact_words(
                chunk_level::<T>(level, chunk.len(), expected),
                chunk,
                words,
                region,
            );
            if written == expected {
                Ok(())
            } else {
                Err(internal("a chunk's mask words disagree with its count"))
            }
        })
}

/// The level a chunk of `n` elements keeping `kept` runs at: 64-bit elements in chunks that keep
/// more than 3/4 use the AVX2 kernel even where AVX-512 is there. On the AMD Zen machine this
/// project measures on, `vpcompressq` made 99%-dense u64 selection slower than the scalar loop
/// (6.0 against 5.2 ms for 64 MiB; AVX2 3.8 ms), while it wins at lower densities.
fn chunk_level<T: CompactElem>(level: Level, n: usize, kept: usize) -> Level {
    if matches!(T::WIDTH, Width::W64) && level >= Level::Avx512 && kept * 4 > n * 3 {
        Level::Avx2
    } else {
        level
    }
}

/// The mask words of elements `start .. start + n`: byte flags through SIMD compares where the
/// level allows, everything else through `Mask::fill_words`.
fn fill_words(level: Level, mask: Mask<'_>, start: usize, n: usize, words: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if let Mask::Flags(flags) = mask {
            if level != Level::Portable && level.available() {
                if let Some(chunk) = flags.get(start..start + n) {
                    x86::flags_to_words(level, chunk, words);
                    return;
                }
            }
        }
    }
    mask.fill_words(start, n, words);
}

/// Compacts `values` (at most 64 * words.len()) by `words` (bits past the values clear) into
/// `dst`; returns the elements written, which is the words' popcount when `dst` holds them.
pub fn compact_words<T: CompactElem>(
    level: Level,
    values: &[T],
    words: &[u64],
    dst: &mut [MaybeUninit<T>],
) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if level != Level::Portable && level.available() {
            if let Some(n) = x86::dispatch(level, values, words, dst) {
                return n;
            }
        }
    }
    let _ = level;
    words_portable(values, words, dst)
}

/// The portable path: bit iteration, full words copied, empty words skipped.
fn words_portable<T: Copy>(values: &[T], words: &[u64], dst: &mut [MaybeUninit<T>]) -> usize {
    let mut pos = 0;
    for (b, &w) in words.iter().enumerate() {
        let base = b * 64;
        if w == u64::MAX {
            match (values.get(base..base + 64), dst.get_mut(pos..pos + 64)) {
                (Some(src), Some(out)) => {
                    for (d, &v) in out.iter_mut().zip(src) {
                        d.write(v);
                    }
                    pos += 64;
                    continue;
                }
                _ => return pos,
            }
        }
        let mut w = w;
        while w != 0 {
            let j = w.trailing_zeros() as usize;
            match (values.get(base + j), dst.get_mut(pos)) {
                (Some(&v), Some(d)) => {
                    d.write(v);
                    pos += 1;
                }
                _ => return pos,
            }
            w &= w - 1;
        }
    }
    pos
}

/// Byte `c` holds the position of the c-th set bit of the index (8-bit masks).
const fn positions8() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut m = 0;
    while m < 256 {
        let (mut v, mut c, mut j) = (0u64, 0, 0);
        while j < 8 {
            if (m >> j) & 1 == 1 {
                v |= (j as u64) << (8 * c);
                c += 1;
            }
            j += 1;
        }
        t[m] = v;
        m += 1;
    }
    t
}

/// 32-bit lane indices (as bytes) that gather the kept 64-bit elements of a 4-bit mask.
const fn pairs4() -> [u64; 16] {
    let mut t = [0u64; 16];
    let mut m = 0;
    while m < 16 {
        let (mut v, mut c, mut j) = (0u64, 0, 0);
        while j < 4 {
            if (m >> j) & 1 == 1 {
                v |= ((2 * j) as u64) << (16 * c);
                v |= ((2 * j + 1) as u64) << (16 * c + 8);
                c += 1;
            }
            j += 1;
        }
        t[m] = v;
        m += 1;
    }
    t
}

/// `pshufb` controls that gather the kept 16-bit elements of an 8-bit mask.
const fn shuffles16() -> [[u8; 16]; 256] {
    let mut t = [[0x80u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut c, mut j) = (0, 0);
        while j < 8 {
            if (m >> j) & 1 == 1 {
                t[m][2 * c] = (2 * j) as u8;
                t[m][2 * c + 1] = (2 * j + 1) as u8;
                c += 1;
            }
            j += 1;
        }
        m += 1;
    }
    t
}

#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static POSITIONS8: [u64; 256] = positions8();
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static PAIRS4: [u64; 16] = pairs4();
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
static SHUFFLES16: [[u8; 16]; 256] = shuffles16();

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The x86-64 kernels. Each takes the chunk's values, its mask words (bits past the values
    //! clear) and the output region, and stops early (returning a short count) rather than
    //! read or write out of bounds if that contract is broken.

    use super::{CompactElem, Level, Width, PAIRS4, POSITIONS8, SHUFFLES16};
    use crate::ops::compact::flags_to_bits;
    use std::arch::x86_64::*;
    use std::mem::{align_of, size_of, MaybeUninit};
    use std::ptr;

    /// Runs the kernel of `level` for T's width, or None when T cannot be viewed as its width's
    /// unsigned integer (never for the sealed element types).
    pub(super) fn dispatch<T: CompactElem>(
        level: Level,
        values: &[T],
        words: &[u64],
        dst: &mut [MaybeUninit<T>],
    ) -> Option<usize> {
        match T::WIDTH {
            Width::W8 => {
                let (v, d) = as_bits::<T, u8>(values, dst)?;
                Some(if level >= Level::Avx512Vbmi2 {
                    // SAFETY: the level is available (checked by the caller), so the CPU has
                    // AVX-512F/BW/VBMI2.
                    unsafe { w8_vbmi2(v, words, d) }
                } else {
                    // SAFETY: every level above Portable implies AVX2 (Level::available).
                    unsafe { w8_avx2(v, words, d) }
                })
            }
            Width::W16 => {
                let (v, d) = as_bits::<T, u16>(values, dst)?;
                Some(if level >= Level::Avx512Vbmi2 {
                    // SAFETY: AVX-512F/BW/VBMI2 present (level available).
                    unsafe { w16_vbmi2(v, words, d) }
                } else {
                    // SAFETY: AVX2 present (level above Portable).
                    unsafe { w16_avx2(v, words, d) }
                })
            }
            Width::W32 => {
                let (v, d) = as_bits::<T, u32>(values, dst)?;
                Some(if level >= Level::Avx512 {
                    // SAFETY: AVX-512F present (level available).
                    unsafe { w32_avx512(v, words, d) }
                } else {
                    // SAFETY: AVX2 present (level above Portable).
                    unsafe { w32_avx2(v, words, d) }
                })
            }
            Width::W64 => {
                let (v, d) = as_bits::<T, u64>(values, dst)?;
                Some(if level >= Level::Avx512 {
                    // SAFETY: AVX-512F present (level available).
                    unsafe { w64_avx512(v, words, d) }
                } else {
                    // SAFETY: AVX2 present (level above Portable).
                    unsafe { w64_avx2(v, words, d) }
                })
            }
        }
    }

    /// Views T values and an uninitialized T region as the unsigned integer U of T's width.
    #[allow(clippy::type_complexity)]
    fn as_bits<'a, 'b, T, U>(
        values: &'a [T],
        dst: &'b mut [MaybeUninit<T>],
    ) -> Option<(&'a [U], &'b mut [MaybeUninit<U>])> {
        if size_of::<T>() != size_of::<U>() || align_of::<T>() != align_of::<U>() {
            return None;
        }
        // SAFETY: T and U have the same size and alignment (checked), T is one of the sealed
        // element types (u8..u64, f32, f64) whose every bit pattern is a valid U and vice versa,
        // so the same memory may be read and written as U.
        let v = unsafe { std::slice::from_raw_parts(values.as_ptr().cast::<U>(), values.len()) };
        // SAFETY: as above; the region stays exclusively borrowed for 'b through the new view.
        let d = unsafe {
            std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<MaybeUninit<U>>(), dst.len())
        };
        Some((v, d))
    }

    /// True when every set bit of `w` (elements base..base+63) is an element below n.
    #[inline(always)]
    fn word_in_bounds(w: u64, base: usize, n: usize) -> bool {
        base < n && (64 - w.leading_zeros() as usize) <= n - base
    }

    /// Scalar compaction of one word, through the kernels' raw pointers.
    ///
    /// # Safety
    /// Every set bit j of `w` has `base + j` readable at `src`; `pos + popcount(w)` elements are
    /// writable at `out`.
    #[inline(always)]
    unsafe fn word_scalar<U: Copy>(
        src: *const U,
        base: usize,
        mut w: u64,
        out: *mut U,
        mut pos: usize,
    ) -> usize {
        while w != 0 {
            let j = w.trailing_zeros() as usize;
            // SAFETY: guaranteed by the caller for every set bit.
            unsafe { out.add(pos).write(src.add(base + j).read()) };
            pos += 1;
            w &= w - 1;
        }
        pos
    }

    /// The per-word frame shared by every kernel: skip empty words, stop on a broken contract,
    /// copy full words, move words of at most `sparse` kept elements one by one (cheaper than
    /// the vector steps there), and hand the rest to `partial` (with a flag saying whether a
    /// whole-word vector may be read and 64 elements written without leaving the buffers).
    ///
    /// # Safety
    /// `partial` must read only values below n (all when `roomy`) and write only `pos .. pos +
    /// popcount(w)` (up to `pos + 64` when `roomy`).
    #[inline(always)]
    unsafe fn for_each_word<U: Copy>(
        values: &[U],
        words: &[u64],
        dst: &mut [MaybeUninit<U>],
        sparse: usize,
        mut partial: impl FnMut(*const U, usize, u64, *mut U, usize, bool) -> usize,
    ) -> usize {
        let n = values.len();
        let cap = dst.len();
        let src = values.as_ptr();
        let out = dst.as_mut_ptr().cast::<U>();
        let mut pos = 0usize;
        for (b, &w) in words.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let base = b * 64;
            let cnt = w.count_ones() as usize;
            if !word_in_bounds(w, base, n) || cnt > cap - pos {
                break;
            }
            if w == u64::MAX {
                // SAFETY: all 64 bits set and in bounds: base + 64 <= n; pos + 64 <= cap.
                unsafe { ptr::copy_nonoverlapping(src.add(base), out.add(pos), 64) };
                pos += 64;
                continue;
            }
            if cnt <= sparse {
                // SAFETY: the kept elements are below n and fit the output (checked above).
                pos = unsafe { word_scalar(src, base, w, out, pos) };
                continue;
            }
            let roomy = base + 64 <= n && pos + 64 <= cap;
            pos = partial(src, base, w, out, pos, roomy);
        }
        pos
    }

    #[inline(always)]
    fn low_mask(m: u32) -> u64 {
        if m >= 64 {
            u64::MAX
        } else {
            (1u64 << m) - 1
        }
    }

    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn w32_avx512(values: &[u32], words: &[u64], dst: &mut [MaybeUninit<u32>]) -> usize {
        let body =
            |src: *const u32, base: usize, w: u64, out: *mut u32, mut pos: usize, roomy: bool| {
                for q in 0..4 {
                    let k = (w >> (16 * q)) as u16;
                    if k == 0 {
                        continue;
                    }
                    let m = k.count_ones();
                    // SAFETY: the word is in bounds, so its 16-element group starts inside values.
                    let at = unsafe { src.add(base + 16 * q) };
                    if roomy {
                        // Plain loads and stores where the word's 64 elements and 64 output
                        // slots are there: masked ones cost several times more on some CPUs
                        // (AMD Zen 4), and later stores overwrite the spare lanes.
                        // SAFETY: roomy: the 16 elements are readable and pos + 16 <= pos0 + 64
                        // slots are writable.
                        let v = unsafe { _mm512_loadu_si512(at.cast()) };
                        let c = _mm512_maskz_compress_epi32(k, v);
                        // SAFETY: roomy: pos + 16 lies within the 64 slots from the word's start.
                        unsafe { _mm512_storeu_si512(out.add(pos).cast(), c) };
                    } else {
                        // SAFETY: a set lane of k is an element below n (word in bounds), so
                        // the vector's first element is in bounds too; masked-off lanes are not
                        // accessed.
                        let v = unsafe { _mm512_maskz_loadu_epi32(k, at.cast()) };
                        let c = _mm512_maskz_compress_epi32(k, v);
                        // SAFETY: writes m lanes at pos, within the word's popcount, which fits.
                        unsafe {
                            _mm512_mask_storeu_epi32(out.add(pos).cast(), low_mask(m) as u16, c)
                        };
                    }
                    pos += m as usize;
                }
                pos
            };
        // SAFETY: `body` reads only kept lanes, or whole vectors when roomy; it writes the
        // word's popcount, or when roomy stores below pos + 64 whose spare lanes are overwritten
        // by later stores or lie past the end of the selection.
        unsafe { for_each_word(values, words, dst, 6, body) }
    }

    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    unsafe fn w64_avx512(values: &[u64], words: &[u64], dst: &mut [MaybeUninit<u64>]) -> usize {
        let body =
            |src: *const u64, base: usize, w: u64, out: *mut u64, mut pos: usize, roomy: bool| {
                for q in 0..8 {
                    let k = (w >> (8 * q)) as u8;
                    if k == 0 {
                        continue;
                    }
                    let m = k.count_ones();
                    // SAFETY: the word is in bounds, so its 8-element group starts inside values.
                    let at = unsafe { src.add(base + 8 * q) };
                    if roomy {
                        // SAFETY: as in w32_avx512: roomy, so whole vectors are in bounds.
                        let v = unsafe { _mm512_loadu_si512(at.cast()) };
                        let c = _mm512_maskz_compress_epi64(k, v);
                        // SAFETY: roomy: pos + 8 lies within the 64 slots from the word's start.
                        unsafe { _mm512_storeu_si512(out.add(pos).cast(), c) };
                    } else {
                        // SAFETY: as in w32_avx512: only kept lanes (all below n) are read.
                        let v = unsafe { _mm512_maskz_loadu_epi64(k, at.cast()) };
                        let c = _mm512_maskz_compress_epi64(k, v);
                        // SAFETY: writes m lanes at pos, within the word's popcount.
                        unsafe {
                            _mm512_mask_storeu_epi64(out.add(pos).cast(), low_mask(m) as u8, c)
                        };
                    }
                    pos += m as usize;
                }
                pos
            };
        // SAFETY: as in w32_avx512.
        unsafe { for_each_word(values, words, dst, 8, body) }
    }

    /// # Safety
    /// The CPU supports AVX-512F, AVX-512BW and AVX-512 VBMI2.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
    unsafe fn w16_vbmi2(values: &[u16], words: &[u64], dst: &mut [MaybeUninit<u16>]) -> usize {
        let body =
            |src: *const u16, base: usize, w: u64, out: *mut u16, mut pos: usize, roomy: bool| {
                for q in 0..2 {
                    let k = (w >> (32 * q)) as u32;
                    if k == 0 {
                        continue;
                    }
                    let m = k.count_ones();
                    // SAFETY: the word is in bounds, so its 32-element group starts inside values.
                    let at = unsafe { src.add(base + 32 * q) };
                    if roomy {
                        // Plain loads and stores where there is room (masked ones are slow on
                        // AMD Zen), as in w32_avx512.
                        // SAFETY: roomy: the word's 64 elements are readable.
                        let v = unsafe { _mm512_loadu_si512(at.cast()) };
                        let c = _mm512_maskz_compress_epi16(k, v);
                        // SAFETY: roomy: pos + 32 lies within the 64 slots from the word's start.
                        unsafe { _mm512_storeu_si512(out.add(pos).cast(), c) };
                    } else {
                        // SAFETY: only kept lanes (all below n) are read.
                        let v = unsafe { _mm512_maskz_loadu_epi16(k, at.cast()) };
                        let c = _mm512_maskz_compress_epi16(k, v);
                        // SAFETY: writes m lanes at pos, within the word's popcount.
                        unsafe {
                            _mm512_mask_storeu_epi16(out.add(pos).cast(), low_mask(m) as u32, c)
                        };
                    }
                    pos += m as usize;
                }
                pos
            };
        // SAFETY: `body` reads only kept lanes, or whole vectors when roomy; it writes the
        // word's popcount, or when roomy stores below pos + 64 whose spare lanes are overwritten
        // by later stores or lie past the end of the selection.
        unsafe { for_each_word(values, words, dst, 3, body) }
    }

    /// # Safety
    /// The CPU supports AVX-512F, AVX-512BW and AVX-512 VBMI2.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
    unsafe fn w8_vbmi2(values: &[u8], words: &[u64], dst: &mut [MaybeUninit<u8>]) -> usize {
        let body = |src: *const u8, base: usize, w: u64, out: *mut u8, pos: usize, roomy: bool| {
            let m = w.count_ones();
            if roomy {
                // SAFETY: roomy: the word's 64 bytes are readable.
                let v = unsafe { _mm512_loadu_si512(src.add(base).cast()) };
                let c = _mm512_maskz_compress_epi8(w, v);
                // SAFETY: roomy: 64 slots from pos are writable.
                unsafe { _mm512_storeu_si512(out.add(pos).cast(), c) };
            } else {
                // SAFETY: only kept lanes (all below n) are read.
                let v = unsafe { _mm512_maskz_loadu_epi8(w, src.add(base).cast()) };
                let c = _mm512_maskz_compress_epi8(w, v);
                // SAFETY: writes m lanes at pos, the word's popcount.
                unsafe { _mm512_mask_storeu_epi8(out.add(pos).cast(), low_mask(m), c) };
            }
            pos + m as usize
        };
        // SAFETY: `body` reads only kept lanes, or the whole word when roomy; it writes the
        // word's popcount, or when roomy 64 bytes from pos whose spare lanes are overwritten by
        // later stores or lie past the end of the selection.
        unsafe { for_each_word(values, words, dst, 2, body) }
    }

    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn w32_avx2(values: &[u32], words: &[u64], dst: &mut [MaybeUninit<u32>]) -> usize {
        let body =
            |src: *const u32, base: usize, w: u64, out: *mut u32, mut pos: usize, roomy: bool| {
                if !roomy {
                    // SAFETY: the frame checked that kept elements are below n and fit the output.
                    return unsafe { word_scalar(src, base, w, out, pos) };
                }
                for q in 0..8 {
                    let k = ((w >> (8 * q)) & 0xff) as usize;
                    if k == 0 {
                        continue;
                    }
                    // SAFETY: roomy: the word's 64 elements are readable.
                    let v = unsafe { _mm256_loadu_si256(src.add(base + 8 * q).cast()) };
                    let idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(POSITIONS8[k] as i64));
                    let c = _mm256_permutevar8x32_epi32(v, idx);
                    // SAFETY: roomy: 64 elements fit from the word's first position, and this
                    // store starts at most 56 past it.
                    unsafe { _mm256_storeu_si256(out.add(pos).cast(), c) };
                    pos += k.count_ones() as usize;
                }
                pos
            };
        // SAFETY: whole-vector accesses happen only when roomy; the stores past the kept
        // elements stay below pos + 64 and are overwritten by later ones or lie past the end.
        unsafe { for_each_word(values, words, dst, 6, body) }
    }

    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn w64_avx2(values: &[u64], words: &[u64], dst: &mut [MaybeUninit<u64>]) -> usize {
        let body =
            |src: *const u64, base: usize, w: u64, out: *mut u64, mut pos: usize, roomy: bool| {
                if !roomy {
                    // SAFETY: the frame checked that kept elements are below n and fit the output.
                    return unsafe { word_scalar(src, base, w, out, pos) };
                }
                for q in 0..16 {
                    let k = ((w >> (4 * q)) & 0xf) as usize;
                    if k == 0 {
                        continue;
                    }
                    // SAFETY: roomy: the word's 64 elements are readable.
                    let v = unsafe { _mm256_loadu_si256(src.add(base + 4 * q).cast()) };
                    let idx = _mm256_cvtepu8_epi32(_mm_cvtsi64_si128(PAIRS4[k] as i64));
                    let c = _mm256_permutevar8x32_epi32(v, idx);
                    // SAFETY: roomy; this 4-element store starts at most 60 past the word's first
                    // position.
                    unsafe { _mm256_storeu_si256(out.add(pos).cast(), c) };
                    pos += k.count_ones() as usize;
                }
                pos
            };
        // SAFETY: as in w32_avx2.
        unsafe { for_each_word(values, words, dst, 8, body) }
    }

    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn w16_avx2(values: &[u16], words: &[u64], dst: &mut [MaybeUninit<u16>]) -> usize {
        let body =
            |src: *const u16, base: usize, w: u64, out: *mut u16, mut pos: usize, roomy: bool| {
                if !roomy {
                    // SAFETY: the frame checked that kept elements are below n and fit the output.
                    return unsafe { word_scalar(src, base, w, out, pos) };
                }
                for q in 0..8 {
                    let k = ((w >> (8 * q)) & 0xff) as usize;
                    if k == 0 {
                        continue;
                    }
                    // SAFETY: roomy: the word's 64 elements are readable.
                    let v = unsafe { _mm_loadu_si128(src.add(base + 8 * q).cast()) };
                    // SAFETY: SHUFFLES16 rows are 16 bytes.
                    let ctrl = unsafe { _mm_loadu_si128(SHUFFLES16[k].as_ptr().cast()) };
                    let c = _mm_shuffle_epi8(v, ctrl);
                    // SAFETY: roomy; this 8-element store starts at most 56 past the word's first
                    // position.
                    unsafe { _mm_storeu_si128(out.add(pos).cast(), c) };
                    pos += k.count_ones() as usize;
                }
                pos
            };
        // SAFETY: as in w32_avx2.
        unsafe { for_each_word(values, words, dst, 6, body) }
    }

    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn w8_avx2(values: &[u8], words: &[u64], dst: &mut [MaybeUninit<u8>]) -> usize {
        let body =
            |src: *const u8, base: usize, w: u64, out: *mut u8, mut pos: usize, roomy: bool| {
                if !roomy {
                    // SAFETY: the frame checked that kept elements are below n and fit the output.
                    return unsafe { word_scalar(src, base, w, out, pos) };
                }
                for q in 0..8 {
                    let k = ((w >> (8 * q)) & 0xff) as usize;
                    if k == 0 {
                        continue;
                    }
                    // SAFETY: roomy: the word's 64 bytes are readable.
                    let v = unsafe { _mm_loadl_epi64(src.add(base + 8 * q).cast()) };
                    let c = _mm_shuffle_epi8(v, _mm_cvtsi64_si128(POSITIONS8[k] as i64));
                    // SAFETY: roomy; this 8-byte store starts at most 56 past the word's first
                    // position.
                    unsafe { _mm_storel_epi64(out.add(pos).cast(), c) };
                    pos += k.count_ones() as usize;
                }
                pos
            };
        // SAFETY: as in w32_avx2.
        unsafe { for_each_word(values, words, dst, 6, body) }
    }
    /// Byte flags (at most 64 per word, `words.len()` words) as mask words, nonzero keeps.
    pub(super) fn flags_to_words(level: Level, flags: &[u8], words: &mut [u64]) {
        if level >= Level::Avx512 && is_x86_feature_detected!("avx512bw") {
            // SAFETY: AVX-512F and AVX-512BW present (checked).
            unsafe { flags_to_words_avx512(flags, words) }
        } else {
            // SAFETY: every level above Portable implies AVX2 (Level::available).
            unsafe { flags_to_words_avx2(flags, words) }
        }
    }

    /// # Safety
    /// The CPU supports AVX-512F and AVX-512BW.
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn flags_to_words_avx512(flags: &[u8], words: &mut [u64]) {
        for (w, chunk) in words.iter_mut().zip(flags.chunks(64)) {
            *w = if chunk.len() == 64 {
                // SAFETY: the chunk holds 64 readable bytes.
                let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
                _mm512_test_epi8_mask(v, v)
            } else {
                flags_to_bits(chunk)
            };
        }
    }

    /// # Safety
    /// The CPU supports AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn flags_to_words_avx2(flags: &[u8], words: &mut [u64]) {
        let zero = _mm256_setzero_si256();
        for (w, chunk) in words.iter_mut().zip(flags.chunks(64)) {
            *w = if chunk.len() == 64 {
                // SAFETY: the chunk holds 64 readable bytes: two 32-byte loads.
                let (a, b) = unsafe {
                    (
                        _mm256_loadu_si256(chunk.as_ptr().cast()),
                        _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
                    )
                };
                let za = _mm256_movemask_epi8(_mm256_cmpeq_epi8(a, zero)) as u32;
                let zb = _mm256_movemask_epi8(_mm256_cmpeq_epi8(b, zero)) as u32;
                !(u64::from(za) | (u64::from(zb) << 32))
            } else {
                flags_to_bits(chunk)
            };
        }
    }
}
