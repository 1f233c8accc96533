//! The kernels of `sz_ratio_encode.cu` transcribed to the CPU, step by step and buffer by
//! buffer (the same plan, per-cell arrays, per-group and per-section tables, and the bits as
//! 32-bit words OR'ed in), with the host's assembly (`finish`) on top: the chunks must be the
//! CPU encoder's. The code-length algorithm is also compared with `huffman::code_lengths`
//! directly on random histograms.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::codec::sz::chunked;
use crate::codec::sz::cpu::encode_chunk_best;
use crate::codec::sz::huffman::{canonical_codes, code_lengths, MAX_LEN};
use crate::codec::sz::interp::traverse;
use crate::codec::sz::options::{ErrorBound, LossyMode, LossyOptions};
use crate::codec::sz::quant::{exponent, pow2, prequantize, round_down, within, zigzag};

/// `sz_cell`: the kind (0 coded, 1 exact, 2 + j fill j) and the integer of a coded value.
fn cell(ctx: &Ctx, bits: u64, v: f64, pw: Option<f64>, step: f64) -> (u32, i64) {
    if let Some(j) = ctx.fills.iter().position(|&f| f == bits) {
        return (2 + j as u32, 0);
    }
    if ctx.float.is_special(bits) {
        return (1, 0);
    }
    let bound = match pw {
        Some(e) => round_down(e * v.abs()),
        None => ctx.bound,
    };
    match prequantize(v, step) {
        Some(q) if within(v, ctx.float.reconstruct(q, step).1, bound) => (0, q),
        _ => (1, 0),
    }
}

/// `sze_symbol`: the symbol and aux word of a cell.
fn symbol(kind: u32, d: i64, bits: u64, radius: u32) -> (u16, u64) {
    let r = i64::from(radius);
    match kind {
        0 if d > -r && d < r => ((d + r) as u16, 0),
        0 => (0, d as u64),
        1 => ((2 * radius) as u16, bits),
        _ => ((2 * radius + 1 + (kind - 2)) as u16, 0),
    }
}

