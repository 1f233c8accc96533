//! Canonical Huffman coding of the quantization codes: code lengths from a histogram (limited
//! to [`MAX_LEN`] bits), canonical codes, an MSB-first bit writer and a table-driven decoder.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Longest code.
pub const MAX_LEN: usize = 24;
/// Bits the decoder's first-level table resolves at once.
const TABLE_BITS: usize = 11;

/// Code lengths (0 for an unused symbol) of a Huffman code for `freq`, at most [`MAX_LEN`]
/// bits. A single used symbol gets length 1. Deterministic: ties go to the lower node number.
pub fn code_lengths(freq: &[u64]) -> Vec<u8> {
    let mut lengths = vec![0u8; freq.len()];
    let used: Vec<usize> = (0..freq.len()).filter(|&s| freq[s] > 0).collect();
    match used.len() {
        0 => return lengths,
        1 => {
            lengths[used[0]] = 1;
            return lengths;
        }
        _ => {}
    }
    let mut weights: Vec<u64> = used.iter().map(|&s| freq[s]).collect();
    loop {
        let n = weights.len();
        let mut parent = vec![usize::MAX; 2 * n - 1];
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> =
            weights.iter().enumerate().map(|(i, &w)| Reverse((w, i))).collect();
        let mut next = n;
        while heap.len() > 1 {
            let (Some(Reverse((wa, a))), Some(Reverse((wb, b)))) = (heap.pop(), heap.pop()) else {
                break;
            };
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa.saturating_add(wb), next)));
            next += 1;
        }
        // Depths: parents are numbered after their children, so walk from the root down.
        let mut depth = vec![0usize; 2 * n - 1];
        for node in (0..2 * n - 2).rev() {
            depth[node] = depth[parent[node]] + 1;
        }
        if depth[..n].iter().all(|&d| d <= MAX_LEN) {
            for (i, &s) in used.iter().enumerate() {
                lengths[s] = depth[i] as u8;
            }
            return lengths;
        }
        // Too deep: flatten the distribution and build again.
        for w in &mut weights {
            *w = (*w >> 1).max(1);
        }
    }
}

/// Canonical codes for `lengths` (MSB-first values of `lengths[s]` bits), in symbol order
/// within each length.
pub fn canonical_codes(lengths: &[u8]) -> Vec<u32> {
    let mut count = [0u32; MAX_LEN + 1];
    for &l in lengths {
        count[usize::from(l)] += 1;
    }
    count[0] = 0;
    let mut next = [0u32; MAX_LEN + 2];
    let mut code = 0u32;
    for len in 1..=MAX_LEN {
        code = (code + count[len - 1]) << 1;
        next[len] = code;
    }
    lengths
        .iter()
        .map(|&l| {
            if l == 0 {
                0
            } else {
                let c = next[usize::from(l)];
                next[usize::from(l)] += 1;
                c
            }
        })
        .collect()
}

/// MSB-first bit writer.
#[derive(Default)]
pub struct BitWriter {
    /// Whole bytes written.
    pub bytes: Vec<u8>,
    acc: u64,
    nacc: u32,
    /// Bits written in all.
    pub bits: u64,
}

impl BitWriter {
    /// Appends the low `len` bits of `code`, most significant first (`len <= 32`).
    #[inline]
    pub fn put(&mut self, code: u32, len: u32) {
        self.acc = (self.acc << len) | u64::from(code);
        self.nacc += len;
        self.bits += u64::from(len);
        while self.nacc >= 8 {
            self.nacc -= 8;
            self.bytes.push((self.acc >> self.nacc) as u8);
        }
        self.acc &= (1u64 << self.nacc) - 1;
    }

    /// Flushes the last partial byte (zero-padded) and returns the bytes.
    pub fn finish(mut self) -> Vec<u8> {
        if self.nacc > 0 {
            self.bytes.push((self.acc << (8 - self.nacc)) as u8);
        }
        self.bytes
    }
}

/// A decoder for a canonical code, `None` when the lengths over-subscribe the code space.
pub struct Decoder {
    count: [u32; MAX_LEN + 1],
    /// Symbols sorted by (length, symbol).
    sorted: Vec<u16>,
    /// First-level table: `(symbol << 8) | length`, or 0 for "longer than TABLE_BITS or none".
    table: Vec<u32>,
}

impl Decoder {
    /// Builds the decoder; `None` for over-subscribed lengths or a length above [`MAX_LEN`].
    pub fn new(lengths: &[(u16, u8)]) -> Option<Decoder> {
        let mut count = [0u32; MAX_LEN + 1];
        for &(_, l) in lengths {
            if l == 0 || usize::from(l) > MAX_LEN {
                return None;
            }
            count[usize::from(l)] += 1;
        }
        // Kraft: sum 2^-l <= 1.
        let mut left: i64 = 1;
        for &c in &count[1..] {
            left = left * 2 - i64::from(c);
            if left < 0 {
                return None;
            }
        }
        let mut sorted: Vec<(u8, u16)> = lengths.iter().map(|&(s, l)| (l, s)).collect();
        sorted.sort_unstable();
        let syms: Vec<u16> = sorted.iter().map(|&(_, s)| s).collect();
        let mut all = vec![0u8; syms.iter().map(|&s| usize::from(s) + 1).max().unwrap_or(0)];
        for &(s, l) in lengths {
            all[usize::from(s)] = l;
        }
        let codes = canonical_codes(&all);
        let mut table = vec![0u32; 1 << TABLE_BITS];
        for &(s, l) in lengths {
            let l = usize::from(l);
            if l <= TABLE_BITS {
                let first = (codes[usize::from(s)] as usize) << (TABLE_BITS - l);
                for e in &mut table[first..first + (1 << (TABLE_BITS - l))] {
                    *e = (u32::from(s) << 8) | l as u32;
                }
            }
        }
        Some(Decoder {
            count,
            sorted: syms,
            table,
        })
    }

