//! Deterministic mask generators for tests and benchmarks (xorshift, so the same seed gives the
//! same mask on every machine): independent bits of a given density, Zipf-distributed runs (a
//! filter over ordered data) and bursts (a filter over time-correlated data). All return packed
//! bits, least significant first, `n.div_ceil(8)` bytes with the bits past `n` clear.

use rayon::prelude::*;

/// Elements generated per parallel block (a multiple of 64).
const BLOCK: usize = 1 << 20;

/// A small generator (xorshift64*).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator; any seed works (zero is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [0, n).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

fn pack(bits: impl Iterator<Item = bool>, n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n.div_ceil(8)];
    for (i, b) in bits.take(n).enumerate() {
        if b {
            out[i / 8] |= 1 << (i % 8);
        }
    }
    out
}

/// Each bit set independently with probability `density` (0 and 1 exact).
pub fn random(n: usize, density: f64, seed: u64) -> Vec<u8> {
    let mut out = vec![0u8; n.div_ceil(8)];
    if density <= 0.0 {
        return out;
    }
    // 2^-24 steps: a 24-bit draw below the threshold keeps the bit.
    let threshold = (density.min(1.0) * (1u64 << 24) as f64).round() as u64;
    out.par_chunks_mut(BLOCK / 8)
        .enumerate()
        .for_each(|(blk, bytes)| {
            let mut rng = Rng::new(seed ^ ((blk as u64 + 1) << 32));
            for byte in bytes.iter_mut() {
                let mut b = 0u8;
                for j in 0..8 {
                    if (rng.next_u64() >> 40) < threshold {
                        b |= 1 << j;
                    }
                }
                *byte = b;
            }
        });
    clear_tail(&mut out, n);
    out
}

/// Alternating kept and dropped runs whose lengths follow a Zipf-like power law
/// (P(len = k) ~ k^-s over 1..=max_run): many short runs, a few very long ones.
pub fn zipf_runs(n: usize, s: f64, max_run: u64, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut keep = rng.below(2) == 1;
    let mut out = vec![0u8; n.div_ceil(8)];
    let mut i = 0usize;
    let one_minus_s = 1.0 - s;
    let top = (max_run.max(1) as f64 + 1.0).powf(one_minus_s);
    while i < n {
        // Inverse CDF of the continuous power law on [1, max_run + 1).
        let u = rng.unit();
        let len = ((1.0 + u * (top - 1.0)).powf(1.0 / one_minus_s) as u64).clamp(1, max_run);
        let end = (i + len as usize).min(n);
        if keep {
            set_range(&mut out, i, end);
        }
        i = end;
        keep = !keep;
    }
    out
}

/// Mostly dropped, with bursts of `burst` elements (uniform in 1..=max_burst) of which a
/// fraction `inner` is kept, separated by gaps uniform in 0..max_gap.
pub fn bursts(n: usize, max_gap: u64, max_burst: u64, inner: f64, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = vec![0u8; n.div_ceil(8)];
    let mut i = rng.below(max_gap) as usize;
    while i < n {
        let len = 1 + rng.below(max_burst) as usize;
        let end = (i + len).min(n);
        if inner >= 1.0 {
            set_range(&mut out, i, end);
        } else {
            for k in i..end {
                if rng.unit() < inner {
                    out[k / 8] |= 1 << (k % 8);
                }
            }
        }
        i = end + rng.below(max_gap) as usize;
    }
    out
}

/// The bits of a repeating pattern over n elements.
pub fn from_pattern(flags: &[bool], n: usize) -> Vec<u8> {
    if flags.is_empty() {
        return vec![0u8; n.div_ceil(8)];
    }
    pack(flags.iter().copied().cycle(), n)
}

/// One byte per element (1 kept, 0 dropped; some kept bytes other than 1, to show that any
/// nonzero byte keeps) from packed bits.
pub fn bits_to_flags(bits: &[u8], n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| {
            let kept = bits.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1);
            if !kept {
                0
            } else if i % 7 == 3 {
                0x80
            } else {
                1
            }
        })
        .collect()
}

fn set_range(out: &mut [u8], start: usize, end: usize) {
    let mut k = start;
    while k < end && !k.is_multiple_of(8) {
        out[k / 8] |= 1 << (k % 8);
        k += 1;
    }
    if k + 8 <= end {
        out[k / 8..end / 8].fill(0xff);
        k = end / 8 * 8;
    }
    while k < end {
        out[k / 8] |= 1 << (k % 8);
        k += 1;
    }
}

fn clear_tail(out: &mut [u8], n: usize) {
    if !n.is_multiple_of(8) {
        if let Some(last) = out.last_mut() {
            *last &= (1u8 << (n % 8)) - 1;
        }
    }
}
