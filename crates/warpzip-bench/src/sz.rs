//! sz benchmark: ratio, throughput and distortion of the lossy codec per field, mode and
//! range-relative bound (1e-2, 1e-3, 1e-4), on the CPU (every core of the rayon pool), and of
//! the fast mode on the GPU; every round trip is checked for bound violations, exactly, and
//! every GPU result against the CPU's.

use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use warpzip::api::{self, CompressOptions};
use warpzip::codec::sz::cpu::Ctx;
use warpzip::codec::sz::format::Params;
use warpzip::codec::sz::gpu as sz_gpu;
use warpzip::codec::sz::{chunked, quant::Float};
use warpzip::codec::{compare, CodecId, Comparison, ErrorBound, LossyMode, LossyOptions};
use warpzip::device::Device;
use warpzip::error::{Error, Result};
use warpzip::format::Container;
use warpzip::format::ElemType;
use warpzip::gpu::GpuContext;

/// Dimensions in a file name such as `etopo20.ROSE.540x1081.f32` (slowest first), if any.
pub fn dims_from_name(name: &str) -> Vec<u64> {
    name.split(['.', '_'])
        .filter(|part| part.contains('x'))
        .find_map(|part| {
            let dims: Option<Vec<u64>> = part.split('x').map(|d| d.parse().ok()).collect();
            dims.filter(|d| d.len() >= 2 && !d.contains(&0))
        })
        .unwrap_or_default()
}

