// ORC Integer RLE v1 and v2 decoders for indexed `.wz` chunks (layout 2): one lane per
// sub-block, the 32 lanes of a warp stepping through their groups in lockstep, their values
// staged in shared memory and written out by the whole warp, four lanes' 64-byte lines per store.
//
// The lane-per-sub-block decoder (orc_rle_lanes.cu) runs one loop per group kind, so lanes whose
// groups differ in kind or length wait for each other (6.8 active threads a warp on dates), and
// it stores each lane's values straight to its own place, 32 places per warp store. Here every
// lane runs the same step:
//
// 1. A lane whose group is used up parses the next header into a small state: LINEAR (value i is
//    base + delta * i: a SHORT_REPEAT, an RLEv1 run, a width-0 DELTA, a DIRECT group of one or
//    two values, which the parse reads; SHORT_REPEAT and DIRECT headers share one parse), BYTES
//    (a DIRECT group of width 8, the Apache writers' width for small values), BITS (a longer
//    DIRECT group's packed values, or a DELTA group, whose values from the third on add packed
//    steps), POOL (an RLEv2 DIRECT group of at most ST_TAKE packed values that fit T) or VARINT
//    (an RLEv1 literal group).
// 2. Every lane makes up to ST_TAKE values of its group (8, or 16 of 2 or 4 bytes), the same few
//    instructions for every kind of group, and puts them in its ring of 32 words in shared
//    memory: first the linear values of every lane (a LINEAR group's, a DELTA group's first
//    two) in one loop, then values that are whole bytes (BYTES, and the one-byte varints of
//    RLEv1 literals) eight from one load, the varints of up to four bytes of RLEv1 literals
//    of 4- and 8-byte values two from one load (`st_varint_pairs`: dates, keys), then the
//    packed and other varint values one by one.
//    The POOL groups' values are made last by the whole warp, a value a thread (`st_pool`): a
//    step's few such groups (dates: DIRECT groups of 3 to 10 values, in one or two lanes of a
//    warp) would otherwise run a loop of their longest group's length with the other lanes idle.
// 3. Every lane holding 16 or more words of values has the oldest 16 written. Where few lanes
//    have such a line (ST_OWN_LINES or fewer: dates, discounts), each writes its own, four
//    16-byte stores; where many do (keys, quantities), eight lanes write one lane's 64 bytes,
//    8 bytes each, four lanes' lines per warp store, so that every output sector is written
//    whole at once, which costs more instructions a step (a lane's sub-block starts at an
//    8-byte-aligned output address).
//
// Every check the CPU makes is made, but not in the CPU's order and without saying which failed:
// a sub-block that fails any check, holds a PATCHED_BASE group, or whose output is not 8-byte
// aligned is decoded again at the end by its own lane with the serial decoder of
// orc_lanes.cuh, which gives the CPU's exact status and rewrites every value.
//
// Bounds: every byte a value depends on lies inside the unit's `in_len` (headers and packed
// data are checked against it before use; varints by `lane_varint`); the lane windows and
// `st_pool`'s loads read up to 16 bytes past them, inside the host's `INPUT_SLACK`.
#include "orc/orc_lanes.cuh"

// Threads per block (the host launches ORC_LANES_THREADS, as for orc_rle_lanes.cu).
#define ST_WARPS 4u
// Words in a lane's ring, and its row in shared memory (four more, so that rows start on
// different banks and stay 16-byte aligned); the words of a line (written together); the bytes
// of values a lane makes per step (ST_TAKE values). A lane holds fewer than ST_LINE words (and a
// partial one) before a step and adds at most 64 bytes of values: fewer than ST_RING words.
// 4.7 KB a warp: 8 blocks fit an SM, so the default 2 KiB sub-blocks of a large column take one
// wave (one sub-block a lane).
#define ST_RING 32u
#define ST_ROW (ST_RING + 4u)
#define ST_LINE 16u
// The most lines of a step that their lanes write themselves (more go through `list`, four a
// store). H100, against the warp writing every line: 12 gave v1 / v2 dates +3.5% /
// +3.3%, v1 discounts +2.8%, v1 quantities -1%; 20 measured within 2% of 12 (v2 dates -1.2%,
// v2 discounts +2.5%).
#define ST_OWN_LINES 12u
// Values a step: 8, and 16 for 2- and 4-byte values (i32: 2% faster on quantities on the H100
// and the H200; i16: 13% faster on RLEv2 discounts on the H100). 32 i16
// values a step measured a third slower on discounts, whose lanes then waited in most steps for
// one finishing a long group (H200).
#define ST_K 8u
#define ST_KN 16u
// The values a step of T.
#define ST_TAKE ((sizeof(T) == 4u || sizeof(T) == 2u) ? ST_KN : ST_K)

