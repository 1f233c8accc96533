//! The GPU encoders and decoders of the `sz` codec, each the CPU reference's bytes or bits:
//!
//! - [`compress_fast`] and [`decompress_fast`] (`fast`, kernels `kernels/sz/sz_fast.cu`): the
//!   fast mode. Encoding: a thread per block quantizes, checks and predicts it, a thread per
//!   chunk assembles the chunk. Decoding: a thread per chunk indexes its blocks, a thread per
//!   block rebuilds its values, a thread per chunk writes its exact values.
//! - [`compress_ratio`] (`ratio_encode`, kernels `kernels/sz/sz_ratio_encode.cu`): the ratio
//!   mode's encoder, Lorenzo and interpolation candidates Huffman-coded on the device, the
//!   headers, the optional Deflate pass of the bits and the choice of the smallest candidate
//!   on the host.
//! - [`decompress_ratio`] (`ratio_decode`, kernels `kernels/sz/sz_ratio.cu`): the ratio mode's
//!   decoder.
//!
//! A chunk the decoders refuse is reported as `Error::Corrupt` naming the lowest such chunk.
//! The field's statistics (range, bound, step) come from the CPU (`chunked::plan`); the
//! quantization, bound check and Lorenzo prediction of both encoders are one device code path
//! (`kernels/sz/sz_common.cuh`).

mod fast;
mod ratio_decode;
mod ratio_encode;

pub use fast::{compress_fast, decompress_fast};
pub use ratio_decode::decompress_ratio;
pub use ratio_encode::compress_ratio;

use super::cpu::Ctx;
use crate::error::{Error, Result};
use crate::gpu::{GpuContext, LaunchConfig};
use cudarc::driver::{CudaSlice, DeviceRepr, ValidAsZeroBits};

/// Threads per block of every launch.
pub(super) const THREADS: u32 = 128;

/// One block of the field; the layout of `SzBlock` in `sz_common.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SzBlock {
    pub chunk_start: u64,
    pub chunk: u32,
    pub cy: u32,
    pub cx: u32,
    pub z0: u32,
    pub y0: u32,
    pub x0: u32,
    pub dz: u32,
    pub dy: u32,
    pub dx: u32,
}

// SAFETY: `SzBlock` is `#[repr(C)]` plain data with the field order, sizes and alignment of the
// CUDA struct (u64 then ten u32: 48 bytes, no padding).
unsafe impl DeviceRepr for SzBlock {}

fn launch_cfg(items: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: ((items as u32).div_ceil(THREADS).max(1), 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

fn u32_of(v: usize, what: &str) -> Result<u32> {
    u32::try_from(v).map_err(|_| Error::Unsupported(format!("{what} {v} is too many for the GPU")))
}

/// `v`, or one default element where it is empty (the device takes no empty buffers).
fn nonempty<T: Clone + Default>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        vec![T::default()]
    } else {
        v.to_vec()
    }
}

/// Device memory holding `v`, or one default element where `v` is empty.
fn upload_nonempty<T: DeviceRepr + Clone + Default>(
    gpu: &GpuContext,
    v: &[T],
) -> Result<CudaSlice<T>> {
    if v.is_empty() {
        gpu.upload(&nonempty(v))
    } else {
        gpu.upload(v)
    }
}

/// Appends the blocks of chunk `chunk` of `shape`, whose first value is value `start` of the
/// field.
fn push_blocks(
    blocks: &mut Vec<SzBlock>,
    ctx: &Ctx,
    shape: (usize, usize, usize),
    chunk: u32,
    start: u64,
) {
    for [z0, y0, x0, dz, dy, dx] in ctx.geometry.blocks(shape) {
        blocks.push(SzBlock {
            chunk_start: start,
            chunk,
            cy: shape.1 as u32,
            cx: shape.2 as u32,
            z0: z0 as u32,
            y0: y0 as u32,
            x0: x0 as u32,
            dz: dz as u32,
            dy: dy as u32,
            dx: dx as u32,
        });
    }
}

