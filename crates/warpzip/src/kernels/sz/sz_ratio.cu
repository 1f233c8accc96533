// Decoder of the `sz` codec's ratio mode (codec/sz/cpu.rs, codec/sz/interp.rs and
// docs/format.md, "Codec sz"), after the host has read each chunk's header (outliers, exact
// values, exponents, bases, the Huffman table and the group ends) and inflated deflated bits:
// `sz_ratio_symbols` decodes a Huffman group per thread through the chunk's reverse codebook
// (a first-level lookup table of 2^11 entries, canonical decoding by length counts past it),
// expanding run symbols (layout 3) into the zero delta's symbol; `sz_ratio_lorenzo_T` rebuilds
// a Lorenzo block per thread; `sz_ratio_interp_T` rebuilds an interpolated chunk per thread
// (the visiting order of interp.rs, sequential within the chunk). Reconstruction is one
// round-to-nearest multiplication `__dmul_rn(q, step)`, no contraction, so the output is the
// CPU decoder's bit for bit. A chunk that fails any check is flagged in `bad`; the symbols'
// outliers and exact values are counted per chunk for the host to compare with the header's.
#include "sz/sz_common.cuh"

#define SZR_TABLE_BITS 11u
#define SZR_TABLE (1u << SZR_TABLE_BITS)
#define SZR_MAX_LEN 24u

// One Huffman group.
struct SzrGroup {
    u64 bit_start;  // first bit, in the chunk's bits
    u64 bit_end;    // end bit
    u64 sym_out;    // first symbol's index in the symbol array
    u32 chunk;      // its chunk
    u32 cells;      // cells it holds
};

// What a chunk needs on the device.
struct SzrChunk {
    u64 bits_off;   // its bits in the bit buffer
    u64 bits_len;   // their bytes
    u64 sym_off;    // its first symbol (= its first value) in the symbol array and the output
    u64 outl_off;   // its outliers in the outlier arrays
    u64 raw_off;    // its exact values in the exact-value arrays
    u32 outl_count;
    u32 raw_count;
    u32 table;      // its decoder's index: table at table * SZR_TABLE, counts at table * 25
    u32 sorted_off; // its symbols sorted by (length, symbol)
    u32 run_base;   // first run symbol, or 0xffffffff when the section codes no runs
    u32 cz, cy, cx; // the chunk box
    u32 stride_log2;
    u32 cubic;
};

// One Lorenzo block.
struct SzrBlock {
    i64 base;       // the delta of its first cell
    u32 chunk;      // its chunk
    u32 pos;        // its first cell's position in the chunk's stream order
    u32 z0, y0, x0; // its corner in the chunk
    u32 dz, dy, dx; // its sizes
    int exp;        // pw-rel exponent
    u32 pad;
};

// The host's twins (codec/sz/gpu.rs) have these sizes.
static_assert(sizeof(SzrGroup) == 32, "SzrGroup layout");
static_assert(sizeof(SzrChunk) == 80, "SzrChunk layout");
static_assert(sizeof(SzrBlock) == 48, "SzrBlock layout");

// An MSB-first reader over bits [pos, end) of p (end within the buffer).
struct SzrBits {
    const u8* p;
    u64 pos, end;
    // The next n bits (n <= 24) without consuming them, zeros at or past the end.
    __device__ u32 peek(u32 n) const {
        u64 byte = pos >> 3;
        u64 len = (end + 7) >> 3;
        u32 word = 0;
        for (u32 i = 0; i < 4; i++) {
            u32 b = byte + i < len ? p[byte + i] : 0u;
            word = (word << 8) | b;
        }
        word <<= (u32)(pos & 7);
        u32 v = word >> (32 - n);
        u64 avail = end > pos ? end - pos : 0;
        if (avail < n) {
            u32 keep = (u32)avail;
            u32 mask = keep == 0 ? 0u : ((~0u << (n - keep)) & ((1u << n) - 1));
            v &= mask;
        }
        return v;
    }
    __device__ bool skip(u32 n) {
        if (end - pos < n) return false;
        pos += n;
        return true;
    }
    __device__ bool bit(u32* b) {
        if (pos >= end) return false;
        *b = (p[pos >> 3] >> (7 - (pos & 7))) & 1u;
        pos++;
        return true;
    }
};

