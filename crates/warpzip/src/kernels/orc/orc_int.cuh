// What every GPU decoder of ORC's integer encodings shares, whichever way it is parallelised
// (warp per chunk on the CODAG framework, or the block-per-chunk leader-thread ablation): the
// chunk descriptor, zigzag, the RLEv2 bit-width table, and the checks that narrow a decoded
// value into the output type. The semantics match `codec::orc_rle` on the CPU exactly: a value
// outside the stream's domain (i64 for a signed stream, u64 for an unsigned one) or outside the
// output type is CORRUPT.
#pragma once
#include "framework/common.cuh"

// One unit of work: decode the ORC integer stream that starts at `in_offset` of the input
// buffer, drop its first `skip` values, and write the next `count` values from element
// `out_offset` of the output on. With `exact == 1` (a `.wz` chunk) the stream must end exactly
// after `skip + count` values (more is OVERFLOW, fewer UNDERFLOW); with `exact == 0` (an ORC row
// group, whose stream runs on into the next group) decoding stops once `count` values are
// written and the input ending first is TRUNCATED. The layout matches `OrcRleChunk` in Rust.
struct OrcRleChunk {
    u64 in_offset;
    u32 in_len;
    u32 skip;
    u64 out_offset;
    u32 count;
    u32 exact;
};

typedef __int128 i128;

__device__ __forceinline__ i64 orc_unzigzag(u64 u) { return (i64)(u >> 1) ^ -(i64)(u & 1); }
// The same for a zigzag value of at most 32 bits: the signed value's 32 bits.
__device__ __forceinline__ u32 orc_unzigzag32(u32 u) { return (u >> 1) ^ (0u - (u & 1u)); }

// Bit width of a 5-bit RLEv2 width code: 0..23 are 1..24, then 26, 28, 30, 32, 40, 48, 56, 64.
__device__ __forceinline__ u32 orc_decode_width(u32 code) {
    code &= 31u;
    if (code < 24u) return code + 1u;
    // 24..27 step by 2 from 26; 28..31 step by 8 from 40.
    return code < 28u ? 26u + 2u * (code - 24u) : 40u + 8u * (code - 28u);
}

// Smallest table width holding `bits` bits (the width of PATCHED_BASE's patch-list entries).
__device__ __forceinline__ u32 orc_closest_fixed_width(u32 bits) {
    if (bits <= 24u) return bits < 1u ? 1u : bits;
    if (bits <= 32u) return (bits + 1u) & ~1u;
    return bits <= 64u ? (bits + 7u) & ~7u : 64u;
}

// Whether a stream value (its 64 bits: an i64 for a signed stream, a u64 for an unsigned one)
// fits the output type T of SIGNED-ness.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool orc_fits(u64 bits) {
    if (sizeof(T) == 8) return true;
    if (SIGNED) {
        const i64 v = (i64)bits;
        const i64 hi = (i64)((1ull << (8 * sizeof(T) - 1)) - 1ull);
        return v >= -hi - 1 && v <= hi;
    }
    return bits <= (u64)(T)(~(T)0);
}

// Whether a value that 32-bit arithmetic holds exactly (a short run's end) fits T.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool orc_fits32(int v) {
    if (SIGNED) {
        if (sizeof(T) >= 4) return true;
        // (The clamp only keeps the shift legal in the instantiations that returned above.)
        const int hi = (1 << (8 * (sizeof(T) < 4 ? sizeof(T) : 1) - 1)) - 1;
        return v >= -hi - 1 && v <= hi;
    }
    return v >= 0 && (sizeof(T) >= 4 || v <= (int)(T)(~(T)0));
}

// Whether a wide value (the result of base + delta arithmetic) lies in the stream's domain and
// fits T.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool orc_fits_wide(i128 v) {
    if (SIGNED) {
        if (v < -(i128)0x7fffffffffffffffll - 1 || v > (i128)0x7fffffffffffffffll) return false;
    } else {
        if (v < 0 || v > (i128)0xffffffffffffffffull) return false;
    }
    return orc_fits<T, SIGNED>((u64)v);
}

// Whether a run from the stream value `base` (its 64 bits) that moves by `d` in all stays in the
// stream's domain and fits T at both ends (so every value between does), as `orc_fits_wide` of
// both ends says, in 64-bit arithmetic.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool orc_run_fits(u64 base, i64 d) {
    bool in_domain;
    if (SIGNED) {
        const i64 b = (i64)base;
        in_domain = d >= 0 ? b <= 0x7fffffffffffffffll - d : b >= (-0x7fffffffffffffffll - 1) - d;
    } else {
        in_domain = d >= 0 ? base <= ~0ull - (u64)d : base >= 0ull - (u64)d;
    }
    return in_domain && orc_fits<T, SIGNED>(base) && orc_fits<T, SIGNED>(base + (u64)d);
}

