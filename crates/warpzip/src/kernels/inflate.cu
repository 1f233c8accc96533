// Inflate (RFC 1951) on the CODAG framework: one warp per raw-deflate stream, all 32 lanes
// running the same decoder on the same values, a persistent grid.
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
#include "codag.cuh"

#define INFLATE_WARPS 4u
#define LIT_TB 10u   // first-level bits of the literal/length table
#define DIST_TB 8u   // first-level bits of the distance table
#define CL_TB 7u     // the code-length code has codes of at most 7 bits

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

// Builds the first-level table (`1 << tb` entries) and the canonical bookkeeping of the code
// with lengths lens[0..n) (warp-wide). False for a set of lengths zlib rejects.
__device__ bool inflate_build(const u8* lens, u32 n, u32 tb, u32 kind, u32* table,
                              InflateMeta& meta, u16* sorted, u16* run) {
    const u32 lane = wz_lane();
    __syncwarp();
    if (lane < 16u) run[lane] = 0;
    __syncwarp();
    // Count the codes of every length: the lowest lane of each group of equal lengths adds.
    for (u32 base = 0; base < n; base += 32u) {
        const u32 s = base + lane;
        const u32 len = s < n ? lens[s] : 0u;
        const u32 m = __match_any_sync(WZ_FULL_MASK, len);
        if (len != 0u && lane == (u32)(__ffs(m) - 1)) run[len] += (u16)__popc(m);
        __syncwarp();
    }
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
    __syncwarp();
    if (lane < 16u) run[lane] = 0;
    __syncwarp();
    // Sort symbols by (length, symbol): rank among equal lengths from the same match masks.
    for (u32 base = 0; base < n; base += 32u) {
        const u32 s = base + lane;
        const u32 len = s < n ? lens[s] : 0u;
        const u32 m = __match_any_sync(WZ_FULL_MASK, len);
        if (len != 0u) sorted[meta.offs[len] + run[len] + __popc(m & codag_lanemask_lt())] = (u16)s;
        __syncwarp();
        if (len != 0u && lane == (u32)(__ffs(m) - 1)) run[len] += (u16)__popc(m);
        __syncwarp();
    }
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

// One symbol decoded serially from the bit buffer (all lanes, the same symbol): a literal or a
// match goes to the batch. Returns false at the end of the block or on an error (the status is
// set).
template <typename In>
__device__ __forceinline__ bool inflate_symbol(InflateBits<In>& br, CodagLzBatch& batch,
                                               CodagOut<u8>& out, InflateSmem& S) {
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
        batch.literal(e >> 16);
        if (batch.full()) batch.flush(out, S.tokens);
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
    batch.match(length, distance);
    if (batch.full()) batch.flush(out, S.tokens);
    return true;
}

// The token whose bits start `v` (at least 48 valid bits), packed for one shuffle:
//   0                                   decode it serially (end of block, a long or invalid code);
//   bit 31 set: one or two literals     bits 0-5 its bits, bit 6 two literals, 8-15 and 16-23
//                                       the bytes;
//   bit 31 clear: a match               bits 0-5 its bits (at most 48), 6-14 the length, 15-29
//                                       the distance - 1.
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
    const u32 extra = (e >> 4) & 15u;
    const u32 p = L + extra;
    const u32 length = (e >> 16) + ((u32)(v >> L) & ((1u << extra) - 1u));
    const u32 d = S.dist[(u32)(v >> p) & ((1u << DIST_TB) - 1u)];
    if (E_KIND(d) == E_SPECIAL) return 0u;
    const u32 dl = d & 15u, dx = (d >> 4) & 15u;
    const u32 distance = (d >> 16) + ((u32)(v >> (p + dl)) & ((1u << dx) - 1u));
    return (p + dl + dx) | (length << 6) | ((distance - 1u) << 15);
}

// Bits fast rounds need ahead of the read position: 63 offsets plus the longest token (15 + 5
// literal/length bits, 15 + 13 distance bits).
#define INFLATE_FAST_BITS 112u

