//! CPU reference encoder and decoder of the `rle` chunk format (`format.rs`).

use crate::error::ChunkStatus;

/// Appends the canonical encoding of one chunk to `out`.
pub fn encode_chunk(_input: &[u8], _out: &mut Vec<u8>) {}

/// Decodes one chunk into `out`, whose length is the chunk's recorded uncompressed size.
pub fn decode_chunk(_input: &[u8], _out: &mut [u8]) -> Result<(), ChunkStatus> {
    Err(ChunkStatus::Corrupt)
}
