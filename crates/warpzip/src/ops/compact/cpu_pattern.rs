//! The CPU fast path for patterned masks. A pattern of period p keeps the same positions of
//! every 16-byte segment of values whose index is equal modulo `lcm(p, e) / e` (e elements per
//! segment), so each such segment class gets one precomputed byte shuffle and kept-byte count.
//! A chunk is then one load, one `pshufb` and one unaligned 16-byte store per segment, whatever
//! the element type; the spare bytes of a store are overwritten by the next one, and the last
//! segments of a region (where 16 bytes would not fit) are finished element by element.

use super::{CompactElem, Pattern};
use std::mem::MaybeUninit;

/// Longest table built (segment classes); longer cycles use the mask-word path.
const MAX_CLASSES: usize = 4096;

/// Per segment class: the `pshufb` control that packs its kept bytes first (0x80: zero) and how
/// many bytes it keeps.
pub(crate) struct PatternShuffles {
    ctrl: Vec<[u8; 16]>,
    kept_bytes: Vec<u8>,
    /// Elements per 16-byte segment.
    per_seg: usize,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl PatternShuffles {
    /// The table for elements of `size` bytes (1, 2, 4 or 8), or None when the cycle of segment
    /// classes is longer than `MAX_CLASSES`.
    pub(crate) fn new(pattern: &Pattern, size: usize) -> Option<PatternShuffles> {
        if !matches!(size, 1 | 2 | 4 | 8) {
            return None;
        }
        let per_seg = 16 / size;
        let p = pattern.period();
        let classes = p / gcd(p, per_seg); // lcm(p, per_seg) / per_seg
        if classes == 0 || classes > MAX_CLASSES {
            return None;
        }
        let flags = pattern.flags();
        let mut ctrl = Vec::with_capacity(classes);
        let mut kept_bytes = Vec::with_capacity(classes);
        for c in 0..classes {
            let mut row = [0x80u8; 16];
            let mut at = 0usize;
            for e in 0..per_seg {
                if flags[(c * per_seg + e) % p] {
                    for b in 0..size {
                        row[at] = (e * size + b) as u8;
                        at += 1;
                    }
                }
            }
            ctrl.push(row);
            kept_bytes.push(at as u8);
        }
        Some(PatternShuffles {
            ctrl,
            kept_bytes,
            per_seg,
        })
    }

    /// Compacts `values`, which start at element `start` of the whole input (a multiple of 16),
    /// by `pattern` into `dst` with SSSE3 shuffles; returns (values consumed, elements written).
    /// The caller finishes the rest element by element. Returns (0, 0) without SSSE3.
    pub(crate) fn compact<T: CompactElem>(
        &self,
        values: &[T],
        start: usize,
        dst: &mut [MaybeUninit<T>],
    ) -> (usize, usize) {
        let size = std::mem::size_of::<T>();
        if 16 / size != self.per_seg || !start.is_multiple_of(self.per_seg) {
            return (0, 0);
        }
        #[cfg(target_arch = "x86_64")]
        {
            if is_x86_feature_detected!("ssse3") {
                let class0 = (start / self.per_seg) % self.ctrl.len();
                // SAFETY: SSSE3 is present (checked); the kernel reads whole segments of
                // `values` and writes 16-byte stores only where they fit inside `dst`.
                let (segs, bytes) = unsafe {
                    x86::shuffle_segments(
                        values.as_ptr().cast::<u8>(),
                        std::mem::size_of_val(values),
                        dst.as_mut_ptr().cast::<u8>(),
                        dst.len() * size,
                        class0,
                        &self.ctrl,
                        &self.kept_bytes,
                    )
                };
                return (segs * self.per_seg, bytes / size);
            }
        }
        let _ = (values, dst);
        (0, 0)
    }
}

/// Finishes a pattern compaction element by element: values[from..] (element `start + from` of
/// the input onward) into dst[pos..]; returns the elements written in all.
pub(crate) fn finish_scalar<T: CompactElem>(
    pattern: &Pattern,
    values: &[T],
    start: usize,
    from: usize,
    dst: &mut [MaybeUninit<T>],
    mut pos: usize,
) -> usize {
    let p = pattern.period();
    let flags = pattern.flags();
    let mut r = (start + from) % p;
    for &v in values.iter().skip(from) {
        if flags[r] {
            match dst.get_mut(pos) {
                Some(slot) => {
                    slot.write(v);
                    pos += 1;
                }
                None => return pos,
            }
        }
        r += 1;
        if r == p {
            r = 0;
        }
    }
    pos
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// Shuffles 16-byte segments of `src` (src_len bytes) into `dst` (dst_len bytes) while a
    /// whole segment remains and a 16-byte store fits; returns (segments, bytes written).
    ///
    /// # Safety
    /// The CPU supports SSSE3; `src` is readable for `src_len` bytes and `dst` writable for
    /// `dst_len` bytes; `ctrl` and `kept` have the same nonzero length and `class0` is below it.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn shuffle_segments(
        src: *const u8,
        src_len: usize,
        dst: *mut u8,
        dst_len: usize,
        class0: usize,
        ctrl: &[[u8; 16]],
        kept: &[u8],
    ) -> (usize, usize) {
        let classes = ctrl.len().min(kept.len());
        let mut class = class0;
        let mut pos = 0usize;
        let mut seg = 0usize;
        while (seg + 1) * 16 <= src_len && pos + 16 <= dst_len && class < classes {
            // SAFETY: the segment lies inside src (checked above); the control is 16 bytes.
            let v = unsafe { _mm_loadu_si128(src.add(seg * 16).cast()) };
            // SAFETY: a control row is 16 bytes and `class` is below `classes`.
            let c = unsafe { _mm_loadu_si128(ctrl[class].as_ptr().cast()) };
            // SAFETY: pos + 16 <= dst_len (checked above).
            unsafe { _mm_storeu_si128(dst.add(pos).cast(), _mm_shuffle_epi8(v, c)) };
            pos += usize::from(kept[class]);
            seg += 1;
            class += 1;
            if class == classes {
                class = 0;
            }
        }
        (seg, pos)
    }
}
