// Inflate (RFC 1951) on the CODAG framework, shared by the two kernels: `inflate.cu` (one warp
// per raw-deflate stream) and `inflate_pair.cu` (two warps per stream), persistent grids.
//
// - Input: the framework's `CodagIn` (a 256-byte shared-memory window refilled with coalesced
//   128-byte warp loads); the decoder keeps a 64-bit bit buffer in registers on top of it, so a
//   Huffman symbol costs one shared-memory table read.
// - Huffman tables: built by the warp together in shared memory for every dynamic block (and
//   for the first fixed block): code lengths are counted with `__match_any_sync`, symbols
//   sorted by (length, symbol) with ranks from the same match masks, and every entry of a wide
//   first-level table (10 bits for literal/length codes, 8 for distances, 7 for the code-length
//   code) is filled by one lane from the canonical code's left-justified limits. Codes longer
//   than the first level are decoded canonically from the sorted symbols (rare by design: they
//   are the least frequent symbols).
// - Huffman blocks: parallel rounds (`inflate_parallel_round`): every lane decodes its own
//   region of the stream from a guessed start, the lanes' walks into the next region find where
//   the guesses fall into step with the true token boundaries, and the true tokens go to the
//   output in stream order. The stream's last bits, and any code a round finds invalid, are
//   decoded symbol by symbol by the whole warp, so statuses stay exact.
// - Output: the framework's `CodagOut<u8>` through its deferred LZ77 batch (`CodagLzBatch`):
//   32 literals and matches are decoded into lane registers, then their bytes are written in
//   coalesced rounds of 32, in-batch references resolved through shared memory; stored blocks
//   are copied with coalesced loads.
// - Checks: every read is bounded by the stream's length and every write by its capacity.
//   Over-subscribed and incomplete codes are rejected as zlib rejects them (an incomplete
//   literal/length or distance code is allowed only when it has one code of length 1; the
//   code-length code must be complete), as are reserved block types, literal/length symbols
//   286-287, distance symbols 30-31, HLIT > 286, HDIST > 30, a repeat with nothing to repeat or
//   past the end, a missing end-of-block code and LEN/NLEN mismatches.
//
// Results per stream (3 words): status (WZ_STATUS_*), bytes written, bytes consumed up to the
// end of the final block (rounded up to a byte).
#include "framework/codag.cuh"

#define INFLATE_WARPS 2u  // warps per block of either kernel
#define LIT_TB 10u   // first-level bits of the literal/length table
#define DIST_TB 8u   // first-level bits of the distance table
#define CL_TB 7u     // the code-length code has codes of at most 7 bits

// Parallel rounds (`inflate_parallel_round`): each lane decodes a region of INFLATE_REGION bits.
// The kernel file that includes this header sets the rounds' geometry first:
//   INFLATE_REGION_WORDS  input words in a lane's region
//   INFLATE_LIST          tokens a lane keeps from its region
//   INFLATE_FIX           symbols a lane may decode past its region to meet the next lane's
#if !defined(INFLATE_REGION_WORDS) || !defined(INFLATE_LIST) || !defined(INFLATE_FIX)
#error "define INFLATE_REGION_WORDS, INFLATE_LIST and INFLATE_FIX before including inflate.cuh"
#endif
#define INFLATE_REGION (INFLATE_REGION_WORDS * 32u)
#define INFLATE_ROWS (INFLATE_LIST + INFLATE_FIX)  // a warp's token rows in global scratch
#define INFLATE_STAGE_WORDS (32u * INFLATE_REGION_WORDS + 8u)
#define INFLATE_MARGIN 128u  // bits a round needs in the stream after its last region
#define INFLATE_LG_PHASES_MAX 3u  // at most 8 lanes (start phases) per region

// Table kinds.
#define TK_LIT 0u
#define TK_DIST 1u
#define TK_CL 2u

// Entry layout: bits 0-3 code length, 4-7 extra bits, 8-9 kind, 16-31 value.
#define E_LITERAL 0u  // value: the byte (TK_CL: the symbol; TK_DIST: the base distance)
#define E_LENGTH 1u   // value: base length
#define E_END 2u      // end of block
#define E_SPECIAL 3u  // value 1: the code is longer than the first level (or unassigned);
                      // value 0: an invalid symbol
#define E_KIND(e) (((e) >> 8) & 3u)

struct InflateChunk {
    u64 in_offset;
    u64 out_offset;
    u32 in_len;
    u32 out_cap;
};

// Canonical-code bookkeeping of one table: for every length L, codes first[L]..limit[L]-1
// map to sorted[offs[L]..].
struct InflateMeta {
    u16 first[16];
    u16 limit[16];
    u16 offs[16];
};

struct InflateSmem {
    u32 window[64];
    u32 lit[1u << LIT_TB];
    u32 dist[1u << DIST_TB];  // also the code-length table while a header is read
    u16 sorted_lit[288];
    u16 sorted_dist[32];
    InflateMeta lit_meta;
    InflateMeta dist_meta;
    CodagLzTable tokens;
    u16 run[16];
    u32 stage[INFLATE_STAGE_WORDS];         // a round's input words
    u32 marks[32u * INFLATE_REGION_WORDS];  // a round's token starts, one bit per input bit
    u8 lens[320];  // code lengths: literal/length then distance
};

