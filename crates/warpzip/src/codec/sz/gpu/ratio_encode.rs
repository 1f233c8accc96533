//! The ratio mode's GPU encoder (`kernels/sz/sz_ratio_encode.cu`): the chunks the CPU's
//! `cpu::encode_chunk_best` writes, byte for byte.

use super::{chunk_blocks, launch_cfg, u32_of, upload_nonempty, upload_values, ChunkBlocks, Word};
use crate::codec::sz::cpu::{
    interpolates, or_verbatim, put_exps_and_bases, put_outliers, put_raw_runs, put_section,
    section_bytes, shorter, Ctx, EncodedChunk, BITS_RUNS, CHUNK_CODED, CHUNK_INTERP,
};
use crate::codec::sz::format::{GROUP_BLOCKS, MODE_RATIO, RUN_SYMBOLS};
use crate::codec::sz::interp::{group_cells, stride_log2_for, SPLINE_CUBIC, SPLINE_LINEAR};
use crate::codec::sz::quant::Float;
use crate::error::{Error, Result};
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{CudaSlice, DeviceRepr};
use rayon::prelude::*;

/// A candidate's kind as the kernels name it (`SZE_*` of `sz_ratio_encode.cu`).
const KIND_LORENZO: u32 = 0;
const KIND_LINEAR: u32 = 1;
const KIND_CUBIC: u32 = 2;

/// Most symbols a section may list: the histogram kernel keeps one counter per symbol for
/// each warp in shared memory (4 warps x 2048 x 4 bytes).
const MAX_ALPHABET: usize = 2048;
/// Threads per block of the per-group kernels (a shared-memory replica per warp).
const GROUP_THREADS: u32 = 128;

/// One candidate encoding of a chunk; the layout of `SzeCand` (two u64, eight u32: 48 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SzeCand {
    sym_off: u64,
    data_off: u64,
    n: u32,
    kind: u32,
    cz: u32,
    cy: u32,
    cx: u32,
    stride_log2: u32,
    g0: u32,
    g1: u32,
}

/// One Huffman group of a candidate; the layout of `SzeGroup` (a u64, two u32: 16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct SzeGroup {
    sym_at: u64,
    cand: u32,
    cells: u32,
}

// SAFETY: `SzeCand` and `SzeGroup` are `#[repr(C)]` plain data with the field order, sizes and
// alignment of the CUDA structs of `sz_ratio_encode.cu`, and no padding.
unsafe impl DeviceRepr for SzeCand {}
// SAFETY: see `SzeCand`.
unsafe impl DeviceRepr for SzeGroup {}

/// The candidates of every chunk and their Huffman groups, as the kernels take them.
struct Plan {
    cands: Vec<SzeCand>,
    groups: Vec<SzeGroup>,
    /// Each block's first cell in the per-cell arrays (its chunk's Lorenzo candidate).
    block_sym: Vec<u64>,
    /// The interpolated candidates.
    interp: Vec<u32>,
    /// Each chunk's first candidate and candidate count.
    chunk_cands: Vec<(usize, usize)>,
    /// Cells of all candidates.
    cells: usize,
}

impl Plan {
    fn new(cut: &ChunkBlocks, ctx: &Ctx) -> Result<Plan> {
        let mut plan = Plan {
            cands: Vec::new(),
            groups: Vec::new(),
            block_sym: Vec::with_capacity(cut.blocks.len()),
            interp: Vec::new(),
            chunk_cands: Vec::with_capacity(cut.values.len()),
            cells: 0,
        };
        let mut data_off = 0u64;
        for (i, (&n, &shape)) in cut.values.iter().zip(&cut.shapes).enumerate() {
            let n = n as usize;
            let first = plan.cands.len();
            // Lorenzo: the chunk's blocks in stream order, groups of GROUP_BLOCKS blocks.
            let blocks = &cut.blocks[cut.first[i] as usize..cut.first[i + 1] as usize];
            let mut at = 0usize;
            for b in blocks {
                plan.block_sym.push((plan.cells + at) as u64);
                at += (b.dz * b.dy * b.dx) as usize;
            }
            let cells = blocks
                .chunks(GROUP_BLOCKS)
                .map(|g| g.iter().map(|b| (b.dz * b.dy * b.dx) as usize).sum());
            plan.push(KIND_LORENZO, 0, n, shape, data_off, cells)?;
            if interpolates(ctx) {
                let stride_log2 = u32::from(stride_log2_for(ctx.geometry.ndim));
                for kind in [KIND_LINEAR, KIND_CUBIC] {
                    plan.interp.push(u32_of(plan.cands.len(), "candidates")?);
                    plan.push(kind, stride_log2, n, shape, data_off, group_cells(n))?;
                }
            }
            plan.chunk_cands.push((first, plan.cands.len() - first));
            data_off += n as u64;
        }
        Ok(plan)
    }

