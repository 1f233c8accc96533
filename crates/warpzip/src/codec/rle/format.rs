//! The byte layout of an `rle` chunk (see `docs/format.md`, section "Codec rle").
//!
//! A chunk of `n` bytes is cut into `k = ceil(n / SEGMENT_SIZE)` segments. Its compressed form
//! is a segment table of `k` little-endian u32, entry `i` being the end offset of segment `i`'s
//! tokens measured from the end of the table, followed by the segments' token streams back to
//! back. A token stream decodes to exactly its segment's length (SEGMENT_SIZE, or less for the
//! chunk's last segment). Tokens, by their control byte `c`:
//!
//! - `0x00..=0x7F`: literal; `c + 1` bytes (1..=128) follow and are copied verbatim.
//! - `0x80..=0xFE`: short run; one value byte follows; it repeats `c - 0x80 + 3` times (3..=129).
//! - `0xFF`: long run; an unsigned LEB128 varint `v` (at most 3 bytes) and one value byte
//!   follow; the value repeats `v + 130` times.
//!
//! The canonical encoding, which the CPU and GPU encoders both produce byte for byte, cuts each
//! segment into maximal runs of equal bytes; each run of 3 or more becomes one run token (short
//! if it fits, else long); every maximal stretch of bytes between such runs becomes literal
//! tokens of 128 bytes each, the last one shorter. Decoders accept any valid token sequence.

/// Uncompressed bytes per segment. Chunk sizes of this codec are multiples of it.
pub const SEGMENT_SIZE: usize = 4096;
/// Longest literal token payload.
pub const MAX_LITERAL: usize = 128;
/// Shortest run a run token stores.
pub const MIN_RUN: usize = 3;
/// Longest run a short run token stores.
pub const MAX_SHORT_RUN: usize = 129;
/// Run length a long run token adds to its varint.
pub const LONG_RUN_BIAS: usize = 130;
/// Most bytes a long run's varint may take; a longer varint is corrupt.
pub const MAX_VARINT_LEN: usize = 3;
/// Control byte of a long run.
pub const LONG_RUN: u8 = 0xFF;
/// First control byte of a short run.
pub const SHORT_RUN_BASE: u8 = 0x80;
/// Default chunk size of the codec.
pub const DEFAULT_CHUNK_SIZE: u32 = 1 << 20;

/// Number of segments of a chunk of `n` bytes.
pub fn segment_count(n: usize) -> usize {
    n.div_ceil(SEGMENT_SIZE)
}

/// Largest compressed size of a chunk of `n` bytes: the table, plus one control byte per 128
/// literal bytes (per segment, the worst case is all literals). That is n·(1 + 1/128) + 4 per
/// segment: a growth of at most 0.88% on incompressible input.
pub fn max_compressed_len(n: usize) -> usize {
    let k = segment_count(n);
    let full = n / SEGMENT_SIZE;
    let tail = n % SEGMENT_SIZE;
    4 * k + n + full * SEGMENT_SIZE.div_ceil(MAX_LITERAL) + tail.div_ceil(MAX_LITERAL)
}

/// Worst-case compressed bytes of one segment of `len` bytes (the GPU's scratch slot size).
pub fn max_segment_len(len: usize) -> usize {
    len + len.div_ceil(MAX_LITERAL)
}

/// The codec parameters stored in the container header: the segment size as a u32.
pub fn codec_params() -> Vec<u8> {
    (SEGMENT_SIZE as u32).to_le_bytes().to_vec()
}