// Whether the lanes' stream reads ask L2 for whole 128-byte blocks (`lane_load`): for values of
// up to 4 bytes. H100, in one run: v1 / v2 discounts +5% / +4%, v1 / v2 dates +1.5% /
// +2%; sorted keys (8-byte values, 206-242 stream bytes a sub-block) lost 2% / 5% with it.
#define ST_BLOCK (sizeof(T) <= 4u)

#define ST_LINEAR 0u
#define ST_BITS 1u
#define ST_VARINT 2u
#define ST_BYTES 3u  // whole bytes: a width-8 DIRECT group, RLEv1 literals from a one-byte varint
#define ST_WORDS 4u  // a DIRECT group of width 16 or 32, at most T's
#define ST_POOL 5u   // a short DIRECT group of packed values of at most T's width: the warp's
                     // threads share out the values of all such groups of a step (`st_pool`)

struct StShared {
    // Rows of a multiple of four words, so 16-byte pieces of them are aligned.
    alignas(16) u32 ring[ST_WARPS][32u * ST_ROW];
    // The lanes with a line to write, in lane order (a step's flush, when many lanes have one).
    u32 list[ST_WARPS][32];
};

// A lane's group under way.
struct StGroup {
    u32 rem;    // values left
    u32 idx;    // the index of the next value in the group
    u32 mode;   // ST_LINEAR, ST_BITS, ST_VARINT, ST_BYTES, ST_WORDS or ST_POOL
    u32 width;  // BITS, WORDS: the packed width
    u32 data;   // BITS, BYTES and WORDS of RLEv2: the packed values' first byte, from the
                // stream's first byte
    u32 lin;    // BITS: values before the packed ones that follow base + delta * i (a DELTA
                // group's 2, whose packed values are steps; a DIRECT group's 0)
    bool dec;   // steps: decreasing
    bool check; // BITS, a DIRECT group: the values may not fit T (the width is T's or more)
    u64 base;   // LINEAR (and a DELTA's first two values): the first value
    u64 delta;  // its step, two's complement
    u64 prev;   // steps: the last value made
    // BITS: the packed bits read ahead, from the next value's on, most significant first (`have`
    // of them).
    u64 win;
    u32 have;
};

// A stream value of at most 32 bits (`raw`, zigzagged in a signed stream) as the stream's 64
// bits.
template <bool SIGNED>
__device__ __forceinline__ u64 st_value32(u32 raw) {
    return SIGNED ? (u64)(i64)(int)orc_unzigzag32(raw) : (u64)raw;
}

