// The serial ORC Integer RLE v1 and v2 decoder of one lane, for the sub-blocks of indexed `.wz`
// chunks (layout 2): `lane_decode_unit` decodes one sub-block's stream, its groups one after the
// other, and writes its values straight to the output, 16 bytes per store. orc_rle_lanes.cu runs
// it on every sub-block (32 independent streams per warp); orc_rle_expand.cu runs it on the
// sub-blocks its fast path hands back (a failure, or a PATCHED_BASE group), for their exact status.
//
// A lane reads its stream through 8-byte windows cut from the last two aligned 8-byte words it
// loaded, so a varint of up to 8 bytes or a packed value of any RLEv2 width is one window, and
// reading on through a stream costs one 8-byte load per 8 bytes. Every unit is a
// whole sub-block (`skip == 0`, `exact == 1`: the host builds no other kind for these kernels),
// decoded exactly as `decode_int_rle_v1` / `decode_int_rle_v2` do on the CPU: the same checks in
// the same order, so every input gets the same status. Every byte a value depends on is checked
// to lie inside the unit's `in_len` bytes; a window may also load up to 15 bytes past them, which
// the host's padding of the input allocation (`INPUT_SLACK` bytes beyond the payload, then up to
// a multiple of 128) keeps inside the allocation.
#pragma once
#include "orc/orc_int.cuh"

// One lane's position in its sub-block's stream, and the aligned 16 bytes it read last (reads
// move forward, so most windows need no load, or one).
struct LaneIn {
    const u8* in;              // the stream's first byte
    u32 len;                   // its length
    u32 pos;                   // the next byte to parse
    u32 wa;                    // low 32 bits of w0's address (8-aligned; ~0 before the first
                               // read): a stream's reads lie within 4 GiB, so they identify it
    u64 w0, w1;                // the words at wa and wa + 8
};

// A lane's reader of the stream of unit `c`, before its first byte.
__device__ __forceinline__ LaneIn lane_in(const u8* in, const OrcRleChunk& c) {
    LaneIn s;
    s.in = in + c.in_offset;
    s.len = c.in_len;
    s.pos = 0u;
    s.wa = ~0u;
    s.w0 = s.w1 = 0ull;
    return s;
}

// Unit `unit` for an active lane; an empty exact unit (no input, no values) for a lane past the
// last unit, so that the warp's lanes can all run the same steps.
__device__ __forceinline__ OrcRleChunk lane_unit(const OrcRleChunk* chunks, u32 unit, bool active) {
    OrcRleChunk c;
    c.in_offset = 0ull;
    c.in_len = 0u;
    c.skip = 0u;
    c.out_offset = 0ull;
    c.count = 0u;
    c.exact = 1u;
    if (active) c = chunks[unit];
    return c;
}

// One aligned word of a lane's stream through the read-only path. With BLOCK, a miss also asks
// L2 to fetch the whole aligned 128 bytes around the word from memory (PTX's
// `.L2::128B` prefetch size), since the lane goes on reading them: L2 then has the stream's next
// sectors when the lane gets to them, instead of each missing to memory in turn.
template <bool BLOCK>
__device__ __forceinline__ u64 lane_load(const u64* w) {
    if (!BLOCK) return __ldg(w);
    u64 v;
    asm("ld.global.nc.L2::128B.u64 %0, [%1];" : "=l"(v) : "l"(w));
    return v;
}

// The 8 bytes at `p` (any alignment), little-endian: byte 0 is bits 0..7. BLOCK: see
// `lane_load`.
template <bool BLOCK = false>
__device__ __forceinline__ u64 lane_peek(LaneIn& s, const u8* p) {
    const unsigned long long addr = (unsigned long long)p;
    const u32 a = (u32)addr & ~7u;
    if (a != s.wa) {
        const u64* w = reinterpret_cast<const u64*>(addr & ~7ull);
        if (a == s.wa + 8u) {
            s.w0 = s.w1;
        } else {
            s.w0 = lane_load<BLOCK>(w);
        }
        s.w1 = lane_load<BLOCK>(w + 1);
        s.wa = a;
    }
    const u32 sh = ((u32)addr & 7u) * 8u;
    return sh == 0u ? s.w0 : (s.w0 >> sh) | (s.w1 << (64u - sh));
}

