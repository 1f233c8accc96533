//! Whole-buffer `deflate` for the `.wz` container: chunks compressed in parallel on the CPU
//! with libdeflate (one compressor per rayon task), and decompressed as one batch through
//! [`inflate_batch`](super::batch::inflate_batch), on the CPU or the GPU.

use super::batch::{check_results, inflate_batch};
use super::format::{check_chunk_size, check_level};
use crate::device::Device;
use crate::error::{ChunkStatus, Error, Result};
use crate::format::ChunkSpan;
use libdeflater::{CompressionLvl, Compressor};
use rayon::prelude::*;

/// Compresses `data` in chunks of `chunk_size` bytes (the last may be shorter), each one raw
/// Deflate stream at `level`, into one payload whose chunks lie back to back, in order, as the
/// returned spans say. An incompressible chunk still becomes a Deflate stream (of stored
/// blocks), a few bytes longer than the chunk.
pub fn compress(data: &[u8], level: i32, chunk_size: usize) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    check_level(level)?;
    let size = u32::try_from(chunk_size).map_err(|_| {
        Error::InvalidArgument(format!(
            "deflate chunk size {chunk_size} does not fit a u32"
        ))
    })?;
    check_chunk_size(size)?;
    let lvl = CompressionLvl::new(level)
        .map_err(|_| Error::InvalidArgument(format!("deflate level {level} is out of range")))?;
    let encoded: Vec<Vec<u8>> = data
        .par_chunks(chunk_size)
        .map_init(|| Compressor::new(lvl), compress_chunk)
        .collect::<Result<Vec<Vec<u8>>>>()?;
    let total: usize = encoded.iter().map(Vec::len).sum();
    let mut payload = crate::error::try_with_capacity(total, "the deflate payload")?;
    let mut spans = Vec::with_capacity(encoded.len());
    for (bytes, chunk) in encoded.iter().zip(data.chunks(chunk_size)) {
        spans.push(ChunkSpan {
            offset: payload.len(),
            // A chunk of at most 4 MiB compresses to at most its bound, a few bytes more.
            compressed_len: u32::try_from(bytes.len()).map_err(|_| {
                Error::InvalidArgument("a compressed chunk does not fit a u32 length".into())
            })?,
            // chunk.len() <= chunk_size, which fits a u32 (checked above).
            uncompressed_len: chunk.len() as u32,
        });
        payload.extend_from_slice(bytes);
    }
    Ok((payload, spans))
}

/// One chunk as a raw Deflate stream.
fn compress_chunk(compressor: &mut Compressor, chunk: &[u8]) -> Result<Vec<u8>> {
    let bound = compressor.deflate_compress_bound(chunk.len());
    let mut out = crate::error::try_zeroed(bound, "a compressed deflate chunk")?;
    let len = compressor
        .deflate_compress(chunk, &mut out)
        .map_err(|e| Error::InvalidArgument(format!("libdeflate compression failed: {e}")))?;
    out.truncate(len);
    Ok(out)
}

/// Inflates every chunk (`(compressed bytes, uncompressed length)`) into `out`, split in order
/// by the chunks' uncompressed lengths (their sum must be `out.len()`, else
/// `Error::InvalidArgument`), as one batch on `device`. A chunk that is not exactly one Deflate
/// stream of its recorded length gives `Error::Corrupt` naming the lowest such chunk.
pub fn decompress_into(chunks: &[(&[u8], usize)], out: &mut [u8], device: &Device) -> Result<()> {
    let total = chunks
        .iter()
        .try_fold(0usize, |acc, &(_, len)| acc.checked_add(len));
    if total != Some(out.len()) {
        return Err(Error::InvalidArgument(format!(
            "deflate chunks' uncompressed lengths do not add up to the output length {}",
            out.len()
        )));
    }
    let mut inputs: Vec<&[u8]> = Vec::with_capacity(chunks.len());
    let mut outputs: Vec<&mut [u8]> = Vec::with_capacity(chunks.len());
    let mut expected: Vec<usize> = Vec::with_capacity(chunks.len());
    let mut rest = out;
    for &(input, len) in chunks {
        let (dst, tail) = rest
            .split_at_mut_checked(len)
            .ok_or_else(|| Error::InvalidArgument("deflate chunk lengths exceed output".into()))?;
        inputs.push(input);
        outputs.push(dst);
        expected.push(len);
        rest = tail;
    }
    let mut results = inflate_batch(device, &inputs, &mut outputs)?;
    // A chunk is one stream and nothing else: bytes after its final block are corruption.
    for (r, input) in results.iter_mut().zip(&inputs) {
        if r.status == ChunkStatus::Ok && r.consumed != input.len() {
            r.status = ChunkStatus::Corrupt;
        }
    }
    check_results(&results, &expected, 0)
}
