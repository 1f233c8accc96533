//! Inflate on the GPU (`kernels/deflate/inflate.cuh`, on the CODAG framework of
//! `kernels/framework/codag.cuh`): one warp per raw-deflate stream (`kernels/deflate/inflate.cu`),
//! all 32 lanes decoding together, a persistent grid; or, for batches of few or poorly compressed
//! streams, a pair of warps per stream (`kernels/deflate/inflate_pair.cu`; see
//! [`InflateKernel`]). A batch is a set of [`InflateChunk`]s over one device input buffer and one
//! device output buffer; it can be built from host slices ([`InflateBatch::upload`]) or from
//! buffers already on the device ([`InflateBatch::from_device`]).

use super::batch::StreamResult;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::batch::{check_records, BatchShape, ChunkBatch, ChunkRecord};
use crate::gpu::compile::KernelSource;
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{CudaStream, DeviceRepr};
use std::sync::Arc;

/// Warps per block of either kernel; must match `INFLATE_WARPS` in inflate.cuh.
pub const WARPS: u32 = 2;
/// Resident blocks per SM the persistent grid asks for.
const BLOCKS_PER_SM: u32 = 8;
/// The most resident blocks per SM `inflate_pair` is compiled for; must match
/// `INFLATE_PAIR_BLOCKS` in inflate_pair.cu.
const PAIR_BLOCKS_PER_SM: u32 = 16;
/// Token rows of 32 words in one row set of the parallel rounds (`INFLATE_ROWS`, the list plus
/// the walk, of inflate.cu): each warp of `inflate_warp` keeps one set in global scratch.
pub const WARP_ROWS: usize = 192;
/// The same for inflate_pair.cu, whose blocks keep two sets each (smaller regions than the warp
/// kernel's, so that the scratch rule allows more pairs at once).
pub const PAIR_ROWS: usize = 144;
/// The input allocation is padded to a multiple of this many bytes (the framework loads whole
/// aligned 128-byte blocks around a stream's bytes).
pub const INPUT_ALIGN: usize = 128;
/// Every stream's output starts at a multiple of this many bytes (the framework's `copy_back`
/// writes aligned words).
pub const OUTPUT_ALIGN: usize = 4;
/// Result words per stream: status, bytes written, bytes consumed.
const RESULT_WORDS: usize = 3;

/// One stream of a batch; the layout of `InflateChunk` in `kernels/deflate/inflate.cu`. The
/// raw-deflate stream at `in_offset` (`in_len` bytes) of the input inflates to at most `out_cap` bytes from
/// `out_offset` of the output (a multiple of [`OUTPUT_ALIGN`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InflateChunk {
    pub in_offset: u64,
    pub out_offset: u64,
    pub in_len: u32,
    pub out_cap: u32,
}

// SAFETY: `InflateChunk` is `#[repr(C)]` plain data with the field order, sizes and alignment of
// the CUDA struct (u64, u64, u32, u32: 24 bytes, no padding).
unsafe impl DeviceRepr for InflateChunk {}

/// One batch of streams on the shared chunk batch (input, records, output, three result words
/// a stream, work counter), with the parallel rounds' scratch.
pub struct InflateBatch {
    /// The streams, their records, the outputs and the results.
    pub chunks: ChunkBatch<InflateChunk>,
    /// The parallel rounds' token rows: [`InflateKernel::block_scratch_bytes`] per block.
    scratch: CudaSlice<u32>,
    /// The kernel that runs the batch.
    pub kernel: InflateKernel,
    /// Its grid's blocks (the scratch holds rows for each of their warps).
    blocks: u32,
}

impl ChunkRecord for InflateChunk {
    fn input_span(&self) -> (u64, u64) {
        (self.in_offset, u64::from(self.in_len))
    }

    fn output_span(&self) -> (u64, u64) {
        (self.out_offset, u64::from(self.out_cap))
    }
}

