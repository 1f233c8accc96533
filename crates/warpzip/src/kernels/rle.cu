// Byte run-length encoding (codec `rle`, layout in codec/rle/format.rs and docs/format.md).
// One warp per 4096-byte segment. The encoder stages the segment in shared memory, finds the
// canonical tokens with bitmaps (run heads, bytes inside runs, token-group starts), and lets
// lane l own bytes [128 l, 128 l + 128): its output size comes in closed form from popcounts,
// so the segment's size is published to the decoupled look-back before any token is written;
// then every lane writes the run tokens that start in its bytes and copies the literal bytes
// that lie there (with their control bytes), whichever lane's token they belong to. Two
// decoders: the sliced one (each lane decodes the tokens of its 32nd of the segment's token
// bytes) and the window one (the warp walks the tokens together, for streams of few long
// runs); the host picks one per container from its ratio (DecodeKernel::pick).
#include "common.cuh"

#define RLE_SEG 4096u
#define RLE_WORDS (RLE_SEG / 32u)
#define RLE_MAX_SEG_OUT (RLE_SEG + RLE_SEG / 128u)
#define RLE_ENC_WARPS 2
#define RLE_DEC_WARPS 8

// The segment's bytes in shared memory: byte p sits in word (p / 4) + (p / 128), one pad word
// after every 128 bytes, so that lanes reading their own 128-byte ranges hit distinct banks.
#define RLE_IN_WORDS (RLE_WORDS * 8u + RLE_WORDS / 4u + 4u)

struct __align__(16) RleEncodeWarp {
    u32 in[RLE_IN_WORDS];
    union {
        u8 out[RLE_MAX_SEG_OUT + 16];  // the segment's tokens, written after the plan
        u32 head[RLE_WORDS + 1];  // run heads, plus the sentinel head at position n
    };
};

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
    u32 total;  // the segment's encoded length
    u32 open_start, open_off, open_len;
    bool open_run;
    u32 first_off;  // output offset of the first group that starts in the lane's bytes
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

__device__ __forceinline__ u32 rle_varint_len(u32 v) { return v < 128u ? 1u : (v < 16384u ? 2u : 3u); }

// Output bytes that the lane's bytes under `mask` account for: two per run start, one control
// byte per literal-stretch start, and every literal byte.
__device__ __forceinline__ u32 rle_lane_out_bytes(u64 run_lo, u64 run_hi, u64 lgr_lo, u64 lgr_hi,
                                                  u64 lit_lo, u64 lit_hi, u64 mask_lo, u64 mask_hi) {
    return 2u * (u32)(__popcll(run_lo & mask_lo) + __popcll(run_hi & mask_hi)) +
           (u32)(__popcll(lgr_lo & mask_lo) + __popcll(lgr_hi & mask_hi)) +
           (u32)(__popcll(lit_lo & mask_lo) + __popcll(lit_hi & mask_hi));
}

// Encoded size of a token group: a run of `len` bytes, or a literal stretch of `len` bytes
// (one control byte per 128).
__device__ __forceinline__ u32 rle_group_size(bool is_run, u32 len) {
    if (is_run) return len <= 129u ? 2u : 2u + rle_varint_len(len - 130u);
    return len + (len + 127u) / 128u;
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
    // The output bytes each lane's bytes account for, in closed form: every literal byte, one
    // control byte per literal group starting here, two bytes per run starting here (plus the
    // varint of a long run, which can only be the lane's last group), and the control byte of
    // the open literal group's next 128-byte piece if that piece begins here.
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
    const u32 before_last =
        rle_lane_out_bytes(run_lo, run_hi, lgr_lo, lgr_hi, lit_lo, lit_hi, below_lo, below_hi) + piece;
    u32 sum = rle_lane_out_bytes(run_lo, run_hi, lgr_lo, lgr_hi, lit_lo, lit_hi, ~0ull, ~0ull) + piece;
    if (has && last_run && last_len > 129u) sum += rle_varint_len(last_len - 130u);
    const u32 incl = wz_warp_inclusive_sum<u32>(sum);
    const u32 off = incl - sum;  // output offset of the lane's first byte
    plan.total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    plan.open_off = __shfl_sync(WZ_FULL_MASK, off + before_last, from);
    // Offset of the lane's first own group: after the open group's part in the lane's bytes.
    plan.first_off = off + piece + (open_literal_here ? open_end - r0 : 0u);
    __syncwarp();  // the bitmaps (which share memory with w.out) are no longer read
}

