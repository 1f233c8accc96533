// Byte run-length encoding (codec `rle`, token layout 2: codec/rle/format.rs and
// docs/format.md). A segment is its token count (u16), the tokens' payloads, then one control
// byte per token. One warp per 4096-byte segment. The encoder stages the segment in shared
// memory, finds the canonical tokens with bitmaps (run heads, bytes inside runs, token-group
// starts), and lets lane l own bytes [128 l, 128 l + 128): its control and payload byte counts
// come in closed form from popcounts, so the segment's size is published to the decoupled
// look-back before any token is written; then every lane writes the run tokens that start in
// its bytes and copies the literal bytes that lie there (with the control bytes of the
// literal pieces that start there), whichever lane's token they belong to. The decoder reads
// 64 controls at a time, two warp scans giving every token's payload and output offsets, maps
// where tokens start, then writes 16-byte output units (rle_decode_mapped).
#include "framework/common.cuh"

#define RLE_SEG 4096u
#define RLE_WORDS (RLE_SEG / 32u)
// A segment's token count, then at most one control byte per 128 literal bytes.
#define RLE_HEADER 2u
#define RLE_MAX_SEG_OUT (RLE_HEADER + RLE_SEG + RLE_SEG / 128u)
#define RLE_ENC_WARPS 2
// Offsets and sizes in the encoder are packed: control bytes in the high 16 bits, payload
// bytes in the low 16 (a segment has fewer than 2^16 of each, so sums never carry across).
#define RLE_CTRL1 0x10000u

// The segment's bytes in shared memory: byte p sits in word (p / 4) + (p / 128), one pad word
// after every 128 bytes, so that lanes reading their own 128-byte ranges hit distinct banks.
#define RLE_IN_WORDS (RLE_WORDS * 8u + RLE_WORDS / 4u + 4u)

// The encoded segment in shared memory has its words swizzled: word i sits at i ^ (i / 32 % 32),
// a permutation inside every 128-byte row. Lanes copying their literal bytes write at offsets
// 128 bytes apart, which would otherwise all fall in one bank (a pad word per row would do the
// same but costs the 13th block of an SM). Room for the segment and 4 bytes read past it.
#define RLE_OUT_WORDS ((RLE_MAX_SEG_OUT + 4u + 3u) / 4u)

struct __align__(16) RleEncodeWarp {
    u32 in[RLE_IN_WORDS];
    union {
        u32 out[RLE_OUT_WORDS];  // the segment's bytes, padded, written after the plan
        u32 head[RLE_WORDS + 1];  // run heads, plus the sentinel head at position n
    };
};

// Where byte x of the encoded segment sits: its word index XOR its row (x / 128 % 32), i.e.
// x XOR that row times 4 (a shift and one three-input logic op).
__device__ __forceinline__ u32 rle_out_mask(u32 x) { return (x >> 5) & 0x7cu; }
__device__ __forceinline__ u8& rle_out_byte(RleEncodeWarp& w, u32 x) {
    return reinterpret_cast<u8*>(w.out)[x ^ rle_out_mask(x)];
}
// The word of byte x (x a multiple of 4).
__device__ __forceinline__ u32& rle_out_word(RleEncodeWarp& w, u32 x) {
    return *reinterpret_cast<u32*>(reinterpret_cast<u8*>(w.out) + (x ^ rle_out_mask(x)));
}

// Word `wi` (bytes 4 wi .. 4 wi + 3) of the segment in shared memory.
__device__ __forceinline__ u32 rle_in_word(const RleEncodeWarp& w, u32 wi) { return w.in[wi + (wi >> 5)]; }

__device__ __forceinline__ u32 rle_in_byte(const RleEncodeWarp& w, u32 p) {
    return (rle_in_word(w, p >> 2) >> (8u * (p & 3u))) & 0xffu;
}

// What the encoder knows about a segment once its bitmaps are built. Lane l owns the 128 bytes
// [128 l, 128 l + 128): bit i of `ev` says a token group (a run of 3 or more, or a literal
// stretch) starts at byte 128 l + i, bit i of `cov` that the byte is inside a run; `next` is
// where the first group after the lane's bytes starts (or n); `open_*` describe the group that is
// open where the lane's bytes begin (the last group of an earlier lane), whose literal bytes in
// this range the lane copies.
struct RlePlan {
    u64 ev_lo, ev_hi;
    u64 cov_lo, cov_hi;
    u32 next;
    u32 total;  // the segment's control and payload byte counts (packed)
    u32 open_start, open_off, open_len;
    bool open_run;
    u32 first_off;  // packed offsets of the first group that starts in the lane's bytes
};

// Lowest set bit of the 128-bit mask (hi:lo), 128 when empty.
__device__ __forceinline__ u32 rle_first_bit(u64 lo, u64 hi) {
    if (lo) return (u32)(__ffsll((long long)lo) - 1);
    if (hi) return 64u + (u32)(__ffsll((long long)hi) - 1);
    return 128u;
}

// Takes the lowest group start `cur` of the lane's mask (hi:lo); returns its byte, its length and
// whether it is a run, and leaves the following start in `cur` (128 when none is left).
__device__ __forceinline__ void rle_next_group(u64& lo, u64& hi, u32& cur, const RlePlan& plan,
                                               u32 lane, u32& start, u32& len, bool& is_run) {
    const u32 b = cur;
    if (lo) lo &= lo - 1ull; else hi &= hi - 1ull;
    cur = rle_first_bit(lo, hi);
    start = 128u * lane + b;
    const u32 end = cur < 128u ? 128u * lane + cur : plan.next;
    len = end - start;
    is_run = ((b < 64u ? plan.cov_lo >> b : plan.cov_hi >> (b - 64u)) & 1ull) != 0;
}

// Packed output bytes that the lane's bytes under `mask` account for: a control and a value
// byte per run start, a control byte per literal-stretch start, and every literal byte.
__device__ __forceinline__ u32 rle_lane_out_bytes(u64 run_lo, u64 run_hi, u64 lgr_lo, u64 lgr_hi,
                                                  u64 lit_lo, u64 lit_hi, u64 mask_lo, u64 mask_hi) {
    return (RLE_CTRL1 + 1u) * (u32)(__popcll(run_lo & mask_lo) + __popcll(run_hi & mask_hi)) +
           RLE_CTRL1 * (u32)(__popcll(lgr_lo & mask_lo) + __popcll(lgr_hi & mask_hi)) +
           (u32)(__popcll(lit_lo & mask_lo) + __popcll(lit_hi & mask_hi));
}

// Packed size of a token group: a run of `len` bytes (a control, and the value after a u16
// length for a long run), or a literal stretch of `len` bytes (one control byte per 128).
__device__ __forceinline__ u32 rle_group_size(bool is_run, u32 len) {
    if (is_run) return RLE_CTRL1 + (len <= 129u ? 1u : 3u);
    return RLE_CTRL1 * ((len + 127u) / 128u) + len;
}

__device__ __forceinline__ u32 rle_valid_mask(u32 wd, u32 n) {
    u32 base = wd * 32u;
    if (base + 32u <= n) return 0xffffffffu;
    if (base >= n) return 0u;
    return (1u << (n - base)) - 1u;
}

// The 4 bytes of `seg` at `off` (a multiple of 4), zero past `n`; `seg` is 4-byte aligned.
__device__ __forceinline__ u32 rle_load_word(const u8* __restrict__ seg, u32 off, u32 n) {
    if (off + 4u <= n) return __ldg(reinterpret_cast<const u32*>(seg + off));
    u32 x = 0;
    for (u32 b = 0; b < 4u; b++) {
        if (off + b < n) x |= (u32)__ldg(seg + off + b) << (8u * b);
    }
    return x;
}

