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
use crate::gpu::batch::padded as padded_bytes;
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};

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
        let bytes = bytes
            .ok_or_else(|| Error::Driver("a decompressed chunk lies outside its slots".into()))?;
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

/// Threads per block of the type-tree kernels that take a thread (or a warp) a value.
const TREE_THREADS: u32 = 256;

/// A grid of `TREE_THREADS`-thread blocks over `n` values (`per_block` of them a block; the
/// kernels stride over the rest).
fn tree_grid(gpu: &GpuContext, n: usize, per_block: usize) -> LaunchConfig {
    let blocks = n.div_ceil(per_block.max(1)).max(1) as u64;
    LaunchConfig {
        grid_dim: (blocks.min(u64::from(gpu.sm_count()) * 16) as u32, 1, 1),
        block_dim: (TREE_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The first `n` base-128 varints of a decimal column's DATA stream, zigzag decoded into their
/// unscaled values on the GPU (`orc_decimal_varints`: a warp walks the stream, the lane holding
/// a value's last byte decodes it): the values, or the first that fails and why.
pub fn decimal_varints(
    gpu: &GpuContext,
    data: &[u8],
    n: usize,
) -> Result<std::result::Result<Vec<i128>, (usize, &'static str)>> {
    if n == 0 {
        return Ok(Ok(Vec::new()));
    }
    let input = gpu.upload_for(&padded_bytes(data, 0, 128)?, "a decimal stream")?;
    let mut out = gpu.alloc_zeros_for::<u64>(n.saturating_mul(2), "a decimal column's values")?;
    let mut status = gpu.alloc_zeros_for::<u64>(2, "a decimal stream's status")?;
    let function = gpu.function(&kernels::ORC_TREE, kernels::entry::ORC_DECIMAL_VARINTS)?;
    let (in_len, count) = (data.len() as u64, n as u64);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = gpu.stream().launch_builder(&function);
    launch
        .arg(&input)
        .arg(&in_len)
        .arg(&count)
        .arg(&mut out)
        .arg(&mut status);
    // SAFETY: the arguments match `orc_decimal_varints` (input, its length, values wanted,
    // output, status). The input holds `in_len` bytes (padded past them), the kernel reads only
    // bytes below `in_len` and writes words 2k and 2k + 1 of values k < n, inside `out`'s 2n
    // words, and two status words.
    unsafe { launch.launch(cfg) }?;
    let status = gpu.download(&status)?;
    match status.first().copied().unwrap_or(0) {
        0 => {}
        code => {
            let k = status.get(1).copied().unwrap_or(0) as usize;
            let reason = if code == 1 {
                "the stream ends inside a value"
            } else {
                "a value of more than 128 bits"
            };
            return Ok(Err((k, reason)));
        }
    }
    let words = gpu.download(&out)?;
    Ok(Ok(words
        .chunks_exact(2)
        .take(n)
        .map(|w| (u128::from(w[0]) | (u128::from(w[1]) << 64)) as i128)
        .collect()))
}

/// Timestamps from their seconds (from ORC's epoch) and SECONDARY words on the GPU
/// (`orc_timestamps`, a thread a value): nanoseconds since 1970, or the first value that leaves
/// their range.
pub fn timestamps(
    gpu: &GpuContext,
    seconds: &[i64],
    nanos: &[u64],
) -> Result<std::result::Result<Vec<i64>, usize>> {
    let n = seconds.len().min(nanos.len());
    if n == 0 {
        return Ok(Ok(Vec::new()));
    }
    let d_seconds = gpu.upload_for(&seconds[..n], "a timestamp column's seconds")?;
    let d_nanos = gpu.upload_for(&nanos[..n], "a timestamp column's nanoseconds")?;
    let mut out = gpu.alloc_zeros_for::<i64>(n, "a timestamp column's values")?;
    let mut fail = gpu.upload_for(&[u64::MAX], "a timestamp column's status")?;
    let function = gpu.function(&kernels::ORC_TREE, kernels::entry::ORC_TIMESTAMPS)?;
    let count = n as u64;
    let mut launch = gpu.stream().launch_builder(&function);
    launch
        .arg(&d_seconds)
        .arg(&d_nanos)
        .arg(&count)
        .arg(&mut out)
        .arg(&mut fail);
    // SAFETY: the arguments match `orc_timestamps` (seconds, nanoseconds, count, output, the
    // first failure); each array holds `n` values and the kernel touches values k < n only.
    unsafe { launch.launch(tree_grid(gpu, n, TREE_THREADS as usize)) }?;
    let fail = gpu.download(&fail)?.first().copied().unwrap_or(u64::MAX);
    if fail < count {
        return Ok(Err(fail as usize));
    }
    Ok(Ok(gpu.download(&out)?))
}

/// Exclusive sums of `lengths` by the GPU scan (`ops::scan`), and their total.
pub fn offsets_of(gpu: &GpuContext, lengths: &[u64]) -> Result<(Vec<u64>, u64)> {
    if lengths.is_empty() {
        return Ok((Vec::new(), 0));
    }
    crate::ops::scan::exclusive_scan_gpu(gpu, lengths)
}

/// A dictionary column's strings as the GPU gives them.
#[derive(Debug, Default)]
pub struct DictStrings {
    /// Where each value starts in `bytes`.
    pub offsets: Vec<u64>,
    /// The values' bytes in all.
    pub total: u64,
    /// The values' bytes, back to back (empty when `total` is over the caller's limit).
    pub bytes: Vec<u8>,
}

/// The strings of a dictionary column on the GPU: each value's entry length
/// (`orc_dict_lengths`), their offsets by the GPU scan, and the entries' bytes gathered a warp a
/// value (`orc_dict_gather`) when they total at most `limit` bytes. `starts` holds the
/// dictionary's `size + 1` entry boundaries inside `dict`. Gives the offsets (one a value) and
/// their total with the bytes, or the position of the first index past the dictionary; a total
/// over `limit` comes back with no bytes.
pub fn dictionary_strings(
    gpu: &GpuContext,
    dict: &[u8],
    starts: &[u64],
    indices: &[u64],
    limit: u64,
) -> Result<std::result::Result<DictStrings, usize>> {
    let n = indices.len();
    if n == 0 {
        return Ok(Ok(DictStrings::default()));
    }
    let size = starts.len().saturating_sub(1) as u64;
    if starts.last().is_none_or(|&end| end > dict.len() as u64) {
        return Err(Error::InvalidArgument(
            "dictionary boundaries outside its bytes".into(),
        ));
    }
    let d_indices = gpu.upload_for(indices, "a dictionary column's indices")?;
    let d_starts = gpu.upload_for(starts, "a dictionary's entry boundaries")?;
    let mut lengths = gpu.alloc_zeros_for::<u64>(n, "a dictionary column's lengths")?;
    let mut fail = gpu.upload_for(&[u64::MAX], "a dictionary column's status")?;
    let count = n as u64;
    let function = gpu.function(&kernels::ORC_TREE, kernels::entry::ORC_DICT_LENGTHS)?;
    let mut launch = gpu.stream().launch_builder(&function);
    launch
        .arg(&d_indices)
        .arg(&count)
        .arg(&d_starts)
        .arg(&size)
        .arg(&mut lengths)
        .arg(&mut fail);
    // SAFETY: the arguments match `orc_dict_lengths` (indices, count, boundaries, entries,
    // lengths, the first failure); `starts` holds `size + 1` boundaries, the kernel reads
    // boundaries i and i + 1 only for an index i < size and writes lengths k < n.
    unsafe { launch.launch(tree_grid(gpu, n, TREE_THREADS as usize)) }?;
    let fail = gpu.download(&fail)?.first().copied().unwrap_or(u64::MAX);
    if fail < count {
        return Ok(Err(fail as usize));
    }
    let mut offsets = gpu.alloc_zeros_for::<u64>(n, "a dictionary column's offsets")?;
    let mut scan = crate::ops::scan::GpuScan::<u64>::new(gpu, count)?;
    scan.run(gpu, &lengths, &mut offsets, count)?;
    let total = scan.total(gpu)?;
    let mut host_offsets = gpu.download(&offsets)?;
    host_offsets.truncate(n);
    if total > limit {
        return Ok(Ok(DictStrings {
            offsets: host_offsets,
            total,
            bytes: Vec::new(),
        }));
    }
    let total_len =
        usize::try_from(total).map_err(|_| Error::Unsupported("strings too long".into()))?;
    let d_dict = gpu.upload_for(&padded_bytes(dict, 0, 128)?, "a dictionary's bytes")?;
    let mut out = gpu.alloc_zeros_for::<u8>(total_len.max(1), "a dictionary column's bytes")?;
    let function = gpu.function(&kernels::ORC_TREE, kernels::entry::ORC_DICT_GATHER)?;
    let mut launch = gpu.stream().launch_builder(&function);
    launch
        .arg(&d_dict)
        .arg(&d_starts)
        .arg(&d_indices)
        .arg(&offsets)
        .arg(&count)
        .arg(&mut out);
    // SAFETY: the arguments match `orc_dict_gather` (dictionary bytes, boundaries, indices,
    // offsets, count, output). Every index is below `size` (`orc_dict_lengths` found none that
    // is not), its entry lies inside the dictionary's bytes (the boundaries end inside them,
    // checked above, and grow: the caller built them by adding lengths), and value k's bytes go
    // to offsets[k]..offsets[k] + its length, inside the `total` bytes of `out`.
    unsafe { launch.launch(tree_grid(gpu, n, (TREE_THREADS / 32) as usize)) }?;
    let mut bytes = gpu.download(&out)?;
    bytes.truncate(total_len);
    Ok(Ok(DictStrings {
        offsets: host_offsets,
        total,
        bytes,
    }))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// `orc_decimal_varints` step for step on the host: 32 bytes a window, the values' ends by a
    /// ballot of bytes without a continuation bit, each value decoded by the lane of its last
    /// byte from the byte after the previous end.
    fn warp_varints(input: &[u8], n: usize) -> std::result::Result<Vec<i128>, (usize, u32)> {
        let mut out = vec![0i128; n];
        let (mut count, mut start, mut base) = (0usize, 0usize, 0usize);
        while base < input.len() && count < n {
            let mut ends = 0u32;
            for lane in 0..32 {
                if input.get(base + lane).is_some_and(|&b| b & 0x80 == 0) {
                    ends |= 1 << lane;
                }
            }
            let mut bad = 0u32;
            for lane in 0..32u32 {
                if ends & (1 << lane) == 0 {
                    continue;
                }
                let below = ends & ((1u32 << lane) - 1);
                let k = count + below.count_ones() as usize;
                if k >= n {
                    continue;
                }
                let p = base + lane as usize;
                let s = if below != 0 {
                    base + (31 - below.leading_zeros() as usize) + 1
                } else {
                    start
                };
                let len = p - s + 1;
                if len > 19 || (len == 19 && input[p] & 0x7c != 0) {
                    bad |= 1 << lane;
                    continue;
                }
                let (mut lo, mut hi) = (0u64, 0u64);
                for i in 0..len {
                    let bits = u64::from(input[s + i] & 0x7f);
                    let shift = 7 * i as u32;
                    if shift < 64 {
                        lo |= bits << shift;
                        if shift > 57 {
                            hi |= bits >> (64 - shift);
                        }
                    } else {
                        hi |= bits << (shift - 64);
                    }
                }
                let neg = 0u64.wrapping_sub(lo & 1);
                let (zlo, zhi) = (((lo >> 1) | (hi << 63)) ^ neg, (hi >> 1) ^ neg);
                out[k] = (u128::from(zlo) | (u128::from(zhi) << 64)) as i128;
            }
            if bad != 0 {
                let first = bad.trailing_zeros();
                return Err((
                    count + (ends & ((1u32 << first) - 1)).count_ones() as usize,
                    2,
                ));
            }
            count += ends.count_ones() as usize;
            if ends != 0 {
                start = base + (31 - ends.leading_zeros() as usize) + 1;
            }
            base += 32;
        }
        if count < n {
            return Err((count, 1));
        }
        Ok(out)
    }

    /// The CPU decoder's reading of the same stream (`column_tree::read_varint128`'s rules).
    fn cpu_varints(input: &[u8], n: usize) -> std::result::Result<Vec<i128>, usize> {
        let mut out = Vec::new();
        let mut pos = 0usize;
        for k in 0..n {
            let (mut value, mut shift) = (0u128, 0u32);
            loop {
                let Some(&byte) = input.get(pos) else {
                    return Err(k);
                };
                pos += 1;
                if shift >= 128 || (shift == 126 && byte & 0x7c != 0) {
                    return Err(k);
                }
                value |= u128::from(byte & 0x7f) << shift;
                if byte & 0x80 == 0 {
                    break;
                }
                shift += 7;
            }
            out.push(((value >> 1) as i128) ^ -((value & 1) as i128));
        }
        Ok(out)
    }

    fn zigzag_varint(v: i128, out: &mut Vec<u8>) {
        let mut z = ((v << 1) ^ (v >> 127)) as u128;
        while z >= 0x80 {
            out.push((z as u8) | 0x80);
            z >>= 7;
        }
        out.push(z as u8);
    }

    #[test]
    fn the_varint_warp_walk_reads_what_the_cpu_reads() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for trial in 0..400 {
            let count = (next() % 200) as usize;
            let mut stream = Vec::new();
            for _ in 0..count {
                let bits = next() % 128;
                let v = ((u128::from(next()) << 64 | u128::from(next())) >> (127 - bits)) as i128;
                let v = if next() & 1 == 0 { v } else { v.wrapping_neg() };
                zigzag_varint(v, &mut stream);
            }
            // Damage some: flipped bits, a cut end, runs of continuation bytes.
            match trial % 4 {
                1 if !stream.is_empty() => {
                    let i = (next() as usize) % stream.len();
                    stream[i] ^= 1 << (next() % 8);
                }
                2 => stream.truncate(stream.len() * 3 / 4),
                3 => {
                    let at = (next() as usize) % (stream.len() + 1);
                    let run = 15 + (next() % 10) as usize;
                    stream.splice(at..at, std::iter::repeat_n(0x80u8, run));
                }
                _ => {}
            }
            for n in [count, count / 2, count + 1] {
                let warp = warp_varints(&stream, n);
                let cpu = cpu_varints(&stream, n);
                match (&warp, &cpu) {
                    (Ok(a), Ok(b)) => assert_eq!(a, b, "trial {trial} n {n}"),
                    (Err((k, _)), Err(j)) => assert_eq!(k, j, "trial {trial} n {n}"),
                    _ => panic!("trial {trial} n {n}: warp {warp:?} cpu {cpu:?}"),
                }
            }
        }
    }

    #[test]
    fn element_types_follow_the_value_types() {
        assert_eq!(elem_of::<u64>().unwrap(), ElemType::U64);
        assert_eq!(elem_of::<i64>().unwrap(), ElemType::I64);
        assert_eq!(elem_of::<i32>().unwrap(), ElemType::I32);
        assert_eq!(elem_of::<i16>().unwrap(), ElemType::I16);
        assert_eq!(elem_of::<u8>().unwrap(), ElemType::U8);
    }
}