__device__ __forceinline__ u32 inflate_entry(u32 kind, u32 sym, u32 len) {
    if (kind == TK_CL) return len | (sym << 16);
    if (kind == TK_DIST) {
        if (sym >= 30u) return len | (E_SPECIAL << 8);
        u32 extra = 0, base = sym + 1u;
        if (sym >= 4u) {
            extra = (sym >> 1) - 1u;
            base = ((2u + (sym & 1u)) << extra) + 1u;
        }
        return len | (extra << 4) | (base << 16);
    }
    if (sym < 256u) return len | (sym << 16);
    if (sym == 256u) return len | (E_END << 8);
    if (sym > 285u) return len | (E_SPECIAL << 8);
    const u32 i = sym - 257u;
    u32 extra = 0, base = i + 3u;
    if (i == 28u) {
        base = 258u;
    } else if (i >= 8u) {
        extra = (i >> 2) - 1u;
        base = ((4u + (i & 3u)) << extra) + 3u;
    }
    return len | (extra << 4) | (E_LENGTH << 8) | (base << 16);
}

// Walks the code lengths lens[0..n) a warp step at a time and counts the codes of every length
// into run[1..15] (reset first): the lowest lane of each group of equal lengths adds. With PLACE,
// every symbol is also written to sorted[] at its (length, symbol) rank: offs[len], plus the
// codes of that length in earlier steps, plus its rank among equal lengths in this step (from the
// same match masks). Warp-wide.
template <bool PLACE>
__device__ __forceinline__ void inflate_walk_lengths(const u8* lens, u32 n, u16* run,
                                                     const u16* offs, u16* sorted) {
    const u32 lane = wz_lane();
    __syncwarp();
    if (lane < 16u) run[lane] = 0;
    __syncwarp();
    for (u32 base = 0; base < n; base += 32u) {
        const u32 s = base + lane;
        const u32 len = s < n ? lens[s] : 0u;
        const u32 m = __match_any_sync(WZ_FULL_MASK, len);
        if (PLACE) {
            if (len != 0u) sorted[offs[len] + run[len] + __popc(m & codag_lanemask_lt())] = (u16)s;
            __syncwarp();
        }
        if (len != 0u && lane == (u32)(__ffs(m) - 1)) run[len] += (u16)__popc(m);
        __syncwarp();
    }
}

// Builds the first-level table (`1 << tb` entries) and the canonical bookkeeping of the code
// with lengths lens[0..n) (warp-wide). False for a set of lengths zlib rejects.
__device__ bool inflate_build(const u8* lens, u32 n, u32 tb, u32 kind, u32* table,
                              InflateMeta& meta, u16* sorted, u16* run) {
    const u32 lane = wz_lane();
    inflate_walk_lengths<false>(lens, n, run, nullptr, nullptr);
    int left = 1;
    u32 code = 0, idx = 0, maxlen = 0;
    for (u32 L = 1; L <= 15u; ++L) {
        const u32 c = run[L];
        left = left * 2 - (int)c;
        if (lane == 0) {
            meta.first[L] = (u16)code;
            meta.limit[L] = (u16)(code + c);
            meta.offs[L] = (u16)idx;
        }
        if (left < 0) break;
        code = (code + c) << 1;
        idx += c;
        if (c != 0u) maxlen = L;
    }
    if (lane == 0) meta.first[0] = (u16)maxlen;  // the longest code (for error statuses)
    if (left < 0) return false;  // over-subscribed
    if (left > 0 && maxlen != 0u && (kind == TK_CL || maxlen != 1u)) return false;  // incomplete
    // Sort symbols by (length, symbol).
    inflate_walk_lengths<true>(lens, n, run, meta.offs, sorted);
    // Fill the first level: entry e holds the code whose bits, read first to last, are e's
    // bits from the lowest; v is that prefix with the first bit as its most significant.
    for (u32 e = lane; e < (1u << tb); e += 32u) {
        const u32 v = __brev(e) >> (32u - tb);
        u32 entry = (E_SPECIAL << 8) | (1u << 16);
        for (u32 L = 1; L <= tb; ++L) {
            const u32 c = v >> (tb - L);
            if (c < meta.limit[L]) {
                entry = inflate_entry(kind, sorted[meta.offs[L] + c - meta.first[L]], L);
                break;
            }
        }
        table[e] = entry;
    }
    __syncwarp();
    return true;
}

// A code longer than the first level: canonical decoding from the next 15 bits of `bits`.
// Returns an E_SPECIAL entry with value 0 when no code matches.
__device__ __forceinline__ u32 inflate_slow(u64 bits, u32 tb, u32 kind, const InflateMeta& meta,
                                            const u16* sorted) {
    const u32 v = __brev((u32)bits) >> 17;
    for (u32 L = tb + 1u; L <= 15u; ++L) {
        const u32 c = v >> (15u - L);
        if (c < meta.limit[L]) return inflate_entry(kind, sorted[meta.offs[L] + c - meta.first[L]], L);
    }
    return E_SPECIAL << 8;
}

