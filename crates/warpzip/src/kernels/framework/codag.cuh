// CODAG: the warp-level decompression framework (after "CODAG: Characterizing and Optimizing
// Decompression Algorithms for GPUs"). One warp decodes one compressed chunk; all 32 lanes run
// the same serial decoder on the same values (no leader thread, no broadcasts), and cooperate
// only where it pays: coalesced refills of the input and coalesced writes of the output.
//
//   CodagIn<Window>  the input stream of one chunk: bit and byte reads, varints, big-endian
//                    fields, every read checked against the chunk's length. Bytes are staged in
//                    a window of 128-byte blocks, each refilled by the whole warp with one
//                    coalesced 128-byte load: `CodagSmemWindow` (two blocks in shared memory,
//                    loaded when the reader gets there), `CodagRegWindow` (two blocks in
//                    registers, two words per lane, read with shuffles, for kernels short of
//                    shared memory) and `CodagRingWindow<SLOTS>` (4 or 8 blocks in shared
//                    memory, fetched ahead of the reader with asynchronous copies, so the warp
//                    rarely waits for memory). Bulk fields (bit-packed arrays) are read per lane
//                    with `window_bits_be` where they fit the window, and from global memory
//                    with `lane_bits_be` / `lane_bits_le` (one word load per lane) otherwise.
//   CodagOut<T>      the output stream of one chunk: `write_literal` (one value per lane),
//                    `write_run(first, count, delta)` (32 consecutive values per step) and, for
//                    byte outputs, `copy_back(distance, length)` (4 bytes per lane per step,
//                    funnel shifts, overlapping copies). It drops the first `skip` values and
//                    writes at most `count` (a row group that starts inside a run), and checks
//                    every write against the output's capacity.
//   CodagLzBatch     deferred LZ77 tokens: up to 32 literals and matches decoded into
//                    registers, then written together in coalesced byte rounds.
//   codag_next_chunk the persistent grid: each warp takes chunks from a counter until none are
//                    left.
//
// Errors are sticky: the first failed check records a status (TRUNCATED, CORRUPT, OVERFLOW) and
// later reads return zeros without touching memory, so a decoder checks `ok()` once per group
// and every input, however damaged, ends its loop. Every method must be called by all 32 lanes
// together with the same arguments (uniform control flow), except the `lane_*` reads and
// `window_byte`, whose address may differ per lane but which all 32 lanes must still call
// together (the register window reads with shuffles).
//
// Memory contract (the host side guarantees it): the input allocation starts 128-byte aligned
// and its length is a multiple of 128, so any aligned 4-, 8- or 128-byte block holding a byte of
// a chunk lies inside the allocation; the output of `copy_back` starts 4-byte aligned and is
// padded to a multiple of 4 bytes.
#pragma once
#include "framework/common.cuh"

#define CODAG_BLOCK 128u   // bytes per coalesced refill: 32 lanes x 4 bytes

__device__ __forceinline__ u32 codag_lanemask_lt() { return (1u << wz_lane()) - 1u; }

__device__ __forceinline__ u64 codag_bswap64(u64 x) {
    const u32 lo = (u32)x, hi = (u32)(x >> 32);
    return ((u64)__byte_perm(lo, 0, 0x0123) << 32) | (u64)__byte_perm(hi, 0, 0x0123);
}

// ---------------------------------------------------------------------------------------------
// Windows: where the staged input bytes live, and how they are refilled. Block k of the input
// (bytes [128k, 128k + 128) of the allocation) goes to slot k % SLOTS, so absolute word w sits
// at window word w % (32 SLOTS). Every window offers the same three calls, made by all 32
// lanes together:
//   open(buf, start, end, first)        stage from block `first` on (a chunk's start, a jump);
//   ensure(buf, start, end, first, last) make blocks first..last (last - first < SLOTS)
//                                        readable by every lane; reading only runs forward, so
//                                        blocks before `first` may be dropped;
//   word(i)                              absolute word i, which an earlier ensure covered.
// A block that holds no byte of [start, end) is never loaded: its words read as zeros.

