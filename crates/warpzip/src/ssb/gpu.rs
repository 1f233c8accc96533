//! The GPU engine: the fact columns uploaded once, the dimension maps beside them, and per run
//! one launch of the fused query kernel (`kernels/ssb/ssb.cu`) over the tile-codec columns
//! (`ssb_query_tile`) or the raw ones (`ssb_query_plain`); the cascaded baseline first decodes
//! every compressed column whole with the tile decoder (`codec::tile::gpu`), then runs the raw
//! kernel over the decoded columns. The time is the CUDA events' around the launches.

use super::fact::{Fact, FactColumn, TileSpan, KIND};
use super::query::{Measure, Plan, Slot, SLOTS};
use super::Storage;
use crate::codec::tile::format::{ChunkFault, Fault, Plan as TilePlan, TILE_VALUES};
use crate::codec::tile::gpu::{self as tile_gpu, TileRecord};
use crate::error::{Error, Result};
use crate::gpu::batch::{padded, ChunkBatch};
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{DevicePtr, DeviceRepr};
use std::sync::Arc;

/// Threads a block; `SSB_THREADS` in ssb.cu.
pub(crate) const THREADS: u32 = 128;
/// Probes a query may make; `SSB_JOINS` in ssb.cu.
pub(crate) const MAX_JOINS: usize = 4;
/// Blocks a multiprocessor runs at once at most (128 threads and 13 KiB of shared memory each).
const BLOCKS_PER_SM: u32 = 16;

const HAS_QUANTITY: u32 = 1;
const HAS_DISCOUNT: u32 = 2;
const ONE_GROUP: u32 = 4;

/// The kernel's argument; the layout of `SsbParams` in ssb.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SsbParams {
    column: [u64; SLOTS],
    tiles: [u64; SLOTS],
    map: [u64; MAX_JOINS],
    sums: u64,
    counts: u64,
    fault: u64,
    map_len: [u32; MAX_JOINS],
    map_base: [u32; MAX_JOINS],
    stride: [u32; MAX_JOINS],
    join_slot: [u32; MAX_JOINS],
    allowed: [u32; SLOTS],
    joins: u32,
    flags: u32,
    measure: u32,
    qty_lo: u32,
    qty_hi: u32,
    disc_lo: u32,
    disc_hi: u32,
    rows: u32,
    tile_count: u32,
}

// SAFETY: `SsbParams` is `#[repr(C)]` plain data with the field order, sizes and alignment of
// the CUDA struct (25 u64s, then 34 u32s: 336 bytes, no padding).
unsafe impl DeviceRepr for SsbParams {}

/// One fact column on the device.
enum DevColumn {
    /// Raw values.
    Plain(CudaSlice<u32>),
    /// Tile words and a record a tile (`spans` names each tile's chunk for errors).
    Tiled {
        words: CudaSlice<u8>,
        records: CudaSlice<TileRecord>,
        spans: Vec<TileSpan>,
        allowed: u32,
    },
    /// Compressed chunks the tile decoder expands into the batch's output before each run.
    Cascade {
        batch: Box<ChunkBatch<TileRecord>>,
        count: u32,
        plan: TilePlan,
    },
}

/// A query's buffers on one GPU.
pub(crate) struct GpuQuery {
    gpu: Arc<GpuContext>,
    rows: usize,
    tiled: bool,
    columns: Vec<(Slot, DevColumn)>,
    maps: Vec<CudaSlice<u32>>,
    sums: CudaSlice<u64>,
    counts: CudaSlice<u64>,
    fault: CudaSlice<u64>,
}

/// The device address of `slice`.
fn address<T>(gpu: &GpuContext, slice: &CudaSlice<T>) -> u64 {
    let (ptr, _sync) = slice.device_ptr(gpu.stream());
    ptr
}

