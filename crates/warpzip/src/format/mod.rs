//! The `.wz` container, version 1: header, chunk table, checksums. `docs/format.md` describes
//! every byte. The reader validates the header and the whole table before any payload is used.

use crate::codec::CodecId;
use crate::error::{Error, Result};
use std::io::Write;

/// Element type of typed data; `Bytes` for untyped byte streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ElemType {
    Bytes = 0,
    U8 = 1,
    U16 = 2,
    U32 = 3,
    U64 = 4,
    I8 = 5,
    I16 = 6,
    I32 = 7,
    I64 = 8,
    F32 = 9,
    F64 = 10,
}

/// What the container header records, apart from the chunk table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub codec: CodecId,
    /// Codec-specific parameters (at most 64 bytes), described per codec in `docs/format.md`.
    pub codec_params: Vec<u8>,
    pub elem_type: ElemType,
    /// Dimensions of typed data, slowest first (at most 4); empty for a flat stream.
    pub shape: Vec<u64>,
    /// Total uncompressed size in bytes.
    pub total_len: u64,
    /// Uncompressed bytes per chunk; every chunk but the last holds exactly this many.
    pub chunk_size: u32,
}

/// One chunk's entry in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Offset of the chunk's compressed bytes from the start of the payload.
    pub offset: u64,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
    /// xxh3-64 of the chunk's compressed bytes.
    pub checksum: u64,
}

/// Where one chunk's compressed bytes lie in a payload buffer being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSpan {
    pub offset: usize,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
}

/// A parsed, validated container borrowing its payload.
#[derive(Debug)]
pub struct Container<'a> {
    pub header: Header,
    pub chunks: Vec<ChunkEntry>,
    pub payload: &'a [u8],
}

impl<'a> Container<'a> {
    /// Parses and validates header and table.
    pub fn parse(_bytes: &'a [u8]) -> Result<Container<'a>> {
        Err(Error::Unsupported(
            "container parsing not written yet".into(),
        ))
    }
}

/// Writes a container whose chunks lie in `payload` at `chunks`.
pub fn write_container<W: Write>(
    _w: &mut W,
    _header: &Header,
    _payload: &[u8],
    _chunks: &[ChunkSpan],
) -> Result<u64> {
    Err(Error::Unsupported(
        "container writing not written yet".into(),
    ))
}
