//! The `snappy` and `lz4` codecs: each chunk one raw block (Snappy's raw format, LZ4's block
//! format), compressed on the CPU (`snap`, `lz4_flex`) on every device and decoded on the CPU or
//! on the GPU (`kernels/lz/lz.cu`, one warp per block on the CODAG framework).
//!
//! - [`format`]: the codec parameters and chunk sizes;
//! - [`cpu`]: the reference encoder and decoder of one block;
//! - [`gpu`]: the GPU batch and its launch.

pub mod cpu;
pub mod format;
pub mod gpu;

use super::{check_chunk_multiple, reject_level, Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{ChunkStatus, Error, Result};
use crate::format::{ChunkSpan, CodecId, Container, ElemType};
use rayon::prelude::*;

/// A byte-oriented LZ77 codec of raw blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LzKind {
    /// Snappy's raw format: a varint of the block's length, then literals and copies.
    Snappy,
    /// LZ4's block format: sequences of literals and a match.
    Lz4,
}

/// The `snappy` or `lz4` codec.
pub struct LzCodec(pub LzKind);

impl LzCodec {
    /// The `snappy` codec.
    pub const SNAPPY: LzCodec = LzCodec(LzKind::Snappy);
    /// The `lz4` codec.
    pub const LZ4: LzCodec = LzCodec(LzKind::Lz4);
}

impl Codec for LzCodec {
    fn id(&self) -> CodecId {
        match self.0 {
            LzKind::Snappy => CodecId::Snappy,
            LzKind::Lz4 => CodecId::Lz4,
        }
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        reject_level(self.id(), opts)?;
        let chunk_size = opts.chunk_size.unwrap_or(format::DEFAULT_CHUNK_SIZE);
        let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
        check_chunk_multiple(
            self.id(),
            chunk_size,
            elem.size() as u32,
            &format!("the {elem} size ({})", elem.size()),
        )?;
        if chunk_size > format::MAX_CHUNK_SIZE {
            return Err(Error::InvalidArgument(format!(
                "chunk size {chunk_size} is not valid for {}: at most {} (a Snappy or LZ4 \
                 block's 4 GiB bound is far above, the GPU's warp per block is not)",
                self.id(),
                format::MAX_CHUNK_SIZE
            )));
        }
        Ok(chunk_size)
    }

    fn compress(
        &self,
        data: &[u8],
        _opts: &CompressOptions,
        chunk_size: u32,
        _device: &Device,
    ) -> Result<Encoded> {
        let kind = self.0;
        let blocks: Vec<Vec<u8>> = data
            .par_chunks(chunk_size.max(1) as usize)
            .map(|chunk| cpu::compress_block(kind, chunk))
            .collect::<Result<_>>()?;
        let total: usize = blocks.iter().map(Vec::len).sum();
        let mut payload = crate::error::try_with_capacity(total, "an LZ payload")?;
        let mut spans = Vec::with_capacity(blocks.len());
        for (block, chunk) in blocks.iter().zip(data.chunks(chunk_size.max(1) as usize)) {
            spans.push(ChunkSpan {
                offset: payload.len(),
                compressed_len: u32::try_from(block.len()).map_err(|_| {
                    Error::InvalidArgument("a compressed chunk does not fit a u32 length".into())
                })?,
                // chunk.len() <= chunk_size, a u32.
                uncompressed_len: chunk.len() as u32,
            });
            payload.extend_from_slice(block);
        }
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
        format::parse_codec_params(&container.header.codec_params)?;
        let chunks = container.chunk_list();
        let total = chunks
            .iter()
            .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
        if total != Some(out.len()) {
            return Err(Error::InvalidArgument(format!(
                "{} chunks' uncompressed lengths do not add up to the output length {}",
                self.id(),
                out.len()
            )));
        }
        match device {
            Device::Cpu => {
                let mut outputs: Vec<&mut [u8]> = Vec::with_capacity(chunks.len());
                let mut rest = out;
                for &(_, len) in &chunks {
                    let (dst, tail) = rest.split_at_mut(len);
                    outputs.push(dst);
                    rest = tail;
                }
                let statuses: Vec<ChunkStatus> = chunks
                    .par_iter()
                    .zip(outputs.par_iter_mut())
                    .map(|(&(input, _), dst)| cpu::decompress_block(self.0, input, dst))
                    .collect();
                match statuses.iter().position(|&s| s != ChunkStatus::Ok) {
                    Some(i) => Err(Error::chunk(i, statuses[i])),
                    None => Ok(()),
                }
            }
            Device::Gpu(g) => gpu::decompress_into(g, self.0, &chunks, out),
        }
    }

    fn max_decoded_len(&self, compressed_len: u64, _elem: ElemType) -> u64 {
        match self.0 {
            // A 3-byte copy writes at most 64 bytes.
            LzKind::Snappy => compressed_len.saturating_mul(22).saturating_add(64),
            // A match length byte of 255 adds 255 bytes.
            LzKind::Lz4 => compressed_len.saturating_mul(255).saturating_add(64),
        }
    }

    fn describe_params(&self, params: &[u8], _elem: ElemType) -> Option<String> {
        match params {
            [1] => Some("layout 1".to_string()),
            _ => None,
        }
    }
}