// Parses the RLEv2 header at `s.pos` into `g` (moving `s.pos` past the group's bytes); false
// where the CPU would fail (or might: the serial decoder decides) or on a PATCHED_BASE group.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool st_parse_v2(LaneIn& s, StGroup& g, u32 left) {
    const u32 avail = s.len - s.pos;
    const u64 le = lane_peek<ST_BLOCK>(s, s.in + s.pos);
    const u32 h0 = (u32)le & 0xffu;
    const u32 kind = h0 >> 6;
    g.idx = 0u;
    g.have = 0u;
    g.delta = 0ull;
    g.mode = ST_LINEAR;
    if (kind <= 1u) {
        // SHORT_REPEAT and DIRECT share one path, so that a warp whose lanes parse both kinds
        // (dates: a repeat, then one or two values) runs it once. A SHORT_REPEAT is a DIRECT
        // group of one value, `bytes` whole bytes wide, after a 1-byte header, used n times.
        const bool sr = kind == 0u;
        const u32 width = sr ? 8u * (((h0 >> 3) & 7u) + 1u) : orc_decode_width(h0 >> 1);
        const u32 n = sr ? (h0 & 7u) + 3u : lane_v2_len(h0, ((u32)le >> 8) & 0xffu);
        const u32 head = sr ? 1u : 2u;
        const u32 bytes = sr ? width >> 3 : (width * n + 7u) >> 3;
        if (avail < head || avail - head < bytes || n > left) return false;
        g.rem = n;
        if (sr || (n <= 2u && width <= 32u)) {
            // One value, or two (dates and keys between repeats): read here, one linear run;
            // from the header's window where they end inside it (a 4-byte repeat, one 4-byte
            // value).
            const u64 be = head + bytes <= 8u
                               ? lane_bswap(le) << (8u * head)
                               : lane_bswap(lane_peek<ST_BLOCK>(s, s.in + s.pos + head));
            const u64 r0 = be >> (64u - width);
            const u64 r1 = !sr && n == 2u ? (be << (width & 63u)) >> (64u - width) : r0;
            if (sizeof(T) <= 4u && width <= 8u * (u32)sizeof(T)) {
                // At most T's width: 32 bits hold both, and they fit.
                const u32 a0 = (u32)r0;
                const u32 a1 = (u32)r1;
                const u32 x0 = SIGNED ? orc_unzigzag32(a0) : a0;
                const u32 x1 = SIGNED ? orc_unzigzag32(a1) : a1;
                g.base = SIGNED ? (u64)(i64)(int)x0 : (u64)x0;
                g.delta = (u64)(i64)(int)(x1 - x0);  // `st_linear` steps in 32 bits
            } else {
                const u64 v0 = SIGNED ? (u64)orc_unzigzag(r0) : r0;
                const u64 v1 = SIGNED ? (u64)orc_unzigzag(r1) : r1;
                if (!orc_fits<T, SIGNED>(v0) || !orc_fits<T, SIGNED>(v1)) return false;
                g.base = v0;
                g.delta = v1 - v0;
            }
        } else {
            // Bytes (width 8, the Apache writers' usual width for small values) fit every T;
            // other widths above T's are checked value by value.
            // A group of at most a step's values, of packed values that fit T, has its values
            // made by the whole warp (dates: DIRECT groups of 3 to 10 values, which the lanes
            // of a step rarely share).
            g.mode = width == 8u ? ST_BYTES
                     : n <= ST_TAKE && width <= 8u * (u32)sizeof(T) ? ST_POOL
                     : (width == 16u || width == 32u) && width <= 8u * (u32)sizeof(T) ? ST_WORDS
                                                                                   : ST_BITS;
            g.width = width;
            g.data = s.pos + 2u;
            g.lin = 0u;
            g.check = width > 8u * (u32)sizeof(T);
        }
        s.pos += head + bytes;
        return true;
    }
    if (avail < 2u) return false;
    const u32 n = lane_v2_len(h0, ((u32)le >> 8) & 0xffu);
    if (n > left) return false;
    g.rem = n;
    if (kind == 2u) return false;  // PATCHED_BASE: the serial decoder
    const u32 code = (h0 >> 1) & 0x1fu;
    const u32 width = code == 0u ? 0u : orc_decode_width(code);
    s.pos += 2u;
    u64 raw;
    if (lane_varint<ST_BLOCK>(s, raw) != WZ_STATUS_OK) return false;
    // The base, as the stream's 64 bits (a signed stream's zigzag value is an i64 already).
    const u64 base = SIGNED ? (u64)orc_unzigzag(raw) : raw;
    if (lane_varint<ST_BLOCK>(s, raw) != WZ_STATUS_OK) return false;
    const i64 db = orc_unzigzag(raw);
    g.base = base;
    g.delta = (u64)db;
    if (width == 0u) {
        // A step of 32 bits over at most 511 steps moves less than 2^41: no 64-bit overflow.
        if (db == (i64)(int)db) return orc_run_fits<T, SIGNED>(base, db * (i64)(n - 1u));
        const i128 wide = SIGNED ? (i128)(i64)base : (i128)base;
        return orc_fits<T, SIGNED>(base) &&
               orc_fits_wide<T, SIGNED>(wide + (i128)db * (i128)(n - 1u));
    }
    const u32 bytes = (width * (n >= 2u ? n - 2u : 0u) + 7u) >> 3;
    if (s.len - s.pos < bytes) return false;
    if (!orc_run_fits<T, SIGNED>(base, n >= 2u ? db : 0ll)) return false;
    g.mode = ST_BITS;
    g.width = width;
    g.data = s.pos;
    g.lin = 2u;
    g.dec = db < 0;
    s.pos += bytes;
    return true;
}

// Parses the RLEv1 control byte at `s.pos` into `g`: a run (LINEAR), or a literal group whose
// varints the steps then read one by one (VARINT). False where the CPU would fail.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool st_parse_v1(LaneIn& s, StGroup& g, u32 left) {
    const u32 avail = s.len - s.pos;
    const u64 le = lane_peek<ST_BLOCK>(s, s.in + s.pos);
    const u32 control = (u32)le & 0xffu;
    g.idx = 0u;
    if (control >= 0x80u) {
        // A literal group opening with a one-byte varint has its runs of them made 8 from a
        // load (`st_bytes`); one opening with a longer varint is read varint by varint (keys,
        // dates: no look for one-byte runs in every step).
        g.mode = (le & 0x8000ull) == 0ull ? ST_BYTES : ST_VARINT;
        g.rem = 256u - control;
        s.pos += 1u;
        return g.rem <= left;
    }
    const u32 n = control + 3u;
    if (avail < 2u || n > left) return false;
    const i64 delta = (i64)(signed char)(((u32)le >> 8) & 0xffu);
    // The base varint, from the window already read where it ends inside it.
    const u64 rest = le >> 16;
    u64 stops = ~rest & 0x0000808080808080ull;
    if (avail < 8u) stops &= (1ull << (8u * (avail - 2u))) - 1ull;
    s.pos += 2u;
    u64 base;
    const u32 near = (u32)stops & 0x80808080u;  // the varint ends in its first 4 bytes
    if (near != 0u && (sizeof(T) >= 4u || (near & 0x80u) != 0u)) {
        // One byte (discounts, quantities), or up to four into 4- and 8-byte values (dates,
        // keys): both ends in 32 bits, within the stream's domain, the base within T.
        const u32 bytes = (near & 0x80u) != 0u ? 1u : (u32)__ffs((int)near) >> 3;
        const u32 r = bytes == 1u ? (u32)rest & 0x7fu : lane_varint_bits32((u32)rest, bytes);
        const int b = SIGNED ? (int)orc_unzigzag32(r) : (int)r;
        if (!orc_fits32<T, SIGNED>(b + (int)delta * (int)(n - 1u))) return false;
        base = SIGNED ? (u64)(i64)b : (u64)r;
        s.pos += bytes;
    } else {
        u64 raw;
        if (stops != 0ull) {
            const u32 bytes = (u32)__ffsll((long long)stops) >> 3;
            raw = lane_varint_bits(rest, bytes);
            s.pos += bytes;
        } else if (lane_varint<ST_BLOCK>(s, raw) != WZ_STATUS_OK) {
            return false;
        }
        base = SIGNED ? (u64)orc_unzigzag(raw) : raw;
        if (!orc_run_fits<T, SIGNED>(base, delta * (i64)(n - 1u))) return false;
    }
    g.mode = ST_LINEAR;
    g.base = base;
    g.delta = (u64)delta;
    g.rem = n;
    return true;
}