// Builds the bitmaps of seg[0..n) (global memory, read through the cache) and the plan: every
// group's size, summed per word and scanned in word order. Whole warp.
__device__ void rle_encode_plan(RleEncodeWarp& w, const u8* __restrict__ seg, u32 n, RlePlan& plan) {
    const u32 lane = wz_lane();
    // Run heads. Lane l reads the 16-byte vectors l, l + 32, ... (coalesced: each load
    // instruction covers 512 contiguous bytes), compares every byte with the one before it (the
    // previous vector's last byte comes from the neighbouring lane), and pairs of lanes join
    // their 16 bits into one word of the bitmap.
    const bool vec_ok = (((u64)seg) & 15u) == 0;
    u32 carry = n ? ~(u32)__ldg(seg) : 0u;  // "byte before 0": anything unequal to byte 0
#pragma unroll 2
    for (u32 i = 0; i < RLE_SEG / 512u; i++) {
        const u32 off = 16u * (lane + 32u * i);
        uint4 q;
        if (vec_ok && off + 16u <= n) {
            q = __ldg(reinterpret_cast<const uint4*>(seg + off));
        } else {
            q.x = rle_load_word(seg, off, n);
            q.y = rle_load_word(seg, off + 4u, n);
            q.z = rle_load_word(seg, off + 8u, n);
            q.w = rle_load_word(seg, off + 12u, n);
        }
        {
            const u32 v = lane + 32u * i;
            u32* dst = &w.in[4u * v + (v >> 3)];
            dst[0] = q.x;
            dst[1] = q.y;
            dst[2] = q.z;
            dst[3] = q.w;
        }
        const u32 last = q.w >> 24;
        u32 prev = __shfl_up_sync(WZ_FULL_MASK, last, 1);
        if (lane == 0) prev = carry;
        carry = __shfl_sync(WZ_FULL_MASK, last, 31);
        const u32 words[4] = {q.x, q.y, q.z, q.w};
        u32 bits16 = 0;
#pragma unroll
        for (u32 t = 0; t < 4u; t++) {
            const u32 x = words[t];
            const u32 y = (x << 8) | (prev & 0xffu);
            const u32 ne = __vcmpne4(x, y);
            // The four byte flags (bits 7, 15, 23, 31) gathered into bits 28..31 by one multiply.
            bits16 |= (((ne & 0x80808080u) * 0x00204081u) >> 28) << (4u * t);
            prev = x >> 24;
        }
        const u32 high = __shfl_down_sync(WZ_FULL_MASK, bits16, 1);
        if ((lane & 1u) == 0) {
            const u32 wd = 16u * i + lane / 2u;
            u32 bits = (bits16 | (high << 16)) & rle_valid_mask(wd, n);
            if (n >= wd * 32u && n < wd * 32u + 32u) bits |= 1u << (n - wd * 32u);
            w.head[wd] = bits;
        }
    }
    if (lane == 0) w.head[RLE_WORDS] = (n == RLE_SEG) ? 1u : 0u;
    if (lane < RLE_IN_WORDS - RLE_WORDS * 8u - RLE_WORDS / 4u) w.in[RLE_WORDS * 8u + RLE_WORDS / 4u + lane] = 0u;
    __syncwarp();
    // Bytes inside runs of 3 or more ("cover"), for the lane's own words 4l..4l+3, from the run
    // heads of words 4l-1..4l+4: a byte is short when its run starts there with length 1 (a
    // head followed by a head) or 2 (a head, no head, a head), or is the second byte of a
    // run of 2 that may start in the word before.
    const uint4 hq = *reinterpret_cast<const uint4*>(&w.head[4u * lane]);
    // hw[i] is the raw head word 4l - 1 + i (the sentinel bit at n included).
    const u32 hw[6] = {lane ? w.head[4u * lane - 1u] : 0u, hq.x, hq.y, hq.z, hq.w, w.head[4u * lane + 4u]};
    u32 len2w[5];  // starts of runs of length 2 in words 4l-1 .. 4l+3
#pragma unroll
    for (u32 i = 0; i < 5u; i++) {
        if (i == 0 && lane == 0) {
            len2w[0] = 0u;
        } else {
            const u32 h = hw[i] & rle_valid_mask(4u * lane + i - 1u, n);
            len2w[i] = h & ~__funnelshift_r(hw[i], hw[i + 1], 1) & __funnelshift_r(hw[i], hw[i + 1], 2);
        }
    }
    u32 cw[4];
#pragma unroll
    for (u32 k = 0; k < 4u; k++) {
        const u32 valid = rle_valid_mask(4u * lane + k, n);
        const u32 h = hw[k + 1] & valid;
        const u32 len1 = h & __funnelshift_r(hw[k + 1], hw[k + 2], 1);
        const u32 len2_second = __funnelshift_l(len2w[k], len2w[k + 1], 1);
        cw[k] = valid & ~((len1 | len2w[k + 1] | len2_second) & valid);
    }
    // Token groups start at a long run's head, or at a short byte after a long run (or at 0).
    u32 prev_c = __shfl_up_sync(WZ_FULL_MASK, cw[3], 1);
    if (lane == 0) prev_c = 0x80000000u;  // "long before 0": a stretch may start at 0
    u32 ev[4], vw[4];
#pragma unroll
    for (u32 k = 0; k < 4u; k++) {
        const u32 wd = 4u * lane + k;
        const u32 valid = rle_valid_mask(wd, n);
        const u32 c = cw[k];
        const u32 c_before = __funnelshift_l(prev_c, c, 1);
        const u32 h = hw[k + 1] & valid;
        const u32 short_bytes = valid & ~c;
        ev[k] = (h & c) | (short_bytes & c_before);
        vw[k] = valid;
        prev_c = c;
    }
    if (lane == 0 && n > 0) ev[0] |= 1u;  // position 0 always starts a group
    plan.ev_lo = (u64)ev[0] | ((u64)ev[1] << 32);
    plan.ev_hi = (u64)ev[2] | ((u64)ev[3] << 32);
    plan.cov_lo = (u64)cw[0] | ((u64)cw[1] << 32);
    plan.cov_hi = (u64)cw[2] | ((u64)cw[3] << 32);
    const u64 lit_lo = ((u64)vw[0] | ((u64)vw[1] << 32)) & ~plan.cov_lo;
    const u64 lit_hi = ((u64)vw[2] | ((u64)vw[3] << 32)) & ~plan.cov_hi;
    const u32 r0 = 128u * lane;
    // Where the next group starts after each lane's bytes: a suffix minimum over the lanes.
    const u32 fb = rle_first_bit(plan.ev_lo, plan.ev_hi);
    u32 v = fb < 128u ? r0 + fb : n;
#pragma unroll
    for (u32 d = 1; d < 32u; d <<= 1) {
        const u32 o = __shfl_down_sync(WZ_FULL_MASK, v, d);
        if (lane + d < 32u) v = min(v, o);
    }
    const u32 after = __shfl_down_sync(WZ_FULL_MASK, v, 1);
    plan.next = (lane == 31u) ? n : min(after, n);
    // The lane's last group (it may reach past the lane's bytes), and the group open at each
    // lane's first byte: the last group of the nearest earlier lane that has one (lane 0
    // always has one: a group starts at byte 0).
    const bool has = fb < 128u;
    const u32 lb = plan.ev_hi ? 127u - (u32)__clzll((long long)plan.ev_hi)
                              : (plan.ev_lo ? 63u - (u32)__clzll((long long)plan.ev_lo) : 0u);
    const u32 last_start = r0 + lb;
    const u32 last_len = plan.next - last_start;
    const bool last_run = ((lb < 64u ? plan.cov_lo >> lb : plan.cov_hi >> (lb - 64u)) & 1ull) != 0;
    int src = has ? (int)lane : -1;
#pragma unroll
    for (u32 d = 1; d < 32u; d <<= 1) {
        const int o = __shfl_up_sync(WZ_FULL_MASK, src, d);
        if (lane >= d) src = max(src, o);
    }
    src = __shfl_up_sync(WZ_FULL_MASK, src, 1);
    const u32 from = (lane == 0 || src < 0) ? 0u : (u32)src;
    plan.open_start = __shfl_sync(WZ_FULL_MASK, last_start, from);
    plan.open_len = __shfl_sync(WZ_FULL_MASK, last_len, from);
    plan.open_run = __shfl_sync(WZ_FULL_MASK, (u32)last_run, from) != 0u;
    if (lane == 0) {  // nothing is open before byte 0
        plan.open_start = 0;
        plan.open_len = 0;
    }
    // The output bytes each lane's bytes account for, in closed form (packed): every literal
    // byte, one control byte per literal group starting here, a control and a value byte per
    // run starting here (plus the u16 length of a long run, which can only be the lane's last
    // group), and the control byte of the open literal group's next 128-byte piece if that
    // piece begins here.
    const u32 r1 = min(r0 + 128u, n);
    const u32 open_end = min(plan.open_start + plan.open_len, r1);
    const bool open_literal_here = !plan.open_run && r0 < open_end;
    u32 piece = 0;
    if (open_literal_here) {
        const u32 j = r0 - plan.open_start;
        const u32 q = plan.open_start + (j + 127u) / 128u * 128u;
        piece = q < open_end ? 1u : 0u;
    }
    const u64 run_lo = plan.ev_lo & plan.cov_lo, run_hi = plan.ev_hi & plan.cov_hi;
    const u64 lgr_lo = plan.ev_lo & ~plan.cov_lo, lgr_hi = plan.ev_hi & ~plan.cov_hi;
    // Bits below the last group's start.
    const u64 below_lo = lb >= 64u ? ~0ull : ((1ull << lb) - 1ull);
    const u64 below_hi = lb >= 64u ? ((1ull << (lb - 64u)) - 1ull) : 0ull;
    const u32 before_last = rle_lane_out_bytes(run_lo, run_hi, lgr_lo, lgr_hi, lit_lo, lit_hi,
                                               below_lo, below_hi) + RLE_CTRL1 * piece;
    u32 sum = rle_lane_out_bytes(run_lo, run_hi, lgr_lo, lgr_hi, lit_lo, lit_hi, ~0ull, ~0ull) +
              RLE_CTRL1 * piece;
    if (has && last_run && last_len > 129u) sum += 2u;
    const u32 incl = wz_warp_inclusive_sum<u32>(sum);
    const u32 off = incl - sum;  // packed offsets of the lane's first byte
    plan.total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    plan.open_off = __shfl_sync(WZ_FULL_MASK, off + before_last, from);
    // Offsets of the lane's first own group: after the open group's part in the lane's bytes.
    plan.first_off = off + RLE_CTRL1 * piece + (open_literal_here ? open_end - r0 : 0u);
    __syncwarp();  // the bitmaps (which share memory with w.out) are no longer read
}