// The 8 bytes of a little-endian word in the other order (big-endian: byte 0 in bits 56..63).
__device__ __forceinline__ u64 lane_bswap(u64 v) {
    const u32 lo = __byte_perm((u32)v, 0u, 0x0123u);
    const u32 hi = __byte_perm((u32)(v >> 32), 0u, 0x0123u);
    return ((u64)lo << 32) | hi;
}

// `w` (1..64) bits at bit `bit` of `p`, ORC's big-endian packing. RLEv2's widths keep
// (bit & 7) + w <= 64: widths above 32 are whole bytes and start on a byte.
__device__ __forceinline__ u64 lane_bits(LaneIn& s, const u8* p, u64 bit, u32 w) {
    const u64 be = lane_bswap(lane_peek(s, p + (bit >> 3))) << (u32)(bit & 7u);
    return be >> (64u - w);
}

// `bytes` (1..8) big-endian bytes at `p`.
__device__ __forceinline__ u64 lane_be_bytes(LaneIn& s, const u8* p, u32 bytes) {
    return lane_bswap(lane_peek(s, p)) >> (64u - 8u * bytes);
}

// A lane's output: values go out in 16-byte stores once 16 bytes of them are held (a warp's 32
// lanes write 32 different places, so fewer, wider stores save most of the store traffic). A
// sub-block whose first value is not 16-byte aligned is written value by value.
template <typename T>
struct LaneOut {
    T* dst;       // the sub-block's first value
    u32 n;        // values emitted
    bool wide;    // dst is 16-byte aligned
    u64 lo, hi;   // the last 16 bytes of values, oldest in the low bytes of lo
};

#define LANE_PER_STORE (16u / (u32)sizeof(T))

template <typename T>
__device__ __forceinline__ LaneOut<T> lane_out(T* dst) {
    LaneOut<T> o;
    o.dst = dst;
    o.n = 0u;
    o.wide = (((unsigned long long)dst) & 15ull) == 0ull;
    o.lo = 0ull;
    o.hi = 0ull;
    return o;
}

template <typename T>
__device__ __forceinline__ void lane_emit(LaneOut<T>& o, u64 v) {
    if (!o.wide) {
        o.dst[o.n++] = (T)v;
        return;
    }
    const u32 bits = 8u * (u32)sizeof(T);
    if (bits == 64u) {
        o.lo = o.hi;
        o.hi = v;
    } else {
        o.lo = (o.lo >> bits) | (o.hi << (64u - bits));
        o.hi = (o.hi >> bits) | ((u64)(T)v << (64u - bits));
    }
    o.n++;
    if ((o.n & (LANE_PER_STORE - 1u)) == 0u) {
        ulonglong2* p = reinterpret_cast<ulonglong2*>(o.dst + o.n - LANE_PER_STORE);
        *p = make_ulonglong2(o.lo, o.hi);
    }
}

// Writes the values still held (fewer than 16 bytes of them).
template <typename T>
__device__ __forceinline__ void lane_flush(LaneOut<T>& o) {
    if (!o.wide) return;
    const u32 held = o.n & (LANE_PER_STORE - 1u);
    for (u32 k = 0; k < held; k++) {
        // Value n - held + k sits at byte 16 - (held - k) * size of the window.
        const u32 byte = 16u - (held - k) * (u32)sizeof(T);
        const u64 word = byte < 8u ? o.lo >> (8u * byte) : o.hi >> (8u * (byte - 8u));
        o.dst[o.n - held + k] = (T)word;
    }
}


