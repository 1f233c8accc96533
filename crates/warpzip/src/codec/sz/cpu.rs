//! The CPU reference encoder and decoder of one `sz` chunk (layout in `docs/format.md`).
//!
//! A chunk is a whole number of rows (2-D) or planes (3-D) cut into blocks; every block is
//! predicted on its own with a zero padding layer in front of it, so that blocks decode
//! independently. In a block, each value is pre-quantized to an integer `q = round(x / step)`,
//! reconstructed as the decoder will (`q * step`, rounded to the type), and checked against its
//! bound exactly; a value that fails, a special value (NaN, infinities, -0.0, denormals) or a
//! fill value is kept exactly and takes the Lorenzo prediction as its integer, so its delta is
//! zero. The Lorenzo deltas (wrapping i64) are then coded: in ratio mode as symbols of a
//! canonical Huffman code, in fast mode bit-packed at each block's width.

use super::format::{Geometry, GROUP_BLOCKS, MODE_FAST, RUN_SYMBOLS};
use super::huffman::{canonical_codes, code_lengths, BitReader, BitWriter, Decoder, MAX_LEN};
use super::quant::{
    exponent, pow2, prequantize, round_down, unzigzag, within, zigzag, Float,
};
use crate::error::ChunkStatus;
use std::borrow::Cow;

/// A chunk's first byte: coded as described here.
pub const CHUNK_CODED: u8 = 0;
/// A chunk's first byte: the values verbatim (when coding does not pay).
pub const CHUNK_VERBATIM: u8 = 1;
/// A chunk's first byte: coded with the interpolation predictor (layout 2, see `interp`).
pub const CHUNK_INTERP: u8 = 2;
/// The Huffman bits' first byte: the bits follow as they are.
pub const BITS_RAW: u8 = 0;
/// The Huffman bits' first byte: a raw Deflate stream of the bits follows.
pub const BITS_DEFLATE: u8 = 1;
/// A flag of the Huffman bits' first byte (layout 3): the code includes run symbols.
pub const BITS_RUNS: u8 = 2;

/// Everything a chunk's encoding depends on besides its values.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub float: Float,
    pub geometry: Geometry,
    /// `MODE_RATIO` or `MODE_FAST`.
    pub mode: u8,
    /// Point-wise relative bound: its `E` (each block carries its own power-of-two step).
    pub pw_rel: Option<f64>,
    /// Absolute bound enforced on every value (abs and rel).
    pub bound: f64,
    /// Quantization step (abs and rel).
    pub step: f64,
    /// Fill values' bit patterns.
    pub fills: Vec<u64>,
    /// Ratio-mode radius.
    pub radius: u16,
    /// Whether chunks may be interpolated (kind 2): layout 2 and later.
    pub interp: bool,
    /// Whether Huffman sections may code runs of the zero delta (run symbols): layout 3.
    pub runs: bool,
}

impl Ctx {
    pub(super) fn alphabet(&self) -> usize {
        2 * usize::from(self.radius) + 1 + self.fills.len()
    }
    pub(super) fn raw_symbol(&self) -> u16 {
        2 * self.radius
    }
    /// The first run symbol: the alphabet without runs.
    pub(super) fn run_base(&self) -> u16 {
        self.alphabet() as u16
    }
    /// Symbols a Huffman section may list: the alphabet, and the run symbols in layout 3.
    pub(super) fn alphabet_with_runs(&self) -> usize {
        self.alphabet() + if self.runs { usize::from(RUN_SYMBOLS) } else { 0 }
    }
}

/// Resolves a chunk's symbols, in stream order, into deltas and exact values: the symbol
/// meanings of `docs/format.md` (step 5), shared by the Lorenzo and the interpolation
/// decoders. Symbol 0 takes the next outlier and the raw symbol the next exact value, each of
/// which must sit at the symbol's position.
pub struct Resolver<'c> {
    outliers: Vec<(u32, i64)>,
    raws: Vec<(u32, u64)>,
    out_i: usize,
    raw_i: usize,
    radius: i64,
    raw_sym: u16,
    fills: &'c [u64],
}

