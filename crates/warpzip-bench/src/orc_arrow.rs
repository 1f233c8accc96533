//! Whole ORC files to Arrow (`--codec orc FILE.orc...`): every column the reader supports, from
//! the file's bytes already in host memory to one Arrow record batch in host memory (the tail
//! parsed, every stream decompressed and decoded), as `warpzip orc to-arrow` reads it. Timed on
//! all CPU cores, on one core and, with a GPU, with the decoding on the device; every batch is
//! checked equal to the first CPU batch. `scripts/orc_vs_pyarrow.py` times pyarrow's reader on
//! the same files in the same run.

use super::{gbps, BenchOptions, BenchRow};
use std::path::Path;
use std::time::Instant;
use warpzip::device::Device;
use warpzip::error::{Error, Result};
use warpzip::gpu::median;
use warpzip::orc::proto::TypeKind;
use warpzip::orc::OrcFile;

/// The columns the reader supports, by name (a union column is left out, as `to-arrow` skips
/// it with a notice).
fn readable_columns(file: &OrcFile) -> Vec<String> {
    file.columns()
        .iter()
        .filter(|c| c.kind != TypeKind::Union)
        .map(|c| c.name.clone())
        .collect()
}

/// One read of `bytes` on `device`: the batch and the milliseconds it took, the copy of the
/// bytes the reader takes ownership of made before the clock starts.
fn read_once(
    bytes: &[u8],
    names: &[&str],
    device: &Device,
) -> Result<(arrow_array::RecordBatch, f64)> {
    let owned = bytes.to_vec();
    let t = Instant::now();
    let file = OrcFile::from_bytes(owned)?;
    let batch = file.read_batch(Some(names), device)?;
    Ok((batch, t.elapsed().as_secs_f64() * 1e3))
}

/// The median milliseconds of `runs` reads after one warm-up, each batch compared with `want`.
fn time_reads(
    bytes: &[u8],
    names: &[&str],
    device: &Device,
    runs: usize,
    want: &arrow_array::RecordBatch,
    what: &str,
) -> Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for i in 0..=runs {
        let (batch, ms) = read_once(bytes, names, device)?;
        if &batch != want {
            return Err(Error::InvalidArgument(format!(
                "{what}: the batch differs from the CPU reader's"
            )));
        }
        if i > 0 {
            times.push(ms);
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(median(&times))
}

/// Rows for every `.orc` file among the inputs: all cores, one core, and the GPU when `device`
/// is one. A row's bytes are the Arrow batch's buffer bytes; its ratio those over the file size.
pub(super) fn bench(device: &Device, opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let runs = opts.runs().min(10);
    for path in opts
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
    {
        let bytes = std::fs::read(path)?;
        let file = OrcFile::from_bytes(bytes.clone())?;
        let names = readable_columns(&file);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let (want, _) = read_once(&bytes, &names, &Device::Cpu)?;
        let out_bytes = want.get_array_memory_size() as f64;
        let input = format!(
            "{} ({}, {} rows, {} columns)",
            label(path),
            file.compression().name(),
            want.num_rows(),
            names.len()
        );
        let threads = rayon::current_num_threads();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .map_err(|e| Error::InvalidArgument(format!("a one-thread pool: {e}")))?;
        let mut timed = vec![(
            format!("CPU, {threads} threads"),
            time_reads(&bytes, &names, &Device::Cpu, runs, &want, "all cores")?,
        )];
        timed.push((
            "CPU, 1 thread".into(),
            one.install(|| time_reads(&bytes, &names, &Device::Cpu, runs, &want, "one core"))?,
        ));
        if let Device::Gpu(g) = device {
            timed.push((
                g.name().to_string(),
                time_reads(&bytes, &names, device, runs, &want, "GPU")?,
            ));
        }
        for (label, ms) in timed {
            rows.push(BenchRow {
                what: "orc file to arrow".into(),
                input: input.clone(),
                device: label,
                bytes: out_bytes as u64,
                ratio: Some(out_bytes / bytes.len().max(1) as f64),
                ms,
                gbps: gbps(out_bytes, ms),
                roofline: None,
                note: "file bytes in host memory to an Arrow batch in host memory, wall clock"
                    .into(),
            });
        }
    }
    Ok(())
}

fn label(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}
