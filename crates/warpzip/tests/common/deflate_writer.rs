//! A hand-written Deflate (RFC 1951) bit writer for crafting test streams: stored, fixed and
//! dynamic blocks from explicit tokens or code lengths, and deliberately invalid things
//! (reserved block types, bad LEN/NLEN, over-subscribed or incomplete tables, reserved symbols,
//! raw bits anywhere). It checks nothing on purpose: the tests decide what is valid.
//! Included by the deflate tests with `#[path = "common/deflate_writer.rs"] mod deflate_writer;`.
#![allow(dead_code, clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Lengths 3..=258: base length of symbols 257..=285.
pub const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
/// Extra bits of symbols 257..=285.
pub const LEN_EXTRA: [u32; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// Base distance of distance codes 0..=29.
pub const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
/// Extra bits of distance codes 0..=29.
pub const DIST_EXTRA: [u32; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order in which the code-length code's lengths are written.
pub const CL_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// (symbol, extra bits, extra value) of a match length 3..=258.
pub fn length_symbol(len: u16) -> (u16, u32, u32) {
    assert!((3..=258).contains(&len), "match length {len}");
    if len == 258 {
        return (285, 0, 0);
    }
    let i = LEN_BASE.iter().rposition(|&b| b <= len).unwrap();
    (257 + i as u16, LEN_EXTRA[i], u32::from(len - LEN_BASE[i]))
}

/// (code, extra bits, extra value) of a distance 1..=32768.
pub fn distance_code(dist: u16) -> (u16, u32, u32) {
    assert!((1..=32768).contains(&dist), "distance {dist}");
    let i = DIST_BASE.iter().rposition(|&b| b <= dist).unwrap();
    (i as u16, DIST_EXTRA[i], u32::from(dist - DIST_BASE[i]))
}

/// Bits packed least significant first, as Deflate does.
#[derive(Default, Clone)]
pub struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    nbits: u32,
}

impl BitWriter {
    /// The low `n` bits of `value` (n ≤ 32), least significant first.
    pub fn bits(&mut self, value: u32, n: u32) {
        assert!(n <= 32);
        if n == 0 {
            return;
        }
        self.acc |= (u64::from(value) & ((1u64 << n) - 1)) << self.nbits;
        self.nbits += n;
        while self.nbits >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.nbits -= 8;
        }
    }

    /// A Huffman code of `len` bits: written most significant bit first.
    pub fn huff(&mut self, code: u32, len: u32) {
        for i in (0..len).rev() {
            self.bits((code >> i) & 1, 1);
        }
    }

    /// Zero bits up to the next byte boundary.
    pub fn align(&mut self) {
        if self.nbits > 0 {
            self.bits(0, 8 - self.nbits);
        }
    }

    /// Whole bytes, at a byte boundary.
    pub fn bytes(&mut self, data: &[u8]) {
        assert_eq!(self.nbits, 0, "bytes() off a byte boundary");
        self.out.extend_from_slice(data);
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.out.len() * 8 + self.nbits as usize
    }

    /// The bytes, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        self.align();
        self.out
    }
}

/// A Huffman code from code lengths, canonical as RFC 1951 3.2.2 builds it. Over-subscribed
/// lengths give (truncated) codes too: the writer writes whatever it is told.
#[derive(Clone, Debug)]
pub struct Table {
    pub lens: Vec<u8>,
    pub codes: Vec<u32>,
}

impl Table {
    pub fn new(lens: &[u8]) -> Table {
        let mut count = [0u32; 16];
        for &l in lens {
            assert!(l <= 15, "code length {l}");
            count[l as usize] += 1;
        }
        count[0] = 0;
        let mut next = [0u32; 16];
        let mut code = 0u32;
        for bits in 1..16 {
            code = (code + count[bits - 1]) << 1;
            next[bits] = code;
        }
        let codes = lens
            .iter()
            .map(|&l| {
                if l == 0 {
                    return 0;
                }
                let c = next[l as usize] & ((1u32 << l) - 1);
                next[l as usize] += 1;
                c
            })
            .collect();
        Table {
            lens: lens.to_vec(),
            codes,
        }
    }

