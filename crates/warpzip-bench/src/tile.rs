//! Tile codec benchmark on the CPU (`--codec for|dfor|rfor|tile`): data-warehouse column shapes
//! (a star schema's dates, quantities, discounts and keys, and noise), each compressed by the
//! codecs asked for; the row gives the ratio and the decode speed of the whole column (rayon
//! over chunks and tiles, every core), checked against the input. In the same run, the
//! `bitpacking` crate's BitPacker4x (SIMD) decodes the same 32-bit columns packed at the widths
//! FOR uses (each block of 128 less its minimum), as the CPU speed reference. On a GPU, the
//! decode kernel is timed alone over resident data, against the same run's copy roofline.

use super::inputs::Rng;
use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use bitpacking::{BitPacker, BitPacker4x};
use rayon::prelude::*;
use warpzip::codec::tile::format::{Kind, Plan, Scheme, DEFAULT_CHUNK_SIZE};
use warpzip::codec::tile::{chunked, gpu as tile_gpu};
use warpzip::error::{Error, Result};
use warpzip::format::ElemType;
use warpzip::gpu::{median, GpuContext};

/// The codec names this bench answers to, with their plans.
pub const CODECS: [(&str, Plan); 4] = [
    ("for", Plan::Fixed(Scheme::For)),
    ("dfor", Plan::Fixed(Scheme::Dfor)),
    ("rfor", Plan::Fixed(Scheme::Rfor)),
    ("tile", Plan::Smallest),
];

/// The names of the columns this bench generates (`--column` picks among them).
pub const COLUMN_NAMES: [&str; 6] = [
    "lo_orderdate",
    "lo_orderkey",
    "lo_quantity",
    "lo_discount",
    "noise20",
    "key64",
];

struct Column {
    name: &'static str,
    elem: ElemType,
    data: Vec<u8>,
}

fn i32s(values: impl Iterator<Item = i32>) -> Vec<u8> {
    values.flat_map(|v| v.to_le_bytes()).collect()
}

/// The columns, each about `bytes` long.
fn columns(bytes: usize) -> Vec<Column> {
    let n = bytes / 4;
    let mut rng = Rng(0x51_7a11_5eed);
    // lo_orderdate: a date (yyyymmdd) per order, repeated for its 1 to 7 lines.
    let mut dates = Vec::with_capacity(n);
    while dates.len() < n {
        let day = rng.below(2405) as i32;
        let (y, d) = (1992 + day / 365, day % 365);
        let date = y * 10_000 + (d / 31 + 1).min(12) * 100 + d % 28 + 1;
        for _ in 0..1 + rng.below(7) {
            dates.push(date);
        }
    }
    dates.truncate(n);
    // lo_orderkey: sorted keys, each repeated for the order's 1 to 7 lines.
    let mut keys = Vec::with_capacity(n);
    let mut key = 1i32;
    while keys.len() < n {
        for _ in 0..1 + rng.below(7) {
            keys.push(key);
        }
        key += 1 + rng.below(3) as i32;
    }
    keys.truncate(n);
    let quantity: Vec<i32> = (0..n).map(|_| 1 + rng.below(50) as i32).collect();
    let discount: Vec<i32> = (0..n).map(|_| rng.below(11) as i32).collect();
    let noise: Vec<i32> = (0..n).map(|_| rng.below(1 << 20) as i32).collect();
    let mut key64 = 1u64 << 40;
    let keys64: Vec<u8> = (0..bytes / 8)
        .flat_map(|_| {
            key64 += rng.below(1000);
            key64.to_le_bytes()
        })
        .collect();
    vec![
        Column {
            name: "lo_orderdate",
            elem: ElemType::I32,
            data: i32s(dates.into_iter()),
        },
        Column {
            name: "lo_orderkey",
            elem: ElemType::I32,
            data: i32s(keys.into_iter()),
        },
        Column {
            name: "lo_quantity",
            elem: ElemType::I32,
            data: i32s(quantity.into_iter()),
        },
        Column {
            name: "lo_discount",
            elem: ElemType::I32,
            data: i32s(discount.into_iter()),
        },
        Column {
            name: "noise20",
            elem: ElemType::I32,
            data: i32s(noise.into_iter()),
        },
        Column {
            name: "key64",
            elem: ElemType::U64,
            data: keys64,
        },
    ]
}

/// The bit widths of the GPU bench's width sweep, with their columns' names.
const WIDTHS: [(u32, &str); 10] = [
    (1, "width1"),
    (2, "width2"),
    (4, "width4"),
    (8, "width8"),
    (12, "width12"),
    (16, "width16"),
    (20, "width20"),
    (24, "width24"),
    (28, "width28"),
    (32, "width32"),
];

