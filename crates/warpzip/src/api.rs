//! The library's front door: compress whole buffers into `.wz` containers, decompress them
//! (gzip files too, recognised by their first bytes), and inspect them. Every call reaches its
//! codec through the registry (`codec::REGISTRY`); none names a codec.

use crate::codec::{self, CodecId, Encoded};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{self, Container, ElemType, Header};
use std::io::Write;

pub use crate::codec::CompressOptions;

pub use crate::codec::MAX_CHUNK_SIZE;

pub use crate::stream::{
    compress_stream, compress_stream_with, decompress_stream, decompress_stream_with, OutputFormat,
    StreamConfig, StreamStats,
};

/// The chunk size `codec` uses when none is given.
pub fn default_chunk_size(codec: CodecId) -> u32 {
    codec::codec(codec).map_or(0, |c| c.default_chunk_size())
}

/// Checks `opts` against what its codec accepts and returns the chunk size to use.
pub fn validate_options(opts: &CompressOptions) -> Result<u32> {
    codec::codec(opts.codec)?.check_options(opts)
}

/// Compresses `data` into a `.wz` container.
pub fn compress(data: &[u8], opts: &CompressOptions, device: &Device) -> Result<Vec<u8>> {
    let (header, encoded) = encode(data, opts, device)?;
    // The container's exact size: its header and chunk table, then the payload's chunks.
    let len = format::header_len(&header, encoded.spans.len() as u32).saturating_add(
        encoded
            .spans
            .iter()
            .map(|s| u64::from(s.compressed_len))
            .sum::<u64>(),
    );
    let mut out = crate::error::try_with_capacity(
        usize::try_from(len).unwrap_or(usize::MAX),
        "the compressed container",
    )?;
    format::write_container(&mut out, &header, &encoded.payload, &encoded.spans)?;
    Ok(out)
}

/// Compresses `data` and writes the `.wz` container to `w`; returns the bytes written. Nothing
/// is written unless compression succeeded, so a failed call leaves `w` untouched.
pub fn compress_to<W: Write + ?Sized>(
    w: &mut W,
    data: &[u8],
    opts: &CompressOptions,
    device: &Device,
) -> Result<u64> {
    let (header, encoded) = encode(data, opts, device)?;
    format::write_container(w, &header, &encoded.payload, &encoded.spans)
}

/// `data` compressed as `opts` say: the container's header and the codec's chunks.
fn encode(data: &[u8], opts: &CompressOptions, device: &Device) -> Result<(Header, Encoded)> {
    let codec = codec::codec(opts.codec)?;
    let chunk_size = codec.check_options(opts)?;
    let elem_type = opts.elem_type.unwrap_or(ElemType::Bytes);
    if !(data.len() as u64).is_multiple_of(elem_type.size()) {
        return Err(Error::InvalidArgument(format!(
            "input of {} bytes is not a whole number of {elem_type} elements",
            data.len()
        )));
    }
    let encoded = codec.compress(data, opts, chunk_size, device)?;
    let header = Header {
        codec: opts.codec,
        codec_params: encoded.codec_params.clone(),
        elem_type,
        shape: Vec::new(),
        total_len: data.len() as u64,
        chunk_size: encoded.chunk_size,
    };
    Ok((header, encoded))
}

/// Decompresses a `.wz` file after verifying every checksum: one container, or a stream of
/// frames (what [`compress_stream`] writes for a long input; streams may be concatenated). The
/// output is allocated only after every chunk's claimed size was checked against what its
/// compressed bytes can decode to, and never with an abort: a failed allocation is
/// `Error::OutOfMemory`. Chunks are numbered over the whole file in errors.
pub fn decompress(container: &[u8], device: &Device) -> Result<Vec<u8>> {
    let frames = format::parse_stream(container)?;
    if let [only] = frames.as_slice() {
        return decode_container(only, device);
    }
    let mut total = 0u64;
    let mut first = 0usize;
    let mut codecs = Vec::with_capacity(frames.len());
    for frame in &frames {
        let checked = frame
            .verify_all()
            .and_then(|()| checked_codec(frame))
            .map_err(|e| crate::stream::renumber(e, first))?;
        codecs.push(checked);
        first += frame.chunk_count();
        total = total.checked_add(frame.header.total_len).ok_or_else(|| {
            Error::Unsupported("the frames' total size does not fit in 64 bits".into())
        })?;
    }
    let mut out = alloc_output(total)?;
    let mut rest = out.as_mut_slice();
    let mut first = 0usize;
    for (frame, codec) in frames.iter().zip(codecs) {
        // The sizes add up to `out`'s length (checked above), each fits in memory.
        let (dst, tail) = rest.split_at_mut(frame.header.total_len as usize);
        codec
            .decompress_into(frame, dst, device)
            .map_err(|e| crate::stream::renumber(e, first))?;
        first += frame.chunk_count();
        rest = tail;
    }
    Ok(out)
}

/// Verifies and decodes one parsed container, in the order `docs/format.md` gives ("Decoding
/// a file"): checksums, the decoder's limits, then the codec.
pub(crate) fn decode_container(container: &Container<'_>, device: &Device) -> Result<Vec<u8>> {
    container.verify_all()?;
    let codec = checked_codec(container)?;
    let mut out = alloc_output(container.header.total_len)?;
    codec.decompress_into(container, &mut out, device)?;
    Ok(out)
}

/// Decompresses a parsed container into `out`, whose length must be the container's total
/// uncompressed size. Verifies every checksum and every chunk's claimed size first.
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
    checked_codec(container)?.decompress_into(container, out, device)
}

