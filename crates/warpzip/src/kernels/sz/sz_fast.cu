// Decoder of the `sz` codec's fast mode (codec/sz/cpu.rs and docs/format.md, "Codec sz"):
// `sz_fast_index` walks each chunk's header (a thread per chunk) and gives every block its
// packed bits' offset, widths and pw-rel exponent; `sz_fast_decode_T` rebuilds a block per
// thread (unpack the zigzag deltas, Lorenzo by wrapping 64-bit sums over a zero padding
// layer, reconstruct q * step with one round-to-nearest multiplication, no contraction);
// `sz_fast_exact_T` writes each chunk's exact values (runs of one bit pattern) or copies a
// verbatim chunk. The output is the CPU decoder's, bit for bit.
#include "sz/sz_common.cuh"

#define SZ_CODED 0u
#define SZ_VERBATIM 1u

// `width` bits at bit `bit` of [p, p + len), zeros past the end.
__device__ __forceinline__ u64 sz_bits(const u8* p, u64 len, u64 bit, u32 width) {
    if (width == 0) return 0;
    u64 first = bit >> 3;
    unsigned __int128 acc = 0;
    for (u32 i = 0; i < 9; i++) {
        u64 at = first + i;
        if (at < len) acc |= (unsigned __int128)p[at] << (8 * i);
    }
    u64 v = (u64)(acc >> (bit & 7));
    return width == 64 ? v : (v & ((1ull << width) - 1));
}

// One thread per chunk: the section offsets and every block's packed offset and widths.
extern "C" __global__ void sz_fast_index(const u8* __restrict__ payload,
                                         const u64* __restrict__ chunk_off,
                                         const u32* __restrict__ chunk_len,
                                         const u64* __restrict__ chunk_values,
                                         const u32* __restrict__ chunk_first_block,
                                         const SzBlock* __restrict__ blocks, u32 chunks, u32 es,
                                         u32 pw_rel, u64* __restrict__ block_off,
                                         u8* __restrict__ block_w, u8* __restrict__ block_wb,
                                         int* __restrict__ block_exp, u32* __restrict__ kind,
                                         u32* __restrict__ status) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks) return;
    u64 p = chunk_off[c];
    u64 end = p + chunk_len[c];
    u64 n = chunk_values[c];
    u32 b0 = chunk_first_block[c], b1 = chunk_first_block[c + 1];
    kind[c] = 0xffu;
    if (p >= end) {
        status[c] = WZ_STATUS_TRUNCATED;
        return;
    }
    u8 k = payload[p++];
    if (k == SZ_VERBATIM) {
        if (end - p != n * es) {
            status[c] = end - p < n * es ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT;
            return;
        }
        kind[c] = SZ_VERBATIM;
        return;
    }
    if (k != SZ_CODED) {
        status[c] = WZ_STATUS_CORRUPT;
        return;
    }
    // The exact values' runs: skipped here (sz_fast_exact_T reads them).
    u64 runs;
    if (!sz_varint(payload, &p, end, &runs)) {
        status[c] = WZ_STATUS_TRUNCATED;
        return;
    }
    if (runs > n) {
        status[c] = WZ_STATUS_CORRUPT;
        return;
    }
    for (u64 r = 0; r < runs; r++) {
        u64 gap, len;
        if (!sz_varint(payload, &p, end, &gap) || !sz_varint(payload, &p, end, &len) ||
            end - p < es) {
            status[c] = WZ_STATUS_TRUNCATED;
            return;
        }
        p += es;
    }
    u64 nb = b1 - b0;
    if (pw_rel) {
        if (end - p < 2 * nb) {
            status[c] = WZ_STATUS_TRUNCATED;
            return;
        }
        for (u64 b = 0; b < nb; b++) {
            block_exp[b0 + b] = (int)(short)(payload[p + 2 * b] | (payload[p + 2 * b + 1] << 8));
        }
        p += 2 * nb;
    }
    if (end - p < 2 * nb) {
        status[c] = WZ_STATUS_TRUNCATED;
        return;
    }
    u64 w_at = p, wb_at = p + nb;
    p += 2 * nb;
    for (u64 b = 0; b < nb; b++) {
        u32 w = payload[w_at + b], wb = payload[wb_at + b];
        if (w > 64 || wb > 64) {
            status[c] = WZ_STATUS_CORRUPT;
            return;
        }
        const SzBlock& blk = blocks[b0 + b];
        u64 cells = (u64)blk.dz * blk.dy * blk.dx;
        u64 len = (wb + (cells - 1) * w + 7) / 8;
        if (end - p < len) {
            status[c] = WZ_STATUS_TRUNCATED;
            return;
        }
        block_off[b0 + b] = p;
        block_w[b0 + b] = (u8)w;
        block_wb[b0 + b] = (u8)wb;
        p += len;
    }
    if (p != end) {
        status[c] = WZ_STATUS_CORRUPT;
        return;
    }
    kind[c] = SZ_CODED;
}