/// The width sweep: for each width `w` of [`WIDTHS`], a u32 column of about `bytes` bytes of
/// uniform random values below 2^w, so that FOR packs nearly every miniblock `w` bits wide.
fn width_columns(bytes: usize) -> Vec<Column> {
    let mut rng = Rng(0x005e_ed0f_b175);
    WIDTHS
        .iter()
        .map(|&(w, name)| {
            let mask = if w == 32 { u32::MAX } else { (1u32 << w) - 1 };
            let data = (0..bytes / 4)
                .flat_map(|_| ((rng.below(1 << 32) as u32) & mask).to_le_bytes())
                .collect();
            Column {
                name,
                elem: ElemType::U32,
                data,
            }
        })
        .collect()
}

/// Writes the columns to `dir` as raw little-endian files named `NAME.TYPE.bin`, for other
/// programs (nvCOMP Cascaded's anchor) to time on the same bytes.
fn dump(dir: &std::path::Path, columns: &[Column], opts: &BenchOptions) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    for c in columns.iter().filter(|c| opts.wants_column(c.name)) {
        std::fs::write(
            dir.join(format!("{}.{}.bin", c.name, c.elem.name())),
            &c.data,
        )?;
    }
    Ok(())
}

fn device() -> String {
    format!("CPU, {} threads", rayon::current_num_threads())
}

/// BitPacker4x over a 32-bit column: every block of 128 values less its minimum (in the
/// signed column's unsigned order), packed at its own width. Returns the row of its decode
/// (unpacking and adding the minimum back), checked against the input.
fn bitpacker_row(col: &Column, runs: usize) -> Result<BenchRow> {
    let values: Vec<u32> = col
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) ^ 0x8000_0000)
        .collect();
    let blocks = values.len() / BitPacker4x::BLOCK_LEN;
    let packer = BitPacker4x::new();
    // Per block: its minimum, its width and its place in the packed bytes.
    let mut meta = Vec::with_capacity(blocks);
    let mut packed = vec![0u8; blocks * BitPacker4x::BLOCK_LEN * 4];
    let mut at = 0usize;
    for block in values.chunks_exact(BitPacker4x::BLOCK_LEN) {
        let min = block.iter().copied().min().unwrap_or(0);
        let mut offs = [0u32; BitPacker4x::BLOCK_LEN];
        for (o, &v) in offs.iter_mut().zip(block) {
            *o = v - min;
        }
        let bits = packer.num_bits(&offs);
        let len = packer.compress(&offs, &mut packed[at..], bits);
        meta.push((min, bits, at));
        at += len;
    }
    packed.truncate(at);
    let total = blocks * BitPacker4x::BLOCK_LEN;
    let mut out = vec![0u32; total];
    let ms = wall_ms(runs, || {
        out.par_chunks_mut(BitPacker4x::BLOCK_LEN * 256)
            .enumerate()
            .for_each(|(g, group)| {
                for (i, dst) in group.chunks_exact_mut(BitPacker4x::BLOCK_LEN).enumerate() {
                    let (min, bits, at) = meta[g * 256 + i];
                    packer.decompress(&packed[at..], dst, bits);
                    for v in dst.iter_mut() {
                        *v = v.wrapping_add(min);
                    }
                }
            });
        Ok(())
    })?;
    if out[..] != values[..total] {
        return Err(Error::Corrupt {
            chunk: 0,
            reason: format!("BitPacker4x decode of {} differs from the input", col.name),
        });
    }
    let bytes = total as f64 * 4.0;
    Ok(BenchRow {
        what: "bitpacking BitPacker4x decode".into(),
        input: format!("{} {} {} MiB", col.name, col.elem, (total * 4) >> 20),
        device: device(),
        bytes: (total * 4) as u64,
        ratio: Some(bytes / (packed.len() + meta.len() * 5) as f64),
        ms,
        gbps: gbps(bytes, ms),
        roofline: None,
        note: "speed reference: FOR's widths, SIMD unpack + minimum".into(),
    })
}

/// The codecs `opts` asks for (all when it names none).
fn wanted(opts: &BenchOptions) -> Vec<(&'static str, Plan)> {
    CODECS
        .iter()
        .copied()
        .filter(|(name, _)| opts.codecs.is_empty() || opts.codecs.iter().any(|c| c == name))
        .collect()
}

/// The chunk size asked for (rounded down to whole values), else the codecs' default.
fn chunk_size(opts: &BenchOptions, size: usize) -> usize {
    (opts.chunk_size.unwrap_or(DEFAULT_CHUNK_SIZE as usize) / size).max(1) * size
}