/// A smooth generated 3-D f32 field of about `bytes` bytes: `(n, 256, 256)`.
fn generated(bytes: usize) -> (Vec<u8>, Vec<u64>) {
    let plane = 256 * 256;
    let n = (bytes / 4 / plane).max(1);
    let mut out = Vec::with_capacity(n * plane * 4);
    for z in 0..n {
        for y in 0..256 {
            for x in 0..256 {
                let v = ((x as f32) * 0.05).sin() * ((y as f32) * 0.03).cos() * 100.0
                    + (z as f32) * 0.5
                    + ((x * 7 + y * 13 + z * 17) % 11) as f32 * 0.01;
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    (out, vec![n as u64, 256, 256])
}

/// A field to measure: its name, its bytes and its dimensions (slowest first; empty if flat).
type Field = (String, Vec<u8>, Vec<u64>);

/// The fields to measure: the files given, else a smooth field generated at `--size` (by
/// default `default_size` bytes, at most `cap`).
fn inputs(opts: &BenchOptions, default_size: usize, cap: usize) -> Result<Vec<Field>> {
    let mut inputs = Vec::new();
    if opts.files.is_empty() {
        let (data, dims) = generated(opts.size.unwrap_or(default_size).min(cap));
        inputs.push((format!("smooth {}x256x256 f32", dims[0]), data, dims));
    } else {
        for path in &opts.files {
            let data = std::fs::read(path)?;
            let name = path
                .file_name()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            let dims = dims_from_name(&name);
            inputs.push((name, data, dims));
        }
    }
    Ok(inputs)
}

/// The lossy options of f32 values of `dims` in `mode` at `bound`.
fn lossy_options(dims: &[u64], mode: LossyMode, bound: ErrorBound) -> LossyOptions {
    LossyOptions {
        bound,
        dims: dims.to_vec(),
        fill: Vec::new(),
        mode,
    }
}

/// The options compressing f32 values with sz and `lossy`.
fn sz_options(lossy: LossyOptions) -> CompressOptions {
    CompressOptions {
        elem_type: Some(ElemType::F32),
        lossy: Some(lossy),
        ..CompressOptions::for_codec(CodecId::Sz)
    }
}

/// What the rows of one field's stream on one device share: the field's name and size, the
/// device and the ratio of the field over the stream.
struct RowBase<'a> {
    name: &'a str,
    device: String,
    bytes: usize,
    ratio: f64,
}

impl RowBase<'_> {
    /// The row of `what`, timed at `ms`.
    fn row(&self, what: String, ms: f64, note: String) -> BenchRow {
        BenchRow {
            what,
            input: self.name.to_string(),
            device: self.device.clone(),
            bytes: self.bytes as u64,
            ratio: Some(self.ratio),
            ms,
            gbps: gbps(self.bytes as f64, ms),
            roofline: None,
            note,
        }
    }

    /// The rows `sz MODE compress BOUND` and `sz MODE decompress BOUND`, timed at `enc_ms`
    /// and `dec_ms`, with the same note.
    fn compress_decompress(
        &self,
        mode: &str,
        bound: ErrorBound,
        enc_ms: f64,
        dec_ms: f64,
        note: &str,
        rows: &mut Vec<BenchRow>,
    ) {
        for (what, ms) in [("compress", enc_ms), ("decompress", dec_ms)] {
            rows.push(self.row(format!("sz {mode} {what} {bound}"), ms, note.to_string()));
        }
    }
}

/// Compresses `data` (f32, `dims`) in `mode` at `bound` on the CPU, decodes it and checks every
/// value against the bound exactly: the container and the comparison, or an error naming
/// `what` and `name` when any value breaks the bound.
fn checked_round_trip(
    data: &[u8],
    dims: &[u64],
    mode: LossyMode,
    bound: ErrorBound,
    what: &str,
    name: &str,
) -> Result<(CompressOptions, Vec<u8>, Comparison)> {
    let o = sz_options(lossy_options(dims, mode, bound));
    let wz = api::compress(data, &o, &Device::Cpu)?;
    let back = api::decompress(&wz, &Device::Cpu)?;
    let c = compare(data, &back, ElemType::F32, Some(bound))?;
    if c.violations != Some(0) {
        return Err(Error::InvalidArgument(format!(
            "{what}: {name} at {bound} broke the bound {:?} times",
            c.violations
        )));
    }
    Ok((o, wz, c))
}

pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let threads = rayon::current_num_threads();
    for (name, data, dims) in inputs(opts, 16 << 20, 256 << 20)? {
        let n = data.len();
        if n == 0 || n % 4 != 0 {
            continue;
        }
        let runs = opts.runs().min(10);
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            for e in [1e-2, 1e-3, 1e-4] {
                let bound = ErrorBound::Rel(e);
                let (o, wz, c) = checked_round_trip(&data, &dims, mode, bound, "sz bench", &name)?;
                let enc_ms = wall_ms(runs, || api::compress(&data, &o, &Device::Cpu).map(|_| ()))?;
                let dec_ms = wall_ms(runs, || api::decompress(&wz, &Device::Cpu).map(|_| ()))?;
                let base = RowBase {
                    name: &name,
                    device: "cpu".into(),
                    bytes: n,
                    ratio: n as f64 / wz.len() as f64,
                };
                let note = format!(
                    "{threads} threads; PSNR {:.1} dB, max rel error {:.3e}, 0 violations",
                    c.psnr, c.max_rel_error
                );
                base.compress_decompress(mode.name(), bound, enc_ms, dec_ms, &note, rows);
            }
        }
    }
    Ok(())
}

/// A GPU decoder of sz chunks: `sz_gpu::decompress_fast` or `sz_gpu::decompress_ratio`.
type GpuDecode = fn(&GpuContext, &[(&[u8], usize)], &mut [u8], &Ctx) -> Result<()>;

/// A stream the CPU wrote, ready for a GPU decoder, whose output was checked equal to the
/// CPU's.
struct GpuStream<'a> {
    params: Params,
    ctx: Ctx,
    chunks: Vec<(&'a [u8], usize)>,
    /// The GPU decoder's output (`n` bytes).
    out: Vec<u8>,
}

