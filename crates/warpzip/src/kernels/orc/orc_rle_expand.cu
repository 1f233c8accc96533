// ORC Integer RLE v1 and v2 decoders for indexed `.wz` chunks (layout 2): the lanes of a warp
// walk the group headers of 32 sub-blocks, one sub-block each, and the warp then writes each
// sub-block's values together, 32 consecutive values per store.
//
// A lane decoding its sub-block alone (orc_rle_lanes.cu) pays for it in memory instructions: the
// 32 lanes of a warp read 32 different places and write 32 others, so every load and store of
// the warp costs 32 cache-line lookups. Here a warp works in rounds:
//
// 1. Walk. Every lane parses groups of its own sub-block and records each as a 16-byte
//    descriptor in shared memory (up to XP_GROUPS per round): where its values start, a kind
//    and what the kind needs. The lane reads its stream from a 64-byte buffer in shared memory
//    that the whole warp refills with asynchronous coalesced copies, 16 lanes per buffer.
// 2. Expand. Where the round's sub-blocks average fewer than XP_FLAT_BELOW values, the warp
//    writes the round's values of all 32 sub-blocks, laid out one sub-block after the other,
//    in windows of 32 values, two windows at a time (so a window is full however few values
//    each sub-block has): lane j finds the sub-block of value j from the lanes' flat starts
//    (one OR-reduction and a ballot), its descriptor from a bit map of the descriptors' flat
//    starts in shared memory, computes its value and stores it. Longer rounds are written
//    sub-block by sub-block, in windows cut from each sub-block's values.
//
// Three kinds cover every group but PATCHED_BASE: LINEAR (base + delta * i with a 32-bit delta:
// a SHORT_REPEAT, a DELTA of width 0, an RLEv1 run, a literal varint, a DELTA group's first
// two values, a DIRECT group of one or two values), PACKED (the i-th value of a big-endian
// bit-packed array: longer DIRECT groups, and RLEv1 literals of one byte each), and STEPS (the
// rest of a DELTA group: a value plus a segmented prefix sum of packed steps across the
// window). Every check the CPU makes is made, but not in
// the CPU's order and without saying which failed: a sub-block that fails any check, or holds a
// PATCHED_BASE group or a width-0 DELTA whose step does not fit 32 bits, is decoded again at the
// end by its own lane with the serial decoder of orc_lanes.cuh, which gives the CPU's exact
// status (and the values, where there was no failure). The serial decoder rewrites every value
// of such a sub-block.
//
// Bounds: a lane parses only bytes inside its unit's `in_len`; the buffer refill copies 64 bytes
// from the 4-byte word holding the next unparsed byte, and the expand step reads 16 bytes around
// a packed value, so reads reach at most 63 bytes past a payload byte, inside the host's
// `INPUT_SLACK` of 128 bytes.
#include "framework/codag.cuh"
#include "orc/orc_lanes.cuh"

// Threads per block (the host launches ORC_LANES_THREADS, as for orc_rle_lanes.cu).
#define XP_WARPS 4u
// Descriptors a lane records per round, and the row length that keeps rows on distinct banks.
#define XP_GROUPS 8u
#define XP_SLOTS (XP_GROUPS + 1u)
// 64 bytes of staged input per lane, refilled once fewer than XP_MARGIN bytes are left: the
// largest header (RLEv2 DELTA: 2 bytes and two varints of up to 10) and the 12-byte reads that
// cut 8 bytes at any offset fit in that margin.
#define XP_BUF_WORDS 16u
#define XP_MARGIN 32u
// Rounds whose sub-blocks average fewer values than this are expanded with their values laid
// out back to back (`xp_expand`); longer ones sub-block by sub-block (`xp_expand_one`), whose
// windows are full anyway and which saves the search for each value's sub-block.
#define XP_FLAT_BELOW 96u
// The words of a flat round's descriptor-start bit map: such a round has fewer than
// XP_FLAT_BELOW * 32 values.
#define XP_FLAT_WORDS XP_FLAT_BELOW
// The largest sub-block whose value indexes fit the descriptors' 16 bits.
#define XP_MAX_UNIT 65536u

// What a walk step did: recorded its group, stopped for want of descriptor room (nothing
// consumed), or found something the serial decoder must take.
#define XP_OK 0u
#define XP_PAUSE 1u
#define XP_FAIL 2u

#define XP_LINEAR 0u
#define XP_PACKED 1u
#define XP_STEPS 2u

struct XpShared {
    u32 in[XP_WARPS][32][XP_BUF_WORDS];
    // head: the first value index (bits 0..15), kind (16..17), width (18..24), decreasing (25);
    // aux: LINEAR's delta (an i32), or where PACKED's or STEPS' bits start, from the stream's
    // first byte; base: LINEAR's first value, or the value before STEPS' first step.
    u32 head[XP_WARPS][32][XP_SLOTS];
    u32 aux[XP_WARPS][32][XP_SLOTS];
    u64 base[XP_WARPS][32][XP_SLOTS];
    // Flat rounds: bit p is set where one of the round's descriptors starts at flat value p
    // (the round's values of all 32 sub-blocks laid out back to back).
    u32 starts[XP_WARPS][XP_FLAT_WORDS];
};

// One lane's walk through its sub-block.
struct XpWalk {
    u64 at;    // the stream's first byte, as an offset into the input
    u64 buf;   // the staged buffer's first byte, likewise (a multiple of 4)
    u32 len;   // stream length
    u32 pos;   // the next byte to parse
    u32 need;  // values the sub-block holds
    u32 made;  // values described so far
    u32 lit;   // RLEv1: literal values left in the current group
    bool ones; // RLEv1: the last descriptor is a stretch of one-byte varints ending at `pos`
               // and `made` (the next stretch of the same group extends it)
};