impl<'c> Resolver<'c> {
    /// A resolver over a chunk's outliers and exact values (positions increasing).
    pub fn new(outliers: Vec<(u32, i64)>, raws: Vec<(u32, u64)>, ctx: &'c Ctx) -> Resolver<'c> {
        Resolver {
            outliers,
            raws,
            out_i: 0,
            raw_i: 0,
            radius: i64::from(ctx.radius),
            raw_sym: ctx.raw_symbol(),
            fills: &ctx.fills,
        }
    }

    /// The delta of symbol `s` at position `pos`, and the bit pattern of an exact value.
    #[inline]
    pub fn resolve(&mut self, s: u16, pos: usize) -> Result<(i64, Option<u64>), ChunkStatus> {
        if s == 0 {
            match self.outliers.get(self.out_i) {
                Some(&(p, d)) if p as usize == pos => {
                    self.out_i += 1;
                    Ok((d, None))
                }
                _ => Err(ChunkStatus::Corrupt),
            }
        } else if s < self.raw_sym {
            Ok((i64::from(s) - self.radius, None))
        } else if s == self.raw_sym {
            match self.raws.get(self.raw_i) {
                Some(&(p, b)) if p as usize == pos => {
                    self.raw_i += 1;
                    Ok((0, Some(b)))
                }
                _ => Err(ChunkStatus::Corrupt),
            }
        } else {
            let j = usize::from(s - self.raw_sym - 1);
            Ok((0, Some(*self.fills.get(j).ok_or(ChunkStatus::Corrupt)?)))
        }
    }

    /// Every outlier and exact value taken: else the chunk is corrupt.
    pub fn finish(&self) -> Result<(), ChunkStatus> {
        if self.out_i != self.outliers.len() || self.raw_i != self.raws.len() {
            return Err(ChunkStatus::Corrupt);
        }
        Ok(())
    }
}

/// The symbols of one Huffman group, run symbols expanded into the zero delta's symbol.
pub(super) struct GroupSymbols<'a, 'd> {
    decoder: &'d Decoder,
    reader: BitReader<'a>,
    end: u64,
    /// Zero-delta symbols still owed by the last run symbol.
    pending: u32,
    zero: u16,
    /// The first run symbol where the section codes runs.
    run_base: Option<u16>,
}

impl<'a, 'd> GroupSymbols<'a, 'd> {
    /// The group of bits `[start, end)` of a section (`runs`: whether it codes runs).
    pub(super) fn new(
        decoder: &'d Decoder,
        bits: &'a [u8],
        start: u64,
        end: u64,
        ctx: &Ctx,
        runs: bool,
    ) -> Self {
        GroupSymbols {
            decoder,
            reader: BitReader::new(bits, start, end),
            end,
            pending: 0,
            zero: ctx.radius,
            run_base: runs.then(|| ctx.run_base()),
        }
    }

    /// The next symbol; `Corrupt` past the group's bits or on a code not in the table.
    #[inline]
    pub(super) fn next(&mut self) -> Result<u16, ChunkStatus> {
        if self.pending > 0 {
            self.pending -= 1;
            return Ok(self.zero);
        }
        let s = self
            .decoder
            .decode(&mut self.reader)
            .ok_or(ChunkStatus::Corrupt)?;
        match self.run_base {
            Some(b) if s >= b => {
                // Run symbols are below `b + RUN_SYMBOLS` (the section's check).
                self.pending = u32::from(s - b) + 1;
                Ok(self.zero)
            }
            _ => Ok(s),
        }
    }