// Lane l's word of block k, or zero when the block holds no byte of the chunk. From a chunk
// staged in shared memory (`buf` there), also zero where the word starts at or past the
// chunk's end: a stage may end anywhere in a block, and nothing lies past it.
__device__ __forceinline__ u32 codag_block_word(const u8* buf, u64 start, u64 end, u64 k) {
    if (k * CODAG_BLOCK < end && (k + 1) * CODAG_BLOCK > start &&
        (k * CODAG_BLOCK + 4u * wz_lane() < end || !__isShared(buf))) {
        return reinterpret_cast<const u32*>(buf + k * CODAG_BLOCK)[wz_lane()];
    }
    return 0;
}

// The two-slot windows share one refill policy, loaded synchronously (the warp waits for a
// refill when the read position enters a new block): slide by one block when reading runs
// forward, reload both slots after a jump. `Slots` stores a loaded block (`put`) and reads words.
template <typename Slots>
struct CodagTwoSlotWindow {
    static constexpr u32 SLOTS = 2;
    Slots slots;
    u64 blocks = 0;  // the window holds blocks `blocks` and `blocks + 1`
    __device__ __forceinline__ void load(const u8* buf, u64 start, u64 end, u64 k) {
        slots.put((u32)(k & 1ull), codag_block_word(buf, start, end, k));
    }
    __device__ __forceinline__ void open(const u8* buf, u64 start, u64 end, u64 first) {
        load(buf, start, end, first);
        load(buf, start, end, first + 1);
        blocks = first;
    }
    __device__ __forceinline__ void ensure(const u8* buf, u64 start, u64 end, u64 first,
                                           u64 last) {
        if (first >= blocks && last <= blocks + 1) return;
        if (first == blocks + 1) {
            load(buf, start, end, blocks + 2);
            blocks += 1;
        } else {
            open(buf, start, end, first);
        }
    }
    __device__ __forceinline__ u32 word(u32 i) const { return slots.word(i); }
};

// Shared-memory slots: 64 words per warp, given by the kernel; a read is a broadcast load.
struct CodagSmemSlots {
    u32* words = nullptr;
    __device__ __forceinline__ void put(u32 slot, u32 w) {
        __syncwarp();
        words[slot * 32u + wz_lane()] = w;
        __syncwarp();
    }
    __device__ __forceinline__ u32 word(u32 i) const { return words[i & 63u]; }
};

// Register slots: lane l holds word l of each; reads are shuffles. Needs no shared memory but
// costs two registers per lane and a shuffle per word read.
struct CodagRegSlots {
    u32 slot0 = 0, slot1 = 0;
    __device__ __forceinline__ void put(u32 slot, u32 w) {
        if (slot == 0) {
            slot0 = w;
        } else {
            slot1 = w;
        }
    }
    __device__ __forceinline__ u32 word(u32 i) const {
        const u32 a = __shfl_sync(WZ_FULL_MASK, slot0, i & 31u);
        const u32 b = __shfl_sync(WZ_FULL_MASK, slot1, i & 31u);
        return (i & 32u) ? b : a;
    }
};

struct CodagSmemWindow : CodagTwoSlotWindow<CodagSmemSlots> {
    __device__ __forceinline__ explicit CodagSmemWindow(u32* w) { slots.words = w; }
};
struct CodagRegWindow : CodagTwoSlotWindow<CodagRegSlots> {};

// Asynchronous ring window: SLOTS (a power of two, 4 to 8) blocks in shared memory (32 SLOTS
// words per warp, given by the kernel), kept full ahead of the read position with `cp.async`
// copies (one commit group per block) that land while the warp decodes: a refill costs the warp
// a wait only when the decoder outruns the memory. Blocks [lo, hi) are issued, those below
// `ready` have landed and are visible to every lane.
__device__ __forceinline__ void codag_cp_async4(u32* dst, const void* src) {
#if __CUDA_ARCH__ >= 800
    const u32 d = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(d), "l"(src) : "memory");
#else
    *dst = *reinterpret_cast<const u32*>(src);
#endif
}
// 16 bytes, both addresses 16-byte aligned, through L2 only (staging that is read once).
__device__ __forceinline__ void codag_cp_async16(void* dst, const void* src) {
#if __CUDA_ARCH__ >= 800
    const u32 d = (u32)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(src) : "memory");
#else
    *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(src);
