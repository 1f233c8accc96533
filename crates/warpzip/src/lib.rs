#![doc = include_str!("../../../README.md")]

pub mod api;
pub mod codec;
pub mod device;
pub mod error;
pub mod format;
pub mod gpu;
pub mod ops;
pub mod orc;

/// gzip files (RFC 1952): single-member, multi-member and BGZF, members inflated as one batch on
/// the device; [`api::decompress_any`] reaches it by the file's first bytes.
pub mod gzip {
    pub use crate::codec::deflate::gzip::*;
}

pub use api::{compress, decompress, decompress_any, CompressOptions};
pub use codec::CodecId;
pub use device::Device;
pub use error::{ChunkStatus, Error, Result};