    /// The group ended exactly at its recorded end, no run reaching past its cells.
    pub(super) fn finish(&self) -> Result<(), ChunkStatus> {
        if self.pending != 0 || self.reader.pos() != self.end {
            return Err(ChunkStatus::Corrupt);
        }
        Ok(())
    }
}

/// One encoded chunk and how many of its values were stored outside the codes.
pub struct EncodedChunk {
    pub bytes: Vec<u8>,
    pub exceptions: u64,
    /// Whether its Huffman section codes runs (layout 3).
    pub runs: bool,
}

/// Index into a block's padded integer buffer (one zero layer in front of every axis).
#[inline]
fn pad_index(z: usize, y: usize, x: usize, py: usize, px: usize) -> usize {
    (z * py + y) * px + x
}

/// The first-order Lorenzo prediction of padded cell `(z, y, x)` (each at least 1), wrapping.
#[inline]
fn lorenzo(q: &[i64], z: usize, y: usize, x: usize, py: usize, px: usize) -> i64 {
    let at = |z, y, x| q[pad_index(z, y, x, py, px)];
    at(z - 1, y, x)
        .wrapping_add(at(z, y - 1, x))
        .wrapping_add(at(z, y, x - 1))
        .wrapping_sub(at(z - 1, y - 1, x))
        .wrapping_sub(at(z - 1, y, x - 1))
        .wrapping_sub(at(z, y - 1, x - 1))
        .wrapping_add(at(z - 1, y - 1, x - 1))
}

/// The pw-rel step exponent of a block: the largest `k` with `2^k <= E * min|x|` over the
/// block's quantizable values (0 when it has none).
fn pw_rel_exponent(e: f64, min_abs: f64) -> i16 {
    if !min_abs.is_finite() {
        return 0;
    }
    let b = round_down(e * min_abs);
    if b <= 0.0 {
        -1074
    } else {
        exponent(b) as i16
    }
}

/// What one cell became.
enum Cell {
    Coded(i64),
    Raw(u64),
    Fill(usize),
}

/// Encodes the values `data` (whole rows or planes of `ctx.geometry`) as one chunk.
/// `None` when `data` is not whole lines.
pub fn encode_chunk(data: &[u8], ctx: &Ctx) -> Option<EncodedChunk> {
    let es = ctx.float.size();
    let n = data.len() / es;
    let shape = ctx.geometry.chunk_shape(n)?;
    let (_, cy, cx) = shape;
    let blocks = ctx.geometry.blocks(shape);
    let (bz, by, bx) = ctx.geometry.block();
    let (py, px) = (by + 1, bx + 1);
    let mut qbuf = vec![0i64; (bz + 1) * py * px];
    let radius = i64::from(ctx.radius);
    let fast = ctx.mode == MODE_FAST;

    let mut symbols: Vec<u16> = Vec::new();
    let mut outliers: Vec<(u32, i64)> = Vec::new();
    let mut raws: Vec<(u32, u64)> = Vec::new();
    let mut exps: Vec<i16> = Vec::new();
    let mut bases: Vec<u64> = Vec::new();
    let mut packed: Vec<u8> = Vec::new();
    let mut widths: Vec<u8> = Vec::new();
    let mut base_widths: Vec<u8> = Vec::new();
    let mut zz: Vec<u64> = Vec::with_capacity(bz * by * bx);
    let mut pos: u32 = 0;

    for &[z0, y0, x0, dz, dy, dx] in &blocks {
        let at = |z: usize, y: usize, x: usize| ((z0 + z) * cy + (y0 + y)) * cx + (x0 + x);
        let step = match ctx.pw_rel {
            Some(e) => {
                let mut min_abs = f64::INFINITY;
                for z in 0..dz {
                    for y in 0..dy {
                        for x in 0..dx {
                            let i = at(z, y, x) * es;
                            let (bits, v) = ctx.float.load(&data[i..i + es]);
                            if v != 0.0 && !ctx.float.is_special(bits) && !ctx.fills.contains(&bits)
                            {
                                min_abs = min_abs.min(v.abs());
                            }
                        }
                    }
                }
                let k = pw_rel_exponent(e, min_abs);
                exps.push(k);
                pow2(i32::from(k))
            }
            None => ctx.step,
        };
        qbuf.iter_mut().for_each(|v| *v = 0);
        zz.clear();
        for z in 0..dz {
            for y in 0..dy {
                for x in 0..dx {
                    let i = at(z, y, x) * es;
                    let (bits, v) = ctx.float.load(&data[i..i + es]);
                    let cell = if let Some(j) = ctx.fills.iter().position(|&f| f == bits) {
                        Cell::Fill(j)
                    } else if ctx.float.is_special(bits) {
                        Cell::Raw(bits)
                    } else {
                        let bound = match ctx.pw_rel {
                            Some(e) => round_down(e * v.abs()),
                            None => ctx.bound,
                        };
                        match prequantize(v, step) {
                            Some(q) if within(v, ctx.float.reconstruct(q, step).1, bound) => {
                                Cell::Coded(q)
                            }
                            _ => Cell::Raw(bits),
                        }
                    };
                    let pi = pad_index(z + 1, y + 1, x + 1, py, px);
                    let pred = lorenzo(&qbuf, z + 1, y + 1, x + 1, py, px);
                    let delta = match cell {
                        Cell::Coded(q) => {
                            qbuf[pi] = q;
                            q.wrapping_sub(pred)
                        }
                        _ => {
                            qbuf[pi] = pred;
                            0
                        }
                    };
                    if fast {
                        match cell {
                            Cell::Coded(_) => {}
                            Cell::Raw(b) => raws.push((pos, b)),
                            Cell::Fill(j) => raws.push((pos, ctx.fills[j])),
                        }
                        zz.push(zigzag(delta));
                    } else {
                        // The first cell's delta (predicted from the padding alone) goes to the
                        // block's base; its symbol codes the rest, zero.
                        let first = z == 0 && y == 0 && x == 0;
                        let delta = if first {
                            bases.push(zigzag(if matches!(cell, Cell::Coded(_)) { delta } else { 0 }));
                            0
                        } else {
                            delta
                        };
                        let sym = match cell {
                            Cell::Coded(_) if delta > -radius && delta < radius => {
                                (delta + radius) as u16
                            }
                            Cell::Coded(_) => {
                                outliers.push((pos, delta));
                                0
                            }
                            Cell::Raw(b) => {
                                raws.push((pos, b));
                                ctx.raw_symbol()
                            }
                            Cell::Fill(j) => ctx.raw_symbol() + 1 + j as u16,
                        };
                        symbols.push(sym);
                    }
                    pos += 1;
                }
            }
        }
        if fast {
            // The first cell is predicted from the padding alone: its delta goes apart, as a
            // varint, so that it does not set the width of the others.
            let width = zz[1..].iter().map(|&v| 64 - v.leading_zeros()).max().unwrap_or(0);
            let base_width = 64 - zz[0].leading_zeros();
            widths.push(width as u8);
            base_widths.push(base_width as u8);
            pack_block(zz[0], base_width, &zz[1..], width, &mut packed);
        }
    }

    let mut out = vec![CHUNK_CODED];
    let mut runs_used = false;
    if !fast {
        put_outliers(&outliers, &mut out);
    }
    put_raw_runs(&raws, es, &mut out);
    put_exps_and_bases(&exps, &bases, &mut out);
    if fast {
        out.extend_from_slice(&widths);
        out.extend_from_slice(&base_widths);
        out.extend_from_slice(&packed);
    } else {
        let groups = blocks
            .chunks(GROUP_BLOCKS)
            .map(|g| g.iter().map(|b| b[3] * b[4] * b[5]).sum());
        runs_used = huffman_encode(&symbols, groups, ctx, &mut out);
    }
    Some(or_verbatim(
        EncodedChunk {
            bytes: out,
            exceptions: (outliers.len() + raws.len()) as u64,
            runs: runs_used,
        },
        data,
        es,
    ))
}

/// `coded`, or the values `data` verbatim where coding does not pay (`coded` longer than the
/// values).
pub(super) fn or_verbatim(coded: EncodedChunk, data: &[u8], es: usize) -> EncodedChunk {
    if coded.bytes.len() <= data.len() {
        return coded;
    }
    let mut v = Vec::with_capacity(data.len() + 1);
    v.push(CHUNK_VERBATIM);
    v.extend_from_slice(data);
    EncodedChunk {
        bytes: v,
        exceptions: (data.len() / es) as u64,
        runs: false,
    }
}

/// `b` where it is shorter than `a`, else `a` (ties keep `a`): how every choice between two
/// encodings of a chunk is made.
pub(super) fn shorter(a: EncodedChunk, b: EncodedChunk) -> EncodedChunk {
    if b.bytes.len() < a.bytes.len() {
        b
    } else {
        a
    }
}

/// Appends a ratio-mode chunk's outliers: their count, then each position (as the gap from
/// the position after the previous one) and zigzag delta, as varints.
pub(super) fn put_outliers(outliers: &[(u32, i64)], out: &mut Vec<u8>) {
    put_varint(outliers.len() as u64, out);
    let mut next = 0u32;
    for &(p, d) in outliers {
        put_varint(u64::from(p - next), out);
        put_varint(zigzag(d), out);
        next = p + 1;
    }
}

/// Appends a chunk's exact values (positions increasing) as runs of one bit pattern at
/// consecutive positions: the run count, then each run's gap, length - 1 and `es` bytes.
pub(super) fn put_raw_runs(raws: &[(u32, u64)], es: usize, out: &mut Vec<u8>) {
    let mut runs: Vec<(u32, u32, u64)> = Vec::new();
    for &(p, b) in raws {
        match runs.last_mut() {
            Some((start, len, bits)) if *bits == b && *start + *len == p => *len += 1,
            _ => runs.push((p, 1, b)),
        }
    }
    put_varint(runs.len() as u64, out);
    let mut next = 0u32;
    for &(start, len, bits) in &runs {
        put_varint(u64::from(start - next), out);
        put_varint(u64::from(len - 1), out);
        out.extend_from_slice(&bits.to_le_bytes()[..es]);
        next = start + len;
    }
}

/// Appends the blocks' pw-rel exponents (i16 each) and their bases (zigzag varints).
pub(super) fn put_exps_and_bases(exps: &[i16], bases: &[u64], out: &mut Vec<u8>) {
    for k in exps {
        out.extend_from_slice(&k.to_le_bytes());
    }
    for &b in bases {
        put_varint(b, out);
    }
}

/// Encodes `data` as [`encode_chunk`] does, or with the interpolation predictor where
/// `ctx.interp` allows it (ratio mode, `abs` or `rel`) and that is smaller.
pub fn encode_chunk_best(data: &[u8], ctx: &Ctx) -> Option<EncodedChunk> {
    let lorenzo = encode_chunk(data, ctx)?;
    if !interpolates(ctx) {
        return Some(lorenzo);
    }
    let interp = super::interp::encode_chunk_interp(data, ctx)?;
    Some(shorter(lorenzo, interp))
}

/// Whether chunks are also tried interpolated: ratio mode under `abs` or `rel` where the
/// layout allows it.
pub(super) fn interpolates(ctx: &Ctx) -> bool {
    ctx.interp && ctx.mode != MODE_FAST && ctx.pw_rel.is_none()
}

/// Appends the Huffman section of `symbols` (groups of `group_cells` cells): the used
/// symbols' lengths, each group's bit end, the bits. Where `ctx.runs` allows it and that is
/// smaller, runs of the zero delta's symbol are coded with run symbols (see [`with_runs`]).
/// Returns whether they were.
pub(super) fn huffman_encode(
    symbols: &[u16],
    group_cells: impl Iterator<Item = usize>,
    ctx: &Ctx,
    out: &mut Vec<u8>,
) -> bool {
    let groups: Vec<usize> = group_cells.collect();
    let plain = huffman_bytes(symbols, &groups, ctx.alphabet(), 0);
    let runs = ctx.runs.then(|| {
        let (coded, coded_groups) = with_runs(symbols, &groups, ctx);
        huffman_bytes(&coded, &coded_groups, ctx.alphabet_with_runs(), BITS_RUNS)
    });
    put_section(plain, runs, out)
}

/// Appends the shorter of a chunk's two Huffman sections, the one without run symbols and,
/// where the layout allows them, the one with (ties keep the first); returns whether the one
/// with run symbols was taken.
pub(super) fn put_section(plain: Vec<u8>, runs: Option<Vec<u8>>, out: &mut Vec<u8>) -> bool {
    match runs {
        Some(runs) if runs.len() < plain.len() => {
            out.extend_from_slice(&runs);
            true
        }
        _ => {
            out.extend_from_slice(&plain);
            false
        }
    }
}

/// `symbols` with every run of `L >= 2` zero-delta symbols inside a group replaced by run
/// symbols (run symbol `k`: `k + 2` cells), runs of the longest first while at least 2 cells
/// are left, then a single zero-delta symbol for a remainder of one; and each group's symbol
/// count.
pub fn with_runs(symbols: &[u16], group_cells: &[usize], ctx: &Ctx) -> (Vec<u16>, Vec<usize>) {
    let zero = ctx.radius;
    let base = ctx.run_base();
    let mut coded = Vec::with_capacity(symbols.len() / 2);
    let mut counts = Vec::with_capacity(group_cells.len());
    let mut at = 0usize;
    for &cells in group_cells {
        let before = coded.len();
        let group = &symbols[at..at + cells];
        let mut i = 0usize;
        while i < group.len() {
            if group[i] != zero {
                coded.push(group[i]);
                i += 1;
                continue;
            }
            let run = group[i..].iter().take_while(|&&s| s == zero).count();
            i += run;
            let mut left = run;
            let most = usize::from(RUN_SYMBOLS) + 1;
            while left >= 2 {
                let len = left.min(most);
                coded.push(base + (len - 2) as u16);
                left -= len;
            }
            if left == 1 {
                coded.push(zero);
            }
        }
        at += cells;
        counts.push(coded.len() - before);
    }
    (coded, counts)
}

/// The Huffman section of `symbols` in groups of `groups` symbols over an alphabet of
/// `alphabet` symbols, its bits byte carrying `flags` ([`BITS_RUNS`] or 0).
fn huffman_bytes(symbols: &[u16], groups: &[usize], alphabet: usize, flags: u8) -> Vec<u8> {
    let mut freq = vec![0u64; alphabet];
    for &s in symbols {
        freq[usize::from(s)] += 1;
    }
    let lengths = code_lengths(&freq);
    let codes = canonical_codes(&lengths);
    let mut w = BitWriter::default();
    let mut ends = Vec::new();
    let mut at = 0usize;
    for &count in groups {
        for &s in &symbols[at..at + count] {
            w.put(codes[usize::from(s)], u32::from(lengths[usize::from(s)]));
        }
        at += count;
        ends.push(w.bits as u32);
    }
    section_bytes(&lengths, &ends, w.finish(), flags)
}

/// A Huffman section's bytes: the used symbols (those of nonzero length in `lengths`, symbol
/// order) with their lengths, each group's bit end, the bits byte (`flags` added) and the
/// bits, as they are or Deflate'd where that is smaller (long stretches of the zero delta's
/// code at loose bounds).
pub(super) fn section_bytes(lengths: &[u8], ends: &[u32], bits: Vec<u8>, flags: u8) -> Vec<u8> {
    let mut out = Vec::new();
    let used: Vec<usize> = (0..lengths.len()).filter(|&s| lengths[s] > 0).collect();
    out.extend_from_slice(&(used.len() as u16).to_le_bytes());
    for &s in &used {
        out.extend_from_slice(&(s as u16).to_le_bytes());
        out.push(lengths[s]);
    }
    for e in ends {
        out.extend_from_slice(&e.to_le_bytes());
    }
    match deflate_bits(&bits) {
        Some(packed) if packed.len() < bits.len() => {
            out.push(BITS_DEFLATE | flags);
            out.extend_from_slice(&packed);
        }
        _ => {
            out.push(BITS_RAW | flags);
            out.extend_from_slice(&bits);
        }
    }
    out
}

/// Raw Deflate (RFC 1951) of `bits` at level 6, `None` if it fails.
fn deflate_bits(bits: &[u8]) -> Option<Vec<u8>> {
    if bits.is_empty() {
        return None;
    }
    let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(6).ok()?);
    let mut out = vec![0u8; c.deflate_compress_bound(bits.len())];
    let n = c.deflate_compress(bits, &mut out).ok()?;
    out.truncate(n);
    Some(out)
}

