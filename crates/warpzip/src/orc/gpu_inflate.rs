//! ORC files compressed with ZLIB, inflated on the GPU: the compression chunks of a column's
//! PRESENT and DATA streams (every stripe) go to the GPU inflate kernel as one batch, each
//! into a slot of the file's compression block size; the chunk sizes it reports come back to
//! the host (a few bytes per chunk) to place every row group in the decompressed streams (the
//! row index's positions). When every chunk but a stream's last filled its slot (as ORC
//! writers make them), the RLE kernels read the streams in place; otherwise the chunks' bytes
//! are gathered on the device into the layout the RLE kernels read. The compressed chunks go up
//! through a pinned staging buffer. Only the metadata (footers, stripe footers, the row index)
//! is inflated on the CPU.

use super::column::OrcColumn;
use super::compression::{parse_chunk_header, ChunkMap, ChunkStart};
use super::gpu::{DeviceColumn, PlanShape, PreparedColumn};
use super::proto::{RowIndex, StreamKind};
use super::row_groups::{data_kind, locate_groups, plan_error, DataKind, RowGroup};
use super::OrcFile;
use crate::codec::deflate::batch::StreamResult;
use crate::codec::deflate::gpu::{InflateBatch, InflateChunk, INPUT_ALIGN, OUTPUT_ALIGN};
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::GpuContext;