/// Everything the kernels compute, in the device's layout.
fn emulate(data: &[u8], cut: &ChunkBlocks, plan: &Plan, ctx: &Ctx) -> Coded {
    let es = ctx.float.size();
    let load = |i: usize| ctx.float.load(&data[i * es..i * es + es]);
    let radius = u32::from(ctx.radius);
    let raw_sym = (2 * radius) as u16;
    let zero = ctx.radius;
    let cells = plan.cells;
    let mut syms = vec![0u16; cells];
    let mut aux = vec![0u64; cells];
    let nblocks = cut.blocks.len();
    let mut bases = vec![0u64; nblocks];
    let mut exps = vec![0i32; nblocks];
    // sz_ratio_enc_lorenzo: a block at a time.
    for (b, blk) in cut.blocks.iter().enumerate() {
        let at = |z: u32, y: u32, x: u32| {
            blk.chunk_start as usize
                + (((blk.z0 + z) as usize * blk.cy as usize + (blk.y0 + y) as usize)
                    * blk.cx as usize
                    + (blk.x0 + x) as usize)
        };
        let mut step = ctx.step;
        if let Some(e) = ctx.pw_rel {
            let mut min_abs = f64::INFINITY;
            for z in 0..blk.dz {
                for y in 0..blk.dy {
                    for x in 0..blk.dx {
                        let (bits, v) = load(at(z, y, x));
                        if v != 0.0 && !ctx.float.is_special(bits) && !ctx.fills.contains(&bits) {
                            min_abs = min_abs.min(v.abs());
                        }
                    }
                }
            }
            let mut k = 0;
            if min_abs.is_finite() {
                let bb = round_down(e * min_abs);
                k = if bb <= 0.0 { -1074 } else { exponent(bb) };
            }
            exps[b] = k;
            step = pow2(k);
        }
        let (py, px) = ((blk.dy + 1) as usize, (blk.dx + 1) as usize);
        let mut q = vec![0i64; (blk.dz as usize + 1) * py * px];
        let pi = |z: usize, y: usize, x: usize| (z * py + y) * px + x;
        let mut c = 0usize;
        for z in 1..=blk.dz as usize {
            for y in 1..=blk.dy as usize {
                for x in 1..=blk.dx as usize {
                    let (bits, v) = load(at(z as u32 - 1, y as u32 - 1, x as u32 - 1));
                    let (kind, qv) = cell(ctx, bits, v, ctx.pw_rel, step);
                    let pred = q[pi(z - 1, y, x)]
                        .wrapping_add(q[pi(z, y - 1, x)])
                        .wrapping_add(q[pi(z, y, x - 1)])
                        .wrapping_sub(q[pi(z - 1, y - 1, x)])
                        .wrapping_sub(q[pi(z - 1, y, x - 1)])
                        .wrapping_sub(q[pi(z, y - 1, x - 1)])
                        .wrapping_add(q[pi(z - 1, y - 1, x - 1)]);
                    let mut d = 0i64;
                    if kind == 0 {
                        q[pi(z, y, x)] = qv;
                        d = qv.wrapping_sub(pred);
                    } else {
                        q[pi(z, y, x)] = pred;
                    }
                    if c == 0 {
                        bases[b] = if kind == 0 { zigzag(d) } else { 0 };
                        d = 0;
                    }
                    let (s, a) = symbol(kind, d, bits, radius);
                    let at0 = plan.block_sym[b] as usize;
                    syms[at0 + c] = s;
                    aux[at0 + c] = a;
                    c += 1;
                }
            }
        }
    }
    // sz_ratio_enc_interp: a candidate at a time.
    for &ci in &plan.interp {
        let cand = plan.cands[ci as usize];
        let off = cand.sym_off as usize;
        let mut q = vec![0i64; cand.n as usize];
        let mut pos = 0usize;
        let shape = (cand.cz as usize, cand.cy as usize, cand.cx as usize);
        let r: std::result::Result<(), ()> = traverse(
            &mut q,
            shape,
            cand.stride_log2 as u8,
            cand.kind == KIND_CUBIC,
            |i, pred| {
                let (bits, v) = load(cand.data_off as usize + i);
                let (kind, qv) = cell(ctx, bits, v, None, ctx.step);
                let (d, value) = if kind == 0 {
                    (qv.wrapping_sub(pred), qv)
                } else {
                    (0, pred)
                };
                let (s, a) = symbol(kind, d, bits, radius);
                syms[off + pos] = s;
                aux[off + pos] = a;
                pos += 1;
                Ok(value)
            },
        );
        r.unwrap();
    }
    // sz_ratio_enc_groups.
    let ngroups = plan.groups.len();
    let mut rsyms = vec![0u16; cells];
    let mut rcount = vec![0u32; ngroups];
    let mut gexc = vec![0u32; ngroups];
    for (g, grp) in plan.groups.iter().enumerate() {
        let src = &syms[grp.sym_at as usize..grp.sym_at as usize + grp.cells as usize];
        gexc[g] = src.iter().filter(|&&s| s == 0 || s == raw_sym).count() as u32;
        if !ctx.runs {
            continue;
        }
        let dst = &mut rsyms[grp.sym_at as usize..];
        let most = usize::from(RUN_SYMBOLS) + 1;
        let (mut k, mut i) = (0usize, 0usize);
        while i < src.len() {
            if src[i] != zero {
                dst[k] = src[i];
                k += 1;
                i += 1;
                continue;
            }
            let mut run = 0;
            while i + run < src.len() && src[i + run] == zero {
                run += 1;
            }
            i += run;
            let mut left = run;
            while left >= 2 {
                let len = left.min(most);
                dst[k] = ctx.run_base() + (len - 2) as u16;
                k += 1;
                left -= len;
            }
            if left == 1 {
                dst[k] = zero;
                k += 1;
            }
        }
        rcount[g] = k as u32;
    }
    let nvar = if ctx.runs { 2 } else { 1 };
    let astride = ctx.alphabet_with_runs();
    let nsec = plan.cands.len() * nvar;
    let group_syms = |g: usize, v: usize| -> &[u16] {
        let grp = plan.groups[g];
        let at = grp.sym_at as usize;
        if v == 0 {
            &syms[at..at + grp.cells as usize]
        } else {
            &rsyms[at..at + rcount[g] as usize]
        }
    };
    // sz_ratio_enc_histogram, sz_ratio_enc_codes.
    let mut hist = vec![0u32; nsec * astride];
    for v in 0..nvar {
        for g in 0..ngroups {
            let sec = plan.groups[g].cand as usize * nvar + v;
            for &s in group_syms(g, v) {
                hist[sec * astride + usize::from(s)] += 1;
            }
        }
    }
    let mut lens = vec![0u8; nsec * astride];
    let mut codes = vec![0u32; nsec * astride];
    for sec in 0..nsec {
        let l = device_code_lengths(&hist[sec * astride..(sec + 1) * astride]);
        let c = canonical_codes(&l);
        lens[sec * astride..(sec + 1) * astride].copy_from_slice(&l);
        codes[sec * astride..(sec + 1) * astride].copy_from_slice(&c);
    }
    // sz_ratio_enc_group_bits, sz_ratio_enc_ends.
    let mut gbits = vec![0u64; nvar * ngroups];
    for v in 0..nvar {
        for g in 0..ngroups {
            let sec = plan.groups[g].cand as usize * nvar + v;
            gbits[v * ngroups + g] = group_syms(g, v)
                .iter()
                .map(|&s| u64::from(lens[sec * astride + usize::from(s)]))
                .sum();
        }
    }
    let mut gend = vec![0u64; nvar * ngroups];
    let mut sec_bits = vec![0u64; nsec];
    for (sec, total) in sec_bits.iter_mut().enumerate() {
        let (c, v) = (sec / nvar, sec % nvar);
        let cand = plan.cands[c];
        let mut end = 0;
        for g in cand.g0 as usize..cand.g1 as usize {
            end += gbits[v * ngroups + g];
            gend[v * ngroups + g] = end;
        }
        *total = end;
    }
    // The host's placement, then sz_ratio_enc_write and sz_ratio_enc_exceptions.
    let mut sec_word = Vec::new();
    let mut total = 0u64;
    for &b in &sec_bits {
        sec_word.push(total);
        total += b.div_ceil(32);
    }
    let mut words = vec![0u32; total as usize];
    for v in 0..nvar {
        for g in 0..ngroups {
            let t = v * ngroups + g;
            let sec = plan.groups[g].cand as usize * nvar + v;
            let w0 = sec_word[sec] as usize;
            let start = gend[t] - gbits[t];
            let mut wi = (start >> 5) as usize;
            let mut fill = (start & 31) as u32;
            let mut acc = 0u64;
            for &s in group_syms(g, v) {
                let len = u32::from(lens[sec * astride + usize::from(s)]);
                acc |= u64::from(codes[sec * astride + usize::from(s)]) << (64 - fill - len);
                fill += len;
                while fill >= 32 {
                    words[w0 + wi] |= ((acc >> 32) as u32).swap_bytes();
                    wi += 1;
                    acc <<= 32;
                    fill -= 32;
                }
            }
            if fill > 0 {
                words[w0 + wi] |= ((acc >> 32) as u32).swap_bytes();
            }
        }
    }
    let mut exc_off = Vec::new();
    let mut exc_pos = Vec::new();
    let mut exc_val = Vec::new();
    let mut exc_raw = Vec::new();
    for (g, grp) in plan.groups.iter().enumerate() {
        exc_off.push(exc_pos.len() as u64);
        let first = grp.sym_at - plan.cands[grp.cand as usize].sym_off;
        for i in 0..grp.cells as usize {
            let s = syms[grp.sym_at as usize + i];
            if s != 0 && s != raw_sym {
                continue;
            }
            exc_pos.push((first + i as u64) as u32);
            exc_val.push(aux[grp.sym_at as usize + i]);
            exc_raw.push(u8::from(s == raw_sym));
        }
        assert_eq!(exc_pos.len() as u64 - exc_off[g], u64::from(gexc[g]));
    }
    exc_off.push(exc_pos.len() as u64);
    Coded {
        nvar,
        astride,
        lens,
        gend,
        sec_bits,
        sec_word,
        words,
        exc_off,
        exc_pos,
        exc_val,
        exc_raw,
        bases,
        exps,
    }
}