/// Appends a fast-mode block: `base` in `base_width` bits, then `values`, `width` bits each,
/// LSB-first, padded to a whole byte.
fn pack_block(base: u64, base_width: u32, values: &[u64], width: u32, out: &mut Vec<u8>) {
    let mut acc: u128 = 0;
    let mut nacc = 0u32;
    let mut put = |v: u64, w: u32, out: &mut Vec<u8>| {
        if w == 0 {
            return;
        }
        acc |= u128::from(v) << nacc;
        nacc += w;
        while nacc >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            nacc -= 8;
        }
    };
    put(base, base_width, out);
    for &v in values {
        put(v, width, out);
    }
    if nacc > 0 {
        out.push(acc as u8);
    }
}

/// Bytes of a fast-mode block of `cells` cells.
pub fn fast_block_len(cells: usize, width: u32, base_width: u32) -> usize {
    (base_width as usize + (cells - 1) * width as usize).div_ceil(8)
}

/// Appends `v` as LEB128 (7 bits a byte, low first).
pub(super) fn put_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads `width` bits at bit `bit` of a packed block (zeros past its end).
#[inline]
fn bits_at(bytes: &[u8], bit: usize, width: u32) -> u64 {
    if width == 0 {
        return 0;
    }
    let first = bit / 8;
    let mut w = [0u8; 16];
    let take = bytes.len().saturating_sub(first).min(9);
    if take > 0 {
        w[..take].copy_from_slice(&bytes[first..first + take]);
    }
    let v = u128::from_le_bytes(w) >> (bit % 8);
    if width == 64 {
        v as u64
    } else {
        (v as u64) & ((1u64 << width) - 1)
    }
}