    /// Writes symbol `sym`, which must have a code.
    pub fn put(&self, w: &mut BitWriter, sym: usize) {
        let len = *self.lens.get(sym).unwrap_or(&0);
        assert!(len > 0, "symbol {sym} has no code in this table");
        w.huff(self.codes[sym], u32::from(len));
    }

    /// Σ 2^-len, scaled by 2^15: 32768 for a complete code.
    pub fn kraft(&self) -> u32 {
        self.lens
            .iter()
            .filter(|&&l| l > 0)
            .map(|&l| 1u32 << (15 - l))
            .sum()
    }
}

/// The literal/length code lengths of fixed-Huffman blocks (all 288 symbols).
pub fn fixed_lit_lens() -> Vec<u8> {
    let mut l = vec![8u8; 144];
    l.resize(256, 9);
    l.resize(280, 7);
    l.resize(288, 8);
    l
}

/// The distance code lengths of fixed-Huffman blocks (all 32 codes).
pub fn fixed_dist_lens() -> Vec<u8> {
    vec![5u8; 32]
}

/// What a compressed block carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Lit(u8),
    /// A back-reference: `len` 3..=258, `dist` 1..=32768 (never checked against the output).
    Match {
        len: u16,
        dist: u16,
    },
    /// Any literal/length symbol (286 and 287 included) with explicit extra bits.
    LitLenSym {
        sym: u16,
        extra: u32,
        nextra: u32,
    },
    /// Any distance symbol (30 and 31 included) with explicit extra bits.
    DistSym {
        sym: u16,
        extra: u32,
        nextra: u32,
    },
    /// Raw bits, least significant first (e.g. a code pattern no symbol owns).
    Bits {
        value: u32,
        n: u32,
    },
}

impl Token {
    /// The bytes this token adds to `out` (literals and in-range matches only).
    pub fn apply(&self, out: &mut Vec<u8>) {
        match *self {
            Token::Lit(b) => out.push(b),
            Token::Match { len, dist } => {
                let start = out.len() - dist as usize;
                for i in 0..len as usize {
                    out.push(out[start + i]);
                }
            }
            _ => panic!("apply() of a raw token"),
        }
    }
}

/// One symbol of the code-length sequence: 0..=15 a length, 16 (repeat previous 3..=6, 2 extra
/// bits), 17 (zeros 3..=10, 3 bits), 18 (zeros 11..=138, 7 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClSym {
    pub sym: u8,
    pub extra: u32,
}

impl ClSym {
    pub fn nextra(&self) -> u32 {
        match self.sym {
            16 => 2,
            17 => 3,
            18 => 7,
            _ => 0,
        }
    }
}

/// Run-length codes the code lengths `lens` with 16/17/18, as encoders do.
pub fn rle_code_lengths(lens: &[u8]) -> Vec<ClSym> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lens.len() {
        let l = lens[i];
        let mut run = 1;
        while i + run < lens.len() && lens[i + run] == l {
            run += 1;
        }
        i += run;
        if l == 0 {
            while run >= 11 {
                let k = run.min(138);
                out.push(ClSym {
                    sym: 18,
                    extra: (k - 11) as u32,
                });
                run -= k;
            }
            if run >= 3 {
                out.push(ClSym {
                    sym: 17,
                    extra: (run - 3) as u32,
                });
                run = 0;
            }
        } else {
            out.push(ClSym { sym: l, extra: 0 });
            run -= 1;
            while run >= 3 {
                let k = run.min(6);
                out.push(ClSym {
                    sym: 16,
                    extra: (k - 3) as u32,
                });
                run -= k;
            }
        }
        for _ in 0..run {
            out.push(ClSym { sym: l, extra: 0 });
        }
    }
    out
}