// Value `i` of a linear run: a LINEAR group, or a DELTA group's first two values. Wrapping
// arithmetic (in 32 bits where T has no more, then widened as the stream value: a DELTA's steps
// go on from it): the run's ends were checked.
template <typename T, bool SIGNED>
__device__ __forceinline__ u64 st_linear(const StGroup& g, u32 i) {
    if (sizeof(T) <= 4u) {
        const u32 x = (u32)g.base + (u32)g.delta * i;
        return SIGNED ? (u64)(i64)(int)x : (u64)x;
    }
    return g.base + g.delta * (u64)i;
}

// The next value of a BITS or VARINT group (past a DELTA group's first two); `bad` is set where
// it fails a check.
template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ u64 st_coded(LaneIn& s, StGroup& g, bool& bad) {
    u64 v;
    if (V2) {
        if (g.have < g.width) {
            // The 64 bits from the value's first on (57 or more for the widths under 64, which
            // start on a bit other than 0 only when they are under 33).
            const u32 bit = (g.idx - g.lin) * g.width;
            const u32 sh = bit & 7u;
            g.win = lane_bswap(lane_peek<ST_BLOCK>(s, s.in + g.data + (bit >> 3))) << sh;
            g.have = 64u - sh;
        }
        const u64 raw = g.win >> (64u - g.width);
        g.win = g.width < 64u ? g.win << g.width : 0ull;
        g.have -= g.width;
        if (g.lin != 0u) {
            v = g.dec ? g.prev - raw : g.prev + raw;
            // A step of at most 32 bits from a value of T of at most 32 bits cannot wrap 64
            // bits, so only wider ones need the order checked.
            const bool wraps = sizeof(T) > 4u || g.width > 32u;
            bad |= (wraps && !orc_in_order<SIGNED>(g.prev, v, g.dec)) || !orc_fits<T, SIGNED>(v);
            g.prev = v;  // the next step goes on from it
        } else if (sizeof(T) <= 4u && !g.check) {
            // At most T's width: 32 bits hold the value, and it fits.
            v = SIGNED ? st_value32<SIGNED>((u32)raw) : raw;
        } else {
            v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
            bad |= g.check && !orc_fits<T, SIGNED>(v);
        }
    } else {
        u64 raw = 0ull;
        bad |= lane_varint<ST_BLOCK>(s, raw) != WZ_STATUS_OK;
        if (raw < (sizeof(T) >= 4u ? (1ull << 28) : 0x80ull)) {
            // 7 bits (a one-byte varint), or 28 (up to four bytes) for 4- and 8-byte values:
            // within the type once un-zigzagged, which 32 bits do (H200: v1 quantities
            // 799 -> 836 GB/s, discounts 323 -> 336).
            v = SIGNED ? st_value32<SIGNED>((u32)raw) : raw;
        } else {
            v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
            bad |= !orc_fits<T, SIGNED>(v);
        }
    }
    g.idx++;
    return v;
}

// Puts value number `n` of a lane's sub-block into its ring (`row`: the lane's row of words).
template <typename T>
__device__ __forceinline__ void st_stage(u32* row, u32 n, u64 v) {
    const u32 byte = (n * (u32)sizeof(T)) & (4u * ST_RING - 1u);
    if (sizeof(T) == 8u) {
        *reinterpret_cast<u64*>(row + (byte >> 2)) = v;
    } else {
        reinterpret_cast<T*>(reinterpret_cast<u8*>(row) + byte)[0] = (T)v;
    }
}