/// One compression chunk of a stream.
struct Piece {
    /// Offset of its 3-byte header in the stream.
    header: u64,
    /// Its bytes in the file (after the header).
    start: usize,
    len: usize,
    /// Stored as is (no inflate).
    original: bool,
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
    stripe: &super::stripe::Stripe,
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
    let end = start.checked_add(len).filter(|&e| e <= file.data.len());
    let end = end.ok_or_else(outside)?;
    let mut pieces = Vec::new();
    let mut pos = start;
    while pos < end {
        let h = file.data.get(pos..pos + 3).filter(|_| pos + 3 <= end);
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

/// Inflates `column`'s streams on the GPU and lays the column out for the RLE kernels: the
/// prepared layout and its device buffers, ready to launch.
pub fn prepare_column(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
) -> Result<(PreparedColumn, DeviceColumn)> {
    column.check_supported()?;
    let compression = file.compression();
    let block = usize::try_from(compression.block_size)
        .map_err(|_| Error::Unsupported("an ORC compression block over 4 GiB".into()))?;
    let stride = file.tail().footer.row_index_stride;
    // Per stripe: its DATA encoding, row index, PRESENT and DATA chunks.
    struct StripeWork {
        stripe: super::stripe::Stripe,
        kind: DataKind,
        index: Option<RowIndex>,
        present: Option<StreamPieces>,
        data: Option<StreamPieces>,
    }
    let mut work = Vec::with_capacity(file.stripe_count());
    for s in 0..file.stripe_count() {
        let stripe = file.stripe(s)?;
        let kind = data_kind(&stripe, column)?;
        let index = match stride.filter(|&s| s > 0) {
            Some(_) => stripe.row_index(&file.data, compression, column.id)?,
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
    // One inflate batch over every compressed chunk; stored chunks ride in the same upload,
    // which goes through a pinned staging buffer.
    let mut jobs = Vec::new();
    let mut slot_at = 0u64;
    let mut upload_len = 0usize;
    // Per piece (in stream order): (offset in the upload, inflate job index or None).
    let mut placed: Vec<(u64, Option<usize>)> = Vec::new();
    let all_streams = || {
        work.iter()
            .flat_map(|w| w.present.iter().chain(w.data.iter()))
    };
    for sp in all_streams() {
        for p in &sp.pieces {
            let at = upload_len as u64;
            upload_len += p.len;
            if p.original {
                placed.push((at, None));
            } else {
                jobs.push(InflateChunk {
                    in_offset: at,
                    out_offset: slot_at,
                    in_len: p.len as u32,
                    out_cap: block as u32,
                });
                slot_at += block.div_ceil(OUTPUT_ALIGN) as u64 * OUTPUT_ALIGN as u64;
                placed.push((at, Some(jobs.len() - 1)));
            }
        }
    }
    let padded = upload_len.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
    let mut staging = gpu.take_staging(1, padded)?;
    let launched = (|| -> Result<(InflateBatch, Vec<StreamResult>)> {
        let staged = staging[0]
            .as_mut_slice()?
            .get_mut(..padded)
            .ok_or_else(|| Error::Driver("staging buffer smaller than requested".into()))?;
        let mut at = 0usize;
        for p in all_streams().flat_map(|sp| sp.pieces.iter()) {
            staged[at..at + p.len].copy_from_slice(&file.data[p.start..p.start + p.len]);
            at += p.len;
        }
        staged[at..].fill(0);
        let mut d_upload = gpu.alloc::<u8>(padded)?;
        gpu.stream().memcpy_htod(&*staged, &mut d_upload)?;
        // The slots are also read in place by the RLE kernels: whole 128-byte blocks.
        let slots_len = (slot_at as usize).div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
        let slots = gpu.alloc::<u8>(slots_len)?;
        let mut batch = InflateBatch::from_device(gpu, d_upload, jobs, slots)?;
        batch.launch(gpu, gpu.stream())?;
        // Synchronises: the staging buffer is free again after this.
        let results = batch.results(gpu)?;
        Ok((batch, results))
    })();
    gpu.return_staging(staging);
    let (batch, results) = launched?;
    // Every chunk's decompressed size, and the chunk maps of every stream.
    let mut sizes = Vec::with_capacity(placed.len());
    let mut k = 0usize;
    for sp in all_streams() {
        for p in &sp.pieces {
            let size = match placed[k].1 {
                None => p.len,
                Some(j) => {
                    let r = results[j];
                    if r.status != ChunkStatus::Ok || r.consumed != p.len {
                        let status = if r.status == ChunkStatus::Ok {
                            ChunkStatus::Corrupt
                        } else {
                            r.status
                        };
                        return Err(Error::Corrupt {
                            chunk: sp.stripe,
                            reason: format!(
                                "ORC stripe {} column '{}' {} stream: the ZLIB chunk at byte {} \
                                 did not inflate on the GPU: {}",
                                sp.stripe,
                                column.name,
                                sp.kind.name(),
                                p.header,
                                status.reason()
                            ),
                        });
                    }
                    r.written
                }
            };
            sizes.push(size as u64);
            k += 1;
        }
    }
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
    let mut first = 0usize;
    let mut groups: Vec<Vec<RowGroup>> = Vec::with_capacity(work.len());
    let mut lens: Vec<(Option<u64>, u64)> = Vec::with_capacity(work.len());
    for w in &work {
        let present_map = w.present.as_ref().map(|sp| {
            let m = map_of(sp, first);
            first += sp.pieces.len();
            m
        });
        let data_map = match &w.data {
            Some(sp) => {
                let m = map_of(sp, first);
                first += sp.pieces.len();
                m
            }
            None => ChunkMap::default(),
        };
        groups.push(locate_groups(
            &w.stripe,
            column,
            compression,
            w.kind,
            stride,
            w.index.as_ref(),
            present_map.as_ref(),
            &data_map,
        )?);
        lens.push((
            present_map.map(|m| m.decompressed_len),
            data_map.decompressed_len,
        ));
    }
    // Where each stream starts among the slots when it can be read there in place: every chunk
    // inflated (none stored) and every chunk but its last filled its slot exactly, so the
    // stream's bytes run on unbroken through consecutive slots.
    let mut first = 0usize;
    let mut in_place = block.is_multiple_of(OUTPUT_ALIGN); // slots then follow without gaps
    let mut slot_base = |sp: &StreamPieces| -> u64 {
        let k = first;
        first += sp.pieces.len();
        let fills = (k..first)
            .all(|i| placed[i].1.is_some() && (i + 1 == first || sizes[i] == block as u64));
        in_place &= fills;
        match placed.get(k).and_then(|p| p.1) {
            Some(j) => batch.host_chunks[j].out_offset,
            None => 0,
        }
    };
    let stream_bases: Vec<(u64, u64)> = work
        .iter()
        .map(|w| {
            let present = w.present.as_ref().map(&mut slot_base).unwrap_or(0);
            let data = w.data.as_ref().map(&mut slot_base).unwrap_or(0);
            (present, data)
        })
        .collect();
    let shapes: Vec<PlanShape<'_>> = work
        .iter()
        .zip(groups.iter().zip(&lens))
        .zip(&stream_bases)
        .map(|((w, (g, &(present_len, data_len))), &bases)| PlanShape {
            stripe: w.stripe.index,
            rows: w.stripe.rows(),
            kind: w.kind,
            groups: g,
            present_len,
            data_len,
            bases: in_place.then_some(bases),
        })
        .collect();
    let prepared = PreparedColumn::lay_out(column, &shapes)?;
    if in_place {
        // The RLE kernels read the streams where the inflate left them.
        let dev = DeviceColumn::with_input(gpu, &prepared, batch.out)?;
        return Ok((prepared, dev));
    }
    // Otherwise gather every chunk's bytes, in stream order, into the layout's input.
    let total = usize::try_from(prepared.input_len).map_err(|_| too_big())?;
    let mut input = gpu.alloc_zeros::<u8>(total.div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN)?;
    let stream = gpu.stream();
    let mut at = 0usize;
    for (k, &(src_at, job)) in placed.iter().enumerate() {
        let n = sizes[k] as usize;
        if n == 0 {
            continue;
        }
        let mut dst = input.slice_mut(at..at + n);
        match job {
            None => {
                let src = batch.input.slice(src_at as usize..src_at as usize + n);
                stream.memcpy_dtod(&src, &mut dst)?;
            }
            Some(j) => {
                let from = batch.host_chunks[j].out_offset as usize;
                let src = batch.out.slice(from..from + n);
                stream.memcpy_dtod(&src, &mut dst)?;
            }
        }
        at += n;
    }
    if at as u64 != prepared.input_len {
        return Err(Error::Corrupt {
            chunk: 0,
            reason: format!(
                "ORC column '{}': {at} bytes gathered for {} bytes of streams",
                column.name, prepared.input_len
            ),
        });
    }
    let dev = DeviceColumn::with_input(gpu, &prepared, input)?;
    Ok((prepared, dev))
}

fn too_big() -> Error {
    Error::Unsupported("an ORC column too large for one GPU batch".into())
}
