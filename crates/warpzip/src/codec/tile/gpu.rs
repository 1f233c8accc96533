//! Decoding tile codec chunks on the GPU (`kernels/tile/tile.cu`): one record a tile, a thread
//! block of 128 threads decoding `TILES_PER_BLOCK` tiles one after another, each staged in
//! shared memory. The host checks every chunk's size and tile table (the same checks as the
//! CPU decoder) and hands the kernel one record a tile; a tile that does not decode reports its
//! fault in its status word, and the lowest failing tile names the chunk and the tile.

use super::format::{split_chunk, tile_count, ChunkFault, Fault, Kind, Plan, PAD_WORDS, TILE_VALUES};
use crate::error::{Error, Result};
use crate::format::ChunkSpan;
use crate::gpu::batch::padded;
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

/// One tile for the encoder; the layout of `TileEncRecord` in tile.cu: its values start at value
/// `in_value` of the input, its words go to word `out_word` of the output.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileEncRecord {
    pub in_value: u64,
    pub count: u32,
    pub pad: u32,
    pub out_word: u64,
}

// SAFETY: `TileEncRecord` is `#[repr(C)]` plain data with the field order, sizes and alignment
// of the CUDA struct (u64, u32, u32, u64: 24 bytes, no padding).
unsafe impl DeviceRepr for TileEncRecord {}

/// Compresses `data` (little-endian values of `kind`) on the GPU in chunks of `chunk_size` bytes
/// into a payload and its chunk spans, byte-identical to `chunked::compress`: a first launch
/// sizes every tile (choosing its scheme), the host lays the chunks out, a second launch writes
/// the tiles and the host adds the tile tables.
pub fn compress(
    gpu: &GpuContext,
    data: &[u8],
    kind: Kind,
    plan: Plan,
    chunk_size: usize,
) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    let size = kind.bytes();
    if !data.len().is_multiple_of(size)
        || chunk_size == 0
        || !chunk_size.is_multiple_of(size)
        || chunk_size > crate::codec::MAX_CHUNK_SIZE as usize
    {
        return Err(Error::InvalidArgument(format!(
            "input of {} bytes in chunks of {chunk_size} is not whole {size}-byte values in              chunks of at most 64 MiB",
            data.len()
        )));
    }
    let values = data.len() / size;
    let chunk_values = chunk_size / size;
    // Per chunk: its first record and its value count.
    let mut chunks: Vec<(usize, usize)> = Vec::new();
    let mut records: Vec<TileEncRecord> = Vec::new();
    let mut start = 0usize;
    while start < values {
        let n = chunk_values.min(values - start);
        chunks.push((records.len(), n));
        for t in 0..tile_count(n) {
            records.push(TileEncRecord {
                in_value: (start + t * TILE_VALUES) as u64,
                count: (n - t * TILE_VALUES).min(TILE_VALUES) as u32,
                pad: 0,
                out_word: 0,
            });
        }
        start += n;
    }
    if records.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let count = u32::try_from(records.len())
        .map_err(|_| Error::InvalidArgument("too many tiles for one GPU call".into()))?;
    let input = gpu.upload(&padded(data, 0, 16)?)?;
    let mut plan_words = gpu.alloc_zeros::<u32>(2 * records.len())?;
    let mut unused = gpu.alloc_zeros::<u32>(1)?;
    let recs = gpu.upload(&records)?;
    launch_encode(gpu, &input, &recs, count, kind, plan, &mut plan_words, &mut unused, 0)?;
    let sizes = gpu.download(&plan_words)?;
    // The layout: each chunk its table, its tiles, its padding.
    let mut spans = Vec::with_capacity(chunks.len());
    let mut tables: Vec<(usize, Vec<u32>)> = Vec::with_capacity(chunks.len());
    let mut word = 0usize;
    for (ci, &(first, n)) in chunks.iter().enumerate() {
        let tiles = tile_count(n);
        let data_start = word + tiles + 1;
        let mut table = Vec::with_capacity(tiles + 1);
        let mut pos = 0usize;
        table.push(0u32);
        for (i, rec) in records[first..first + tiles].iter_mut().enumerate() {
            rec.out_word = (data_start + pos) as u64;
            let words = sizes.get(2 * (first + i)).copied().unwrap_or(0) as usize;
            if words == 0 || words > super::format::MAX_TILE_WORDS {
                return Err(Error::Driver(format!(
                    "the tile encoder sized tile {i} of chunk {ci} at {words} words"
                )));
            }
            pos += words;
            table.push(pos as u32);
        }
        let chunk_words = tiles + 1 + pos + PAD_WORDS;
        spans.push(ChunkSpan {
            offset: word * 4,
            compressed_len: u32::try_from(chunk_words * 4).map_err(|_| {
                Error::InvalidArgument("a compressed chunk does not fit a u32 length".into())
            })?,
            uncompressed_len: (n * size) as u32,
        });
        tables.push((word, table));
        word += chunk_words;
    }
    let recs = gpu.upload(&records)?;
    let mut out = gpu.alloc_zeros::<u32>(word.max(1))?;
    launch_encode(gpu, &input, &recs, count, kind, plan, &mut plan_words, &mut out, 1)?;
    let mut words = gpu.download(&out)?;
    words.truncate(word);
    for (at, table) in tables {
        if let Some(dst) = words.get_mut(at..at + table.len()) {
            dst.copy_from_slice(&table);
        }
    }
    let mut payload = Vec::with_capacity(word * 4);
    for w in words {
        payload.extend_from_slice(&w.to_le_bytes());
    }
    Ok((payload, spans))
}

/// One launch of the encoder: `write` 0 sizes the tiles into `plan_words` (two words a tile:
/// its word count and scheme), 1 writes them into `out` at their records' places.
#[allow(clippy::too_many_arguments)]
fn launch_encode(
    gpu: &GpuContext,
    input: &crate::gpu::CudaSlice<u8>,
    recs: &crate::gpu::CudaSlice<TileEncRecord>,
    count: u32,
    kind: Kind,
    plan: Plan,
    plan_words: &mut crate::gpu::CudaSlice<u32>,
    out: &mut crate::gpu::CudaSlice<u32>,
    write: u32,
) -> Result<()> {
    let name = if kind.bits == 32 {
        kernels::entry::TILE_ENCODE_U32
    } else {
        kernels::entry::TILE_ENCODE_U64
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
        .arg(input)
        .arg(recs)
        .arg(&count)
        .arg(&allowed)
        .arg(&flip)
        .arg(plan_words)
        .arg(out)
        .arg(&write);
    // SAFETY: the arguments match `tile_encode_u32/u64`; every record's values lie inside the
    // input (they were cut from its length), `plan_words` holds two words a record, and on the
    // writing launch every record's words lie inside `out`, which holds the whole layout the
    // sizing launch gave.
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
        let src = kernels::TILE.expanded();
        let define = |name: &str| -> usize {
            src.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.trim_end_matches('u').parse().ok())
                .unwrap_or_else(|| panic!("tile.cu and its headers define no {name}"))
        };
        assert_eq!(THREADS as usize, define("TILE_THREADS"));
        assert_eq!(TILES_PER_BLOCK as usize, define("TILE_PER_BLOCK"));
        assert_eq!(MAX_TILE_WORDS, define("TILE_MAX_WORDS"));
        assert_eq!(std::mem::size_of::<TileRecord>(), 32);
        assert_eq!(std::mem::size_of::<TileEncRecord>(), 24);
    }
}