impl GpuQuery {
    /// Uploads the fact columns `fact` holds (as `storage` wants them) and `plan`'s maps.
    pub(crate) fn upload(
        gpu: &Arc<GpuContext>,
        plan: &Plan,
        fact: &Fact,
        storage: Storage,
    ) -> Result<GpuQuery> {
        if plan.joins.len() > MAX_JOINS {
            return Err(Error::InvalidArgument(format!(
                "a plan of {} probes (the kernel takes {MAX_JOINS})",
                plan.joins.len()
            )));
        }
        u32::try_from(fact.rows)
            .map_err(|_| Error::InvalidArgument("more than 2^32 - 1 fact rows".into()))?;
        let mut columns = Vec::new();
        for slot in plan.slots() {
            let column = fact.columns[slot as usize].as_ref().ok_or_else(|| {
                Error::InvalidArgument(format!("{} was not opened", slot.column()))
            })?;
            let dev = match (column, storage) {
                (FactColumn::Plain(v), _) => DevColumn::Plain(gpu.upload(v)?),
                (FactColumn::Tiled(c), Storage::Decompressed) => {
                    let chunks: Vec<(&[u8], usize)> = c
                        .chunks
                        .iter()
                        .map(|&(at, len, values)| {
                            (c.words.get(at..at + len).unwrap_or(&[]), values)
                        })
                        .collect();
                    let (batch, count) = tile_gpu::upload(gpu, &chunks, KIND)?;
                    DevColumn::Cascade {
                        batch: Box::new(batch),
                        count,
                        plan: c.plan,
                    }
                }
                (FactColumn::Tiled(c), _) => {
                    let records: Vec<TileRecord> = c
                        .tiles
                        .iter()
                        .enumerate()
                        .map(|(t, span)| TileRecord {
                            in_offset: span.start as u64,
                            in_words: span.words as u32,
                            count: (fact.rows - t * TILE_VALUES).min(TILE_VALUES) as u32,
                            out_offset: (t * TILE_VALUES) as u64,
                            chunk: span.chunk as u32,
                            tile: span.tile as u32,
                        })
                        .collect();
                    if records.len() != fact.tiles()
                        || records
                            .iter()
                            .any(|r| r.in_offset + u64::from(r.in_words) * 4 > c.words.len() as u64)
                    {
                        return Err(Error::InvalidArgument(format!(
                            "column {} does not hold a tile per 512 rows",
                            slot.column()
                        )));
                    }
                    DevColumn::Tiled {
                        words: gpu.upload(&padded(&c.words, 16, 16)?)?,
                        records: gpu.upload(&records)?,
                        spans: c.tiles.clone(),
                        allowed: c.plan.mask(),
                    }
                }
            };
            columns.push((slot, dev));
        }
        let maps = plan
            .joins
            .iter()
            .map(|j| {
                if j.map.is_empty() {
                    gpu.alloc_zeros::<u32>(1)
                } else {
                    gpu.upload(&j.map)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(GpuQuery {
            gpu: gpu.clone(),
            rows: fact.rows,
            tiled: storage == Storage::Compressed,
            columns,
            maps,
            sums: gpu.alloc_zeros(plan.groups.max(1))?,
            counts: gpu.alloc_zeros(plan.groups.max(1))?,
            fault: gpu.alloc_zeros(1)?,
        })
    }

    /// Rows of the fact table.
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// The kernel's argument for `plan` over the uploaded buffers.
    fn params(&self, plan: &Plan) -> Result<SsbParams> {
        let gpu = &self.gpu;
        let tile_count = self.rows.div_ceil(TILE_VALUES) as u32;
        let mut p = SsbParams {
            sums: address(gpu, &self.sums),
            counts: address(gpu, &self.counts),
            fault: address(gpu, &self.fault),
            joins: plan.joins.len() as u32,
            measure: plan.measure as u32,
            rows: self.rows as u32,
            tile_count,
            ..SsbParams::default()
        };
        for (slot, column) in &self.columns {
            let s = *slot as usize;
            match column {
                DevColumn::Plain(v) => p.column[s] = address(gpu, v),
                DevColumn::Cascade { batch, .. } => p.column[s] = address(gpu, &batch.out),
                DevColumn::Tiled {
                    words,
                    records,
                    allowed,
                    ..
                } => {
                    p.column[s] = address(gpu, words);
                    p.tiles[s] = address(gpu, records);
                    p.allowed[s] = *allowed;
                }
            }
        }
        for (j, (join, map)) in plan.joins.iter().zip(&self.maps).enumerate() {
            p.map[j] = address(gpu, map);
            p.map_len[j] = u32::try_from(join.map.len())
                .map_err(|_| Error::InvalidArgument("a dimension map of 2^32 keys".into()))?;
            p.map_base[j] = join.base;
            p.stride[j] = join.stride;
            p.join_slot[j] = join.slot as u32;
        }
        if let Some((lo, hi)) = plan.quantity {
            p.flags |= HAS_QUANTITY;
            (p.qty_lo, p.qty_hi) = (lo, hi);
        }
        if let Some((lo, hi)) = plan.discount {
            p.flags |= HAS_DISCOUNT;
            (p.disc_lo, p.disc_hi) = (lo, hi);
        }
        if plan.groups <= 1 {
            p.flags |= ONE_GROUP;
        }
        if plan.measure == Measure::PriceTimesDiscount && p.column[Slot::Discount as usize] == 0 {
            return Err(Error::InvalidArgument(
                "the measure's discount column is missing".into(),
            ));
        }
        Ok(p)
    }

    /// Runs `plan`: per-group sums, counts, and the kernels' milliseconds.
    pub(crate) fn run(&mut self, plan: &Plan) -> Result<(Vec<u64>, Vec<u64>, f64)> {
        let gpu = self.gpu.clone();
        let stream = gpu.stream().clone();
        stream.memset_zeros(&mut self.sums)?;
        stream.memset_zeros(&mut self.counts)?;
        stream.memcpy_htod(&[u64::MAX], &mut self.fault)?;
        for (_, column) in &mut self.columns {
            if let DevColumn::Cascade { batch, .. } = column {
                stream.memset_zeros(&mut batch.status)?;
            }
        }
        let params = self.params(plan)?;
        let name = if self.tiled {
            kernels::entry::SSB_QUERY_TILE
        } else {
            kernels::entry::SSB_QUERY_PLAIN
        };
        let function = gpu.function(&kernels::SSB, name)?;
        let blocks = params
            .tile_count
            .min(gpu.sm_count().max(1) * BLOCKS_PER_SM)
            .max(1);
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let columns = &mut self.columns;
        let times = gpu.time_ms(0, 1, || {
            for (_, column) in columns.iter_mut() {
                if let DevColumn::Cascade { batch, count, plan } = column {
                    tile_gpu::launch(&gpu, batch, *count, KIND, *plan)?;
                }
            }
            if params.tile_count > 0 {
                let mut builder = stream.launch_builder(&function);
                builder.arg(&params);
                // SAFETY: `params` matches `SsbParams` in ssb.cu and holds the addresses of
                // buffers this query owns: every column holds `rows` values (raw or decoded) or
                // a record a tile whose words lie inside its (16-byte padded) word buffer, every
                // map `map_len` entries (at least one allocated), `sums` and `counts` a u64 per
                // group (the plan's codes times strides stay below `groups`), `fault` one u64.
                unsafe { builder.launch(cfg) }?;
            }
            Ok(())
        })?;
        let ms = times.first().copied().unwrap_or(0.0);
        let fault = gpu.download(&self.fault)?;
        if let Some(&f) = fault.first().filter(|&&f| f != u64::MAX) {
            let tile = (f >> 16) as usize;
            let slot = ((f >> 8) & 0xff) as usize;
            let code = (f & 0xff) as u32;
            let span = self.columns.iter().find_map(|(s, c)| match c {
                DevColumn::Tiled { spans, .. } if *s as usize == slot => spans.get(tile).copied(),
                _ => None,
            });
            let (chunk, tile) = span.map_or((0, tile), |s| (s.chunk, s.tile));
            return Err(ChunkFault {
                tile: Some(tile),
                fault: Fault::from_code(code),
            }
            .into_error(chunk));
        }
        for (_, column) in &self.columns {
            if let DevColumn::Cascade { batch, .. } = column {
                let status = batch.status_words(&gpu)?;
                if let Some(i) = status.iter().position(|&s| s != 0) {
                    let r = batch.host_records[i];
                    return Err(ChunkFault {
                        tile: Some(r.tile as usize),
                        fault: Fault::from_code(status[i]),
                    }
                    .into_error(r.chunk as usize));
                }
            }
        }
        Ok((gpu.download(&self.sums)?, gpu.download(&self.counts)?, ms))
    }
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    /// The launch geometry and the argument's layout on the Rust side must be the kernel's.
    #[test]
    fn launch_constants_match_ssb_cu() {
        let src = kernels::SSB.text;
        let define = |name: &str| -> usize {
            src.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.trim_end_matches('u').parse().ok())
                .unwrap_or_else(|| panic!("ssb.cu defines no {name}"))
        };
        assert_eq!(THREADS as usize, define("SSB_THREADS"));
        assert_eq!(MAX_JOINS, define("SSB_JOINS"));
        assert_eq!(SLOTS, define("SSB_SLOTS"));
        assert_eq!(Slot::Quantity as usize, define("SSB_SLOT_QUANTITY"));
        assert_eq!(Slot::Discount as usize, define("SSB_SLOT_DISCOUNT"));
        assert_eq!(Slot::ExtendedPrice as usize, define("SSB_SLOT_PRICE"));
        assert_eq!(Slot::Revenue as usize, define("SSB_SLOT_REVENUE"));
        assert_eq!(Slot::SupplyCost as usize, define("SSB_SLOT_COST"));
        assert_eq!(
            Measure::PriceTimesDiscount as usize,
            define("SSB_MEASURE_PRICE_X_DISCOUNT")
        );
        assert_eq!(Measure::Revenue as usize, define("SSB_MEASURE_REVENUE"));
        assert_eq!(Measure::Profit as usize, define("SSB_MEASURE_PROFIT"));
        assert_eq!(HAS_QUANTITY as usize, define("SSB_HAS_QUANTITY"));
        assert_eq!(HAS_DISCOUNT as usize, define("SSB_HAS_DISCOUNT"));
        assert_eq!(ONE_GROUP as usize, define("SSB_ONE_GROUP"));
        assert_eq!(std::mem::size_of::<SsbParams>(), 336);
    }
}