// The four segment bytes at a..a+3 (little-endian), from two words and a funnel shift.
__device__ __forceinline__ u32 rle_in_bytes4(const RleEncodeWarp& w, u32 a) {
    const u32 wi = a >> 2;
    return __funnelshift_r(rle_in_word(w, wi), rle_in_word(w, wi + 1u), 8u * (a & 3u));
}

// Stores the low `cnt` (< 4) bytes of x at w.out[d..], all in d's word.
__device__ __forceinline__ void rle_store_bytes(RleEncodeWarp& w, u32 d, u32 x, u32 cnt) {
    u8* at = &rle_out_byte(w, d);  // the next bytes of the word follow it
#pragma unroll
    for (u32 t = 0; t < 3u; t++) {
        if (t < cnt) at[t] = (u8)(x >> (8u * t));
    }
}

// Copies segment bytes [a, b) to w.out[d..]: the bytes before the first aligned destination
// word, then whole words assembled from two source words with a funnel shift, then the tail.
__device__ __forceinline__ void rle_copy_bytes(RleEncodeWarp& w, u32 a, u32 b, u32 d) {
    const u32 head = min((0u - d) & 3u, b - a);
    if (head) {
        rle_store_bytes(w, d, rle_in_bytes4(w, a), head);
        a += head;
        d += head;
    }
    if (a + 4u <= b) {
        const u32 sh = 8u * (a & 3u);
        u32 wi = a >> 2;
        u32 lo = rle_in_word(w, wi);
        for (; a + 4u <= b; a += 4u, d += 4u) {
            const u32 hi = rle_in_word(w, ++wi);
            rle_out_word(w, d) = __funnelshift_r(lo, hi, sh);
            lo = hi;
        }
    }
    if (a < b) rle_store_bytes(w, d, rle_in_bytes4(w, a), b - a);
}

// Copies the part [p, e) of the literal stretch (start s, length len, packed offsets o) that
// lies in one lane's bytes to the payload, and writes the control byte of every 128-byte piece
// that begins there (controls start at w.out[cb]).
__device__ __forceinline__ void rle_copy_literal_part(RleEncodeWarp& w, u32 p, u32 e, u32 s,
                                                      u32 len, u32 o, u32 cb) {
    // [p, e) lies in one lane's 128 bytes, so at most one piece starts there.
    const u32 j = (p - s + 127u) & ~127u;
    if (s + j < e) rle_out_byte(w, cb + (o >> 16) + j / 128u) = (u8)(min(128u, len - j) - 1u);
    rle_copy_bytes(w, p, e, RLE_HEADER + (o & 0xffffu) + (p - s));
}

// Writes the run token of `len` bytes of `value` at packed offsets o (controls start at
// w.out[cb]).
__device__ __forceinline__ void rle_write_run(RleEncodeWarp& w, u32 o, u32 len, u32 value,
                                              u32 cb) {
    const u32 pay = RLE_HEADER + (o & 0xffffu);
    if (len <= 129u) {
        rle_out_byte(w, cb + (o >> 16)) = (u8)(0x80u + len - 3u);
        rle_out_byte(w, pay) = (u8)value;
    } else {
        rle_out_byte(w, cb + (o >> 16)) = 0xffu;
        rle_out_byte(w, pay) = (u8)len;
        rle_out_byte(w, pay + 1u) = (u8)(len >> 8);
        rle_out_byte(w, pay + 2u) = (u8)value;
    }
}

// The segment's length in bytes, from its packed control and payload counts.
__device__ __forceinline__ u32 rle_segment_bytes(u32 total) {
    return RLE_HEADER + (total >> 16) + (total & 0xffffu);
}

// Writes the segment's tokens into w.out following the plan. Every lane handles its own 128
// bytes: the run tokens of the groups that start there, and the literal bytes (with their
// control bytes) that lie there, whichever lane's group they belong to. Whole warp.
__device__ void rle_encode_write(RleEncodeWarp& w, u32 n, const RlePlan& plan) {
    const u32 lane = wz_lane();
    const u32 r0 = 128u * lane;
    const u32 r1 = min(r0 + 128u, n);
    const u32 cb = RLE_HEADER + (plan.total & 0xffffu);  // where the controls start
    if (lane == 0) {
        rle_out_byte(w, 0) = (u8)(plan.total >> 16);
        rle_out_byte(w, 1) = (u8)(plan.total >> 24);
    }
    if (r0 < n) {
        u64 lo = plan.ev_lo, hi = plan.ev_hi;
        u32 cur = rle_first_bit(lo, hi);
        // The group open at r0 (if the lane's first group starts later).
        u32 s = plan.open_start, len = plan.open_len, o = plan.open_off;
        bool is_run = plan.open_run;
        u32 next_off = plan.first_off;
        u32 p = r0;
        while (true) {
            const u32 e = min(s + len, r1);
            if (!is_run && p < e) rle_copy_literal_part(w, p, e, s, len, o, cb);
            if (cur >= 128u) break;
            rle_next_group(lo, hi, cur, plan, lane, s, len, is_run);
            o = next_off;
            next_off += rle_group_size(is_run, len);
            p = s;
            if (is_run) rle_write_run(w, o, len, rle_in_byte(w, s), cb);
        }
    }
    __syncwarp();
}

