// Snappy and LZ4 raw blocks on the CODAG framework: one warp per block, a persistent grid. All
// 32 lanes parse the same tags together (reads through the framework's `CodagIn`, a 256-byte
// shared-memory window); a literal run is written 32 bytes a step (`write_literal`, each lane
// loading its own byte), a back-reference by the framework's `copy_back`. Every read is bounded
// by the block's length and every write by its capacity; an offset of 0 or one reaching before
// the block's output is BAD_DISTANCE.
//
// Snappy (the raw format, no framing): a varint of the uncompressed length, then elements whose
// tag's low two bits say: 0 a literal (length - 1 in the upper six bits, or for 60..63 in the
// next 1..4 bytes, little-endian), 1 a copy of 4..11 bytes at an 11-bit offset, 2 a copy of
// 1..64 bytes at a 16-bit offset, 3 the same at a 32-bit offset. The length must equal the
// block's recorded size.
// LZ4 (the block format): sequences of a token (literal length in the high nibble, match length
// - 4 in the low one, 15 meaning more in the following bytes up to one below 255), the
// literals, a 16-bit little-endian offset and the match; the last sequence ends after its
// literals.
//
// Results per block (3 words): status (WZ_STATUS_*), bytes written, bytes consumed.
#include "framework/codag.cuh"

#define LZ_WARPS 2u  // warps per block

struct LzChunk {
    u64 in_offset;
    u64 out_offset;
    u32 in_len;
    u32 out_cap;
};

// `len` bytes from the input's read position to the output, 32 a step.
template <typename In>
__device__ __forceinline__ void lz_literals(In& in, CodagOut<u8>& out, u64 len) {
    if (!in.has_bits(len * 8ull) || !out.reserve(len)) return;
    for (u64 i = 0; i < len; i += 32ull) {
        const u32 n = (u32)(len - i < 32ull ? len - i : 32ull);
        const u32 b = wz_lane() < n ? in.lane_byte(i + wz_lane()) : 0u;
        out.write_literal((u8)b, n);
    }
    in.skip_bytes(len);
}

// A little-endian field of `n` (1..4) bytes.
template <typename In>
__device__ __forceinline__ u32 lz_fetch_le(In& in, u32 n) {
    u32 v = 0;
    for (u32 i = 0; i < n; ++i) v |= in.fetch_byte() << (8u * i);
    return v;
}

template <typename In>
__device__ __forceinline__ void snappy_block(In& in, CodagOut<u8>& out, u32 cap) {
    const u64 total = in.fetch_varint();
    if (!in.ok()) return;
    if (total != (u64)cap) {
        // The preamble must say the recorded size: more is OVERFLOW, less UNDERFLOW.
        out.fail(total > (u64)cap ? WZ_STATUS_OVERFLOW : WZ_STATUS_UNDERFLOW);
        return;
    }
    while (in.ok() && out.ok() && !in.at_end()) {
        const u32 tag = in.fetch_byte();
        const u32 kind = tag & 3u;
        if (kind == 0u) {
            u32 len = tag >> 2;
            if (len >= 60u) len = lz_fetch_le(in, len - 59u);
            lz_literals(in, out, (u64)len + 1ull);
        } else if (kind == 1u) {
            const u32 len = 4u + ((tag >> 2) & 7u);
            const u32 offset = ((tag >> 5) << 8) | in.fetch_byte();
            if (in.ok()) out.copy_back(offset, len);
        } else {
            const u32 len = 1u + (tag >> 2);
            const u32 offset = lz_fetch_le(in, kind == 2u ? 2u : 4u);
            if (in.ok()) out.copy_back(offset, len);
        }
    }
}

// LZ4's extended length: bytes added while they are 255.
template <typename In>
__device__ __forceinline__ u64 lz4_more(In& in) {
    u64 len = 0;
    for (;;) {
        const u32 b = in.fetch_byte();
        if (!in.ok()) return 0;
        len += b;
        if (b != 255u) return len;
    }
}

template <typename In>
__device__ __forceinline__ void lz4_block(In& in, CodagOut<u8>& out) {
    if (in.at_end()) {
        // An empty block is one token of no literals.
        in.fail(WZ_STATUS_TRUNCATED);
        return;
    }
    while (in.ok() && out.ok()) {
        const u32 token = in.fetch_byte();
        u64 lits = token >> 4;
        if (lits == 15ull) lits += lz4_more(in);
        lz_literals(in, out, lits);
        if (!in.ok() || !out.ok() || in.at_end()) return;
        const u32 offset = lz_fetch_le(in, 2u);
        u64 match = token & 15u;
        if (match == 15ull) match += lz4_more(in);
        if (!in.ok()) return;
        out.copy_back(offset, match + 4ull);
    }
}

// One warp per block; `codec` 0 for Snappy, 1 for LZ4.
template <u32 CODEC>
__device__ __forceinline__ void lz_decode(const u8* input, const LzChunk* chunks, u32 n,
                                          u8* output, u32* results, u32* counter) {
    __shared__ u32 windows[LZ_WARPS][64];
    u32* window = windows[threadIdx.x / 32u];
    for (;;) {
        const u32 c = codag_next_chunk(counter);
        if (c >= n) break;
        const LzChunk ch = chunks[c];
        CodagIn<CodagSmemWindow> in(input, ch.in_offset, ch.in_len, CodagSmemWindow(window));
        CodagOut<u8> out(output + ch.out_offset, 0, ch.out_cap, true);
        if (CODEC == 0u) {
            snappy_block(in, out, ch.out_cap);
        } else {
            lz4_block(in, out);
        }
        if (wz_lane() == 0) {
            results[3ull * c] = codag_status(in, out);
            results[3ull * c + 1] = (u32)out.pos;
            results[3ull * c + 2] = (u32)in.byte_pos();
        }
        __syncwarp();
    }
}

extern "C" __global__ void __launch_bounds__(LZ_WARPS * 32)
    lz_decode_snappy(const u8* __restrict__ input, const LzChunk* __restrict__ chunks, u32 n,
                     u8* output, u32* results, u32* counter) {
    lz_decode<0u>(input, chunks, n, output, results, counter);
}

extern "C" __global__ void __launch_bounds__(LZ_WARPS * 32)
    lz_decode_lz4(const u8* __restrict__ input, const LzChunk* __restrict__ chunks, u32 n,
                  u8* output, u32* results, u32* counter) {
    lz_decode<1u>(input, chunks, n, output, results, counter);
}
