//! `warpzip demo`: round-trips real files bundled in the binary (four files of the Canterbury
//! corpus) through every codec, on the GPU when one is usable and else on the CPU, verifies
//! every byte, and prints ratio and throughput. No arguments, no files, no network.

use super::{format_table, Align};
use anyhow::{bail, Context, Result};
use std::time::{Duration, Instant};
use warpzip::api::{self, CompressOptions};
use warpzip::{CodecId, Device};

/// The bundled files: name and contents.
const FILES: &[(&str, &[u8])] = &[
    (
        "alice29.txt",
        include_bytes!("../../data/canterbury/alice29.txt"),
    ),
    (
        "kennedy.xls",
        include_bytes!("../../data/canterbury/kennedy.xls"),
    ),
    ("ptt5", include_bytes!("../../data/canterbury/ptt5")),
    ("sum", include_bytes!("../../data/canterbury/sum")),
];

/// Timed repetitions: at least this many, and until this much time has passed (capped), so
/// that sub-millisecond calls are not timed once.
const MIN_RUNS: usize = 5;
const MAX_RUNS: usize = 200;
const MIN_TIME: Duration = Duration::from_millis(40);

pub fn run() -> Result<()> {
    let device = Device::auto_quiet();
    match &device {
        Device::Gpu(_) => println!(
            "warpzip demo: device {} (GPU); throughput is end to end from host memory",
            device.label()
        ),
        _ => println!("warpzip demo: device cpu (no usable CUDA GPU found)"),
    }
    let codecs: Vec<&str> = CodecId::ALL.iter().map(|c| c.name()).collect();
    println!(
        "round-tripping {} bundled Canterbury corpus files with {} codec(s): {}\n",
        FILES.len(),
        CodecId::ALL.len(),
        codecs.join(", ")
    );

    let mut rows = Vec::new();
    let mut mismatches = Vec::new();
    let (mut total_in, mut total_out) = (0u64, 0u64);
    for &codec in CodecId::ALL {
        for &(name, data) in FILES {
            let mut opts = CompressOptions::for_codec(codec);
            if matches!(codec, CodecId::OrcRleV1 | CodecId::OrcRleV2) {
                // The ORC integer codecs are typed: they see each file as a column of u8 values.
                opts.elem_type = Some(warpzip::format::ElemType::U8);
            }
            let compressed = api::compress(data, &opts, &device)
                .with_context(|| format!("compressing {name} with {codec}"))?;
            let restored = api::decompress(&compressed, &device)
                .with_context(|| format!("decompressing {name} with {codec}"))?;
            let verified = restored == data;
            if !verified {
                mismatches.push(format!("{name} ({codec})"));
            }
            let compress_s = median_seconds(|| api::compress(data, &opts, &device).map(drop))?;
            let decompress_s = median_seconds(|| api::decompress(&compressed, &device).map(drop))?;
            total_in += data.len() as u64;
            total_out += compressed.len() as u64;
            rows.push(vec![
                name.to_string(),
                codec.to_string(),
                short_label(&device),
                data.len().to_string(),
                compressed.len().to_string(),
                format!("{:.3}", ratio(data.len() as u64, compressed.len() as u64)),
                format!("{:.2}", gbps(data.len(), compress_s)),
                format!("{:.2}", gbps(data.len(), decompress_s)),
                if verified { "ok" } else { "MISMATCH" }.to_string(),
            ]);
        }
    }
    rows.push(vec![
        "total".to_string(),
        String::new(),
        String::new(),
        total_in.to_string(),
        total_out.to_string(),
        format!("{:.3}", ratio(total_in, total_out)),
        String::new(),
        String::new(),
        String::new(),
    ]);
    print!(
        "{}",
        format_table(
            &[
                ("file", Align::Left),
                ("codec", Align::Left),
                ("device", Align::Left),
                ("original", Align::Right),
                ("compressed", Align::Right),
                ("ratio", Align::Right),
                ("compress GB/s", Align::Right),
                ("decompress GB/s", Align::Right),
                ("round trip", Align::Left),
            ],
            &rows,
        )
    );
    println!(
        "\nsizes in bytes (compressed: the whole .wz file); ratio = original / compressed; \
         GB/s of original bytes, median of {MIN_RUNS} or more runs"
    );
    if !mismatches.is_empty() {
        bail!("round trip mismatch: {}", mismatches.join(", "));
    }
    println!(
        "all {} round trips verified byte for byte",
        FILES.len() * CodecId::ALL.len()
    );
    Ok(())
}

fn short_label(device: &Device) -> String {
    match device {
        Device::Gpu(_) => "gpu".to_string(),
        _ => "cpu".to_string(),
    }
}

fn ratio(original: u64, compressed: u64) -> f64 {
    if compressed == 0 {
        0.0
    } else {
        original as f64 / compressed as f64
    }
}

fn gbps(bytes: usize, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds / 1e9
    } else {
        f64::INFINITY
    }
}

/// Median wall time of `work` over repeated runs (the first call, outside, was the warm-up).
fn median_seconds<F: FnMut() -> warpzip::Result<()>>(mut work: F) -> Result<f64> {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < MIN_RUNS || (start.elapsed() < MIN_TIME && times.len() < MAX_RUNS) {
        let t = Instant::now();
        work()?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}
