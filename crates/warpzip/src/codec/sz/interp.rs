//! The multilevel interpolation predictor of the ratio mode (chunk kind 2, layout 2), after
//! SZ3 and cuSZ-i: a coarse anchor grid predicted by Lorenzo over the grid, then levels from
//! coarse to fine, each cell predicted by a cubic spline along one axis through the cells of
//! the level above. Everything runs on the pre-quantized integers (wrapping i64 arithmetic,
//! rounding by arithmetic shifts), so that every decoder reproduces every prediction exactly
//! and the bound rests on the pre-quantization alone, exactly as in the Lorenzo path.

use super::cpu::{
    huffman_encode, huffman_section, put_outliers, put_raw_runs, shorter, Ctx, EncodedChunk,
    GroupSymbols, Reader, Resolver, CHUNK_INTERP,
};
use super::huffman::Decoder;
use super::quant::{prequantize, within};
use crate::error::ChunkStatus;

/// Cells per Huffman group of an interpolated chunk (each group's bit end is stored).
pub const GROUP_CELLS: usize = 2048;
/// Largest anchor stride exponent a stream may give.
pub const MAX_STRIDE_LOG2: u8 = 12;

/// The anchor stride exponent the writer uses for `ndim` dimensions: strides of 256 (1-D),
/// 32 (2-D) and 16 (3-D) keep the anchors near one cell in a thousand.
pub fn stride_log2_for(ndim: u8) -> u8 {
    match ndim {
        1 => 8,
        2 => 5,
        _ => 4,
    }
}

/// The prediction of the cell at position `i` of an axis of `n` cells, from the cells at
/// `i ± s` and `i ± 3s` of the axis (`i - s` always exists; `at(k)` is cell `k`'s integer):
/// `cubic`, the cubic spline with all four and its one-sided forms with three; linear with
/// `i ± s` (always when not `cubic`); the cell before it alone at the far end.
#[inline]
fn along(at: impl Fn(usize) -> i64, i: usize, n: usize, s: usize, cubic: bool) -> i64 {
    let b = at(i - s);
    if i + s >= n {
        return b;
    }
    let c = at(i + s);
    let has_a = cubic && i >= 3 * s;
    let has_d = cubic && i + 3 * s < n;
    match (has_a, has_d) {
        (true, true) => {
            let (a, d) = (at(i - 3 * s), at(i + 3 * s));
            // (-a + 9b + 9c - d) / 16, rounded half up.
            b.wrapping_add(c)
                .wrapping_mul(9)
                .wrapping_sub(a)
                .wrapping_sub(d)
                .wrapping_add(8)
                >> 4
        }
        (false, true) => {
            let d = at(i + 3 * s);
            // (3b + 6c - d) / 8
            b.wrapping_mul(3)
                .wrapping_add(c.wrapping_mul(6))
                .wrapping_sub(d)
                .wrapping_add(4)
                >> 3
        }
        (true, false) => {
            let a = at(i - 3 * s);
            // (-a + 6b + 3c) / 8
            b.wrapping_mul(6)
                .wrapping_add(c.wrapping_mul(3))
                .wrapping_sub(a)
                .wrapping_add(4)
                >> 3
        }
        (false, false) => b.wrapping_add(c).wrapping_add(1) >> 1,
    }
}

