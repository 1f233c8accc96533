// Device-wide exclusive prefix sum in one pass (decoupled look-back). The default kernels
// (`scan_tile_striped`) keep each warp's run of the tile in registers, warp-striped, so loads
// and stores are coalesced without shared-memory staging; each row of 32 vectors is scanned
// across the warp with shuffles, the block combines its warps' totals, and warp 0 looks back
// for the tile's prefix. `scan_tile` is the earlier staged design (coalesced 16-byte loads into
// shared memory, a per-thread serial scan of a blocked run), kept as tuning variants.
#include "framework/common.cuh"


// Pads one 16-byte vector after every 8, so that both the striped and the blocked accesses are
// free of bank conflicts.
__device__ __forceinline__ u32 scan_pad(u32 v) { return v + (v >> 3); }

// The tile's look-back, by one whole warp: publishes the tile's aggregate, finds the sum of
// every earlier tile, publishes the inclusive prefix, and (lane 0) leaves the tile's exclusive
// prefix in `*tile_prefix` and, for the last tile, the grand total in `*total_out`. PACKED
// keeps flag and 32-bit value in one 64-bit word per tile (`flags` then holds two words a tile),
// stored relaxed: a reader that sees the flag sees the value in the same single-copy-atomic word,
// and it needs nothing else the tile wrote, so no release fence is paid (on an H200 the fences
// cost the u32 scan 7 points of the roofline beside the L2 prefetch).
template <typename T, bool PACKED>
__device__ __forceinline__ void scan_tile_lookback(u32* flags, T* aggregate, T* inclusive,
                                                   u32 tile, T block_total, bool last,
                                                   T* total_out, T* tile_prefix) {
    const u32 lane = wz_lane();
    T prefix = 0;
    if constexpr (PACKED) {
        u64* status = reinterpret_cast<u64*>(flags);
        if (tile == 0) {
            if (lane == 0) {
                wz_lookback_publish_word<WZ_LB_SHIFT_U32, false>(status, 0, (u32)block_total,
                                                                WZ_LB_INCLUSIVE);
            }
        } else {
            if (lane == 0) {
                wz_lookback_publish_word<WZ_LB_SHIFT_U32, false>(status, tile, (u32)block_total,
                                                                WZ_LB_AGGREGATE);
            }
            prefix = (T)wz_lookback_word_warp<u32, WZ_LB_SHIFT_U32, 0>(status, tile);
            if (lane == 0) {
                wz_lookback_publish_word<WZ_LB_SHIFT_U32, false>(
                    status, tile, (u32)(prefix + block_total), WZ_LB_INCLUSIVE);
            }
        }
    } else if (tile == 0) {
        if (lane == 0) wz_lookback_publish<T>(flags, inclusive, 0, block_total, WZ_LB_INCLUSIVE);
    } else {
        if (lane == 0) wz_lookback_publish<T>(flags, aggregate, tile, block_total, WZ_LB_AGGREGATE);
        prefix = wz_lookback_warp<T>(flags, aggregate, inclusive, tile);
        if (lane == 0)
            wz_lookback_publish<T>(flags, inclusive, tile, prefix + block_total, WZ_LB_INCLUSIVE);
    }
    if (lane == 0) {
        *tile_prefix = prefix;
        if (last) *total_out = prefix + block_total;
    }
}

// PACKED: one 64-bit status word per tile (32-bit values only; `flags` then holds 2 words per
// tile). ORDERED: the tile is blockIdx.x (blocks start in index order on every CUDA GPU, as
// CUB also assumes) instead of a ticket from an atomic counter.
template <typename T, int THREADS, int VECS, bool PACKED = false, bool ORDERED = false>
__device__ __forceinline__ void scan_tile(const T* __restrict__ in, T* __restrict__ out, u64 n,
                                          u32* tile_counter, u32* flags, T* aggregate,
                                          T* inclusive, T* total_out, int vector_ok) {
    constexpr int PER_VEC = 16 / sizeof(T);
    constexpr int ITEMS = VECS * PER_VEC;
    constexpr u32 TILE = THREADS * ITEMS;
    constexpr int NVEC = THREADS * VECS;
    __shared__ uint4 smem[NVEC + NVEC / 8];
    __shared__ T warp_totals[THREADS / 32];
    __shared__ T tile_prefix;
    __shared__ u32 tile_id;

    u32 tile;
    if constexpr (ORDERED) {
        tile = blockIdx.x;
    } else {
        if (threadIdx.x == 0) tile_id = atomicAdd(tile_counter, 1u);
        __syncthreads();
        tile = tile_id;
    }
    const u64 start = (u64)tile * TILE;
    const bool full = vector_ok && start + TILE <= n;
    T* sm = reinterpret_cast<T*>(smem);

    // Load, striped (coalesced), into shared memory.
    if (full) {
        const uint4* src = reinterpret_cast<const uint4*>(in + start);
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            u32 v = k * THREADS + threadIdx.x;
            smem[scan_pad(v)] = __ldcs(src + v);
        }
    } else {
        for (u32 i = threadIdx.x; i < TILE; i += THREADS) {
            u32 v = i / PER_VEC;
            T x = (start + i < n) ? in[start + i] : (T)0;
            sm[scan_pad(v) * PER_VEC + (i % PER_VEC)] = x;
        }
    }
    __syncthreads();

    // Each thread owns ITEMS consecutive elements (VECS consecutive vectors).
    T items[ITEMS];
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        uint4 q = smem[scan_pad(threadIdx.x * VECS + k)];
        const T* e = reinterpret_cast<const T*>(&q);
