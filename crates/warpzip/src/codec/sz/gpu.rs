//! The GPU decoder and encoder of the `sz` fast mode (`kernels/sz/sz_fast.cu`). Decoding: a
//! thread per chunk indexes its blocks, a thread per block rebuilds its values, a thread per
//! chunk writes its exact values; the output is the CPU decoder's bit for bit, and a chunk the
//! kernels refuse is reported as `Error::Corrupt` naming the lowest such chunk. Encoding: a
//! thread per block quantizes, checks and predicts it, a thread per chunk assembles the chunk;
//! the bytes are the CPU encoder's. The field's statistics (range, bound, step) come from the
//! CPU (`chunked::plan`).

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

/// The blocks of `data` cut in chunks of `chunk_size` bytes: the block list, each chunk's first
/// block (and the end), each chunk's value count.
fn chunk_blocks(
    data_len: usize,
    chunk_size: usize,
    ctx: &Ctx,
) -> Result<(Vec<SzBlock>, Vec<u32>, Vec<u64>)> {
    let es = ctx.float.size();
    let mut blocks = Vec::new();
    let mut first = Vec::new();
    let mut values = Vec::new();
    let mut start = 0u64;
    let mut at = 0usize;
    let mut i = 0u32;
    while at < data_len {
        let len = chunk_size.min(data_len - at);
        let n = len / es;
        let shape = ctx.geometry.chunk_shape(n).ok_or_else(|| {
            Error::InvalidArgument("sz input is not a whole number of rows or planes".into())
        })?;
        first.push(u32_of(blocks.len(), "blocks")?);
        values.push(n as u64);
        for [z0, y0, x0, dz, dy, dx] in ctx.geometry.blocks(shape) {
            blocks.push(SzBlock {
                chunk_start: start,
                chunk: i,
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
        at += len;
        i += 1;
    }
    first.push(u32_of(blocks.len(), "blocks")?);
    Ok((blocks, first, values))
}

/// Encodes `data` in fast mode on the GPU, in chunks of `chunk_size` bytes (whole units of the
/// geometry): the chunks the CPU's `encode_chunk` writes, byte for byte.
pub fn compress_fast(
    gpu: &GpuContext,
    data: &[u8],
    chunk_size: usize,
    ctx: &Ctx,
) -> Result<Vec<super::cpu::EncodedChunk>> {
    let es = ctx.float.size();
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let (blocks, first, values) = chunk_blocks(data.len(), chunk_size.max(es), ctx)?;
    let nchunks = u32_of(values.len(), "chunks")?;
    let nblocks = u32_of(blocks.len(), "blocks")?;
    let mut slot_off = Vec::with_capacity(values.len());
    let mut total = 0u64;
    for &n in &values {
        slot_off.push(total);
        total += n * es as u64 + 1;
    }
    let d_blocks = gpu.upload(&blocks)?;
    let d_first = gpu.upload(&first)?;
    let d_values = gpu.upload(&values)?;
    let d_slot_off = gpu.upload(&slot_off)?;
    let fills: Vec<u64> = if ctx.fills.is_empty() {
        vec![0]
    } else {
        ctx.fills.clone()
    };
    let nfill = ctx.fills.len() as u32;
    let d_fills = gpu.upload(&fills)?;
    let scratch = blocks.len() * 512;
    let mut d_zz = gpu.alloc_zeros::<u64>(scratch)?;
    let mut d_exact = gpu.alloc_zeros::<u8>(scratch)?;
    let mut d_w = gpu.alloc_zeros::<u8>(blocks.len())?;
    let mut d_wb = gpu.alloc_zeros::<u8>(blocks.len())?;
    let mut d_exp = gpu.alloc_zeros::<i32>(blocks.len())?;
    let mut d_slots = gpu.alloc_zeros::<u8>(total as usize)?;
    let mut d_len = gpu.alloc_zeros::<u64>(values.len())?;
    let mut d_exc = gpu.alloc_zeros::<u64>(values.len())?;
    let pw_rel = u32::from(ctx.pw_rel.is_some());
    let e = ctx.pw_rel.unwrap_or(0.0);
    let stream = gpu.stream();

    macro_rules! encode {
        ($t:ty, $encode:expr, $assemble:expr) => {{
            let words: Vec<$t> = data
                .chunks_exact(es)
                .map(|c| {
                    let mut b = [0u8; std::mem::size_of::<$t>()];
                    b.copy_from_slice(c);
                    <$t>::from_le_bytes(b)
                })
                .collect();
            let d_data = gpu.upload(&words)?;
            let encode = gpu.function(&kernels::SZ_FAST, $encode)?;
            let mut launch = stream.launch_builder(&encode);
            launch
                .arg(&d_data)
                .arg(&d_blocks)
                .arg(&nblocks)
                .arg(&d_fills)
                .arg(&nfill)
                .arg(&pw_rel)
                .arg(&e)
                .arg(&ctx.bound)
                .arg(&ctx.step)
                .arg(&mut d_zz)
                .arg(&mut d_exact)
                .arg(&mut d_w)
                .arg(&mut d_wb)
                .arg(&mut d_exp);
            // SAFETY: arguments match `sz_fast_encode_T`; every block's cells lie inside the
            // data (the blocks were cut from its length), and each block writes only its own
            // 512 scratch entries and its own widths.
            unsafe { launch.launch(launch_cfg(blocks.len())) }?;
            let assemble = gpu.function(&kernels::SZ_FAST, $assemble)?;
            let mut launch = stream.launch_builder(&assemble);
            launch
                .arg(&d_data)
                .arg(&d_blocks)
                .arg(&d_first)
                .arg(&d_values)
                .arg(&nchunks)
                .arg(&pw_rel)
                .arg(&d_zz)
                .arg(&d_exact)
                .arg(&d_w)
                .arg(&d_wb)
                .arg(&d_exp)
                .arg(&d_slot_off)
                .arg(&mut d_slots)
                .arg(&mut d_len)
                .arg(&mut d_exc);
            // SAFETY: arguments match `sz_fast_assemble_T`; each chunk writes at most its
            // slot's `values * size + 1` bytes, and the slots lie back to back inside `slots`.
            unsafe { launch.launch(launch_cfg(values.len())) }?;
        }};
    }
    match ctx.float {
        Float::F32 => encode!(
            u32,
            kernels::entry::SZ_FAST_ENCODE_F32,
            kernels::entry::SZ_FAST_ASSEMBLE_F32
        ),
        Float::F64 => encode!(
            u64,
            kernels::entry::SZ_FAST_ENCODE_F64,
            kernels::entry::SZ_FAST_ASSEMBLE_F64
        ),
    }
    let slots = gpu.download(&d_slots)?;
    let lens = gpu.download(&d_len)?;
    let exceptions = gpu.download(&d_exc)?;
    slot_off
        .iter()
        .zip(lens.iter().zip(&exceptions))
        .zip(&values)
        .map(|((&off, (&len, &exc)), &n)| {
            if len == 0 || len > n * es as u64 + 1 {
                return Err(Error::Driver(format!(
                    "the sz encoder kernel reported a chunk of {len} bytes"
                )));
            }
            let from = off as usize;
            Ok(super::cpu::EncodedChunk {
                bytes: slots[from..from + len as usize].to_vec(),
                exceptions: exc,
                runs: false,
            })
        })
        .collect()
}
