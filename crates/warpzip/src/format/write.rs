//! Writing a `.wz` file. The writer checks its input by the reader's rules, so that it can never
//! produce a file the reader rejects; chunk checksums are computed in parallel.

use super::header::{header_len, Framing, Header};
use super::table::{check_uncompressed_len, ChunkEntry, ChunkSpan};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::io::Write;
use xxhash_rust::xxh3::xxh3_64;

/// Writes a container whose chunks lie in `payload` at `chunks` (in chunk order; the spans may
/// leave gaps or be out of order in `payload`, on disk they are contiguous). Returns the number
/// of bytes written. A header or span that breaks a format rule is `Error::InvalidArgument`,
/// and nothing is written.
pub fn write_container<W: Write + ?Sized>(
    w: &mut W,
    header: &Header,
    payload: &[u8],
    chunks: &[ChunkSpan],
) -> Result<u64> {
    write_frame(w, header, Framing::SINGLE, payload, chunks)
}

/// Writes one container as `framing` says: a version-1 container (what [`write_container`]
/// writes) or a frame of a version-2 stream, which differs only in its version and flags.
pub fn write_frame<W: Write + ?Sized>(
    w: &mut W,
    header: &Header,
    framing: Framing,
    payload: &[u8],
    chunks: &[ChunkSpan],
) -> Result<u64> {
    let invalid = Error::InvalidArgument;
    let count = header.check(invalid)?;
    if chunks.len() != count as usize {
        return Err(invalid(format!(
            "{} chunk spans given, but {} bytes in chunks of {} make {count}",
            chunks.len(),
            header.total_len,
            header.chunk_size
        )));
    }
    let mut slices = Vec::with_capacity(chunks.len());
    for (index, span) in (0u32..).zip(chunks) {
        check_uncompressed_len(header, index, span.uncompressed_len, invalid)?;
        let end = usize::try_from(span.compressed_len)
            .ok()
            .and_then(|len| span.offset.checked_add(len));
        let bytes = end
            .and_then(|end| payload.get(span.offset..end))
            .ok_or_else(|| {
                invalid(format!(
                    "chunk {index} spans {} bytes at offset {}, past the payload's {} bytes",
                    span.compressed_len,
                    span.offset,
                    payload.len()
                ))
            })?;
        slices.push(bytes);
    }
    let checksums: Vec<u64> = slices.par_iter().map(|s| xxh3_64(s)).collect();

    let head_len = header_len(header, count);
    let mut head = Vec::with_capacity(usize::try_from(head_len).unwrap_or(0));
    header.encode(count, framing, &mut head);
    let mut offset = 0u64;
    for (span, checksum) in chunks.iter().zip(checksums) {
        ChunkEntry {
            offset,
            compressed_len: span.compressed_len,
            uncompressed_len: span.uncompressed_len,
            checksum,
        }
        .encode(&mut head);
        offset = offset
            .checked_add(u64::from(span.compressed_len))
            .ok_or_else(|| invalid("payload exceeds 2^64 bytes".into()))?;
    }
    let header_checksum = xxh3_64(&head);
    head.extend_from_slice(&header_checksum.to_le_bytes());

    w.write_all(&head)?;
    for bytes in slices {
        w.write_all(bytes)?;
    }
    Ok((head.len() as u64).saturating_add(offset))
}