// Copies the len bytes of the encoded segment (swizzled in shared memory) to any global address:
// head bytes until the destination is 16-byte aligned, then 16-byte stores assembled from five
// shared-memory words with funnel shifts, then the tail bytes. Whole warp. Reads up to 4
// bytes past `len`.
__device__ __forceinline__ void rle_copy_to_global(u8* dst, RleEncodeWarp& w, u32 len) {
    const u32 lane = wz_lane();
    const u32 head = min((u32)((16u - ((u64)dst & 15u)) & 15u), len);
    if (lane < head) dst[lane] = rle_out_byte(w, lane);
    const u32 vecs = (len - head) / 16u;
    const u32 shift = (head & 3u) * 8u;
    uint4* d = reinterpret_cast<uint4*>(dst + head);
    for (u32 k = lane; k < vecs; k += 32u) {
        const u32 x = (head & ~3u) + 16u * k;  // byte of the first source word
        const u32 w0 = rle_out_word(w, x), w1 = rle_out_word(w, x + 4u), w2 = rle_out_word(w, x + 8u),
                  w3 = rle_out_word(w, x + 12u), w4 = rle_out_word(w, x + 16u);
        uint4 v;
        v.x = __funnelshift_r(w0, w1, shift);
        v.y = __funnelshift_r(w1, w2, shift);
        v.z = __funnelshift_r(w2, w3, shift);
        v.w = __funnelshift_r(w3, w4, shift);
        d[k] = v;
    }
    const u32 done = head + 16u * vecs;
    if (lane < len - done) dst[done + lane] = rle_out_byte(w, done + lane);
}

__device__ __forceinline__ u32 rle_segments_in_chunk(u64 total_len, u32 chunk_size, u32 chunk) {
    u64 start = (u64)chunk * chunk_size;
    u64 left = total_len - start;
    u32 raw = left < chunk_size ? (u32)left : chunk_size;
    return (raw + RLE_SEG - 1u) / RLE_SEG;
}

// Encodes every segment of the input and writes it straight to its final place: the segment's
// compressed size (plus the chunk's segment table, for a chunk's first segment) is scanned
// across segments with decoupled look-back. `seg_end[g]` receives the end of segment g's tokens
// and `chunk_start[c]` the start of chunk c; `rle_encode_tables` then fills the tables.
extern "C" __global__ void __launch_bounds__(RLE_ENC_WARPS * 32, 16)
    rle_encode_segments(const u8* __restrict__ in, u64 total_len, u32 chunk_size,
                        u32 segs_per_chunk, u32 total_segments, u8* __restrict__ out,
                        u64 out_capacity, u32* tile_counter, u64* status, u64* seg_end,
                        u64* chunk_start, u32* error_flag) {
    __shared__ RleEncodeWarp warps[RLE_ENC_WARPS];
    RleEncodeWarp& w = warps[threadIdx.x >> 5];
    const u32 lane = wz_lane();
    u32 g = 0;
    if (lane == 0) g = atomicAdd(tile_counter, 1u);
    g = __shfl_sync(WZ_FULL_MASK, g, 0);
    if (g >= total_segments) return;
    const u32 c = g / segs_per_chunk;
    const u32 s = g % segs_per_chunk;
    const u64 seg_start = (u64)c * chunk_size + (u64)s * RLE_SEG;
    const u64 left = total_len - seg_start;
    const u32 n = left < RLE_SEG ? (u32)left : RLE_SEG;

    // The segment's size is known from its plan, before any token is written: publish it
    // first, so that successors can go on while this warp writes its tokens.
    RlePlan plan;
    rle_encode_plan(w, in + seg_start, n, plan);
    const u32 tokens = rle_segment_bytes(plan.total);
    const u32 table = (s == 0) ? 4u * rle_segments_in_chunk(total_len, chunk_size, c) : 0u;
    const u64 my_size = (u64)tokens + table;
    if (lane == 0) {
        wz_lookback_publish_word<WZ_LB_SHIFT_WIDE, false>(
            status, g, my_size, g == 0 ? WZ_LB_INCLUSIVE : WZ_LB_AGGREGATE);
    }
    rle_encode_write(w, n, plan);
    u64 prefix = 0;
    if (g != 0) {
        prefix = wz_lookback_word_warp<u64, WZ_LB_SHIFT_WIDE, 64>(status, g);
        if (lane == 0) {
            wz_lookback_publish_word<WZ_LB_SHIFT_WIDE, false>(status, g, prefix + my_size,
                                                              WZ_LB_INCLUSIVE);
        }
    }
    const u64 dst = prefix + table;
    if (dst + tokens > out_capacity) {
        if (lane == 0) atomicExch(error_flag, 1u);
        return;
    }
    rle_copy_to_global(out + dst, w, tokens);
    if (lane == 0) {
        seg_end[g] = dst + tokens;
        if (s == 0) chunk_start[c] = prefix;
    }
}

// Fills every chunk's segment table from the segment ends (one thread per segment).
extern "C" __global__ void rle_encode_tables(u64 total_len, u32 chunk_size, u32 segs_per_chunk,
                                             u32 total_segments, u8* __restrict__ out,
                                             const u64* __restrict__ seg_end,
                                             const u64* __restrict__ chunk_start) {
    u32 g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= total_segments) return;
    u32 c = g / segs_per_chunk;
    u32 s = g % segs_per_chunk;
    u32 k = rle_segments_in_chunk(total_len, chunk_size, c);
    u64 area = chunk_start[c] + 4ull * k;
    u32 rel = (u32)(seg_end[g] - area);
    u8* p = out + chunk_start[c] + 4ull * s;
    p[0] = (u8)rel;
    p[1] = (u8)(rel >> 8);
    p[2] = (u8)(rel >> 16);
    p[3] = (u8)(rel >> 24);
}

// The little-endian u32 at p (any alignment) from the two aligned words around it. p lies in
// the payload, which is a whole allocation with RLE_PAYLOAD_SLACK bytes after it, so both
// words lie inside it.
__device__ __forceinline__ u32 rle_read_u32_le(const u8* p) {
    const u32* w = reinterpret_cast<const u32*>((u64)p & ~(u64)3);
    return __funnelshift_r(__ldg(w), __ldg(w + 1), 8u * (u32)((u64)p & 3u));
}

// Where segment g's tokens and output are, from the chunk table and the chunk's segment table;
// a damaged segment table gives a status instead (the tokens are then never read).
struct RleSegment {
    u32 chunk;
    u64 out_start;
    u32 out_len;
    const u8* tok;
    u32 n_in;
    u32 status;
};

__device__ __forceinline__ RleSegment rle_locate_segment(const u8* __restrict__ payload,
                                                         const u64* __restrict__ chunk_offset,
                                                         const u32* __restrict__ chunk_csize,
                                                         u64 total_len, u32 chunk_size,
                                                         u32 segs_per_chunk, u32 g) {
    RleSegment r;
    r.chunk = g / segs_per_chunk;
    const u32 s = g % segs_per_chunk;
    r.out_start = (u64)r.chunk * chunk_size + (u64)s * RLE_SEG;
    const u64 left = total_len - r.out_start;
    r.out_len = left < RLE_SEG ? (u32)left : RLE_SEG;
    const u32 k = rle_segments_in_chunk(total_len, chunk_size, r.chunk);
    const u8* comp = payload + chunk_offset[r.chunk];
    const u32 csize = chunk_csize[r.chunk];
    r.status = WZ_STATUS_OK;
    u32 tok_start = 0, tok_end = 0;
    if ((u64)csize < 4ull * k) {
        r.status = WZ_STATUS_TRUNCATED;
    } else {
        const u32 area = csize - 4u * k;
        tok_end = rle_read_u32_le(comp + 4u * s);
        tok_start = s ? rle_read_u32_le(comp + 4u * (s - 1u)) : 0u;
        if (tok_start > tok_end || tok_end > area) r.status = WZ_STATUS_CORRUPT;
    }
    r.tok = comp + 4u * k + tok_start;
    r.n_in = r.status == WZ_STATUS_OK ? tok_end - tok_start : 0u;
    return r;
}