/// The batch rules of the inflate kernels: the input a multiple of [`INPUT_ALIGN`], outputs
/// at multiples of [`OUTPUT_ALIGN`] bytes, [`RESULT_WORDS`] result words a stream.
const SHAPE: BatchShape = BatchShape {
    input_align: INPUT_ALIGN,
    input_slack: 0,
    out_unit: 1,
    out_align: OUTPUT_ALIGN,
    out_round: OUTPUT_ALIGN,
    status_words: RESULT_WORDS,
    noun: "GPU inflate stream",
};

/// How a batch's streams are given to warps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InflateKernel {
    /// One warp per stream (`inflate_warp`): the most streams at once.
    Warp,
    /// Two warps per stream (`inflate_pair`): one decodes the Huffman codes, the other writes
    /// the bytes, at the same time. A stream finishes sooner, but half as many run at once.
    Pair,
}

/// Batches whose outputs are at least this many times their inputs (in total) run one warp per
/// stream when they have more streams than [`FEW_STREAMS_PER_SM`] per SM: on the H200 the warp
/// kernel decoded the anchors' Python sources (ratio 4.7, 2,048 streams) at 75.9 GB/s against
/// 68.3 for pairs, while pairs decoded the shared library (ratio 1.7) at 38.3 against 32.3.
const WARP_MIN_RATIO: f64 = 2.5;
/// Below this many streams per SM every stream gets a pair (the warp kernel would leave SMs
/// with few warps).
const FEW_STREAMS_PER_SM: u32 = 8;

impl InflateKernel {
    /// The kernel for `chunks`: pairs for few streams (at most [`FEW_STREAMS_PER_SM`] per SM)
    /// and for poorly compressed batches (where decoding the Huffman codes, the producer's half,
    /// dominates), one warp per stream for many well-compressed streams.
    /// With the cargo feature `diagnostics`, `WARPZIP_INFLATE_KERNEL=warp|pair` overrides the
    /// choice (for tests and benchmarks); [`InflateBatch::upload_with_kernel`] names one
    /// without it.
    pub fn for_chunks(gpu: &GpuContext, chunks: &[InflateChunk]) -> InflateKernel {
        #[cfg(feature = "diagnostics")]
        match std::env::var("WARPZIP_INFLATE_KERNEL").as_deref() {
            Ok("warp") => return InflateKernel::Warp,
            Ok("pair") => return InflateKernel::Pair,
            _ => {}
        }
        if chunks.len() <= (gpu.sm_count() * FEW_STREAMS_PER_SM) as usize {
            return InflateKernel::Pair;
        }
        let input: u64 = chunks.iter().map(|c| u64::from(c.in_len)).sum();
        let output: u64 = chunks.iter().map(|c| u64::from(c.out_cap)).sum();
        if (output as f64) < WARP_MIN_RATIO * input as f64 {
            InflateKernel::Pair
        } else {
            InflateKernel::Warp
        }
    }

    /// The kernel's source and entry point.
    pub fn function(self) -> (&'static KernelSource, &'static str) {
        match self {
            InflateKernel::Warp => (&kernels::INFLATE, kernels::entry::INFLATE_WARP),
            InflateKernel::Pair => (&kernels::INFLATE_PAIR, kernels::entry::INFLATE_PAIR),
        }
    }

    /// Bytes of token rows one block keeps in global scratch: a row set per warp (warp kernel)
    /// or two per block (pairs).
    pub fn block_scratch_bytes(self) -> u64 {
        let rows = match self {
            InflateKernel::Warp => WARPS as usize * WARP_ROWS,
            InflateKernel::Pair => 2 * PAIR_ROWS,
        };
        (rows * 32 * std::mem::size_of::<u32>()) as u64
    }

