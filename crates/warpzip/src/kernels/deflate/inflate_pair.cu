// Inflate (RFC 1951), two warps per raw-deflate stream (`inflate_pair`): the decoder of
// inflate.cuh split into a producer and a consumer, for batches of few or poorly compressed
// streams. Each block keeps two sets of INFLATE_ROWS x 32 words of token rows in global scratch;
// the rounds' regions are smaller than the warp kernel's so that the scratch rule allows more
// pairs at once (36 KiB a block, 1,820 blocks in 64 MiB, against 1,365 at 48 KiB; measured on
// an H200, docs/benchmarks.md).
#define INFLATE_REGION_WORDS 21u
#define INFLATE_LIST 96u
#define INFLATE_FIX 48u
#define INFLATE_PAIR_BLOCKS 16u  // resident blocks per SM `inflate_pair` is compiled for
#include "deflate/inflate.cuh"

// ---------------------------------------------------------------------------------------------
// Paired warps (`inflate_pair`): for batches of few streams, a block's two warps share one
// stream. The first (the producer) decodes the Huffman codes, rounds and serial symbols alike,
// into token rows; the second (the consumer) writes them to the output through the LZ77 batch.
// Two row sets alternate: the producer fills one while the consumer writes the other, so one
// stream's time is about the longer of the two halves instead of their sum.
//
// A segment is what one row set carries: a round's tokens, a run of serially decoded tokens
// (token i in lane i / INFLATE_ROWS, row i % INFLATE_ROWS), a stored block (its place in the
// input and its length: the consumer copies it), or the end of the stream (the producer's input
// status and the bytes consumed).
#define PAIR_TOKENS 0u
#define PAIR_STORED 1u
#define PAIR_END 2u

struct InflatePairSlot {
    u32 mine[32];
    u32 skip[32];
    u32 own[32];
    u32 cnt[32];
    u32 kind;  // PAIR_*
    u32 a;     // PAIR_STORED: the bytes' offset in the stream; PAIR_END: the input status
    u32 b;     // PAIR_STORED: their length; PAIR_END: the bytes consumed
};

// The hand-over between a block's two warps, in shared memory.
struct InflatePair {
    InflatePairSlot slot[2];
    CodagLzTable table;  // the consumer's LZ77 batch table
    volatile u32 ready[2];  // slot s holds a segment the consumer has not finished
    volatile u32 abort;     // the consumer stopped (its output failed): the producer stops too
    u32 chunk;
};

// Every lane's writes before it are seen by the other warp once it sees the flag that lane 0
// stores after it.
__device__ __forceinline__ void inflate_pair_signal(volatile u32* flag, u32 value) {
    __threadfence_block();
    __syncwarp();
    if (wz_lane() == 0) *flag = value;
    __syncwarp();
}

// Waits (lane 0 polling) until `*flag == want`; false when `abort` is set first (`abort` may be
// null: never).
__device__ __forceinline__ bool inflate_pair_wait(const volatile u32* flag, u32 want,
                                                  const volatile u32* abort) {
    u32 ok = 1u;
    if (wz_lane() == 0) {
        while (*flag != want) {
            if (abort != nullptr && *abort != 0u) {
                ok = 0u;
                break;
            }
            __nanosleep(32);
        }
    }
    ok = __shfl_sync(WZ_FULL_MASK, ok, 0);
    __threadfence_block();
    return ok != 0u;
}

// Where the producer's tokens go: the row set of the next free slot, handed to the consumer.
struct InflatePairSink {
    InflatePair& M;
    u32* rows0;     // two row sets of INFLATE_ROWS x 32 words
    u32 slot = 0;   // the slot the next segment fills
    u32 serial = 0; // tokens in the open run of serial tokens
    bool open = false;
    bool stopped = false;

