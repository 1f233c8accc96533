//! Snappy and LZ4 benchmark (`--codec snappy`, `--codec lz4`): `.wz` containers of raw blocks
//! decoded on every CPU core and, with a GPU, end to end from host memory (upload, one warp per
//! block, download; wall clock, so no roofline fraction). Inputs are the files given or
//! generated text; every decoded byte is checked before a time is reported.

use super::{gbps, wall_ms, BenchOptions, BenchRow};
use warpzip::codec::CodecId;
use warpzip::error::{Error, Result};
use warpzip::{api, CompressOptions, Device};

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
pub(super) fn bench(device: &Device, opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
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
