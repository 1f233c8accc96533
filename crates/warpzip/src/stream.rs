//! Streaming compression and decompression in bounded memory, for inputs of any size (files,
//! pipes, standard input). Three stages run at once: a reader thread fills batches of chunks, a
//! worker compresses or decodes one batch at a time (its chunks in parallel on the rayon pool,
//! or on the GPU through the codec's own batch path), and the calling thread writes the results
//! in order. The stages are joined by channels that hold one batch each, so at most a few
//! batches are alive at any moment, whatever the input's size.
//!
//! - Compressing: an input that fits in one batch becomes one version-1 container, byte for
//!   byte what [`crate::api::compress`] writes; a longer one becomes a version-2 stream of
//!   frames, one per batch (`docs/format.md`, "Streams of frames"). `--format gz` and `bgzf`
//!   write gzip members instead ([`crate::gzip::write`]).
//! - Decompressing: frames (and old single containers) are read header and table first, then
//!   their payload a batch of chunks at a time; gzip input goes to
//!   [`crate::gzip::stream`].

use crate::api::{self, InputFormat};
use crate::codec::{self, CompressOptions};
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::{self, ChunkEntry, Container, ElemType, Framing, Header, MAGIC};
use std::io::{self, Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::thread;

/// Uncompressed bytes a batch aims at on the CPU: with the channels' few batches in flight, the
/// pipeline holds a few tens of MiB whatever the input's size.
pub const CPU_BATCH: usize = 8 << 20;
/// Uncompressed bytes a batch aims at on a GPU: larger launches keep more warps busy.
pub const GPU_BATCH: usize = 64 << 20;
/// Most uncompressed bytes a batch aims at when the rayon pool is large (a chunk per thread).
pub const MAX_BATCH: usize = 256 << 20;

/// What the container is written as.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OutputFormat {
    /// `.wz`: a version-1 container, or a version-2 stream of frames for a long input.
    #[default]
    Wz,
    /// gzip (RFC 1952): one member per chunk, each a raw Deflate stream compressed with
    /// libdeflate at the options' level; any gzip reads it.
    Gzip,
    /// BGZF (the SAM specification's blocked gzip): members of at most 64 KiB with the `BC`
    /// extra field giving each one's size, and the 28-byte end-of-file block.
    Bgzf,
}

/// How a stream is cut and what is known about it.
#[derive(Clone, Debug, Default)]
pub struct StreamConfig {
    /// Uncompressed bytes per batch (rounded to whole chunks); `None` for the device's default
    /// ([`CPU_BATCH`] or [`GPU_BATCH`], at least a chunk per rayon thread).
    pub batch_size: Option<usize>,
    /// The input's length when known in advance (a regular file): codecs whose default chunk
    /// size follows the input's length (deflate) then choose as the whole-buffer compressor
    /// does.
    pub size_hint: Option<u64>,
    /// The output format (compression only).
    pub format: OutputFormat,
}

/// What a streaming call read and wrote.
#[derive(Clone, Debug)]
pub struct StreamStats {
    /// Bytes read from the input.
    pub bytes_in: u64,
    /// Bytes written to the output.
    pub bytes_out: u64,
    /// Frames (`.wz`) or members (gzip) written or read.
    pub frames: u64,
    /// The format read (decompression) or written as (compression: `Wz` or `Gzip`).
    pub format: InputFormat,
    /// Things a user should hear about that did not stop decoding.
    pub notices: Vec<crate::gzip::Notice>,
}

impl StreamStats {
    pub(crate) fn new(format: InputFormat) -> StreamStats {
        StreamStats {
            bytes_in: 0,
            bytes_out: 0,
            frames: 0,
            format,
            notices: Vec::new(),
        }
    }
}

/// The batch size to aim at: the configured one, or the device's default, at least one chunk
/// per rayon thread (so every thread has a chunk), capped at [`MAX_BATCH`].
pub(crate) fn batch_target(cfg: &StreamConfig, device: &Device, chunk_size: u32) -> usize {
    let base = if device.is_gpu() {
        GPU_BATCH
    } else {
        CPU_BATCH
    };
    let per_thread = (chunk_size as usize).saturating_mul(rayon::current_num_threads());
    cfg.batch_size
        .unwrap_or_else(|| base.max(per_thread.min(MAX_BATCH)))
        .max(1)
}

/// Whole chunks of `chunk_size` nearest below `target`, at least one.
fn frame_len(target: usize, chunk_size: u32) -> usize {
    let chunk = (chunk_size as usize).max(1);
    (target / chunk).max(1) * chunk
}