// A 64-bit buffer of the stream's next bits on top of the framework's window: bits
// [pos, pos + n) of the input, least significant first, where pos = end * 8 - left is the
// read position (written back to `in.bit` by `sync`). Uniform across the warp.
template <typename In>
struct InflateBits {
    In& in;
    u64 bb;    // the buffered bits
    u32 n;     // how many
    u64 left;  // bits from the read position to the stream's end
    u64 next;  // absolute offset of the byte the next refill reads

    __device__ __forceinline__ explicit InflateBits(In& i) : in(i) { reset(); }

    // Restarts the buffer at `in.bit` (a byte boundary).
    __device__ __forceinline__ void reset() {
        bb = 0;
        n = 0;
        next = in.bit >> 3;
        left = in.end * 8ull - in.bit;
    }
    // Writes the read position back to the framework's stream.
    __device__ __forceinline__ void sync() { in.bit = in.end * 8ull - left; }

    // At least 32 bits buffered afterwards (bits past the stream's end read as whatever the
    // window holds: `consume` refuses them).
    __device__ __forceinline__ void refill() {
        if (n > 32u) return;
        in.ensure_at(next & ~3ull, 8);
        const u32 w = (u32)(in.window_u64(next) >> ((next & 3ull) * 8ull));
        bb |= (u64)w << n;
        n += 32u;
        next += 4u;
    }
    __device__ __forceinline__ u32 peek(u32 k) const { return (u32)bb & ((1u << k) - 1u); }
    // Drops `k` (<= n) bits; TRUNCATED when they reach past the stream's end.
    __device__ __forceinline__ bool consume(u32 k) {
        if (k > left) {
            in.fail(WZ_STATUS_TRUNCATED);
            return false;
        }
        left -= k;
        bb >>= k;
        n -= k;
        return true;
    }
    __device__ __forceinline__ u32 take(u32 k) {
        const u32 v = peek(k);
        return consume(k) ? v : 0u;
    }
    // Moves the read position `k` bits on (the caller knows they exist) and empties the buffer:
    // call `resync` before the next serial read.
    __device__ __forceinline__ void skip(u32 k) {
        left -= k;
        n = 0;
        bb = 0;
    }
    // Refills the buffer at the read position (any bit).
    __device__ __forceinline__ void resync() {
        const u64 pos = in.end * 8ull - left;
        next = pos >> 3;
        bb = 0;
        n = 0;
        refill();
        const u32 drop = (u32)(pos & 7ull);
        bb >>= drop;
        n -= drop;
    }
    // Skips to the next byte boundary and empties the buffer (for stored blocks).
    __device__ __forceinline__ void align() {
        sync();
        in.align_to_byte();
        reset();
    }
};

// The status for a code that decodes to no valid symbol: TRUNCATED when its bits (or, for an
// unassigned code, the table's longest code length) reach past the stream's end, where the
// bits that follow are not the stream's; CORRUPT otherwise.
template <typename In>
__device__ __forceinline__ u32 inflate_bad_code(const InflateBits<In>& br, u32 entry,
                                                const InflateMeta& meta) {
    const u32 len = entry & 15u;
    u32 need = len != 0u ? len : meta.first[0];
    if (need == 0u) need = 1u;
    return br.left < need ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT;
}

// Reads a dynamic block's header and builds its two tables. False on any error (the status is
// set).
template <typename In>
__device__ bool inflate_dynamic_header(InflateBits<In>& br, InflateSmem& S) {
    const u32 lane = wz_lane();
    br.refill();
    const u32 hlit = br.take(5) + 257u;
    const u32 hdist = br.take(5) + 1u;
    const u32 hclen = br.take(4) + 4u;
    if (!br.in.ok()) return false;
    if (hlit > 286u || hdist > 30u) {
        br.in.fail(WZ_STATUS_CORRUPT);
        return false;
    }
    // Code-length code lengths, in the RFC's order; lane k keeps the one for symbol order[k].
    u32 mine = 0;
    for (u32 k = 0; k < hclen; ++k) {
        br.refill();
        const u32 v = br.take(3);
        if (lane == k) mine = v;
    }
    if (!br.in.ok()) return false;
    __syncwarp();
    if (lane < 19u) {
        // The RFC's order: 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15.
        u32 sym;
        if (lane < 3u) sym = 16u + lane;
        else if (lane == 3u) sym = 0u;
        else if (lane == 18u) sym = 15u;
        else sym = (lane & 1u) ? 8u - (lane - 3u) / 2u : 8u + (lane - 4u) / 2u;
        S.lens[sym] = (u8)mine;
    }
    __syncwarp();
    if (!inflate_build(S.lens, 19u, CL_TB, TK_CL, S.dist, S.dist_meta, S.sorted_dist, S.run)) {
        br.in.fail(WZ_STATUS_CORRUPT);
        return false;
    }
    // The literal/length and distance code lengths, run-length coded.
    const u32 total = hlit + hdist;
    u32 i = 0, prev = 0;
    while (i < total) {
        br.refill();
        const u32 e = S.dist[br.bb & ((1u << CL_TB) - 1u)];
        if (E_KIND(e) == E_SPECIAL) {
            br.in.fail(br.left < CL_TB ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT);
            return false;
        }
        const u32 L = e & 15u;
        const u32 sym = e >> 16;
        if (sym < 16u) {
            if (!br.consume(L)) return false;
            if (lane == 0) S.lens[i] = (u8)sym;
            prev = sym;
            ++i;
            continue;
        }
        u32 rep, val = 0;
        if (sym == 16u) {
            rep = 3u + ((u32)(br.bb >> L) & 3u);
            val = prev;
            if (!br.consume(L + 2u)) return false;
            if (i == 0) {  // nothing to repeat
                br.in.fail(WZ_STATUS_CORRUPT);
                return false;
            }
        } else if (sym == 17u) {
            rep = 3u + ((u32)(br.bb >> L) & 7u);
            if (!br.consume(L + 3u)) return false;
        } else {
            rep = 11u + ((u32)(br.bb >> L) & 127u);
            if (!br.consume(L + 7u)) return false;
        }
        if (i + rep > total) {
            br.in.fail(WZ_STATUS_CORRUPT);
            return false;
        }
        for (u32 k = lane; k < rep; k += 32u) S.lens[i + k] = (u8)val;
        i += rep;
        prev = val;
    }
    __syncwarp();
    if (S.lens[256] == 0) {  // no end-of-block code
        br.in.fail(WZ_STATUS_CORRUPT);
        return false;
    }
    if (!inflate_build(S.lens, hlit, LIT_TB, TK_LIT, S.lit, S.lit_meta, S.sorted_lit, S.run) ||
        !inflate_build(S.lens + hlit, hdist, DIST_TB, TK_DIST, S.dist, S.dist_meta, S.sorted_dist,
                       S.run)) {
        br.in.fail(WZ_STATUS_CORRUPT);
        return false;
    }
    return true;
}

