// Shared helpers of every warpzip kernel: fixed-width types, status codes, warp primitives and
// the decoupled look-back that single-pass scans use. NVRTC sees this text prepended to each
// kernel source, so it must not include system headers.
#pragma once

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;

#define WZ_FULL_MASK 0xffffffffu
#define WZ_WARP 32

// Chunk statuses; they match `ChunkStatus` on the Rust side.
#define WZ_STATUS_OK 0u
#define WZ_STATUS_TRUNCATED 1u
#define WZ_STATUS_CORRUPT 2u
#define WZ_STATUS_OVERFLOW 3u
#define WZ_STATUS_UNDERFLOW 4u
#define WZ_STATUS_BAD_DISTANCE 5u

__device__ __forceinline__ u32 wz_lane() { return threadIdx.x & 31u; }

// Memory-model-correct flag publication between thread blocks.
__device__ __forceinline__ void wz_store_release(u32* p, u32 v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ u32 wz_load_acquire(const u32* p) {
    u32 v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ u64 wz_load_relaxed_u64(const u64* p) {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ u32 wz_load_relaxed_u32(const u32* p) {
    u32 v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

template <typename T>
__device__ __forceinline__ T wz_warp_inclusive_sum(T v) {
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        T o = __shfl_up_sync(WZ_FULL_MASK, v, d);
        if ((int)wz_lane() >= d) v += o;
    }
    return v;
}

template <typename T>
__device__ __forceinline__ T wz_warp_sum(T v) {
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) v += __shfl_xor_sync(WZ_FULL_MASK, v, d);
    return v;
}

// Finding which of a warp's items (groups, tokens: each lane holds at most one, starting at a
// value index, the starts ascending over the lanes) covers each value of a 32-value window
// `b .. b + 31`. The starts inside the window, a bit each (bit r: value b + r), by one
// OR-reduction. Whole warp.
__device__ __forceinline__ u32 wz_window_starts(bool has, u32 start, u32 b) {
    const u32 rel = start - b;  // wraps above 31 for a start before the window
    return __reduce_or_sync(WZ_FULL_MASK, has && rel < 32u ? 1u << rel : 0u);
}

// How many of the window's `starts` are at or before value `lane` of the window.
__device__ __forceinline__ u32 wz_starts_upto(u32 starts, u32 lane) {
    return (u32)__popc(starts & (0xffffffffu >> (31u - lane)));
}

// The rank, among the lanes with `has`, of the item that covers value `b + lane`: those starting
// before the window (one ballot) and those in it at or before the value, less one. Callers that
// walk windows in order carry the first count instead (`+= __popc(starts)`). Whole warp.
__device__ __forceinline__ u32 wz_window_rank(bool has, u32 start, u32 b, u32 lane) {
    const u32 before = (u32)__popc(__ballot_sync(WZ_FULL_MASK, has && start < b));
    return before + wz_starts_upto(wz_window_starts(has, start, b), lane) - 1u;
}

// Decoupled look-back (Merrill & Garland, "Single-pass Parallel Prefix Scan with Decoupled
// Look-back"). Tile `t` publishes its own aggregate, then walks back over its predecessors'
// published values until it meets an inclusive prefix. `flags` must be zero before the launch.
// flag 1: `aggregate[t]` is valid; flag 2: `inclusive[t]` is valid.
#define WZ_LB_AGGREGATE 1u
#define WZ_LB_INCLUSIVE 2u

template <typename T>
__device__ __forceinline__ T wz_ld_value(const T* p);
template <>
__device__ __forceinline__ u32 wz_ld_value<u32>(const u32* p) { return wz_load_relaxed_u32(p); }
template <>
__device__ __forceinline__ u64 wz_ld_value<u64>(const u64* p) { return wz_load_relaxed_u64(p); }

template <typename T>
__device__ __forceinline__ void wz_lookback_publish(u32* flags, T* values, u32 tile, T v,
                                                    u32 flag) {
    values[tile] = v;
    wz_store_release(&flags[tile], flag);
}

// Called by one whole warp for tile `tile` > 0 after it published its aggregate; returns the
// exclusive prefix of the tile (the sum of all earlier tiles) in every lane.
template <typename T>
__device__ __forceinline__ T wz_lookback_warp(const u32* flags, const T* aggregate,
                                              const T* inclusive, u32 tile) {
    T exclusive = 0;
    long long base = (long long)tile - 1;
    while (true) {
        long long pred = base - (long long)wz_lane();
        u32 f = WZ_LB_INCLUSIVE;  // before tile 0: an inclusive prefix of zero
        if (pred >= 0) {
            do {
                f = wz_load_acquire(&flags[pred]);
            } while (f == 0);
        }
        u32 inc_mask = __ballot_sync(WZ_FULL_MASK, f == WZ_LB_INCLUSIVE);
        // The nearest predecessor holding an inclusive prefix is the lowest such lane.
        u32 stop = inc_mask ? (u32)(__ffs(inc_mask) - 1) : 32u;
        T v = 0;
        if (pred >= 0 && wz_lane() <= stop) {
            v = (f == WZ_LB_INCLUSIVE) ? wz_ld_value<T>(&inclusive[pred])
                                       : wz_ld_value<T>(&aggregate[pred]);
        }
        exclusive += wz_warp_sum<T>(v);
        if (inc_mask) break;
        base -= 32;
    }
    return exclusive;
}

// Look-back with the flag and the value packed in one 64-bit status word per tile, so that a
// predecessor's state is one load: the flag above bit SHIFT, the value below it. The scans use
// SHIFT 32 (a 32-bit value), compaction and the RLE encoder SHIFT 62 (byte offsets that can pass
// 4 GiB). RELEASE orders the publishing thread's earlier writes before the word; a reader only
// needs the value inside the word, so the RLE encoder publishes relaxed. With SLEEP_NS > 0 a
// lane waiting on a predecessor sleeps between polls instead of taking issue slots from warps
// that are still working. Polls are relaxed loads (an acquire load would invalidate the SM's L1
// on every poll). `status` must be zero before the launch.
#define WZ_LB_SHIFT_U32 32u
#define WZ_LB_SHIFT_WIDE 62u

template <u32 SHIFT, bool RELEASE>
__device__ __forceinline__ void wz_lookback_publish_word(u64* status, u32 tile, u64 v, u32 flag) {
    const u64 word = ((u64)flag << SHIFT) | (v & ((1ull << SHIFT) - 1ull));
    if (RELEASE) {
        asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(status + tile), "l"(word) : "memory");
    } else {
        asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(status + tile), "l"(word) : "memory");
    }
}