/// Compresses everything `reader` yields into `w` as a `.wz` stream in bounded memory; see
/// [`compress_stream_with`].
pub fn compress_stream<R: Read + Send, W: Write + ?Sized>(
    reader: R,
    w: &mut W,
    opts: &CompressOptions,
    device: &Device,
) -> Result<StreamStats> {
    compress_stream_with(reader, w, opts, device, &StreamConfig::default())
}

/// Compresses everything `reader` yields into `w`, holding a few batches at a time. An input
/// that fits in one batch is written as one version-1 container, the bytes
/// [`api::compress`](crate::api::compress) writes for it; a longer one as a version-2 stream of
/// frames of one batch each (or as gzip members, `cfg.format`). On an error, what was written
/// before it stays written: a caller writing a file removes it.
pub fn compress_stream_with<R: Read + Send, W: Write + ?Sized>(
    mut reader: R,
    w: &mut W,
    opts: &CompressOptions,
    device: &Device,
    cfg: &StreamConfig,
) -> Result<StreamStats> {
    let gzip = cfg.format != OutputFormat::Wz;
    let codec = codec::codec(opts.codec)?;
    let chunk_size = if gzip {
        crate::gzip::write::check_options(opts, cfg.format)?
    } else {
        codec.check_options(opts)?
    };
    let target = batch_target(cfg, device, chunk_size);
    // A codec that needs the whole input reads it all into the first batch.
    let first_len = if !gzip && !codec.streams() {
        usize::MAX - 1
    } else {
        target.max(chunk_size as usize)
    };
    let mut first = Vec::new();
    format::stream::fill(&mut reader, &mut first, first_len as u64 + 1)?;
    let whole = first.len() <= first_len;
    let mut stats = StreamStats::new(if gzip {
        InputFormat::Gzip
    } else {
        InputFormat::Wz
    });
    if whole && !gzip {
        stats.bytes_in = first.len() as u64;
        stats.bytes_out = api::compress_to(w, &first, opts, device)?;
        stats.frames = 1;
        return Ok(stats);
    }
    // The chunk size is fixed for the whole stream before the reader starts cutting frames.
    let hint = if whole {
        Some(first.len() as u64)
    } else {
        cfg.size_hint
    };
    let chunk = if gzip {
        crate::gzip::write::chunk_size(opts, cfg.format, hint)?
    } else {
        codec.stream_chunk_size(opts, hint)?
    };
    let frame = frame_len(target, chunk);
    let mut fixed = opts.clone();
    fixed.chunk_size = Some(chunk);
    let elem = opts.elem_type.unwrap_or(ElemType::Bytes);
    let format = cfg.format;

    thread::scope(|s| {
        let (in_tx, in_rx) = sync_channel::<Result<Piece>>(1);
        let (out_tx, out_rx) = sync_channel::<Result<Vec<u8>>>(1);
        let reader_thread = s.spawn(move || cut_frames(reader, first, frame, &in_tx));
        let fixed = &fixed;
        s.spawn(move || {
            let mut seen = 0u64;
            for piece in in_rx {
                let encoded = piece.and_then(|p| {
                    seen += p.data.len() as u64;
                    if p.last && !seen.is_multiple_of(elem.size()) {
                        return Err(Error::InvalidArgument(format!(
                            "input of {seen} bytes is not a whole number of {elem} elements"
                        )));
                    }
                    encode_piece(&p, fixed, chunk, format, device)
                });
                let failed = encoded.is_err();
                if out_tx.send(encoded).is_err() || failed {
                    return;
                }
            }
        });
        for bytes in out_rx {
            let bytes = bytes?;
            w.write_all(&bytes)?;
            stats.bytes_out += bytes.len() as u64;
            stats.frames += 1;
        }
        if format == OutputFormat::Bgzf {
            w.write_all(&crate::gzip::write::BGZF_EOF)?;
            stats.bytes_out += crate::gzip::write::BGZF_EOF.len() as u64;
        }
        stats.bytes_in = reader_thread
            .join()
            .map_err(|_| Error::InvalidArgument("the reading thread failed".into()))?;
        Ok(stats)
    })
}

/// One frame's worth of input, and whether it is the last.
struct Piece {
    data: Vec<u8>,
    last: bool,
}