// The fixed code of RFC 1951 section 3.2.6.
__device__ void inflate_fixed_tables(InflateSmem& S) {
    const u32 lane = wz_lane();
    __syncwarp();
    for (u32 s = lane; s < 320u; s += 32u) {
        u32 len;
        if (s < 144u) len = 8u;
        else if (s < 256u) len = 9u;
        else if (s < 280u) len = 7u;
        else if (s < 288u) len = 8u;
        else len = 5u;
        S.lens[s] = (u8)len;
    }
    __syncwarp();
    // Both codes are complete: the builds cannot fail.
    inflate_build(S.lens, 288u, LIT_TB, TK_LIT, S.lit, S.lit_meta, S.sorted_lit, S.run);
    inflate_build(S.lens + 288, 32u, DIST_TB, TK_DIST, S.dist, S.dist_meta, S.sorted_dist, S.run);
}

// Tokens as the parallel rounds keep them (one u32 each):
//   bit 31 set: one or two literals     bits 0-5 its bits, bit 6 two literals, 8-15 and 16-23
//                                       the bytes;
//   bits 31, 30 clear: a match          bits 0-5 its bits (at most 48), 6-14 the length, 15-29
//                                       the distance - 1;
//   bit 30 set: a stop                  the end of the block (bits 0-5 its code's bits) or
//                                       INFLATE_BAD, a code with no valid symbol (0 bits).
#define INFLATE_STOP 0x40000000u
#define INFLATE_BAD (INFLATE_STOP | 0x100u)

// The match token whose length code (entry `e`, a first-level or canonical E_LENGTH entry)
// starts `v` (at least 48 valid bits). A distance code longer than the first level, or invalid,
// gives 0 (SLOW false: the caller decodes it another way) or is decoded canonically, INFLATE_BAD
// when no code matches (SLOW true).
template <bool SLOW>
__device__ __forceinline__ u32 inflate_match(u64 v, u32 e, const InflateSmem& S) {
    const u32 L = e & 15u;
    const u32 extra = (e >> 4) & 15u;
    const u32 p = L + extra;
    const u32 length = (e >> 16) + ((u32)(v >> L) & ((1u << extra) - 1u));
    const u64 dv = v >> p;
    u32 d = S.dist[(u32)dv & ((1u << DIST_TB) - 1u)];
    if (E_KIND(d) == E_SPECIAL) {
        if (!SLOW) return 0u;
        if ((d >> 16) != 0u) d = inflate_slow(dv, DIST_TB, TK_DIST, S.dist_meta, S.sorted_dist);
        if (E_KIND(d) == E_SPECIAL) return INFLATE_BAD;
    }
    const u32 dl = d & 15u, dx = (d >> 4) & 15u;
    const u32 distance = (d >> 16) + ((u32)(dv >> dl) & ((1u << dx) - 1u));
    return (p + dl + dx) | (length << 6) | ((distance - 1u) << 15);
}

// The token whose bits start `v` (at least 48 valid bits) when its codes fit the first-level
// tables, a literal pair when two literals do; 0 when it needs `inflate_token_slow` (end of
// block, a long or invalid code).
__device__ __forceinline__ u32 inflate_token(u64 v, const InflateSmem& S) {
    const u32 e = S.lit[(u32)v & ((1u << LIT_TB) - 1u)];
    const u32 kind = E_KIND(e);
    const u32 L = e & 15u;
    if (kind == E_LITERAL) {
        const u32 e2 = S.lit[(u32)(v >> L) & ((1u << LIT_TB) - 1u)];
        if (E_KIND(e2) == E_LITERAL) {
            return 0x80000040u | (L + (e2 & 15u)) | ((e >> 16) << 8) | ((e2 >> 16) << 16);
        }
        return 0x80000000u | L | ((e >> 16) << 8);
    }
    if (kind != E_LENGTH) return 0u;
    return inflate_match<false>(v, e, S);
}