/// Huffman code lengths for `freqs`, none longer than `limit` (frequencies are halved until
/// the tree fits). One used symbol gets length 1; unused symbols get 0.
pub fn huffman_lengths(freqs: &[u64], limit: u8) -> Vec<u8> {
    let used = freqs.iter().filter(|&&f| f > 0).count();
    let mut lens = vec![0u8; freqs.len()];
    if used == 0 {
        return lens;
    }
    if used == 1 {
        lens[freqs.iter().position(|&f| f > 0).unwrap()] = 1;
        return lens;
    }
    assert!(
        used <= 1 << limit,
        "{used} symbols cannot fit in {limit}-bit codes"
    );
    let mut f: Vec<u64> = freqs.to_vec();
    loop {
        // Nodes: leaves 0..n, then internal nodes; parent links give depths.
        let n = f.len();
        let mut parent = vec![usize::MAX; 2 * n];
        let mut heap = BinaryHeap::new();
        for (i, &w) in f.iter().enumerate() {
            if w > 0 {
                heap.push(Reverse((w, i)));
            }
        }
        let mut next = n;
        while heap.len() > 1 {
            let Reverse((wa, a)) = heap.pop().unwrap();
            let Reverse((wb, b)) = heap.pop().unwrap();
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa + wb, next)));
            next += 1;
        }
        let mut max = 0;
        for i in 0..n {
            if f[i] == 0 {
                continue;
            }
            let mut d = 0u8;
            let mut at = i;
            while parent[at] != usize::MAX {
                at = parent[at];
                d += 1;
            }
            lens[i] = d;
            max = max.max(d);
        }
        if max <= limit {
            return lens;
        }
        for w in f.iter_mut().filter(|w| **w > 0) {
            *w = (*w >> 1) | 1;
        }
    }
}

/// The header of a dynamic block, with knobs for writing invalid ones.
#[derive(Clone, Debug, Default)]
pub struct Dynamic {
    /// Literal/length code lengths; HLIT = len − 257 (up to 288 symbols: HLIT 31).
    pub lit_lens: Vec<u8>,
    /// Distance code lengths; HDIST = len − 1 (up to 32 codes).
    pub dist_lens: Vec<u8>,
    /// The code-length code's 19 lengths instead of a Huffman code of the sequence.
    pub precode_lens: Option<[u8; 19]>,
    /// How many precode lengths to write (4..=19) instead of trimming trailing zeros.
    pub hclen: Option<usize>,
    /// The code-length sequence instead of `rle_code_lengths(lit_lens ++ dist_lens)`.
    pub sequence: Option<Vec<ClSym>>,
}

impl Dynamic {
    /// Code lengths that make complete codes for the tokens' symbols (plus end-of-block).
    pub fn for_tokens(tokens: &[Token]) -> Dynamic {
        let mut lf = vec![0u64; 286];
        let mut df = vec![0u64; 30];
        lf[256] = 1;
        for t in tokens {
            match *t {
                Token::Lit(b) => lf[b as usize] += 1,
                Token::Match { len, dist } => {
                    lf[length_symbol(len).0 as usize] += 1;
                    df[distance_code(dist).0 as usize] += 1;
                }
                _ => panic!("for_tokens() of a raw token"),
            }
        }
        let mut lit_lens = huffman_lengths(&lf, 15);
        let hlit = lit_lens.iter().rposition(|&l| l > 0).unwrap_or(0) + 1;
        lit_lens.truncate(hlit.max(257));
        let mut dist_lens = huffman_lengths(&df, 15);
        let hdist = dist_lens.iter().rposition(|&l| l > 0).unwrap_or(0) + 1;
        dist_lens.truncate(hdist.max(1));
        Dynamic {
            lit_lens,
            dist_lens,
            ..Dynamic::default()
        }
    }
}

