//! Unpacking a whole FOR miniblock of 32-bit values (32 values, `w` bits each, LSB first)
//! straight into its output: each value plus the block's reference, XORed back from unsigned
//! order. On x86-64 CPUs with AVX2, widths 4 to 25 take a SIMD path (four values a step: a
//! byte shuffle brings each value's four bytes into its lane, a per-lane shift and a mask cut
//! it out); every other width, and every other CPU, takes a scalar path unrolled per width.
//! Both give the bits of `cpu::unpack`.

use super::format::MINI_VALUES;

/// Decodes one full miniblock into `out`, its 32 little-endian values (128 bytes): `words`
/// holds exactly `w` little-endian words (`1 <= w <= 32`).
pub(super) fn miniblock(words: &[u8], w: u32, reference: u32, flip: u32, out: &mut [u8; 128]) {
    #[cfg(target_arch = "x86_64")]
    if (simd::MIN_WIDTH..=simd::MAX_WIDTH).contains(&(w as usize)) && simd::available() {
        // SAFETY: `available()` has just confirmed that this CPU supports AVX2 (and so SSSE3),
        // the only requirement `simd::miniblock` adds to its safe signature.
        unsafe { simd::miniblock(words, w, reference, flip, out) };
        return;
    }
    scalar(words, w, reference, flip, out);
}

