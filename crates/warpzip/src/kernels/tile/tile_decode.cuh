// The tile codecs' layout as kernels read it (codec/tile/format.rs and docs/format.md, "Tile-
// based integer codecs"): the geometry, the fault codes, a tile's record, the walk of a FOR
// stream's blocks (thread 0, checking every width and length) and the read of one of its values,
// and the block-wide scan DFOR deltas and RFOR run lengths need. Shared by the decoder
// (tile.cu) and by the kernels that decode tiles inside a query (ssb/ssb.cu).
#pragma once
#include "framework/common.cuh"

#define TILE_VALUES 512
#define TILE_MAX_WORDS 1557
// Zero words staged after a tile's words: the windows read up to two words past a miniblock.
#define TILE_STAGE_SLACK 4

// Faults; they match `Fault` in codec/tile/format.rs.
#define TILE_FAULT_TRUNCATED 1u
#define TILE_FAULT_BAD_HEADER 2u
#define TILE_FAULT_WIDTH_TOO_LARGE 3u
#define TILE_FAULT_WIDTH_PAST_END 4u
#define TILE_FAULT_BAD_RUN_COUNT 5u
#define TILE_FAULT_BAD_RUN_LENGTHS 6u
#define TILE_FAULT_TRAILING_WORDS 7u
#define TILE_FAULT_SCHEME_NOT_ALLOWED 8u

#define TILE_SCHEME_FOR 0u
#define TILE_SCHEME_DFOR 1u
#define TILE_SCHEME_RFOR 2u

struct TileRecord {
    u64 in_offset;
    u32 in_words;
    u32 count;
    u64 out_offset;
    u32 chunk;
    u32 tile;
};

// One FOR stream of at most 512 values: four blocks' references, and for each of the sixteen
// miniblocks its width and the word where it starts.
struct TileFor {
    u64 ref[4];
    u32 off[16];
    u32 width[16];
};

// Walks a FOR stream of `n` values, `bits` wide, from word `*pos` of a tile of `nwords` words.
__device__ u32 tile_parse_for(const u32* w, u32 nwords, u32* pos, u32 n, u32 bits, TileFor* fs) {
    u32 p = *pos;
    u32 ref_words = bits / 32u;
    u32 blocks = (n + 127u) / 128u;
    for (u32 b = 0; b < blocks; ++b) {
        if (p + ref_words + 1u > nwords) return TILE_FAULT_TRUNCATED;
        u64 r = w[p];
        if (bits == 64u) r |= (u64)w[p + 1] << 32;
        p += ref_words;
        fs->ref[b] = r;
        u32 widths = w[p++];
        // The miniblocks' offsets: an exclusive prefix sum of their widths from p.
        for (u32 i = 0; i < 4u; ++i) {
            u32 width = (widths >> (8u * i)) & 0xffu;
            if (width > bits) return TILE_FAULT_WIDTH_TOO_LARGE;
            u32 first = b * 128u + i * 32u;
            if (first >= n) {
                if (width != 0u) return TILE_FAULT_WIDTH_PAST_END;
            } else if (p + width > nwords) {
                return TILE_FAULT_TRUNCATED;
            }
            fs->off[b * 4u + i] = p;
            fs->width[b * 4u + i] = width;
            p += width;
        }
    }
    *pos = p;
    return 0u;
}

// Value j of a parsed FOR stream (before the reference's wrap to the type's width).
__device__ __forceinline__ u64 tile_get(const TileFor* fs, const u32* w, u32 j) {
    u32 idx = j >> 5;
    u32 width = fs->width[idx];
    u64 r = fs->ref[j >> 7];
    if (width == 0u) return r;
    u32 bit = (j & 31u) * width;
    u32 at = fs->off[idx] + (bit >> 5);
    u32 sh = bit & 31u;
    u64 v = ((u64)w[at] | ((u64)w[at + 1] << 32)) >> sh;
    if (sh + width > 64u) v |= (u64)w[at + 2] << (64u - sh);
    if (width < 64u) v &= (1ull << width) - 1ull;
    return r + v;
}

// Inclusive prefix sum of a[0..n) (n <= 512) in place, each thread four consecutive values.
template <typename T>
__device__ void tile_block_scan(T* a, u32 n, T* warp_totals) {
    u32 t = threadIdx.x;
    T v[4];
    T sum = 0;
#pragma unroll
    for (u32 k = 0; k < 4u; ++k) {
        u32 j = t * 4u + k;
        sum += (j < n) ? a[j] : (T)0;
        v[k] = sum;
    }
    T incl = wz_warp_inclusive_sum<T>(sum);
    if (wz_lane() == 31u) warp_totals[t >> 5] = incl;
    __syncthreads();
    T before = incl - sum;
    for (u32 q = 0; q < (t >> 5); ++q) before += warp_totals[q];
#pragma unroll
    for (u32 k = 0; k < 4u; ++k) {
        u32 j = t * 4u + k;
        if (j < n) a[j] = before + v[k];
    }
    __syncthreads();
}
