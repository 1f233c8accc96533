//! The `snappy` and `lz4` codecs' container parameters: one byte, the layout (1: each chunk one
//! raw block of its codec, decoding to exactly the chunk's recorded length).

use crate::error::{Error, Result};

/// Uncompressed bytes a chunk when the caller gives none: enough for a GPU warp to stream,
/// small enough that a file of a few MiB keeps many warps busy.
pub const DEFAULT_CHUNK_SIZE: u32 = 64 << 10;

/// The largest chunk a `snappy` or `lz4` container may hold (a warp decodes one chunk).
pub const MAX_CHUNK_SIZE: u32 = 16 << 20;

/// The only layout.
pub const LAYOUT: u8 = 1;

/// The header's codec parameters.
pub fn codec_params() -> Vec<u8> {
    vec![LAYOUT]
}

/// Checks the header's codec parameters.
pub fn parse_codec_params(params: &[u8]) -> Result<()> {
    match params {
        [LAYOUT] => Ok(()),
        other => Err(Error::Unsupported(format!(
            "snappy/lz4 parameters {other:?} are not layout 1"
        ))),
    }
}
