// ORC columns: the row groups of a real file's integer-family columns, decoded into one T per
// row and one validity byte per row (nulls 0). A row group is the group's PRESENT bits (Boolean
// RLE, from the row index position: bytes of a run to skip, then bits), its non-null values
// (from its DATA position, values of a run to skip), and the values spread over the rows.
//
// Two ways to decode one:
// - a warp per row group (`orc_col_*`): the CODAG warp decoders read the DATA stream from the
//   group's position until the group's values are written;
// - a block per row group (`orc_rg_*`, RLE v1 and v2 integers): the group's DATA bytes are
//   staged in shared memory, one thread walks the RLE group headers there (lengths only, no
//   values) and cuts the row group at group boundaries into units of a few hundred values, and
//   the block's warps decode the units at once with the same warp decoders, reading the stage.
//   Streams of short groups go to thread regions instead, and RLEv1 streams of long groups to
//   split groups (both below). A file of 601 row groups (TPC-H SF 1 lineitem) is 601 warps one
//   way and 601 blocks of 4 the other: ORC keeps no index below the row group, so the walk is
//   what finds work for more warps.
// Both give every row group the status the CPU reader gives it.
#pragma once

#define ORC_KIND_V1 1
#define ORC_KIND_V2 2
#define ORC_KIND_BYTE 3
#define ORC_KIND_BOOL 4

// One row group; the layout of `OrcGroup` in Rust (64 bytes).
struct OrcGroup {
    u64 present_offset;  // the group's start in the PRESENT stream, an offset into `in`
    u32 present_len;     // bytes from there to the stream's end
    u32 present_skip;    // bytes of the Byte RLE run there to skip
    u64 data_offset;     // the group's start in the DATA stream
    u32 data_len;        // bytes from there to the stream's end
    u32 data_skip;       // values (Boolean DATA: bytes) of the run there to skip
    u64 out_row;         // the group's first row in the output
    u64 scratch;         // byte offset of the group's scratch area (8-byte aligned)
    u32 rows;
    u8 present_bit_skip;  // bits of the first PRESENT byte to skip
    u8 data_bit_skip;     // Boolean DATA: bits of the first byte to skip
    u8 has_present;
    u8 reserved;
    // Bytes from `data_offset` that hold the group's values in a valid file: up to the next
    // group's position plus the longest RLE group (the stream's end for a stripe's last group).
    // Only where the block kernels stage the DATA stream; decoding never trusts it.
    u32 data_span;
    // Bytes from `data_offset` up to and including the next group's position: where the block
    // kernels' thread regions lie (the last thread walks on to the groups past it that hold
    // the group's last values). Decoding never trusts it either: a chain that ends short fails
    // over to the units.
    u32 data_starts;
};

// Bit `i` (most significant first) of packed bytes.
__device__ __forceinline__ bool orc_bit(const u8* bytes, u64 i) {
    return (bytes[i >> 3] >> (7u - (u32)(i & 7u))) & 1u;
}

// The bytes of a group's PRESENT bits in its scratch area.
__device__ __forceinline__ u64 orc_present_bytes(const OrcGroup& g) {
    return ((u64)g.present_bit_skip + g.rows + 7ull) / 8ull;
}

// Where a group's dense values (or Boolean DATA bits) go in its scratch area: after the
// PRESENT bits.
__device__ __forceinline__ u8* orc_dense_area(u8* scratch, const OrcGroup& g) {
    return scratch + g.scratch + ((orc_present_bytes(g) + 8ull) & ~7ull);
}

// 1. PRESENT, one warp: the group's validity bytes, and `n`, its count of non-null rows (the
// values in its DATA stream). Returns the status of the PRESENT stream.
__device__ __forceinline__ u32 orc_group_present(const u8* __restrict__ in, const OrcGroup& g,
                                                 CodagSmemWindow window, u8* __restrict__ scratch,
                                                 u8* __restrict__ valid, u64& n) {
    const u32 lane = wz_lane();
    u8* bits = scratch + g.scratch;
    n = g.rows;
    if (!g.has_present) {
        // Every row valid: 16 bytes a lane from the first 16-byte boundary (TPC-H: 625 stores
        // a row group instead of 10,000), single bytes before and after it.
        u8* v = valid + g.out_row;
        const u32 lead = min((16u - ((u32)reinterpret_cast<u64>(v) & 15u)) & 15u, g.rows);
        const u32 blocks = (g.rows - lead) / 16u;
        const u32 tail = lead + 16u * blocks;
        for (u32 r = lane; r < lead; r += 32) v[r] = 1;
        uint4* v16 = reinterpret_cast<uint4*>(v + lead);
        const u32 ones = 0x01010101u;
        for (u32 k = lane; k < blocks; k += 32) v16[k] = make_uint4(ones, ones, ones, ones);
        for (u32 r = tail + lane; r < g.rows; r += 32) v[r] = 1;
        return WZ_STATUS_OK;
    }
    OrcIn s(in, g.present_offset, g.present_len, window);
    CodagOut<u8> o(bits, g.present_skip, orc_present_bytes(g), false);
    decode_byte_rle(s, o);
    const u32 st = orc_finish(s, o);
    __syncwarp();
    n = 0;
    for (u32 r0 = 0; r0 < g.rows; r0 += 32) {
        const u32 r = r0 + lane;
        const bool v =
            r < g.rows && st == WZ_STATUS_OK && orc_bit(bits, (u64)g.present_bit_skip + r);
        n += __popc(__ballot_sync(WZ_FULL_MASK, v));
        if (r < g.rows) valid[g.out_row + r] = v;
    }
    return st;
}

// Whether a group's values are decoded into its scratch area and spread over the rows after
// (nulls, or Boolean bits), rather than straight into the output.
template <int KIND>
__device__ __forceinline__ bool orc_spreads(const OrcGroup& g) {
    return g.has_present || KIND == ORC_KIND_BOOL;
}

// 3. Spread the dense values over the rows (nulls 0), one warp; every row 0 on a failure.
template <typename T, int KIND>
__device__ __forceinline__ void orc_group_spread(const OrcGroup& g, u32 st,
                                                 const u8* __restrict__ scratch,
                                                 T* __restrict__ out) {
    const u32 lane = wz_lane();
    const u8* bits = scratch + g.scratch;
    const u8* dense_area = bits + ((orc_present_bytes(g) + 8ull) & ~7ull);
    const T* dense = reinterpret_cast<const T*>(dense_area);
    u64 k = 0;
    for (u32 r0 = 0; r0 < g.rows; r0 += 32) {
        const u32 r = r0 + lane;
        const bool v = r < g.rows && st == WZ_STATUS_OK &&
                       (!g.has_present || orc_bit(bits, (u64)g.present_bit_skip + r));
        const u32 m = __ballot_sync(WZ_FULL_MASK, v);
        if (r < g.rows) {
            T value = 0;
            if (v) {
                const u64 i = k + __popc(m & codag_lanemask_lt());
                value = KIND == ORC_KIND_BOOL ? (T)orc_bit(dense_area, (u64)g.data_bit_skip + i)
                                              : dense[i];
            }
            out[g.out_row + r] = value;
        }
        k += __popc(m);
    }
}

// A whole row group, one warp: PRESENT, the DATA stream's `n` values with the CODAG warp
// decoders (densely, straight into the output when every row is present; booleans: their packed
// bytes, expanded by the spread), the spread. Returns the group's status.
template <typename T, int KIND>
__device__ __forceinline__ u32 orc_group_warp(const u8* __restrict__ in, const OrcGroup& g,
                                              CodagSmemWindow window, T* __restrict__ out,
                                              u8* __restrict__ valid, u8* __restrict__ scratch) {
    u64 n = 0;
    u32 st = orc_group_present(in, g, window, scratch, valid, n);
    u8* dense_area = orc_dense_area(scratch, g);
    const bool spread = orc_spreads<KIND>(g);
    if (st == WZ_STATUS_OK && n > 0) {
        OrcIn s(in, g.data_offset, g.data_len, window);
        if constexpr (KIND == ORC_KIND_BOOL) {
            const u64 bytes = ((u64)g.data_bit_skip + n + 7ull) / 8ull;
            CodagOut<u8> o(dense_area, g.data_skip, bytes, false);
            decode_byte_rle(s, o);
            st = orc_finish(s, o);
        } else {
            T* dst = spread ? reinterpret_cast<T*>(dense_area) : out + g.out_row;
            CodagOut<T> o(dst, g.data_skip, n, false);
            if constexpr (KIND == ORC_KIND_V1) {
                decode_v1<T, true>(s, o);
            } else if constexpr (KIND == ORC_KIND_V2) {
                decode_v2<T, true>(s, o);
            } else {
                decode_byte_rle(s, o);
            }
            st = orc_finish(s, o);
        }
    }
    __syncwarp();
    if (spread) orc_group_spread<T, KIND>(g, st, scratch, out);
    return st;
}

template <typename T, int KIND>
__device__ __forceinline__ void orc_column_groups(const u8* __restrict__ in,
                                                  const OrcGroup* __restrict__ groups,
                                                  u32 n_groups, void* __restrict__ values,
                                                  u8* __restrict__ valid, u8* __restrict__ scratch,
                                                  u32* __restrict__ status, u32* next_chunk) {
    __shared__ u32 windows[ORC_WARPS][64];
    CodagSmemWindow window(windows[threadIdx.x / 32u]);
    T* out = reinterpret_cast<T*>(values);
    for (u32 c = codag_next_chunk(next_chunk); c < n_groups; c = codag_next_chunk(next_chunk)) {
        const u32 st = orc_group_warp<T, KIND>(in, groups[c], window, out, valid, scratch);
        if (wz_lane() == 0) status[c] = st;
    }
}

#define ORC_COLUMN_PARAMS                                                                     \
    const u8 *__restrict__ in, const OrcGroup *__restrict__ groups, u32 n_groups,             \
        void *__restrict__ values, u8 *__restrict__ valid, u8 *__restrict__ scratch,          \
        u32 *__restrict__ status, u32 *next_chunk
#define ORC_COLUMN_ARGS in, groups, n_groups, values, valid, scratch, status, next_chunk

