//! Distortion of a decompressed float field against its original: the statistics SZ's
//! `compareData` prints, and the values that break a bound, counted exactly.

use super::options::ErrorBound;
use super::quant::{range_down, round_down, within, Float};
use crate::error::{Error, Result};
use crate::format::ElemType;

/// What [`compare`] measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// Values compared.
    pub count: u64,
    /// Smallest and largest finite original value.
    pub min: f64,
    /// See `min`.
    pub max: f64,
    /// `max - min`.
    pub range: f64,
    /// Largest `|x - x'|` over pairs of finite values.
    pub max_abs_error: f64,
    /// `max_abs_error / range`.
    pub max_rel_error: f64,
    /// Largest `|x - x'| / |x|` over nonzero finite originals.
    pub max_pw_rel_error: f64,
    /// `20 log10(range) - 10 log10(mse)`.
    pub psnr: f64,
    /// `sqrt(mse) / range`.
    pub nrmse: f64,
    /// Pairs whose bits differ where either value is not finite (NaN, infinities).
    pub special_mismatches: u64,
    /// Values breaking the bound, when one was given; and the first such index.
    pub violations: Option<u64>,
    /// Index of the first violation.
    pub first_violation: Option<u64>,
}

/// Compares `decompressed` with `original`, both values of `elem` (f32 or f64), and counts the
/// values breaking `bound` (checked exactly; a `rel` bound's range is the originals').
pub fn compare(
    original: &[u8],
    decompressed: &[u8],
    elem: ElemType,
    bound: Option<ErrorBound>,
) -> Result<Comparison> {
    let float = match elem {
        ElemType::F32 => Float::F32,
        ElemType::F64 => Float::F64,
        other => {
            return Err(Error::InvalidArgument(format!(
                "compare reads f32 or f64 values, not {other}"
            )))
        }
    };
    let es = float.size();
    if original.len() != decompressed.len() || !original.len().is_multiple_of(es) {
        return Err(Error::InvalidArgument(format!(
            "the files hold {} and {} bytes: not the same number of {elem} values",
            original.len(),
            decompressed.len()
        )));
    }
    let mut c = Comparison {
        count: (original.len() / es) as u64,
        min: f64::INFINITY,
        max: f64::NEG_INFINITY,
        ..Comparison::default()
    };
    for v in original.chunks_exact(es) {
        let (_, x) = float.load(v);
        if x.is_finite() {
            c.min = c.min.min(x);
            c.max = c.max.max(x);
        }
    }
    if c.max < c.min {
        c.min = 0.0;
        c.max = 0.0;
    }
    c.range = c.max - c.min;
    let abs_bound = match bound {
        Some(ErrorBound::Abs(e)) => Some(e),
        Some(ErrorBound::Rel(e)) => Some(round_down(e * range_down(c.max, c.min)).max(0.0)),
        _ => None,
    };
    let mut sq = 0.0f64;
    let mut finite = 0u64;
    let mut violations = 0u64;
    for (i, (a, b)) in original
        .chunks_exact(es)
        .zip(decompressed.chunks_exact(es))
        .enumerate()
    {
        let (ab, x) = float.load(a);
        let (bb, y) = float.load(b);
        if !(x.is_finite() && y.is_finite()) {
            if ab != bb {
                c.special_mismatches += 1;
                if bound.is_some() {
                    violations += 1;
                    c.first_violation.get_or_insert(i as u64);
                }
            }
            continue;
        }
        let d = (x - y).abs();
        c.max_abs_error = c.max_abs_error.max(d);
        if x != 0.0 {
            c.max_pw_rel_error = c.max_pw_rel_error.max(d / x.abs());
        }
        sq += d * d;
        finite += 1;
        let ok = match (bound, abs_bound) {
            (Some(ErrorBound::PwRel(e)), _) => within(x, y, e * x.abs()),
            (_, Some(b)) => within(x, y, b),
            _ => true,
        };
        if !ok {
            violations += 1;
            c.first_violation.get_or_insert(i as u64);
        }
    }
    let mse = if finite > 0 { sq / finite as f64 } else { 0.0 };
    c.max_rel_error = if c.range > 0.0 {
        c.max_abs_error / c.range
    } else {
        0.0
    };
    c.psnr = if mse > 0.0 && c.range > 0.0 {
        20.0 * c.range.log10() - 10.0 * mse.log10()
    } else {
        f64::INFINITY
    };
    c.nrmse = if c.range > 0.0 {
        mse.sqrt() / c.range
    } else {
        0.0
    };
    c.violations = bound.map(|_| violations);
    Ok(c)
}
