//! Whole-buffer `sz` on the CPU: the field's statistics (value range, magnitudes), the bound
//! and step derived from them, then the chunks encoded or decoded in parallel with rayon.

use super::cpu::{decode_chunk, encode_chunk_best, Ctx, EncodedChunk, CHUNK_INTERP};
use super::format::{
    Geometry, Params, DEFAULT_CHUNK_SIZE, EMODE_ABS, EMODE_PWREL, EMODE_REL, LAYOUT,
    LAYOUT_INTERP, LAYOUT_RUNS, MODE_FAST, MODE_RATIO, RADIUS,
};
use super::options::{ErrorBound, LossyMode, LossyOptions};
use super::quant::{exponent, pow2, range_down, round_down, Float};
use crate::codec::MAX_CHUNK_SIZE;
use crate::error::{Error, Result};
use crate::format::ChunkSpan;
use rayon::prelude::*;

/// The block geometry of `dims` (slowest first; four and more merge the leading ones) for
/// values of `float`. A 3-D field whose 8-plane slabs exceed the largest chunk is cut as a 2-D
/// field of its planes' rows (16-row strips), so that chunks stay within 64 MiB.
pub fn geometry(dims: &[u64], float: Float) -> Result<Geometry> {
    let g = geometry_of(dims)?;
    let slab = g
        .unit()
        .checked_mul(float.size())
        .filter(|&b| b <= MAX_CHUNK_SIZE as usize);
    if g.ndim == 3 && slab.is_none() {
        return Ok(Geometry {
            ndim: 2,
            ny: 1,
            nx: g.nx,
        });
    }
    Ok(g)
}

fn geometry_of(dims: &[u64]) -> Result<Geometry> {
    let big = |d: u64| {
        if d == 0 {
            return Err(Error::InvalidArgument(
                "a dimension of 0 holds no values; give the field's real shape".into(),
            ));
        }
        usize::try_from(d)
            .ok()
            .filter(|&d| d <= u32::MAX as usize)
            .ok_or_else(|| Error::InvalidArgument(format!("dimension {d} is too large")))
    };
    Ok(match dims.len() {
        0 | 1 => Geometry {
            ndim: 1,
            ny: 1,
            nx: 1,
        },
        2 => Geometry {
            ndim: 2,
            ny: 1,
            nx: big(dims[1])?,
        },
        k => Geometry {
            ndim: 3,
            ny: big(dims[k - 2])?,
            nx: big(dims[k - 1])?,
        },
    })
}

/// The chunk size to use: `requested` (or the default) rounded down to whole units of the
/// geometry (1-D blocks, 16 rows, 8 planes), at least one unit.
pub fn chunk_size(geometry: Geometry, float: Float, requested: Option<u32>) -> Result<u32> {
    let unit = geometry
        .unit()
        .checked_mul(float.size())
        .filter(|&u| u <= MAX_CHUNK_SIZE as usize)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "sz needs whole {} in a chunk, and those are more than {MAX_CHUNK_SIZE} bytes \
                 (64 MiB)",
                if geometry.ndim == 2 {
                    "16-row strips"
                } else {
                    "8-plane slabs"
                }
            ))
        })?;
    let want = requested.unwrap_or(DEFAULT_CHUNK_SIZE).min(MAX_CHUNK_SIZE) as usize;
    Ok(((want / unit).max(1) * unit) as u32)
}

/// What the encoder needs to know about the whole field.
#[derive(Clone, Copy, Debug)]
struct Stats {
    min: f64,
    max: f64,
    max_abs: f64,
    min_abs: f64,
}

impl Stats {
    const EMPTY: Stats = Stats {
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        max_abs: 0.0,
        min_abs: f64::INFINITY,
    };
    fn merge(a: Stats, b: Stats) -> Stats {
        Stats {
            min: a.min.min(b.min),
            max: a.max.max(b.max),
            max_abs: a.max_abs.max(b.max_abs),
            min_abs: a.min_abs.min(b.min_abs),
        }
    }
}

/// The fill values' bit patterns in `float`.
pub fn fill_bits(fill: &[f64], float: Float) -> Vec<u64> {
    fill.iter()
        .map(|&f| match float {
            Float::F32 => u64::from((f as f32).to_bits()),
            Float::F64 => f.to_bits(),
        })
        .collect()
}

fn stats(data: &[u8], float: Float, fills: &[u64]) -> Stats {
    let es = float.size();
    data.par_chunks(es * 65536)
        .map(|part| {
            let mut s = Stats::EMPTY;
            for v in part.chunks_exact(es) {
                let (bits, x) = float.load(v);
                if float.is_special(bits) || fills.contains(&bits) {
                    continue;
                }
                s.min = s.min.min(x);
                s.max = s.max.max(x);
                s.max_abs = s.max_abs.max(x.abs());
                if x != 0.0 {
                    s.min_abs = s.min_abs.min(x.abs());
                }
            }
            s
        })
        .reduce(|| Stats::EMPTY, Stats::merge)
}

