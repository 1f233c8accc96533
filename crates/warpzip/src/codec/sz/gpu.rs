//! The GPU decoder and encoder of the `sz` fast mode (`kernels/sz/sz_fast.cu`), and the GPU
//! decoder of the ratio mode (`kernels/sz/sz_ratio.cu`, see [`decompress_ratio`]; the ratio
//! mode is encoded on the CPU only). Fast-mode decoding: a
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
            Ok(super::cpu::EncodedChunk {
                bytes: slots[from..from + len as usize].to_vec(),
                exceptions: exc,
                runs: false,
            })
        })
        .collect()
}

// ---- ratio mode ----

/// One chunk for `sz_ratio.cu`; the layout of `SzrChunk` there (five u64, ten u32: 80 bytes,
/// no padding).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SzrChunk {
    bits_off: u64,
    bits_len: u64,
    sym_off: u64,
    outl_off: u64,
    raw_off: u64,
    outl_count: u32,
    raw_count: u32,
    table: u32,
    sorted_off: u32,
    run_base: u32,
    cz: u32,
    cy: u32,
    cx: u32,
    stride_log2: u32,
    cubic: u32,
}

/// One Huffman group; the layout of `SzrGroup` (three u64, two u32: 32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SzrGroup {
    bit_start: u64,
    bit_end: u64,
    sym_out: u64,
    chunk: u32,
    cells: u32,
}

/// One Lorenzo block; the layout of `SzrBlock` (an i64, eight u32, an i32, a u32: 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SzrBlock {
    base: i64,
    chunk: u32,
    pos: u32,
    z0: u32,
    y0: u32,
    x0: u32,
    dz: u32,
    dy: u32,
    dx: u32,
    exp: i32,
    pad: u32,
}

// SAFETY: `SzrChunk`, `SzrGroup` and `SzrBlock` are `#[repr(C)]` plain data with the field
// order, sizes and alignment of the CUDA structs of `sz_ratio.cu`, and no padding (SzrBlock's
// last field spells it out).
unsafe impl DeviceRepr for SzrChunk {}
// SAFETY: see `SzrChunk`.
unsafe impl DeviceRepr for SzrGroup {}
// SAFETY: see `SzrChunk`.
unsafe impl DeviceRepr for SzrBlock {}

/// Entries of a reverse codebook's first-level table (`huffman::TABLE_BITS` = 11).
const TABLE_ENTRIES: usize = 1 << 11;
/// Code counts per table (lengths 0 to `huffman::MAX_LEN`).
const COUNTS: usize = super::huffman::MAX_LEN + 1;

/// Everything the ratio-mode kernels take, gathered from the chunks' headers.
#[derive(Default)]
struct RatioPlan {
    bits: Vec<u8>,
    chunks: Vec<SzrChunk>,
    groups: Vec<SzrGroup>,
    blocks: Vec<SzrBlock>,
    interp: Vec<u32>,
    tables: Vec<u32>,
    counts: Vec<u32>,
    sorted: Vec<u16>,
    sorted_len: Vec<u32>,
    outl_pos: Vec<u32>,
    outl_delta: Vec<i64>,
    raw_pos: Vec<u32>,
    raw_bits: Vec<u64>,
    /// Chunks the kernels decode (coded or interpolated, with values).
    on_device: Vec<bool>,
    /// Verbatim chunks: `(first value, bytes)`.
    verbatim: Vec<(usize, Vec<u8>)>,
    /// The lowest chunk the host refused while reading headers, and why.
    refused: Option<(usize, ChunkStatus)>,
}

impl RatioPlan {
    /// Reads chunk `i` (`input`, `n` values from value `start`) as the CPU decoder does, and
    /// adds what its kernels need; the same verdicts as `cpu::decode_chunk` for its header.
    fn add(&mut self, i: usize, input: &[u8], start: usize, n: usize, ctx: &Ctx) {
        self.chunks.push(SzrChunk {
            sym_off: start as u64,
            ..SzrChunk::default()
        });
        self.on_device.push(false);
        if let Err(status) = self.read(i, input, start, n, ctx) {
            self.refused.get_or_insert((i, status));
        }
    }