// One thread per block of a coded chunk.
template <typename T>
__device__ void sz_fast_decode(const u8* __restrict__ payload, const SzBlock* __restrict__ blocks,
                               const u64* __restrict__ block_off, const u8* __restrict__ block_w,
                               const u8* __restrict__ block_wb, const int* __restrict__ block_exp,
                               const u32* __restrict__ kind, u32 nblocks, double step, u32 pw_rel,
                               T* __restrict__ out) {
    u32 b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    SzBlock blk = blocks[b];
    if (kind[blk.chunk] != SZ_CODED) return;
    double s = pw_rel ? sz_pow2(block_exp[b]) : step;
    u32 w = block_w[b], wb = block_wb[b];
    const u8* bits = payload + block_off[b];
    u64 cells = (u64)blk.dz * blk.dy * blk.dx;
    u64 len = (wb + (cells - 1) * w + 7) / 8;
    u32 py = blk.dy + 1, px = blk.dx + 1;
    i64 q[SZ_PAD_CELLS];
    for (u32 i = 0; i < (blk.dz + 1) * py * px; i++) q[i] = 0;
    u64 c = 0;
    for (u32 z = 1; z <= blk.dz; z++) {
        for (u32 y = 1; y <= blk.dy; y++) {
            for (u32 x = 1; x <= blk.dx; x++) {
                u64 zz = c == 0 ? sz_bits(bits, len, 0, wb) : sz_bits(bits, len, wb + (c - 1) * w, w);
                i64 d = sz_unzigzag(zz);
                i64 v = (i64)(sz_lorenzo(q, z, y, x, py, px) + (u64)d);
                q[(z * py + y) * px + x] = v;
                out[sz_block_at(blk, z - 1, y - 1, x - 1)] = sz_reconstruct_bits<T>(v, s);
                c++;
            }
        }
    }
}

extern "C" __global__ void sz_fast_decode_f32(const u8* payload, const SzBlock* blocks,
                                              const u64* block_off, const u8* block_w,
                                              const u8* block_wb, const int* block_exp,
                                              const u32* kind, u32 nblocks, double step,
                                              u32 pw_rel, u32* out) {
    sz_fast_decode<u32>(payload, blocks, block_off, block_w, block_wb, block_exp, kind, nblocks,
                        step, pw_rel, out);
}

extern "C" __global__ void sz_fast_decode_f64(const u8* payload, const SzBlock* blocks,
                                              const u64* block_off, const u8* block_w,
                                              const u8* block_wb, const int* block_exp,
                                              const u32* kind, u32 nblocks, double step,
                                              u32 pw_rel, u64* out) {
    sz_fast_decode<u64>(payload, blocks, block_off, block_w, block_wb, block_exp, kind, nblocks,
                        step, pw_rel, out);
}