#ifndef ORC_RLE_RG6
extern "C" __global__ void orc_col_bool(ORC_COLUMN_PARAMS) {
    orc_column_groups<u8, ORC_KIND_BOOL>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_byte(ORC_COLUMN_PARAMS) {
    orc_column_groups<u8, ORC_KIND_BYTE>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i16(ORC_COLUMN_PARAMS) {
    orc_column_groups<u16, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i32(ORC_COLUMN_PARAMS) {
    orc_column_groups<u32, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i64(ORC_COLUMN_PARAMS) {
    orc_column_groups<u64, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i16(ORC_COLUMN_PARAMS) {
    orc_column_groups<u16, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i32(ORC_COLUMN_PARAMS) {
    orc_column_groups<u32, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i64(ORC_COLUMN_PARAMS) {
    orc_column_groups<u64, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}
#endif

// ---------------------------------------------------------------------------------------------
// A block per row group.

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

// ---- Thread regions: the fast path of a staged row group ----
// Every thread of the block takes an equal byte range (a region) of the staged bytes where the row
// group's RLE groups start (up to the next row group's position: `data_starts`). The real chain of
// RLE groups enters a region at one of its first bytes (where the last group that starts before it
// ends), so each thread tables where the chain would leave its region for each of the first
// RG_ENTRIES entries: each walk marks the positions it visits with its entry, and a walk stops at
// the first position an earlier walk marked (from there it is that walk, so it leaves where that
// one left) or, past the first, after RG_TABLE_STEPS groups (unknown). One thread then follows the
// real chain through the regions by the tables, walking a region itself only where its entry is
// past the table or unknown (long groups: few steps). For RLEv1 streams of one-byte values the
// entries come from speculative rounds instead (rg_entries_rounds). Each thread then counts its
// region's values, a block scan places them, and each warp decodes the groups that start in its 32
// regions, a group a lane at a time (rg_expand; RLE v2: 32 groups a round of a block-wide list
// instead, the warps in turn); the last thread also takes the groups past the regions that hold the
// row group's last values. RLEv2 groups of more than RG_LONG values (and PATCHED_BASE) are listed
// for the warps, which decode them with the warp decoders. Anything unexpected (a chain broken
// before the group's last value, a value that does not fit, more long groups than planned) returns
// false, and the row group is decoded again by the split groups (RLE v1) or the units below, which
// give the exact status.

#define RG_LONG 64u          // most values a thread decodes in one RLEv2 group
#define RG_MAX_LONGS 256u    // long groups a row group may list
#define RG_ENTRIES 15u       // entries of a region whose exits are tabled (marks 1..15)
#define RG_TABLE_STEPS 64u   // most groups a tabled walk from a later entry follows
#define RG_ROUNDS 8u          // rounds of exit fixing before the rounds give up
#define RG_SPEC_MAX 64u       // longest group a speculative walk of the rounds follows
#define RG_EXIT_UNKNOWN 0xfffeu
#define RG_EXIT_BROKEN 0xffffu
#define RG_INVALID 0xffffffffu
#define RG_MAX_THREADS (ORC_RG_WARPS * 32u)
#define RG_FLAG_MARKS 32u    // the host's flag: the dynamic shared memory holds the marks
#define RG_FLAG_NO_SPLIT 64u  // diagnostics: RLEv1 row groups of long groups go to the units
#define RG_FLAG_NO_LIST 128u  // diagnostics: step 4 of the regions without the list of groups
#define RG_FLAG_UNITS_GLOBAL 256u   // diagnostics: the units' warps read global memory
#define RG_FLAG_NO_VL 512u  // diagnostics: RLEv1 regions never size groups by one varint length
#define RG_FLAG_NO_RANGE 2048u  // diagnostics: nor by a range of lengths (rg_extent)
#define RG_FLAG_VL_STRICT 1024u  // tests: where regions sized so fail, CORRUPT, not tried again
#define RG_SPLIT_GROUPS 479u  // most RLE groups the split walk lists (the table fills `exits`)

// A short group of a region as a warp's lanes expand it (step 4 of the regions).
#define RG_DESC_ARITH 0u    // base + delta * i: SHORT_REPEAT, DELTA of a fixed step, RLEv1 runs
#define RG_DESC_BITS 1u     // DIRECT: value i bit-packed at bit0 + width * i
#define RG_DESC_BYTES 2u    // an RLEv1 literal group of one-byte varints from `at`
#define RG_DESC_VARINTS 3u  // an RLEv1 literal group of longer varints from `at` to `ge`
struct RgDesc {
    u64 a;      // ARITH: the base; BITS: bit0 | width << 32; BYTES, VARINTS: at | ge << 32
    u64 delta;  // ARITH: the step; VARINTS: every varint's length (rg_extent's `vl`), or 0
    u32 v;      // the group's first value in the row group's stream
    u32 start;  // its first value among the round's expanded values | kind << 30
};

struct OrcRgRegions {
    union {
        u16 exits[RG_ENTRIES][RG_MAX_THREADS];  // tables: region t's exit from s0 + j
        struct {
            u32 at[RG_SPLIT_GROUPS + 1u];     // stage offset of each group; then the chain's end
            u32 first[RG_SPLIT_GROUPS + 1u];  // its first value; then the values in all
        } split;
        RgDesc desc[ORC_RG_WARPS][32];  // step 4: each lane's group of the round
    };
    u32 n_split;       // groups listed with their ends so far (warp 0 counts them up)
    u32 split_state;   // RG_SPLIT_LISTING, then RG_SPLIT_LISTED or RG_SPLIT_BROKEN
    u32 next_split;    // the next listed group a warp takes to decode
    u32 split_take;    // groups a warp takes at once: 32 where the first round listed 32, else 2
    u32 entry[RG_MAX_THREADS];  // where the real chain enters each region (RG_INVALID: broken)
    u32 warp_sums[ORC_RG_WARPS];
    u32 warp_groups[ORC_RG_WARPS];
    u32 n_list;  // groups in the regions' list (step 4), written by the block's last thread
    u32 long_at[RG_MAX_LONGS];
    u32 long_first[RG_MAX_LONGS];
    u32 n_longs;
    u32 next_long;
};

// The group at `p` for one thread: its bytes (0 where it is not valid or runs past `end`) and
// values. RLEv1 literal groups of more than 8 values are sized by the masks of varint ends
// (a few 64-byte steps); shorter ones and run bases varint by varint (rg_skip_varint: on short
// groups of small values one byte load a varint beats the masks, RLEv1 line numbers 176 -> 156
// GB/s with them in stop 31).
//
// `vl` (RLEv1; 0: none) says how long the row group's varints are taken to be, so that groups
// are sized without finding each varint's end. 2..8 (RG_VL_SPAN clear): every varint is that
// long (TPC-H keys: 3 or 4 bytes), and a group's size follows from its control byte alone. Else
// (rg_vl_len) each is `lo` to `lo + span` (span 1 or 2) bytes long, told by testing the
// high bits of the one or two bytes after its first `lo` (sorted keys whose varints grow inside
// the row group: TPC-H keys' first row group, 1 to 3 bytes, and the one where they reach 4);
// literal groups of over 8 values are sized by the masks. Nothing checks `vl` here: step 4
// checks every group up to the row group's last value (rg_describe: a run's base varint is read,
// a literal group's varint ends counted; rg_expand_value: every varint of a group of one
// length, or whose bytes split evenly), and the first group whose size differs fails the
// regions, whose sizes agree with the stream's up to that group.
#define RG_VL_SPAN 16u  // rg_extent's `vl`: lo | span * RG_VL_SPAN, the range form

// The length of the varint at `q` where it is `lo` to `lo + span` bytes long (else anything).
// Both bytes are loaded at once, without branches (stop 41's `&&` chain branched on the first:
// a fifth of the instructions of TPC-H RLEv1 keys' first row group were its and its callers').
__device__ __forceinline__ u32 rg_vl_len(const u8* st, u32 q, u32 lo, u32 span) {
    const u32 more = (u32)st[q + lo - 1u] >> 7;
    const u32 two = (u32)st[q + lo] >> 7;
    return lo + more + (span > 1u ? more & two : 0u);
}

template <int KIND>
__device__ __forceinline__ u32 rg_extent(const u8* st, const u16* masks, u32 p, u32 end,
                                         u32& values, u32 vl = 0u) {
    if constexpr (KIND == ORC_KIND_V2) {
        const u32 b = rg_v2_extent(st, p, end, values);
        return b <= end - p ? b : 0u;
    } else {
        const u32 control = st[p];
        if (vl != 0u && vl < RG_VL_SPAN) {
            values = control < 0x80u ? control + 3u : 256u - control;
            const u32 b = control < 0x80u ? 2u + vl : 1u + values * vl;
            // The first varint must end where its length says (a walk from a wrong byte seldom
            // does: it stops here rather than going on through the region).
            const bool ends = st[p + (control < 0x80u ? 1u : 0u) + vl] < 0x80u;
            return ends && b <= end - p ? b : 0u;
        }
        if (vl >= RG_VL_SPAN && !(control >= 0x80u && control < 256u - 8u)) {
            // A run's base varint, or the varints of a literal group of at most 8, one after
            // another (a walk past `end` reads there, where the stage has room, and fails).
            const u32 lo = vl % RG_VL_SPAN, span = vl / RG_VL_SPAN;
            const bool run = control < 0x80u;
            values = run ? control + 3u : 256u - control;
            const u32 n = run ? 1u : values;
            u32 q = p + (run ? 2u : 1u);
            for (u32 k = 0; k < n; ++k) q += rg_vl_len(st, min(q, end), lo, span);
            return q <= end ? q - p : 0u;
        }
        if (control >= 0x80u && control < 256u - 8u) {
            const u32 b = rg_v1_extent(st, masks, p, end, values);
            return b <= end - p ? b : 0u;
        }
        u32 q = p + (control < 0x80u ? 2u : 1u);
        u32 left = control < 0x80u ? 1u : 256u - control;
        values = control < 0x80u ? control + 3u : left;
        for (; left > 0u; --left) {
            if (!rg_skip_varint(st, q, end)) return 0u;
        }
        return q - p;
    }
}

// The real chain's walk by one thread, from the group at `p` while `keep(p)` holds: each group
// it passes is handed to `visit(p, values)`, and `p` ends where the walk stopped. False where a
// group does not size (the chain breaks there, at `p`). Step 2's walks through a region, and
// rg_threads' count, last-thread walk and list, differ only in `keep` and `visit`.
template <int KIND, typename Keep, typename Visit>
__device__ __forceinline__ bool rg_chain(const u8* st, const u16* masks, u32& p, u32 end,
                                         Keep keep, Visit visit, u32 vl = 0u) {
    while (keep(p)) {
        u32 values = 0;
        const u32 b = rg_extent<KIND>(st, masks, p, end, values, vl);
        if (b == 0u) return false;
        visit(p, values);
        p += b;
    }
    return true;
}

// Zeroes the marks of the staged bytes [0, end) (every thread of the block calls it).
__device__ __forceinline__ void rg_clear_marks(u32* marks, u32 end) {
    for (u32 k = threadIdx.x; k < (end + 7u) / 8u; k += ORC_RG_WARPS * 32u) marks[k] = 0;
}

// The walk that marked stage byte `p` (1 + its entry), or 0: 4 bits a byte.
__device__ __forceinline__ u32 rg_mark_of(const u32* marks, u32 p) {
    return (marks[p >> 3] >> (4u * (p & 7u))) & 15u;
}

__device__ __forceinline__ void rg_mark(u32* marks, u32 p, u32 id) {
    atomicOr(&marks[p >> 3], id << (4u * (p & 7u)));
}

// `w` (1..64) bits, most significant first, from bit `bit` of the stage (of a group that ends
// before the stage's end, so rg_load8 may read there).
__device__ __forceinline__ u64 rg_bits_be(const u8* st, u32 bit, u32 w) {
    u32 byte = bit >> 3;
    if (w <= 56u) {  // (bit & 7) + w <= 63: within the word at `byte`
        const u64 le = rg_load8(st, byte);
        const u64 be = ((u64)__byte_perm((u32)le, 0u, 0x0123u) << 32) |
                       __byte_perm((u32)(le >> 32), 0u, 0x0123u);
        return (be << (bit & 7u)) >> (64u - w);
    }
    const u32 avail = 8u - (bit & 7u);
    const u32 first = st[byte++] & (0xffu >> (bit & 7u));
    u64 v = first;
    u32 need = w - avail;
    for (; need >= 8u; need -= 8u) v = (v << 8) | st[byte++];
    if (need > 0u) v = (v << need) | (st[byte] >> (8u - need));
    return v;
}

// The varint at stage offset `q` where it ends within 8 bytes: its length, and its value in
// `v`; else 0 (and `v` 0). One word: the bytes up to the first below 0x80.
__device__ __forceinline__ u32 rg_varint8(const u8* st, u32 q, u64& v) {
    const u64 word = rg_load8(st, q);
    const u32 len = (u32)__ffsll((long long)(~word & 0x8080808080808080ull)) >> 3;
    v = lane_varint_bits(word, len);  // (orc_int.cuh; len 0 gives 0)
    return len;
}

// The same for a varint that ends within 4 bytes, in 32-bit steps (lane_varint_bits32).
__device__ __forceinline__ u32 rg_varint4(const u8* st, u32 q, u64& v) {
    const u32 word = rg_load4(st, q);
    const u32 len = (u32)__ffs((int)(~word & 0x80808080u)) >> 3;
    v = lane_varint_bits32(word, len);
    return len;
}

// A varint of at most ten bytes (a tenth byte of at most 1) ending before `end`: up to eight
// bytes by rg_varint8, longer ones a byte at a time.
__device__ __forceinline__ bool rg_varint(const u8* st, u32& q, u32 end, u64& v) {
    if (q < end) {
        const u32 len = rg_varint8(st, q, v);
        if (len != 0u) {
            if (len > end - q) return false;
            q += len;
            return true;
        }
    }
    v = 0;
    for (u32 i = 0; i < 10u; ++i) {
        if (q >= end) return false;
        const u32 b = st[q++];
        v |= (u64)(b & 0x7fu) << (7u * i);
        if (b < 0x80u) return i < 9u || b <= 1u;
    }
    return false;
}

// The RLEv1 run at `p` of `len` values: its delta, and its base from the varint after the delta
// read up to `end` (`q` moves past it). False where the varint does not read or a value at
// either end of the run does not fit T (every value between then does).
template <typename T>
__device__ __forceinline__ bool rg_v1_run(const u8* st, u32 p, u32 end, u32 len, u32& q,
                                          i64& base, i64& delta) {
    delta = (i64)(signed char)st[p + 1u];
    q = p + 2u;
    u64 raw = 0;
    if (!rg_varint(st, q, end, raw)) return false;
    const i128 b = orc_stream_value<true>(raw);
    base = (i64)b;
    return orc_fits_wide<T, true>(b) &&
           orc_fits_wide<T, true>(b + (i128)delta * (i128)(len - 1u));
}

// Whether the group at `p` goes to a warp: an RLEv2 group of many values, or PATCHED_BASE.
// RLEv1 groups (at most 130 values) stay with their thread.
template <int KIND>
__device__ __forceinline__ bool rg_is_long(const u8* st, u32 p, u32 values) {
    if constexpr (KIND == ORC_KIND_V2) {
        return values > RG_LONG || (st[p] >> 6) == 2u;
    } else {
        return false;
    }
}

// Value number `j` of the row group's stream goes to dst[j - skip] where it lies in
// [skip, skip + count). 32-bit arithmetic: the regions and the split groups run only on row
// groups whose values number below 2^32 (TPC-H RLEv1 keys: the 64-bit range check and index
// were a tenth of the instructions); a value before the skip wraps past `count`.
template <typename T>
__device__ __forceinline__ void rg_place(T* __restrict__ dst, u32 j, u32 skip, u32 count, T value) {
    const u32 r = j - skip;
    if (r < count) dst[r] = value;
}

// The values of a DELTA group of `len` values and `width`-bit steps from stage offset `q`,
// whose first value is number `v` of the row group's stream: value 1 is base + delta, and
// value i >= 2 is value i - 1 plus step i - 2 (minus where delta < 0). Values in
// [skip, target) go to dst[j - skip]; every value is checked as the warp decoders check it.
// False where one does not fit T.
template <typename T>
__device__ __forceinline__ bool rg_delta_steps(const u8* st, u32 q, u32 width, u32 len,
                                               i128 base, i128 delta, u64 v, u64 skip,
                                               u64 target, T* __restrict__ dst) {
    const u32 bit0 = q * 8u;
    i128 value = base;
    for (u32 i = 0; i < len; ++i) {
        if (i == 1u) {
            value += delta;
        } else if (i >= 2u) {
            const i128 step = (i128)rg_bits_be(st, bit0 + (i - 2u) * width, width);
            value = delta < 0 ? value - step : value + step;
        }
        if (!orc_fits_wide<T, true>(value)) return false;
        rg_place(dst, (u32)v + i, (u32)skip, (u32)(target - skip), (T)(u64)value);
    }
    return true;
}

// The short group at `p` (`bytes` long, of `values` values, whose first is number `v` of the
// row group's stream) described for its warp's lanes (rg_expand) in `d` (which arrives
// zeroed): its kind, what its values are made of, and `n`, how many the lanes expand. What can
// be checked once is checked here (a run's values at both ends, a repeated value). A DELTA
// group of bit-packed steps (each value the sum of those before) is decoded here, by its lane
// alone (n = 0). False where a check fails, or an RLEv1 group's `bytes` (sized with `vl`,
// rg_extent) are not its real length: a run's base varint is read here, and a literal group's
// varints are each checked against `vl` where they are read (rg_expand_value).
template <typename T, int KIND>
__device__ __forceinline__ bool rg_describe(const u8* st, const u16* masks, u32 p, u32 bytes,
                                            u32 values, u32 end, u64 v, u64 skip, u64 target,
                                            T* __restrict__ dst, RgDesc& d, u32& kind, u32& n,
                                            u32 vl) {
    const u32 h = st[p];
    n = values;
    if constexpr (KIND == ORC_KIND_V1) {
        if (h < 0x80u) {
            u32 q = 0;
            i64 b = 0, delta = 0;
            kind = RG_DESC_ARITH;
            if (!rg_v1_run<T>(st, p, end, values, q, b, delta)) return false;
            d.a = (u64)b;
            d.delta = (u64)delta;
            return q == p + bytes;
        }
        d.a = (u64)(p + 1u) | ((u64)(p + bytes) << 32);
        kind = bytes == 1u + values ? RG_DESC_BYTES : RG_DESC_VARINTS;
        if (vl < RG_VL_SPAN) {
            d.delta = vl;
            return true;
        }
        // Sized by a range of lengths. Where its bytes split evenly into one of the range's
        // lengths (each tried: no division), every varint is taken to be that long, which
        // rg_expand_value checks as for one length (TPC-H keys' literal groups of one or two
        // values). Else exactly `values` varint ends in its bytes, the last at its end (inside a
        // literal group the masks mark exactly the varints' ends). (One-byte varints were sized
        // by their own high bits: exact.)
        const u32 lo = vl % RG_VL_SPAN, span = vl / RG_VL_SPAN, payload = bytes - 1u;
        u32 per = 0;
        for (u32 l = lo; l <= lo + span && l <= 8u; ++l) per = payload == values * l ? l : per;
        if (per != 0u) {
            d.delta = per;
            return true;
        }
        return st[p + bytes - 1u] < 0x80u && rg_ends_between(masks, p + 1u, p + bytes) == values;
    } else {
        kind = RG_DESC_ARITH;
        if ((h >> 6) == 0u) {  // SHORT_REPEAT
            // The value's 1..8 bytes, big-endian (inside the group, so rg_bits_be may read).
            d.a = (u64)orc_unzigzag(rg_bits_be(st, 8u * (p + 1u), 8u * (((h >> 3) & 7u) + 1u)));
            return orc_fits<T, true>(d.a);
        }
        if ((h >> 6) == 1u) {  // DIRECT
            kind = RG_DESC_BITS;
            d.a = (u64)((p + 2u) * 8u) | ((u64)orc_decode_width(h >> 1) << 32);
            return true;
        }
        // DELTA (PATCHED_BASE groups are long: the warp decoders take them): its base and
        // delta, then bit-packed steps unless the step is fixed.
        u32 q = p + 2u;
        u64 base_raw = 0, delta_raw = 0;
        if (!rg_varint(st, q, end, base_raw) || !rg_varint(st, q, end, delta_raw)) return false;
        const i128 base = orc_stream_value<true>(base_raw);
        const i128 delta = (i128)orc_unzigzag(delta_raw);
        const u32 code = (h >> 1) & 31u;
        if (code != 0u) {
            n = 0;
            return rg_delta_steps<T>(st, q, orc_decode_width(code), values, base, delta, v, skip,
                                     target, dst);
        }
        d.a = (u64)base;
        d.delta = (u64)delta;
        return orc_fits_wide<T, true>(base) &&
               orc_fits_wide<T, true>(base + delta * (i128)(values - 1u));
    }
}

// Value `i` of the group `d` describes (of kind `kind`); false where it does not fit T or its
// varint does not read. Varint i of an RLEv1 literal group starts after the i-th varint end
// among its payload's masks (inside a literal group the masks mark exactly the varints' ends).
template <typename T>
__device__ __forceinline__ bool rg_expand_value(const u8* st, const u64* m64, const RgDesc& d,
                                                u32 kind, u32 i, u64& value) {
    if (kind == RG_DESC_ARITH) {
        value = d.a + d.delta * i;
        return true;
    }
    if (kind == RG_DESC_BITS) {
        const u32 width = (u32)(d.a >> 32);
        value = (u64)orc_unzigzag(rg_bits_be(st, (u32)d.a + i * width, width));
        return orc_fits<T, true>(value);
    }
    const u32 at = (u32)d.a, ge = (u32)(d.a >> 32);
    if (kind == RG_DESC_BYTES) {
        value = (u64)orc_unzigzag(st[at + i]);  // -64..63: every T holds it
        return true;
    }
    u64 raw = 0;
    if (d.delta != 0ull) {
        // Varints of vl bytes each (the group was sized so: `ge` is at + vl * values): varint i
        // is the vl bytes from at + vl * i, which must end there, and only there.
        const u32 vl = (u32)d.delta;
        const u32 q = at + vl * i;
        if ((vl <= 4u ? rg_varint4(st, q, raw) : rg_varint8(st, q, raw)) != vl) return false;
    } else {
        u32 q = i > 0u ? rg_nth_end(m64, at, i, ge) : at;  // (at > 0: past the control byte)
        if (q == 0u) return false;
        if (!rg_varint(st, q, ge, raw)) return false;
    }
    value = (u64)orc_unzigzag(raw);
    return orc_fits<T, true>(value);
}

// The values of the RLE group at `p` (a header the walks sized, so valid).
template <int KIND>
__device__ __forceinline__ u32 rg_values(const u8* st, u32 p) {
    const u32 h = st[p];
    if constexpr (KIND == ORC_KIND_V2) {
        return (h >> 6) == 0u ? (h & 7u) + 3u : v2_len(h, st[p + 1u]);
    } else {
        return h < 0x80u ? h + 3u : 256u - h;
    }
}

// Step 4 of the regions for the calling warp (every lane, `more` where its region has groups
// from `p` on, the first of them number `v` of the stream): in rounds, each lane takes the
// next group of its region; long groups are listed for the warp decoders, a DELTA group of
// bit-packed steps is decoded by its lane, and the others are described (rg_describe). The
// warp places the round's described values by a scan of their counts, and lane j of each 32
// of them finds its group among the groups that start in those 32 (a bit each, gathered by one
// warp reduction) and writes value j, so a store instruction writes a few groups' values side
// by side (TPC-H keys: 4.3 values a group) rather than a value in each of 32 places. False in a
// lane where a check failed there.
//
// LISTED: the lanes take the block's list of groups instead (`list`: the stage offset of each
// of `n_list` groups, then the chain's end; `batch_first`: the first value of every 32nd), the
// warps 32 groups a round in turn, so no lane and no warp waits on a longer region.
template <typename T, int KIND, bool LISTED>
__device__ bool rg_expand(const u8* st, const u16* masks, u32 p, u64 v, bool more, u32 s1,
                          u32 end, u64 skip, u64 target, T* __restrict__ dst, OrcRgRegions& rr,
                          const u16* list, const u32* batch_first, u32 n_list, u32 vl) {
    const u32 lane = wz_lane();
    RgDesc* const desc = rr.desc[threadIdx.x / 32u];
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    const u32 skip32 = (u32)skip, count32 = (u32)(target - skip);  // (rg_place)
    bool bad = false;
    u32 batch = threadIdx.x / 32u;
    while (LISTED ? batch * 32u < n_list : __any_sync(WZ_FULL_MASK, more)) {
        RgDesc d;
        d.a = 0;
        d.delta = 0;
        u32 kind = RG_DESC_ARITH, n = 0;
        u32 b = 0, values = 0, incl_v = 0;
        bool take = false;
        if constexpr (LISTED) {
            const u32 k = batch * 32u + lane;
            if (k < n_list) {
                p = list[k];
                b = list[k + 1u] - p;
                values = rg_values<KIND>(st, p);
            }
            incl_v = wz_warp_inclusive_sum(values);
            v = (u64)batch_first[batch] + incl_v - values;
            take = k < n_list && v < target;
            batch += ORC_RG_WARPS;
        } else if (more) {
            b = rg_extent<KIND>(st, masks, p, end, values, vl);
            take = b != 0u;
            more = take;  // the chain breaks: rg_threads checked it reaches `target` first
        }
        d.v = (u32)v;
        if (take) {
            if (rg_is_long<KIND>(st, p, values)) {
                const u32 k = v + values > skip ? atomicAdd(&rr.n_longs, 1u) : RG_MAX_LONGS;
                if (k < RG_MAX_LONGS) {  // (a long group wholly before the skip: the units)
                    rr.long_at[k] = p;
                    rr.long_first[k] = (u32)v;
                } else {
                    bad = true;
                }
            } else if (!rg_describe<T, KIND>(st, masks, p, b, values, end, v, skip, target, dst,
                                             d, kind, n, vl)) {
                bad = true;
                n = 0;
            }
            if constexpr (!LISTED) {
                v += values;
                p += b;
                more = !bad && p < s1 && v < target;
            }
        }
        // (Listed: where every lane describes all its group's values, the scan of the values
        // serves.)
        const u32 incl = LISTED && __all_sync(WZ_FULL_MASK, n == values)
                             ? incl_v
                             : wz_warp_inclusive_sum(n);
        const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
        const u32 start = incl - n;
        // The groups the lanes expand (n > 0), in lane order: each is described at its rank.
        const u32 expanded = __ballot_sync(WZ_FULL_MASK, n != 0u);
        d.start = start | (kind << 30);
        if (n != 0u) desc[__popc(expanded & codag_lanemask_lt())] = d;
        __syncwarp();
        u32 before = 0;  // the described groups that start before value c
        for (u32 c = 0; c < total; c += 32u) {
            const u32 j = c + lane;
            // The groups that start among values c .. c + 31, a bit each; value j's group is the
            // last that starts at or before it.
            const u32 starts = wz_window_starts(n != 0u, start, c);
            const u32 o = before + wz_starts_upto(starts, lane) - 1u;
            before += __popc(starts);
            if (j < total) {
                const RgDesc g = desc[o];
                const u32 i = j - (g.start & 0x3fffffffu);
                u64 value = 0;
                if (!rg_expand_value<T>(st, m64, g, g.start >> 30, i, value)) {
                    bad = true;
                } else {
                    rg_place(dst, g.v + i, skip32, count32, (T)value);
                }
            }
        }
        __syncwarp();
    }
    return !bad;
}

// A region of the block's thread `t`: [s0, s1) of [head, reach), the staged bytes where the row
// group's RLE groups start (its last group may run on past `reach`, up to the stage's end).
struct RgRegion {
    u32 size, s0, s1;
    __device__ __forceinline__ RgRegion(u32 head, u32 reach, u32 t) {
        const u32 nt = ORC_RG_WARPS * 32u;
        size = (reach - head + nt - 1u) / nt;
        s0 = min(head + t * size, reach);
        s1 = min(s0 + size, reach);
    }
};

// Where the real chain enters each region (rr.entry), by the exit tables (every thread calls
// it).
template <int KIND>
__device__ void rg_entries_tables(const u8* st, const u16* masks, u32* marks, u32 head, u32 reach,
                                  u32 end, OrcRgRegions& rr, u32 vl) {
    const u32 nt = ORC_RG_WARPS * 32u;
    const u32 t = threadIdx.x;
    const RgRegion rg(head, reach, t);
    const u32 size = rg.size, s0 = rg.s0, s1 = rg.s1;
    // 1. The region's exit table (only this thread marks this region's bytes). The walks go
    // one after another, a step a loop turn, so a lane whose walk ends starts its next walk
    // while the others go on (a loop per walk kept each walk's lanes waiting for its longest).
    {
        u32 j = 0, x = s0, k = 0;
        while (j < RG_ENTRIES) {
            u32 e = RG_INVALID;  // the walk's exit once it ends
            if (x >= s1) {
                e = x;
            } else if (const u32 m = rg_mark_of(marks, x); m != 0u) {
                e = rr.exits[m - 1u][t];
            } else if (j > 0u && k == RG_TABLE_STEPS) {
                e = RG_EXIT_UNKNOWN;
            } else if (KIND == ORC_KIND_V1 && st[x] >= 0x80u && st[x] < 256u - 8u) {
                // A literal group of over 8 varints: most such headers are bytes of varints
                // met by a walk from a wrong entry, whose sizing would step the masks through
                // up to 128 varints. Where the real chain enters here, the walk through the
                // regions sizes it. (Also where groups are sized by varint lengths: such walks
                // would go on for the region's length, where they no longer meet the real chain;
                // stop 41.)
                e = RG_EXIT_UNKNOWN;
            } else {
                u32 values = 0;
                const u32 b = rg_extent<KIND>(st, masks, x, end, values, vl);
                if (b == 0u) {
                    e = RG_EXIT_BROKEN;
                } else {
                    rg_mark(marks, x, j + 1u);
                    x += b;
                    ++k;
                }
            }
            if (e != RG_INVALID) {
                rr.exits[j][t] = (u16)e;
                ++j;
                x = s0 + j;
                k = 0;
            }
        }
    }
    __syncthreads();
    // 2. One thread follows the real chain through the regions by their tables.
    if (t == 0) {
        u32 x = head;
        for (u32 r = 0; r < nt; ++r) {
            const u32 r0 = min(head + r * size, reach);
            const u32 r1 = min(r0 + size, reach);
            rr.entry[r] = x;
            if (x == RG_INVALID || x >= r1) continue;
            const u32 off = x - r0;
            const u32 e = off < RG_ENTRIES ? rr.exits[off][r] : RG_EXIT_UNKNOWN;
            if (e == RG_EXIT_BROKEN) {
                x = RG_INVALID;
            } else if (e != RG_EXIT_UNKNOWN) {
                x = e;
            } else if (!rg_chain<KIND>(
                           st, masks, x, end, [&](u32 q) { return q < r1; }, [](u32, u32) {},
                           vl)) {
                x = RG_INVALID;
            }
        }
    }
    __syncthreads();
}

// The same by speculation, for streams of short groups of small values, whose bytes read as
// headers lead back to the real chain within a few groups (TPC-H RLEv1 line numbers: 181 GB/s
// against 147 by the tables on an H200, stop 32). Each region's own walk marks where it goes;
// a group that is not valid or longer than RG_SPEC_MAX bytes moves the walk on by one byte
// instead, and only the walk after the last such move is a chain the real one can join. Then,
// in rounds, each thread follows the chain from where the region before it was left (below)
// until it meets a position it marked (from there the walks agree) or leaves its own region;
// when no exit changes in a round, every entry is the real one. False (in every thread) where
// RG_ROUNDS rounds do not settle.
template <int KIND>
__device__ bool rg_entries_rounds(const u8* st, const u16* masks, u32* marks, u32 head, u32 reach,
                                  u32 end, OrcRgRegions& rr) {
    const u32 t = threadIdx.x;
    const RgRegion rg(head, reach, t);
    const u32 s0 = rg.s0, s1 = rg.s1;
    u32 p = s0, chain = s0;
    while (p < s1) {
        u32 values = 0;
        const u32 b = rg_extent<KIND>(st, masks, p, min(end, p + RG_SPEC_MAX), values);
        if (b == 0u) {
            chain = ++p;
            continue;
        }
        rg_mark(marks, p, 1u);
        p += b;
    }
    const u32 spec_exit = p;
    // Each round, a region enters where the nearest region to its left that its entry lay in
    // (or whose chain broke) left it in the round before. Regions a group passes over (their
    // entry past their end: the last few past `reach`, or those inside an RLEv1 literal group
    // longer than a region) leave where they enter, so they are skipped rather than passing the
    // exit on a round each, which took more rounds than RG_ROUNDS (TPC-H RLEv1 keys).
    const u32 lane = wz_lane(), warp = t / 32u;
    const u32 none = RG_INVALID - 1u;  // a warp with no such region
    u32 exit = p;
    bool walked = s0 < s1;
    for (u32 r = 0; r < RG_ROUNDS; ++r) {
        const u32 wb = __ballot_sync(WZ_FULL_MASK, walked);
        const u32 below = wb & codag_lanemask_lt();
        const u32 near = __shfl_sync(WZ_FULL_MASK, exit, below ? 31u - __clz(below) : 0u);
        const u32 last = __shfl_sync(WZ_FULL_MASK, exit, wb ? 31u - __clz(wb) : 0u);
        if (lane == 0u) rr.warp_sums[warp] = wb ? last : none;
        __syncthreads();
        u32 entry = head;
        if (below) {
            entry = near;
        } else {
            for (u32 w = warp; w-- > 0u;) {
                if (rr.warp_sums[w] != none) {
                    entry = rr.warp_sums[w];
                    break;
                }
            }
        }
        rr.entry[t] = entry;
        u32 x = entry;
        const bool walks = x == RG_INVALID || x < s1;
        if (x != RG_INVALID && x < s1) {
            while (true) {
                if (x >= chain && rg_mark_of(marks, x) != 0u) {
                    x = spec_exit;
                    break;
                }
                u32 values = 0;
                const u32 b = rg_extent<KIND>(st, masks, x, end, values);
                if (b == 0u) {
                    x = RG_INVALID;
                    break;
                }
                x += b;
                if (x >= s1) break;
            }
        }
        const bool changed = x != exit || walks != walked;
        exit = x;
        walked = walks;
        if (!__syncthreads_or(changed)) return true;
    }
    return false;
}

// The fast path for one staged row group (every thread of the block calls it; the result is
// the same in every thread). `marks` has 4 bits for every staged byte. `vl`: RLEv1 groups
// sized by their control bytes alone (rg_extent), or 0.
template <typename T, int KIND>
__device__ bool rg_threads(const u8* __restrict__ in, const OrcGroup& g, const u8* st,
                           const u16* masks, u32* marks, u32 head, u32 end, u64 skip,
                           u64 target, T* __restrict__ dst, CodagSmemWindow window,
                           OrcRgRegions& rr, bool rounds, bool listed, u32 vl) {
    const u32 t = threadIdx.x;
    const u32 lane = wz_lane();
    const u32 warp = t / 32u;
    // The regions cover only where the row group's RLE groups start (a valid file's; in a
    // damaged one the chain ends short and the units take over), not the stage's tail past
    // the next row group's position (TPC-H RLEv2 keys: 28% of the stage).
    const u32 reach = head + min(g.data_starts, end - head);
    const u32 s1 = RgRegion(head, reach, t).s1;
    if (t == 0) {
        rr.n_longs = 0;
        rr.next_long = 0;
    }
    // Where the rounds do not settle (TPC-H RLEv1 keys: the first row group, whose first
    // groups hold small values and its later ones long varints), the tables, on clean marks.
    if (!rounds || !rg_entries_rounds<KIND>(st, masks, marks, head, reach, end, rr)) {
        if (rounds) {
            rg_clear_marks(marks, end);
            __syncthreads();
        }
        rg_entries_tables<KIND>(st, masks, marks, head, reach, end, rr, vl);
    }
    const u32 entry = rr.entry[t];
    // 3. The region's values, placed by a block scan (and for the RLEv2 list, its groups).
    const bool listing = KIND == ORC_KIND_V2 && listed;
    // Where the list is made (RLE v2), the offsets of the region's first RG_ENTRIES groups are
    // kept in the exit tables' rows (no longer needed), and where the walk goes on past them,
    // in `resume`, so that the list step walks only past them.
    u32 p = entry;
    u32 count = 0, groups = 0, resume = RG_INVALID;
    const auto add = [&](u32 x, u32 values) {
        if (listing) {
            if (groups < RG_ENTRIES) {
                rr.exits[groups][t] = (u16)x;
            } else if (groups == RG_ENTRIES) {
                resume = x;
            }
        }
        count += values;
        ++groups;
    };
    bool broken = !rg_chain<KIND>(
        st, masks, p, end, [&](u32 q) { return q != RG_INVALID && q < s1; }, add, vl);
    const u32 incl = wz_warp_inclusive_sum(count);
    const u32 groups_incl = listing ? wz_warp_inclusive_sum(groups) : 0u;
    if (lane == 31u) {
        rr.warp_sums[warp] = incl;
        rr.warp_groups[warp] = groups_incl;
    }
    // (Whether the chain runs whole through the regions: the list needs it; RLE v1, which has
    // no list, takes the plain barrier.)
    bool whole = false;
    if (listing) {
        whole = !__syncthreads_or(broken || entry == RG_INVALID);
    } else {
        __syncthreads();
    }
    u32 before = incl - count, groups_before = groups_incl - groups;
    u32 all_values = 0, all_groups = 0;
    for (u32 w = 0; w < ORC_RG_WARPS; ++w) {
        if (w < warp) {
            before += rr.warp_sums[w];
            groups_before += rr.warp_groups[w];
        }
        all_values += rr.warp_sums[w];
        all_groups += rr.warp_groups[w];
    }
    // The row group's last values may lie in groups that start past `reach`: a row index
    // position names the values its writer still held, which it may write as more than one
    // group (TPC-H RLEv2 keys: 46 of 601 row groups). The last thread, whose region ends at
    // `reach` (or is empty there), walks on from where the chain leaves it to those groups.
    const bool last = t == ORC_RG_WARPS * 32u - 1u;
    if (last && !broken && p != RG_INVALID) {
        broken = !rg_chain<KIND>(
            st, masks, p, end, [&](u32) { return (u64)before + count < target; }, add, vl);
    }
    // The chain must reach the group's last value before it breaks or the stage ends (the
    // last thread's count ends the chain's).
    const bool short_chain = (broken || last) && (u64)before + count < target;
    // 4. Each warp's regions together (rg_expand): short groups by the lanes, long ones
    // listed for the warps (the last thread's region up to where its walk went on to).
    const u32 stop = last && p != RG_INVALID && p > s1 ? p : s1;
    const bool more = !short_chain && entry != RG_INVALID && entry < stop && (u64)before < target;
    // RLEv2: the block's list of groups, in the marks (no longer needed): a u16 stage offset a
    // group and the chain's end, then the first value of every 32nd group, where it has room
    // for every group (those the last thread's walk adds hold a value each at least). TPC-H
    // RLEv2 keys 316-318 GB/s with it against 294-295 without (same binary, H200, stop 38);
    // RLEv1 keys 228-232 against 234-236, so not for RLE v1.
    const u32 marks_words = (end + 7u) / 8u;
    const u32 cap = (marks_words * 15u / 8u) & ~31u;
    const u64 more_groups = (u64)all_groups + (target > all_values ? target - all_values : 0u);
    bool bad;
    if (listing && whole && more_groups + 1u <= cap) {
        u16* const list = reinterpret_cast<u16*>(marks);
        u32* const batch_first = marks + cap / 2u;
        if (!short_chain) {
            u32 k = groups_before;
            u64 v = before;
            const auto put = [&](u32 x, u32 values) {
                list[k] = (u16)x;
                if ((k & 31u) == 0u) batch_first[k >> 5] = (u32)v;
                ++k;
                v += values;
            };
            // The groups step 3 kept, then a walk from the first it did not keep (step 3 walked
            // this chain, so it does not break) up to where step 3's ended (`p`).
            for (u32 i = 0; i < min(groups, RG_ENTRIES); ++i) {
                const u32 x = rr.exits[i][t];
                put(x, rg_values<KIND>(st, x));
            }
            if (groups > RG_ENTRIES) {
                u32 q = resume;
                rg_chain<KIND>(st, masks, q, end, [&](u32 x) { return x < stop; }, put);
            }
            if (last) {
                list[k] = (u16)p;
                rr.n_list = k;
            }
        }
        if (__syncthreads_or(short_chain)) return false;
        bad = !rg_expand<T, KIND, true>(st, masks, 0u, 0u, false, 0u, end, skip, target, dst, rr,
                                        list, batch_first, rr.n_list, 0u);
    } else {
        // Every lane calls rg_expand (its warp shuffles), also where the chain is short.
        const bool expanded =
            rg_expand<T, KIND, false>(st, masks, entry, before, more, stop, end, skip, target, dst,
                                      rr, nullptr, nullptr, 0u, vl);
        bad = short_chain || !expanded;
    }
    if (__syncthreads_or(bad)) return false;
    // 5. Long groups, a warp each, with the warp decoders (one group: its values in range).
    const u32 longs = rr.n_longs;
    bool long_bad = false;
    for (;;) {
        u32 k = 0;
        if (lane == 0) k = atomicAdd(&rr.next_long, 1u);
        k = __shfl_sync(WZ_FULL_MASK, k, 0);
        if (k >= longs) break;
        const u32 at = rr.long_at[k];
        const u64 first = rr.long_first[k];
        u32 values = 0;
        rg_extent<KIND>(st, masks, at, end, values);
        const u64 from = first > skip ? first : skip;
        const u64 to = first + values < target ? first + values : target;
        CodagOut<T> o(dst + (from - skip), from - first, to - from, false);
        long_bad |= rg_decode_warp<T, KIND>(in, g, head, at, window, o) != WZ_STATUS_OK;
    }
    return !__syncthreads_or(long_bad);
}

// ---- Split groups: RLEv1 row groups of long groups ----
// Where a row group's RLE groups are long (TPC-H RLEv1 quantities: 259 groups of 44 bytes a
// row group; ship dates: 117 of 261), warp 0 lists every group's offset and first value, and
// meanwhile the block's warps decode the listed groups, a warp a group: a run's values a lane
// each, and a literal group's varints by the lane whose 16-byte block of the payload ends
// them: inside a literal group the masks of varint ends mark exactly the varints' ends, and a
// warp scan of the blocks' counts numbers them (stop 37: no list of the ends in shared memory
// first, as stop 36 had). Where the list does not reach the row group's last value, holds
// more than RG_SPLIT_GROUPS groups, or a value fails a check, the units decode the row group
// again and give the exact status.

// Whether the RLEv1 literal group at `p` of `left` varints is `bytes` bytes long: its
// payload's last byte ends a varint, and the bytes before it end left - 1.
__device__ __forceinline__ bool rg_literal_is(const u16* masks, u32 p, u32 bytes, u32 left) {
    const u32 last = p + bytes - 1u;
    return rg_ends_between(masks, p + 1u, last) == left - 1u &&
           ((reinterpret_cast<const u64*>(masks)[last >> 6] >> (last & 63u)) & 1ull);
}

// rg_v1_extent by the whole warp (every lane passes the same `p` and gets the same result): a
// literal group's varint ends are counted in 32 mask words (2 KiB of stage) at once, a word a
// lane, instead of a word after another.
__device__ __forceinline__ u32 rg_v1_extent_warp(const u8* st, const u16* masks, u32 p, u32 end,
                                                 u32& values) {
    const u32 control = st[p];
    if (control < 0x80u) return rg_v1_run_extent(st, masks, p, end, control, values);
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    const u32 lane = wz_lane();
    u32 left = 256u - control;
    values = left;
    for (u32 q = p + 1u; q < end; q = 64u * ((q >> 6) + 32u)) {
        const u32 w = (q >> 6) + lane;
        u64 m = 64u * w < end ? m64[w] : 0ull;
        if (lane == 0u) m &= ~0ull << (q & 63u);
        const u32 c = __popcll(m);
        const u32 incl = wz_warp_inclusive_sum(c);
        const u32 hit = __ballot_sync(WZ_FULL_MASK, incl >= left);
        if (hit != 0u) {
            const u32 f = (u32)__ffs(hit) - 1u;
            const u32 e = 64u * w + rg_select64(m, left - (incl - c)) + 1u;
            const u32 at = __shfl_sync(WZ_FULL_MASK, e, f);
            return at <= end ? at - p : 0u;
        }
        left -= __shfl_sync(WZ_FULL_MASK, incl, 31);
    }
    return 0u;
}

// Decodes listed group `k` by the calling warp (every lane; the result is the same in each):
// the values of the row group's stream in [skip, target) go to dst[j - skip]. Every value of
// the group is checked as the warp decoders check it, also those outside [skip, target).
// Inside a literal group the masks mark exactly its varints' ends, so each lane decodes the
// varints that end in a 16-byte block of the payload. True where every value passed.
template <typename T>
__device__ bool rg_split_group(const u8* st, const u64* m64, u32 k, u64 skip, u64 target,
                               T* __restrict__ dst, const OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    const u32 at = rr.split.at[k], ge = rr.split.at[k + 1u];
    const u64 v0 = rr.split.first[k];
    const u32 control = st[at];
    const u32 count = control < 0x80u ? control + 3u : 256u - control;
    // The group's values to write: i in [lo, hi), to dst[v0 + i - skip] (= dst[at0 + i]).
    const u32 lo = skip > v0 ? (u32)min(skip - v0, (u64)count) : 0u;
    const u32 hi = target > v0 ? (u32)min(target - v0, (u64)count) : 0u;
    // Value i goes to dst[at0 + i] for i in [lo, hi), in 32-bit arithmetic (the split path runs
    // on row groups numbered below 2^32; at0 wraps where the group starts before the skip).
    const u32 at0 = (u32)(v0 - skip);
    if (control < 0x80u) {
        // A run: control, delta, the base's varint (which the list ends the group after).
        u32 q = 0;
        i64 b = 0, delta = 0;
        if (!rg_v1_run<T>(st, at, ge, count, q, b, delta) || q != ge) return false;
        for (u32 i = lo + lane; i < hi; i += 32u) dst[at0 + i] = (T)((u64)b + (u64)delta * i);
        return true;
    }
    const u32 payload = at + 1u;
    if (ge - payload == count) {
        // A varint a byte (each byte ends one): values of -64..63, which every T holds.
        for (u32 i = lo + lane; i < hi; i += 32u) {
            dst[at0 + i] = (T)(u64)orc_unzigzag(st[payload + i]);
        }
        return true;
    }
    // Longer varints: lane l takes the payload's 16-byte blocks 32 s + l, s = 0, 1, ... (one
    // step for up to 512 bytes), and decodes the varints that end in its block, from one past
    // the last end before each (the first: one past the last end of the block before, or the
    // payload's start). A warp scan of the blocks' ends numbers them. The group holds `count`
    // varints where the payload holds `count` ends and its last byte is one.
    const u16* m16 = reinterpret_cast<const u16*>(m64);
    const u32 b_end = (ge + 15u) >> 4;
    u32 before = 0;  // the ends of the earlier steps
    bool bad = false;
    for (u32 bs = payload >> 4; bs < b_end; bs += 32u) {
        const u32 b = bs + lane, lo_byte = 16u * b;
        u32 m = 0, q = payload;
        if (b < b_end) {
            m = m16[b];
            if (lo_byte < payload) m &= 0xffffu << (payload - lo_byte);
            if (lo_byte + 16u > ge) m &= (1u << (ge - lo_byte)) - 1u;
            if (lo_byte > payload) {
                u32 pm = m16[b - 1u];
                if (lo_byte - 16u < payload) pm &= 0xffffu << (payload - (lo_byte - 16u));
                if (pm != 0u) {
                    q = lo_byte - 16u + 32u - (u32)__clz(pm);
                } else if (lo_byte - 16u >= payload && m != 0u) {
                    bad = true;  // the varint that ends first here is over 16 bytes long
                    m = 0;
                }
            }
        }
        const u32 c = __popc(m);
        const u32 incl = wz_warp_inclusive_sum(c);
        u32 i = before + incl - c;  // the number of the varint ending at the next set bit
        for (; m != 0u; m &= m - 1u, ++i) {
            const u32 e = lo_byte + (u32)__ffs(m) - 1u;  // the varint: [q, e]
            u64 value = 0;
            bool ok = true;
            if (e - q < 4u) {
                // At most 28 bits: the value fits 32 bits, signed.
                const u32 raw = lane_varint_bits32(rg_load4(st, q), e - q + 1u);
                value = (u64)(i64)(int)orc_unzigzag32(raw);
                ok = sizeof(T) >= 4u || orc_fits<T, true>(value);
            } else {
                u64 raw = 0;
                if (e - q < 8u) {
                    raw = lane_varint_bits(rg_load8(st, q), e - q + 1u);
                } else {
                    u32 r = q;
                    ok = rg_varint(st, r, ge, raw) && r == e + 1u;
                }
                value = (u64)orc_unzigzag(raw);
                ok = ok && orc_fits<T, true>(value);
            }
            if (!ok) {
                bad = true;
            } else if (i - lo < hi - lo) {
                dst[at0 + i] = (T)value;
            }
            q = e + 1u;
        }
        before += __shfl_sync(WZ_FULL_MASK, incl, 31);
    }
    const u32 last = ge - 1u;
    if (before != count || ((m16[last >> 4] >> (last & 15u)) & 1u) == 0u) return false;
    return !__any_sync(WZ_FULL_MASK, bad);
}

// Listed groups [k, k + n) (n <= 32) by the calling warp (every lane; the result is the same
// in each), where they are short (RLEv1 quantities: 259 groups of 39 values a row group, runs
// and literal groups of one-byte varints): lane j describes group k + j (a run's base and
// delta, checked at both ends, or a literal group's payload), a warp scan places the groups'
// values, and lane j of every 32 finds its group among the groups that start in those 32 (a
// bit each, one warp reduction) and writes value j, so a store writes a few groups' values side
// by side. Where a group of the batch holds varints longer than a byte, the warp decodes the
// batch a group at a time (rg_split_group). True where every value passed.
template <typename T>
__device__ bool rg_split_batch(const u8* st, const u64* m64, u32 k, u32 n, u64 skip, u64 target,
                               T* __restrict__ dst, const OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    u32 count = 0, v0 = 0, run = 0;
    u64 a = 0, delta = 0;
    bool bad = false, longer = false;
    if (lane < n) {
        const u32 at = rr.split.at[k + lane], ge = rr.split.at[k + lane + 1u];
        v0 = rr.split.first[k + lane];
        const u32 control = st[at];
        if (control < 0x80u) {
            count = control + 3u;
            run = 1u;
            u32 q = 0;
            i64 b = 0, d = 0;
            bad = !rg_v1_run<T>(st, at, ge, count, q, b, d) || q != ge;
            a = (u64)b;
            delta = (u64)d;
        } else {
            count = 256u - control;
            a = at + 1u;
            longer = ge - (at + 1u) != count;
        }
    }
    if (__any_sync(WZ_FULL_MASK, longer)) {
        bool ok = true;
        for (u32 j = 0; j < n && ok; ++j) {
            ok = rg_split_group<T>(st, m64, k + j, skip, target, dst, rr);
        }
        return ok;
    }
    // (A failed check: the row group is decoded again by the units.)
    if (__any_sync(WZ_FULL_MASK, bad)) return false;
    const u32 incl = wz_warp_inclusive_sum(count);
    const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    const u32 first = incl - count;
    u32 before = 0;  // the groups that start before value c
    for (u32 c = 0; c < total; c += 32u) {
        const u32 j = c + lane;
        // Lanes below n hold a group of at least one value each, so value j's lane is the last
        // whose group starts at or before it: one bit a start among values c .. c + 31.
        const u32 starts = wz_window_starts(lane < n, first, c);
        const u32 o = before + wz_starts_upto(starts, lane) - 1u;
        before += __popc(starts);
        const u32 start = __shfl_sync(WZ_FULL_MASK, first, o);
        const u64 oa = __shfl_sync(WZ_FULL_MASK, a, o);
        const u64 od = __shfl_sync(WZ_FULL_MASK, delta, o);
        const u32 ov = __shfl_sync(WZ_FULL_MASK, v0, o);
        const u32 orun = __shfl_sync(WZ_FULL_MASK, run, o);
        if (j < total) {
            const u32 i = j - start;
            // A literal byte is a value of -64..63, which every T holds.
            const u64 value = orun != 0u ? oa + od * i : (u64)orc_unzigzag(st[(u32)oa + i]);
            rg_place(dst, ov + i, (u32)skip, (u32)(target - skip), (T)value);
        }
    }
    return true;
}

#define RG_SPLIT_LISTING 0u  // rr.split_state: warp 0 is listing
#define RG_SPLIT_LISTED 1u   // the list reaches the row group's last value
#define RG_SPLIT_BROKEN 2u   // it does not (or would hold over RG_SPLIT_GROUPS groups)

// Warp 0 publishes that groups [0, k) are listed with their ends (at[k] and first[k] written).
__device__ __forceinline__ void rg_split_publish(OrcRgRegions& rr, u32 k, u32 state) {
    __threadfence_block();  // every lane's entries before the count
    __syncwarp();
    if (wz_lane() == 0u) {
        *reinterpret_cast<volatile u32*>(&rr.n_split) = k;
        if (state != RG_SPLIT_LISTING) {
            __threadfence_block();
            *reinterpret_cast<volatile u32*>(&rr.split_state) = state;
        }
    }
}

// Waits (one lane) until warp 0 has listed `need` groups or ended its list; the state and, in
// `listed`, the count read after it (final where the state is not RG_SPLIT_LISTING).
__device__ __forceinline__ u32 rg_split_wait(const OrcRgRegions& rr, u32 need, u32& listed) {
    for (;;) {
        const u32 state = *reinterpret_cast<const volatile u32*>(&rr.split_state);
        __threadfence_block();  // the count read after the state is the final one
        listed = *reinterpret_cast<const volatile u32*>(&rr.n_split);
        if (listed >= need || state != RG_SPLIT_LISTING) return state;
        __nanosleep(100);
    }
}

// Split groups of one row group (every thread of the block calls it; the result is the same in
// each). Warp 0 lists the groups up to the row group's last value, up to 32 a round: every
// lane follows the same guessed chain (a literal group of `left` varints taken to be 1 + width
// * left bytes, a run 2 + width, `width` the last literal group's bytes a value), lane j keeps
// the chain's j-th group and sizes it truly, and the groups up to the first wrong guess stand,
// that one too with its true size. Where rounds keep fewer than 4 groups (RLEv1 ship dates:
// varints of two and three bytes mixed in most literal groups), the warp walks on a group at a
// time, sizing each by rg_v1_extent_warp. Meanwhile the other warps decode the groups listed so
// far, a warp a group, and warp 0 joins them when its list is done. True where the list
// reached the row group's last value and every value passed its checks.
template <typename T>
__device__ bool rg_split(const u8* st, const u16* masks, u32 head, u32 end, u64 skip, u64 target,
                         T* __restrict__ dst, OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    if (threadIdx.x == 0) {
        rr.n_split = 0;
        rr.split_state = RG_SPLIT_LISTING;
        rr.next_split = 0;
        rr.split_take = 2;
        rr.split.at[0] = head;
        rr.split.first[0] = 0;
    }
    __syncthreads();
    if (threadIdx.x < 32u) {
        u32 p = head, k = 0, width = 1, span = 32;
        u64 v = 0;
        bool ok = true, rounds = true;
        while (rounds && v < target) {
            u32 x = p, mine = end, guess = 0;
            for (u32 j = 0; j < span && x < end; ++j) {
                const u32 c = st[x];
                const u32 g = c >= 0x80u ? 1u + width * (256u - c) : 2u + width;
                if (j == lane) {
                    mine = x;
                    guess = g;
                }
                x += g;
            }
            u32 values = 0, bytes = 0, new_width = width;
            if (mine < end) {
                const u32 c = st[mine];
                const u32 left = 256u - c;
                if (c >= 0x80u && guess < end - mine &&
                    rg_literal_is(masks, mine, guess, left)) {
                    values = left;
                    bytes = guess;
                } else {
                    bytes = rg_extent<ORC_KIND_V1>(st, masks, mine, end, values);
                    if (c >= 0x80u && bytes > 1u) new_width = max(1u, (bytes - 1u) / left);
                }
            }
            const u32 rights = __ballot_sync(WZ_FULL_MASK, mine < end && bytes == guess);
            const u32 f = rights == WZ_FULL_MASK ? 32u : (u32)__ffs(~rights) - 1u;
            u32 n = f;
            if (f < 32u) {
                const bool known = __shfl_sync(WZ_FULL_MASK, mine < end && bytes != 0u, f);
                width = __shfl_sync(WZ_FULL_MASK, new_width, f);
                if (known) n = f + 1u;
            }
            const u32 vals = lane < n ? values : 0u;
            const u32 incl = wz_warp_inclusive_sum(vals);
            const u64 first = v + (incl - vals);
            const u32 m = __popc(__ballot_sync(WZ_FULL_MASK, lane < n && first < target));
            if (m == 0u || k + m > RG_SPLIT_GROUPS) {
                ok = false;
                break;
            }
            if (lane < m) {
                rr.split.at[k + lane] = mine;
                rr.split.first[k + lane] = (u32)first;
            }
            p = __shfl_sync(WZ_FULL_MASK, mine + bytes, m - 1u);
            v += __shfl_sync(WZ_FULL_MASK, incl, m - 1u);
            k += m;
            if (lane == 0u) {
                rr.split.at[k] = p;
                rr.split.first[k] = (u32)v;
                // (The first round, before its publish.)
                if (k == m && m == 32u) rr.split_take = 32u;
            }
            rg_split_publish(rr, k, RG_SPLIT_LISTING);
            rounds = m >= 4u;
            span = m == span ? 32u : max(4u, m + 1u);
        }
        // The walk a group at a time (p, v, k and ok are the same in every lane).
        while (ok && v < target) {
            u32 values = 0, bytes = 0;
            if (p < end && k < RG_SPLIT_GROUPS) {
                bytes = rg_v1_extent_warp(st, masks, p, end, values);
            }
            if (bytes == 0u) {
                ok = false;
                break;
            }
            ++k;
            p += bytes;
            v += values;
            if (lane == 0u) {
                rr.split.at[k] = p;
                rr.split.first[k] = (u32)v;
            }
            rg_split_publish(rr, k, RG_SPLIT_LISTING);
        }
        rg_split_publish(rr, k, ok ? RG_SPLIT_LISTED : RG_SPLIT_BROKEN);
    }
    // Every warp decodes listed groups, taking the next `take` as soon as they are listed (one
    // take, wait and fence for them): 32 (rg_split_batch) where warp 0's first round listed 32
    // groups (short groups: RLEv1 quantities), else 2 (RLEv1 ship dates, listed a group at a time).
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    bool bad = false;
    u32 take = 2;
    if (lane == 0u) {
        u32 listed = 0;
        rg_split_wait(rr, 1u, listed);
        __threadfence_block();  // split_take was written before the first count
        take = *reinterpret_cast<volatile u32*>(&rr.split_take) == 32u ? 32u : 2u;
    }
    take = __shfl_sync(WZ_FULL_MASK, take, 0);
    for (;;) {
        u32 k = 0, state = RG_SPLIT_LISTING, listed = 0;
        if (lane == 0u) {
            k = atomicAdd(&rr.next_split, take);
            state = rg_split_wait(rr, k + take, listed);
        }
        k = __shfl_sync(WZ_FULL_MASK, k, 0);
        state = __shfl_sync(WZ_FULL_MASK, state, 0);
        listed = __shfl_sync(WZ_FULL_MASK, listed, 0);
        __threadfence_block();  // the entries after the count
        if (state == RG_SPLIT_BROKEN || k >= listed) break;
        const u32 n = min(take, listed - k);
        if (take == 32u) {
            if (!rg_split_batch<T>(st, m64, k, n, skip, target, dst, rr)) {
                bad = true;
                break;
            }
        } else if (!rg_split_group<T>(st, m64, k, skip, target, dst, rr) ||
                   (n > 1u && !rg_split_group<T>(st, m64, k + 1u, skip, target, dst, rr))) {
            bad = true;
            break;
        }
    }
    return !__syncthreads_or(bad) && rr.split_state == RG_SPLIT_LISTED;
}

// The same as rg_decode_warp from the stage in shared memory ([at, end) of it), whose refills
// wait on shared memory rather than L2. Not OK where the stage ends first (a damaged stream):
// the caller then decodes from global memory for the exact status.
template <typename T, int KIND>
__device__ __forceinline__ u32 rg_decode_stage(const u8* stage, u32 at, u32 end,
                                               CodagSmemWindow window, CodagOut<T>& o) {
    OrcIn s(stage, at, end - at, window);
    if constexpr (KIND == ORC_KIND_V1) {
        decode_v1<T, true>(s, o);
    } else {
        decode_v2<T, true>(s, o);
    }
    return orc_finish(s, o);
}

template <typename T, int KIND>
__device__ __forceinline__ void orc_row_group_blocks(
    const u8* __restrict__ in, const OrcGroup* __restrict__ groups, u32 n_groups,
    void* __restrict__ values, u8* __restrict__ valid, u8* __restrict__ scratch,
    u32* __restrict__ status, u32* next_chunk, u32 stage_cap, u32 flags) {
    extern __shared__ __align__(16) u8 rg_dynamic[];
    __shared__ OrcRgShared sh;
    __shared__ OrcRgRegions rr;
    u8* stage = rg_dynamic;
    u16* masks = reinterpret_cast<u16*>(rg_dynamic + stage_cap);
    // Where the host made room for them (RG_FLAG_MARKS), 4 bits per staged byte for the
    // regions' walks, after the stage (and RLEv1's masks).
    const bool has_marks = (flags & RG_FLAG_MARKS) != 0u;
    u32* marks = reinterpret_cast<u32*>(
        rg_dynamic + stage_cap +
        (KIND == ORC_KIND_V1 ? (2u * (stage_cap / 16u + 128u) + 15u) & ~15u : 0u));
    const u32 warp = threadIdx.x / 32u;
    const u32 lane = wz_lane();
    CodagSmemWindow window(sh.windows[warp]);
    T* out = reinterpret_cast<T*>(values);
    for (u32 parity = 0;; parity ^= 1u) {
        if (threadIdx.x == 0) sh.chunk[parity] = atomicAdd(next_chunk, 1u);
        __syncthreads();
        const u32 c = sh.chunk[parity];
        if (c >= n_groups) return;
        const OrcGroup g = groups[c];
        const u32 head = (u32)(g.data_offset & 15ull);
        const u32 span = min(g.data_span, g.data_len);
        const u32 staged = (head + span + 15u) & ~15u;
        if ((u64)head + span + 16u > stage_cap) {
            // Too long to stage: one warp decodes the row group as `orc_col_*` does.
            if (warp == 0) {
                const u32 st = orc_group_warp<T, KIND>(in, g, window, out, valid, scratch);
                if (lane == 0) status[c] = st;
            }
            continue;
        }
        // PRESENT (warp 0) while the block stages the DATA bytes.
        if (warp == 0) {
            u64 n = 0;
            const u32 st = orc_group_present(in, g, window, scratch, valid, n);
            if (lane == 0) {
                sh.present_status = st;
                sh.n = n;
            }
        }
        const uint4* src = reinterpret_cast<const uint4*>(in + (g.data_offset - head));
        for (u32 k = threadIdx.x; k < staged / 16u; k += ORC_RG_WARPS * 32u) {
            codag_cp_async16(stage + 16u * k, src + k);
        }
        codag_cp_async_commit();
        if (has_marks) rg_clear_marks(marks, head + span);
        codag_cp_async_wait(0);
        __syncthreads();
        if constexpr (KIND == ORC_KIND_V1) {
            for (u32 k = threadIdx.x; k < staged / 16u; k += ORC_RG_WARPS * 32u) {
                masks[k] = (u16)stage_stops16(reinterpret_cast<const uint4*>(stage)[k]);
            }
            __syncthreads();  // the walk reads every mask
        }
        const u64 n = sh.n;
        const u64 skip = g.data_skip;
        const u32 end = head + span;
        const bool go = sh.present_status == WZ_STATUS_OK && n > 0;
        const bool spread = orc_spreads<KIND>(g);
        T* dst = spread ? reinterpret_cast<T*>(orc_dense_area(scratch, g)) : out + g.out_row;
        // The thread regions first; the units where they give up. They are tried where the
        // first 8 groups lie in under 96 bytes (RLEv2: 128) and hold at most RG_LONG values
        // each (a walk by one thread would be long: TPC-H keys, RLEv1 line numbers; RLEv1
        // quantities, 8 groups in 232-586 bytes, measured 2x slower with them). Where those
        // groups are RLEv1, lie in under 64 bytes and store a value in a byte each (one-byte
        // varints), the regions' entries are found by the rounds, else by the tables (RLEv2
        // keys, whose DELTA groups would pass an RLEv2 version of that rule, measured 98 GB/s
        // with the rounds on some row groups against 167 with the tables alone). Flags 16 tries
        // the regions everywhere, 8 nowhere, 4 never by the rounds. Every thread probes alike.
        // RLEv1 row groups that take the tables, whose first 8 groups' varints all seem to have
        // the same length of 2 to 8 bytes, as does the next row group's first group (TPC-H
        // keys: 3 bytes, then 4 from key 2^20 on), have their groups sized by that length
        // (`vl`, rg_extent), which step 4 checks (flags 512: never); where they show two or
        // three lengths, by those (flags 2048: never).
        bool try_fast = false, small = true;
        u32 vl = 0;
        if (go && has_marks && !(flags & 8u) && skip + n <= 0xffffffffull) {
            u32 p = head, k = 0;
            u32 lo = 255u, hi = 0u;  // the shortest and longest varint seen (about, in literals)
            const auto lengths = [&](u32 h, u32 b, u32 values) {
                const u32 l = h < 0x80u ? b - 2u : (b - 1u) / values;
                lo = min(lo, l);
                hi = max(hi, h < 0x80u || b - 1u == values * l ? l : l + 1u);
            };
            // Within 96 bytes (RLEv1), 128 (RLEv2: TPC-H SF 12's keys, which pass 96 less often
            // than SF 1's, 410.7 -> 521.0 GB/s in stop 44; a wider RLEv1 bound sends RLEv1
            // quantities' row groups to the regions, 579 -> 150 GB/s at SF 1). Diagnostics:
            // flags bits 16-23, where not 0, set the bound.
            const u32 reach_flag = (flags >> 16) & 255u;
            const u32 probe_reach = reach_flag    ? reach_flag
                                    : KIND == ORC_KIND_V2 ? 128u
                                                          : 96u;
            for (; k < 8u && p < end && p - head < probe_reach; ++k) {
                u32 values = 0;
                const u32 b = rg_extent<KIND>(stage, masks, p, end, values);
                if (b == 0u || values > RG_LONG) break;
                const u32 h = stage[p];
                small = small && (h < 0x80u ? b == 3u : b == 1u + values);
                lengths(h, b, values);
                p += b;
            }
            try_fast = (k == 8u && p - head < probe_reach) || (flags & 16u);
            small = KIND == ORC_KIND_V1 && small && k == 8u && p - head < 64u && !(flags & 4u);
            // The next row group's first group (at its position: `data_starts` counts that
            // byte), where the stage holds it: sorted keys' varints may have grown by then, to
            // another length than `vl`, or past one byte (TPC-H RLEv1 keys' first row group,
            // whose first keys fit a byte: the rounds would fail on it).
            const u32 next = head + g.data_starts - 1u;
            if (KIND == ORC_KIND_V1 && try_fast && g.data_starts < g.data_span && next < end) {
                u32 values = 0;
                const u32 b = rg_extent<KIND>(stage, masks, next, end, values);
                const u32 h = stage[next];
                if (b != 0u) {
                    small = small && (h < 0x80u ? b == 3u : b == 1u + values);
                    lengths(h, b, values);
                }
            }
            // Groups sized by one varint length (2..8 bytes) or by a range of 2 or 3 lengths
            // (rg_extent), where the rounds do not take the row group.
            if (KIND == ORC_KIND_V1 && k == 8u && !small && !(flags & RG_FLAG_NO_VL) && lo >= 1u) {
                if (lo == hi && lo >= 2u && lo <= 8u) {
                    vl = lo;
                } else if (hi > lo && hi - lo <= 2u && hi <= 10u && !(flags & RG_FLAG_NO_RANGE)) {
                    vl = lo + (hi - lo) * RG_VL_SPAN;
                }
            }
        }
        // Where regions sized by `vl` fail (a varint of another length), the regions again,
        // sized varint by varint: the split groups and the units would take a row group of
        // short groups several times as long, and the whole column waits for its slowest.
        bool fast = false;
        for (u32 sized = vl; try_fast;) {
            fast = rg_threads<T, KIND>(in, g, stage, masks, marks, head, end, skip, skip + n, dst,
                                       window, rr, small, !(flags & RG_FLAG_NO_LIST), sized);
            if (fast || sized == 0u || (flags & RG_FLAG_VL_STRICT)) break;
            sized = 0u;
            rg_clear_marks(marks, end);
            __syncthreads();
        }
        // (Tests: a row group whose regions sized by `vl` failed, reported as CORRUPT, which
        // shows they were taken and that their checks caught a varint of another length.)
        const bool vl_failed = try_fast && vl != 0u && !fast && (flags & RG_FLAG_VL_STRICT);
        // RLEv1 row groups the regions do not take: split groups (flags 8 or 64: never).
        bool split = false;
        if constexpr (KIND == ORC_KIND_V1) {
            if (go && !fast && !vl_failed && !(flags & (8u | RG_FLAG_NO_SPLIT)) &&
                skip + n <= 0xffffff00ull) {
                split = rg_split<T>(stage, masks, head, end, skip, skip + n, dst, rr);
            }
        }
        const bool done = fast || split || vl_failed;
        const u64 per = (skip + n) / (ORC_RG_WARPS * ORC_RG_UNITS_PER_WARP);
        const u64 unit_values = per > ORC_RG_MIN_UNIT ? per : ORC_RG_MIN_UNIT;
        if (threadIdx.x == 0 && go && !done) {
            rg_walk<KIND>(stage, masks, head, end, skip, skip + n, unit_values, sh);
        }
        __syncthreads();
        // The units' warps read the staged bytes (shared memory): RLEv2 ship dates 407.0 ->
        // 508.2 GB/s on an H200, stop 33; from global memory (L2) with flags 256, and where
        // the stage ends before a unit does (a damaged stream), for the exact status.
        const bool from_stage = (flags & RG_FLAG_UNITS_GLOBAL) == 0u;
        if (go && !done) {
            const u32 units = sh.units;
            for (;;) {
                u32 k = 0;
                if (lane == 0) k = atomicAdd(&sh.next_unit, 1u);
                k = __shfl_sync(WZ_FULL_MASK, k, 0);
                if (k >= units) break;
                const u64 first = sh.unit_first[k] > skip ? sh.unit_first[k] : skip;
                const u32 at = sh.unit_at[k];
                u32 st = WZ_STATUS_CORRUPT;
                if (from_stage) {
                    CodagOut<T> o(dst + (first - skip), k == 0 ? skip : 0ull,
                                  sh.unit_first[k + 1u] - first, false);
                    st = rg_decode_stage<T, KIND>(stage, at, end, window, o);
                }
                if (st != WZ_STATUS_OK) {
                    CodagOut<T> o(dst + (first - skip), k == 0 ? skip : 0ull,
                                  sh.unit_first[k + 1u] - first, false);
                    st = rg_decode_warp<T, KIND>(in, g, head, at, window, o);
                }
                if (lane == 0) sh.unit_status[k] = st;
            }
        }
        __syncthreads();
        if (warp == 0) {
            // The group's status: PRESENT's, else the first failed unit's (the units lie in
            // stream order, and each starts where the stream holds a group in every reading).
            u32 st = vl_failed ? WZ_STATUS_CORRUPT : sh.present_status;
            if (go && !done) {
                const u32 units = sh.units;
                for (u32 k0 = 0; k0 < units && st == WZ_STATUS_OK; k0 += 32u) {
                    const u32 s = k0 + lane < units ? sh.unit_status[k0 + lane] : WZ_STATUS_OK;
                    const u32 bad = __ballot_sync(WZ_FULL_MASK, s != WZ_STATUS_OK);
                    if (bad) st = __shfl_sync(WZ_FULL_MASK, s, __ffs(bad) - 1);
                }
            }
            __syncwarp();
            if (spread) orc_group_spread<T, KIND>(g, st, scratch, out);
            if (lane == 0) status[c] = st;
        }
    }
}

#define ORC_RG_PARAMS ORC_COLUMN_PARAMS, u32 stage_cap, u32 flags
#define ORC_RG_ARGS ORC_COLUMN_ARGS, stage_cap, flags
#define ORC_RG_KERNEL(name, T, KIND, BLOCKS)                                       \
    extern "C" __global__ void __launch_bounds__(ORC_RG_WARPS * 32u, BLOCKS)       \
        name(ORC_RG_PARAMS) {                                                      \
        orc_row_group_blocks<T, KIND>(ORC_RG_ARGS);                                \
    }

#ifndef ORC_RLE_RG6
// 5 blocks an SM (96 registers): the 601 row groups of a TPC-H SF 1 stripe in one wave, where
// each row group's own time sets the column's.
ORC_RG_KERNEL(orc_rg_v1_i16, u16, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v1_i32, u32, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v1_i64, u64, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v2_i16, u16, ORC_KIND_V2, 5)
ORC_RG_KERNEL(orc_rg_v2_i32, u32, ORC_KIND_V2, 5)
ORC_RG_KERNEL(orc_rg_v2_i64, u64, ORC_KIND_V2, 5)
#else
// RLEv2 with 6 blocks an SM (80 registers), in their own module (orc_rle_rg6.cu) so that a
// decode that never needs them never compiles them: batches of more row groups than one wave
// of the above, where the SM's throughput sets the column's time (stop 44, H200: TPC-H SF 12,
// 5-8% faster on RLEv2 columns, SF 2 up to 5%; 1.5-3% slower than the above on SF 1's one
// wave). Not RLEv1: its keys lost 5% at SF 2 and gained nothing at SF 12.
ORC_RG_KERNEL(orc_rg6_v2_i16, u16, ORC_KIND_V2, 6)
ORC_RG_KERNEL(orc_rg6_v2_i32, u32, ORC_KIND_V2, 6)
ORC_RG_KERNEL(orc_rg6_v2_i64, u64, ORC_KIND_V2, 6)
#endif
