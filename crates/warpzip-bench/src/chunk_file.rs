//! The anchors' chunk file (`../shared/anchors`): independent raw-deflate streams with their
//! sizes, the input that nvCOMP's Deflate and warpzip's inflate both decode in the benchmark.
//!
//! Layout, all integers little-endian: `u64 count`, then `count × (u64 raw size, u64
//! compressed size)`, then the `count` raw-deflate streams back to back. The file ends exactly
//! where the last stream ends. [`ChunkFile::compress`] makes one with libdeflate.

use libdeflater::{CompressionLvl, Compressor};
use rayon::prelude::*;
use std::ops::Range;
use warpzip::error::{Error, Result};

/// Largest uncompressed size a chunk may declare (64 MiB): more than any batch codec uses, small
/// enough that a corrupt size cannot make a reader allocate the machine away.
pub const MAX_RAW_CHUNK_SIZE: usize = 64 << 20;

/// Bytes before the first size pair.
const COUNT_BYTES: usize = 8;
/// Bytes per chunk in the size table.
const ENTRY_BYTES: usize = 16;

/// A chunk file in memory: the whole file image and where each stream lies in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkFile {
    bytes: Vec<u8>,
    raw_sizes: Vec<usize>,
    spans: Vec<Range<usize>>,
}

/// The size table of a chunk file: each chunk's uncompressed size and its stream's byte range
/// in the file. Checks everything a reader relies on; see [`ChunkFile::parse`].
fn layout(bytes: &[u8]) -> Result<(Vec<usize>, Vec<Range<usize>>)> {
    let count = read_u64(bytes, 0).ok_or_else(|| {
        Error::Truncated(format!(
            "chunk file of {} bytes has no 8-byte chunk count",
            bytes.len()
        ))
    })?;
    let max_count = (bytes.len() - COUNT_BYTES) / ENTRY_BYTES;
    let count = usize::try_from(count)
        .ok()
        .filter(|&c| c <= max_count)
        .ok_or_else(|| {
            Error::CorruptContainer(format!(
                "chunk file declares {count} chunks but its {} bytes hold a size table for at \
                 most {max_count}",
                bytes.len()
            ))
        })?;
    let header = COUNT_BYTES + count * ENTRY_BYTES;
    let mut raw_sizes = Vec::with_capacity(count);
    let mut spans = Vec::with_capacity(count);
    let mut at = header;
    for i in 0..count {
        let entry = COUNT_BYTES + i * ENTRY_BYTES;
        let (Some(raw), Some(comp)) = (read_u64(bytes, entry), read_u64(bytes, entry + 8)) else {
            return Err(Error::Truncated(format!(
                "chunk file size table ends inside entry {i}"
            )));
        };
        let raw = usize::try_from(raw)
            .ok()
            .filter(|&r| r <= MAX_RAW_CHUNK_SIZE)
            .ok_or_else(|| {
                Error::CorruptContainer(format!(
                    "chunk {i} declares {raw} uncompressed bytes, more than the \
                     {MAX_RAW_CHUNK_SIZE}-byte limit"
                ))
            })?;
        let end = usize::try_from(comp)
            .ok()
            .and_then(|c| at.checked_add(c))
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                Error::Truncated(format!(
                    "chunk {i} declares {comp} compressed bytes from offset {at}, past the end of \
                     the {}-byte file",
                    bytes.len()
                ))
            })?;
        raw_sizes.push(raw);
        spans.push(at..end);
        at = end;
    }
    if at != bytes.len() {
        return Err(Error::CorruptContainer(format!(
            "chunk file streams end at byte {at} but the file has {} bytes",
            bytes.len()
        )));
    }
    Ok((raw_sizes, spans))
}

fn read_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// True when `bytes` is a well-formed chunk file: a size table whose sizes add up exactly to
/// the file's length (how the benchmark tells a chunk file from any other input).
pub fn is_chunk_file(bytes: &[u8]) -> bool {
    layout(bytes).is_ok()
}

impl ChunkFile {
    /// Reads a chunk file image. Rejects, with `Error::Truncated` or
    /// `Error::CorruptContainer`: a file shorter than its count or size table, a stream that
    /// reaches past the end, bytes left over after the last stream, and a chunk declaring more
    /// than [`MAX_RAW_CHUNK_SIZE`] uncompressed bytes. The streams themselves are not decoded.
    pub fn parse(bytes: Vec<u8>) -> Result<ChunkFile> {
        let (raw_sizes, spans) = layout(&bytes)?;
        Ok(ChunkFile {
            bytes,
            raw_sizes,
            spans,
        })
    }

