//! The byte layout of `orc-rle-v1` (codec id 2) and `orc-rle-v2` (codec id 3) chunks; see
//! `docs/format.md`, sections "Codec orc-rle-v1" and "Codec orc-rle-v2".
//!
//! A chunk of `n` bytes of little-endian integers of the container's element type holds
//! `n / size` values. Two chunk layouts exist, named by the first codec param byte:
//!
//! - **layout 1** (plain): the chunk's compressed form is exactly one ORC Integer RLE stream
//!   (version 1 or 2 as the codec says) of its values, signed (zigzag) for i8..i64 and unsigned
//!   for u8..u64, nothing before or after it. Read, never written by this build.
//! - **layout 2** (indexed, the default): the values are cut into sub-blocks of `sub_block`
//!   values (the last may be shorter), each encoded as its own ORC stream; the chunk is a
//!   sub-block index (one little-endian u32 per sub-block: where its stream ends, counted from
//!   the end of the index) followed by the streams back to back. Their concatenation is itself
//!   one ORC stream of the chunk's values; the index lets a decoder start every sub-block at
//!   once (the GPU gives each its own lane).

use crate::error::{ChunkStatus, Error, Result};
use crate::format::ElemType;

/// Default chunk size: 128 KiB of values.
pub const DEFAULT_CHUNK_SIZE: u32 = 128 << 10;
/// Layout 1: a chunk is one ORC stream.
pub const LAYOUT_PLAIN: u8 = 1;
/// Layout 2: a chunk is a sub-block index and one ORC stream per sub-block.
pub const LAYOUT_INDEXED: u8 = 2;
/// The default sub-block holds this many bytes of values (256 i64, 512 i32, 1024 i16, 2048 i8).
pub const DEFAULT_SUB_BLOCK_BYTES: u32 = 2048;
/// The largest sub-block, in values: any stream of it keeps its byte length far below 2^32.
pub const MAX_SUB_BLOCK: u32 = 1 << 16;
/// Bytes of one index entry.
pub const INDEX_ENTRY: usize = 4;

/// Which ORC integer RLE version a codec writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RleVersion {
    /// Integer RLE version 1.
    V1,
    /// Integer RLE version 2.
    V2,
}

/// How a chunk's compressed bytes are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Layout 1: one ORC stream per chunk.
    Plain,
    /// Layout 2: an index, then one ORC stream per sub-block of `sub_block` values.
    Indexed {
        /// Values per sub-block (1..=[`MAX_SUB_BLOCK`]).
        sub_block: u32,
    },
}

impl Layout {
    /// The layout this build writes for `elem`: indexed, 2 KiB of values per sub-block.
    pub fn default_for(elem: ElemType) -> Layout {
        let size = (elem.size() as u32).max(1);
        Layout::Indexed {
            sub_block: DEFAULT_SUB_BLOCK_BYTES / size,
        }
    }

    /// The sub-block size, checked: `Error::InvalidArgument` outside 1..=[`MAX_SUB_BLOCK`].
    pub fn indexed(sub_block: u32) -> Result<Layout> {
        if sub_block == 0 || sub_block > MAX_SUB_BLOCK {
            return Err(Error::InvalidArgument(format!(
                "sub-block of {sub_block} values: it must hold 1 to {MAX_SUB_BLOCK} values"
            )));
        }
        Ok(Layout::Indexed { sub_block })
    }
}

/// Whether `elem` is an integer type these codecs store, and if so whether it is signed.
pub fn signedness(elem: ElemType) -> Option<bool> {
    match elem {
        ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64 => Some(false),
        ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64 => Some(true),
        _ => None,
    }
}

/// The element type `elem` if these codecs store it, else `Error::InvalidArgument`.
pub fn check_elem(elem: ElemType) -> Result<bool> {
    signedness(elem).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the ORC RLE codecs store integers (i8, i16, i32, i64, u8, u16, u32, u64), \
             not {elem}; give an element type (--dtype)"
        ))
    })
}