/// The reader stage: cuts the input into frames of `frame` bytes (the first bytes already read
/// are `carry`), one frame ahead so that each is sent knowing whether it is the last. Returns
/// the bytes read.
fn cut_frames<R: Read>(
    mut reader: R,
    mut carry: Vec<u8>,
    frame: usize,
    tx: &SyncSender<Result<Piece>>,
) -> u64 {
    let mut total = carry.len() as u64;
    let mut next = |carry: &mut Vec<u8>| -> Result<Vec<u8>> {
        let mut buf = Vec::with_capacity(frame);
        let take = carry.len().min(frame);
        buf.extend(carry.drain(..take));
        if carry.is_empty() {
            *carry = Vec::new();
        }
        let before = buf.len() as u64;
        format::stream::fill(&mut reader, &mut buf, frame as u64)?;
        total += buf.len() as u64 - before;
        Ok(buf)
    };
    let mut pending = match next(&mut carry) {
        Ok(p) => p,
        Err(e) => {
            let _ = tx.send(Err(e));
            return total;
        }
    };
    loop {
        let following = match next(&mut carry) {
            Ok(f) => f,
            Err(e) => {
                let _ = tx.send(Err(e));
                return total;
            }
        };
        let last = following.is_empty();
        if tx
            .send(Ok(Piece {
                data: pending,
                last,
            }))
            .is_err()
            || last
        {
            return total;
        }
        pending = following;
    }
}

/// Compresses one frame's input into the bytes written for it.
fn encode_piece(
    piece: &Piece,
    opts: &CompressOptions,
    chunk: u32,
    format: OutputFormat,
    device: &Device,
) -> Result<Vec<u8>> {
    if format != OutputFormat::Wz {
        return crate::gzip::write::members(&piece.data, opts, chunk, format);
    }
    let codec = codec::codec(opts.codec)?;
    let encoded = codec.compress(&piece.data, opts, chunk, device)?;
    let header = Header {
        codec: opts.codec,
        codec_params: encoded.codec_params,
        elem_type: opts.elem_type.unwrap_or(ElemType::Bytes),
        shape: Vec::new(),
        total_len: piece.data.len() as u64,
        chunk_size: encoded.chunk_size,
    };
    let mut out = Vec::with_capacity(encoded.payload.len() + 4096);
    format::write_frame(
        &mut out,
        &header,
        Framing::frame(!piece.last),
        &encoded.payload,
        &encoded.spans,
    )?;
    Ok(out)
}

/// Decompresses a `.wz` file (one container or a stream of frames, possibly several streams
/// concatenated) or a gzip file from `reader` into `w` in bounded memory; see
/// [`decompress_stream_with`].
pub fn decompress_stream<R: Read + Send, W: Write + ?Sized>(
    reader: R,
    w: &mut W,
    device: &Device,
) -> Result<StreamStats> {
    decompress_stream_with(reader, w, device, &StreamConfig::default())
}

/// Decompresses `reader` into `w`, holding a few batches at a time; the format is told by the
/// first bytes, as [`api::decompress_any`](crate::api::decompress_any) tells it. Every header,
/// table and checksum is checked as the whole-buffer decoder checks them, batch by batch: an
/// input that fits in one batch gets the whole-buffer decoder's answer, error for error; a
/// longer one is written as far as its first bad batch (a caller writing a file removes it).
pub fn decompress_stream_with<R: Read + Send, W: Write + ?Sized>(
    mut reader: R,
    w: &mut W,
    device: &Device,
    cfg: &StreamConfig,
) -> Result<StreamStats> {
    let mut prefix = Vec::new();
    format::stream::fill(&mut reader, &mut prefix, 2)?;
    if crate::gzip::is_gzip(&prefix) {
        return crate::codec::deflate::gzip::stream::decompress(reader, prefix, w, device, cfg);
    }
    let target = batch_target(cfg, device, 0).max(1);
    let mut stats = StreamStats::new(InputFormat::Wz);
    thread::scope(|s| {
        let (in_tx, in_rx) = sync_channel::<Result<Batch>>(1);
        let (out_tx, out_rx) = sync_channel::<Result<Vec<u8>>>(1);
        let reader_thread = s.spawn(move || {
            let mut counted = Counting {
                inner: reader,
                count: 0,
            };
            let mut frames = 0u64;
            if let Err(e) = read_batches(&mut counted, prefix, target, &in_tx, &mut frames) {
                let _ = in_tx.send(Err(e));
            }
            (counted.count, frames)
        });
        s.spawn(move || decode_batches(in_rx, &out_tx, device));
        for bytes in out_rx {
            let bytes = bytes?;
            w.write_all(&bytes)?;
            stats.bytes_out += bytes.len() as u64;
        }
        let (read, frames) = reader_thread
            .join()
            .map_err(|_| Error::InvalidArgument("the reading thread failed".into()))?;
        stats.bytes_in = read;
        stats.frames = frames;
        Ok(stats)
    })
}

