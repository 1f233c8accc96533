//! The ratio mode's GPU decoder (`kernels/sz/sz_ratio.cu`): the host reads the chunks'
//! headers with the CPU decoder's readers, the device decodes the Huffman groups and rebuilds
//! the values.

use super::{download_values, launch_cfg, u32_of, upload_nonempty};
use crate::codec::sz::cpu::Ctx;
use crate::codec::sz::quant::Float;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::{kernels, GpuContext, PushKernelArg};
use cudarc::driver::DeviceRepr;

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
const COUNTS: usize = crate::codec::sz::huffman::MAX_LEN + 1;

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
        use crate::codec::sz::cpu::{huffman_section, Reader, CHUNK_CODED, CHUNK_INTERP, CHUNK_VERBATIM};
        use crate::codec::sz::format::GROUP_BLOCKS;
        use crate::codec::sz::huffman::Decoder;
        use crate::codec::sz::interp::{GROUP_CELLS, MAX_STRIDE_LOG2, SPLINE_CUBIC};
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
                bases.push(crate::codec::sz::quant::unzigzag(r.varint()?));
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
        let d_bits = upload_nonempty(gpu, &plan.bits)?;
        let d_chunks = upload_nonempty(gpu, &plan.chunks)?;
        let d_groups = gpu.upload(&plan.groups)?;
        let d_blocks = upload_nonempty(gpu, &plan.blocks)?;
        let d_interp = upload_nonempty(gpu, &plan.interp)?;
        let d_tables = upload_nonempty(gpu, &plan.tables)?;
        let d_counts = upload_nonempty(gpu, &plan.counts)?;
        let d_sorted = upload_nonempty(gpu, &plan.sorted)?;
        let d_sorted_len = upload_nonempty(gpu, &plan.sorted_len)?;
        let d_outl_pos = upload_nonempty(gpu, &plan.outl_pos)?;
        let d_outl_delta = upload_nonempty(gpu, &plan.outl_delta)?;
        let d_raw_pos = upload_nonempty(gpu, &plan.raw_pos)?;
        let d_raw_bits = upload_nonempty(gpu, &plan.raw_bits)?;
        let d_fills = upload_nonempty(gpu, &ctx.fills)?;
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
                download_values(gpu, &d_out, out)?;
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

/// The host structs have the sizes of their CUDA twins in `sz_ratio.cu`.
#[cfg(test)]
pub(super) fn struct_sizes() {
    assert_eq!(std::mem::size_of::<SzrChunk>(), 80);
    assert_eq!(std::mem::size_of::<SzrGroup>(), 32);
    assert_eq!(std::mem::size_of::<SzrBlock>(), 48);
}
