//! Decoding tile codec chunks on the GPU (`kernels/tile/tile.cu`): one record a tile, a thread
//! block of 128 threads decoding `TILES_PER_BLOCK` tiles one after another, each staged in
//! shared memory. The host checks every chunk's size and tile table (the same checks as the
//! CPU decoder) and hands the kernel one record a tile; a tile that does not decode reports its
//! fault in its status word, and the lowest failing tile names the chunk and the tile.

use super::format::{split_chunk, ChunkFault, Fault, Kind, Plan, TILE_VALUES};
use crate::error::{Error, Result};
use crate::gpu::batch::{BatchShape, ChunkBatch, ChunkRecord};
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::DeviceRepr;
use rayon::prelude::*;

/// Threads per block; `TILE_THREADS` in tile.cu.
pub const THREADS: u32 = 128;
/// Tiles a thread block decodes; `TILE_PER_BLOCK` in tile.cu.
pub const TILES_PER_BLOCK: u32 = 4;

/// One tile; the layout of `TileRecord` in tile.cu. Its words lie at byte `in_offset` of the
/// input (`in_words` of them), its `count` values go to value `out_offset` of the output.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileRecord {
    pub in_offset: u64,
    pub in_words: u32,
    pub count: u32,
    pub out_offset: u64,
    pub chunk: u32,
    pub tile: u32,
}

// SAFETY: `TileRecord` is `#[repr(C)]` plain data with the field order, sizes and alignment of
// the CUDA struct (u64, u32, u32, u64, u32, u32: 32 bytes, no padding).
unsafe impl DeviceRepr for TileRecord {}

impl ChunkRecord for TileRecord {
    fn input_span(&self) -> (u64, u64) {
        (self.in_offset, u64::from(self.in_words) * 4)
    }
    fn output_span(&self) -> (u64, u64) {
        (self.out_offset, u64::from(self.count))
    }
}

fn shape(kind: Kind) -> BatchShape {
    BatchShape {
        input_align: 16,
        // The kernel stages a tile's words and reads 64-bit windows one word past them.
        input_slack: 16,
        out_unit: kind.bytes(),
        out_align: kind.bytes(),
        out_round: 16,
        status_words: 1,
        noun: "GPU tile",
    }
}

/// The records of every tile of the chunks before the first chunk whose size or table is bad,
/// and that chunk's fault. Offsets are into the payload the chunks are slices of, given as
/// `base`-relative starts (`starts[i]` the byte offset of chunk `i`).
fn plan_records(
    chunks: &[(&[u8], usize)],
    starts: &[u64],
    kind: Kind,
) -> (Vec<TileRecord>, Option<(usize, ChunkFault)>) {
    let size = kind.bytes();
    let mut out_at = 0u64;
    let mut out_starts = Vec::with_capacity(chunks.len());
    for &(_, len) in chunks {
        out_starts.push(out_at);
        out_at += (len / size) as u64;
    }
    let per_chunk: Vec<std::result::Result<Vec<TileRecord>, ChunkFault>> = chunks
        .par_iter()
        .enumerate()
        .map(|(i, &(input, len))| {
            if !len.is_multiple_of(size) {
                return Err(ChunkFault {
                    tile: None,
                    fault: Fault::ChunkSize,
                });
            }
            let values = len / size;
            let (data_at, ranges) = split_chunk(input, values)?;
            Ok(ranges
                .iter()
                .enumerate()
                .map(|(t, &(start, end))| TileRecord {
                    in_offset: starts[i] + (data_at + start * 4) as u64,
                    in_words: (end - start) as u32,
                    count: (values - t * TILE_VALUES).min(TILE_VALUES) as u32,
                    out_offset: out_starts[i] + (t * TILE_VALUES) as u64,
                    chunk: i as u32,
                    tile: t as u32,
                })
                .collect())
        })
        .collect();
    let mut records = Vec::new();
    for (i, r) in per_chunk.into_iter().enumerate() {
        match r {
            Ok(rs) => records.extend(rs),
            Err(f) => return (records, Some((i, f))),
        }
    }
    (records, None)
}

/// Decodes chunks (their bytes and uncompressed lengths, in order) into `out` on the GPU; the
/// same verdicts as `chunked::decompress_into`.
pub fn decompress_into(
    gpu: &GpuContext,
    chunks: &[(&[u8], usize)],
    kind: Kind,
    plan: Plan,
    out: &mut [u8],
) -> Result<()> {
    decompress_poisoned(gpu, chunks, kind, plan, out, None)
}

