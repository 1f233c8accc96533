//! Writing gzip files (RFC 1952) and BGZF files (the SAM specification's blocked gzip): one
//! member per chunk, each chunk a raw Deflate stream compressed with libdeflate, so that every
//! gzip reads the file and warpzip's batch decoder can take its members apart again (BGZF by the
//! sizes its headers record, plain gzip by the header scan).

use super::header::{FEXTRA, FIXED_LEN, MAGIC, METHOD_DEFLATE, TRAILER_LEN};
use crate::codec::deflate::format::{check_chunk_size, check_level, DEFAULT_LEVEL};
use crate::codec::deflate::DeflateCodec;
use crate::codec::{Codec, CompressOptions};
use crate::error::{Error, Result};
use crate::format::ElemType;
use crate::stream::OutputFormat;
use libdeflater::{CompressionLvl, Compressor};
use rayon::prelude::*;

/// Uncompressed bytes per BGZF block, as `bgzip` writes them: small enough that a block of
/// incompressible data, stored, still fits the 64 KiB a BGZF member may take.
pub const BGZF_BLOCK: u32 = 0xff00;
/// Most bytes of one BGZF member (its BSIZE field holds the size minus one in 16 bits).
pub const BGZF_MAX_MEMBER: usize = 1 << 16;
/// Bytes of a BGZF member header: the 10 fixed bytes, XLEN, and the 6-byte `BC` subfield.
pub const BGZF_HEADER_LEN: usize = 18;
/// The end-of-file marker block the SAM specification asks for: an empty BGZF member.
pub const BGZF_EOF: [u8; 28] = [
    0x1f, 0x8b, 0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x06, 0x00, 0x42, 0x43, 0x02, 0x00,
    0x1b, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];
/// The OS byte warpzip writes: 255, unknown (the output does not depend on the platform).
const OS_UNKNOWN: u8 = 0xff;

/// Checks `opts` for gzip or BGZF output (the level; the chunk size, which BGZF caps at
/// [`BGZF_BLOCK`]) and returns the chunk size to use for an input of unknown length.
pub fn check_options(opts: &CompressOptions, format: OutputFormat) -> Result<u32> {
    check_level(opts.level.unwrap_or(DEFAULT_LEVEL))?;
    match format {
        OutputFormat::Bgzf => match opts.chunk_size {
            None => Ok(BGZF_BLOCK),
            Some(size) if (1..=BGZF_BLOCK).contains(&size) => Ok(size),
            Some(size) => Err(Error::InvalidArgument(format!(
                "chunk size {size} is not valid for BGZF: a block holds 1 to {BGZF_BLOCK} bytes"
            ))),
        },
        _ => {
            let deflate = CompressOptions {
                elem_type: Some(ElemType::Bytes),
                ..opts.clone()
            };
            let size = DeflateCodec.check_options(&deflate)?;
            check_chunk_size(size)?;
            Ok(size)
        }
    }
}

/// The chunk size (uncompressed bytes per member) for an input of `input_len` bytes (`None`:
/// unknown): deflate's choice for gzip, [`BGZF_BLOCK`] (or the chunk size given) for BGZF.
pub fn chunk_size(
    opts: &CompressOptions,
    format: OutputFormat,
    input_len: Option<u64>,
) -> Result<u32> {
    match format {
        OutputFormat::Bgzf => check_options(opts, format),
        _ => {
            let deflate = CompressOptions {
                elem_type: Some(ElemType::Bytes),
                ..opts.clone()
            };
            check_options(opts, format)?;
            DeflateCodec.stream_chunk_size(&deflate, input_len)
        }
    }
}

/// `data` as gzip members of `chunk` bytes each (the last may be shorter), compressed in
/// parallel; an empty `data` is one empty member for gzip and nothing for BGZF (whose file
/// ends with [`BGZF_EOF`], written by the caller).
pub fn members(
    data: &[u8],
    opts: &CompressOptions,
    chunk: u32,
    format: OutputFormat,
) -> Result<Vec<u8>> {
    let level = opts.level.unwrap_or(DEFAULT_LEVEL);
    let lvl = CompressionLvl::new(level)
        .map_err(|_| Error::InvalidArgument(format!("deflate level {level} is out of range")))?;
    let bgzf = format == OutputFormat::Bgzf;
    if data.is_empty() {
        if bgzf {
            return Ok(Vec::new());
        }
        return member(&mut Compressor::new(lvl), &[], level, false);
    }
    let pieces: Vec<Vec<u8>> = data
        .par_chunks((chunk as usize).max(1))
        .map_init(|| Compressor::new(lvl), |c, piece| member(c, piece, level, bgzf))
        .collect::<Result<_>>()?;
    Ok(pieces.concat())
}