// Values g.idx .. g.idx + nl - 1 of a linear run, put in the ring from value `made` on: the
// value and its place in the ring stepped by additions (`st_linear`'s arithmetic, wrapping).
template <typename T, bool SIGNED>
__device__ __forceinline__ void st_linear_run(u32* row, u32 made, const StGroup& g, u32 nl) {
    u8* ring = reinterpret_cast<u8*>(row);
    u32 byte = (made * (u32)sizeof(T)) & (4u * ST_RING - 1u);
    if (sizeof(T) == 8u) {
        u64 x = g.base + g.delta * (u64)g.idx;
        for (u32 k = 0u; k < nl; ++k) {
            *reinterpret_cast<u64*>(ring + byte) = x;
            x += g.delta;
            byte = (byte + 8u) & (4u * ST_RING - 1u);
        }
    } else {
        u32 x = (u32)g.base + (u32)g.delta * g.idx;
        for (u32 k = 0u; k < nl; ++k) {
            *reinterpret_cast<T*>(ring + byte) = (T)x;
            x += (u32)g.delta;
            byte = (byte + (u32)sizeof(T)) & (4u * ST_RING - 1u);
        }
    }
}

// Byte `k` (0..7) of the 8 bytes `lo`, `hi` as a value: un-zigzagged, in 32 bits, for a signed
// stream.
template <bool SIGNED>
__device__ __forceinline__ u64 st_byte(u32 lo, u32 hi, u32 k) {
    return st_value32<SIGNED>(__byte_perm(lo, hi, k) & 0xffu);
}

// Values made from whole stream bytes, up to `want` of them: a width-8 DIRECT group's (V2), or
// the one-byte varints that open the rest of an RLEv1 literal group (up to its first longer
// varint or the stream's end). Each byte is a value of any T once un-zigzagged, in 32 bits, so
// no value needs a check. Returns how many were made and put in the ring from value `made` on.
template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ u32 st_bytes(LaneIn& s, StGroup& g, u32* row, u32 made, u32 want) {
    u32 done = 0u;
#pragma unroll
    for (u32 part = 0u; part < ST_TAKE / 8u; ++part) {
        const u32 at = (V2 ? g.data + g.idx : s.pos) + done;
        const u64 le = lane_peek<ST_BLOCK>(s, s.in + at);
        const u32 lo = (u32)le;
        const u32 hi = (u32)(le >> 32);
        u32 m = min(want - done, 8u);
        if (!V2) {
            // Bytes that go on into the next one end the run, as does the stream's end.
            // (No stop bit: ffs gives 0, and the shift a number above 8.)
            const u64 stops = le & 0x8080808080808080ull;
            const u32 ones = ((u32)__ffsll((long long)stops) - 1u) >> 3;
            m = min(m, min(ones, s.len - at));
        }
        const u32 n0 = made + done;
        if (sizeof(T) == 2u) {
            // Two values a word. The 8 bytes become 16-bit values all at once: for a signed
            // stream, each byte's low half is (b >> 1) ^ s and its high half s, s being 0 or
            // 0xff by b's lowest bit (ORC's zigzag); words w[0..3] then hold values (0, 1),
            // (2, 3), (4, 5) and (6, 7), one byte permute each. From an odd value on, the ring's
            // words take (1, 2), (3, 4), (5, 6) and (7, -) (one more permute each), and the first
            // value goes alone. All four words are written, whatever `m`: the halves past the
            // last value are ring places not yet used (a lane holds fewer than ST_LINE words and
            // a half before a step, and this writes at most 12 words on), which later values
            // overwrite before any flush reads them, and a last value without a partner sits in
            // the low half of its word.
            const u32 slo = SIGNED ? (lo & 0x01010101u) * 0xffu : 0u;
            const u32 shi = SIGNED ? (hi & 0x01010101u) * 0xffu : 0u;
            const u32 llo = SIGNED ? ((lo >> 1) & 0x7f7f7f7fu) ^ slo : lo;
            const u32 lhi = SIGNED ? ((hi >> 1) & 0x7f7f7f7fu) ^ shi : hi;
            const u32 w[5] = {__byte_perm(llo, slo, 0x5140u), __byte_perm(llo, slo, 0x7362u),
                              __byte_perm(lhi, shi, 0x5140u), __byte_perm(lhi, shi, 0x7362u), 0u};
            const u32 odd = n0 & 1u;
            const u32 sel = odd != 0u ? 0x5432u : 0x3210u;
            const u32 first = (n0 + odd) >> 1;  // the ring word of the first pair
            u16* half = reinterpret_cast<u16*>(row);
            if (odd != 0u && m != 0u) half[n0 & (2u * ST_RING - 1u)] = (u16)w[0];
#pragma unroll
            for (u32 j = 0u; j < 4u; ++j) {
                row[(first + j) & (ST_RING - 1u)] = __byte_perm(w[j], w[j + 1u], sel);
            }
        } else {
#pragma unroll
            for (u32 k = 0u; k < 8u; ++k) {
                if (k < m) st_stage<T>(row, n0 + k, st_byte<SIGNED>(lo, hi, k));
            }
        }
        done += m;
        if (m < 8u) break;
    }
    g.idx += done;
    if (!V2) s.pos += done;
    return done;
}

