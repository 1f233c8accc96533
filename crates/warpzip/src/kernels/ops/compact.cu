// Compressstore (stream compaction, `ops::compact`): keep the values whose mask bit is set, in
// order. The mask is packed (bit i = byte i/8, bit i%8, least significant first) or one byte per
// flag (nonzero keeps). Each block owns one tile of COMPACT_THREADS * VECS 16-byte vectors of
// values (VECS = COMPACT_VECS, or COMPACT_VECS_WIDE for the `_wide` entry points). A tile loads its mask, loads only the value vectors that hold a kept
// element, ranks the kept elements with popcounts, learns where its output starts (single pass:
// decoupled look-back over the tile counts; three pass: a scanned count array), places the kept
// elements contiguously in shared memory, and writes them out with aligned 16-byte stores.
// Patterned masks (a period of p flags) need no scan: every output's source is computed.
#include "framework/common.cuh"

#define COMPACT_THREADS 256
#define COMPACT_VECS 4
#define COMPACT_VECS_WIDE 8
#define COMPACT_WARPS (COMPACT_THREADS / 32)
// Bits of the `align` argument: the pointer is 16-byte aligned.
#define COMPACT_ALIGN_VALUES 1u
#define COMPACT_ALIGN_OUT 2u
#define COMPACT_ALIGN_MASK 4u
// Warps (one tile each) per block of the count kernel.
#define COMPACT_COUNT_WARPS 8
#define COMPACT_PATTERN_THREADS 256
#define COMPACT_STAGE_UNROLL 4  // vectors each thread loads before storing them to shared memory

// Component i (a compile-time constant after unrolling) of a vector.
__device__ __forceinline__ u32 compact_word(const uint4& q, int i) {
    return i == 0 ? q.x : (i == 1 ? q.y : (i == 2 ? q.z : q.w));
}

// Element j of a 16-byte vector of T, and its inverse on four words; j is always a compile-time
// constant (unrolled loops), so the vectors stay in registers.
template <typename T>
__device__ __forceinline__ T compact_get(const uint4& q, int j);
template <>
__device__ __forceinline__ u8 compact_get<u8>(const uint4& q, int j) {
    return (u8)(compact_word(q, j >> 2) >> ((j & 3) * 8));
}
template <>
__device__ __forceinline__ u16 compact_get<u16>(const uint4& q, int j) {
    return (u16)(compact_word(q, j >> 1) >> ((j & 1) * 16));
}
template <>
__device__ __forceinline__ u32 compact_get<u32>(const uint4& q, int j) {
    return compact_word(q, j);
}
template <>
__device__ __forceinline__ u64 compact_get<u64>(const uint4& q, int j) {
    return (u64)compact_word(q, 2 * j) | ((u64)compact_word(q, 2 * j + 1) << 32);
}

template <typename T>
__device__ __forceinline__ void compact_put(u32 (&w)[4], int j, T x);
template <>
__device__ __forceinline__ void compact_put<u8>(u32 (&w)[4], int j, u8 x) {
    w[j >> 2] |= (u32)x << ((j & 3) * 8);
}
template <>
__device__ __forceinline__ void compact_put<u16>(u32 (&w)[4], int j, u16 x) {
    w[j >> 1] |= (u32)x << ((j & 1) * 16);
}
template <>
__device__ __forceinline__ void compact_put<u32>(u32 (&w)[4], int j, u32 x) {
    w[j] = x;
}
template <>
__device__ __forceinline__ void compact_put<u64>(u32 (&w)[4], int j, u64 x) {
    w[2 * j] = (u32)x;
    w[2 * j + 1] = (u32)(x >> 32);
}