// Byte `r` of a lane's buffer, and the 8 bytes from `r` (little-endian, any offset).
__device__ __forceinline__ u32 xp_byte(const u32* row, u32 r) {
    return (row[r >> 2] >> (8u * (r & 3u))) & 0xffu;
}

__device__ __forceinline__ u64 xp_u64(const u32* row, u32 r) {
    const u32 q = r >> 2;
    const u32 sh = 8u * (r & 3u);
    const u32 a = row[q], b = row[q + 1u], c = row[q + 2u];
    return ((u64)__funnelshift_r(b, c, sh) << 32) | __funnelshift_r(a, b, sh);
}

// A varint at `r` with `avail` stream bytes from it: its length, or 0 where the CPU would fail
// (the stream ending inside it, or more than 64 bits of value).
__device__ __forceinline__ u32 xp_varint(const u32* row, u32 r, u32 avail, u64& v) {
    const u64 le = xp_u64(row, r);
    u64 stops = ~le & 0x8080808080808080ull;
    if (avail < 8u) stops &= (1ull << (8u * avail)) - 1ull;
    if (stops != 0ull) {
        const u32 n = (u32)__ffsll((long long)stops) >> 3;
        v = lane_varint_bits(le, n);
        return n;
    }
    if (avail <= 8u) return 0u;
    u64 result = lane_varint_bits(le, 8u);
    const u32 b8 = xp_byte(row, r + 8u);
    result |= (u64)(b8 & 0x7fu) << 56;
    if ((b8 & 0x80u) == 0u) {
        v = result;
        return 9u;
    }
    if (avail <= 9u) return 0u;
    const u32 b9 = xp_byte(row, r + 9u);
    if (b9 > 1u) return 0u;
    v = result | ((u64)b9 << 63);
    return 10u;
}

// Records the calling lane's next descriptor (`k`, then counts it).
__device__ __forceinline__ void xp_push(XpShared& sh, u32 w, u32 lane, u32& k, u32 start, u32 kind,
                                        u32 width, bool dec, u32 aux, u64 base) {
    sh.head[w][lane][k] = start | (kind << 16) | (width << 18) | ((dec ? 1u : 0u) << 25);
    sh.aux[w][lane][k] = aux;
    sh.base[w][lane][k] = base;
    k++;
}

// A LINEAR descriptor (values base + delta * i from sub-block value `start` on): what most of
// the walk's groups become.
__device__ __forceinline__ void xp_linear(XpShared& sh, u32 w, u32 lane, u32& k, u32 start,
                                          u32 delta, u64 base) {
    xp_push(sh, w, lane, k, start, XP_LINEAR, 0u, false, delta, base);
}

// Counts a walk step's `values` and `bytes` as described and parsed: how every step that
// recorded its group ends.
__device__ __forceinline__ u32 xp_took(XpWalk& s, u32 values, u32 bytes) {
    s.made += values;
    s.pos += bytes;
    return XP_OK;
}

// Whether a linear run's step fits the descriptor's 32 bits.
__device__ __forceinline__ bool xp_small(i64 delta) { return delta == (i64)(int)delta; }

// A raw packed or varint value's 64 bits as the stream's value (un-zigzagged where SIGNED).
template <bool SIGNED>
__device__ __forceinline__ u64 xp_bits(u64 raw) {
    return SIGNED ? (u64)orc_unzigzag(raw) : raw;
}

