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
//   the block's warps decode the units at once with the same warp decoders. A file of 601 row
//   groups (TPC-H SF 1 lineitem) is 601 warps one way and 601 blocks of 8 the other: ORC keeps
//   no index below the row group, so the walk is what finds work for more warps.
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
    u32 reserved2;
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
        for (u32 r = lane; r < g.rows; r += 32) valid[g.out_row + r] = 1;
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
                                                 const u8* __restrict__ scratch, T* __restrict__ out) {
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

// ---------------------------------------------------------------------------------------------
// A block per row group.

#define ORC_RG_WARPS 8u           // most warps per block
#define ORC_RG_UNITS 64u          // most units a row group is cut into
#define ORC_RG_UNITS_PER_WARP 4u  // units a warp gets on average, for balance
#define ORC_RG_MIN_UNIT 256u      // fewest values a unit is cut at

// What the block shares besides its stage (dynamic shared memory: the stage, then for RLEv1
// the masks of varint ends of its 16-byte blocks).
struct OrcRgShared {
    u32 windows[ORC_RG_WARPS][64];
    u16 ends[ORC_RG_WARPS][128];
    u32 unit_at[ORC_RG_UNITS];     // stage offset of unit k's first RLE group
    u64 unit_first[ORC_RG_UNITS + 1];  // its first value, counted from the group's position
                                       // (skipped values included); then the sentinel `target`
    u32 unit_status[ORC_RG_UNITS];
    u32 chunk[2];  // the block's next row group, by loop parity
    u32 units;
    u32 next_unit;
    u32 whole;  // the walk reached the group's last value inside the stage
    u32 present_status;
    u64 n;
};

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
    values = len;
    if (kind == 1u) return 2u + (orc_decode_width(h >> 1) * len + 7u) / 8u;  // DIRECT
    if (kind == 2u) {  // PATCHED_BASE
        if (end - p < 4u) return 0u;
        const u32 b2 = st[p + 2u], b3 = st[p + 3u];
        const u32 patch_width = orc_decode_width(b2);
        const u32 gap_width = (b3 >> 5) + 1u;
        if (gap_width + patch_width > 64u) return 0u;
        const u32 entry_width = orc_closest_fixed_width(gap_width + patch_width);
        return 4u + (b2 >> 5) + 1u + (orc_decode_width(h >> 1) * len + 7u) / 8u +
               (entry_width * (b3 & 31u) + 7u) / 8u;
    }
    // DELTA: the base and the first delta (varints), then the steps unless the delta is fixed.
    u32 q = p + 2u;
    for (u32 k = 0; k < 2u; ++k) {
        for (u32 i = 0;; ++i) {
            if (q >= end || i == 10u) return 0u;
            if (st[q++] < 0x80u) break;
        }
    }
    const u32 code = (h >> 1) & 31u;
    const u32 width = code == 0u ? 0u : orc_decode_width(code);
    const u32 steps = len > 2u ? len - 2u : 0u;
    return (q - p) + (width * steps + 7u) / 8u;
}

// The same for the RLEv1 group at `p`: a run (control, delta, a varint) or a literal group
// (control, then varints found by the masks of the bytes below 0x80).
__device__ __forceinline__ u32 rg_v1_extent(const u8* st, const u16* masks, u32 p, u32 end,
                                            u32& values) {
    const u32 control = st[p];
    if (control < 0x80u) {
        values = control + 3u;
        u32 q = p + 2u;
        for (u32 i = 0;; ++i) {
            if (q >= end || i == 10u) return 0u;
            if (st[q++] < 0x80u) break;
        }
        return q - p;
    }
    u32 left = 256u - control;
    values = left;
    u32 q = p + 1u;
    while (q < end) {
        const u32 blk = q >> 4;
        u32 m = (u32)masks[blk] & ~((1u << (q & 15u)) - 1u);
        const u32 c = __popc(m);
        if (c >= left) {
            for (u32 k = 1; k < left; ++k) m &= m - 1u;
            q = 16u * blk + (u32)__ffs(m);  // one past the last varint's last byte
            return q <= end ? q - p : 0u;
        }
        left -= c;
        q = 16u * (blk + 1u);
    }
    return 0u;
}

// One thread walks the group headers of the staged stream [head, end) from the row group's
// position and cuts it into units: a cut falls on a group boundary once the unit holds at
// least `unit_values` values and lies past the skipped ones. The walk stops at the group's
// last value (then `whole`), at the stage's end, or at a header it cannot size; the last unit
// then runs on from its start to wherever the warp decoder finds the group's end.
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
    sh.whole = v >= target;
    sh.next_unit = 0;
}

