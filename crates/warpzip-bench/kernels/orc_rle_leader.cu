// Ablation baseline for the ORC Integer RLE v1 and v2 decoders: the conventional
// parallelisation the CODAG paper compares against. One thread block per chunk at a time
// (launched with 128 threads; any block size works): a single leader thread (thread 0) parses
// the stream serially, group by group, decoding each group's values into shared memory; then
// the whole block copies them to global memory (coalesced, narrowed to the output type) while
// the leader waits, and the leader goes on with the next group.
//
// Semantics match `codec::orc_rle` on the CPU: `decode_int_rle_v1` / `decode_int_rle_v2` in exact
// mode, the `_prefix` variants otherwise (every group touched is decoded and checked whole, and
// only the values wanted are written). The checks run in the CPU's order, so every input gets
// the same verdict and the same status. Every read is bounds-checked against `in_len`, and
// every group consumes at least one byte, so no input can keep the leader looping for longer
// than the chunk is long.
#include "orc/orc_int.cuh"

// Most values of one group: an RLEv2 group (an RLEv1 group holds at most 130).
#define ORC_LEADER_MAX_GROUP 512u
// The leader has not finished the chunk (a value that is no status code).
#define ORC_LEADER_CONTINUE 0xffffffffu

// What the leader hands the block after a group of `n` values: values `lo..hi` of the group are
// written to output elements `out_base + lo .. out_base + hi` (`out_base` is taken mod 2^64: it
// lies below the chunk's first element when the group starts before `skip`).
struct OrcLeaderGroup {
    u64 out_base;
    u64 base;   // run == 1: value i is base + i * delta (mod 2^64)
    u64 delta;
    u32 n;
    u32 lo;
    u32 hi;
    u32 run;    // 0: value i is stage[i]
    u32 stop;   // the chunk is finished after this group
};

// The leader's position in its chunk.
struct OrcLeaderState {
    const u8* in;    // the chunk's input bytes
    u32 len;         // how many there are
    u32 pos;         // the next byte to parse
    u64 produced;    // values decoded so far: the stream index of the next value
    u64 skip;        // values dropped before the first written one
    u64 need;        // skip + count
    u64 out_offset;  // output element of value `skip`
    bool exact;      // the stream must end after exactly `need` values
};

// Reads a base-128 varint at `s.pos` into `v`, as `read_varint` does: the input ending inside
// it is TRUNCATED, more than 64 bits of value (a tenth byte above 1) is CORRUPT.
__device__ u32 orc_leader_varint(OrcLeaderState& s, u64& v) {
    u64 result = 0;
    for (u32 shift = 0; shift <= 63u; shift += 7u) {
        if (s.pos >= s.len) return WZ_STATUS_TRUNCATED;
        const u32 byte = s.in[s.pos++];
        const u64 low = byte & 0x7fu;
        if (shift == 63u && low > 1u) return WZ_STATUS_CORRUPT;
        result |= low << shift;
        if (!(byte & 0x80u)) {
            v = result;
            return WZ_STATUS_OK;
        }
    }
    // A tenth byte with its continuation bit set.
    return WZ_STATUS_CORRUPT;
}

// `bytes` (1..8) big-endian bytes at `p`, which the caller has checked to be in the input.
__device__ __forceinline__ u64 orc_leader_be_bytes(const u8* p, u32 bytes) {
    u64 v = 0;
    for (u32 i = 0; i < bytes; i++) v = (v << 8) | p[i];
    return v;
}

// Big-endian bit unpacking over bytes the caller has checked to be in the input: reads only the
// bytes that hold the bits asked for. `buf` keeps the `n` bits not yet taken in its low bits.
struct OrcBeBits {
    const u8* p;
    u64 buf;
    u32 n;
};

__device__ __forceinline__ OrcBeBits orc_be_bits(const u8* p) { return OrcBeBits{p, 0ull, 0u}; }

// The next `w` (1..56) bits: after the refill at most w + 7 <= 63 bits are held.
__device__ __forceinline__ u64 orc_be_take(OrcBeBits& r, u32 w) {
    while (r.n < w) {
        r.buf = (r.buf << 8) | *r.p++;
        r.n += 8u;
    }
    r.n -= w;
    return (r.buf >> r.n) & ((1ull << w) - 1ull);
}