// One RLEv2 group as descriptors `k` on (one, or three for a DELTA group with packed steps).
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 xp_walk_v2(XpWalk& s, const u32* row, XpShared& sh, u32 w,
                                           u32 lane, u32& k) {
    if (k >= XP_GROUPS) return XP_PAUSE;
    const u32 r = (u32)(s.at + s.pos - s.buf);
    const u32 avail = s.len - s.pos;
    const u32 left = s.need - s.made;
    const u32 h0 = xp_byte(row, r);
    const u32 kind = h0 >> 6;
    if (kind == 0u) {  // SHORT_REPEAT
        const u32 width = ((h0 >> 3) & 7u) + 1u;
        const u32 n = (h0 & 7u) + 3u;
        if (avail < 1u + width || n > left) return XP_FAIL;
        const u64 raw = lane_bswap(xp_u64(row, r + 1u)) >> (64u - 8u * width);
        const u64 bits = xp_bits<SIGNED>(raw);
        if (!orc_fits<T, SIGNED>(bits)) return XP_FAIL;
        xp_linear(sh, w, lane, k, s.made, 0u, bits);
        return xp_took(s, n, 1u + width);
    }
    if (avail < 2u) return XP_FAIL;
    const u32 n = lane_v2_len(h0, xp_byte(row, r + 1u));
    if (n > left) return XP_FAIL;
    if (kind == 1u) {  // DIRECT
        const u32 width = orc_decode_width(h0 >> 1);
        const u32 bytes = (width * n + 7u) >> 3;
        if (avail - 2u < bytes) return XP_FAIL;
        if (n <= 2u && width <= 32u) {
            // One or two values (dates and keys between repeats): read here, a linear run when
            // their difference fits 32 bits, so the expand step reads no packed bits for them.
            const u64 be = lane_bswap(xp_u64(row, r + 2u));
            const u64 r0 = be >> (64u - width);
            const u64 r1 = n == 2u ? (be << width) >> (64u - width) : r0;
            const u64 v0 = xp_bits<SIGNED>(r0);
            const u64 v1 = xp_bits<SIGNED>(r1);
            if (!orc_fits<T, SIGNED>(v0) || !orc_fits<T, SIGNED>(v1)) return XP_FAIL;
            const i64 d = (i64)(v1 - v0);
            if (xp_small(d)) {
                xp_linear(sh, w, lane, k, s.made, (u32)(int)d, v0);
                return xp_took(s, n, 2u + bytes);
            }
        }
        xp_push(sh, w, lane, k, s.made, XP_PACKED, width, false, s.pos + 2u, 0ull);
        return xp_took(s, n, 2u + bytes);
    }
    if (kind == 2u) return XP_FAIL;  // PATCHED_BASE: the serial decoder
    const u32 code = (h0 >> 1) & 0x1fu;
    const u32 width = code == 0u ? 0u : orc_decode_width(code);
    u64 raw;
    const u32 a = xp_varint(row, r + 2u, avail - 2u, raw);
    if (a == 0u) return XP_FAIL;
    const i128 base = orc_stream_value<SIGNED>(raw);
    const u32 b = xp_varint(row, r + 2u + a, avail - 2u - a, raw);
    if (b == 0u) return XP_FAIL;
    const i64 db = orc_unzigzag(raw);
    const u32 hdr = 2u + a + b;
    if (!orc_fits_wide<T, SIGNED>(base)) return XP_FAIL;
    if (width == 0u) {
        if (!orc_fits_wide<T, SIGNED>(base + (i128)db * (i128)(n - 1u))) return XP_FAIL;
        if (!xp_small(db)) return XP_FAIL;
        xp_linear(sh, w, lane, k, s.made, (u32)(int)db, (u64)base);
        return xp_took(s, n, hdr);
    }
    const u32 bytes = (width * (n >= 2u ? n - 2u : 0u) + 7u) >> 3;
    if (avail - hdr < bytes) return XP_FAIL;
    // The first two values are one linear run where the first step fits 32 bits (two runs of
    // one value otherwise); the packed steps from the third value on are STEPS.
    const bool small = xp_small(db);
    const u32 need = (small ? 1u : min(n, 2u)) + (n > 2u ? 1u : 0u);
    if (k + need > XP_GROUPS) return XP_PAUSE;
    const i128 second = base + (i128)db;
    if (n >= 2u && !orc_fits_wide<T, SIGNED>(second)) return XP_FAIL;
    if (small) {
        xp_linear(sh, w, lane, k, s.made, (u32)(int)db, (u64)base);
    } else {
        xp_linear(sh, w, lane, k, s.made, 0u, (u64)base);
        if (n >= 2u) xp_linear(sh, w, lane, k, s.made + 1u, 0u, (u64)second);
    }
    if (n > 2u) {
        xp_push(sh, w, lane, k, s.made + 2u, XP_STEPS, width, db < 0, s.pos + hdr, (u64)second);
    }
    return xp_took(s, n, hdr + bytes);
}

// One RLEv1 run, or the next piece of a literal group (a stretch of one-byte varints, or one
// longer varint), as descriptor `k`.
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 xp_walk_v1(XpWalk& s, const u32* row, XpShared& sh, u32 w,
                                           u32 lane, u32& k) {
    if (k >= XP_GROUPS) return XP_PAUSE;
    u32 r = (u32)(s.at + s.pos - s.buf);
    u32 avail = s.len - s.pos;
    const u32 left = s.need - s.made;
    // Only a stretch of the group under way (lit > 0) may extend the last descriptor. Not for
    // values of 2 bytes or fewer: on i16 discounts (literal groups of 22 values between short
    // runs) merged stretches measured 174 GB/s against 192 unmerged, where i32 quantities gain
    // (373 to 506).
    const bool extend = sizeof(T) >= 4u && s.ones && k > 0u && s.lit != 0u;
    s.ones = false;
    if (s.lit == 0u) {
        const u32 control = xp_byte(row, r);
        if (control < 0x80u) {  // a run of control + 3 values
            const u32 n = control + 3u;
            if (avail < 2u) return XP_FAIL;
            const i64 delta = (i64)(signed char)xp_byte(row, r + 1u);
            u64 raw;
            const u32 a = xp_varint(row, r + 2u, avail - 2u, raw);
            if (a == 0u || n > left) return XP_FAIL;
            const i128 base = orc_stream_value<SIGNED>(raw);
            if (!orc_fits_wide<T, SIGNED>(base) ||
                !orc_fits_wide<T, SIGNED>(base + (i128)delta * (i128)(n - 1u)))
                return XP_FAIL;
            xp_linear(sh, w, lane, k, s.made, (u32)(int)delta, (u64)base);
            return xp_took(s, n, 2u + a);
        }
        s.lit = 256u - control;
        if (s.lit > left || avail < 2u) return XP_FAIL;
        s.pos += 1u;
        r += 1u;
        avail -= 1u;
    }
    // The varints that are one byte long (no continuation bit), up to 32 of them (the buffer
    // holds XP_MARGIN = 32 bytes from `r` on).
    u32 ones = 0u;
#pragma unroll
    for (u32 k = 0u; k < 4u; ++k) {
        const u64 cont = xp_u64(row, r + 8u * k) & 0x8080808080808080ull;
        if (cont != 0ull) {
            ones += ((u32)__ffsll((long long)cont) - 1u) >> 3;
            break;
        }
        ones += 8u;
    }
    ones = min(ones, min(s.lit, avail));
    if (ones > 0u) {
        // Byte j of the stretch is value j: a stretch right after another of the same group
        // (a new group starts with its control byte) only moves the descriptor's end.
        if (!extend) {
            xp_push(sh, w, lane, k, s.made, XP_PACKED, 8u, false, s.pos, 0ull);
        }
        s.ones = true;
        s.lit -= ones;
        return xp_took(s, ones, ones);
    }
    u64 raw;
    const u32 a = xp_varint(row, r, avail, raw);
    if (a == 0u) return XP_FAIL;
    const u64 bits = xp_bits<SIGNED>(raw);
    if (!orc_fits<T, SIGNED>(bits)) return XP_FAIL;
    if (s.lit >= 2u && left >= 2u && avail > a) {
        // A second varint (the buffer holds 10 more bytes: r + a <= 42): one linear run of two
        // values where their difference fits 32 bits, else two runs of one.
        u64 raw2;
        const u32 b = xp_varint(row, r + a, avail - a, raw2);
        const u64 bits2 = xp_bits<SIGNED>(raw2);
        const i64 d = (i64)(bits2 - bits);
        const bool small = xp_small(d);
        if (b != 0u && orc_fits<T, SIGNED>(bits2) && (small || k + 2u <= XP_GROUPS)) {
            xp_linear(sh, w, lane, k, s.made, small ? (u32)(int)d : 0u, bits);
            if (!small) xp_linear(sh, w, lane, k, s.made + 1u, 0u, bits2);
            s.lit -= 2u;
            return xp_took(s, 2u, a + b);
        }
    }
    xp_linear(sh, w, lane, k, s.made, 0u, bits);
    s.lit -= 1u;
    return xp_took(s, 1u, a);
}

