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
// This header and orc_rg_stage.cuh, orc_rg_regions.cuh, orc_rg_split.cuh and orc_rg_blocks.cuh
// (the block per row group, in that order) follow the warp decoders of orc_rle.cu, which
// includes them and instantiates their kernels.
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
