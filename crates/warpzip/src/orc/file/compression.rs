//! ORC's compression framing: a compressed stream is a sequence of chunks, each behind a 3-byte
//! little-endian header whose low bit says "stored as is" and whose other 23 bits are the chunk's
//! length. ZLIB chunks are raw Deflate (RFC 1951, no zlib header), SNAPPY chunks raw Snappy
//! blocks, LZ4 chunks raw LZ4 blocks and ZSTD chunks Zstandard frames; they decompress on the CPU
//! here (through `flate2`, `snap`, `lz4_flex` and `zstd`), one after another or (for a whole
//! stream, `inflate_stream_mapped`) on all cores.

use super::super::place::Place;
use super::proto::CompressionKind;
use crate::error::{try_reserve, try_zeroed, Error, Result};
use rayon::prelude::*;
use std::borrow::Cow;
use std::io::Read;

/// ORC writers use 256 KiB when the postscript names no block size.
pub const DEFAULT_BLOCK_SIZE: u64 = 256 * 1024;

/// A chunk header's length field has 23 bits, so no chunk can be larger than this.
pub const MAX_BLOCK_SIZE: u64 = (1 << 23) - 1;

/// A file's compression: the codec and the most bytes one chunk decompresses to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compression {
    pub kind: CompressionKind,
    pub block_size: u64,
}

impl Compression {
    /// No compression: streams are stored as they are, without chunk headers.
    pub const NONE: Compression = Compression {
        kind: CompressionKind::None,
        block_size: DEFAULT_BLOCK_SIZE,
    };

    /// The compression of a file whose postscript says `kind` (a raw protobuf value) and
    /// `block_size`; a kind this build cannot decompress (LZO, BROTLI) is an `Unsupported`
    /// error.
    pub fn from_postscript(kind: Option<i32>, block_size: Option<u64>) -> Result<Compression> {
        let raw = kind.unwrap_or(0);
        let kind = CompressionKind::try_from(raw).map_err(|_| {
            Place::file()
                .part("postscript")
                .corrupt(format!("unknown compression {raw}"))
        })?;
        match kind {
            CompressionKind::None
            | CompressionKind::Zlib
            | CompressionKind::Snappy
            | CompressionKind::Lz4
            | CompressionKind::Zstd => {}
            other => {
                return Err(Error::Unsupported(format!(
                    "ORC compression {} (this build reads NONE, ZLIB, SNAPPY, LZ4 and ZSTD)",
                    other.name()
                )))
            }
        }
        let block_size = block_size.unwrap_or(DEFAULT_BLOCK_SIZE);
        if kind != CompressionKind::None && (block_size == 0 || block_size > MAX_BLOCK_SIZE) {
            return Err(Place::file().part("postscript").corrupt(format!(
                "compression block size {block_size} is outside 1..={MAX_BLOCK_SIZE}"
            )));
        }
        Ok(Compression { kind, block_size })
    }

    /// The kind's name as the ORC specification spells it (`NONE`, `ZLIB`).
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }
}

/// One chunk of a compressed stream, as its header describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// True when the chunk's bytes are stored uncompressed.
    pub original: bool,
    /// The chunk's length in the stream, after its header.
    pub length: usize,
}

/// Parses a 3-byte chunk header.
pub fn parse_chunk_header(bytes: [u8; 3]) -> ChunkHeader {
    let word = u32::from(bytes[0]) | u32::from(bytes[1]) << 8 | u32::from(bytes[2]) << 16;
    ChunkHeader {
        original: word & 1 == 1,
        length: (word >> 1) as usize,
    }
}

/// Decompresses a whole stream (or the footer, or a stripe footer), found at `place`.
/// Every chunk must inflate to at most the block size; the result borrows the input when the
/// file is not compressed.
pub fn decompress_stream<'a>(
    data: &'a [u8],
    compression: Compression,
    place: &Place,
) -> Result<Cow<'a, [u8]>> {
    decompress_stream_mapped(data, compression, place).map(|(bytes, _)| bytes)
}

