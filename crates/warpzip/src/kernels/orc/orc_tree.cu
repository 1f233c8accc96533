// Kernels of the ORC type-tree decoder on a GPU (`orc::gpu::streams`), over one stripe's streams
// of one column once their run-length streams are decoded: a decimal column's varints, a
// timestamp column's seconds and nanoseconds, a dictionary string column's lengths and bytes.
// Every kernel reports the lowest value that fails, so that the host names the value the CPU
// decoder names.
#include "framework/common.cuh"

// Seconds from 1970-01-01 to 2015-01-01 (UTC), ORC's timestamp epoch.
#define ORC_EPOCH_SECONDS 1420070400ll
#define I64_MAX 9223372036854775807ll
#define I64_MIN (-I64_MAX - 1ll)

// Decimal DATA: the first `n` unbounded base-128 varints of `in` (`in_len` bytes), zigzag
// decoded into 128-bit two's complement values (`out[2k]` the low word of value k, `out[2k+1]`
// the high one). One warp (launch one block of 32 threads) walks the stream 32 bytes a step:
// the bytes without a continuation bit end values, a ballot counts them, and the lane holding a
// value's last byte decodes it from its first. `status[0]` is 0, 1 when the stream ends inside
// value `status[1]`, or 2 when value `status[1]` has more than 128 bits (over 19 bytes, or a
// 19th byte above 3), as the CPU's `read_varint128` decides.
extern "C" __global__ void __launch_bounds__(32) orc_decimal_varints(
    const u8* __restrict__ in, u64 in_len, u64 n, u64* __restrict__ out, u64* __restrict__ status) {
    if (threadIdx.x >= 32u || blockIdx.x != 0u) return;
    const u32 lane = wz_lane();
    u64 count = 0;  // values whose last byte has been seen
    u64 start = 0;  // the first byte of value `count`
    for (u64 base = 0; base < in_len && count < n; base += 32ull) {
        const u64 p = base + lane;
        const u32 b = p < in_len ? (u32)in[p] : 0x80u;
        const bool last = p < in_len && (b & 0x80u) == 0u;
        const u32 ends = __ballot_sync(WZ_FULL_MASK, last);
        const u32 below = ends & ((1u << lane) - 1u);
        const u64 k = count + (u64)__popc(below);
        bool bad = false;
        if (last && k < n) {
            const u64 s = below != 0u ? base + (u64)(31 - __clz(below)) + 1ull : start;
            const u64 len = p - s + 1ull;
            if (len > 19ull || (len == 19ull && (b & 0x7cu) != 0u)) {
                bad = true;
            } else {
                u64 lo = 0, hi = 0;
                for (u64 i = 0; i < len; ++i) {
                    const u64 bits = (u64)(in[s + i] & 0x7fu);
                    const u32 shift = (u32)(7ull * i);
                    if (shift < 64u) {
                        lo |= bits << shift;
                        if (shift > 57u) hi |= bits >> (64u - shift);
                    } else {
                        hi |= bits << (shift - 64u);
                    }
                }
                const u64 neg = 0ull - (lo & 1ull);
                out[2ull * k] = ((lo >> 1) | (hi << 63)) ^ neg;
                out[2ull * k + 1ull] = (hi >> 1) ^ neg;
            }
        }
        const u32 bads = __ballot_sync(WZ_FULL_MASK, bad);
        if (bads != 0u) {
            const u32 first = (u32)__ffs(bads) - 1u;
            if (lane == 0u) {
                status[0] = 2ull;
                status[1] = count + (u64)__popc(ends & ((1u << first) - 1u));
            }
            return;
        }
        count += (u64)__popc(ends);
        if (ends != 0u) start = base + (u64)(31 - __clz(ends)) + 1ull;
    }
    if (lane == 0u) {
        status[0] = count < n ? 1ull : 0ull;
        status[1] = count < n ? count : n;
    }
}