    /// Blocks of the persistent grid for `chunks`. Warp: one block per [`WARPS`] streams, at
    /// most [`BLOCKS_PER_SM`] per SM. Pair: one block per stream, at most as many as fit the GPU
    /// at once (shared memory limits them below `INFLATE_PAIR_BLOCKS`), so that no block holds
    /// scratch while it waits to start. The grid's scratch
    /// ([`InflateKernel::block_scratch_bytes`] a block) stays within [`scratch_budget`] of the
    /// batch's output.
    fn grid_blocks(self, gpu: &GpuContext, chunks: &[InflateChunk]) -> Result<u32> {
        let n = u32::try_from(chunks.len()).unwrap_or(u32::MAX);
        let blocks = match self {
            InflateKernel::Warp => n.div_ceil(WARPS).min(gpu.sm_count() * BLOCKS_PER_SM),
            InflateKernel::Pair => {
                let (source, entry) = self.function();
                let f = gpu.function(source, entry)?;
                let fit = f.occupancy_max_active_blocks_per_multiprocessor(WARPS * 32, 0, None)?;
                n.min(gpu.sm_count() * fit.clamp(1, PAIR_BLOCKS_PER_SM))
            }
        };
        // The scratch is the token rows plus the chunk table, the results and the counter.
        let output: u64 = chunks.iter().map(|c| u64::from(c.out_cap)).sum();
        let tables = chunks.len() as u64
            * (std::mem::size_of::<InflateChunk>() + RESULT_WORDS * 4) as u64
            + 4;
        let by_scratch = scratch_budget(output).saturating_sub(tables) / self.block_scratch_bytes();
        Ok(blocks
            .min(u32::try_from(by_scratch).unwrap_or(u32::MAX))
            .max(1))
    }
}

/// The most scratch a batch inflating to `output` bytes may use: max(64 MiB, output / 16), the
/// project's rule for every codec (on an H200 the warp kernel's grid needs 49.5 MiB; the pair
/// kernel's, at 36 KiB a block, 64 MiB holds 1,820 blocks, 13.8 per SM).
fn scratch_budget(output: u64) -> u64 {
    (64u64 << 20).max(output / 16)
}

/// Output offsets for streams inflating to at most `caps[i]` bytes: each at a multiple of
/// [`OUTPUT_ALIGN`]; returns the offsets and the total output size.
pub fn output_layout(caps: &[usize]) -> (Vec<u64>, usize) {
    let mut offsets = Vec::with_capacity(caps.len());
    let mut at = 0usize;
    for &c in caps {
        offsets.push(at as u64);
        at += c.div_ceil(OUTPUT_ALIGN) * OUTPUT_ALIGN;
    }
    (offsets, at)
}

impl InflateBatch {
    /// Uploads `streams` back to back and allocates room for `out_caps[i]` output bytes each.
    pub fn upload(gpu: &GpuContext, streams: &[&[u8]], out_caps: &[usize]) -> Result<InflateBatch> {
        InflateBatch::upload_as(gpu, streams, out_caps, None)
    }

    /// As [`InflateBatch::upload`], run by `kernel` rather than the one
    /// [`InflateKernel::for_chunks`] picks: for tests that cover both kernels.
    pub fn upload_with_kernel(
        gpu: &GpuContext,
        streams: &[&[u8]],
        out_caps: &[usize],
        kernel: InflateKernel,
    ) -> Result<InflateBatch> {
        InflateBatch::upload_as(gpu, streams, out_caps, Some(kernel))
    }