// Loads only the elements of a vector whose bit in `bits` is set (the rest read as zero): used
// where a whole-vector load could leave the array or is misaligned.
template <typename T>
__device__ __forceinline__ uint4 compact_load_selected(const T* p, u32 bits) {
    constexpr int PER_VEC = 16 / sizeof(T);
    u32 w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int j = 0; j < PER_VEC; j++) {
        if ((bits >> j) & 1u) compact_put<T>(w, j, p[j]);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

// Bits of mask word `w` of a tile that lie before the end of the input (`rem` elements left).
__device__ __forceinline__ u32 compact_valid_bits(u32 w, u64 rem) {
    const u64 base = (u64)w * 32u;
    if (base + 32u <= rem) return 0xffffffffu;
    if (base >= rem) return 0u;
    return (1u << (u32)(rem - base)) - 1u;
}

// One bit per byte of x: bit b set when byte b is nonzero.
__device__ __forceinline__ u32 compact_nonzero4(u32 x) {
    const u32 ne = __vcmpne4(x, 0u);
    return ((ne >> 7) & 1u) | ((ne >> 14) & 2u) | ((ne >> 21) & 4u) | ((ne >> 28) & 8u);
}

// Staging vectors are XOR-swizzled inside each 128-byte row so that a warp writing a dense run
// (lane l at vector ~l) spreads over all banks; reads of 32 consecutive vectors stay
// conflict-free. Needs the staging array rounded up to whole rows of 8 vectors.
__device__ __forceinline__ u32 compact_swz(u32 v) { return v ^ ((v >> 3) & 7u); }

// Loads tile `tile`'s mask as packed words into `words` (bits at or past n cleared).
template <typename T, int VECS, bool FLAGS>
__device__ __forceinline__ void compact_load_mask(const u8* __restrict__ mask, u64 mask_len, u64 n,
                                                  u64 start, bool full_tile, u32 align,
                                                  u32* words) {
    constexpr u32 PER_VEC = 16 / sizeof(T);
    constexpr u32 TILE = COMPACT_THREADS * VECS * PER_VEC;
    constexpr u32 WORDS = TILE / 32;
    const u32 t = threadIdx.x;
    const u64 rem = n - start;
    if (!FLAGS) {
        const u64 mbyte = start / 8;  // a multiple of 16: TILE is a multiple of 128
        if (full_tile && (align & COMPACT_ALIGN_MASK)) {
            const uint4* src = reinterpret_cast<const uint4*>(mask + mbyte);
            for (u32 i = t; i < WORDS / 4; i += COMPACT_THREADS)
                reinterpret_cast<uint4*>(words)[i] = __ldcs(src + i);
        } else {
            for (u32 w = t; w < WORDS; w += COMPACT_THREADS) {
                u32 x = 0;
#pragma unroll
                for (u32 b = 0; b < 4; b++) {
                    const u64 at = mbyte + 4u * w + b;
                    if (at < mask_len) x |= (u32)mask[at] << (8u * b);
                }
                words[w] = x & compact_valid_bits(w, rem);
            }
        }
    } else {
        // 16 flags per thread and step; two neighbouring lanes make one word. FVECS is a
        // multiple of 32, so every lane of a warp takes part in every step (full-mask shuffle).
        constexpr u32 FVECS = TILE / 16;
        const bool vec = full_tile && (align & COMPACT_ALIGN_MASK);
        for (u32 i = t; i < FVECS; i += COMPACT_THREADS) {
            u32 bits = 0;
            if (vec) {
                const uint4 q = __ldcs(reinterpret_cast<const uint4*>(mask + start) + i);
                bits = compact_nonzero4(q.x) | (compact_nonzero4(q.y) << 4) |
                       (compact_nonzero4(q.z) << 8) | (compact_nonzero4(q.w) << 12);
            } else {
#pragma unroll
                for (u32 b = 0; b < 16; b++) {
                    const u64 e = 16u * (u64)i + b;
                    if (e < rem && start + e < mask_len && mask[start + e] != 0) bits |= 1u << b;
                }
            }
            const u32 upper = __shfl_down_sync(WZ_FULL_MASK, bits, 1);
            if ((i & 1u) == 0) words[i >> 1] = bits | (upper << 16);
        }
    }
}

// A three-pass tile with at most TILE / COMPACT_SPARSE_DIV kept elements skips shared memory:
// every warp ranks the whole tile from the mask in registers and writes its share directly.
#define COMPACT_SPARSE_DIV 16

// The tile's packed mask, lane-blocked: lane l holds words l * WPL ... l * WPL + WPL - 1 (the
// whole warp reads the tile's mask; the block's other warps hit the same lines in L1).
template <u32 WPL>
__device__ __forceinline__ void compact_load_mask_lane(const u8* __restrict__ mask, u32 (&mw)[WPL]) {
    if constexpr (WPL % 4 == 0) {
        const uint4* src = reinterpret_cast<const uint4*>(mask) + wz_lane() * (WPL / 4);
#pragma unroll
        for (u32 k = 0; k < WPL / 4; k++) {
            const uint4 q = __ldg(src + k);
            mw[4 * k] = q.x;
            mw[4 * k + 1] = q.y;
            mw[4 * k + 2] = q.z;
            mw[4 * k + 3] = q.w;
        }
    } else {
        static_assert(WPL == 2, "2, 4, 8 or 16 mask words per lane");
        const uint2 q = __ldg(reinterpret_cast<const uint2*>(mask) + wz_lane());
        mw[0] = q.x;
        mw[1] = q.y;
    }
}

// Bits [lo, hi) of a lane's range that fall in its word i, as a mask of that word.
__device__ __forceinline__ u32 compact_range_bits(u32 i, u32 lo, u32 hi) {
    const u32 a = max(lo, 32u * i), b = min(hi, 32u * i + 32u);
    if (a >= b) return 0u;
    return (u32)((1ull << (b - 32u * i)) - (1ull << (a - 32u * i)));
}

// Sparse tile (whole, mask in registers as WPL words per lane): lane l owns elements
// l * 32 * WPL ... of the tile, warp w the w-th of COMPACT_WARPS equal parts of each lane's
// range. Ranks come from a warp scan of the lanes' popcounts (every warp computes the same);
// each kept element is loaded and stored on its own, which is all a sparse tile needs.
template <typename T, u32 WPL>
__device__ __forceinline__ void compact_sparse_tile(const T* __restrict__ tile_values,
                                                    const u32 (&mw)[WPL], T* __restrict__ out,
                                                    u64 prefix, u64 capacity) {
    constexpr u32 SUB = WPL * 32 / COMPACT_WARPS;
    const u32 lane = wz_lane();
    const u32 lo = (threadIdx.x >> 5) * SUB, hi = lo + SUB;
    u32 pc = 0, below = 0;
#pragma unroll
    for (u32 i = 0; i < WPL; i++) {
        pc += __popc(mw[i]);
        below += __popc(mw[i] & compact_range_bits(i, 0u, lo));
    }
    u64 g = prefix + (wz_warp_inclusive_sum<u32>(pc) - pc) + below;
    const T* src = tile_values + (u64)lane * 32u * WPL;
#pragma unroll
    for (u32 i = 0; i < WPL; i++) {
        u32 sel = mw[i] & compact_range_bits(i, lo, hi);
        while (sel) {
            const u32 b = __ffs(sel) - 1;
            sel &= sel - 1u;
            if (g < capacity) out[g] = src[32u * i + b];
            g++;
        }
    }
}

// One tile of the select. SINGLE: the tile's output offset comes from a decoupled look-back
// (tile ids handed out in launch order by `tile_counter`); otherwise from `offsets[tile]`, the
// exclusive scan of the count kernel's results. Writes never reach `capacity` or beyond.
template <typename T, int VECS, bool FLAGS, bool SINGLE>
__device__ __forceinline__ void compact_select_tile(
    const T* __restrict__ values, u64 n, const u8* __restrict__ mask, u64 mask_len,
    T* __restrict__ out, u64 capacity, u32* tile_counter, u64* lb_status,
    const u64* __restrict__ offsets, const u64* __restrict__ counts, u64* total_out,
    u32 num_tiles, u32 align) {
    constexpr u32 PER_VEC = 16 / sizeof(T);
    constexpr u32 NVEC = COMPACT_THREADS * VECS;
    constexpr u32 TILE = NVEC * PER_VEC;
    constexpr u32 WORDS = TILE / 32;
    constexpr u32 WPT = (WORDS + COMPACT_THREADS - 1) / COMPACT_THREADS;
    constexpr u32 VEC_BITS = (PER_VEC >= 32) ? 0xffffffffu : ((1u << PER_VEC) - 1u);

    __shared__ __align__(16) u32 s_words[WORDS];
    __shared__ u32 s_word_prefix[WORDS];
    // One spare vector for the alignment shift, rounded up to a whole row for the swizzle.
    __shared__ __align__(16) uint4 s_stage[NVEC + 8];
    __shared__ u32 s_warp_totals[COMPACT_WARPS];
    __shared__ u32 s_tile;
    __shared__ u64 s_tile_prefix;

    const u32 t = threadIdx.x;
    const u32 lane = wz_lane();
    const u32 warp = t >> 5;

    // Packed masks of whole tiles are read with 16-byte loads, one vector per thread or fewer.
    // The single pass fetches tile blockIdx.x's mask while the tile-counter atomic is in flight
    // (ids come out in launch order nearly always) and fetches again only when they differ.
    constexpr u32 MASK_VECS = WORDS / 4;
    static_assert(MASK_VECS <= COMPACT_THREADS, "one mask vector per thread at most");
    const bool mask_vec = !FLAGS && (align & COMPACT_ALIGN_MASK);
    const u8* mask_at = mask;  // as a tile index: mask + tile * TILE / 8
    uint4 mvec = make_uint4(0u, 0u, 0u, 0u);
    bool mask_staged = false;  // three pass: s_words already written from the lanes' copies
    u64 tile_offset = 0;       // three pass: offsets[tile]
    u32 tile;
    if (SINGLE) {
        if (t == 0) s_tile = atomicAdd(tile_counter, 1u);
        const bool guess_full = n - (u64)blockIdx.x * TILE >= TILE;
        if (mask_vec && guess_full && t < MASK_VECS)
            mvec = __ldcs(reinterpret_cast<const uint4*>(mask_at + (u64)blockIdx.x * (TILE / 8)) + t);
        __syncthreads();
        tile = s_tile;
        if (tile != blockIdx.x && mask_vec && t < MASK_VECS && n - (u64)tile * TILE >= TILE)
            mvec = __ldcs(reinterpret_cast<const uint4*>(mask_at + (u64)tile * (TILE / 8)) + t);
    } else {
        tile = blockIdx.x;
        // The tile's offset and count are known before anything is read (the count kernel and
        // the scan ran first): their loads go out together with the mask's, an empty tile
        // reads no values, and a sparse one takes the path without shared memory.
        tile_offset = offsets[tile];
        const u64 tile_count = counts[tile];
        const bool whole = n - (u64)tile * TILE >= TILE;
        if (!FLAGS && whole && mask_vec && WORDS >= 64) {
            u32 mw[WORDS / 32];
            compact_load_mask_lane<WORDS / 32>(mask_at + (u64)tile * (TILE / 8), mw);
            if (tile_count == 0) return;
            if (tile_count * COMPACT_SPARSE_DIV <= TILE) {
                compact_sparse_tile<T, WORDS / 32>(values + (u64)tile * TILE, mw, out,
                                                   tile_offset, capacity);
                return;
            }
            if (warp == 0) {
#pragma unroll
                for (u32 i = 0; i < WORDS / 32; i++) s_words[lane * (WORDS / 32) + i] = mw[i];
            }
            mask_staged = true;
        } else if (tile_count == 0) {
            return;
        } else if (mask_vec && t < MASK_VECS && whole) {
            mvec = __ldcs(reinterpret_cast<const uint4*>(mask_at + (u64)tile * (TILE / 8)) + t);
        }
    }
    const u64 start = (u64)tile * TILE;
    const bool full_tile = n - start >= TILE;

    if (mask_staged) {
        // written above by warp 0
    } else if (mask_vec && full_tile) {
        if (t < MASK_VECS) reinterpret_cast<uint4*>(s_words)[t] = mvec;
    } else {
        compact_load_mask<T, VECS, FLAGS>(mask, mask_len, n, start, full_tile, align, s_words);
    }
    __syncthreads();

    // Each thread's vectors, striped: vector v = k * THREADS + t covers elements
    // start + v * PER_VEC ... + PER_VEC - 1. Vectors without a kept element are never read.
    const bool vec_values = (align & COMPACT_ALIGN_VALUES) != 0;
    uint4 vals[VECS];
    u32 nib[VECS];
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        const u32 v = (u32)k * COMPACT_THREADS + t;
        const u32 b = v * PER_VEC;
        nib[k] = (s_words[b >> 5] >> (b & 31u)) & VEC_BITS;
    }
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        vals[k] = make_uint4(0u, 0u, 0u, 0u);
        if (nib[k]) {
            const u64 e0 = start + (u64)((u32)k * COMPACT_THREADS + t) * PER_VEC;
            if (vec_values && e0 + PER_VEC <= n)
                vals[k] = __ldcs(reinterpret_cast<const uint4*>(values + e0));
            else
                vals[k] = compact_load_selected<T>(values + e0, nib[k]);  // kept => e0 + j < n
        }
    }

    // Exclusive prefix of the word popcounts: the rank of the tile's first kept element in
    // each word. The block total is the tile's count.
    u32 wc[WPT];
    u32 mine = 0;
