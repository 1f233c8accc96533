// A block per row group: the row group staged in shared memory, one thread walking its RLE
// group headers there and cutting it into units that the block's warps decode (orc_group.cuh
// gives the overview).
#pragma once
#include "orc/orc_group.cuh"

#define ORC_RG_WARPS 4u           // warps per block (4: 5 blocks an SM at 96 registers)
#define ORC_RG_UNITS 64u          // most units a row group is cut into
#define ORC_RG_UNITS_PER_WARP 4u  // units a warp gets on average, for balance
#define ORC_RG_MIN_UNIT 256u      // fewest values a unit is cut at

// What the block shares besides its stage (dynamic shared memory: the stage, then for RLEv1
// the masks of varint ends of its 16-byte blocks).
struct OrcRgShared {
    u32 windows[ORC_RG_WARPS][64];
    u32 unit_at[ORC_RG_UNITS];     // stage offset of unit k's first RLE group
    u64 unit_first[ORC_RG_UNITS + 1];  // its first value, counted from the group's position
                                       // (skipped values included); then the sentinel `target`
    u32 unit_status[ORC_RG_UNITS];
    u32 chunk[2];  // the block's next row group, by loop parity
    u32 units;
    u32 next_unit;
    u32 present_status;
    u64 n;
};

// The 8 stage bytes from offset `q` as a little-endian word. The block stages a row group only
// where its stage has 16 bytes of room past the group's last byte, so the three aligned words
// read (q rounded down, up to 11 bytes on) lie inside it; bytes past the group's end are
// never used.
__device__ __forceinline__ u64 rg_load8(const u8* st, u32 q) {
    const u32* w = reinterpret_cast<const u32*>(st + (q & ~3u));
    const u32 shift = 8u * (q & 3u);
    const u32 w0 = w[0], w1 = w[1], w2 = w[2];
    return ((u64)__funnelshift_r(w1, w2, shift) << 32) | __funnelshift_r(w0, w1, shift);
}

// The 4 stage bytes from offset `q` as a little-endian word (as rg_load8).
__device__ __forceinline__ u32 rg_load4(const u8* st, u32 q) {
    const u32* w = reinterpret_cast<const u32*>(st + (q & ~3u));
    return __funnelshift_r(w[0], w[1], 8u * (q & 3u));
}

// Moves `q` past the varint there; false where it does not end within ten bytes or before
// `end`. One byte load for one-byte varints, else one word for up to eight bytes.
__device__ __forceinline__ bool rg_skip_varint(const u8* st, u32& q, u32 end) {
    if (q >= end) return false;
    if (st[q] < 0x80u) {
        ++q;
        return true;
    }
    const u64 stops = ~rg_load8(st, q) & 0x8080808080808080ull;
    if (stops != 0ull) {
        const u32 len = (u32)__ffsll((long long)stops) >> 3;
        if (len > end - q) return false;
        q += len;
        return true;
    }
    for (u32 i = 8; i < 10u; ++i) {
        if (q + i >= end) return false;
        if (st[q + i] < 0x80u) {
            q += i + 1u;
            return true;
        }
    }
    return false;
}