// The four segment bytes at a..a+3 (little-endian), from two words and a funnel shift.
__device__ __forceinline__ u32 rle_in_bytes4(const RleEncodeWarp& w, u32 a) {
    const u32 wi = a >> 2;
    return __funnelshift_r(rle_in_word(w, wi), rle_in_word(w, wi + 1u), 8u * (a & 3u));
}

// Stores the low `cnt` (< 4) bytes of x at w.out[d..].
__device__ __forceinline__ void rle_store_bytes(RleEncodeWarp& w, u32 d, u32 x, u32 cnt) {
#pragma unroll
    for (u32 t = 0; t < 3u; t++) {
        if (t < cnt) w.out[d + t] = (u8)(x >> (8u * t));
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
            *reinterpret_cast<u32*>(&w.out[d]) = __funnelshift_r(lo, hi, sh);
            lo = hi;
        }
    }
    if (a < b) rle_store_bytes(w, d, rle_in_bytes4(w, a), b - a);
}

// Copies the part [p, e) of the literal stretch (start s, length len, output offset o) that lies
// in one lane's bytes, with the control byte of every 128-byte piece that begins there.
__device__ __forceinline__ void rle_copy_literal_part(RleEncodeWarp& w, u32 p, u32 e, u32 s,
                                                      u32 len, u32 o) {
    while (p < e) {
        const u32 j = p - s;
        const u32 piece_end = min(e, s + (j / 128u + 1u) * 128u);
        const u32 d = o + j + j / 128u;
        if ((j & 127u) == 0u) w.out[d] = (u8)(min(128u, len - j) - 1u);
        rle_copy_bytes(w, p, piece_end, d + 1u);
        p = piece_end;
    }
}

// Writes the run token of `len` bytes of `value` at w.out[o].
__device__ __forceinline__ void rle_write_run(RleEncodeWarp& w, u32 o, u32 len, u32 value) {
    if (len <= 129u) {
        w.out[o] = (u8)(0x80u + len - 3u);
        w.out[o + 1] = (u8)value;
    } else {
        u32 x = len - 130u;
        w.out[o++] = 0xffu;
        while (x >= 128u) {
            w.out[o++] = (u8)(x | 0x80u);
            x >>= 7;
        }
        w.out[o++] = (u8)x;
        w.out[o] = (u8)value;
    }
}

// Writes the segment's tokens into w.out following the plan. Every lane handles its own 128
// bytes: the run tokens of the groups that start there, and the literal bytes (with their
// control bytes) that lie there, whichever lane's group they belong to. Whole warp.
__device__ void rle_encode_write(RleEncodeWarp& w, u32 n, const RlePlan& plan) {
    const u32 lane = wz_lane();
    const u32 r0 = 128u * lane;
    const u32 r1 = min(r0 + 128u, n);
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
            if (!is_run && p < e) rle_copy_literal_part(w, p, e, s, len, o);
            if (cur >= 128u) break;
            rle_next_group(lo, hi, cur, plan, lane, s, len, is_run);
            o = next_off;
            next_off += rle_group_size(is_run, len);
            p = s;
            if (is_run) rle_write_run(w, o, len, rle_in_byte(w, s));
        }
    }
    __syncwarp();
}