/// The codec params in the container header. Layout 1: 3 bytes, the layout version, the value
/// width in bytes and 1 for a signed (zigzag) stream or 0 for an unsigned one (the last two
/// repeat what the element type says, so a reader can check the two agree). Layout 2: the same
/// 3 bytes (version 2), a zero byte, and the sub-block size in values as a little-endian u32.
pub fn codec_params(elem: ElemType, layout: Layout) -> Result<Vec<u8>> {
    let signed = check_elem(elem)?;
    let width = elem.size() as u8;
    Ok(match layout {
        Layout::Plain => vec![LAYOUT_PLAIN, width, u8::from(signed)],
        Layout::Indexed { sub_block } => {
            Layout::indexed(sub_block)?;
            let mut p = vec![LAYOUT_INDEXED, width, u8::from(signed), 0];
            p.extend_from_slice(&sub_block.to_le_bytes());
            p
        }
    })
}

/// The layout that `params` describe for element type `elem`; `Error::Unsupported` naming what
/// disagrees when they are not params this build writes or reads.
pub fn parse_codec_params(params: &[u8], elem: ElemType) -> Result<Layout> {
    let unsupported = |why: String| Error::Unsupported(format!("ORC RLE codec params: {why}"));
    let signed =
        check_elem(elem).map_err(|_| unsupported(format!("element type {elem} is no integer")))?;
    let head = [elem.size() as u8, u8::from(signed)];
    match params {
        [LAYOUT_PLAIN, w, s] if [*w, *s] == head => Ok(Layout::Plain),
        [LAYOUT_INDEXED, w, s, 0, k @ ..] if [*w, *s] == head && k.len() == 4 => {
            let sub_block = u32::from_le_bytes([k[0], k[1], k[2], k[3]]);
            Layout::indexed(sub_block).map_err(|_| {
                unsupported(format!(
                    "a sub-block of {sub_block} values (1 to {MAX_SUB_BLOCK})"
                ))
            })
        }
        [v, ..] if *v != LAYOUT_PLAIN && *v != LAYOUT_INDEXED => Err(unsupported(format!(
            "chunk layout {v}, this build reads layouts 1 and 2"
        ))),
        _ => Err(unsupported(format!(
            "{params:02x?} do not describe {elem} values (width {}, {})",
            head[0],
            if signed { "signed" } else { "unsigned" }
        ))),
    }
}

/// How many sub-blocks of `sub_block` values a chunk of `values` values has.
pub fn sub_block_count(values: usize, sub_block: u32) -> usize {
    values.div_ceil(sub_block.max(1) as usize)
}

/// A layout-2 chunk's index and streams: `ends[j]` is where sub-block `j`'s stream ends in
/// `streams` (it starts where `j - 1`'s ends, `j = 0` at 0). The index must name exactly
/// `sub_block_count(values, sub_block)` streams that do not go backwards and end exactly at
/// the chunk's end; anything else is `ChunkStatus::Corrupt`.
pub fn split_indexed(
    chunk: &[u8],
    values: usize,
    sub_block: u32,
) -> std::result::Result<(Vec<u32>, &[u8]), ChunkStatus> {
    let n = sub_block_count(values, sub_block);
    let index_len = n.checked_mul(INDEX_ENTRY).ok_or(ChunkStatus::Corrupt)?;
    if chunk.len() < index_len {
        return Err(ChunkStatus::Truncated);
    }
    let (index, streams) = chunk.split_at(index_len);
    let ends: Vec<u32> = index
        .chunks_exact(INDEX_ENTRY)
        .map(|e| u32::from_le_bytes([e[0], e[1], e[2], e[3]]))
        .collect();
    let mut start = 0u32;
    for &end in &ends {
        if end < start {
            return Err(ChunkStatus::Corrupt);
        }
        start = end;
    }
    if start as usize != streams.len() {
        return Err(ChunkStatus::Corrupt);
    }
    Ok((ends, streams))
}