    /// Adds a candidate of kind `kind` for a chunk of `n` cells of `shape` at value
    /// `data_off`, in groups of `cells` cells.
    fn push(
        &mut self,
        kind: u32,
        stride_log2: u32,
        n: usize,
        shape: (usize, usize, usize),
        data_off: u64,
        cells: impl Iterator<Item = usize>,
    ) -> Result<()> {
        let cand = u32_of(self.cands.len(), "candidates")?;
        let g0 = u32_of(self.groups.len(), "Huffman groups")?;
        let mut at = 0usize;
        for c in cells {
            self.groups.push(SzeGroup {
                sym_at: (self.cells + at) as u64,
                cand,
                cells: u32_of(c, "cells")?,
            });
            at += c;
        }
        self.cands.push(SzeCand {
            sym_off: self.cells as u64,
            data_off,
            n: u32_of(n, "cells")?,
            kind,
            cz: u32_of(shape.0, "planes")?,
            cy: u32_of(shape.1, "rows")?,
            cx: u32_of(shape.2, "columns")?,
            stride_log2,
            g0,
            g1: u32_of(self.groups.len(), "Huffman groups")?,
        });
        self.cells += n;
        Ok(())
    }
}

/// What the host takes back from the device.
struct Coded {
    /// Sections per candidate: 1, or 2 where run symbols are allowed (variant 1).
    nvar: usize,
    /// Symbols per section's length table.
    astride: usize,
    /// Each section's code lengths (`astride` each).
    lens: Vec<u8>,
    /// Each (variant, group)'s bit end in its section (variant-major).
    gend: Vec<u64>,
    /// Each section's bits.
    sec_bits: Vec<u64>,
    /// Each section's first 32-bit word in `words`.
    sec_word: Vec<u64>,
    /// The sections' bits, as little-endian words.
    words: Vec<u32>,
    /// Each group's first exception in the exception arrays, and the end.
    exc_off: Vec<u64>,
    exc_pos: Vec<u32>,
    exc_val: Vec<u64>,
    exc_raw: Vec<u8>,
    /// Each block's base (zigzag) and pw-rel exponent.
    bases: Vec<u64>,
    exps: Vec<i32>,
}

