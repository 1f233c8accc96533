// The Star Schema Benchmark's 13 queries in one parametrised kernel (plans: ssb/query.rs,
// launches: ssb/gpu.rs). A thread block of 128 threads takes a tile of 512 fact rows at a time
// (grid-stride); each thread keeps four rows (j = tid + 128 k) in registers with their selection
// flags and group indexes. The block loads the columns a query reads one after another in the
// plan's order: quantity and discount (range filters), each probed key (the dimension's map from
// key - base to 0, no match, or 1 + the group code), then the measure's columns; a column is
// loaded only while some row of the tile is still selected, as Crystal's block-wide operators
// skip the rest of a tile. Over tile-codec columns a load decodes the tile into shared memory
// (thread 0 walks the header and checks it, every thread unpacks, DFOR and RFOR scan), so
// decoding, filtering, probing and aggregating are one pass over the compressed bytes. Groups
// sum into global 64-bit counters with atomics; a query of one group sums in registers and adds
// once a warp. A tile that does not decode leaves its rows out and reports the lowest
// (tile, slot, fault).
#include "tile/tile_decode.cuh"

#define SSB_THREADS 128
#define SSB_ITEMS 4
#define SSB_SLOTS 9
#define SSB_JOINS 4

// Fact columns by slot (`Slot` in ssb/query.rs).
#define SSB_SLOT_QUANTITY 4u
#define SSB_SLOT_DISCOUNT 5u
#define SSB_SLOT_PRICE 6u
#define SSB_SLOT_REVENUE 7u
#define SSB_SLOT_COST 8u

// Measures (`Measure` in ssb/query.rs).
#define SSB_MEASURE_PRICE_X_DISCOUNT 0u
#define SSB_MEASURE_REVENUE 1u
#define SSB_MEASURE_PROFIT 2u

// Flags.
#define SSB_HAS_QUANTITY 1u
#define SSB_HAS_DISCOUNT 2u
#define SSB_ONE_GROUP 4u

// The query, passed by value; the layout of `SsbParams` in ssb/gpu.rs. Addresses are device
// pointers: `column[s]` the raw u32 values (plain) or the tile words (tiled) of slot s,
// `tiles[s]` its TileRecords (tiled), `map[j]` the u32 map of probe j; `sums`, `counts` one u64
// a group, `fault` one u64 (all ones: none).
struct SsbParams {
    u64 column[SSB_SLOTS];
    u64 tiles[SSB_SLOTS];
    u64 map[SSB_JOINS];
    u64 sums;
    u64 counts;
    u64 fault;
    u32 map_len[SSB_JOINS];
    u32 map_base[SSB_JOINS];
    u32 stride[SSB_JOINS];
    u32 join_slot[SSB_JOINS];
    u32 allowed[SSB_SLOTS];
    u32 joins;
    u32 flags;
    u32 measure;
    u32 qty_lo;
    u32 qty_hi;
    u32 disc_lo;
    u32 disc_hi;
    u32 rows;
    u32 tile_count;
};

struct SsbShared {
    u32 words[TILE_MAX_WORDS + TILE_STAGE_SLACK];
    u32 vals[TILE_VALUES];
    u32 runs[TILE_VALUES];
    u32 ends[TILE_VALUES];
    TileFor fs[2];
    u32 warp_u[SSB_THREADS / 32];
    u32 fault;
    u32 scheme;
    u32 nruns;
    u32 bad_len;
    u32 base;
};