// The bytes of the RLEv2 group at stage offset `p` (< end), and its values; 0 where its header
// or a varint of it runs past `end`, or the header is not valid (the walk stops there, and the
// warp decoder that goes on from there reports what it finds).
__device__ __forceinline__ u32 rg_v2_extent(const u8* st, u32 p, u32 end, u32& values) {
    const u32 h = st[p];
    const u32 kind = h >> 6;
    if (kind == 0u) {  // SHORT_REPEAT: the header, then the value's 1..8 bytes
        values = (h & 7u) + 3u;
        return 2u + ((h >> 3) & 7u);
    }
    if (end - p < 2u) return 0u;
    const u32 len = v2_len(h, st[p + 1u]);
    // The width the other three kinds code in the header (DELTA: 0 where the code is 0), once
    // before they part.
    const u32 width = orc_decode_width(h >> 1);
    values = len;
    if (kind == 1u) return 2u + (width * len + 7u) / 8u;  // DIRECT
    if (kind == 2u) {  // PATCHED_BASE
        if (end - p < 4u) return 0u;
        const u32 b2 = st[p + 2u], b3 = st[p + 3u];
        const u32 patch_width = orc_decode_width(b2);
        const u32 gap_width = (b3 >> 5) + 1u;
        if (gap_width + patch_width > 64u) return 0u;
        const u32 entry_width = orc_closest_fixed_width(gap_width + patch_width);
        return 4u + (b2 >> 5) + 1u + (width * len + 7u) / 8u +
               (entry_width * (b3 & 31u) + 7u) / 8u;
    }
    // DELTA: the base and the first delta (varints), then the steps unless the delta is fixed.
    // Both varints from one word where they end within its 8 bytes (TPC-H keys: 4 + 1 bytes),
    // without the branches of two rg_skip_varint calls.
    u32 q = p + 2u;
    const u64 stops = ~rg_load8(st, q) & 0x8080808080808080ull;
    const u64 second = stops & (stops - 1ull);
    if (second != 0ull) {
        q += (u32)__ffsll((long long)second) >> 3;
        if (q > end) return 0u;
    } else if (!rg_skip_varint(st, q, end) || !rg_skip_varint(st, q, end)) {
        return 0u;
    }
    const u32 steps = len > 2u ? len - 2u : 0u;
    return (q - p) + (((h >> 1) & 31u) == 0u ? 0u : (width * steps + 7u) / 8u);
}

// One past the end of the varint at stage offset `q`, from the masks of bytes below 0x80 (two
// 64-byte words of them at most); 0 where it does not end within ten bytes or before `end`.
__device__ __forceinline__ u32 rg_varint_end(const u8* st, const u16* masks, u32 q, u32 end) {
    // One-byte varints (small values) without the masks: a byte load is cheaper.
    if (q < end && st[q] < 0x80u) return q + 1u;
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    const u32 w = q >> 6;
    const u64 m = m64[w] >> (q & 63u);
    u32 e;
    if (m != 0ull) {
        e = q + (u32)__ffsll(m);
    } else {
        const u64 m2 = m64[w + 1u];
        if (m2 == 0ull) return 0u;
        e = 64u * (w + 1u) + (u32)__ffsll(m2);
    }
    return e - q <= 10u && e <= end ? e : 0u;
}

// The offset of the `r`-th set bit (1-based, 1 <= r <= its popcount) of `m`: a binary search
// by population counts of halves, without branches (`__fns` is no single instruction).
__device__ __forceinline__ u32 rg_select64(u64 m, u32 r) {
    u32 bit = 0;
    const u32 lo = (u32)m, lo_count = __popc(lo);
    u32 x = lo;
    if (r > lo_count) {
        x = (u32)(m >> 32);
        r -= lo_count;
        bit = 32u;
    }
#pragma unroll
    for (u32 step = 16u; step > 0u; step >>= 1) {
        const u32 c = __popc(x & ((1u << step) - 1u));
        const bool up = r > c;
        r = up ? r - c : r;
        x = up ? x >> step : x;
        bit += up ? step : 0u;
    }
    return bit;
}

// The bytes of the RLEv1 run at `p` (control < 0x80: control, delta, the base's varint) and
// its values; 0 where the varint does not end within ten bytes or before `end`.
__device__ __forceinline__ u32 rg_v1_run_extent(const u8* st, const u16* masks, u32 p, u32 end,
                                                u32 control, u32& values) {
    values = control + 3u;
    const u32 e = p + 2u < end ? rg_varint_end(st, masks, p + 2u, end) : 0u;
    return e != 0u ? e - p : 0u;
}

