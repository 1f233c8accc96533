//! The library's front door: compress whole buffers into `.wz` containers, decompress them, and
//! inspect them. Each call dispatches on the codec and on the device; codecs slot into the
//! `match` arms below as they arrive.

use crate::codec::deflate;
use crate::codec::orc_rle;
use crate::codec::orc_rle::format::RleVersion;
use crate::codec::rle;
use crate::codec::CodecId;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{self, Container, ElemType, Header};
use std::io::Write;

/// Largest chunk size any codec accepts: bounds the memory one chunk can ask a decoder for.
pub const MAX_CHUNK_SIZE: u32 = 64 << 20;

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
}

impl Default for CompressOptions {
    fn default() -> Self {
        CompressOptions {
            codec: CodecId::Rle,
            level: None,
            chunk_size: Some(rle::format::DEFAULT_CHUNK_SIZE),
            elem_type: None,
        }
    }
}

impl CompressOptions {
    /// Options for `codec` with its defaults.
    pub fn for_codec(codec: CodecId) -> CompressOptions {
        CompressOptions {
            codec,
            level: None,
            chunk_size: Some(default_chunk_size(codec)),
            elem_type: None,
        }
    }
}

/// The chunk size `codec` uses when none is given.
pub fn default_chunk_size(codec: CodecId) -> u32 {
    match codec {
        CodecId::Rle => rle::format::DEFAULT_CHUNK_SIZE,
        CodecId::OrcRleV1 | CodecId::OrcRleV2 => orc_rle::format::DEFAULT_CHUNK_SIZE,
        CodecId::Deflate => deflate::format::DEFAULT_CHUNK_SIZE,
    }
}

/// Checks `opts` against what its codec accepts and returns the chunk size to use.
pub fn validate_options(opts: &CompressOptions) -> Result<u32> {
    let chunk_size = opts
        .chunk_size
        .unwrap_or_else(|| default_chunk_size(opts.codec));
    match opts.codec {
        CodecId::Rle => {
            if let Some(level) = opts.level {
                return Err(Error::InvalidArgument(format!(
                    "codec rle has no compression levels (got level {level})"
                )));
            }
            let segment = rle::format::SEGMENT_SIZE as u32;
            if chunk_size == 0 || !chunk_size.is_multiple_of(segment) || chunk_size > MAX_CHUNK_SIZE
            {
                return Err(Error::InvalidArgument(format!(
                    "chunk size {chunk_size} is not valid for rle: it must be a positive \
                     multiple of {segment} and at most {MAX_CHUNK_SIZE} (64 MiB)"
                )));
            }
        }
        CodecId::OrcRleV1 | CodecId::OrcRleV2 => {
            if let Some(level) = opts.level {
                return Err(Error::InvalidArgument(format!(
                    "codec {} has no compression levels (got level {level})",
                    opts.codec
                )));
            }
            let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
            orc_rle::format::check_elem(elem)?;
            let size = elem.size() as u32;
            if chunk_size == 0 || !chunk_size.is_multiple_of(size) || chunk_size > MAX_CHUNK_SIZE {
                return Err(Error::InvalidArgument(format!(
                    "chunk size {chunk_size} is not valid for {}: it must be a positive \
                     multiple of the {elem} size ({size}) and at most {MAX_CHUNK_SIZE} (64 MiB)",
                    opts.codec
                )));
            }
        }
        CodecId::Deflate => {
            deflate::format::check_level(opts.level.unwrap_or(deflate::format::DEFAULT_LEVEL))?;
            deflate::format::check_chunk_size(chunk_size)?;
            let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
            if !u64::from(chunk_size).is_multiple_of(elem.size()) {
                return Err(Error::InvalidArgument(format!(
                    "chunk size {chunk_size} is not a multiple of the {elem} size ({})",
                    elem.size()
                )));
            }
        }
    }
    Ok(chunk_size)
}

