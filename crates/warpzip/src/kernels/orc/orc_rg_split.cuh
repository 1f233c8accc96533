#pragma once
#include "orc/orc_rg_regions.cuh"

// ---- Split groups: RLEv1 row groups of long groups ----
// Where a row group's RLE groups are long (TPC-H RLEv1 quantities: 259 groups of 44 bytes a
// row group; ship dates: 117 of 261), warp 0 lists every group's offset and first value, and
// meanwhile the block's warps decode the listed groups, a warp a group: a run's values a lane
// each, and a literal group's varints by the lane whose 16-byte block of the payload ends
// them: inside a literal group the masks of varint ends mark exactly the varints' ends, and a
// warp scan of the blocks' counts numbers them (without first listing the ends in shared
// memory). Where the list does not reach the row group's last value, holds
// more than RG_SPLIT_GROUPS groups, or a value fails a check, the units decode the row group
// again and give the exact status.

// Whether the RLEv1 literal group at `p` of `left` varints is `bytes` bytes long: its
// payload's last byte ends a varint, and the bytes before it end left - 1.
__device__ __forceinline__ bool rg_literal_is(const u16* masks, u32 p, u32 bytes, u32 left) {
    const u32 last = p + bytes - 1u;
    return rg_ends_between(masks, p + 1u, last) == left - 1u &&
           ((reinterpret_cast<const u64*>(masks)[last >> 6] >> (last & 63u)) & 1ull);
}

// rg_v1_extent by the whole warp (every lane passes the same `p` and gets the same result): a
// literal group's varint ends are counted in 32 mask words (2 KiB of stage) at once, a word a
// lane, instead of a word after another.
__device__ __forceinline__ u32 rg_v1_extent_warp(const u8* st, const u16* masks, u32 p, u32 end,
                                                 u32& values) {
    const u32 control = st[p];
    if (control < 0x80u) return rg_v1_run_extent(st, masks, p, end, control, values);
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    const u32 lane = wz_lane();
    u32 left = 256u - control;
    values = left;
    for (u32 q = p + 1u; q < end; q = 64u * ((q >> 6) + 32u)) {
        const u32 w = (q >> 6) + lane;
        u64 m = 64u * w < end ? m64[w] : 0ull;
        if (lane == 0u) m &= ~0ull << (q & 63u);
        const u32 c = __popcll(m);
        const u32 incl = wz_warp_inclusive_sum(c);
        const u32 hit = __ballot_sync(WZ_FULL_MASK, incl >= left);
        if (hit != 0u) {
            const u32 f = (u32)__ffs(hit) - 1u;
            const u32 e = 64u * w + rg_select64(m, left - (incl - c)) + 1u;
            const u32 at = __shfl_sync(WZ_FULL_MASK, e, f);
            return at <= end ? at - p : 0u;
        }
        left -= __shfl_sync(WZ_FULL_MASK, incl, 31);
    }
    return 0u;
}