// The next `w` (1..64) bits.
__device__ __forceinline__ u64 orc_be_read(OrcBeBits& r, u32 w) {
    if (w <= 56u) return orc_be_take(r, w);
    const u64 hi = orc_be_take(r, w - 32u);
    return (hi << 32) | orc_be_take(r, 32u);
}

// Bytes of `count` packed values of `w` bits (padded to a whole byte).
__device__ __forceinline__ u32 orc_packed_bytes(u32 w, u32 count) { return (w * count + 7u) >> 3; }

// The CPU's `Sink::take`: in exact mode a group of `n` values that runs past `need` values is
// OVERFLOW. (The other mode decodes the group whole and writes only the values wanted.)
__device__ __forceinline__ bool orc_leader_overflows(const OrcLeaderState& s, u32 n) {
    return s.exact && (u64)n > s.need - s.produced;
}

// A linear run of `n` values starting at `base` (already checked) with step `delta`.
__device__ __forceinline__ void orc_leader_run(OrcLeaderGroup& g, u64 base, u64 delta, u32 n) {
    g.run = 1u;
    g.base = base;
    g.delta = delta;
    g.n = n;
}

// ---------------------------------------------------------------------------------------------
// Integer RLE v1. A control byte 0..127 is a run of control + 3 values: a delta byte (i8) and the
// first value as a varint follow, each value `delta` more than the previous. A control byte
// 128..255 is 256 - control literal varints. Signed streams zigzag every varint.
template <typename T, bool SIGNED>
__device__ u32 orc_leader_group_v1(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    const u32 control = s.in[s.pos++];
    if (control < 0x80u) {
        const u32 len = control + 3u;
        if (s.pos >= s.len) return WZ_STATUS_TRUNCATED;
        const i64 delta = (i64)(signed char)s.in[s.pos++];
        u64 raw;
        const u32 st = orc_leader_varint(s, raw);
        if (st != WZ_STATUS_OK) return st;
        if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
        // The run is linear: when its first and last values fit, so do all between.
        const i128 base = orc_stream_value<SIGNED>(raw);
        if (!orc_fits_wide<T, SIGNED>(base) ||
            !orc_fits_wide<T, SIGNED>(base + (i128)delta * (i128)(len - 1u)))
            return WZ_STATUS_CORRUPT;
        orc_leader_run(g, (u64)base, (u64)delta, len);
        return WZ_STATUS_OK;
    }
    // Literals. In exact mode the CPU takes the output slots before reading any varint, then
    // checks each value as it is read; the prefix decoder reads all the group's varints first
    // and checks the values after, so there a value out of range is reported after the reads.
    const u32 len = 256u - control;
    if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
    bool out_of_range = false;
    for (u32 i = 0; i < len; i++) {
        u64 raw;
        const u32 st = orc_leader_varint(s, raw);
        if (st != WZ_STATUS_OK) return st;
        const u64 bits = SIGNED ? (u64)orc_unzigzag(raw) : raw;
        if (!orc_fits<T, SIGNED>(bits)) {
            if (s.exact) return WZ_STATUS_CORRUPT;
            out_of_range = true;
        }
        stage[i] = bits;
    }
    if (out_of_range) return WZ_STATUS_CORRUPT;
    g.run = 0u;
    g.n = len;
    return WZ_STATUS_OK;
}

// ---------------------------------------------------------------------------------------------
// Integer RLE v2: the top two bits of a group's first byte name its sub-encoding. DIRECT,
// PATCHED_BASE and DELTA share a 2-byte header: the 5-bit width code in bits 1..5 of byte 0
// and a 9-bit length - 1 in bit 0 of byte 0 and byte 1.
__device__ __forceinline__ u32 orc_v2_group_len(const u8* h) {
    return (((u32)(h[0] & 1u) << 8) | h[1]) + 1u;
}