// The decoder. A warp stages its segment's bytes in shared memory (16-byte loads, all in flight
// together), then takes the controls 32 at a time: lane l reads control r + l, and a warp scan
// of the payload sizes (which follow from the controls alone) gives every token's payload, a
// second of the output lengths every token's output offset (rle_parse_round). The mapped
// decoder (rle_decode_mapped) then writes the segment 16 bytes a lane straight to global
// memory; segments it cannot take are decoded token by token, also straight to global memory
// (rle_decode_segment). The output must be 16-byte aligned (gpu.rs allocates it whole).
#define RLE_DEC_WARPS 4
// Blocks an SM must hold: 64 registers a thread (a few bytes of spills), and 28 KiB of shared
// memory a block also lets 8 fit: 32 resident warps an SM.
#define RLE_DEC_MIN_BLOCKS 8
// Staged segment bytes: 16 bytes of front slack (the mapped decoder's literal loads start up to
// 15 bytes before a literal), up to 15 bytes of alignment head, the bytes, a zero vector and
// slack for loads past the end.
#define RLE_DEC_FRONT 16u
#define RLE_DEC_STAGE ((RLE_MAX_SEG_OUT + 30u) / 16u * 16u + 16u)
#define RLE_DEC_TOKCAP (RLE_DEC_FRONT + RLE_DEC_STAGE)
#define RLE_DEC_VECS_PER_LANE ((RLE_DEC_STAGE / 16u + 31u) / 32u)
#define RLE_DEC_LONG 128u
// Descriptors of the mapped decoder: a segment with more tokens is decoded token by token.
#define RLE_DEC_DESCS 512u
// Bias of a literal descriptor's stage offset (offsets go down to RLE_DEC_FRONT - RLE_SEG).
#define RLE_DEC_BIAS RLE_SEG

// Bytes the host allocates past a payload (PAYLOAD_SLACK in gpu.rs).
#define RLE_PAYLOAD_SLACK 16u

// The mapped decoder's view of a segment: bit p of `starts` is set where a token's output
// begins, `prefix[i]` counts the bits in words below i, `desc[k]` describes the k-th token that
// has output.
struct RleMap {
    u32 starts[RLE_SEG / 32u];
    u16 prefix[RLE_SEG / 32u];
    u32 desc[RLE_DEC_DESCS];
};

struct __align__(16) RleDecodeWarp {
    u8 tok[RLE_DEC_TOKCAP];  // the segment's bytes, byte x at tok[RLE_DEC_FRONT + head + x]
    RleMap map;              // the mapped decoder's bitmap and descriptors
};
// The prefix counts take four start-map words a lane with one 16-byte load: the map must begin
// 16-byte aligned and hold 128 words.
static_assert(RLE_DEC_TOKCAP % 16u == 0u, "the start map is 16-byte aligned");
static_assert(RLE_SEG / 32u == 4u * 32u, "four start-map words a lane");

// The 16 output bytes from unit_start on, as token `desc` would give them: a run's byte
// repeated, or the stage bytes at unit_start + the literal's delta (5 aligned words and four
// funnel shifts; tok is 16-byte aligned).
__device__ __forceinline__ uint4 rle_unit_piece(const u8* tok, u32 desc, u32 unit_start) {
    // No branch: lanes with runs and lanes with literals stay together; a run loads the first
    // stage words and ignores them.
    const bool literal = (desc & 1u) != 0u;
    const u32 s = literal ? (desc >> 1) - RLE_DEC_BIAS + unit_start : 0u;
    const u32* tw = reinterpret_cast<const u32*>(tok) + (s >> 2);
    const u32 sh = 8u * (s & 3u);
    const u32 w0 = tw[0], w1 = tw[1], w2 = tw[2], w3 = tw[3], w4 = tw[4];
    const u32 rep = (desc >> 1) * 0x01010101u;
    return literal ? make_uint4(__funnelshift_r(w0, w1, sh), __funnelshift_r(w1, w2, sh),
                                __funnelshift_r(w2, w3, sh), __funnelshift_r(w3, w4, sh))
                   : make_uint4(rep, rep, rep, rep);
}

// The low min(n, 32) bits set: one BMSK (sm_70 and later).
__device__ __forceinline__ u32 rle_low_bits(u32 n) {
    u32 m;
    asm("bmsk.clamp.b32 %0, 0, %1;" : "=r"(m) : "r"(n));
    return m;
}

// Unit x with its bytes from byte a on (1 <= a <= 15) taken from y: word w keeps its low
// clamp(8a - 32w, 0, 32) bits (a clamped difference and a BMSK a word, no selects).
__device__ __forceinline__ uint4 rle_merge_from(uint4 x, uint4 y, u32 a) {
    const int s = (int)(8u * a);
    const u32 k0 = rle_low_bits((u32)s);
    const u32 k1 = rle_low_bits((u32)max(s - 32, 0));
    const u32 k2 = rle_low_bits((u32)max(s - 64, 0));
    const u32 k3 = rle_low_bits((u32)max(s - 96, 0));
    return make_uint4((x.x & k0) | (y.x & ~k0), (x.y & k1) | (y.y & ~k1),
                      (x.z & k2) | (y.z & ~k2), (x.w & k3) | (y.w & ~k3));
}

// Stores the low `size` (1, 2, 4 or 8) bytes of x at out + d (d a multiple of size).
__device__ __forceinline__ void rle_store_piece(u8* out, u32 d, u64 x, u32 size) {
    if (size == 1u) out[d] = (u8)x;
    else if (size == 2u) *reinterpret_cast<u16*>(out + d) = (u16)x;
    else if (size == 4u) *reinterpret_cast<u32*>(out + d) = (u32)x;
    else *reinterpret_cast<u64*>(out + d) = x;
}

// The 8 bytes of tok (4-byte aligned) at s, any s: three aligned words and two funnel shifts.
__device__ __forceinline__ u64 rle_load8(const u8* tok, u32 s) {
    const u32* tw = reinterpret_cast<const u32*>(tok) + (s >> 2);
    const u32 sh = 8u * (s & 3u);
    const u32 a = tw[0], b = tw[1], c = tw[2];
    return (u64)__funnelshift_r(a, b, sh) | ((u64)__funnelshift_r(b, c, sh) << 32);
}

// One lane writes out[o, o + len): a ladder of 1-, 2-, 4- and 8-byte pieces up to a 16-byte
// boundary, 16-byte stores, then a ladder of 8-, 4-, 2- and 1-byte pieces, every store aligned
// to its size. A head piece that does not fit ends the head ladder; what is left is then
// shorter than that piece, so the tail ladder's smaller pieces stay aligned. The bytes come
// from `piece(at, size)` for the run's value or the literal's source. Few branches and no
// byte loops: lanes with tokens of different lengths stay together.
template <typename Piece>
__device__ __forceinline__ void rle_write_lane(u8* out, u32 o, u32 len, Piece piece) {
    u32 d = o;
    const u32 e = o + len;
    bool aligning = true;
#pragma unroll
    for (u32 size = 1u; size <= 8u; size <<= 1) {
        if (aligning && (d & size)) {
            if (d + size <= e) {
                rle_store_piece(out, d, piece(d - o, size), size);
                d += size;
            } else {
                aligning = false;
            }
        }
    }
    for (; d + 16u <= e; d += 16u) {
        const u64 lo = piece(d - o, 8u), hi = piece(d - o + 8u, 8u);
        *reinterpret_cast<uint4*>(out + d) = make_uint4((u32)lo, (u32)(lo >> 32), (u32)hi, (u32)(hi >> 32));
    }
#pragma unroll
    for (u32 size = 8u; size >= 1u; size >>= 1) {
        if (d + size <= e) {
            rle_store_piece(out, d, piece(d - o, size), size);
            d += size;
        }
    }
}

