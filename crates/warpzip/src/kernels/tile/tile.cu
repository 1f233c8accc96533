// Tile-based integer decoding (codecs `for`, `dfor`, `rfor`, `tile`: codec/tile/format.rs and
// docs/format.md). One record a tile of up to 512 values; a thread block of 128 threads decodes
// TILE_PER_BLOCK tiles one after another. A tile's words are staged in shared memory; thread 0
// walks its header and the blocks of its FOR streams (at most four blocks a stream), checking
// every width and length and turning the widths into miniblock offsets by a prefix sum; then
// every thread unpacks four values with 64-bit windows over the staged words. DFOR adds a
// block-wide inclusive scan of the deltas; RFOR scans the run lengths and each output value
// finds its run by a binary search over the run ends. The faults and their order are the CPU
// decoder's (cpu.rs), so a damaged tile gets the same verdict on either.
#include "tile/tile_decode.cuh"

#define TILE_THREADS 128
#define TILE_PER_BLOCK 4

template <typename T, u32 BITS>
__device__ void tile_decode(const u8* __restrict__ in, const TileRecord* __restrict__ recs,
                            u32 count, T* __restrict__ out, u32* __restrict__ status,
                            u32 allowed, u64 flip) {
    __shared__ u32 s_words[TILE_MAX_WORDS + TILE_STAGE_SLACK];
    __shared__ T s_vals[TILE_VALUES];
    __shared__ u32 s_ends[TILE_VALUES];
    __shared__ TileFor s_for[2];
    __shared__ T s_warp_t[TILE_THREADS / 32];
    __shared__ u32 s_warp_u[TILE_THREADS / 32];
    __shared__ u32 s_fault, s_scheme, s_runs, s_bad_len;
    __shared__ u64 s_base;
    const u32 tid = threadIdx.x;
    for (u32 k = 0; k < TILE_PER_BLOCK; ++k) {
        u32 ti = blockIdx.x * TILE_PER_BLOCK + k;
        if (ti >= count) break;
        TileRecord rec = recs[ti];
        const u32 nwords = rec.in_words;
        const u32 staged = nwords < TILE_MAX_WORDS ? nwords : TILE_MAX_WORDS;
        const u32* src = (const u32*)(in + rec.in_offset);
        for (u32 i = tid; i < staged + TILE_STAGE_SLACK; i += TILE_THREADS)
            s_words[i] = i < staged ? src[i] : 0u;
        if (tid == 0) s_bad_len = 0u;
        __syncthreads();
        const u32 n = rec.count;
        if (tid == 0) {
            u32 fault = 0u;
            u32 pos = 1u;
            u32 header = s_words[0];
            u32 scheme = header & 0xffu;
            u32 runs = header >> 8;
            if (scheme > TILE_SCHEME_RFOR) {
                fault = TILE_FAULT_BAD_HEADER;
            } else if (((allowed >> scheme) & 1u) == 0u) {
                fault = TILE_FAULT_SCHEME_NOT_ALLOWED;
            } else if (scheme == TILE_SCHEME_RFOR) {
                if (runs == 0u || runs > n) fault = TILE_FAULT_BAD_RUN_COUNT;
                if (!fault) fault = tile_parse_for(s_words, nwords, &pos, runs, BITS, &s_for[0]);
                if (!fault) fault = tile_parse_for(s_words, nwords, &pos, runs, 32u, &s_for[1]);
            } else if (runs != 0u) {
                fault = TILE_FAULT_BAD_HEADER;
            } else {
                if (scheme == TILE_SCHEME_DFOR) {
                    if (pos + BITS / 32u > nwords) {
                        fault = TILE_FAULT_TRUNCATED;
                    } else {
                        u64 base = s_words[pos];
                        if (BITS == 64u) base |= (u64)s_words[pos + 1] << 32;
                        pos += BITS / 32u;
                        s_base = base;
                    }
                }
                if (!fault) fault = tile_parse_for(s_words, nwords, &pos, n, BITS, &s_for[0]);
            }
            if (!fault && pos != nwords) fault = TILE_FAULT_TRAILING_WORDS;
            s_fault = fault;
            s_scheme = scheme;
            s_runs = runs;
        }
        __syncthreads();
        if (s_fault != 0u) {
            if (tid == 0) status[ti] = s_fault;
            continue;
        }
        T* dst = out + rec.out_offset;
        const u32 scheme = s_scheme;
        if (scheme == TILE_SCHEME_FOR) {
            for (u32 j = tid; j < n; j += TILE_THREADS)
                dst[j] = (T)tile_get(&s_for[0], s_words, j) ^ (T)flip;
        } else if (scheme == TILE_SCHEME_DFOR) {
            for (u32 j = tid; j < n; j += TILE_THREADS) s_vals[j] = (T)tile_get(&s_for[0], s_words, j);
            __syncthreads();
            tile_block_scan<T>(s_vals, n, s_warp_t);
            const T base = (T)s_base;
            for (u32 j = tid; j < n; j += TILE_THREADS) dst[j] = (T)(base + s_vals[j]) ^ (T)flip;
        } else {
            const u32 runs = s_runs;
            for (u32 j = tid; j < runs; j += TILE_THREADS) {
                s_vals[j] = (T)tile_get(&s_for[0], s_words, j);
                u32 len = (u32)tile_get(&s_for[1], s_words, j);
                if (len == 0u || len > n) s_bad_len = 1u;
                s_ends[j] = len;
            }
            __syncthreads();
            tile_block_scan<u32>(s_ends, runs, s_warp_u);
            if (s_bad_len != 0u || s_ends[runs - 1u] != n) {
                if (tid == 0) status[ti] = TILE_FAULT_BAD_RUN_LENGTHS;
                __syncthreads();
                continue;
            }
            for (u32 j = tid; j < n; j += TILE_THREADS) {
                // The run holding j: the first whose end is past j.
                u32 lo = 0u, hi = runs - 1u;
                while (lo < hi) {
                    u32 mid = (lo + hi) >> 1;
                    if (s_ends[mid] > j) hi = mid; else lo = mid + 1u;
                }
                dst[j] = s_vals[lo] ^ (T)flip;
            }
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(TILE_THREADS)
tile_decode_u32(const u8* __restrict__ in, const TileRecord* __restrict__ recs, u32 count,
                u32* __restrict__ out, u32* __restrict__ status, u32 allowed, u64 flip) {
    tile_decode<u32, 32u>(in, recs, count, out, status, allowed, flip);
}

extern "C" __global__ void __launch_bounds__(TILE_THREADS)
tile_decode_u64(const u8* __restrict__ in, const TileRecord* __restrict__ recs, u32 count,
                u64* __restrict__ out, u32* __restrict__ status, u32 allowed, u64 flip) {
    tile_decode<u64, 64u>(in, recs, count, out, status, allowed, flip);
}

// ---------------------------------------------------------------------------------------------
// The encoder: the CPU encoder's bytes (cpu.rs), a tile a thread block at a time. A first launch
// (write = 0) sizes every allowed scheme of each tile and keeps the smallest (ties: FOR, DFOR,
// RFOR), writing its word count and scheme; the host lays the chunks out (tile tables, padding)
// and a second launch (write = 1) writes each tile's words at its place. Per miniblock, one
// warp finds the minimum and the largest offset by shuffles; every output word is packed by one
// thread from the values whose bits it holds.
// ---------------------------------------------------------------------------------------------

struct TileEncRecord {
    u64 in_value;  // the tile's first value in the input
    u32 count;     // its values, 1..=512
    u32 pad;
    u64 out_word;  // where its words go (second launch)
};

struct TileForPlan {
    u64 ref[4];
    u32 width[16];
    u32 off[16];  // word of each miniblock, from the stream's first word
    u32 head[4];  // word of each block's reference
    u32 words;
};

__device__ __forceinline__ u32 tile_bit_width(u64 x) { return x ? 64u - (u32)__clzll((i64)x) : 0u; }

template <typename E>
__device__ __forceinline__ u64 tile_warp_min(u64 v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        u64 o = __shfl_xor_sync(WZ_FULL_MASK, v, d);
        v = o < v ? o : v;
    }
    return v;
}

__device__ __forceinline__ u64 tile_warp_max(u64 v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        u64 o = __shfl_xor_sync(WZ_FULL_MASK, v, d);
        v = o > v ? o : v;
    }
    return v;
}

// Plans a FOR stream of a[0..m) (`bits` wide): references (the smallest value, in two's
// complement order when `signed_ref`), miniblock widths and offsets. All threads call it.
template <typename E>
__device__ void tile_plan_for(const E* a, u32 m, u32 bits, bool signed_ref, TileForPlan* p,
                              u64* s_min) {
    const u32 lane = wz_lane(), warp = threadIdx.x >> 5;
    const u64 mask = bits == 64u ? ~0ull : ((1ull << bits) - 1ull);
    const u64 sign = 1ull << (bits - 1u);
    const u64 key_flip = signed_ref ? sign : 0ull;
    for (u32 mi = warp; mi < 16u; mi += TILE_THREADS / 32u) {
        u32 j = mi * 32u + lane;
        u64 key = j < m ? (((u64)a[j] & mask) ^ key_flip) : ~0ull;
        key = tile_warp_min<E>(key);
        if (lane == 0) s_min[mi] = key;
    }
    __syncthreads();
    if (threadIdx.x < 4u) {
        u32 b = threadIdx.x;
        u64 r = 0;
        if (b * 128u < m) {
            u64 k = s_min[b * 4u];
            for (u32 i = 1; i < 4u; ++i) k = s_min[b * 4u + i] < k ? s_min[b * 4u + i] : k;
            r = k ^ key_flip;
        }
        p->ref[b] = r;
    }
    __syncthreads();
    for (u32 mi = warp; mi < 16u; mi += TILE_THREADS / 32u) {
        u32 j = mi * 32u + lane;
        u64 x = j < m ? (((u64)a[j] - p->ref[mi >> 2]) & mask) : 0ull;
        x = tile_warp_max(x);
        if (lane == 0) p->width[mi] = tile_bit_width(x);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        u32 pos = 0;
        u32 blocks = (m + 127u) / 128u;
        for (u32 b = 0; b < 4u; ++b) {
            p->head[b] = pos;
            if (b >= blocks) {
                for (u32 i = 0; i < 4u; ++i) p->off[b * 4u + i] = pos;
                continue;
            }
            pos += bits / 32u + 1u;
            for (u32 i = 0; i < 4u; ++i) {
                p->off[b * 4u + i] = pos;
                pos += p->width[b * 4u + i];
            }
        }
        p->words = pos;
    }
    __syncthreads();
}

// Writes a planned FOR stream of a[0..m) at out[0..p->words).
template <typename E>
__device__ void tile_emit_for(const E* a, u32 m, u32 bits, const TileForPlan* p, u32* out) {
    const u64 mask = bits == 64u ? ~0ull : ((1ull << bits) - 1ull);
    const u32 blocks = (m + 127u) / 128u;
    if (threadIdx.x < blocks) {
        u32 b = threadIdx.x;
        u32 h = p->head[b];
        out[h] = (u32)p->ref[b];
        if (bits == 64u) out[h + 1] = (u32)(p->ref[b] >> 32);
        out[h + bits / 32u] = p->width[b * 4u] | (p->width[b * 4u + 1] << 8) |
                              (p->width[b * 4u + 2] << 16) | (p->width[b * 4u + 3] << 24);
    }
    for (u32 q = threadIdx.x; q < p->words; q += TILE_THREADS) {
        u32 mi = 16u;
        for (u32 i = 0; i < 16u; ++i)
            if (p->width[i] != 0u && q >= p->off[i] && q < p->off[i] + p->width[i]) mi = i;
        if (mi == 16u) continue;  // a reference or widths word
        const u32 w = p->width[mi];
        const u64 r = p->ref[mi >> 2];
        const u32 lo = (q - p->off[mi]) * 32u;
        u32 j0 = lo / w, j1 = (lo + 31u) / w;
        if (j1 > 31u) j1 = 31u;
        u32 word = 0;
        for (u32 j = j0; j <= j1; ++j) {
            u32 idx = mi * 32u + j;
            u64 x = idx < m ? (((u64)a[idx] - r) & mask) : 0ull;
            u32 s = j * w;
            if (s >= lo) word |= (u32)(x << (s - lo));
            else word |= (u32)(x >> (lo - s));
        }
        out[q] = word;
    }
}

template <typename T, u32 BITS>
__device__ void tile_encode(const T* __restrict__ in, const TileEncRecord* __restrict__ recs,
                            u32 count, u32 allowed, u64 flip, u32* __restrict__ plan_out,
                            u32* __restrict__ out, u32 write) {
    __shared__ T s_v[TILE_VALUES];
    __shared__ T s_a[TILE_VALUES];
    __shared__ u32 s_u[TILE_VALUES];
    __shared__ u32 s_len[TILE_VALUES];
    __shared__ TileForPlan s_p[2];
    __shared__ u64 s_min[16];
    __shared__ u32 s_warp_u[TILE_THREADS / 32];
    __shared__ u64 s_base;
    __shared__ u32 s_best_words, s_best_scheme;
    const u32 tid = threadIdx.x;
    const u32 RW = BITS / 32u;
    for (u32 k = 0; k < TILE_PER_BLOCK; ++k) {
        u32 ti = blockIdx.x * TILE_PER_BLOCK + k;
        if (ti >= count) break;
        const TileEncRecord rec = recs[ti];
        const u32 n = rec.count;
        for (u32 j = tid; j < n; j += TILE_THREADS) s_v[j] = in[rec.in_value + j] ^ (T)flip;
        if (tid == 0) {
            s_best_words = 0xffffffffu;
            s_best_scheme = 0u;
        }
        __syncthreads();
        u32 todo = write ? (1u << plan_out[2u * ti + 1u]) : allowed;
        u32* dst = out + rec.out_word;
        if (todo & (1u << TILE_SCHEME_FOR)) {
            tile_plan_for<T>(s_v, n, BITS, false, &s_p[0], s_min);
            if (write) {
                if (tid == 0) dst[0] = TILE_SCHEME_FOR;
                tile_emit_for<T>(s_v, n, BITS, &s_p[0], dst + 1);
            } else if (tid == 0 && 1u + s_p[0].words < s_best_words) {
                s_best_words = 1u + s_p[0].words;
                s_best_scheme = TILE_SCHEME_FOR;
            }
            __syncthreads();
        }
        if (todo & (1u << TILE_SCHEME_DFOR)) {
            for (u32 j = tid; j < n; j += TILE_THREADS) s_a[j] = j ? (T)(s_v[j] - s_v[j - 1]) : (T)0;
            __syncthreads();
            if (tid == 0) {
                const T sign = (T)1 << (BITS - 1u);
                T first = 0;
                u32 end = n < 128u ? n : 128u;
                if (end > 1u) {
                    T key = (T)(s_a[1] ^ sign);
                    for (u32 j = 2; j < end; ++j) key = (T)(s_a[j] ^ sign) < key ? (T)(s_a[j] ^ sign) : key;
                    first = key ^ sign;
                }
                s_a[0] = first;
                s_base = (u64)(T)(s_v[0] - first);
            }
            __syncthreads();
            tile_plan_for<T>(s_a, n, BITS, true, &s_p[0], s_min);
            if (write) {
                if (tid == 0) {
                    dst[0] = TILE_SCHEME_DFOR;
                    dst[1] = (u32)s_base;
                    if (BITS == 64u) dst[2] = (u32)(s_base >> 32);
                }
                tile_emit_for<T>(s_a, n, BITS, &s_p[0], dst + 1 + RW);
            } else if (tid == 0 && 1u + RW + s_p[0].words < s_best_words) {
                s_best_words = 1u + RW + s_p[0].words;
                s_best_scheme = TILE_SCHEME_DFOR;
            }
            __syncthreads();
        }
        if (todo & (1u << TILE_SCHEME_RFOR)) {
            for (u32 j = tid; j < TILE_VALUES; j += TILE_THREADS)
                s_u[j] = j < n && (j == 0 || s_v[j] != s_v[j - 1]) ? 1u : 0u;
            __syncthreads();
            tile_block_scan<u32>(s_u, n, s_warp_u);
            const u32 runs = s_u[n - 1u];
            // s_len first holds each run's start, then its length.
            for (u32 j = tid; j < n; j += TILE_THREADS) {
                if (j == 0 || s_v[j] != s_v[j - 1]) {
                    u32 r = s_u[j] - 1u;
                    s_a[r] = s_v[j];
                    s_len[r] = j;
                }
            }
            __syncthreads();
            u32 mine[4];
            for (u32 q = 0; q < 4u; ++q) {
                u32 r = tid + q * TILE_THREADS;
                mine[q] = r < runs ? ((r + 1u < runs ? s_len[r + 1u] : n) - s_len[r]) : 0u;
            }
            __syncthreads();
            for (u32 q = 0; q < 4u; ++q) {
                u32 r = tid + q * TILE_THREADS;
                if (r < runs) s_len[r] = mine[q];
            }
            __syncthreads();
            tile_plan_for<T>(s_a, runs, BITS, false, &s_p[0], s_min);
            tile_plan_for<u32>(s_len, runs, 32u, false, &s_p[1], s_min);
            const u32 words = 1u + s_p[0].words + s_p[1].words;
            if (write) {
                if (tid == 0) dst[0] = TILE_SCHEME_RFOR | (runs << 8);
                tile_emit_for<T>(s_a, runs, BITS, &s_p[0], dst + 1);
                tile_emit_for<u32>(s_len, runs, 32u, &s_p[1], dst + 1 + s_p[0].words);
            } else if (tid == 0 && words < s_best_words) {
                s_best_words = words;
                s_best_scheme = TILE_SCHEME_RFOR;
            }
            __syncthreads();
        }
        if (!write && tid == 0) {
            plan_out[2u * ti] = s_best_words;
            plan_out[2u * ti + 1u] = s_best_scheme;
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(TILE_THREADS)
tile_encode_u32(const u32* __restrict__ in, const TileEncRecord* __restrict__ recs, u32 count,
                u32 allowed, u64 flip, u32* __restrict__ plan, u32* __restrict__ out, u32 write) {
    tile_encode<u32, 32u>(in, recs, count, allowed, flip, plan, out, write);
}

extern "C" __global__ void __launch_bounds__(TILE_THREADS)
tile_encode_u64(const u64* __restrict__ in, const TileEncRecord* __restrict__ recs, u32 count,
                u32 allowed, u64 flip, u32* __restrict__ plan, u32* __restrict__ out, u32 write) {
    tile_encode<u64, 64u>(in, recs, count, allowed, flip, plan, out, write);
}
