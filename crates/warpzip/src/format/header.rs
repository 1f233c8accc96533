//! The fixed part of the container header (offsets 0..32), the dims and the codec params: their
//! types, their byte encoding, and the rules a header must satisfy. The rules are shared by the
//! reader and the writer, so that the writer can never produce a file the reader rejects.

use super::CodecId;
use super::{
    FIXED_HEADER_LEN, FLAG_MORE_FRAMES, FORMAT_VERSION, HEADER_CHECKSUM_LEN, MAGIC, MAX_CHUNK_SIZE,
    MAX_CODEC_PARAMS_LEN, MAX_NDIM, STREAM_VERSION, TABLE_ENTRY_LEN,
};
use crate::error::{Error, Result};

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

impl ElemType {
    /// Every element type, in id order.
    pub const ALL: &'static [ElemType] = &[
        ElemType::Bytes,
        ElemType::U8,
        ElemType::U16,
        ElemType::U32,
        ElemType::U64,
        ElemType::I8,
        ElemType::I16,
        ElemType::I32,
        ElemType::I64,
        ElemType::F32,
        ElemType::F64,
    ];

    /// The id stored in the header.
    pub fn to_u8(self) -> u8 {
        self as u8
    }

    /// The element type for a header id, `None` for an id this version does not define.
    pub fn from_u8(id: u8) -> Option<ElemType> {
        ElemType::ALL.get(usize::from(id)).copied()
    }

    /// Size of one element in bytes (1 for `Bytes`).
    pub fn size(self) -> u64 {
        match self {
            ElemType::Bytes | ElemType::U8 | ElemType::I8 => 1,
            ElemType::U16 | ElemType::I16 => 2,
            ElemType::U32 | ElemType::I32 | ElemType::F32 => 4,
            ElemType::U64 | ElemType::I64 | ElemType::F64 => 8,
        }
    }

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            ElemType::Bytes => "bytes",
            ElemType::U8 => "u8",
            ElemType::U16 => "u16",
            ElemType::U32 => "u32",
            ElemType::U64 => "u64",
            ElemType::I8 => "i8",
            ElemType::I16 => "i16",
            ElemType::I32 => "i32",
            ElemType::I64 => "i64",
            ElemType::F32 => "f32",
            ElemType::F64 => "f64",
        }
    }
}

impl std::fmt::Display for ElemType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
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

impl Header {
    /// Number of chunks this header implies: `ceil(total_len / chunk_size)`, or `None` when the
    /// chunk size is 0 or the count does not fit the header's u32 field.
    pub fn chunk_count(&self) -> Option<u32> {
        if self.chunk_size == 0 {
            return None;
        }
        u32::try_from(self.total_len.div_ceil(u64::from(self.chunk_size))).ok()
    }

    /// Uncompressed size of chunk `index` (the last chunk may be short), `None` past the end.
    pub fn chunk_uncompressed_len(&self, index: u32) -> Option<u32> {
        let count = self.chunk_count()?;
        if index >= count {
            return None;
        }
        let start = u64::from(index) * u64::from(self.chunk_size);
        let len = (self.total_len - start).min(u64::from(self.chunk_size));
        u32::try_from(len).ok()
    }

    /// Checks every rule of a version-1 header and returns the chunk count. `bad` builds the
    /// error: the reader reports corruption, the writer an invalid argument. The total size is
    /// a whole number of elements: the product of the dims times the element size when there
    /// are dims, a multiple of the element size for a flat stream.
    pub(crate) fn check(&self, bad: fn(String) -> Error) -> Result<u32> {
        if self.shape.len() > MAX_NDIM {
            return Err(bad(format!(
                "ndim is {}, at most {MAX_NDIM} dimensions are allowed",
                self.shape.len()
            )));
        }
        if self.codec_params.len() > MAX_CODEC_PARAMS_LEN {
            return Err(bad(format!(
                "codec params are {} bytes, at most {MAX_CODEC_PARAMS_LEN} are allowed",
                self.codec_params.len()
            )));
        }
        if self.chunk_size == 0 {
            return Err(bad("chunk size is 0".into()));
        }
        if self.chunk_size > MAX_CHUNK_SIZE {
            return Err(bad(format!(
                "chunk size {} exceeds the maximum of {MAX_CHUNK_SIZE} bytes (1 GiB)",
                self.chunk_size
            )));
        }
        if !self.shape.is_empty() {
            let elements = self
                .shape
                .iter()
                .try_fold(1u64, |acc, &d| acc.checked_mul(d));
            let bytes = elements.and_then(|n| n.checked_mul(self.elem_type.size()));
            if bytes != Some(self.total_len) {
                return Err(bad(format!(
                    "shape {:?} of {} elements does not match the total size of {} bytes",
                    self.shape, self.elem_type, self.total_len
                )));
            }
        } else if !self.total_len.is_multiple_of(self.elem_type.size()) {
            return Err(bad(format!(
                "total size of {} bytes is not a whole number of {} elements ({} bytes each)",
                self.total_len,
                self.elem_type,
                self.elem_type.size()
            )));
        }
        self.chunk_count().ok_or_else(|| {
            bad(format!(
                "total size {} in chunks of {} bytes needs more than 2^32-1 chunks",
                self.total_len, self.chunk_size
            ))
        })
    }