#pragma unroll
    for (u32 i = 0; i < WPT; i++) {
        const u32 w = t * WPT + i;
        wc[i] = (w < WORDS) ? __popc(s_words[w]) : 0u;
        mine += wc[i];
    }
    const u32 incl = wz_warp_inclusive_sum<u32>(mine);
    if (lane == 31) s_warp_totals[warp] = incl;
    __syncthreads();
    u32 before = 0;
    u32 count = 0;
#pragma unroll
    for (u32 w = 0; w < COMPACT_WARPS; w++) {
        const u32 x = s_warp_totals[w];
        if (w < warp) before += x;
        count += x;
    }
    u32 excl = before + incl - mine;
#pragma unroll
    for (u32 i = 0; i < WPT; i++) {
        const u32 w = t * WPT + i;
        if (w < WORDS) s_word_prefix[w] = excl;
        excl += wc[i];
    }

    // Where the tile's output starts.
    if (SINGLE) {
        if (warp == 0) {
            u64 prefix = 0;
            if (tile == 0) {
                if (lane == 0) {
                    wz_lookback_publish_word<WZ_LB_SHIFT_WIDE, true>(
                        lb_status, 0, count, WZ_LB_INCLUSIVE);
                }
            } else {
                if (lane == 0) {
                    wz_lookback_publish_word<WZ_LB_SHIFT_WIDE, true>(
                        lb_status, tile, count, WZ_LB_AGGREGATE);
                }
                prefix = wz_lookback_word_warp<u64, WZ_LB_SHIFT_WIDE, 0>(lb_status, tile);
                if (lane == 0) {
                    wz_lookback_publish_word<WZ_LB_SHIFT_WIDE, true>(
                        lb_status, tile, prefix + count, WZ_LB_INCLUSIVE);
                }
            }
            if (lane == 0) {
                s_tile_prefix = prefix;
                if (tile == num_tiles - 1) *total_out = prefix + count;
            }
        }
    } else if (t == 0) {
        s_tile_prefix = tile_offset;
    }
    __syncthreads();
    if (count == 0) return;  // block-uniform
    const u64 prefix = s_tile_prefix;
    const bool vec_out = (align & COMPACT_ALIGN_OUT) != 0;

    // Every element kept and the output 16-byte aligned: a plain copy from registers.
    if (count == TILE && vec_out && prefix % PER_VEC == 0 && prefix + TILE <= capacity) {
        uint4* dst = reinterpret_cast<uint4*>(out + prefix);
#pragma unroll
        for (int k = 0; k < VECS; k++) __stcs(dst + (u32)k * COMPACT_THREADS + t, vals[k]);
        return;
    }

    // Stage the kept elements contiguously, shifted so that staging vector v maps onto the
    // aligned global vector holding output element prefix - shift + v * PER_VEC.
    const u32 shift = vec_out ? (u32)(prefix % PER_VEC) : 0u;
    T* stage = reinterpret_cast<T*>(s_stage);
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        if (nib[k]) {
            const u32 b = ((u32)k * COMPACT_THREADS + t) * PER_VEC;
            const u32 word = s_words[b >> 5];
            u32 s = shift + s_word_prefix[b >> 5] + __popc(word & ((1u << (b & 31u)) - 1u));
#pragma unroll
            for (int j = 0; j < (int)PER_VEC; j++) {
                if ((nib[k] >> j) & 1u) {
                    stage[compact_swz(s / PER_VEC) * PER_VEC + s % PER_VEC] = compact_get<T>(vals[k], j);
                    s++;
                }
            }
        }
    }
    __syncthreads();

    const u64 base = prefix - shift;
    const u64 lo = prefix;
    const u64 hi = (prefix + count < capacity) ? prefix + count : capacity;
    const u32 nv = (shift + count + PER_VEC - 1) / PER_VEC;
    for (u32 v = t; v < nv; v += COMPACT_THREADS) {
        const u64 g0 = base + (u64)v * PER_VEC;
        const uint4 q = s_stage[compact_swz(v)];
        if (vec_out && g0 >= lo && g0 + PER_VEC <= hi) {
            __stcs(reinterpret_cast<uint4*>(out + g0), q);
        } else {
#pragma unroll
            for (int j = 0; j < (int)PER_VEC; j++) {
                const u64 g = g0 + j;
                if (g >= lo && g < hi) out[g] = compact_get<T>(q, j);
            }
        }
    }
}