// One thread per chunk, after the blocks: a verbatim chunk's values, or a coded chunk's exact
// values (position p in stream order mapped to its cell through the chunk's blocks).
template <typename T>
__device__ void sz_fast_exact(const u8* __restrict__ payload, const u64* __restrict__ chunk_off,
                              const u32* __restrict__ chunk_len,
                              const u64* __restrict__ chunk_values,
                              const u32* __restrict__ chunk_first_block,
                              const SzBlock* __restrict__ blocks, u32 chunks,
                              const u32* __restrict__ kind, u32* __restrict__ status,
                              T* __restrict__ out) {
    u32 c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= chunks) return;
    const u32 es = sizeof(T);
    u64 p = chunk_off[c] + 1;
    u64 end = chunk_off[c] + chunk_len[c];
    u64 n = chunk_values[c];
    u32 b0 = chunk_first_block[c], b1 = chunk_first_block[c + 1];
    if (kind[c] == SZ_VERBATIM) {
        if (b0 == b1) return;
        u64 start = blocks[b0].chunk_start;
        for (u64 i = 0; i < n; i++) {
            T v = 0;
            for (u32 k = 0; k < es; k++) v |= (T)payload[p + i * es + k] << (8 * k);
            out[start + i] = v;
        }
        return;
    }
    if (kind[c] != SZ_CODED) return;
    u64 runs;
    sz_varint(payload, &p, end, &runs);
    u64 next = 0;
    u32 b = b0;
    u64 block_first = 0;  // stream position of block b's first cell
    for (u64 r = 0; r < runs; r++) {
        u64 gap, len;
        sz_varint(payload, &p, end, &gap);
        sz_varint(payload, &p, end, &len);
        T bits = 0;
        for (u32 k = 0; k < es; k++) bits |= (T)payload[p + k] << (8 * k);
        p += es;
        u64 start = next + gap;
        u64 stop = start + len + 1;
        if (start < next || stop <= start || stop > n) {
            status[c] = WZ_STATUS_CORRUPT;
            return;
        }
        for (u64 pos = start; pos < stop; pos++) {
            while (b < b1) {
                const SzBlock& blk = blocks[b];
                u64 cells = (u64)blk.dz * blk.dy * blk.dx;
                if (pos < block_first + cells) break;
                block_first += cells;
                b++;
            }
            if (b >= b1) {
                status[c] = WZ_STATUS_CORRUPT;
                return;
            }
            const SzBlock& blk = blocks[b];
            u64 i = pos - block_first;
            u32 x = (u32)(i % blk.dx), y = (u32)(i / blk.dx % blk.dy), z = (u32)(i / blk.dx / blk.dy);
            u64 at = blk.chunk_start + ((u64)(blk.z0 + z) * blk.cy + (blk.y0 + y)) * blk.cx +
                     (blk.x0 + x);
            out[at] = bits;
        }
        next = stop;
    }
}

extern "C" __global__ void sz_fast_exact_f32(const u8* payload, const u64* chunk_off,
                                             const u32* chunk_len, const u64* chunk_values,
                                             const u32* chunk_first_block, const SzBlock* blocks,
                                             u32 chunks, const u32* kind, u32* status, u32* out) {
    sz_fast_exact<u32>(payload, chunk_off, chunk_len, chunk_values, chunk_first_block, blocks,
                       chunks, kind, status, out);
}

extern "C" __global__ void sz_fast_exact_f64(const u8* payload, const u64* chunk_off,
                                             const u32* chunk_len, const u64* chunk_values,
                                             const u32* chunk_first_block, const SzBlock* blocks,
                                             u32 chunks, const u32* kind, u32* status, u64* out) {
    sz_fast_exact<u64>(payload, chunk_off, chunk_len, chunk_values, chunk_first_block, blocks,
                       chunks, kind, status, out);
}

// ---------------------------------------------------------------------------------------------
// Encoder of the fast mode, byte for byte the CPU's (codec/sz/cpu.rs, encode_chunk):
// `sz_fast_encode_T` quantizes, checks and predicts a block per thread into a scratch of zigzag
// deltas and exact-value flags; `sz_fast_assemble_T` writes each chunk (a CUDA block per chunk)
// into its slot of `values * size + 1` bytes, verbatim when the coding would not be smaller.

__device__ __forceinline__ u32 sz_bit_width(u64 v) { return v == 0 ? 0 : 64 - __clzll((long long)v); }