    /// Appends the header bytes (fixed part, dims, codec params) for `chunk_count` chunks, as
    /// `framing` says (a version-1 container, or a frame of a version-2 stream). The header
    /// must have passed `check`.
    pub(crate) fn encode(&self, chunk_count: u32, framing: Framing, out: &mut Vec<u8>) {
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&framing.version.to_le_bytes());
        out.extend_from_slice(&self.codec.to_u16().to_le_bytes());
        out.extend_from_slice(&framing.flags().to_le_bytes());
        out.push(self.elem_type.to_u8());
        // `check` bounds both lengths far below the field widths.
        out.push(self.shape.len() as u8);
        out.extend_from_slice(&self.chunk_size.to_le_bytes());
        out.extend_from_slice(&self.total_len.to_le_bytes());
        out.extend_from_slice(&chunk_count.to_le_bytes());
        out.extend_from_slice(&(self.codec_params.len() as u32).to_le_bytes());
        for dim in &self.shape {
            out.extend_from_slice(&dim.to_le_bytes());
        }
        out.extend_from_slice(&self.codec_params);
    }
}

/// How a container sits in its file: a version-1 container is the whole file; a version-2
/// container is one **frame** of a stream of frames, and says whether another frame follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// The format version in the header: [`FORMAT_VERSION`] or [`STREAM_VERSION`].
    pub version: u16,
    /// Flag bit 0 of a version-2 frame: another frame of the same stream follows this one.
    pub more: bool,
}

impl Framing {
    /// A version-1 container, the whole file.
    pub const SINGLE: Framing = Framing {
        version: FORMAT_VERSION,
        more: false,
    };

    /// A frame of a version-2 stream; `more` when another frame follows it.
    pub fn frame(more: bool) -> Framing {
        Framing {
            version: STREAM_VERSION,
            more,
        }
    }

    /// The header's flags field.
    pub fn flags(self) -> u16 {
        if self.more {
            FLAG_MORE_FRAMES
        } else {
            0
        }
    }
}

/// Length in bytes of everything before the payload: fixed header, dims, codec params, chunk
/// table and header checksum. Equivalently, the payload's offset in the file.
pub fn header_len(header: &Header, chunk_count: u32) -> u64 {
    let dims = (header.shape.len() as u64).saturating_mul(8);
    let table = u64::from(chunk_count) * TABLE_ENTRY_LEN as u64;
    (FIXED_HEADER_LEN as u64)
        .saturating_add(dims)
        .saturating_add(header.codec_params.len() as u64)
        .saturating_add(table)
        .saturating_add(HEADER_CHECKSUM_LEN as u64)
}

/// A little-endian reader over a byte slice that reports running off the end as truncation.
pub(crate) struct ByteCursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> ByteCursor<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        ByteCursor { bytes, pos: 0 }
    }

    pub(crate) fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end.and_then(|e| self.bytes.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(Error::Truncated(format!(
                "file ends at byte {} inside the {what} (needs {n} bytes at offset {})",
                self.bytes.len(),
                self.pos
            ))),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let s = self.take(N, what)?;
        s.first_chunk::<N>()
            .copied()
            .ok_or_else(|| Error::Truncated(format!("file ends inside the {what}")))
    }

    pub(crate) fn u8(&mut self, what: &str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &str) -> Result<u16> {
        self.array(what).map(u16::from_le_bytes)
    }

    pub(crate) fn u32(&mut self, what: &str) -> Result<u32> {
        self.array(what).map(u32::from_le_bytes)
    }

    pub(crate) fn u64(&mut self, what: &str) -> Result<u64> {
        self.array(what).map(u64::from_le_bytes)
    }
}