/// The encoding context and the parameters (without the exception count) for `data`.
pub fn plan(data: &[u8], lossy: &LossyOptions, float: Float) -> Result<(Ctx, Params)> {
    let geometry = geometry(&lossy.dims, float)?;
    let n = (data.len() / float.size()) as u64;
    if !lossy.dims.is_empty() {
        let product = lossy
            .dims
            .iter()
            .try_fold(1u64, |a, &d| a.checked_mul(d));
        if product != Some(n) {
            return Err(Error::InvalidArgument(format!(
                "dims {} hold {} values, the input holds {n}",
                lossy
                    .dims
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                product.map_or("too many".to_string(), |p| p.to_string())
            )));
        }
    }
    if lossy.fill.len() * float.size() > 16 {
        return Err(Error::InvalidArgument(format!(
            "at most {} fill values for {} data",
            16 / float.size(),
            if float == Float::F32 { "f32" } else { "f64" }
        )));
    }
    let fills = fill_bits(&lossy.fill, float);
    let st = stats(data, float, &fills);
    let e = lossy.bound.value();
    let (emode, bound) = match lossy.bound {
        ErrorBound::Abs(e) => (EMODE_ABS, round_down(e)),
        ErrorBound::Rel(e) => {
            let range = if st.max >= st.min {
                range_down(st.max, st.min)
            } else {
                0.0
            };
            (EMODE_REL, round_down(e * range))
        }
        ErrorBound::PwRel(_) => (EMODE_PWREL, 0.0),
    };
    let step = if emode == EMODE_PWREL {
        0.0
    } else {
        // Leave room for the rounding of q * step to the type.
        let margin = 2.0 * float.half_ulp(st.max_abs);
        let mut ebq = bound - margin;
        if ebq.is_nan() || ebq < bound / 2.0 {
            ebq = bound / 2.0;
        }
        let step = (2.0 * ebq).min(pow2(1023));
        if step > 0.0 {
            step
        } else if st.min_abs.is_finite() {
            // A zero bound: a step of one unit in the last place of the smallest magnitude
            // keeps a constant field exact in the codes.
            let bits = if float == Float::F32 { 23 } else { 52 };
            pow2(exponent(st.min_abs) - bits)
        } else {
            1.0
        }
    };
    let ctx = Ctx {
        float,
        geometry,
        mode: match lossy.mode {
            LossyMode::Ratio => MODE_RATIO,
            LossyMode::Fast => MODE_FAST,
        },
        pw_rel: (emode == EMODE_PWREL).then_some(e),
        bound,
        step,
        fills: fills.clone(),
        radius: RADIUS,
        // Ratio mode under `abs` and `rel` picks the better predictor per chunk.
        interp: lossy.mode == LossyMode::Ratio && emode != EMODE_PWREL,
        // Ratio mode codes runs of the zero delta where that pays.
        runs: lossy.mode == LossyMode::Ratio,
    };
    let params = Params {
        layout: LAYOUT,
        mode: ctx.mode,
        emode,
        geometry,
        radius: RADIUS,
        e,
        bound,
        step,
        exceptions: 0,
        fills,
    };
    Ok((ctx, params))
}

/// The context a decoder builds from the parameters.
pub fn decode_ctx(params: &Params, float: Float) -> Ctx {
    Ctx {
        float,
        geometry: params.geometry,
        mode: params.mode,
        pw_rel: (params.emode == EMODE_PWREL).then_some(params.e),
        bound: params.bound,
        step: params.step,
        fills: params.fills.clone(),
        radius: params.radius,
        interp: params.layout >= LAYOUT_INTERP,
        runs: params.layout >= LAYOUT_RUNS,
    }
}

/// Compresses `data` in chunks of `chunk_size` bytes (whole units of the geometry) on the CPU.
pub fn compress(
    data: &[u8],
    lossy: &LossyOptions,
    float: Float,
    chunk_size: u32,
) -> Result<(Vec<u8>, Vec<ChunkSpan>, Params)> {
    compress_with(data, lossy, float, chunk_size, |ctx| {
        data.par_chunks(chunk_size.max(1) as usize)
            .map(|c| encode_chunk_best(c, ctx))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                Error::InvalidArgument("sz input is not a whole number of rows or planes".into())
            })
    })
}