/// Visits every cell of a chunk of `shape` `(cz, cy, cx)` once, in the predictor's order,
/// with its index in the chunk (x fastest) and its prediction from the cells visited before;
/// `visit` returns the cell's integer, which `q` keeps for the cells after it. The order:
/// the anchors (every coordinate a multiple of the stride `S`) in z, y, x order, each
/// predicted by Lorenzo over the anchor grid (anchors outside the chunk counting as 0); then
/// for `s = S/2, S/4, ..., 1` three passes, each in z, y, x order: the cells with z and y
/// multiples of `2s` and x an odd multiple of `s` (predicted along x), those with z a
/// multiple of `2s`, y an odd multiple of `s` and x a multiple of `s` (along y), and those
/// with z an odd multiple of `s` and y and x multiples of `s` (along z).
pub fn traverse<E>(
    q: &mut [i64],
    shape: (usize, usize, usize),
    stride_log2: u8,
    cubic: bool,
    mut visit: impl FnMut(usize, i64) -> Result<i64, E>,
) -> Result<(), E> {
    let (cz, cy, cx) = shape;
    let big = 1usize << stride_log2;
    let idx = |z: usize, y: usize, x: usize| (z * cy + y) * cx + x;
    // Anchors.
    for z in (0..cz).step_by(big) {
        for y in (0..cy).step_by(big) {
            for x in (0..cx).step_by(big) {
                let g = |dz: usize, dy: usize, dx: usize| -> i64 {
                    if (dz == 1 && z < big) || (dy == 1 && y < big) || (dx == 1 && x < big) {
                        0
                    } else {
                        q[idx(z - dz * big, y - dy * big, x - dx * big)]
                    }
                };
                let p = g(1, 0, 0)
                    .wrapping_add(g(0, 1, 0))
                    .wrapping_add(g(0, 0, 1))
                    .wrapping_sub(g(1, 1, 0))
                    .wrapping_sub(g(1, 0, 1))
                    .wrapping_sub(g(0, 1, 1))
                    .wrapping_add(g(1, 1, 1));
                let i = idx(z, y, x);
                q[i] = visit(i, p)?;
            }
        }
    }
    // Levels, coarse to fine.
    for level in (0..stride_log2).rev() {
        let s = 1usize << level;
        let s2 = 2 * s;
        // Along x.
        for z in (0..cz).step_by(s2) {
            for y in (0..cy).step_by(s2) {
                let row = idx(z, y, 0);
                for x in (s..cx).step_by(s2) {
                    let p = along(|k| q[row + k], x, cx, s, cubic);
                    q[row + x] = visit(row + x, p)?;
                }
            }
        }
        // Along y.
        for z in (0..cz).step_by(s2) {
            for y in (s..cy).step_by(s2) {
                for x in (0..cx).step_by(s) {
                    let col = idx(z, 0, x);
                    let p = along(|k| q[col + k * cx], y, cy, s, cubic);
                    q[col + y * cx] = visit(col + y * cx, p)?;
                }
            }
        }
        // Along z.
        let plane = cy * cx;
        for z in (s..cz).step_by(s2) {
            for y in (0..cy).step_by(s) {
                for x in (0..cx).step_by(s) {
                    let col = idx(0, y, x);
                    let p = along(|k| q[col + k * plane], z, cz, s, cubic);
                    q[col + z * plane] = visit(col + z * plane, p)?;
                }
            }
        }
    }
    Ok(())
}

/// What one cell is before prediction.
#[derive(Clone, Copy)]
enum Cell {
    /// A pre-quantized integer that reconstructs within the bound.
    Coded(i64),
    /// Stored exactly, with this bit pattern.
    Raw(u64),
    /// Fill value `j`.
    Fill(u16),
}

/// The spline byte of an interpolated chunk: linear interpolation.
pub const SPLINE_LINEAR: u8 = 0;
/// The spline byte of an interpolated chunk: cubic interpolation.
pub const SPLINE_CUBIC: u8 = 1;

/// Encodes the values `data` (whole lines of `ctx.geometry`, `abs` or `rel` bound) as an
/// interpolated chunk, with the linear or the cubic spline, whichever is smaller (linear
/// tends to win at loose bounds, cubic at tight ones); `None` when `data` is not whole lines.
pub fn encode_chunk_interp(data: &[u8], ctx: &Ctx) -> Option<EncodedChunk> {
    let es = ctx.float.size();
    let n = data.len() / es;
    let shape = ctx.geometry.chunk_shape(n)?;
    let cells = classify(data, ctx);
    let linear = code_cells(&cells, shape, SPLINE_LINEAR, ctx)?;
    let cubic = code_cells(&cells, shape, SPLINE_CUBIC, ctx)?;
    Some(shorter(linear, cubic))
}