// Copies len bytes from (16-byte aligned) shared memory to any global address: head bytes
// until the destination is 16-byte aligned, then 16-byte stores assembled from five aligned
// shared-memory words with funnel shifts, then the tail bytes. Whole warp. Reads up to 4 bytes
// past `len` in `src`.
__device__ __forceinline__ void rle_copy_to_global(u8* dst, const u8* src, u32 len) {
    const u32 lane = wz_lane();
    const u32 head = min((u32)((16u - ((u64)dst & 15u)) & 15u), len);
    if (lane < head) dst[lane] = src[lane];
    const u32 vecs = (len - head) / 16u;
    const u32 shift = (head & 3u) * 8u;
    const u32* a = reinterpret_cast<const u32*>(src) + (head >> 2);
    uint4* d = reinterpret_cast<uint4*>(dst + head);
    for (u32 k = lane; k < vecs; k += 32u) {
        const u32* q = a + 4u * k;
        const u32 w0 = q[0], w1 = q[1], w2 = q[2], w3 = q[3], w4 = q[4];
        uint4 v;
        v.x = __funnelshift_r(w0, w1, shift);
        v.y = __funnelshift_r(w1, w2, shift);
        v.z = __funnelshift_r(w2, w3, shift);
        v.w = __funnelshift_r(w3, w4, shift);
        d[k] = v;
    }
    const u32 done = head + 16u * vecs;
    if (lane < len - done) dst[done + lane] = src[done + lane];
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
    const u32 tokens = plan.total;
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
    rle_copy_to_global(out + dst, w.out, tokens);
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

__device__ __forceinline__ u32 rle_read_u32_le(const u8* p) {
    return (u32)p[0] | ((u32)p[1] << 8) | ((u32)p[2] << 16) | ((u32)p[3] << 24);
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

// End of a decoded segment, whole warp: tokens left over are corrupt; a failing segment raises
// its chunk's status (the largest code wins), a good one goes from the shared-memory stage
// `sout` to `dst` (16-byte streaming stores when whole and aligned).
__device__ __forceinline__ void rle_finish_segment(u32 st, u32 ip, u32 n_in, const u8* sout,
                                                   u8* dst, u32 seg_len, u32* chunk_status) {
    const u32 lane = wz_lane();
    if (st == WZ_STATUS_OK && ip != n_in) st = WZ_STATUS_CORRUPT;
    __syncwarp();
    if (st != WZ_STATUS_OK) {
        if (lane == 0) atomicMax(chunk_status, st);
        return;
    }
    if (seg_len == RLE_SEG && (((u64)dst) & 15u) == 0) {
        const uint4* src = reinterpret_cast<const uint4*>(sout);
        uint4* d = reinterpret_cast<uint4*>(dst);
        for (u32 v = lane; v < RLE_SEG / 16u; v += 32u) __stcs(d + v, src[v]);
    } else {
        for (u32 j = lane; j < seg_len; j += 32u) dst[j] = sout[j];
    }
}

// The window decoder: every lane runs the token parser, the lanes share the writes into the
// segment staged in shared memory, and the token stream is read through a register window:
// lane l holds byte `wbase + l` of the segment's tokens, so a token's header bytes (at most 5:
// control, up to 3 varint bytes, value) are shuffles instead of dependent loads, and one
// coalesced byte load refills 32 bytes. The checks and their order are those of the CPU
// decoder (docs/format.md, "Decoding and errors").
__device__ __forceinline__ u32 rle_win_byte(u32 win, u32 wbase, u32 x) {
    return __shfl_sync(WZ_FULL_MASK, win, (int)(x - wbase));
}

extern "C" __global__ void __launch_bounds__(RLE_DEC_WARPS * 32)
    rle_decode_win(const u8* __restrict__ payload, const u64* __restrict__ chunk_offset,
                   const u32* __restrict__ chunk_csize, u64 total_len, u32 chunk_size,
                   u32 segs_per_chunk, u32 total_segments, u8* __restrict__ out, u32* status) {
    __shared__ __align__(16) u8 stage[RLE_DEC_WARPS][RLE_SEG];
    const u32 lane = wz_lane();
    const u32 g = blockIdx.x * RLE_DEC_WARPS + (threadIdx.x >> 5);
    if (g >= total_segments) return;
    u8* sout = stage[threadIdx.x >> 5];
    const RleSegment seg = rle_locate_segment(payload, chunk_offset, chunk_csize, total_len,
                                              chunk_size, segs_per_chunk, g);
    const u32 c = seg.chunk;
    const u32 seg_len = seg.out_len;
    const u8* tok = seg.tok;
    const u32 n_in = seg.n_in;
    u32 st = seg.status;
    u32 ip = 0, o = 0;
    u32 wbase = 0;
    u32 win = (lane < n_in) ? (u32)__ldg(tok + lane) : 0u;
    while (st == WZ_STATUS_OK && o < seg_len) {
        if (ip >= n_in) { st = WZ_STATUS_UNDERFLOW; break; }
        if (ip + 5u > wbase + 32u) {
            wbase = ip;
            win = (wbase + lane < n_in) ? (u32)__ldg(tok + wbase + lane) : 0u;
        }
        const u32 ctl = rle_win_byte(win, wbase, ip);
        const u32 b1 = rle_win_byte(win, wbase, ip + 1u);
        if (ctl < 128u) {
            const u32 len = ctl + 1u;
            if (ip + 1u + len > n_in) { st = WZ_STATUS_TRUNCATED; break; }
            if (o + len > seg_len) { st = WZ_STATUS_OVERFLOW; break; }
            for (u32 j = lane; j < len; j += 32u) sout[o + j] = __ldg(tok + ip + 1u + j);
            ip += 1u + len;
            o += len;
        } else {
            u32 q = ip + 1u;
            u32 len;
            u32 value;
            if (ctl == 0xffu) {
                u32 v = 0, shift = 0;
                bool done = false;
                for (u32 b = 0; b < 3u; b++) {
                    if (q >= n_in) break;
                    const u32 byte = rle_win_byte(win, wbase, q);
                    q++;
                    v |= (byte & 0x7fu) << shift;
                    shift += 7u;
                    if (!(byte & 0x80u)) { done = true; break; }
                }
                if (!done) { st = (q >= n_in) ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT; break; }
                len = v + 130u;
                if (q >= n_in) { st = WZ_STATUS_TRUNCATED; break; }
                value = rle_win_byte(win, wbase, q);
            } else {
                len = ctl - 0x80u + 3u;
                if (q >= n_in) { st = WZ_STATUS_TRUNCATED; break; }
                value = b1;
            }
            q++;
            if (o + len > seg_len) { st = WZ_STATUS_OVERFLOW; break; }
            if (len <= 32u) {
                if (lane < len) sout[o + lane] = (u8)value;
            } else {
                for (u32 j = lane; j < len; j += 32u) sout[o + j] = (u8)value;
            }
            ip = q;
            o += len;
        }
    }
    rle_finish_segment(st, ip, n_in, sout, out + seg.out_start, seg_len, &status[c]);
}

// Sliced decoder. The segment's tokens are first loaded into shared memory with 16-byte loads
// that are all in flight together, then cut into 32 slices of equal token bytes, one per lane.
// Each lane learns where the first token that starts in its slice begins, walks its slice's
// tokens, and writes their bytes itself (short tokens) or queues them for the whole warp (long
// ones); a warp scan of the lanes' output lengths says where every lane writes. The slice
// entries come from one of two walks. Token-dense streams (at most RLE_SL_DENSE_MAX bytes):
// every lane first computes, right to left over its slice, where the first token after the
// slice starts if a token starts at each byte (`skip`, relative to the slice's end), so the
// warp then hops one slice per step. Long-token streams: the warp walks the tokens one by one.
// The statuses are those of the CPU and window decoders, which walk the tokens in order: each
// lane checks its tokens in order against their output offsets, and the lowest failing lane's
// verdict wins.
#define RLE_SL_WARPS 4
#define RLE_SL_TOKCAP (RLE_MAX_SEG_OUT + 32u)
#define RLE_SL_VECS_PER_LANE ((RLE_SL_TOKCAP / 16u + 31u) / 32u)
#define RLE_SL_DENSE_MAX 3072u
#define RLE_SL_DENSE_MIN 64u
#define RLE_SL_LONG 64u
#define RLE_SL_QUEUE 64u
#define RLE_SL_NONE 0xffffffffu
#define RLE_SL_HALT 255u
// Output lengths are summed saturating here (anything above a segment is an overflow anyway).
#define RLE_SL_LEN_CAP 65536u

struct __align__(16) RleSliceWarp {
    u8 tok[RLE_SL_TOKCAP];  // the segment's token bytes, token byte x at tok[head + x]
    union {
        u8 out[RLE_SEG];   // the decoded segment
        u8 skip[RLE_SEG];  // dense streams: the slice hop of every token byte (before `out`)
    };
    // Tokens of more than RLE_SL_LONG bytes (so at most 63 in a segment), written by the whole
    // warp: (offset | length << 16, the value of a run or 1 << 31 | the literal's first byte).
    uint2 queue[RLE_SL_QUEUE];
    u32 queued;
};

// The varint of the long run at t[p] (p < n_in): its length in bytes (1-3; bytes at or past
// n_in read as 0, so a varint cut by the stream's end seems to end there) and its value; `bad`
// when all three bytes carry the continuation bit. Every read is below n_in.
__device__ __forceinline__ u32 rle_sl_long_varint(const u8* t, u32 p, u32 n_in, u32& v, bool& bad) {
    const u32 b1 = p + 1u < n_in ? t[p + 1u] : 0u;
    const u32 b2 = p + 2u < n_in ? t[p + 2u] : 0u;
    const u32 b3 = p + 3u < n_in ? t[p + 3u] : 0u;
    const u32 vlen = !(b1 & 0x80u) ? 1u : (!(b2 & 0x80u) ? 2u : 3u);
    bad = vlen == 3u && (b3 & 0x80u);
    v = (b1 & 0x7fu) | (vlen > 1u ? (b2 & 0x7fu) << 7 : 0u) | (vlen > 2u ? (b3 & 0x7fu) << 14 : 0u);
    return vlen;
}

// The token at t[p] (p < n_in): its size in bytes, output length (at most 8192), value byte
// (runs), whether it is a literal, and the status the CPU and window decoders give a token they
// cannot read whole (truncated, or a varint of more than 3 bytes). Every read is below n_in.
struct RleToken {
    u32 size, len, value, st;
    bool literal;
};

__device__ __forceinline__ RleToken rle_sl_token(const u8* t, u32 p, u32 n_in) {
    RleToken k;
    const u32 ctl = t[p];
    k.literal = ctl < 128u;
    k.st = WZ_STATUS_OK;
    k.value = 0;
    if (k.literal) {
        k.len = ctl + 1u;
        k.size = k.len + 1u;
        if (p + k.size > n_in) k.st = WZ_STATUS_TRUNCATED;
        return k;
    }
    u32 vlen = 0;
    if (ctl != 0xffu) {
        k.len = ctl - 0x80u + 3u;
    } else {
        u32 v;
        bool bad;
        vlen = rle_sl_long_varint(t, p, n_in, v, bad);
        k.len = min(v + 130u, 8192u);
        // Three continuation bytes: corrupt, unless the stream ends right after them.
        if (bad) {
            k.st = p + 4u >= n_in ? WZ_STATUS_TRUNCATED : WZ_STATUS_CORRUPT;
            k.size = 4u;
            return k;
        }
    }
    k.size = 2u + vlen;
    if (p + k.size > n_in) {  // the varint or the value byte lies past the stream
        k.st = WZ_STATUS_TRUNCATED;
        return k;
    }
    k.value = t[p + 1u + vlen];
    return k;
}

// One lane fills out[o, o + len) with `value`: bytes up to a word boundary, words up to a
// 16-byte boundary, 16-byte stores, then words and bytes.
__device__ __forceinline__ void rle_sl_fill(u8* out, u32 o, u32 len, u32 value) {
    u32 d = o;
    const u32 e = o + len;
    while (d < e && (d & 3u)) out[d++] = (u8)value;
    const u32 rep = value * 0x01010101u;
    while (d + 4u <= e && (d & 15u)) {
        *reinterpret_cast<u32*>(out + d) = rep;
        d += 4u;
    }
    for (; d + 16u <= e; d += 16u) *reinterpret_cast<uint4*>(out + d) = make_uint4(rep, rep, rep, rep);
    for (; d + 4u <= e; d += 4u) *reinterpret_cast<u32*>(out + d) = rep;
    while (d < e) out[d++] = (u8)value;
}

// One lane copies tok[s, s + len) (tok 16-byte aligned) to out[o, o + len): bytes up to a word
// boundary of the destination, then words assembled from two aligned source words with a
// funnel shift, then bytes. Reads up to 4 bytes past the source range.
__device__ __forceinline__ void rle_sl_copy(u8* out, u32 o, const u8* tok, u32 s, u32 len) {
    u32 d = o;
    const u32 e = o + len;
    while (d < e && (d & 3u)) out[d++] = tok[s++];
    if (d + 4u <= e) {
        const u32* tw = reinterpret_cast<const u32*>(tok);
        const u32 sh = 8u * (s & 3u);
        u32 wi = s >> 2;
        u32 lo = tw[wi];
        for (; d + 4u <= e; d += 4u, s += 4u) {
            const u32 hi = tw[++wi];
            *reinterpret_cast<u32*>(out + d) = __funnelshift_r(lo, hi, sh);
            lo = hi;
        }
    }
    while (d < e) out[d++] = tok[s++];
}

// The whole warp copies tok[s, s + len) (tok 16-byte aligned) to out[o, o + len): bytes up to a
// word boundary of the destination, words assembled with funnel shifts, bytes. Reads up to 4
// bytes past the source range.
__device__ __forceinline__ void rle_sl_copy_warp(u8* out, u32 o, const u8* tok, u32 s, u32 len) {
    const u32 lane = wz_lane();
    const u32 head = min((0u - o) & 3u, len);
    if (lane < head) out[o + lane] = tok[s + lane];
    const u32 words = (len - head) / 4u;
    const u32 s0 = s + head;
    const u32* tw = reinterpret_cast<const u32*>(tok) + (s0 >> 2);
    u32* dw = reinterpret_cast<u32*>(out + o + head);
    const u32 sh = 8u * (s0 & 3u);
    for (u32 k = lane; k < words; k += 32u) dw[k] = __funnelshift_r(tw[k], tw[k + 1u], sh);
    const u32 done = head + 4u * words;
    if (lane < len - done) out[o + done + lane] = tok[s + done + lane];
}

// The whole warp fills out[o, o + len) with `value`.
__device__ __forceinline__ void rle_sl_fill_warp(u8* out, u32 o, u32 len, u32 value) {
    const u32 lane = wz_lane();
    const u32 head = min((0u - o) & 3u, len);
    if (lane < head) out[o + lane] = (u8)value;
    const u32 d = o + head;
    const u32 words = (len - head) / 4u;
    const u32 rep = value * 0x01010101u;
    for (u32 k = lane; k < words; k += 32u) *reinterpret_cast<u32*>(out + d + 4u * k) = rep;
    const u32 done = head + 4u * words;
    if (lane < len - done) out[o + done + lane] = (u8)value;
}

// Size in bytes of the token that would start at t[p] (p < n_in), reading at most its varint
// (only bytes below n_in); `bad` when the varint runs over 3 bytes. The size may reach past n_in
// (a truncated token).
__device__ __forceinline__ u32 rle_sl_token_size(const u8* t, u32 p, u32 n_in, bool& bad) {
    const u32 ctl = t[p];
    bad = false;
    if (ctl < 128u) return ctl + 2u;
    if (ctl != 0xffu) return 2u;
    u32 v;
    return 2u + rle_sl_long_varint(t, p, n_in, v, bad);
}

// The lane's entry (the first token start in its slice [a, b), or RLE_SL_NONE) for a
// token-dense stream in shared memory: every lane fills `skip` for its slice right to left
// (where the first token after the slice starts, relative to b, if a token starts at p; HALT
// when the chain from p meets a token it cannot read), then the warp hops one slice per step.
__device__ __forceinline__ u32 rle_sl_entry_by_hops(RleSliceWarp& w, const u8* t, u32 n_in,
                                                    u32 width, u32 a, u32 b) {
    const u32 lane = wz_lane();
    for (u32 p = b; p-- > a;) {
        bool bad;
        const u32 nxt = p + rle_sl_token_size(t, p, n_in, bad);
        u32 f;
        if (bad || nxt > n_in) f = RLE_SL_HALT;
        else if (nxt >= b) f = nxt - b;
        else f = w.skip[nxt];
        w.skip[p] = (u8)f;
    }
    __syncwarp();
    u32 entry = RLE_SL_NONE, e = 0;
    for (u32 s = 0; s < 32u; s++) {
        const u32 bs = min((s + 1u) * width, n_in);
        if (e < bs) {
            if (lane == s) entry = e;
            const u32 f = w.skip[e];
            e = f == RLE_SL_HALT ? n_in : bs + f;
        }
    }
    return entry;
}

// The lane's entry for any other stream: the warp walks the tokens one by one, reading only
// control bytes (and a long run's varint); a token that cannot be read ends the walk, and the
// lane whose slice holds it reports it.
__device__ __forceinline__ u32 rle_sl_entry_by_walk(const u8* t, u32 n_in, u32 a, u32 b) {
    u32 entry = RLE_SL_NONE, e = 0;
    while (e < n_in) {
        if (e >= a && e < b && entry == RLE_SL_NONE) entry = e;
        bool bad;
        const u32 size = rle_sl_token_size(t, e, n_in, bad);
        if (bad) break;
        e += size;
    }
    return entry;
}

// Output length of the lane's tokens, from `entry` to the end of its slice (saturating).
__device__ __forceinline__ u32 rle_sl_lane_len(const u8* t, u32 n_in, u32 entry, u32 b) {
    u32 len = 0;
    if (entry == RLE_SL_NONE) return 0u;
    for (u32 p = entry; p < b;) {
        const RleToken k = rle_sl_token(t, p, n_in);
        if (k.st != WZ_STATUS_OK) break;
        len = min(len + k.len, RLE_SL_LEN_CAP);
        p += k.size;
    }
    return len;
}

// The lane's tokens in order from output offset o: the first that the CPU decoder would
// reject gives the lane's verdict (returned); the others are written (short ones) or queued for
// the whole warp (long ones). t is w.tok + head when SHARED.
template <bool SHARED>
__device__ __forceinline__ u32 rle_sl_lane_write(RleSliceWarp& w, const u8* t, u32 head, u32 n_in,
                                                 u32 seg_len, u32 entry, u32 b, u32 o) {
    if (entry == RLE_SL_NONE) return WZ_STATUS_OK;
    for (u32 p = entry; p < b;) {
        if (o >= seg_len) return WZ_STATUS_CORRUPT;  // the segment is full and tokens are left
        const RleToken k = rle_sl_token(t, p, n_in);
        if (k.st != WZ_STATUS_OK) return k.st;
        if (o + k.len > seg_len) return WZ_STATUS_OVERFLOW;
        if (k.len > RLE_SL_LONG) {
            const u32 slot = atomicAdd(&w.queued, 1u);
            if (slot < RLE_SL_QUEUE) {
                w.queue[slot] = make_uint2(o | (k.len << 16), k.literal ? (0x80000000u | (p + 1u)) : k.value);
            }
        } else if (k.literal) {
            if (SHARED) {
                rle_sl_copy(w.out, o, w.tok, head + p + 1u, k.len);
            } else {
                for (u32 j = 0; j < k.len; j++) w.out[o + j] = t[p + 1u + j];
            }
        } else {
            rle_sl_fill(w.out, o, k.len, k.value);
        }
        o += k.len;
        p += k.size;
    }
    return WZ_STATUS_OK;
}

// The sliced decode of one segment whose n_in token bytes are at t: w.tok + head when SHARED,
// else global memory (a stream too long to stage, which only a non-canonical writer makes).
// Returns the segment's status; w.out holds the segment when it is OK. Whole warp.
template <bool SHARED>
__device__ __forceinline__ u32 rle_sl_decode(RleSliceWarp& w, const u8* t, u32 head, u32 n_in,
                                             u32 seg_len) {
    const u32 lane = wz_lane();
    const u32 width = (n_in + 31u) / 32u;
    const u32 a = min(lane * width, n_in);
    const u32 b = min(a + width, n_in);
    // The slice hops pay off between a few tokens (walked) and long literals (walked too).
    const u32 entry = SHARED && n_in >= RLE_SL_DENSE_MIN && n_in <= RLE_SL_DENSE_MAX
                          ? rle_sl_entry_by_hops(w, t, n_in, width, a, b)
                          : rle_sl_entry_by_walk(t, n_in, a, b);
    __syncwarp();  // `skip` is read no more; `queued` is reset

    const u32 my_len = rle_sl_lane_len(t, n_in, entry, b);
    const u32 incl = wz_warp_inclusive_sum<u32>(my_len);
    const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    const u32 verdict = rle_sl_lane_write<SHARED>(w, t, head, n_in, seg_len, entry, b, incl - my_len);
    const u32 failing = __ballot_sync(WZ_FULL_MASK, verdict != WZ_STATUS_OK);
    if (failing) return __shfl_sync(WZ_FULL_MASK, verdict, __ffs(failing) - 1);
    if (total < seg_len) return WZ_STATUS_UNDERFLOW;
    __syncwarp();
    // The queued long tokens, each by the whole warp.
    const u32 nq = min(w.queued, RLE_SL_QUEUE);
    for (u32 i = 0; i < nq; i++) {
        const uint2 q = w.queue[i];
        const u32 o = q.x & 0xffffu, len = q.x >> 16;
        if (!(q.y & 0x80000000u)) {
            rle_sl_fill_warp(w.out, o, len, q.y);
        } else if (SHARED) {
            rle_sl_copy_warp(w.out, o, w.tok, head + (q.y & 0x7fffffffu), len);
        } else {
            const u8* src = t + (q.y & 0x7fffffffu);
            for (u32 j = lane; j < len; j += 32u) w.out[o + j] = src[j];
        }
    }
    return WZ_STATUS_OK;
}

// Copies the n_in (at most RLE_MAX_SEG_OUT) token bytes at `tok` to w.tok + head, head being
// tok's offset in its 16-byte block, then a zero vector; returns head. Whole 16-byte loads are
// all issued before any store. Whole warp.
__device__ __forceinline__ u32 rle_sl_stage_tokens(RleSliceWarp& w, const u8* tok, u32 n_in) {
    const u32 lane = wz_lane();
    const u32 head = (u32)((u64)tok & 15u);
    const u8* base = tok - head;
    const u32 end = head + n_in;
    const u32 vecs = (end + 15u) / 16u + 1u;  // and a zero vector after the tokens
    // Whole vectors, all loads issued before any store.
    uint4 q[RLE_SL_VECS_PER_LANE];
#pragma unroll
    for (u32 i = 0; i < RLE_SL_VECS_PER_LANE; i++) {
        const u32 lo = 16u * (lane + 32u * i);
        q[i] = make_uint4(0u, 0u, 0u, 0u);
        if (lo >= head && lo + 16u <= end) q[i] = __ldg(reinterpret_cast<const uint4*>(base + lo));
    }
#pragma unroll
    for (u32 i = 0; i < RLE_SL_VECS_PER_LANE; i++) {
        const u32 v = lane + 32u * i;
        if (v < vecs) *reinterpret_cast<uint4*>(&w.tok[16u * v]) = q[i];
    }
    __syncwarp();
    // The partial vectors at either end, byte by byte: lanes 0-15 the first, 16-31 the last.
    const u32 first_v = head / 16u, last_v = (end - 1u) / 16u;
    const u32 v = lane < 16u ? first_v : last_v;
    const u32 pos = 16u * v + (lane & 15u);
    const bool whole = 16u * v >= head && 16u * v + 16u <= end;
    if (n_in && !whole && (lane < 16u || last_v != first_v) && pos >= head && pos < end) {
        w.tok[pos] = __ldg(base + pos);
    }
    __syncwarp();
    return head;
}

extern "C" __global__ void __launch_bounds__(RLE_SL_WARPS * 32)
    rle_decode_slices(const u8* __restrict__ payload, const u64* __restrict__ chunk_offset,
                      const u32* __restrict__ chunk_csize, u64 total_len, u32 chunk_size,
                      u32 segs_per_chunk, u32 total_segments, u8* __restrict__ out,
                      u32* status) {
    __shared__ RleSliceWarp warps[RLE_SL_WARPS];
    RleSliceWarp& w = warps[threadIdx.x >> 5];
    const u32 lane = wz_lane();
    const u32 g = blockIdx.x * RLE_SL_WARPS + (threadIdx.x >> 5);
    if (g >= total_segments) return;
    const RleSegment seg = rle_locate_segment(payload, chunk_offset, chunk_csize, total_len,
                                              chunk_size, segs_per_chunk, g);
    const u32 seg_len = seg.out_len;
    const u32 n_in = seg.n_in;
    u32* chunk_status = &status[seg.chunk];
    u8* dst = out + seg.out_start;
    if (seg.status != WZ_STATUS_OK) {
        rle_finish_segment(seg.status, 0u, 0u, w.out, dst, seg_len, chunk_status);
        return;
    }
    if (lane == 0) w.queued = 0;

    // The tokens into shared memory (a stream longer than any canonical one, which only a
    // non-canonical writer makes, is read from global memory instead).
    u32 st;
    if (n_in <= RLE_MAX_SEG_OUT) {
        const u32 head = rle_sl_stage_tokens(w, seg.tok, n_in);
        st = rle_sl_decode<true>(w, w.tok + head, head, n_in, seg_len);
    } else {
        st = rle_sl_decode<false>(w, seg.tok, 0u, n_in, seg_len);
    }
    rle_finish_segment(st, n_in, n_in, w.out, dst, seg_len, chunk_status);
}