    /// Reads the chunk file at `path`.
    pub fn read(path: &std::path::Path) -> Result<ChunkFile> {
        ChunkFile::parse(std::fs::read(path)?)
    }

    /// A chunk file of `streams[i]`, which inflates to `raw_sizes[i]` bytes.
    pub fn from_streams(raw_sizes: &[usize], streams: &[&[u8]]) -> Result<ChunkFile> {
        if raw_sizes.len() != streams.len() {
            return Err(Error::InvalidArgument(format!(
                "{} chunk sizes but {} streams",
                raw_sizes.len(),
                streams.len()
            )));
        }
        if let Some(i) = raw_sizes.iter().position(|&r| r > MAX_RAW_CHUNK_SIZE) {
            return Err(Error::InvalidArgument(format!(
                "chunk {i} of {} bytes is larger than the {MAX_RAW_CHUNK_SIZE}-byte limit",
                raw_sizes[i]
            )));
        }
        let header = COUNT_BYTES + streams.len() * ENTRY_BYTES;
        let total = header + streams.iter().map(|s| s.len()).sum::<usize>();
        let mut bytes = Vec::with_capacity(total);
        bytes.extend_from_slice(&(streams.len() as u64).to_le_bytes());
        for (&raw, s) in raw_sizes.iter().zip(streams) {
            bytes.extend_from_slice(&(raw as u64).to_le_bytes());
            bytes.extend_from_slice(&(s.len() as u64).to_le_bytes());
        }
        let mut spans = Vec::with_capacity(streams.len());
        for s in streams {
            spans.push(bytes.len()..bytes.len() + s.len());
            bytes.extend_from_slice(s);
        }
        Ok(ChunkFile {
            bytes,
            raw_sizes: raw_sizes.to_vec(),
            spans,
        })
    }

    /// Cuts `data` into chunks of `chunk_size` bytes (the last one shorter) and compresses each
    /// into a raw-deflate stream with libdeflate at `level` (0 to 12), chunks in parallel.
    pub fn compress(data: &[u8], chunk_size: usize, level: i32) -> Result<ChunkFile> {
        if chunk_size == 0 || chunk_size > MAX_RAW_CHUNK_SIZE {
            return Err(Error::InvalidArgument(format!(
                "chunk size {chunk_size} is not between 1 and {MAX_RAW_CHUNK_SIZE} bytes"
            )));
        }
        let lvl = compression_level(level)?;
        let streams: Vec<Vec<u8>> = data
            .par_chunks(chunk_size)
            .map_init(|| Compressor::new(lvl), deflate_chunk)
            .collect::<Result<_>>()?;
        let raw_sizes: Vec<usize> = data.chunks(chunk_size).map(<[u8]>::len).collect();
        let refs: Vec<&[u8]> = streams.iter().map(Vec::as_slice).collect();
        ChunkFile::from_streams(&raw_sizes, &refs)
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.raw_sizes.len()
    }

    /// True when the file holds no chunk.
    pub fn is_empty(&self) -> bool {
        self.raw_sizes.is_empty()
    }

    /// Each chunk's declared uncompressed size.
    pub fn raw_sizes(&self) -> &[usize] {
        &self.raw_sizes
    }

    /// Sum of the declared uncompressed sizes.
    pub fn raw_len(&self) -> usize {
        self.raw_sizes.iter().sum()
    }

    /// Sum of the stream sizes (the file without its size table).
    pub fn compressed_len(&self) -> usize {
        self.spans.iter().map(|s| s.len()).sum()
    }

    /// Chunk `i`'s raw-deflate stream, or `None` past the last chunk.
    pub fn stream(&self, i: usize) -> Option<&[u8]> {
        self.spans.get(i).and_then(|s| self.bytes.get(s.clone()))
    }

    /// Every chunk's raw-deflate stream, in order.
    pub fn streams(&self) -> Vec<&[u8]> {
        (0..self.len()).filter_map(|i| self.stream(i)).collect()
    }

    /// The file image, exactly as [`ChunkFile::parse`] reads it.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// libdeflate's level `level`, or `InvalidArgument` outside 0..=12.
pub fn compression_level(level: i32) -> Result<CompressionLvl> {
    CompressionLvl::new(level).map_err(|_| {
        Error::InvalidArgument(format!(
            "deflate level {level} is not one of libdeflate's levels 0 to 12"
        ))
    })
}

/// One raw-deflate stream of `chunk` made by `compressor`.
pub fn deflate_chunk(compressor: &mut Compressor, chunk: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; compressor.deflate_compress_bound(chunk.len())];
    let n = compressor.deflate_compress(chunk, &mut out).map_err(|e| {
        Error::InvalidArgument(format!("libdeflate could not compress a chunk: {e}"))
    })?;
    out.truncate(n);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use libdeflater::Decompressor;