/// Compresses `data` in chunks of `chunk_size` bytes with `encode`, which turns the whole
/// input into its chunks under the plan's context (the CPU's chunks or a GPU encoder's, byte
/// for byte the same), and gathers the payload, the chunk spans and the params.
pub fn compress_with(
    data: &[u8],
    lossy: &LossyOptions,
    float: Float,
    chunk_size: u32,
    encode: impl FnOnce(&Ctx) -> Result<Vec<EncodedChunk>>,
) -> Result<(Vec<u8>, Vec<ChunkSpan>, Params)> {
    let (ctx, mut params) = plan(data, lossy, float)?;
    let chunks = encode(&ctx)?;
    if chunks.len() != data.chunks(chunk_size.max(1) as usize).len() {
        return Err(Error::Driver(format!(
            "the sz encoder gave {} chunks for {} bytes in chunks of {chunk_size}",
            chunks.len(),
            data.len()
        )));
    }
    let mut payload = Vec::with_capacity(chunks.iter().map(|c| c.bytes.len()).sum());
    let mut spans = Vec::with_capacity(chunks.len());
    for (chunk, raw) in chunks.iter().zip(data.chunks(chunk_size.max(1) as usize)) {
        let compressed_len = u32::try_from(chunk.bytes.len()).map_err(|_| {
            Error::InvalidArgument("an sz chunk does not fit the chunk table".into())
        })?;
        spans.push(ChunkSpan {
            offset: payload.len(),
            compressed_len,
            uncompressed_len: raw.len() as u32,
        });
        payload.extend_from_slice(&chunk.bytes);
        params.exceptions += chunk.exceptions;
        if chunk.bytes.first() == Some(&CHUNK_INTERP) {
            params.layout = params.layout.max(LAYOUT_INTERP);
        }
        if chunk.runs {
            params.layout = LAYOUT_RUNS;
        }
    }
    Ok((payload, spans, params))
}

/// Decodes chunks in parallel into `out`; the first failing chunk gives `Error::Corrupt`.
pub fn decompress_into(chunks: &[(&[u8], usize)], out: &mut [u8], ctx: &Ctx) -> Result<()> {
    let total = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "sz chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    let mut jobs: Vec<(usize, &[u8], &mut [u8])> = Vec::with_capacity(chunks.len());
    let mut rest = out;
    for (i, &(input, len)) in chunks.iter().enumerate() {
        let (dst, tail) = rest
            .split_at_mut_checked(len)
            .ok_or_else(|| Error::InvalidArgument("sz chunk lengths exceed output".into()))?;
        jobs.push((i, input, dst));
        rest = tail;
    }
    let failure = jobs
        .into_par_iter()
        .map(|(i, input, dst)| decode_chunk(input, dst, ctx).err().map(|s| (i, s)))
        .find_map_first(|f| f);
    match failure {
        Some((i, status)) => Err(Error::chunk(i, status)),
        None => Ok(()),
    }
}

/// A warning for a `rel` bound whose value range looks set by a fill value: an extreme value
/// held by many cells, far from every other value. `None` when nothing looks so.
pub fn range_warning(data: &[u8], lossy: &LossyOptions, float: Float) -> Option<String> {
    let ErrorBound::Rel(e) = lossy.bound else {
        return None;
    };
    let fills = fill_bits(&lossy.fill, float);
    let es = float.size();
    let st = stats(data, float, &fills);
    if st.max <= st.min {
        return None;
    }
    let n = data.len() / es;
    let mut count_min = 0usize;
    let mut count_max = 0usize;
    let mut inner_min = f64::INFINITY;
    let mut inner_max = f64::NEG_INFINITY;
    for v in data.chunks_exact(es) {
        let (bits, x) = float.load(v);
        if float.is_special(bits) || fills.contains(&bits) {
            continue;
        }
        if x == st.min {
            count_min += 1;
        } else if x == st.max {
            count_max += 1;
        } else {
            inner_min = inner_min.min(x);
            inner_max = inner_max.max(x);
        }
    }
    let range = st.max - st.min;
    let many = |c: usize| c >= 2 && c >= n / 1000;
    let show = |v: f64| match float {
        Float::F32 => format!("{:e}", v as f32),
        Float::F64 => format!("{v:e}"),
    };
    let check = |v: f64, count: usize, rest: f64| {
        (many(count) && rest.is_finite() && range > 100.0 * rest).then(|| {
            format!(
                "the value range {} of the bound rel:{e:e} is set by the value {}, which \
                 {count} values hold; if it is a fill value, pass --fill {} to keep it exact \
                 and out of the range",
                show(range),
                show(v),
                show(v)
            )
        })
    };
    let without_min = st.max.max(inner_max) - inner_min.min(st.max);
    let without_max = inner_max.max(st.min) - st.min.min(inner_min);
    check(st.min, count_min, without_min).or_else(|| check(st.max, count_max, without_max))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn geometries() {
        let g = |d: &[u64]| geometry(d, Float::F32).ok();
        assert_eq!(g(&[]).map(|g| g.ndim), Some(1));
        assert_eq!(g(&[7, 9]).map(|g| (g.ndim, g.nx)), Some((2, 9)));
        assert_eq!(g(&[2, 3, 4, 5]).map(|g| (g.ndim, g.ny, g.nx)), Some((3, 4, 5)));
        // 8 planes of 4096 x 4096 f32 are 512 MiB: cut as rows of 4096.
        assert_eq!(
            g(&[16, 4096, 4096]).map(|g| (g.ndim, g.ny, g.nx)),
            Some((2, 1, 4096))
        );
        let big = geometry(&[16, 4096, 4096], Float::F64).unwrap();
        assert!(chunk_size(big, Float::F64, None).is_ok());
        // A single row too long for a 16-row strip is refused.
        assert!(chunk_size(g(&[1, 1 << 21]).unwrap(), Float::F32, None).is_err());
    }
}