// One symbol through the chunk's table; false at the end of the bits or on a code not in it.
__device__ __forceinline__ bool szr_decode(SzrBits* r, const u32* table, const u32* count,
                                           const u16* sorted, u32 nsorted, u32* sym) {
    u32 e = table[r->peek(SZR_TABLE_BITS)];
    if (e != 0) {
        if (!r->skip(e & 0xff)) return false;
        *sym = e >> 8;
        return true;
    }
    u32 code = 0, first = 0, index = 0;
    for (u32 len = 1; len <= SZR_MAX_LEN; len++) {
        u32 b;
        if (!r->bit(&b)) return false;
        code |= b;
        u32 c = count[len];
        if (code - first < c) {
            u32 k = index + code - first;
            if (k >= nsorted) return false;
            *sym = sorted[k];
            return true;
        }
        index += c;
        first = (first + c) << 1;
        code <<= 1;
    }
    return false;
}

extern "C" __global__ void sz_ratio_symbols(const u8* __restrict__ bits,
                                            const SzrChunk* __restrict__ chunks,
                                            const SzrGroup* __restrict__ groups, u32 ngroups,
                                            const u32* __restrict__ tables,
                                            const u32* __restrict__ counts,
                                            const u16* __restrict__ sorted,
                                            const u32* __restrict__ sorted_len, u32 zero,
                                            u16* __restrict__ syms, u32* __restrict__ bad) {
    u32 g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= ngroups) return;
    SzrGroup grp = groups[g];
    SzrChunk ch = chunks[grp.chunk];
    SzrBits r{bits + ch.bits_off, grp.bit_start, grp.bit_end};
    const u32* table = tables + (u64)ch.table * SZR_TABLE;
    const u32* count = counts + (u64)ch.table * (SZR_MAX_LEN + 1);
    const u16* srt = sorted + ch.sorted_off;
    u32 nsorted = sorted_len[ch.table];
    u32 pending = 0;
    for (u32 i = 0; i < grp.cells; i++) {
        u32 s;
        if (pending > 0) {
            pending--;
            s = zero;
        } else {
            if (!szr_decode(&r, table, count, srt, nsorted, &s)) {
                bad[grp.chunk] = 1;
                return;
            }
            if (ch.run_base != 0xffffffffu && s >= ch.run_base) {
                pending = s - ch.run_base + 1;
                s = zero;
            }
        }
        syms[grp.sym_out + i] = (u16)s;
    }
    if (pending != 0 || r.pos != grp.bit_end) bad[grp.chunk] = 1;
}

// The index of position pos among the count increasing positions at pos_list, or count when
// it is not there.
__device__ __forceinline__ u32 szr_find(const u32* pos_list, u32 count, u32 pos) {
    u32 lo = 0, hi = count;
    while (lo < hi) {
        u32 mid = (lo + hi) >> 1;
        if (pos_list[mid] < pos) lo = mid + 1; else hi = mid;
    }
    return lo < count && pos_list[lo] == pos ? lo : count;
}

