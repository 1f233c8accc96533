//! The `.wz` codecs `orc-rle-v1` and `orc-rle-v2`: typed little-endian integers encoded on the
//! CPU (in parallel over chunks) on every device, decoded on the CPU or the GPU.

use super::format::{self, Layout, RleVersion};
use super::{chunked, gpu};
use crate::codec::{check_chunk_multiple, reject_level, Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{CodecId, Container, ElemType};

/// Values one stream byte can stand for at most, in either version.
const MAX_VALUES_PER_BYTE: u64 = 128;

/// An ORC Integer RLE `.wz` codec of one version.
pub struct OrcRleCodec(RleVersion);

impl OrcRleCodec {
    /// `orc-rle-v1`.
    pub const V1: OrcRleCodec = OrcRleCodec(RleVersion::V1);
    /// `orc-rle-v2`.
    pub const V2: OrcRleCodec = OrcRleCodec(RleVersion::V2);
}

impl Codec for OrcRleCodec {
    fn id(&self) -> CodecId {
        match self.0 {
            RleVersion::V1 => CodecId::OrcRleV1,
            RleVersion::V2 => CodecId::OrcRleV2,
        }
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        reject_level(self.id(), opts)?;
        let chunk_size = opts.chunk_size.unwrap_or(format::DEFAULT_CHUNK_SIZE);
        let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
        format::check_elem(elem)?;
        let size = elem.size() as u32;
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
        let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
        let layout = Layout::default_for(elem);
        let (payload, spans) = chunked::compress(data, elem, self.0, layout, chunk_size as usize)?;
        Ok(Encoded {
            payload,
            spans,
            codec_params: format::codec_params(elem, layout)?,
            chunk_size,
        })
    }

    fn decompress_into(
        &self,
        container: &Container<'_>,
        out: &mut [u8],
        device: &Device,
    ) -> Result<()> {
        let elem = container.header.elem_type;
        let layout = format::parse_codec_params(&container.header.codec_params, elem).map_err(
            |e| match e {
                Error::Unsupported(why) => {
                    Error::Unsupported(format!("{} container: {why}", self.id()))
                }
                other => other,
            },
        )?;
        match device {
            Device::Cpu => {
                chunked::decompress_into(&container.chunk_list(), elem, self.0, layout, out)
            }
            Device::Gpu(g) => gpu::decompress_into(g, container, elem, self.0, layout, out),
        }
    }

    fn max_decoded_len(&self, compressed_len: u64, elem: ElemType) -> u64 {
        // The densest group is an RLE v2 DELTA of 512 equal steps in 4 bytes (RLE v1's densest
        // run is 130 values in 3): at most 128 values a byte.
        compressed_len
            .saturating_mul(MAX_VALUES_PER_BYTE)
            .saturating_mul(elem.size())
    }

    fn describe_params(&self, params: &[u8], _elem: ElemType) -> Option<String> {
        let sign = |signed: u8| if signed == 1 { "signed" } else { "unsigned" };
        match params {
            [1, size, signed] => Some(format!("layout 1, {size}-byte {} values", sign(*signed))),
            [2, size, signed, 0, k0, k1, k2, k3] => Some(format!(
                "layout 2, {size}-byte {} values, sub-blocks of {} values",
                sign(*signed),
                u32::from_le_bytes([*k0, *k1, *k2, *k3])
            )),
            _ => None,
        }
    }
}