#pragma unroll
        for (int j = 0; j < PER_VEC; j++) items[k * PER_VEC + j] = e[j];
    }
    T thread_sum = 0;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        T x = items[i];
        items[i] = thread_sum;  // exclusive within the thread
        thread_sum += x;
    }

    // Block scan of the thread totals.
    const u32 lane = wz_lane();
    const u32 warp = threadIdx.x >> 5;
    T incl = wz_warp_inclusive_sum<T>(thread_sum);
    if (lane == 31) warp_totals[warp] = incl;
    __syncthreads();
    T warp_prefix = 0;
    T block_total = 0;
#pragma unroll
    for (u32 w = 0; w < THREADS / 32; w++) {
        T t = warp_totals[w];
        if (w < warp) warp_prefix += t;
        block_total += t;
    }
    T thread_prefix = warp_prefix + incl - thread_sum;

    // Look-back across tiles, by warp 0.
    if (warp == 0)
        scan_tile_lookback<T, PACKED>(flags, aggregate, inclusive, tile, block_total,
                                      start + TILE >= n, total_out, &tile_prefix);
    __syncthreads();
    const T base = tile_prefix + thread_prefix;

    // Back through shared memory for coalesced stores.
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        uint4 q;
        T* e = reinterpret_cast<T*>(&q);
#pragma unroll
        for (int j = 0; j < PER_VEC; j++) e[j] = base + items[k * PER_VEC + j];
        smem[scan_pad(threadIdx.x * VECS + k)] = q;
    }
    __syncthreads();
    if (full) {
        uint4* dst = reinterpret_cast<uint4*>(out + start);
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            u32 v = k * THREADS + threadIdx.x;
            __stcs(dst + v, smem[scan_pad(v)]);
        }
    } else {
        for (u32 i = threadIdx.x; i < TILE; i += THREADS) {
            if (start + i < n) out[start + i] = sm[scan_pad(i / PER_VEC) * PER_VEC + (i % PER_VEC)];
        }
    }
}