// Decodes tile `t` of a tile-codec column of 32-bit values into s->vals: its fault (0 when it
// decoded), the same in every thread. Every thread calls it.
__device__ u32 ssb_decode_tile(const u8* __restrict__ words, const TileRecord* __restrict__ recs,
                               u32 t, u32 allowed, SsbShared* s) {
    const u32 tid = threadIdx.x;
    // The block may still be reading the previous tile's values.
    __syncthreads();
    const TileRecord rec = recs[t];
    const u32 nwords = rec.in_words;
    const u32 staged = nwords < TILE_MAX_WORDS ? nwords : TILE_MAX_WORDS;
    const u32* src = (const u32*)(words + rec.in_offset);
    for (u32 i = tid; i < staged + TILE_STAGE_SLACK; i += SSB_THREADS)
        s->words[i] = i < staged ? src[i] : 0u;
    if (tid == 0) s->bad_len = 0u;
    __syncthreads();
    const u32 n = rec.count;
    if (tid == 0) {
        u32 fault = 0u;
        u32 pos = 1u;
        const u32 header = s->words[0];
        const u32 scheme = header & 0xffu;
        const u32 runs = header >> 8;
        if (scheme > TILE_SCHEME_RFOR) {
            fault = TILE_FAULT_BAD_HEADER;
        } else if (((allowed >> scheme) & 1u) == 0u) {
            fault = TILE_FAULT_SCHEME_NOT_ALLOWED;
        } else if (scheme == TILE_SCHEME_RFOR) {
            if (runs == 0u || runs > n) fault = TILE_FAULT_BAD_RUN_COUNT;
            if (!fault) fault = tile_parse_for(s->words, nwords, &pos, runs, 32u, &s->fs[0]);
            if (!fault) fault = tile_parse_for(s->words, nwords, &pos, runs, 32u, &s->fs[1]);
        } else if (runs != 0u) {
            fault = TILE_FAULT_BAD_HEADER;
        } else {
            if (scheme == TILE_SCHEME_DFOR) {
                if (pos + 1u > nwords) {
                    fault = TILE_FAULT_TRUNCATED;
                } else {
                    s->base = s->words[pos];
                    pos += 1u;
                }
            }
            if (!fault) fault = tile_parse_for(s->words, nwords, &pos, n, 32u, &s->fs[0]);
        }
        if (!fault && pos != nwords) fault = TILE_FAULT_TRAILING_WORDS;
        s->fault = fault;
        s->scheme = scheme;
        s->nruns = runs;
    }
    __syncthreads();
    const u32 fault = s->fault;
    if (fault != 0u) return fault;
    const u32 scheme = s->scheme;
    if (scheme == TILE_SCHEME_FOR) {
        for (u32 j = tid; j < n; j += SSB_THREADS) s->vals[j] = (u32)tile_get(&s->fs[0], s->words, j);
    } else if (scheme == TILE_SCHEME_DFOR) {
        for (u32 j = tid; j < n; j += SSB_THREADS) s->vals[j] = (u32)tile_get(&s->fs[0], s->words, j);
        __syncthreads();
        tile_block_scan<u32>(s->vals, n, s->warp_u);
        const u32 base = s->base;
        for (u32 j = tid; j < n; j += SSB_THREADS) s->vals[j] += base;
    } else {
        const u32 runs = s->nruns;
        for (u32 j = tid; j < runs; j += SSB_THREADS) {
            s->runs[j] = (u32)tile_get(&s->fs[0], s->words, j);
            const u32 len = (u32)tile_get(&s->fs[1], s->words, j);
            if (len == 0u || len > n) s->bad_len = 1u;
            s->ends[j] = len;
        }
        __syncthreads();
        tile_block_scan<u32>(s->ends, runs, s->warp_u);
        if (s->bad_len != 0u || s->ends[runs - 1u] != n) return TILE_FAULT_BAD_RUN_LENGTHS;
        for (u32 j = tid; j < n; j += SSB_THREADS) {
            // The run holding j: the first whose end is past j.
            u32 lo = 0u, hi = runs - 1u;
            while (lo < hi) {
                const u32 mid = (lo + hi) >> 1;
                if (s->ends[mid] > j) hi = mid; else lo = mid + 1u;
            }
            s->vals[j] = s->runs[lo];
        }
    }
    __syncthreads();
    return 0u;
}

// This thread's four values of slot `slot` in tile `t` (rows first..first+n): loaded from a raw
// column, or decoded from a tile-codec one. Returns the tile's fault (0: none), the same in
// every thread; every thread calls it.
template <bool TILED>
__device__ u32 ssb_load(const SsbParams& p, u32 slot, u32 t, u32 first, u32 n, SsbShared* s,
                        u32 v[SSB_ITEMS]) {
    const u32 tid = threadIdx.x;
    if (TILED) {
        const u32 fault = ssb_decode_tile((const u8*)p.column[slot],
                                          (const TileRecord*)p.tiles[slot], t, p.allowed[slot], s);
        if (fault != 0u) return fault;
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) {
            const u32 j = tid + k * SSB_THREADS;
            v[k] = j < n ? s->vals[j] : 0u;
        }
    } else {
        const u32* col = (const u32*)p.column[slot];
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) {
            const u32 j = tid + k * SSB_THREADS;
            v[k] = j < n ? col[first + j] : 0u;
        }
    }
    return 0u;
}

__device__ __forceinline__ void ssb_report(const SsbParams& p, u32 t, u32 slot, u32 fault) {
    if (threadIdx.x == 0)
        atomicMin((unsigned long long*)p.fault,
                  (unsigned long long)(((u64)t << 16) | ((u64)slot << 8) | (u64)fault));
}

__device__ __forceinline__ bool ssb_any(const bool sel[SSB_ITEMS]) {
    return __syncthreads_or((int)(sel[0] | sel[1] | sel[2] | sel[3])) != 0;
}