template <typename T>
__device__ void sz_fast_encode(const T* __restrict__ data, const SzBlock* __restrict__ blocks,
                               u32 nblocks, const u64* __restrict__ fills, u32 nfill, u32 pw_rel,
                               double e, double bound, double step, u64* __restrict__ zz,
                               u8* __restrict__ exact, u8* __restrict__ block_w,
                               u8* __restrict__ block_wb, int* __restrict__ block_exp) {
    u32 b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    SzBlock blk = blocks[b];
    u64 base = (u64)b * SZ_BLOCK_MAX;
    u32 w = 0, wb = 0;
    sz_encode_block<T>(data, blk, fills, nfill, pw_rel, e, bound, step, &block_exp[b],
                       [&](u32 c, u32 kind, i64 d, u64) {
                           u64 zig = sz_zigzag(d);
                           zz[base + c] = zig;
                           exact[base + c] = kind == SZ_CELL_CODED ? 0 : 1;
                           u32 bw = sz_bit_width(zig);
                           if (c == 0) {
                               wb = bw;
                           } else {
                               w = bw > w ? bw : w;
                           }
                       });
    block_w[b] = (u8)w;
    block_wb[b] = (u8)wb;
}

extern "C" __global__ void sz_fast_encode_f32(const u32* data, const SzBlock* blocks, u32 nblocks,
                                              const u64* fills, u32 nfill, u32 pw_rel, double e,
                                              double bound, double step, u64* zz, u8* exact,
                                              u8* block_w, u8* block_wb, int* block_exp) {
    sz_fast_encode<u32>(data, blocks, nblocks, fills, nfill, pw_rel, e, bound, step, zz, exact,
                        block_w, block_wb, block_exp);
}

extern "C" __global__ void sz_fast_encode_f64(const u64* data, const SzBlock* blocks, u32 nblocks,
                                              const u64* fills, u32 nfill, u32 pw_rel, double e,
                                              double bound, double step, u64* zz, u8* exact,
                                              u8* block_w, u8* block_wb, int* block_exp) {
    sz_fast_encode<u64>(data, blocks, nblocks, fills, nfill, pw_rel, e, bound, step, zz, exact,
                        block_w, block_wb, block_exp);
}

// Appends to a chunk's slot, failing (false) past `cap` bytes.
struct SzOut {
    u8* p;
    u64 len, cap;
    __device__ bool byte(u8 v) {
        if (len >= cap) return false;
        p[len++] = v;
        return true;
    }
    __device__ bool varint(u64 v) {
        while (v >= 0x80) {
            if (!byte((u8)(v | 0x80))) return false;
            v >>= 7;
        }
        return byte((u8)v);
    }
};

// Threads of a block of `sz_fast_assemble_T` (the launch gives exactly this many).
#define SZ_ASM_THREADS 128u

// Bytes of a block's packed bits: its first delta in `wb` bits, the others in `w` bits each.
__device__ __forceinline__ u64 sz_block_bytes(u32 cells, u32 w, u32 wb) {
    return ((u64)wb + (u64)(cells - 1) * w + 7) / 8;
}

