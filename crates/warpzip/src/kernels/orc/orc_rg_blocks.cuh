// A block per row group: the kernel body, which stages each row group and takes the thread
// regions (orc_rg_regions.cuh), the split groups (orc_rg_split.cuh) or the units
// (orc_rg_stage.cuh).
#pragma once
#include "orc/orc_rg_split.cuh"

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
            // than SF 1's, 410.7 -> 521.0 GB/s on an H200; a wider RLEv1 bound sends RLEv1
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
        // 508.2 GB/s on an H200; from global memory (L2) with flags 256, and where
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