// Kept elements of each tile of `tile_elems` elements, for the three-pass select. One warp per
// tile; the counts match the select kernel's own (same masking of bits at or past n).
template <bool FLAGS>
__device__ __forceinline__ void compact_count_tiles(const u8* __restrict__ mask, u64 mask_len,
                                                    u64 n, u32 tile_elems, u64* counts,
                                                    u32 num_tiles, u32 align) {
    const u32 lane = wz_lane();
    const u32 tile = blockIdx.x * COMPACT_COUNT_WARPS + (threadIdx.x >> 5);
    if (tile >= num_tiles) return;  // whole warps leave together
    const u64 start = (u64)tile * tile_elems;
    const u64 rem = n - start;
    const bool full = rem >= tile_elems;
    const bool vec = full && (align & COMPACT_ALIGN_MASK);
    u32 c = 0;
    if (!FLAGS) {
        const u32 words = tile_elems / 32;
        const u64 mbyte = start / 8;
        if (vec) {
            const uint4* src = reinterpret_cast<const uint4*>(mask + mbyte);
            for (u32 i = lane; i < words / 4; i += 32) {
                const uint4 q = __ldg(src + i);
                c += __popc(q.x) + __popc(q.y) + __popc(q.z) + __popc(q.w);
            }
        } else {
            for (u32 w = lane; w < words; w += 32) {
                u32 x = 0;
#pragma unroll
                for (u32 b = 0; b < 4; b++) {
                    const u64 at = mbyte + 4u * w + b;
                    if (at < mask_len) x |= (u32)mask[at] << (8u * b);
                }
                c += __popc(x & compact_valid_bits(w, rem));
            }
        }
    } else {
        if (vec) {
            const uint4* src = reinterpret_cast<const uint4*>(mask + start);
            for (u32 i = lane; i < tile_elems / 16; i += 32) {
                const uint4 q = __ldg(src + i);
                c += __popc(compact_nonzero4(q.x) | (compact_nonzero4(q.y) << 4) |
                            (compact_nonzero4(q.z) << 8) | (compact_nonzero4(q.w) << 12));
            }
        } else {
            const u64 len = full ? (u64)tile_elems : rem;
            for (u64 e = lane; e < len; e += 32) {
                if (start + e < mask_len && mask[start + e] != 0) c++;
            }
        }
    }
    c = wz_warp_sum<u32>(c);
    if (lane == 0) counts[tile] = c;
}

