//! `warpzip bench`: device-side and end-to-end throughput of every codec and primitive, with
//! the roofline measured in the same run (device-to-device and host-to-device copies).

use crate::device::Device;
use crate::error::{Error, Result};
use std::path::PathBuf;

/// What to benchmark.
#[derive(Clone, Debug, Default)]
pub struct BenchOptions {
    /// Codec or primitive names (`rle`, `scan`, ...); empty means all.
    pub codecs: Vec<String>,
    /// Input files; empty means generated inputs.
    pub files: Vec<PathBuf>,
    /// Size in bytes of generated inputs (default 1 GiB on a GPU, 64 MiB on the CPU).
    pub size: Option<usize>,
    /// Timed repetitions (median reported); at least 10.
    pub runs: usize,
}

/// One line of the result table.
#[derive(Clone, Debug)]
pub struct BenchRow {
    /// What was measured: `rle decode`, `scan u32`, `memcpy d2d`, ...
    pub what: String,
    /// Input description.
    pub input: String,
    /// Device label.
    pub device: String,
    /// Uncompressed bytes.
    pub bytes: u64,
    /// Compression ratio (uncompressed / compressed), when meaningful.
    pub ratio: Option<f64>,
    /// Median milliseconds.
    pub ms: f64,
    /// GB/s of uncompressed bytes.
    pub gbps: f64,
    /// Fraction of the same-run roofline, when meaningful.
    pub roofline: Option<f64>,
    /// Free-form note (baseline used, etc.).
    pub note: String,
}

/// Runs the benchmark and returns its rows (the caller prints and writes CSV).
pub fn run(_device: &Device, _opts: &BenchOptions) -> Result<Vec<BenchRow>> {
    Err(Error::Unsupported("bench not written yet".into()))
}
