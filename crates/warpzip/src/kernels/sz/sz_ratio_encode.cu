// Encoder of the `sz` codec's ratio mode, byte for byte the CPU's (codec/sz/cpu.rs
// `encode_chunk_best`, interp.rs, huffman.rs; docs/format.md, "Codec sz"). Every chunk is
// coded as up to three candidates (Lorenzo; interpolated with the linear and with the cubic
// spline), each with up to two Huffman sections (without and with run symbols); the host picks
// the smallest, as the CPU does.
//
// `sz_ratio_enc_lorenzo_T`: a thread per block quantizes, checks and predicts it (the fast
// encoder's `sz_encode_block`) into symbols, an aux word per cell (an outlier's delta or an
// exact value's bits) and the block's base and exponent. `sz_ratio_enc_interp_T`: a thread per
// interpolated candidate walks its chunk in the predictor's order (sequential). Then per
// Huffman group (16 Lorenzo blocks or 2048 interpolated cells): `sz_ratio_enc_groups` counts
// the exceptions and writes the run-symbol form; `sz_ratio_enc_histogram` counts symbols in
// shared-memory replicas (one per warp) added atomically to the section's histogram;
// `sz_ratio_enc_codes` builds each section's code lengths (huffman.rs `code_lengths`, the
// same heap order and flattening) and canonical codes, a thread per section;
// `sz_ratio_enc_group_bits` sums each group's code lengths and `sz_ratio_enc_ends` turns them
// into the sections' group ends; after the host has placed the sections' bits,
// `sz_ratio_enc_write` writes each group's codes MSB-first (whole 32-bit words, OR'ed in
// atomically where groups share a word) and `sz_ratio_enc_exceptions` lists each candidate's
// outliers and exact values in stream order.
#include "sz/sz_common.cuh"

#define SZE_LORENZO 0u
#define SZE_LINEAR 1u
#define SZE_CUBIC 2u
#define SZE_MAX_LEN 24u

// A chunk's candidate encoding.
struct SzeCand {
    u64 sym_off;      // its first cell in the per-cell arrays
    u64 data_off;     // its chunk's first value in the field
    u32 n;            // its cells
    u32 kind;         // SZE_LORENZO, SZE_LINEAR or SZE_CUBIC
    u32 cz, cy, cx;   // the chunk box
    u32 stride_log2;  // anchor stride exponent (interpolated)
    u32 g0, g1;       // its Huffman groups
};

// One Huffman group of a candidate.
struct SzeGroup {
    u64 sym_at;  // its first cell in the per-cell arrays
    u32 cand;    // its candidate
    u32 cells;   // its cells
};

// The host's twins (codec/sz/gpu/ratio_encode.rs) have these sizes.
static_assert(sizeof(SzeCand) == 48, "SzeCand layout");
static_assert(sizeof(SzeGroup) == 16, "SzeGroup layout");

// The symbol of a cell of kind `kind` with prediction delta d (cpu.rs step 5 of the format):
// d + radius within the radius, else 0 (an outlier, d to aux); the raw symbol 2 * radius for
// an exact value (its bits to aux); 2 * radius + 1 + j for fill value j.
__device__ __forceinline__ u32 sze_symbol(u32 kind, i64 d, u64 bits, u32 radius, u64* aux) {
    i64 r = (i64)radius;
    *aux = 0;
    if (kind == SZ_CELL_CODED) {
        if (d > -r && d < r) return (u32)(d + r);
        *aux = (u64)d;
        return 0;
    }
    if (kind == SZ_CELL_RAW) {
        *aux = bits;
        return 2 * radius;
    }
    return 2 * radius + 1 + (kind - SZ_CELL_FILL);
}

template <typename T>
__device__ void sz_ratio_enc_lorenzo(const T* __restrict__ data, const SzBlock* __restrict__ blocks,
                                     u32 nblocks, const u64* __restrict__ block_sym,
                                     const u64* __restrict__ fills, u32 nfill, u32 pw_rel,
                                     double e, double bound, double step, u32 radius,
                                     u16* __restrict__ syms, u64* __restrict__ aux,
                                     u64* __restrict__ bases, int* __restrict__ exps) {
    u32 b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    SzBlock blk = blocks[b];
    u64 at0 = block_sym[b];
    int k = 0;
    sz_encode_block<T>(data, blk, fills, nfill, pw_rel, e, bound, step, &k,
                       [&](u32 c, u32 kind, i64 d, u64 bits) {
                           // The first cell's delta (predicted from the padding alone) is the
                           // block's base; its symbol codes the rest, zero.
                           if (c == 0) {
                               bases[b] = kind == SZ_CELL_CODED ? sz_zigzag(d) : 0;
                               d = 0;
                           }
                           u64 x;
                           u32 sym = sze_symbol(kind, d, bits, radius, &x);
                           syms[at0 + c] = (u16)sym;
                           aux[at0 + c] = x;
                       });
    exps[b] = k;
}