/// The scalar path: one copy of the loop per width, written out value by value so that every
/// index and shift is a constant.
fn scalar(words: &[u8], w: u32, reference: u32, flip: u32, out: &mut [u8; 128]) {
    #[inline(always)]
    fn word_of(words: &[u8], k: usize) -> u64 {
        u64::from(u32::from_le_bytes([
            words[4 * k],
            words[4 * k + 1],
            words[4 * k + 2],
            words[4 * k + 3],
        ]))
    }
    #[inline(always)]
    fn fixed<const W: usize>(words: &[u8], r: u32, flip: u32, out: &mut [u8; 128]) {
        if words.len() < 4 * W {
            return;
        }
        let wmask = if W == 32 { u64::from(u32::MAX) } else { (1u64 << W) - 1 };
        macro_rules! value {
            ($($i:literal)*) => {$(
                let bit = $i * W;
                let (k, sh) = (bit / 32, bit % 32);
                let x = if sh + W <= 32 {
                    word_of(words, k) >> sh
                } else {
                    (word_of(words, k) | word_of(words, k + 1) << 32) >> sh
                };
                let v = ((x & wmask) as u32).wrapping_add(r) ^ flip;
                out[4 * $i..4 * $i + 4].copy_from_slice(&v.to_le_bytes());
            )*};
        }
        value!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    }
    macro_rules! dispatch {
        ($($n:literal)*) => {
            match w {
                $($n => fixed::<$n>(words, reference, flip, out),)*
                _ => {
                    let v = (reference ^ flip).to_le_bytes();
                    for d in out.chunks_exact_mut(4) {
                        d.copy_from_slice(&v);
                    }
                }
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::MINI_VALUES;
    use std::arch::x86_64::{
        __m128i, _mm_add_epi32, _mm_and_si128, _mm_loadu_si128, _mm_set1_epi32,
        _mm_shuffle_epi8, _mm_srlv_epi32, _mm_storeu_si128, _mm_xor_si128,
    };
    use std::sync::OnceLock;

    /// The widest values whose bits always lie within the four bytes from their first byte
    /// (a shift of at most 7 plus the width fits 32 bits).
    pub const MAX_WIDTH: usize = 25;

    /// The narrowest width whose miniblock holds a whole 16-byte load.
    pub const MIN_WIDTH: usize = 4;

    /// Whether this CPU has AVX2 (asked once).
    pub fn available() -> bool {
        static HAS: OnceLock<bool> = OnceLock::new();
        *HAS.get_or_init(|| std::arch::is_x86_feature_detected!("avx2"))
    }

    /// One group of four values: the byte of the miniblock its 16-byte load starts at, the
    /// shuffle that puts each value's four bytes in its lane, and each lane's right shift.
    #[derive(Clone, Copy)]
    struct Group {
        start: usize,
        shuffle: [u8; 16],
        shift: [u32; 4],
    }

    /// The eight groups of a width.
    type Plan = [Group; MINI_VALUES / 4];

    /// A width's groups. A group loads the 16 bytes from its first value's first byte, or,
    /// where those would run past the miniblock's `4 w` bytes, its last 16 bytes; a value's
    /// bytes past the miniblock are shuffled in as zeros (they only hold bits shifted out).
    const fn plan(w: usize) -> Plan {
        let mut plan = [Group {
            start: 0,
            shuffle: [0; 16],
            shift: [0; 4],
        }; MINI_VALUES / 4];
        let len = 4 * w;
        let mut g = 0;
        while g < MINI_VALUES / 4 {
            let mut start = (4 * g * w) / 8;
            if start + 16 > len {
                start = len - 16;
            }
            plan[g].start = start;
            let mut lane = 0;
            while lane < 4 {
                let bit = (4 * g + lane) * w;
                let mut b = 0;
                while b < 4 {
                    let byte = bit / 8 + b;
                    plan[g].shuffle[4 * lane + b] = if byte < len {
                        (byte - start) as u8
                    } else {
                        0x80
                    };
                    b += 1;
                }
                plan[g].shift[lane] = (bit % 8) as u32;
                lane += 1;
            }
            g += 1;
        }
        plan
    }

    /// The SIMD path of `super::miniblock` for `1 <= w <= MAX_WIDTH`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn miniblock(words: &[u8], w: u32, reference: u32, flip: u32, out: &mut [u8; 128]) {
        macro_rules! dispatch {
            ($($n:literal)*) => {
                match w {
                    // SAFETY: the caller guarantees AVX2, all `fixed` asks for.
                    $($n => unsafe { fixed::<$n>(words, reference, flip, out) },)*
                    _ => {}
                }
            };
        }
        dispatch!(4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25);
    }

    /// One width's SIMD unpacking, its plan a constant so that every load offset, shuffle and
    /// shift is known when it compiles.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn fixed<const W: usize>(words: &[u8], reference: u32, flip: u32, out: &mut [u8; 128]) {
        let plan: Plan = const { plan(W) };
        let Some(words) = words.get(..4 * W) else {
            return;
        };
        let mask = _mm_set1_epi32(((1u64 << W) - 1) as i32);
        let add = _mm_set1_epi32(reference as i32);
        let flip = _mm_set1_epi32(flip as i32);
        let out = out.as_mut_ptr();
        for (g, group) in plan.iter().enumerate() {
            let Some(src) = words.get(group.start..group.start + 16) else {
                return;
            };
            // SAFETY: `src` points at 16 readable bytes (above) and `out + 16 g` at 16 writable
            // bytes of the 128-byte output (g < 8); both intrinsics accept unaligned addresses;
            // the shuffle and shift tables are 16 bytes each.
            unsafe {
                let v = _mm_loadu_si128(src.as_ptr().cast::<__m128i>());
                let shuffle = _mm_loadu_si128(group.shuffle.as_ptr().cast::<__m128i>());
                let shift = _mm_loadu_si128(group.shift.as_ptr().cast::<__m128i>());
                let v = _mm_srlv_epi32(_mm_shuffle_epi8(v, shuffle), shift);
                let v = _mm_xor_si128(_mm_add_epi32(_mm_and_si128(v, mask), add), flip);
                _mm_storeu_si128(out.add(16 * g).cast::<__m128i>(), v);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Packs 32 values LSB first into `w` words' bytes.
    fn pack(values: &[u32; 32], w: usize) -> Vec<u8> {
        let mut words = vec![0u32; w];
        for (i, &v) in values.iter().enumerate() {
            for b in 0..w {
                if v >> b & 1 == 1 {
                    let bit = i * w + b;
                    words[bit / 32] |= 1 << (bit % 32);
                }
            }
        }
        words.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn both_paths_unpack_every_width() {
        let mut seed = 0x1234_5678_9abc_def0u64;
        for w in 1..=32usize {
            for round in 0..20 {
                let mut values = [0u32; 32];
                for v in values.iter_mut() {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    *v = if w == 32 {
                        seed as u32
                    } else {
                        (seed as u32) & ((1 << w) - 1)
                    };
                }
                if round == 0 {
                    values = [if w == 32 { u32::MAX } else { (1 << w) - 1 }; 32];
                }
                let words = pack(&values, w);
                let (r, flip) = (0xfff0_0000u32.wrapping_add(round), 0x8000_0000);
                let want: Vec<u32> = values
                    .iter()
                    .map(|&v| v.wrapping_add(r) ^ flip)
                    .collect();
                let want: Vec<u8> = want.iter().flat_map(|v| v.to_le_bytes()).collect();
                let mut got = [0u8; 128];
                miniblock(&words, w as u32, r, flip, &mut got);
                assert_eq!(&got[..], &want[..], "width {w}");
                let mut got = [0u8; 128];
                scalar(&words, w as u32, r, flip, &mut got);
                assert_eq!(&got[..], &want[..], "scalar, width {w}");
            }
        }
    }
}