// Decodes listed group `k` by the calling warp (every lane; the result is the same in each):
// the values of the row group's stream in [skip, target) go to dst[j - skip]. Every value of
// the group is checked as the warp decoders check it, also those outside [skip, target).
// Inside a literal group the masks mark exactly its varints' ends, so each lane decodes the
// varints that end in a 16-byte block of the payload. True where every value passed.
template <typename T>
__device__ bool rg_split_group(const u8* st, const u64* m64, u32 k, u64 skip, u64 target,
                               T* __restrict__ dst, const OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    const u32 at = rr.split.at[k], ge = rr.split.at[k + 1u];
    const u64 v0 = rr.split.first[k];
    const u32 control = st[at];
    const u32 count = control < 0x80u ? control + 3u : 256u - control;
    // The group's values to write: i in [lo, hi), to dst[v0 + i - skip] (= dst[at0 + i]).
    const u32 lo = skip > v0 ? (u32)min(skip - v0, (u64)count) : 0u;
    const u32 hi = target > v0 ? (u32)min(target - v0, (u64)count) : 0u;
    // Value i goes to dst[at0 + i] for i in [lo, hi), in 32-bit arithmetic (the split path runs
    // on row groups numbered below 2^32; at0 wraps where the group starts before the skip).
    const u32 at0 = (u32)(v0 - skip);
    if (control < 0x80u) {
        // A run: control, delta, the base's varint (which the list ends the group after).
        u32 q = 0;
        i64 b = 0, delta = 0;
        if (!rg_v1_run<T>(st, at, ge, count, q, b, delta) || q != ge) return false;
        for (u32 i = lo + lane; i < hi; i += 32u) dst[at0 + i] = (T)((u64)b + (u64)delta * i);
        return true;
    }
    const u32 payload = at + 1u;
    if (ge - payload == count) {
        // A varint a byte (each byte ends one): values of -64..63, which every T holds.
        for (u32 i = lo + lane; i < hi; i += 32u) {
            dst[at0 + i] = (T)(u64)orc_unzigzag(st[payload + i]);
        }
        return true;
    }
    // Longer varints: lane l takes the payload's 16-byte blocks 32 s + l, s = 0, 1, ... (one
    // step for up to 512 bytes), and decodes the varints that end in its block, from one past
    // the last end before each (the first: one past the last end of the block before, or the
    // payload's start). A warp scan of the blocks' ends numbers them. The group holds `count`
    // varints where the payload holds `count` ends and its last byte is one.
    const u16* m16 = reinterpret_cast<const u16*>(m64);
    const u32 b_end = (ge + 15u) >> 4;
    u32 before = 0;  // the ends of the earlier steps
    bool bad = false;
    for (u32 bs = payload >> 4; bs < b_end; bs += 32u) {
        const u32 b = bs + lane, lo_byte = 16u * b;
        u32 m = 0, q = payload;
        if (b < b_end) {
            m = m16[b];
            if (lo_byte < payload) m &= 0xffffu << (payload - lo_byte);
            if (lo_byte + 16u > ge) m &= (1u << (ge - lo_byte)) - 1u;
            if (lo_byte > payload) {
                u32 pm = m16[b - 1u];
                if (lo_byte - 16u < payload) pm &= 0xffffu << (payload - (lo_byte - 16u));
                if (pm != 0u) {
                    q = lo_byte - 16u + 32u - (u32)__clz(pm);
                } else if (lo_byte - 16u >= payload && m != 0u) {
                    bad = true;  // the varint that ends first here is over 16 bytes long
                    m = 0;
                }
            }
        }
        const u32 c = __popc(m);
        const u32 incl = wz_warp_inclusive_sum(c);
        u32 i = before + incl - c;  // the number of the varint ending at the next set bit
        for (; m != 0u; m &= m - 1u, ++i) {
            const u32 e = lo_byte + (u32)__ffs(m) - 1u;  // the varint: [q, e]
            u64 value = 0;
            bool ok = true;
            if (e - q < 4u) {
                // At most 28 bits: the value fits 32 bits, signed.
                const u32 raw = lane_varint_bits32(rg_load4(st, q), e - q + 1u);
                value = (u64)(i64)(int)orc_unzigzag32(raw);
                ok = sizeof(T) >= 4u || orc_fits<T, true>(value);
            } else {
                u64 raw = 0;
                if (e - q < 8u) {
                    raw = lane_varint_bits(rg_load8(st, q), e - q + 1u);
                } else {
                    u32 r = q;
                    ok = rg_varint(st, r, ge, raw) && r == e + 1u;
                }
                value = (u64)orc_unzigzag(raw);
                ok = ok && orc_fits<T, true>(value);
            }
            if (!ok) {
                bad = true;
            } else if (i - lo < hi - lo) {
                dst[at0 + i] = (T)value;
            }
            q = e + 1u;
        }
        before += __shfl_sync(WZ_FULL_MASK, incl, 31);
    }
    const u32 last = ge - 1u;
    if (before != count || ((m16[last >> 4] >> (last & 15u)) & 1u) == 0u) return false;
    return !__any_sync(WZ_FULL_MASK, bad);
}