#endif
}
__device__ __forceinline__ void codag_cp_async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
// Waits until at most `newer` (0..7) of this lane's most recent groups are still in flight.
__device__ __forceinline__ void codag_cp_async_wait(u32 newer) {
#if __CUDA_ARCH__ >= 800
    switch (newer) {
        case 0: asm volatile("cp.async.wait_group 0;\n" ::: "memory"); break;
        case 1: asm volatile("cp.async.wait_group 1;\n" ::: "memory"); break;
        case 2: asm volatile("cp.async.wait_group 2;\n" ::: "memory"); break;
        case 3: asm volatile("cp.async.wait_group 3;\n" ::: "memory"); break;
        case 4: asm volatile("cp.async.wait_group 4;\n" ::: "memory"); break;
        case 5: asm volatile("cp.async.wait_group 5;\n" ::: "memory"); break;
        case 6: asm volatile("cp.async.wait_group 6;\n" ::: "memory"); break;
        default: asm volatile("cp.async.wait_group 7;\n" ::: "memory"); break;
    }
#endif
}

template <u32 RING_SLOTS>
struct CodagRingWindow {
    static_assert(RING_SLOTS >= 4 && RING_SLOTS <= 8 && (RING_SLOTS & (RING_SLOTS - 1)) == 0,
                  "ring slots: 4 or 8");
    static constexpr u32 SLOTS = RING_SLOTS;
    u32* words;
    u64 lo, hi, ready;
    __device__ __forceinline__ explicit CodagRingWindow(u32* w) : words(w), lo(0), hi(0), ready(0) {}

    // Issues block `hi` into its slot (a block outside the chunk is zero-filled at once) and
    // commits it as one group, so that group counts are block counts.
    __device__ __forceinline__ void issue(const u8* buf, u64 start, u64 end) {
        u32* dst = words + (u32)(hi & (SLOTS - 1)) * 32u + wz_lane();
        if (hi * CODAG_BLOCK < end && (hi + 1) * CODAG_BLOCK > start) {
            codag_cp_async4(dst, buf + hi * CODAG_BLOCK + 4u * wz_lane());
        } else {
            *dst = 0;
        }
        codag_cp_async_commit();
        ++hi;
    }
    // Fills every free slot: blocks up to lo + SLOTS (the slots of blocks below `lo` have
    // landed, and no lane reads them any more).
    __device__ __forceinline__ void top_up(const u8* buf, u64 start, u64 end) {
        __syncwarp();
        while (hi < lo + SLOTS) issue(buf, start, end);
    }
    // Waits until block `last` (issued) and every earlier one have landed.
    __device__ __forceinline__ void wait_through(u64 last) {
        codag_cp_async_wait((u32)(hi - 1ull - last));
        __syncwarp();
        ready = last + 1;
    }
    __device__ __forceinline__ void open(const u8* buf, u64 start, u64 end, u64 first) {
        codag_cp_async_wait(0);  // no copy of the old position may land in a reused slot
        __syncwarp();
        lo = hi = ready = first;
        top_up(buf, start, end);
    }
    __device__ __forceinline__ void ensure(const u8* buf, u64 start, u64 end, u64 first,
                                           u64 last) {
        if (first < lo || first >= hi) {
            open(buf, start, end, first);
        } else if (first > lo) {
            // Blocks lo..first-1 are done with; their slots take the next blocks once their
            // own copies have landed.
            if (ready < first) wait_through(first - 1);
            lo = first;
            top_up(buf, start, end);
        }
        if (last >= ready) wait_through(last);
    }
    __device__ __forceinline__ u32 word(u32 i) const { return words[i & (SLOTS * 32u - 1u)]; }
};

// ---------------------------------------------------------------------------------------------
// The input stream of one chunk.

template <typename Window>
struct CodagIn {
    const u8* buf;  // the whole input allocation
    u64 start;      // the chunk's first byte, as an offset into `buf`
    u64 end;        // one past its last byte
    u64 bit;        // the read position, in bits from the start of `buf`
    u32 status;     // sticky: WZ_STATUS_OK until a read fails
    Window win;