/// The codec of a verified container, after checking that its chunk size is one this build
/// decodes and that no chunk claims more output than its compressed bytes can produce.
fn checked_codec(container: &Container<'_>) -> Result<&'static dyn codec::Codec> {
    let h = &container.header;
    let codec = codec::codec(h.codec)?;
    if h.chunk_size > MAX_CHUNK_SIZE {
        return Err(Error::Unsupported(format!(
            "chunk size {} is above {MAX_CHUNK_SIZE} (64 MiB), the most this build decodes",
            h.chunk_size
        )));
    }
    for (i, entry) in container.chunks.iter().enumerate() {
        let most = codec.max_decoded_len(u64::from(entry.compressed_len), h.elem_type);
        if u64::from(entry.uncompressed_len) > most {
            return Err(Error::Corrupt {
                chunk: i,
                reason: format!(
                    "claims {} bytes from {} compressed bytes, more than {} can decode to                      ({most})",
                    entry.uncompressed_len, entry.compressed_len, h.codec
                ),
            });
        }
    }
    Ok(codec)
}

/// A zeroed output buffer of `len` bytes, or `Error::OutOfMemory` (never an abort).
fn alloc_output(len: u64) -> Result<Vec<u8>> {
    let n = usize::try_from(len).map_err(|_| {
        Error::Unsupported(format!(
            "uncompressed size {len} does not fit in memory on this platform"
        ))
    })?;
    crate::error::try_zeroed(n, "the decompressed output")
}

/// The compressed formats [`decompress_any`] and [`decompress_stream`] read, told apart by
/// their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputFormat {
    /// A `.wz` container (magic `89 57 5a 0a`).
    Wz,
    /// A gzip file (RFC 1952, magic `1f 8b`): one member, several, or BGZF.
    Gzip,
}

impl InputFormat {
    /// The format `data` starts with; `None` when it is neither (too short to tell counts as
    /// `.wz`, so that its parser names what is missing).
    pub fn detect(data: &[u8]) -> Option<InputFormat> {
        if crate::gzip::is_gzip(data) {
            Some(InputFormat::Gzip)
        } else if data.len() < format::MAGIC.len() || data.starts_with(&format::MAGIC) {
            Some(InputFormat::Wz)
        } else {
            None
        }
    }
}

/// What [`decompress_any`] decoded.
#[derive(Clone, Debug)]
pub struct Decompressed {
    /// The uncompressed bytes.
    pub data: Vec<u8>,
    /// The format they were read from.
    pub format: InputFormat,
    /// Things a user should hear about that did not stop decoding (gzip padding, a member
    /// decoded on the CPU although the device is a GPU).
    pub notices: Vec<crate::gzip::Notice>,
}

/// Decompresses a `.wz` container or a gzip file, recognised by its first bytes, verifying
/// every checksum (xxh3-64 of each chunk; CRC-32 and size of each gzip member). Anything else
/// is `Error::CorruptContainer` (not a `.wz` file).
pub fn decompress_any(data: &[u8], device: &Device) -> Result<Decompressed> {
    match InputFormat::detect(data) {
        Some(InputFormat::Gzip) => {
            let decoded = crate::gzip::decompress_report(data, device)?;
            Ok(Decompressed {
                data: decoded.data,
                format: InputFormat::Gzip,
                notices: decoded.notices,
            })
        }
        Some(InputFormat::Wz) | None => Ok(Decompressed {
            data: decompress(data, device)?,
            format: InputFormat::Wz,
            notices: Vec::new(),
        }),
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

/// A summary of a `.wz` file (one container, or a stream of frames), for `warpzip inspect`.
#[derive(Clone, Debug)]
pub struct Inspection {
    /// The parsed header (of the first frame, with the total size of all frames).
    pub header: Header,
    /// Size of the whole file in bytes.
    pub container_len: u64,
    /// Bytes of compressed chunk data.
    pub payload_len: u64,
    /// Every chunk's table entry, in file order (each offset counted from the start of its own
    /// frame's payload).
    pub chunks: Vec<format::ChunkEntry>,
    /// Uncompressed size over container size (0 for an empty input).
    pub ratio: f64,
    /// The result of checking every checksum.
    pub verification: Verification,
    /// Containers in the file: 1 for a version-1 file, the frame count of a stream.
    pub frames: usize,
}

impl Inspection {
    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

/// Parses a `.wz` file and checks its checksums without decompressing it. Fails only when a
/// header or table cannot be parsed; a checksum mismatch is reported in `verification`, its
/// chunk numbered over the whole file.
pub fn inspect(container: &[u8]) -> Result<Inspection> {
    let frames = format::parse_stream(container)?;
    let mut verification = Verification::Ok;
    let mut first = 0usize;
    let mut chunks = Vec::new();
    let mut payload_len = 0u64;
    let mut total_len = 0u64;
    for frame in &frames {
        if verification == Verification::Ok {
            verification = match frame.verify_all() {
                Ok(()) => Verification::Ok,
                Err(Error::Corrupt { chunk, reason }) => Verification::Failed {
                    chunk: Some(chunk + first),
                    message: reason,
                },
                Err(other) => Verification::Failed {
                    chunk: None,
                    message: other.to_string(),
                },
            };
        }
        first += frame.chunk_count();
        chunks.extend_from_slice(&frame.chunks);
        payload_len = payload_len.saturating_add(frame.payload.len() as u64);
        total_len = total_len.saturating_add(frame.header.total_len);
    }
    let container_len = container.len() as u64;
    let ratio = if container_len == 0 {
        0.0
    } else {
        total_len as f64 / container_len as f64
    };
    let mut header = frames
        .first()
        .map(|f| f.header.clone())
        .ok_or_else(|| Error::CorruptContainer("no container in the file".into()))?;
    header.total_len = total_len;
    Ok(Inspection {
        container_len,
        payload_len,
        chunks,
        ratio,
        verification,
        header,
        frames: frames.len(),
    })
}