    /// The reverse codebook as a GPU decoder takes it: the code count of each length (index
    /// 0 unused), the symbols sorted by (length, symbol), and the first-level table of
    /// `2^TABLE_BITS` entries, `(symbol << 8) | length` or 0 (see [`Decoder::decode`]).
    pub fn parts(&self) -> (&[u32], &[u16], &[u32]) {
        (&self.count, &self.sorted, &self.table)
    }

    /// Decodes one symbol from `r`; `None` at the end of the bits or on an unassigned code.
    #[inline]
    pub fn decode(&self, r: &mut BitReader<'_>) -> Option<u16> {
        let peek = r.peek(TABLE_BITS as u32) as usize;
        let e = self.table[peek];
        if e != 0 {
            let len = e & 0xff;
            if !r.skip(len) {
                return None;
            }
            return Some((e >> 8) as u16);
        }
        // Slow path, bit by bit (canonical decoding by counts).
        let (mut code, mut first, mut index) = (0u32, 0u32, 0u32);
        for len in 1..=MAX_LEN {
            code |= r.bit()?;
            let count = self.count[len];
            if code.wrapping_sub(first) < count {
                return self.sorted.get((index + code - first) as usize).copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// MSB-first bit reader over `data[.. bits]`.
pub struct BitReader<'a> {
    data: &'a [u8],
    pos: u64,
    end: u64,
}

impl<'a> BitReader<'a> {
    /// Reads bits `[start, end)` of `data` (`end <= 8 * data.len()` is the caller's check).
    pub fn new(data: &'a [u8], start: u64, end: u64) -> BitReader<'a> {
        BitReader {
            data,
            pos: start,
            end: end.min(data.len() as u64 * 8),
        }
    }

    /// The bit position.
    pub fn pos(&self) -> u64 {
        self.pos
    }

    /// The next bit, `None` at the end.
    #[inline]
    pub fn bit(&mut self) -> Option<u32> {
        if self.pos >= self.end {
            return None;
        }
        let b = self.data[(self.pos >> 3) as usize] >> (7 - (self.pos & 7));
        self.pos += 1;
        Some(u32::from(b & 1))
    }

    /// The next `n` bits (`n <= 24`) without consuming them, zeros past the end.
    #[inline]
    pub fn peek(&self, n: u32) -> u32 {
        let mut v = 0u32;
        let byte = (self.pos >> 3) as usize;
        let mut w = [0u8; 4];
        for (i, slot) in w.iter_mut().enumerate() {
            *slot = self.data.get(byte + i).copied().unwrap_or(0);
        }
        let word = u32::from_be_bytes(w) << (self.pos & 7);
        v |= word >> (32 - n);
        // Bits at or past the end read as zero.
        let avail = self.end.saturating_sub(self.pos);
        if avail < u64::from(n) {
            let keep = avail as u32;
            let mask = if keep == 0 {
                0
            } else {
                !0u32 << (n - keep) & ((1u32 << n) - 1)
            };
            v &= mask;
        }
        v
    }

    /// Consumes `n` bits; false when fewer remain.
    #[inline]
    pub fn skip(&mut self, n: u32) -> bool {
        if self.end - self.pos < u64::from(n) {
            return false;
        }
        self.pos += u64::from(n);
        true
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limit() {
        // Fibonacci frequencies force deep trees.
        let mut freq = vec![0u64; 60];
        let (mut a, mut b) = (1u64, 1u64);
        for f in freq.iter_mut() {
            *f = a;
            let c = a.saturating_add(b);
            a = b;
            b = c;
        }
        let lengths = code_lengths(&freq);
        assert!(lengths.iter().all(|&l| l >= 1 && usize::from(l) <= MAX_LEN));
        let codes = canonical_codes(&lengths);
        let mut w = BitWriter::default();
        let msg: Vec<u16> = (0..2000u32).map(|i| ((i * 7919) % 60) as u16).collect();
        for &s in &msg {
            w.put(codes[usize::from(s)], u32::from(lengths[usize::from(s)]));
        }
        let bits = w.bits;
        let bytes = w.finish();
        let pairs: Vec<(u16, u8)> = (0..60).map(|s| (s as u16, lengths[s])).collect();
        let d = Decoder::new(&pairs).expect("valid lengths");
        let mut r = BitReader::new(&bytes, 0, bits);
        for &s in &msg {
            assert_eq!(d.decode(&mut r), Some(s));
        }
        assert_eq!(r.pos(), bits);
        assert_eq!(d.decode(&mut r), None);
    }

    #[test]
    fn single_symbol_and_oversubscribed() {
        let l = code_lengths(&[0, 5, 0]);
        assert_eq!(l, vec![0, 1, 0]);
        assert!(Decoder::new(&[(0, 1), (1, 1), (2, 1)]).is_none());
    }
}
