//! ORC integer RLE benchmark (`--codec orc-rle`): column shapes of a data warehouse, each
//! encoded as RLE v1 and v2 in 128 KiB chunks of values (layout 2: an index and one stream per
//! sub-block), decoded on the GPU by the four sub-block decoders (the library picks one), by the CODAG
//! warp-per-chunk decoders over each chunk's whole stream, and by the block-per-chunk
//! leader-thread ablation, and on one CPU core. Every GPU result is checked against the input
//! before it is timed.

use super::inputs::Rng;
use super::{gbps, BenchOptions, BenchRow, Ceilings};
use std::time::Instant;
use warpzip::codec::orc_rle::chunked;
use warpzip::codec::orc_rle::format::{Layout, RleVersion, DEFAULT_CHUNK_SIZE};
use warpzip::codec::orc_rle::gpu::{
    arrange, first_failure, plan_sub_blocks, stream_units, DecodeBatch, Parallelism, StreamCodec,
};
use warpzip::error::{Error, Result};
use warpzip::format::{ChunkSpan, ElemType};
use warpzip::gpu::{median, GpuContext};

/// One generated column: name, element type, raw little-endian values.
pub struct Column {
    pub name: &'static str,
    pub elem: ElemType,
    pub data: Vec<u8>,
}

/// TPC-H's order keys: only the first 8 of every 32 keys are used, and each order has 1 to 7
/// line items, so the column is sorted with short repeats.
fn orderkeys(n: usize, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 8);
    let mut order = 0u64;
    while out.len() < n * 8 {
        let key = (order / 8) * 32 + order % 8 + 1;
        for _ in 0..1 + rng.below(7) {
            out.extend_from_slice(&(key as i64).to_le_bytes());
        }
        order += 1;
    }
    out.truncate(n * 8);
    out
}

/// SSB's `lo_orderdate`: a random date (yyyymmdd) from 1992-01-01 to 1998-08-02 per order,
/// repeated for the order's 1 to 7 lines.
fn orderdates(n: usize, rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 4);
    while out.len() < n * 4 {
        let day = rng.below(2405) as u32;
        let (y, d) = (1992 + day / 365, day % 365);
        let date = (y * 10_000 + (d / 31 + 1).min(12) * 100 + d % 28 + 1) as i32;
        for _ in 0..1 + rng.below(7) {
            out.extend_from_slice(&date.to_le_bytes());
        }
    }
    out.truncate(n * 4);
    out
}

/// The benchmark's columns, each `bytes` long (rounded down to whole values).
pub fn columns(bytes: usize) -> Vec<Column> {
    let mut rng = Rng(0x7c4_5eed_1234_abcd);
    let quantity: Vec<u8> = (0..bytes / 4)
        .flat_map(|_| (1 + rng.below(50) as i32).to_le_bytes())
        .collect();
    let discount: Vec<u8> = (0..bytes / 2)
        .flat_map(|_| (rng.below(11) as i16).to_le_bytes())
        .collect();
    let random: Vec<u8> = (0..bytes / 8)
        .flat_map(|_| (rng.next() as i64).to_le_bytes())
        .collect();
    vec![
        Column {
            name: "l_orderkey",
            elem: ElemType::I64,
            data: orderkeys(bytes / 8, &mut rng),
        },
        Column {
            name: "lo_orderdate",
            elem: ElemType::I32,
            data: orderdates(bytes / 4, &mut rng),
        },
        Column {
            name: "l_quantity",
            elem: ElemType::I32,
            data: quantity,
        },
        Column {
            name: "lo_discount",
            elem: ElemType::I16,
            data: discount,
        },
        Column {
            name: "random",
            elem: ElemType::I64,
            data: random,
        },
    ]
}

/// The columns `opts.columns` names (all of them when it names none); an unknown name is an
/// error that lists the known ones.
fn chosen(opts: &BenchOptions, bytes: usize) -> Result<Vec<Column>> {
    let all = columns(bytes);
    if let Some(unknown) = opts
        .columns
        .iter()
        .find(|name| !all.iter().any(|c| c.name == name.as_str()))
    {
        let known: Vec<&str> = all.iter().map(|c| c.name).collect();
        return Err(Error::InvalidArgument(format!(
            "no generated column {unknown:?}; the orc-rle bench has {}",
            known.join(", ")
        )));
    }
    Ok(all
        .into_iter()
        .filter(|c| opts.wants_column(c.name))
        .collect())
}

/// The chunk size asked for (rounded down to whole values), else the codec's default.
fn chunk_size(opts: &BenchOptions, elem: ElemType) -> usize {
    let size = elem.size() as usize;
    let asked = opts.chunk_size.unwrap_or(DEFAULT_CHUNK_SIZE as usize);
    (asked / size).max(1) * size
}