    fn sample(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3] % 7 + b'a')
            .collect()
    }

    #[test]
    fn compressed_file_round_trips_through_parse_and_libdeflate() {
        let data = sample(300_000);
        let file = ChunkFile::compress(&data, 64 << 10, 9).unwrap();
        assert_eq!(file.len(), 5);
        assert_eq!(file.raw_len(), data.len());
        assert_eq!(file.raw_sizes()[4], 300_000 - 4 * 65_536);
        assert!(is_chunk_file(file.as_bytes()));
        let parsed = ChunkFile::parse(file.as_bytes().to_vec()).unwrap();
        assert_eq!(parsed, file);
        assert_eq!(
            parsed.as_bytes().len(),
            8 + 16 * 5 + parsed.compressed_len()
        );
        let mut d = Decompressor::new();
        let mut restored = Vec::new();
        for (s, &raw) in parsed.streams().iter().zip(parsed.raw_sizes()) {
            let mut out = vec![0u8; raw];
            assert_eq!(d.deflate_decompress(s, &mut out).unwrap(), raw);
            restored.extend_from_slice(&out);
        }
        assert_eq!(restored, data);
        assert!(parsed.stream(5).is_none());
    }

    #[test]
    fn layout_is_the_anchors_format_byte_for_byte() {
        let file = ChunkFile::from_streams(&[3, 0], &[b"abc", b"\x03\x00"]).unwrap();
        let mut want = Vec::new();
        for v in [2u64, 3, 3, 0, 2] {
            want.extend_from_slice(&v.to_le_bytes());
        }
        want.extend_from_slice(b"abc\x03\x00");
        assert_eq!(file.as_bytes(), &want[..]);
        assert_eq!(ChunkFile::parse(want).unwrap(), file);
    }

    #[test]
    fn empty_file_of_zero_chunks_parses() {
        let file = ChunkFile::parse(0u64.to_le_bytes().to_vec()).unwrap();
        assert!(file.is_empty());
        assert_eq!(ChunkFile::compress(&[], 1024, 6).unwrap(), file);
    }

    #[test]
    fn truncated_and_corrupt_files_are_rejected() {
        let good = ChunkFile::compress(&sample(50_000), 16 << 10, 6).unwrap();
        let bytes = good.as_bytes().to_vec();
        // Every truncation, and one byte too many.
        for n in 0..bytes.len() {
            assert!(ChunkFile::parse(bytes[..n].to_vec()).is_err(), "cut at {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(ChunkFile::parse(longer).is_err());
        // A count that needs more table than the file holds, including one that overflows.
        for count in [5u64, 1 << 40, u64::MAX] {
            let mut b = bytes.clone();
            b[..8].copy_from_slice(&count.to_le_bytes());
            assert!(ChunkFile::parse(b).is_err(), "count {count}");
        }
        // A compressed size that reaches past the end, or wraps.
        for comp in [u64::MAX, u64::MAX - 7, bytes.len() as u64] {
            let mut b = bytes.clone();
            b[16..24].copy_from_slice(&comp.to_le_bytes());
            assert!(ChunkFile::parse(b).is_err(), "compressed size {comp}");
        }
        // A raw size over the cap.
        let mut b = bytes.clone();
        b[8..16].copy_from_slice(&((MAX_RAW_CHUNK_SIZE as u64) + 1).to_le_bytes());
        assert!(matches!(
            ChunkFile::parse(b),
            Err(Error::CorruptContainer(_))
        ));
        // Sizes that add up to less than the file.
        let mut b = bytes.clone();
        let first = u64::from_le_bytes(b[16..24].try_into().unwrap());
        b[16..24].copy_from_slice(&(first - 1).to_le_bytes());
        assert!(!is_chunk_file(&b));
    }

    #[test]
    fn plain_files_are_not_chunk_files() {
        assert!(!is_chunk_file(b""));
        assert!(!is_chunk_file(&sample(100_000)));
        assert!(!is_chunk_file(&[0xff; 64]));
    }

    #[test]
    fn bad_arguments_are_errors() {
        assert!(ChunkFile::compress(b"abc", 0, 6).is_err());
        assert!(ChunkFile::compress(b"abc", MAX_RAW_CHUNK_SIZE + 1, 6).is_err());
        assert!(ChunkFile::compress(b"abc", 2, 13).is_err());
        assert!(ChunkFile::compress(b"abc", 2, -1).is_err());
        assert!(ChunkFile::from_streams(&[1], &[]).is_err());
        assert!(ChunkFile::from_streams(&[MAX_RAW_CHUNK_SIZE + 1], &[b"x"]).is_err());
    }
}