// One symbol (never a pair) whose bits start `v` (at least 48 valid bits), whatever its codes'
// lengths: a literal, a match, the end of the block or INFLATE_BAD. One lane alone may call it.
__device__ u32 inflate_token_slow(u64 v, const InflateSmem& S) {
    u32 e = S.lit[(u32)v & ((1u << LIT_TB) - 1u)];
    if (E_KIND(e) == E_SPECIAL && (e >> 16) != 0u) {
        e = inflate_slow(v, LIT_TB, TK_LIT, S.lit_meta, S.sorted_lit);
    }
    const u32 kind = E_KIND(e);
    const u32 L = e & 15u;
    if (kind == E_SPECIAL) return INFLATE_BAD;
    if (kind == E_END) return INFLATE_STOP | L;
    if (kind == E_LITERAL) return 0x80000000u | L | ((e >> 16) << 8);
    return inflate_match<true>(v, e, S);
}

// A kept token as the LZ77 batch takes it: `info` (CODAG_LZ_LITERAL | the bytes, or the match
// distance) and `length`.
__device__ __forceinline__ void inflate_unpack(u32 t, u32& info, u32& length) {
    if (t & 0x80000000u) {
        info = CODAG_LZ_LITERAL | ((t >> 8) & 0xffffu);
        length = 1u + ((t >> 6) & 1u);
    } else {
        info = ((t >> 15) & 0x7fffu) + 1u;
        length = (t >> 6) & 511u;
    }
}

// One symbol decoded serially from the bit buffer (all lanes, the same symbol), as a token in
// the rounds' format (its bits field left 0). Returns false at the end of the block or on an
// error (the status is set: TRUNCATED or CORRUPT, exactly).
template <typename In>
__device__ __forceinline__ bool inflate_serial_token(InflateBits<In>& br, const InflateSmem& S,
                                                     u32& t) {
    br.refill();
    u32 e = S.lit[br.bb & ((1u << LIT_TB) - 1u)];
    if (E_KIND(e) == E_SPECIAL) {
        if ((e >> 16) != 0u) e = inflate_slow(br.bb, LIT_TB, TK_LIT, S.lit_meta, S.sorted_lit);
        if (E_KIND(e) == E_SPECIAL) {
            br.in.fail(inflate_bad_code(br, e, S.lit_meta));
            return false;
        }
    }
    u32 L = e & 15u;
    const u32 kind = E_KIND(e);
    if (kind == E_LITERAL) {
        if (!br.consume(L)) return false;
        t = 0x80000000u | ((e >> 16) << 8);
        return true;
    }
    if (kind == E_END) {
        br.consume(L);
        return false;
    }
    u32 extra = (e >> 4) & 15u;
    const u32 length = (e >> 16) + ((u32)(br.bb >> L) & ((1u << extra) - 1u));
    if (!br.consume(L + extra)) return false;
    br.refill();
    u32 d = S.dist[br.bb & ((1u << DIST_TB) - 1u)];
    if (E_KIND(d) == E_SPECIAL) {
        if ((d >> 16) != 0u) d = inflate_slow(br.bb, DIST_TB, TK_DIST, S.dist_meta, S.sorted_dist);
        if (E_KIND(d) == E_SPECIAL) {
            br.in.fail(inflate_bad_code(br, d, S.dist_meta));
            return false;
        }
    }
    L = d & 15u;
    extra = (d >> 4) & 15u;
    const u32 distance = (d >> 16) + ((u32)(br.bb >> L) & ((1u << extra) - 1u));
    if (!br.consume(L + extra)) return false;
    t = (length << 6) | ((distance - 1u) << 15);
    return true;
}

// The 64 bits of the staged round input from bit `r` on (r + 95 < 32 * INFLATE_STAGE_WORDS).
__device__ __forceinline__ u64 inflate_stage_bits(const u32* st, u32 r) {
    const u32 w = r >> 5, s = r & 31u;
    const u64 lo = ((u64)st[w + 1u] << 32) | st[w];
    return s == 0u ? lo : (lo >> s) | ((u64)st[w + 2u] << (64u - s));
}

// How a lane's walk through its region ended, and how its walk into the next region did.
#define PR_COMPLETE 0u  // it reached the region's end
#define PR_FULL 1u      // it kept INFLATE_LIST tokens before the end
#define PR_END 2u       // it met the end of the block
#define PR_BAD 3u       // it met a code with no valid symbol
#define PR_SYNCED 4u    // (next region) it reached a token that a lane of that region started too
#define PR_FAILED 5u    // (next region) it did not within INFLATE_FIX tokens
#define PR_NONE 6u

// What a round leaves the block decoder to do.
#define ROUND_GO_ON 0u
#define ROUND_BLOCK_END 1u
#define ROUND_SERIAL 2u  // decode the next symbol serially (its code has no valid symbol)

// How a round went, for the choice of the next round's phases.
struct InflateRound {
    u32 action;    // ROUND_*
    bool whole;    // it reached its last region
    bool unmet;    // it stopped because a walk never met the next region's tokens
};