// One lane writes its token to out[o, o + len): a run of `value`, or a copy of tok[s, s + len)
// (tok 16-byte aligned). Runs and literals take the same path (source words are loaded for
// both), so that lanes of both kinds stay together. Reads up to 11 bytes past tok[s + len).
__device__ __forceinline__ void rle_write_token_lane(u8* out, u32 o, u32 len, bool literal,
                                                     u32 value, const u8* tok, u32 s) {
    const u64 rep = (u64)value * 0x0101010101010101ull;
    // A run reads the first staged bytes, which it ignores.
    const u32 from = literal ? s : 0u;
    const u32 step = literal ? 1u : 0u;
    rle_write_lane(out, o, len, [=](u32 at, u32) {
        const u64 x = rle_load8(tok, from + at * step);
        return literal ? x : rep;
    });
}

// The whole warp copies tok[s, s + len) (tok 16-byte aligned) to out[o, o + len) (out 16-byte
// aligned): bytes up to a 16-byte boundary of the destination, 16-byte stores assembled from
// five aligned source words with funnel shifts, bytes. Reads up to 4 bytes past the source.
__device__ __forceinline__ void rle_copy_warp(u8* out, u32 o, const u8* tok, u32 s, u32 len) {
    const u32 lane = wz_lane();
    const u32 head = min((0u - o) & 15u, len);
    if (lane < head) out[o + lane] = tok[s + lane];
    const u32 vecs = (len - head) / 16u;
    const u32 s0 = s + head;
    const u32* tw = reinterpret_cast<const u32*>(tok) + (s0 >> 2);
    uint4* dv = reinterpret_cast<uint4*>(out + o + head);
    const u32 sh = 8u * (s0 & 3u);
    for (u32 k = lane; k < vecs; k += 32u) {
        const u32* q = tw + 4u * k;
        const u32 w0 = q[0], w1 = q[1], w2 = q[2], w3 = q[3], w4 = q[4];
        dv[k] = make_uint4(__funnelshift_r(w0, w1, sh), __funnelshift_r(w1, w2, sh),
                           __funnelshift_r(w2, w3, sh), __funnelshift_r(w3, w4, sh));
    }
    const u32 done = head + 16u * vecs;
    if (lane < len - done) out[o + done + lane] = tok[s + done + lane];
}

// The whole warp fills out[o, o + len) (out 16-byte aligned) with `value`.
__device__ __forceinline__ void rle_fill_warp(u8* out, u32 o, u32 len, u32 value) {
    const u32 lane = wz_lane();
    const u32 head = min((0u - o) & 15u, len);
    if (lane < head) out[o + lane] = (u8)value;
    const u32 vecs = (len - head) / 16u;
    const u32 rep = value * 0x01010101u;
    uint4* dv = reinterpret_cast<uint4*>(out + o + head);
    for (u32 k = lane; k < vecs; k += 32u) dv[k] = make_uint4(rep, rep, rep, rep);
    const u32 done = head + 16u * vecs;
    if (lane < len - done) out[o + done + lane] = (u8)value;
}

// Stages vectors [VECS_FROM, VECS_TO) of every lane (vector v = lane + 32 i): whole 16-byte
// loads of the segment's bytes, all issued before any store; vectors partly outside the bytes
// are staged as zeros (the caller fills their bytes), vectors at or past `vecs` not at all.
template <u32 VECS_FROM, u32 VECS_TO>
__device__ __forceinline__ void rle_stage_vectors(RleDecodeWarp& w, const u8* base, u32 head,
                                                  u32 end, u32 vecs) {
    const u32 lane = wz_lane();
    uint4 q[VECS_TO - VECS_FROM];
#pragma unroll
    for (u32 i = VECS_FROM; i < VECS_TO; i++) {
        const u32 lo = 16u * (lane + 32u * i);
        q[i - VECS_FROM] = make_uint4(0u, 0u, 0u, 0u);
        if (lo >= head && lo + 16u <= end) {
            q[i - VECS_FROM] = __ldg(reinterpret_cast<const uint4*>(base + lo));
        }
    }
#pragma unroll
    for (u32 i = VECS_FROM; i < VECS_TO; i++) {
        const u32 v = lane + 32u * i;
        if (v < vecs) *reinterpret_cast<uint4*>(&w.tok[RLE_DEC_FRONT + 16u * v]) = q[i - VECS_FROM];
    }
}

// Copies the n_in (at most RLE_MAX_SEG_OUT) bytes at `tok` to w.tok + RLE_DEC_FRONT + head,
// head being tok's offset in its 16-byte block, then a zero vector; returns head. A segment of
// at most 32 vectors (512 bytes, the common size of well-compressed data) takes one vector a
// lane; a longer one all of them at once, so its loads are still in flight together. Whole warp.
__device__ __forceinline__ u32 rle_stage_tokens(RleDecodeWarp& w, const u8* tok, u32 n_in) {
    const u32 lane = wz_lane();
    const u32 head = (u32)((u64)tok & 15u);
    const u8* base = tok - head;
    const u32 end = head + n_in;
    const u32 vecs = (end + 15u) / 16u + 1u;  // and a zero vector after the bytes
    if (vecs <= 32u) {
        rle_stage_vectors<0u, 1u>(w, base, head, end, vecs);
    } else {
        rle_stage_vectors<0u, RLE_DEC_VECS_PER_LANE>(w, base, head, end, vecs);
    }
    __syncwarp();
    // The partial vectors at either end, byte by byte: lanes 0-15 the first, 16-31 the last.
    const u32 first_v = head / 16u, last_v = (end - 1u) / 16u;
    const u32 v = lane < 16u ? first_v : last_v;
    const u32 pos = 16u * v + (lane & 15u);
    const bool whole = 16u * v >= head && 16u * v + 16u <= end;
    if (n_in && !whole && (lane < 16u || last_v != first_v) && pos >= head && pos < end) {
        w.tok[RLE_DEC_FRONT + pos] = __ldg(base + pos);
    }
    __syncwarp();
    return head;
}

// One round of a segment's parse: lane l's token is control r + l. Two warp scans give its
// payload offset (from the controls alone) and its output offset; every lane checks its own
// token, and since both offsets only grow, the lowest failing lane's verdict is the one a
// sequential decoder gives (docs/format.md, "Decoding and errors"). Whole warp.
struct RleRound {
    bool active;   // the lane has a token (r + l < m)
    bool literal;  // it is a literal
    u32 poff;      // its payload offset in the segment's payload area
    u32 olen;      // its output bytes
    u32 ooff;      // its output offset in the segment
    u32 oincl;     // ooff + olen, relative to out_base
    u32 value;     // a run's byte
    u32 pay_step;  // payload bytes of the whole round (uniform)
    u32 out_step;  // output bytes of the whole round (uniform)
    u32 status;    // the round's verdict (uniform)
};

// A token's payload bytes, from its control byte alone (0 for no token).
__device__ __forceinline__ u32 rle_payload_len(bool active, u32 c) {
    return !active ? 0u : (c < 128u ? c + 1u : (c == 0xffu ? 3u : 1u));
}

// A token's output bytes and a run's byte, once its payload is known to be whole.
__device__ __forceinline__ void rle_token_output(bool whole_token, u32 c, const u8* pay, u32 poff,
                                                 u32& olen, u32& value) {
    olen = 0u;
    value = 0u;
    if (whole_token) {
        if (c < 128u) {
            olen = c + 1u;
        } else if (c == 0xffu) {
            olen = (u32)pay[poff] | ((u32)pay[poff + 1u] << 8);
            value = pay[poff + 2u];
        } else {
            olen = c - 0x80u + 3u;
            value = pay[poff];
        }
    }
}

// A token's verdict from its offsets: its payload must be whole, its output inside the segment.
__device__ __forceinline__ u32 rle_token_verdict(bool active, bool whole, u32 ooff, u32 olen,
                                                 u32 seg_len) {
    return !active ? WZ_STATUS_OK
           : !whole ? WZ_STATUS_TRUNCATED
                    : (ooff + olen > seg_len ? WZ_STATUS_OVERFLOW : WZ_STATUS_OK);
}

