//! Quantization and the exact bound check, shared by the encoder, the decoder and `compare`.
//!
//! Every operation here is one IEEE-754 operation in round-to-nearest-even (Rust never fuses a
//! multiply and an add), so that every decoder reconstructs the same bits.

/// The float types the codec takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Float {
    /// IEEE binary32.
    F32,
    /// IEEE binary64.
    F64,
}

impl Float {
    /// Bytes per value.
    pub fn size(self) -> usize {
        match self {
            Float::F32 => 4,
            Float::F64 => 8,
        }
    }

    /// The value at `bytes` (little-endian, exactly `size()` bytes) as its bits and as an f64
    /// (exact for both types).
    #[inline]
    pub fn load(self, bytes: &[u8]) -> (u64, f64) {
        match self {
            Float::F32 => {
                let mut b = [0u8; 4];
                b.copy_from_slice(&bytes[..4]);
                let bits = u32::from_le_bytes(b);
                (u64::from(bits), f64::from(f32::from_bits(bits)))
            }
            Float::F64 => {
                let mut b = [0u8; 8];
                b.copy_from_slice(&bytes[..8]);
                let bits = u64::from_le_bytes(b);
                (bits, f64::from_bits(bits))
            }
        }
    }

    /// Writes the value with bit pattern `bits` at `out`.
    #[inline]
    pub fn store_bits(self, bits: u64, out: &mut [u8]) {
        match self {
            Float::F32 => out[..4].copy_from_slice(&(bits as u32).to_le_bytes()),
            Float::F64 => out[..8].copy_from_slice(&bits.to_le_bytes()),
        }
    }

    /// True for values the codec always stores exactly: NaN, infinities, -0.0 and denormals.
    #[inline]
    pub fn is_special(self, bits: u64) -> bool {
        match self {
            Float::F32 => {
                let exp = (bits >> 23) & 0xff;
                exp == 0xff || (exp == 0 && bits != 0)
            }
            Float::F64 => {
                let exp = (bits >> 52) & 0x7ff;
                exp == 0x7ff || (exp == 0 && bits != 0)
            }
        }
    }

    /// The reconstruction of pre-quantized integer `q` with step `step`: `q * step` in f64,
    /// rounded to the type; returned as its bits and as an f64.
    #[inline]
    pub fn reconstruct(self, q: i64, step: f64) -> (u64, f64) {
        let v = (q as f64) * step;
        match self {
            Float::F32 => {
                let r = v as f32;
                (u64::from(r.to_bits()), f64::from(r))
            }
            Float::F64 => (v.to_bits(), v),
        }
    }

    /// Half a unit in the last place of the type at magnitude `m`: the most rounding to the
    /// type adds near `m`.
    pub fn half_ulp(self, m: f64) -> f64 {
        let m = m.abs();
        if !m.is_finite() || m == 0.0 {
            return 0.0;
        }
        let e = exponent(m);
        let bits = match self {
            Float::F32 => 24,
            Float::F64 => 53,
        };
        pow2(e - bits)
    }
}

/// `floor(log2(m))` for a positive finite `m`.
pub fn exponent(m: f64) -> i32 {
    let bits = m.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32;
    if e == 0 {
        // Denormal: the highest set bit of the significand.
        let frac = bits & ((1u64 << 52) - 1);
        -1074 + 63 - frac.leading_zeros() as i32
    } else {
        e - 1023
    }
}

/// `2^k` as an f64, clamped to the range of f64 (0 below 2^-1074 is never returned: 2^-1074).
pub fn pow2(k: i32) -> f64 {
    let k = k.clamp(-1074, 1023);
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// A value at most `v` and within a few units in the last place of it, for bounds computed
/// from a product or a parsed decimal whose rounding might have gone up.
pub fn round_down(v: f64) -> f64 {
    if v.is_nan() || v <= 0.0 {
        return 0.0;
    }
    let v = if v.is_finite() { v } else { f64::MAX };
    v.next_down().next_down().next_down().max(0.0)
}

/// `hi - lo` rounded down (both finite).
pub fn range_down(hi: f64, lo: f64) -> f64 {
    let (s, e) = two_diff(hi, lo);
    if !s.is_finite() {
        return f64::MAX;
    }
    let r = if e < 0.0 { s.next_down() } else { s };
    r.max(0.0)
}

/// `(s, e)` with `s = fl(a - b)` and `s + e = a - b` exactly (Knuth's TwoSum).
#[inline]
pub fn two_diff(a: f64, b: f64) -> (f64, f64) {
    let s = a - b;
    let bb = s - a;
    let e = (a - (s - bb)) + (-b - bb);
    (s, e)
}

/// Whether `|x - y| <= bound` holds exactly for finite `x`, `y` and `bound >= 0`; false
/// whenever any of them is not finite.
#[inline]
pub fn within(x: f64, y: f64, bound: f64) -> bool {
    if !(x.is_finite() && y.is_finite()) {
        return false;
    }
    let (s, e) = two_diff(x, y);
    if !s.is_finite() || e.is_nan() {
        return false;
    }
    let a = s.abs();
    if a < bound {
        true
    } else if a > bound {
        false
    } else {
        // |s| == bound: |s + e| <= bound iff e is zero or points back towards zero.
        e == 0.0 || (e < 0.0) != (s < 0.0)
    }
}

/// The pre-quantized integer of `x` for `step`, `None` when it is out of the exact range.
#[inline]
pub fn prequantize(x: f64, step: f64) -> Option<i64> {
    let r = (x / step).round();
    if r.is_finite() && r.abs() <= super::format::QMAX {
        Some(r as i64)
    } else {
        None
    }
}

/// Zigzag encoding of a wrapping delta.
#[inline]
pub fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

/// Inverse of [`zigzag`].
#[inline]
pub fn unzigzag(z: u64) -> i64 {
    ((z >> 1) as i64) ^ -((z & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn within_is_exact_at_the_edge() {
        assert!(within(1.0, 0.5, 0.5));
        assert!(!within(1.0, 0.5, 0.5f64.next_down()));
        // 1e30 - 1e-30 rounds to 1e30 but is below it.
        assert!(within(1e30, 1e-30, 1e30));
        assert!(!within(1e30, -1e-30, 1e30));
        assert!(!within(f64::NAN, 0.0, 1.0));
        assert!(!within(f64::MAX, -f64::MAX, f64::MAX));
    }

    #[test]
    fn helpers() {
        assert_eq!(exponent(1.0), 0);
        assert_eq!(exponent(0.75), -1);
        assert_eq!(exponent(f64::from_bits(1)), -1074);
        assert_eq!(pow2(-1074), f64::from_bits(1));
        assert_eq!(pow2(3), 8.0);
        for d in [0i64, 1, -1, i64::MAX, i64::MIN, 12345, -987] {
            assert_eq!(unzigzag(zigzag(d)), d);
        }
        assert!(round_down(0.1) < 0.1);
        assert!(range_down(1e30, -1e-30) <= 1e30);
    }
}