    __device__ __forceinline__ CodagIn(const u8* in, u64 offset, u64 len, Window w)
        : buf(in), start(offset), end(offset + len), bit(offset * 8ull), status(WZ_STATUS_OK),
          win(w) {
        win.open(buf, start, end, offset / CODAG_BLOCK);
    }

    __device__ __forceinline__ bool ok() const { return status == WZ_STATUS_OK; }
    __device__ __forceinline__ void fail(u32 s) {
        if (status == WZ_STATUS_OK) status = s;
    }
    // Bytes consumed so far (the position rounded down to a byte), relative to the chunk.
    __device__ __forceinline__ u64 byte_pos() const { return (bit >> 3) - start; }
    // Bytes from the (byte-rounded-down) position to the chunk's end.
    __device__ __forceinline__ u64 remaining() const { return end - (bit >> 3); }
    __device__ __forceinline__ bool at_end() const { return (bit >> 3) >= end; }
    // Absolute offset of the next whole byte.
    __device__ __forceinline__ u64 abs_byte() const { return bit >> 3; }

    // Makes the window hold bytes [abs, abs + n), which must lie in SLOTS consecutive blocks
    // (n <= 129 - (abs % 128) with two slots).
    __device__ __forceinline__ void ensure_at(u64 abs, u32 n) {
        win.ensure(buf, start, end, abs / CODAG_BLOCK, (abs + n - 1) / CODAG_BLOCK);
    }
    // Whether `n` bytes from the current byte fit the window at once (ensure_span may be
    // called for them).
    __device__ __forceinline__ bool spans_window(u64 n) const {
        const u64 abs = bit >> 3;
        return n == 0 || (abs + n - 1) / CODAG_BLOCK - abs / CODAG_BLOCK < Window::SLOTS;
    }
    __device__ __forceinline__ void ensure_span(u64 n) {
        if (n > 0) ensure_at(bit >> 3, (u32)n);
    }
    // Makes the window hold the next `n` (<= 128) bytes from the current byte.
    __device__ __forceinline__ void ensure(u32 n) { ensure_at(bit >> 3, n); }

    // Byte at absolute offset `abs`; the window must hold it.
    __device__ __forceinline__ u32 window_byte(u64 abs) const {
        return (win.word((u32)(abs >> 2)) >> ((abs & 3u) * 8u)) & 0xffu;
    }
    // The 8 bytes from the aligned word holding `abs`, little-endian: at least 33 bits from
    // `abs` on. The window must hold them.
    __device__ __forceinline__ u64 window_u64(u64 abs) const {
        const u32 w = (u32)(abs >> 2);
        return (u64)win.word(w) | ((u64)win.word(w + 1u) << 32);
    }

    // `width` (1..64) bits at absolute bit `abs_bit`, most significant first (ORC's bit
    // packing), read by each lane from the window, which must hold the 12 bytes from the
    // aligned word holding bit `abs_bit` on (all lanes call it together).
    __device__ __forceinline__ u64 window_bits_be(u64 abs_bit, u32 width) const {
        const u32 w = (u32)(abs_bit >> 5);
        const u64 hi = ((u64)__byte_perm(win.word(w), 0, 0x0123) << 32) |
                       (u64)__byte_perm(win.word(w + 1u), 0, 0x0123);
        const u32 lo = __byte_perm(win.word(w + 2u), 0, 0x0123);
        const u32 off = (u32)(abs_bit & 31ull);  // 0..31
        // The 64 bits from `off` on: hi's low 64 - off bits, then lo's top off bits.
        const u64 top = off == 0 ? hi : (hi << off) | ((u64)lo >> (32u - off));
        return top >> (64u - width);
    }

    // Checks that `nbits` more bits exist; records TRUNCATED otherwise.
    __device__ __forceinline__ bool has_bits(u64 nbits) {
        if (!ok()) return false;
        if (bit + nbits > end * 8ull) {
            fail(WZ_STATUS_TRUNCATED);
            return false;
        }
        return true;
    }