// Round step 0: stages the input words that `bits` bits from the read position (absolute bit
// `pos`) on, and the bits a token or a 64-bit read reaches past them, lie in; clears this
// lane's marks.
template <typename In>
__device__ __forceinline__ void inflate_round_stage(const In& in, u64 pos, u32 bits,
                                                    InflateSmem& S) {
    const u32 lane = wz_lane();
    const u64 w0 = pos >> 5;
    const u32 n = min(INFLATE_STAGE_WORDS, ((u32)(pos & 31ull) + bits + 96u) / 32u + 3u);
    const u32* words = reinterpret_cast<const u32*>(in.buf);
    __syncwarp();
    for (u32 k = lane; k < n; k += 32u) {
        const u64 w = w0 + k;
        S.stage[k] = w * 4ull < in.end ? words[w] : 0u;
    }
#pragma unroll
    for (u32 k = 0; k < INFLATE_REGION_WORDS; ++k) {
        S.marks[lane * INFLATE_REGION_WORDS + k] = 0u;
    }
    __syncwarp();
}

// Round step 1 (one lane): the tokens from staged bit `p` on while they start before `end`,
// kept at rows 0.. of this lane and marked (bit p - rs of `marks`). Returns PR_COMPLETE, PR_FULL,
// PR_END or PR_BAD; `p` ends after the last token kept (at a stop's own start for PR_BAD).
__device__ __forceinline__ u32 inflate_lane_region(const InflateSmem& S, u32* rows, u32* marks,
                                                   u32 rs, u32 end, u32& p, u32& cnt) {
    const u32 lane = wz_lane();
    for (;;) {
        if (p >= end) return PR_COMPLETE;
        if (cnt == INFLATE_LIST) return PR_FULL;
        const u64 v = inflate_stage_bits(S.stage, p);
        u32 t = inflate_token(v, S);
        if (t == 0u) t = inflate_token_slow(v, S);
        rows[cnt * 32u + lane] = t;
        ++cnt;
        const u32 r = p - rs;
        marks[r >> 5] |= 1u << (r & 31u);
        p += t & 63u;
        if (t & INFLATE_STOP) return t == INFLATE_BAD ? PR_BAD : PR_END;
    }
}

// Round step 2 (one lane): single symbols from staged bit `q` (the end of this lane's region
// walk) on, kept at rows cnt.. of this lane, until one starts where a lane of the next region
// (2^lg_phases lanes from `next_lane`, whose region starts at staged bit `next_rs`) marked a
// token: PR_SYNCED, with `met_lane` the lowest such lane. PR_FAILED when none does within the
// next region or INFLATE_FIX symbols, PR_END or PR_BAD at a stop.
__device__ __forceinline__ u32 inflate_lane_walk(const InflateSmem& S, u32* rows, u32 cnt,
                                                 u32 next_lane, u32 next_rs, u32 lg_phases,
                                                 u32& q, u32& nfix, u32& met_lane) {
    const u32 lane = wz_lane();
    const u32* next_marks = S.marks + next_lane * INFLATE_REGION_WORDS;
    for (;;) {
        const u32 r = q - next_rs;
        if (r >= INFLATE_REGION) return PR_FAILED;
        u32 hit = 0;  // bit k: lane next_lane + k starts a token at q
        for (u32 k = 0; k < (1u << lg_phases); ++k) {
            hit |= ((next_marks[k * INFLATE_REGION_WORDS + (r >> 5)] >> (r & 31u)) & 1u) << k;
        }
        if (hit != 0u) {
            met_lane = next_lane + (u32)(__ffs(hit) - 1);
            return PR_SYNCED;
        }
        if (nfix == INFLATE_FIX) return PR_FAILED;
        const u32 t = inflate_token_slow(inflate_stage_bits(S.stage, q), S);
        rows[(cnt + nfix) * 32u + lane] = t;
        ++nfix;
        q += t & 63u;
        if (t & INFLATE_STOP) return t == INFLATE_BAD ? PR_BAD : PR_END;
    }
}

// A round's true tokens as each lane holds them: `mine` of them, its rows skip.. (`own` of
// them) then its rows cnt.. (the tokens it decoded walking into the next region).
struct InflateLaneTokens {
    u32 mine;
    u32 skip;
    u32 own;
    u32 cnt;
};