// SHORT_REPEAT: byte 0 holds the value's byte count - 1 (bits 3..5) and the repeat count - 3
// (bits 0..2); the value follows big-endian, zigzagged in a signed stream.
template <typename T, bool SIGNED>
__device__ u32 orc_leader_short_repeat(OrcLeaderState& s, OrcLeaderGroup& g) {
    const u8* h = s.in + s.pos;
    const u32 width = ((h[0] >> 3) & 7u) + 1u;
    const u32 len = (h[0] & 7u) + 3u;
    if (s.len - s.pos < 1u + width) return WZ_STATUS_TRUNCATED;
    const u64 raw = orc_leader_be_bytes(h + 1, width);
    const u64 bits = SIGNED ? (u64)orc_unzigzag(raw) : raw;
    if (!orc_fits<T, SIGNED>(bits)) return WZ_STATUS_CORRUPT;
    if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
    orc_leader_run(g, bits, 0ull, len);
    s.pos += 1u + width;
    return WZ_STATUS_OK;
}

// DIRECT: after the header, `len` values bit-packed big-endian, zigzagged in a signed stream.
template <typename T, bool SIGNED>
__device__ u32 orc_leader_direct(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    if (s.len - s.pos < 2u) return WZ_STATUS_TRUNCATED;
    const u8* h = s.in + s.pos;
    const u32 width = orc_decode_width(h[0] >> 1);
    const u32 len = orc_v2_group_len(h);
    const u32 bytes = orc_packed_bytes(width, len);
    if (s.len - s.pos - 2u < bytes) return WZ_STATUS_TRUNCATED;
    if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
    OrcBeBits r = orc_be_bits(h + 2);
    for (u32 i = 0; i < len; i++) {
        const u64 v = orc_be_read(r, width);
        const u64 bits = SIGNED ? (u64)orc_unzigzag(v) : v;
        if (!orc_fits<T, SIGNED>(bits)) return WZ_STATUS_CORRUPT;
        stage[i] = bits;
    }
    g.run = 0u;
    g.n = len;
    s.pos += 2u + bytes;
    return WZ_STATUS_OK;
}

// PATCHED_BASE: a 4-byte header (byte 2: base bytes - 1 in bits 5..7 and the patch width code;
// byte 3: gap width - 1 in bits 5..7 and the patch count), the base (sign and magnitude,
// big-endian), `len` values of `width` bits, then the patch list: entries of the table width
// closest to gap + patch width, each a gap (from the previous patch) over a patch that supplies
// the value's bits above `width`. A gap of 255 with a zero patch only moves on. Value i is
// base + (v_i | patch << width).
template <typename T, bool SIGNED>
__device__ u32 orc_leader_patched_base(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    if (s.len - s.pos < 4u) return WZ_STATUS_TRUNCATED;
    const u8* h = s.in + s.pos;
    const u32 width = orc_decode_width(h[0] >> 1);
    const u32 len = orc_v2_group_len(h);
    const u32 base_bytes = (h[2] >> 5) + 1u;
    const u32 patch_width = orc_decode_width(h[2]);
    const u32 gap_width = (h[3] >> 5) + 1u;
    const u32 patch_count = h[3] & 0x1fu;
    if (gap_width + patch_width > 64u) return WZ_STATUS_CORRUPT;
    u32 avail = s.len - s.pos - 4u;
    if (avail < base_bytes) return WZ_STATUS_TRUNCATED;
    const u64 base_raw = orc_leader_be_bytes(h + 4, base_bytes);
    avail -= base_bytes;
    const u32 data_bytes = orc_packed_bytes(width, len);
    if (avail < data_bytes) return WZ_STATUS_TRUNCATED;
    avail -= data_bytes;
    const u32 entry_width = orc_closest_fixed_width(gap_width + patch_width);
    const u32 patch_bytes = orc_packed_bytes(entry_width, patch_count);
    if (avail < patch_bytes) return WZ_STATUS_TRUNCATED;
    if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;

    const u64 sign_bit = 1ull << (base_bytes * 8u - 1u);
    const i64 base = (base_raw & sign_bit) ? -(i64)(base_raw & ~sign_bit) : (i64)base_raw;
    // Unpatched values first, each checked (as the CPU does) before any patch is applied.
    const u8* data = h + 4 + base_bytes;
    OrcBeBits r = orc_be_bits(data);
    for (u32 i = 0; i < len; i++) {
        const i128 v = (i128)base + (i128)orc_be_read(r, width);
        if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
        stage[i] = (u64)v;
    }
    // Patches. v_i < 2^width, so base + (v_i | patch << width) is the staged base + v_i (in the
    // stream's domain, below 2^64) plus patch << width (below 2^120: with gap_width >= 1 the
    // check above leaves patch widths up to 56): no i128 overflow.
    OrcBeBits pr = orc_be_bits(data + data_bytes);
    const u64 patch_mask = (1ull << patch_width) - 1ull;
    u64 index = 0;
    u64 last_patched = ~0ull;  // none yet
    for (u32 k = 0; k < patch_count; k++) {
        const u64 entry = orc_be_read(pr, entry_width);
        const u64 gap = entry >> patch_width;
        const u64 patch = entry & patch_mask;
        if (gap == 255u && patch == 0u) {
            index += 255u;
            continue;
        }
        index += gap;
        if (index == last_patched || index >= len) return WZ_STATUS_CORRUPT;
        last_patched = index;
        const i128 unpatched = SIGNED ? (i128)(i64)stage[index] : (i128)stage[index];
        const i128 v = unpatched + ((i128)patch << width);
        if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
        stage[index] = (u64)v;
    }
    g.run = 0u;
    g.n = len;
    s.pos += 4u + base_bytes + data_bytes + patch_bytes;
    return WZ_STATUS_OK;
}

