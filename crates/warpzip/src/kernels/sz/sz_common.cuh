// Device code shared by the `sz` codec's kernels (codec/sz/quant.rs, cpu.rs, interp.rs): the
// block geometry, the quantization and exact bound check, the Lorenzo prediction over a padded
// block, the per-block encoder both modes build on, and the interpolation predictor's
// visiting order. Every float operation is one IEEE-754 operation rounded to nearest
// (__dmul_rn and friends, no contraction), so that every value is the CPU's bit for bit.
#pragma once
#include "framework/common.cuh"

// Padded block buffer, (dz + 1) x (dy + 1) x (dx + 1) cells: at most 2 x 2 x 257 = 1028 (1-D
// blocks of 256), 2 x 17 x 17 = 578 (2-D), 9 x 9 x 9 = 729 (3-D).
#define SZ_PAD_CELLS 1028u
// Cells of the largest block (8 x 8 x 8).
#define SZ_BLOCK_MAX 512u
#define SZ_QMAX 9007199254740992.0  // 2^53

// What a cell is before prediction (`Cell` of cpu.rs): a pre-quantized integer within the
// bound, a value kept exactly, or fill value j (SZ_CELL_FILL + j).
#define SZ_CELL_CODED 0u
#define SZ_CELL_RAW 1u
#define SZ_CELL_FILL 2u

struct SzBlock {
    u64 chunk_start;  // first value of the block's chunk in the field
    u32 chunk;        // its chunk
    u32 cy, cx;       // the chunk's y and x sizes
    u32 z0, y0, x0;   // the block's corner in the chunk
    u32 dz, dy, dx;   // its sizes
};

// The host's twin (codec/sz/gpu/mod.rs) has this size.
static_assert(sizeof(SzBlock) == 48, "SzBlock layout");

// Reads a LEB128 varint at *p (below end); false when it runs past end or is too long.
__device__ __forceinline__ bool sz_varint(const u8* data, u64* p, u64 end, u64* v) {
    u64 out = 0;
    for (u32 shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return false;
        u8 b = data[*p];
        *p += 1;
        if (shift == 63 && b > 1) return false;
        out |= (u64)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            *v = out;
            return true;
        }
    }
    return false;
}

__device__ __forceinline__ double sz_pow2(int k) {
    k = k < -1074 ? -1074 : (k > 1023 ? 1023 : k);
    if (k >= -1022) return __longlong_as_double((long long)(k + 1023) << 52);
    return __longlong_as_double(1ll << (k + 1074));
}

__device__ __forceinline__ i64 sz_unzigzag(u64 z) { return (i64)(z >> 1) ^ -(i64)(z & 1); }

__device__ __forceinline__ u64 sz_zigzag(i64 d) { return ((u64)d << 1) ^ (u64)(d >> 63); }

__device__ __forceinline__ double sz_next_down_pos(double v) {
    // v > 0 and finite: the next double towards zero.
    return __longlong_as_double(__double_as_longlong(v) - 1);
}

// quant::round_down.
__device__ __forceinline__ double sz_round_down(double v) {
    if (!(v > 0.0)) return 0.0;
    if (isinf(v)) v = 1.7976931348623157e308;
    for (int i = 0; i < 3; i++) {
        if (v > 0.0) v = sz_next_down_pos(v);
    }
    return v > 0.0 ? v : 0.0;
}

// quant::exponent: floor(log2(m)) for a positive finite m.
__device__ __forceinline__ int sz_exponent(double m) {
    u64 bits = (u64)__double_as_longlong(m);
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0) {
        u64 frac = bits & ((1ull << 52) - 1);
        return -1074 + 63 - __clzll((long long)frac);
    }
    return e - 1023;
}

// |x - y| <= bound exactly (TwoSum), as quant::within.
__device__ __forceinline__ bool sz_within(double x, double y, double bound) {
    if (!isfinite(x) || !isfinite(y)) return false;
    double s = __dsub_rn(x, y);
    double bb = __dsub_rn(s, x);
    double e = __dadd_rn(__dsub_rn(x, __dsub_rn(s, bb)), __dsub_rn(-y, bb));
    if (!isfinite(s) || isnan(e)) return false;
    double a = fabs(s);
    if (a < bound) return true;
    if (a > bound) return false;
    return e == 0.0 || ((e < 0.0) != (s < 0.0));
}

// NaN, infinities, -0.0 and denormals (Float::is_special).
template <typename T>
__device__ __forceinline__ bool sz_special(T bits) {
    if (sizeof(T) == 4) {
        u32 e = ((u32)bits >> 23) & 0xff;
        return e == 0xff || (e == 0 && bits != 0);
    }
    u64 e = ((u64)bits >> 52) & 0x7ff;
    return e == 0x7ff || (e == 0 && bits != 0);
}

template <typename T>
__device__ __forceinline__ double sz_value(T bits) {
    if (sizeof(T) == 4) return (double)__uint_as_float((u32)bits);
    return __longlong_as_double((long long)bits);
}

