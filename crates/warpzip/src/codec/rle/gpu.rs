//! GPU encoder and decoder of the `rle` chunk format (`kernels/rle/rle.cu`): one warp per 4096-byte
//! segment. The encoder writes every segment straight to its final place (a single-pass scan of
//! the segment sizes), so its output is the CPU encoder's byte for byte. The decoder takes a
//! segment's controls 64 at a time and finds every token's payload and output with two warp
//! scans (token layout 2 makes a token's payload size a function of its control byte), maps
//! where tokens start, then writes the segment in 16-byte units, one lane each.

use super::format::{max_compressed_len, segment_count, SEGMENT_SIZE};
use super::pipeline::HostMemory;
use crate::error::{Error, Result};
use crate::format::{ChunkSpan, Container};
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::CudaStream;
use std::sync::Arc;

/// Warps per block of the encoder; must match `RLE_ENC_WARPS` in rle.cu.
pub const ENCODE_WARPS: u32 = 2;
/// Bytes a decoder's payload buffer holds past the payload: the decoder reads whole words up to
/// 11 bytes past a segment's end, and the aligned word after a segment-table entry
/// (`RLE_PAYLOAD_SLACK` in rle.cu).
pub const PAYLOAD_SLACK: usize = 16;
/// Warps per block of the decoder; must match `RLE_DEC_WARPS` in rle.cu.
pub const DECODE_WARPS: u32 = 4;

/// The chunk/segment geometry of an input, shared by encoder and decoder.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub total_len: u64,
    pub chunk_size: u32,
    pub chunks: u32,
    pub segs_per_chunk: u32,
    pub total_segments: u32,
}

impl Geometry {
    /// Validates `chunk_size` (a positive multiple of the segment size) and derives the rest.
    pub fn new(total_len: u64, chunk_size: usize) -> Result<Geometry> {
        if chunk_size == 0
            || !chunk_size.is_multiple_of(SEGMENT_SIZE)
            || chunk_size > u32::MAX as usize
        {
            return Err(Error::InvalidArgument(format!(
                "rle chunk size {chunk_size} must be a positive multiple of {SEGMENT_SIZE}"
            )));
        }
        let chunks = total_len.div_ceil(chunk_size as u64);
        let segs_per_chunk = (chunk_size / SEGMENT_SIZE) as u64;
        let total_segments = total_len.div_ceil(SEGMENT_SIZE as u64);
        if chunks > u32::MAX as u64 || total_segments > u32::MAX as u64 {
            return Err(Error::InvalidArgument(format!(
                "input of {total_len} bytes has too many segments for one GPU call"
            )));
        }
        Ok(Geometry {
            total_len,
            chunk_size: chunk_size as u32,
            chunks: chunks as u32,
            segs_per_chunk: segs_per_chunk as u32,
            total_segments: total_segments as u32,
        })
    }

    fn chunk_len(&self, c: u32) -> usize {
        let start = c as u64 * self.chunk_size as u64;
        (self.total_len - start).min(self.chunk_size as u64) as usize
    }

    /// Upper bound of the whole payload.
    pub fn max_payload(&self) -> usize {
        (0..self.chunks)
            .map(|c| max_compressed_len(self.chunk_len(c)))
            .sum()
    }
}

/// Device buffers of one encode call, kept so that benchmarks can time the kernels alone.
pub struct EncodeBuffers {
    pub geometry: Geometry,
    pub out: CudaSlice<u8>,
    state: CudaSlice<u32>,
    /// Look-back status per segment (flag and prefix in one word, see common.cuh).
    status: CudaSlice<u64>,
    seg_end: CudaSlice<u64>,
    chunk_start: CudaSlice<u64>,
    error: CudaSlice<u32>,
}