/// Decodes `wz` (a stream of `n` bytes the CPU wrote from the field `name` at `bound`) on the
/// CPU and with `decode` on the GPU: the stream's pieces, or an error naming `what` (the
/// decode, in words) when the GPU's output is not the CPU's bit for bit.
fn gpu_decode_checked<'a>(
    gpu: &GpuContext,
    wz: &'a [u8],
    n: usize,
    decode: GpuDecode,
    what: &str,
    name: &str,
    bound: ErrorBound,
) -> Result<GpuStream<'a>> {
    let cpu = api::decompress(wz, &Device::Cpu)?;
    let c = Container::parse(wz)?;
    let params = Params::parse(&c.header.codec_params, c.header.elem_type)?;
    let ctx = chunked::decode_ctx(&params, Float::F32);
    let chunks = c.chunk_list();
    let mut out = vec![0xa5u8; n];
    decode(gpu, &chunks, &mut out, &ctx)?;
    if out != cpu {
        return Err(Error::InvalidArgument(format!(
            "sz bench: the GPU {what} of {name} at {bound} differs from the CPU's"
        )));
    }
    Ok(GpuStream {
        params,
        ctx,
        chunks,
        out,
    })
}

/// Fast mode on the GPU, host memory to host memory (uploads, kernels and downloads timed
/// together): the GPU decoder's output must equal the CPU's bit for bit, and the GPU encoder's
/// chunks the CPU encoder's, before anything is timed.
pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    for (name, data, dims) in inputs(opts, 16 << 20, 256 << 20)? {
        let n = data.len();
        if n == 0 || n % 4 != 0 {
            continue;
        }
        let runs = opts.runs();
        for e in [1e-2, 1e-3, 1e-4] {
            let bound = ErrorBound::Rel(e);
            let lossy = lossy_options(&dims, LossyMode::Fast, bound);
            let o = sz_options(lossy.clone());
            let wz = api::compress(&data, &o, &Device::Cpu)?;
            let GpuStream {
                ctx,
                chunks,
                mut out,
                ..
            } = gpu_decode_checked(gpu, &wz, n, sz_gpu::decompress_fast, "decode", &name, bound)?;
            let chunk_size = api::validate_options(&o)? as usize;
            let (enc_ctx, _) = chunked::plan(&data, &lossy, Float::F32)?;
            let on_gpu = sz_gpu::compress_fast(gpu, &data, chunk_size, &enc_ctx)?;
            let same = on_gpu.len() == chunks.len()
                && on_gpu.iter().zip(&chunks).all(|(g, (b, _))| g.bytes == *b);
            if !same {
                return Err(Error::InvalidArgument(format!(
                    "sz bench: the GPU encoding of {name} at {bound} differs from the CPU's"
                )));
            }
            let dec_ms = wall_ms(runs, || {
                sz_gpu::decompress_fast(gpu, &chunks, &mut out, &ctx)
            })?;
            let enc_ms = wall_ms(runs, || {
                sz_gpu::compress_fast(gpu, &data, chunk_size, &enc_ctx).map(drop)
            })?;
            let base = RowBase {
                name: &name,
                device: gpu.name().into(),
                bytes: n,
                ratio: n as f64 / wz.len() as f64,
            };
            bench_ratio_gpu(gpu, &name, &data, &dims, bound, runs, ceilings, rows)?;
            let note = format!(
                "host to host (uploads, kernels, downloads); same-run pinned copies \
                 H2D {:.1} / D2H {:.1} GB/s; output equal to the CPU's",
                ceilings.h2d_gbps, ceilings.d2h_gbps
            );
            base.compress_decompress("fast", bound, enc_ms, dec_ms, &note, rows);
        }
    }
    Ok(())
}