// `w` (1..64) bits at bit `bit` of `p` in global memory, ORC's big-endian packing (as
// `lane_bits`, without a window: neighbouring lanes read neighbouring words).
__device__ __forceinline__ u64 xp_gbits(const u8* p, u64 bit, u32 w) {
    const unsigned long long q = (unsigned long long)(p + (bit >> 3));
    const u64* word = reinterpret_cast<const u64*>(q & ~7ull);
    const u32 sh = (u32)(q & 7ull) * 8u;
    const u64 w0 = __ldg(word);
    const u64 w1 = __ldg(word + 1);
    const u64 le = sh == 0u ? w0 : (w0 >> sh) | (w1 << (64u - sh));
    return (lane_bswap(le) << (u32)(bit & 7u)) >> (64u - w);
}

// One lane's value in a window: final for LINEAR and PACKED; for STEPS the signed step (the
// window's segmented sum adds the rest).
struct XpSlot {
    u64 x;      // the value, or the step
    u64 base;   // STEPS: the value before the group's first step
    u32 idx;    // the value's index in its descriptor
    bool steps; // a STEPS value
    bool dec;   // STEPS: decreasing
};

// The slot of a lane past the window's last value (no STEPS value: the window's sums skip it).
__device__ __forceinline__ XpSlot xp_no_slot() {
    XpSlot v;
    v.x = 0ull;
    v.base = 0ull;
    v.idx = 0u;
    v.steps = false;
    v.dec = false;
    return v;
}

// Value `i` of lane `l`'s sub-block from its descriptor `g` into `v` (final for LINEAR and
// PACKED; for STEPS the signed step), for both kinds of window (`xp_fetch`, `xp_fetch_one`);
// `stream` is the sub-block's stream. `bad` is set where a PACKED value does not fit. (It fills
// the caller's `v` rather than returning a slot: NVRTC schedules `xp_fetch` differently then.)
template <typename T, bool SIGNED>
__device__ __forceinline__ void xp_slot(XpSlot& v, const XpShared& sh, u32 w, u32 l, u32 g, u32 i,
                                        const u8* stream, bool& bad) {
    const u32 hd = sh.head[w][l][g];
    const u32 kind = (hd >> 16) & 3u;
    const u32 width = (hd >> 18) & 127u;
    const u32 aux = sh.aux[w][l][g];
    const u64 base = sh.base[w][l][g];
    v.idx = i - (hd & 0xffffu);
    if (kind == XP_LINEAR) {
        v.x = base + (u64)(i64)(int)aux * (u64)v.idx;
    } else {
        const u64 raw = xp_gbits(stream + aux, (u64)v.idx * width, width);
        if (kind == XP_PACKED) {
            v.x = xp_bits<SIGNED>(raw);
            bad |= !orc_fits<T, SIGNED>(v.x);
        } else {
            v.steps = true;
            v.dec = ((hd >> 25) & 1u) != 0u;
            v.base = base;
            v.x = v.dec ? 0ull - raw : raw;
        }
    }
}

// A flat round: the round's values of all 32 sub-blocks laid out one sub-block after the other
// (lane l's `cnt` values, from its sub-block's value `b0` on, are flat values `excl` ..
// `excl + cnt - 1`), and its descriptors likewise (lane l's are flat descriptors `dexcl` ..
// `dexcl + n - 1`, their starts marked in the warp's `starts` bit map). Per lane.
struct XpFlat {
    u32 excl;     // this lane's first flat value
    u32 dexcl;    // this lane's first flat descriptor
    u32 shift;    // b0 - excl: a flat value's index in this lane's sub-block, less the value
    u32 by_rank;  // the lane number of the busy lane (one with values) of rank `lane`
    u64 dshift;   // out0 + b0 - excl: a flat value's output element, less the value
    u64 at;       // the sub-block's stream, as an offset into the input
    bool busy;
};

