//! The library's front door: compress and decompress whole buffers into and out of `.wz`.

use crate::codec::CodecId;
use crate::device::Device;
use crate::error::{Error, Result};

/// How to compress.
#[derive(Clone, Debug)]
pub struct CompressOptions {
    pub codec: CodecId,
    pub level: Option<i32>,
    pub chunk_size: Option<u32>,
}

/// Compresses `data` into a `.wz` container.
pub fn compress(_data: &[u8], _opts: &CompressOptions, _device: &Device) -> Result<Vec<u8>> {
    Err(Error::Unsupported("not written yet".into()))
}

/// Decompresses a `.wz` container.
pub fn decompress(_container: &[u8], _device: &Device) -> Result<Vec<u8>> {
    Err(Error::Unsupported("not written yet".into()))
}
