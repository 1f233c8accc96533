//! One module per codec. Each holds `format.rs` (the byte layout), `cpu.rs` (the reference
//! encoder and decoder) and `gpu.rs` (kernel launches); the three agree byte for byte.

pub mod deflate;
pub mod orc_rle;
pub mod rle;

use crate::error::{Error, Result};

/// The codecs a `.wz` container can hold. The numeric value is what the header stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CodecId {
    /// Byte run-length encoding (`codec::rle`).
    Rle = 1,
    /// Apache ORC Integer RLE version 1 over typed integers (`codec::orc_rle`).
    OrcRleV1 = 2,
    /// Apache ORC Integer RLE version 2 over typed integers (`codec::orc_rle`).
    OrcRleV2 = 3,
    /// Deflate (RFC 1951): each chunk one raw Deflate stream (`codec::deflate`).
    Deflate = 4,
}

impl CodecId {
    /// Every codec, in id order.
    pub const ALL: &'static [CodecId] = &[
        CodecId::Rle,
        CodecId::OrcRleV1,
        CodecId::OrcRleV2,
        CodecId::Deflate,
    ];

    /// The id stored in the container header.
    pub fn to_u16(self) -> u16 {
        self as u16
    }

    /// The codec for a header id.
    pub fn from_u16(id: u16) -> Result<CodecId> {
        match id {
            1 => Ok(CodecId::Rle),
            2 => Ok(CodecId::OrcRleV1),
            3 => Ok(CodecId::OrcRleV2),
            4 => Ok(CodecId::Deflate),
            other => Err(Error::Unsupported(format!("unknown codec id {other}"))),
        }
    }

    /// The name used on the command line and in tables.
    pub fn name(self) -> &'static str {
        match self {
            CodecId::Rle => "rle",
            CodecId::OrcRleV1 => "orc-rle-v1",
            CodecId::OrcRleV2 => "orc-rle-v2",
            CodecId::Deflate => "deflate",
        }
    }

    /// Looks a codec up by its command-line name.
    pub fn from_name(name: &str) -> Result<CodecId> {
        CodecId::ALL
            .iter()
            .copied()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = CodecId::ALL.iter().map(|c| c.name()).collect();
                Error::InvalidArgument(format!(
                    "unknown codec '{name}' (known: {})",
                    known.join(", ")
                ))
            })
    }
}

impl std::fmt::Display for CodecId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