// Flat value `j = b + lane` of window `b` (a multiple of 32): its lane `l` (the last busy lane
// whose values start at or before j), its descriptor (the starts before the window, `dbase`,
// plus those in the window's word of the bit map up to j), then its slot and where it goes
// (`dst`, an element index of the output). Whole warp.
template <typename T, bool SIGNED>
__device__ __forceinline__ XpSlot xp_fetch(const XpShared& sh, u32 w, u32 lane, u32 b, u32 total,
                                           const XpFlat& f, u32 dbase, const u8* in, u32& l,
                                           u64& dst, bool& bad) {
    const u32 j = b + lane;
    const u32 rank = wz_window_rank(f.busy, f.excl, b, lane);
    const u32 k = __shfl_sync(0xffffffffu, f.by_rank, rank & 31u);
    l = k;
    const u32 word = sh.starts[w][min(b >> 5, XP_FLAT_WORDS - 1u)];
    const u32 dr = dbase + wz_starts_upto(word, lane) - 1u;
    const u32 g = dr - __shfl_sync(0xffffffffu, f.dexcl, k);
    const u32 shift = __shfl_sync(0xffffffffu, f.shift, k);
    const u64 dshift = __shfl_sync(0xffffffffu, f.dshift, k);
    const u64 at = __shfl_sync(0xffffffffu, f.at, k);
    XpSlot v = xp_no_slot();
    if (j < total) {
        dst = dshift + j;
        xp_slot<T, SIGNED>(v, sh, w, k, g, j + shift, in + at, bad);
    }
    return v;
}

// Finishes a window, flat or of one sub-block (the STEPS values' segmented sum and checks), and
// stores it (`live` lanes, at element `dst` of `out_t`); `carry` is the value at the previous
// window's lane 31, and becomes this window's. (An index rather than a pointer: a pointer
// changes the code NVRTC makes for the 8-byte types.)
template <typename T, bool SIGNED>
__device__ __forceinline__ void xp_store(XpSlot v, u32 lane, bool live, u64& carry, bool& bad,
                                         T* out_t, u64 dst) {
    if (__ballot_sync(0xffffffffu, v.steps) != 0u) {
        // A group's first step starts from its base; a group already running at lane 0 from
        // the previous window's last value (the same group's: windows take a round's values in
        // order); every other value adds the sums to its left.
        bool head = true;
        if (v.steps) {
            if (v.idx == 0u) {
                v.x += v.base;
            } else if (lane == 0u) {
                v.x += carry;
            } else {
                head = false;
            }
        }
        u64 x = v.x;
        for (u32 d = 1u; d < 32u; d <<= 1) {
            const u64 y = __shfl_up_sync(0xffffffffu, x, d);
            const bool hy = __shfl_up_sync(0xffffffffu, head ? 1u : 0u, d) != 0u;
            if (lane >= d && !head) {
                x += y;
                head = hy;
            }
        }
        const u64 left = __shfl_up_sync(0xffffffffu, x, 1u);
        if (v.steps) {
            const u64 prev = v.idx == 0u ? v.base : lane == 0u ? carry : left;
            bad |= !orc_in_order<SIGNED>(prev, x, v.dec) || !orc_fits<T, SIGNED>(x);
        }
        carry = __shfl_sync(0xffffffffu, x, 31u);
        v.x = x;
    }
    if (live) out_t[dst] = (T)v.x;
}

// Writes the values of this round's descriptors of all 32 sub-blocks (lane l has `n` of them,
// covering its sub-block's values `b0` up to `end`; `at` and `out0` are its stream and output
// offsets), laid out sub-block after sub-block in windows of 32, two windows at a time, so that
// every window but the last is full however few values each sub-block has. The round must hold
// fewer than 32 * XP_FLAT_WORDS values. Returns the lanes (bit l) whose sub-block had a value
// fail a check.
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 xp_expand(XpShared& sh, u32 w, u32 lane, u32 n, u32 b0, u32 end,
                                         u64 at, u64 out0, const u8* in, T* out_t) {
    XpFlat f;
    const u32 cnt = n != 0u ? end - b0 : 0u;
    const u32 incl = wz_warp_inclusive_sum<u32>(cnt);
    const u32 dincl = wz_warp_inclusive_sum<u32>(n);
    const u32 total = __shfl_sync(0xffffffffu, incl, 31u);
    f.excl = incl - cnt;
    f.dexcl = dincl - n;
    f.shift = b0 - f.excl;
    f.dshift = out0 + (u64)b0 - (u64)f.excl;
    f.at = at;
    f.busy = n != 0u;
    const u32 busy = __ballot_sync(0xffffffffu, f.busy);
    f.by_rank = busy == 0xffffffffu ? lane : __fns(busy, 0u, (int)lane + 1);
    // The bit map of the descriptors' flat starts (every descriptor holds a value, so no two
    // share a start).
    __syncwarp();
    for (u32 q = lane; q < XP_FLAT_WORDS; q += 32u) sh.starts[w][q] = 0u;
    __syncwarp();
    for (u32 g = 0u; g < n; ++g) {
        const u32 p = f.excl + (sh.head[w][lane][g] & 0xffffu) - b0;
        atomicOr(&sh.starts[w][p >> 5], 1u << (p & 31u));
    }
    __syncwarp();
    u64 carry = 0ull;
    u32 badmask = 0u;
    u32 dbase = 0u;  // descriptors starting before the window
    for (u32 b = 0u; b < total; b += 64u) {
        u32 l0 = 0u, l1 = 0u;
        u64 d0 = 0ull, d1 = 0ull;
        bool bad0 = false, bad1 = false;
        const XpSlot v0 =
            xp_fetch<T, SIGNED>(sh, w, lane, b, total, f, dbase, in, l0, d0, bad0);
        dbase += (u32)__popc(sh.starts[w][min(b >> 5, XP_FLAT_WORDS - 1u)]);
        const XpSlot v1 =
            xp_fetch<T, SIGNED>(sh, w, lane, b + 32u, total, f, dbase, in, l1, d1, bad1);
        dbase += (u32)__popc(sh.starts[w][min((b >> 5) + 1u, XP_FLAT_WORDS - 1u)]);
        xp_store<T, SIGNED>(v0, lane, b + lane < total, carry, bad0, out_t, d0);
        xp_store<T, SIGNED>(v1, lane, b + 32u + lane < total, carry, bad1, out_t, d1);
        if (bad0) badmask |= 1u << l0;
        if (bad1) badmask |= 1u << l1;
    }
    return __reduce_or_sync(0xffffffffu, badmask);
}