    fn upload_as(
        gpu: &GpuContext,
        streams: &[&[u8]],
        out_caps: &[usize],
        kernel: Option<InflateKernel>,
    ) -> Result<InflateBatch> {
        if streams.len() != out_caps.len() {
            return Err(Error::InvalidArgument(format!(
                "{} streams but {} output sizes",
                streams.len(),
                out_caps.len()
            )));
        }
        let total: usize = streams.iter().map(|s| s.len()).sum();
        let mut input = crate::error::try_with_capacity(
            total.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN,
            "the deflate streams' upload",
        )?;
        let (out_offsets, out_len) = output_layout(out_caps);
        let mut chunks = Vec::with_capacity(streams.len());
        for (i, (s, (&cap, &out_offset))) in streams
            .iter()
            .zip(out_caps.iter().zip(&out_offsets))
            .enumerate()
        {
            let in_len = u32::try_from(s.len()).map_err(|_| too_big(i, "input"))?;
            let out_cap = u32::try_from(cap).map_err(|_| too_big(i, "output"))?;
            chunks.push(InflateChunk {
                in_offset: input.len() as u64,
                out_offset,
                in_len,
                out_cap,
            });
            input.extend_from_slice(s);
        }
        input.resize(input.len().div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN, 0);
        let input = gpu.upload_for(&input, "the deflate streams")?;
        let out = gpu.alloc_for::<u8>(out_len.max(OUTPUT_ALIGN), "the inflated output")?;
        InflateBatch::from_device_as(gpu, input, chunks, out, kernel)
    }

    /// A batch over buffers already on the device: `input` holds the streams (its length must
    /// be a multiple of [`INPUT_ALIGN`]), `out` receives the outputs. Every chunk must lie
    /// inside both, with its output at a multiple of [`OUTPUT_ALIGN`]; `Error::InvalidArgument`
    /// otherwise, before anything runs.
    pub fn from_device(
        gpu: &GpuContext,
        input: CudaSlice<u8>,
        chunks: Vec<InflateChunk>,
        out: CudaSlice<u8>,
    ) -> Result<InflateBatch> {
        InflateBatch::from_device_as(gpu, input, chunks, out, None)
    }

    /// [`InflateBatch::from_device`] run by `kernel`, or by the one
    /// [`InflateKernel::for_chunks`] picks when `None`.
    fn from_device_as(
        gpu: &GpuContext,
        input: CudaSlice<u8>,
        chunks: Vec<InflateChunk>,
        out: CudaSlice<u8>,
        kernel: Option<InflateKernel>,
    ) -> Result<InflateBatch> {
        check_chunks(input.len(), &chunks, out.len())?;
        let kernel = kernel.unwrap_or_else(|| InflateKernel::for_chunks(gpu, &chunks));
        let blocks = kernel.grid_blocks(gpu, &chunks)?;
        let scratch = gpu.alloc_for::<u32>(
            (u64::from(blocks) * kernel.block_scratch_bytes()) as usize
                / std::mem::size_of::<u32>(),
            "the inflate kernel's scratch",
        )?;
        let out_len = out.len();
        Ok(InflateBatch {
            chunks: ChunkBatch::from_device(gpu, input, chunks, out, out_len, SHAPE)?,
            scratch,
            kernel,
            blocks,
        })
    }

    /// Number of streams.
    pub fn len(&self) -> usize {
        self.chunks.host_records.len()
    }

    /// True when the batch holds no stream.
    pub fn is_empty(&self) -> bool {
        self.chunks.host_records.is_empty()
    }