template <typename T, int KIND, u32 WARPS>
__device__ __forceinline__ void orc_row_group_blocks(
    const u8* __restrict__ in, const OrcGroup* __restrict__ groups, u32 n_groups,
    void* __restrict__ values, u8* __restrict__ valid, u8* __restrict__ scratch,
    u32* __restrict__ status, u32* next_chunk, u32 stage_cap) {
    extern __shared__ __align__(16) u8 rg_dynamic[];
    __shared__ OrcRgShared sh;
    u8* stage = rg_dynamic;
    u16* masks = reinterpret_cast<u16*>(rg_dynamic + stage_cap);
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
        for (u32 k = threadIdx.x; k < staged / 16u; k += WARPS * 32u) {
            codag_cp_async16(stage + 16u * k, src + k);
        }
        codag_cp_async_commit();
        codag_cp_async_wait(0);
        __syncthreads();
        if constexpr (KIND == ORC_KIND_V1) {
            for (u32 k = threadIdx.x; k < staged / 16u; k += WARPS * 32u) {
                masks[k] = (u16)stage_stops16(reinterpret_cast<const uint4*>(stage)[k]);
            }
        }
        const u64 n = sh.n;
        const u64 skip = g.data_skip;
        const u32 end = head + span;
        const bool go = sh.present_status == WZ_STATUS_OK && n > 0;
        if (threadIdx.x == 0 && go) {
            const u64 per = (skip + n) / (WARPS * ORC_RG_UNITS_PER_WARP);
            rg_walk<KIND>(stage, masks, head, end, skip, skip + n,
                          per > ORC_RG_MIN_UNIT ? per : ORC_RG_MIN_UNIT, sh);
        }
        __syncthreads();
        const bool spread = orc_spreads<KIND>(g);
        T* dst = spread ? reinterpret_cast<T*>(orc_dense_area(scratch, g)) : out + g.out_row;
        if (go) {
            const u32 units = sh.units;
            for (;;) {
                u32 k = 0;
                if (lane == 0) k = atomicAdd(&sh.next_unit, 1u);
                k = __shfl_sync(WZ_FULL_MASK, k, 0);
                if (k >= units) break;
                const u64 first = sh.unit_first[k] > skip ? sh.unit_first[k] : skip;
                const u32 at = sh.unit_at[k];
                CodagOut<T> o(dst + (first - skip), k == 0 ? skip : 0ull,
                              sh.unit_first[k + 1u] - first, false);
                u32 st;
                if (KIND == ORC_KIND_V1 && (k + 1u < units || sh.whole)) {
                    // Every group of the unit lies in the stage (the walk went past it).
                    st = decode_v1_staged<T, true>(stage, masks, sh.ends[warp], at, end, o);
                } else {
                    OrcIn s(in, g.data_offset + (at - head), g.data_len - (at - head), window);
                    if constexpr (KIND == ORC_KIND_V1) {
                        decode_v1<T, true>(s, o);
                    } else {
                        decode_v2<T, true>(s, o);
                    }
                    st = orc_finish(s, o);
                }
                if (lane == 0) sh.unit_status[k] = st;
            }
        }
        __syncthreads();
        if (warp == 0) {
            // The group's status: PRESENT's, else the first failed unit's (the units lie in
            // stream order, and each starts where the stream holds a group in every reading).
            u32 st = sh.present_status;
            if (go) {
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

#define ORC_RG_PARAMS ORC_COLUMN_PARAMS, u32 stage_cap
#define ORC_RG_ARGS ORC_COLUMN_ARGS, stage_cap
#define ORC_RG_KERNEL(name, T, KIND, WARPS, MIN_BLOCKS)                                       \
    extern "C" __global__ void __launch_bounds__(WARPS * 32u, MIN_BLOCKS) name(ORC_RG_PARAMS) { \
        orc_row_group_blocks<T, KIND, WARPS>(ORC_RG_ARGS);                                    \
    }
#define ORC_RG_KERNELS(suffix, WARPS, MIN_BLOCKS)                                              \
    ORC_RG_KERNEL(orc_rg_v1_i16##suffix, u16, ORC_KIND_V1, WARPS, MIN_BLOCKS)                  \
    ORC_RG_KERNEL(orc_rg_v1_i32##suffix, u32, ORC_KIND_V1, WARPS, MIN_BLOCKS)                  \
    ORC_RG_KERNEL(orc_rg_v1_i64##suffix, u64, ORC_KIND_V1, WARPS, MIN_BLOCKS)                  \
    ORC_RG_KERNEL(orc_rg_v2_i16##suffix, u16, ORC_KIND_V2, WARPS, MIN_BLOCKS)                  \
    ORC_RG_KERNEL(orc_rg_v2_i32##suffix, u32, ORC_KIND_V2, WARPS, MIN_BLOCKS)                  \
    ORC_RG_KERNEL(orc_rg_v2_i64##suffix, u64, ORC_KIND_V2, WARPS, MIN_BLOCKS)

ORC_RG_KERNELS(_w8, 8u, 1)
ORC_RG_KERNELS(_w8b, 8u, 4)
ORC_RG_KERNELS(_w4, 4u, 1)