/// `decompress_into`, the device output first filled with `poison` when one is given (tests
/// poison it, so that a value the kernel does not write cannot pass).
pub fn decompress_poisoned(
    gpu: &GpuContext,
    chunks: &[(&[u8], usize)],
    kind: Kind,
    plan: Plan,
    out: &mut [u8],
    poison: Option<u8>,
) -> Result<()> {
    let total = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    // One input buffer: every chunk's bytes back to back.
    let mut input = Vec::with_capacity(chunks.iter().map(|c| c.0.len()).sum());
    let mut starts = Vec::with_capacity(chunks.len());
    for &(bytes, _) in chunks {
        starts.push(input.len() as u64);
        input.extend_from_slice(bytes);
    }
    let (records, host_fault) = plan_records(chunks, &starts, kind);
    if !records.is_empty() {
        let count = u32::try_from(records.len())
            .map_err(|_| Error::InvalidArgument("too many tiles for one GPU batch".into()))?;
        let mut batch = ChunkBatch::upload(gpu, &input, records, out.len(), shape(kind))?;
        if let Some(byte) = poison {
            batch.poison_output(gpu, byte)?;
        }
        launch(gpu, &mut batch, count, kind, plan)?;
        let status = batch.status_words(gpu)?;
        if let Some(i) = status.iter().position(|&s| s != 0) {
            let r = batch.host_records[i];
            return Err(ChunkFault {
                tile: Some(r.tile as usize),
                fault: Fault::from_code(status[i]),
            }
            .into_error(r.chunk as usize));
        }
        if let Some((chunk, fault)) = host_fault {
            return Err(fault.into_error(chunk));
        }
        let decoded = batch.output(gpu)?;
        out.copy_from_slice(decoded.get(..out.len()).ok_or_else(|| {
            Error::Driver("short readback of the tile decoder's output".into())
        })?);
        return Ok(());
    }
    match host_fault {
        Some((chunk, fault)) => Err(fault.into_error(chunk)),
        None => Ok(()),
    }
}

/// Uploads chunks (their bytes and uncompressed lengths, in order, every one of them valid) as a
/// batch of tile records, for benchmarks that time [`launch`] alone; the batch and its record
/// count. A chunk whose size or tile table is bad is its `Error::Corrupt`.
pub fn upload(
    gpu: &GpuContext,
    chunks: &[(&[u8], usize)],
    kind: Kind,
) -> Result<(ChunkBatch<TileRecord>, u32)> {
    let mut input = Vec::with_capacity(chunks.iter().map(|c| c.0.len()).sum());
    let mut starts = Vec::with_capacity(chunks.len());
    for &(bytes, _) in chunks {
        starts.push(input.len() as u64);
        input.extend_from_slice(bytes);
    }
    let (records, host_fault) = plan_records(chunks, &starts, kind);
    if let Some((chunk, fault)) = host_fault {
        return Err(fault.into_error(chunk));
    }
    let out_len = chunks.iter().map(|c| c.1).sum();
    let count = u32::try_from(records.len())
        .map_err(|_| Error::InvalidArgument("too many tiles for one GPU batch".into()))?;
    Ok((ChunkBatch::upload(gpu, &input, records, out_len, shape(kind))?, count))
}

/// Queues the decoder over `batch` (`count` tile records) on the default stream.
pub fn launch(
    gpu: &GpuContext,
    batch: &mut ChunkBatch<TileRecord>,
    count: u32,
    kind: Kind,
    plan: Plan,
) -> Result<()> {
    let name = if kind.bits == 32 {
        kernels::entry::TILE_DECODE_U32
    } else {
        kernels::entry::TILE_DECODE_U64
    };
    let function = gpu.function(&kernels::TILE, name)?;
    let cfg = LaunchConfig {
        grid_dim: (count.div_ceil(TILES_PER_BLOCK), 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let allowed = plan.mask();
    let flip = kind.flip();
    let stream = gpu.stream();
    let mut builder = stream.launch_builder(&function);
    builder
        .arg(&batch.input)
        .arg(&batch.records)
        .arg(&count)
        .arg(&mut batch.out)
        .arg(&mut batch.status)
        .arg(&allowed)
        .arg(&flip);
    // SAFETY: the arguments match `tile_decode_u32/u64`; `ChunkBatch::upload` checked that every
    // record's words lie inside the input (which has 16 bytes of zero slack after them) and its
    // values inside the output, aligned to the value size; `status` holds a word a record.
    unsafe { builder.launch(cfg) }?;
    Ok(())
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use crate::codec::tile::format::MAX_TILE_WORDS;

    /// The launch geometry and the limits on the Rust side must be the kernel's own.
    #[test]
    fn launch_constants_match_tile_cu() {
        let src = kernels::TILE.text;
        let define = |name: &str| -> usize {
            src.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.trim_end_matches('u').parse().ok())
                .unwrap_or_else(|| panic!("tile.cu defines no {name}"))
        };
        assert_eq!(THREADS as usize, define("TILE_THREADS"));
        assert_eq!(TILES_PER_BLOCK as usize, define("TILE_PER_BLOCK"));
        assert_eq!(MAX_TILE_WORDS, define("TILE_MAX_WORDS"));
        assert_eq!(std::mem::size_of::<TileRecord>(), 32);
    }
}