    /// Queues the inflate kernel on `stream` (no synchronisation).
    pub fn launch(&mut self, gpu: &GpuContext, stream: &Arc<CudaStream>) -> Result<()> {
        let n = self.chunks.count();
        if n == 0 {
            return Ok(());
        }
        let (source, entry) = self.kernel.function();
        let function = gpu.function(source, entry)?;
        let cfg = LaunchConfig {
            grid_dim: (self.blocks, 1, 1),
            block_dim: (WARPS * 32, 1, 1),
            shared_mem_bytes: 0,
        };
        let b = &mut self.chunks;
        b.reset_counter(stream)?;
        let mut launch = stream.launch_builder(&function);
        launch
            .arg(&b.input)
            .arg(&b.records)
            .arg(&n)
            .arg(&mut b.out)
            .arg(&mut b.status)
            .arg(&mut b.counter)
            .arg(&mut self.scratch);
        // SAFETY: the arguments match `inflate_warp` and `inflate_pair` (input, chunks, count,
        // output, results, counter, scratch of `block_scratch_bytes` for every block of the grid,
        // which `from_device` sized for this kernel and stream count).
        // `check_chunks` proved that every stream's bytes lie inside the input, whose length is a
        // multiple of 128 as the framework requires, and that every output range lies inside the
        // output, 4-byte aligned; the kernel bounds every read by `in_len` and every write by
        // `out_cap`, and each warp's scratch reads and writes by its rows.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    /// Overwrites the output with `byte` (tests poison it before a kernel runs).
    pub fn poison_output(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        self.chunks.poison_output(gpu, byte)
    }

    /// Every stream's result (synchronises).
    pub fn results(&self, gpu: &GpuContext) -> Result<Vec<StreamResult>> {
        let words = self.chunks.status_words(gpu)?;
        Ok(words
            .chunks_exact(RESULT_WORDS)
            .map(|w| StreamResult {
                status: ChunkStatus::from_code(w[0]),
                written: w[1] as usize,
                consumed: w[2] as usize,
            })
            .collect())
    }

    /// Copies stream `i`'s first `len` output bytes of every stream into `outputs[i]`
    /// (synchronises); `outputs[i]` must not be longer than the stream's `out_cap`.
    pub fn download_into(&self, gpu: &GpuContext, outputs: &mut [&mut [u8]]) -> Result<()> {
        let all = gpu.download(&self.chunks.out)?;
        for (c, o) in self.chunks.host_records.iter().zip(outputs.iter_mut()) {
            let from = c.out_offset as usize;
            let n = o.len().min(c.out_cap as usize);
            o[..n].copy_from_slice(&all[from..from + n]);
        }
        Ok(())
    }
}

fn too_big(i: usize, what: &str) -> Error {
    Error::InvalidArgument(format!("stream {i}: {what} larger than 4 GiB"))
}

/// Rejects streams that reach outside the input or the output, or outputs that are misaligned.
pub fn check_chunks(input_len: usize, chunks: &[InflateChunk], out_len: usize) -> Result<()> {
    check_records(input_len, chunks, out_len, &SHAPE)
}

/// Inflates host streams on the GPU into host buffers: `outputs[i].len()` is stream i's
/// capacity. Only the bytes a stream wrote are copied back. The streams go up, and the outputs
/// come down, through page-locked staging buffers from the context's pool (DMA at full speed;
/// the pool keeps them for the next call).
pub fn inflate_host(
    gpu: &GpuContext,
    inputs: &[&[u8]],
    outputs: &mut [&mut [u8]],
) -> Result<Vec<StreamResult>> {
    use rayon::prelude::*;
    if inputs.is_empty() {
        return Ok(Vec::new());
    }
    let caps: Vec<usize> = outputs.iter().map(|o| o.len()).collect();
    let (out_offsets, out_len) = output_layout(&caps);
    let mut chunks = Vec::with_capacity(inputs.len());
    let mut in_at = 0usize;
    for (i, (s, (&cap, &out_offset))) in
        inputs.iter().zip(caps.iter().zip(&out_offsets)).enumerate()
    {
        chunks.push(InflateChunk {
            in_offset: in_at as u64,
            out_offset,
            in_len: u32::try_from(s.len()).map_err(|_| too_big(i, "input"))?,
            out_cap: u32::try_from(cap).map_err(|_| too_big(i, "output"))?,
        });
        in_at += s.len();
    }
    let in_len = in_at.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
    let out_len = out_len.max(OUTPUT_ALIGN);
    let mut stage_in = gpu.take_staging(1, in_len)?;
    let mut stage_out = gpu.take_staging(1, out_len)?;
    let result = (|| -> Result<Vec<StreamResult>> {
        let stream = gpu.stream();
        let staged = GpuContext::staging_slice(&mut stage_in[0], in_len)?;
        for (c, s) in chunks.iter().zip(inputs) {
            let at = c.in_offset as usize;
            staged[at..at + s.len()].copy_from_slice(s);
        }
        staged[in_at..].fill(0);
        let mut d_input = gpu.alloc_for::<u8>(in_len, "the deflate streams")?;
        stream.memcpy_htod(&*staged, &mut d_input)?;
        let d_out = gpu.alloc_for::<u8>(out_len, "the inflated output")?;
        let mut batch = InflateBatch::from_device(gpu, d_input, chunks, d_out)?;
        batch.launch(gpu, stream)?;
        let results = batch.results(gpu)?;
        let down = GpuContext::staging_slice(&mut stage_out[0], out_len)?;
        stream.memcpy_dtoh(&batch.chunks.out, &mut *down)?;
        stream.synchronize()?;
        let down: &[u8] = down;
        outputs
            .par_iter_mut()
            .zip(batch.chunks.host_records.par_iter())
            .zip(results.par_iter())
            .for_each(|((o, c), r)| {
                let n = r.written.min(o.len());
                let from = c.out_offset as usize;
                o[..n].copy_from_slice(&down[from..from + n]);
            });
        Ok(results)
    })();
    gpu.return_staging(stage_in);
    gpu.return_staging(stage_out);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `#define NAME V` in `src`.
    fn define(src: &str, name: &str) -> Option<u32> {
        src.lines()
            .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.trim_end_matches('u').parse::<u32>().ok())
    }