// The delta of symbol s at position pos of chunk c and, for an exact value, its bits; false
// when the stream is corrupt there. Counts the outliers and exact values it takes.
struct SzrResolve {
    const u32* outl_pos;
    const i64* outl_delta;
    const u32* raw_pos;
    const u64* raw_bits;
    const u64* fills;
    u32 nfill;
    u32 radius;
    __device__ bool operator()(const SzrChunk& ch, u32 s, u32 pos, i64* delta, bool* exact,
                               u64* bits, u32* outl_seen, u32* raw_seen) const {
        u32 raw_sym = 2 * radius;
        *exact = false;
        *delta = 0;
        if (s == 0) {
            // The outlier at this position (positions strictly increasing).
            u32 k = szr_find(outl_pos + ch.outl_off, ch.outl_count, pos);
            if (k >= ch.outl_count) return false;
            *delta = outl_delta[ch.outl_off + k];
            (*outl_seen)++;
            return true;
        }
        if (s < raw_sym) {
            *delta = (i64)s - (i64)radius;
            return true;
        }
        if (s == raw_sym) {
            u32 k = szr_find(raw_pos + ch.raw_off, ch.raw_count, pos);
            if (k >= ch.raw_count) return false;
            *exact = true;
            *bits = raw_bits[ch.raw_off + k];
            (*raw_seen)++;
            return true;
        }
        u32 j = s - raw_sym - 1;
        if (j >= nfill) return false;
        *exact = true;
        *bits = fills[j];
        return true;
    }
};

template <typename T>
__device__ void sz_ratio_lorenzo(const SzrChunk* __restrict__ chunks,
                                 const SzrBlock* __restrict__ blocks, u32 nblocks,
                                 const u16* __restrict__ syms, SzrResolve res, u32 pw_rel,
                                 double step, u32* __restrict__ bad, u32* __restrict__ outl_seen,
                                 u32* __restrict__ raw_seen, T* __restrict__ out) {
    u32 b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    SzrBlock blk = blocks[b];
    SzrChunk ch = chunks[blk.chunk];
    double s = pw_rel ? sz_pow2(blk.exp) : step;
    u32 py = blk.dy + 1, px = blk.dx + 1;
    i64 q[SZ_PAD_CELLS];
    for (u32 i = 0; i < (blk.dz + 1) * py * px; i++) q[i] = 0;
    u32 pos = blk.pos, outl = 0, raws = 0;
    for (u32 z = 1; z <= blk.dz; z++) {
        for (u32 y = 1; y <= blk.dy; y++) {
            for (u32 x = 1; x <= blk.dx; x++) {
                u32 sym = syms[ch.sym_off + pos];
                i64 d;
                bool exact;
                u64 bits = 0;
                if (!res(ch, sym, pos, &d, &exact, &bits, &outl, &raws)) {
                    bad[blk.chunk] = 1;
                    return;
                }
                if (pos == blk.pos) d = (i64)((u64)d + (u64)blk.base);
                i64 qv = (i64)(sz_lorenzo(q, z, y, x, py, px) + (u64)d);
                q[(z * py + y) * px + x] = qv;
                u64 at = ch.sym_off + ((u64)(blk.z0 + z - 1) * ch.cy + (blk.y0 + y - 1)) * ch.cx +
                         (blk.x0 + x - 1);
                out[at] = exact ? (T)bits : sz_reconstruct_bits<T>(qv, s);
                pos++;
            }
        }
    }
    if (outl) atomicAdd(&outl_seen[blk.chunk], outl);
    if (raws) atomicAdd(&raw_seen[blk.chunk], raws);
}

extern "C" __global__ void sz_ratio_lorenzo_f32(const SzrChunk* chunks, const SzrBlock* blocks,
                                                u32 nblocks, const u16* syms, const u32* outl_pos,
                                                const i64* outl_delta, const u32* raw_pos,
                                                const u64* raw_bits, const u64* fills, u32 nfill,
                                                u32 radius, u32 pw_rel, double step, u32* bad,
                                                u32* outl_seen, u32* raw_seen, u32* out) {
    SzrResolve res{outl_pos, outl_delta, raw_pos, raw_bits, fills, nfill, radius};
    sz_ratio_lorenzo<u32>(chunks, blocks, nblocks, syms, res, pw_rel, step, bad, outl_seen,
                          raw_seen, out);
}