fn version_name(v: RleVersion) -> &'static str {
    match v {
        RleVersion::V1 => "orc-rle-v1",
        RleVersion::V2 => "orc-rle-v2",
    }
}

/// Writes the columns' raw bytes to `dir` (`NAME.ELEM.bin`), for nvCOMP's anchor to read.
fn dump(dir: &std::path::Path, columns: &[Column]) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    for c in columns {
        std::fs::write(
            dir.join(format!("{}.{}.bin", c.name, c.elem.name())),
            &c.data,
        )?;
    }
    Ok(())
}

pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let columns = chosen(opts, opts.size.unwrap_or(256 << 20))?;
    if let Some(dir) = &opts.dump_dir {
        dump(dir, &columns)?;
    }
    let stream = gpu.stream().clone();
    for col in &columns {
        let size = col.elem.size() as usize;
        let input = format!("{} {} {} MiB", col.name, col.elem, col.data.len() >> 20);
        let layout = Layout::default_for(col.elem);
        let Layout::Indexed { sub_block } = layout else {
            return Err(Error::InvalidArgument(
                "the default layout has no index".into(),
            ));
        };
        for version in [RleVersion::V1, RleVersion::V2] {
            let chunk = chunk_size(opts, col.elem);
            let (payload, spans) = chunked::compress(&col.data, col.elem, version, layout, chunk)?;
            let plain_len = chunked::compress(&col.data, col.elem, version, Layout::Plain, chunk)?
                .0
                .len();
            let ratio = col.data.len() as f64 / payload.len().max(1) as f64;
            let mut plan = plan_sub_blocks(&payload, &spans, col.elem, sub_block)?;
            plan.verdict(&[])?;
            let whole = stream_units(&payload, &spans, col.elem, layout)?;
            // The library's decoder, and its order of the sub-blocks (all four sub-block
            // decoders run on that order).
            let pick = arrange(&payload, &mut plan, version, col.elem);
            let moved = (payload.len() + col.data.len()) as f64;
            let mut times = Vec::new();
            // The four sub-block decoders (the library picks one), then the CODAG warp and the
            // leader ablation over each chunk's whole stream.
            let decoders = [
                Parallelism::WalkExpand,
                Parallelism::LanePerSubBlock,
                Parallelism::WarpPerChunk,
                Parallelism::Lockstep,
                Parallelism::WarpPerChunk,
                Parallelism::LeaderPerBlock,
            ];
            const WHOLE: usize = 4;
            let chosen_at = decoders[..WHOLE]
                .iter()
                .position(|&p| p == pick)
                .unwrap_or(0);
            for (k, par) in decoders.into_iter().enumerate() {
                let per_sub_block = k < WHOLE;
                let units = if per_sub_block { &plan.units } else { &whole };
                let mut batch = DecodeBatch::new(gpu, &payload, units, col.data.len(), size)?;
                let codec = StreamCodec::Int(version);
                batch.poison_output(gpu, 0xa5)?;
                crate::ablation::launch(gpu, &stream, &mut batch, codec, col.elem, par)?;
                first_failure(&batch.statuses(gpu)?)?;
                if batch.output(gpu)? != col.data {
                    return Err(Error::Corrupt {
                        chunk: 0,
                        reason: format!("GPU {par:?} decode of {input} differs from the input"),
                    });
                }
                let runs = match par {
                    Parallelism::LeaderPerBlock => 3,
                    _ => opts.runs(),
                };
                let t = gpu.time_ms(1, runs, || {
                    crate::ablation::launch(gpu, &stream, &mut batch, codec, col.elem, par)
                })?;
                let ms = median(&t);
                times.push(ms);
                let chosen = if per_sub_block && par == pick {
                    "; the library's choice"
                } else {
                    ""
                };
                let (what, note) = match k {
                    0 => (
                        "decode (lanes walk, warp expands)",
                        format!("{} sub-blocks{chosen}", units.len()),
                    ),
                    1 => (
                        "decode (lane per sub-block)",
                        format!(
                            "{} sub-blocks of {sub_block} values; index costs {:.2}% of the \
                             compressed size{chosen}",
                            units.len(),
                            100.0 * (payload.len() as f64 / plain_len.max(1) as f64 - 1.0)
                        ),
                    ),
                    2 => (
                        "decode (warp per sub-block)",
                        format!("{} sub-blocks{chosen}", units.len()),
                    ),
                    3 => (
                        "decode (lanes in lockstep, staged)",
                        format!("{} sub-blocks{chosen}", units.len()),
                    ),
                    4 => (
                        "decode (CODAG warp per chunk)",
                        format!(
                            "{} chunks; the library's choice is {:.1}x faster",
                            units.len(),
                            ms / times[chosen_at]
                        ),
                    ),
                    _ => (
                        "decode (leader thread, block per chunk)",
                        format!(
                            "ablation; warp per chunk is {:.1}x faster, the library's choice \
                             {:.1}x",
                            ms / times[WHOLE],
                            ms / times[chosen_at]
                        ),
                    ),
                };
                rows.push(BenchRow {
                    what: format!("{} {what}", version_name(version)),
                    input: input.clone(),
                    device: gpu.name().into(),
                    bytes: col.data.len() as u64,
                    ratio: Some(ratio),
                    ms,
                    gbps: gbps(col.data.len() as f64, ms),
                    roofline: Some(gbps(moved, ms) / ceilings.d2d_gbps),
                    note,
                });
            }
            rows.push(cpu_row(col, version, layout, &payload, &spans, ratio)?);
        }
    }
    Ok(())
}