/// The model's chunks are the CPU encoder's, for `data` under `lossy` in chunks of `chunk`
/// bytes (also with interpolation and run symbols switched off). Counts the chunks coded
/// (Lorenzo, interpolated, verbatim, with run symbols) into `seen`.
fn same_as_cpu(
    data: &[u8],
    lossy: &LossyOptions,
    float: Float,
    chunk: usize,
    what: &str,
    seen: &mut [usize; 4],
) {
    let (ctx, _) = chunked::plan(data, lossy, float).unwrap();
    for (interp, runs) in [(true, true), (false, true), (true, false), (false, false)] {
        let mut ctx = ctx.clone();
        ctx.interp &= interp;
        ctx.runs &= runs;
        let cut = chunk_blocks(data.len(), chunk, &ctx).unwrap();
        let plan = Plan::new(&cut, &ctx).unwrap();
        let coded = emulate(data, &cut, &plan, &ctx);
        let got = finish(data, &cut, &plan, &coded, &ctx);
        let want: Vec<EncodedChunk> = data
            .chunks(chunk)
            .map(|c| encode_chunk_best(c, &ctx).unwrap())
            .collect();
        assert_eq!(got.len(), want.len(), "{what}");
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(
                a.bytes == b.bytes,
                "{what} interp {interp} runs {runs}: chunk {i} differs ({} vs {} bytes)",
                a.bytes.len(),
                b.bytes.len()
            );
            assert_eq!(a.exceptions, b.exceptions, "{what}: chunk {i}");
            assert_eq!(a.runs, b.runs, "{what}: chunk {i}");
            seen[usize::from(a.bytes[0])] += 1;
            seen[3] += usize::from(a.runs);
        }
    }
}

