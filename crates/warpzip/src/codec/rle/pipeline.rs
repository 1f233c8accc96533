//! End-to-end rle on the GPU from host memory: the input is cut into batches of whole chunks
//! that flow through three streams, so that the host-to-device copy of one batch, the kernels
//! of the next and the device-to-host copy of a third overlap. Pinned host buffers are copied
//! directly; pageable ones are staged through the context's pinned buffers by parallel host
//! copies that overlap the device's work.

use super::gpu::{decode_on_stream, encode_on_stream, DecodeBuffers, EncodeBuffers, Geometry};
use crate::error::{ChunkStatus, Error, Result};
use crate::format::{ChunkSpan, Container};
use crate::gpu::{CudaSlice, GpuContext};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream, PinnedHostSlice};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::Arc;

/// Streams (and buffer sets) in flight.
const SLOTS: usize = 3;
/// Target uncompressed bytes per batch.
const BATCH_BYTES: usize = 64 << 20;

/// Where the caller's host buffers live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostMemory {
    /// Page-locked (for example from `GpuContext::alloc_pinned`): copied by DMA directly.
    Pinned,
    /// Ordinary memory: staged through pinned buffers.
    Pageable,
}

fn batch_chunks(chunk_size: usize) -> usize {
    (BATCH_BYTES / chunk_size).max(1)
}

fn par_copy(dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 1 << 20;
    dst.par_chunks_mut(PIECE)
        .zip(src.par_chunks(PIECE))
        .for_each(|(d, s)| d.copy_from_slice(s));
}

fn event(gpu: &GpuContext) -> Result<CudaEvent> {
    Ok(gpu
        .context()
        .new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))?)
}

/// Reusable streams for pipelined compression and decompression.
pub struct RlePipeline {
    streams: Vec<Arc<CudaStream>>,
    /// Written over each batch's device output before its decode (tests: an unwritten byte
    /// then shows, and no batch can pass on bytes a previous one left in a reused buffer).
    poison: Option<u8>,
}

struct EncodeSlot {
    input: CudaSlice<u8>,
    buffers: EncodeBuffers,
    done: CudaEvent,
    out_ready: CudaEvent,
}

/// A batch whose compressed bytes are being copied to a staging buffer.
struct PendingOut {
    slot: usize,
    base: usize,
    len: usize,
}

impl RlePipeline {
    /// Creates the streams.
    pub fn new(gpu: &GpuContext) -> Result<RlePipeline> {
        let streams = (0..SLOTS)
            .map(|_| gpu.new_stream())
            .collect::<Result<Vec<_>>>()?;
        Ok(RlePipeline {
            streams,
            poison: None,
        })
    }

    /// The same pipeline, writing `byte` over every batch's device output before it is
    /// decoded (for tests).
    pub fn poison_outputs(self, byte: u8) -> RlePipeline {
        RlePipeline {
            poison: Some(byte),
            ..self
        }
    }

