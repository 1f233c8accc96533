//! The GPU decoder of the `sz` fast mode (`kernels/sz/sz_fast.cu`): a thread per chunk indexes
//! its blocks, a thread per block rebuilds its values, a thread per chunk writes its exact
//! values. The output is the CPU decoder's bit for bit; a chunk the kernels refuse is reported
//! as `Error::Corrupt` naming the lowest such chunk.

use super::cpu::Ctx;
use super::quant::Float;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::DeviceRepr;

/// Threads per block of every launch.
const THREADS: u32 = 128;

/// One block of the field; the layout of `SzBlock` in `sz_fast.cu`.
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

/// Decodes fast-mode chunks (`(bytes, uncompressed length)`, in order) into `out`.
pub fn decompress_fast(
    gpu: &GpuContext,
    chunks: &[(&[u8], usize)],
    out: &mut [u8],
    ctx: &Ctx,
) -> Result<()> {
    let es = ctx.float.size();
    let mut payload = Vec::new();
    let mut chunk_off = Vec::with_capacity(chunks.len());
    let mut chunk_len = Vec::with_capacity(chunks.len());
    let mut chunk_values = Vec::with_capacity(chunks.len());
    let mut chunk_first_block = Vec::with_capacity(chunks.len() + 1);
    let mut blocks: Vec<SzBlock> = Vec::new();
    let mut start = 0u64;
    for (i, &(bytes, len)) in chunks.iter().enumerate() {
        let n = len / es;
        let shape = ctx
            .geometry
            .chunk_shape(n)
            .filter(|_| len % es == 0)
            .ok_or_else(|| Error::chunk(i, ChunkStatus::Corrupt))?;
        chunk_off.push(payload.len() as u64);
        chunk_len.push(u32_of(bytes.len(), "chunk bytes")?);
        chunk_values.push(n as u64);
        chunk_first_block.push(u32_of(blocks.len(), "blocks")?);
        payload.extend_from_slice(bytes);
        for [z0, y0, x0, dz, dy, dx] in ctx.geometry.blocks(shape) {
            blocks.push(SzBlock {
                chunk_start: start,
                chunk: i as u32,
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
        start += n as u64;
    }
    chunk_first_block.push(u32_of(blocks.len(), "blocks")?);
    let total = out.len() / es;
    if total == 0 {
        return Ok(());
    }
    let nchunks = u32_of(chunks.len(), "chunks")?;
    let nblocks = u32_of(blocks.len(), "blocks")?;
    if payload.is_empty() {
        payload.push(0);
    }
    if blocks.is_empty() {
        blocks.push(SzBlock::default());
    }
    let d_payload = gpu.upload(&payload)?;
    let d_chunk_off = gpu.upload(&chunk_off)?;
    let d_chunk_len = gpu.upload(&chunk_len)?;
    let d_chunk_values = gpu.upload(&chunk_values)?;
    let d_first = gpu.upload(&chunk_first_block)?;
    let d_blocks = gpu.upload(&blocks)?;
    let mut d_block_off = gpu.alloc_zeros::<u64>(blocks.len())?;
    let mut d_block_w = gpu.alloc_zeros::<u8>(blocks.len())?;
    let mut d_block_wb = gpu.alloc_zeros::<u8>(blocks.len())?;
    let mut d_block_exp = gpu.alloc_zeros::<i32>(blocks.len())?;
    let mut d_kind = gpu.alloc_zeros::<u32>(chunks.len())?;
    let mut d_status = gpu.alloc_zeros::<u32>(chunks.len())?;
    let es32 = es as u32;
    let pw_rel = u32::from(ctx.pw_rel.is_some());
    let stream = gpu.stream();

    let index = gpu.function(&kernels::SZ_FAST, kernels::entry::SZ_FAST_INDEX)?;
    let mut launch = stream.launch_builder(&index);
    launch
        .arg(&d_payload)
        .arg(&d_chunk_off)
        .arg(&d_chunk_len)
        .arg(&d_chunk_values)
        .arg(&d_first)
        .arg(&d_blocks)
        .arg(&nchunks)
        .arg(&es32)
        .arg(&pw_rel)
        .arg(&mut d_block_off)
        .arg(&mut d_block_w)
        .arg(&mut d_block_wb)
        .arg(&mut d_block_exp)
        .arg(&mut d_kind)
        .arg(&mut d_status);
    // SAFETY: arguments match `sz_fast_index`; every chunk's offset and length lie inside the
    // payload, `chunk_first_block` has `chunks + 1` entries within the block arrays, and the
    // kernel bounds every read by its chunk's end.
    unsafe { launch.launch(launch_cfg(chunks.len())) }?;

    macro_rules! decode_and_exact {
        ($t:ty, $decode:expr, $exact:expr) => {{
            let mut d_out = gpu.alloc_zeros::<$t>(total)?;
            let decode = gpu.function(&kernels::SZ_FAST, $decode)?;
            let mut launch = stream.launch_builder(&decode);
            launch
                .arg(&d_payload)
                .arg(&d_blocks)
                .arg(&d_block_off)
                .arg(&d_block_w)
                .arg(&d_block_wb)
                .arg(&d_block_exp)
                .arg(&d_kind)
                .arg(&nblocks)
                .arg(&ctx.step)
                .arg(&pw_rel)
                .arg(&mut d_out);
            // SAFETY: arguments match `sz_fast_decode_T`; the kernel decodes only blocks of
            // chunks the index accepted (whose packed bits it bounded), and every block's cells
            // lie inside its chunk, inside `out` (`total` values).
            unsafe { launch.launch(launch_cfg(blocks.len())) }?;
            let exact = gpu.function(&kernels::SZ_FAST, $exact)?;
            let mut launch = stream.launch_builder(&exact);
            launch
                .arg(&d_payload)
                .arg(&d_chunk_off)
                .arg(&d_chunk_len)
                .arg(&d_chunk_values)
                .arg(&d_first)
                .arg(&d_blocks)
                .arg(&nchunks)
                .arg(&d_kind)
                .arg(&mut d_status)
                .arg(&mut d_out);
            // SAFETY: arguments match `sz_fast_exact_T`; it reads only chunks the index
            // accepted (their runs were bounded there) and writes cells inside their chunks.
            unsafe { launch.launch(launch_cfg(chunks.len())) }?;
            let status = gpu.download(&d_status)?;
            crate::gpu::batch::first_failure(&status[..chunks.len()], 1)?;
            let values = gpu.download(&d_out)?;
            for (dst, v) in out.chunks_exact_mut(es).zip(values) {
                dst.copy_from_slice(&v.to_le_bytes());
            }
        }};
    }
    match ctx.float {
        Float::F32 => decode_and_exact!(
            u32,
            kernels::entry::SZ_FAST_DECODE_F32,
            kernels::entry::SZ_FAST_EXACT_F32
        ),
        Float::F64 => decode_and_exact!(
            u64,
            kernels::entry::SZ_FAST_DECODE_F64,
            kernels::entry::SZ_FAST_EXACT_F64
        ),
    }
    Ok(())
}
