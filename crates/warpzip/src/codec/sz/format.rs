//! The byte layout of the `sz` codec (see `docs/format.md`, section "Codec sz"): its codec
//! parameters and the block geometry both ends derive from them.

use crate::error::{Error, Result};
use crate::format::ElemType;

/// The first layout (the parameters' first byte): every chunk Lorenzo-predicted or verbatim.
pub const LAYOUT: u8 = 1;
/// Layout 2: layout 1, and ratio-mode chunks may also be interpolated (chunk kind 2). A
/// writer uses it only when some chunk is, so that other streams stay layout 1 byte for byte.
pub const LAYOUT_INTERP: u8 = 2;
/// Layout 3: layout 2, and a ratio-mode chunk's Huffman section may also code runs of the zero
/// delta's symbol with run symbols (its bits byte has [`RUN_SYMBOLS`]' flag). A writer uses it
/// only when some chunk does.
pub const LAYOUT_RUNS: u8 = 3;
/// Run symbols of a layout-3 Huffman section: symbol `2R + 1 + F + k` stands for `k + 2`
/// cells of the zero delta's symbol `R`, `k` in `0..RUN_SYMBOLS` (runs of 2 to 64 cells).
pub const RUN_SYMBOLS: u16 = 63;
/// Bytes of the parameters before the fill values.
pub const PARAMS_FIXED: usize = 48;
/// Largest parameter block (the container's limit).
pub const PARAMS_MAX: usize = 64;
/// Quantization radius of the ratio mode: codes of deltas in (-RADIUS, RADIUS).
pub const RADIUS: u16 = 512;
/// Cells per 1-D block.
pub const BLOCK_1D: usize = 256;
/// Side of a 2-D tile.
pub const BLOCK_2D: usize = 16;
/// Side of a 3-D block.
pub const BLOCK_3D: usize = 8;
/// Blocks per Huffman group (each group's bit offset is stored, so groups decode in parallel).
pub const GROUP_BLOCKS: usize = 16;
/// Largest magnitude of a pre-quantized integer: every such integer is exact in an f64.
pub const QMAX: f64 = 9_007_199_254_740_992.0; // 2^53
/// Default bytes per chunk (rounded down to whole block rows or slabs, at least one).
pub const DEFAULT_CHUNK_SIZE: u32 = 1 << 20;

/// Ratio or fast, as the parameters store it.
pub const MODE_RATIO: u8 = 0;
/// See [`MODE_RATIO`].
pub const MODE_FAST: u8 = 1;
/// Error modes as the parameters store them.
pub const EMODE_ABS: u8 = 0;
/// See [`EMODE_ABS`].
pub const EMODE_REL: u8 = 1;
/// See [`EMODE_ABS`].
pub const EMODE_PWREL: u8 = 2;

/// Element size of a float type the codec takes.
pub fn float_size(elem: ElemType) -> Option<usize> {
    match elem {
        ElemType::F32 => Some(4),
        ElemType::F64 => Some(8),
        _ => None,
    }
}

/// How cells are grouped: a chunk is `(cz, ny, nx)` cells (for 1-D `(1, 1, n)`, for 2-D
/// `(1, rows, nx)`) cut into blocks of `block` cells, z slowest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// 1, 2 or 3.
    pub ndim: u8,
    /// Middle dimension (3-D), else 1.
    pub ny: usize,
    /// Fastest dimension (2-D and 3-D), else 1.
    pub nx: usize,
}

impl Geometry {
    /// Block sides `(z, y, x)`.
    pub fn block(self) -> (usize, usize, usize) {
        match self.ndim {
            1 => (1, 1, BLOCK_1D),
            2 => (1, BLOCK_2D, BLOCK_2D),
            _ => (BLOCK_3D, BLOCK_3D, BLOCK_3D),
        }
    }

    /// Cells of one row (2-D) or plane (3-D), 1 for 1-D: every chunk is a whole number of them.
    pub fn line(self) -> usize {
        match self.ndim {
            1 => 1,
            2 => self.nx,
            _ => self.ny.saturating_mul(self.nx),
        }
    }

    /// Cells of the smallest whole chunk: a 1-D block, 16 rows, or 8 planes.
    pub fn unit(self) -> usize {
        match self.ndim {
            1 => BLOCK_1D,
            2 => BLOCK_2D.saturating_mul(self.nx),
            _ => BLOCK_3D.saturating_mul(self.line()),
        }
    }