// One past the r-th (r >= 1) varint end at or after stage offset `q`, by the masks of the
// bytes below 0x80 read 64 bytes a step (four masks as one word: the masks start 16-byte
// aligned); 0 where fewer than r end before `end`. Inside the word, the r-th set bit is found
// by clearing the lowest r - 1 where r is small (the keys' literal groups: 1.9 varints), else
// by rg_select64.
__device__ __forceinline__ u32 rg_nth_end(const u64* m64, u32 q, u32 r, u32 end) {
    while (q < end) {
        const u32 w = q >> 6;
        u64 m = m64[w] & (~0ull << (q & 63u));
        const u32 c = __popcll(m);
        if (c >= r) {
            u32 e;
            if (r <= 4u) {
                for (; r > 1u; --r) m &= m - 1ull;
                e = 64u * w + (u32)__ffsll((long long)m);
            } else {
                e = 64u * w + rg_select64(m, r) + 1u;
            }
            return e <= end ? e : 0u;
        }
        r -= c;
        q = 64u * (w + 1u);
    }
    return 0u;
}

// The varint ends (mask bits) among stage bytes [a, b), a < b: four 64-byte words a step,
// loaded at once (the masks have 32 words of room past the stage's).
__device__ __forceinline__ u32 rg_ends_between(const u16* masks, u32 a, u32 b) {
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    const u32 first = a >> 6, last = (b - 1u) >> 6;
    u32 c = 0;
    for (u32 w = first; w <= last; w += 4u) {
        u64 m[4];
#pragma unroll
        for (u32 j = 0; j < 4u; ++j) m[j] = m64[w + j];
#pragma unroll
        for (u32 j = 0; j < 4u; ++j) {
            u64 x = w + j <= last ? m[j] : 0ull;
            if (w + j == first) x &= ~0ull << (a & 63u);
            if (w + j == last && (b & 63u) != 0u) x &= (1ull << (b & 63u)) - 1ull;
            c += __popcll(x);
        }
    }
    return c;
}

// The same for the RLEv1 group at `p`: a run (control, delta, a varint) or a literal group
// (control, then varints found by the masks of the bytes below 0x80).
__device__ __forceinline__ u32 rg_v1_extent(const u8* st, const u16* masks, u32 p, u32 end,
                                            u32& values) {
    const u32 control = st[p];
    if (control < 0x80u) return rg_v1_run_extent(st, masks, p, end, control, values);
    values = 256u - control;
    const u32 e = rg_nth_end(reinterpret_cast<const u64*>(masks), p + 1u, values, end);
    return e != 0u ? e - p : 0u;
}

// One thread walks the group headers of the staged stream [head, end) from the row group's
// position and cuts it into units: a cut falls on a group boundary once the unit holds at
// least `unit_values` values and lies past the skipped ones. The walk stops at the group's
// last value, at the stage's end, or at a header it cannot size; the last unit then runs on
// from its start to wherever the warp decoder finds the group's end.
template <int KIND>
__device__ void rg_walk(const u8* st, const u16* masks, u32 head, u32 end, u64 skip, u64 target,
                        u64 unit_values, OrcRgShared& sh) {
    u32 p = head, units = 1;
    u64 v = 0, last = 0;
    sh.unit_at[0] = head;
    sh.unit_first[0] = 0;
    while (v < target && p < end) {
        u32 values = 0;
        const u32 bytes = KIND == ORC_KIND_V1 ? rg_v1_extent(st, masks, p, end, values)
                                              : rg_v2_extent(st, p, end, values);
        if (bytes == 0u || bytes > end - p) break;
        if (v > skip && v - last >= unit_values && units < ORC_RG_UNITS) {
            sh.unit_at[units] = p;
            sh.unit_first[units] = v;
            last = v;
            ++units;
        }
        p += bytes;
        v += values;
    }
    sh.unit_first[units] = target;
    sh.units = units;
    sh.next_unit = 0;
}

// Decodes into `o` with the warp decoders, from stage offset `at` of row group `g` (staged from
// `head`) to the end of its DATA stream; the status.
template <typename T, int KIND>
__device__ __forceinline__ u32 rg_decode_warp(const u8* __restrict__ in, const OrcGroup& g,
                                              u32 head, u32 at, CodagSmemWindow window,
                                              CodagOut<T>& o) {
    OrcIn s(in, g.data_offset + (at - head), g.data_len - (at - head), window);
    if constexpr (KIND == ORC_KIND_V1) {
        decode_v1<T, true>(s, o);
    } else {
        decode_v2<T, true>(s, o);
    }
    return orc_finish(s, o);
}
