//! End-to-end rle on the GPU from host memory: the input is cut into batches of whole chunks
//! that flow through three streams, so that the host-to-device copy of one batch, the kernels
//! of the next and the device-to-host copy of a third overlap. With pinned host buffers the
//! copies run at the bus's speed; with pageable ones the driver stages them.

use super::gpu::{
    decode_on_stream, encode_on_stream, DecodeBuffers, DecodeKernel, EncodeBuffers, Geometry,
};
use crate::error::{ChunkStatus, Error, Result};
use crate::format::{ChunkSpan, Container};
use crate::gpu::{CudaSlice, GpuContext};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::Arc;

/// Streams (and buffer sets) in flight.
const SLOTS: usize = 3;
/// Target uncompressed bytes per batch.
const BATCH_BYTES: usize = 64 << 20;

fn batch_chunks(chunk_size: usize) -> usize {
    (BATCH_BYTES / chunk_size).max(1)
}

/// Reusable streams and device buffers for pipelined compression and decompression.
pub struct RlePipeline {
    streams: Vec<Arc<CudaStream>>,
}

impl RlePipeline {
    /// Creates the streams.
    pub fn new(gpu: &GpuContext) -> Result<RlePipeline> {
        let streams = (0..SLOTS)
            .map(|_| gpu.new_stream())
            .collect::<Result<Vec<_>>>()?;
        Ok(RlePipeline { streams })
    }