/// The chunks of `data_len` bytes cut in chunks of `chunk_size` bytes, as the encoders see
/// them.
struct ChunkBlocks {
    /// Every block, chunk after chunk.
    blocks: Vec<SzBlock>,
    /// Each chunk's first block, and the end.
    first: Vec<u32>,
    /// Each chunk's value count.
    values: Vec<u64>,
    /// Each chunk's shape.
    shapes: Vec<(usize, usize, usize)>,
}

/// The blocks of `data` cut in chunks of `chunk_size` bytes.
fn chunk_blocks(data_len: usize, chunk_size: usize, ctx: &Ctx) -> Result<ChunkBlocks> {
    let es = ctx.float.size();
    let mut out = ChunkBlocks {
        blocks: Vec::new(),
        first: Vec::new(),
        values: Vec::new(),
        shapes: Vec::new(),
    };
    let mut start = 0u64;
    let mut at = 0usize;
    let mut i = 0u32;
    while at < data_len {
        let len = chunk_size.min(data_len - at);
        let n = len / es;
        let shape = ctx.geometry.chunk_shape(n).ok_or_else(|| {
            Error::InvalidArgument("sz input is not a whole number of rows or planes".into())
        })?;
        out.first.push(u32_of(out.blocks.len(), "blocks")?);
        out.values.push(n as u64);
        out.shapes.push(shape);
        push_blocks(&mut out.blocks, ctx, shape, i, start);
        start += n as u64;
        at += len;
        i += 1;
    }
    out.first.push(u32_of(out.blocks.len(), "blocks")?);
    Ok(out)
}

/// The bit patterns of `f32` or `f64` values as the kernels take them.
trait Word: DeviceRepr + ValidAsZeroBits + Default + Clone + Copy {
    /// The word of a value's little-endian bytes (exactly its size).
    fn of_le_bytes(bytes: &[u8]) -> Self;
    /// Writes the word's little-endian bytes to `out` (exactly its size).
    fn put_le(self, out: &mut [u8]);
}

impl Word for u32 {
    fn of_le_bytes(bytes: &[u8]) -> Self {
        let mut b = [0u8; 4];
        b.copy_from_slice(bytes);
        u32::from_le_bytes(b)
    }
    fn put_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

impl Word for u64 {
    fn of_le_bytes(bytes: &[u8]) -> Self {
        let mut b = [0u8; 8];
        b.copy_from_slice(bytes);
        u64::from_le_bytes(b)
    }
    fn put_le(self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
}

/// The values of `data` uploaded as words of `T` (`data` whole values of `T`'s size).
fn upload_values<T: Word>(gpu: &GpuContext, data: &[u8]) -> Result<CudaSlice<T>> {
    let words: Vec<T> = data
        .chunks_exact(std::mem::size_of::<T>())
        .map(T::of_le_bytes)
        .collect();
    upload_nonempty(gpu, &words)
}

/// Downloads the decoded words `d_out` and writes them to `out` little-endian.
fn download_values<T: Word>(gpu: &GpuContext, d_out: &CudaSlice<T>, out: &mut [u8]) -> Result<()> {
    let values = gpu.download(d_out)?;
    for (dst, v) in out.chunks_exact_mut(std::mem::size_of::<T>()).zip(values) {
        v.put_le(dst);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host structs have the sizes of their CUDA twins.
    #[test]
    fn struct_sizes() {
        assert_eq!(std::mem::size_of::<SzBlock>(), 48);
        ratio_decode::struct_sizes();
        ratio_encode::struct_sizes();
    }

    #[test]
    fn words_round_trip() {
        let mut out = [0u8; 8];
        u64::of_le_bytes(&0x0102_0304_0506_0708u64.to_le_bytes()).put_le(&mut out);
        assert_eq!(out, 0x0102_0304_0506_0708u64.to_le_bytes());
        let mut out = [0u8; 4];
        u32::of_le_bytes(&[1, 2, 3, 4]).put_le(&mut out);
        assert_eq!(out, [1, 2, 3, 4]);
    }
}
