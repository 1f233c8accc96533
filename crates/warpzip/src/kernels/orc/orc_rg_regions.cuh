#pragma once
#include "orc/orc_rg_stage.cuh"

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
// GB/s with them).
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
// Both bytes are loaded at once, without branches (a `&&` chain branched on the first:
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
                // would go on for the region's length, where they no longer meet the real
                // chain.)
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
// against 147 by the tables on an H200). Each region's own walk marks where it goes;
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
    // RLEv2 keys 316-318 GB/s with it against 294-295 without (same binary, H200);
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
