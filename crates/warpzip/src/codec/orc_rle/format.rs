//! The byte layout of `orc-rle-v1` (codec id 2) and `orc-rle-v2` (codec id 3) chunks; see
//! `docs/format.md`, sections "Codec orc-rle-v1" and "Codec orc-rle-v2".
//!
//! A chunk of `n` bytes of little-endian integers of the container's element type holds
//! `n / size` values; its compressed form is exactly one ORC Integer RLE stream (version 1 or 2
//! as the codec says) of those values, signed (zigzag) for i8..i64 and unsigned for u8..u64,
//! nothing before or after it.

use crate::error::{Error, Result};
use crate::format::ElemType;

/// Default chunk size: 128 KiB of values.
pub const DEFAULT_CHUNK_SIZE: u32 = 128 << 10;
/// Version of the chunk layout, the first byte of the codec params.
pub const LAYOUT_VERSION: u8 = 1;

/// Which ORC integer RLE version a codec writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RleVersion {
    /// Integer RLE version 1.
    V1,
    /// Integer RLE version 2.
    V2,
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

/// The codec params in the container header: 3 bytes, the layout version (1), the value width
/// in bytes and 1 for a signed (zigzag) stream or 0 for an unsigned one. They repeat what the
/// element type says, so a reader can check the two agree.
pub fn codec_params(elem: ElemType) -> Result<Vec<u8>> {
    let signed = check_elem(elem)?;
    Ok(vec![LAYOUT_VERSION, elem.size() as u8, u8::from(signed)])
}
