//! GPU encoder and decoder of the `rle` chunk format: one warp per segment.

use crate::error::{Error, Result};
use crate::format::{ChunkSpan, Container};
use crate::gpu::GpuContext;

/// Compresses `data` on the GPU into a payload and its chunk spans, byte-identical to
/// `chunked::compress`.
pub fn compress(
    _gpu: &GpuContext,
    _data: &[u8],
    _chunk_size: usize,
) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    Err(Error::Unsupported("GPU rle encoder not written yet".into()))
}

/// Decompresses every chunk of a validated `rle` container on the GPU into `out`.
pub fn decompress_into(
    _gpu: &GpuContext,
    _container: &Container<'_>,
    _out: &mut [u8],
) -> Result<()> {
    Err(Error::Unsupported("GPU rle decoder not written yet".into()))
}