/// A little-endian reader over a chunk that fails with `Truncated` at its end.
pub(super) struct Reader<'a> {
    pub(super) data: &'a [u8],
    pub(super) at: usize,
}

impl<'a> Reader<'a> {
    pub(super) fn take(&mut self, n: usize) -> Result<&'a [u8], ChunkStatus> {
        let end = self.at.checked_add(n).ok_or(ChunkStatus::Truncated)?;
        let s = self.data.get(self.at..end).ok_or(ChunkStatus::Truncated)?;
        self.at = end;
        Ok(s)
    }
    pub(super) fn u16(&mut self) -> Result<u16, ChunkStatus> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }
    pub(super) fn u32(&mut self) -> Result<u32, ChunkStatus> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(super) fn varint(&mut self) -> Result<u64, ChunkStatus> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            if shift == 63 && b > 1 {
                return Err(ChunkStatus::Corrupt);
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ChunkStatus::Corrupt)
    }
    pub(super) fn u64n(&mut self, n: usize) -> Result<u64, ChunkStatus> {
        let b = self.take(n)?;
        let mut w = [0u8; 8];
        w[..n].copy_from_slice(b);
        Ok(u64::from_le_bytes(w))
    }
    /// A count checked against `most` and against the bytes left (each entry takes at least
    /// `min_bytes`).
    pub(super) fn count(&mut self, most: usize, min_bytes: usize) -> Result<usize, ChunkStatus> {
        let c = self.varint()?;
        if c > most as u64 {
            return Err(ChunkStatus::Corrupt);
        }
        let c = c as usize;
        if c.saturating_mul(min_bytes) > self.data.len() - self.at {
            return Err(ChunkStatus::Truncated);
        }
        Ok(c)
    }
    /// The outliers: `(position, delta)`, positions increasing and below `n`.
    pub(super) fn outliers(&mut self, n: usize) -> Result<Vec<(u32, i64)>, ChunkStatus> {
        let count = self.count(n, 2)?;
        let mut v = Vec::with_capacity(count);
        let mut next = 0u64;
        for _ in 0..count {
            let p = next.saturating_add(self.varint()?);
            if p >= n as u64 {
                return Err(ChunkStatus::Corrupt);
            }
            v.push((p as u32, unzigzag(self.varint()?)));
            next = p + 1;
        }
        Ok(v)
    }
    /// The raw values, runs expanded: `(position, bits)`, positions increasing and below `n`.
    pub(super) fn raws(&mut self, n: usize, es: usize) -> Result<Vec<(u32, u64)>, ChunkStatus> {
        let count = self.count(n, 2 + es)?;
        let mut v = Vec::new();
        let mut next = 0u64;
        for _ in 0..count {
            let start = next.saturating_add(self.varint()?);
            let len = self.varint()?.saturating_add(1);
            let end = start.saturating_add(len);
            if end > n as u64 {
                return Err(ChunkStatus::Corrupt);
            }
            let bits = self.u64n(es)?;
            v.extend((start..end).map(|p| (p as u32, bits)));
            next = end;
        }
        Ok(v)
    }
}