extern "C" __global__ void sz_ratio_lorenzo_f64(const SzrChunk* chunks, const SzrBlock* blocks,
                                                u32 nblocks, const u16* syms, const u32* outl_pos,
                                                const i64* outl_delta, const u32* raw_pos,
                                                const u64* raw_bits, const u64* fills, u32 nfill,
                                                u32 radius, u32 pw_rel, double step, u32* bad,
                                                u32* outl_seen, u32* raw_seen, u64* out) {
    SzrResolve res{outl_pos, outl_delta, raw_pos, raw_bits, fills, nfill, radius};
    sz_ratio_lorenzo<u64>(chunks, blocks, nblocks, syms, res, pw_rel, step, bad, outl_seen,
                          raw_seen, out);
}

// ---------------------------------------------------------------------------------------------
// Interpolated chunks (kind 2): interp.rs `traverse` (sz_traverse), one thread per chunk.

template <typename T>
__device__ void sz_ratio_interp(const SzrChunk* __restrict__ chunks,
                                const u32* __restrict__ interp_chunks, u32 ninterp,
                                const u16* __restrict__ syms, SzrResolve res, double step,
                                i64* __restrict__ qall, u32* __restrict__ bad,
                                u32* __restrict__ outl_seen, u32* __restrict__ raw_seen,
                                T* __restrict__ out) {
    u32 t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= ninterp) return;
    u32 c = interp_chunks[t];
    SzrChunk ch = chunks[c];
    // The chunk's integers, in the chunk's slice of a buffer of one i64 per value.
    i64* q = qall + ch.sym_off;
    T* o = out + ch.sym_off;
    u32 pos = 0, outl = 0, raws = 0;
    bool ok = sz_traverse(q, ch.cz, ch.cy, ch.cx, ch.stride_log2, ch.cubic != 0,
                          [&](u64 i, i64 pred, i64* v) -> bool {
                              u32 sym = syms[ch.sym_off + pos];
                              i64 d;
                              bool exact;
                              u64 bits = 0;
                              if (!res(ch, sym, pos, &d, &exact, &bits, &outl, &raws)) return false;
                              *v = (i64)((u64)pred + (u64)d);
                              o[i] = exact ? (T)bits : sz_reconstruct_bits<T>(*v, step);
                              pos++;
                              return true;
                          });
    if (!ok) {
        bad[c] = 1;
        return;
    }
    outl_seen[c] += outl;
    raw_seen[c] += raws;
}

extern "C" __global__ void sz_ratio_interp_f32(const SzrChunk* chunks, const u32* interp_chunks,
                                               u32 ninterp, const u16* syms, const u32* outl_pos,
                                               const i64* outl_delta, const u32* raw_pos,
                                               const u64* raw_bits, const u64* fills, u32 nfill,
                                               u32 radius, double step, i64* q, u32* bad,
                                               u32* outl_seen, u32* raw_seen, u32* out) {
    SzrResolve res{outl_pos, outl_delta, raw_pos, raw_bits, fills, nfill, radius};
    sz_ratio_interp<u32>(chunks, interp_chunks, ninterp, syms, res, step, q, bad, outl_seen,
                         raw_seen, out);
}

extern "C" __global__ void sz_ratio_interp_f64(const SzrChunk* chunks, const u32* interp_chunks,
                                               u32 ninterp, const u16* syms, const u32* outl_pos,
                                               const i64* outl_delta, const u32* raw_pos,
                                               const u64* raw_bits, const u64* fills, u32 nfill,
                                               u32 radius, double step, i64* q, u32* bad,
                                               u32* outl_seen, u32* raw_seen, u64* out) {
    SzrResolve res{outl_pos, outl_delta, raw_pos, raw_bits, fills, nfill, radius};
    sz_ratio_interp<u64>(chunks, interp_chunks, ninterp, syms, res, step, q, bad, outl_seen,
                         raw_seen, out);
}