// DELTA: after the header, the first value (a varint, zigzagged in a signed stream) and the
// first delta (a zigzagged varint). Width code 0: every delta is that one (a linear run).
// Otherwise `len - 2` packed magnitudes follow, added after the first delta (subtracted when it
// is negative).
template <typename T, bool SIGNED>
__device__ u32 orc_leader_delta(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    if (s.len - s.pos < 2u) return WZ_STATUS_TRUNCATED;
    const u8* h = s.in + s.pos;
    const u32 code = (h[0] >> 1) & 0x1fu;
    const u32 width = code == 0u ? 0u : orc_decode_width(code);
    const u32 len = orc_v2_group_len(h);
    s.pos += 2u;
    u64 raw;
    u32 st = orc_leader_varint(s, raw);
    if (st != WZ_STATUS_OK) return st;
    const i128 base = orc_stream_value<SIGNED>(raw);
    st = orc_leader_varint(s, raw);
    if (st != WZ_STATUS_OK) return st;
    const i64 delta_base = orc_unzigzag(raw);
    if (width == 0u) {
        if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
        // Linear: when the first and the last value fit, so do all between.
        if (!orc_fits_wide<T, SIGNED>(base) ||
            !orc_fits_wide<T, SIGNED>(base + (i128)delta_base * (i128)(len - 1u)))
            return WZ_STATUS_CORRUPT;
        orc_leader_run(g, (u64)base, (u64)delta_base, len);
        return WZ_STATUS_OK;
    }
    const u32 bytes = orc_packed_bytes(width, len >= 2u ? len - 2u : 0u);
    if (s.len - s.pos < bytes) return WZ_STATUS_TRUNCATED;
    if (orc_leader_overflows(s, len)) return WZ_STATUS_OVERFLOW;
    // Every value is checked, so the running value stays within 2^64 of the domain.
    i128 v = base;
    if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
    stage[0] = (u64)v;
    if (len >= 2u) {
        v += delta_base;
        if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
        stage[1] = (u64)v;
        const bool decreasing = delta_base < 0;
        OrcBeBits r = orc_be_bits(s.in + s.pos);
        for (u32 i = 2; i < len; i++) {
            const i128 step = (i128)orc_be_read(r, width);
            v = decreasing ? v - step : v + step;
            if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
            stage[i] = (u64)v;
        }
    }
    g.run = 0u;
    g.n = len;
    s.pos += bytes;
    return WZ_STATUS_OK;
}

template <typename T, bool SIGNED>
__device__ u32 orc_leader_group_v2(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    switch (s.in[s.pos] >> 6) {
        case 0: return orc_leader_short_repeat<T, SIGNED>(s, g);
        case 1: return orc_leader_direct<T, SIGNED>(s, g, stage);
        case 2: return orc_leader_patched_base<T, SIGNED>(s, g, stage);
        default: return orc_leader_delta<T, SIGNED>(s, g, stage);
    }
}

