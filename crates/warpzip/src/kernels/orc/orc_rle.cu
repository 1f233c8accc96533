// Apache ORC's run-length encodings decoded on the GPU with the CODAG framework: one warp per
// chunk (a `.wz` chunk or an ORC row group), all lanes decoding every group header together,
// and cooperating on the group's values: runs are written 32 values per step, literal varints
// are found 128 bytes at a time (the bytes that end a varint, four per lane), bit-packed values are
// unpacked one per lane, DELTA groups are summed with a warp scan, and PATCHED_BASE patches are
// applied one per lane. An RLEv1 unit short enough (a sub-block of layout 2) is first copied
// whole into the warp's shared memory and decoded there (`decode_v1_staged`), its literal
// varints a varint a lane. Results and verdicts match the CPU decoders of `codec::orc_rle`.
#include "framework/codag.cuh"
#include "orc/orc_int.cuh"

#define ORC_WARPS 4u  // warps per block

typedef CodagIn<CodagSmemWindow> OrcIn;

// ---------------------------------------------------------------------------------------------
// Integer RLE version 1.

// `len` literal varints, 128 input bytes per step, lane l holding bytes 4l..4l+3 of the step:
// every byte below 0x80 ends a varint. When every byte of the step up to the group's end is one
// (one-byte varints: small values) the values are the bytes, written 32 consecutive values per
// store after a shuffle; otherwise each lane decodes the varints that end in its four bytes,
// reading each (at most ten bytes) from the window, where its start is the previous varint's
// end (in the lane, or in the nearest earlier lane that holds an end).
template <typename T, bool SIGNED>
__device__ __forceinline__ void v1_literals(OrcIn& in, CodagOut<T>& out, u32 len) {
    const u32 lane = wz_lane();
    u32 left = len;
    while (left > 0 && in.ok()) {
        const u64 avail = in.remaining();
        const u32 lim = avail < 128ull ? (u32)avail : 128u;  // the step's bytes in the chunk
        in.ensure(128);
        const u64 abs = in.abs_byte();
        const u32 q = (u32)(abs >> 2);
        const u32 sh = (u32)(abs & 3ull) * 8u;
        const u32 word = __funnelshift_r(in.win.word(q + lane), in.win.word(q + lane + 1u), sh);
        const u32 rel = 4u * lane;
        const u32 nvalid = lim > rel ? min(lim - rel, 4u) : 0u;
        const u32 valid = nvalid == 4u ? 0xffffffffu : (1u << (8u * nvalid)) - 1u;
        const u32 ends = ~word & 0x80808080u & valid;
        // The group's values that are one byte long, from the step's first byte.
        const u32 want = left < lim ? left : lim;
        const u32 nwant = want > rel ? min(want - rel, 4u) : 0u;
        const u32 wanted = nwant == 4u ? 0x80808080u : ((1u << (8u * nwant)) - 1u) & 0x80808080u;
        if (__all_sync(WZ_FULL_MASK, (ends & wanted) == wanted) && want > 0u) {
            // Every wanted byte is a whole varint: value 32k + lane is byte (lane & 3) of lane
            // 8k + lane / 4.
#pragma unroll
            for (u32 k = 0; k < 4u; ++k) {
                const u32 w = __shfl_sync(WZ_FULL_MASK, word, 8u * k + (lane >> 2));
                const u32 b = (w >> (8u * (lane & 3u))) & 0x7fu;
                const u64 v = SIGNED ? (u64)((i64)(b >> 1) ^ -(i64)(b & 1u)) : (u64)b;
                const u32 i = 32u * k + lane;
                if (i < want) out.put(i, (T)v);  // a one-byte varint fits every type
            }
            out.advance(want);
            left -= want;
            in.skip_bytes(want);
            continue;
        }
        // Varint ends: which lanes hold them, and how many come before this lane's.
        const u32 b0 = __ballot_sync(WZ_FULL_MASK, (ends & 0x80u) != 0u);
        const u32 b1 = __ballot_sync(WZ_FULL_MASK, (ends & 0x8000u) != 0u);
        const u32 b2 = __ballot_sync(WZ_FULL_MASK, (ends & 0x800000u) != 0u);
        const u32 b3 = __ballot_sync(WZ_FULL_MASK, (ends & 0x80000000u) != 0u);
        const u32 total = __popc(b0) + __popc(b1) + __popc(b2) + __popc(b3);
        if (total == 0u) {
            // No varint ends in the next 128 bytes (or in what is left of the input).
            in.fail(avail < 10ull ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT);
            break;
        }
        const u32 lt = codag_lanemask_lt();
        const u32 before =
            __popc(b0 & lt) + __popc(b1 & lt) + __popc(b2 & lt) + __popc(b3 & lt);
        const u32 take = total < left ? total : left;
        // The last byte of this lane's last end; of the nearest earlier lane holding one.
        const u32 last = ends != 0u ? rel + ((31u - __clz(ends)) >> 3) : 0u;
        const u32 holders = (b0 | b1 | b2 | b3) & lt;
        const u32 src = holders != 0u ? 31u - __clz(holders) : lane;
        const u32 prev_last = __shfl_sync(WZ_FULL_MASK, last, src);
        // The byte that ends the last varint taken.
        const u32 cnt = __popc(ends);
        const bool has_last = before < take && before + cnt >= take;
        u32 stop = 0u;
        if (has_last) {
            u32 e = ends;
            for (u32 j = before + 1u; j < take; ++j) e &= e - 1u;
            stop = rel + ((__ffs(e) - 1u) >> 3);
        }
        const u32 stop_lane = __ballot_sync(WZ_FULL_MASK, has_last);
        stop = __shfl_sync(WZ_FULL_MASK, stop, __ffs(stop_lane) - 1u);
        bool bad = false;
        u32 first = holders != 0u ? prev_last + 1u : 0u;
        u32 idx = before;
        for (u32 e = ends; e != 0u && idx < take; e &= e - 1u, ++idx) {
            const u32 end_byte = rel + ((__ffs(e) - 1u) >> 3);
            const u32 n = end_byte - first + 1u;
            if (n > 10u) {
                bad = true;
                break;
            }
            const u64 at = abs + first;
            const u32 wq = (u32)(at >> 2);
            const u32 ws = (u32)(at & 3ull) * 8u;
            const u32 a = in.win.word(wq), bw = in.win.word(wq + 1u), c = in.win.word(wq + 2u);
            const u64 le = ((u64)__funnelshift_r(bw, c, ws) << 32) | __funnelshift_r(a, bw, ws);
            u64 raw = lane_varint_bits(le, n < 8u ? n : 8u);
            if (n > 8u) {
                const u32 hi = __funnelshift_r(c, in.win.word(wq + 3u), ws);
                raw |= (u64)(hi & 0x7fu) << 56;
                if (n == 10u) {
                    const u32 b9 = (hi >> 8) & 0xffu;
                    if (b9 > 1u) bad = true;
                    raw |= (u64)b9 << 63;
                }
            }
            const u64 value = SIGNED ? (u64)orc_unzigzag(raw) : raw;
            if (!orc_fits<T, SIGNED>(value)) bad = true;
            out.put(idx, (T)value);
            first = end_byte + 1u;
        }
        if (__ballot_sync(WZ_FULL_MASK, bad) != 0u) {
            in.fail(WZ_STATUS_CORRUPT);
            break;
        }
        out.advance(take);
        left -= take;
        in.skip_bytes(stop + 1u);  // through the last varint taken
    }
}

