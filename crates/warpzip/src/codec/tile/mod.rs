//! Tile-based lightweight integer compression: the `.wz` codecs `for` (frame of reference),
//! `dfor` (deltas, then frame of reference), `rfor` (runs, each half frame of reference) and
//! `tile` (each tile of 512 values in whichever of the three is smallest), over 32-bit and
//! 64-bit integers. Every tile decodes on its own, so a GPU thread block decodes tiles from
//! shared memory; the CPU encodes, and decodes on the CPU or the GPU.

pub mod chunked;
pub mod cpu;
pub mod format;
pub mod gpu;
mod unpack32;

use crate::codec::{check_chunk_multiple, reject_level, Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{CodecId, Container, ElemType};
use format::{Kind, Plan, Scheme};

/// One tile codec: its plan (one scheme, or the smallest per tile).
pub struct TileCodec(pub Plan);

impl TileCodec {
    /// `for`.
    pub const FOR: TileCodec = TileCodec(Plan::Fixed(Scheme::For));
    /// `dfor`.
    pub const DFOR: TileCodec = TileCodec(Plan::Fixed(Scheme::Dfor));
    /// `rfor`.
    pub const RFOR: TileCodec = TileCodec(Plan::Fixed(Scheme::Rfor));
    /// `tile`.
    pub const TILE: TileCodec = TileCodec(Plan::Smallest);
}

/// Values a byte of a chunk can stand for at most, rounded up: the densest tile is an RFOR tile
/// of one run of 512 values in 5 words, plus its word in the tile table: 512 values in 24 bytes.
const DENSEST_TILE_BYTES: u64 = 24;

impl Codec for TileCodec {
    fn id(&self) -> CodecId {
        match self.0 {
            Plan::Fixed(Scheme::For) => CodecId::For,
            Plan::Fixed(Scheme::Dfor) => CodecId::Dfor,
            Plan::Fixed(Scheme::Rfor) => CodecId::Rfor,
            Plan::Smallest => CodecId::Tile,
        }
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        reject_level(self.id(), opts)?;
        let chunk_size = opts.chunk_size.unwrap_or(format::DEFAULT_CHUNK_SIZE);
        let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
        let kind = Kind::of(elem)?;
        let size = kind.bytes() as u32;
        check_chunk_multiple(self.id(), chunk_size, size, &format!("the {elem} size ({size})"))?;
        Ok(chunk_size)
    }

    fn compress(
        &self,
        data: &[u8],
        opts: &CompressOptions,
        chunk_size: u32,
        _device: &Device,
    ) -> Result<Encoded> {
        let kind = Kind::of(opts.elem_type.unwrap_or(ElemType::Bytes))?;
        let (payload, spans) = chunked::compress(data, kind, self.0, chunk_size as usize)?;
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
        let kind = format::parse_codec_params(&container.header.codec_params, container.header.elem_type)
            .map_err(|e| match e {
                Error::Unsupported(why) => {
                    Error::Unsupported(format!("{} container: {why}", self.id()))
                }
                other => other,
            })?;
        match device {
            Device::Cpu => chunked::decompress_into(&container.chunk_list(), kind, self.0, out),
            Device::Gpu(g) => gpu::decompress_into(g, &container.chunk_list(), kind, self.0, out),
        }
    }

    fn max_decoded_len(&self, compressed_len: u64, elem: ElemType) -> u64 {
        // Every tile takes at least DENSEST_TILE_BYTES of the chunk and holds at most 512 values.
        (compressed_len / DENSEST_TILE_BYTES)
            .saturating_mul(format::TILE_VALUES as u64)
            .saturating_mul(elem.size())
    }

    fn describe_params(&self, params: &[u8], elem: ElemType) -> Option<String> {
        let kind = format::parse_codec_params(params, elem).ok()?;
        let schemes = match self.0 {
            Plan::Fixed(s) => format!("every tile {}", s.name()),
            Plan::Smallest => "each tile FOR, DFOR or RFOR, whichever is smallest".to_string(),
        };
        Some(format!(
            "layout {}, {}-bit {} values, tiles of {} values in blocks of {} (miniblocks of {}), \
             {schemes}",
            format::LAYOUT,
            kind.bits,
            if kind.signed { "signed" } else { "unsigned" },
            format::TILE_VALUES,
            format::BLOCK_VALUES,
            format::MINI_VALUES
        ))
    }
}