// The lowest failing lane's verdict (uniform), or WZ_STATUS_OK.
__device__ __forceinline__ u32 rle_first_verdict(u32 verdict) {
    const u32 failing = __ballot_sync(WZ_FULL_MASK, verdict != WZ_STATUS_OK);
    return failing ? __shfl_sync(WZ_FULL_MASK, verdict, __ffs(failing) - 1) : WZ_STATUS_OK;
}

__device__ __forceinline__ RleRound rle_parse_round(const u8* ctl, const u8* pay, u32 m, u32 r,
                                                    u32 pay_len, u32 seg_len, u32 pay_base,
                                                    u32 out_base) {
    const u32 lane = wz_lane();
    RleRound t;
    t.active = r + lane < m;
    const u32 c = t.active ? (u32)ctl[r + lane] : 0u;
    t.literal = c < 128u;
    const u32 plen = rle_payload_len(t.active, c);
    const u32 pincl = wz_warp_inclusive_sum<u32>(plen);
    t.poff = pay_base + pincl - plen;
    const bool whole = t.poff + plen <= pay_len;
    rle_token_output(t.active && whole, c, pay, t.poff, t.olen, t.value);
    t.oincl = wz_warp_inclusive_sum<u32>(t.olen);
    t.ooff = out_base + t.oincl - t.olen;
    t.status = rle_first_verdict(rle_token_verdict(t.active, whole, t.ooff, t.olen, seg_len));
    t.pay_step = __shfl_sync(WZ_FULL_MASK, pincl, 31);
    t.out_step = __shfl_sync(WZ_FULL_MASK, t.oincl, 31);
    return t;
}

// The verdict once every token is parsed: the tokens must fill the segment and use up the
// payload area.
__device__ __forceinline__ u32 rle_segment_end_status(u32 out_base, u32 seg_len, u32 pay_base,
                                                      u32 pay_len) {
    if (out_base < seg_len) return WZ_STATUS_UNDERFLOW;
    if (pay_base != pay_len) return WZ_STATUS_CORRUPT;
    return WZ_STATUS_OK;
}

// Decodes one segment of n_in bytes at base + head (base 16-byte aligned: the stage in shared
// memory, or the payload in global memory) into dst (16-byte aligned), writing token by token:
// lanes write their own short tokens; tokens of more than RLE_DEC_LONG bytes are written by the
// whole warp, one after another. The fallback of the mapped decoder below (segments with more
// tokens than it has descriptors, and unstaged segments). A round's tokens are written only
// once the round has passed its checks, so a failing segment may have written the tokens of
// its earlier rounds, all inside the segment (its chunk is reported, its output is void).
// Reads up to 11 bytes past the segment (the stage has slack there, the payload buffer
// RLE_PAYLOAD_SLACK bytes). Returns the segment's status. Whole warp.
__device__ __forceinline__ u32 rle_decode_segment(const u8* base, u32 head, u32 n_in,
                                                  u32 seg_len, u8* __restrict__ dst) {
    const u32 lane = wz_lane();
    const u8* t = base + head;
    if (n_in < RLE_HEADER) return WZ_STATUS_TRUNCATED;
    const u32 m = (u32)t[0] | ((u32)t[1] << 8);
    if (RLE_HEADER + m > n_in) return WZ_STATUS_TRUNCATED;
    const u32 pay_len = n_in - RLE_HEADER - m;
    const u8* ctl = t + (n_in - m);
    const u8* pay = t + RLE_HEADER;
    u32 pay_base = 0, out_base = 0;
    for (u32 r = 0; r < m; r += 32u) {
        const RleRound k = rle_parse_round(ctl, pay, m, r, pay_len, seg_len, pay_base, out_base);
        if (k.status != WZ_STATUS_OK) return k.status;
        // Consecutive literal tokens are contiguous in the payload and in the output: a stretch
        // of them longer than RLE_DEC_LONG is copied by the whole warp at once (its first lane
        // describes it), as is every run longer than that; lanes write the rest themselves.
        const u32 lits = __ballot_sync(WZ_FULL_MASK, k.active && k.literal);
        const u32 upto = (2u << lane) - 1u;  // lanes 0..lane
        const u32 starts = lits & ~(lits << 1);
        const u32 first = 31u - (u32)__clz((starts & upto) | 1u);
        const u32 after = ~lits & ~upto;
        const u32 last = after ? (u32)__ffs(after) - 2u : 31u;
        const u32 span_lo = __shfl_sync(WZ_FULL_MASK, k.ooff, first);
        const u32 span_hi = out_base + __shfl_sync(WZ_FULL_MASK, k.oincl, last);
        const bool by_warp = k.literal ? span_hi - span_lo > RLE_DEC_LONG : k.olen > RLE_DEC_LONG;
        if (k.active && !by_warp && k.olen) {
            rle_write_token_lane(dst, k.ooff, k.olen, k.literal, k.value, base,
                                 head + RLE_HEADER + k.poff);
        }
        const bool task = k.active && by_warp && (!k.literal || first == lane);
        const u32 t_len = k.literal ? span_hi - span_lo : k.olen;
        const u32 t_src = k.literal ? k.poff : k.value;
        for (u32 tasks = __ballot_sync(WZ_FULL_MASK, task); tasks; tasks &= tasks - 1u) {
            const int b = __ffs(tasks) - 1;
            const u32 o = __shfl_sync(WZ_FULL_MASK, k.ooff, b);
            const u32 len = __shfl_sync(WZ_FULL_MASK, t_len, b);
            const u32 src = __shfl_sync(WZ_FULL_MASK, t_src, b);
            if (!__shfl_sync(WZ_FULL_MASK, (u32)k.literal, b)) {
                rle_fill_warp(dst, o, len, src);
            } else {
                rle_copy_warp(dst, o, base, head + RLE_HEADER + src, len);
            }
        }
        pay_base += k.pay_step;
        out_base += k.out_step;
    }
    return rle_segment_end_status(out_base, seg_len, pay_base, pay_len);
}

// Unit j's first token (the one covering its first byte) goes to k; returns the unit's later
// token starts as a bit set (bit a: a token starts at the unit's byte a).
__device__ __forceinline__ u32 rle_unit_first(const RleMap& map, u32 j, u32& k) {
    const u32 wi = j >> 1;
    const u32 sh = (j & 1u) * 16u;
    const u32 word = map.starts[wi];
    const u32 bits = (word >> sh) & 0xffffu;
    // Starts at or before the unit's first byte, less one.
    k = (u32)map.prefix[wi] + __popc(word & ((1u << sh) - 1u)) + (bits & 1u) - 1u;
    return bits & ~1u;
}

// Stores unit j (16 bytes) of a segment of seg_len bytes at dst (16-byte aligned).
__device__ __forceinline__ void rle_store_unit(u8* __restrict__ dst, u32 j, uint4 x, u32 seg_len) {
    if (16u * j + 16u <= seg_len) {
        __stcs(reinterpret_cast<uint4*>(dst) + j, x);
    } else {
        for (u32 b = 0; 16u * j + b < seg_len; b++) {
            const u32 v = b < 4u ? x.x : b < 8u ? x.y : b < 12u ? x.z : x.w;
            dst[16u * j + b] = (u8)(v >> (8u * (b & 3u)));
        }
    }
}

