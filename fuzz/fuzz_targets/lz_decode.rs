//! Any bytes: the first two (little-endian) give an output length (0..=65535), the third picks
//! Snappy or LZ4 (its low bit), the rest is a raw block for `codec::lz::cpu::decompress_block`;
//! then the same bytes as an ORC stream of SNAPPY, LZ4 and ZSTD compression chunks (3-byte
//! headers) for `orc::file::compression`'s sequential and parallel decompressors. Every call
//! must return, never panic; the two ORC decompressors must agree. What decodes as a block
//! re-encodes and decodes to the same bytes. Seeds: `corpus/lz_decode/`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpzip::codec::lz::{cpu, LzKind};
use warpzip::error::ChunkStatus;
use warpzip::orc::file::compression::{decompress_stream, inflate_stream_mapped};
use warpzip::orc::place::Place;
use warpzip::orc::{Compression, CompressionKind};

fuzz_target!(|data: &[u8]| {
    let Some((head, block)) = data.split_first_chunk::<3>() else {
        return;
    };
    let len = usize::from(u16::from_le_bytes([head[0], head[1]]));
    let kind = if head[2] & 1 == 0 { LzKind::Snappy } else { LzKind::Lz4 };
    let mut out = vec![0u8; len];
    if cpu::decompress_block(kind, block, &mut out) == ChunkStatus::Ok {
        let again = cpu::compress_block(kind, &out).unwrap_or_default();
        let mut back = vec![0u8; len];
        assert_eq!(cpu::decompress_block(kind, &again, &mut back), ChunkStatus::Ok);
        assert_eq!(back, out);
    }
    for kind in [CompressionKind::Snappy, CompressionKind::Lz4, CompressionKind::Zstd] {
        let compression = Compression {
            kind,
            block_size: 1 + len as u64,
        };
        let place = Place::file();
        let one = decompress_stream(block, compression, &place).map(|b| b.into_owned());
        let all = inflate_stream_mapped(block, compression, &place).map(|(b, _)| b.into_owned());
        assert_eq!(one.is_ok(), all.is_ok(), "{kind:?}");
        if let (Ok(a), Ok(b)) = (one, all) {
            assert_eq!(a, b, "{kind:?}");
        }
    }
});