    // ---- bit reads, least significant bit first (Deflate's order); n <= 32 ----
    __device__ __forceinline__ u32 peek_bits(u32 n) {
        if (n == 0) return 0;
        if (!has_bits(n)) return 0;
        const u64 b = bit >> 3;
        ensure_at(b & ~3ull, 8);
        const u64 word = window_u64(b) >> (((b & 3ull) * 8ull) + (bit & 7ull));
        return (u32)(word & ((n == 32) ? 0xffffffffull : ((1ull << n) - 1ull)));
    }
    __device__ __forceinline__ void skip_bits(u32 n) {
        if (has_bits(n)) bit += n;
    }
    __device__ __forceinline__ u32 fetch_bits(u32 n) {
        const u32 v = peek_bits(n);
        if (ok()) bit += n;
        return v;
    }
    __device__ __forceinline__ void align_to_byte() { bit = (bit + 7ull) & ~7ull; }

    // ---- byte reads ----
    __device__ __forceinline__ u32 peek_byte() {
        if (!has_bits(8)) return 0;
        ensure(1);
        return window_byte(bit >> 3);
    }
    __device__ __forceinline__ u32 fetch_byte() {
        const u32 v = peek_byte();
        if (ok()) bit += 8;
        return v;
    }
    __device__ __forceinline__ void skip_bytes(u64 n) {
        if (has_bits(n * 8ull)) bit += n * 8ull;
    }
    // An unsigned big-endian field of `n` (1..8) whole bytes.
    __device__ __forceinline__ u64 fetch_be(u32 n) {
        if (!has_bits((u64)n * 8ull)) return 0;
        u64 v = 0;
        ensure(n);
        const u64 b = bit >> 3;
        for (u32 i = 0; i < n; ++i) v = (v << 8) | window_byte(b + i);
        bit += (u64)n * 8ull;
        return v;
    }
    // A base-128 varint (7 bits per byte, least significant group first, at most 64 bits).
    // More than ten bytes, or a tenth byte above 1, is CORRUPT; the chunk ending inside it
    // TRUNCATED.
    __device__ __forceinline__ u64 fetch_varint() {
        if (!ok()) return 0;
        const u64 b = bit >> 3;
        const u64 avail = end > b ? end - b : 0;
        const u32 n = avail < 10ull ? (u32)avail : 10u;
        ensure(10);
        u64 v = 0;
        for (u32 i = 0; i < n; ++i) {
            const u32 byte = window_byte(b + i);
            v |= (u64)(byte & 0x7fu) << (7u * i);
            if (byte < 0x80u) {
                if (i == 9 && byte > 1u) {
                    fail(WZ_STATUS_CORRUPT);
                    return 0;
                }
                bit += (u64)(i + 1) * 8ull;
                return v;
            }
        }
        fail(n == 10 ? WZ_STATUS_CORRUPT : WZ_STATUS_TRUNCATED);
        return 0;
    }

    // ---- per-lane bulk reads straight from global memory (no window, no uniformity) ----
    // `width` (1..64) bits at bit offset `rel_bit` from the current byte, most significant bit
    // first (ORC's bit packing). The caller has checked with `has_bits` that they exist.
    __device__ __forceinline__ u64 lane_bits_be(u64 rel_bit, u32 width) const {
        const u64 abs_bit = (bit & ~7ull) + rel_bit;
        const u64 word = abs_bit >> 6;
        const u64* w = reinterpret_cast<const u64*>(buf);
        const u64 hi = codag_bswap64(w[word]);
        const u64 lo = ((word + 1ull) * 8ull < end) ? codag_bswap64(w[word + 1ull]) : 0ull;
        const u32 s = (u32)(abs_bit & 63ull);
        const u64 top = s == 0 ? hi : (hi << s) | (lo >> (64u - s));
        return top >> (64u - width);
    }
    // `width` (1..32) bits at bit offset `rel_bit` from the current bit, least significant bit
    // first (Deflate's order). The caller has checked that they exist.
    __device__ __forceinline__ u32 lane_bits_le(u64 rel_bit, u32 width) const {
        const u64 abs_bit = bit + rel_bit;
        const u64 word = abs_bit >> 6;
        const u64* w = reinterpret_cast<const u64*>(buf);
        const u64 lo = w[word];
        const u64 hi = ((word + 1ull) * 8ull < end) ? w[word + 1ull] : 0ull;
        const u32 s = (u32)(abs_bit & 63ull);
        const u64 v = s == 0 ? lo : (lo >> s) | (hi << (64u - s));
        return (u32)(v & (width == 32 ? 0xffffffffull : ((1ull << width) - 1ull)));
    }
    // Byte `rel` from the current byte, read by one lane from global memory. The caller has
    // checked that it exists.
    __device__ __forceinline__ u32 lane_byte(u64 rel) const { return buf[(bit >> 3) + rel]; }
};

