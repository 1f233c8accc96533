//! Times the block-per-row-group decode of an ORC file's integer columns on the GPU under one or
//! more values of `WARPZIP_ORC_RG_FLAGS` (the kernels' diagnostic paths), for A/B runs of two
//! binaries in one device call. Row-group statuses are checked (a failed check prints `(x)`),
//! and, after the timed launches, the values of one more block-per-row-group decode under the
//! same flags against the CPU reader's (values that differ print `(v)`).
//!
//! `cargo run --release -p warpzip-bench --features diagnostics --example orc_rg_time -- FILE 0,64
//! [COLUMN...]` (the flags are read only with the `diagnostics` feature) prints,
//! per column, GB/s of decoded values (median of 15 launches after 3) and `[blocks an SM]`. With
//! `RG_DROP=0,104` those row groups are left out of the launches (what the slowest row groups
//! cost a column that runs as one wave; their values are then not checked). With `RG_ONLY=k`
//! every row group decodes row group k's stream into its own rows (the time of a column of
//! row groups shaped like k).
use std::path::Path;
use warpzip::orc::gpu::{read_column_in_mode, DeviceColumn, GroupMode, PreparedColumn};
use warpzip::orc::plan::plan_file_column;
use warpzip::orc::OrcFile;
use warpzip::{Error, Result};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        || Error::InvalidArgument("usage: orc_rg_time FILE FLAGS[,FLAGS...] [COLUMN...]".into());
    let path = args.get(1).ok_or_else(usage)?;
    let flags = args
        .get(2)
        .ok_or_else(usage)?
        .split(',')
        .map(|f| f.parse::<u32>().map_err(|_| usage()))
        .collect::<Result<Vec<u32>>>()?;
    let wanted = &args[3.min(args.len())..];
    let file = OrcFile::open(Path::new(path))?;
    let gpu = warpzip::gpu::GpuContext::open(0)?;
    let stream = gpu.stream().clone();
    for column in file.columns().iter().filter(|c| c.is_supported()) {
        if !wanted.is_empty() && !wanted.contains(&column.name) {
            continue;
        }
        let mut prepared = PreparedColumn::new(column, &plan_file_column(&file, column)?)?;
        // RG_DROP=i,j,...: those row groups (of the first batch) are left out of the launches
        // (to see what they cost the column; their values are then not checked).
        let drop: Vec<usize> = std::env::var("RG_DROP")
            .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
            .unwrap_or_default();
        // RG_ONLY=k: every row group of k's row count decodes k's stream into its own rows
        // instead (what a column of row groups shaped like k would take; the values are then
        // not checked). Slots that also wrote k's rows would time the contention of 600 blocks
        // storing to one place (measured that way, every shape was 10-20% slower than the file).
        let only: Option<usize> = std::env::var("RG_ONLY").ok().and_then(|v| v.parse().ok());
        if let Some(k) = only {
            if let Some((_, groups)) = prepared.batches.first_mut() {
                if let Some(g) = groups.get(k).copied() {
                    groups.retain(|x| x.rows == g.rows);
                    for x in groups.iter_mut() {
                        *x = warpzip::orc::gpu::OrcGroup {
                            out_row: x.out_row,
                            scratch: x.scratch,
                            ..g
                        };
                    }
                }
            }
        }
        if !drop.is_empty() {
            if let Some((_, groups)) = prepared.batches.first_mut() {
                let kept: Vec<_> = groups
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !drop.contains(i))
                    .map(|(_, g)| *g)
                    .collect();
                *groups = kept;
            }
        }
        let cpu = file.read_column(column)?.to_data();
        let bytes = prepared.rows as f64 * prepared.width as f64;
        let mut line = format!("{:14}", column.name);
        for &f in &flags {
            // DeviceColumn::upload reads the flags from the environment.
            std::env::set_var("WARPZIP_ORC_RG_FLAGS", f.to_string());
            let mut dev = DeviceColumn::upload(&gpu, &prepared)?;
            dev.launch(&gpu, &stream)?;
            let checked = dev.check(&gpu, &prepared).is_ok();
            let mut times = gpu.time_ms(3, 15, || dev.launch(&gpu, &stream))?;
            times.sort_by(f64::total_cmp);
            let ms = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
            let blocks = dev.blocks_per_sm(&gpu)?.unwrap_or(0);
            let same = !drop.is_empty()
                || only.is_some()
                || read_column_in_mode(&gpu, &file, column, GroupMode::Block)
                    .is_ok_and(|a| a.to_data() == cpu);
            let mark = match (checked, same) {
                (true, true) => "",
                (false, _) => "(x)",
                (true, false) => "(v)",
            };
            line += &format!("  f{f}: {:.1}{mark}[{blocks}]", bytes / ms / 1e6);
        }
        println!("{line}");
    }
    Ok(())
}
