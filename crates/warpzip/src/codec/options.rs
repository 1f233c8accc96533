//! What a caller asks of a compressor; each codec checks it (`Codec::check_options`).

use super::{codec, CodecId};
use crate::format::ElemType;

/// How to compress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompressOptions {
    /// The codec to use.
    pub codec: CodecId,
    /// Codec-specific level; `None` for the codec's default. Codecs without levels reject one.
    pub level: Option<i32>,
    /// Uncompressed bytes per chunk; `None` for the codec's default.
    pub chunk_size: Option<u32>,
    /// Element type of the input, recorded in the header; `None` for untyped bytes. The ORC RLE
    /// codecs need an integer type; the input must be a whole number of elements.
    pub elem_type: Option<ElemType>,
    /// The lossy `sz` codec's bound, dimensions, fill values and mode; `None` for every other
    /// codec.
    pub lossy: Option<super::LossyOptions>,
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions::for_codec(CodecId::Rle)
    }
}

impl CompressOptions {
    /// Options for `codec` with its defaults.
    pub fn for_codec(codec_id: CodecId) -> CompressOptions {
        CompressOptions {
            codec: codec_id,
            level: None,
            chunk_size: codec(codec_id).ok().map(|c| c.default_chunk_size()),
            elem_type: None,
            lossy: None,
        }
    }
}