// The mapped decoder, for a staged segment (its byte x at w.tok[RLE_DEC_FRONT + head + x]).
// Pass 1 parses and checks every token (rle_parse_round) and records, per output byte where a
// token starts, a bit in `starts`, and per such token (in order) a descriptor: a run's byte, or
// where a literal's output byte p sits in the stage (p + delta). Nothing is written before the
// whole segment has passed. Pass 2 writes the segment straight to `dst` (16-byte aligned),
// 16 bytes a lane: the unit's first token is the number of token starts up to its first byte
// (a prefix count per bitmap word, then a popcount), and every later start in the unit's 16 bits
// overwrites the unit's bytes from there on. Returns the segment's status, or RLE_DEC_REDO when
// the segment has more tokens than descriptors (the caller then decodes it token by token).
#define RLE_DEC_REDO 0xffffffffu
__device__ __forceinline__ u32 rle_decode_mapped(RleDecodeWarp& w, u32 head, u32 n_in,
                                                 u32 seg_len, u8* __restrict__ dst) {
    const u32 lane = wz_lane();
    const u8* t = w.tok + RLE_DEC_FRONT + head;
    if (n_in < RLE_HEADER) return WZ_STATUS_TRUNCATED;
    const u32 m = (u32)t[0] | ((u32)t[1] << 8);
    if (RLE_HEADER + m > n_in) return WZ_STATUS_TRUNCATED;
    const u32 pay_len = n_in - RLE_HEADER - m;
    const u8* ctl = t + (n_in - m);
    const u8* pay = t + RLE_HEADER;
    RleMap& map = w.map;
#pragma unroll
    for (u32 i = 0; i < RLE_SEG / 32u / 32u; i++) map.starts[lane + 32u * i] = 0u;
    __syncwarp();
    u32 pay_base = 0, out_base = 0, descs = 0;
    // A literal's output byte p is staged at w.tok[p + delta]; descriptors hold delta biased by
    // RLE_DEC_BIAS (delta >= RLE_DEC_FRONT - RLE_SEG), shifted left by one, with bit 0 set.
    const u32 pay_stage = RLE_DEC_FRONT + head + RLE_HEADER + RLE_DEC_BIAS;
    const u32 below = (1u << lane) - 1u;
    // Two tokens a lane per round (controls r + 2l and r + 2l + 1): the two scans and the
    // verdict serve 64 tokens. Within a lane its first token comes first, so the lowest failing
    // lane's first failing token is still the sequential decoder's verdict.
    for (u32 r = 0; r < m; r += 64u) {
        const u32 i0 = r + 2u * lane;
        const bool a0 = i0 < m, a1 = i0 + 1u < m;
        const u32 c0 = a0 ? (u32)ctl[i0] : 0u, c1 = a1 ? (u32)ctl[i0 + 1u] : 0u;
        const u32 pl0 = rle_payload_len(a0, c0), pl1 = rle_payload_len(a1, c1);
        const u32 pincl = wz_warp_inclusive_sum<u32>(pl0 + pl1);
        const u32 p0 = pay_base + pincl - pl0 - pl1, p1 = p0 + pl0;
        const bool wh0 = p0 + pl0 <= pay_len, wh1 = p1 + pl1 <= pay_len;
        u32 ol0, v0, ol1, v1;
        rle_token_output(a0 && wh0, c0, pay, p0, ol0, v0);
        rle_token_output(a1 && wh1, c1, pay, p1, ol1, v1);
        const u32 oincl = wz_warp_inclusive_sum<u32>(ol0 + ol1);
        const u32 o0 = out_base + oincl - ol0 - ol1, o1 = o0 + ol0;
        const u32 f0 = rle_token_verdict(a0, wh0, o0, ol0, seg_len);
        const u32 st = rle_first_verdict(f0 != WZ_STATUS_OK ? f0 : rle_token_verdict(a1, wh1, o1, ol1, seg_len));
        if (st != WZ_STATUS_OK) return st;
        const bool s0 = a0 && ol0 != 0u, s1 = a1 && ol1 != 0u;
        const u32 b0 = __ballot_sync(WZ_FULL_MASK, s0), b1 = __ballot_sync(WZ_FULL_MASK, s1);
        const u32 rank0 = descs + __popc(b0 & below) + __popc(b1 & below);
        const u32 rank1 = rank0 + (s0 ? 1u : 0u);
        if (s0) {
            atomicOr(&map.starts[o0 >> 5], 1u << (o0 & 31u));
            if (rank0 < RLE_DEC_DESCS) {
                map.desc[rank0] = c0 < 128u ? ((pay_stage + p0 - o0) << 1) | 1u : v0 << 1;
            }
        }
        if (s1) {
            atomicOr(&map.starts[o1 >> 5], 1u << (o1 & 31u));
            if (rank1 < RLE_DEC_DESCS) {
                map.desc[rank1] = c1 < 128u ? ((pay_stage + p1 - o1) << 1) | 1u : v1 << 1;
            }
        }
        descs += __popc(b0) + __popc(b1);
        pay_base += __shfl_sync(WZ_FULL_MASK, pincl, 31);
        out_base += __shfl_sync(WZ_FULL_MASK, oincl, 31);
    }
    const u32 end = rle_segment_end_status(out_base, seg_len, pay_base, pay_len);
    if (end != WZ_STATUS_OK) return end;
    if (descs > RLE_DEC_DESCS) return RLE_DEC_REDO;
    __syncwarp();
    // Token starts before every bitmap word: lane l counts words 4l .. 4l + 3.
    {
        const uint4 q = *reinterpret_cast<const uint4*>(&map.starts[4u * lane]);
        const u32 c0 = __popc(q.x), c1 = __popc(q.y), c2 = __popc(q.z), c3 = __popc(q.w);
        const u32 sum = c0 + c1 + c2 + c3;
        const u32 before = wz_warp_inclusive_sum<u32>(sum) - sum;
        map.prefix[4u * lane] = (u16)before;
        map.prefix[4u * lane + 1u] = (u16)(before + c0);
        map.prefix[4u * lane + 2u] = (u16)(before + c0 + c1);
        map.prefix[4u * lane + 3u] = (u16)(before + c0 + c1 + c2);
    }
    __syncwarp();
    // Lane l writes units l, l + 32, ...: the unit's first token's piece, then each later token
    // that starts in it overwrites the unit's bytes from its start on.
    const u32 units = (seg_len + 15u) / 16u;
    for (u32 j = lane; j < units; j += 32u) {
        u32 k;
        u32 rest = rle_unit_first(map, j, k);
        uint4 x = rle_unit_piece(w.tok, map.desc[k], 16u * j);
        for (; rest; rest &= rest - 1u) {
            const u32 a = (u32)__ffs(rest) - 1u;
            k++;
            x = rle_merge_from(x, rle_unit_piece(w.tok, map.desc[k], 16u * j), a);
        }
        rle_store_unit(dst, j, x, seg_len);
    }
    return WZ_STATUS_OK;
}

extern "C" __global__ void __launch_bounds__(RLE_DEC_WARPS * 32, RLE_DEC_MIN_BLOCKS)
    rle_decode(const u8* __restrict__ payload, const u64* __restrict__ chunk_offset,
               const u32* __restrict__ chunk_csize, u64 total_len, u32 chunk_size,
               u32 segs_per_chunk, u32 total_segments, u8* __restrict__ out, u32* status) {
    __shared__ RleDecodeWarp warps[RLE_DEC_WARPS];
    RleDecodeWarp& w = warps[threadIdx.x >> 5];
    const u32 g = blockIdx.x * RLE_DEC_WARPS + (threadIdx.x >> 5);
    if (g >= total_segments) return;
    const RleSegment seg = rle_locate_segment(payload, chunk_offset, chunk_csize, total_len,
                                              chunk_size, segs_per_chunk, g);
    const u32 seg_len = seg.out_len;
    const u32 n_in = seg.n_in;
    u32 st = seg.status;
    u8* dst = out + seg.out_start;
    if (st == WZ_STATUS_OK) {
        // A segment longer than any canonical one (only a non-canonical writer makes one) is
        // read from global memory instead of the stage.
        if (n_in <= RLE_MAX_SEG_OUT) {
            const u32 head = rle_stage_tokens(w, seg.tok, n_in);
            st = rle_decode_mapped(w, head, n_in, seg_len, dst);
            if (st == RLE_DEC_REDO) {
                __syncwarp();
                st = rle_decode_segment(w.tok + RLE_DEC_FRONT, head, n_in, seg_len, dst);
            }
        } else {
            const u32 head = (u32)((u64)seg.tok & 15u);
            st = rle_decode_segment(seg.tok - head, head, n_in, seg_len, dst);
        }
    }
    if (st != WZ_STATUS_OK && wz_lane() == 0) atomicMax(&status[seg.chunk], st);
}
