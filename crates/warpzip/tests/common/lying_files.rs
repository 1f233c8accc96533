//! Files that lie, forged with the project's own writers for the hostile-input tests of the
//! library and of the binary: `.wz` containers whose chunks claim more than their bytes hold
//! (checksums valid), and ORC files with an edited footer.
#![allow(dead_code, clippy::unwrap_used)]

use prost::Message;
use warpzip::codec::{deflate, orc_rle, rle};
use warpzip::format::{write_container, ChunkSpan, ElemType, Header};
use warpzip::orc::proto::{Footer, PostScript};
use warpzip::CodecId;

/// The header parameters of `codec` for `elem`.
pub fn params(codec: CodecId, elem: ElemType) -> Vec<u8> {
    match codec {
        CodecId::Rle => rle::format::codec_params(),
        CodecId::Deflate => deflate::format::codec_params(6).unwrap(),
        CodecId::For | CodecId::Dfor | CodecId::Rfor | CodecId::Tile => {
            warpzip::codec::tile::format::codec_params()
        }
        CodecId::Sz => sz_params(),
        _ => {
            orc_rle::format::codec_params(elem, orc_rle::format::Layout::default_for(elem)).unwrap()
        }
    }
}

/// Parameters of an `sz` container of 1-D f32 values, ratio mode, `abs:1e-3`.
fn sz_params() -> Vec<u8> {
    use warpzip::codec::sz::format::{Geometry, Params};
    Params {
        layout: 1,
        mode: 0,
        emode: 0,
        geometry: Geometry {
            ndim: 1,
            ny: 1,
            nx: 1,
        },
        radius: 512,
        e: 1e-3,
        bound: 1e-3,
        step: 2e-3,
        exceptions: 0,
        fills: Vec::new(),
    }
    .encode(4)
}

/// A container of `chunks` chunks of `chunk_size` claimed bytes each, whose compressed bytes
/// are `per_chunk` bytes of `fill`: every checksum valid.
pub fn lying_container(
    codec: CodecId,
    chunk_size: u32,
    chunks: usize,
    per_chunk: usize,
    fill: u8,
) -> Vec<u8> {
    let elem = match codec {
        CodecId::Rle | CodecId::Deflate => ElemType::Bytes,
        CodecId::Sz => ElemType::F32,
        _ => ElemType::I64,
    };
    let header = Header {
        codec,
        codec_params: params(codec, elem),
        elem_type: elem,
        shape: Vec::new(),
        total_len: chunk_size as u64 * chunks as u64,
        chunk_size,
    };
    let payload = vec![fill; per_chunk * chunks];
    let spans: Vec<ChunkSpan> = (0..chunks)
        .map(|i| ChunkSpan {
            offset: i * per_chunk,
            compressed_len: per_chunk as u32,
            uncompressed_len: chunk_size,
        })
        .collect();
    let mut out = Vec::new();
    write_container(&mut out, &header, &payload, &spans).unwrap();
    out
}

/// The file with its footer replaced by what `edit` makes of it (the postscript updated to the
/// new footer's length; the file's compression is NONE, so the footer is stored as is).
pub fn with_footer(file: &[u8], edit: impl FnOnce(&mut Footer)) -> Vec<u8> {
    let ps_len = usize::from(*file.last().unwrap());
    let ps_start = file.len() - 1 - ps_len;
    let mut ps = PostScript::decode(&file[ps_start..file.len() - 1]).unwrap();
    assert_eq!(
        ps.compression.unwrap_or(0),
        0,
        "the fixture must be uncompressed"
    );
    let footer_len = ps.footer_length.unwrap() as usize;
    let footer_start = ps_start - footer_len;
    let mut footer = Footer::decode(&file[footer_start..ps_start]).unwrap();
    edit(&mut footer);
    let new_footer = footer.encode_to_vec();
    ps.footer_length = Some(new_footer.len() as u64);
    let new_ps = ps.encode_to_vec();
    let mut out = file[..footer_start].to_vec();
    out.extend_from_slice(&new_footer);
    out.extend_from_slice(&new_ps);
    out.push(u8::try_from(new_ps.len()).unwrap());
    out
}
