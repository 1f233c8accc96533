//! Snappy and LZ4 benchmark (`--codec snappy`, `--codec lz4`): `.wz` containers of raw blocks
//! decoded on every CPU core and, with a GPU, on the device (the kernel alone over blocks already
//! in device memory, CUDA events, against the same run's copy roofline) and end to end from host
//! memory (upload, one warp per block, download; wall clock). Inputs are the files given or
//! generated text; every decoded byte is checked before a time is reported.

use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use warpzip::codec::lz::{gpu::LzBatch, LzKind};
use warpzip::codec::CodecId;
use warpzip::error::{Error, Result};
use warpzip::format::Container;
use warpzip::gpu::{median, GpuContext};
use warpzip::{api, CompressOptions, Device};

/// Byte the device output is filled with before a checked launch.
const POISON: u8 = 0xa5;

/// Chunk size when `--chunk-size` is not given: the codecs' default.
const DEFAULT_CHUNK: usize = 64 << 10;
/// Size of the generated text when `--size` is not given: 64 MiB.
const TEXT_SIZE: usize = 64 << 20;

/// Word text: a small vocabulary picked by a fixed generator (compresses about 3:1).
fn text(len: usize) -> Vec<u8> {
    const WORDS: [&str; 16] = [
        "the", "warp", "decodes", "one", "block", "of", "literal", "runs", "and", "copies",
        "snappy", "lz4", "gpu", "lane", "chunk", "\n",
    ];
    let mut state = 0x1234_5678_u64;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(WORDS[(state >> 60) as usize].as_bytes());
        out.push(b' ');
    }
    out.truncate(len);
    out
}

/// Runs the benchmark of the codecs `--codec` names on `device` (the CPU rows always); a run
/// that names no codec leaves them out.
pub(super) fn bench(
    device: &Device,
    ceilings: Option<&Ceilings>,
    opts: &BenchOptions,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let codecs: Vec<CodecId> = [CodecId::Snappy, CodecId::Lz4]
        .into_iter()
        .filter(|c| opts.codecs.iter().any(|n| n == c.name()))
        .collect();
    if codecs.is_empty() {
        return Ok(());
    }
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for path in &opts.files {
        inputs.push((path.display().to_string(), std::fs::read(path)?));
    }
    if inputs.is_empty() {
        let n = opts.size.unwrap_or(TEXT_SIZE);
        inputs.push((format!("text {} MiB", n >> 20), text(n)));
    }
    let chunk = opts.chunk_size.unwrap_or(DEFAULT_CHUNK);
    let chunk_size = u32::try_from(chunk)
        .map_err(|_| Error::InvalidArgument(format!("chunk size {chunk} too large")))?;
    let threads = rayon::current_num_threads();
    for codec in codecs {
        for (name, data) in &inputs {
            let opts_c = CompressOptions {
                chunk_size: Some(chunk_size),
                ..CompressOptions::for_codec(codec)
            };
            let wz = api::compress(data, &opts_c, &Device::Cpu)?;
            let ratio = data.len() as f64 / wz.len().max(1) as f64;
            let input = format!("{name}, {} KiB chunks", chunk >> 10);
            let mut devices = vec![(Device::Cpu, format!("cpu ({threads} threads)"))];
            if let Device::Gpu(g) = device {
                devices.push((device.clone(), g.name().to_string()));
                let ms = kernel_ms(g, codec, &wz, data, opts)?;
                let moved = (wz.len() + data.len()) as f64;
                rows.push(BenchRow {
                    what: format!("{codec} decode (GPU kernel)"),
                    input: input.clone(),
                    device: g.name().to_string(),
                    bytes: data.len() as u64,
                    ratio: Some(ratio),
                    ms,
                    gbps: gbps(data.len() as f64, ms),
                    roofline: ceilings.map(|c| gbps(moved, ms) / c.d2d_gbps),
                    note: "device-resident blocks, one warp per block; bytes equal input".into(),
                });
            }
            for (on, label) in devices {
                let mut ok = true;
                let ms = wall_ms(opts.runs(), || {
                    let out = api::decompress(&wz, &on)?;
                    ok &= out == *data;
                    Ok(())
                })?;
                if !ok {
                    return Err(Error::Corrupt {
                        chunk: 0,
                        reason: format!("{codec} decoded {name} wrongly on {label}"),
                    });
                }
                rows.push(BenchRow {
                    what: format!("{codec} decode"),
                    input: input.clone(),
                    device: label,
                    bytes: data.len() as u64,
                    ratio: Some(ratio),
                    ms,
                    gbps: gbps(data.len() as f64, ms),
                    roofline: None,
                    note: if on.is_gpu() {
                        "end to end from host memory (upload, decode, download), wall clock".into()
                    } else {
                        "whole container, all cores, wall clock".into()
                    },
                });
            }
        }
    }
    Ok(())
}

/// Median milliseconds of the decode kernel alone over `wz`'s blocks already on the device
/// (CUDA events), its output checked against `data` before and after the timed runs.
fn kernel_ms(
    gpu: &GpuContext,
    codec: CodecId,
    wz: &[u8],
    data: &[u8],
    opts: &BenchOptions,
) -> Result<f64> {
    let kind = match codec {
        CodecId::Snappy => LzKind::Snappy,
        _ => LzKind::Lz4,
    };
    let container = Container::parse(wz)?;
    let chunks = container.chunk_list();
    let mut batch = LzBatch::upload(gpu, kind, &chunks)?;
    let mut out = vec![POISON; data.len()];
    let check = |batch: &mut LzBatch, out: &mut Vec<u8>| -> Result<()> {
        batch.finish(gpu, out)?;
        if out.as_slice() != data {
            return Err(Error::Corrupt {
                chunk: 0,
                reason: format!("{codec} GPU kernel output differs from the input"),
            });
        }
        out.fill(POISON);
        batch.poison_output(gpu, POISON)
    };
    batch.poison_output(gpu, POISON)?;
    batch.launch(gpu)?;
    check(&mut batch, &mut out)?;
    let times = gpu.time_ms(3, opts.runs(), || batch.launch(gpu))?;
    check(&mut batch, &mut out)?;
    Ok(median(&times))
}