// ---------------------------------------------------------------------------------------------
// The output stream of one chunk: values of type T. Value number j of the decoded stream goes
// to out[j - skip] when skip <= j < skip + count; values before `skip` are dropped (a row group
// starting inside a run). With `exact`, a value beyond skip + count is OVERFLOW; without it the
// decoder stops once `done()`.

template <typename T>
struct CodagOut {
    T* out;      // where value `skip` goes
    u64 skip;    // values to drop first
    u64 limit;   // skip + count: one past the last value written
    u64 pos;     // values produced so far (written or dropped)
    bool exact;
    u32 status;

    __device__ __forceinline__ CodagOut(T* o, u64 skip_, u64 count, bool exact_)
        : out(o), skip(skip_), limit(skip_ + count), pos(0), exact(exact_),
          status(WZ_STATUS_OK) {}

    __device__ __forceinline__ bool ok() const { return status == WZ_STATUS_OK; }
    __device__ __forceinline__ void fail(u32 s) {
        if (status == WZ_STATUS_OK) status = s;
    }
    // Every wanted value is produced.
    __device__ __forceinline__ bool done() const { return pos >= limit; }
    // Claims room for `n` more values: OVERFLOW in exact mode when they do not fit.
    __device__ __forceinline__ bool reserve(u64 n) {
        if (!ok()) return false;
        if (exact && pos + n > limit) {
            fail(WZ_STATUS_OVERFLOW);
            return false;
        }
        return true;
    }
    // Writes value `v` as stream value number pos + i (by whichever lane calls it).
    __device__ __forceinline__ void put(u64 i, T v) {
        const u64 j = pos + i;
        if (j >= skip && j < limit) out[j - skip] = v;
    }
    // The lanes below `n` (<= 32) each write their own `v`, in lane order.
    __device__ __forceinline__ void write_literal(T v, u32 n) {
        if (wz_lane() < n) put(wz_lane(), v);
        pos += n;
    }
    // `n` values first, first + delta, first + 2 delta, ... (wrapping arithmetic in 64 bits;
    // the caller has range-checked the run), 32 consecutive values per step.
    __device__ __forceinline__ void write_run(u64 first, u64 n, u64 delta) {
        // Values before `skip` are not visited at all.
        u64 from = skip > pos ? skip - pos : 0;
        const u64 to = limit > pos ? (limit - pos < n ? limit - pos : n) : 0;
        for (u64 i = from + wz_lane(); i < to; i += 32) {
            out[pos + i - skip] = (T)(first + i * delta);
        }
        pos += n;
    }
    // Marks `n` values produced by per-lane `put` calls.
    __device__ __forceinline__ void advance(u64 n) { pos += n; }