/// Ratio mode on the GPU (`sz_gpu::decompress_ratio`), host memory to host memory like the
/// fast mode's rows: the stream the CPU writes (each chunk Lorenzo or interpolated, runs where
/// they pay), its GPU decode checked equal to the CPU's bit for bit before it is timed.
#[allow(clippy::too_many_arguments)]
fn bench_ratio_gpu(
    gpu: &GpuContext,
    name: &str,
    data: &[u8],
    dims: &[u64],
    bound: ErrorBound,
    runs: usize,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let n = data.len();
    let lossy = lossy_options(dims, LossyMode::Ratio, bound);
    let o = sz_options(lossy.clone());
    let wz = api::compress(data, &o, &Device::Cpu)?;
    let GpuStream {
        params,
        ctx,
        chunks,
        mut out,
    } = gpu_decode_checked(
        gpu,
        &wz,
        n,
        sz_gpu::decompress_ratio,
        "ratio-mode decode",
        name,
        bound,
    )?;
    let ms = wall_ms(runs, || {
        sz_gpu::decompress_ratio(gpu, &chunks, &mut out, &ctx)
    })?;
    let chunk_size = api::validate_options(&o)? as usize;
    let (enc_ctx, _) = chunked::plan(data, &lossy, Float::F32)?;
    let on_gpu = sz_gpu::compress_ratio(gpu, data, chunk_size, &enc_ctx)?;
    let same =
        on_gpu.len() == chunks.len() && on_gpu.iter().zip(&chunks).all(|(g, (b, _))| g.bytes == *b);
    if !same {
        return Err(Error::InvalidArgument(format!(
            "sz bench: the GPU ratio-mode encoding of {name} at {bound} differs from the CPU's"
        )));
    }
    let enc_ms = wall_ms(runs, || {
        sz_gpu::compress_ratio(gpu, data, chunk_size, &enc_ctx).map(drop)
    })?;
    let base = RowBase {
        name,
        device: gpu.name().into(),
        bytes: n,
        ratio: n as f64 / wz.len() as f64,
    };
    rows.push(base.row(
        format!("sz ratio compress {bound}"),
        enc_ms,
        format!(
            "host to host (uploads, kernels, downloads; varint headers, tables and the \
             Deflate pass on the host); same-run pinned copies H2D {:.1} / D2H {:.1} GB/s; \
             output equal to the CPU's",
            ceilings.h2d_gbps, ceilings.d2h_gbps
        ),
    ));
    rows.push(base.row(
        format!("sz ratio decompress {bound}"),
        ms,
        format!(
            "host to host (header reading, inflating and codebooks on the host; uploads, \
             kernels, downloads); layout {}; same-run pinned copies H2D {:.1} / D2H {:.1} GB/s; \
             output equal to the CPU's",
            params.layout, ceilings.h2d_gbps, ceilings.d2h_gbps
        ),
    ));
    Ok(())
}

/// SZ3 and ZFP on the fill-free test fields, measured on a CPU by `scripts/sz_reference.py`
/// (its first line names the package versions).
const REFERENCE_CSV: &str = include_str!("../data/sz_reference.csv");

/// nvCOMP Bitcomp's lossy mode on the etopo20 field, measured on a GPU by the anchor harness
/// (ratio and a checked max error; its PSNR column is the lower bound that max error gives).
const BITCOMP_CSV: &str = include_str!("../data/sz_bitcomp.csv");

/// One point of a rate-distortion curve.
#[derive(Clone, Debug)]
pub struct RdPoint {
    /// `warpzip ratio`, `warpzip fast`, `SZ3` or `ZFP`.
    pub codec: String,
    /// The field's file name (or the generated field's description).
    pub field: String,
    /// The range-relative bound.
    pub rel: f64,
    /// Compressed bits per value.
    pub bits_per_value: f64,
    /// Range-based PSNR in dB.
    pub psnr: f64,
}

/// The reference points of [`REFERENCE_CSV`] and the line naming the versions they were
/// measured with.
pub fn reference_points() -> (String, Vec<RdPoint>) {
    let mut note = String::new();
    let mut points = Vec::new();
    for line in REFERENCE_CSV.lines().chain(BITCOMP_CSV.lines()) {
        if let Some(c) = line.strip_prefix("# ") {
            if note.is_empty() {
                note = c.to_string();
            }
            continue;
        }
        let f: Vec<&str> = line.split(',').collect();
        let parsed = (
            f.get(2)
                .and_then(|b| b.strip_prefix("rel:"))
                .and_then(|b| b.parse::<f64>().ok()),
            f.get(3).and_then(|b| b.parse::<f64>().ok()),
            f.get(4).and_then(|b| b.parse::<f64>().ok()),
        );
        if let (Some(rel), Some(bits_per_value), Some(psnr)) = parsed {
            points.push(RdPoint {
                codec: f[0].to_string(),
                field: f[1].to_string(),
                rel,
                bits_per_value,
                psnr,
            });
        }
    }
    (note, points)
}