// Values of a DIRECT group of EB whole bytes each (width 16 or 32, at most T's), up to `want` of
// them: 8 / EB from each 8-byte load, each big-endian value one byte permute. Returns how many
// were made and put in the ring from value `made` on.
template <typename T, bool SIGNED, u32 EB>
__device__ __forceinline__ u32 st_words(LaneIn& s, StGroup& g, u32* row, u32 made, u32 want) {
    const u32 per = 8u / EB;
    u32 done = 0u;
#pragma unroll
    for (u32 part = 0u; part < ST_TAKE / per; ++part) {
        if (done >= want) break;
        const u64 le = lane_peek<ST_BLOCK>(s, s.in + g.data + (g.idx + done) * EB);
        const u32 lo = (u32)le;
        const u32 hi = (u32)(le >> 32);
        const u32 m = min(want - done, per);
#pragma unroll
        for (u32 k = 0u; k < 8u / EB; ++k) {
            if (k < m) {
                const u32 sel =
                    EB == 4u ? (k == 0u ? 0x0123u : 0x4567u) : (2u * k + 1u) | (2u * k << 4);
                const u32 r = __byte_perm(lo, hi, sel) & (EB == 4u ? ~0u : 0xffffu);
                st_stage<T>(row, made + done + k, st_value32<SIGNED>(r));
            }
        }
        done += m;
    }
    g.idx += done;
    return done;
}

// Values of an RLEv1 literal group (VARINT) of 4- or 8-byte values, up to `want` of them, two
// varints of up to four bytes from each 8-byte window. Every such varint (under 2^28) fits T once
// un-zigzagged, in 32 bits, so no value needs a check. Stops before the first longer varint, or
// one that runs past the stream's end, which `st_coded` then reads (and fails as the CPU does).
// Returns how many were made and put in the ring from value `made` on.
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 st_varint_pairs(LaneIn& s, StGroup& g, u32* row, u32 made,
                                               u32 want) {
    u32 done = 0u;
    while (done < want) {
        const u32 avail = s.len - s.pos;
        const u64 le = lane_peek<ST_BLOCK>(s, s.in + s.pos);
        // Bit 8n - 1 of a stop mask set: the varint is n bytes (ffs gives 8n; none gives 0).
        const u32 e1 = (u32)__ffs((int)(~(u32)le & 0x80808080u)) >> 3;
        if (e1 == 0u || e1 > avail) break;
        st_stage<T>(row, made + done, st_value32<SIGNED>(lane_varint_bits32((u32)le, e1)));
        const u32 rest = (u32)(le >> (8u * e1));
        const u32 e2 = (u32)__ffs((int)(~rest & 0x80808080u)) >> 3;
        const bool two = done + 1u < want && e2 != 0u && e1 + e2 <= avail;
        if (two) {
            st_stage<T>(row, made + done + 1u, st_value32<SIGNED>(lane_varint_bits32(rest, e2)));
        }
        s.pos += two ? e1 + e2 : e1;
        done += two ? 2u : 1u;
    }
    g.idx += done;
    return done;
}

// The values of the step's ST_POOL groups, made by the warp's threads together: lane l asks
// for `np` values (0 for none), values `idx ..` of a group of `width`-bit big-endian fields
// starting at `data`, to go into its ring from value `slot` on. Thread t of a round makes the
// round's value t: its lane found by a binary search over the lanes' running totals, its field
// read with two aligned 8-byte loads (inside the group's bytes, checked by the parse, and the
// input's slack). The fields fit T (ST_POOL's condition), so no value needs a check. All 32
// lanes call it.
template <typename T, bool SIGNED>
__device__ __forceinline__ void st_pool(u32* ring, u32 np, const u8* data, u32 idx, u32 width,
                                        u32 slot) {
    const u32 lane = threadIdx.x & 31u;
    u32 incl = np;
#pragma unroll
    for (u32 d = 1u; d < 32u; d <<= 1) {
        const u32 v = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += v;
    }
    const u32 total = __shfl_sync(0xffffffffu, incl, 31);
    const u32 excl = incl - np;
    const unsigned long long base = reinterpret_cast<unsigned long long>(data);
    for (u32 first = 0u; first < total; first += 32u) {
        const u32 t = first + lane;
        // The first lane whose running total passes t.
        u32 owner = 0u;
#pragma unroll
        for (u32 step = 16u; step != 0u; step >>= 1) {
            if (__shfl_sync(0xffffffffu, incl, owner + step - 1u) <= t) owner += step;
        }
        const u32 j = t - __shfl_sync(0xffffffffu, excl, owner);
        const u32 w = __shfl_sync(0xffffffffu, width, owner);
        const u32 bit = (__shfl_sync(0xffffffffu, idx, owner) + j) * w;
        const u32 at = __shfl_sync(0xffffffffu, slot, owner) + j;
        const unsigned long long p = __shfl_sync(0xffffffffu, base, owner) + (bit >> 3);
        if (t < total) {
            const u64* words = reinterpret_cast<const u64*>(p & ~7ull);
            const u64 lo = __ldg(words);
            const u64 hi = __ldg(words + 1);
            const u32 sh = ((u32)p & 7u) * 8u;
            const u64 le = sh == 0u ? lo : (lo >> sh) | (hi << (64u - sh));
            const u64 raw = (lane_bswap(le) << (bit & 7u)) >> (64u - w);
            const u64 v = sizeof(T) <= 4u ? st_value32<SIGNED>((u32)raw)
                                          : (SIGNED ? (u64)orc_unzigzag(raw) : raw);
            st_stage<T>(ring + owner * ST_ROW, at, v);
        }
    }
}

