//! The reference encoder and decoder of one raw Snappy or LZ4 block, through `snap` and
//! `lz4_flex` (their safe decoders): the bytes the GPU decoder must equal.

use super::LzKind;
use crate::error::{ChunkStatus, Error, Result};

/// One chunk as a raw block.
pub fn compress_block(kind: LzKind, chunk: &[u8]) -> Result<Vec<u8>> {
    match kind {
        LzKind::Snappy => snap::raw::Encoder::new()
            .compress_vec(chunk)
            .map_err(|e| Error::InvalidArgument(format!("snappy compression failed: {e}"))),
        LzKind::Lz4 => Ok(lz4_flex::block::compress(chunk)),
    }
}

/// Decodes one raw block into `out`, which it must fill exactly: `Ok`, or why not.
pub fn decompress_block(kind: LzKind, block: &[u8], out: &mut [u8]) -> ChunkStatus {
    match kind {
        LzKind::Snappy => {
            match snap::raw::decompress_len(block) {
                Ok(n) if n == out.len() => {}
                Ok(n) if n > out.len() => return ChunkStatus::Overflow,
                Ok(_) => return ChunkStatus::Underflow,
                Err(_) => return ChunkStatus::Corrupt,
            }
            match snap::raw::Decoder::new().decompress(block, out) {
                Ok(n) if n == out.len() => ChunkStatus::Ok,
                Ok(_) => ChunkStatus::Underflow,
                Err(snap::Error::Offset { .. }) => ChunkStatus::BadDistance,
                Err(_) => ChunkStatus::Corrupt,
            }
        }
        LzKind::Lz4 => match lz4_flex::block::decompress_into(block, out) {
            Ok(n) if n == out.len() => ChunkStatus::Ok,
            Ok(_) => ChunkStatus::Underflow,
            Err(lz4_flex::block::DecompressError::OutputTooSmall { .. }) => ChunkStatus::Overflow,
            Err(lz4_flex::block::DecompressError::OffsetOutOfBounds) => ChunkStatus::BadDistance,
            Err(lz4_flex::block::DecompressError::ExpectedAnotherByte) => ChunkStatus::Truncated,
            Err(_) => ChunkStatus::Corrupt,
        },
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn blocks_round_trip_and_damage_is_a_status() {
        let text: Vec<u8> = (0..20_000u32).map(|i| (i % 97) as u8 ^ (i / 300) as u8).collect();
        for kind in [LzKind::Snappy, LzKind::Lz4] {
            for data in [&text[..], &text[..1], &[][..]] {
                let block = compress_block(kind, data).unwrap();
                let mut out = vec![0u8; data.len()];
                assert_eq!(decompress_block(kind, &block, &mut out), ChunkStatus::Ok);
                assert_eq!(out, data);
            }
            let block = compress_block(kind, &text).unwrap();
            let mut short = vec![0u8; text.len() - 1];
            assert_ne!(decompress_block(kind, &block, &mut short), ChunkStatus::Ok);
            let mut long = vec![0u8; text.len() + 1];
            assert_ne!(decompress_block(kind, &block, &mut long), ChunkStatus::Ok);
            let mut out = vec![0u8; text.len()];
            assert_ne!(
                decompress_block(kind, &block[..block.len() / 2], &mut out),
                ChunkStatus::Ok
            );
        }
    }
}