// Patterned mask of period `period` with `ones` kept positions `sel[0..ones)`: output o comes
// from input (o / ones) * period + sel[o % ones]. Each thread makes whole 16-byte output
// vectors (warps write full lines); the quotient and remainder advance by the grid stride
// (adv_q, adv_r = stride outputs / ones, % ones) without dividing again.
template <typename T>
__device__ __forceinline__ void compact_pattern_gather(const T* __restrict__ values,
                                                       const u32* __restrict__ sel, u32 ones,
                                                       u32 period, T* __restrict__ out, u64 count,
                                                       u64 adv_q, u32 adv_r, u32 align) {
    constexpr u32 PER_VEC = 16 / sizeof(T);
    const u64 nvec = (count + PER_VEC - 1) / PER_VEC;
    const u64 stride = (u64)gridDim.x * COMPACT_PATTERN_THREADS;
    u64 v = (u64)blockIdx.x * COMPACT_PATTERN_THREADS + threadIdx.x;
    if (v >= nvec) return;
    const bool vec_out = (align & COMPACT_ALIGN_OUT) != 0;
    u64 q = (v * PER_VEC) / ones;
    u64 r = (v * PER_VEC) % ones;  // 64-bit: r + adv_r may pass 2^32 for huge periods
    for (; v < nvec; v += stride) {
        const u64 o0 = v * PER_VEC;
        const bool whole = o0 + PER_VEC <= count;
        u32 w[4] = {0u, 0u, 0u, 0u};
        u64 qq = q;
        u32 rr = (u32)r;
#pragma unroll
        for (int j = 0; j < (int)PER_VEC; j++) {
            if (whole || o0 + j < count) {
                const u64 src = qq * period + __ldg(sel + rr);
                compact_put<T>(w, j, __ldg(values + src));
            }
            if (++rr == ones) {
                rr = 0;
                qq++;
            }
        }
        const uint4 res = make_uint4(w[0], w[1], w[2], w[3]);
        if (vec_out && whole) {
            __stcs(reinterpret_cast<uint4*>(out + o0), res);
        } else {
#pragma unroll
            for (int j = 0; j < (int)PER_VEC; j++) {
                if (o0 + j < count) out[o0 + j] = compact_get<T>(res, j);
            }
        }
        q += adv_q;
        r += adv_r;
        if (r >= ones) {
            r -= ones;
            q++;
        }
    }
}