/// A reader that counts the bytes it yields.
pub(crate) struct Counting<R> {
    pub(crate) inner: R,
    pub(crate) count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// A run of consecutive chunks of one container, with their compressed bytes.
struct Batch {
    /// The container's header, with the total size of these chunks only.
    header: Header,
    /// Their table entries, offsets counted from the start of `payload`.
    chunks: Vec<ChunkEntry>,
    payload: Vec<u8>,
    /// Index of the first chunk, counted over the whole input (every frame).
    first_chunk: usize,
}

/// The reader stage of decompression: reads every container's header and table, then its
/// payload a batch of chunks at a time, and sends the batches on. Checks, in the whole-buffer
/// decoder's order, what only the reader can see: a payload cut short, bytes after the last
/// container, a stream that ends where a frame says another follows.
fn read_batches<R: Read>(
    r: &mut R,
    mut buf: Vec<u8>,
    target: usize,
    tx: &SyncSender<Result<Batch>>,
    frames: &mut u64,
) -> Result<()> {
    let mut index = 0usize;
    let mut at = 0u64;
    let mut first_chunk = 0usize;
    loop {
        let head = match format::read_head(r, &mut buf) {
            Ok(Some(head)) => head,
            Ok(None) if index == 0 => {
                // An empty input: the whole-buffer parser's answer.
                return Err(format::Head::parse(&[])
                    .err()
                    .unwrap_or_else(|| Error::Truncated("the input is empty".into())));
            }
            Ok(None) => {
                return Err(Error::Truncated(format!(
                    "the input ends after frame {}, whose header says more frames follow",
                    index - 1
                )))
            }
            Err(e) => return Err(format::in_frame(e, index, at)),
        };
        buf.clear();
        *frames += 1;
        let more = head.framing.more;
        let n = head.chunks.len();
        let mut read = 0u64;
        let mut i = 0usize;
        loop {
            // The next batch: chunks until either size would pass the target (at least one).
            let (mut j, mut raw, mut packed) = (i, 0u64, 0u64);
            while j < n {
                let e = &head.chunks[j];
                let (u, c) = (u64::from(e.uncompressed_len), u64::from(e.compressed_len));
                if j > i && (raw + u > target as u64 || packed + c > target as u64) {
                    break;
                }
                raw += u;
                packed += c;
                j += 1;
            }
            let mut payload = Vec::new();
            let got = format::stream::fill(r, &mut payload, packed)?;
            read += payload.len() as u64;
            if !got {
                return Err(format::in_frame(
                    Error::Truncated(format!(
                        "payload is {read} bytes, but the chunk table needs {}",
                        head.payload_len
                    )),
                    index,
                    at,
                ));
            }
            let last_batch = j == n;
            if last_batch && !more {
                // The end of a stream: the input ends, or another stream starts.
                let mut peek = Vec::new();
                format::stream::fill(r, &mut peek, MAGIC.len() as u64)?;
                if !peek.is_empty() && peek != MAGIC {
                    let rest = io::copy(r, &mut io::sink())?;
                    return Err(Error::CorruptContainer(format!(
                        "{} trailing bytes after the last chunk",
                        peek.len() as u64 + rest
                    )));
                }
                buf = peek;
            }
            let base = head.chunks.get(i).map_or(0, |e| e.offset);
            let chunks: Vec<ChunkEntry> = head.chunks[i..j]
                .iter()
                .map(|e| ChunkEntry {
                    offset: e.offset - base,
                    ..*e
                })
                .collect();
            let batch = Batch {
                header: Header {
                    total_len: raw,
                    shape: Vec::new(),
                    ..head.header.clone()
                },
                chunks,
                payload,
                first_chunk: first_chunk + i,
            };
            if tx.send(Ok(batch)).is_err() {
                return Ok(());
            }
            i = j;
            if last_batch {
                break;
            }
        }
        first_chunk += n;
        at += head.len + read;
        index += 1;
        if !more && buf.is_empty() {
            return Ok(());
        }
    }
}

/// The worker stage of decompression: each batch checked and decoded as the whole-buffer
/// decoder checks and decodes a container, chunk errors renumbered over the whole input.
fn decode_batches(rx: Receiver<Result<Batch>>, tx: &SyncSender<Result<Vec<u8>>>, device: &Device) {
    for batch in rx {
        let decoded = batch.and_then(|b| {
            let container = Container {
                header: b.header,
                chunks: b.chunks,
                payload: &b.payload,
            };
            api::decode_container(&container, device).map_err(|e| renumber(e, b.first_chunk))
        });
        let failed = decoded.is_err();
        if tx.send(decoded).is_err() || failed {
            return;
        }
    }
}

/// A chunk error of a batch whose first chunk is chunk `first` of the input.
pub(crate) fn renumber(e: Error, first: usize) -> Error {
    match e {
        Error::Corrupt { chunk, reason } => Error::Corrupt {
            chunk: chunk + first,
            reason,
        },
        other => other,
    }
}