/// Decodes one chunk into `out` (exactly the chunk's values' bytes).
pub fn decode_chunk(input: &[u8], out: &mut [u8], ctx: &Ctx) -> Result<(), ChunkStatus> {
    let es = ctx.float.size();
    let n = out.len() / es;
    let shape = ctx.geometry.chunk_shape(n).ok_or(ChunkStatus::Corrupt)?;
    let (_, cy, cx) = shape;
    let blocks = ctx.geometry.blocks(shape);
    let fast = ctx.mode == MODE_FAST;
    let mut r = Reader {
        data: input,
        at: 0,
    };
    match r.take(1)?[0] {
        CHUNK_CODED => {}
        CHUNK_VERBATIM => {
            if input.len() != out.len() + 1 {
                return Err(if input.len() < out.len() + 1 {
                    ChunkStatus::Truncated
                } else {
                    ChunkStatus::Corrupt
                });
            }
            out.copy_from_slice(&input[1..]);
            return Ok(());
        }
        CHUNK_INTERP if ctx.interp && !fast && ctx.pw_rel.is_none() => {
            return super::interp::decode_chunk_interp(&input[1..], out, ctx);
        }
        _ => return Err(ChunkStatus::Corrupt),
    }
    let outliers = if fast { Vec::new() } else { r.outliers(n)? };
    let raws = r.raws(n, es)?;
    let exps: Vec<i16> = if ctx.pw_rel.is_some() {
        let b = r.take(blocks.len() * 2)?;
        b.chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect()
    } else {
        Vec::new()
    };

    // Per cell (stream order): the delta, or a marker for a raw or fill value.
    let (bz, by, bx) = ctx.geometry.block();
    let (py, px) = (by + 1, bx + 1);
    let mut qbuf = vec![0i64; (bz + 1) * py * px];
    let mut raw_i = 0usize;
    let mut pos = 0usize;

    if fast {
        let widths = r.take(blocks.len())?;
        let base_widths = r.take(blocks.len())?;
        for (bi, &[z0, y0, x0, dz, dy, dx]) in blocks.iter().enumerate() {
            let w = u32::from(widths[bi]);
            let wb = u32::from(base_widths[bi]);
            if w > 64 || wb > 64 {
                return Err(ChunkStatus::Corrupt);
            }
            let cells = dz * dy * dx;
            let packed = r.take(fast_block_len(cells, w, wb))?;
            let step = block_step(ctx, &exps, bi);
            qbuf.iter_mut().for_each(|v| *v = 0);
            let mut c = 0usize;
            for z in 0..dz {
                for y in 0..dy {
                    for x in 0..dx {
                        let delta = if c == 0 {
                            unzigzag(bits_at(packed, 0, wb))
                        } else {
                            unzigzag(bits_at(packed, wb as usize + (c - 1) * w as usize, w))
                        };
                        let pi = pad_index(z + 1, y + 1, x + 1, py, px);
                        let q = lorenzo(&qbuf, z + 1, y + 1, x + 1, py, px).wrapping_add(delta);
                        qbuf[pi] = q;
                        let o = (((z0 + z) * cy + (y0 + y)) * cx + (x0 + x)) * es;
                        let bits = match raws.get(raw_i) {
                            Some(&(p, b)) if p as usize == pos => {
                                raw_i += 1;
                                b
                            }
                            _ => ctx.float.reconstruct(q, step).0,
                        };
                        ctx.float.store_bits(bits, &mut out[o..o + es]);
                        c += 1;
                        pos += 1;
                    }
                }
            }
        }
        if r.at != input.len() || raw_i != raws.len() {
            return Err(ChunkStatus::Corrupt);
        }
        return Ok(());
    }

    // Ratio mode: the blocks' bases, the Huffman table, the group ends, the bits.
    let mut bases = Vec::with_capacity(blocks.len());
    for _ in 0..blocks.len() {
        bases.push(unzigzag(r.varint()?));
    }
    let groups = blocks.len().div_ceil(GROUP_BLOCKS);
    let section = huffman_section(&mut r, ctx, n, groups)?;
    let (bits, ends) = (&section.bits[..], &section.ends);
    if n == 0 {
        return Ok(());
    }
    let decoder = Decoder::new(&section.pairs).ok_or(ChunkStatus::Corrupt)?;
    let mut resolver = Resolver::new(outliers, raws, ctx);
    let mut start = 0u64;
    for (g, group) in blocks.chunks(GROUP_BLOCKS).enumerate() {
        let mut syms = GroupSymbols::new(&decoder, bits, start, ends[g], ctx, section.runs);
        for (k, &[z0, y0, x0, dz, dy, dx]) in group.iter().enumerate() {
            let bi = g * GROUP_BLOCKS + k;
            let step = block_step(ctx, &exps, bi);
            qbuf.iter_mut().for_each(|v| *v = 0);
            for z in 0..dz {
                for y in 0..dy {
                    for x in 0..dx {
                        let s = syms.next()?;
                        let (delta, fixed) = resolver.resolve(s, pos)?;
                        let delta = if z == 0 && y == 0 && x == 0 {
                            delta.wrapping_add(bases[bi])
                        } else {
                            delta
                        };
                        let pi = pad_index(z + 1, y + 1, x + 1, py, px);
                        let q = lorenzo(&qbuf, z + 1, y + 1, x + 1, py, px).wrapping_add(delta);
                        qbuf[pi] = q;
                        let o = (((z0 + z) * cy + (y0 + y)) * cx + (x0 + x)) * es;
                        let bits = fixed.unwrap_or_else(|| ctx.float.reconstruct(q, step).0);
                        ctx.float.store_bits(bits, &mut out[o..o + es]);
                        pos += 1;
                    }
                }
            }
        }
        syms.finish()?;
        start = ends[g];
    }
    resolver.finish()
}

