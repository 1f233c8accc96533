//! `warpzip bench`: device-side and end-to-end throughput of every codec and primitive, with
//! the roofline measured in the same run (device-to-device and host-to-device copies); and the
//! reader and writer of the anchors' chunk files, which nvCOMP's anchor decodes too.

pub mod ablation;
pub mod chunk_file;
mod compact;
pub mod deflate;
pub mod inputs;
mod lz;
pub mod orc;
mod orc_arrow;
mod orc_file;
mod rle;
mod scan;
mod ssb;
mod sz;
pub use sz::{write_rate_distortion_plot, RdPoint};
pub mod tile;

use std::path::PathBuf;
use std::time::Instant;
use warpzip::device::Device;
use warpzip::error::{Error, Result};
use warpzip::gpu::GpuContext;

/// What to benchmark.
#[derive(Clone, Debug, Default)]
pub struct BenchOptions {
    /// Codec or primitive names (`rle`, `scan`, `select`); empty means all.
    pub codecs: Vec<String>,
    /// Input files; empty means generated inputs.
    pub files: Vec<PathBuf>,
    /// Size in bytes of generated inputs (default 1 GiB on a GPU, 64 MiB on the CPU).
    pub size: Option<usize>,
    /// Timed repetitions (median reported); at least 10.
    pub runs: usize,
    /// Where to write the generated inputs (raw little-endian columns), so that other programs
    /// (nvCOMP's anchor) can time the same bytes.
    pub dump_dir: Option<PathBuf>,
    /// Chunk size in bytes for codecs that take one (orc-rle, deflate); `None` for the codec's
    /// default (for deflate: the sweep 64 KiB, 128 KiB, 1 MiB).
    pub chunk_size: Option<usize>,
    /// libdeflate levels the deflate inputs are compressed at; empty means level 9.
    pub levels: Vec<i32>,
    /// Where the deflate bench writes the chunk files it makes (the anchors' format), so that
    /// nvCOMP's anchor can decode the very same bytes.
    pub write_chunks: Option<PathBuf>,
    /// The orc-rle bench's generated columns to measure (`l_orderkey`, `lo_orderdate`,
    /// `l_quantity`, `lo_discount`, `random`), and the columns of ORC files the orc bench
    /// decodes; empty means all.
    pub columns: Vec<String>,
}