    #[test]
    fn launch_constants_match_the_kernels() {
        let shared = &kernels::INFLATE.expanded();
        let warp = kernels::INFLATE.text;
        let pair = kernels::INFLATE_PAIR.text;
        let rows = |src| define(src, "INFLATE_LIST").zip(define(src, "INFLATE_FIX"));
        assert_eq!(Some(WARPS), define(shared, "INFLATE_WARPS"));
        assert_eq!(
            Some(PAIR_BLOCKS_PER_SM),
            define(pair, "INFLATE_PAIR_BLOCKS")
        );
        assert_eq!(Some(WARP_ROWS as u32), rows(warp).map(|(l, f)| l + f));
        assert_eq!(Some(PAIR_ROWS as u32), rows(pair).map(|(l, f)| l + f));
        assert_eq!(std::mem::size_of::<InflateChunk>(), 24);
    }

    #[test]
    fn scratch_stays_within_the_rule() {
        // 48 KiB of rows per warp-kernel block, 36 KiB per pair block: 1,365 and 1,820 blocks in
        // 64 MiB (an H200 or H100 runs at most 1,056 warp-kernel blocks), more for
        // large outputs.
        assert_eq!(InflateKernel::Warp.block_scratch_bytes(), 48 << 10);
        assert_eq!(InflateKernel::Pair.block_scratch_bytes(), 36 << 10);
        assert_eq!(
            scratch_budget(0) / InflateKernel::Warp.block_scratch_bytes(),
            1365
        );
        assert_eq!(
            scratch_budget(0) / InflateKernel::Pair.block_scratch_bytes(),
            1820
        );
        assert_eq!(scratch_budget(256 << 20), 64 << 20);
        assert_eq!(scratch_budget(4 << 30), 256 << 20);
    }

    #[test]
    fn chunks_outside_the_buffers_are_refused() {
        let ok = InflateChunk {
            in_offset: 0,
            out_offset: 4,
            in_len: 100,
            out_cap: 12,
        };
        assert!(check_chunks(128, &[ok], 16).is_ok());
        assert!(check_chunks(100, &[ok], 16).is_err());
        assert!(check_chunks(128, &[InflateChunk { in_len: 129, ..ok }], 16).is_err());
        assert!(check_chunks(128, &[InflateChunk { out_cap: 13, ..ok }], 16).is_err());
        assert!(check_chunks(
            128,
            &[InflateChunk {
                out_offset: 2,
                ..ok
            }],
            16
        )
        .is_err());
        let wrapping = InflateChunk {
            in_offset: u64::MAX,
            ..ok
        };
        assert!(check_chunks(128, &[wrapping], 16).is_err());
    }
}