/// Bits per value and PSNR of both modes at range-relative bounds 1e-1 to 1e-6 on every
/// input (the files of `opts`, else a generated field); every round trip checked exactly.
pub fn rate_distortion(opts: &BenchOptions) -> Result<Vec<RdPoint>> {
    let mut points = Vec::new();
    for (name, data, dims) in inputs(opts, 4 << 20, 64 << 20)? {
        if data.is_empty() || data.len() % 4 != 0 {
            continue;
        }
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            for k in 1..=6 {
                let bound = ErrorBound::Rel(10f64.powi(-k));
                let (_, wz, c) =
                    checked_round_trip(&data, &dims, mode, bound, "sz rate distortion", &name)?;
                points.push(RdPoint {
                    codec: format!("warpzip {}", mode.name()),
                    field: name.clone(),
                    rel: bound.value(),
                    bits_per_value: 8.0 * wz.len() as f64 / (data.len() / 4) as f64,
                    psnr: c.psnr,
                });
            }
        }
    }
    Ok(points)
}

/// A TrueType font for the plot's text: `WARPZIP_FONT`, else DejaVu Sans or Liberation Sans
/// where the system has them.
fn plot_font() -> Result<&'static [u8]> {
    static FONT: std::sync::OnceLock<Option<&'static [u8]>> = std::sync::OnceLock::new();
    let font = FONT.get_or_init(|| {
        let mut candidates: Vec<std::path::PathBuf> = Vec::new();
        if let Some(p) = std::env::var_os("WARPZIP_FONT") {
            candidates.push(p.into());
        }
        for p in [
            "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/dejavu/DejaVuSans.ttf",
            "/usr/share/fonts/TTF/DejaVuSans.ttf",
            "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
            "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        ] {
            candidates.push(p.into());
        }
        candidates
            .iter()
            .find_map(|p| std::fs::read(p).ok())
            .map(|bytes| &*Box::leak(bytes.into_boxed_slice()))
    });
    font.ok_or_else(|| {
        Error::InvalidArgument(
            "the plot needs a TrueType font: set WARPZIP_FONT to a .ttf file".into(),
        )
    })
}

