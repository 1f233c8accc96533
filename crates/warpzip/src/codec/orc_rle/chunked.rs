//! Whole-buffer `orc-rle-v1` / `orc-rle-v2` on the CPU: raw little-endian integers cut into
//! chunks of whole values, each chunk laid out as `format` says (one ORC integer RLE stream, or
//! an index and one stream per sub-block), encoded or decoded in parallel with rayon.

use super::format::{check_elem, split_indexed, Layout, RleVersion, INDEX_ENTRY};
use super::{decode_int_rle_v1, decode_int_rle_v2, encode_int_rle_v1, encode_int_rle_v2, OrcInt};
use crate::error::{try_with_capacity, ChunkStatus, Error, Result};
use crate::format::{ChunkSpan, ElemType};
use rayon::prelude::*;

/// Evaluates `$body` with `$t` naming the Rust type of the ORC codecs' element type `$elem` (u8
/// to u64, i8 to i64), or `$fallback` (with `$other` bound to the element type) for a type they
/// do not store.
macro_rules! with_orc_type {
    ($elem:expr, $t:ident => $body:expr, $other:pat => $fallback:expr) => {
        match $elem {
            ElemType::U8 => {
                type $t = u8;
                $body
            }
            ElemType::U16 => {
                type $t = u16;
                $body
            }
            ElemType::U32 => {
                type $t = u32;
                $body
            }
            ElemType::U64 => {
                type $t = u64;
                $body
            }
            ElemType::I8 => {
                type $t = i8;
                $body
            }
            ElemType::I16 => {
                type $t = i16;
                $body
            }
            ElemType::I32 => {
                type $t = i32;
                $body
            }
            ElemType::I64 => {
                type $t = i64;
                $body
            }
            $other => $fallback,
        }
    };
}

/// Compresses `data`, little-endian values of type `elem`, in chunks of `chunk_size` bytes (a
/// positive multiple of the element size; the last chunk may be shorter) into one payload whose
/// chunks lie back to back, in order, as the returned spans say.
pub fn compress(
    data: &[u8],
    elem: ElemType,
    version: RleVersion,
    layout: Layout,
    chunk_size: usize,
) -> Result<(Vec<u8>, Vec<ChunkSpan>)> {
    check_elem(elem)?;
    let size = elem.size() as usize;
    if !data.len().is_multiple_of(size) {
        return Err(Error::InvalidArgument(format!(
            "input of {} bytes is not a whole number of {elem} values ({size} bytes each)",
            data.len()
        )));
    }
    if chunk_size == 0 || !chunk_size.is_multiple_of(size) || u32::try_from(chunk_size).is_err() {
        return Err(Error::InvalidArgument(format!(
            "chunk size {chunk_size} is not a positive multiple of the {elem} size ({size})"
        )));
    }
    let encoded: Vec<Vec<u8>> = data
        .par_chunks(chunk_size)
        .map(|chunk| encode_chunk(chunk, elem, version, layout))
        .collect::<Result<Vec<Vec<u8>>>>()?;
    let total: usize = encoded.iter().map(Vec::len).sum();
    let mut payload = crate::error::try_with_capacity(total, "the ORC RLE payload")?;
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
/// (their sum must be `out.len()`, each a multiple of the element size, else
/// `Error::InvalidArgument`). A chunk that does not decode gives `Error::Corrupt` naming the
/// lowest such chunk index.
pub fn decompress_into(
    chunks: &[(&[u8], usize)],
    elem: ElemType,
    version: RleVersion,
    layout: Layout,
    out: &mut [u8],
) -> Result<()> {
    check_elem(elem)?;
    let size = elem.size() as usize;
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
            return Err(Error::chunk(i, ChunkStatus::Corrupt));
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
            decode_chunk(input, elem, version, layout, dst)
                .err()
                .map(|status| (i, status))
        })
        .find_map_first(|failed| failed);
    match failure {
        Some((i, status)) => Err(Error::chunk(i, status)),
        None => Ok(()),
    }
}