/// A Deflate stream under construction.
#[derive(Default, Clone)]
pub struct DeflateWriter {
    pub w: BitWriter,
}

impl DeflateWriter {
    pub fn new() -> DeflateWriter {
        DeflateWriter::default()
    }

    /// A block header: BFINAL and a 2-bit BTYPE (3 is reserved).
    pub fn header(&mut self, last: bool, btype: u32) {
        self.w.bits(u32::from(last), 1);
        self.w.bits(btype, 2);
    }

    /// A stored block of `data` (≤ 65535 bytes).
    pub fn stored(&mut self, last: bool, data: &[u8]) {
        let len = u16::try_from(data.len()).expect("stored block over 65535 bytes");
        self.stored_raw(last, len, !len, data);
    }

    /// A stored block with any LEN and NLEN, followed by `data` (whatever its length).
    pub fn stored_raw(&mut self, last: bool, len: u16, nlen: u16, data: &[u8]) {
        self.header(last, 0);
        self.w.align();
        self.w.bits(u32::from(len), 16);
        self.w.bits(u32::from(nlen), 16);
        self.w.bytes(data);
    }

    /// `data` as stored blocks of at most 65535 bytes; the last one final if `last`.
    pub fn stored_all(&mut self, last: bool, data: &[u8]) {
        if data.is_empty() {
            self.stored(last, data);
        }
        let n = data.chunks(65535).count();
        for (i, c) in data.chunks(65535).enumerate() {
            self.stored(last && i + 1 == n, c);
        }
    }

    /// Writes tokens with the given codes.
    pub fn tokens(&mut self, lit: &Table, dist: &Table, tokens: &[Token]) {
        for t in tokens {
            match *t {
                Token::Lit(b) => lit.put(&mut self.w, b as usize),
                Token::Match { len, dist: d } => {
                    let (sym, n, v) = length_symbol(len);
                    lit.put(&mut self.w, sym as usize);
                    self.w.bits(v, n);
                    let (code, n, v) = distance_code(d);
                    dist.put(&mut self.w, code as usize);
                    self.w.bits(v, n);
                }
                Token::LitLenSym { sym, extra, nextra } => {
                    lit.put(&mut self.w, sym as usize);
                    self.w.bits(extra, nextra);
                }
                Token::DistSym { sym, extra, nextra } => {
                    dist.put(&mut self.w, sym as usize);
                    self.w.bits(extra, nextra);
                }
                Token::Bits { value, n } => self.w.bits(value, n),
            }
        }
    }

    /// A fixed-Huffman block: the tokens, then end-of-block.
    pub fn fixed(&mut self, last: bool, tokens: &[Token]) {
        self.fixed_open(last, tokens);
        self.end_of_block(&Table::new(&fixed_lit_lens()));
    }

    /// A fixed-Huffman block without its end-of-block (write more tokens, or cut it short).
    pub fn fixed_open(&mut self, last: bool, tokens: &[Token]) {
        self.header(last, 1);
        let lit = Table::new(&fixed_lit_lens());
        let dist = Table::new(&fixed_dist_lens());
        self.tokens(&lit, &dist, tokens);
    }

    /// End-of-block (symbol 256) in `lit`.
    pub fn end_of_block(&mut self, lit: &Table) {
        lit.put(&mut self.w, 256);
    }