// Lane's slot of the window starting at value `b` of lane `l`'s round (its descriptors' starts
// are `start_k`, lane k holding descriptor k's). Whole warp.
template <typename T, bool SIGNED>
__device__ __forceinline__ XpSlot xp_fetch_one(const XpShared& sh, u32 w, u32 lane, u32 l,
                                               u32 start_k, u32 b, u32 end, const u8* stream,
                                               bool& bad) {
    const u32 g = wz_window_rank(true, start_k, b, lane);
    XpSlot v = xp_no_slot();
    const u32 i = b + lane;
    if (i < end) xp_slot<T, SIGNED>(v, sh, w, l, g, i, stream, bad);
    return v;
}

// A zigzag value of at most 8 sizeof(T) bits, un-zigzagged in T's width (32 bits for the
// narrow types: the low bits are the same as in 64).
template <typename T>
__device__ __forceinline__ T xp_unzigzag_narrow(u64 raw) {
    if (sizeof(T) <= 4u) {
        const u32 r = (u32)raw;
        return (T)((r >> 1) ^ (0u - (r & 1u)));
    }
    return (T)((raw >> 1) ^ (0ull - (raw & 1ull)));
}

// The vector type of BYTES bytes, for `XpLane`.
template <u32 BYTES>
struct XpVec {
    typedef uint4 type;
};
template <>
struct XpVec<8u> {
    typedef uint2 type;
};

// The vector an `xp_bulk` lane stores: 16 bytes of 32- and 64-bit values, 8 bytes of narrower
// ones (four i16 values: a long DIRECT group of small values then keeps most lanes busy).
template <typename T>
struct XpLane {
    static constexpr u32 BYTES = sizeof(T) >= 4u ? 16u : 8u;
    static constexpr u32 K = BYTES / sizeof(T);  // values per lane and step
    typedef typename XpVec<BYTES>::type Vec;
};

// Values `p` up to `q` of one LINEAR or PACKED descriptor (head `hd`, `aux`, `base`; its first
// value is sub-block value `s0`), by the whole warp in steps of XpLane<T>::BYTES of output a lane:
// lane j takes the K values from `a + K j`, where the steps start at the value `a` whose address
// is aligned to the vector, and stores them with one vector store (a lane holding the range's
// first or last values stores those one by one). A PACKED lane reads its values' bits with one
// 8-byte read where they fit in it. A packed value wider than T is range-checked; narrower ones
// always fit. True if one did not.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool xp_bulk(u32 lane, u32 hd, u32 aux, u64 base, u32 s0, u32 p,
                                        u32 q, const u8* stream, T* dst) {
    constexpr u32 K = XpLane<T>::K;
    constexpr u32 TBITS = 8u * sizeof(T);
    const u32 kind = (hd >> 16) & 3u;
    const u32 width = (hd >> 18) & 127u;
    const int mis = (int)((reinterpret_cast<unsigned long long>(dst) / sizeof(T)) & (K - 1u));
    bool bad = false;
    for (int a = (int)((p + (u32)mis) & ~(K - 1u)) - mis; a < (int)q; a += (int)(32u * K)) {
        const int c = a + (int)(K * lane);
        const int i0 = max(c, (int)p);
        const int i1 = min(c + (int)K, (int)q);
        if (i0 >= i1) continue;
        T v[K];
        if (kind == XP_LINEAR) {
#pragma unroll
            for (u32 k = 0u; k < K; ++k) {
                // Wrapping arithmetic, as the windows do (in 32 bits where T has no more);
                // values outside [i0, i1) are not kept.
                const u32 idx = (u32)(c + (int)k - (int)s0);
                v[k] = sizeof(T) <= 4u ? (T)((u32)base + aux * idx)
                                       : (T)(base + (u64)(i64)(int)aux * (u64)idx);
            }
        } else {
            const u64 bit = (u64)(u32)(i0 - (int)s0) * width;
            const u32 n = (u32)(i1 - i0);
            if (width <= TBITS && (u32)(bit & 7ull) + n * width <= 64u) {
                // Every value from one read: the 64 bits from `bit` on, most significant first,
                // taken `width` bits at a time from the top.
                const unsigned long long at = (unsigned long long)(stream + aux + (bit >> 3));
                const u64* word = reinterpret_cast<const u64*>(at & ~7ull);
                const u32 sh = (u32)(at & 7ull) * 8u;
                const u64 w0 = __ldg(word);
                const u64 le = sh == 0u ? w0 : (w0 >> sh) | (__ldg(word + 1) << (64u - sh));
                u64 be = lane_bswap(le) << (u32)(bit & 7ull);
                const u32 drop = 64u - width;
#pragma unroll
                for (u32 k = 0u; k < K; ++k) {
                    // A value of at most TBITS bits fits T once un-zigzagged. Lanes before i0
                    // (the range's first lane only) take garbage that is not stored.
                    const u64 raw = be >> drop;
                    if (c + (int)k >= i0) be <<= width;
                    v[k] = SIGNED ? xp_unzigzag_narrow<T>(raw) : (T)raw;
                }
            } else {
#pragma unroll
                for (u32 k = 0u; k < K; ++k) {
                    const int i = c + (int)k;
                    v[k] = 0;
                    if (i >= i0 && i < i1) {
                        const u64 raw = xp_gbits(stream + aux, (u64)(u32)(i - (int)s0) * width,
                                                 width);
                        const u64 x = xp_bits<SIGNED>(raw);
                        bad |= !orc_fits<T, SIGNED>(x);
                        v[k] = (T)x;
                    }
                }
            }
        }
        if (i0 == c && i1 == c + (int)K) {
            union {
                T t[K];
                typename XpLane<T>::Vec u;
            } pack;
#pragma unroll
            for (u32 k = 0u; k < K; ++k) pack.t[k] = v[k];
            *reinterpret_cast<typename XpLane<T>::Vec*>(dst + c) = pack.u;
        } else {
#pragma unroll
            for (u32 k = 0u; k < K; ++k) {
                const int i = c + (int)k;
                if (i >= i0 && i < i1) dst[i] = v[k];
            }
        }
    }
    return bad;
}

