//! Every codec behind one interface. A codec is a folder here (`format.rs` the byte layout, the
//! CPU reference encoder and decoder, `gpu.rs` the kernel launches, which agree byte for byte)
//! and one [`Codec`] implementation listed in [`REGISTRY`]; the library's front door
//! (`api.rs`) dispatches through the registry and never names a codec. `docs/adding-a-codec.md`
//! is the recipe for a new one.

internal_mod!(deflate);
internal_mod!(lz);
internal_mod!(orc_rle);
internal_mod!(rle);
internal_mod!(tile);
internal_mod!(sz);

mod options;

pub use crate::format::CodecId;
pub use options::CompressOptions;
pub use sz::compare::{compare, Comparison};
pub use sz::options::{parse_dims, ErrorBound, LossyMode, LossyOptions};
pub use sz::range_warning;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{ChunkSpan, Container, ElemType};

/// What a codec's compressor hands the container writer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// The chunks' compressed bytes, back to back.
    pub payload: Vec<u8>,
    /// Each chunk's place in `payload` and its uncompressed length, in order.
    pub spans: Vec<ChunkSpan>,
    /// The header's codec parameters.
    pub codec_params: Vec<u8>,
    /// The chunk size the header records (every chunk but the last holds exactly this many
    /// uncompressed bytes).
    pub chunk_size: u32,
}

/// One codec: option checks, compression and decompression, each on a `Device`. The CPU/GPU
/// choice is the codec's own (some codecs compress on the CPU on every device).
pub trait Codec: Sync {
    /// The id the container header stores.
    fn id(&self) -> CodecId;

    /// Uncompressed bytes per chunk when the caller gives none.
    fn default_chunk_size(&self) -> u32;

    /// Checks `opts` (level, chunk size, element type) against what this codec accepts and
    /// returns the chunk size to use; `Error::InvalidArgument` saying why otherwise.
    fn check_options(&self, opts: &CompressOptions) -> Result<u32>;

    /// The chunk size for an input of `input_len` bytes (`None`: not known in advance, and at
    /// least one streaming batch long), for a streaming compressor that must fix it before it
    /// has seen the whole input. Codecs whose chunk size does not depend on the input's length
    /// return what `check_options` returns.
    fn stream_chunk_size(&self, opts: &CompressOptions, input_len: Option<u64>) -> Result<u32> {
        let _ = input_len;
        self.check_options(opts)
    }

    /// Whether the streaming compressor may cut the input into frames of whole chunks. A codec
    /// whose chunks depend on the whole input (a lossy field's dimensions and value range)
    /// returns false, and is given the whole input at once.
    fn streams(&self) -> bool {
        true
    }

    /// Compresses `data`, a whole number of `opts.elem_type` elements, in chunks of
    /// `chunk_size` (the value `check_options` returned) on `device`.
    fn compress(
        &self,
        data: &[u8],
        opts: &CompressOptions,
        chunk_size: u32,
        device: &Device,
    ) -> Result<Encoded>;

    /// Decodes every chunk of `container`, whose header names this codec and whose checksums
    /// the caller has verified, into `out` (exactly the container's total length). A chunk that
    /// does not decode gives `Error::Corrupt` naming the lowest such chunk.
    fn decompress_into(
        &self,
        container: &Container<'_>,
        out: &mut [u8],
        device: &Device,
    ) -> Result<()>;

    /// The most bytes a chunk of `compressed_len` bytes can decode to, for values of `elem`: a
    /// bound from the format's densest encoding, checked against every chunk's claim before
    /// any output is allocated, so that a small file cannot ask for a large allocation.
    fn max_decoded_len(&self, compressed_len: u64, elem: ElemType) -> u64;

    /// The header's codec parameters in words, for `warpzip inspect`; `None` when they do not
    /// parse.
    fn describe_params(&self, params: &[u8], elem: ElemType) -> Option<String>;
}

/// Every codec this build knows, in id order: adding a codec adds one line here.
pub static REGISTRY: &[&dyn Codec] = &[
    &rle::RleCodec,
    &orc_rle::OrcRleCodec::V1,
    &orc_rle::OrcRleCodec::V2,
    &deflate::DeflateCodec,
    &tile::TileCodec::FOR,
    &tile::TileCodec::DFOR,
    &tile::TileCodec::RFOR,
    &tile::TileCodec::TILE,
    &sz::SzCodec,
    &lz::LzCodec::SNAPPY,
    &lz::LzCodec::LZ4,
];

/// The codec with header id `id`.
pub fn codec(id: CodecId) -> Result<&'static dyn Codec> {
    REGISTRY
        .iter()
        .copied()
        .find(|c| c.id() == id)
        .ok_or_else(|| Error::Unsupported(format!("codec {id} is not in this build")))
}

/// Largest chunk size any codec writes or this build decodes: bounds the memory one chunk can
/// ask a decoder for.
pub const MAX_CHUNK_SIZE: u32 = 64 << 20;

/// Checks that `chunk_size` is a positive multiple of `unit` bytes and at most
/// [`MAX_CHUNK_SIZE`]; `unit_words` says what the unit is in the error ("4096", "the i32 size
/// (4)").
pub(crate) fn check_chunk_multiple(
    codec: CodecId,
    chunk_size: u32,
    unit: u32,
    unit_words: &str,
) -> Result<()> {
    if chunk_size == 0 || !chunk_size.is_multiple_of(unit.max(1)) || chunk_size > MAX_CHUNK_SIZE {
        return Err(Error::InvalidArgument(format!(
            "chunk size {chunk_size} is not valid for {codec}: it must be a positive multiple of \
             {unit_words} and at most {MAX_CHUNK_SIZE} (64 MiB)"
        )));
    }
    Ok(())
}

/// Rejects a level for a codec that has none.
pub(crate) fn reject_level(codec: CodecId, opts: &CompressOptions) -> Result<()> {
    match opts.level {
        Some(level) => Err(Error::InvalidArgument(format!(
            "codec {codec} has no compression levels (got level {level})"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_holds_every_codec_id_once_in_order() {
        let ids: Vec<CodecId> = REGISTRY.iter().map(|c| c.id()).collect();
        assert_eq!(ids, CodecId::ALL);
        for &id in CodecId::ALL {
            assert!(codec(id).is_ok_and(|c| c.id() == id));
        }
    }
}
