//! Parsing a `.wz` file: every header and table rule is checked, and the header checksum
//! verified, before a `Container` exists, so nothing downstream can see an inconsistent table.
//! Chunk checksums are verified on demand (`verify_chunk`, `verify_all`).

use super::header::{decode_header, header_len, Header};
use super::table::{decode_table, ChunkEntry};
use super::HEADER_CHECKSUM_LEN;
use crate::error::{Error, Result};
use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_64;

/// A parsed, validated container borrowing its payload.
#[derive(Debug)]
pub struct Container<'a> {
    pub header: Header,
    pub chunks: Vec<ChunkEntry>,
    pub payload: &'a [u8],
}

impl<'a> Container<'a> {
    /// Parses and validates header and table. The input must be exactly one container:
    /// a short file is `Error::Truncated`, trailing bytes are `Error::CorruptContainer`.
    pub fn parse(bytes: &'a [u8]) -> Result<Container<'a>> {
        let (header, count, mut cur) = decode_header(bytes)?;

        // Before the table is read or allocated: the whole header must be present. This bounds
        // every later allocation by the input's size.
        let head_len = header_len(&header, count);
        if (bytes.len() as u64) < head_len {
            return Err(Error::Truncated(format!(
                "file is {} bytes, but its header and table of {count} chunks need {head_len}",
                bytes.len()
            )));
        }
        let checked_len = usize::try_from(head_len - HEADER_CHECKSUM_LEN as u64)
            .map_err(|_| Error::CorruptContainer("header is too large".into()))?;
        let computed = bytes.get(..checked_len).map(xxh3_64);
        let (table_and_sum, payload) = bytes
            .split_at_checked(checked_len.saturating_add(HEADER_CHECKSUM_LEN))
            .ok_or_else(|| Error::Truncated("file ends inside the header checksum".into()))?;
        let stored = table_and_sum
            .last_chunk::<HEADER_CHECKSUM_LEN>()
            .map(|b| u64::from_le_bytes(*b));
        if computed.is_none() || computed != stored {
            return Err(Error::CorruptContainer(format!(
                "header checksum mismatch: stored {:016x}, computed {:016x}",
                stored.unwrap_or(0),
                computed.unwrap_or(0)
            )));
        }

        let (chunks, payload_len) = decode_table(&header, count, &mut cur)?;
        let actual = payload.len() as u64;
        if actual < payload_len {
            return Err(Error::Truncated(format!(
                "payload is {actual} bytes, but the chunk table needs {payload_len}"
            )));
        }
        if actual > payload_len {
            return Err(Error::CorruptContainer(format!(
                "{} trailing bytes after the last chunk",
                actual - payload_len
            )));
        }
        Ok(Container {
            header,
            chunks,
            payload,
        })
    }

    /// Number of chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The compressed bytes of chunk `index`; empty for an index past the last chunk.
    pub fn chunk_bytes(&self, index: usize) -> &'a [u8] {
        self.try_chunk_bytes(index).unwrap_or(&[])
    }

    fn try_chunk_bytes(&self, index: usize) -> Option<&'a [u8]> {
        let entry = self.chunks.get(index)?;
        let start = usize::try_from(entry.offset).ok()?;
        let end = start.checked_add(usize::try_from(entry.compressed_len).ok()?)?;
        self.payload.get(start..end)
    }

    /// Every chunk's compressed bytes with its uncompressed length, in order: the input every
    /// codec's chunk decoder takes. A chunk outside the payload gets empty bytes, which its
    /// decoder rejects; `verify_all` reports it first.
    pub fn chunk_list(&self) -> Vec<(&'a [u8], usize)> {
        (0..self.chunk_count())
            .zip(&self.chunks)
            .map(|(i, entry)| (self.chunk_bytes(i), entry.uncompressed_len as usize))
            .collect()
    }

    /// Checks chunk `index`'s compressed bytes against the checksum in the table.
    pub fn verify_chunk(&self, index: usize) -> Result<()> {
        let entry = self.chunks.get(index).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "chunk {index} does not exist (the container has {})",
                self.chunks.len()
            ))
        })?;
        let bytes = self.try_chunk_bytes(index).ok_or_else(|| Error::Corrupt {
            chunk: index,
            reason: "chunk lies outside the payload".into(),
        })?;
        let computed = xxh3_64(bytes);
        if computed != entry.checksum {
            return Err(Error::Corrupt {
                chunk: index,
                reason: format!(
                    "checksum mismatch: stored {:016x}, computed {computed:016x}",
                    entry.checksum
                ),
            });
        }
        Ok(())
    }

    /// Checks every chunk's checksum, in parallel; the error names the lowest failing chunk.
    pub fn verify_all(&self) -> Result<()> {
        let first_bad = (0..self.chunks.len())
            .into_par_iter()
            .find_first(|&i| self.verify_chunk(i).is_err());
        match first_bad {
            Some(i) => self.verify_chunk(i),
            None => Ok(()),
        }
    }

    /// Offset of chunk `index`'s first byte in the uncompressed output (the total size for an
    /// index past the last chunk).
    pub fn uncompressed_offset(&self, index: usize) -> u64 {
        (index as u64)
            .saturating_mul(u64::from(self.header.chunk_size))
            .min(self.header.total_len)
    }

    /// Size in bytes of the whole file: header, table, checksum and payload.
    pub fn compressed_len(&self) -> u64 {
        let count = u32::try_from(self.chunks.len()).unwrap_or(u32::MAX);
        header_len(&self.header, count).saturating_add(self.payload.len() as u64)
    }
}