    __device__ __forceinline__ InflatePairSink(InflatePair& m, u32* r) : M(m), rows0(r) {}
    __device__ __forceinline__ u32* rows() const { return rows0 + slot * (INFLATE_ROWS * 32u); }
    __device__ __forceinline__ bool ok() const { return !stopped; }
    // Waits for the consumer to finish the slot's previous segment.
    __device__ __forceinline__ bool acquire() {
        if (!stopped && !inflate_pair_wait(&M.ready[slot], 0u, &M.abort)) stopped = true;
        return !stopped;
    }
    __device__ __forceinline__ void publish(u32 kind, u32 a, u32 b, const InflateLaneTokens& tk) {
        InflatePairSlot& P = M.slot[slot];
        const u32 lane = wz_lane();
        P.mine[lane] = tk.mine;
        P.skip[lane] = tk.skip;
        P.own[lane] = tk.own;
        P.cnt[lane] = tk.cnt;
        if (lane == 0) {
            P.kind = kind;
            P.a = a;
            P.b = b;
        }
        inflate_pair_signal(&M.ready[slot], 1u);
        slot ^= 1u;
    }
    // Hands over the open run of serial tokens, if any.
    __device__ __forceinline__ void close_serial() {
        if (!open) return;
        open = false;
        const u32 lane = wz_lane();
        const u32 before = lane * INFLATE_ROWS;
        const u32 n = serial > before ? min(serial - before, INFLATE_ROWS) : 0u;
        publish(PAIR_TOKENS, 0u, 0u, InflateLaneTokens{n, 0u, n, n});
    }
    __device__ __forceinline__ u32* round_rows() {
        close_serial();
        return acquire() ? rows() : nullptr;
    }
    __device__ __forceinline__ void round_done(const InflateLaneTokens& tk) {
        publish(PAIR_TOKENS, 0u, 0u, tk);
    }
    __device__ __forceinline__ void token(u32 t) {
        if (!open) {
            if (!acquire()) return;
            open = true;
            serial = 0;
        }
        if (wz_lane() == serial / INFLATE_ROWS) {
            rows()[(serial % INFLATE_ROWS) * 32u + wz_lane()] = t;
        }
        if (++serial == 32u * INFLATE_ROWS) close_serial();
    }
    __device__ __forceinline__ void block_end() {}
    template <typename In>
    __device__ __forceinline__ void stored(const In& in, u32 len) {
        close_serial();
        if (acquire()) publish(PAIR_STORED, (u32)in.byte_pos(), len, InflateLaneTokens{});
    }
    // The end of the stream: the input's status and the bytes consumed.
    __device__ __forceinline__ void finish(u32 status, u32 consumed) {
        close_serial();
        if (acquire()) publish(PAIR_END, status, consumed, InflateLaneTokens{});
    }
};

// The consumer of a pair: writes the producer's segments of stream `c` to its output, in order,
// and its result (the first failure: the output's when it fails, else the input's).
__device__ void inflate_pair_consume(InflatePair& M, const u32* rows0, const u8* input,
                                     const InflateChunk& ch, u8* output, u32* results, u32 c) {
    CodagOut<u8> out(output + ch.out_offset, 0, ch.out_cap, true);
    CodagLzBatch batch;
    const u32 lane = wz_lane();
    u32 status = WZ_STATUS_OK, consumed = 0;
    for (u32 s = 0;; s ^= 1u) {
        inflate_pair_wait(&M.ready[s], 1u, nullptr);
        const InflatePairSlot& P = M.slot[s];
        const u32 kind = P.kind;
        if (kind == PAIR_TOKENS) {
            const InflateLaneTokens tk{P.mine[lane], P.skip[lane], P.own[lane], P.cnt[lane]};
            inflate_round_emit(batch, out, M.table, rows0 + s * (INFLATE_ROWS * 32u), tk);
        } else if (kind == PAIR_STORED) {
            const u8* src = input + ch.in_offset + P.a;
            inflate_copy_stored(out, P.b, [&](u32 i) { return src[i]; });
        } else {
            status = P.a;
            consumed = P.b;
        }
        inflate_pair_signal(&M.ready[s], 0u);
        if (!out.ok()) {
            status = out.status;
            if (lane == 0) M.abort = 1u;
            break;
        }
        if (kind == PAIR_END) break;
    }
    if (lane == 0) {
        results[3ull * c] = status;
        results[3ull * c + 1] = (u32)out.pos;
        results[3ull * c + 2] = consumed;
    }
}

// Two warps per stream: warp 0 decodes, warp 1 writes (see InflatePair). Scratch: two row sets
// per block.
extern "C" __global__ void __launch_bounds__(INFLATE_WARPS * 32, INFLATE_PAIR_BLOCKS)
    inflate_pair(const u8* __restrict__ input, const InflateChunk* __restrict__ chunks, u32 n,
                 u8* output, u32* results, u32* counter, u32* scratch) {
    __shared__ InflateSmem S;  // the producer's
    __shared__ InflatePair M;
    u32* rows0 = scratch + (u64)blockIdx.x * (2u * INFLATE_ROWS * 32u);
    for (;;) {
        if (threadIdx.x == 0) {
            M.chunk = atomicAdd(counter, 1u);
            M.ready[0] = 0u;
            M.ready[1] = 0u;
            M.abort = 0u;
        }
        __syncthreads();
        const u32 c = M.chunk;
        if (c >= n) break;
        const InflateChunk ch = chunks[c];
        if (threadIdx.x < 32u) {
            CodagIn<CodagSmemWindow> in(input, ch.in_offset, ch.in_len,
                                        CodagSmemWindow(S.window));
            InflateBits<CodagIn<CodagSmemWindow>> br(in);
            InflatePairSink sink(M, rows0);
            inflate_stream(br, S, sink);
            sink.finish(in.status, (u32)(((in.bit + 7ull) >> 3) - in.start));
        } else {
            inflate_pair_consume(M, rows0, input, ch, output, results, c);
        }
        __syncthreads();
    }
}