template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ void orc_lockstep_body(ORC_KERNEL_PARAMS) {
    __shared__ StShared sh;
    (void)next_chunk;
    T* out_t = reinterpret_cast<T*>(out);
    const u32 lane = threadIdx.x & 31u;
    const u32 w = threadIdx.x >> 5;
    u32* ring = sh.ring[w];
    u32* row = ring + lane * ST_ROW;
    u32* list = sh.list[w];
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 first = blockIdx.x * blockDim.x + w * 32u; first < n_chunks; first += stride) {
        const u32 unit = first + lane;
        const bool active = unit < n_chunks;
        const OrcRleChunk c = lane_unit(chunks, unit, active);
        LaneIn s = lane_in(in, c);
        u32* dst = reinterpret_cast<u32*>(out_t + c.out_offset);
        bool slow = active && (c.skip != 0u || c.exact == 0u ||
                               (reinterpret_cast<unsigned long long>(dst) & 7ull) != 0ull);
        bool running = active && !slow;
        StGroup g;
        g.rem = 0u;
        g.idx = 0u;
        g.mode = ST_LINEAR;
        g.width = 0u;
        g.data = 0u;
        g.lin = 0u;
        g.dec = false;
        g.check = false;
        g.base = g.delta = g.prev = g.win = 0ull;
        g.have = 0u;
        u32 made = 0u;     // values put in the ring
        u32 flushed = 0u;  // words of them written out
        while (__any_sync(0xffffffffu, running)) {
            u32 np = 0u;  // values of an ST_POOL group this step, from value pidx, ring slot pslot
            u32 pidx = 0u;
            u32 pslot = 0u;
            if (running && g.rem == 0u) {
                if (s.pos >= s.len) {
                    running = false;
                    slow = made != c.count;
                } else if (!(V2 ? st_parse_v2<T, SIGNED>(s, g, c.count - made)
                                : st_parse_v1<T, SIGNED>(s, g, c.count - made))) {
                    running = false;
                    slow = true;
                }
            }
            if (running) {
                const u32 take = min(g.rem, ST_TAKE);
                bool bad = false;
                // The linear values first (a LINEAR group's, a DELTA group's first two), then
                // the packed and varint ones: lanes of one kind wait through the other's loop
                // once a step, not through both bodies for every value.
                const u32 nl = g.mode == ST_LINEAR       ? take
                               : V2 && g.idx < g.lin ? min(take, g.lin - g.idx)
                                                       : 0u;
                st_linear_run<T, SIGNED>(row, made, g, nl);
                if (V2 && nl != 0u && g.mode == ST_BITS) {
                    g.prev = st_linear<T, SIGNED>(g, g.idx + nl - 1u);
                }
                g.idx += nl;
                // Values that are whole bytes (a width-8 DIRECT group, RLEv1 one-byte varints),
                // then the rest one by one.
                u32 nb = 0u;
                if (V2 && g.mode == ST_POOL) {
                    np = take;  // no linear values: a DIRECT group
                    pidx = g.idx;
                    pslot = made;
                    g.idx += take;
                } else if (g.mode == ST_BYTES) {
                    nb = st_bytes<T, SIGNED, V2>(s, g, row, made + nl, take - nl);
                } else if (V2 && g.mode == ST_WORDS) {
                    nb = g.width == 16u ? st_words<T, SIGNED, 2u>(s, g, row, made + nl, take - nl)
                                        : st_words<T, SIGNED, 4u>(s, g, row, made + nl, take - nl);
                }
                if (!V2 && sizeof(T) >= 4u && g.mode == ST_VARINT) {
                    nb = st_varint_pairs<T, SIGNED>(s, g, row, made + nl, take - nl);
                }
                for (u32 k = nl + nb + (V2 ? np : 0u); k < take; ++k) {
                    st_stage<T>(row, made + k, st_coded<T, SIGNED, V2>(s, g, bad));
                }
                made += take;
                g.rem -= take;
                if (bad) {
                    running = false;
                    slow = true;
                }
            }
            if (V2 && __any_sync(0xffffffffu, np != 0u)) {
                st_pool<T, SIGNED>(ring, np, s.in + g.data, pidx, g.width, pslot);
            }
            __syncwarp();
            // Lanes holding a whole line of words have it written. Few such lanes write their
            // own, 16 bytes a store where the line is 16-byte aligned, else 8; many have the
            // warp write four lanes' lines per store, eight lanes writing 8 bytes each of one
            // line (`list` names the lines' lanes).
            const bool has_line =
                !slow && ((made * (u32)sizeof(T)) >> 2) - flushed >= ST_LINE;
            const u32 full = __ballot_sync(0xffffffffu, has_line);
            const u32 lines = (u32)__popc(full);
            if (lines <= ST_OWN_LINES) {
                if (has_line) {
                    const u32* src = row + (flushed & (ST_RING - 1u));
                    u32* d = dst + flushed;
                    if ((reinterpret_cast<unsigned long long>(d) & 15ull) == 0ull) {
#pragma unroll
                        for (u32 k = 0u; k < ST_LINE / 4u; ++k) {
                            reinterpret_cast<uint4*>(d)[k] =
                                reinterpret_cast<const uint4*>(src)[k];
                        }
                    } else {
#pragma unroll
                        for (u32 k = 0u; k < ST_LINE / 2u; ++k) {
                            reinterpret_cast<uint2*>(d)[k] =
                                reinterpret_cast<const uint2*>(src)[k];
                        }
                    }
                    flushed += ST_LINE;
                }
            } else {
                if (has_line) list[__popc(full & ((1u << lane) - 1u))] = lane;
                // Where this lane's line goes and where it sits in the ring.
                const unsigned long long line =
                    reinterpret_cast<unsigned long long>(dst + flushed);
                const u32 at = lane * ST_ROW + (flushed & (ST_RING - 1u));
                __syncwarp();
                const u32 q = lane >> 3;
                const u32 j = lane & 7u;
                for (u32 i = 0u; i < lines; i += 4u) {
                    const u32 l = list[min(i + q, lines - 1u)];
                    const unsigned long long a = __shfl_sync(0xffffffffu, line, l);
                    const u32 r = __shfl_sync(0xffffffffu, at, l);
                    if (i + q < lines) {
                        reinterpret_cast<uint2*>(a)[j] =
                            *reinterpret_cast<const uint2*>(ring + r + 2u * j);
                    }
                }
                if (has_line) flushed += ST_LINE;
            }
            __syncwarp();
        }
        // The values still held: each finished lane's, written by the whole warp, value by value.
        u32 tails = __ballot_sync(0xffffffffu, active && !slow);
        while (tails != 0u) {
            const u32 l = (u32)__ffs(tails) - 1u;
            tails &= tails - 1u;
            const u32 from = __shfl_sync(0xffffffffu, flushed, l) * 4u / (u32)sizeof(T);
            const u32 to = __shfl_sync(0xffffffffu, made, l);
            T* d = reinterpret_cast<T*>(__shfl_sync(0xffffffffu, (unsigned long long)dst, l));
            const u8* src = reinterpret_cast<const u8*>(ring + l * ST_ROW);
            for (u32 i = from + lane; i < to; i += 32u) {
                // Rows are 8-byte aligned, so every value is aligned to its size (as `st_stage`
                // wrote it).
                const u32 byte = (i * (u32)sizeof(T)) & (4u * ST_RING - 1u);
                d[i] = *reinterpret_cast<const T*>(src + byte);
            }
        }
        __syncwarp();
        if (active) {
            status[unit] = slow ? lane_decode_unit<T, SIGNED, V2>(in, c, out_t) : WZ_STATUS_OK;
        }
    }
}

template <typename T, bool SIGNED>
__device__ void lockstep_v1(ORC_KERNEL_PARAMS) {
    orc_lockstep_body<T, SIGNED, false>(ORC_KERNEL_ARGS);
}

template <typename T, bool SIGNED>
__device__ void lockstep_v2(ORC_KERNEL_PARAMS) {
    orc_lockstep_body<T, SIGNED, true>(ORC_KERNEL_ARGS);
}

// 18.5 KB of shared memory a block, at most 64 registers: 8 blocks (32 warps) fit an sm_90 SM.
// The RLEv2 kernels of 8-byte values ask for 6 blocks, which lets them use 72 registers (7 blocks
// fit): held to 64 they were short of registers, and with 72 sorted keys decode 8% faster
// (1080.7 -> 1170.4 GB/s on an H100), while the kernels of smaller values were slower
// with the same bound (v2 dates -26%).
ORC_INT_KERNELS_WITH(__launch_bounds__(ST_WARPS * 32u, 8), orc_rle_v1_lockstep, lockstep_v1)
ORC_INT_KERNELS_WITH64(__launch_bounds__(ST_WARPS * 32u, 8), __launch_bounds__(ST_WARPS * 32u, 6),
                       orc_rle_v2_lockstep, lockstep_v2)
