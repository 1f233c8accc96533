//! Snappy and LZ4 blocks decoded on the GPU (`kernels/lz/lz.cu`): one warp per block on the
//! CODAG framework, the blocks of a container as one batch of the shared chunk batch.

use super::LzKind;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::batch::{BatchShape, ChunkBatch, ChunkRecord};
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::DeviceRepr;

/// Warps per block; must match `LZ_WARPS` in lz.cu.
pub const WARPS: u32 = 2;
/// Resident blocks per SM the persistent grid asks for.
const BLOCKS_PER_SM: u32 = 16;
/// Result words a block: status, bytes written, bytes consumed.
const RESULT_WORDS: usize = 3;

/// One block of a batch; the layout of `LzChunk` in lz.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LzChunk {
    pub in_offset: u64,
    pub out_offset: u64,
    pub in_len: u32,
    pub out_cap: u32,
}

// SAFETY: `LzChunk` is `#[repr(C)]` plain data with the field order, sizes and alignment of the
// CUDA struct (u64, u64, u32, u32: 24 bytes, no padding).
unsafe impl DeviceRepr for LzChunk {}

impl ChunkRecord for LzChunk {
    fn input_span(&self) -> (u64, u64) {
        (self.in_offset, u64::from(self.in_len))
    }

    fn output_span(&self) -> (u64, u64) {
        (self.out_offset, u64::from(self.out_cap))
    }
}

/// The buffer rules of the kernels: whole 128-byte input blocks, outputs 4-byte aligned (the
/// framework's `copy_back` writes aligned words).
pub const SHAPE: BatchShape = BatchShape {
    input_align: 128,
    input_slack: 0,
    out_unit: 1,
    out_align: 4,
    out_round: 4,
    status_words: RESULT_WORDS,
    noun: "GPU snappy/lz4 block",
};

/// The kernel's entry point for `kind`.
pub fn entry(kind: LzKind) -> &'static str {
    match kind {
        LzKind::Snappy => kernels::entry::LZ_DECODE_SNAPPY,
        LzKind::Lz4 => kernels::entry::LZ_DECODE_LZ4,
    }
}

/// Queues the decode of every block of `batch` (made with [`SHAPE`]) on the GPU's stream; its
/// status words (3 a block: status, bytes written, bytes consumed) say how each went once the
/// stream is synchronised.
pub fn launch(gpu: &GpuContext, kind: LzKind, batch: &mut ChunkBatch<LzChunk>) -> Result<()> {
    let function = gpu.function(&kernels::LZ, entry(kind))?;
    launch_with(gpu, &function, batch)
}

/// [`launch`] with the kernel's function already looked up.
fn launch_with(
    gpu: &GpuContext,
    function: &cudarc::driver::CudaFunction,
    batch: &mut ChunkBatch<LzChunk>,
) -> Result<()> {
    let n = batch.count();
    if n == 0 {
        return Ok(());
    }
    let blocks = n.div_ceil(WARPS).min(gpu.sm_count() * BLOCKS_PER_SM).max(1);
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (WARPS * 32, 1, 1),
        shared_mem_bytes: 0,
    };
    let stream = gpu.stream();
    batch.reset_counter(stream)?;
    let mut launch = stream.launch_builder(function);
    launch
        .arg(&batch.input)
        .arg(&batch.records)
        .arg(&n)
        .arg(&mut batch.out)
        .arg(&mut batch.status)
        .arg(&mut batch.counter);
    // SAFETY: the arguments match `lz_decode_snappy` and `lz_decode_lz4` (input, chunks, count,
    // output, results, counter). The batch (`ChunkBatch::upload` or `from_device` with `SHAPE`)
    // checked that every block lies inside the input, whose length is a multiple of 128 as the
    // framework requires, and every output range inside the output, 4-byte aligned; the kernel
    // bounds every read by `in_len` and every write by `out_cap`.
    unsafe { launch.launch(cfg) }?;
    Ok(())
}

/// Blocks uploaded for decoding: the device buffers, the function, and each block's compressed
/// and uncompressed lengths for the checks after a launch. Launch it as often as wanted (a
/// benchmark times `launch` alone), then `finish` to check statuses and copy the output back.
pub struct LzBatch {
    batch: ChunkBatch<LzChunk>,
    function: cudarc::driver::CudaFunction,
    lens: Vec<(usize, usize)>,
}

