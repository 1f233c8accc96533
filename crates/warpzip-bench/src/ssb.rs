//! The Star Schema Benchmark's 13 queries (`--codec ssb`, only when named): on a GPU, each query
//! over the tile-compressed fact columns (the fused kernel), over the raw columns, and over the
//! compressed columns decompressed whole first (the cascade); on the CPU, the CPU engine over
//! the same three. The tables are generated at scale factor 1 on a GPU and 0.1 on the CPU
//! (`--size N`: the scale factor at which one fact column holds N raw bytes), or read from a
//! column directory given as the input file. A row's bytes are the raw bytes of the fact
//! columns the query reads; its roofline fraction counts the stored bytes it reads.

use super::{gbps, BenchOptions, BenchRow, Ceilings};
use std::path::PathBuf;
use warpzip::codec::tile::chunked;
use warpzip::codec::tile::format::{Kind, DEFAULT_CHUNK_SIZE};
use warpzip::device::Device;
use warpzip::error::Result;
use warpzip::format::ElemType;
use warpzip::gpu::median;
use warpzip::ssb::{self, ColumnDir, Query, Storage};

/// Raw bytes of one fact column at scale factor 1 (6 million 4-byte values).
const COLUMN_BYTES_SF1: f64 = 24e6;

/// A generated column directory, removed when dropped.
struct Generated(PathBuf);

impl Drop for Generated {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The column directory to query: the first input that is one, else tables generated at the
/// scale factor the options and the device give.
fn columns(opts: &BenchOptions, gpu: bool) -> Result<(ColumnDir, String, Option<Generated>)> {
    if let Some(dir) = opts
        .files
        .iter()
        .find_map(|f| ColumnDir::open(f).ok().map(|d| (d, f)))
    {
        return Ok((dir.0, dir.1.display().to_string(), None));
    }
    let sf = match opts.size {
        Some(bytes) => bytes as f64 / COLUMN_BYTES_SF1,
        None if gpu => 1.0,
        None => 0.1,
    };
    let root = std::env::temp_dir().join(format!("warpzip-bench-ssb-{}", std::process::id()));
    let generated = Generated(root.clone());
    let tbl = root.join("tbl");
    ssb::generate(sf, &tbl)?;
    ssb::load(&tbl, &root.join("cols"))?;
    let _ = std::fs::remove_dir_all(&tbl);
    let dir = ColumnDir::open(&root.join("cols"))?;
    Ok((dir, format!("SSB sf {sf}"), Some(generated)))
}

/// Every lineorder column's ratio under each tile codec, and which the planner (`tile`) matches:
/// rows with no time, their notes naming the best fixed codec.
fn ratios(dir: &ColumnDir, input: &str, rows: &mut Vec<BenchRow>) -> Result<()> {
    for &(column, _) in ssb::schema::LINEORDER.columns {
        let values = dir.values("lineorder", column, false)?;
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut sizes = Vec::new();
        for (name, plan) in crate::tile::CODECS {
            let (payload, _) = chunked::compress(
                &raw,
                Kind::of(ElemType::U32)?,
                plan,
                DEFAULT_CHUNK_SIZE as usize,
            )?;
            sizes.push((name, payload.len().max(1)));
        }
        let best = sizes
            .iter()
            .filter(|(n, _)| *n != "tile")
            .min_by_key(|(_, len)| *len)
            .map_or("-", |(n, _)| n);
        for &(name, len) in &sizes {
            rows.push(BenchRow {
                what: format!("ssb ratio {name}"),
                input: format!("{input} {column}"),
                device: "-".into(),
                bytes: raw.len() as u64,
                ratio: Some(raw.len() as f64 / len as f64),
                ms: 0.0,
                gbps: 0.0,
                roofline: None,
                note: format!("best fixed codec: {best}"),
            });
        }
    }
    Ok(())
}

/// Median milliseconds of `runs` executions (after one warm-up), as the engine times them.
fn time_query(prepared: &mut ssb::Prepared, runs: usize) -> Result<f64> {
    prepared.execute()?;
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(prepared.execute()?.1);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(median(&times))
}

/// The 13 queries over the three storages on `device`; `ceilings` on a GPU.
pub(super) fn bench(
    device: &Device,
    ceilings: Option<&Ceilings>,
    opts: &BenchOptions,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let (dir, input, _generated) = columns(opts, device.is_gpu())?;
    let label = match device {
        Device::Gpu(g) => g.name().to_string(),
        Device::Cpu => format!("CPU, {} threads", rayon::current_num_threads()),
    };
    ratios(&dir, &input, rows)?;
    for q in Query::ALL {
        for storage in [
            Storage::Compressed,
            Storage::Uncompressed,
            Storage::Decompressed,
        ] {
            let mut prepared = ssb::prepare(q, &dir, device, storage)?;
            let ms = time_query(&mut prepared, opts.runs())?;
            let raw = prepared.raw_bytes();
            let stored = prepared.stored_bytes();
            let (what, note) = match storage {
                Storage::Compressed => ("fused decode+query", "tile-compressed columns"),
                Storage::Uncompressed => ("query", "raw columns"),
                Storage::Decompressed => (
                    "decompress, then query",
                    "tile-compressed columns decoded whole first",
                ),
            };
            rows.push(BenchRow {
                what: format!("ssb {q} {what}"),
                input: input.clone(),
                device: label.clone(),
                bytes: raw,
                ratio: Some(raw as f64 / stored.max(1) as f64),
                ms,
                gbps: gbps(raw as f64, ms),
                roofline: ceilings.map(|c| gbps(stored as f64, ms) / c.d2d_gbps),
                note: note.into(),
            });
        }
    }
    Ok(())
}