// A LINEAR or PACKED descriptor with at least this many values left is written by `xp_bulk`
// (about 80 warp instructions for up to 32 K values, where a window costs about 140 for 32).
#define XP_BULK_MIN 24u

// Writes the values of lane `l`'s descriptors of this round (values `b0` up to `end` of its
// sub-block); true if any value failed a check. Where the value at the write position belongs to
// a LINEAR or PACKED descriptor with XP_BULK_MIN or more values left, those values go to
// `xp_bulk`; everything else is written in windows of 32 values across descriptors. A round
// with less than 3/4 of its values in such descriptors is written in windows only, two at a
// time.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool xp_expand_one(const XpShared& sh, u32 w, u32 lane, u32 l, u32 n,
                                          u32 b0, u32 end, const u8* stream, T* dst) {
    const u32 hd_k = lane < n ? sh.head[w][l][lane] : 0u;
    const u32 start_k = lane < n ? (hd_k & 0xffffu) : 0xffffffffu;
    const u32 next_k = __shfl_down_sync(0xffffffffu, start_k, 1u);
    const u32 stop_k = lane + 1u < n ? next_k : end;
    const bool bulk_k = lane < n && ((hd_k >> 16) & 3u) != XP_STEPS;
    const bool long_k = bulk_k && stop_k - start_k >= XP_BULK_MIN;
    const u32 bulky = __ballot_sync(0xffffffffu, bulk_k);
    // Long descriptors' share of the round: under 3/4, windows across all of them pay better.
    const u32 long_values = wz_warp_sum<u32>(long_k ? stop_k - start_k : 0u);
    u64 carry = 0ull;
    bool bad = false;
    if (4u * long_values < 3u * (end - b0)) {
        for (u32 b = b0; b < end; b += 64u) {
            const XpSlot v0 =
                xp_fetch_one<T, SIGNED>(sh, w, lane, l, start_k, b, end, stream, bad);
            if (b + 32u < end) {
                const XpSlot v1 =
                    xp_fetch_one<T, SIGNED>(sh, w, lane, l, start_k, b + 32u, end, stream, bad);
                xp_store<T, SIGNED>(v0, lane, b + lane < end, carry, bad, dst, b + lane);
                xp_store<T, SIGNED>(v1, lane, b + 32u + lane < end, carry, bad, dst,
                                    b + 32u + lane);
            } else {
                xp_store<T, SIGNED>(v0, lane, b + lane < end, carry, bad, dst, b + lane);
            }
        }
        return __any_sync(0xffffffffu, bad);
    }
    u32 p = b0;
    while (p < end) {
        // The descriptor holding value p (starts ascend over the lanes below n).
        const u32 g = 31u - (u32)__clz((int)__ballot_sync(0xffffffffu, start_k <= p));
        const u32 q = __shfl_sync(0xffffffffu, stop_k, g);
        if (((bulky >> g) & 1u) && q - p >= XP_BULK_MIN) {
            bad |= xp_bulk<T, SIGNED>(lane, sh.head[w][l][g], sh.aux[w][l][g],
                                      sh.base[w][l][g], __shfl_sync(0xffffffffu, start_k, g), p,
                                      q, stream, dst);
            p = q;
            continue;
        }
        // A window. A STEPS group it cuts goes on in the next window (`carry`): `xp_bulk`
        // takes no STEPS values.
        const XpSlot v0 = xp_fetch_one<T, SIGNED>(sh, w, lane, l, start_k, p, end, stream, bad);
        xp_store<T, SIGNED>(v0, lane, p + lane < end, carry, bad, dst, p + lane);
        p += 32u;
    }
    return __any_sync(0xffffffffu, bad);
}