// Staged pattern gather, for short periods that keep a good share of their elements: a block
// makes COMPACT_PATTERN_THREADS output vectors. It loads the input span they come from with
// coalesced 16-byte loads (only the 64-byte groups that hold a kept element: `need[r]` bit k
// says that positions r .. r + 2^(k+1) - 1 of the period, cyclically, keep one) into shared memory,
// padded by one word every 32 so that outputs a fixed stride apart in the input sit in
// different banks, then every thread gathers its output vector from there and stores it whole.
// The host sizes the dynamic shared memory for the largest span (compact_pattern_span_words).
__device__ __forceinline__ u32 compact_pad(u32 w) { return w + (w >> 5); }

template <typename T>
__device__ __forceinline__ T compact_stage_get(const u32* s, u32 e);
template <>
__device__ __forceinline__ u8 compact_stage_get<u8>(const u32* s, u32 e) {
    return (u8)(s[compact_pad(e >> 2)] >> ((e & 3u) * 8u));
}
template <>
__device__ __forceinline__ u16 compact_stage_get<u16>(const u32* s, u32 e) {
    return (u16)(s[compact_pad(e >> 1)] >> ((e & 1u) * 16u));
}
template <>
__device__ __forceinline__ u32 compact_stage_get<u32>(const u32* s, u32 e) {
    return s[compact_pad(e)];
}
template <>
__device__ __forceinline__ u64 compact_stage_get<u64>(const u32* s, u32 e) {
    return (u64)s[compact_pad(2u * e)] | ((u64)s[compact_pad(2u * e + 1u)] << 32);
}