// The same scan without staging through shared memory: each warp owns a contiguous run of
// 32 * VECS vectors of the tile and keeps it warp-striped in registers (lane l holds vectors
// l, l + 32, ...), so loads and stores are coalesced straight from and to registers. Every row
// of 32 vectors is scanned across the warp with shuffles (the VECS rows' shuffles are
// independent, so they overlap), a running carry chains the rows, and only the warps' totals
// and the tile's prefix go through shared memory.
//
// PREFETCH: after its own loads, the block asks L2 to prefetch the tile that the block one wave
// later (the number of SMs further on; one block fits an SM) will load, so that block's loads
// meet L2 instead of memory (on an H200 the u64 scan went from 68% to 72.5% of the roofline, the
// u32 scan from 75% to 81.5% with its relaxed status stores, and not at all with release
// stores; two waves ahead, or with the evict-last policy, was no better).
template <typename T, int THREADS, int VECS, bool PACKED, bool PREFETCH = false>
__device__ __forceinline__ void scan_tile_striped(const T* __restrict__ in, T* __restrict__ out,
                                                  u64 n, u32* flags, T* aggregate, T* inclusive,
                                                  T* total_out, int vector_ok) {
    constexpr int PER_VEC = 16 / sizeof(T);
    constexpr u32 WARP_ITEMS = 32u * VECS * PER_VEC;
    constexpr u32 TILE = THREADS * VECS * PER_VEC;
    constexpr int WARPS = THREADS / 32;
    __shared__ T warp_totals[WARPS];
    __shared__ T tile_prefix;

    const u32 tile = blockIdx.x;
    const u32 lane = wz_lane();
    const u32 warp = threadIdx.x >> 5;
    const u64 start = (u64)tile * TILE;
    const u64 wstart = start + (u64)warp * WARP_ITEMS;
    const bool full = vector_ok && start + TILE <= n;

    uint4 q[VECS];
    if (full) {
        const uint4* src = reinterpret_cast<const uint4*>(in + wstart);
#pragma unroll
        for (int k = 0; k < VECS; k++) q[k] = __ldcs(src + k * 32 + lane);
    } else {
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            T* e = reinterpret_cast<T*>(&q[k]);
            const u64 at = wstart + ((u64)k * 32 + lane) * PER_VEC;
#pragma unroll
            for (int j = 0; j < PER_VEC; j++) e[j] = (at + j < n) ? in[at + j] : (T)0;
        }
    }
    if constexpr (PREFETCH) {
        u32 nsm;
        asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
        const u64 ahead = start + (u64)nsm * TILE;
        constexpr u32 LINES = TILE * sizeof(T) / 128u;
        if (ahead + TILE <= n) {
            const char* base = reinterpret_cast<const char*>(in + ahead);
            for (u32 l = threadIdx.x; l < LINES; l += THREADS) {
                asm volatile("prefetch.global.L2 [%0];" ::"l"(base + (u64)l * 128u));
            }
        }
    }

    // Within each vector: exclusive sums in place, the vector's total aside.
    T vsum[VECS];
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        T* e = reinterpret_cast<T*>(&q[k]);
        T acc = 0;
#pragma unroll
        for (int j = 0; j < PER_VEC; j++) {
            T x = e[j];
            e[j] = acc;
            acc += x;
        }
        vsum[k] = acc;
    }
    // Across the warp, row by row: vsum[k] becomes the exclusive prefix of vector k within the
    // warp's run.
    T incl[VECS];
#pragma unroll
    for (int k = 0; k < VECS; k++) incl[k] = vsum[k];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            T o = __shfl_up_sync(WZ_FULL_MASK, incl[k], d);
            if ((int)lane >= d) incl[k] += o;
        }
    }
    T carry = 0;
#pragma unroll
    for (int k = 0; k < VECS; k++) {
        const T row_total = __shfl_sync(WZ_FULL_MASK, incl[k], 31);
        vsum[k] = carry + incl[k] - vsum[k];
        carry += row_total;
    }
    if (lane == 0) warp_totals[warp] = carry;
    __syncthreads();
    T warp_prefix = 0;
    T block_total = 0;
#pragma unroll
    for (int w = 0; w < WARPS; w++) {
        T t = warp_totals[w];
        if (w < (int)warp) warp_prefix += t;
        block_total += t;
    }

    if (warp == 0)
        scan_tile_lookback<T, PACKED>(flags, aggregate, inclusive, tile, block_total,
                                      start + TILE >= n, total_out, &tile_prefix);
    __syncthreads();
    const T base = tile_prefix + warp_prefix;

#pragma unroll
    for (int k = 0; k < VECS; k++) {
        T* e = reinterpret_cast<T*>(&q[k]);
        const T b = base + vsum[k];
#pragma unroll
        for (int j = 0; j < PER_VEC; j++) e[j] += b;
    }
    if (full) {
        uint4* dst = reinterpret_cast<uint4*>(out + wstart);
#pragma unroll
        for (int k = 0; k < VECS; k++) __stcs(dst + k * 32 + lane, q[k]);
    } else {
#pragma unroll
        for (int k = 0; k < VECS; k++) {
            const T* e = reinterpret_cast<const T*>(&q[k]);
            const u64 at = wstart + ((u64)k * 32 + lane) * PER_VEC;
#pragma unroll
            for (int j = 0; j < PER_VEC; j++)
                if (at + j < n) out[at + j] = e[j];
        }
    }
}