/// Compresses `data` into a `.wz` container.
pub fn compress(data: &[u8], opts: &CompressOptions, device: &Device) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    compress_to(&mut out, data, opts, device)?;
    Ok(out)
}

/// Compresses `data` and writes the `.wz` container to `w`; returns the bytes written. Nothing
/// is written unless compression succeeded, so a failed call leaves `w` untouched.
pub fn compress_to<W: Write>(
    w: &mut W,
    data: &[u8],
    opts: &CompressOptions,
    device: &Device,
) -> Result<u64> {
    let mut chunk_size = validate_options(opts)?;
    let elem_type = opts.elem_type.unwrap_or(ElemType::Bytes);
    if !(data.len() as u64).is_multiple_of(elem_type.size()) {
        return Err(Error::InvalidArgument(format!(
            "input of {} bytes is not a whole number of {elem_type} elements",
            data.len()
        )));
    }
    let (payload, spans, codec_params) = match opts.codec {
        CodecId::Rle => {
            let (payload, spans) = match device {
                Device::Cpu => rle::chunked::compress(data, chunk_size as usize)?,
                Device::Gpu(gpu) => rle::gpu::compress(gpu, data, chunk_size as usize)?,
            };
            (payload, spans, rle::format::codec_params())
        }
        // The ORC RLE codecs encode on the CPU on every device (in parallel over chunks); a GPU
        // device decompresses.
        CodecId::OrcRleV1 | CodecId::OrcRleV2 => {
            let version = orc_rle_version(opts.codec);
            let layout = orc_rle::format::Layout::default_for(elem_type);
            let (payload, spans) =
                orc_rle::chunked::compress(data, elem_type, version, layout, chunk_size as usize)?;
            (
                payload,
                spans,
                orc_rle::format::codec_params(elem_type, layout)?,
            )
        }
        // Deflate compresses on the CPU on every device (libdeflate, in parallel over chunks);
        // a GPU device decompresses.
        CodecId::Deflate => {
            let level = opts.level.unwrap_or(deflate::format::DEFAULT_LEVEL);
            // No chunk size given: small inputs get smaller chunks, to keep the GPU busy.
            if opts.chunk_size.is_none() && elem_type == ElemType::Bytes {
                chunk_size = deflate::format::auto_chunk_size(data.len());
            }
            let (payload, spans) = deflate::chunked::compress(data, level, chunk_size as usize)?;
            (payload, spans, deflate::format::codec_params(level)?)
        }
    };
    let header = Header {
        codec: opts.codec,
        codec_params,
        elem_type,
        shape: Vec::new(),
        total_len: data.len() as u64,
        chunk_size,
    };
    format::write_container(w, &header, &payload, &spans)
}

/// Decompresses a `.wz` container after verifying every checksum.
pub fn decompress(container: &[u8], device: &Device) -> Result<Vec<u8>> {
    let parsed = Container::parse(container)?;
    let len = usize::try_from(parsed.header.total_len).map_err(|_| {
        Error::Unsupported(format!(
            "uncompressed size {} does not fit in memory on this platform",
            parsed.header.total_len
        ))
    })?;
    let mut out = vec![0u8; len];
    decompress_container_into(&parsed, &mut out, device)?;
    Ok(out)
}

