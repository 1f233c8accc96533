//! Error-bounded lossy compression of float fields (codec id 5, name `sz`), after cuSZ (Tian et
//! al., PACT 2020): blocks of 256 values (1-D), 16x16 (2-D) or 8x8x8 (3-D) with a zero padding
//! layer, dual quantization (pre-quantization to integer multiples of twice the bound, integer
//! Lorenzo prediction, post-quantization into codes within a radius), outliers kept sparsely,
//! and either canonical Huffman coding of the codes (ratio mode) or fixed-length bit-packing
//! per block with zero blocks skipped (fast mode). In ratio mode under `abs` and `rel`, a chunk
//! is instead predicted by multilevel spline interpolation (`interp`) where that is smaller.
//!
//! The bound is checked, not assumed: the encoder reconstructs every value exactly as the
//! decoder will and compares it with the original in exact arithmetic; a value that fails is
//! stored exactly, as are NaN, infinities, -0.0, denormals and fill values.

pub mod chunked;
pub mod compare;
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod huffman;
pub mod interp;
pub mod options;
pub mod quant;

use super::{reject_level, Codec, CompressOptions, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{CodecId, Container, ElemType};
use quant::Float;

/// The `sz` codec: encoded and decoded on the CPU on every device.
pub struct SzCodec;

/// The float type of `elem`, or why the codec cannot take it.
fn float_of(elem: Option<ElemType>) -> Result<Float> {
    match elem {
        Some(ElemType::F32) => Ok(Float::F32),
        Some(ElemType::F64) => Ok(Float::F64),
        other => Err(Error::InvalidArgument(format!(
            "codec sz compresses f32 or f64 values (got {}): pass --dtype f32 or f64",
            other.map_or("untyped bytes".to_string(), |e| e.to_string())
        ))),
    }
}

fn lossy_of(opts: &CompressOptions) -> Result<&options::LossyOptions> {
    opts.lossy.as_ref().ok_or_else(|| {
        Error::InvalidArgument(
            "codec sz needs an error bound: --eb abs:E, rel:E or pw-rel:E".into(),
        )
    })
}

impl Codec for SzCodec {
    fn id(&self) -> CodecId {
        CodecId::Sz
    }

    fn streams(&self) -> bool {
        false
    }

    fn default_chunk_size(&self) -> u32 {
        format::DEFAULT_CHUNK_SIZE
    }

    fn check_options(&self, opts: &CompressOptions) -> Result<u32> {
        reject_level(self.id(), opts)?;
        let float = float_of(opts.elem_type)?;
        let lossy = lossy_of(opts)?;
        let geometry = chunked::geometry(&lossy.dims, float)?;
        if lossy.fill.len() * float.size() > 16 {
            return Err(Error::InvalidArgument(format!(
                "codec sz keeps at most {} fill values for {} data",
                16 / float.size(),
                opts.elem_type.map_or("", |e| e.name())
            )));
        }
        chunked::chunk_size(geometry, float, opts.chunk_size)
    }

    fn compress(
        &self,
        data: &[u8],
        opts: &CompressOptions,
        chunk_size: u32,
        device: &Device,
    ) -> Result<Encoded> {
        let float = float_of(opts.elem_type)?;
        let lossy = lossy_of(opts)?;
        // Both modes encode on the GPU when there is one, byte for byte the CPU's chunks.
        let (payload, spans, params) = match device {
            Device::Cpu => chunked::compress(data, lossy, float, chunk_size)?,
            Device::Gpu(g) => chunked::compress_with(data, lossy, float, chunk_size, |ctx| {
                match lossy.mode {
                    options::LossyMode::Fast => {
                        gpu::compress_fast(g, data, chunk_size as usize, ctx)
                    }
                    options::LossyMode::Ratio => {
                        gpu::compress_ratio(g, data, chunk_size as usize, ctx)
                    }
                }
            })?,
        };
        Ok(Encoded {
            payload,
            spans,
            codec_params: params.encode(float.size()),
            chunk_size,
        })
    }

    fn decompress_into(
        &self,
        container: &Container<'_>,
        out: &mut [u8],
        device: &Device,
    ) -> Result<()> {
        let h = &container.header;
        let float = float_of(Some(h.elem_type))
            .map_err(|_| Error::CorruptContainer(format!("sz data of type {}", h.elem_type)))?;
        let params = format::Params::parse(&h.codec_params, h.elem_type)?;
        let unit = params.geometry.unit() * float.size();
        if !(h.chunk_size as usize).is_multiple_of(unit) {
            return Err(Error::CorruptContainer(format!(
                "sz chunk size {} is not a whole number of {unit}-byte units",
                h.chunk_size
            )));
        }
        let ctx = chunked::decode_ctx(&params, float);
        let chunks = container.chunk_list();
        match device {
            Device::Cpu => chunked::decompress_into(&chunks, out, &ctx),
            Device::Gpu(g) if params.mode == format::MODE_FAST => {
                gpu::decompress_fast(g, &chunks, out, &ctx)
            }
            Device::Gpu(g) => gpu::decompress_ratio(g, &chunks, out, &ctx),
        }
    }

    fn max_decoded_len(&self, compressed_len: u64, elem: ElemType) -> u64 {
        // Every block costs at least one byte (its base varint in ratio mode, its two width
        // bytes in fast mode), and a block holds at most 8x8x8 values.
        match format::float_size(elem) {
            Some(es) => compressed_len.saturating_mul(512 * es as u64),
            None => 0,
        }
    }

    fn describe_params(&self, params: &[u8], elem: ElemType) -> Option<String> {
        let es = format::float_size(elem)?;
        format::Params::parse(params, elem)
            .ok()
            .map(|p| p.describe(es))
    }
}

/// A warning for a `rel` bound whose value range looks set by a fill value, for a front end
/// to print before compressing `data` (values of `elem`); `None` when nothing looks so.
pub fn range_warning(data: &[u8], elem: ElemType, lossy: &options::LossyOptions) -> Option<String> {
    let float = float_of(Some(elem)).ok()?;
    chunked::range_warning(data, lossy, float)
}