template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ void orc_expand_body(ORC_KERNEL_PARAMS) {
    __shared__ XpShared sh;
    (void)next_chunk;
    T* out_t = reinterpret_cast<T*>(out);
    const u32 lane = threadIdx.x & 31u;
    const u32 w = threadIdx.x >> 5;
    const u32* row = sh.in[w][lane];
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 first = blockIdx.x * blockDim.x + w * 32u; first < n_chunks; first += stride) {
        const u32 unit = first + lane;
        const bool active = unit < n_chunks;
        const OrcRleChunk c = lane_unit(chunks, unit, active);
        XpWalk s;
        s.at = c.in_offset;
        s.buf = 0ull;
        s.len = c.in_len;
        s.pos = 0u;
        s.need = c.count;
        s.made = 0u;
        s.lit = 0u;
        s.ones = false;
        bool slow = active && (c.skip != 0u || c.exact == 0u || c.count > XP_MAX_UNIT);
        bool running = active && !slow && s.len > 0u;
        bool staged = false;
        while (__any_sync(0xffffffffu, running)) {
            const u32 round_start = s.made;
            u32 ng = 0u;
            bool walking = running;
            // 1. Walk: lanes parse groups until their descriptors are full or the stream ends.
            while (__any_sync(0xffffffffu, walking)) {
                const bool want =
                    walking && (!staged || s.at + s.pos + XP_MARGIN > s.buf + 4u * XP_BUF_WORDS);
                if (want) {
                    s.buf = (s.at + s.pos) & ~3ull;
                    staged = true;
                }
                u32 refill = __ballot_sync(0xffffffffu, want);
                if (refill != 0u) {
                    // Half a warp copies one lane's 64 bytes: two lanes' buffers per copy.
                    do {
                        const u32 l0 = (u32)__ffs(refill) - 1u;
                        refill &= refill - 1u;
                        u32 l1 = l0;
                        if (refill != 0u) {
                            l1 = (u32)__ffs(refill) - 1u;
                            refill &= refill - 1u;
                        }
                        const u32 l = lane < 16u ? l0 : l1;
                        const u64 a = __shfl_sync(0xffffffffu, s.buf, l);
                        if (lane < 16u || l1 != l0) {
                            codag_cp_async4(&sh.in[w][l][lane & 15u], in + a + 4u * (lane & 15u));
                        }
                    } while (refill != 0u);
                    codag_cp_async_commit();
                    codag_cp_async_wait(0u);
                }
                __syncwarp();
                if (walking) {
                    const u32 r = V2 ? xp_walk_v2<T, SIGNED>(s, row, sh, w, lane, ng)
                                     : xp_walk_v1<T, SIGNED>(s, row, sh, w, lane, ng);
                    if (r == XP_FAIL) slow = true;
                    running = r != XP_FAIL && s.pos < s.len;
                    walking = r == XP_OK && running;
                }
            }
            __syncwarp();
            // 2. Expand: every sub-block's values of this round, by the whole warp.
            const u32 mine = slow ? 0u : ng;
            const u32 mine_values = mine != 0u ? s.made - round_start : 0u;
            const u32 busy = __popc(__ballot_sync(0xffffffffu, mine != 0u));
            if (wz_warp_sum<u32>(mine_values) < XP_FLAT_BELOW * busy) {
                const u32 bad = xp_expand<T, SIGNED>(sh, w, lane, mine, round_start, s.made,
                                                     s.at, c.out_offset, in, out_t);
                if ((bad >> lane) & 1u) slow = true;
            } else {
                for (u32 l = 0u; l < 32u; l++) {
                    const u32 n = __shfl_sync(0xffffffffu, mine, l);
                    if (n == 0u) continue;
                    const u32 b0 = __shfl_sync(0xffffffffu, round_start, l);
                    const u32 end = __shfl_sync(0xffffffffu, s.made, l);
                    const u64 at = __shfl_sync(0xffffffffu, s.at, l);
                    const u64 out0 = __shfl_sync(0xffffffffu, c.out_offset, l);
                    const bool bad = xp_expand_one<T, SIGNED>(sh, w, lane, l, n, b0, end, in + at,
                                                              out_t + out0);
                    if (bad && lane == l) slow = true;
                }
            }
            __syncwarp();
        }
        if (active && !slow && (s.made != s.need || s.lit != 0u)) slow = true;
        if (active) {
            status[unit] = slow ? lane_decode_unit<T, SIGNED, V2>(in, c, out_t) : WZ_STATUS_OK;
        }
    }
}

template <typename T, bool SIGNED>
__device__ void expand_v1(ORC_KERNEL_PARAMS) {
    orc_expand_body<T, SIGNED, false>(ORC_KERNEL_ARGS);
}

template <typename T, bool SIGNED>
__device__ void expand_v2(ORC_KERNEL_PARAMS) {
    orc_expand_body<T, SIGNED, true>(ORC_KERNEL_ARGS);
}

// The entry points, held to 64 registers so that 8 blocks (32 warps) fit on an SM next to their
// 27.5 KB of shared memory each (with the 1 KB the driver reserves per block, 8 blocks take the
// whole 228 KB of an sm_90 SM: a larger XP_FLAT_BELOW would cost a block).
ORC_INT_KERNELS_WITH(__launch_bounds__(XP_WARPS * 32u, 8), orc_rle_v1_expand, expand_v1)
ORC_INT_KERNELS_WITH(__launch_bounds__(XP_WARPS * 32u, 8), orc_rle_v2_expand, expand_v2)
