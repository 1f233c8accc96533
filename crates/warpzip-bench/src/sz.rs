//! sz benchmark: ratio, throughput and distortion of the lossy codec per field, mode and
//! range-relative bound (1e-2, 1e-3, 1e-4), on the CPU (every core of the rayon pool), and of
//! the fast mode on the GPU; every round trip is checked for bound violations, exactly, and
//! every GPU result against the CPU's.

use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use warpzip::api::{self, CompressOptions};
use warpzip::codec::sz::format::Params;
use warpzip::codec::sz::gpu as sz_gpu;
use warpzip::codec::sz::{chunked, quant::Float};
use warpzip::codec::{compare, CodecId, ErrorBound, LossyMode, LossyOptions};
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

/// The fields to measure: the files given, else a generated smooth field.
fn inputs(opts: &BenchOptions) -> Result<Vec<Field>> {
    let mut inputs = Vec::new();
    if opts.files.is_empty() {
        let (data, dims) = generated(opts.size.unwrap_or(16 << 20).min(256 << 20));
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

pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let threads = rayon::current_num_threads();
    for (name, data, dims) in inputs(opts)? {
        let n = data.len();
        if n == 0 || n % 4 != 0 {
            continue;
        }
        let runs = opts.runs().min(10);
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            for e in [1e-2, 1e-3, 1e-4] {
                let bound = ErrorBound::Rel(e);
                let o = CompressOptions {
                    elem_type: Some(ElemType::F32),
                    lossy: Some(LossyOptions {
                        bound,
                        dims: dims.clone(),
                        fill: Vec::new(),
                        mode,
                    }),
                    ..CompressOptions::for_codec(CodecId::Sz)
                };
                let wz = api::compress(&data, &o, &Device::Cpu)?;
                let back = api::decompress(&wz, &Device::Cpu)?;
                let c = compare(&data, &back, ElemType::F32, Some(bound))?;
                if c.violations != Some(0) {
                    return Err(Error::InvalidArgument(format!(
                        "sz bench: {name} at {bound} broke the bound {:?} times",
                        c.violations
                    )));
                }
                let enc_ms = wall_ms(runs, || api::compress(&data, &o, &Device::Cpu).map(|_| ()))?;
                let dec_ms = wall_ms(runs, || api::decompress(&wz, &Device::Cpu).map(|_| ()))?;
                let ratio = n as f64 / wz.len() as f64;
                for (what, ms) in [("compress", enc_ms), ("decompress", dec_ms)] {
                    rows.push(BenchRow {
                        what: format!("sz {} {what} {bound}", mode.name()),
                        input: name.clone(),
                        device: "cpu".into(),
                        bytes: n as u64,
                        ratio: Some(ratio),
                        ms,
                        gbps: gbps(n as f64, ms),
                        roofline: None,
                        note: format!(
                            "{threads} threads; PSNR {:.1} dB, max rel error {:.3e}, 0 violations",
                            c.psnr, c.max_rel_error
                        ),
                    });
                }
            }
        }
    }
    Ok(())
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
    for (name, data, dims) in inputs(opts)? {
        let n = data.len();
        if n == 0 || n % 4 != 0 {
            continue;
        }
        let runs = opts.runs();
        for e in [1e-2, 1e-3, 1e-4] {
            let bound = ErrorBound::Rel(e);
            let lossy = LossyOptions {
                bound,
                dims: dims.clone(),
                fill: Vec::new(),
                mode: LossyMode::Fast,
            };
            let o = CompressOptions {
                elem_type: Some(ElemType::F32),
                lossy: Some(lossy.clone()),
                ..CompressOptions::for_codec(CodecId::Sz)
            };
            let wz = api::compress(&data, &o, &Device::Cpu)?;
            let cpu = api::decompress(&wz, &Device::Cpu)?;
            let c = Container::parse(&wz)?;
            let params = Params::parse(&c.header.codec_params, c.header.elem_type)?;
            let ctx = chunked::decode_ctx(&params, Float::F32);
            let chunks = c.chunk_list();
            let mut out = vec![0xa5u8; n];
            sz_gpu::decompress_fast(gpu, &chunks, &mut out, &ctx)?;
            if out != cpu {
                return Err(Error::InvalidArgument(format!(
                    "sz bench: the GPU decode of {name} at {bound} differs from the CPU's"
                )));
            }
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
            let ratio = n as f64 / wz.len() as f64;
            for (what, ms) in [("compress", enc_ms), ("decompress", dec_ms)] {
                rows.push(BenchRow {
                    what: format!("sz fast {what} {bound}"),
                    input: name.clone(),
                    device: gpu.name().into(),
                    bytes: n as u64,
                    ratio: Some(ratio),
                    ms,
                    gbps: gbps(n as f64, ms),
                    roofline: None,
                    note: format!(
                        "host to host (uploads, kernels, downloads); same-run pinned copies \
                         H2D {:.1} / D2H {:.1} GB/s; output equal to the CPU's",
                        ceilings.h2d_gbps, ceilings.d2h_gbps
                    ),
                });
            }
        }
    }
    Ok(())
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
}