/// Decodes and validates the header (fixed part, dims, codec params) at the start of `bytes`.
/// Returns the header, the chunk count and the cursor just past the codec params. The chunk
/// table and the header checksum are not looked at here.
pub(crate) fn decode_header(bytes: &[u8]) -> Result<(Header, u32, ByteCursor<'_>, Framing)> {
    let corrupt = Error::CorruptContainer;
    let head = bytes.get(..MAGIC.len()).unwrap_or(bytes);
    if head != &MAGIC[..head.len()] {
        return Err(corrupt(format!(
            "not a .wz file: magic is {head:02x?}, expected {MAGIC:02x?}"
        )));
    }
    let mut cur = ByteCursor::new(bytes);
    cur.take(MAGIC.len(), "magic")?;
    let version = cur.u16("format version")?;
    if version != FORMAT_VERSION && version != STREAM_VERSION {
        return Err(if version > STREAM_VERSION {
            Error::Unsupported(format!(
                "format version {version} is newer than this build reads (versions \
                 {FORMAT_VERSION} and {STREAM_VERSION}): the file was written by a newer \
                 warpzip, or its header is damaged"
            ))
        } else {
            corrupt(format!(
                "format version {version} does not exist (this build reads versions \
                 {FORMAT_VERSION} and {STREAM_VERSION}): the header is damaged"
            ))
        });
    }
    let codec_id = cur.u16("codec id")?;
    let flags = cur.u16("flags")?;
    let elem_id = cur.u8("element type")?;
    let ndim = cur.u8("ndim")?;
    let chunk_size = cur.u32("chunk size")?;
    let total_len = cur.u64("total size")?;
    let chunk_count = cur.u32("chunk count")?;
    let params_len = cur.u32("codec params length")?;

    // The codec id is checked after the fixed fields are read so that a truncated header is
    // still reported as truncated; an unknown codec is a newer writer, not damage.
    let codec = CodecId::from_u16(codec_id)?;
    let allowed = if version == STREAM_VERSION {
        FLAG_MORE_FRAMES
    } else {
        0
    };
    if flags & !allowed != 0 {
        return Err(corrupt(if allowed == 0 {
            format!("flags are {flags:#06x}, must be 0 in format version {version}")
        } else {
            format!(
                "flags are {flags:#06x}, only bit 0 ({allowed:#06x}, more frames follow) is \
                 defined in format version {version}"
            )
        }));
    }
    let framing = Framing {
        version,
        more: flags & FLAG_MORE_FRAMES != 0,
    };
    let elem_type = ElemType::from_u8(elem_id)
        .ok_or_else(|| corrupt(format!("unknown element type {elem_id}")))?;
    if usize::from(ndim) > MAX_NDIM {
        return Err(corrupt(format!(
            "ndim is {ndim}, at most {MAX_NDIM} dimensions are allowed"
        )));
    }
    let params_len = usize::try_from(params_len)
        .ok()
        .filter(|&p| p <= MAX_CODEC_PARAMS_LEN)
        .ok_or_else(|| {
            corrupt(format!(
                "codec params length is {params_len}, at most {MAX_CODEC_PARAMS_LEN} is allowed"
            ))
        })?;
    let mut shape = Vec::with_capacity(usize::from(ndim));
    for _ in 0..ndim {
        shape.push(cur.u64("dims")?);
    }
    let codec_params = cur.take(params_len, "codec params")?.to_vec();
    let header = Header {
        codec,
        codec_params,
        elem_type,
        shape,
        total_len,
        chunk_size,
    };
    let expected = header.check(corrupt)?;
    if chunk_count != expected {
        return Err(corrupt(format!(
            "chunk count is {chunk_count}, but {total_len} bytes in chunks of {chunk_size} \
             make {expected}"
        )));
    }
    Ok((header, chunk_count, cur, framing))
}

/// Reads and validates the header at the start of `bytes` without the chunk table, the header
/// checksum or the payload: enough for `inspect` on a file that may be truncated. A file this
/// accepts may still fail `Container::parse`.
pub fn peek_header(bytes: &[u8]) -> Result<Header> {
    decode_header(bytes).map(|(header, _, _, _)| header)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elem_type_ids_round_trip_and_stop_at_the_last() {
        for (i, &t) in ElemType::ALL.iter().enumerate() {
            assert_eq!(usize::from(t.to_u8()), i);
            assert_eq!(ElemType::from_u8(t.to_u8()), Some(t));
        }
        assert_eq!(ElemType::from_u8(ElemType::ALL.len() as u8), None);
        assert_eq!(ElemType::from_u8(u8::MAX), None);
    }

    #[test]
    fn chunk_count_and_last_chunk_size() {
        let h = Header {
            codec: CodecId::Rle,
            codec_params: Vec::new(),
            elem_type: ElemType::Bytes,
            shape: Vec::new(),
            total_len: 10,
            chunk_size: 4,
        };
        assert_eq!(h.chunk_count(), Some(3));
        assert_eq!(h.chunk_uncompressed_len(1), Some(4));
        assert_eq!(h.chunk_uncompressed_len(2), Some(2));
        assert_eq!(h.chunk_uncompressed_len(3), None);
        let too_many = Header {
            total_len: 1 << 33,
            chunk_size: 1,
            ..h.clone()
        };
        assert_eq!(too_many.chunk_count(), None);
        let zero = Header { chunk_size: 0, ..h };
        assert_eq!(zero.chunk_count(), None);
    }
}