/// Encodes `data` in ratio mode on the GPU, in chunks of `chunk_size` bytes (whole units of
/// the geometry): the chunks the CPU's `cpu::encode_chunk_best` writes, byte for byte (as
/// `chunked::compress` cuts them).
///
/// Where each step runs. On the device: quantization, the exact bound check and the Lorenzo
/// prediction into symbols, outliers, exact values and block bases (a thread per block, the
/// fast encoder's code path); the interpolation predictor with the linear and the cubic
/// spline (a thread per chunk and spline, its visiting order being sequential); per Huffman
/// group the exception counts and the run-symbol form; the histograms (shared-memory replicas
/// per thread block, atomics); each section's code lengths (`huffman::code_lengths`' algorithm
/// and tie-breaking) and canonical codes (a thread per section); the groups' bit lengths and
/// their prefix sums (the group ends); the MSB-first bits of every group; the compacted lists
/// of outliers and exact values. On the host: the placement of the sections' bits (from their
/// lengths), the varint headers (outliers, runs of exact values, exponents, bases), the table
/// bytes, the raw-Deflate pass of the bits where that is smaller (the CPU's `deflate_bits`),
/// the choice of the smallest section and candidate exactly as the CPU makes it, and the
/// verbatim fallback.
pub fn compress_ratio(
    gpu: &GpuContext,
    data: &[u8],
    chunk_size: usize,
    ctx: &Ctx,
) -> Result<Vec<EncodedChunk>> {
    if ctx.mode != MODE_RATIO {
        return Err(Error::InvalidArgument(
            "compress_ratio encodes the sz ratio mode; the context is for the fast mode".into(),
        ));
    }
    let es = ctx.float.size();
    if data.is_empty() {
        return Ok(Vec::new());
    }
    if !data.len().is_multiple_of(es) || !chunk_size.max(es).is_multiple_of(es) {
        return Err(Error::InvalidArgument(format!(
            "sz input of {} bytes in chunks of {chunk_size} is not whole {es}-byte values",
            data.len()
        )));
    }
    let chunk_size = chunk_size.max(es);
    let cut = chunk_blocks(data.len(), chunk_size, ctx)?;
    let plan = Plan::new(&cut, ctx)?;
    let coded = match ctx.float {
        Float::F32 => run::<u32>(gpu, data, &cut, &plan, ctx)?,
        Float::F64 => run::<u64>(gpu, data, &cut, &plan, ctx)?,
    };
    Ok(finish(data, &cut, &plan, &coded, ctx))
}

/// Every chunk's bytes from what the device gave back.
fn finish(
    data: &[u8],
    cut: &ChunkBlocks,
    plan: &Plan,
    coded: &Coded,
    ctx: &Ctx,
) -> Vec<EncodedChunk> {
    let es = ctx.float.size();
    let starts: Vec<usize> = (0..cut.values.len())
        .scan(0usize, |at, i| {
            let s = *at;
            *at += cut.values[i] as usize * es;
            Some(s)
        })
        .collect();
    (0..cut.values.len())
        .into_par_iter()
        .map(|i| {
            let part = &data[starts[i]..starts[i] + cut.values[i] as usize * es];
            assemble(i, part, cut, plan, coded, ctx)
        })
        .collect()
}

/// The bytes of chunk `i` (its values `part`), as `cpu::encode_chunk_best` chooses them.
fn assemble(
    i: usize,
    part: &[u8],
    cut: &ChunkBlocks,
    plan: &Plan,
    coded: &Coded,
    ctx: &Ctx,
) -> EncodedChunk {
    let es = ctx.float.size();
    let (first, count) = plan.chunk_cands[i];
    let blocks = cut.first[i] as usize..cut.first[i + 1] as usize;
    let lorenzo = or_verbatim(candidate(first, plan, coded, ctx, Some(blocks)), part, es);
    if count < 3 {
        return lorenzo;
    }
    let linear = candidate(first + 1, plan, coded, ctx, None);
    let cubic = candidate(first + 2, plan, coded, ctx, None);
    shorter(lorenzo, shorter(linear, cubic))
}