/// Where one compression chunk of a stream lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkStart {
    /// Offset of the chunk's 3-byte header from the start of the compressed stream.
    pub compressed: u64,
    /// Offset of the chunk's first decompressed byte from the start of the decompressed stream.
    pub decompressed: u64,
}

/// The chunks of one stream, to turn a row index position (the offset of a chunk's header in
/// the compressed stream, then an offset in that chunk's decompressed bytes) into an offset in
/// the decompressed stream. An uncompressed stream is one chunk, at 0 in both, so its positions
/// (plain byte offsets) are located as `locate(0, offset)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMap {
    /// The chunks in stream order (none for an empty stream).
    pub chunks: Vec<ChunkStart>,
    /// The stream's length in the file, chunk headers included.
    pub compressed_len: u64,
    /// The stream's length decompressed.
    pub decompressed_len: u64,
}

impl ChunkMap {
    /// The decompressed offset of byte `offset_in_chunk` of the chunk whose header is at
    /// `chunk_offset`. `chunk_offset` must be a chunk's start, or the stream's end with
    /// `offset_in_chunk` 0 (a position after everything written); `offset_in_chunk` may be at
    /// most the chunk's decompressed length. Anything else is described in the error.
    pub fn locate(
        &self,
        chunk_offset: u64,
        offset_in_chunk: u64,
    ) -> std::result::Result<u64, String> {
        if chunk_offset == self.compressed_len {
            return if offset_in_chunk == 0 {
                Ok(self.decompressed_len)
            } else {
                Err(format!(
                    "offset {offset_in_chunk} in a chunk at the stream's end (byte {chunk_offset})"
                ))
            };
        }
        let i = self
            .chunks
            .binary_search_by_key(&chunk_offset, |c| c.compressed)
            .map_err(|_| {
                format!(
                    "no compression chunk starts at byte {chunk_offset} of the {}-byte stream",
                    self.compressed_len
                )
            })?;
        let start = self.chunks[i].decompressed;
        let end = self
            .chunks
            .get(i + 1)
            .map_or(self.decompressed_len, |c| c.decompressed);
        let length = end.saturating_sub(start);
        if offset_in_chunk > length {
            return Err(format!(
                "offset {offset_in_chunk} is past the end of the chunk at byte {chunk_offset} \
                 ({length} bytes decompressed)"
            ));
        }
        Ok(start + offset_in_chunk)
    }
}

/// [`decompress_stream`], also returning where every chunk starts in the compressed and the
/// decompressed stream, so row index positions can be located in the decompressed bytes.
pub fn decompress_stream_mapped<'a>(
    data: &'a [u8],
    compression: Compression,
    place: &Place,
) -> Result<(Cow<'a, [u8]>, ChunkMap)> {
    let len = data.len() as u64;
    if compression.kind == CompressionKind::None {
        let chunks = if data.is_empty() {
            Vec::new()
        } else {
            vec![ChunkStart {
                compressed: 0,
                decompressed: 0,
            }]
        };
        let map = ChunkMap {
            chunks,
            compressed_len: len,
            decompressed_len: len,
        };
        return Ok((Cow::Borrowed(data), map));
    }
    let mut out = Vec::new();
    let mut chunks = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let header = data
            .get(pos..pos + 3)
            .ok_or_else(|| corrupt(place, pos, "a chunk header is cut short"))?;
        let header = parse_chunk_header([header[0], header[1], header[2]]);
        let start = pos + 3;
        let end = start
            .checked_add(header.length)
            .filter(|&end| end <= data.len())
            .ok_or_else(|| {
                corrupt(
                    place,
                    pos,
                    &format!(
                        "a chunk of {} bytes runs past the stream's end ({} bytes)",
                        header.length,
                        data.len()
                    ),
                )
            })?;
        chunks.push(ChunkStart {
            compressed: pos as u64,
            decompressed: out.len() as u64,
        });
        let chunk = &data[start..end];
        if header.original {
            if chunk.len() as u64 > compression.block_size {
                return Err(corrupt(
                    place,
                    pos,
                    "a stored chunk is larger than the compression block size",
                ));
            }
            try_reserve(&mut out, chunk.len(), "a decompressed ORC stream")?;
            out.extend_from_slice(chunk);
        } else {
            decompress_chunk(compression, chunk, &mut out)?
                .map_err(|reason| corrupt(place, pos, &reason))?;
        }
        pos = end;
    }
    let map = ChunkMap {
        chunks,
        compressed_len: len,
        decompressed_len: out.len() as u64,
    };
    Ok((Cow::Owned(out), map))
}