/// The cells of each Huffman group of an interpolated chunk of `n` cells.
pub(super) fn group_cells(n: usize) -> impl Iterator<Item = usize> {
    (0..n.div_ceil(GROUP_CELLS)).map(move |g| GROUP_CELLS.min(n - g * GROUP_CELLS))
}

/// Encodes `data` as an interpolated chunk with spline `spline` ([`SPLINE_LINEAR`] or
/// [`SPLINE_CUBIC`]).
pub fn encode_chunk_spline(data: &[u8], ctx: &Ctx, spline: u8) -> Option<EncodedChunk> {
    let es = ctx.float.size();
    let shape = ctx.geometry.chunk_shape(data.len() / es)?;
    code_cells(&classify(data, ctx), shape, spline, ctx)
}

/// Every cell of `data`, classified.
fn classify(data: &[u8], ctx: &Ctx) -> Vec<Cell> {
    let es = ctx.float.size();
    data.chunks_exact(es)
        .map(|v| {
            let (bits, x) = ctx.float.load(v);
            if let Some(j) = ctx.fills.iter().position(|&f| f == bits) {
                Cell::Fill(j as u16)
            } else if ctx.float.is_special(bits) {
                Cell::Raw(bits)
            } else {
                match prequantize(x, ctx.step) {
                    Some(q) if within(x, ctx.float.reconstruct(q, ctx.step).1, ctx.bound) => {
                        Cell::Coded(q)
                    }
                    _ => Cell::Raw(bits),
                }
            }
        })
        .collect()
}

/// The interpolated chunk of `cells` (a box of `shape`) with spline `spline`.
fn code_cells(
    cells: &[Cell],
    shape: (usize, usize, usize),
    spline: u8,
    ctx: &Ctx,
) -> Option<EncodedChunk> {
    let es = ctx.float.size();
    let n = cells.len();
    let stride_log2 = stride_log2_for(ctx.geometry.ndim);
    let radius = i64::from(ctx.radius);
    let raw_sym = ctx.raw_symbol();
    let mut symbols: Vec<u16> = Vec::with_capacity(n);
    let mut outliers: Vec<(u32, i64)> = Vec::new();
    let mut raws: Vec<(u32, u64)> = Vec::new();
    let mut q = vec![0i64; n];
    let mut pos = 0u32;
    let cubic = spline == SPLINE_CUBIC;
    let visited: Result<(), ()> = traverse(&mut q, shape, stride_log2, cubic, |i, pred| {
        let (sym, value) = match cells[i] {
            Cell::Coded(v) => {
                let d = v.wrapping_sub(pred);
                if d > -radius && d < radius {
                    ((d + radius) as u16, v)
                } else {
                    outliers.push((pos, d));
                    (0, v)
                }
            }
            Cell::Raw(b) => {
                raws.push((pos, b));
                (raw_sym, pred)
            }
            Cell::Fill(j) => (raw_sym + 1 + j, pred),
        };
        symbols.push(sym);
        pos += 1;
        Ok(value)
    });
    visited.ok()?;

    let mut out = vec![CHUNK_INTERP, stride_log2, spline];
    put_outliers(&outliers, &mut out);
    put_raw_runs(&raws, es, &mut out);
    let groups = group_cells(n);
    let runs = huffman_encode(&symbols, groups, ctx, &mut out);
    Some(EncodedChunk {
        bytes: out,
        exceptions: (outliers.len() + raws.len()) as u64,
        runs,
    })
}

