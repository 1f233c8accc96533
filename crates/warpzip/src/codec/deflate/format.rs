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
/// Chunks an input should make at least, when the chunk size is left to the codec: the GPU
/// decodes one chunk per warp, and a large GPU holds this many warps at once (132 SMs x 8).
pub const TARGET_CHUNKS: usize = 1024;

/// The chunk size used when none is given: the default 128 KiB for inputs of at least
/// `TARGET_CHUNKS` default chunks; smaller inputs get smaller chunks (a power of two, at least
/// [`MIN_CHUNK_SIZE`]) so that they still spread over the GPU (a 10 MB file makes 306 chunks of
/// 32 KiB instead of 77 of 128 KiB).
pub fn auto_chunk_size(input_len: usize) -> u32 {
    let want = (input_len / TARGET_CHUNKS).max(1).next_power_of_two();
    want.clamp(MIN_CHUNK_SIZE as usize, DEFAULT_CHUNK_SIZE as usize) as u32
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_inputs_get_smaller_chunks() {
        assert_eq!(auto_chunk_size(0), MIN_CHUNK_SIZE);
        assert_eq!(auto_chunk_size(10_000_000), 32 << 10);
        assert_eq!(auto_chunk_size(64 << 20), 64 << 10);
        assert_eq!(auto_chunk_size(256 << 20), DEFAULT_CHUNK_SIZE);
        assert_eq!(auto_chunk_size(usize::MAX / 2), DEFAULT_CHUNK_SIZE);
    }
}