/// The bytes of candidate `c` (`blocks`: the chunk's blocks for a Lorenzo candidate).
fn candidate(
    c: usize,
    plan: &Plan,
    coded: &Coded,
    ctx: &Ctx,
    blocks: Option<std::ops::Range<usize>>,
) -> EncodedChunk {
    let es = ctx.float.size();
    let cand = &plan.cands[c];
    let (g0, g1) = (cand.g0 as usize, cand.g1 as usize);
    let mut outliers: Vec<(u32, i64)> = Vec::new();
    let mut raws: Vec<(u32, u64)> = Vec::new();
    for k in coded.exc_off[g0] as usize..coded.exc_off[g1] as usize {
        if coded.exc_raw[k] != 0 {
            raws.push((coded.exc_pos[k], coded.exc_val[k]));
        } else {
            outliers.push((coded.exc_pos[k], coded.exc_val[k] as i64));
        }
    }
    let mut out = match cand.kind {
        KIND_LORENZO => vec![CHUNK_CODED],
        KIND_LINEAR => vec![CHUNK_INTERP, cand.stride_log2 as u8, SPLINE_LINEAR],
        _ => vec![CHUNK_INTERP, cand.stride_log2 as u8, SPLINE_CUBIC],
    };
    put_outliers(&outliers, &mut out);
    put_raw_runs(&raws, es, &mut out);
    if let Some(blocks) = blocks {
        let exps: Vec<i16> = if ctx.pw_rel.is_some() {
            coded.exps[blocks.clone()]
                .iter()
                .map(|&k| k as i16)
                .collect()
        } else {
            Vec::new()
        };
        put_exps_and_bases(&exps, &coded.bases[blocks], &mut out);
    }
    let ngroups = plan.groups.len();
    let section = |v: usize| {
        let sec = c * coded.nvar + v;
        let lens = &coded.lens[sec * coded.astride..(sec + 1) * coded.astride];
        let ends: Vec<u32> = (g0..g1)
            .map(|g| coded.gend[v * ngroups + g] as u32)
            .collect();
        let from = coded.sec_word[sec] as usize;
        let words = coded.sec_bits[sec].div_ceil(32) as usize;
        let mut bits: Vec<u8> = coded.words[from..from + words]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        bits.truncate(coded.sec_bits[sec].div_ceil(8) as usize);
        section_bytes(lens, &ends, bits, if v == 1 { BITS_RUNS } else { 0 })
    };
    let plain = section(0);
    let runs = (coded.nvar == 2).then(|| section(1));
    let runs = put_section(plain, runs, &mut out);
    EncodedChunk {
        bytes: out,
        exceptions: (outliers.len() + raws.len()) as u64,
        runs,
    }
}

/// A launch of a thread block per (group, variant).
fn group_cfg(ngroups: u32, nvar: u32, shared_mem_bytes: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (ngroups, nvar, 1),
        block_dim: (GROUP_THREADS, 1, 1),
        shared_mem_bytes,
    }
}