extern "C" __global__ void sz_ratio_enc_lorenzo_f32(const u32* data, const SzBlock* blocks,
                                                    u32 nblocks, const u64* block_sym,
                                                    const u64* fills, u32 nfill, u32 pw_rel,
                                                    double e, double bound, double step,
                                                    u32 radius, u16* syms, u64* aux, u64* bases,
                                                    int* exps) {
    sz_ratio_enc_lorenzo<u32>(data, blocks, nblocks, block_sym, fills, nfill, pw_rel, e, bound,
                              step, radius, syms, aux, bases, exps);
}

extern "C" __global__ void sz_ratio_enc_lorenzo_f64(const u64* data, const SzBlock* blocks,
                                                    u32 nblocks, const u64* block_sym,
                                                    const u64* fills, u32 nfill, u32 pw_rel,
                                                    double e, double bound, double step,
                                                    u32 radius, u16* syms, u64* aux, u64* bases,
                                                    int* exps) {
    sz_ratio_enc_lorenzo<u64>(data, blocks, nblocks, block_sym, fills, nfill, pw_rel, e, bound,
                              step, radius, syms, aux, bases, exps);
}

// One thread per interpolated candidate: interp.rs `code_cells` (abs and rel bounds only).
template <typename T>
__device__ void sz_ratio_enc_interp(const T* __restrict__ data, const SzeCand* __restrict__ cands,
                                    const u32* __restrict__ interp, u32 ninterp,
                                    const u64* __restrict__ fills, u32 nfill, double bound,
                                    double step, u32 radius, i64* __restrict__ qall,
                                    u16* __restrict__ syms, u64* __restrict__ aux) {
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ninterp) return;
    SzeCand cand = cands[interp[t]];
    const T* d = data + cand.data_off;
    i64* q = qall + cand.sym_off;
    u16* sy = syms + cand.sym_off;
    u64* ax = aux + cand.sym_off;
    u64 pos = 0;
    sz_traverse(q, cand.cz, cand.cy, cand.cx, cand.stride_log2, cand.kind == SZE_CUBIC,
                [&](u64 i, i64 pred, i64* v) -> bool {
                    T bits = d[i];
                    i64 qv = 0;
                    u32 kind = sz_cell<T>(bits, fills, nfill, 0, 0.0, bound, step, &qv);
                    i64 delta = 0;
                    if (kind == SZ_CELL_CODED) {
                        delta = (i64)((u64)qv - (u64)pred);
                        *v = qv;
                    } else {
                        *v = pred;
                    }
                    u64 x;
                    sy[pos] = (u16)sze_symbol(kind, delta, (u64)bits, radius, &x);
                    ax[pos] = x;
                    pos++;
                    return true;
                });
}

extern "C" __global__ void sz_ratio_enc_interp_f32(const u32* data, const SzeCand* cands,
                                                   const u32* interp, u32 ninterp,
                                                   const u64* fills, u32 nfill, double bound,
                                                   double step, u32 radius, i64* q, u16* syms,
                                                   u64* aux) {
    sz_ratio_enc_interp<u32>(data, cands, interp, ninterp, fills, nfill, bound, step, radius, q,
                             syms, aux);
}

extern "C" __global__ void sz_ratio_enc_interp_f64(const u64* data, const SzeCand* cands,
                                                   const u32* interp, u32 ninterp,
                                                   const u64* fills, u32 nfill, double bound,
                                                   double step, u32 radius, i64* q, u16* syms,
                                                   u64* aux) {
    sz_ratio_enc_interp<u64>(data, cands, interp, ninterp, fills, nfill, bound, step, radius, q,
                             syms, aux);
}