// Round step 4 (warp-wide): the lanes' true tokens (`tk`, in `rows`), in lane order, through
// the LZ77 batch 32 at a time. The next 32 tokens are read from the rows while the batch before
// them is written.
__device__ __forceinline__ void inflate_round_emit(CodagLzBatch& batch, CodagOut<u8>& out,
                                                   CodagLzTable& table, const u32* rows,
                                                   const InflateLaneTokens& tk) {
    const u32 lane = wz_lane();
    const u32 incl = wz_warp_inclusive_sum(tk.mine);
    const u32 first = incl - tk.mine;
    const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    // Token b + lane of the round, as the batch takes it (info, length).
    const auto fetch = [&](u32 b, u32& info, u32& length) {
        const u32 g = b + lane;
        u32 owner = 0;  // the last lane whose tokens start at or before g
#pragma unroll
        for (u32 step = 16u; step != 0u; step >>= 1) {
            const u32 f = __shfl_sync(WZ_FULL_MASK, first, owner + step);
            if (f <= g) owner += step;
        }
        const u32 j = g - __shfl_sync(WZ_FULL_MASK, first, owner);
        const u32 o_skip = __shfl_sync(WZ_FULL_MASK, tk.skip, owner);
        const u32 o_own = __shfl_sync(WZ_FULL_MASK, tk.own, owner);
        const u32 o_cnt = __shfl_sync(WZ_FULL_MASK, tk.cnt, owner);
        info = 0;
        length = 0;
        if (g < total) {
            inflate_unpack(rows[(j < o_own ? o_skip + j : o_cnt + j - o_own) * 32u + owner], info,
                           length);
        }
    };
    u32 info, length;
    fetch(0, info, length);
    for (u32 b = 0; b < total && out.ok(); b += 32u) {
        u32 next_info = 0, next_length = 0;
        if (b + 32u < total) fetch(b + 32u, next_info, next_length);
        batch.load(info, length, min(32u, total - b));
        batch.flush(out, table);
        info = next_info;
        length = next_length;
    }
}

// One parallel round over the next `regions` * INFLATE_REGION bits of a Huffman block, which
// must all lie in the stream with INFLATE_MARGIN bits after them. Each region has 2^lg_phases
// lanes (regions <= 32 >> lg_phases).
//
// Lane (r, k) decodes the tokens that would start in region r if a token started k bits after
// the region's first bit, keeping them and marking where each starts. Huffman codes usually
// fall into step with the true token boundaries within a few symbols, whatever the start; when
// nearly every code has the same length (near-incompressible data) they may never do, and
// lanes at several phases (k = 0..7) make one of them start in step. Then every lane decodes
// on from its region's end, single symbols, until it reaches a token start that a lane of the
// next region marked: from there that lane's tokens are the true ones, and the walking lane's
// extra tokens are the true ones before it. From region 0 (whose first lane starts at the read
// position) this chain of meetings picks one true lane per region; the round's tokens, in
// stream order, are each true lane's tokens from where it was met, then its extra ones, up to
// the first true lane whose walk stopped early (a full list, the end of the block, an invalid
// code) or never met the next region's tokens; the next round starts after that lane's last
// token. Tokens are kept in the warp's rows of global scratch (lane l's k-th at row k, word l)
// and are left for `inflate_round_emit` (`tk`); the read position moves past them.
template <typename In>
__device__ InflateRound inflate_parallel_round(InflateBits<In>& br, InflateSmem& S, u32* rows,
                                               u32 regions, u32 lg_phases,
                                               InflateLaneTokens& tk) {
    In& in = br.in;
    const u32 lane = wz_lane();
    const u64 pos = in.end * 8ull - br.left;
    const u32 off0 = (u32)(pos & 31ull);  // the read position among the staged bits
    inflate_round_stage(in, pos, regions * INFLATE_REGION, S);
    u32* marks = S.marks + lane * INFLATE_REGION_WORDS;  // this lane's, over its region

    // 1. This lane's region, from its phase.
    const u32 region = lane >> lg_phases;
    const u32 rs = off0 + region * INFLATE_REGION, re = rs + INFLATE_REGION;
    u32 p = rs + (lane & ((1u << lg_phases) - 1u)), cnt = 0, state = PR_NONE;
    if (region < regions) state = inflate_lane_region(S, rows, marks, rs, re, p, cnt);
    __syncwarp();

    // 2. On into the next region until a token start that one of its lanes marked.
    u32 q = p, nfix = 0, fstate = PR_NONE, met_lane = 0;
    const bool walks = region + 1u < regions && state == PR_COMPLETE;
    if (walks) {
        fstate = inflate_lane_walk(S, rows, cnt, (region + 1u) << lg_phases, re, lg_phases, q,
                                   nfix, met_lane);
    }

    // 3. The chain of true lanes from lane 0, and where each was met.
    const bool stops = !walks || fstate != PR_SYNCED;
    u32 c = 0, met = 0;
    bool is_true = lane == 0u;
    for (u32 i = 0; i + 1u < regions; ++i) {
        if (__shfl_sync(WZ_FULL_MASK, (u32)stops, c)) break;
        const u32 at = __shfl_sync(WZ_FULL_MASK, q, c);
        c = __shfl_sync(WZ_FULL_MASK, met_lane, c);
        if (lane == c) {
            is_true = true;
            met = at;
        }
    }
    u32 skip = 0;  // this lane's tokens before where it was met
    if (is_true && lane != 0u) {
        const u32 r = met - rs;
#pragma unroll
        for (u32 k = 0; k < INFLATE_REGION_WORDS; ++k) {
            const u32 wb = k * 32u;
            if (wb + 32u <= r) {
                skip += __popc(marks[k]);
            } else if (wb < r) {
                skip += __popc(marks[k] & ((1u << (r - wb)) - 1u));
            }
        }
    }
    const u32 own = cnt - skip - (state == PR_END || state == PR_BAD ? 1u : 0u);
    const u32 extra = walks ? nfix - (fstate == PR_END || fstate == PR_BAD ? 1u : 0u) : 0u;
    // Where the round leaves the block, as lane c sees it.
    u32 action = ROUND_GO_ON, next = p;
    if (state == PR_END) {
        action = ROUND_BLOCK_END;
    } else if (state == PR_BAD) {
        action = ROUND_SERIAL;
    } else if (walks) {
        next = q;
        if (fstate == PR_END) action = ROUND_BLOCK_END;
        if (fstate == PR_BAD) action = ROUND_SERIAL;
    }
    InflateRound result;
    result.action = __shfl_sync(WZ_FULL_MASK, action, c);
    next = __shfl_sync(WZ_FULL_MASK, next, c);
    result.whole = (c >> lg_phases) + 1u == regions;
    result.unmet = __shfl_sync(WZ_FULL_MASK, (u32)(walks && fstate == PR_FAILED), c) != 0u;

    // The true tokens in stream order, for step 4.
    tk.mine = is_true ? own + extra : 0u;
    tk.skip = skip;
    tk.own = own;
    tk.cnt = cnt;
    br.skip(next - off0);
    return result;
}