    // Copies `length` bytes from `distance` bytes back (T must be u8, and skip 0): the
    // dictionary copy of LZ77 codecs. Destination byte j takes source byte
    // d0 - distance + (j - d0) % distance, so an overlapping copy (length > distance) repeats
    // the last `distance` bytes and every source byte was written before the copy began: the
    // lanes never wait for each other. Lane l writes aligned destination word l of each
    // 128-byte step; a word whose four source bytes are contiguous is built from two aligned
    // loads with a funnel shift, the others (partial words at the ends, wrap points, distances
    // below 4) byte by byte. A distance beyond the start of the output is BAD_DISTANCE.
    __device__ __forceinline__ void copy_back(u64 distance, u64 length) {
        static_assert(sizeof(T) == 1, "copy_back copies bytes");
        if (!ok() || length == 0) return;
        if (distance == 0 || distance > pos) {
            fail(WZ_STATUS_BAD_DISTANCE);
            return;
        }
        if (!reserve(length)) return;
        if (pos + length > limit) length = limit - pos;  // not exact: stop at the capacity
        u8* base = reinterpret_cast<u8*>(out);
        // Earlier lanes' writes must be visible before they are read back.
        __syncwarp();
        const u64 d0 = pos, d1 = pos + length;
        const bool wraps = length > distance;
        for (u64 wd = (d0 & ~3ull) + 4ull * wz_lane(); wd < d1; wd += 128ull) {
            u32* dst = reinterpret_cast<u32*>(base + wd);
            bool whole = wd >= d0 && wd + 4ull <= d1;
            u64 r = 0;
            if (whole) {
                // Lengths and distances of real codecs fit 32 bits: a 32-bit remainder is
                // several times cheaper than a 64-bit one.
                r = wd - d0;
                if (wraps) r = (r | distance) >> 32 ? r % distance : (u32)r % (u32)distance;
                whole = r + 4ull <= distance;
            }
            if (whole) {
                const u64 src = d0 - distance + r;
                const u32* s = reinterpret_cast<const u32*>(base + (src & ~3ull));
                const u32 sh = (u32)(src & 3ull) * 8u;
                *dst = __funnelshift_r(s[0], sh ? s[1] : 0u, sh);
            } else {
                u32 word = 0;
                for (u32 k = 0; k < 4; ++k) {
                    const u64 j = wd + k;
                    u32 byte;
                    if (j >= d0 && j < d1) {
                        u64 rel = j - d0;
                        if (wraps) {
                            rel = (rel | distance) >> 32 ? rel % distance
                                                         : (u32)rel % (u32)distance;
                        }
                        byte = base[d0 - distance + rel];
                    } else {
                        byte = (*dst >> (8u * k)) & 0xffu;  // outside the copy: unchanged
                    }
                    word |= byte << (8u * k);
                }
                *dst = word;
            }
        }
        pos += length;
    }
};

// ---------------------------------------------------------------------------------------------
// Deferred LZ77 tokens: a warp decodes up to 32 literals and matches into registers (token k in
// lane k) without touching the output, then writes the bytes of all of them at once in
// coalesced rounds of 32 (one byte per lane), four rounds at a time. A byte whose source lies in
// the same group of four rounds is resolved through the batch's token table in shared memory
// (following the chain of matches back to a literal or to a byte already written), so the rounds
// of a group are independent and their loads are in flight together: the load latency of a
// match is paid once per batch instead of once per match, and the serial decoder runs without
// waiting on memory. A batch of literals only (near-incompressible data) skips all that: each
// lane writes its token's bytes. A match whose distance reaches before the start of the output
// is BAD_DISTANCE.
#define CODAG_LZ_LITERAL 0x80000000u

struct CodagLzTable {  // per warp, in shared memory
    u32 start[32];     // token k's first byte, relative to the batch
    u32 info[32];      // CODAG_LZ_LITERAL | up to 3 bytes (first in the low byte), or the match
                       // distance
};

struct CodagLzBatch {
    u32 info = 0;   // this lane's token
    u32 len = 0;
    u32 count = 0;  // tokens held (uniform)

    __device__ __forceinline__ bool full() const { return count == 32u; }
    __device__ __forceinline__ void literal(u32 byte) {
        if (wz_lane() == count) {
            info = CODAG_LZ_LITERAL | byte;
            len = 1u;
        }
        ++count;
    }
    // A token as `info` (CODAG_LZ_LITERAL | its `length` (1..3) bytes, the first in the low
    // byte; or the match distance) and length.
    __device__ __forceinline__ void push(u32 token_info, u32 length) {
        if (wz_lane() == count) {
            info = token_info;
            len = length;
        }
        ++count;
    }
    // Fills an empty batch at once: lane k gives token k of `n` (<= 32) as `push` takes it
    // (lanes from `n` on give nothing).
    __device__ __forceinline__ void load(u32 token_info, u32 length, u32 n) {
        info = token_info;
        len = length;
        count = n;
    }
    // length >= 1, distance >= 1 (distance 0 is refused at `flush`).
    __device__ __forceinline__ void match(u32 length, u32 distance) {
        if (wz_lane() == count) {
            info = distance;
            len = length;
        }
        ++count;
    }

