//! Whole ORC streams on the GPU, for the type-tree decoder (`column_tree`) run on a device: a
//! compressed stream's chunks decompressed (ZLIB, SNAPPY and LZ4, through the batch of
//! `inflate`), and an integer, byte or Boolean run-length stream decoded by the RLE kernels (one
//! warp a stream, which must hold exactly the values asked for, as the CPU decoders demand).

use super::super::file::compression::{parse_chunk_header, Compression};
use super::super::place::Place;
pub use super::inflate::decompresses;
use super::inflate::{inflate_pieces, Piece};
use crate::codec::orc_rle::format::RleVersion;
use crate::codec::orc_rle::gpu::{DecodeBatch, OrcRleChunk, Parallelism, StreamCodec};
use crate::codec::orc_rle::OrcInt;
use crate::error::{try_with_capacity, ChunkStatus, Error, Result};
use crate::format::ElemType;
use crate::gpu::GpuContext;

/// The decompressed bytes of the stream at `start..start + len` of `file` (ZLIB, SNAPPY or LZ4
/// chunks), its chunks decompressed on the GPU together: the CPU's bytes, or an error at `place`
/// naming the first damaged chunk.
pub fn decompress_stream(
    gpu: &GpuContext,
    file: &[u8],
    start: usize,
    len: usize,
    compression: Compression,
    place: &Place,
) -> Result<Vec<u8>> {
    let corrupt = |at: usize, reason: &str| place.corrupt(format!("chunk at byte {at}: {reason}"));
    let end = start
        .checked_add(len)
        .filter(|&e| e <= file.len())
        .ok_or_else(|| place.corrupt("the stream lies outside the file"))?;
    let block = usize::try_from(compression.block_size)
        .map_err(|_| Error::Unsupported("an ORC compression block over 4 GiB".into()))?;
    let mut pieces = Vec::new();
    let mut pos = start;
    while pos < end {
        let h = file
            .get(pos..pos + 3)
            .filter(|_| pos + 3 <= end)
            .ok_or_else(|| corrupt(pos - start, "a chunk header is cut short"))?;
        let header = parse_chunk_header([h[0], h[1], h[2]]);
        let body = pos + 3;
        if body + header.length > end {
            return Err(corrupt(
                pos - start,
                &format!(
                    "a chunk of {} bytes runs past the stream's end ({len} bytes)",
                    header.length
                ),
            ));
        }
        if header.original && header.length > block {
            return Err(corrupt(
                pos - start,
                "a stored chunk is larger than the compression block size",
            ));
        }
        pieces.push(Piece {
            header: (pos - start) as u64,
            start: body,
            len: header.length,
            original: header.original,
        });
        pos = body + header.length;
    }
    if pieces.is_empty() {
        return Ok(Vec::new());
    }
    let refs: Vec<&Piece> = pieces.iter().collect();
    let (slots, results, placed) = inflate_pieces(gpu, file, compression.kind, &refs, block)?;
    let mut sizes = Vec::with_capacity(pieces.len());
    let mut total = 0usize;
    for (p, &(_, job)) in pieces.iter().zip(&placed) {
        let n = match job {
            None => p.len,
            Some(j) => {
                let r = results
                    .get(j)
                    .ok_or_else(|| Error::Driver("a GPU decompression result is missing".into()))?;
                if r.status != ChunkStatus::Ok || r.consumed != p.len {
                    let status = if r.status == ChunkStatus::Ok {
                        ChunkStatus::Corrupt
                    } else {
                        r.status
                    };
                    return Err(corrupt(
                        p.header as usize,
                        &format!(
                            "a {} chunk does not decompress on the GPU: {}",
                            compression.name(),
                            status.reason()
                        ),
                    ));
                }
                r.written
            }
        };
        sizes.push(n);
        total = total.saturating_add(n);
    }
    let decompressed = gpu.download(&slots.out)?;
    let mut out = try_with_capacity(total, "a decompressed ORC stream")?;
    for ((p, &(_, job)), &n) in pieces.iter().zip(&placed).zip(&sizes) {
        let bytes = match job {
            None => file.get(p.start..p.start + p.len),
            Some(j) => slots
                .out_offsets
                .get(j)
                .and_then(|&at| decompressed.get(at as usize..at as usize + n)),
        };
        let bytes = bytes.ok_or_else(|| Error::Driver("a decompressed chunk lies outside its slots".into()))?;
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// The element type whose RLE kernels decode values of `T`.
fn elem_of<T: OrcInt>() -> Result<ElemType> {
    Ok(match (T::BYTES, T::SIGNED) {
        (1, false) => ElemType::U8,
        (2, false) => ElemType::U16,
        (4, false) => ElemType::U32,
        (8, false) => ElemType::U64,
        (1, true) => ElemType::I8,
        (2, true) => ElemType::I16,
        (4, true) => ElemType::I32,
        (8, true) => ElemType::I64,
        (n, _) => {
            return Err(Error::InvalidArgument(format!(
                "no ORC RLE kernel decodes values of {n} bytes"
            )))
        }
    })
}

/// One exact unit over the whole of `bytes`, for `count` values.
fn whole_stream(bytes: &[u8], count: usize) -> Result<OrcRleChunk> {
    let too_big = || Error::Unsupported("an ORC stream too large for one GPU unit".into());
    Ok(OrcRleChunk {
        in_offset: 0,
        in_len: u32::try_from(bytes.len()).map_err(|_| too_big())?,
        skip: 0,
        out_offset: 0,
        count: u32::try_from(count).map_err(|_| too_big())?,
        exact: 1,
    })
}

/// Decodes the integer RLE (v2 when `v2`, else v1) stream `bytes` into `out` on the GPU: the
/// values, or the status the CPU decoder gives for the stream (a stream the warp refuses is
/// decoded again by a lane, which follows the CPU's checks one for one). `signed` must be the
/// signedness of `T` (the kernels decode zigzag values into signed types).
pub fn stream_ints<T: OrcInt>(
    gpu: &GpuContext,
    bytes: &[u8],
    v2: bool,
    signed: bool,
    out: &mut [T],
) -> Result<std::result::Result<(), ChunkStatus>> {
    if out.is_empty() {
        return Ok(Ok(()));
    }
    if signed != T::SIGNED {
        return Err(Error::InvalidArgument(
            "a GPU ORC stream decodes signed values into signed types only".into(),
        ));
    }
    let elem = elem_of::<T>()?;
    let size = T::BYTES;
    let chunk = whole_stream(bytes, out.len())?;
    let out_len = out
        .len()
        .checked_mul(size)
        .ok_or_else(|| Error::Unsupported("an ORC stream's values overflow memory".into()))?;
    let mut batch = DecodeBatch::new(gpu, bytes, &[chunk], out_len, size)?;
    let codec = StreamCodec::Int(if v2 { RleVersion::V2 } else { RleVersion::V1 });
    batch.launch(gpu, gpu.stream(), codec, elem, Parallelism::WarpPerChunk)?;
    let mut statuses = batch.statuses(gpu)?;
    if statuses.first().is_some_and(|&s| s != 0) {
        batch.launch(gpu, gpu.stream(), codec, elem, Parallelism::LanePerSubBlock)?;
        statuses = batch.statuses(gpu)?;
    }
    let code = statuses.first().copied().unwrap_or(0);
    if code != 0 {
        return Ok(Err(ChunkStatus::from_code(code)));
    }
    let values = batch.output(gpu)?;
    for (v, c) in out.iter_mut().zip(values.chunks_exact(size)) {
        *v = T::from_le_slice(c);
    }
    Ok(Ok(()))
}

/// Decodes the byte RLE stream `bytes` into `out` on the GPU: the bytes, or the failure status.
pub fn stream_bytes(
    gpu: &GpuContext,
    bytes: &[u8],
    out: &mut [u8],
) -> Result<std::result::Result<(), ChunkStatus>> {
    if out.is_empty() {
        return Ok(Ok(()));
    }
    let chunk = whole_stream(bytes, out.len())?;
    let mut batch = DecodeBatch::new(gpu, bytes, &[chunk], out.len(), 1)?;
    batch.launch(
        gpu,
        gpu.stream(),
        StreamCodec::Byte,
        ElemType::U8,
        Parallelism::WarpPerChunk,
    )?;
    let code = batch.statuses(gpu)?.first().copied().unwrap_or(0);
    if code != 0 {
        return Ok(Err(ChunkStatus::from_code(code)));
    }
    out.copy_from_slice(batch.output(gpu)?.get(..out.len()).ok_or_else(|| {
        Error::Driver("the GPU gave fewer bytes than a byte RLE stream holds".into())
    })?);
    Ok(Ok(()))
}

/// Decodes the Boolean RLE stream `bytes` into `out` on the GPU (its packed bytes by the byte
/// RLE kernel, the bits spread here): the flags, or the failure status.
pub fn stream_bools(
    gpu: &GpuContext,
    bytes: &[u8],
    out: &mut [bool],
) -> Result<std::result::Result<(), ChunkStatus>> {
    let mut packed = crate::error::try_zeroed(out.len().div_ceil(8), "an ORC Boolean stream")?;
    if let Err(s) = stream_bytes(gpu, bytes, &mut packed)? {
        return Ok(Err(s));
    }
    for (i, b) in out.iter_mut().enumerate() {
        *b = packed[i / 8] & (0x80 >> (i % 8)) != 0;
    }
    Ok(Ok(()))
}