/// Decodes an interpolated chunk (`input` after its kind byte) into `out`.
pub fn decode_chunk_interp(input: &[u8], out: &mut [u8], ctx: &Ctx) -> Result<(), ChunkStatus> {
    let es = ctx.float.size();
    let n = out.len() / es;
    let shape = ctx.geometry.chunk_shape(n).ok_or(ChunkStatus::Corrupt)?;
    let mut r = Reader {
        data: input,
        at: 0,
    };
    let stride_log2 = r.take(1)?[0];
    let spline = r.take(1)?[0];
    if stride_log2 > MAX_STRIDE_LOG2 || spline > SPLINE_CUBIC {
        return Err(ChunkStatus::Corrupt);
    }
    let outliers = r.outliers(n)?;
    let raws = r.raws(n, es)?;
    let groups = n.div_ceil(GROUP_CELLS);
    let section = huffman_section(&mut r, ctx, n, groups)?;
    if n == 0 {
        return Ok(());
    }
    // The symbols of every group (independent of one another: a GPU decodes them at once).
    let decoder = Decoder::new(&section.pairs).ok_or(ChunkStatus::Corrupt)?;
    let mut symbols: Vec<u16> = Vec::with_capacity(n);
    let mut start = 0u64;
    for (g, &end) in section.ends.iter().enumerate() {
        let cells = GROUP_CELLS.min(n - g * GROUP_CELLS);
        let mut syms = GroupSymbols::new(&decoder, &section.bits, start, end, ctx, section.runs);
        for _ in 0..cells {
            symbols.push(syms.next()?);
        }
        syms.finish()?;
        start = end;
    }
    let mut resolver = Resolver::new(outliers, raws, ctx);
    let mut q = vec![0i64; n];
    let mut pos = 0usize;
    traverse(&mut q, shape, stride_log2, spline == SPLINE_CUBIC, |i, pred| {
        let (delta, fixed) = resolver.resolve(symbols[pos], pos)?;
        let v = pred.wrapping_add(delta);
        let bits = fixed.unwrap_or_else(|| ctx.float.reconstruct(v, ctx.step).0);
        ctx.float.store_bits(bits, &mut out[i * es..i * es + es]);
        pos += 1;
        Ok(v)
    })?;
    resolver.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every cell is visited once, and only after the cells its prediction reads.
    #[test]
    fn traversal_visits_every_cell_once() {
        for shape in [
            (1, 1, 1),
            (1, 1, 1000),
            (1, 37, 45),
            (1, 64, 64),
            (8, 17, 33),
            (9, 16, 16),
        ] {
            for sl in [0u8, 1, 4, 5, 8] {
                let n = shape.0 * shape.1 * shape.2;
                let mut q = vec![0i64; n];
                let mut seen = vec![false; n];
                let r: Result<(), ()> = traverse(&mut q, shape, sl, sl % 2 == 0, |i, _| {
                    assert!(!seen[i], "{shape:?} {sl}: {i} twice");
                    seen[i] = true;
                    Ok(i as i64 + 1)
                });
                assert!(r.is_ok());
                assert!(seen.iter().all(|&s| s), "{shape:?} {sl}");
            }
        }
    }

    /// A smooth integer field (a quadratic) is predicted almost exactly by the cubic spline,
    /// but for the anchors and the cells at the far edges (no cell after them on their axis).
    #[test]
    fn splines_predict_smooth_fields() {
        let shape = (1, 64, 64);
        let f = |i: usize| {
            let (y, x) = ((i / 64) as i64, (i % 64) as i64);
            3 * x * x + 2 * y * y - x * y + 1000
        };
        let mut q = vec![0i64; 64 * 64];
        let mut big = 0usize;
        let r: Result<(), ()> = traverse(&mut q, shape, 5, true, |i, p| {
            if (f(i) - p).abs() > 2 {
                big += 1;
            }
            Ok(f(i))
        });
        assert!(r.is_ok());
        assert!(big < 64 * 64 / 16, "{big} cells predicted badly");
    }
}