    /// Compresses `data` into `out`, which must hold at least `Geometry::max_payload()` of the
    /// whole input; returns the chunk spans (contiguous from 0) and the payload length.
    pub fn compress_into(
        &self,
        gpu: &GpuContext,
        data: &[u8],
        chunk_size: usize,
        out: &mut [u8],
        memory: HostMemory,
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
        let nslots = SLOTS.min(batches.len());
        let mut slots = Vec::with_capacity(nslots);
        for _ in 0..nslots {
            slots.push(EncodeSlot {
                input: gpu.alloc_for::<u8>(per_batch, "the rle encoder's input batch")?,
                buffers: EncodeBuffers::new(gpu, batch_geometry)?,
                done: event(gpu)?,
                out_ready: event(gpu)?,
            });
        }
        let staged = memory == HostMemory::Pageable;
        let (mut stage_in, mut stage_out) = if staged {
            (
                gpu.take_staging(nslots, per_batch)?,
                gpu.take_staging(nslots, batch_geometry.max_payload())?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let result = self.compress_batches(
            gpu,
            &batches,
            chunk_size,
            out,
            &mut slots,
            &mut stage_in,
            &mut stage_out,
        );
        // Nothing may still read or write the staging buffers when they go back to the pool.
        let synced = self.synchronize();
        gpu.return_staging(stage_in);
        gpu.return_staging(stage_out);
        synced?;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn compress_batches(
        &self,
        gpu: &GpuContext,
        batches: &[&[u8]],
        chunk_size: usize,
        out: &mut [u8],
        slots: &mut [EncodeSlot],
        stage_in: &mut [PinnedHostSlice<u8>],
        stage_out: &mut [PinnedHostSlice<u8>],
    ) -> Result<(Vec<ChunkSpan>, usize)> {
        let staged = !stage_in.is_empty();
        let mut spans = Vec::new();
        let mut written = 0usize;
        let mut pending: VecDeque<PendingOut> = VecDeque::new();
        for i in 0..=batches.len() {
            if let Some(batch) = batches.get(i) {
                let k = i % slots.len();
                let stream = &self.streams[k];
                let slot = &mut slots[k];
                slot.buffers.geometry = Geometry::new(batch.len() as u64, chunk_size)?;
                let mut dst = slot.input.slice_mut(0..batch.len());
                if staged {
                    // The previous batch of this slot finished its kernels (finish_encode
                    // waited), so its copy out of this staging buffer is done.
                    let stage = GpuContext::staging_slice(&mut stage_in[k], batch.len())?;
                    par_copy(stage, batch);
                    stream.memcpy_htod(&*stage, &mut dst)?;
                } else {
                    stream.memcpy_htod(*batch, &mut dst)?;
                }
                encode_on_stream(gpu, stream, &slot.input, &mut slot.buffers)?;
                slot.done.record(stream)?;
            }
            if i >= 1 {
                let p = (i - 1) % slots.len();
                let stream = &self.streams[p];
                let slot = &slots[p];
                slot.done.synchronize()?;
                let (batch_spans, total) =
                    super::gpu::encoded_spans_on(gpu, stream, &slot.buffers)?;
                let src = slot.buffers.out.slice(0..total);
                if staged {
                    let stage = GpuContext::staging_slice(&mut stage_out[p], total)?;
                    stream.memcpy_dtoh(&src, stage)?;
                    slot.out_ready.record(stream)?;
                    pending.push_back(PendingOut {
                        slot: p,
                        base: written,
                        len: total,
                    });
                } else {
                    let dst = out
                        .get_mut(written..written + total)
                        .ok_or_else(|| Error::Driver("rle pipeline output overflow".into()))?;
                    stream.memcpy_dtoh(&src, dst)?;
                }
                spans.extend(batch_spans.into_iter().map(|s| ChunkSpan {
                    offset: s.offset + written,
                    ..s
                }));
                written += total;
            }
            // Keep one staged output in flight; move the older ones to the caller's buffer.
            let keep = if i == batches.len() { 0 } else { 1 };
            while pending.len() > keep {
                if let Some(done) = pending.pop_front() {
                    slots[done.slot].out_ready.synchronize()?;
                    let stage = GpuContext::staging_slice(&mut stage_out[done.slot], done.len)?;
                    let dst = out
                        .get_mut(done.base..done.base + done.len)
                        .ok_or_else(|| Error::Driver("rle pipeline output overflow".into()))?;
                    par_copy(dst, stage);
                }
            }
        }
        Ok((spans, written))
    }

    fn synchronize(&self) -> Result<()> {
        for s in &self.streams {
            s.synchronize()?;
        }
        Ok(())
    }

    /// Decompresses a validated rle container into `out` (exactly its total length).
    pub fn decompress_into(
        &self,
        gpu: &GpuContext,
        container: &Container<'_>,
        out: &mut [u8],
        memory: HostMemory,
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
        // The largest compressed batch sizes the payload buffers.
        let mut max_payload = 0usize;
        for b in 0..nbatches {
            let range = &chunks[b * per_batch..((b + 1) * per_batch).min(chunks.len())];
            let bytes: u64 = range.iter().map(|c| c.compressed_len as u64).sum();
            max_payload = max_payload.max(bytes as usize);
        }
        let nslots = SLOTS.min(nbatches);
        let mut slots = Vec::with_capacity(nslots);
        for _ in 0..nslots {
            slots.push((
                DecodeBuffers {
                    geometry: Geometry::new((per_batch * chunk_size) as u64, chunk_size)?,
                    payload: gpu.alloc_for::<u8>(
                        max_payload + super::gpu::PAYLOAD_SLACK,
                        "an rle payload batch",
                    )?,
                    offsets: gpu.alloc::<u64>(per_batch)?,
                    sizes: gpu.alloc::<u32>(per_batch)?,
                    out: gpu.alloc_for::<u8>(per_batch * chunk_size, "an rle output batch")?,
                    status: gpu.alloc_zeros::<u32>(per_batch)?,
                },
                event(gpu)?,
            ));
        }
        let staged = memory == HostMemory::Pageable;
        let (mut stage_in, mut stage_out) = if staged {
            (
                gpu.take_staging(nslots, max_payload)?,
                gpu.take_staging(nslots, per_batch * chunk_size)?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let mut all_status = gpu.alloc_zeros_for::<u32>(chunks.len(), "the rle chunk status")?;
        let result = self.decompress_batches(
            gpu,
            container,
            out,
            &mut slots,
            &mut all_status,
            &mut stage_in,
            &mut stage_out,
        );
        let synced = self.synchronize();
        gpu.return_staging(stage_in);
        gpu.return_staging(stage_out);
        synced?;
        result?;
        let status = gpu.download(&all_status)?;
        if let Some((i, &code)) = status.iter().enumerate().find(|(_, &c)| c != 0) {
            return Err(Error::chunk(i, ChunkStatus::from_code(code)));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn decompress_batches(
        &self,
        gpu: &GpuContext,
        container: &Container<'_>,
        out: &mut [u8],
        slots: &mut [(DecodeBuffers, CudaEvent)],
        all_status: &mut CudaSlice<u32>,
        stage_in: &mut [PinnedHostSlice<u8>],
        stage_out: &mut [PinnedHostSlice<u8>],
    ) -> Result<()> {
        let staged = !stage_in.is_empty();
        let chunk_size = container.header.chunk_size as usize;
        let per_batch = batch_chunks(chunk_size);
        let chunks = &container.chunks;
        let nbatches = chunks.len().div_ceil(per_batch);
        // (slot, output offset, length) of staged outputs still to be copied to `out`.
        let mut pending: VecDeque<(usize, usize, usize)> = VecDeque::new();
        let mut out_base = 0usize;
        for b in 0..nbatches {
            let k = b % slots.len();
            // Drain the batch that last used this slot before its staging buffers are reused.
            while pending.front().is_some_and(|&(s, _, _)| s == k) {
                if let Some((s, base, len)) = pending.pop_front() {
                    drain_output(&slots[s].1, &mut stage_out[s], out, base, len)?;
                }
            }
            let stream = &self.streams[k];
            let (slot, ready) = &mut slots[k];
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
            if staged {
                let stage = GpuContext::staging_slice(&mut stage_in[k], bytes)?;
                par_copy(stage, src);
                stream.memcpy_htod(&*stage, &mut d_payload)?;
            } else {
                stream.memcpy_htod(src, &mut d_payload)?;
            }
            let mut d_off = slot.offsets.slice_mut(0..offsets.len());
            stream.memcpy_htod(offsets.as_slice(), &mut d_off)?;
            let mut d_size = slot.sizes.slice_mut(0..sizes.len());
            stream.memcpy_htod(sizes.as_slice(), &mut d_size)?;
            slot.geometry = Geometry::new(raw as u64, chunk_size)?;
            if let Some(byte) = self.poison {
                let fill = crate::error::try_filled(byte, raw, "the poison for an rle batch")?;
                let mut d_out = slot.out.slice_mut(0..raw);
                stream.memcpy_htod(fill.as_slice(), &mut d_out)?;
            }
            decode_on_stream(gpu, stream, slot)?;
            let src_out = slot.out.slice(0..raw);
            if staged {
                let stage = GpuContext::staging_slice(&mut stage_out[k], raw)?;
                stream.memcpy_dtoh(&src_out, stage)?;
                ready.record(stream)?;
                pending.push_back((k, out_base, raw));
            } else {
                let dst = out
                    .get_mut(out_base..out_base + raw)
                    .ok_or_else(|| Error::Driver("rle pipeline output overflow".into()))?;
                stream.memcpy_dtoh(&src_out, dst)?;
            }
            out_base += raw;
            let mut status_dst = all_status.slice_mut(c0..c1);
            stream.memcpy_dtod(&slot.status.slice(0..c1 - c0), &mut status_dst)?;
        }
        while let Some((s, base, len)) = pending.pop_front() {
            drain_output(&slots[s].1, &mut stage_out[s], out, base, len)?;
        }
        Ok(())
    }
}

fn drain_output(
    ready: &CudaEvent,
    stage: &mut PinnedHostSlice<u8>,
    out: &mut [u8],
    base: usize,
    len: usize,
) -> Result<()> {
    ready.synchronize()?;
    let src = GpuContext::staging_slice(stage, len)?;
    let dst = out
        .get_mut(base..base + len)
        .ok_or_else(|| Error::Driver("rle pipeline output overflow".into()))?;
    par_copy(dst, src);
    Ok(())
}