/// [`decompress_stream_mapped`] with the compression chunks inflated in parallel: the same
/// bytes, chunk map and errors. The chunk headers are read first; a stream of one chunk, or any
/// failure, goes to `decompress_stream_mapped` itself, which reports the first failure in
/// stream order.
pub fn inflate_stream_mapped<'a>(
    data: &'a [u8],
    compression: Compression,
    place: &Place,
) -> Result<(Cow<'a, [u8]>, ChunkMap)> {
    if compression.kind == CompressionKind::None {
        return decompress_stream_mapped(data, compression, place);
    }
    // (header offset, chunk bytes, stored as is) of every chunk.
    let mut chunks: Vec<(usize, &[u8], bool)> = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let Some(&[b0, b1, b2]) = data.get(pos..pos + 3) else {
            return decompress_stream_mapped(data, compression, place);
        };
        let header = parse_chunk_header([b0, b1, b2]);
        let Some(chunk) = pos
            .checked_add(3 + header.length)
            .and_then(|end| data.get(pos + 3..end))
        else {
            return decompress_stream_mapped(data, compression, place);
        };
        chunks.push((pos, chunk, header.original));
        pos += 3 + header.length;
    }
    if chunks.len() < 2 {
        return decompress_stream_mapped(data, compression, place);
    }
    let Some((out, starts)) = inflate_chunks(&chunks, compression) else {
        return decompress_stream_mapped(data, compression, place);
    };
    let map = ChunkMap {
        chunks: starts,
        compressed_len: data.len() as u64,
        decompressed_len: out.len() as u64,
    };
    Ok((Cow::Owned(out), map))
}

/// Slots of at most this many bytes in all are laid out for a stream's chunks to inflate into.
const MAX_SLOTS_BYTES: u64 = 1 << 29;

/// Inflates (or copies, when stored) every chunk, each in parallel into its own `limit`-byte
/// slot of one buffer, then closes the gaps short chunks leave: the stream's bytes and where
/// each chunk starts in them. A deflate stream is inflated in one call into its slot; `None`
/// when a chunk does not end its deflate stream inside the slot or is stored and larger than
/// `limit` (the caller then inflates the stream as the one-chunk-at-a-time reader does, and
/// reports what it reports).
fn inflate_chunks(
    chunks: &[(usize, &[u8], bool)],
    compression: Compression,
) -> Option<(Vec<u8>, Vec<ChunkStart>)> {
    let limit = compression.block_size;
    let slot = usize::try_from(limit).ok().filter(|&s| s > 0)?;
    if (chunks.len() as u64).saturating_mul(limit) > MAX_SLOTS_BYTES {
        return None;
    }
    // Memory that cannot be had leaves the stream to the one-chunk-at-a-time reader, which
    // allocates as it goes and names what it could not have.
    let mut out = try_zeroed(chunks.len().checked_mul(slot)?, "a decompressed ORC stream").ok()?;
    let lengths: Vec<Option<usize>> = out
        .par_chunks_mut(slot)
        .zip(chunks.par_iter())
        .map(|(dst, &(_, chunk, original))| {
            if original {
                dst.get_mut(..chunk.len())?.copy_from_slice(chunk);
                return Some(chunk.len());
            }
            if compression.kind != CompressionKind::Zlib {
                return decompress_block(compression.kind, chunk, dst).ok();
            }
            let mut inflater = flate2::Decompress::new(false);
            match inflater.decompress(chunk, dst, flate2::FlushDecompress::Finish) {
                Ok(flate2::Status::StreamEnd) => usize::try_from(inflater.total_out()).ok(),
                _ => None,
            }
        })
        .collect();
    let mut starts = Vec::with_capacity(chunks.len());
    let mut end = 0usize;
    for (i, (&(offset, _, _), len)) in chunks.iter().zip(lengths).enumerate() {
        let len = len?;
        starts.push(ChunkStart {
            compressed: offset as u64,
            decompressed: end as u64,
        });
        let from = i * slot;
        if from != end {
            out.copy_within(from..from + len, end);
        }
        end += len;
    }
    out.truncate(end);
    Some((out, starts))
}