// Decodes the symbols of one Huffman block with the tables in `S`.
//
// Speculative rounds: lane j decodes the whole tokens (literal, or length and distance with
// their extra bits) that would start j and j + 32 bits after the read position, with its own
// table reads of the shared window; the warp then hops from token to token through shuffles
// (the next one starts where the last ended) while the hop stays inside the 64 offsets, so one
// round of table reads yields several tokens. A lane whose token is a literal also decodes the
// symbol after it and, when that is a literal too, makes one token of both (hops are the
// decoder's serial chain: literal-heavy data needs half as many). A token a lane cannot finish alone (end of block, a code longer
// than the first-level table, an invalid code) stops the hops and is decoded serially, as is
// everything within INFLATE_FAST_BITS of the stream's end, so statuses stay exact. Literals and
// matches go to the framework's deferred LZ77 batch (32 tokens, then one coalesced write of
// their bytes), so the decoder never waits on the output.
template <typename In>
__device__ void inflate_huffman_block(InflateBits<In>& br, CodagOut<u8>& out, InflateSmem& S) {
    In& in = br.in;
    const u32 lane = wz_lane();
    CodagLzBatch batch;
    bool synced = true;  // the bit buffer matches the read position
    for (;;) {
        if (!in.ok() || !out.ok()) break;
        if (br.left < INFLATE_FAST_BITS) {
            if (!synced) br.resync();
            synced = true;
            if (!inflate_symbol(br, batch, out, S)) break;
            continue;
        }
        // This lane's bits from read position + lane and + lane + 32.
        const u64 pos = in.end * 8ull - br.left;
        in.ensure_at((pos >> 3) & ~3ull, 24);
        const u64 bit = pos + lane;
        const u32 w = (u32)(bit >> 5);
        const u32 w0 = in.win.word(w), w1 = in.win.word(w + 1u), w2 = in.win.word(w + 2u),
                  w3 = in.win.word(w + 3u);
        const u32 sh = (u32)(bit & 31ull);
        const u64 lo = ((u64)w1 << 32) | w0;
        const u64 hi = ((u64)w2 << 32) | w1;
        const u64 va = sh == 0u ? lo : (lo >> sh) | ((u64)w2 << (64u - sh));
        const u64 vb = sh == 0u ? hi : (hi >> sh) | ((u64)w3 << (64u - sh));
        const u32 tok_a = inflate_token(va, S), tok_b = inflate_token(vb, S);
        // Hop through the tokens that start inside this round's 64 offsets: one shuffle each.
        u32 off = 0;
        bool stopped = false;
        while (off < 64u && !batch.full()) {
            const u32 t = __shfl_sync(WZ_FULL_MASK, off >= 32u ? tok_b : tok_a, off & 31u);
            if (t == 0u) {
                stopped = true;
                break;
            }
            if (t & 0x80000000u) {
                const u32 two = (t >> 6) & 1u;
                batch.push(CODAG_LZ_LITERAL | ((t >> 8) & 0xffffu), 1u + two);
            } else {
                batch.push(((t >> 15) & 0x7fffu) + 1u, (t >> 6) & 511u);
            }
            off += t & 63u;
        }
        br.skip(off);
        synced = false;
        if (batch.full()) batch.flush(out, S.tokens);
        if (stopped) {
            br.resync();
            synced = true;
            if (!inflate_symbol(br, batch, out, S)) break;
        }
    }
    if (!synced) br.resync();
    batch.flush(out, S.tokens);
}

// A stored block: LEN, NLEN, then LEN bytes copied with coalesced loads.
template <typename In>
__device__ void inflate_stored_block(InflateBits<In>& br, CodagOut<u8>& out) {
    br.align();
    In& in = br.in;
    if (!in.has_bits(32)) return;
    const u32 len = in.fetch_bits(16);
    const u32 nlen = in.fetch_bits(16);
    if (len != (~nlen & 0xffffu)) {
        in.fail(WZ_STATUS_CORRUPT);
        return;
    }
    if (!in.has_bits((u64)len * 8ull) || !out.reserve(len)) return;
    __syncwarp();
    for (u32 i = wz_lane(); i < len; i += 32u) out.put(i, (u8)in.lane_byte(i));
    out.advance(len);
    in.bit += (u64)len * 8ull;
    br.reset();
}

extern "C" __global__ void __launch_bounds__(INFLATE_WARPS * 32, 8)
    inflate_warp(const u8* __restrict__ input, const InflateChunk* __restrict__ chunks, u32 n,
                 u8* output, u32* results, u32* counter) {
    __shared__ InflateSmem smem[INFLATE_WARPS];
    InflateSmem& S = smem[threadIdx.x / 32u];
    for (;;) {
        const u32 c = codag_next_chunk(counter);
        if (c >= n) break;
        const InflateChunk ch = chunks[c];
        CodagIn<CodagSmemWindow> in(input, ch.in_offset, ch.in_len, CodagSmemWindow(S.window));
        CodagOut<u8> out(output + ch.out_offset, 0, ch.out_cap, true);
        InflateBits<CodagIn<CodagSmemWindow>> br(in);
        bool fixed_ready = false;
        u32 last = 0;
        while (!last && in.ok() && out.ok()) {
            br.refill();
            const u32 header = br.take(3);
            if (!in.ok()) break;
            last = header & 1u;
            const u32 type = header >> 1;
            if (type == 0u) {
                inflate_stored_block(br, out);
            } else if (type == 1u) {
                if (!fixed_ready) inflate_fixed_tables(S);
                fixed_ready = true;
                inflate_huffman_block(br, out, S);
            } else if (type == 2u) {
                fixed_ready = false;
                if (inflate_dynamic_header(br, S)) inflate_huffman_block(br, out, S);
            } else {
                in.fail(WZ_STATUS_CORRUPT);
            }
        }
        br.sync();
        if (wz_lane() == 0) {
            results[3ull * c] = codag_status(in, out);
            results[3ull * c + 1] = (u32)out.pos;
            results[3ull * c + 2] = (u32)(((in.bit + 7ull) >> 3) - in.start);
        }
    }
}