// ---------------------------------------------------------------------------------------------
// The chunk's final status when the leader is to decode no more groups, else
// ORC_LEADER_CONTINUE. Exact mode runs to the end of the input; the other mode stops once
// `need` values are produced, and an input ending cleanly before that is UNDERFLOW.
__device__ __forceinline__ u32 orc_leader_end(const OrcLeaderState& s) {
    if (!s.exact && s.produced >= s.need) return WZ_STATUS_OK;
    if (s.pos >= s.len) return s.produced < s.need ? WZ_STATUS_UNDERFLOW : WZ_STATUS_OK;
    return ORC_LEADER_CONTINUE;
}

// Leader only: decodes groups until one has values to write or the chunk is finished (which
// sets `g.stop`), and returns the chunk's status in the latter case. Groups whose values all lie
// before `skip` are decoded (and checked) without involving the block.
template <typename T, bool SIGNED, bool V2>
__device__ u32 orc_leader_next(OrcLeaderState& s, OrcLeaderGroup& g, u64* stage) {
    while (true) {
        u32 st = orc_leader_end(s);
        if (st != ORC_LEADER_CONTINUE) {
            g.hi = 0u;
            g.stop = 1u;
            return st;
        }
        st = V2 ? orc_leader_group_v2<T, SIGNED>(s, g, stage)
                : orc_leader_group_v1<T, SIGNED>(s, g, stage);
        if (st != WZ_STATUS_OK) {
            g.hi = 0u;
            g.stop = 1u;
            return st;
        }
        // The group holds stream values first..first + n, and first < need.
        const u64 first = s.produced;
        s.produced += g.n;
        if (s.produced > s.skip) {
            g.lo = first < s.skip ? (u32)(s.skip - first) : 0u;
            g.hi = s.produced < s.need ? g.n : (u32)(s.need - first);
            g.out_base = s.out_offset + first - s.skip;
            st = orc_leader_end(s);
            g.stop = st != ORC_LEADER_CONTINUE;
            return st;
        }
    }
}

template <typename T, bool SIGNED, bool V2>
__device__ void orc_leader_body(ORC_KERNEL_PARAMS) {
    __shared__ u64 stage[ORC_LEADER_MAX_GROUP];
    __shared__ OrcLeaderGroup g;
    T* dst = reinterpret_cast<T*>(out);
    for (u32 chunk = blockIdx.x; chunk < n_chunks; chunk += gridDim.x) {
        const OrcRleChunk c = chunks[chunk];
        OrcLeaderState s;
        s.in = in + c.in_offset;
        s.len = c.in_len;
        s.pos = 0u;
        s.produced = 0ull;
        s.skip = c.skip;
        s.need = (u64)c.skip + c.count;
        s.out_offset = c.out_offset;
        s.exact = c.exact != 0u;
        while (true) {
            if (threadIdx.x == 0) {
                const u32 st = orc_leader_next<T, SIGNED, V2>(s, g, stage);
                if (g.stop) status[chunk] = st;
            }
            __syncthreads();
            // The whole block writes the group's values lo..hi, narrowed to T.
            const u32 hi = g.hi;
            const u64 out_base = g.out_base;
            if (g.run) {
                const u64 base = g.base;
                const u64 delta = g.delta;
                for (u32 i = g.lo + threadIdx.x; i < hi; i += blockDim.x)
                    dst[out_base + i] = (T)(base + (u64)i * delta);
            } else {
                for (u32 i = g.lo + threadIdx.x; i < hi; i += blockDim.x)
                    dst[out_base + i] = (T)stage[i];
            }
            const bool stop = g.stop != 0u;
            __syncthreads();
            if (stop) break;
        }
    }
}

template <typename T, bool SIGNED>
__device__ void leader_v1(ORC_KERNEL_PARAMS) {
    orc_leader_body<T, SIGNED, false>(ORC_KERNEL_ARGS);
}

template <typename T, bool SIGNED>
__device__ void leader_v2(ORC_KERNEL_PARAMS) {
    orc_leader_body<T, SIGNED, true>(ORC_KERNEL_ARGS);
}

ORC_INT_KERNELS(orc_rle_v1_leader, leader_v1)
ORC_INT_KERNELS(orc_rle_v2_leader, leader_v2)