// Listed groups [k, k + n) (n <= 32) by the calling warp (every lane; the result is the same
// in each), where they are short (RLEv1 quantities: 259 groups of 39 values a row group, runs
// and literal groups of one-byte varints): lane j describes group k + j (a run's base and
// delta, checked at both ends, or a literal group's payload), a warp scan places the groups'
// values, and lane j of every 32 finds its group among the groups that start in those 32 (a
// bit each, one warp reduction) and writes value j, so a store writes a few groups' values side
// by side. Where a group of the batch holds varints longer than a byte, the warp decodes the
// batch a group at a time (rg_split_group). True where every value passed.
template <typename T>
__device__ bool rg_split_batch(const u8* st, const u64* m64, u32 k, u32 n, u64 skip, u64 target,
                               T* __restrict__ dst, const OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    u32 count = 0, v0 = 0, run = 0;
    u64 a = 0, delta = 0;
    bool bad = false, longer = false;
    if (lane < n) {
        const u32 at = rr.split.at[k + lane], ge = rr.split.at[k + lane + 1u];
        v0 = rr.split.first[k + lane];
        const u32 control = st[at];
        if (control < 0x80u) {
            count = control + 3u;
            run = 1u;
            u32 q = 0;
            i64 b = 0, d = 0;
            bad = !rg_v1_run<T>(st, at, ge, count, q, b, d) || q != ge;
            a = (u64)b;
            delta = (u64)d;
        } else {
            count = 256u - control;
            a = at + 1u;
            longer = ge - (at + 1u) != count;
        }
    }
    if (__any_sync(WZ_FULL_MASK, longer)) {
        bool ok = true;
        for (u32 j = 0; j < n && ok; ++j) {
            ok = rg_split_group<T>(st, m64, k + j, skip, target, dst, rr);
        }
        return ok;
    }
    // (A failed check: the row group is decoded again by the units.)
    if (__any_sync(WZ_FULL_MASK, bad)) return false;
    const u32 incl = wz_warp_inclusive_sum(count);
    const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
    const u32 first = incl - count;
    u32 before = 0;  // the groups that start before value c
    for (u32 c = 0; c < total; c += 32u) {
        const u32 j = c + lane;
        // Lanes below n hold a group of at least one value each, so value j's lane is the last
        // whose group starts at or before it: one bit a start among values c .. c + 31.
        const u32 starts = wz_window_starts(lane < n, first, c);
        const u32 o = before + wz_starts_upto(starts, lane) - 1u;
        before += __popc(starts);
        const u32 start = __shfl_sync(WZ_FULL_MASK, first, o);
        const u64 oa = __shfl_sync(WZ_FULL_MASK, a, o);
        const u64 od = __shfl_sync(WZ_FULL_MASK, delta, o);
        const u32 ov = __shfl_sync(WZ_FULL_MASK, v0, o);
        const u32 orun = __shfl_sync(WZ_FULL_MASK, run, o);
        if (j < total) {
            const u32 i = j - start;
            // A literal byte is a value of -64..63, which every T holds.
            const u64 value = orun != 0u ? oa + od * i : (u64)orc_unzigzag(st[(u32)oa + i]);
            rg_place(dst, ov + i, (u32)skip, (u32)(target - skip), (T)value);
        }
    }
    return true;
}

#define RG_SPLIT_LISTING 0u  // rr.split_state: warp 0 is listing
#define RG_SPLIT_LISTED 1u   // the list reaches the row group's last value
#define RG_SPLIT_BROKEN 2u   // it does not (or would hold over RG_SPLIT_GROUPS groups)

