//! Whole-buffer tile codecs on the CPU: little-endian integers cut into chunks of whole tiles,
//! encoded and decoded in parallel with rayon (over chunks, and over tiles inside a chunk).

use super::cpu::{decode_chunk, encode_chunk};
use super::format::{Kind, Plan};
use crate::error::{Error, Result};
use crate::format::ChunkSpan;
use rayon::prelude::*;

/// Compresses `data`, little-endian values of `kind`, in chunks of `chunk_size` bytes (a
/// positive multiple of the value size; the last chunk may be shorter) into one payload whose
/// chunks lie back to back, in order, as the returned spans say.
pub fn compress(
    data: &[u8],
    kind: Kind,
    plan: Plan,
    chunk_size: usize,
) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    let size = kind.bytes();
    if !data.len().is_multiple_of(size) {
        return Err(Error::InvalidArgument(format!(
            "input of {} bytes is not a whole number of {}-byte values",
            data.len(),
            size
        )));
    }
    if chunk_size == 0
        || !chunk_size.is_multiple_of(size)
        || chunk_size > crate::codec::MAX_CHUNK_SIZE as usize
    {
        return Err(Error::InvalidArgument(format!(
            "chunk size {chunk_size} is not a positive multiple of the value size ({size}) of at \
             most 64 MiB"
        )));
    }
    let encoded: Vec<Vec<u8>> = data
        .par_chunks(chunk_size)
        .map(|chunk| encode_chunk(chunk, kind, plan))
        .collect();
    let total: usize = encoded.iter().map(Vec::len).sum();
    let mut payload = Vec::with_capacity(total);
    let mut spans = Vec::with_capacity(encoded.len());
    for (bytes, chunk) in encoded.iter().zip(data.chunks(chunk_size)) {
        let compressed_len = u32::try_from(bytes.len()).map_err(|_| {
            Error::InvalidArgument("a compressed chunk does not fit a u32 length".into())
        })?;
        spans.push(ChunkSpan {
            offset: payload.len(),
            compressed_len,
            // chunk.len() <= chunk_size, which fits a u32 (checked above).
            uncompressed_len: chunk.len() as u32,
        });
        payload.extend_from_slice(bytes);
    }
    Ok((payload, spans))
}

/// Decodes chunks in parallel into `out`, split in order by the chunks' uncompressed lengths
/// (their sum must be `out.len()`, else `Error::InvalidArgument`). A chunk that does not decode
/// gives `Error::Corrupt` naming the lowest such chunk and the tile in it.
pub fn decompress_into(
    chunks: &[(&[u8], usize)],
    kind: Kind,
    plan: Plan,
    out: &mut [u8],
) -> Result<()> {
    let size = kind.bytes();
    let total = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    let mut jobs: Vec<(usize, &[u8], &mut [u8])> = Vec::with_capacity(chunks.len());
    let mut rest = out;
    for (i, &(input, len)) in chunks.iter().enumerate() {
        if !len.is_multiple_of(size) {
            return Err(Error::Corrupt {
                chunk: i,
                reason: format!("its size {len} is not a whole number of {size}-byte values"),
            });
        }
        let (dst, tail) = rest
            .split_at_mut_checked(len)
            .ok_or_else(|| Error::InvalidArgument("chunk lengths exceed output".into()))?;
        jobs.push((i, input, dst));
        rest = tail;
    }
    let failure = jobs
        .into_par_iter()
        .map(|(i, input, dst)| {
            decode_chunk(input, kind, plan, dst)
                .err()
                .map(|f| (i, f))
        })
        .find_map_first(|failed| failed);
    match failure {
        Some((i, fault)) => Err(fault.into_error(i)),
        None => Ok(()),
    }
}