impl BenchOptions {
    fn wants(&self, name: &str) -> bool {
        self.codecs.is_empty() || self.codecs.iter().any(|c| c == name)
    }
    /// Whether `--column` asks for the column `name` (all when it names none).
    fn wants_column(&self, name: &str) -> bool {
        self.columns.is_empty() || self.columns.iter().any(|c| c == name)
    }
    fn runs(&self) -> usize {
        self.runs.max(10)
    }
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

/// The same-run ceilings every roofline fraction is measured against.
#[derive(Clone, Copy, Debug)]
pub struct Ceilings {
    /// Device-to-device copy, GB/s counting bytes read plus bytes written.
    pub d2d_gbps: f64,
    /// Host-to-device copy from pinned memory, GB/s.
    pub h2d_gbps: f64,
    /// Device-to-host copy into pinned memory, GB/s.
    pub d2h_gbps: f64,
}

/// The names `--codec` takes.
pub const KNOWN_CODECS: &[&str] = &[
    "rle",
    "scan",
    "scan-sweep",
    "select",
    "orc-rle",
    "orc",
    "deflate",
    "for",
    "dfor",
    "rfor",
    "tile",
    "sz",
    "ssb",
    "snappy",
    "lz4",
];

/// Runs the benchmark and returns its rows (the caller prints and writes CSV).
pub fn run(device: &Device, opts: &BenchOptions) -> Result<Vec<BenchRow>> {
    let known = KNOWN_CODECS;
    if let Some(bad) = opts.codecs.iter().find(|c| !known.contains(&c.as_str())) {
        return Err(Error::InvalidArgument(format!(
            "bench knows no codec '{bad}' (known: {})",
            known.join(", ")
        )));
    }
    let mut rows = Vec::new();
    match device {
        Device::Gpu(gpu) => {
            let ceilings = measure_ceilings(gpu, opts, &mut rows)?;
            let rows = &mut rows;
            if opts.wants("scan") {
                with_peak(gpu, "scan", rows, |r| {
                    scan::bench_gpu(gpu, opts, &ceilings, r)
                })?;
            }
            // Tuning only: never part of the default set.
            if opts.codecs.iter().any(|c| c == "scan-sweep") {
                scan::sweep_gpu(gpu, opts, &ceilings, rows)?;
            }
            if opts.wants("rle") {
                with_peak(gpu, "rle", rows, |r| {
                    rle::bench_gpu(gpu, opts, &ceilings, r)
                })?;
            }
            if opts.wants("select") {
                with_peak(gpu, "select", rows, |r| {
                    compact::bench_gpu(gpu, opts, &ceilings, r)
                })?;
            }
            if opts.wants("orc-rle") {
                with_peak(gpu, "orc-rle", rows, |r| {
                    orc::bench_gpu(gpu, opts, &ceilings, r)
                })?;
            }
            // Real ORC files given on the command line.
            if opts.wants("orc") {
                with_peak(gpu, "orc", rows, |r| {
                    orc_file::bench_gpu(gpu, opts, &ceilings, r)
                })?;
                orc_arrow::bench(device, opts, rows)?;
            }
            if opts.wants("deflate") {
                with_peak(gpu, "deflate", rows, |r| {
                    deflate::bench(Some((gpu, &ceilings)), opts, r)
                })?;
            }
            tile::bench_gpu(gpu, opts, &ceilings, rows)?;
            // The SSB queries: only when named (they generate their tables first).
            if opts.codecs.iter().any(|c| c == "ssb") {
                ssb::bench(device, Some(&ceilings), opts, rows)?;
            }
            // The sz codec: both modes on the CPU, the fast mode on the GPU too.
            if opts.wants("sz") {
                sz::bench_cpu(opts, rows)?;
                sz::bench_gpu(gpu, opts, &ceilings, rows)?;
            }
            lz::bench(device, Some(&ceilings), opts, rows)?;
        }
        Device::Cpu => {
            if opts.wants("rle") {
                rle::bench_cpu(opts, &mut rows)?;
            }
            if opts.wants("select") {
                compact::bench_cpu(opts, &mut rows)?;
            }
            if opts.wants("orc-rle") {
                orc::bench_cpu(opts, &mut rows)?;
            }
            if opts.wants("orc") {
                orc_file::bench_cpu(opts, &mut rows)?;
                orc_arrow::bench(device, opts, &mut rows)?;
            }
            if opts.wants("deflate") {
                deflate::bench(None, opts, &mut rows)?;
            }
            tile::bench_cpu(opts, &mut rows)?;
            if opts.codecs.iter().any(|c| c == "ssb") {
                ssb::bench(device, None, opts, &mut rows)?;
            }
            if opts.wants("sz") {
                sz::bench_cpu(opts, &mut rows)?;
            }
            lz::bench(device, None, opts, &mut rows)?;
        }
    }
    Ok(rows)
}

/// Runs one codec's GPU benchmark and adds a row with the most device memory allocated at once
/// while it ran, beside what the project's rule allows its largest input (N bytes, from its
/// rows): input + output + a scratch of max(64 MiB, N/16). The benchmark's own buffers (copies
/// of the expected output, poisoned outputs) count too, so the row bounds the codec from above.
fn with_peak(
    gpu: &GpuContext,
    codec: &str,
    rows: &mut Vec<BenchRow>,
    f: impl FnOnce(&mut Vec<BenchRow>) -> Result<()>,
) -> Result<()> {
    gpu.synchronize()?;
    gpu.reset_peak_memory()?;
    let first = rows.len();
    f(rows)?;
    gpu.synchronize()?;
    let Some(peak) = gpu.peak_memory()? else {
        return Ok(());
    };
    let mib = |b: f64| b / f64::from(1u32 << 20);
    let note = match rows[first..].iter().max_by_key(|r| r.bytes) {
        Some(r) => {
            let n = r.bytes as f64;
            let coded = r.ratio.filter(|&x| x > 0.0).map_or(n, |x| n / x);
            let allowed = n + coded + (64.0 * f64::from(1u32 << 20)).max(n / 16.0);
            format!(
                "most allocated at once; largest input {:.1} MiB: the rule allows {:.1} MiB",
                mib(n),
                mib(allowed)
            )
        }
        None => "most allocated at once".into(),
    };
    rows.push(BenchRow {
        what: "peak device memory".into(),
        input: codec.into(),
        device: gpu.name().into(),
        bytes: peak,
        ratio: None,
        ms: 0.0,
        gbps: 0.0,
        roofline: None,
        note,
    });
    Ok(())
}

fn gbps(bytes: f64, ms: f64) -> f64 {
    bytes / (ms * 1e-3) / 1e9
}

/// Median wall-clock milliseconds of `runs` calls after one warm-up.
pub(crate) fn wall_ms(runs: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(warpzip::gpu::median(&times))
}

fn measure_ceilings(
    gpu: &GpuContext,
    opts: &BenchOptions,
    rows: &mut Vec<BenchRow>,
) -> Result<Ceilings> {
    let n: usize = 1 << 30;
    let src_host = inputs::noise(64 << 20);
    let src = gpu.upload(&inputs::tiled(&src_host, n))?;
    let mut dst = gpu.alloc::<u8>(n)?;
    let stream = gpu.stream().clone();
    let times = gpu.time_ms(3, opts.runs(), || {
        stream.memcpy_dtod(&src, &mut dst)?;
        Ok(())
    })?;
    let ms = warpzip::gpu::median(&times);
    let d2d_gbps = gbps(2.0 * n as f64, ms);
    rows.push(BenchRow {
        what: "memcpy d2d".into(),
        input: "1 GiB".into(),
        device: gpu.name().into(),
        bytes: n as u64,
        ratio: None,
        ms,
        gbps: gbps(n as f64, ms),
        roofline: Some(1.0),
        note: format!("roofline: {d2d_gbps:.0} GB/s read+write"),
    });
    drop(dst);
    // Host <-> device through pinned memory, 256 MiB.
    let m: usize = 256 << 20;
    let mut pinned = gpu.alloc_pinned(m)?;
    let mut dev = gpu.alloc::<u8>(m)?;
    let src_view = src.slice(0..m);
    stream.memcpy_dtoh(&src_view, &mut pinned)?;
    let times = gpu.time_ms(2, opts.runs(), || {
        stream.memcpy_htod(&pinned, &mut dev)?;
        Ok(())
    })?;
    let h2d_ms = warpzip::gpu::median(&times);
    let h2d_gbps = gbps(m as f64, h2d_ms);
    let times = gpu.time_ms(2, opts.runs(), || {
        stream.memcpy_dtoh(&dev, &mut pinned)?;
        Ok(())
    })?;
    let d2h_ms = warpzip::gpu::median(&times);
    let d2h_gbps = gbps(m as f64, d2h_ms);
    // Both directions at once, on two streams: what a pipeline whose output is as large as its
    // input (incompressible data) can move each way. Reported, not used as a roofline.
    let mut pinned_back = gpu.alloc_pinned(m)?;
    let mut dev_in = gpu.alloc::<u8>(m)?;
    let (up, down) = (gpu.new_stream()?, gpu.new_stream()?);
    let both_ms = wall_ms(opts.runs(), || {
        up.memcpy_htod(&pinned, &mut dev_in)?;
        down.memcpy_dtoh(&dev, &mut pinned_back)?;
        up.synchronize()?;
        down.synchronize()?;
        Ok(())
    })?;
    drop((pinned_back, dev_in));
    let ceiling = "end-to-end ceiling";
    for (what, ms, g, note) in [
        ("memcpy h2d pinned", h2d_ms, h2d_gbps, ceiling),
        ("memcpy d2h pinned", d2h_ms, d2h_gbps, ceiling),
        (
            "memcpy h2d + d2h pinned, at once",
            both_ms,
            gbps(m as f64, both_ms),
            "GB/s each way, 256 MiB up and 256 MiB down on two streams",
        ),
    ] {
        rows.push(BenchRow {
            what: what.into(),
            input: "256 MiB".into(),
            device: gpu.name().into(),
            bytes: m as u64,
            ratio: None,
            ms,
            gbps: g,
            roofline: None,
            note: note.into(),
        });
    }
    Ok(Ceilings {
        d2d_gbps,
        h2d_gbps,
        d2h_gbps,
    })
}
