//! Byte run-length encoding (codec id 1, name `rle`), after "Run-length Encoding on Graphics
//! Hardware": chunks are cut into fixed segments that encode and decode independently, so the
//! GPU can give every segment to one warp and stitch the pieces with a prefix sum.

pub mod chunked;
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod pipeline;

use super::{check_chunk_multiple, reject_level, Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{CodecId, Container, ElemType};

/// The `rle` codec: encoded and decoded on the CPU or the GPU, byte-identical.
pub struct RleCodec;

impl Codec for RleCodec {
    fn id(&self) -> CodecId {
        CodecId::Rle
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        reject_level(self.id(), opts)?;
        let chunk_size = opts.chunk_size.unwrap_or(format::DEFAULT_CHUNK_SIZE);
        let segment = format::SEGMENT_SIZE as u32;
        check_chunk_multiple(self.id(), chunk_size, segment, &segment.to_string())?;
        Ok(chunk_size)
    }

    fn compress(
        &self,
        data: &[u8],
        _opts: &CompressOptions,
        chunk_size: u32,
        device: &Device,
    ) -> Result<Encoded> {
        let (payload, spans) = match device {
            Device::Cpu => chunked::compress(data, chunk_size as usize)?,
            Device::Gpu(gpu) => gpu::compress(gpu, data, chunk_size as usize)?,
        };
        Ok(Encoded {
            payload,
            spans,
            codec_params: format::codec_params(),
            chunk_size,
        })
    }

    fn decompress_into(
        &self,
        container: &Container<'_>,
        out: &mut [u8],
        device: &Device,
    ) -> Result<()> {
        format::check_codec_params(&container.header.codec_params)?;
        // Both decoders cut a chunk into segments from its start; the GPU's geometry needs whole
        // segments in every chunk but the last, so both refuse what the writer never writes.
        let chunk_size = container.header.chunk_size;
        if !chunk_size.is_multiple_of(format::SEGMENT_SIZE as u32) {
            return Err(Error::CorruptContainer(format!(
                "rle chunk size {chunk_size} is not a multiple of the {}-byte segment",
                format::SEGMENT_SIZE
            )));
        }
        match device {
            Device::Cpu => chunked::decompress_into(&container.chunk_list(), out),
            Device::Gpu(gpu) => gpu::decompress_into(gpu, container, out),
        }
    }

    fn max_decoded_len(&self, compressed_len: u64, _elem: ElemType) -> u64 {
        // Each segment costs at least its table entry (4 bytes) and its token count (2).
        (compressed_len / (4 + format::SEGMENT_HEADER as u64))
            .saturating_mul(format::SEGMENT_SIZE as u64)
    }

    fn describe_params(&self, params: &[u8], _elem: ElemType) -> Option<String> {
        match params {
            [s0, s1, s2, s3, l0, l1, l2, l3] => Some(format!(
                "segment size {}, token layout {}",
                u32::from_le_bytes([*s0, *s1, *s2, *s3]),
                u32::from_le_bytes([*l0, *l1, *l2, *l3])
            )),
            [s0, s1, s2, s3] => Some(format!(
                "segment size {}, token layout 1",
                u32::from_le_bytes([*s0, *s1, *s2, *s3])
            )),
            _ => None,
        }
    }
}
