//! Containers sealed from a description: the fuzz target `wz_decompress` and the test that
//! runs its seeds (`crates/warpzip/tests/hostile_containers.rs`) share this file.

use warpzip::codec::orc_rle::format::Layout;
use warpzip::codec::{deflate, orc_rle, rle};
use warpzip::format::{write_container, ChunkSpan, ElemType, Header};
use warpzip::CodecId;

/// Reads little-endian integers off the front of the input, zero past its end.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u8(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
}

/// A container sealed from the description in `bytes`, or `None` when the writer refuses it.
pub fn seal(bytes: &[u8]) -> Option<Vec<u8>> {
    let mut r = Reader(bytes);
    let codec = CodecId::ALL[usize::from(r.u8()) % CodecId::ALL.len()];
    let elem = ElemType::ALL[usize::from(r.u8()) % ElemType::ALL.len()];
    let knob = r.u8();
    let codec_params = match codec {
        CodecId::Rle => rle::format::codec_params(),
        CodecId::Deflate => deflate::format::codec_params(i32::from(knob % 12) + 1).ok()?,
        CodecId::For | CodecId::Dfor | CodecId::Rfor | CodecId::Tile => {
            warpzip::codec::tile::format::codec_params()
        }
        _ => {
            let layout = if knob & 1 == 0 {
                Layout::Plain
            } else {
                Layout::indexed(u32::from(knob >> 1) * 64 + 64).ok()?
            };
            orc_rle::format::codec_params(elem, layout).ok()?
        }
    };
    // Chunk sizes from a few bytes to 1 GiB; chunk counts up to 8.
    let chunk_size = match r.u8() % 4 {
        0 => r.u32() % 4096 + 1,
        1 => (r.u32() % 64 + 1) << 12,
        2 => 64 << 20,
        _ => r.u32().max(1),
    };
    let chunks = usize::from(r.u8() % 8);
    let last = match chunks {
        0 => 0,
        _ => (r.u32() % chunk_size) + 1,
    };
    let total_len = (chunks.saturating_sub(1) as u64) * u64::from(chunk_size) + u64::from(last);
    let rest = r.0;
    let mut spans = Vec::with_capacity(chunks);
    let mut at = 0usize;
    for i in 0..chunks {
        let remaining = rest.len() - at;
        let len = if i + 1 == chunks {
            remaining
        } else {
            remaining / (chunks - i)
        };
        spans.push(ChunkSpan {
            offset: at,
            compressed_len: u32::try_from(len).ok()?,
            uncompressed_len: if i + 1 == chunks { last } else { chunk_size },
        });
        at += len;
    }
    let header = Header {
        codec,
        codec_params,
        elem_type: elem,
        shape: Vec::new(),
        total_len,
        chunk_size,
    };
    let mut out = Vec::new();
    write_container(&mut out, &header, rest, &spans).ok()?;
    Some(out)
}