template <typename T>
__device__ __forceinline__ void compact_pattern_staged(const T* __restrict__ values, u64 n,
                                                       const u32* __restrict__ sel,
                                                       const u8* __restrict__ need, u32 ones,
                                                       u32 period, T* __restrict__ out,
                                                       u64 count, u32 align) {
    constexpr u32 PER_VEC = 16 / sizeof(T);
    // DRAM moves 64-byte blocks: a vector is loaded when its aligned 64-byte group (4 vectors,
    // 4 * PER_VEC elements) keeps an element, so a warp's loads stay contiguous wherever the
    // memory would fetch the bytes anyway.
    constexpr u32 NEED_BIT = PER_VEC == 2 ? 2 : (PER_VEC == 4 ? 3 : (PER_VEC == 8 ? 4 : 5));
    constexpr u32 OUT_PER_BLOCK = COMPACT_PATTERN_THREADS * PER_VEC;
    extern __shared__ u32 s_span[];
    const u32 t = threadIdx.x;
    const u64 o0 = (u64)blockIdx.x * OUT_PER_BLOCK;
    if (o0 >= count) return;  // block-uniform
    const u64 o_last = min(o0 + OUT_PER_BLOCK, count) - 1u;
    const u64 first = (o0 / ones) * period + __ldg(sel + (u32)(o0 % ones));
    const u64 last = (o_last / ones) * period + __ldg(sel + (u32)(o_last % ones));
    const u64 v_lo = first / PER_VEC;
    const u32 nv = (u32)(last / PER_VEC - v_lo + 1u);
    const bool vec_in = (align & COMPACT_ALIGN_VALUES) != 0;

    // Vector v of the span starts at element (v_lo + v) * PER_VEC, position r of the period.
    // Threads step by a multiple of 4 vectors, so a thread's place in its 64-byte group (and
    // the distance back to the group's start) never changes. Loads go in batches of
    // COMPACT_STAGE_UNROLL so that each thread keeps several in flight.
    u32 r = (u32)(((v_lo + t) * PER_VEC) % period);
    const u32 step = (COMPACT_PATTERN_THREADS * PER_VEC) % period;
    const u32 off = (u32)((v_lo + t) & 3u) * PER_VEC % period;
    for (u32 v0 = t; v0 < nv; v0 += COMPACT_PATTERN_THREADS * COMPACT_STAGE_UNROLL) {
        uint4 q[COMPACT_STAGE_UNROLL];
        bool got[COMPACT_STAGE_UNROLL];
#pragma unroll
        for (u32 u = 0; u < COMPACT_STAGE_UNROLL; u++) {
            const u32 v = v0 + u * COMPACT_PATTERN_THREADS;
            const u32 rg = r >= off ? r - off : r + period - off;
            got[u] = v < nv && ((__ldg(need + rg) >> NEED_BIT) & 1u);
            if (got[u]) {
                const u64 e0 = (v_lo + v) * PER_VEC;
                if (vec_in && e0 + PER_VEC <= n) {
                    q[u] = __ldcs(reinterpret_cast<const uint4*>(values) + v_lo + v);
                } else {
                    u32 w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
                    for (u32 j = 0; j < PER_VEC; j++)
                        if (e0 + j < n) compact_put<T>(w, j, values[e0 + j]);
                    q[u] = make_uint4(w[0], w[1], w[2], w[3]);
                }
            }
            r += step;
            if (r >= period) r -= period;
        }
#pragma unroll
        for (u32 u = 0; u < COMPACT_STAGE_UNROLL; u++) {
            if (got[u]) {
                const u32 v = v0 + u * COMPACT_PATTERN_THREADS;
                s_span[compact_pad(4u * v)] = q[u].x;
                s_span[compact_pad(4u * v + 1u)] = q[u].y;
                s_span[compact_pad(4u * v + 2u)] = q[u].z;
                s_span[compact_pad(4u * v + 3u)] = q[u].w;
            }
        }
    }
    __syncthreads();

    const u64 o = o0 + (u64)t * PER_VEC;
    if (o > o_last) return;
    const u64 base = v_lo * PER_VEC;
    u64 q = o / ones;
    u32 rr = (u32)(o % ones);
    u32 w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (u32 j = 0; j < PER_VEC; j++) {
        if (o + j <= o_last) {
            const u64 src = q * period + __ldg(sel + rr) - base;
            compact_put<T>(w, j, compact_stage_get<T>(s_span, (u32)src));
        }
        if (++rr == ones) {
            rr = 0;
            q++;
        }
    }
    const uint4 res = make_uint4(w[0], w[1], w[2], w[3]);
    if ((align & COMPACT_ALIGN_OUT) && o + PER_VEC <= count) {
        __stcs(reinterpret_cast<uint4*>(out + o), res);
    } else {
#pragma unroll
        for (u32 j = 0; j < PER_VEC; j++)
            if (o + j < count) out[o + j] = compact_get<T>(res, j);
    }
}