// Exclusive prefix sum of n u32 (wrapping): the shared-memory-free striped tile, 256 threads x
// 32 vectors (32768 values a tile), packed look-back status, tiles in block order, the next
// wave's tile prefetched to L2: the fastest variant of the sweep on an H200 (81.5% of the
// roofline; 73% without the prefetch, 70% for the best staged one).
// `flags` (two words per tile) must be zeroed.
#define SCAN_U32_THREADS 256
#define SCAN_U32_VECS 32
extern "C" __global__ void __launch_bounds__(SCAN_U32_THREADS)
    scan_exclusive_u32(const u32* __restrict__ in, u32* __restrict__ out, u64 n, u32* state,
                       u32* flags, u32* aggregate, u32* inclusive, u32* total_out, int vector_ok) {
    (void)state;
    scan_tile_striped<u32, SCAN_U32_THREADS, SCAN_U32_VECS, true, true>(
        in, out, n, flags, aggregate, inclusive, total_out, vector_ok);
}

// Exclusive prefix sum of n u64 (wrapping): striped, 256 threads x 32 vectors (16384 values a
// tile), flag and value in separate words, block order, the next wave's tile prefetched to L2
// (the sweep's fastest u64 variant).
#define SCAN_U64_THREADS 256
#define SCAN_U64_VECS 32
extern "C" __global__ void __launch_bounds__(SCAN_U64_THREADS)
    scan_exclusive_u64(const u64* __restrict__ in, u64* __restrict__ out, u64 n, u32* state,
                       u32* flags, u64* aggregate, u64* inclusive, u64* total_out, int vector_ok) {
    (void)state;
    scan_tile_striped<u64, SCAN_U64_THREADS, SCAN_U64_VECS, false, true>(
        in, out, n, flags, aggregate, inclusive, total_out, vector_ok);
}

// Tuning variants (threads x vectors per thread; _p packed status, _o block-ordered tiles), timed
// by `warpzip bench --codec scan-sweep` against the two defaults above.
#define SCAN_VARIANT(T, THREADS, VECS, PACKED, ORDERED, SUFFIX)                                \
    extern "C" __global__ void __launch_bounds__(THREADS)                                       \
        scan_variant_##T##_t##THREADS##_v##VECS##SUFFIX(                                        \
            const T* __restrict__ in, T* __restrict__ out, u64 n, u32* state, u32* flags,        \
            T* aggregate, T* inclusive, T* total_out, int vector_ok) {                          \
        scan_tile<T, THREADS, VECS, PACKED, ORDERED>(in, out, n, state, flags, aggregate,       \
                                                     inclusive, total_out, vector_ok);          \
    }
SCAN_VARIANT(u32, 128, 16, true, true, _po)
SCAN_VARIANT(u64, 256, 8, false, true, _o)
SCAN_VARIANT(u32, 256, 4, false, false, )
SCAN_VARIANT(u32, 256, 8, false, false, )
SCAN_VARIANT(u32, 256, 8, true, true, _po)
SCAN_VARIANT(u32, 128, 8, true, true, _po)
SCAN_VARIANT(u32, 512, 4, true, true, _po)
SCAN_VARIANT(u32, 256, 8, true, false, _p)
SCAN_VARIANT(u64, 128, 8, false, true, _o)
SCAN_VARIANT(u64, 256, 4, false, true, _o)
SCAN_VARIANT(u64, 256, 4, false, false, )

// Shared-memory-free variants (registers warp-striped, tiles in block order), suffix _s.
#define SCAN_STRIPED(T, THREADS, VECS, PACKED, SUFFIX)                                         \
    extern "C" __global__ void __launch_bounds__(THREADS)                                       \
        scan_variant_##T##_t##THREADS##_v##VECS##SUFFIX(                                        \
            const T* __restrict__ in, T* __restrict__ out, u64 n, u32* state, u32* flags,        \
            T* aggregate, T* inclusive, T* total_out, int vector_ok) {                          \
        (void)state;                                                                            \
        scan_tile_striped<T, THREADS, VECS, PACKED>(in, out, n, flags, aggregate, inclusive,    \
                                                    total_out, vector_ok);                      \
    }
SCAN_STRIPED(u32, 256, 8, true, _ps)
SCAN_STRIPED(u32, 256, 16, true, _ps)
SCAN_STRIPED(u32, 128, 32, true, _ps)
SCAN_STRIPED(u32, 256, 24, true, _ps)
SCAN_STRIPED(u32, 512, 16, true, _ps)
SCAN_STRIPED(u32, 64, 32, true, _ps)
SCAN_STRIPED(u32, 192, 32, true, _ps)
SCAN_STRIPED(u64, 256, 16, false, _s)
SCAN_STRIPED(u64, 128, 32, false, _s)

// The defaults without the L2 prefetch.
SCAN_STRIPED(u32, 256, 32, true, _ps)
SCAN_STRIPED(u64, 256, 32, false, _s)