// One thread per group: its exceptions (outliers and exact values), and where `runs`, its
// symbols with every run of the zero delta's symbol `radius` coded by run symbols (cpu.rs
// `with_runs`: runs of the longest first, `run_symbols + 1` cells, while at least 2 cells are
// left, a single zero symbol for a remainder of one) at the same place of `rsyms`.
extern "C" __global__ void sz_ratio_enc_groups(const SzeGroup* __restrict__ groups, u32 ngroups,
                                               const u16* __restrict__ syms, u32 radius,
                                               u32 run_base, u32 run_symbols, u32 runs,
                                               u16* __restrict__ rsyms, u32* __restrict__ rcount,
                                               u32* __restrict__ gexc) {
    u32 g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= ngroups) return;
    SzeGroup grp = groups[g];
    const u16* src = syms + grp.sym_at;
    u32 raw_sym = 2 * radius, zero = radius;
    u32 exc = 0;
    for (u32 i = 0; i < grp.cells; i++) {
        u32 s = src[i];
        if (s == 0 || s == raw_sym) exc++;
    }
    gexc[g] = exc;
    if (!runs) return;
    u16* dst = rsyms + grp.sym_at;
    u32 most = run_symbols + 1;
    u32 k = 0, i = 0;
    while (i < grp.cells) {
        u32 s = src[i];
        if (s != zero) {
            dst[k++] = (u16)s;
            i++;
            continue;
        }
        u32 run = 0;
        while (i + run < grp.cells && src[i + run] == zero) run++;
        i += run;
        u32 left = run;
        while (left >= 2) {
            u32 len = left < most ? left : most;
            dst[k++] = (u16)(run_base + (len - 2));
            left -= len;
        }
        if (left == 1) dst[k++] = (u16)zero;
    }
    rcount[g] = k;
}

// The symbols of group g in variant v (0: as they are, 1: with run symbols) and their count.
__device__ __forceinline__ const u16* sze_group_symbols(const SzeGroup& grp, u32 g, u32 v,
                                                        const u16* syms, const u16* rsyms,
                                                        const u32* rcount, u32* count) {
    *count = v ? rcount[g] : grp.cells;
    return (v ? rsyms : syms) + grp.sym_at;
}

// A block of threads per (group, variant): the group's symbol counts in shared-memory
// replicas, one per warp (astride counters each), then added to the histogram of its section
// (candidate * nvar + variant).
extern "C" __global__ void sz_ratio_enc_histogram(const SzeGroup* __restrict__ groups,
                                                  u32 nvar, const u16* __restrict__ syms,
                                                  const u16* __restrict__ rsyms,
                                                  const u32* __restrict__ rcount, u32 astride,
                                                  u32* __restrict__ hist) {
    extern __shared__ u32 sze_replicas[];
    u32 g = blockIdx.x, v = blockIdx.y;
    u32 nrep = blockDim.x / WZ_WARP;
    for (u32 i = threadIdx.x; i < nrep * astride; i += blockDim.x) sze_replicas[i] = 0;
    __syncthreads();
    SzeGroup grp = groups[g];
    u32 count;
    const u16* src = sze_group_symbols(grp, g, v, syms, rsyms, rcount, &count);
    u32* mine = sze_replicas + (threadIdx.x / WZ_WARP) * astride;
    for (u32 i = threadIdx.x; i < count; i += blockDim.x) {
        u32 s = src[i];
        if (s < astride) atomicAdd(&mine[s], 1u);
    }
    __syncthreads();
    u32* h = hist + ((u64)grp.cand * nvar + v) * astride;
    for (u32 s = threadIdx.x; s < astride; s += blockDim.x) {
        u32 sum = 0;
        for (u32 r = 0; r < nrep; r++) sum += sze_replicas[r * astride + s];
        if (sum) atomicAdd(&h[s], sum);
    }
}

// A binary min-heap of (weight, node) pairs ordered by weight, then node: the order of
// huffman.rs's `BinaryHeap<Reverse<(u64, usize)>>`. The keys are distinct (every node once),
// so that every min-heap pops them in the same order.
struct SzeHeap {
    u64* w;
    u32* n;
    u32 size;
    __device__ static bool less(u64 wa, u32 na, u64 wb, u32 nb) {
        return wa < wb || (wa == wb && na < nb);
    }
    __device__ void push(u64 wv, u32 nv) {
        u32 i = size++;
        while (i > 0) {
            u32 p = (i - 1) / 2;
            if (!less(wv, nv, w[p], n[p])) break;
            w[i] = w[p];
            n[i] = n[p];
            i = p;
        }
        w[i] = wv;
        n[i] = nv;
    }
    __device__ void pop(u64* wv, u32* nv) {
        *wv = w[0];
        *nv = n[0];
        size--;
        if (size == 0) return;
        u64 lw = w[size];
        u32 ln = n[size];
        u32 i = 0;
        for (;;) {
            u32 l = 2 * i + 1;
            if (l >= size) break;
            u32 r = l + 1;
            u32 m = (r < size && less(w[r], n[r], w[l], n[l])) ? r : l;
            if (!less(w[m], n[m], lw, ln)) break;
            w[i] = w[m];
            n[i] = n[m];
            i = m;
        }
        w[i] = lw;
        n[i] = ln;
    }
};