// Warp 0 publishes that groups [0, k) are listed with their ends (at[k] and first[k] written).
__device__ __forceinline__ void rg_split_publish(OrcRgRegions& rr, u32 k, u32 state) {
    __threadfence_block();  // every lane's entries before the count
    __syncwarp();
    if (wz_lane() == 0u) {
        *reinterpret_cast<volatile u32*>(&rr.n_split) = k;
        if (state != RG_SPLIT_LISTING) {
            __threadfence_block();
            *reinterpret_cast<volatile u32*>(&rr.split_state) = state;
        }
    }
}

// Waits (one lane) until warp 0 has listed `need` groups or ended its list; the state and, in
// `listed`, the count read after it (final where the state is not RG_SPLIT_LISTING).
__device__ __forceinline__ u32 rg_split_wait(const OrcRgRegions& rr, u32 need, u32& listed) {
    for (;;) {
        const u32 state = *reinterpret_cast<const volatile u32*>(&rr.split_state);
        __threadfence_block();  // the count read after the state is the final one
        listed = *reinterpret_cast<const volatile u32*>(&rr.n_split);
        if (listed >= need || state != RG_SPLIT_LISTING) return state;
        __nanosleep(100);
    }
}

// Split groups of one row group (every thread of the block calls it; the result is the same in
// each). Warp 0 lists the groups up to the row group's last value, up to 32 a round: every
// lane follows the same guessed chain (a literal group of `left` varints taken to be 1 + width
// * left bytes, a run 2 + width, `width` the last literal group's bytes a value), lane j keeps
// the chain's j-th group and sizes it truly, and the groups up to the first wrong guess stand,
// that one too with its true size. Where rounds keep fewer than 4 groups (RLEv1 ship dates:
// varints of two and three bytes mixed in most literal groups), the warp walks on a group at a
// time, sizing each by rg_v1_extent_warp. Meanwhile the other warps decode the groups listed so
// far, a warp a group, and warp 0 joins them when its list is done. True where the list
// reached the row group's last value and every value passed its checks.
template <typename T>
__device__ bool rg_split(const u8* st, const u16* masks, u32 head, u32 end, u64 skip, u64 target,
                         T* __restrict__ dst, OrcRgRegions& rr) {
    const u32 lane = wz_lane();
    if (threadIdx.x == 0) {
        rr.n_split = 0;
        rr.split_state = RG_SPLIT_LISTING;
        rr.next_split = 0;
        rr.split_take = 2;
        rr.split.at[0] = head;
        rr.split.first[0] = 0;
    }
    __syncthreads();
    if (threadIdx.x < 32u) {
        u32 p = head, k = 0, width = 1, span = 32;
        u64 v = 0;
        bool ok = true, rounds = true;
        while (rounds && v < target) {
            u32 x = p, mine = end, guess = 0;
            for (u32 j = 0; j < span && x < end; ++j) {
                const u32 c = st[x];
                const u32 g = c >= 0x80u ? 1u + width * (256u - c) : 2u + width;
                if (j == lane) {
                    mine = x;
                    guess = g;
                }
                x += g;
            }
            u32 values = 0, bytes = 0, new_width = width;
            if (mine < end) {
                const u32 c = st[mine];
                const u32 left = 256u - c;
                if (c >= 0x80u && guess < end - mine &&
                    rg_literal_is(masks, mine, guess, left)) {
                    values = left;
                    bytes = guess;
                } else {
                    bytes = rg_extent<ORC_KIND_V1>(st, masks, mine, end, values);
                    if (c >= 0x80u && bytes > 1u) new_width = max(1u, (bytes - 1u) / left);
                }
            }
            const u32 rights = __ballot_sync(WZ_FULL_MASK, mine < end && bytes == guess);
            const u32 f = rights == WZ_FULL_MASK ? 32u : (u32)__ffs(~rights) - 1u;
            u32 n = f;
            if (f < 32u) {
                const bool known = __shfl_sync(WZ_FULL_MASK, mine < end && bytes != 0u, f);
                width = __shfl_sync(WZ_FULL_MASK, new_width, f);
                if (known) n = f + 1u;
            }
            const u32 vals = lane < n ? values : 0u;
            const u32 incl = wz_warp_inclusive_sum(vals);
            const u64 first = v + (incl - vals);
            const u32 m = __popc(__ballot_sync(WZ_FULL_MASK, lane < n && first < target));
            if (m == 0u || k + m > RG_SPLIT_GROUPS) {
                ok = false;
                break;
            }
            if (lane < m) {
                rr.split.at[k + lane] = mine;
                rr.split.first[k + lane] = (u32)first;
            }
            p = __shfl_sync(WZ_FULL_MASK, mine + bytes, m - 1u);
            v += __shfl_sync(WZ_FULL_MASK, incl, m - 1u);
            k += m;
            if (lane == 0u) {
                rr.split.at[k] = p;
                rr.split.first[k] = (u32)v;
                // (The first round, before its publish.)
                if (k == m && m == 32u) rr.split_take = 32u;
            }
            rg_split_publish(rr, k, RG_SPLIT_LISTING);
            rounds = m >= 4u;
            span = m == span ? 32u : max(4u, m + 1u);
        }
        // The walk a group at a time (p, v, k and ok are the same in every lane).
        while (ok && v < target) {
            u32 values = 0, bytes = 0;
            if (p < end && k < RG_SPLIT_GROUPS) {
                bytes = rg_v1_extent_warp(st, masks, p, end, values);
            }
            if (bytes == 0u) {
                ok = false;
                break;
            }
            ++k;
            p += bytes;
            v += values;
            if (lane == 0u) {
                rr.split.at[k] = p;
                rr.split.first[k] = (u32)v;
            }
            rg_split_publish(rr, k, RG_SPLIT_LISTING);
        }
        rg_split_publish(rr, k, ok ? RG_SPLIT_LISTED : RG_SPLIT_BROKEN);
    }
    // Every warp decodes listed groups, taking the next `take` as soon as they are listed (one
    // take, wait and fence for them): 32 (rg_split_batch) where warp 0's first round listed 32
    // groups (short groups: RLEv1 quantities), else 2 (RLEv1 ship dates, listed a group at a time).
    const u64* m64 = reinterpret_cast<const u64*>(masks);
    bool bad = false;
    u32 take = 2;
    if (lane == 0u) {
        u32 listed = 0;
        rg_split_wait(rr, 1u, listed);
        __threadfence_block();  // split_take was written before the first count
        take = *reinterpret_cast<volatile u32*>(&rr.split_take) == 32u ? 32u : 2u;
    }
    take = __shfl_sync(WZ_FULL_MASK, take, 0);
    for (;;) {
        u32 k = 0, state = RG_SPLIT_LISTING, listed = 0;
        if (lane == 0u) {
            k = atomicAdd(&rr.next_split, take);
            state = rg_split_wait(rr, k + take, listed);
        }
        k = __shfl_sync(WZ_FULL_MASK, k, 0);
        state = __shfl_sync(WZ_FULL_MASK, state, 0);
        listed = __shfl_sync(WZ_FULL_MASK, listed, 0);
        __threadfence_block();  // the entries after the count
        if (state == RG_SPLIT_BROKEN || k >= listed) break;
        const u32 n = min(take, listed - k);
        if (take == 32u) {
            if (!rg_split_batch<T>(st, m64, k, n, skip, target, dst, rr)) {
                bad = true;
                break;
            }
        } else if (!rg_split_group<T>(st, m64, k, skip, target, dst, rr) ||
                   (n > 1u && !rg_split_group<T>(st, m64, k + 1u, skip, target, dst, rr))) {
            bad = true;
            break;
        }
    }
    return !__syncthreads_or(bad) && rr.split_state == RG_SPLIT_LISTED;
}
