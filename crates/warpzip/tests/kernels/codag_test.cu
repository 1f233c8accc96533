// A small byte-oriented test codec ("ops") that exercises every part of the CODAG framework, so
// that tests can check the framework itself against a CPU interpreter
// (`codag_framework_matches_its_cpu_interpreter` in tests/gpu_orc_rle.rs), with every input
// window. Each chunk is a list of operations:
//   0x00 n  b[n]              n (1..32) literal bytes            write_literal
//   0x01 varint(n) first dlt  n bytes first, first+dlt, ...      write_run
//   0x02 varint(d) varint(n)  n bytes copied from d back         copy_back
//   0x03 a n  bytes           drop a (0..7) bits, read the next n (1..32) bits (least
//                             significant first), align to a byte; write the value as four
//                             little-endian bytes                fetch_bits, align_to_byte
//   0x04 a n  bytes           the same through skip_bits(a), peek_bits(n), skip_bits(n)
//   0x05 k                    a k-byte (1..8) big-endian field, written as eight bytes  fetch_be
// Anything else is CORRUPT. The output must be filled exactly (`exact`).
#include "framework/codag.cuh"
#include "orc/orc_int.cuh"

#define OPS_WARPS 4u

template <typename Window>
__device__ void ops_decode(CodagIn<Window>& in, CodagOut<u8>& out) {
    while (in.ok() && out.ok() && !in.at_end()) {
        const u32 op = in.fetch_byte();
        if (op == 0) {
            const u32 n = in.fetch_byte();
            if (n == 0 || n > 32) {
                in.fail(WZ_STATUS_CORRUPT);
                break;
            }
            if (!in.has_bits(n * 8ull) || !out.reserve(n)) break;
            in.ensure(n);
            // Window reads are warp-wide (the register window shuffles): every lane reads.
            const u32 v = in.window_byte(in.abs_byte() + (wz_lane() < n ? wz_lane() : 0u));
            out.write_literal((u8)v, n);
            in.skip_bytes(n);
        } else if (op == 1) {
            const u64 n = in.fetch_varint();
            const u32 first = in.fetch_byte();
            const u32 delta = in.fetch_byte();
            if (!in.ok() || !out.reserve(n)) break;
            out.write_run(first, n, delta);
        } else if (op == 2) {
            const u64 d = in.fetch_varint();
            const u64 n = in.fetch_varint();
            if (!in.ok()) break;
            out.copy_back(d, n);
        } else if (op == 3 || op == 4) {
            const u32 a = in.fetch_byte();
            const u32 n = in.fetch_byte();
            if (a > 7 || n == 0 || n > 32) {
                in.fail(WZ_STATUS_CORRUPT);
                break;
            }
            u32 v;
            if (op == 3) {
                in.fetch_bits(a);
                v = in.fetch_bits(n);
            } else {
                in.skip_bits(a);
                v = in.peek_bits(n);
                in.skip_bits(n);
            }
            in.align_to_byte();
            if (!in.ok() || !out.reserve(4)) break;
            out.write_literal((u8)(v >> (8u * (wz_lane() & 3u))), 4);
        } else if (op == 5) {
            const u32 k = in.fetch_byte();
            if (k == 0 || k > 8) {
                in.fail(WZ_STATUS_CORRUPT);
                break;
            }
            const u64 v = in.fetch_be(k);
            if (!in.ok() || !out.reserve(8)) break;
            out.write_literal((u8)(v >> (8u * (wz_lane() & 7u))), 8);
        } else {
            in.fail(WZ_STATUS_CORRUPT);
        }
    }
}

// WIN: 0 the two-slot shared-memory window, 1 the register window, 2 the asynchronous ring.
template <typename Window>
__device__ __forceinline__ u32 ops_chunk(const u8* in, const OrcRleChunk& ch, CodagOut<u8>& o,
                                         Window w) {
    CodagIn<Window> s(in, ch.in_offset, ch.in_len, w);
    ops_decode(s, o);
    return codag_status(s, o);
}

template <int WIN>
__device__ __forceinline__ void ops_kernel(ORC_KERNEL_PARAMS) {
    __shared__ u32 windows[OPS_WARPS][8 * 32];
    u32* mine = windows[threadIdx.x / 32u];
    for (u32 c = codag_next_chunk(next_chunk); c < n_chunks; c = codag_next_chunk(next_chunk)) {
        const OrcRleChunk ch = chunks[c];
        CodagOut<u8> o(reinterpret_cast<u8*>(out) + ch.out_offset, 0, ch.count, true);
        u32 st;
        if (WIN == 1) {
            st = ops_chunk(in, ch, o, CodagRegWindow());
        } else if (WIN == 2) {
            st = ops_chunk(in, ch, o, CodagRingWindow<8>(mine));
        } else {
            st = ops_chunk(in, ch, o, CodagSmemWindow(mine));
        }
        if (st == WZ_STATUS_OK && !o.done()) st = WZ_STATUS_UNDERFLOW;
        if (wz_lane() == 0) status[c] = st;
    }
}

extern "C" __global__ void codag_ops_smem(ORC_KERNEL_PARAMS) { ops_kernel<0>(ORC_KERNEL_ARGS); }
extern "C" __global__ void codag_ops_reg(ORC_KERNEL_PARAMS) { ops_kernel<1>(ORC_KERNEL_ARGS); }
extern "C" __global__ void codag_ops_ring(ORC_KERNEL_PARAMS) { ops_kernel<2>(ORC_KERNEL_ARGS); }