/// One member holding `piece`: header, raw Deflate stream, CRC-32 and size.
fn member(c: &mut Compressor, piece: &[u8], level: i32, bgzf: bool) -> Result<Vec<u8>> {
    let header_len = if bgzf { BGZF_HEADER_LEN } else { FIXED_LEN };
    let bound = c.deflate_compress_bound(piece.len());
    let mut out = vec![0u8; header_len + bound + TRAILER_LEN];
    let mut len = c
        .deflate_compress(piece, &mut out[header_len..header_len + bound])
        .map_err(|e| Error::InvalidArgument(format!("libdeflate compression failed: {e}")))?;
    if bgzf && header_len + len + TRAILER_LEN > BGZF_MAX_MEMBER {
        // Does not happen at libdeflate's levels (it stores what does not shrink), but a BGZF
        // member must fit 64 KiB whatever the compressor does: store the block.
        let mut stored = Compressor::new(
            CompressionLvl::new(0)
                .map_err(|_| Error::InvalidArgument("deflate level 0 is out of range".into()))?,
        );
        len = stored
            .deflate_compress(piece, &mut out[header_len..header_len + bound])
            .map_err(|e| Error::InvalidArgument(format!("libdeflate compression failed: {e}")))?;
    }
    out.truncate(header_len + len);
    // XFL: 2 for the slowest levels, 4 for the fastest, as gzip sets it.
    let xfl = match level {
        l if l >= 9 => 2,
        1 => 4,
        _ => 0,
    };
    out[..2].copy_from_slice(&MAGIC);
    out[2] = METHOD_DEFLATE;
    out[3] = if bgzf { FEXTRA } else { 0 };
    out[4..8].fill(0);
    out[8] = xfl;
    out[9] = OS_UNKNOWN;
    if bgzf {
        let total = header_len + len + TRAILER_LEN;
        let bsize = u16::try_from(total - 1).map_err(|_| {
            Error::InvalidArgument(format!("a BGZF member of {total} bytes exceeds 64 KiB"))
        })?;
        out[10..12].copy_from_slice(&6u16.to_le_bytes());
        out[12] = b'B';
        out[13] = b'C';
        out[14..16].copy_from_slice(&2u16.to_le_bytes());
        out[16..18].copy_from_slice(&bsize.to_le_bytes());
    }
    out.extend_from_slice(&libdeflater::crc32(piece).to_le_bytes());
    // ISIZE is the size modulo 2^32; a piece is at most a chunk, far below.
    out.extend_from_slice(&(piece.len() as u32).to_le_bytes());
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::codec::deflate::gzip::header::parse_header;

    #[test]
    fn the_bgzf_eof_block_is_an_empty_bgzf_member() {
        let h = parse_header(&BGZF_EOF).unwrap();
        assert_eq!(h.bgzf_member_len, Some(BGZF_EOF.len()));
        assert_eq!(h.len, BGZF_HEADER_LEN);
    }

    #[test]
    fn bgzf_members_record_their_size_and_fit_64_kib() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
            .collect();
        let opts = CompressOptions::for_codec(crate::CodecId::Deflate);
        let bytes = members(&data, &opts, BGZF_BLOCK, OutputFormat::Bgzf).unwrap();
        let mut at = 0;
        let mut n = 0;
        while at < bytes.len() {
            let h = parse_header(&bytes[at..]).unwrap();
            let len = h.bgzf_member_len.unwrap();
            assert!(len <= BGZF_MAX_MEMBER);
            at += len;
            n += 1;
        }
        assert_eq!(at, bytes.len());
        assert_eq!(n, data.len().div_ceil(BGZF_BLOCK as usize));
    }
}