// One CUDA block per chunk. The block's threads look at the chunk's blocks a tile of
// SZ_ASM_THREADS at a time: which hold exact values (thread 0 then writes the runs of those
// only), the packed bytes each needs (a sum decides coded or verbatim, a scan gives each block
// its offset) and, last, each thread packs its own block's bits.
template <typename T>
__device__ void sz_fast_assemble(const T* __restrict__ data, const SzBlock* __restrict__ blocks,
                                 const u32* __restrict__ chunk_first_block,
                                 const u64* __restrict__ chunk_values, u32 chunks, u32 pw_rel,
                                 const u64* __restrict__ zz, const u8* __restrict__ exact,
                                 const u8* __restrict__ block_w, const u8* __restrict__ block_wb,
                                 const int* __restrict__ block_exp, const u64* __restrict__ slot_off,
                                 u8* __restrict__ slots, u64* __restrict__ out_len,
                                 u64* __restrict__ exceptions) {
    __shared__ u8 s_has[SZ_ASM_THREADS];
    __shared__ u64 s_scan[SZ_ASM_THREADS];
    __shared__ u64 s_len;
    __shared__ u32 s_ok;
    u32 c = blockIdx.x;
    u32 tid = threadIdx.x;
    if (c >= chunks || blockDim.x != SZ_ASM_THREADS) return;
    const u32 es = sizeof(T);
    u64 n = chunk_values[c];
    u32 b0 = chunk_first_block[c], b1 = chunk_first_block[c + 1];
    u8* slot = slots + slot_off[c];
    // Thread 0's writer and its run state, kept across the tiles.
    SzOut o{slot, 0, n * es};
    bool ok = true;
    u64 runs = 0, raws = 0;
    if (tid == 0) ok = o.byte(SZ_CODED);
    // Runs of exact values: counted (pass 0), then written (pass 1).
    for (int pass = 0; pass < 2; pass++) {
        if (tid == 0 && pass == 1 && ok) ok = o.varint(runs);
        u64 pos = 0, next = 0, run_start = 0, run_len = 0;
        T run_bits = 0;
        for (u32 t0 = b0; t0 < b1; t0 += SZ_ASM_THREADS) {
            u32 b = t0 + tid;
            u8 has = 0;
            if (b < b1) {
                const SzBlock& blk = blocks[b];
                u32 cells = blk.dz * blk.dy * blk.dx;
                for (u32 i = 0; i < cells && !has; i++) has = exact[(u64)b * SZ_BLOCK_MAX + i];
            }
            s_has[tid] = has;
            __syncthreads();
            if (tid == 0) {
                u32 tn = b1 - t0 < SZ_ASM_THREADS ? b1 - t0 : SZ_ASM_THREADS;
                for (u32 k = 0; k < tn && ok; k++) {
                    u32 bb = t0 + k;
                    const SzBlock& blk = blocks[bb];
                    u32 cells = blk.dz * blk.dy * blk.dx;
                    if (!s_has[k]) {
                        pos += cells;
                        continue;
                    }
                    for (u32 i = 0; i < cells && ok; i++, pos++) {
                        if (!exact[(u64)bb * SZ_BLOCK_MAX + i]) continue;
                        u32 x = i % blk.dx, y = i / blk.dx % blk.dy, z = i / blk.dx / blk.dy;
                        T bits = data[blk.chunk_start +
                                      ((u64)(blk.z0 + z) * blk.cy + (blk.y0 + y)) * blk.cx +
                                      (blk.x0 + x)];
                        if (pass == 0) raws++;
                        if (run_len > 0 && bits == run_bits && run_start + run_len == pos) {
                            run_len++;
                            continue;
                        }
                        if (run_len > 0) {
                            if (pass == 0) {
                                runs++;
                            } else {
                                ok = o.varint(run_start - next) && o.varint(run_len - 1);
                                for (u32 k2 = 0; k2 < es && ok; k2++)
                                    ok = o.byte((u8)(run_bits >> (8 * k2)));
                                next = run_start + run_len;
                            }
                        }
                        run_start = pos;
                        run_len = 1;
                        run_bits = bits;
                    }
                }
            }
            __syncthreads();
        }
        if (tid == 0 && run_len > 0 && ok) {
            if (pass == 0) {
                runs++;
            } else {
                ok = o.varint(run_start - next) && o.varint(run_len - 1);
                for (u32 k = 0; k < es && ok; k++) ok = o.byte((u8)(run_bits >> (8 * k)));
            }
        }
    }
    if (tid == 0) {
        if (pw_rel) {
            for (u32 b = b0; b < b1 && ok; b++) {
                int k = block_exp[b];
                ok = o.byte((u8)(k & 0xff)) && o.byte((u8)((k >> 8) & 0xff));
            }
        }
        for (u32 b = b0; b < b1 && ok; b++) ok = o.byte(block_w[b]);
        for (u32 b = b0; b < b1 && ok; b++) ok = o.byte(block_wb[b]);
        s_len = o.len;
        s_ok = ok ? 1u : 0u;
    }
    __syncthreads();
    // The packed bytes of all blocks: does the coded chunk fit in n * size bytes?
    u64 mine = 0;
    for (u32 b = b0 + tid; b < b1; b += SZ_ASM_THREADS) {
        const SzBlock& blk = blocks[b];
        mine += sz_block_bytes(blk.dz * blk.dy * blk.dx, block_w[b], block_wb[b]);
    }
    s_scan[tid] = mine;
    __syncthreads();
    for (u32 half = SZ_ASM_THREADS / 2; half > 0; half /= 2) {
        if (tid < half) s_scan[tid] += s_scan[tid + half];
        __syncthreads();
    }
    u64 header = s_len;
    bool coded = s_ok != 0 && header + s_scan[0] <= n * es;
    __syncthreads();
    if (coded) {
        // Each tile: an exclusive scan of the blocks' byte counts, then every thread packs
        // its block at its offset (blocks end on whole bytes, so no two share a byte).
        u64 base = header;
        for (u32 t0 = b0; t0 < b1; t0 += SZ_ASM_THREADS) {
            u32 b = t0 + tid;
            u64 len = 0;
            if (b < b1) {
                const SzBlock& blk = blocks[b];
                len = sz_block_bytes(blk.dz * blk.dy * blk.dx, block_w[b], block_wb[b]);
            }
            s_scan[tid] = len;
            __syncthreads();
            for (u32 d = 1; d < SZ_ASM_THREADS; d *= 2) {
                u64 add = tid >= d ? s_scan[tid - d] : 0;
                __syncthreads();
                s_scan[tid] += add;
                __syncthreads();
            }
            u64 at = base + s_scan[tid] - len;
            u64 tile = s_scan[SZ_ASM_THREADS - 1];
            if (b < b1 && len > 0) {
                const SzBlock& blk = blocks[b];
                u32 cells = blk.dz * blk.dy * blk.dx;
                u32 w = block_w[b], wb = block_wb[b];
                unsigned __int128 acc = 0;
                u32 nacc = 0;
                for (u32 i = 0; i < cells; i++) {
                    u32 width = i == 0 ? wb : w;
                    if (width == 0) continue;
                    acc |= (unsigned __int128)zz[(u64)b * SZ_BLOCK_MAX + i] << nacc;
                    nacc += width;
                    while (nacc >= 8) {
                        slot[at++] = (u8)acc;
                        acc >>= 8;
                        nacc -= 8;
                    }
                }
                if (nacc > 0) slot[at++] = (u8)acc;
            }
            base += tile;
            __syncthreads();
        }
        if (tid == 0) {
            out_len[c] = base;
            exceptions[c] = raws;
        }
        return;
    }
    // Coding does not pay: the values verbatim.
    u64 start = b0 < b1 ? blocks[b0].chunk_start : 0;
    if (tid == 0) {
        slot[0] = SZ_VERBATIM;
        out_len[c] = n * es + 1;
        exceptions[c] = n;
    }
    for (u64 i = tid; i < n; i += SZ_ASM_THREADS) {
        T v = data[start + i];
        for (u32 k = 0; k < es; k++) slot[1 + i * es + k] = (u8)(v >> (8 * k));
    }
}