/// Runs the kernels over `data` (values of `T`) and downloads what the host assembles.
fn run<T: Word>(
    gpu: &GpuContext,
    data: &[u8],
    cut: &ChunkBlocks,
    plan: &Plan,
    ctx: &Ctx,
) -> Result<Coded> {
    let f32_data = std::mem::size_of::<T>() == 4;
    let pick = |f32_name: &'static str, f64_name: &'static str| {
        if f32_data {
            f32_name
        } else {
            f64_name
        }
    };
    let astride = ctx.alphabet_with_runs();
    if astride > MAX_ALPHABET {
        return Err(Error::Unsupported(format!(
            "an sz alphabet of {astride} symbols is more than the GPU encoder's {MAX_ALPHABET}"
        )));
    }
    let nvar = if ctx.runs { 2usize } else { 1 };
    let ncand = plan.cands.len();
    let nsec = ncand * nvar;
    let ngroups = plan.groups.len();
    let nblocks = cut.blocks.len();
    let cells = plan.cells;
    let interp = !plan.interp.is_empty();
    let (ngroups32, nvar32, nsec32) = (
        u32_of(ngroups, "Huffman groups")?,
        nvar as u32,
        u32_of(nsec, "sections")?,
    );
    let nblocks32 = u32_of(nblocks, "blocks")?;
    let ninterp32 = u32_of(plan.interp.len(), "candidates")?;
    let astride32 = astride as u32;
    u32_of(nsec.saturating_mul(astride).saturating_mul(2), "code table entries")?;
    let radius = u32::from(ctx.radius);
    let pw_rel = u32::from(ctx.pw_rel.is_some());
    let e = ctx.pw_rel.unwrap_or(0.0);
    let nfill = ctx.fills.len() as u32;
    let runs = u32::from(ctx.runs);
    let run_base = u32::from(ctx.run_base());
    let run_symbols = u32::from(RUN_SYMBOLS);
    let stream = gpu.stream();

    let d_data = upload_values::<T>(gpu, data)?;
    let d_blocks = upload_nonempty(gpu, &cut.blocks)?;
    let d_block_sym = upload_nonempty(gpu, &plan.block_sym)?;
    let d_cands = upload_nonempty(gpu, &plan.cands)?;
    let d_groups = upload_nonempty(gpu, &plan.groups)?;
    let d_interp = upload_nonempty(gpu, &plan.interp)?;
    let d_fills = upload_nonempty(gpu, &ctx.fills)?;
    let mut d_syms = gpu.alloc_zeros::<u16>(cells)?;
    let mut d_aux = gpu.alloc_zeros::<u64>(cells)?;
    let mut d_rsyms = gpu.alloc_zeros::<u16>(if ctx.runs { cells } else { 1 })?;
    let mut d_rcount = gpu.alloc_zeros::<u32>(ngroups)?;
    let mut d_gexc = gpu.alloc_zeros::<u32>(ngroups)?;
    let mut d_bases = gpu.alloc_zeros::<u64>(nblocks)?;
    let mut d_exps = gpu.alloc_zeros::<i32>(nblocks)?;
    let mut d_hist = gpu.alloc_zeros::<u32>(nsec * astride)?;
    let mut d_lens = gpu.alloc_zeros::<u8>(nsec * astride)?;
    let mut d_codes = gpu.alloc_zeros::<u32>(nsec * astride)?;
    let mut d_gbits = gpu.alloc_zeros::<u64>(nvar * ngroups)?;
    let mut d_gend = gpu.alloc_zeros::<u64>(nvar * ngroups)?;
    let mut d_sec_bits = gpu.alloc_zeros::<u64>(nsec)?;

    // Symbols of every candidate.
    if nblocks > 0 {
        let f = gpu.function(
            &kernels::SZ_RATIO_ENCODE,
            pick(
                kernels::entry::SZ_RATIO_ENC_LORENZO_F32,
                kernels::entry::SZ_RATIO_ENC_LORENZO_F64,
            ),
        )?;
        let mut launch = stream.launch_builder(&f);
        launch
            .arg(&d_data)
            .arg(&d_blocks)
            .arg(&nblocks32)
            .arg(&d_block_sym)
            .arg(&d_fills)
            .arg(&nfill)
            .arg(&pw_rel)
            .arg(&e)
            .arg(&ctx.bound)
            .arg(&ctx.step)
            .arg(&radius)
            .arg(&mut d_syms)
            .arg(&mut d_aux)
            .arg(&mut d_bases)
            .arg(&mut d_exps);
        // SAFETY: arguments match `sz_ratio_enc_lorenzo_T`; every block's cells lie inside the
        // data (the blocks were cut from its length), and each block writes its own cells of
        // `syms` and `aux` (from `block_sym`, inside `cells`) and its own base and exponent.
        unsafe { launch.launch(launch_cfg(nblocks)) }?;
    }
    if interp {
        let mut d_q = gpu.alloc_zeros::<i64>(cells)?;
        let f = gpu.function(
            &kernels::SZ_RATIO_ENCODE,
            pick(
                kernels::entry::SZ_RATIO_ENC_INTERP_F32,
                kernels::entry::SZ_RATIO_ENC_INTERP_F64,
            ),
        )?;
        let mut launch = stream.launch_builder(&f);
        launch
            .arg(&d_data)
            .arg(&d_cands)
            .arg(&d_interp)
            .arg(&ninterp32)
            .arg(&d_fills)
            .arg(&nfill)
            .arg(&ctx.bound)
            .arg(&ctx.step)
            .arg(&radius)
            .arg(&mut d_q)
            .arg(&mut d_syms)
            .arg(&mut d_aux);
        // SAFETY: arguments match `sz_ratio_enc_interp_T`; each thread walks its candidate's
        // chunk box (`n` values from `data_off`, inside the data) and writes its `n` cells of
        // `q`, `syms` and `aux` from `sym_off`, inside `cells`.
        unsafe { launch.launch(launch_cfg(plan.interp.len())) }?;
    }

    // Per group: exceptions and run symbols.
    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_GROUPS)?;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_groups)
        .arg(&ngroups32)
        .arg(&d_syms)
        .arg(&radius)
        .arg(&run_base)
        .arg(&run_symbols)
        .arg(&runs)
        .arg(&mut d_rsyms)
        .arg(&mut d_rcount)
        .arg(&mut d_gexc);
    // SAFETY: arguments match `sz_ratio_enc_groups`; each group reads and writes its own
    // `cells` entries from `sym_at` (inside `cells`; `rsyms` has `cells` entries where runs
    // are coded, and the run form of a group is never longer than the group).
    unsafe { launch.launch(launch_cfg(ngroups)) }?;

    // Histograms, code lengths and codes.
    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_HISTOGRAM)?;
    let replicas = GROUP_THREADS / 32;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_groups)
        .arg(&nvar32)
        .arg(&d_syms)
        .arg(&d_rsyms)
        .arg(&d_rcount)
        .arg(&astride32)
        .arg(&mut d_hist);
    // SAFETY: arguments match `sz_ratio_enc_histogram`; the shared memory holds one
    // `astride` replica per warp (at most 32 KiB), symbols at or past `astride` are skipped,
    // and each section's histogram lies inside `hist` (`nsec * astride`).
    unsafe { launch.launch(group_cfg(ngroups32, nvar32, replicas * astride32 * 4)) }?;

    {
        let table = nsec * astride;
        let mut used = gpu.alloc_zeros::<u16>(table)?;
        let mut weight = gpu.alloc_zeros::<u64>(table)?;
        let mut heap_w = gpu.alloc_zeros::<u64>(table)?;
        let mut heap_n = gpu.alloc_zeros::<u32>(table)?;
        let mut parent = gpu.alloc_zeros::<u32>(2 * table)?;
        let mut depth = gpu.alloc_zeros::<u16>(2 * table)?;
        let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_CODES)?;
        let mut launch = stream.launch_builder(&f);
        launch
            .arg(&d_hist)
            .arg(&nsec32)
            .arg(&astride32)
            .arg(&mut used)
            .arg(&mut weight)
            .arg(&mut heap_w)
            .arg(&mut heap_n)
            .arg(&mut parent)
            .arg(&mut depth)
            .arg(&mut d_lens)
            .arg(&mut d_codes);
        // SAFETY: arguments match `sz_ratio_enc_codes`; each section uses its own `astride`
        // entries of every table (twice that of `parent` and `depth`: a tree of n leaves has
        // 2n - 1 nodes, n <= astride).
        unsafe { launch.launch(launch_cfg(nsec)) }?;
    }

    // Group bits and ends.
    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_GROUP_BITS)?;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_groups)
        .arg(&ngroups32)
        .arg(&nvar32)
        .arg(&d_syms)
        .arg(&d_rsyms)
        .arg(&d_rcount)
        .arg(&astride32)
        .arg(&d_lens)
        .arg(&mut d_gbits);
    // SAFETY: arguments match `sz_ratio_enc_group_bits`; each (group, variant) reads its own
    // symbols and its section's lengths and writes its own entry of `gbits`.
    unsafe { launch.launch(group_cfg(ngroups32, nvar32, 0)) }?;
    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_ENDS)?;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_cands)
        .arg(&nsec32)
        .arg(&nvar32)
        .arg(&ngroups32)
        .arg(&d_gbits)
        .arg(&mut d_gend)
        .arg(&mut d_sec_bits);
    // SAFETY: arguments match `sz_ratio_enc_ends`; each section walks its candidate's groups
    // (inside `ngroups`) and writes their ends and its own total.
    unsafe { launch.launch(launch_cfg(nsec)) }?;

    let lens = gpu.download(&d_lens)?;
    let gend = gpu.download(&d_gend)?;
    let sec_bits = gpu.download(&d_sec_bits)?;
    let gexc = gpu.download(&d_gexc)?;
    let bases = gpu.download(&d_bases)?;
    let exps = gpu.download(&d_exps)?;

    // Where each section's bits and each group's exceptions go.
    let mut sec_word = Vec::with_capacity(nsec);
    let mut words_total = 0u64;
    for &bits in &sec_bits {
        sec_word.push(words_total);
        words_total += bits.div_ceil(32);
    }
    let mut exc_off = Vec::with_capacity(ngroups + 1);
    let mut exc_total = 0u64;
    for &k in &gexc[..ngroups] {
        exc_off.push(exc_total);
        exc_total += u64::from(k);
    }
    exc_off.push(exc_total);
    let words_total = usize::try_from(words_total)
        .map_err(|_| Error::Unsupported("sz Huffman bits too many for the host".into()))?;
    let exc_total = usize::try_from(exc_total)
        .map_err(|_| Error::Unsupported("sz exceptions too many for the host".into()))?;

    let d_sec_word = upload_nonempty(gpu, &sec_word)?;
    let d_exc_off = upload_nonempty(gpu, &exc_off)?;
    let mut d_words = gpu.alloc_zeros::<u32>(words_total)?;
    let mut d_exc_pos = gpu.alloc_zeros::<u32>(exc_total)?;
    let mut d_exc_val = gpu.alloc_zeros::<u64>(exc_total)?;
    let mut d_exc_raw = gpu.alloc_zeros::<u8>(exc_total)?;

    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_WRITE)?;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_groups)
        .arg(&ngroups32)
        .arg(&nvar32)
        .arg(&d_syms)
        .arg(&d_rsyms)
        .arg(&d_rcount)
        .arg(&astride32)
        .arg(&d_lens)
        .arg(&d_codes)
        .arg(&d_gbits)
        .arg(&d_gend)
        .arg(&d_sec_word)
        .arg(&mut d_words);
    // SAFETY: arguments match `sz_ratio_enc_write`; each (group, variant) writes the words of
    // its bits `[end - bits, end)` of its section, whose `ceil(bits / 32)` words start at
    // `sec_word` inside `words` (placed from the same totals).
    unsafe { launch.launch(launch_cfg(nvar * ngroups)) }?;
    let f = gpu.function(&kernels::SZ_RATIO_ENCODE, kernels::entry::SZ_RATIO_ENC_EXCEPTIONS)?;
    let mut launch = stream.launch_builder(&f);
    launch
        .arg(&d_groups)
        .arg(&ngroups32)
        .arg(&d_cands)
        .arg(&d_syms)
        .arg(&d_aux)
        .arg(&radius)
        .arg(&d_exc_off)
        .arg(&mut d_exc_pos)
        .arg(&mut d_exc_val)
        .arg(&mut d_exc_raw);
    // SAFETY: arguments match `sz_ratio_enc_exceptions`; each group writes its counted
    // exceptions from `exc_off[g]`, below `exc_off[g + 1]` <= `exc_total`.
    unsafe { launch.launch(launch_cfg(ngroups)) }?;

    let words = download_prefix(gpu, &d_words, words_total)?;
    Ok(Coded {
        nvar,
        astride,
        lens,
        gend,
        sec_bits,
        sec_word,
        words,
        exc_off,
        exc_pos: download_prefix(gpu, &d_exc_pos, exc_total)?,
        exc_val: download_prefix(gpu, &d_exc_val, exc_total)?,
        exc_raw: download_prefix(gpu, &d_exc_raw, exc_total)?,
        bases,
        exps,
    })
}

/// The first `len` elements of `d` (allocations hold at least one).
fn download_prefix<T: DeviceRepr + Default + Clone>(
    gpu: &GpuContext,
    d: &CudaSlice<T>,
    len: usize,
) -> Result<Vec<T>> {
    let mut v = gpu.download(d)?;
    v.truncate(len);
    Ok(v)
}

/// The host structs have the sizes of their CUDA twins in `sz_ratio_encode.cu`.
#[cfg(test)]
pub(super) fn struct_sizes() {
    assert_eq!(std::mem::size_of::<SzeCand>(), 48);
    assert_eq!(std::mem::size_of::<SzeGroup>(), 16);
}

/// A model of the kernels on the CPU, checked against the CPU encoder.
#[cfg(test)]
#[path = "ratio_encode_model.rs"]
mod model;
