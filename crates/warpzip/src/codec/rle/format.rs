//! The byte layout of an `rle` chunk, token layout 2 (see `docs/format.md`, section "Codec
//! rle").
//!
//! A chunk of `n` bytes is cut into `k = ceil(n / SEGMENT_SIZE)` segments. Its compressed form
//! is a segment table of `k` little-endian u32, entry `i` being the end offset of segment `i`'s
//! bytes measured from the end of the table, followed by the segments back to back. A segment
//! of `S` bytes is:
//!
//! - a little-endian u16 `m`, its token count;
//! - the **payload**, bytes `[2, S - m)`: every token's payload, in token order;
//! - the **controls**, bytes `[S - m, S)`: one control byte per token, in token order.
//!
//! Every token's payload size follows from its control byte alone, so a decoder finds where
//! every token's payload and output start with two prefix sums and no serial walk. Controls:
//!
//! - `0x00..=0x7F`: literal; payload `c + 1` bytes (1..=128), copied verbatim.
//! - `0x80..=0xFE`: short run; payload one value byte, repeated `c - 0x80 + 3` times (3..=129).
//! - `0xFF`: long run; payload a little-endian u16 `L` and one value byte, repeated `L` times.
//!
//! The canonical encoding, which the CPU and GPU encoders both produce byte for byte, cuts each
//! segment into maximal runs of equal bytes; each run of 3 or more becomes one run token (short
//! if it fits, else long); every maximal stretch of bytes between such runs becomes literal
//! tokens of 128 bytes each, the last one shorter. Decoders accept any valid token sequence.

use crate::error::{Error, Result};

/// Uncompressed bytes per segment. Chunk sizes of this codec are multiples of it.
pub const SEGMENT_SIZE: usize = 4096;
/// The token layout this build writes and reads (the second codec parameter).
pub const TOKEN_LAYOUT: u32 = 2;
/// Bytes of a segment's token count.
pub const SEGMENT_HEADER: usize = 2;
/// Longest literal token payload.
pub const MAX_LITERAL: usize = 128;
/// Shortest run a run token stores.
pub const MIN_RUN: usize = 3;
/// Longest run a short run token stores.
pub const MAX_SHORT_RUN: usize = 129;
/// Payload bytes of a long run: its u16 length and its value.
pub const LONG_RUN_PAYLOAD: usize = 3;
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

/// Largest compressed size of a chunk of `n` bytes: the table, plus per segment its token
/// count and one control byte per 128 literal bytes (the worst case is all literals). That is
/// n·(1 + 1/128) + 6 per segment: a growth of at most 0.93% on incompressible input.
pub fn max_compressed_len(n: usize) -> usize {
    let full = n / SEGMENT_SIZE;
    let tail = n % SEGMENT_SIZE;
    4 * segment_count(n)
        + full * max_segment_len(SEGMENT_SIZE)
        + if tail > 0 { max_segment_len(tail) } else { 0 }
}

/// Worst-case bytes of one segment of `len` bytes (the GPU's scratch slot size).
pub fn max_segment_len(len: usize) -> usize {
    SEGMENT_HEADER + len + len.div_ceil(MAX_LITERAL)
}

/// Checks a container's codec parameters: this build reads segment size 4096 with token layout
/// 2 only. Containers of the first layout (4 bytes of parameters, no layout) were written by
/// warpzip before token layout 2 and are refused with a message saying so.
pub fn check_codec_params(params: &[u8]) -> Result<()> {
    if params == codec_params().as_slice() {
        return Ok(());
    }
    if params == (SEGMENT_SIZE as u32).to_le_bytes() {
        return Err(Error::Unsupported(
            "this rle container uses token layout 1 (written by warpzip before layout 2); \
             this build reads layout 2 only: decompress it with the warpzip that wrote it"
                .into(),
        ));
    }
    Err(Error::Unsupported(format!(
        "rle parameters {params:02x?} differ from the ones this build supports ({:02x?})",
        codec_params()
    )))
}

/// Payload bytes of the token with control byte `c`.
pub fn payload_len(c: u8) -> usize {
    match c {
        LONG_RUN => LONG_RUN_PAYLOAD,
        c if c >= SHORT_RUN_BASE => 1,
        c => usize::from(c) + 1,
    }
}

/// The codec parameters stored in the container header: the segment size and the token
/// layout, two little-endian u32.
pub fn codec_params() -> Vec<u8> {
    let mut p = (SEGMENT_SIZE as u32).to_le_bytes().to_vec();
    p.extend_from_slice(&TOKEN_LAYOUT.to_le_bytes());
    p
}