// A base-128 varint at `s.pos`, as `read_varint` reads it: the input ending inside it is
// TRUNCATED, more than 64 bits of value (a tenth byte above 1, or an eleventh byte) CORRUPT.
template <bool BLOCK = false>
__device__ __forceinline__ u32 lane_varint(LaneIn& s, u64& v) {
    const u32 avail = s.len - s.pos;
    const u64 le = lane_peek<BLOCK>(s, s.in + s.pos);
    const u32 stops4 = ~(u32)le & 0x80808080u;
    if (stops4 != 0u && avail >= 4u) {
        // Up to four bytes (most varints), in 32-bit arithmetic.
        const u32 n = (u32)__ffs((int)stops4) >> 3;  // bit 8n - 1 is set: n bytes
        v = lane_varint_bits32((u32)le, n);
        s.pos += n;
        return WZ_STATUS_OK;
    }
    u64 stops = ~le & 0x8080808080808080ull;
    if (avail < 8u) stops &= (1ull << (8u * avail)) - 1ull;
    if (stops != 0ull) {
        const u32 n = ((u32)__ffsll((long long)stops) >> 3);
        v = lane_varint_bits(le, n);
        s.pos += n;
        return WZ_STATUS_OK;
    }
    if (avail <= 8u) return WZ_STATUS_TRUNCATED;
    // Eight continuation bytes: 56 bits so far; a ninth and tenth byte may follow, read from the
    // next window (one more aligned load at most).
    u64 result = lane_varint_bits(le, 8u);
    const u64 next = lane_peek<BLOCK>(s, s.in + s.pos + 8u);
    const u32 b8 = (u32)next & 0xffu;
    result |= (u64)(b8 & 0x7fu) << 56;
    u32 n = 9u;
    if (b8 & 0x80u) {
        if (avail <= 9u) return WZ_STATUS_TRUNCATED;
        const u32 b9 = ((u32)next >> 8) & 0xffu;
        if ((b9 & 0x7fu) > 1u) return WZ_STATUS_CORRUPT;
        result |= (u64)(b9 & 0x7fu) << 63;
        if (b9 & 0x80u) return WZ_STATUS_CORRUPT;
        n = 10u;
    }
    v = result;
    s.pos += n;
    return WZ_STATUS_OK;
}

// Exact mode's overflow check: a group of `n` values running past the sub-block's `need`.
__device__ __forceinline__ bool lane_overflows(u32 produced, u32 need, u32 n) {
    return n > need - produced;
}

// A linear run of `len` values from `base` by `delta` (an RLEv1 run, a width-0 DELTA): overflow
// first, then the range of its first and last value (when those fit, all between do).
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_linear_run(LaneOut<T>& o, u32 need, i128 base, i64 delta,
                                               u32 len) {
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;
    if (!orc_fits_wide<T, SIGNED>(base) ||
        !orc_fits_wide<T, SIGNED>(base + (i128)delta * (i128)(len - 1u)))
        return WZ_STATUS_CORRUPT;
    u64 v = (u64)base;
    for (u32 i = 0; i < len; i++, v += (u64)delta) lane_emit(o, v);
    return WZ_STATUS_OK;
}

// ---------------------------------------------------------------------------------------------
// Integer RLE v1: control 0..127 is a run of control + 3 values (a delta byte, then the first
// value as a varint); 128..255 is 256 - control literal varints.
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_group_v1(LaneIn& s, LaneOut<T>& o, u32 need) {
    const u32 control = s.in[s.pos++];
    if (control < 0x80u) {
        const u32 len = control + 3u;
        if (s.pos >= s.len) return WZ_STATUS_TRUNCATED;
        const i64 delta = (i64)(signed char)s.in[s.pos++];
        u64 raw;
        const u32 st = lane_varint(s, raw);
        if (st != WZ_STATUS_OK) return st;
        return lane_linear_run<T, SIGNED>(o, need, orc_stream_value<SIGNED>(raw), delta, len);
    }
    const u32 len = 256u - control;
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;
    for (u32 i = 0; i < len; i++) {
        u64 raw;
        const u32 st = lane_varint(s, raw);
        if (st != WZ_STATUS_OK) return st;
        const u64 bits = SIGNED ? (u64)orc_unzigzag(raw) : raw;
        if (!orc_fits<T, SIGNED>(bits)) return WZ_STATUS_CORRUPT;
        lane_emit(o, bits);
    }
    return WZ_STATUS_OK;
}

// ---------------------------------------------------------------------------------------------
// Integer RLE v2; the sub-encodings and their checks are those of orc_rle_leader.cu.
__device__ __forceinline__ u32 lane_v2_len(u32 b0, u32 b1) { return (((b0 & 1u) << 8) | b1) + 1u; }

template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_short_repeat(LaneIn& s, LaneOut<T>& o, u32 need, u32 h0) {
    const u32 width = ((h0 >> 3) & 7u) + 1u;
    const u32 len = (h0 & 7u) + 3u;
    if (s.len - s.pos < 1u + width) return WZ_STATUS_TRUNCATED;
    const u64 raw = lane_be_bytes(s, s.in + s.pos + 1u, width);
    const u64 bits = SIGNED ? (u64)orc_unzigzag(raw) : raw;
    if (!orc_fits<T, SIGNED>(bits)) return WZ_STATUS_CORRUPT;
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;
    for (u32 i = 0; i < len; i++) lane_emit(o, bits);
    s.pos += 1u + width;
    return WZ_STATUS_OK;
}

