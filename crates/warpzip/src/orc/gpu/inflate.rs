//! ORC files compressed with ZLIB, SNAPPY or LZ4, decompressed on the GPU: the compression chunks
//! of the PRESENT and DATA streams of one or several columns (every stripe) go up together
//! through a pinned staging buffer and through one GPU batch (the inflate kernels for ZLIB's raw
//! Deflate, the Snappy and LZ4 block decoder of `codec::lz::gpu` for the others; chunks stored
//! as they are, "original", are read from the upload), each into a slot of the file's
//! compression block size; the chunk sizes it reports come back to the host (a few bytes per chunk) to place
//! every row group in the decompressed streams (the row index's positions). When every chunk but
//! a stream's last filled its slot (as ORC writers make them), the RLE kernels read a column's
//! streams in place; otherwise its chunks' bytes are gathered on the device into a layout of its
//! own. Only the metadata (footers, stripe footers, the row indexes) is inflated on the CPU.

use super::super::file::compression::{parse_chunk_header, ChunkMap, ChunkStart, Compression};
use super::super::file::proto::CompressionKind;
use super::super::file::proto::{RowIndex, StreamKind};
use super::super::file::stripe::Stripe;
use super::super::file::OrcFile;
use super::super::place::Place;
use super::super::plan::{data_kind, locate_groups, plan_error, DataKind, RowGroup};
use super::super::schema::OrcColumn;
use super::launch::DeviceColumn;
use super::layout::{PlanShape, PreparedColumn};
use crate::codec::deflate::batch::StreamResult;
use crate::codec::deflate::gpu::{InflateBatch, InflateChunk, INPUT_ALIGN, OUTPUT_ALIGN};
use crate::codec::lz::gpu::{self as lz_gpu, LzChunk};
use crate::codec::lz::LzKind;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::batch::ChunkBatch;
use crate::gpu::{CudaSlice, GpuContext};
use rayon::prelude::*;
use std::sync::Arc;

/// One compression chunk of a stream.
pub(super) struct Piece {
    /// Offset of its 3-byte header in the stream.
    pub header: u64,
    /// Its bytes in the file (after the header).
    pub start: usize,
    pub len: usize,
    /// Stored as is (no inflate).
    pub original: bool,
}

/// One stream of one stripe: its chunks, and where they land.
struct StreamPieces {
    stripe: usize,
    kind: StreamKind,
    compressed_len: u64,
    pieces: Vec<Piece>,
}