/// Decompresses one chunk (not stored as is) onto `out`, refusing to produce more than the
/// block size: the outer error is memory that cannot be had, the inner one the chunk's damage.
fn decompress_chunk(
    compression: Compression,
    chunk: &[u8],
    out: &mut Vec<u8>,
) -> Result<std::result::Result<(), String>> {
    if compression.kind == CompressionKind::Zlib {
        return inflate_chunk(chunk, compression.block_size, out);
    }
    let before = out.len();
    let limit = usize::try_from(compression.block_size)
        .map_err(|_| Error::InvalidArgument("compression block size too large".into()))?;
    // The block size is at most 8 MiB (its 23-bit header field), so a whole slot is reserved.
    try_reserve(out, limit, "a decompressed ORC stream")?;
    out.resize(before + limit, 0);
    let result = decompress_block(compression.kind, chunk, &mut out[before..]);
    match result {
        Ok(n) => {
            out.truncate(before + n);
            Ok(Ok(()))
        }
        Err(reason) => {
            out.truncate(before);
            Ok(Err(reason))
        }
    }
}

/// Decompresses one SNAPPY, LZ4 or ZSTD chunk into `dst` (the block size): the bytes written,
/// or why the chunk is damaged (one that needs more room than `dst` is damaged too).
pub fn decompress_block(
    kind: CompressionKind,
    chunk: &[u8],
    dst: &mut [u8],
) -> std::result::Result<usize, String> {
    let name = kind.name();
    match kind {
        CompressionKind::Snappy => {
            let n = snap::raw::decompress_len(chunk)
                .map_err(|e| format!("a {name} chunk does not decompress ({e})"))?;
            if n > dst.len() {
                return Err(format!(
                    "a {name} chunk decompresses to {n} bytes, more than the compression block \
                     size ({} bytes)",
                    dst.len()
                ));
            }
            snap::raw::Decoder::new()
                .decompress(chunk, dst)
                .map_err(|e| format!("a {name} chunk does not decompress ({e})"))
        }
        CompressionKind::Lz4 => lz4_flex::block::decompress_into(chunk, dst).map_err(|e| {
            format!(
                "a {name} chunk does not decompress into the compression block size ({} bytes): \
                 {e}",
                dst.len()
            )
        }),
        CompressionKind::Zstd => zstd::bulk::decompress_to_buffer(chunk, dst).map_err(|e| {
            format!(
                "a {name} chunk does not decompress into the compression block size ({} bytes): \
                 {e}",
                dst.len()
            )
        }),
        other => Err(format!("{} chunks are not decompressed here", other.name())),
    }
}

