//! Whole-buffer `rle` on the CPU: cut into chunks, encode or decode the chunks in parallel with
//! rayon. The payload and spans it produces are what the container writer stores, and are
//! byte-identical to the GPU encoder's.

use super::cpu::{decode_chunk, encode_chunk_into};
use super::format::{max_compressed_len, SEGMENT_SIZE};
use crate::error::{Error, Result};
use crate::format::ChunkSpan;
use rayon::prelude::*;

/// Compresses `data` in chunks of `chunk_size` bytes (the last may be shorter) into one payload
/// whose chunks lie back to back, in order, as the returned spans say.
///
/// `chunk_size` must be a positive multiple of `SEGMENT_SIZE` whose worst-case encoding fits a
/// u32, else `Error::InvalidArgument`.
pub fn compress(data: &[u8], chunk_size: usize) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    if chunk_size == 0 || !chunk_size.is_multiple_of(SEGMENT_SIZE) {
        return Err(Error::InvalidArgument(format!(
            "rle chunk size {chunk_size} is not a positive multiple of {SEGMENT_SIZE}"
        )));
    }
    let slot = max_compressed_len(chunk_size);
    if u32::try_from(slot).is_err() {
        return Err(Error::InvalidArgument(format!(
            "rle chunk size {chunk_size} is too large for a u32 chunk table"
        )));
    }
    let chunk_count = data.len().div_ceil(chunk_size);
    let capacity = chunk_count
        .checked_mul(slot)
        .ok_or_else(|| Error::InvalidArgument("input too large".into()))?;
    // Every chunk encodes into its own worst-case slot, in parallel; then the slots are packed
    // to the front in order, one memmove of compressed bytes.
    let mut payload = crate::error::try_zeroed(capacity, "the rle payload")?;
    let lens: Vec<usize> = payload
        .par_chunks_mut(slot)
        .zip(data.par_chunks(chunk_size))
        .map(|(dst, chunk)| encode_chunk_into(chunk, dst))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| Error::InvalidArgument("rle chunk does not fit its slot".into()))?;
    let mut spans = Vec::with_capacity(chunk_count);
    let mut end = 0usize;
    for (i, (&len, chunk)) in lens.iter().zip(data.chunks(chunk_size)).enumerate() {
        let from = i * slot;
        payload.copy_within(from..from + len, end);
        spans.push(ChunkSpan {
            offset: end,
            // Both fit: len <= slot fits a u32, and chunk.len() <= chunk_size < slot.
            compressed_len: len as u32,
            uncompressed_len: chunk.len() as u32,
        });
        end += len;
    }
    payload.truncate(end);
    Ok((payload, spans))
}

/// Decodes chunks in parallel into `out`, which is split in order by the chunks' uncompressed
/// lengths (their sum must be `out.len()`, else `Error::InvalidArgument`). A chunk that does
/// not decode gives `Error::Corrupt` naming the lowest such chunk index.
pub fn decompress_into(chunks: &[(&[u8], usize)], out: &mut [u8]) -> Result<()> {
    let total = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "rle chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    let mut jobs: Vec<(usize, &[u8], &mut [u8])> = Vec::with_capacity(chunks.len());
    let mut rest = out;
    for (i, &(input, len)) in chunks.iter().enumerate() {
        let (dst, tail) = rest
            .split_at_mut_checked(len)
            .ok_or_else(|| Error::InvalidArgument("rle chunk lengths exceed output".into()))?;
        jobs.push((i, input, dst));
        rest = tail;
    }
    let failure = jobs
        .into_par_iter()
        .map(|(i, input, dst)| decode_chunk(input, dst).err().map(|status| (i, status)))
        .find_map_first(|failed| failed);
    match failure {
        Some((i, status)) => Err(Error::chunk(i, status)),
        None => Ok(()),
    }
}