/// Splits a stream of `file` into its compression chunks (headers checked, nothing inflated).
fn pieces_of(
    file: &OrcFile,
    stripe: &Stripe,
    column: &OrcColumn,
    kind: StreamKind,
) -> Result<Option<StreamPieces>> {
    let Some(info) = stripe.stream(column.id, kind) else {
        return Ok(None);
    };
    let outside = || {
        plan_error(
            stripe.index,
            column,
            &format!("the {} stream lies outside the file", kind.name()),
        )
    };
    let start = usize::try_from(info.offset).map_err(|_| outside())?;
    let len = usize::try_from(info.length).map_err(|_| outside())?;
    let end = start.checked_add(len).filter(|&e| e <= file.bytes().len());
    let end = end.ok_or_else(outside)?;
    let mut pieces = Vec::new();
    let mut pos = start;
    while pos < end {
        let h = file.bytes().get(pos..pos + 3).filter(|_| pos + 3 <= end);
        let h = h.ok_or_else(|| {
            plan_error(
                stripe.index,
                column,
                &format!("a chunk header of the {} stream is cut short", kind.name()),
            )
        })?;
        let header = parse_chunk_header([h[0], h[1], h[2]]);
        let body = pos + 3;
        if body + header.length > end {
            return Err(plan_error(
                stripe.index,
                column,
                &format!(
                    "a chunk of {} bytes runs past the end of the {} stream",
                    header.length,
                    kind.name()
                ),
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
    Ok(Some(StreamPieces {
        stripe: stripe.index,
        kind,
        compressed_len: len as u64,
        pieces,
    }))
}

/// One stripe of one column: its DATA encoding, row index, PRESENT and DATA chunks.
struct StripeWork {
    stripe: Stripe,
    kind: DataKind,
    index: Option<RowIndex>,
    present: Option<StreamPieces>,
    data: Option<StreamPieces>,
}

impl StripeWork {
    /// Its streams in upload order: PRESENT, then DATA.
    fn streams(&self) -> impl Iterator<Item = &StreamPieces> {
        self.present.iter().chain(self.data.iter())
    }
}

/// Every stripe of `column`: chunk headers checked, the row index read (nothing else inflated).
fn column_work(file: &OrcFile, column: &OrcColumn) -> Result<Vec<StripeWork>> {
    column.check_supported()?;
    let compression = file.compression();
    let stride = file.row_index_stride();
    let mut work = Vec::with_capacity(file.stripe_count());
    for s in 0..file.stripe_count() {
        let stripe = file.stripe(s)?;
        let kind = data_kind(&stripe, column)?;
        let index = match stride.filter(|&s| s > 0) {
            Some(_) => stripe.row_index(file.bytes(), compression, column.id)?,
            None => None,
        };
        let present = pieces_of(file, &stripe, column, StreamKind::Present)?;
        let data = pieces_of(file, &stripe, column, StreamKind::Data)?;
        work.push(StripeWork {
            stripe,
            kind,
            index,
            present,
            data,
        });
    }
    Ok(work)
}

/// Whether the GPU decompresses streams of this compression (ZLIB, SNAPPY, LZ4; ZSTD chunks are
/// decompressed on the CPU, their streams then decoded on the GPU).
pub fn decompresses(kind: CompressionKind) -> bool {
    matches!(
        kind,
        CompressionKind::Zlib | CompressionKind::Snappy | CompressionKind::Lz4
    )
}

/// Decompresses the streams of `columns` on the GPU and lays each column out for the RLE kernels:
/// its prepared layout and device buffers, ready to launch. The chunks of all of them go up in
/// one upload and through one inflate batch (so a file's columns pay the kernel's latency once),
/// and each column's RLE layout reads its streams in place in the shared output (or in a
/// gathered copy of its own). The row indexes are read on all cores.
pub fn prepare_columns(
    gpu: &GpuContext,
    file: &OrcFile,
    columns: &[&OrcColumn],
) -> Result<Vec<(PreparedColumn, DeviceColumn)>> {
    let compression = file.compression();
    let block = usize::try_from(compression.block_size)
        .map_err(|_| Error::Unsupported("an ORC compression block over 4 GiB".into()))?;
    let stride = file.row_index_stride();
    let works: Vec<Vec<StripeWork>> = columns
        .par_iter()
        .map(|c| column_work(file, c))
        .collect::<Result<_>>()?;
    // One inflate batch over every compressed chunk of every column; stored chunks ride in the
    // same upload.
    let pieces: Vec<&Piece> = works
        .iter()
        .flatten()
        .flat_map(StripeWork::streams)
        .flat_map(|sp| sp.pieces.iter())
        .collect();
    let (slots, results, placed) =
        inflate_pieces(gpu, file.bytes(), compression.kind, &pieces, block)?;
    // Every chunk's decompressed size, checked.
    let mut sizes = Vec::with_capacity(placed.len());
    for (column, work) in columns.iter().zip(&works) {
        for sp in work.iter().flat_map(StripeWork::streams) {
            for p in &sp.pieces {
                let size = match placed[sizes.len()].1 {
                    None => p.len,
                    Some(j) => chunk_size(&results[j], p, sp, column, compression)?,
                };
                sizes.push(size as u64);
            }
        }
    }
    let Slots {
        upload,
        out,
        out_offsets,
    } = slots;
    let shared = Arc::new(out);
    let mut first = 0usize;
    let mut prepared = Vec::with_capacity(columns.len());
    for (column, work) in columns.iter().zip(&works) {
        let count: usize = work
            .iter()
            .flat_map(StripeWork::streams)
            .map(|sp| sp.pieces.len())
            .sum();
        let span = first..first + count;
        first += count;
        let sizes = &sizes[span.clone()];
        let placed = &placed[span];
        // (A stream without chunks has no first chunk: its base does not matter.)
        let slot_of = |k: usize| {
            let j = placed.get(k)?.1?;
            out_offsets.get(j).copied()
        };
        let (layout, in_place) = lay_out_column(
            column,
            work,
            compression,
            stride,
            block,
            sizes,
            placed,
            &slot_of,
        )?;
        let input = if in_place {
            // The RLE kernels read the streams where the inflate left them.
            Arc::clone(&shared)
        } else {
            Arc::new(gather(
                gpu,
                &layout,
                column,
                sizes,
                placed,
                &upload,
                &out_offsets,
                &shared,
            )?)
        };
        let dev = DeviceColumn::with_input(gpu, &layout, input)?;
        prepared.push((layout, dev));
    }
    Ok(prepared)
}

/// Where a piece went: its offset in the upload, and its inflate job (`None`: stored as is).
pub(super) type Placed = (u64, Option<usize>);

/// A GPU decompression batch's buffers: the upload (every piece's bytes, stored ones read from
/// it), the output slots, and where each job's slot starts in them.
pub(super) struct Slots {
    pub upload: CudaSlice<u8>,
    pub out: CudaSlice<u8>,
    pub out_offsets: Vec<u64>,
}

/// One decompression job: a compressed piece's place in the upload and its slot.
struct Job {
    in_offset: u64,
    out_offset: u64,
    in_len: u32,
    out_cap: u32,
    /// False for a Snappy block whose length preamble cannot be read.
    preamble_ok: bool,
}

/// Uploads `pieces` through a pinned staging buffer (filled on all cores) and decompresses the
/// compressed ones on the GPU (ZLIB through the inflate kernels, SNAPPY and LZ4 through the
/// Snappy and LZ4 block decoder), each into a slot of `block` bytes of the batch's output: the
/// batch's buffers, every job's result, and where each piece went.
pub(super) fn inflate_pieces(
    gpu: &GpuContext,
    file: &[u8],
    kind: CompressionKind,
    pieces: &[&Piece],
    block: usize,
) -> Result<(Slots, Vec<StreamResult>, Vec<Placed>)> {
    let lz = match kind {
        CompressionKind::Zlib => None,
        CompressionKind::Snappy => Some(LzKind::Snappy),
        CompressionKind::Lz4 => Some(LzKind::Lz4),
        other => {
            return Err(Error::Unsupported(format!(
                "ORC compression {} is not decompressed on the GPU",
                other.name()
            )))
        }
    };
    let block_cap = u32::try_from(block)
        .map_err(|_| Error::Unsupported("an ORC compression block over 4 GiB".into()))?;
    let mut jobs = Vec::new();
    let mut slot_at = 0u64;
    let mut upload_len = 0usize;
    // Per piece: (offset in the upload, job index or None).
    let mut placed: Vec<Placed> = Vec::with_capacity(pieces.len());
    for p in pieces {
        let at = upload_len as u64;
        upload_len += p.len;
        if p.original {
            placed.push((at, None));
        } else {
            let (out_cap, preamble_ok) = match lz {
                // A Snappy block opens with its decompressed length, which the decoder must
                // reach exactly; one past the block size gets no room, so that the decoder
                // reports it, and one the CPU's decoder cannot read fails here.
                Some(LzKind::Snappy) => {
                    match file
                        .get(p.start..p.start + p.len)
                        .and_then(|b| snap::raw::decompress_len(b).ok())
                    {
                        Some(n) => (
                            u32::try_from(n)
                                .ok()
                                .filter(|&n| n <= block_cap)
                                .unwrap_or(0),
                            true,
                        ),
                        None => (0, false),
                    }
                }
                _ => (block_cap, true),
            };
            jobs.push(Job {
                in_offset: at,
                out_offset: slot_at,
                in_len: u32::try_from(p.len).map_err(|_| too_big())?,
                out_cap,
                preamble_ok,
            });
            slot_at += block.div_ceil(OUTPUT_ALIGN) as u64 * OUTPUT_ALIGN as u64;
            placed.push((at, Some(jobs.len() - 1)));
        }
    }
    let padded = upload_len.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
    let mut staging = gpu.take_staging(1, padded)?;
    let launched = (|| -> Result<(Slots, Vec<StreamResult>)> {
        let staged = GpuContext::staging_slice(&mut staging[0], padded)?;
        // The pieces' places in the staging buffer, filled on all cores.
        let mut rest = &mut staged[..];
        let mut slices = Vec::with_capacity(pieces.len());
        for p in pieces {
            let (dst, tail) = rest.split_at_mut(p.len);
            slices.push(dst);
            rest = tail;
        }
        rest.fill(0);
        slices
            .into_par_iter()
            .zip(pieces.par_iter())
            .for_each(|(dst, p)| dst.copy_from_slice(&file[p.start..p.start + p.len]));
        let mut d_upload = gpu.alloc_for::<u8>(padded, "the ORC chunks' upload")?;
        gpu.stream().memcpy_htod(&*staged, &mut d_upload)?;
        // The slots are also read in place by the RLE kernels: whole 128-byte blocks.
        let slots_len = (slot_at as usize).div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
        let slots = gpu.alloc_for::<u8>(slots_len, "the decompressed ORC chunks")?;
        let out_offsets: Vec<u64> = jobs.iter().map(|j| j.out_offset).collect();
        match lz {
            None => {
                let records = jobs
                    .iter()
                    .map(|j| InflateChunk {
                        in_offset: j.in_offset,
                        out_offset: j.out_offset,
                        in_len: j.in_len,
                        out_cap: j.out_cap,
                    })
                    .collect();
                let mut batch = InflateBatch::from_device(gpu, d_upload, records, slots)?;
                batch.launch(gpu, gpu.stream())?;
                // Synchronises: the staging buffer is free again after this.
                let results = batch.results(gpu)?;
                let slots = Slots {
                    upload: batch.chunks.input,
                    out: batch.chunks.out,
                    out_offsets,
                };
                Ok((slots, results))
            }
            Some(lz) => {
                let records = jobs
                    .iter()
                    .map(|j| LzChunk {
                        in_offset: j.in_offset,
                        out_offset: j.out_offset,
                        in_len: j.in_len,
                        out_cap: j.out_cap,
                    })
                    .collect();
                let mut batch = ChunkBatch::from_device(
                    gpu,
                    d_upload,
                    records,
                    slots,
                    slots_len,
                    lz_gpu::SHAPE,
                )?;
                lz_gpu::launch(gpu, lz, &mut batch)?;
                // Synchronises: the staging buffer is free again after this.
                let words = batch.status_words(gpu)?;
                let results = words
                    .chunks_exact(lz_gpu::SHAPE.status_words)
                    .zip(&jobs)
                    .map(|(w, j)| {
                        let status = match ChunkStatus::from_code(w[0]) {
                            _ if !j.preamble_ok => ChunkStatus::Corrupt,
                            // A Snappy block must give the length it opens with.
                            ChunkStatus::Ok if lz == LzKind::Snappy && w[1] != j.out_cap => {
                                ChunkStatus::Underflow
                            }
                            s => s,
                        };
                        StreamResult {
                            status,
                            written: w[1] as usize,
                            consumed: w[2] as usize,
                        }
                    })
                    .collect();
                let slots = Slots {
                    upload: batch.input,
                    out: batch.out,
                    out_offsets,
                };
                Ok((slots, results))
            }
        }
    })();
    gpu.return_staging(staging);
    let (slots, results) = launched?;
    Ok((slots, results, placed))
}

/// The decompressed size of a chunk the GPU decompressed, or an error naming it.
fn chunk_size(
    r: &StreamResult,
    p: &Piece,
    sp: &StreamPieces,
    column: &OrcColumn,
    compression: Compression,
) -> Result<usize> {
    if r.status == ChunkStatus::Ok && r.consumed == p.len {
        return Ok(r.written);
    }
    let status = if r.status == ChunkStatus::Ok {
        ChunkStatus::Corrupt
    } else {
        r.status
    };
    Err(column
        .in_stripe(sp.stripe)
        .stream(sp.kind.name())
        .corrupt(format!(
            "the {} chunk at byte {} did not decompress on the GPU: {}",
            compression.name(),
            p.header,
            status.reason()
        )))
}

/// One column's layout from its chunks' decompressed `sizes` (and where each went: `placed`,
/// `slot_of(k)` the output offset of its k-th chunk when inflated); true when its streams can
/// be read in place: every chunk inflated (none stored) and every chunk but a stream's last
/// filled its slot exactly, so each stream's bytes run on unbroken through consecutive slots.
#[allow(clippy::too_many_arguments)]
fn lay_out_column(
    column: &OrcColumn,
    work: &[StripeWork],
    compression: Compression,
    stride: Option<u32>,
    block: usize,
    sizes: &[u64],
    placed: &[Placed],
    slot_of: &dyn Fn(usize) -> Option<u64>,
) -> Result<(PreparedColumn, bool)> {
    let map_of = |sp: &StreamPieces, first: usize| -> ChunkMap {
        let mut chunks = Vec::with_capacity(sp.pieces.len());
        let mut at = 0u64;
        for (i, p) in sp.pieces.iter().enumerate() {
            chunks.push(ChunkStart {
                compressed: p.header,
                decompressed: at,
            });
            at += sizes[first + i];
        }
        ChunkMap {
            chunks,
            compressed_len: sp.compressed_len,
            decompressed_len: at,
        }
    };
    let mut in_place = block.is_multiple_of(OUTPUT_ALIGN); // slots then follow without gaps
    let mut first = 0usize;
    // A stream's chunk map and the output offset of its first chunk.
    let mut stream = |sp: &StreamPieces| -> (ChunkMap, u64) {
        let k = first;
        first += sp.pieces.len();
        in_place &= (k..first)
            .all(|i| placed[i].1.is_some() && (i + 1 == first || sizes[i] == block as u64));
        (map_of(sp, k), slot_of(k).unwrap_or(0))
    };
    let mut groups: Vec<Vec<RowGroup>> = Vec::with_capacity(work.len());
    let mut lens: Vec<(Option<u64>, u64)> = Vec::with_capacity(work.len());
    let mut bases: Vec<(u64, u64)> = Vec::with_capacity(work.len());
    for w in work {
        let present = w.present.as_ref().map(&mut stream);
        let (data_map, data_base) = w.data.as_ref().map(&mut stream).unwrap_or_default();
        let present_map = present.as_ref().map(|(m, _)| m);
        groups.push(locate_groups(
            &w.stripe,
            column,
            compression,
            w.kind,
            stride,
            w.index.as_ref(),
            present_map,
            &data_map,
        )?);
        lens.push((
            present_map.map(|m| m.decompressed_len),
            data_map.decompressed_len,
        ));
        bases.push((present.map(|(_, b)| b).unwrap_or(0), data_base));
    }
    let shapes: Vec<PlanShape<'_>> = work
        .iter()
        .zip(groups.iter().zip(&lens))
        .zip(&bases)
        .map(|((w, (g, &(present_len, data_len))), &b)| PlanShape {
            stripe: w.stripe.index,
            rows: w.stripe.rows(),
            kind: w.kind,
            groups: g,
            present_len,
            data_len,
            bases: in_place.then_some(b),
        })
        .collect();
    Ok((PreparedColumn::lay_out(column, &shapes)?, in_place))
}

/// A column's chunks gathered on the device, in stream order, into the layout's input (for
/// columns whose streams cannot be read in place): stored chunks from the upload, inflated ones
/// from their slots in `out`.
#[allow(clippy::too_many_arguments)]
fn gather(
    gpu: &GpuContext,
    layout: &PreparedColumn,
    column: &OrcColumn,
    sizes: &[u64],
    placed: &[Placed],
    upload: &CudaSlice<u8>,
    out_offsets: &[u64],
    out: &CudaSlice<u8>,
) -> Result<CudaSlice<u8>> {
    let total = usize::try_from(layout.input_len).map_err(|_| too_big())?;
    let mut input = gpu.alloc_zeros_for::<u8>(
        total.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN,
        "an ORC column's streams",
    )?;
    let stream = gpu.stream();
    let mut at = 0usize;
    for (&n, &(src_at, job)) in sizes.iter().zip(placed) {
        let n = n as usize;
        if n == 0 {
            continue;
        }
        let mut dst = input.slice_mut(at..at + n);
        let (src, from) = match job {
            None => (upload, src_at as usize),
            Some(j) => (out, out_offsets[j] as usize),
        };
        stream.memcpy_dtod(&src.slice(from..from + n), &mut dst)?;
        at += n;
    }
    if at as u64 != layout.input_len {
        return Err(Place::file()
            .column(column.id, &column.name)
            .corrupt(format!(
                "{at} bytes gathered for {} bytes of streams",
                layout.input_len
            )));
    }
    Ok(input)
}

fn too_big() -> Error {
    Error::Unsupported("an ORC column too large for one GPU batch".into())
}