// One thread per section: code lengths exactly as huffman.rs `code_lengths` (the used symbols
// in symbol order as leaves 0..n, merged by the heap with parents numbered after their
// children, depths from the root down; deeper than SZE_MAX_LEN: every weight w becomes
// max(w >> 1, 1) and the tree is built again), then `canonical_codes`. The scratch arrays
// hold astride entries per section (parent and depth twice that).
extern "C" __global__ void sz_ratio_enc_codes(const u32* __restrict__ hist, u32 nsec, u32 astride,
                                              u16* __restrict__ used_all,
                                              u64* __restrict__ weight_all,
                                              u64* __restrict__ heap_w_all,
                                              u32* __restrict__ heap_n_all,
                                              u32* __restrict__ parent_all,
                                              u16* __restrict__ depth_all,
                                              u8* __restrict__ lens_all,
                                              u32* __restrict__ codes_all) {
    u32 sec = blockIdx.x * blockDim.x + threadIdx.x;
    if (sec >= nsec) return;
    u64 o = (u64)sec * astride;
    const u32* h = hist + o;
    u16* used = used_all + o;
    u64* weight = weight_all + o;
    u32* parent = parent_all + 2 * o;
    u16* depth = depth_all + 2 * o;
    u8* lens = lens_all + o;
    u32* codes = codes_all + o;
    u32 n = 0;
    for (u32 s = 0; s < astride; s++) {
        lens[s] = 0;
        if (h[s]) {
            used[n] = (u16)s;
            weight[n] = h[s];
            n++;
        }
    }
    if (n == 1) {
        lens[used[0]] = 1;
    } else if (n > 1) {
        SzeHeap heap{heap_w_all + o, heap_n_all + o, 0};
        for (;;) {
            heap.size = 0;
            for (u32 i = 0; i < n; i++) heap.push(weight[i], i);
            u32 next = n;
            while (heap.size > 1) {
                u64 wa, wb;
                u32 a, b;
                heap.pop(&wa, &a);
                heap.pop(&wb, &b);
                parent[a] = next;
                parent[b] = next;
                u64 sum = wa + wb;
                if (sum < wa) sum = ~0ull;  // saturating
                heap.push(sum, next);
                next++;
            }
            depth[2 * n - 2] = 0;
            for (int node = (int)(2 * n) - 3; node >= 0; node--) {
                depth[node] = depth[parent[node]] + 1;
            }
            bool fits = true;
            for (u32 i = 0; i < n; i++) fits = fits && depth[i] <= SZE_MAX_LEN;
            if (fits) {
                for (u32 i = 0; i < n; i++) lens[used[i]] = (u8)depth[i];
                break;
            }
            for (u32 i = 0; i < n; i++) {
                u64 w = weight[i] >> 1;
                weight[i] = w > 1 ? w : 1;
            }
        }
    }
    u32 count[SZE_MAX_LEN + 1];
    u32 next_code[SZE_MAX_LEN + 1];
    for (u32 l = 0; l <= SZE_MAX_LEN; l++) count[l] = 0;
    for (u32 s = 0; s < astride; s++) count[lens[s]]++;
    count[0] = 0;
    u32 code = 0;
    next_code[0] = 0;
    for (u32 len = 1; len <= SZE_MAX_LEN; len++) {
        code = (code + count[len - 1]) << 1;
        next_code[len] = code;
    }
    for (u32 s = 0; s < astride; s++) {
        u32 l = lens[s];
        codes[s] = l ? next_code[l]++ : 0;
    }
}

// A block of threads per (group, variant): the group's bits, the sum of its symbols' lengths.
extern "C" __global__ void sz_ratio_enc_group_bits(const SzeGroup* __restrict__ groups,
                                                   u32 ngroups, u32 nvar,
                                                   const u16* __restrict__ syms,
                                                   const u16* __restrict__ rsyms,
                                                   const u32* __restrict__ rcount, u32 astride,
                                                   const u8* __restrict__ lens,
                                                   u64* __restrict__ gbits) {
    __shared__ unsigned long long total;
    u32 g = blockIdx.x, v = blockIdx.y;
    if (threadIdx.x == 0) total = 0;
    __syncthreads();
    SzeGroup grp = groups[g];
    u32 count;
    const u16* src = sze_group_symbols(grp, g, v, syms, rsyms, rcount, &count);
    const u8* l = lens + ((u64)grp.cand * nvar + v) * astride;
    unsigned long long sum = 0;
    for (u32 i = threadIdx.x; i < count; i += blockDim.x) {
        u32 s = src[i];
        if (s < astride) sum += l[s];
    }
    atomicAdd(&total, sum);
    __syncthreads();
    if (threadIdx.x == 0) gbits[(u64)v * ngroups + g] = total;
}

