//! The ratio mode's GPU encoder.

use crate::codec::sz::cpu::{Ctx, EncodedChunk};
use crate::error::{Error, Result};
use crate::gpu::GpuContext;

/// Encodes `data` in ratio mode on the GPU.
pub fn compress_ratio(
    gpu: &GpuContext,
    data: &[u8],
    chunk_size: usize,
    ctx: &Ctx,
) -> Result<Vec<EncodedChunk>> {
    let _ = (gpu, data, chunk_size, ctx);
    Err(Error::Unsupported("not yet".into()))
}

#[cfg(test)]
pub(super) fn struct_sizes() {}