// `a * m` for 0 < m, or false where it leaves the i64 range.
__device__ __forceinline__ bool orc_mul_i64(i64 a, i64 m, i64* r) {
    if (a > I64_MAX / m || a < I64_MIN / m) return false;
    *r = a * m;
    return true;
}

// `a + b`, or false where it leaves the i64 range.
__device__ __forceinline__ bool orc_add_i64(i64 a, i64 b, i64* r) {
    if ((b > 0 && a > I64_MAX - b) || (b < 0 && a < I64_MIN - b)) return false;
    *r = a + b;
    return true;
}

// Timestamps, a thread a value: seconds from ORC's epoch (`secs`) and SECONDARY words (`nanos`:
// the nanoseconds, as a signed word, with their trailing decimal zeros counted in the low 3 bits)
// into nanoseconds since 1970 (`out`), one second taken off a time before 1970 whose
// nanoseconds show a fraction (writers rounded its seconds toward zero), as the CPU decoder
// does. A value that leaves the i64 range puts its index into `fail` (the lowest wins; the host
// sets it to u64 max first).
extern "C" __global__ void orc_timestamps(const i64* __restrict__ secs,
                                          const u64* __restrict__ nanos, u64 n,
                                          i64* __restrict__ out, u64* __restrict__ fail) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const u64 raw = nanos[k];
        const u32 zeros = (u32)(raw & 7ull);
        i64 nano = ((i64)raw) >> 3;
        bool ok = true;
        if (zeros != 0u) {
            for (u32 z = 0; z <= zeros && ok; ++z) ok = orc_mul_i64(nano, 10ll, &nano);
        }
        i64 s = 0;
        ok = ok && orc_add_i64(secs[k], ORC_EPOCH_SECONDS, &s);
        if (ok && s < 0ll && nano > 999999ll) ok = orc_add_i64(s, -1ll, &s);
        i64 v = 0;
        ok = ok && orc_mul_i64(s, 1000000000ll, &v) && orc_add_i64(v, nano, &v);
        if (ok) {
            out[k] = v;
        } else {
            atomicMin(reinterpret_cast<unsigned long long*>(fail), (unsigned long long)k);
        }
    }
}

// Dictionary strings, a thread a value: the length of each value's entry (`starts` holds the
// `size + 1` entry boundaries of the dictionary's bytes). An index past the dictionary puts its
// position into `fail` (the lowest wins; the host sets it to u64 max first) and a length of 0.
extern "C" __global__ void orc_dict_lengths(const u64* __restrict__ indices, u64 n,
                                            const u64* __restrict__ starts, u64 size,
                                            u64* __restrict__ lengths, u64* __restrict__ fail) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 k = (u64)blockIdx.x * blockDim.x + threadIdx.x; k < n; k += stride) {
        const u64 i = indices[k];
        if (i < size) {
            lengths[k] = starts[i + 1ull] - starts[i];
        } else {
            lengths[k] = 0ull;
            atomicMin(reinterpret_cast<unsigned long long*>(fail), (unsigned long long)k);
        }
    }
}

// Dictionary strings, a warp a value: each value's entry copied from the dictionary's bytes to
// its place (`offsets`, the exclusive sums of the lengths) in `out`. Indices were checked by
// `orc_dict_lengths`.
extern "C" __global__ void orc_dict_gather(const u8* __restrict__ dict,
                                           const u64* __restrict__ starts,
                                           const u64* __restrict__ indices,
                                           const u64* __restrict__ offsets, u64 n,
                                           u8* __restrict__ out) {
    const u64 warps = ((u64)gridDim.x * blockDim.x) / 32ull;
    const u32 lane = wz_lane();
    for (u64 k = ((u64)blockIdx.x * blockDim.x + threadIdx.x) / 32ull; k < n; k += warps) {
        const u64 i = indices[k];
        const u64 from = starts[i];
        const u64 len = starts[i + 1ull] - from;
        const u64 to = offsets[k];
        for (u64 j = lane; j < len; j += 32ull) out[to + j] = dict[from + j];
    }
}