impl EncodeBuffers {
    /// Allocates everything an encode of `geometry` needs.
    pub fn new(gpu: &GpuContext, geometry: Geometry) -> Result<EncodeBuffers> {
        let segs = geometry.total_segments as usize;
        Ok(EncodeBuffers {
            geometry,
            out: gpu.alloc_for::<u8>(geometry.max_payload(), "the rle encoder's output")?,
            state: gpu.alloc_zeros::<u32>(1)?,
            status: gpu.alloc_zeros_for::<u64>(segs, "the rle encoder's segment status")?,
            seg_end: gpu.alloc_for::<u64>(segs, "the rle encoder's segment ends")?,
            chunk_start: gpu.alloc_for::<u64>(geometry.chunks as usize, "the rle chunk starts")?,
            error: gpu.alloc_zeros::<u32>(1)?,
        })
    }
}

/// Queues the encode kernels on the default stream (no synchronisation).
pub fn encode_on_device(
    gpu: &GpuContext,
    input: &CudaSlice<u8>,
    b: &mut EncodeBuffers,
) -> Result<()> {
    encode_on_stream(gpu, gpu.stream(), input, b)
}

/// Queues the encode kernels of `b.geometry` on `stream` (no synchronisation). The buffers may
/// be larger than the geometry needs (a pipeline reuses them for a shorter last batch).
pub fn encode_on_stream(
    gpu: &GpuContext,
    stream: &Arc<CudaStream>,
    input: &CudaSlice<u8>,
    b: &mut EncodeBuffers,
) -> Result<()> {
    let g = b.geometry;
    if g.total_segments == 0 {
        return Ok(());
    }
    if b.status.len() < g.total_segments as usize
        || b.chunk_start.len() < g.chunks as usize
        || b.out.len() < g.max_payload()
    {
        return Err(Error::InvalidArgument(
            "rle encode buffers smaller than the geometry".into(),
        ));
    }
    {
        let (ptr, _sync) = cudarc::driver::DevicePtr::device_ptr(input, stream);
        if ptr % 4 != 0 {
            return Err(Error::InvalidArgument(
                "rle GPU input must be 4-byte aligned".into(),
            ));
        }
    }
    if (input.len() as u64) < g.total_len {
        return Err(Error::InvalidArgument(
            "rle input buffer shorter than its geometry".into(),
        ));
    }
    stream.memset_zeros(&mut b.state)?;
    stream.memset_zeros(&mut b.status)?;
    stream.memset_zeros(&mut b.error)?;
    let capacity = b.out.len() as u64;
    let encode = gpu.function(&kernels::RLE, kernels::entry::RLE_ENCODE_SEGMENTS)?;
    let cfg = LaunchConfig {
        grid_dim: (g.total_segments.div_ceil(ENCODE_WARPS), 1, 1),
        block_dim: (ENCODE_WARPS * 32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&encode);
    launch
        .arg(input)
        .arg(&g.total_len)
        .arg(&g.chunk_size)
        .arg(&g.segs_per_chunk)
        .arg(&g.total_segments)
        .arg(&mut b.out)
        .arg(&capacity)
        .arg(&mut b.state)
        .arg(&mut b.status)
        .arg(&mut b.seg_end)
        .arg(&mut b.chunk_start)
        .arg(&mut b.error);
    // SAFETY: arguments match `rle_encode_segments`; the input holds total_len bytes (checked),
    // the per-segment arrays hold total_segments entries, chunk_start one per chunk, and the
    // kernel bounds every output write by `capacity`, the length of `out`.
    unsafe { launch.launch(cfg) }?;
    let tables = gpu.function(&kernels::RLE, kernels::entry::RLE_ENCODE_TABLES)?;
    let cfg = LaunchConfig {
        grid_dim: (g.total_segments.div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&tables);
    launch
        .arg(&g.total_len)
        .arg(&g.chunk_size)
        .arg(&g.segs_per_chunk)
        .arg(&g.total_segments)
        .arg(&mut b.out)
        .arg(&b.seg_end)
        .arg(&b.chunk_start);
    // SAFETY: arguments match `rle_encode_tables`; every table lies inside the payload the
    // first kernel laid out, which is within `out`.
    unsafe { launch.launch(cfg) }?;
    Ok(())
}

/// Reads back the chunk spans and the payload length of a finished encode.
pub fn encoded_spans(gpu: &GpuContext, b: &EncodeBuffers) -> Result<(Vec<ChunkSpan>, usize)> {
    encoded_spans_on(gpu, gpu.stream(), b)
}

/// `encoded_spans`, reading back through `stream` (the stream the encode ran on).
pub fn encoded_spans_on(
    _gpu: &GpuContext,
    stream: &Arc<CudaStream>,
    b: &EncodeBuffers,
) -> Result<(Vec<ChunkSpan>, usize)> {
    let g = b.geometry;
    if g.total_segments == 0 {
        return Ok((Vec::new(), 0));
    }
    let short = || Error::Driver("short readback of the rle chunk layout".into());
    if stream
        .clone_dtoh(&b.error)?
        .first()
        .copied()
        .ok_or_else(short)?
        != 0
    {
        return Err(Error::Driver(
            "rle encoder exceeded its output bound".into(),
        ));
    }
    let starts = stream.clone_dtoh(&b.chunk_start.slice(0..g.chunks as usize))?;
    let last_end = stream.clone_dtoh(
        &b.seg_end
            .slice(g.total_segments as usize - 1..g.total_segments as usize),
    )?;
    let total = *last_end.first().ok_or_else(short)? as usize;
    let mut spans = Vec::with_capacity(g.chunks as usize);
    for c in 0..g.chunks as usize {
        let start = *starts.get(c).ok_or_else(short)? as usize;
        let end = starts.get(c + 1).map(|&e| e as usize).unwrap_or(total);
        let len = end
            .checked_sub(start)
            .ok_or_else(|| Error::Driver("rle encoder produced unordered chunks".into()))?;
        spans.push(ChunkSpan {
            offset: start,
            compressed_len: len as u32,
            uncompressed_len: g.chunk_len(c as u32) as u32,
        });
    }
    Ok((spans, total))
}

/// Compresses `data` on the GPU into a payload and its chunk spans, byte-identical to
/// `chunked::compress`.
pub fn compress(
    gpu: &GpuContext,
    data: &[u8],
    chunk_size: usize,
) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    let geometry = Geometry::new(data.len() as u64, chunk_size)?;
    let mut payload = crate::error::try_zeroed(geometry.max_payload(), "the rle payload")?;
    let pipeline = super::pipeline::RlePipeline::new(gpu)?;
    let (spans, total) =
        pipeline.compress_into(gpu, data, chunk_size, &mut payload, HostMemory::Pageable)?;
    payload.truncate(total);
    Ok((payload, spans))
}

/// Device buffers of one decode call.
pub struct DecodeBuffers {
    pub geometry: Geometry,
    pub payload: CudaSlice<u8>,
    pub offsets: CudaSlice<u64>,
    pub sizes: CudaSlice<u32>,
    /// The decoded bytes: always a whole allocation (256-byte aligned), never a view, because
    /// `rle_decode` writes 16-byte vectors at 16-byte multiples from its start.
    pub out: CudaSlice<u8>,
    pub status: CudaSlice<u32>,
}

impl DecodeBuffers {
    /// Uploads a validated container's payload and table.
    pub fn from_container(gpu: &GpuContext, container: &Container<'_>) -> Result<DecodeBuffers> {
        let h = &container.header;
        let geometry = Geometry::new(h.total_len, h.chunk_size as usize)?;
        let offsets: Vec<u64> = container.chunks.iter().map(|c| c.offset).collect();
        let sizes: Vec<u32> = container.chunks.iter().map(|c| c.compressed_len).collect();
        if offsets.len() != geometry.chunks as usize {
            return Err(Error::CorruptContainer(
                "chunk count does not match the sizes".into(),
            ));
        }
        Ok(DecodeBuffers {
            geometry,
            payload: {
                let len = container.payload.len();
                let mut payload =
                    gpu.alloc_zeros_for::<u8>(len + PAYLOAD_SLACK, "the rle payload")?;
                gpu.stream()
                    .memcpy_htod(container.payload, &mut payload.slice_mut(0..len))?;
                payload
            },
            offsets: gpu.upload_for(&offsets, "the rle chunk offsets")?,
            sizes: gpu.upload_for(&sizes, "the rle chunk sizes")?,
            out: gpu.alloc_for::<u8>(h.total_len as usize, "the decompressed output")?,
            status: gpu.alloc_zeros_for::<u32>(geometry.chunks as usize, "the rle chunk status")?,
        })
    }
}

/// Queues the decode kernel on the default stream (no synchronisation).
pub fn decode_on_device(gpu: &GpuContext, b: &mut DecodeBuffers) -> Result<()> {
    decode_on_stream(gpu, gpu.stream(), b)
}

/// Queues the decode kernel for `b.geometry` on `stream` (no synchronisation): one warp per
/// segment, `DECODE_WARPS` a block.
pub fn decode_on_stream(
    gpu: &GpuContext,
    stream: &Arc<CudaStream>,
    b: &mut DecodeBuffers,
) -> Result<()> {
    let g = b.geometry;
    if g.total_segments == 0 {
        return Ok(());
    }
    stream.memset_zeros(&mut b.status)?;
    let decode = gpu.function(&kernels::RLE, kernels::entry::RLE_DECODE)?;
    let cfg = LaunchConfig {
        grid_dim: (g.total_segments.div_ceil(DECODE_WARPS), 1, 1),
        block_dim: (DECODE_WARPS * 32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = stream.launch_builder(&decode);
    launch
        .arg(&b.payload)
        .arg(&b.offsets)
        .arg(&b.sizes)
        .arg(&g.total_len)
        .arg(&g.chunk_size)
        .arg(&g.segs_per_chunk)
        .arg(&g.total_segments)
        .arg(&mut b.out)
        .arg(&mut b.status);
    // SAFETY: arguments match `rle_decode`; offsets and sizes come from a validated table
    // (every chunk lies inside the payload), the kernel bounds every read by its chunk's size
    // and every write by its segment's length inside `out` (total_len bytes).
    unsafe { launch.launch(cfg) }?;
    Ok(())
}

/// Turns the per-chunk statuses into the error of the lowest failing chunk.
pub fn check_status(gpu: &GpuContext, b: &DecodeBuffers) -> Result<()> {
    let mut status = gpu.download(&b.status)?;
    status.truncate(b.geometry.chunks as usize);
    crate::gpu::batch::first_failure(&status, 1)
}

/// Decompresses every chunk of a validated `rle` container on the GPU into `out`.
pub fn decompress_into(gpu: &GpuContext, container: &Container<'_>, out: &mut [u8]) -> Result<()> {
    if out.len() as u64 != container.header.total_len {
        return Err(Error::InvalidArgument(format!(
            "output holds {} bytes, the container {}",
            out.len(),
            container.header.total_len
        )));
    }
    if out.is_empty() {
        return Ok(());
    }
    let pipeline = super::pipeline::RlePipeline::new(gpu)?;
    pipeline.decompress_into(gpu, container, out, HostMemory::Pageable)
}

/// Segments of a chunk of `n` bytes (re-exported for tests).
pub fn segments(n: usize) -> usize {
    segment_count(n)
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    /// The launch geometry on the Rust side must be the kernels' own.
    #[test]
    fn launch_constants_match_rle_cu() {
        let src = kernels::RLE.text;
        let define = |name: &str| -> u32 {
            src.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.trim_end_matches('u').parse().ok())
                .unwrap_or_else(|| panic!("rle.cu defines no {name}"))
        };
        assert_eq!(ENCODE_WARPS, define("RLE_ENC_WARPS"));
        assert_eq!(DECODE_WARPS, define("RLE_DEC_WARPS"));
        assert_eq!(SEGMENT_SIZE as u32, define("RLE_SEG"));
    }
}
