// Inflate (RFC 1951), one warp per raw-deflate stream (`inflate_warp`): the decoder of
// inflate.cuh with its own deferred LZ77 batch, for batches of many well-compressed streams.
// Each warp keeps INFLATE_ROWS x 32 words of token rows in global scratch.
#define INFLATE_REGION_WORDS 28u
#define INFLATE_LIST 128u
#define INFLATE_FIX 64u
#include "deflate/inflate.cuh"

// Where the single-warp decoder's tokens go: its own deferred LZ77 batch and output.
struct InflateWarpSink {
    CodagLzBatch batch;
    CodagOut<u8>& out;
    CodagLzTable& table;
    u32* rows;  // the warp's token rows

    __device__ __forceinline__ InflateWarpSink(CodagOut<u8>& o, CodagLzTable& t, u32* r)
        : out(o), table(t), rows(r) {}
    __device__ __forceinline__ bool ok() const { return out.ok(); }
    // Rows for the next round (the batch must be empty for its tokens).
    __device__ __forceinline__ u32* round_rows() {
        batch.flush(out, table);
        return rows;
    }
    __device__ __forceinline__ void round_done(const InflateLaneTokens& tk) {
        inflate_round_emit(batch, out, table, rows, tk);
    }
    // One serially decoded token.
    __device__ __forceinline__ void token(u32 t) {
        u32 info, length;
        inflate_unpack(t, info, length);
        batch.push(info, length);
        if (batch.full()) batch.flush(out, table);
    }
    __device__ __forceinline__ void block_end() { batch.flush(out, table); }
    // A stored block's `len` bytes from the input's read position (a byte boundary).
    template <typename In>
    __device__ __forceinline__ void stored(const In& in, u32 len) {
        inflate_copy_stored(out, len, [&](u32 i) { return (u8)in.lane_byte(i); });
    }
};

// One warp per stream.
extern "C" __global__ void __launch_bounds__(INFLATE_WARPS * 32, 8)
    inflate_warp(const u8* __restrict__ input, const InflateChunk* __restrict__ chunks, u32 n,
                 u8* output, u32* results, u32* counter, u32* scratch) {
    __shared__ InflateSmem smem[INFLATE_WARPS];
    InflateSmem& S = smem[threadIdx.x / 32u];
    // This warp's token rows (INFLATE_ROWS x 32 words).
    const u64 warp = (u64)blockIdx.x * INFLATE_WARPS + threadIdx.x / 32u;
    u32* rows = scratch + warp * (INFLATE_ROWS * 32u);
    for (;;) {
        const u32 c = codag_next_chunk(counter);
        if (c >= n) break;
        const InflateChunk ch = chunks[c];
        CodagIn<CodagSmemWindow> in(input, ch.in_offset, ch.in_len, CodagSmemWindow(S.window));
        CodagOut<u8> out(output + ch.out_offset, 0, ch.out_cap, true);
        InflateBits<CodagIn<CodagSmemWindow>> br(in);
        InflateWarpSink sink(out, S.tokens, rows);
        inflate_stream(br, S, sink);
        if (wz_lane() == 0) {
            results[3ull * c] = codag_status(in, out);
            results[3ull * c + 1] = (u32)out.pos;
            results[3ull * c + 2] = (u32)(((in.bit + 7ull) >> 3) - in.start);
        }
    }
}