// One tile of the fact table: filter, probe, aggregate.
template <bool TILED>
__device__ void ssb_tile(const SsbParams& p, u32 t, SsbShared* s, u64* my_sum, u64* my_count) {
    const u32 tid = threadIdx.x;
    const u32 first = t * TILE_VALUES;
    const u32 left = p.rows - first;
    const u32 n = left < TILE_VALUES ? left : TILE_VALUES;
    bool sel[SSB_ITEMS];
    u32 grp[SSB_ITEMS];
    u32 v[SSB_ITEMS];
    u32 disc[SSB_ITEMS];
    bool have_disc = false;
#pragma unroll
    for (u32 k = 0; k < SSB_ITEMS; ++k) {
        sel[k] = tid + k * SSB_THREADS < n;
        grp[k] = 0u;
        disc[k] = 0u;
    }
    u32 fault;
    if (p.flags & SSB_HAS_QUANTITY) {
        fault = ssb_load<TILED>(p, SSB_SLOT_QUANTITY, t, first, n, s, v);
        if (fault) return ssb_report(p, t, SSB_SLOT_QUANTITY, fault);
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) sel[k] = sel[k] && v[k] >= p.qty_lo && v[k] <= p.qty_hi;
    }
    if (p.flags & SSB_HAS_DISCOUNT) {
        if (!ssb_any(sel)) return;
        fault = ssb_load<TILED>(p, SSB_SLOT_DISCOUNT, t, first, n, s, disc);
        if (fault) return ssb_report(p, t, SSB_SLOT_DISCOUNT, fault);
        have_disc = true;
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k)
            sel[k] = sel[k] && disc[k] >= p.disc_lo && disc[k] <= p.disc_hi;
    }
    for (u32 jn = 0; jn < p.joins && jn < SSB_JOINS; ++jn) {
        if (!ssb_any(sel)) return;
        const u32 slot = p.join_slot[jn];
        fault = ssb_load<TILED>(p, slot, t, first, n, s, v);
        if (fault) return ssb_report(p, t, slot, fault);
        const u32* map = (const u32*)p.map[jn];
        const u32 base = p.map_base[jn], len = p.map_len[jn], stride = p.stride[jn];
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) {
            if (!sel[k]) continue;
            const u32 at = v[k] - base;
            const u32 m = at < len ? __ldg(&map[at]) : 0u;
            if (m == 0u) sel[k] = false;
            else grp[k] += (m - 1u) * stride;
        }
    }
    if (!ssb_any(sel)) return;
    u32 a[SSB_ITEMS];
    u32 b[SSB_ITEMS];
    const u32 first_slot = p.measure == SSB_MEASURE_PRICE_X_DISCOUNT ? SSB_SLOT_PRICE : SSB_SLOT_REVENUE;
    fault = ssb_load<TILED>(p, first_slot, t, first, n, s, a);
    if (fault) return ssb_report(p, t, first_slot, fault);
    if (p.measure == SSB_MEASURE_PRICE_X_DISCOUNT) {
        if (!have_disc) {
            fault = ssb_load<TILED>(p, SSB_SLOT_DISCOUNT, t, first, n, s, disc);
            if (fault) return ssb_report(p, t, SSB_SLOT_DISCOUNT, fault);
        }
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) b[k] = disc[k];
    } else if (p.measure == SSB_MEASURE_PROFIT) {
        fault = ssb_load<TILED>(p, SSB_SLOT_COST, t, first, n, s, b);
        if (fault) return ssb_report(p, t, SSB_SLOT_COST, fault);
    } else {
#pragma unroll
        for (u32 k = 0; k < SSB_ITEMS; ++k) b[k] = 0u;
    }
    unsigned long long* sums = (unsigned long long*)p.sums;
    unsigned long long* counts = (unsigned long long*)p.counts;
#pragma unroll
    for (u32 k = 0; k < SSB_ITEMS; ++k) {
        if (!sel[k]) continue;
        u64 m;
        if (p.measure == SSB_MEASURE_PRICE_X_DISCOUNT) m = (u64)a[k] * (u64)b[k];
        else if (p.measure == SSB_MEASURE_PROFIT) m = (u64)a[k] - (u64)b[k];
        else m = (u64)a[k];
        if (p.flags & SSB_ONE_GROUP) {
            *my_sum += m;
            *my_count += 1ull;
        } else {
            atomicAdd(&sums[grp[k]], (unsigned long long)m);
            atomicAdd(&counts[grp[k]], 1ull);
        }
    }
}

template <bool TILED>
__device__ void ssb_query(const SsbParams& p) {
    __shared__ SsbShared s;
    u64 my_sum = 0ull, my_count = 0ull;
    for (u32 t = blockIdx.x; t < p.tile_count; t += gridDim.x) ssb_tile<TILED>(p, t, &s, &my_sum, &my_count);
    if (p.flags & SSB_ONE_GROUP) {
#pragma unroll
        for (int d = 16; d > 0; d >>= 1) {
            my_sum += __shfl_down_sync(WZ_FULL_MASK, my_sum, d);
            my_count += __shfl_down_sync(WZ_FULL_MASK, my_count, d);
        }
        if (wz_lane() == 0u && my_count != 0ull) {
            atomicAdd((unsigned long long*)p.sums, (unsigned long long)my_sum);
            atomicAdd((unsigned long long*)p.counts, (unsigned long long)my_count);
        }
    }
}

extern "C" __global__ void __launch_bounds__(SSB_THREADS) ssb_query_tile(const SsbParams p) {
    ssb_query<true>(p);
}

extern "C" __global__ void __launch_bounds__(SSB_THREADS) ssb_query_plain(const SsbParams p) {
    ssb_query<false>(p);
}