template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_direct(LaneIn& s, LaneOut<T>& o, u32 need, u32 h0, u32 h1) {
    const u32 width = orc_decode_width(h0 >> 1);
    const u32 len = lane_v2_len(h0, h1);
    const u32 bytes = (width * len + 7u) >> 3;
    if (s.len - s.pos - 2u < bytes) return WZ_STATUS_TRUNCATED;
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;
    const u8* data = s.in + s.pos + 2u;
    u64 bit = 0;
    for (u32 i = 0; i < len; i++, bit += width) {
        const u64 v = lane_bits(s, data, bit, width);
        const u64 bits = SIGNED ? (u64)orc_unzigzag(v) : v;
        if (!orc_fits<T, SIGNED>(bits)) return WZ_STATUS_CORRUPT;
        lane_emit(o, bits);
    }
    s.pos += 2u + bytes;
    return WZ_STATUS_OK;
}

// The next patch of a PATCHED_BASE group at or after entry `k`: its value index (`len` when
// none is left), with `k` moved past it. Entries of gap 255 and patch 0 only move the index.
__device__ __forceinline__ u64 lane_next_patch(LaneIn& s, const u8* patches, u32 entry_width,
                                               u32 patch_width, u32 patch_count, u32& k,
                                               u64& index, u64& patch, u32 len) {
    const u64 patch_mask = (1ull << patch_width) - 1ull;
    while (k < patch_count) {
        const u64 entry = lane_bits(s, patches, (u64)k * entry_width, entry_width);
        k++;
        const u64 gap = entry >> patch_width;
        patch = entry & patch_mask;
        if (gap == 255u && patch == 0u) {
            index += 255u;
            continue;
        }
        index += gap;
        return index;
    }
    return len;
}

template <typename T, bool SIGNED>
__device__ u32 lane_patched_base(LaneIn& s, LaneOut<T>& o, u32 need, u32 h0, u32 h1) {
    if (s.len - s.pos < 4u) return WZ_STATUS_TRUNCATED;
    const u8* h = s.in + s.pos;
    const u32 width = orc_decode_width(h0 >> 1);
    const u32 len = lane_v2_len(h0, h1);
    const u32 h2 = h[2];
    const u32 h3 = h[3];
    const u32 base_bytes = (h2 >> 5) + 1u;
    const u32 patch_width = orc_decode_width(h2);
    const u32 gap_width = (h3 >> 5) + 1u;
    const u32 patch_count = h3 & 0x1fu;
    if (gap_width + patch_width > 64u) return WZ_STATUS_CORRUPT;
    u32 avail = s.len - s.pos - 4u;
    if (avail < base_bytes) return WZ_STATUS_TRUNCATED;
    const u64 base_raw = lane_be_bytes(s, h + 4, base_bytes);
    avail -= base_bytes;
    const u32 data_bytes = (width * len + 7u) >> 3;
    if (avail < data_bytes) return WZ_STATUS_TRUNCATED;
    avail -= data_bytes;
    const u32 entry_width = orc_closest_fixed_width(gap_width + patch_width);
    const u32 patch_bytes = (entry_width * patch_count + 7u) >> 3;
    if (avail < patch_bytes) return WZ_STATUS_TRUNCATED;
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;

    const u64 sign_bit = 1ull << (base_bytes * 8u - 1u);
    const i64 base = (base_raw & sign_bit) ? -(i64)(base_raw & ~sign_bit) : (i64)base_raw;
    const u8* data = h + 4 + base_bytes;
    const u8* patches = data + data_bytes;
    // The CPU checks every unpatched value, then applies the patches in order (an index past
    // the group or repeating the previous one is CORRUPT, as is a patched value out of range).
    // Every failure here is CORRUPT, so the patch list is checked whole first and the values
    // are then written in order, each patched as it goes out.
    {
        const u64 patch_mask = (1ull << patch_width) - 1ull;
        u64 index = 0;
        u64 last = ~0ull;  // no patch yet
        for (u32 k = 0; k < patch_count; k++) {
            const u64 entry = lane_bits(s, patches, (u64)k * entry_width, entry_width);
            const u64 gap = entry >> patch_width;
            if (gap == 255u && (entry & patch_mask) == 0u) {
                index += 255u;
                continue;
            }
            index += gap;
            if (index == last || index >= len) return WZ_STATUS_CORRUPT;
            last = index;
        }
    }
    // Checked: the patches' indexes only grow and lie inside the group.
    u32 k = 0;
    u64 index = 0, patch = 0;
    u64 next = lane_next_patch(s, patches, entry_width, patch_width, patch_count, k, index, patch, len);
    u64 bit = 0;
    for (u32 i = 0; i < len; i++, bit += width) {
        i128 v = (i128)base + (i128)lane_bits(s, data, bit, width);
        if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
        if ((u64)i == next) {
            v += (i128)patch << width;
            if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
            next = lane_next_patch(s, patches, entry_width, patch_width, patch_count, k, index, patch,
                                   len);
        }
        lane_emit(o, (u64)v);
    }
    s.pos += 4u + base_bytes + data_bytes + patch_bytes;
    return WZ_STATUS_OK;
}

