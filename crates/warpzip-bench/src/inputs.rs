//! Benchmark inputs generated on the machine that runs the benchmark: never all zeros, with
//! the run structure of real data (so that neither codec nor memory system sees a toy).

use rayon::prelude::*;

const BLOCK: usize = 16 << 20;

/// A small deterministic generator (xorshift64*), so inputs are the same on every machine.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn fill_parallel(n: usize, seed: u64, f: impl Fn(&mut Rng, &mut [u8]) + Sync) -> Vec<u8> {
    let mut v = vec![0u8; n];
    v.par_chunks_mut(BLOCK).enumerate().for_each(|(i, block)| {
        let mut rng = Rng(seed ^ (0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1)));
        f(&mut rng, block);
    });
    v
}

/// Runs of geometric-ish lengths (mean about 24 bytes) over 16 symbols, with literal noise:
/// like a sorted low-cardinality column or a sparse image.
pub fn runs(n: usize) -> Vec<u8> {
    fill_parallel(n, 1, |rng, block| {
        let mut i = 0;
        while i < block.len() {
            let kind = rng.below(8);
            let len = match kind {
                0..=4 => 3 + rng.below(40) as usize,
                5 => 1 + rng.below(3) as usize,
                6 => 40 + rng.below(400) as usize,
                _ => 1 + rng.below(24) as usize,
            };
            let end = (i + len).min(block.len());
            if kind == 7 {
                for b in &mut block[i..end] {
                    *b = rng.next() as u8;
                }
            } else {
                let value = rng.below(16) as u8 + 1;
                block[i..end].fill(value);
            }
            i = end;
        }
    })
}

/// Long runs (hundreds to thousands of bytes): a mostly-empty bitmap or a fax image.
pub fn long_runs(n: usize) -> Vec<u8> {
    fill_parallel(n, 2, |rng, block| {
        let mut i = 0;
        while i < block.len() {
            let len = 200 + rng.below(8000) as usize;
            let end = (i + len).min(block.len());
            let value = if rng.below(4) == 0 {
                rng.next() as u8
            } else {
                0xff
            };
            block[i..end].fill(value);
            i = end;
        }
    })
}

/// Incompressible bytes: the encoder's worst case.
pub fn noise(n: usize) -> Vec<u8> {
    fill_parallel(n, 3, |rng, block| {
        for word in block.chunks_mut(8) {
            let r = rng.next().to_le_bytes();
            word.copy_from_slice(&r[..word.len()]);
        }
    })
}

/// `sample` repeated until `n` bytes (for real files, such as a corpus, grown to size).
pub fn tiled(sample: &[u8], n: usize) -> Vec<u8> {
    if sample.is_empty() {
        return vec![1u8; n];
    }
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let take = (n - v.len()).min(sample.len());
        v.extend_from_slice(&sample[..take]);
    }
    v
}

/// Random u32 values below `bound`.
pub fn u32_values(n: usize, bound: u32) -> Vec<u32> {
    let bytes = fill_parallel(n * 4, 4, |rng, block| {
        for word in block.chunks_mut(8) {
            let r = rng.next().to_le_bytes();
            word.copy_from_slice(&r[..word.len()]);
        }
    });
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) % bound.max(1))
        .collect()
}