/// Encodes one chunk of little-endian `elem` values (a whole number of them) in `layout`.
pub fn encode_chunk(
    chunk: &[u8],
    elem: ElemType,
    version: RleVersion,
    layout: Layout,
) -> Result<Vec<u8>> {
    fn stream<T: OrcInt>(values: &[T], version: RleVersion, out: &mut Vec<u8>) -> Result<()> {
        match version {
            RleVersion::V1 => encode_int_rle_v1(values, T::SIGNED, out),
            RleVersion::V2 => encode_int_rle_v2(values, T::SIGNED, out),
        }
    }
    fn typed<T: OrcInt>(chunk: &[u8], version: RleVersion, layout: Layout) -> Result<Vec<u8>> {
        let mut values: Vec<T> =
            try_with_capacity(chunk.len() / T::BYTES, "an ORC RLE chunk's values")?;
        values.extend(chunk.chunks_exact(T::BYTES).map(T::from_le_slice));
        let room = chunk.len() / 4 + 16;
        match layout {
            Layout::Plain => {
                let mut out = try_with_capacity(room, "an encoded ORC RLE chunk")?;
                stream(&values, version, &mut out)?;
                Ok(out)
            }
            Layout::Indexed { sub_block } => {
                let blocks = values.chunks(sub_block.max(1) as usize);
                let mut index = Vec::with_capacity(blocks.len() * INDEX_ENTRY);
                let mut streams = try_with_capacity(room, "an encoded ORC RLE chunk")?;
                for block in blocks {
                    stream(block, version, &mut streams)?;
                    let end = u32::try_from(streams.len()).map_err(|_| {
                        Error::InvalidArgument(
                            "a compressed chunk does not fit a u32 length".into(),
                        )
                    })?;
                    index.extend_from_slice(&end.to_le_bytes());
                }
                index.extend_from_slice(&streams);
                Ok(index)
            }
        }
    }
    with_orc_type!(elem, T => typed::<T>(chunk, version, layout), other => {
        Err(Error::InvalidArgument(format!(
            "the ORC RLE codecs do not store {other}"
        )))
    })
}

/// Decodes one chunk, laid out as `layout` says, into `dst`: little-endian `elem` values
/// filling it exactly. An indexed chunk's index is checked whole first (`Corrupt`, or
/// `Truncated` when the chunk is shorter than its index); then its sub-blocks are decoded in
/// order, each exactly its values, and the first that fails gives the chunk's status.
pub fn decode_chunk(
    input: &[u8],
    elem: ElemType,
    version: RleVersion,
    layout: Layout,
    dst: &mut [u8],
) -> Result<(), ChunkStatus> {
    let size = elem.size() as usize;
    match layout {
        Layout::Plain => decode_stream(input, elem, version, dst),
        Layout::Indexed { sub_block } => {
            let (ends, streams) = split_indexed(input, dst.len() / size.max(1), sub_block)?;
            let mut start = 0usize;
            for (&end, block) in ends.iter().zip(dst.chunks_mut(sub_block as usize * size)) {
                // split_indexed checked that the ends only grow and the last is streams.len().
                let end = end as usize;
                decode_stream(&streams[start..end], elem, version, block)?;
                start = end;
            }
            Ok(())
        }
    }
}

/// Decodes one ORC stream into `dst`, little-endian `elem` values filling it exactly.
pub fn decode_stream(
    input: &[u8],
    elem: ElemType,
    version: RleVersion,
    dst: &mut [u8],
) -> Result<(), ChunkStatus> {
    with_orc_type!(elem, T => typed::<T>(input, version, dst), _ => Err(ChunkStatus::Corrupt))
}

/// Decodes `dst.len() / T::BYTES` values into `dst`. Only called with the primitive integer
/// types above, whose every bit pattern is a value.
fn typed<T: OrcInt>(input: &[u8], version: RleVersion, dst: &mut [u8]) -> Result<(), ChunkStatus> {
    let decode = |values: &mut [T]| match version {
        RleVersion::V1 => decode_int_rle_v1(input, T::SIGNED, values),
        RleVersion::V2 => decode_int_rle_v2(input, T::SIGNED, values),
    };
    // On a little-endian machine an aligned buffer of whole values already is a `[T]`: decode
    // straight into it.
    #[cfg(target_endian = "little")]
    {
        // SAFETY: `T` is one of the primitive integers of `decode_chunk`, for which every byte
        // pattern is a valid value; `align_to_mut` only hands out an aligned, in-bounds middle.
        let (head, values, tail) = unsafe { dst.align_to_mut::<T>() };
        if head.is_empty() && tail.is_empty() {
            return decode(values);
        }
    }
    // Only for a misaligned `dst`, whose caller already holds as many bytes.
    let mut values = vec![T::default(); dst.len() / T::BYTES];
    decode(&mut values)?;
    for (d, v) in dst.chunks_exact_mut(T::BYTES).zip(values) {
        v.write_le(d);
    }
    Ok(())
}