/// Decompresses a parsed container into `out`, whose length must be the container's total
/// uncompressed size. Verifies every checksum first.
pub fn decompress_container_into(
    container: &Container<'_>,
    out: &mut [u8],
    device: &Device,
) -> Result<()> {
    if out.len() as u64 != container.header.total_len {
        return Err(Error::InvalidArgument(format!(
            "output buffer holds {} bytes but the container decompresses to {}",
            out.len(),
            container.header.total_len
        )));
    }
    container.verify_all()?;
    match container.header.codec {
        CodecId::Rle => {
            rle::format::check_codec_params(&container.header.codec_params)?;
            match device {
                Device::Cpu => {
                    // verify_all has checked that every chunk lies inside the payload.
                    let chunks: Vec<(&[u8], usize)> = (0..container.chunk_count())
                        .zip(&container.chunks)
                        .map(|(i, entry)| {
                            (container.chunk_bytes(i), entry.uncompressed_len as usize)
                        })
                        .collect();
                    rle::chunked::decompress_into(&chunks, out)
                }
                Device::Gpu(gpu) => rle::gpu::decompress_into(gpu, container, out),
            }
        }
        CodecId::OrcRleV1 | CodecId::OrcRleV2 => {
            let elem = container.header.elem_type;
            let layout = orc_rle::format::parse_codec_params(&container.header.codec_params, elem)
                .map_err(|e| match e {
                    Error::Unsupported(why) => {
                        Error::Unsupported(format!("{} container: {why}", container.header.codec))
                    }
                    other => other,
                })?;
            let chunks: Vec<(&[u8], usize)> = (0..container.chunk_count())
                .zip(&container.chunks)
                .map(|(i, entry)| (container.chunk_bytes(i), entry.uncompressed_len as usize))
                .collect();
            let version = orc_rle_version(container.header.codec);
            match device {
                Device::Cpu => {
                    orc_rle::chunked::decompress_into(&chunks, elem, version, layout, out)
                }
                Device::Gpu(gpu) => {
                    orc_rle::gpu::decompress_into(gpu, container, elem, version, layout, out)
                }
            }
        }
        CodecId::Deflate => {
            deflate::format::parse_codec_params(&container.header.codec_params)?;
            let chunks: Vec<(&[u8], usize)> = (0..container.chunk_count())
                .zip(&container.chunks)
                .map(|(i, entry)| (container.chunk_bytes(i), entry.uncompressed_len as usize))
                .collect();
            deflate::chunked::decompress_into(&chunks, out, device)
        }
    }
}

/// The ORC integer RLE version a codec writes (V2 for every codec but `orc-rle-v1`).
fn orc_rle_version(codec: CodecId) -> RleVersion {
    match codec {
        CodecId::OrcRleV1 => RleVersion::V1,
        _ => RleVersion::V2,
    }
}

/// What the checksum pass over a container found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verification {
    /// The header, the table and every chunk match their checksums.
    Ok,
    /// Verification failed; `chunk` names the first damaged chunk where one is known.
    Failed {
        chunk: Option<usize>,
        message: String,
    },
}

/// A summary of a container, for `warpzip inspect`.
#[derive(Clone, Debug)]
pub struct Inspection {
    /// The parsed header.
    pub header: Header,
    /// Size of the whole container in bytes.
    pub container_len: u64,
    /// Bytes of compressed chunk data.
    pub payload_len: u64,
    /// Every chunk's table entry.
    pub chunks: Vec<format::ChunkEntry>,
    /// Uncompressed size over container size (0 for an empty input).
    pub ratio: f64,
    /// The result of checking every checksum.
    pub verification: Verification,
}

impl Inspection {
    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

/// Parses a container and checks its checksums without decompressing it. Fails only when the
/// header or table cannot be parsed; a checksum mismatch is reported in `verification`.
pub fn inspect(container: &[u8]) -> Result<Inspection> {
    let parsed = Container::parse(container)?;
    let verification = match parsed.verify_all() {
        Ok(()) => Verification::Ok,
        Err(Error::Corrupt { chunk, reason }) => Verification::Failed {
            chunk: Some(chunk),
            message: reason,
        },
        Err(other) => Verification::Failed {
            chunk: None,
            message: other.to_string(),
        },
    };
    let container_len = container.len() as u64;
    let ratio = if container_len == 0 {
        0.0
    } else {
        parsed.header.total_len as f64 / container_len as f64
    };
    Ok(Inspection {
        container_len,
        payload_len: parsed.payload.len() as u64,
        chunks: parsed.chunks.clone(),
        ratio,
        verification,
        header: parsed.header,
    })
}