#[test]
fn the_kernel_model_writes_the_cpu_bytes() {
    let n = 24_000usize;
    let v: Vec<f64> = (0..n)
        .map(|i| match i % 1500 {
            7 => f64::NAN,
            8 => -0.0,
            9 => f64::from_bits(3),
            10..=12 => -99.9,
            13 => f64::INFINITY,
            14 => 1e300,
            100..=400 => 5.0,
            _ => (i as f64 * 0.002).cos() * 1e4 + (i % 13) as f64,
        })
        .collect();
    let f64s: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    let f32s: Vec<u8> = v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    let bounds = [
        ErrorBound::Abs(1e-2),
        ErrorBound::Abs(0.0),
        ErrorBound::Rel(1e-1),
        ErrorBound::Rel(1e-4),
        ErrorBound::Rel(1e-6),
        ErrorBound::PwRel(1e-3),
    ];
    let shapes: [&[u64]; 6] = [
        &[],
        &[120, 200],
        &[6, 40, 100],
        &[n as u64, 1],
        &[1, 1, n as u64],
        &[5, 7, 685],
    ];
    let mut seen = [0usize; 4];
    for dims in shapes {
        // 5 * 7 * 685 = 23975 values: the field is cut to fit.
        let count = dims.iter().product::<u64>().max(if dims.is_empty() { n as u64 } else { 0 });
        for bound in bounds {
            for (float, bytes) in [(Float::F32, &f32s), (Float::F64, &f64s)] {
                let es = float.size();
                let data = &bytes[..count as usize * es];
                let mut lossy = LossyOptions::new(bound);
                lossy.dims = dims.to_vec();
                lossy.fill = vec![-99.9];
                lossy.mode = LossyMode::Ratio;
                let geometry = chunked::geometry(&lossy.dims, float).unwrap();
                for chunk in [8192usize, 1 << 20] {
                    let chunk = chunked::chunk_size(geometry, float, Some(chunk as u32)).unwrap();
                    same_as_cpu(
                        data,
                        &lossy,
                        float,
                        chunk as usize,
                        &format!("{float:?} {bound} dims {dims:?} chunk {chunk}"),
                        &mut seen,
                    );
                }
            }
        }
    }
    // One value, a constant field.
    for (vals, dims) in [(vec![1.5f32], vec![1u64]), (vec![3.25f32; 70000], vec![70000])] {
        let d: Vec<u8> = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
        let mut lossy = LossyOptions::new(ErrorBound::Rel(1e-3));
        lossy.dims = dims;
        same_as_cpu(&d, &lossy, Float::F32, 1 << 20, "constant", &mut seen);
    }
    assert!(seen.iter().all(|&k| k > 0), "chunk kinds seen: {seen:?}");
}