// Float::reconstruct as an f64: q * step rounded to nearest, then to the type.
template <typename T>
__device__ __forceinline__ double sz_reconstruct(i64 q, double step) {
    double v = __dmul_rn(__ll2double_rn(q), step);
    if (sizeof(T) == 4) return (double)__double2float_rn(v);
    return v;
}

// Float::reconstruct as the type's bits.
template <typename T>
__device__ __forceinline__ T sz_reconstruct_bits(i64 q, double step) {
    double v = __dmul_rn(__ll2double_rn(q), step);
    if (sizeof(T) == 4) return (T)__float_as_uint(__double2float_rn(v));
    return (T)__double_as_longlong(v);
}

// What the value `bits` is (SZ_CELL_*), its pre-quantized integer in *q when coded: a fill
// value, else a special value kept exactly, else round(x / step) when that is in the exact
// range and reconstructs within the bound (point-wise `round_down(e * |x|)` under pw-rel).
template <typename T>
__device__ __forceinline__ u32 sz_cell(T bits, const u64* fills, u32 nfill, u32 pw_rel, double e,
                                       double bound, double step, i64* q) {
    for (u32 j = 0; j < nfill; j++) {
        if ((u64)bits == fills[j]) return SZ_CELL_FILL + j;
    }
    if (sz_special(bits)) return SZ_CELL_RAW;
    double v = sz_value(bits);
    double bnd = pw_rel ? sz_round_down(__dmul_rn(e, fabs(v))) : bound;
    double r = round(__ddiv_rn(v, step));
    if (isfinite(r) && fabs(r) <= SZ_QMAX) {
        i64 qv = (i64)r;
        if (sz_within(v, sz_reconstruct<T>(qv, step), bnd)) {
            *q = qv;
            return SZ_CELL_CODED;
        }
    }
    return SZ_CELL_RAW;
}

// The first-order Lorenzo prediction of padded cell (z, y, x) (each at least 1) of a buffer
// with rows of px cells and planes of py rows, in wrapping 64-bit arithmetic.
__device__ __forceinline__ u64 sz_lorenzo(const i64* q, u32 z, u32 y, u32 x, u32 py, u32 px) {
#define SZ_Q(a, b, c) ((u64)q[((a) * py + (b)) * px + (c)])
    return SZ_Q(z - 1, y, x) + SZ_Q(z, y - 1, x) + SZ_Q(z, y, x - 1) - SZ_Q(z - 1, y - 1, x) -
           SZ_Q(z - 1, y, x - 1) - SZ_Q(z, y - 1, x - 1) + SZ_Q(z - 1, y - 1, x - 1);
#undef SZ_Q
}

// Index of value (z, y, x) of a block in the field.
__device__ __forceinline__ u64 sz_block_at(const SzBlock& blk, u32 z, u32 y, u32 x) {
    return blk.chunk_start + ((u64)(blk.z0 + z) * blk.cy + (blk.y0 + y)) * blk.cx + (blk.x0 + x);
}