extern "C" __global__ void sz_fast_assemble_f32(const u32* data, const SzBlock* blocks,
                                                const u32* chunk_first_block,
                                                const u64* chunk_values, u32 chunks, u32 pw_rel,
                                                const u64* zz, const u8* exact, const u8* block_w,
                                                const u8* block_wb, const int* block_exp,
                                                const u64* slot_off, u8* slots, u64* out_len,
                                                u64* exceptions) {
    sz_fast_assemble<u32>(data, blocks, chunk_first_block, chunk_values, chunks, pw_rel, zz, exact,
                          block_w, block_wb, block_exp, slot_off, slots, out_len, exceptions);
}

extern "C" __global__ void sz_fast_assemble_f64(const u64* data, const SzBlock* blocks,
                                                const u32* chunk_first_block,
                                                const u64* chunk_values, u32 chunks, u32 pw_rel,
                                                const u64* zz, const u8* exact, const u8* block_w,
                                                const u8* block_wb, const int* block_exp,
                                                const u64* slot_off, u8* slots, u64* out_len,
                                                u64* exceptions) {
    sz_fast_assemble<u64>(data, blocks, chunk_first_block, chunk_values, chunks, pw_rel, zz, exact,
                          block_w, block_wb, block_exp, slot_off, slots, out_len, exceptions);
}