// One thread per section: its groups' bit ends (cumulative from the section's first bit) and
// its bits in all.
extern "C" __global__ void sz_ratio_enc_ends(const SzeCand* __restrict__ cands, u32 nsec, u32 nvar,
                                             u32 ngroups, const u64* __restrict__ gbits,
                                             u64* __restrict__ gend, u64* __restrict__ sec_bits) {
    u32 sec = blockIdx.x * blockDim.x + threadIdx.x;
    if (sec >= nsec) return;
    u32 c = sec / nvar, v = sec % nvar;
    SzeCand cand = cands[c];
    u64 end = 0;
    for (u32 g = cand.g0; g < cand.g1; g++) {
        end += gbits[(u64)v * ngroups + g];
        gend[(u64)v * ngroups + g] = end;
    }
    sec_bits[sec] = end;
}

// 32 stream bits, first bit most significant, as the little-endian word whose bytes are the
// stream's bytes in order.
__device__ __forceinline__ u32 sze_stream_word(u32 be) { return __byte_perm(be, 0, 0x0123); }

// One thread per (group, variant): the group's codes MSB-first from its start bit in its
// section's words (`words + sec_word[section]`, zeroed). Bits go out a 32-bit word at a time,
// OR'ed in atomically: a group's first and last words may hold its neighbours' bits.
extern "C" __global__ void sz_ratio_enc_write(const SzeGroup* __restrict__ groups, u32 ngroups,
                                              u32 nvar, const u16* __restrict__ syms,
                                              const u16* __restrict__ rsyms,
                                              const u32* __restrict__ rcount, u32 astride,
                                              const u8* __restrict__ lens,
                                              const u32* __restrict__ codes,
                                              const u64* __restrict__ gbits,
                                              const u64* __restrict__ gend,
                                              const u64* __restrict__ sec_word,
                                              u32* __restrict__ words) {
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ngroups * nvar) return;
    u32 v = t / ngroups, g = t % ngroups;
    SzeGroup grp = groups[g];
    u32 count;
    const u16* src = sze_group_symbols(grp, g, v, syms, rsyms, rcount, &count);
    u64 sec = (u64)grp.cand * nvar + v;
    const u8* l = lens + sec * astride;
    const u32* cd = codes + sec * astride;
    u32* w = words + sec_word[sec];
    u64 start = gend[t] - gbits[t];
    u64 wi = start >> 5;
    u32 fill = (u32)(start & 31);  // bits of the first word before the group's
    u64 acc = 0;                    // the current word's bits at the top, first bit highest
    for (u32 i = 0; i < count; i++) {
        u32 s = src[i];
        if (s >= astride) continue;
        u32 len = l[s];
        if (len == 0) continue;
        acc |= (u64)cd[s] << (64 - fill - len);
        fill += len;
        while (fill >= 32) {
            atomicOr(&w[wi], sze_stream_word((u32)(acc >> 32)));
            wi++;
            acc <<= 32;
            fill -= 32;
        }
    }
    if (fill > 0) atomicOr(&w[wi], sze_stream_word((u32)(acc >> 32)));
}

// One thread per group: its outliers (symbol 0) and exact values (the raw symbol), in stream
// order, at exc_off[g]: each one's position in its candidate's stream, its aux word (delta or
// bits) and whether it is an exact value.
extern "C" __global__ void sz_ratio_enc_exceptions(const SzeGroup* __restrict__ groups,
                                                   u32 ngroups, const SzeCand* __restrict__ cands,
                                                   const u16* __restrict__ syms,
                                                   const u64* __restrict__ aux, u32 radius,
                                                   const u64* __restrict__ exc_off,
                                                   u32* __restrict__ exc_pos,
                                                   u64* __restrict__ exc_val,
                                                   u8* __restrict__ exc_raw) {
    u32 g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= ngroups) return;
    SzeGroup grp = groups[g];
    u64 first = grp.sym_at - cands[grp.cand].sym_off;
    u32 raw_sym = 2 * radius;
    u64 k = exc_off[g];
    for (u32 i = 0; i < grp.cells; i++) {
        u32 s = syms[grp.sym_at + i];
        if (s != 0 && s != raw_sym) continue;
        exc_pos[k] = (u32)(first + i);
        exc_val[k] = aux[grp.sym_at + i];
        exc_raw[k] = s == raw_sym ? 1 : 0;
        k++;
    }
}