    /// The shape `(z, y, x)` of a chunk of `n` cells, `None` when `n` is not whole lines.
    pub fn chunk_shape(self, n: usize) -> Option<(usize, usize, usize)> {
        let line = self.line();
        if line == 0 || !n.is_multiple_of(line) {
            return None;
        }
        Some(match self.ndim {
            1 => (1, 1, n),
            2 => (1, n / self.nx, self.nx),
            _ => (n / line, self.ny, self.nx),
        })
    }

    /// Every block of a chunk of `shape`, in stream order: `(z0, y0, x0, dz, dy, dx)`.
    pub fn blocks(self, shape: (usize, usize, usize)) -> Vec<[usize; 6]> {
        let (bz, by, bx) = self.block();
        let (cz, cy, cx) = shape;
        let mut out = Vec::with_capacity(cz.div_ceil(bz) * cy.div_ceil(by) * cx.div_ceil(bx));
        for z0 in (0..cz).step_by(bz) {
            for y0 in (0..cy).step_by(by) {
                for x0 in (0..cx).step_by(bx) {
                    out.push([
                        z0,
                        y0,
                        x0,
                        bz.min(cz - z0),
                        by.min(cy - y0),
                        bx.min(cx - x0),
                    ]);
                }
            }
        }
        out
    }
}

/// What the codec parameters say.
#[derive(Clone, Debug, PartialEq)]
pub struct Params {
    /// [`LAYOUT`], [`LAYOUT_INTERP`] or [`LAYOUT_RUNS`].
    pub layout: u8,
    /// [`MODE_RATIO`] or [`MODE_FAST`].
    pub mode: u8,
    /// [`EMODE_ABS`], [`EMODE_REL`] or [`EMODE_PWREL`].
    pub emode: u8,
    /// The block geometry.
    pub geometry: Geometry,
    /// Quantization radius (ratio mode).
    pub radius: u16,
    /// The bound's number as given.
    pub e: f64,
    /// The absolute bound enforced on every value (abs, rel); 0 for pw-rel.
    pub bound: f64,
    /// Quantization step (abs, rel); pw-rel blocks carry their own.
    pub step: f64,
    /// Values stored exactly outside the codes (outliers and raw values), over all chunks.
    pub exceptions: u64,
    /// Fill values' bit patterns in the element type.
    pub fills: Vec<u64>,
}

impl Params {
    /// The parameters' bytes.
    pub fn encode(&self, esize: usize) -> Vec<u8> {
        let mut p = Vec::with_capacity(PARAMS_MAX);
        p.extend_from_slice(&[self.layout, self.mode, self.emode, self.geometry.ndim]);
        p.extend_from_slice(&self.radius.to_le_bytes());
        p.push(self.fills.len() as u8);
        p.push(0);
        p.extend_from_slice(&(self.geometry.ny as u32).to_le_bytes());
        p.extend_from_slice(&(self.geometry.nx as u32).to_le_bytes());
        p.extend_from_slice(&self.e.to_le_bytes());
        p.extend_from_slice(&self.bound.to_le_bytes());
        p.extend_from_slice(&self.step.to_le_bytes());
        p.extend_from_slice(&self.exceptions.to_le_bytes());
        for f in &self.fills {
            p.extend_from_slice(&f.to_le_bytes()[..esize]);
        }
        p
    }