/// The GPU rows: every column and codec asked for, compressed on the CPU, the decode kernel
/// timed alone on the device (input and output resident), its output checked against the input.
pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let wanted = wanted(opts);
    if wanted.is_empty() {
        return Ok(());
    }
    let size = opts.size.unwrap_or(256 << 20);
    let mut cols = columns(size);
    if let Some(dir) = &opts.dump_dir {
        dump(dir, &cols, opts)?;
    }
    // The width sweep, FOR alone, when no column is named.
    let sweep = opts.columns.is_empty() && wanted.iter().any(|&(name, _)| name == "for");
    if sweep {
        cols.extend(width_columns(size));
    }
    for col in cols {
        if !opts.wants_column(col.name) {
            continue;
        }
        let kind = Kind::of(col.elem)?;
        let chunk = chunk_size(opts, kind.bytes());
        let in_sweep = WIDTHS.iter().any(|&(_, n)| n == col.name);
        for &(name, plan) in &wanted {
            if in_sweep && name != "for" {
                continue;
            }
            let (payload, spans) = chunked::compress(&col.data, kind, plan, chunk)?;
            let chunks: Vec<(&[u8], usize)> = spans
                .iter()
                .map(|s| {
                    (
                        &payload[s.offset..s.offset + s.compressed_len as usize],
                        s.uncompressed_len as usize,
                    )
                })
                .collect();
            let (mut batch, count) = tile_gpu::upload(gpu, &chunks, kind)?;
            batch.poison_output(gpu, 0xa5)?;
            tile_gpu::launch(gpu, &mut batch, count, kind, plan)?;
            if batch.status_words(gpu)?.iter().any(|&s| s != 0) || batch.output(gpu)? != col.data {
                return Err(Error::Corrupt {
                    chunk: 0,
                    reason: format!("GPU {name} decode of {} differs from the input", col.name),
                });
            }
            let mut times = gpu.time_ms(3, opts.runs(), || {
                tile_gpu::launch(gpu, &mut batch, count, kind, plan)
            })?;
            times.sort_by(|a, b| a.total_cmp(b));
            let ms = median(&times);
            let moved = (col.data.len() + payload.len()) as f64;
            rows.push(BenchRow {
                what: format!("{name} decode"),
                input: format!("{} {} {} MiB", col.name, col.elem, col.data.len() >> 20),
                device: gpu.name().into(),
                bytes: col.data.len() as u64,
                ratio: Some(col.data.len() as f64 / payload.len().max(1) as f64),
                ms,
                gbps: gbps(col.data.len() as f64, ms),
                roofline: Some(gbps(moved, ms) / ceilings.d2d_gbps),
                note: "kernel alone, data resident".into(),
            });
        }
    }
    Ok(())
}

/// The CPU rows: every column, every tile codec asked for, then BitPacker4x on the 32-bit
/// columns.
pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let wanted = wanted(opts);
    if wanted.is_empty() {
        return Ok(());
    }
    let runs = opts.runs();
    let cols = columns(opts.size.unwrap_or(64 << 20));
    if let Some(dir) = &opts.dump_dir {
        dump(dir, &cols, opts)?;
    }
    for col in cols {
        if !opts.wants_column(col.name) {
            continue;
        }
        let kind = Kind::of(col.elem)?;
        let size = kind.bytes();
        let chunk = chunk_size(opts, size);
        for &(name, plan) in &wanted {
            let (payload, spans) = chunked::compress(&col.data, kind, plan, chunk)?;
            let chunks: Vec<(&[u8], usize)> = spans
                .iter()
                .map(|s| {
                    (
                        &payload[s.offset..s.offset + s.compressed_len as usize],
                        s.uncompressed_len as usize,
                    )
                })
                .collect();
            let mut out = vec![0u8; col.data.len()];
            let ms = wall_ms(runs, || {
                chunked::decompress_into(&chunks, kind, plan, &mut out)
            })?;
            if out != col.data {
                return Err(Error::Corrupt {
                    chunk: 0,
                    reason: format!("{name} decode of {} differs from the input", col.name),
                });
            }
            rows.push(BenchRow {
                what: format!("{name} decode"),
                input: format!("{} {} {} MiB", col.name, col.elem, col.data.len() >> 20),
                device: device(),
                bytes: col.data.len() as u64,
                ratio: Some(col.data.len() as f64 / payload.len().max(1) as f64),
                ms,
                gbps: gbps(col.data.len() as f64, ms),
                roofline: None,
                note: format!("{} KiB chunks", chunk >> 10),
            });
        }
        if size == 4 {
            rows.push(bitpacker_row(&col, runs)?);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_sweep_packs_at_its_widths() {
        let cols = width_columns(64 << 10);
        assert_eq!(cols.len(), WIDTHS.len());
        for (col, &(w, name)) in cols.iter().zip(&WIDTHS) {
            assert_eq!(col.name, name);
            let max = col
                .data
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .max()
                .unwrap_or(0);
            assert_eq!(32 - max.leading_zeros(), w, "{name}");
        }
    }

    #[test]
    fn the_column_names_are_those_generated() {
        let names: Vec<&str> = columns(4096).iter().map(|c| c.name).collect();
        assert_eq!(names, COLUMN_NAMES);
    }
}