// Entry points. f32 and f64 use the u32 and u64 kernels: compaction moves bits.
#define COMPACT_SELECT_ENTRY(NAME, T, VECS, FLAGS, SINGLE)                                       \
    extern "C" __global__ void __launch_bounds__(COMPACT_THREADS) NAME(                          \
        const T* values, u64 n, const u8* mask, u64 mask_len, T* out, u64 capacity,              \
        u32* tile_counter, u64* lb_status, const u64* offsets, const u64* counts,                \
        u64* total_out, u32 num_tiles, u32 align) {                                              \
        compact_select_tile<T, VECS, FLAGS, SINGLE>(values, n, mask, mask_len, out, capacity,    \
                                                    tile_counter, lb_status, offsets, counts,    \
                                                    total_out, num_tiles, align);                \
    }

#define COMPACT_TYPE_ENTRIES(T)                                                                \
    COMPACT_SELECT_ENTRY(compact_select_bits_##T, T, COMPACT_VECS, false, true)               \
    COMPACT_SELECT_ENTRY(compact_select_flags_##T, T, COMPACT_VECS, true, true)               \
    COMPACT_SELECT_ENTRY(compact_select_bits_wide_##T, T, COMPACT_VECS_WIDE, false, true)     \
    COMPACT_SELECT_ENTRY(compact_select_flags_wide_##T, T, COMPACT_VECS_WIDE, true, true)     \
    COMPACT_SELECT_ENTRY(compact_writeout_bits_##T, T, COMPACT_VECS, false, false)            \
    COMPACT_SELECT_ENTRY(compact_writeout_flags_##T, T, COMPACT_VECS, true, false)            \
    extern "C" __global__ void __launch_bounds__(COMPACT_PATTERN_THREADS) compact_pattern_##T( \
        const T* values, const u32* sel, u32 ones, u32 period, T* out, u64 count, u64 adv_q,   \
        u32 adv_r, u32 align) {                                                                \
        compact_pattern_gather<T>(values, sel, ones, period, out, count, adv_q, adv_r, align);  \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(COMPACT_PATTERN_THREADS)                      \
        compact_pattern_staged_##T(const T* values, u64 n, const u32* sel, const u8* need,      \
                                   u32 ones, u32 period, T* out, u64 count, u32 align) {        \
        compact_pattern_staged<T>(values, n, sel, need, ones, period, out, count, align);       \
    }

COMPACT_TYPE_ENTRIES(u8)
COMPACT_TYPE_ENTRIES(u16)
COMPACT_TYPE_ENTRIES(u32)
COMPACT_TYPE_ENTRIES(u64)

extern "C" __global__ void __launch_bounds__(COMPACT_COUNT_WARPS * 32)
    compact_count_bits(const u8* mask, u64 mask_len, u64 n, u32 tile_elems, u64* counts,
                       u32 num_tiles, u32 align) {
    compact_count_tiles<false>(mask, mask_len, n, tile_elems, counts, num_tiles, align);
}

extern "C" __global__ void __launch_bounds__(COMPACT_COUNT_WARPS * 32)
    compact_count_flags(const u8* mask, u64 mask_len, u64 n, u32 tile_elems, u64* counts,
                        u32 num_tiles, u32 align) {
    compact_count_tiles<true>(mask, mask_len, n, tile_elems, counts, num_tiles, align);
}

// Benchmark probe, not part of any select: reads the first `read_vecs` 16-byte vectors of every
// group of `group_vecs` (one group per thread, grid-stride), so that `bench --codec select` can
// see what reading half of the 32-byte sectors costs next to reading all of them (the memory's
// access granularity, which the sector-counting roofline assumes to be 32 bytes).
extern "C" __global__ void compact_probe_read(const uint4* __restrict__ in, u64 groups,
                                              u32 group_vecs, u32 read_vecs, u32* sink) {
    u32 acc = 0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x; g < groups; g += stride) {
        for (u32 k = 0; k < read_vecs; k++) {
            const uint4 q = __ldcs(in + g * group_vecs + k);
            acc ^= q.x ^ q.y ^ q.z ^ q.w;
        }
    }
    if (acc == 0x9e3779b9u) *sink = acc;  // never true on the bench's data; keeps the loads
}