// Whether `x` follows `prev` in a DELTA group's direction, compared as the stream's values (i64
// or u64). The steps all go one way, so a value that left the stream's domain wrapped around and
// shows up here as a step the wrong way.
template <bool SIGNED>
__device__ __forceinline__ bool orc_in_order(u64 prev, u64 x, bool dec) {
    if (SIGNED) return dec ? (i64)x <= (i64)prev : (i64)x >= (i64)prev;
    return dec ? x <= prev : x >= prev;
}

// The 7-bit groups of the first `n` (0..8) bytes of a little-endian word, packed: the value of
// an n-byte varint (0 for n = 0). The length mask is a select, not a branch on `n < 8` (the
// branch form cost the row groups' RLEv1 line numbers 2.5% on an H200).
__device__ __forceinline__ u64 lane_varint_bits(u64 le, u32 n) {
    u64 x = le & (n >= 8u ? ~0ull : (1ull << (8u * n)) - 1ull) & 0x7f7f7f7f7f7f7f7full;
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    return ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
}

// The same for `n` (0..4) bytes, in 32-bit arithmetic.
__device__ __forceinline__ u32 lane_varint_bits32(u32 le, u32 n) {
    u32 x = le & (n >= 4u ? ~0u : (1u << (8u * n)) - 1u) & 0x7f7f7f7fu;
    x = ((x & 0x7f007f00u) >> 1) | (x & 0x007f007fu);
    return ((x & 0x3fff0000u) >> 2) | (x & 0x00003fffu);
}

// A raw varint value as a stream value: zigzag decoded for a signed stream.
template <bool SIGNED>
__device__ __forceinline__ i128 orc_stream_value(u64 raw) {
    return SIGNED ? (i128)orc_unzigzag(raw) : (i128)raw;
}

// The entry points of one decoder family for every output type: `body` is a template
// `<typename T, bool SIGNED>` device function taking the common kernel arguments. `attr` goes
// before each entry's name (a `__launch_bounds__`, or nothing: ORC_INT_KERNELS); with
// ORC_INT_KERNELS_WITH64, the two kernels of 8-byte values take `attr64` instead.
#define ORC_INT_KERNELS_WITH64(attr, attr64, prefix, body)                                       \
    extern "C" __global__ void attr prefix##_i8(ORC_KERNEL_PARAMS) { body<u8, true>(ORC_KERNEL_ARGS); }   \
    extern "C" __global__ void attr prefix##_i16(ORC_KERNEL_PARAMS) { body<u16, true>(ORC_KERNEL_ARGS); } \
    extern "C" __global__ void attr prefix##_i32(ORC_KERNEL_PARAMS) { body<u32, true>(ORC_KERNEL_ARGS); } \
    extern "C" __global__ void attr64 prefix##_i64(ORC_KERNEL_PARAMS) { body<u64, true>(ORC_KERNEL_ARGS); } \
    extern "C" __global__ void attr prefix##_u8(ORC_KERNEL_PARAMS) { body<u8, false>(ORC_KERNEL_ARGS); }  \
    extern "C" __global__ void attr prefix##_u16(ORC_KERNEL_PARAMS) { body<u16, false>(ORC_KERNEL_ARGS); } \
    extern "C" __global__ void attr prefix##_u32(ORC_KERNEL_PARAMS) { body<u32, false>(ORC_KERNEL_ARGS); } \
    extern "C" __global__ void attr64 prefix##_u64(ORC_KERNEL_PARAMS) { body<u64, false>(ORC_KERNEL_ARGS); }
#define ORC_INT_KERNELS_WITH(attr, prefix, body) ORC_INT_KERNELS_WITH64(attr, attr, prefix, body)
#define ORC_INT_KERNELS(prefix, body) ORC_INT_KERNELS_WITH(, prefix, body)

// Arguments of every ORC integer kernel: the input bytes (the allocation padded to a multiple of
// 128 bytes, so whole aligned words around any chunk can be loaded), the chunks, the output
// array of T, one status per chunk, and a zeroed work counter for the persistent grid.
#define ORC_KERNEL_PARAMS                                                                      \
    const u8 *__restrict__ in, const OrcRleChunk *__restrict__ chunks, u32 n_chunks,           \
        void *__restrict__ out, u32 *__restrict__ status, u32 *__restrict__ next_chunk
#define ORC_KERNEL_ARGS in, chunks, n_chunks, out, status, next_chunk