    /// A dynamic block's header; returns the literal/length and distance codes it declares.
    pub fn dynamic_header(&mut self, last: bool, d: &Dynamic) -> (Table, Table) {
        let nlit = d.lit_lens.len();
        let ndist = d.dist_lens.len();
        assert!((257..=288).contains(&nlit), "{nlit} literal/length lengths");
        assert!((1..=32).contains(&ndist), "{ndist} distance lengths");
        let mut all = d.lit_lens.clone();
        all.extend_from_slice(&d.dist_lens);
        let seq = d.sequence.clone().unwrap_or_else(|| rle_code_lengths(&all));
        let pre = match d.precode_lens {
            Some(p) => p.to_vec(),
            None => {
                let mut f = vec![0u64; 19];
                for s in &seq {
                    f[s.sym as usize] += 1;
                }
                // A complete code-length code needs two symbols at least (zlib refuses an
                // incomplete one): give an unused symbol a count.
                if f.iter().filter(|&&x| x > 0).count() < 2 {
                    let spare = if f[0] == 0 { 0 } else { 1 };
                    f[spare] = 1;
                }
                huffman_lengths(&f, 7)
            }
        };
        let hclen = d.hclen.unwrap_or_else(|| {
            let last_used = CL_ORDER.iter().rposition(|&s| pre[s] > 0).unwrap_or(0);
            (last_used + 1).max(4)
        });
        assert!((4..=19).contains(&hclen));
        self.header(last, 2);
        self.w.bits((nlit - 257) as u32, 5);
        self.w.bits((ndist - 1) as u32, 5);
        self.w.bits((hclen - 4) as u32, 4);
        for &s in &CL_ORDER[..hclen] {
            self.w.bits(u32::from(pre[s]), 3);
        }
        let pre_table = Table::new(&pre);
        for s in &seq {
            // An override precode may lack a symbol: write nothing for it then.
            if pre_table.lens[s.sym as usize] > 0 {
                pre_table.put(&mut self.w, s.sym as usize);
            }
            self.w.bits(s.extra, s.nextra());
        }
        (Table::new(&d.lit_lens), Table::new(&d.dist_lens))
    }

    /// A dynamic block: header, tokens, end-of-block.
    pub fn dynamic(&mut self, last: bool, d: &Dynamic, tokens: &[Token]) {
        let (lit, dist) = self.dynamic_header(last, d);
        self.tokens(&lit, &dist, tokens);
        self.end_of_block(&lit);
    }

    /// A dynamic block with codes built from the tokens.
    pub fn dynamic_auto(&mut self, last: bool, tokens: &[Token]) {
        self.dynamic(last, &Dynamic::for_tokens(tokens), tokens);
    }

    /// Bits written so far.
    pub fn bit_len(&self) -> usize {
        self.w.bit_len()
    }

    pub fn finish(self) -> Vec<u8> {
        self.w.finish()
    }
}

/// Greedy LZ77 over `data` (hash of 3 bytes, last occurrence only, window 32 KiB): tokens that
/// rebuild `data` exactly.
pub fn lz77(data: &[u8]) -> Vec<Token> {
    let mut head = vec![usize::MAX; 1 << 15];
    let hash = |p: usize| -> usize {
        let v = u32::from(data[p]) | u32::from(data[p + 1]) << 8 | u32::from(data[p + 2]) << 16;
        (v.wrapping_mul(0x9E37_79B1) >> 17) as usize
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if i + 3 <= data.len() {
            let h = hash(i);
            let cand = head[h];
            head[h] = i;
            if cand != usize::MAX && i - cand <= 32768 {
                let max = (data.len() - i).min(258);
                let mut n = 0;
                while n < max && data[cand + n] == data[i + n] {
                    n += 1;
                }
                if n >= 3 {
                    out.push(Token::Match {
                        len: n as u16,
                        dist: (i - cand) as u16,
                    });
                    for p in i + 1..(i + n).min(data.len().saturating_sub(2)) {
                        head[hash(p)] = p;
                    }
                    i += n;
                    continue;
                }
            }
        }
        out.push(Token::Lit(data[i]));
        i += 1;
    }
    out
}

/// What the tokens decode to (after `prefix`, which back-references may reach into).
pub fn expand(prefix: &[u8], tokens: &[Token]) -> Vec<u8> {
    let mut out = prefix.to_vec();
    for t in tokens {
        t.apply(&mut out);
    }
    out.split_off(prefix.len())
}