/// Writes the rate-distortion plot of `points` (bits per value against PSNR, one line per
/// codec and field) as a PNG at `path`; `note` names how the reference points were measured.
pub fn plot_rate_distortion(points: &[RdPoint], note: &str, path: &std::path::Path) -> Result<()> {
    use plotters::prelude::*;
    let plot_err = |e: String| Error::InvalidArgument(format!("rate-distortion plot: {e}"));
    let font = plot_font()?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, font)
        .map_err(|_| plot_err("the font is not a TrueType font".into()))?;
    let finite: Vec<&RdPoint> = points
        .iter()
        .filter(|p| p.psnr.is_finite() && p.bits_per_value.is_finite())
        .collect();
    let x_max = finite
        .iter()
        .map(|p| p.bits_per_value)
        .fold(1.0f64, f64::max)
        * 1.05;
    let y_min = finite.iter().map(|p| p.psnr).fold(f64::INFINITY, f64::min);
    let y_max = finite
        .iter()
        .map(|p| p.psnr)
        .fold(f64::NEG_INFINITY, f64::max);
    let (y_min, y_max) = if y_min <= y_max {
        ((y_min - 5.0).max(0.0), y_max + 5.0)
    } else {
        (0.0, 160.0)
    };
    let root = BitMapBackend::new(path, (1200, 800)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_err(e.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "sz: bits per value against PSNR, range-relative bounds 1e-1 to 1e-6",
            ("sans-serif", 24),
        )
        .margin(20)
        .x_label_area_size(70)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..x_max, y_min..y_max)
        .map_err(|e| plot_err(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("bits per value")
        .y_desc("PSNR (dB)")
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(|e| plot_err(e.to_string()))?;
    let mut series: Vec<(String, String)> = Vec::new();
    for p in &finite {
        let key = (p.codec.clone(), p.field.clone());
        if !series.contains(&key) {
            series.push(key);
        }
    }
    for (i, (codec, field)) in series.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        // Joined from the loosest bound to the tightest.
        let mut ordered: Vec<&&RdPoint> = finite
            .iter()
            .filter(|p| &p.codec == codec && &p.field == field)
            .collect();
        ordered.sort_by(|a, b| b.rel.total_cmp(&a.rel));
        let pts: Vec<(f64, f64)> = ordered.iter().map(|p| (p.bits_per_value, p.psnr)).collect();
        let reference = !codec.starts_with("warpzip");
        let label = if codec.starts_with("nvCOMP") {
            format!("{codec} on {field} (GPU reference)")
        } else if reference {
            format!("{codec} on {field} (CPU reference)")
        } else {
            format!("{codec} on {field}")
        };
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(|e| plot_err(e.to_string()))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
            });
        if reference {
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(x, y)| TriangleMarker::new((x, y), 6, color.filled())),
                )
                .map_err(|e| plot_err(e.to_string()))?;
        } else {
            chart
                .draw_series(
                    pts.iter()
                        .map(|&(x, y)| Circle::new((x, y), 5, color.filled())),
                )
                .map_err(|e| plot_err(e.to_string()))?;
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()
        .map_err(|e| plot_err(e.to_string()))?;
    if !note.is_empty() {
        root.draw(&Text::new(
            format!("reference points: {note}"),
            (20, 782),
            ("sans-serif", 14),
        ))
        .map_err(|e| plot_err(e.to_string()))?;
    }
    root.present().map_err(|e| plot_err(e.to_string()))?;
    Ok(())
}

/// The plot `warpzip bench --codec sz --plot FILE.png` writes: both modes on every input, and
/// SZ3 and ZFP where the reference CSV has the same field.
pub fn write_rate_distortion_plot(opts: &BenchOptions, path: &std::path::Path) -> Result<()> {
    let mut points = rate_distortion(opts)?;
    let (note, reference) = reference_points();
    let fields: Vec<String> = points.iter().map(|p| p.field.clone()).collect();
    points.extend(reference.into_iter().filter(|p| fields.contains(&p.field)));
    plot_rate_distortion(&points, &note, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dims_in_names() {
        assert_eq!(dims_from_name("etopo20.ROSE.540x1081.f32"), vec![540, 1081]);
        assert_eq!(dims_from_name("a.SALT.20x180x360.f32"), vec![20, 180, 360]);
        assert_eq!(dims_from_name("testfloat_8_8_128.dat"), Vec::<u64>::new());
        assert_eq!(dims_from_name("plain.f32"), Vec::<u64>::new());
    }

    #[test]
    fn reference_csv_parses() {
        let (note, points) = reference_points();
        assert!(note.contains("hdf5plugin"), "{note}");
        assert!(points
            .iter()
            .any(|p| p.codec == "SZ3" && p.field.starts_with("etopo20")));
        assert!(points.iter().any(|p| p.codec == "ZFP" && p.rel == 1e-6));
        let bitcomp: Vec<_> = points
            .iter()
            .filter(|p| p.codec.starts_with("nvCOMP Bitcomp"))
            .collect();
        assert_eq!(bitcomp.len(), 3);
        assert!(bitcomp
            .iter()
            .all(|p| p.bits_per_value > 3.0 && p.psnr >= 40.0));
    }
}