// Short runs and literal groups, one lane each (defined with the RLEv2 batches below).
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 v1_short_groups(OrcIn& in, CodagOut<T>& out);

// An RLEv1 run of `len` values (already reserved) from the raw base varint `raw`, each `delta`
// more than the last: CORRUPT on `out` when its first or last value does not fit T (then every
// value between does); false on that failure.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool v1_write_run(CodagOut<T>& out, u64 raw, i64 delta, u32 len) {
    const i128 base = orc_stream_value<SIGNED>(raw);
    if (!orc_fits_wide<T, SIGNED>(base) ||
        !orc_fits_wide<T, SIGNED>(base + (i128)delta * (i128)(len - 1))) {
        out.fail(WZ_STATUS_CORRUPT);
        return false;
    }
    out.write_run((u64)base, len, (u64)delta);
    return true;
}

// Groups decoded one at a time after a batch that held a single group, or found no short group
// (RLEv1 random or small values are long literal groups with the odd short run: there the
// attempts cost more than the batches save).
#define V1_BACKOFF 8u

template <typename T, bool SIGNED>
__device__ void decode_v1(OrcIn& in, CodagOut<T>& out) {
    u32 backoff = 0;
    while (in.ok() && out.ok() && !in.at_end() && !(out.done() && !out.exact)) {
        if (backoff == 0) {
            const u32 batch = v1_short_groups<T, SIGNED>(in, out);
            if (batch <= 1) backoff = V1_BACKOFF;
            if (batch > 0) continue;
        } else {
            --backoff;
        }
        const u32 control = in.fetch_byte();
        if (control < 0x80u) {
            // A run of control + 3 values, each `delta` (an i8) more than the last.
            const u32 len = control + 3u;
            const i64 delta = (i64)(signed char)(u8)in.fetch_byte();
            const u64 raw = in.fetch_varint();
            if (!in.ok() || !out.reserve(len)) break;
            if (!v1_write_run<T, SIGNED>(out, raw, delta, len)) break;
        } else {
            // 256 - control literal varints.
            const u32 len = 256u - control;
            if (!out.reserve(len)) break;
            v1_literals<T, SIGNED>(in, out, len);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// RLEv1 from a staged unit: a sub-block's whole stream (at most ORC_STAGE_BYTES, with the bytes
// before it in its first aligned 16) is copied into the warp's shared memory by one round of
// asynchronous 16-byte copies (`orc_stage_unit`), so the decoder never waits for a refill;
// then each lane notes which bytes of its 16 end a varint (are below 0x80) in a 16-bit mask.
// Literal groups are decoded 2048 bytes a step (`v1_staged_literals`): a warp scan of the
// lanes' counts of varint ends lists the ends in order, and lane l decodes varints l, l + 32,
// ... of the list, so every lane decodes as many and a round's stores are consecutive values.
// Every check of `decode_v1` is made, in the stream's order, so the status is the one it gives.

#define ORC_STAGE_BYTES 3072u
// A warp's stage: the stream, then 32 bytes that the word reads of its last varint may touch.
#define ORC_STAGE_ROW (ORC_STAGE_BYTES + 32u)

// Whether a unit's stream fits a stage (with up to 15 bytes before it in its first aligned 16).
__device__ __forceinline__ bool orc_stages(const OrcRleChunk& ch) {
    return ch.in_len <= ORC_STAGE_BYTES - 16u;
}

// Copies unit `ch`'s stream into the warp's `stage`: the bytes from its first aligned 16 on, as
// whole 16-byte words (inside the input's INPUT_SLACK padding past the last stream), with
// asynchronous copies that are all in flight at once. Returns the staged length (a multiple of
// 16); the stream starts at stage offset `ch.in_offset & 15`. Every lane calls it.
__device__ __forceinline__ u32 orc_stage_unit(const u8* in, const OrcRleChunk& ch, u8* stage) {
    const u32 head = (u32)(ch.in_offset & 15ull);
    const u32 span = (head + ch.in_len + 15u) & ~15u;
    const uint4* src = reinterpret_cast<const uint4*>(in + (ch.in_offset - head));
    __syncwarp();  // the last unit's reads of the stage are done
    for (u32 k = wz_lane(); k < span / 16u; k += 32u) {
        codag_cp_async16(stage + 16u * k, src + k);
    }
    codag_cp_async_commit();
    codag_cp_async_wait(0);
    __syncwarp();
    return span;
}

// Which of the 16 bytes of `v` end a varint (are below 0x80), as bits 0..15.
__device__ __forceinline__ u32 stage_stops16(uint4 v) {
    // The top bits of the bytes (7, 15, 23, 31), inverted, gathered at 28..31 by one multiply:
    // the shifted copies land on distinct bits below 28, so nothing carries into them.
    const u32 c = 0x204081u;
    return (((~v.x & 0x80808080u) * c) >> 28) | ((((~v.y & 0x80808080u) * c) >> 28) << 4) |
           ((((~v.z & 0x80808080u) * c) >> 28) << 8) | ((((~v.w & 0x80808080u) * c) >> 28) << 12);
}

// The low `n` (0..32) bits; the low `n` (0..64) bits.
__device__ __forceinline__ u32 stage_low_bits(u32 n) { return n >= 32u ? ~0u : (1u << n) - 1u; }
__device__ __forceinline__ u64 stage_low_bits64(u32 n) {
    return n >= 64u ? ~0ull : (1ull << n) - 1ull;
}

// The varint of `n` (1..10) bytes at stage offset `first`: its 64 bits, and `bad` set when a
// tenth byte is above 1. Read as 32-bit words (the stage is 16-byte aligned) with funnel shifts,
// seven bits a byte squeezed out of each half.
__device__ __forceinline__ u64 stage_varint_bits(const u8* st, u32 first, u32 n, bool& bad) {
    const u32* w = reinterpret_cast<const u32*>(st) + (first >> 2);
    const u32 sh = (first & 3u) * 8u;
    const u32 b = w[1], c = w[2];
    const u32 lo = __funnelshift_r(w[0], b, sh) & (n >= 4u ? ~0u : (1u << (8u * n)) - 1u);
    const u32 hi = n <= 4u ? 0u : __funnelshift_r(b, c, sh) & stage_low_bits(8u * (n - 4u));
    u64 raw = (u64)lane_varint_bits32(lo, 4u) | ((u64)lane_varint_bits32(hi, 4u) << 28);
    if (n > 8u) {
        const u32 x = __funnelshift_r(c, w[3], sh);
        raw |= (u64)(x & 0x7fu) << 56;
        if (n == 10u) {
            const u32 b9 = (x >> 8) & 0xffu;
            if (b9 > 1u) bad = true;
            raw |= (u64)b9 << 63;
        }
    }
    return raw;
}

// The varint at stage offset `q`, read by every lane alike: its length (1..10), or 0 with
// `status` set (TRUNCATED where the stream ends inside it, CORRUPT past ten bytes or a tenth
// byte above 1), as `CodagIn::fetch_varint` decides.
__device__ __forceinline__ u32 stage_varint(const u8* st, u32 q, u32 end, u64& v, u32& status) {
    v = 0ull;
    for (u32 i = 0; i < 10u; ++i) {
        if (q + i >= end) {
            status = WZ_STATUS_TRUNCATED;
            return 0u;
        }
        const u32 b = st[q + i];
        v |= (u64)(b & 0x7fu) << (7u * i);
        if (b < 0x80u) {
            if (i == 9u && b > 1u) {
                status = WZ_STATUS_CORRUPT;
                return 0u;
            }
            return i + 1u;
        }
    }
    status = WZ_STATUS_CORRUPT;
    return 0u;
}

// `left` (at most 128: one literal group) varints from stage offset `p` (moved past them);
// false with `status` set on a failure. A step reads the 2048 bytes from p's aligned 16 on
// (a group of 128 varints of up to 16 bytes), lane l the 64 bytes from 64l: each lane takes the
// masks of the bytes below 0x80 in its 64 (the varints' last bytes), a warp scan of their
// counts places them, and each lane lists its ends of the
// step's first `left` varints in `ends`. Then lane l decodes varints l, l + 32, ... from the
// list, so every lane decodes as many and the stores of a round are consecutive values.
template <typename T, bool SIGNED>
__device__ __forceinline__ bool v1_staged_literals(const u8* st, const u16* masks, u16* ends,
                                                   u32& p, u32 end, u32 left, CodagOut<T>& out,
                                                   u32& status) {
    const u32 lane = wz_lane();
    // Sub-blocks (exact, nothing skipped) were reserved whole: their values are stored straight.
    T* const dst = out.exact && out.skip == 0ull ? out.out : nullptr;
    while (left > 0u) {
        T* const at = dst != nullptr ? dst + out.pos : nullptr;
        const u32 kb = (p >> 4) + 4u * lane;  // this lane's 64 bytes: 16-byte blocks kb..kb + 3
        const u32 lo = 16u * kb;
        u64 m = (u64)((u32)masks[kb] | ((u32)masks[kb + 1u] << 16)) |
                ((u64)((u32)masks[kb + 2u] | ((u32)masks[kb + 3u] << 16)) << 32);
        // Only the bytes in [p, end) count.
        const u32 from = p > lo ? min(p - lo, 64u) : 0u;
        const u32 to = end > lo ? min(end - lo, 64u) : 0u;
        m &= stage_low_bits64(to) & ~stage_low_bits64(from);
        const u32 cnt = __popcll(m);
        u32 inc = cnt;
#pragma unroll
        for (u32 d = 1u; d < 32u; d <<= 1) {
            const u32 t = __shfl_up_sync(WZ_FULL_MASK, inc, d);
            if (lane >= d) inc += t;
        }
        const u32 total = __shfl_sync(WZ_FULL_MASK, inc, 31);
        if (total == 0u) {
            // No varint ends in the next 2048 bytes or before the stream's end.
            status = end - p < 10u ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT;
            return false;
        }
        const u32 take = total < left ? total : left;
        u32 idx = inc - cnt;
        for (u64 e = m; e != 0ull && idx < take; e &= e - 1ull, ++idx) {
            ends[idx] = (u16)(lo + __ffsll(e) - 1u);
        }
        __syncwarp();
        bool bad = false;
        for (u32 k = lane; k < take; k += 32u) {
            const u32 last = ends[k];
            const u32 first = k == 0u ? p : (u32)ends[k - 1u] + 1u;
            const u32 n = last - first + 1u;
            if (n > 10u) {
                bad = true;
                continue;
            }
            const u64 raw = stage_varint_bits(st, first, n, bad);
            const u64 value = SIGNED ? (u64)orc_unzigzag(raw) : raw;
            if (!orc_fits<T, SIGNED>(value)) bad = true;
            if (dst != nullptr) {
                at[k] = (T)value;
            } else {
                out.put(k, (T)value);
            }
        }
        const u32 stop = ends[take - 1u];
        __syncwarp();  // the list is read before the next step writes it
        if (__ballot_sync(WZ_FULL_MASK, bad) != 0u) {
            status = WZ_STATUS_CORRUPT;
            return false;
        }
        out.advance(take);
        left -= take;
        p = stop + 1u;
    }
    return true;
}

// Decodes the staged stream [p, end) of a warp's stage (`span` bytes staged) into `out`; the
// unit's status, as `decode_v1` and `orc_finish` give it.
template <typename T, bool SIGNED>
__device__ u32 decode_v1_staged(const u8* st, const u16* masks, u16* ends, u32 p, u32 end,
                                CodagOut<T>& out) {
    u32 status = WZ_STATUS_OK;
    while (status == WZ_STATUS_OK && out.ok() && p < end && !(out.done() && !out.exact)) {
        const u32 control = st[p++];
        if (control < 0x80u) {
            // A run of control + 3 values, each `delta` (an i8) more than the last.
            const u32 len = control + 3u;
            if (p >= end) {
                status = WZ_STATUS_TRUNCATED;
                break;
            }
            const i64 delta = (i64)(signed char)st[p++];
            u64 raw = 0ull;
            const u32 n = stage_varint(st, p, end, raw, status);
            if (n == 0u) break;
            p += n;
            if (!out.reserve(len)) break;
            if (!v1_write_run<T, SIGNED>(out, raw, delta, len)) break;
        } else {
            const u32 len = 256u - control;
            if (!out.reserve(len)) break;
            if (!v1_staged_literals<T, SIGNED>(st, masks, ends, p, end, len, out, status)) break;
        }
    }
    if (status != WZ_STATUS_OK) return status;
    if (out.status != WZ_STATUS_OK) return out.status;
    if (!out.done()) return out.exact ? WZ_STATUS_UNDERFLOW : WZ_STATUS_TRUNCATED;
    return WZ_STATUS_OK;
}

// ---------------------------------------------------------------------------------------------
// Integer RLE version 2.

// The 9-bit length of DIRECT, PATCHED_BASE and DELTA headers, plus one.
__device__ __forceinline__ u32 v2_len(u32 b0, u32 b1) { return (((b0 & 1u) << 8) | b1) + 1u; }

template <typename T, bool SIGNED>
__device__ __forceinline__ void v2_short_repeat(OrcIn& in, CodagOut<T>& out, u32 h) {
    const u32 width = ((h >> 3) & 7u) + 1u;
    const u32 count = (h & 7u) + 3u;
    const u64 raw = in.fetch_be(width);
    if (!in.ok()) return;
    const u64 v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
    if (!orc_fits<T, SIGNED>(v)) {
        out.fail(WZ_STATUS_CORRUPT);
        return;
    }
    if (!out.reserve(count)) return;
    out.write_run(v, count, 0);
}

template <typename T, bool SIGNED>
__device__ __forceinline__ void v2_direct(OrcIn& in, CodagOut<T>& out, u32 h) {
    const u32 b1 = in.fetch_byte();
    const u32 width = orc_decode_width(h >> 1);
    const u32 len = v2_len(h, b1);
    const u64 bits = (u64)width * len;
    if (!in.has_bits((bits + 7ull) & ~7ull) || !out.reserve(len)) return;
    bool bad = false;
    for (u32 i = wz_lane(); i < len; i += 32) {
        const u64 raw = in.lane_bits_be((u64)i * width, width);
        const u64 v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
        bad |= !orc_fits<T, SIGNED>(v);
        out.put(i, (T)v);
    }
    if (__ballot_sync(WZ_FULL_MASK, bad)) {
        out.fail(WZ_STATUS_CORRUPT);
        return;
    }
    out.advance(len);
    in.skip_bytes((bits + 7ull) >> 3);
}

template <typename T, bool SIGNED>
__device__ __forceinline__ void v2_patched_base(OrcIn& in, CodagOut<T>& out, u32 h) {
    const u32 b1 = in.fetch_byte();
    const u32 b2 = in.fetch_byte();
    const u32 b3 = in.fetch_byte();
    if (!in.ok()) return;
    const u32 width = orc_decode_width(h >> 1);
    const u32 len = v2_len(h, b1);
    const u32 base_bytes = (b2 >> 5) + 1u;
    const u32 patch_width = orc_decode_width(b2);
    const u32 gap_width = (b3 >> 5) + 1u;
    const u32 patches = b3 & 31u;
    if (gap_width + patch_width > 64u) {
        in.fail(WZ_STATUS_CORRUPT);
        return;
    }
    // The base: sign and magnitude, the top bit of its bytes the sign.
    const u64 base_raw = in.fetch_be(base_bytes);
    const u64 sign = 1ull << (base_bytes * 8u - 1u);
    const i128 base = (base_raw & sign) ? -(i128)(base_raw & ~sign) : (i128)base_raw;
    const u64 value_bits = (((u64)width * len) + 7ull) & ~7ull;
    const u32 entry_width = orc_closest_fixed_width(gap_width + patch_width);
    const u64 entry_bits = (((u64)entry_width * patches) + 7ull) & ~7ull;
    if (!in.has_bits(value_bits + entry_bits) || !out.reserve(len)) return;
    // Unpatched values first, every one range-checked (as the CPU does).
    bool bad = false;
    for (u32 i = wz_lane(); i < len; i += 32) {
        const i128 v = base + (i128)in.lane_bits_be((u64)i * width, width);
        bad |= !orc_fits_wide<T, SIGNED>(v);
        out.put(i, (T)(u64)v);
    }
    if (__ballot_sync(WZ_FULL_MASK, bad)) {
        out.fail(WZ_STATUS_CORRUPT);
        return;
    }
    // Patches, one per lane: an entry's index is the sum of the gaps up to it; an entry with gap
    // 255 and patch 0 only moves the index on; two patches at one index are corrupt.
    const u32 lane = wz_lane();
    u64 entry = 0;
    if (lane < patches) entry = in.lane_bits_be(value_bits + (u64)lane * entry_width, entry_width);
    const u64 patch_mask = patch_width == 64u ? ~0ull : ((1ull << patch_width) - 1ull);
    const u32 gap = (u32)(entry >> patch_width);
    const u64 patch = entry & patch_mask;
    const bool filler = gap == 255u && patch == 0;
    const u32 index = wz_warp_inclusive_sum(lane < patches ? gap : 0u);
    const bool prev_real = __shfl_up_sync(WZ_FULL_MASK, (u32)!filler, 1) != 0;
    const bool real = lane < patches && !filler;
    bad = real && (index >= len || (gap == 0 && lane > 0 && prev_real));
    // Values written by other lanes above must land before the patches overwrite them.
    __syncwarp();
    if (real && !bad) {
        const unsigned __int128 v = in.lane_bits_be((u64)index * width, width);
        const unsigned __int128 patched = v | ((unsigned __int128)patch << width);
        if (patched >> 127) {
            bad = true;
        } else {
            const i128 value = base + (i128)patched;
            bad = !orc_fits_wide<T, SIGNED>(value);
            if (!bad) out.put(index, (T)(u64)value);
        }
    }
    if (__ballot_sync(WZ_FULL_MASK, bad)) {
        out.fail(WZ_STATUS_CORRUPT);
        return;
    }
    out.advance(len);
    in.skip_bytes((value_bits + entry_bits) >> 3);
}

// A warp-wide inclusive scan of u64 values that also reports whether any prefix overflowed.
__device__ __forceinline__ u64 v2_scan_checked(u64 v, bool& overflow) {
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const u64 o = __shfl_up_sync(WZ_FULL_MASK, v, d);
        const bool of = __shfl_up_sync(WZ_FULL_MASK, overflow, d);
        if ((int)wz_lane() >= d) {
            overflow |= of | (v + o < v);
            v += o;
        }
    }
    return v;
}

template <typename T, bool SIGNED>
__device__ __forceinline__ void v2_delta(OrcIn& in, CodagOut<T>& out, u32 h) {
    const u32 b1 = in.fetch_byte();
    const u32 code = (h >> 1) & 31u;
    const u32 width = code == 0 ? 0u : orc_decode_width(code);
    const u32 len = v2_len(h, b1);
    const i128 base = orc_stream_value<SIGNED>(in.fetch_varint());
    const i128 delta_base = (i128)orc_unzigzag(in.fetch_varint());
    if (!in.ok()) return;
    if (width == 0) {
        // A fixed delta: the values are linear, so the first and last bound them all.
        if (!out.reserve(len)) return;
        if (!orc_fits_wide<T, SIGNED>(base) ||
            !orc_fits_wide<T, SIGNED>(base + delta_base * (i128)(len - 1))) {
            out.fail(WZ_STATUS_CORRUPT);
            return;
        }
        out.write_run((u64)base, len, (u64)delta_base);
        return;
    }
    const u32 steps = len > 2u ? len - 2u : 0u;
    const u64 bits = (((u64)width * steps) + 7ull) & ~7ull;
    if (!in.has_bits(bits) || !out.reserve(len)) return;
    // Value k is base, then base + delta_base, then each next one step (an unsigned delta of
    // `width` bits) further in delta_base's direction.
    const bool down = delta_base < 0;
    u64 carry = 0;
    bool carry_over = false, bad = false;
    for (u32 k0 = 0; k0 < len; k0 += 32) {
        const u32 k = k0 + wz_lane();
        const u64 step = (k >= 2u && k < len) ? in.lane_bits_be((u64)(k - 2u) * width, width) : 0;
        bool over = false;
        const u64 sum = v2_scan_checked(step, over);
        const u64 total = carry + sum;
        over |= carry_over | (total < carry);
        if (k < len) {
            const i128 first = k == 0 ? base : base + delta_base;
            const i128 v = down ? first - (i128)total : first + (i128)total;
            const bool fits = !over && orc_fits_wide<T, SIGNED>(v);
            bad |= !fits;
            if (fits) out.put(k, (T)(u64)v);
        }
        carry = __shfl_sync(WZ_FULL_MASK, total, 31);
        carry_over = __shfl_sync(WZ_FULL_MASK, over, 31);
    }
    if (__ballot_sync(WZ_FULL_MASK, bad)) {
        out.fail(WZ_STATUS_CORRUPT);
        return;
    }
    out.advance(len);
    in.skip_bytes(bits >> 3);
}

// ---- Short groups, one lane each ----
// Sorted keys and dates with a few repeats are written as groups of 1 to 10 values, and decoding
// them one after the other, with all 32 lanes on each header, leaves the warp waiting on a
// serial chain of header reads. Instead every lane parses a header as if a group started at its
// byte of the next 32, the real group starts are found by following the byte lengths from lane
// 0 (one shuffle per group), and each lane that holds a real short group decodes it alone from
// the window: SHORT_REPEAT, and DIRECT and DELTA groups of at most 32 values that lie inside the
// next 128 bytes. Anything else (long groups, PATCHED_BASE, a group the input cuts short) ends
// the batch and is decoded by the cooperative code above, which also reports its errors.

#define V2_LANE_MAX 32u  // most values a lane decodes alone

// A varint inside the window at `*at` (absolute), no further than `end`; false if it does not
// end there within ten bytes or is too long for 64 bits. Per lane. (RLEv1 batches too.)
__device__ __forceinline__ bool orc_window_varint(const OrcIn& in, u64& at, u64 end, u64& v) {
    v = 0;
    for (u32 i = 0; i < 10u; ++i) {
        if (at + i >= end) return false;
        const u32 byte = in.window_byte(at + i);
        v |= (u64)(byte & 0x7fu) << (7u * i);
        if (byte < 0x80u) {
            if (i == 9 && byte > 1u) return false;
            at += i + 1;
            return true;
        }
    }
    return false;
}

// The real groups of a lane-per-group batch (RLEv1 and RLEv2). Every lane has parsed a
// candidate group at its byte of the batch: `fits` (one a lane decodes alone), `next` (the byte
// after it, relative to the batch) and `len` (its values). The chain of group starts is
// followed from lane 0, one shuffle per group; a row group (not exact) keeps only the groups
// that start before its last wanted value, so later groups are not touched.
struct OrcLaneBatch {
    u32 starts;  // lanes holding a real group (0: no batch here)
    u32 bytes;   // bytes the batch consumes
    u32 first;   // this lane's first value in the batch
    u32 total;   // values in the batch
    bool mine;   // this lane holds a real group
};

template <typename T>
__device__ __forceinline__ OrcLaneBatch orc_lane_batch(const CodagOut<T>& out, bool fits, u32 next,
                                                       u32 len) {
    OrcLaneBatch b;
    u32 starts = 0, k = 0;
    while (k < 32u) {
        if (!__shfl_sync(WZ_FULL_MASK, fits, k)) break;
        starts |= 1u << k;
        k = __shfl_sync(WZ_FULL_MASK, next, k);
    }
    bool mine = (starts >> wz_lane()) & 1u;
    u32 count = mine ? len : 0u;
    u32 incl = wz_warp_inclusive_sum(count);
    if (starts != 0 && !out.exact) {
        const u64 need = out.limit - out.pos;
        const u32 keep = __ballot_sync(WZ_FULL_MASK, mine && (u64)(incl - count) < need);
        if (keep != starts) {
            starts = keep;
            k = __shfl_sync(WZ_FULL_MASK, next, 31u - __clz(keep));
            mine = (starts >> wz_lane()) & 1u;
            count = mine ? len : 0u;
            incl = wz_warp_inclusive_sum(count);
        }
    }
    b.starts = starts;
    b.bytes = k;
    b.first = incl - count;
    b.total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    b.mine = mine;
    return b;
}

// Ends a lane-per-group batch: a failed check in any lane is CORRUPT (and the batch returns 1);
// otherwise its values and bytes are consumed and its group count returned.
template <typename T>
__device__ __forceinline__ u32 orc_lane_batch_end(OrcIn& in, CodagOut<T>& out,
                                                  const OrcLaneBatch& b, bool bad) {
    if (__ballot_sync(WZ_FULL_MASK, bad)) {
        out.fail(WZ_STATUS_CORRUPT);
        return 1;
    }
    out.advance(b.total);
    in.skip_bytes(b.bytes);
    return __popc(b.starts);
}

// Decodes a batch of short groups from the current byte and returns how many it decoded: 0
// (nothing consumed) when the group there is not one. After a failed check it returns 1 with the
// status recorded.
template <typename T, bool SIGNED>
__device__ __forceinline__ u32 v2_short_groups(OrcIn& in, CodagOut<T>& out) {
    const u64 left = in.remaining();
    if (left < 2ull) return 0;
    // A long group or PATCHED_BASE here: leave it to the cooperative code at once, so that
    // columns of long groups pay two window reads for the attempt.
    in.ensure(2);
    const u32 h0 = in.window_byte(in.abs_byte());
    const u32 h1 = in.window_byte(in.abs_byte() + 1);
    if ((h0 >> 6) == 2u || ((h0 >> 6) != 0u && v2_len(h0, h1) > V2_LANE_MAX)) return 0;
    const u64 avail = left < 128ull ? left : 128ull;
    in.ensure(128);
    const u64 base = in.abs_byte();
    const u64 end = base + avail;
    const u32 lane = wz_lane();
    const u64 at0 = base + lane;
    // Parse a header as if a group started at this lane's byte.
    const u32 b0 = in.window_byte(at0);
    const u32 b1 = in.window_byte(at0 + 1);
    const u32 type = b0 >> 6;
    u32 len = 0, width = 0;
    u64 after = 0;  // absolute end of the group
    u64 dbase = 0, ddelta = 0;
    bool fits = false;
    if (lane < avail) {
        if (type == 0) {
            width = ((b0 >> 3) & 7u) + 1u;  // bytes
            len = (b0 & 7u) + 3u;
            after = at0 + 1 + width;
            fits = true;
        } else if (type == 1) {
            width = orc_decode_width(b0 >> 1);
            len = v2_len(b0, b1);
            after = at0 + 2 + (((u64)width * len + 7ull) >> 3);
            fits = len <= V2_LANE_MAX;
        } else if (type == 3) {
            const u32 code = (b0 >> 1) & 31u;
            width = code == 0 ? 0u : orc_decode_width(code);
            len = v2_len(b0, b1);
            u64 at = at0 + 2;
            fits = len <= V2_LANE_MAX && orc_window_varint(in, at, end, dbase) &&
                   orc_window_varint(in, at, end, ddelta);
            const u32 steps = len > 2u ? len - 2u : 0u;
            after = at + (width == 0 ? 0ull : (((u64)width * steps + 7ull) >> 3));
        }
        fits = fits && after <= end;
    }
    const OrcLaneBatch batch = orc_lane_batch(out, fits, fits ? (u32)(after - base) : 0u, len);
    if (batch.starts == 0) return 0;
    if (!out.reserve(batch.total)) return 1;
    const u32 first = batch.first;
    bool bad = false;
    if (batch.mine) {
        if (type == 0) {
            u64 raw = 0;
            for (u32 i = 0; i < width; ++i) {
                const u64 a = at0 + 1 + i;
                raw = (raw << 8) | ((in.win.word((u32)(a >> 2)) >> ((a & 3ull) * 8u)) & 0xffu);
            }
            const u64 v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
            bad = !orc_fits<T, SIGNED>(v);
            for (u32 i = 0; i < len; ++i) out.put(first + i, (T)v);
        } else if (type == 1) {
            const u64 bit0 = (at0 + 2) * 8ull;
            for (u32 i = 0; i < len; ++i) {
                const u64 raw = in.window_bits_be(bit0 + (u64)i * width, width);
                const u64 v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
                bad |= !orc_fits<T, SIGNED>(v);
                out.put(first + i, (T)v);
            }
        } else {
            const i128 b = orc_stream_value<SIGNED>(dbase);
            const i128 d = (i128)orc_unzigzag(ddelta);
            // The deltas follow the two varints: `after` minus their packed bytes.
            const u32 steps = len > 2u ? len - 2u : 0u;
            const u64 bit0 = (after - (width == 0 ? 0ull : (((u64)width * steps + 7ull) >> 3))) * 8ull;
            i128 v = b;
            for (u32 i = 0; i < len; ++i) {
                if (i == 1) {
                    v += d;
                } else if (i >= 2) {
                    if (width == 0) {
                        v += d;
                    } else {
                        const u64 at = bit0 + (u64)(i - 2) * width;
                        const i128 step = (i128)in.window_bits_be(at, width);
                        v = d < 0 ? v - step : v + step;
                    }
                }
                bad |= !orc_fits_wide<T, SIGNED>(v);
                out.put(first + i, (T)(u64)v);
            }
        }
    }
    return orc_lane_batch_end(in, out, batch, bad);
}

// ---- RLEv1 short groups, one lane each ----
// The same batches for version 1: every lane parses a group as if it started at its byte of the
// next 32: a run (control < 128: control + 3 values, a delta byte, a base varint) of at most
// V1_LANE_RUN values, or a literal group (256 - control varints) of at most V1_LANE_LITERALS
// values, that ends within the next 128 bytes with well-formed varints. The real starts are
// followed from lane 0, and each lane holding one decodes it alone; anything else ends the batch
// and goes to the cooperative code above, which also reports errors.

#define V1_LANE_RUN 32u
#define V1_LANE_LITERALS 8u

template <typename T, bool SIGNED>
__device__ __forceinline__ u32 v1_short_groups(OrcIn& in, CodagOut<T>& out) {
    const u64 left = in.remaining();
    if (left < 2ull) return 0;
    // A long run or literal group here goes to the cooperative code at once.
    in.ensure(1);
    const u32 c0 = in.window_byte(in.abs_byte());
    if (c0 < 0x80u ? c0 + 3u > V1_LANE_RUN : 256u - c0 > V1_LANE_LITERALS) return 0;
    const u64 avail = left < 128ull ? left : 128ull;
    in.ensure(128);
    const u64 base = in.abs_byte();
    const u64 end = base + avail;
    const u32 lane = wz_lane();
    const u64 at0 = base + lane;
    const u32 control = in.window_byte(at0);
    u32 len = 0;
    u64 after = 0, run_base = 0;  // a run's base varint
    bool fits = false;
    if (lane < avail) {
        if (control < 0x80u) {
            len = control + 3u;
            after = at0 + 2;
            fits = len <= V1_LANE_RUN && orc_window_varint(in, after, end, run_base);
        } else {
            len = 256u - control;
            after = at0 + 1;
            fits = len <= V1_LANE_LITERALS;
            u64 v = 0;
            for (u32 k = 0; k < len && fits; ++k) fits = orc_window_varint(in, after, end, v);
        }
        fits = fits && after <= end;
    }
    const OrcLaneBatch batch = orc_lane_batch(out, fits, fits ? (u32)(after - base) : 0u, len);
    if (batch.starts == 0) return 0;
    if (!out.reserve(batch.total)) return 1;
    const u32 first = batch.first;
    bool bad = false;
    if (batch.mine) {
        if (control < 0x80u) {
            const i64 delta = (i64)(signed char)(u8)in.window_byte(at0 + 1);
            const i128 b = orc_stream_value<SIGNED>(run_base);
            bad = !orc_fits_wide<T, SIGNED>(b) ||
                  !orc_fits_wide<T, SIGNED>(b + (i128)delta * (i128)(len - 1));
            for (u32 i = 0; i < len; ++i) out.put(first + i, (T)((u64)b + (u64)(delta * (i64)i)));
        } else {
            u64 q = at0 + 1;
            for (u32 i = 0; i < len; ++i) {
                u64 raw = 0;
                orc_window_varint(in, q, end, raw);  // parsed above: it ends and fits
                const u64 v = SIGNED ? (u64)orc_unzigzag(raw) : raw;
                bad |= !orc_fits<T, SIGNED>(v);
                out.put(first + i, (T)v);
            }
        }
    }
    return orc_lane_batch_end(in, out, batch, bad);
}

// Groups decoded one at a time after a batch that held a single short group: where short
// groups sit between long ones (small random values with the odd repeat), the batch costs more
// than it saves.
#define V2_BACKOFF 8u

template <typename T, bool SIGNED>
__device__ void decode_v2(OrcIn& in, CodagOut<T>& out) {
    u32 backoff = 0;
    while (in.ok() && out.ok() && !in.at_end() && !(out.done() && !out.exact)) {
        if (backoff == 0) {
            const u32 batch = v2_short_groups<T, SIGNED>(in, out);
            if (batch == 1) backoff = V2_BACKOFF;
            if (batch > 0) continue;
        } else {
            --backoff;
        }
        const u32 h = in.fetch_byte();
        switch (h >> 6) {
            case 0: v2_short_repeat<T, SIGNED>(in, out, h); break;
            case 1: v2_direct<T, SIGNED>(in, out, h); break;
            case 2: v2_patched_base<T, SIGNED>(in, out, h); break;
            default: v2_delta<T, SIGNED>(in, out, h); break;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Byte RLE (tinyint columns, and the bytes of Boolean RLE).

__device__ void decode_byte_rle(OrcIn& in, CodagOut<u8>& out) {
    while (in.ok() && out.ok() && !in.at_end() && !(out.done() && !out.exact)) {
        const u32 control = in.fetch_byte();
        if (control < 0x80u) {
            const u32 len = control + 3u;
            const u32 value = in.fetch_byte();
            if (!in.ok() || !out.reserve(len)) break;
            out.write_run(value, len, 0);
        } else {
            const u32 len = 256u - control;
            if (!in.has_bits((u64)len * 8ull) || !out.reserve(len)) break;
            in.ensure(len);
            for (u32 i0 = 0; i0 < len; i0 += 32) {
                const u32 i = i0 + wz_lane();
                const u32 b = in.window_byte(in.abs_byte() + i);  // warp-wide read
                if (i < len) out.put(i, (u8)b);
            }
            out.advance(len);
            in.skip_bytes(len);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Kernels: a persistent grid of ORC_WARPS-warp blocks; each warp takes chunks until none are
// left.

// The chunk's final status: the stream ending before every wanted value is UNDERFLOW in exact
// mode (a `.wz` chunk) and TRUNCATED for a row group (its stream goes on in a valid file).
template <typename T>
__device__ __forceinline__ u32 orc_finish(const OrcIn& in, const CodagOut<T>& out) {
    const u32 s = codag_status(in, out);
    if (s != WZ_STATUS_OK) return s;
    if (!out.done()) return out.exact ? WZ_STATUS_UNDERFLOW : WZ_STATUS_TRUNCATED;
    return WZ_STATUS_OK;
}

// The persistent warp loop of a decoder that reads each chunk through the two-slot window:
// `decode(s, o)` decodes one chunk's stream `s` into `o`, values of T (RLEv2, Byte RLE).
template <typename T, typename Decode>
__device__ __forceinline__ void orc_window_warp(ORC_KERNEL_PARAMS, Decode decode) {
    __shared__ u32 windows[ORC_WARPS][64];
    CodagSmemWindow window(windows[threadIdx.x / 32u]);
    for (u32 c = codag_next_chunk(next_chunk); c < n_chunks; c = codag_next_chunk(next_chunk)) {
        const OrcRleChunk ch = chunks[c];
        OrcIn s(in, ch.in_offset, ch.in_len, window);
        CodagOut<T> o(reinterpret_cast<T*>(out) + ch.out_offset, ch.skip, ch.count, ch.exact != 0);
        decode(s, o);
        const u32 st = orc_finish(s, o);
        if (wz_lane() == 0) status[c] = st;
    }
}

// RLEv1: a unit whose stream fits ORC_STAGE_BYTES (a sub-block) is staged and decoded by
// `decode_v1_staged`; a longer one (a whole chunk) reads through the two-slot window.
template <typename T, bool SIGNED>
__device__ void orc_v1_warp(ORC_KERNEL_PARAMS) {
    __shared__ u32 windows[ORC_WARPS][64];
    __shared__ __align__(16) u8 stages[ORC_WARPS][ORC_STAGE_ROW];
    __shared__ u16 ends[ORC_WARPS][128];
    __shared__ u16 masks[ORC_WARPS][ORC_STAGE_BYTES / 16u + 128u];
    const u32 warp = threadIdx.x / 32u;
    CodagSmemWindow window(windows[warp]);
    u8* stage = stages[warp];
    for (u32 c = codag_next_chunk(next_chunk); c < n_chunks; c = codag_next_chunk(next_chunk)) {
        const OrcRleChunk ch = chunks[c];
        CodagOut<T> o(reinterpret_cast<T*>(out) + ch.out_offset, ch.skip, ch.count, ch.exact != 0);
        u32 st;
        if (orc_stages(ch)) {
            const u32 span = orc_stage_unit(in, ch, stage);
            // Each lane's 16-byte pieces' masks of varint ends.
            for (u32 k = wz_lane(); k < span / 16u; k += 32u) {
                masks[warp][k] = (u16)stage_stops16(reinterpret_cast<const uint4*>(stage)[k]);
            }
            __syncwarp();
            const u32 head = (u32)(ch.in_offset & 15ull);
            st = decode_v1_staged<T, SIGNED>(stage, masks[warp], ends[warp], head, head + ch.in_len, o);
        } else {
            OrcIn s(in, ch.in_offset, ch.in_len, window);
            decode_v1<T, SIGNED>(s, o);
            st = orc_finish(s, o);
        }
        if (wz_lane() == 0) status[c] = st;
    }
}
// RLEv2 reads the input through the two-slot window and per-lane field reads from global
// memory. (Staging its sub-blocks as RLEv1's are, with `decode_v2` reading the stage through the
// same `CodagIn`, measured 1210 -> 953 GB/s on random values.)
template <typename T, bool SIGNED>
__device__ void orc_v2_warp(ORC_KERNEL_PARAMS) {
    orc_window_warp<T>(ORC_KERNEL_ARGS,
                       [](OrcIn& s, CodagOut<T>& o) { decode_v2<T, SIGNED>(s, o); });
}

// The module is built twice (gpu/kernels.rs): as it stands, with every entry point but the
// 6-block ones; and with ORC_RLE_RG6 defined (`-DORC_RLE_RG6=1`), with the 6-block ones alone.
#ifndef ORC_RLE_RG6
ORC_INT_KERNELS(orc_rle_v1, orc_v1_warp)
ORC_INT_KERNELS(orc_rle_v2, orc_v2_warp)

extern "C" __global__ void orc_byte_rle(ORC_KERNEL_PARAMS) {
    orc_window_warp<u8>(ORC_KERNEL_ARGS, [](OrcIn& s, CodagOut<u8>& o) { decode_byte_rle(s, o); });
}
#endif

// ---------------------------------------------------------------------------------------------
// ORC columns (row groups of real files): a warp per row group (`orc_group.cuh`) or a block per
// row group (`orc_rg_stage.cuh`, `orc_rg_regions.cuh`, `orc_rg_split.cuh`, `orc_rg_blocks.cuh`).
#include "orc/orc_group.cuh"
#include "orc/orc_rg_stage.cuh"
#include "orc/orc_rg_regions.cuh"
#include "orc/orc_rg_split.cuh"
#include "orc/orc_rg_blocks.cuh"

#ifndef ORC_RLE_RG6
extern "C" __global__ void orc_col_bool(ORC_COLUMN_PARAMS) {
    orc_column_groups<u8, ORC_KIND_BOOL>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_byte(ORC_COLUMN_PARAMS) {
    orc_column_groups<u8, ORC_KIND_BYTE>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i16(ORC_COLUMN_PARAMS) {
    orc_column_groups<u16, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i32(ORC_COLUMN_PARAMS) {
    orc_column_groups<u32, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v1_i64(ORC_COLUMN_PARAMS) {
    orc_column_groups<u64, ORC_KIND_V1>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i16(ORC_COLUMN_PARAMS) {
    orc_column_groups<u16, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i32(ORC_COLUMN_PARAMS) {
    orc_column_groups<u32, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}
extern "C" __global__ void orc_col_v2_i64(ORC_COLUMN_PARAMS) {
    orc_column_groups<u64, ORC_KIND_V2>(ORC_COLUMN_ARGS);
}

// 5 blocks an SM (96 registers): the 601 row groups of a TPC-H SF 1 stripe in one wave, where
// each row group's own time sets the column's.
ORC_RG_KERNEL(orc_rg_v1_i16, u16, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v1_i32, u32, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v1_i64, u64, ORC_KIND_V1, 5)
ORC_RG_KERNEL(orc_rg_v2_i16, u16, ORC_KIND_V2, 5)
ORC_RG_KERNEL(orc_rg_v2_i32, u32, ORC_KIND_V2, 5)
ORC_RG_KERNEL(orc_rg_v2_i64, u64, ORC_KIND_V2, 5)
#else
// RLEv2 with 6 blocks an SM (80 registers), in a module of their own (this source with
// ORC_RLE_RG6) so that a decode that never needs them never compiles them: batches of more row
// groups than one wave of the above, where the SM's throughput sets the column's time (H200,
// TPC-H SF 12: 5-8% faster on RLEv2 columns, SF 2 up to 5%; 1.5-3% slower than the above on
// SF 1's one wave). Not RLEv1: its keys lost 5% at SF 2 and gained nothing at SF 12.
ORC_RG_KERNEL(orc_rg6_v2_i16, u16, ORC_KIND_V2, 6)
ORC_RG_KERNEL(orc_rg6_v2_i32, u32, ORC_KIND_V2, 6)
ORC_RG_KERNEL(orc_rg6_v2_i64, u64, ORC_KIND_V2, 6)
#endif
