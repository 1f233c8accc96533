//! The byte layout of a `deflate` chunk and its codec params (see `docs/format.md`, section
//! "Codec deflate").
//!
//! Every chunk's compressed bytes are exactly one raw RFC 1951 stream (no zlib or gzip
//! wrapper, nothing before or after it) that inflates to the chunk's uncompressed size, so any
//! inflater (zlib with `wbits = -15`, libdeflate, the GPU kernel) decodes a chunk on its own.
//! The codec params are two bytes: the layout version and the level the writer used.

use crate::error::{Error, Result};

/// Layout version stored in byte 0 of the codec params.
pub const LAYOUT_VERSION: u8 = 1;
/// Bytes of codec params.
pub const CODEC_PARAMS_LEN: usize = 2;
/// Lowest compression level (libdeflate's fastest).
pub const MIN_LEVEL: i32 = 1;
/// Highest compression level (libdeflate's slowest, smallest output).
pub const MAX_LEVEL: i32 = 12;
/// The level used when none is given: libdeflate's and zlib's default, a good balance of
/// speed and ratio.
pub const DEFAULT_LEVEL: i32 = 6;
/// Default uncompressed bytes per chunk: four Deflate windows, so that few matches are lost at
/// chunk starts, and small enough that a GPU batch of a few hundred MiB has thousands of chunks
/// to spread over its warps.
pub const DEFAULT_CHUNK_SIZE: u32 = 128 << 10;
/// Smallest chunk size: one Deflate window.
pub const MIN_CHUNK_SIZE: u32 = 32 << 10;
/// Largest chunk size: bounds what one warp of the GPU inflater decodes serially.
pub const MAX_CHUNK_SIZE: u32 = 4 << 20;

/// The codec params stored in the container header for `level`: `[LAYOUT_VERSION, level]`.
pub fn codec_params(level: i32) -> Result<Vec<u8>> {
    check_level(level)?;
    // check_level bounds the level to 1..=12, which fits a byte.
    Ok(vec![LAYOUT_VERSION, level as u8])
}

/// Checks codec params read from a container; returns the level they record. The level does
/// not change how chunks decode; it is kept for `warpzip inspect`.
pub fn parse_codec_params(params: &[u8]) -> Result<i32> {
    match params {
        [LAYOUT_VERSION, level] if (MIN_LEVEL..=MAX_LEVEL).contains(&i32::from(*level)) => {
            Ok(i32::from(*level))
        }
        _ => Err(Error::Unsupported(format!(
            "deflate parameters {params:02x?} are not ones this build supports (expected \
             [{LAYOUT_VERSION:02x}, level 1..=12])"
        ))),
    }
}

/// `Ok` for a level in `MIN_LEVEL..=MAX_LEVEL`, else `Error::InvalidArgument`.
pub fn check_level(level: i32) -> Result<()> {
    if (MIN_LEVEL..=MAX_LEVEL).contains(&level) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "deflate level {level} is out of range: levels are {MIN_LEVEL} (fastest) to \
             {MAX_LEVEL} (smallest), default {DEFAULT_LEVEL}"
        )))
    }
}

/// `Ok` for a chunk size in `MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE`, else `Error::InvalidArgument`.
pub fn check_chunk_size(chunk_size: u32) -> Result<()> {
    if (MIN_CHUNK_SIZE..=MAX_CHUNK_SIZE).contains(&chunk_size) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "chunk size {chunk_size} is not valid for deflate: it must be between \
             {MIN_CHUNK_SIZE} (32 KiB) and {MAX_CHUNK_SIZE} (4 MiB); the default is \
             {DEFAULT_CHUNK_SIZE} (128 KiB)"
        )))
    }
}