// ---------------------------------------------------------------------------------------------
// A stored block's `len` bytes, byte i from `byte(i)`, written by the warp with coalesced
// stores (nothing when they do not fit the output).
template <typename Byte>
__device__ __forceinline__ void inflate_copy_stored(CodagOut<u8>& out, u32 len, Byte byte) {
    if (!out.reserve(len)) return;
    __syncwarp();
    for (u32 i = wz_lane(); i < len; i += 32u) out.put(i, byte(i));
    out.advance(len);
}

// ---------------------------------------------------------------------------------------------
// Decodes the symbols of one Huffman block with the tables in `S`: parallel rounds while the
// stream holds at least one region and its margin after the read position, then symbol by
// symbol (the stream's last bits, and any code a round found invalid, so statuses stay exact).
// `lg_phases` (kept from block to block of a stream) grows when a round stops because a walk
// never met the next region's tokens, and shrinks again after four whole rounds in a row.
// Tokens go to `sink` (InflateWarpSink or InflatePairSink).
template <typename In, typename Sink>
__device__ void inflate_huffman_block(InflateBits<In>& br, InflateSmem& S, Sink& sink,
                                      u32& lg_phases) {
    In& in = br.in;
    bool synced = true;  // the bit buffer matches the read position
    u32 whole_rounds = 0;
    for (;;) {
        if (!in.ok() || !sink.ok()) break;
        if (br.left >= INFLATE_REGION + INFLATE_MARGIN) {
            u32* rows = sink.round_rows();
            if (rows == nullptr) break;
            const u64 room = (br.left - INFLATE_MARGIN) / INFLATE_REGION;
            const u32 most = 32u >> lg_phases;
            InflateLaneTokens tk;
            const InflateRound r = inflate_parallel_round(
                br, S, rows, room < most ? (u32)room : most, lg_phases, tk);
            sink.round_done(tk);
            synced = false;
            if (r.unmet && lg_phases < INFLATE_LG_PHASES_MAX) {
                ++lg_phases;
                whole_rounds = 0;
            } else if (r.whole && lg_phases > 0u && ++whole_rounds == 4u) {
                --lg_phases;
                whole_rounds = 0;
            }
            if (r.action == ROUND_BLOCK_END) break;
            if (r.action == ROUND_GO_ON) continue;
        }
        if (!synced) br.resync();
        synced = true;
        u32 t;
        if (!inflate_serial_token(br, S, t)) break;
        sink.token(t);
    }
    if (!synced) br.resync();
    sink.block_end();
}

// A stored block: LEN, NLEN, then LEN bytes, which `sink` copies.
template <typename In, typename Sink>
__device__ void inflate_stored_block(InflateBits<In>& br, Sink& sink) {
    br.align();
    In& in = br.in;
    if (!in.has_bits(32)) return;
    const u32 len = in.fetch_bits(16);
    const u32 nlen = in.fetch_bits(16);
    if (len != (~nlen & 0xffffu)) {
        in.fail(WZ_STATUS_CORRUPT);
        return;
    }
    if (!in.has_bits((u64)len * 8ull)) return;
    sink.stored(in, len);
    in.bit += (u64)len * 8ull;
    br.reset();
}

// Decodes one raw-deflate stream, block after block, into `sink`; the read position is written
// back to `br.in` at the end.
template <typename In, typename Sink>
__device__ void inflate_stream(InflateBits<In>& br, InflateSmem& S, Sink& sink) {
    In& in = br.in;
    bool fixed_ready = false;
    u32 last = 0;
    u32 lg_phases = 0;
    while (!last && in.ok() && sink.ok()) {
        br.refill();
        const u32 header = br.take(3);
        if (!in.ok()) break;
        last = header & 1u;
        const u32 type = header >> 1;
        if (type == 0u) {
            inflate_stored_block(br, sink);
        } else if (type == 1u) {
            if (!fixed_ready) inflate_fixed_tables(S);
            fixed_ready = true;
            inflate_huffman_block(br, S, sink, lg_phases);
        } else if (type == 2u) {
            fixed_ready = false;
            if (inflate_dynamic_header(br, S)) inflate_huffman_block(br, S, sink, lg_phases);
        } else {
            in.fail(WZ_STATUS_CORRUPT);
        }
    }
    br.sync();
}