// Called by one whole warp for tile `tile` > 0 after it published its aggregate; returns the
// exclusive prefix of the tile (the sum of all earlier tiles) in every lane.
template <typename T, u32 SHIFT, u32 SLEEP_NS>
__device__ __forceinline__ T wz_lookback_word_warp(const u64* status, u32 tile) {
    T exclusive = 0;
    long long base = (long long)tile - 1;
    while (true) {
        const long long pred = base - (long long)wz_lane();
        u64 word = (u64)WZ_LB_INCLUSIVE << SHIFT;  // before tile 0: an inclusive prefix of zero
        if (pred >= 0) {
            word = wz_load_relaxed_u64(status + pred);
            while ((word >> SHIFT) == 0) {
                if (SLEEP_NS) __nanosleep(SLEEP_NS);
                word = wz_load_relaxed_u64(status + pred);
            }
        }
        const u32 inc_mask = __ballot_sync(WZ_FULL_MASK, (u32)(word >> SHIFT) == WZ_LB_INCLUSIVE);
        // The nearest predecessor holding an inclusive prefix is the lowest such lane.
        const u32 stop = inc_mask ? (u32)(__ffs(inc_mask) - 1) : 32u;
        const T v = (wz_lane() <= stop) ? (T)(word & ((1ull << SHIFT) - 1ull)) : (T)0;
        exclusive += wz_warp_sum<T>(v);
        if (inc_mask) break;
        base -= 32;
    }
    return exclusive;
}
