//! What a caller asks of the `sz` codec: the error bound, the field's dimensions, its fill
//! values and the mode. Carried by `CompressOptions::lossy`.

use crate::error::{Error, Result};

/// The error bound every reconstructed value keeps.
#[derive(Clone, Copy, Debug)]
pub enum ErrorBound {
    /// `|x - x'| <= E`.
    Abs(f64),
    /// `|x - x'| <= E * (max - min)`, the range taken over the finite values that are not fill
    /// values.
    Rel(f64),
    /// `|x - x'| <= E * |x|`, point-wise.
    PwRel(f64),
}

impl ErrorBound {
    /// Parses `abs:E`, `rel:E` or `pw-rel:E` with `E` a positive finite number.
    pub fn parse(s: &str) -> Result<ErrorBound> {
        let (mode, value) = s.split_once(':').ok_or_else(|| {
            Error::InvalidArgument(format!(
                "error bound '{s}' is not MODE:E (abs:1e-3, rel:1e-4, pw-rel:1e-2)"
            ))
        })?;
        let e: f64 = value.trim().parse().map_err(|_| {
            Error::InvalidArgument(format!("error bound value '{value}' is not a number"))
        })?;
        if !(e.is_finite() && e > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "error bound value {value} must be positive and finite"
            )));
        }
        match mode.trim() {
            "abs" => Ok(ErrorBound::Abs(e)),
            "rel" => Ok(ErrorBound::Rel(e)),
            "pw-rel" | "pwrel" | "pw_rel" => {
                if e >= 1.0 {
                    return Err(Error::InvalidArgument(format!(
                        "a point-wise relative bound must be below 1 (got {value})"
                    )));
                }
                Ok(ErrorBound::PwRel(e))
            }
            other => Err(Error::InvalidArgument(format!(
                "unknown error-bound mode '{other}' (known: abs, rel, pw-rel)"
            ))),
        }
    }

    /// The bound's number `E`.
    pub fn value(self) -> f64 {
        match self {
            ErrorBound::Abs(e) | ErrorBound::Rel(e) | ErrorBound::PwRel(e) => e,
        }
    }

    /// The mode's name as `--eb` spells it.
    pub fn mode_name(self) -> &'static str {
        match self {
            ErrorBound::Abs(_) => "abs",
            ErrorBound::Rel(_) => "rel",
            ErrorBound::PwRel(_) => "pw-rel",
        }
    }

    /// The byte the codec parameters store for the mode.
    pub(crate) fn mode_byte(self) -> u8 {
        match self {
            ErrorBound::Abs(_) => 0,
            ErrorBound::Rel(_) => 1,
            ErrorBound::PwRel(_) => 2,
        }
    }
}

impl PartialEq for ErrorBound {
    fn eq(&self, other: &Self) -> bool {
        self.mode_byte() == other.mode_byte() && self.value().to_bits() == other.value().to_bits()
    }
}

impl Eq for ErrorBound {}

impl std::fmt::Display for ErrorBound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{:e}", self.mode_name(), self.value())
    }
}

/// The ratio mode (Huffman-coded quantization codes) or the fast mode (fixed-length bit-packing
/// per block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum LossyMode {
    /// Quantization codes within a radius, canonical Huffman coded per chunk; outliers sparse.
    #[default]
    Ratio,
    /// Every block's codes bit-packed at the block's own width; zero blocks cost one byte.
    Fast,
}

impl LossyMode {
    /// Parses `ratio` or `fast`.
    pub fn parse(s: &str) -> Result<LossyMode> {
        match s {
            "ratio" => Ok(LossyMode::Ratio),
            "fast" => Ok(LossyMode::Fast),
            other => Err(Error::InvalidArgument(format!(
                "unknown sz mode '{other}' (known: ratio, fast)"
            ))),
        }
    }

    /// The mode's name.
    pub fn name(self) -> &'static str {
        match self {
            LossyMode::Ratio => "ratio",
            LossyMode::Fast => "fast",
        }
    }
}

/// Options of the lossy `sz` codec.
#[derive(Clone, Debug)]
pub struct LossyOptions {
    /// The bound every value keeps.
    pub bound: ErrorBound,
    /// Dimensions, slowest first; empty for a flat 1-D field. Four and more dimensions are
    /// compressed as a 3-D field whose slowest dimension is the product of the leading ones.
    pub dims: Vec<u64>,
    /// Fill values, kept bit-exact and left out of a `rel` bound's value range.
    pub fill: Vec<f64>,
    /// Ratio or fast.
    pub mode: LossyMode,
}

impl LossyOptions {
    /// Options with `bound`, a flat field, no fill values, ratio mode.
    pub fn new(bound: ErrorBound) -> LossyOptions {
        LossyOptions {
            bound,
            dims: Vec::new(),
            fill: Vec::new(),
            mode: LossyMode::Ratio,
        }
    }
}

impl PartialEq for LossyOptions {
    fn eq(&self, other: &Self) -> bool {
        self.bound == other.bound
            && self.dims == other.dims
            && self.mode == other.mode
            && self.fill.len() == other.fill.len()
            && self
                .fill
                .iter()
                .zip(&other.fill)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for LossyOptions {}

/// Parses `--dims` such as `100x500x500` (slowest first).
pub fn parse_dims(s: &str) -> Result<Vec<u64>> {
    let dims: Vec<u64> = s
        .split(['x', 'X', ','])
        .map(|d| d.trim().parse::<u64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            Error::InvalidArgument(format!("dims '{s}' are not sizes such as 100x500x500"))
        })?;
    if dims.is_empty() || dims.contains(&0) {
        return Err(Error::InvalidArgument(format!(
            "dims '{s}' must be one or more positive sizes"
        )));
    }
    Ok(dims)
}