/// The device's code-length algorithm (`sz_ratio_enc_codes`), transcribed: leaves in symbol
/// order, an array min-heap of (weight, node), parents numbered after their children,
/// depths from the root down, weights flattened by `max(w >> 1, 1)` while too deep.
fn device_code_lengths(hist: &[u32]) -> Vec<u8> {
    let astride = hist.len();
    let mut lens = vec![0u8; astride];
    let mut used = Vec::new();
    let mut weight = Vec::new();
    for (s, &h) in hist.iter().enumerate() {
        if h != 0 {
            used.push(s);
            weight.push(u64::from(h));
        }
    }
    let n = used.len();
    if n == 1 {
        lens[used[0]] = 1;
    } else if n > 1 {
        let less = |a: (u64, u32), b: (u64, u32)| a.0 < b.0 || (a.0 == b.0 && a.1 < b.1);
        let mut parent = vec![0u32; 2 * n];
        let mut depth = vec![0u16; 2 * n];
        loop {
            let mut heap: Vec<(u64, u32)> = vec![(0, 0); n];
            let mut size = 0usize;
            let push = |heap: &mut Vec<(u64, u32)>, size: &mut usize, x: (u64, u32)| {
                let mut i = *size;
                *size += 1;
                while i > 0 {
                    let p = (i - 1) / 2;
                    if !less(x, heap[p]) {
                        break;
                    }
                    heap[i] = heap[p];
                    i = p;
                }
                heap[i] = x;
            };
            let pop = |heap: &mut Vec<(u64, u32)>, size: &mut usize| -> (u64, u32) {
                let top = heap[0];
                *size -= 1;
                if *size == 0 {
                    return top;
                }
                let last = heap[*size];
                let mut i = 0;
                loop {
                    let l = 2 * i + 1;
                    if l >= *size {
                        break;
                    }
                    let r = l + 1;
                    let m = if r < *size && less(heap[r], heap[l]) {
                        r
                    } else {
                        l
                    };
                    if !less(heap[m], last) {
                        break;
                    }
                    heap[i] = heap[m];
                    i = m;
                }
                heap[i] = last;
                top
            };
            for (i, &w) in weight.iter().enumerate() {
                push(&mut heap, &mut size, (w, i as u32));
            }
            let mut next = n as u32;
            while size > 1 {
                let (wa, a) = pop(&mut heap, &mut size);
                let (wb, b) = pop(&mut heap, &mut size);
                parent[a as usize] = next;
                parent[b as usize] = next;
                push(&mut heap, &mut size, (wa.saturating_add(wb), next));
                next += 1;
            }
            depth[2 * n - 2] = 0;
            for node in (0..2 * n - 2).rev() {
                depth[node] = depth[parent[node] as usize] + 1;
            }
            if depth[..n].iter().all(|&d| usize::from(d) <= MAX_LEN) {
                for i in 0..n {
                    lens[used[i]] = depth[i] as u8;
                }
                break;
            }
            for w in &mut weight {
                *w = (*w >> 1).max(1);
            }
        }
    }
    lens
}

/// A small deterministic generator (xorshift).
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// The device's algorithm gives `huffman::code_lengths`' lengths (and so its codes) on
/// random, skewed, Fibonacci (deep, flattened) and tiny histograms.
#[test]
fn device_code_lengths_match_the_cpu() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut cases: Vec<Vec<u32>> = vec![
        vec![0; 10],
        vec![0, 7, 0],
        vec![3, 3],
        vec![1; 1092],
        (0..60)
            .scan((1u32, 1u32), |(a, b), _| {
                let v = *a;
                let c = a.saturating_add(*b);
                *a = *b;
                *b = c;
                Some(v)
            })
            .collect(),
    ];
    for k in 0..300 {
        let len = 2 + (next(&mut state) % 1100) as usize;
        let density = 1 + next(&mut state) % 8;
        let h: Vec<u32> = (0..len)
            .map(|_| {
                let r = next(&mut state);
                if !r.is_multiple_of(density) {
                    0
                } else if k % 3 == 0 {
                    // Heavy skew: a few huge counts, many ones.
                    if r.is_multiple_of(97) {
                        (r >> 40) as u32
                    } else {
                        1
                    }
                } else {
                    (r >> 50) as u32 + 1
                }
            })
            .collect();
        cases.push(h);
    }
    for (i, h) in cases.iter().enumerate() {
        let freq: Vec<u64> = h.iter().map(|&v| u64::from(v)).collect();
        let want = code_lengths(&freq);
        let got = device_code_lengths(h);
        assert_eq!(got, want, "case {i}");
        assert_eq!(canonical_codes(&got), canonical_codes(&want), "case {i}");
    }
}