    // The token holding batch byte p: the last whose start is at most p.
    __device__ __forceinline__ static u32 token_at(const CodagLzTable& t, u32 n, u32 p) {
        u32 k = 0;
#pragma unroll
        for (u32 step = 16u; step != 0u; step >>= 1) {
            if (k + step < n && t.start[k + step] <= p) k += step;
        }
        return k;
    }
    // Byte p of the batch, which token k holds: follows matches back to a literal or to a byte
    // already in memory (before `floor`, the first byte of the group of rounds being written).
    __device__ __forceinline__ static u32 resolve(const CodagLzTable& t, u32 n, u32 k, u32 p,
                                                  const u8* base, u32 floor) {
        for (;;) {
            const u32 info = t.info[k];
            const u32 s = t.start[k];
            if (info & CODAG_LZ_LITERAL) return (info >> (8u * (p - s))) & 0xffu;
            u32 o = p - s;
            if (o >= info) o %= info;  // an overlapping match repeats its last `info` bytes
            const long long src = (long long)s + o - info;  // before s: the chain ends
            if (src < (long long)floor) return base[src];
            p = (u32)src;
            k = token_at(t, n, p);
        }
    }

    // Writes every held token's bytes to `out` (T = u8, skip 0) and empties the batch.
    __device__ void flush(CodagOut<u8>& out, CodagLzTable& t) {
        if (count == 0) return;
        const u32 lane = wz_lane();
        const u32 n = count;
        count = 0;
        const u32 mine = lane < n ? len : 0u;
        u32 incl = mine;
#pragma unroll
        for (u32 o = 1; o < 32u; o <<= 1) {
            const u32 x = __shfl_up_sync(WZ_FULL_MASK, incl, o);
            if (lane >= o) incl += x;
        }
        const u32 start = incl - mine;
        const u32 total = __shfl_sync(WZ_FULL_MASK, incl, 31);
        const bool is_match = lane < n && !(info & CODAG_LZ_LITERAL);
        const bool bad = is_match && (info == 0u || (u64)info > out.pos + start);
        if (__any_sync(WZ_FULL_MASK, bad)) {
            out.fail(WZ_STATUS_BAD_DISTANCE);
            return;
        }
        if (!out.reserve(total)) return;
        if (__all_sync(WZ_FULL_MASK, lane >= n || (info & CODAG_LZ_LITERAL))) {
            // Literals only: each lane writes its own bytes.
            u8* base = reinterpret_cast<u8*>(out.out) + out.pos + start;
            if (lane < n) {
                for (u32 i = 0; i < len; ++i) base[i] = (u8)(info >> (8u * i));
            }
            out.pos += total;
            __syncwarp();
            return;
        }
        __syncwarp();
        if (lane < n) {
            t.start[lane] = start;
            t.info[lane] = info;
        }
        __syncwarp();
        u8* base = reinterpret_cast<u8*>(out.out) + out.pos;
        const bool holds = lane < n;
        for (u32 r = 0; r < total; r += 128u) {
            u32 v[4];
#pragma unroll
            for (u32 k = 0; k < 4; ++k) {
                // The token of byte w0 + lane: the last one starting at or before it.
                const u32 w0 = r + 32u * k;
                const u32 b = w0 + lane;
                const u32 tok = wz_window_rank(holds, start, w0, lane);
                v[k] = b < total ? resolve(t, n, tok, b, base, r) : 0u;
            }
#pragma unroll
            for (u32 k = 0; k < 4; ++k) {
                const u32 b = r + 32u * k + lane;
                if (b < total) base[b] = (u8)v[k];
            }
            __syncwarp();  // the next group reads these bytes back instead of resolving them
        }
        out.pos += total;
        __syncwarp();
    }
};

// ---------------------------------------------------------------------------------------------
// The persistent grid: lane 0 takes the next chunk index from the counter and broadcasts it.
__device__ __forceinline__ u32 codag_next_chunk(u32* counter) {
    u32 c = 0;
    if (wz_lane() == 0) c = atomicAdd(counter, 1u);
    return __shfl_sync(WZ_FULL_MASK, c, 0);
}

// The status of a chunk: the input's failure first, then the output's.
template <typename In, typename T>
__device__ __forceinline__ u32 codag_status(const In& in, const CodagOut<T>& out) {
    return in.status != WZ_STATUS_OK ? in.status : out.status;
}