    fn read(
        &mut self,
        i: usize,
        input: &[u8],
        start: usize,
        n: usize,
        ctx: &Ctx,
    ) -> std::result::Result<(), ChunkStatus> {
        use super::cpu::{huffman_section, Reader, CHUNK_CODED, CHUNK_INTERP, CHUNK_VERBATIM};
        use super::format::GROUP_BLOCKS;
        use super::huffman::Decoder;
        use super::interp::{GROUP_CELLS, MAX_STRIDE_LOG2, SPLINE_CUBIC};
        let es = ctx.float.size();
        let shape = ctx.geometry.chunk_shape(n).ok_or(ChunkStatus::Corrupt)?;
        let mut r = Reader {
            data: input,
            at: 0,
        };
        let kind = r.take(1)?[0];
        let interp = match kind {
            CHUNK_CODED => false,
            CHUNK_VERBATIM => {
                let want = n * es + 1;
                if input.len() != want {
                    return Err(if input.len() < want {
                        ChunkStatus::Truncated
                    } else {
                        ChunkStatus::Corrupt
                    });
                }
                self.verbatim.push((start, input[1..].to_vec()));
                return Ok(());
            }
            CHUNK_INTERP if ctx.interp && ctx.pw_rel.is_none() => true,
            _ => return Err(ChunkStatus::Corrupt),
        };
        let (mut stride_log2, mut spline) = (0u8, 0u8);
        if interp {
            stride_log2 = r.take(1)?[0];
            spline = r.take(1)?[0];
            if stride_log2 > MAX_STRIDE_LOG2 || spline > SPLINE_CUBIC {
                return Err(ChunkStatus::Corrupt);
            }
        }
        let outliers = r.outliers(n)?;
        let raws = r.raws(n, es)?;
        let blocks = ctx.geometry.blocks(shape);
        let mut exps: Vec<i16> = Vec::new();
        let mut bases: Vec<i64> = Vec::new();
        if !interp {
            if ctx.pw_rel.is_some() {
                let b = r.take(blocks.len() * 2)?;
                exps = b
                    .chunks_exact(2)
                    .map(|c| i16::from_le_bytes([c[0], c[1]]))
                    .collect();
            }
            for _ in 0..blocks.len() {
                bases.push(super::quant::unzigzag(r.varint()?));
            }
        }
        let groups = if interp {
            n.div_ceil(GROUP_CELLS)
        } else {
            blocks.len().div_ceil(GROUP_BLOCKS)
        };
        let section = huffman_section(&mut r, ctx, n, groups)?;
        if n == 0 {
            return Ok(());
        }
        let decoder = Decoder::new(&section.pairs).ok_or(ChunkStatus::Corrupt)?;
        // The chunk is the kernels': record everything.
        let table = self.sorted_len.len() as u32;
        let (count, sorted, first) = decoder.parts();
        // The kernel's table geometry (`SZR_TABLE`, `SZR_MAX_LEN` of `sz_ratio.cu`).
        if first.len() != TABLE_ENTRIES || count.len() != COUNTS {
            return Err(ChunkStatus::Corrupt);
        }
        let c = self.chunks.len() - 1;
        let entry = SzrChunk {
            bits_off: self.bits.len() as u64,
            bits_len: section.bits.len() as u64,
            sym_off: start as u64,
            outl_off: self.outl_pos.len() as u64,
            raw_off: self.raw_pos.len() as u64,
            outl_count: outliers.len() as u32,
            raw_count: raws.len() as u32,
            table,
            sorted_off: self.sorted.len() as u32,
            run_base: if section.runs {
                u32::from(ctx.run_base())
            } else {
                u32::MAX
            },
            cz: shape.0 as u32,
            cy: shape.1 as u32,
            cx: shape.2 as u32,
            stride_log2: u32::from(stride_log2),
            cubic: u32::from(spline == SPLINE_CUBIC),
        };
        self.chunks[c] = entry;
        self.on_device[c] = true;
        self.bits.extend_from_slice(&section.bits);
        self.tables.extend_from_slice(first);
        self.counts.extend_from_slice(count);
        self.sorted.extend_from_slice(sorted);
        self.sorted_len.push(sorted.len() as u32);
        for (p, d) in outliers {
            self.outl_pos.push(p);
            self.outl_delta.push(d);
        }
        for (p, b) in raws {
            self.raw_pos.push(p);
            self.raw_bits.push(b);
        }
        let mut bit_start = 0u64;
        let mut cell = 0usize;
        let mut push_group = |cells: usize, end: u64| {
            self.groups.push(SzrGroup {
                bit_start,
                bit_end: end,
                sym_out: (start + cell) as u64,
                chunk: i as u32,
                cells: cells as u32,
            });
            bit_start = end;
            cell += cells;
        };
        if interp {
            for (g, &end) in section.ends.iter().enumerate() {
                push_group(GROUP_CELLS.min(n - g * GROUP_CELLS), end);
            }
            self.interp.push(i as u32);
        } else {
            for (g, group) in blocks.chunks(GROUP_BLOCKS).enumerate() {
                push_group(group.iter().map(|b| b[3] * b[4] * b[5]).sum(), section.ends[g]);
            }
            let mut pos = 0u32;
            for (bi, &[z0, y0, x0, dz, dy, dx]) in blocks.iter().enumerate() {
                self.blocks.push(SzrBlock {
                    base: bases[bi],
                    chunk: i as u32,
                    pos,
                    z0: z0 as u32,
                    y0: y0 as u32,
                    x0: x0 as u32,
                    dz: dz as u32,
                    dy: dy as u32,
                    dx: dx as u32,
                    exp: i32::from(exps.get(bi).copied().unwrap_or(0)),
                    pad: 0,
                });
                pos += (dz * dy * dx) as u32;
            }
        }
        Ok(())
    }
}

