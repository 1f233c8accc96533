//! Real ORC files (`--codec orc FILE.orc...`): every integer-family column decoded on the GPU,
//! a block per row group and a warp per row group, from its decompressed streams already on the
//! device (the ZLIB inflate runs on the CPU and is not timed), checked against the CPU reader;
//! and the CPU's row-group decoder on one core over the same decompressed streams. For ZLIB
//! files, also the path from the file in host memory to the columns on the device with the GPU
//! inflate against the CPU inflate, column by column and for the whole file at once.

use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use std::path::Path;
use std::time::Instant;
use warpzip::codec::orc_rle::OrcInt;
use warpzip::error::{Error, Result};
use warpzip::gpu::{median, GpuContext};
use warpzip::orc::cpu::{decode_plan, decode_plan_dense_into};
use warpzip::orc::gpu::{
    decode_columns_on_device, decode_on_device, DeviceColumn, GroupMode, PreparedColumn,
};
use warpzip::orc::plan::{plan_file_column, ColumnPlan, DataKind};
use warpzip::orc::proto::TypeKind;
use warpzip::orc::OrcFile;

/// Times of `runs` one-core decodes of a column's plans into buffers allocated once beforehand
/// (as the generated columns' CPU rows decode into one output buffer): values of `T` and the
/// validity flags.
fn time_dense<T: OrcInt>(plans: &[ColumnPlan], runs: usize) -> Result<Vec<f64>> {
    let mut buffers = plans
        .iter()
        .map(|p| {
            let rows = usize::try_from(p.rows)
                .map_err(|_| Error::InvalidArgument("too many rows for memory".into()))?;
            Ok((
                vec![T::default(); rows],
                p.present.as_ref().map(|_| vec![false; rows]),
            ))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        for (plan, (values, valid)) in plans.iter().zip(buffers.iter_mut()) {
            decode_plan_dense_into(plan, values, valid.as_deref_mut())?;
        }
        times.push(t.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(&buffers);
    }
    Ok(times)
}

/// One CPU core decoding a column's stripes row group by row group from their decompressed
/// streams, into typed values and validity flags as the GPU writes them (the per-row
/// `Option<i64>` decode where the DATA is not integer RLE: booleans and bytes): the median of
/// 10.
fn cpu_row(plans: &[ColumnPlan], input: String, out_bytes: f64, ratio: f64) -> Result<BenchRow> {
    const RUNS: usize = 10;
    let integer = plans
        .iter()
        .all(|p| matches!(p.kind, DataKind::IntV1 | DataKind::IntV2));
    let kind = plans.first().map(|p| p.column.kind);
    let mut cpu_times = match (integer, kind) {
        (true, Some(TypeKind::Short)) => time_dense::<i16>(plans, RUNS)?,
        (true, Some(TypeKind::Int | TypeKind::Date)) => time_dense::<i32>(plans, RUNS)?,
        (true, _) => time_dense::<i64>(plans, RUNS)?,
        (false, _) => {
            let mut times = Vec::with_capacity(RUNS);
            for _ in 0..RUNS {
                let t = Instant::now();
                for plan in plans {
                    std::hint::black_box(decode_plan(plan)?);
                }
                times.push(t.elapsed().as_secs_f64() * 1e3);
            }
            times
        }
    };
    cpu_times.sort_by(|a, b| a.total_cmp(b));
    let ms = median(&cpu_times);
    Ok(BenchRow {
        what: "orc column decode (row groups)".into(),
        input,
        device: "CPU, 1 thread".into(),
        bytes: out_bytes as u64,
        ratio: Some(ratio),
        ms,
        gbps: gbps(out_bytes, ms),
        roofline: None,
        note: "per core; decompressed streams to typed values".into(),
    })
}

/// The CPU-only variant: the one-core row-group decode row of every supported column of every
/// `.orc` file given.
pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    for path in opts
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
    {
        let file = OrcFile::open(path)?;
        for column in file
            .columns()
            .iter()
            .filter(|c| c.is_supported() && opts.wants_column(&c.name))
        {
            let plans = plan_file_column(&file, column)?;
            let prepared = PreparedColumn::new(column, &plans)?;
            let out_bytes = prepared.rows as f64 * prepared.width as f64;
            let ratio = out_bytes / prepared.input.len().max(1) as f64;
            let input = format!("{} {} ({})", label(path), column.name, column.type_name);
            rows.push(cpu_row(&plans, input, out_bytes, ratio)?);
        }
    }
    Ok(())
}

fn label(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let files: Vec<_> = opts
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
        .collect();
    let stream = gpu.stream().clone();
    for path in files {
        let file = OrcFile::open(path)?;
        if file.compression().kind == warpzip::orc::proto::CompressionKind::Zlib {
            whole_file(gpu, &file, &label(path), rows)?;
        }
        for column in file
            .columns()
            .iter()
            .filter(|c| c.is_supported() && opts.wants_column(&c.name))
        {
            let plans = plan_file_column(&file, column)?;
            let prepared = PreparedColumn::new(column, &plans)?;
            let mut dev = DeviceColumn::upload(gpu, &prepared)?;
            dev.launch(gpu, &stream)?;
            dev.check(gpu, &prepared)?;
            let on_gpu = warpzip::orc::gpu::read_column(gpu, &file, column)?;
            if on_gpu.to_data() != file.read_column(column)?.to_data() {
                return Err(Error::Corrupt {
                    chunk: 0,
                    reason: format!("GPU decode of column {} differs from the CPU", column.name),
                });
            }
            if let Some(dir) = &opts.dump_dir {
                std::fs::create_dir_all(dir)?;
                let values = gpu.download(&dev.values)?;
                let len = (prepared.rows as usize * prepared.width).min(values.len());
                let name = format!("{}.{}.{}.bin", label(path), column.name, prepared.width * 8);
                std::fs::write(dir.join(name), &values[..len])?;
            }
            let out_bytes = prepared.rows as f64 * prepared.width as f64;
            let groups: usize = prepared.batches.iter().map(|(_, g)| g.len()).sum();
            let moved = prepared.input.len() as f64 + out_bytes + prepared.rows as f64;
            let input = format!("{} {} ({})", label(path), column.name, column.type_name);
            let ratio = out_bytes / prepared.input.len().max(1) as f64;
            // The library's block per row group (checked against the CPU above), then the warp
            // per row group on zeroed outputs, checked against it.
            let mut reference: Option<(Vec<u8>, Vec<u8>)> = None;
            for (mode, what) in [
                (GroupMode::Block, "orc column decode (block per row group)"),
                (GroupMode::Warp, "orc column decode (warp per row group)"),
            ] {
                dev.mode = mode;
                stream.memset_zeros(&mut dev.values)?;
                stream.memset_zeros(&mut dev.valid)?;
                dev.launch(gpu, &stream)?;
                dev.check(gpu, &prepared)?;
                let got = (gpu.download(&dev.values)?, gpu.download(&dev.valid)?);
                match &reference {
                    None => reference = Some(got),
                    Some(r) if *r != got => {
                        return Err(Error::Corrupt {
                            chunk: 0,
                            reason: format!(
                                "{what} of column {} differs from the block per row group",
                                column.name
                            ),
                        })
                    }
                    Some(_) => {}
                }
                let times = gpu.time_ms(2, opts.runs(), || dev.launch(gpu, &stream))?;
                let ms = median(&times);
                let resident = match dev.blocks_per_sm(gpu)? {
                    Some(b) => format!(
                        "; {b} blocks an SM, stage {} bytes",
                        prepared.stages.iter().max().copied().unwrap_or(0)
                    ),
                    None => String::new(),
                };
                rows.push(BenchRow {
                    what: what.into(),
                    input: input.clone(),
                    device: gpu.name().into(),
                    bytes: out_bytes as u64,
                    ratio: Some(ratio),
                    ms,
                    gbps: gbps(out_bytes, ms),
                    roofline: Some(gbps(moved, ms) / ceilings.d2d_gbps),
                    note: format!("{groups} row groups; ratio of decompressed streams{resident}"),
                });
            }
            dev.mode = GroupMode::default();
            // End to end from the file in host memory to values on the host: ZLIB streams
            // inflated on the GPU (the library's path) against inflated on the CPU while the
            // plans are made (the path before GPU inflate). Wall clock, median of 5.
            if file.compression().kind == warpzip::orc::proto::CompressionKind::Zlib {
                let e2e = |cpu_inflate: bool| {
                    wall_ms(5, || {
                        std::hint::black_box(if cpu_inflate {
                            warpzip::orc::gpu::read_column_cpu_inflate(gpu, &file, column)?
                        } else {
                            warpzip::orc::gpu::read_column(gpu, &file, column)?
                        });
                        Ok(())
                    })
                };
                let cpu_inflate_ms = e2e(true)?;
                let gpu_inflate_ms = e2e(false)?;
                // The same, stopping at the decoded column in device memory (what a GPU query
                // pipeline consumes): no download, no Arrow conversion.
                let to_device = |cpu_inflate: bool| {
                    wall_ms(5, || {
                        std::hint::black_box(decode_on_device(gpu, &file, column, cpu_inflate)?);
                        Ok(())
                    })
                };
                let cpu_dev_ms = to_device(true)?;
                let gpu_dev_ms = to_device(false)?;
                // The CPU inflate alone (all cores), which the GPU inflate replaces: the
                // CPU-inflate path less this bounds what any inflate could gain.
                let inflate_ms = wall_ms(5, || {
                    std::hint::black_box(warpzip::orc::plan::inflate_column_streams(
                        &file, column,
                    )?);
                    Ok(())
                })?;
                let rest_ms = (cpu_dev_ms - inflate_ms).max(1e-3);
                for (what, ms, note) in [
                    (
                        "orc column inflate alone (CPU, all cores)",
                        inflate_ms,
                        format!(
                            "{:.0}% of the CPU-inflate path to device; the rest ({rest_ms:.3} ms) \
                             is row index, plans, upload of the decompressed streams, RLE decode",
                            100.0 * inflate_ms / cpu_dev_ms
                        ),
                    ),
                    (
                        "orc column to device, CPU inflate",
                        cpu_dev_ms,
                        "file in host memory to values on the GPU; ZLIB inflated on the CPU"
                            .to_string(),
                    ),
                    (
                        "orc column to device, GPU inflate",
                        gpu_dev_ms,
                        format!(
                            "file in host memory to values on the GPU; {:.2}x the CPU-inflate path",
                            cpu_dev_ms / gpu_dev_ms
                        ),
                    ),
                    (
                        "orc column e2e, CPU inflate + GPU RLE",
                        cpu_inflate_ms,
                        "ZLIB inflated on the CPU (all cores) while planning".to_string(),
                    ),
                    (
                        "orc column e2e, GPU inflate + GPU RLE",
                        gpu_inflate_ms,
                        format!(
                            "ZLIB inflated on the GPU; {:.2}x the CPU-inflate path",
                            cpu_inflate_ms / gpu_inflate_ms
                        ),
                    ),
                ] {
                    rows.push(wall_row(gpu, what, input.clone(), out_bytes, ms, note));
                }
            }
            rows.push(cpu_row(&plans, input, out_bytes, ratio)?);
        }
    }
    Ok(())
}

/// Every supported column of a ZLIB file to device memory at once (what `orc to-arrow --device
/// gpu` does before the download): its chunks inflated on the GPU in one batch, against planned
/// on all cores with the CPU inflate. Wall clock, median of 5 after one warm-up.
fn whole_file(
    gpu: &GpuContext,
    file: &OrcFile,
    name: &str,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let columns: Vec<&warpzip::orc::OrcColumn> =
        file.columns().iter().filter(|c| c.is_supported()).collect();
    if columns.is_empty() {
        return Ok(());
    }
    let decoded_bytes = |d: &[(PreparedColumn, DeviceColumn)]| -> f64 {
        d.iter().map(|(p, _)| p.rows as f64 * p.width as f64).sum()
    };
    // The CPU inflate two ways: the columns planned together on all cores, and one column
    // after another (each on all cores, as `read_batch` did before); the faster is the baseline.
    let cpu_together_ms = wall_ms(5, || {
        std::hint::black_box(decode_columns_on_device(gpu, file, &columns, true)?);
        Ok(())
    })?;
    let cpu_each_ms = wall_ms(5, || {
        for c in &columns {
            std::hint::black_box(decode_on_device(gpu, file, c, true)?);
        }
        Ok(())
    })?;
    let mut out_bytes = 0f64;
    let gpu_ms = wall_ms(5, || {
        out_bytes = decoded_bytes(&decode_columns_on_device(gpu, file, &columns, false)?);
        Ok(())
    })?;
    let cpu_ms = cpu_together_ms.min(cpu_each_ms);
    let input = format!("{name} ({} integer columns)", columns.len());
    for (what, ms, note) in [
        (
            "orc file to device, CPU inflate",
            cpu_together_ms,
            "columns planned together on all cores, ZLIB inflated on the CPU".to_string(),
        ),
        (
            "orc file to device, CPU inflate",
            cpu_each_ms,
            "one column after another, each planned on all cores".to_string(),
        ),
        (
            "orc file to device, GPU inflate",
            gpu_ms,
            format!(
                "every column's chunks in one GPU inflate batch; {:.2}x the faster CPU-inflate \
                 path",
                cpu_ms / gpu_ms
            ),
        ),
    ] {
        rows.push(wall_row(gpu, what, input.clone(), out_bytes, ms, note));
    }
    Ok(())
}

/// A wall-clock row of `bytes` decoded values (no ratio, no roofline).
fn wall_row(
    gpu: &GpuContext,
    what: &str,
    input: String,
    bytes: f64,
    ms: f64,
    note: String,
) -> BenchRow {
    BenchRow {
        what: what.into(),
        input,
        device: gpu.name().into(),
        bytes: bytes as u64,
        ratio: None,
        ms,
        gbps: gbps(bytes, ms),
        roofline: None,
        note,
    }
}