    /// Parses and checks the parameters for values of `elem`.
    pub fn parse(p: &[u8], elem: ElemType) -> Result<Params> {
        let bad = |why: &str| Error::CorruptContainer(format!("sz parameters: {why}"));
        let esize = float_size(elem)
            .ok_or_else(|| bad(&format!("element type {elem} is not f32 or f64")))?;
        if p.len() < PARAMS_FIXED {
            return Err(bad(&format!("{} bytes, at least {PARAMS_FIXED} expected", p.len())));
        }
        if !(LAYOUT..=LAYOUT_RUNS).contains(&p[0]) {
            return Err(Error::Unsupported(format!(
                "sz layout {} (this build reads layouts {LAYOUT} to {LAYOUT_RUNS})",
                p[0]
            )));
        }
        let u32_at = |o: usize| u32::from_le_bytes([p[o], p[o + 1], p[o + 2], p[o + 3]]);
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&p[o..o + 8]);
            u64::from_le_bytes(b)
        };
        let (mode, emode, ndim) = (p[1], p[2], p[3]);
        if mode > MODE_FAST {
            return Err(bad(&format!("mode {mode} is not 0 (ratio) or 1 (fast)")));
        }
        if emode > EMODE_PWREL {
            return Err(bad(&format!("error mode {emode} is not 0, 1 or 2")));
        }
        if !(1..=3).contains(&ndim) {
            return Err(bad(&format!("{ndim} dimensions (1 to 3 expected)")));
        }
        let radius = u16::from_le_bytes([p[4], p[5]]);
        if mode == MODE_RATIO && !(1..=RADIUS).contains(&radius) {
            return Err(bad(&format!("radius {radius} outside 1..={RADIUS}")));
        }
        let nfill = usize::from(p[6]);
        if p.len() != PARAMS_FIXED + nfill * esize {
            return Err(bad(&format!(
                "{} bytes for {nfill} fill values of {esize} bytes",
                p.len()
            )));
        }
        let ny = u32_at(8) as usize;
        let nx = u32_at(12) as usize;
        let geometry = Geometry { ndim, ny, nx };
        let unit_ok = match ndim {
            1 => ny == 1 && nx == 1,
            2 => ny == 1 && nx >= 1,
            _ => ny >= 1 && nx >= 1,
        };
        if !unit_ok || geometry.unit().checked_mul(esize).is_none_or(|b| b > 1 << 26) {
            return Err(bad(&format!("dimensions {ny} x {nx} for {ndim}-D")));
        }
        let e = f64::from_bits(u64_at(16));
        let bound = f64::from_bits(u64_at(24));
        let step = f64::from_bits(u64_at(32));
        if emode != EMODE_PWREL && !(step.is_finite() && step > 0.0) {
            return Err(bad(&format!("quantization step {step} is not positive")));
        }
        let exceptions = u64_at(40);
        let fills = (0..nfill)
            .map(|i| {
                let o = PARAMS_FIXED + i * esize;
                let mut b = [0u8; 8];
                b[..esize].copy_from_slice(&p[o..o + esize]);
                u64::from_le_bytes(b)
            })
            .collect();
        Ok(Params {
            layout: p[0],
            mode,
            emode,
            geometry,
            radius,
            e,
            bound,
            step,
            exceptions,
            fills,
        })
    }

    /// The parameters in words, for `warpzip inspect`.
    pub fn describe(&self, esize: usize) -> String {
        let mode = if self.mode == MODE_FAST { "fast" } else { "ratio" };
        let bound = match self.emode {
            EMODE_ABS => format!("abs:{:e} (enforced {:e})", self.e, self.bound),
            EMODE_REL => format!(
                "rel:{:e} (value range {:e}, enforced {:e})",
                self.e,
                if self.e > 0.0 {
                    self.bound / self.e
                } else {
                    0.0
                },
                self.bound
            ),
            _ => format!("pw-rel:{:e}", self.e),
        };
        let dims = match self.geometry.ndim {
            1 => "1-D blocks of 256".to_string(),
            2 => format!("2-D, rows of {}, tiles of 16x16", self.geometry.nx),
            _ => format!(
                "3-D, planes of {}x{}, blocks of 8x8x8",
                self.geometry.ny, self.geometry.nx
            ),
        };
        let mut s = format!(
            "mode {mode}, bound {bound}, {dims}, outliers and exact values {}",
            self.exceptions
        );
        if self.mode == MODE_RATIO {
            s.push_str(&format!(", radius {}", self.radius));
        }
        if self.layout == LAYOUT_INTERP {
            s.push_str(", chunks Lorenzo-predicted or interpolated (layout 2)");
        }
        if self.layout == LAYOUT_RUNS {
            s.push_str(
                ", chunks Lorenzo-predicted or interpolated, zero runs coded (layout 3)",
            );
        }
        if !self.fills.is_empty() {
            let fills: Vec<String> = self
                .fills
                .iter()
                .map(|&b| {
                    if esize == 4 {
                        format!("{:e}", f32::from_bits(b as u32))
                    } else {
                        format!("{:e}", f64::from_bits(b))
                    }
                })
                .collect();
            s.push_str(&format!(", fill values {}", fills.join(" ")));
        }
        s
    }
}