template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_delta(LaneIn& s, LaneOut<T>& o, u32 need, u32 h0, u32 h1) {
    const u32 code = (h0 >> 1) & 0x1fu;
    const u32 width = code == 0u ? 0u : orc_decode_width(code);
    const u32 len = lane_v2_len(h0, h1);
    s.pos += 2u;
    u64 raw;
    u32 st = lane_varint(s, raw);
    if (st != WZ_STATUS_OK) return st;
    const i128 base = orc_stream_value<SIGNED>(raw);
    st = lane_varint(s, raw);
    if (st != WZ_STATUS_OK) return st;
    const i64 delta_base = orc_unzigzag(raw);
    if (width == 0u) return lane_linear_run<T, SIGNED>(o, need, base, delta_base, len);
    const u32 bytes = (width * (len >= 2u ? len - 2u : 0u) + 7u) >> 3;
    if (s.len - s.pos < bytes) return WZ_STATUS_TRUNCATED;
    if (lane_overflows(o.n, need, len)) return WZ_STATUS_OVERFLOW;
    i128 v = base;
    if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
    lane_emit(o, (u64)v);
    if (len >= 2u) {
        v += delta_base;
        if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
        lane_emit(o, (u64)v);
        const bool decreasing = delta_base < 0;
        const u8* data = s.in + s.pos;
        u64 bit = 0;
        for (u32 i = 2; i < len; i++, bit += width) {
            const i128 step = (i128)lane_bits(s, data, bit, width);
            v = decreasing ? v - step : v + step;
            if (!orc_fits_wide<T, SIGNED>(v)) return WZ_STATUS_CORRUPT;
            lane_emit(o, (u64)v);
        }
    }
    s.pos += bytes;
    return WZ_STATUS_OK;
}

template <typename T, bool SIGNED>
__device__ __forceinline__ u32 lane_group_v2(LaneIn& s, LaneOut<T>& o, u32 need) {
    const u32 h0 = s.in[s.pos];
    const u32 kind = h0 >> 6;
    if (kind == 0u) return lane_short_repeat<T, SIGNED>(s, o, need, h0);
    if (s.len - s.pos < 2u) return WZ_STATUS_TRUNCATED;
    const u32 h1 = s.in[s.pos + 1u];
    if (kind == 1u) return lane_direct<T, SIGNED>(s, o, need, h0, h1);
    if (kind == 2u) return lane_patched_base<T, SIGNED>(s, o, need, h0, h1);
    return lane_delta<T, SIGNED>(s, o, need, h0, h1);
}

// ---------------------------------------------------------------------------------------------
// Decodes one unit, a whole sub-block (skip 0, exact), on the calling lane alone, into `out_t`,
// and returns its status: groups are decoded until the stream ends; fewer values than the unit
// holds is UNDERFLOW, a group running past them OVERFLOW.
template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ u32 lane_decode_unit(const u8* in, const OrcRleChunk& c, T* out_t) {
    if (c.skip != 0u || c.exact == 0u) return WZ_STATUS_CORRUPT;
    LaneIn s = lane_in(in, c);
    LaneOut<T> o = lane_out<T>(out_t + c.out_offset);
    u32 st = WZ_STATUS_OK;
    while (s.pos < s.len) {
        st = V2 ? lane_group_v2<T, SIGNED>(s, o, c.count) : lane_group_v1<T, SIGNED>(s, o, c.count);
        if (st != WZ_STATUS_OK) break;
    }
    if (st == WZ_STATUS_OK) {
        lane_flush(o);
        if (o.n < c.count) st = WZ_STATUS_UNDERFLOW;
    }
    return st;
}