/// Timed CPU decodes a row takes the median of: as many as the GPU rows take (the host cores of
/// the GPU machine vary by tens of percent from one decode to the next).
const CPU_RUNS: usize = 10;

/// One CPU core decoding the first chunks (up to 32 MiB of values) of a payload: the median of
/// [`CPU_RUNS`] decodes.
fn cpu_row(
    col: &Column,
    version: RleVersion,
    layout: Layout,
    payload: &[u8],
    spans: &[ChunkSpan],
    ratio: f64,
) -> Result<BenchRow> {
    let take = spans
        .iter()
        .scan(0usize, |acc, s| {
            *acc += s.uncompressed_len as usize;
            (*acc <= 32 << 20).then_some(*s)
        })
        .collect::<Vec<_>>();
    let total: usize = take.iter().map(|s| s.uncompressed_len as usize).sum();
    let mut out = vec![0u8; total];
    let mut times = Vec::new();
    for _ in 0..CPU_RUNS {
        let t = Instant::now();
        let mut at = 0;
        for s in &take {
            let len = s.uncompressed_len as usize;
            let input = &payload[s.offset..s.offset + s.compressed_len as usize];
            chunked::decode_chunk(input, col.elem, version, layout, &mut out[at..at + len])
                .map_err(|st| Error::chunk(0, st))?;
            at += len;
        }
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    if out[..] != col.data[..total] {
        return Err(Error::Corrupt {
            chunk: 0,
            reason: format!("CPU decode of {} differs from the input", col.name),
        });
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let ms = median(&times);
    Ok(BenchRow {
        what: format!("{} decode", version_name(version)),
        input: format!("{} {} {} MiB", col.name, col.elem, total >> 20),
        device: "CPU, 1 thread".into(),
        bytes: total as u64,
        ratio: Some(ratio),
        ms,
        gbps: gbps(total as f64, ms),
        roofline: None,
        note: "per core".into(),
    })
}

/// The CPU-only variant: the one-core decode rows for every column and version.
pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let columns = chosen(opts, opts.size.unwrap_or(32 << 20))?;
    if let Some(dir) = &opts.dump_dir {
        dump(dir, &columns)?;
    }
    for col in &columns {
        let layout = Layout::default_for(col.elem);
        for version in [RleVersion::V1, RleVersion::V2] {
            let chunk = chunk_size(opts, col.elem);
            let (payload, spans) = chunked::compress(&col.data, col.elem, version, layout, chunk)?;
            let ratio = col.data.len() as f64 / payload.len().max(1) as f64;
            rows.push(cpu_row(col, version, layout, &payload, &spans, ratio)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_chosen_by_name_and_unknown_names_are_refused() {
        let pick = |names: &[&str]| BenchOptions {
            columns: names.iter().map(|n| n.to_string()).collect(),
            ..BenchOptions::default()
        };
        let all = chosen(&pick(&[]), 4096).map(|c| c.len());
        assert_eq!(all.ok(), Some(5));
        let two = chosen(&pick(&["random", "lo_orderdate"]), 4096).unwrap_or_default();
        let names: Vec<&str> = two.iter().map(|c| c.name).collect();
        assert_eq!(names, ["lo_orderdate", "random"]);
        // The same bytes as in a run of every column: the generator is not reseeded.
        let every = columns(4096);
        assert!(two[1].data == every[4].data && two[0].data == every[1].data);
        let err = chosen(&pick(&["dates"]), 4096).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("\"dates\"") && e.contains("lo_orderdate")));
    }
}