    /// Compresses `data` into `out`, which must hold at least `Geometry::max_payload()` of the
    /// whole input; returns the chunk spans (contiguous from 0) and the payload length.
    pub fn compress_into(
        &self,
        gpu: &GpuContext,
        data: &[u8],
        chunk_size: usize,
        out: &mut [u8],
    ) -> Result<(Vec<ChunkSpan>, usize)> {
        let whole = Geometry::new(data.len() as u64, chunk_size)?;
        if out.len() < whole.max_payload() {
            return Err(Error::InvalidArgument(format!(
                "rle output buffer of {} bytes is below the bound {}",
                out.len(),
                whole.max_payload()
            )));
        }
        if data.is_empty() {
            return Ok((Vec::new(), 0));
        }
        let per_batch = batch_chunks(chunk_size) * chunk_size;
        let batches: Vec<&[u8]> = data.chunks(per_batch).collect();
        let batch_geometry = Geometry::new(batches[0].len() as u64, chunk_size)?;
        let mut slots = Vec::with_capacity(SLOTS);
        for _ in 0..SLOTS.min(batches.len()) {
            slots.push(EncodeSlot {
                input: gpu.alloc::<u8>(per_batch)?,
                buffers: EncodeBuffers::new(gpu, batch_geometry)?,
                done: gpu
                    .context()
                    .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))?,
            });
        }
        let mut spans = Vec::with_capacity(whole.chunks as usize);
        let mut written = 0usize;
        for (i, batch) in batches.iter().enumerate() {
            let k = i % SLOTS;
            let stream = &self.streams[k];
            let slot = &mut slots[k];
            slot.buffers.geometry = Geometry::new(batch.len() as u64, chunk_size)?;
            let mut dst = slot.input.slice_mut(0..batch.len());
            stream.memcpy_htod(*batch, &mut dst)?;
            encode_on_stream(gpu, stream, &slot.input, &mut slot.buffers)?;
            slot.done.record(stream)?;
            if i >= 1 {
                let p = (i - 1) % SLOTS;
                written += finish_encode(
                    gpu,
                    &self.streams[p],
                    &slots[p],
                    &mut out[written..],
                    written,
                    &mut spans,
                )?;
            }
        }
        let last = (batches.len() - 1) % SLOTS;
        written += finish_encode(
            gpu,
            &self.streams[last],
            &slots[last],
            &mut out[written..],
            written,
            &mut spans,
        )?;
        for s in &self.streams {
            s.synchronize()?;
        }
        Ok((spans, written))
    }

    /// Decompresses a validated rle container into `out` (exactly its total length).
    pub fn decompress_into(
        &self,
        gpu: &GpuContext,
        container: &Container<'_>,
        out: &mut [u8],
        kernel: DecodeKernel,
    ) -> Result<()> {
        let h = &container.header;
        if out.len() as u64 != h.total_len {
            return Err(Error::InvalidArgument(format!(
                "output holds {} bytes, the container {}",
                out.len(),
                h.total_len
            )));
        }
        if out.is_empty() {
            return Ok(());
        }
        let chunk_size = h.chunk_size as usize;
        let per_batch = batch_chunks(chunk_size);
        let chunks = &container.chunks;
        let nbatches = chunks.len().div_ceil(per_batch);
        // The largest compressed batch sizes the device payload buffers.
        let mut max_payload = 0usize;
        for b in 0..nbatches {
            let range = &chunks[b * per_batch..((b + 1) * per_batch).min(chunks.len())];
            let bytes: u64 = range.iter().map(|c| c.compressed_len as u64).sum();
            max_payload = max_payload.max(bytes as usize);
        }
        let mut slots = Vec::with_capacity(SLOTS);
        for _ in 0..SLOTS.min(nbatches) {
            slots.push(DecodeBuffers {
                geometry: Geometry::new((per_batch * chunk_size) as u64, chunk_size)?,
                payload: gpu.alloc::<u8>(max_payload)?,
                offsets: gpu.alloc::<u64>(per_batch)?,
                sizes: gpu.alloc::<u32>(per_batch)?,
                out: gpu.alloc::<u8>(per_batch * chunk_size)?,
                status: gpu.alloc_zeros::<u32>(per_batch)?,
            });
        }
        let mut all_status = gpu.alloc_zeros::<u32>(chunks.len())?;
        let mut out_rest: &mut [u8] = out;
        for b in 0..nbatches {
            let k = b % SLOTS;
            let stream = &self.streams[k];
            let slot = &mut slots[k];
            let c0 = b * per_batch;
            let c1 = ((b + 1) * per_batch).min(chunks.len());
            let first = chunks[c0].offset;
            let offsets: Vec<u64> = chunks[c0..c1].iter().map(|c| c.offset - first).collect();
            let sizes: Vec<u32> = chunks[c0..c1].iter().map(|c| c.compressed_len).collect();
            let bytes: usize = sizes.iter().map(|&s| s as usize).sum();
            let raw: usize = chunks[c0..c1]
                .iter()
                .map(|c| c.uncompressed_len as usize)
                .sum();
            let src = container
                .payload
                .get(first as usize..first as usize + bytes)
                .ok_or_else(|| {
                    Error::CorruptContainer("chunk table points outside the payload".into())
                })?;
            let mut d_payload = slot.payload.slice_mut(0..bytes);
            stream.memcpy_htod(src, &mut d_payload)?;
            let mut d_off = slot.offsets.slice_mut(0..offsets.len());
            stream.memcpy_htod(offsets.as_slice(), &mut d_off)?;
            let mut d_size = slot.sizes.slice_mut(0..sizes.len());
            stream.memcpy_htod(sizes.as_slice(), &mut d_size)?;
            slot.geometry = Geometry::new(raw as u64, chunk_size)?;
            decode_on_stream(gpu, stream, slot, kernel)?;
            let (mine, rest) = out_rest.split_at_mut(raw);
            out_rest = rest;
            stream.memcpy_dtoh(&slot.out.slice(0..raw), mine)?;
            let mut status_dst = all_status.slice_mut(c0..c1);
            stream.memcpy_dtod(&slot.status.slice(0..c1 - c0), &mut status_dst)?;
        }
        for s in &self.streams {
            s.synchronize()?;
        }
        let status = gpu.download(&all_status)?;
        if let Some((i, &code)) = status.iter().enumerate().find(|(_, &c)| c != 0) {
            return Err(Error::chunk(i, ChunkStatus::from_code(code)));
        }
        Ok(())
    }
}

struct EncodeSlot {
    input: CudaSlice<u8>,
    buffers: EncodeBuffers,
    done: CudaEvent,
}

/// Waits for a batch's kernels, reads its chunk layout and queues the copy of exactly its
/// compressed bytes to `out`; returns the bytes queued.
fn finish_encode(
    gpu: &GpuContext,
    stream: &Arc<CudaStream>,
    slot: &EncodeSlot,
    out: &mut [u8],
    base: usize,
    spans: &mut Vec<ChunkSpan>,
) -> Result<usize> {
    slot.done.synchronize()?;
    let (batch_spans, total) = super::gpu::encoded_spans_on(gpu, stream, &slot.buffers)?;
    let dst = out
        .get_mut(..total)
        .ok_or_else(|| Error::Driver("rle pipeline output overflow".into()))?;
    stream.memcpy_dtoh(&slot.buffers.out.slice(0..total), dst)?;
    spans.extend(batch_spans.into_iter().map(|s| ChunkSpan {
        offset: s.offset + base,
        ..s
    }));
    Ok(total)
}