/// `v`, or one default element where it is empty (the device takes no empty buffers).
fn nonempty<T: Clone + Default>(v: &[T]) -> Vec<T> {
    if v.is_empty() {
        vec![T::default()]
    } else {
        v.to_vec()
    }
}

/// Decodes ratio-mode chunks (`(bytes, uncompressed length)`, in order; Lorenzo-predicted,
/// interpolated, verbatim, with or without run symbols) into `out`: the CPU decoder's bits,
/// and on a damaged stream `Error::Corrupt` naming the lowest chunk the CPU refuses.
///
/// Where each step runs: the host reads each chunk's header (outliers, exact values,
/// exponents, bases, the Huffman table and group ends, with the CPU decoder's own readers, so
/// that the verdicts on headers are the CPU's), inflates bits the chunk holds deflated, and
/// builds each chunk's reverse codebook (`huffman::Decoder`: a first-level table of 2^11
/// entries, the code counts per length, the symbols in canonical order); the device decodes
/// the Huffman groups (a thread per group, runs expanded), checks every symbol's outlier or
/// exact value and rebuilds the values (a thread per Lorenzo block; a thread per interpolated
/// chunk, whose visiting order is sequential).
pub fn decompress_ratio(
    gpu: &GpuContext,
    chunks: &[(&[u8], usize)],
    out: &mut [u8],
    ctx: &Ctx,
) -> Result<()> {
    let es = ctx.float.size();
    let total_bytes = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total_bytes != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "sz chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    let mut plan = RatioPlan::default();
    let mut start = 0usize;
    for (i, &(bytes, len)) in chunks.iter().enumerate() {
        if len % es != 0 {
            plan.chunks.push(SzrChunk::default());
            plan.on_device.push(false);
            plan.refused.get_or_insert((i, ChunkStatus::Corrupt));
        } else {
            plan.add(i, bytes, start, len / es, ctx);
        }
        start += len / es;
    }
    let total = out.len() / es;
    let nchunks = chunks.len();
    let mut bad = vec![0u32; nchunks];
    let mut outl_seen = vec![0u32; nchunks];
    let mut raw_seen = vec![0u32; nchunks];
    if !plan.groups.is_empty() && total > 0 {
        let ngroups = u32_of(plan.groups.len(), "Huffman groups")?;
        let nblocks = u32_of(plan.blocks.len(), "blocks")?;
        let ninterp = u32_of(plan.interp.len(), "chunks")?;
        let d_bits = gpu.upload(&nonempty(&plan.bits))?;
        let d_chunks = gpu.upload(&nonempty(&plan.chunks))?;
        let d_groups = gpu.upload(&plan.groups)?;
        let d_blocks = gpu.upload(&nonempty(&plan.blocks))?;
        let d_interp = gpu.upload(&nonempty(&plan.interp))?;
        let d_tables = gpu.upload(&nonempty(&plan.tables))?;
        let d_counts = gpu.upload(&nonempty(&plan.counts))?;
        let d_sorted = gpu.upload(&nonempty(&plan.sorted))?;
        let d_sorted_len = gpu.upload(&nonempty(&plan.sorted_len))?;
        let d_outl_pos = gpu.upload(&nonempty(&plan.outl_pos))?;
        let d_outl_delta = gpu.upload(&nonempty(&plan.outl_delta))?;
        let d_raw_pos = gpu.upload(&nonempty(&plan.raw_pos))?;
        let d_raw_bits = gpu.upload(&nonempty(&plan.raw_bits))?;
        let d_fills = gpu.upload(&nonempty(&ctx.fills))?;
        let nfill = ctx.fills.len() as u32;
        let radius = u32::from(ctx.radius);
        let pw_rel = u32::from(ctx.pw_rel.is_some());
        let zero = radius;
        let mut d_syms = gpu.alloc_zeros::<u16>(total)?;
        let mut d_bad = gpu.alloc_zeros::<u32>(nchunks)?;
        let mut d_outl_seen = gpu.alloc_zeros::<u32>(nchunks)?;
        let mut d_raw_seen = gpu.alloc_zeros::<u32>(nchunks)?;
        let stream = gpu.stream();

        let symbols = gpu.function(&kernels::SZ_RATIO, kernels::entry::SZ_RATIO_SYMBOLS)?;
        let mut launch = stream.launch_builder(&symbols);
        launch
            .arg(&d_bits)
            .arg(&d_chunks)
            .arg(&d_groups)
            .arg(&ngroups)
            .arg(&d_tables)
            .arg(&d_counts)
            .arg(&d_sorted)
            .arg(&d_sorted_len)
            .arg(&zero)
            .arg(&mut d_syms)
            .arg(&mut d_bad);
        // SAFETY: arguments match `sz_ratio_symbols`; every group's bits lie inside its
        // chunk's bits (the ends were checked against the bits' length on the host), each
        // chunk's table, counts and sorted symbols were uploaded at the offsets its entry
        // names, and each group writes only its own `cells` symbols inside `total`.
        unsafe { launch.launch(launch_cfg(plan.groups.len())) }?;

        macro_rules! rebuild {
            ($t:ty, $lorenzo:expr, $interp:expr) => {{
                let mut d_out = gpu.alloc_zeros::<$t>(total)?;
                if nblocks > 0 {
                    let f = gpu.function(&kernels::SZ_RATIO, $lorenzo)?;
                    let mut launch = stream.launch_builder(&f);
                    launch
                        .arg(&d_chunks)
                        .arg(&d_blocks)
                        .arg(&nblocks)
                        .arg(&d_syms)
                        .arg(&d_outl_pos)
                        .arg(&d_outl_delta)
                        .arg(&d_raw_pos)
                        .arg(&d_raw_bits)
                        .arg(&d_fills)
                        .arg(&nfill)
                        .arg(&radius)
                        .arg(&pw_rel)
                        .arg(&ctx.step)
                        .arg(&mut d_bad)
                        .arg(&mut d_outl_seen)
                        .arg(&mut d_raw_seen)
                        .arg(&mut d_out);
                    // SAFETY: arguments match `sz_ratio_lorenzo_T`; every block's cells lie
                    // inside its chunk (blocks were cut from the chunk's shape) and so inside
                    // `total` values, and outlier and exact-value searches stay inside each
                    // chunk's ranges of the uploaded arrays.
                    unsafe { launch.launch(launch_cfg(plan.blocks.len())) }?;
                }
                if ninterp > 0 {
                    let mut d_q = gpu.alloc_zeros::<i64>(total)?;
                    let f = gpu.function(&kernels::SZ_RATIO, $interp)?;
                    let mut launch = stream.launch_builder(&f);
                    launch
                        .arg(&d_chunks)
                        .arg(&d_interp)
                        .arg(&ninterp)
                        .arg(&d_syms)
                        .arg(&d_outl_pos)
                        .arg(&d_outl_delta)
                        .arg(&d_raw_pos)
                        .arg(&d_raw_bits)
                        .arg(&d_fills)
                        .arg(&nfill)
                        .arg(&radius)
                        .arg(&ctx.step)
                        .arg(&mut d_q)
                        .arg(&mut d_bad)
                        .arg(&mut d_outl_seen)
                        .arg(&mut d_raw_seen)
                        .arg(&mut d_out);
                    // SAFETY: arguments match `sz_ratio_interp_T`; each thread visits only its
                    // chunk's cells (the box of its values), in `q` and `out` both of `total`
                    // entries.
                    unsafe { launch.launch(launch_cfg(plan.interp.len())) }?;
                }
                let values = gpu.download(&d_out)?;
                for (dst, v) in out.chunks_exact_mut(es).zip(values) {
                    dst.copy_from_slice(&v.to_le_bytes());
                }
            }};
        }
        match ctx.float {
            Float::F32 => rebuild!(
                u32,
                kernels::entry::SZ_RATIO_LORENZO_F32,
                kernels::entry::SZ_RATIO_INTERP_F32
            ),
            Float::F64 => rebuild!(
                u64,
                kernels::entry::SZ_RATIO_LORENZO_F64,
                kernels::entry::SZ_RATIO_INTERP_F64
            ),
        }
        bad = gpu.download(&d_bad)?;
        outl_seen = gpu.download(&d_outl_seen)?;
        raw_seen = gpu.download(&d_raw_seen)?;
    }
    // The lowest chunk refused on the host or on the device.
    let on_device = (0..nchunks).find(|&c| {
        plan.on_device[c]
            && (bad[c] != 0
                || outl_seen[c] != plan.chunks[c].outl_count
                || raw_seen[c] != plan.chunks[c].raw_count)
    });
    let failure = match (plan.refused, on_device) {
        (Some((h, status)), Some(d)) if h < d => Some((h, status)),
        (_, Some(d)) => Some((d, ChunkStatus::Corrupt)),
        (refused, None) => refused,
    };
    if let Some((c, status)) = failure {
        return Err(Error::chunk(c, status));
    }
    for (first, bytes) in &plan.verbatim {
        out[first * es..first * es + bytes.len()].copy_from_slice(bytes);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host structs have the sizes of their CUDA twins in `sz_ratio.cu`.
    #[test]
    fn ratio_struct_sizes() {
        assert_eq!(std::mem::size_of::<SzrChunk>(), 80);
        assert_eq!(std::mem::size_of::<SzrGroup>(), 32);
        assert_eq!(std::mem::size_of::<SzrBlock>(), 48);
        assert_eq!(std::mem::size_of::<SzBlock>(), 48);
    }
}