// Encodes one block as cpu.rs `encode_chunk` does for both modes: the pw-rel step exponent
// (written to *exp), then for every cell in stream order (z, y, x) its kind (SZ_CELL_*), its
// Lorenzo delta (wrapping; 0 for a cell kept exactly, which takes the prediction as its
// integer) and its bits, handed to `sink(c, kind, delta, bits)` with c the cell's index in
// the block.
template <typename T, typename Sink>
__device__ void sz_encode_block(const T* __restrict__ data, const SzBlock& blk,
                                const u64* __restrict__ fills, u32 nfill, u32 pw_rel, double e,
                                double bound, double step, int* exp, Sink sink) {
    double s = step;
    if (pw_rel) {
        double min_abs = __longlong_as_double(0x7ff0000000000000ll);  // +inf
        for (u32 z = 0; z < blk.dz; z++)
            for (u32 y = 0; y < blk.dy; y++)
                for (u32 x = 0; x < blk.dx; x++) {
                    T bits = data[sz_block_at(blk, z, y, x)];
                    double v = sz_value(bits);
                    bool fill = false;
                    for (u32 j = 0; j < nfill; j++) fill = fill || (u64)bits == fills[j];
                    if (v != 0.0 && !sz_special(bits) && !fill) min_abs = fmin(min_abs, fabs(v));
                }
        int k = 0;
        if (isfinite(min_abs)) {
            double bb = sz_round_down(__dmul_rn(e, min_abs));
            k = bb <= 0.0 ? -1074 : sz_exponent(bb);
        }
        *exp = k;
        s = sz_pow2(k);
    }
    u32 py = blk.dy + 1, px = blk.dx + 1;
    i64 q[SZ_PAD_CELLS];
    for (u32 i = 0; i < (blk.dz + 1) * py * px; i++) q[i] = 0;
    u32 c = 0;
    for (u32 z = 1; z <= blk.dz; z++) {
        for (u32 y = 1; y <= blk.dy; y++) {
            for (u32 x = 1; x <= blk.dx; x++) {
                T bits = data[sz_block_at(blk, z - 1, y - 1, x - 1)];
                i64 qv = 0;
                u32 kind = sz_cell<T>(bits, fills, nfill, pw_rel, e, bound, s, &qv);
                u64 pred = sz_lorenzo(q, z, y, x, py, px);
                i64 d = 0;
                if (kind == SZ_CELL_CODED) {
                    q[(z * py + y) * px + x] = qv;
                    d = (i64)((u64)qv - pred);
                } else {
                    q[(z * py + y) * px + x] = (i64)pred;
                }
                sink(c, kind, d, (u64)bits);
                c++;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The interpolation predictor (interp.rs `along`, `traverse`).

// The spline prediction at position i of an axis of n cells with stride s, reading cell k of
// the axis at base + k * step of q (wrapping arithmetic, arithmetic shifts).
__device__ __forceinline__ i64 sz_along(const i64* q, u64 base, u64 step, u64 i, u64 n, u64 s,
                                        bool cubic) {
    u64 b = (u64)q[base + (i - s) * step];
    if (i + s >= n) return (i64)b;
    u64 c = (u64)q[base + (i + s) * step];
    bool has_a = cubic && i >= 3 * s;
    bool has_d = cubic && i + 3 * s < n;
    if (has_a && has_d) {
        u64 a = (u64)q[base + (i - 3 * s) * step], d = (u64)q[base + (i + 3 * s) * step];
        return (i64)((b + c) * 9 - a - d + 8) >> 4;
    }
    if (has_d) {
        u64 d = (u64)q[base + (i + 3 * s) * step];
        return (i64)(b * 3 + c * 6 - d + 4) >> 3;
    }
    if (has_a) {
        u64 a = (u64)q[base + (i - 3 * s) * step];
        return (i64)(b * 6 + c * 3 - a + 4) >> 3;
    }
    return (i64)(b + c + 1) >> 1;
}

// Visits every cell of a chunk box (cz, cy, cx) once in the predictor's order (interp.rs
// `traverse`): `visit(i, pred, &v)` gets the cell's index in the box and its prediction and
// sets the cell's integer, which q keeps for the cells after it; a visit returning false ends
// the walk, and the walk returns false.
template <typename Visit>
__device__ bool sz_traverse(i64* q, u64 cz, u64 cy, u64 cx, u32 stride_log2, bool cubic,
                            Visit visit) {
    u64 big = 1ull << stride_log2;
    i64 v = 0;
#define SZ_IDX(z, y, x) (((z) * cy + (y)) * cx + (x))
    // Anchors, Lorenzo over the anchor grid (anchors outside the box count as 0).
    for (u64 z = 0; z < cz; z += big)
        for (u64 y = 0; y < cy; y += big)
            for (u64 x = 0; x < cx; x += big) {
                auto g = [&](u64 dz, u64 dy, u64 dx) -> u64 {
                    if ((dz == 1 && z < big) || (dy == 1 && y < big) || (dx == 1 && x < big))
                        return 0;
                    return (u64)q[SZ_IDX(z - dz * big, y - dy * big, x - dx * big)];
                };
                u64 p = g(1, 0, 0) + g(0, 1, 0) + g(0, 0, 1) - g(1, 1, 0) - g(1, 0, 1) -
                        g(0, 1, 1) + g(1, 1, 1);
                u64 i = SZ_IDX(z, y, x);
                if (!visit(i, (i64)p, &v)) return false;
                q[i] = v;
            }
    // Levels, coarse to fine: along x, along y, along z.
    for (int level = (int)stride_log2 - 1; level >= 0; level--) {
        u64 s = 1ull << level, s2 = 2 * s;
        for (u64 z = 0; z < cz; z += s2)
            for (u64 y = 0; y < cy; y += s2) {
                u64 row = SZ_IDX(z, y, 0);
                for (u64 x = s; x < cx; x += s2) {
                    if (!visit(row + x, sz_along(q, row, 1, x, cx, s, cubic), &v)) return false;
                    q[row + x] = v;
                }
            }
        for (u64 z = 0; z < cz; z += s2)
            for (u64 y = s; y < cy; y += s2)
                for (u64 x = 0; x < cx; x += s) {
                    u64 col = SZ_IDX(z, 0, x);
                    if (!visit(col + y * cx, sz_along(q, col, cx, y, cy, s, cubic), &v))
                        return false;
                    q[col + y * cx] = v;
                }
        u64 plane = cy * cx;
        for (u64 z = s; z < cz; z += s2)
            for (u64 y = 0; y < cy; y += s)
                for (u64 x = 0; x < cx; x += s) {
                    u64 col = SZ_IDX(0, y, x);
                    if (!visit(col + z * plane, sz_along(q, col, plane, z, cz, s, cubic), &v))
                        return false;
                    q[col + z * plane] = v;
                }
    }
#undef SZ_IDX
    return true;
}
