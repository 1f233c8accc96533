//! The fast mode on the GPU (`kernels/sz/sz_fast.cu`): the decoder (a thread per chunk indexes
//! its blocks, a thread per block rebuilds its values, a thread per chunk writes its exact
//! values) and the encoder (a thread per block quantizes, checks and predicts it, a CUDA block
//! per chunk assembles the chunk).

use super::{
    chunk_blocks, download_values, launch_cfg, push_blocks, u32_of, upload_values, SzBlock, THREADS,
};
use crate::codec::sz::cpu::{Ctx, EncodedChunk};
use crate::codec::sz::quant::Float;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};

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
        push_blocks(&mut blocks, ctx, shape, i as u32, start);
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
            download_values(gpu, &d_out, out)?;
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
pub fn compress_fast(
    gpu: &GpuContext,
    data: &[u8],
    chunk_size: usize,
    ctx: &Ctx,
) -> Result<Vec<EncodedChunk>> {
    let es = ctx.float.size();
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let cut = chunk_blocks(data.len(), chunk_size.max(es), ctx)?;
    let (blocks, first, values) = (cut.blocks, cut.first, cut.values);
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
            let d_data = upload_values::<$t>(gpu, data)?;
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
            // A CUDA block of `THREADS` (the kernel's `SZ_ASM_THREADS`) per chunk.
            let per_chunk = LaunchConfig {
                grid_dim: (nchunks, 1, 1),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            // SAFETY: arguments match `sz_fast_assemble_T`; each chunk writes at most its
            // slot's `values * size + 1` bytes, and the slots lie back to back inside `slots`.
            unsafe { launch.launch(per_chunk) }?;
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
            Ok(EncodedChunk {
                bytes: slots[from..from + len as usize].to_vec(),
                exceptions: exc,
                runs: false,
            })
        })
        .collect()
}