impl LzBatch {
    /// Uploads `chunks` (a block and its uncompressed length each) for `kind`'s kernel.
    pub fn upload(gpu: &GpuContext, kind: LzKind, chunks: &[(&[u8], usize)]) -> Result<Self> {
        let mut input = Vec::new();
        let mut records = Vec::with_capacity(chunks.len());
        let mut lens = Vec::with_capacity(chunks.len());
        let mut out_at = 0u64;
        for (i, &(block, len)) in chunks.iter().enumerate() {
            let too_big =
                |what: &str| Error::InvalidArgument(format!("chunk {i}: {what} over 4 GiB"));
            records.push(LzChunk {
                in_offset: input.len() as u64,
                out_offset: out_at,
                in_len: u32::try_from(block.len()).map_err(|_| too_big("input"))?,
                out_cap: u32::try_from(len).map_err(|_| too_big("output"))?,
            });
            lens.push((block.len(), len));
            crate::error::try_reserve(&mut input, block.len(), "the blocks' upload")?;
            input.extend_from_slice(block);
            out_at += (len as u64).div_ceil(4) * 4;
        }
        let out_len = usize::try_from(out_at)
            .map_err(|_| Error::InvalidArgument("output too large".into()))?;
        let batch = ChunkBatch::upload(gpu, &input, records, out_len.max(4), SHAPE)?;
        let function = gpu.function(&kernels::LZ, entry(kind))?;
        Ok(Self {
            batch,
            function,
            lens,
        })
    }

    /// Fills the device output with `byte`, so that a byte no launch wrote cannot pass a check.
    pub fn poison_output(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        self.batch.poison_output(gpu, byte)
    }

    /// Queues one decode of every block on `gpu`'s stream.
    pub fn launch(&mut self, gpu: &GpuContext) -> Result<()> {
        launch_with(gpu, &self.function, &mut self.batch)
    }

    /// Checks the last launch's statuses (a block that is not exactly its recorded length is
    /// `Error::Corrupt` naming the lowest such chunk) and copies the decoded blocks, back to
    /// back, into `out`.
    pub fn finish(&self, gpu: &GpuContext, out: &mut [u8]) -> Result<()> {
        if self.lens.is_empty() {
            return Ok(());
        }
        let words = self.batch.status_words(gpu)?;
        for (i, (w, &(in_len, len))) in words.chunks_exact(RESULT_WORDS).zip(&self.lens).enumerate()
        {
            let status = match ChunkStatus::from_code(w[0]) {
                ChunkStatus::Ok if (w[1] as usize) < len => ChunkStatus::Underflow,
                ChunkStatus::Ok if w[2] as usize != in_len => ChunkStatus::Corrupt,
                s => s,
            };
            if status != ChunkStatus::Ok {
                return Err(Error::chunk(i, status));
            }
        }
        let total: usize = self.lens.iter().map(|&(_, len)| len).sum();
        if out.len() < total {
            return Err(Error::InvalidArgument(format!(
                "output of {} bytes for {total} decoded bytes",
                out.len()
            )));
        }
        let all = self.batch.output(gpu)?;
        let mut at = 0usize;
        let mut from = 0usize;
        for &(_, len) in &self.lens {
            out[at..at + len].copy_from_slice(&all[from..from + len]);
            at += len;
            from += len.div_ceil(4) * 4;
        }
        Ok(())
    }
}

/// Decodes `chunks` (a block and its uncompressed length each) into `out` (their lengths back
/// to back) on the GPU. A block that is not exactly its recorded length is `Error::Corrupt`
/// naming the lowest such chunk.
pub fn decompress_into(
    gpu: &GpuContext,
    kind: LzKind,
    chunks: &[(&[u8], usize)],
    out: &mut [u8],
) -> Result<()> {
    if chunks.is_empty() {
        return Ok(());
    }
    let mut batch = LzBatch::upload(gpu, kind, chunks)?;
    batch.launch(gpu)?;
    batch.finish(gpu, out)
}
