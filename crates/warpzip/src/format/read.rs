//! Parsing a `.wz` file: every header and table rule is checked, and the header checksum
//! verified, before a `Container` exists, so nothing downstream can see an inconsistent table.
//! Chunk checksums are verified on demand (`verify_chunk`, `verify_all`).

use super::header::{decode_header, header_len, Framing, Header};
use super::table::{decode_table, ChunkEntry};
use super::HEADER_CHECKSUM_LEN;
use super::MAGIC;
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

/// A container's header and table, parsed and validated (every step of `docs/format.md` up to
/// the payload), and where its payload starts.
#[derive(Clone, Debug)]
pub struct Head {
    pub header: Header,
    pub chunks: Vec<ChunkEntry>,
    /// Version 1 (the whole file) or a version-2 frame, and whether another frame follows.
    pub framing: Framing,
    /// Bytes of header, dims, codec params, table and header checksum.
    pub len: u64,
    /// Bytes of payload the table adds up to.
    pub payload_len: u64,
}

impl Head {
    /// Parses and validates the header and table at the start of `bytes` (steps 1 to 15); the
    /// bytes after the header checksum are not looked at. `bytes` shorter than the header and
    /// table is `Error::Truncated`.
    pub fn parse(bytes: &[u8]) -> Result<Head> {
        let (header, count, mut cur, framing) = decode_header(bytes)?;

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
        let stored = bytes
            .get(checked_len..checked_len.saturating_add(HEADER_CHECKSUM_LEN))
            .and_then(|b| b.first_chunk::<HEADER_CHECKSUM_LEN>())
            .map(|b| u64::from_le_bytes(*b));
        if stored.is_none() {
            return Err(Error::Truncated(
                "file ends inside the header checksum".into(),
            ));
        }
        if computed.is_none() || computed != stored {
            return Err(Error::CorruptContainer(format!(
                "header checksum mismatch: stored {:016x}, computed {:016x}",
                stored.unwrap_or(0),
                computed.unwrap_or(0)
            )));
        }
        let (chunks, payload_len) = decode_table(&header, count, &mut cur)?;
        Ok(Head {
            header,
            chunks,
            framing,
            len: head_len,
            payload_len,
        })
    }
}

impl<'a> Container<'a> {
    /// Parses and validates header and table. The input must be exactly one container:
    /// a short file is `Error::Truncated`, trailing bytes are `Error::CorruptContainer`. A
    /// version-2 frame is accepted when it is the last of its stream; a stream of several
    /// frames is read by [`parse_stream`].
    pub fn parse(bytes: &'a [u8]) -> Result<Container<'a>> {
        let (container, rest, more) = Container::parse_prefix(bytes)?;
        if !rest.is_empty() {
            return Err(Error::CorruptContainer(if more {
                format!(
                    "{} bytes of further frames after the last chunk (a stream of several \
                     frames is read by format::parse_stream)",
                    rest.len()
                )
            } else {
                format!("{} trailing bytes after the last chunk", rest.len())
            }));
        }
        if more {
            return Err(Error::Truncated(
                "the file ends after a frame whose header says more frames follow".into(),
            ));
        }
        Ok(container)
    }

    /// Parses the container at the start of `bytes`; returns it, the bytes after its payload
    /// and whether its header says another frame follows.
    fn parse_prefix(bytes: &'a [u8]) -> Result<(Container<'a>, &'a [u8], bool)> {
        let head = Head::parse(bytes)?;
        // `Head::parse` has checked that the header lies in `bytes`.
        let payload = bytes.get(head.len as usize..).unwrap_or(&[]);
        let actual = payload.len() as u64;
        if actual < head.payload_len {
            return Err(Error::Truncated(format!(
                "payload is {actual} bytes, but the chunk table needs {}",
                head.payload_len
            )));
        }
        // `payload_len <= actual`, a usize.
        let (payload, rest) = payload.split_at(head.payload_len as usize);
        Ok((
            Container {
                header: head.header,
                chunks: head.chunks,
                payload,
            },
            rest,
            head.framing.more,
        ))
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

/// Parses a whole `.wz` file into its containers, in order: one for a version-1 file, one per
/// frame for a version-2 stream. Streams may be concatenated (`cat a.wz b.wz`): after the last
/// frame of a stream (a version-1 container, or a frame that does not say more follow), bytes
/// that start with the magic are a further stream; any other bytes are trailing garbage
/// (`Error::CorruptContainer`), and a file that ends where a frame says another follows is
/// `Error::Truncated`. Errors in a container after the first name its index and offset.
pub fn parse_stream(bytes: &[u8]) -> Result<Vec<Container<'_>>> {
    let mut frames = Vec::new();
    let mut rest = bytes;
    loop {
        let at = bytes.len() - rest.len();
        let index = frames.len();
        let (container, after, more) =
            Container::parse_prefix(rest).map_err(|e| in_frame(e, index, at as u64))?;
        frames.push(container);
        rest = after;
        if rest.is_empty() {
            if more {
                return Err(Error::Truncated(format!(
                    "the file ends after frame {index}, whose header says more frames follow"
                )));
            }
            return Ok(frames);
        }
        if !more && !rest.starts_with(&MAGIC) {
            return Err(Error::CorruptContainer(format!(
                "{} trailing bytes after the last chunk",
                rest.len()
            )));
        }
    }
}

/// Names frame `index` (at byte `at`) in an error from a container after the first.
pub(crate) fn in_frame(e: Error, index: usize, at: u64) -> Error {
    if index == 0 {
        return e;
    }
    let place = |m: String| format!("frame {index} (at byte {at}): {m}");
    match e {
        Error::CorruptContainer(m) => Error::CorruptContainer(place(m)),
        Error::Truncated(m) => Error::Truncated(place(m)),
        Error::Unsupported(m) => Error::Unsupported(place(m)),
        other => other,
    }
}
