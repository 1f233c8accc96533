//! Deflate (RFC 1951): raw-deflate streams compressed on the CPU with libdeflate and inflated
//! either on the CPU (libdeflate) or on the GPU (`kernels/deflate/inflate.cu`, one warp per
//! stream on the CODAG framework).
//!
//! - [`format`]: the `.wz` codec's constants and params; [`chunked`]: the container glue;
//! - [`gzip`]: `.gz` files (RFC 1952), single-member, multi-member and BGZF, members inflated as
//!   one batch;
//! - [`batch`]: the library call that inflates a batch of independent streams into
//!   caller-provided buffers and returns one [`batch::StreamResult`] per stream;
//! - [`cpu`]: libdeflate compression and inflation of one stream;
//! - [`gpu`]: the GPU batch (host or device memory) and its kernel launch.

pub mod batch;
pub mod chunked;
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod gzip;

pub use batch::{inflate_batch, StreamResult};

use super::{Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{CodecId, Container, ElemType};

/// The `deflate` codec: each chunk one raw RFC 1951 stream, compressed on the CPU with
/// libdeflate on every device, inflated on the CPU or the GPU.
pub struct DeflateCodec;

impl Codec for DeflateCodec {
    fn id(&self) -> CodecId {
        CodecId::Deflate
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        let chunk_size = opts.chunk_size.unwrap_or(format::DEFAULT_CHUNK_SIZE);
        format::check_level(opts.level.unwrap_or(format::DEFAULT_LEVEL))?;
        format::check_chunk_size(chunk_size)?;
        let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
        if !u64::from(chunk_size).is_multiple_of(elem.size()) {
            return Err(Error::InvalidArgument(format!(
                "chunk size {chunk_size} is not a multiple of the {elem} size ({})",
                elem.size()
            )));
        }
        Ok(chunk_size)
    }

    fn stream_chunk_size(&self, opts: &CompressOptions, input_len: Option<u64>) -> Result<u32> {
        let chunk_size = self.check_options(opts)?;
        // As `compress` does: no chunk size given and untyped input, the size follows the
        // input's length; an input of unknown length is at least a batch, so it gets the
        // size large inputs get.
        if opts.chunk_size.is_none() && opts.elem_type.unwrap_or(ElemType::Bytes) == ElemType::Bytes
        {
            return Ok(input_len.map_or(format::DEFAULT_CHUNK_SIZE, |n| {
                format::auto_chunk_size(usize::try_from(n).unwrap_or(usize::MAX))
            }));
        }
        Ok(chunk_size)
    }

    fn compress(
        &self,
        data: &[u8],
        opts: &CompressOptions,
        chunk_size: u32,
        _device: &Device,
    ) -> Result<Encoded> {
        let level = opts.level.unwrap_or(format::DEFAULT_LEVEL);
        // No chunk size given: small inputs get smaller chunks, to keep a GPU busy.
        let chunk_size = if opts.chunk_size.is_none()
            && opts.elem_type.unwrap_or(ElemType::Bytes) == ElemType::Bytes
        {
            format::auto_chunk_size(data.len())
        } else {
            chunk_size
        };
        let (payload, spans) = chunked::compress(data, level, chunk_size as usize)?;
        Ok(Encoded {
            payload,
            spans,
            codec_params: format::codec_params(level)?,
            chunk_size,
        })
    }

    fn decompress_into(
        &self,
        container: &Container<'_>,
        out: &mut [u8],
        device: &Device,
    ) -> Result<()> {
        format::parse_codec_params(&container.header.codec_params)?;
        chunked::decompress_into(&container.chunk_list(), out, device)
    }

    fn max_decoded_len(&self, compressed_len: u64, _elem: ElemType) -> u64 {
        // A match copies at most 258 bytes and costs at least two bits (a length code and a
        // distance code): 1,032 bytes a compressed byte, plus a literal and a match of slack.
        compressed_len.saturating_mul(1032).saturating_add(516)
    }

    fn describe_params(&self, params: &[u8], _elem: ElemType) -> Option<String> {
        match params {
            [1, level] => Some(format!("layout 1, level {level}")),
            _ => None,
        }
    }
}