/// Inflates one raw-Deflate chunk onto `out`, refusing to produce more than `limit` bytes.
fn inflate_chunk(
    chunk: &[u8],
    limit: u64,
    out: &mut Vec<u8>,
) -> Result<std::result::Result<(), String>> {
    let before = out.len();
    let mut decoder = flate2::read::DeflateDecoder::new(chunk).take(limit + 1);
    // The output grows piece by piece, each growth fallible (`read_to_end` would abort).
    let mut piece = [0u8; 32 << 10];
    loop {
        let n = match decoder.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Ok(Err(format!("a ZLIB chunk does not inflate ({e})"))),
        };
        try_reserve(out, n, "a decompressed ORC stream")?;
        out.extend_from_slice(&piece[..n]);
    }
    if (out.len() - before) as u64 > limit {
        return Ok(Err(format!(
            "a ZLIB chunk inflates to more than the compression block size ({limit} bytes)"
        )));
    }
    Ok(Ok(()))
}

fn corrupt(place: &Place, offset: usize, reason: &str) -> Error {
    place.corrupt(format!("chunk at byte {offset}: {reason}"))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    fn zlib() -> Compression {
        Compression {
            kind: CompressionKind::Zlib,
            block_size: 1024,
        }
    }

    fn header(len: usize, original: bool) -> [u8; 3] {
        let word = ((len as u32) << 1) | u32::from(original);
        [word as u8, (word >> 8) as u8, (word >> 16) as u8]
    }

    #[test]
    fn chunk_headers_follow_the_specification_example() {
        // The specification's examples: a chunk compressed to 100,000 bytes, and 5 bytes
        // stored as they are.
        assert_eq!(
            parse_chunk_header([0x40, 0x0d, 0x03]),
            ChunkHeader {
                original: false,
                length: 100_000
            }
        );
        assert_eq!(
            parse_chunk_header([0x0b, 0, 0]),
            ChunkHeader {
                original: true,
                length: 5
            }
        );
    }

    #[test]
    fn stored_and_deflated_chunks_concatenate() {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&[7u8; 600]).unwrap();
        let deflated = enc.finish().unwrap();
        let mut stream = header(deflated.len(), false).to_vec();
        stream.extend_from_slice(&deflated);
        stream.extend_from_slice(&header(3, true));
        stream.extend_from_slice(b"abc");
        let out = decompress_stream(&stream, zlib(), &Place::file()).unwrap();
        assert_eq!(out.len(), 603);
        assert_eq!(&out[600..], b"abc");
    }

    #[test]
    fn damaged_streams_are_errors() {
        assert!(decompress_stream(&[1, 0], zlib(), &Place::file()).is_err());
        assert!(decompress_stream(&header(10, true), zlib(), &Place::file()).is_err());
        let mut bad = header(3, false).to_vec();
        bad.extend_from_slice(&[0xff, 0xff, 0xff]);
        assert!(decompress_stream(&bad, zlib(), &Place::file()).is_err());
        // A chunk that inflates past the block size.
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&[0u8; 5000]).unwrap();
        let deflated = enc.finish().unwrap();
        let mut big = header(deflated.len(), false).to_vec();
        big.extend_from_slice(&deflated);
        assert!(decompress_stream(&big, zlib(), &Place::file()).is_err());
    }

    #[test]
    fn chunk_maps_locate_positions() {
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
        enc.write_all(&[7u8; 600]).unwrap();
        let deflated = enc.finish().unwrap();
        let mut stream = header(deflated.len(), false).to_vec();
        stream.extend_from_slice(&deflated);
        let second = stream.len() as u64;
        stream.extend_from_slice(&header(3, true));
        stream.extend_from_slice(b"abc");
        let (out, map) = decompress_stream_mapped(&stream, zlib(), &Place::file()).unwrap();
        assert_eq!(out.len(), 603);
        assert_eq!(
            map.chunks,
            [
                ChunkStart {
                    compressed: 0,
                    decompressed: 0
                },
                ChunkStart {
                    compressed: second,
                    decompressed: 600
                }
            ]
        );
        assert_eq!(map.locate(0, 0), Ok(0));
        assert_eq!(map.locate(0, 599), Ok(599));
        assert_eq!(map.locate(0, 600), Ok(600));
        assert_eq!(map.locate(second, 2), Ok(602));
        assert_eq!(map.locate(stream.len() as u64, 0), Ok(603));
        assert!(map.locate(0, 601).is_err());
        assert!(map.locate(1, 0).is_err());
        assert!(map.locate(second, 4).is_err());
        assert!(map.locate(stream.len() as u64, 1).is_err());
        assert!(map.locate(u64::MAX, 0).is_err());
        // The unmapped call gives the same bytes.
        assert_eq!(
            decompress_stream(&stream, zlib(), &Place::file()).unwrap(),
            out
        );
    }

    #[test]
    fn uncompressed_positions_are_direct() {
        let (out, map) =
            decompress_stream_mapped(b"hello", Compression::NONE, &Place::file()).unwrap();
        assert!(matches!(out, Cow::Borrowed(_)));
        assert_eq!(map.locate(0, 3), Ok(3));
        assert_eq!(map.locate(0, 5), Ok(5));
        assert!(map.locate(0, 6).is_err());
        let (_, empty) = decompress_stream_mapped(b"", Compression::NONE, &Place::file()).unwrap();
        assert_eq!(empty.locate(0, 0), Ok(0));
        assert!(empty.locate(0, 1).is_err());
        let (_, empty) = decompress_stream_mapped(b"", zlib(), &Place::file()).unwrap();
        assert_eq!(empty.locate(0, 0), Ok(0));
    }

    #[test]
    fn snappy_lz4_and_zstd_chunks_concatenate() {
        let text: Vec<u8> = (0..3000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let part = &text[..1000];
        let blocks = [
            (
                CompressionKind::Snappy,
                snap::raw::Encoder::new().compress_vec(part).unwrap(),
            ),
            (CompressionKind::Lz4, lz4_flex::block::compress(part)),
            (CompressionKind::Zstd, zstd::bulk::compress(part, 3).unwrap()),
        ];
        for (kind, block) in blocks {
            let compression = Compression {
                kind,
                block_size: 1024,
            };
            let mut stream = header(block.len(), false).to_vec();
            stream.extend_from_slice(&block);
            stream.extend_from_slice(&header(3, true));
            stream.extend_from_slice(b"abc");
            stream.extend_from_slice(&header(block.len(), false));
            stream.extend_from_slice(&block);
            let out = decompress_stream(&stream, compression, &Place::file()).unwrap();
            assert_eq!(&out[..1000], part, "{kind:?}");
            assert_eq!(&out[1000..1003], b"abc", "{kind:?}");
            assert_eq!(&out[1003..], part, "{kind:?}");
            let (parallel, _) = inflate_stream_mapped(&stream, compression, &Place::file()).unwrap();
            assert_eq!(parallel, out, "{kind:?}");
            // A block size smaller than a chunk's bytes, and a damaged chunk, are errors.
            let small = Compression {
                kind,
                block_size: 999,
            };
            assert!(decompress_stream(&stream, small, &Place::file()).is_err());
            assert!(inflate_stream_mapped(&stream, small, &Place::file()).is_err());
            let mut bad = stream.clone();
            for b in &mut bad[3..3 + block.len().min(12)] {
                *b ^= 0x5a;
            }
            let _ = decompress_stream(&bad, compression, &Place::file());
            let cut = &stream[..3 + block.len() / 2];
            assert!(decompress_stream(cut, compression, &Place::file()).is_err());
        }
    }

    #[test]
    fn other_kinds_are_unsupported() {
        let e = Compression::from_postscript(Some(6), None).unwrap_err();
        assert!(e.to_string().contains("BROTLI"), "{e}");
        let e = Compression::from_postscript(Some(3), None).unwrap_err();
        assert!(e.to_string().contains("LZO"), "{e}");
        for kind in [2, 4, 5] {
            assert!(Compression::from_postscript(Some(kind), None).is_ok());
        }
        assert!(Compression::from_postscript(Some(99), None).is_err());
        assert_eq!(
            Compression::from_postscript(None, None).unwrap(),
            Compression::NONE
        );
    }
}