/// The quantization step of block `bi`.
#[inline]
fn block_step(ctx: &Ctx, exps: &[i16], bi: usize) -> f64 {
    match ctx.pw_rel {
        Some(_) => pow2(i32::from(exps.get(bi).copied().unwrap_or(0))),
        None => ctx.step,
    }
}

/// A chunk's Huffman section, read and checked: the code, each group's bit end, the bits.
pub(super) struct HuffmanSection<'a> {
    /// `(symbol, code length)` of the used symbols, symbols increasing.
    pub(super) pairs: Vec<(u16, u8)>,
    /// Each group's end, in bits from the start of the bits, non-decreasing.
    pub(super) ends: Vec<u64>,
    /// The bits, inflated where the chunk holds them deflated.
    pub(super) bits: Cow<'a, [u8]>,
    /// Whether the code includes run symbols ([`BITS_RUNS`]).
    pub(super) runs: bool,
}

/// Reads the Huffman section of a chunk of `n` cells in `groups` groups, which runs to the
/// chunk's end.
pub(super) fn huffman_section<'a>(
    r: &mut Reader<'a>,
    ctx: &Ctx,
    n: usize,
    groups: usize,
) -> Result<HuffmanSection<'a>, ChunkStatus> {
    let input = r.data;
    let nused = usize::from(r.u16()?);
    let listed = ctx.alphabet_with_runs();
    if nused > listed {
        return Err(ChunkStatus::Corrupt);
    }
    let mut pairs = Vec::with_capacity(nused);
    for _ in 0..nused {
        let s = r.u16()?;
        let l = r.take(1)?[0];
        if usize::from(s) >= listed || pairs.last().is_some_and(|&(p, _)| s <= p) {
            return Err(ChunkStatus::Corrupt);
        }
        pairs.push((s, l));
    }
    let mut ends = Vec::with_capacity(groups);
    for _ in 0..groups {
        ends.push(u64::from(r.u32()?));
    }
    let total = ends.last().copied().unwrap_or(0);
    // At most MAX_LEN bits a cell: bounds what an inflated stream may take.
    if ends.windows(2).any(|w| w[1] < w[0]) || total > n as u64 * MAX_LEN as u64 {
        return Err(ChunkStatus::Corrupt);
    }
    let want = total.div_ceil(8) as usize;
    let kind = r.take(1)?[0];
    let runs = kind & BITS_RUNS != 0;
    // Run symbols only under the flag, the flag only in layout 3.
    if runs && !ctx.runs
        || !runs && pairs.last().is_some_and(|&(s, _)| usize::from(s) >= ctx.alphabet())
    {
        return Err(ChunkStatus::Corrupt);
    }
    let bits: Cow<'a, [u8]> = match kind & !BITS_RUNS {
        BITS_RAW => {
            let bits = &input[r.at..];
            if bits.len() != want {
                return Err(if bits.len() < want {
                    ChunkStatus::Truncated
                } else {
                    ChunkStatus::Corrupt
                });
            }
            Cow::Borrowed(bits)
        }
        BITS_DEFLATE => {
            let mut buf = vec![0u8; want];
            let stream = &input[r.at..];
            let got = crate::codec::deflate::cpu::inflate(stream, &mut buf);
            // The stream must fill the bits exactly and end where the chunk ends.
            if got.status != ChunkStatus::Ok || got.written != want || got.consumed != stream.len()
            {
                return Err(ChunkStatus::Corrupt);
            }
            Cow::Owned(buf)
        }
        _ => return Err(ChunkStatus::Corrupt),
    };
    Ok(HuffmanSection {
        pairs,
        ends,
        bits,
        runs,
    })
}
