//! Row groups: the row index of a column in a stripe turned into where each row group
//! (`row_index_stride` rows, the last one of a stripe shorter) starts in the column's
//! *decompressed* PRESENT and DATA streams, so that every group can be decoded on its own (one
//! GPU warp per group), and a CPU decoder that does exactly that, group by group, to prove the
//! starts right against the whole-stripe decode of `column`.
//!
//! A row index entry's `positions` give, for each stream of the column in stream order (PRESENT
//! first when the stripe has one, then DATA): in a compressed file the offset of a compression
//! chunk's header from the stream's start and an offset in that chunk's decompressed bytes, in
//! an uncompressed file one byte offset; then the codec's own positions: one for Byte RLE and
//! Integer RLE v1/v2 (values to skip in the run that starts at that byte), two for Boolean RLE
//! (bytes to skip in the Byte RLE run, then bits to skip in the next byte). Writers leave out
//! the PRESENT positions of a stripe whose column has no nulls, as they leave out its PRESENT
//! stream.

use super::column::OrcColumn;
use super::compression::{
    decompress_stream_mapped, parse_chunk_header, ChunkMap, ChunkStart, Compression,
};
use super::proto::{ColumnEncodingKind, CompressionKind, RowIndex, StreamKind, TypeKind};
use super::stripe::Stripe;
use super::OrcFile;
use crate::codec::orc_rle;
use crate::error::{ChunkStatus, Error, Result};
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
};
use rayon::prelude::*;
use std::borrow::Cow;
use std::sync::Arc;

/// No ORC run-length encoding yields more values per input byte than this (a 2-byte Byte RLE
/// run of 130 bytes is 1,040 booleans, so 520 a byte): a group claiming more values than its
/// stream's remaining bytes can hold is damaged, refused before it sizes an allocation.
const MAX_VALUES_PER_BYTE: u64 = 520;

/// Where a row group starts in one decompressed stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamStart {
    /// Offset in the decompressed stream of the first byte of the run (Byte RLE, Integer RLE v1)
    /// or group (Integer RLE v2) that holds the row group's first value.
    pub byte: u64,
    /// Values of that run to skip before the row group's first value; for Boolean RLE streams
    /// (PRESENT, boolean DATA), bytes of the Byte RLE run to skip.
    pub skip: u64,
    /// Boolean RLE only: bits (0..=7, most significant first) of the next byte to skip after
    /// `skip` bytes; 0 for every other stream.
    pub bit_skip: u8,
}

/// One row group of a column in a stripe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowGroup {
    /// The group's first row, counted from the stripe's first row.
    pub first_row: u64,
    /// Rows in the group: the row index stride, the stripe's last group the remainder.
    pub rows: u64,
    /// Where the group starts in the PRESENT stream (one bit per row), `None` when the stripe has
    /// no PRESENT stream (every row of the stripe is non-null).
    pub present: Option<StreamStart>,
    /// Where the group's first non-null value starts in the DATA stream. A group whose rows are
    /// all null decodes nothing from here.
    pub data: StreamStart,
}

/// How a column's DATA stream is encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataKind {
    /// Boolean RLE: bits, most significant first, Byte RLE encoded (boolean columns).
    Boolean,
    /// Byte RLE (tinyint columns; values are two's complement bytes).
    Byte,
    /// Signed Integer RLE version 1 (DIRECT encoding: smallint, int, bigint, date).
    IntV1,
    /// Signed Integer RLE version 2 (DIRECT_V2 encoding: smallint, int, bigint, date).
    IntV2,
}

impl DataKind {
    /// How many numbers the codec adds to a stream's position in a row index entry: two for
    /// Boolean RLE (bytes, then bits to skip), one for the others (values to skip).
    pub fn codec_positions(self) -> usize {
        match self {
            DataKind::Boolean => 2,
            DataKind::Byte | DataKind::IntV1 | DataKind::IntV2 => 1,
        }
    }

    /// The most values (bytes for Boolean RLE) one run or group of the codec holds; a position's
    /// skip must be smaller.
    pub fn max_run(self) -> u64 {
        match self {
            DataKind::Boolean | DataKind::Byte => orc_rle::byte_rle::MAX_RUN as u64,
            DataKind::IntV1 => orc_rle::int_rle_v1::MAX_RUN as u64,
            DataKind::IntV2 => orc_rle::int_rle_v2::MAX_GROUP as u64,
        }
    }

    /// The name of the encoding as this module's errors spell it.
    pub fn name(self) -> &'static str {
        match self {
            DataKind::Boolean => "Boolean RLE",
            DataKind::Byte => "Byte RLE",
            DataKind::IntV1 => "Integer RLE v1",
            DataKind::IntV2 => "Integer RLE v2",
        }
    }
}

/// One column of one stripe, ready to be decoded row group by row group: its decompressed
/// streams and where each group starts in them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnPlan {
    /// The stripe's index in the file.
    pub stripe: usize,
    /// The column (its name and type name appear in errors; its type kind decides the range of
    /// the values).
    pub column: OrcColumn,
    /// The stripe's row count; the groups cover rows `0..rows` in order.
    pub rows: u64,
    /// The decompressed PRESENT stream (Boolean RLE, one bit per row, 1 for non-null), `None`
    /// when the stripe has none.
    pub present: Option<Vec<u8>>,
    /// The decompressed DATA stream (one value per non-null row); empty when the stripe has no
    /// DATA stream.
    pub data: Vec<u8>,
    /// How DATA is encoded.
    pub kind: DataKind,
    /// The row groups in row order: one per row index entry, or one for the whole stripe when
    /// the file has no row index (none when the stripe has no rows).
    pub groups: Vec<RowGroup>,
}

/// Plans `column` of `stripe`: decompresses its PRESENT and DATA streams and locates every row
/// group's start in them from the column's row index. `stride` is the footer's
/// `row_index_stride`; without one (or 0), or without a ROW_INDEX stream for the column, the
/// stripe is one group starting at byte 0. Every position is checked (its count, a chunk offset
/// that is a real chunk start, offsets inside the streams, skips shorter than a run, bit skips
/// under 8): a bad one is `Error::Corrupt` naming the stripe, column and row group.
pub fn plan_column(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    stride: Option<u32>,
) -> Result<ColumnPlan> {
    column.check_supported()?;
    let index = match stride.filter(|&s| s > 0) {
        Some(_) => stripe.row_index(file, compression, column.id)?,
        None => None,
    };
    plan_column_with_index(file, compression, stripe, column, stride, index.as_ref())
}

/// [`plan_column`] with the column's row index given (`None`: no row index) rather than read
/// from the stripe: for callers that already hold it, and to try damaged positions.
pub fn plan_column_with_index(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    stride: Option<u32>,
    index: Option<&RowIndex>,
) -> Result<ColumnPlan> {
    column.check_supported()?;
    let kind = data_kind(stripe, column)?;
    let rows = stripe.rows();
    let present = read_stream(file, compression, stripe, column, StreamKind::Present)?;
    let (data, data_map) =
        read_stream(file, compression, stripe, column, StreamKind::Data)?.unwrap_or_default();
    let groups = locate_groups(
        stripe,
        column,
        compression,
        kind,
        stride,
        index,
        present.as_ref().map(|(_, map)| map),
        &data_map,
    )?;
    Ok(ColumnPlan {
        stripe: stripe.index,
        column: column.clone(),
        rows,
        present: present.map(|(bytes, _)| bytes),
        data,
        kind,
        groups,
    })
}

/// Where every row group of `column` in `stripe` starts in its decompressed PRESENT and DATA
/// streams (whose chunk maps are given), from the row index `index` and the file's `stride`:
/// the groups of [`ColumnPlan::groups`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn locate_groups(
    stripe: &Stripe,
    column: &OrcColumn,
    compression: Compression,
    kind: DataKind,
    stride: Option<u32>,
    index: Option<&RowIndex>,
    present_map: Option<&ChunkMap>,
    data_map: &ChunkMap,
) -> Result<Vec<RowGroup>> {
    let rows = stripe.rows();
    let stride = stride.filter(|&s| s > 0);
    Ok(match (stride, index) {
        (Some(stride), Some(index)) => {
            let layout = Layout {
                header: if compression.kind == CompressionKind::None {
                    1
                } else {
                    2
                },
                kind,
                present: present_map,
                data: data_map,
            };
            let stride = u64::from(stride);
            let expected = rows.div_ceil(stride);
            if index.entry.len() as u64 != expected {
                return Err(plan_error(
                    stripe.index,
                    column,
                    &format!(
                        "the row index has {} entries, but {rows} rows in row groups of {stride} \
                         make {expected}",
                        index.entry.len()
                    ),
                ));
            }
            index
                .entry
                .iter()
                .enumerate()
                .map(|(g, entry)| {
                    let first_row = g as u64 * stride;
                    let (present, data) = layout.starts(&entry.positions).map_err(|reason| {
                        plan_error(stripe.index, column, &format!("row group {g}: {reason}"))
                    })?;
                    Ok(RowGroup {
                        first_row,
                        rows: stride.min(rows - first_row),
                        present,
                        data,
                    })
                })
                .collect::<Result<Vec<_>>>()?
        }
        _ if rows == 0 => Vec::new(),
        _ => vec![RowGroup {
            first_row: 0,
            rows,
            present: present_map.map(|_| StreamStart::default()),
            data: StreamStart::default(),
        }],
    })
}

/// Plans `column` in every stripe of `file`, with the file's row index stride.
pub fn plan_file_column(file: &OrcFile, column: &OrcColumn) -> Result<Vec<ColumnPlan>> {
    let stride = file.tail().footer.row_index_stride;
    // Stripes are planned in parallel; the first failure in stripe order is the one reported.
    let plans: Vec<Result<ColumnPlan>> = (0..file.stripe_count())
        .into_par_iter()
        .map(|s| {
            let stripe = file.stripe(s)?;
            plan_column(&file.data, file.compression(), &stripe, column, stride)
        })
        .collect();
    plans.into_iter().collect()
}

/// How a stripe's streams lay out a row index entry's positions.
struct Layout<'a> {
    /// Numbers that locate a stream's byte: 2 when compressed (chunk, offset in chunk), else 1.
    header: usize,
    /// DATA's encoding.
    kind: DataKind,
    /// The PRESENT stream's chunks, when the stripe has one.
    present: Option<&'a ChunkMap>,
    /// The DATA stream's chunks (empty when the stripe has no DATA stream).
    data: &'a ChunkMap,
}

impl Layout<'_> {
    /// The PRESENT and DATA starts one entry's positions give.
    fn starts(
        &self,
        positions: &[u64],
    ) -> std::result::Result<(Option<StreamStart>, StreamStart), String> {
        let present_count = if self.present.is_some() {
            self.header + DataKind::Boolean.codec_positions()
        } else {
            0
        };
        let data_count = self.header + self.kind.codec_positions();
        if positions.len() != present_count + data_count {
            return Err(format!(
                "{} positions, but a stripe {} a PRESENT stream and {} DATA needs {}",
                positions.len(),
                if self.present.is_some() {
                    "with"
                } else {
                    "without"
                },
                self.kind.name(),
                present_count + data_count
            ));
        }
        let (for_present, for_data) = positions.split_at(present_count);
        let present = match self.present {
            Some(map) => Some(
                self.start(map, for_present, DataKind::Boolean)
                    .map_err(|reason| format!("PRESENT position {for_present:?}: {reason}"))?,
            ),
            None => None,
        };
        let data = self
            .start(self.data, for_data, self.kind)
            .map_err(|reason| format!("DATA position {for_data:?}: {reason}"))?;
        Ok((present, data))
    }

    /// One stream's start from its positions (`header + kind.codec_positions()` numbers).
    fn start(
        &self,
        map: &ChunkMap,
        positions: &[u64],
        kind: DataKind,
    ) -> std::result::Result<StreamStart, String> {
        let at = |i: usize| {
            positions
                .get(i)
                .copied()
                .ok_or_else(|| "too few positions".to_string())
        };
        let byte = if self.header == 2 {
            map.locate(at(0)?, at(1)?)?
        } else {
            map.locate(0, at(0)?)?
        };
        let skip = at(self.header)?;
        if skip >= kind.max_run() {
            return Err(format!(
                "skips {skip} values of a run, but a {} run holds at most {}",
                kind.name(),
                kind.max_run()
            ));
        }
        let bit_skip = if kind == DataKind::Boolean {
            let bits = at(self.header + 1)?;
            if bits > 7 {
                return Err(format!("skips {bits} bits of a byte"));
            }
            bits as u8
        } else {
            0
        };
        if byte == map.decompressed_len && (skip > 0 || bit_skip > 0) {
            return Err(format!(
                "skips into a run at the stream's end (byte {byte})"
            ));
        }
        Ok(StreamStart {
            byte,
            skip,
            bit_skip,
        })
    }
}

/// The encoding of the column's DATA stream in the stripe.
pub(crate) fn data_kind(stripe: &Stripe, column: &OrcColumn) -> Result<DataKind> {
    match column.kind {
        TypeKind::Boolean => return Ok(DataKind::Boolean),
        TypeKind::Byte => return Ok(DataKind::Byte),
        _ => {}
    }
    match stripe.encoding(column.id)? {
        ColumnEncodingKind::Direct => Ok(DataKind::IntV1),
        ColumnEncodingKind::DirectV2 => Ok(DataKind::IntV2),
        other => Err(Error::Unsupported(format!(
            "ORC column '{}' ({}) uses encoding {} in stripe {}; integer columns are read with \
             DIRECT and DIRECT_V2",
            column.name,
            column.type_name,
            other.name(),
            stripe.index
        ))),
    }
}

/// Inflates `column`'s PRESENT and DATA streams of every stripe on the CPU (all cores, as
/// [`plan_file_column`] does) and returns their decompressed bytes in all: the inflate alone,
/// without the row index or the plans, for the benchmark's comparison.
pub fn inflate_column_streams(file: &OrcFile, column: &OrcColumn) -> Result<u64> {
    let sizes: Vec<Result<u64>> = (0..file.stripe_count())
        .into_par_iter()
        .map(|s| {
            let stripe = file.stripe(s)?;
            let mut total = 0u64;
            for kind in [StreamKind::Present, StreamKind::Data] {
                if let Some((bytes, _)) =
                    read_stream(&file.data, file.compression(), &stripe, column, kind)?
                {
                    total += bytes.len() as u64;
                }
            }
            Ok(total)
        })
        .collect();
    sizes.into_iter().sum()
}

/// A stream's decompressed bytes and chunk map, or `None` when the stripe has no such stream.
fn read_stream(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    kind: StreamKind,
) -> Result<Option<(Vec<u8>, ChunkMap)>> {
    let Some(info) = stripe.stream(column.id, kind) else {
        return Ok(None);
    };
    let bytes = usize::try_from(info.offset)
        .ok()
        .zip(usize::try_from(info.length).ok())
        .and_then(|(start, length)| file.get(start..start.checked_add(length)?))
        .ok_or_else(|| {
            plan_error(
                stripe.index,
                column,
                &format!("the {} stream lies outside the file", kind.name()),
            )
        })?;
    let what = format!(
        "stripe {} column {} {} stream",
        stripe.index,
        column.id,
        kind.name()
    );
    let (bytes, map) = inflate_stream_mapped(bytes, compression, &what)?;
    Ok(Some((bytes.into_owned(), map)))
}

/// [`decompress_stream_mapped`] with the compression chunks inflated in parallel: the same
/// bytes, chunk map and errors. The chunk headers are read first; a stream of one chunk, or any
/// failure, goes to `decompress_stream_mapped` itself, which reports the first failure in
/// stream order.
pub(crate) fn inflate_stream_mapped<'a>(
    data: &'a [u8],
    compression: Compression,
    what: &str,
) -> Result<(Cow<'a, [u8]>, ChunkMap)> {
    if compression.kind == CompressionKind::None {
        return decompress_stream_mapped(data, compression, what);
    }
    // (header offset, chunk bytes, stored as is) of every chunk.
    let mut chunks: Vec<(usize, &[u8], bool)> = Vec::new();
    let mut pos = 0usize;
    while pos < data.len() {
        let Some(&[b0, b1, b2]) = data.get(pos..pos + 3) else {
            return decompress_stream_mapped(data, compression, what);
        };
        let header = parse_chunk_header([b0, b1, b2]);
        let Some(chunk) = pos
            .checked_add(3 + header.length)
            .and_then(|end| data.get(pos + 3..end))
        else {
            return decompress_stream_mapped(data, compression, what);
        };
        chunks.push((pos, chunk, header.original));
        pos += 3 + header.length;
    }
    if chunks.len() < 2 {
        return decompress_stream_mapped(data, compression, what);
    }
    let Some((out, starts)) = inflate_chunks(&chunks, compression.block_size) else {
        return decompress_stream_mapped(data, compression, what);
    };
    let map = ChunkMap {
        chunks: starts,
        compressed_len: data.len() as u64,
        decompressed_len: out.len() as u64,
    };
    Ok((Cow::Owned(out), map))
}

/// Slots of at most this many bytes in all are laid out for a stream's chunks to inflate into.
const MAX_SLOTS_BYTES: u64 = 1 << 29;

/// Inflates (or copies, when stored) every chunk, each in parallel into its own `limit`-byte
/// slot of one buffer, then closes the gaps short chunks leave: the stream's bytes and where
/// each chunk starts in them. A deflate stream is inflated in one call into its slot; `None`
/// when a chunk does not end its deflate stream inside the slot or is stored and larger than
/// `limit` (the caller then inflates the stream as the one-chunk-at-a-time reader does, and
/// reports what it reports).
fn inflate_chunks(
    chunks: &[(usize, &[u8], bool)],
    limit: u64,
) -> Option<(Vec<u8>, Vec<ChunkStart>)> {
    let slot = usize::try_from(limit).ok().filter(|&s| s > 0)?;
    if (chunks.len() as u64).saturating_mul(limit) > MAX_SLOTS_BYTES {
        return None;
    }
    let mut out = vec![0u8; chunks.len().checked_mul(slot)?];
    let lengths: Vec<Option<usize>> = out
        .par_chunks_mut(slot)
        .zip(chunks.par_iter())
        .map(|(dst, &(_, chunk, original))| {
            if original {
                dst.get_mut(..chunk.len())?.copy_from_slice(chunk);
                return Some(chunk.len());
            }
            let mut inflater = flate2::Decompress::new(false);
            match inflater.decompress(chunk, dst, flate2::FlushDecompress::Finish) {
                Ok(flate2::Status::StreamEnd) => usize::try_from(inflater.total_out()).ok(),
                _ => None,
            }
        })
        .collect();
    let mut starts = Vec::with_capacity(chunks.len());
    let mut end = 0usize;
    for (i, (&(offset, _, _), len)) in chunks.iter().zip(lengths).enumerate() {
        let len = len?;
        starts.push(ChunkStart {
            compressed: offset as u64,
            decompressed: end as u64,
        });
        let from = i * slot;
        if from != end {
            out.copy_within(from..from + len, end);
        }
        end += len;
    }
    out.truncate(end);
    Some((out, starts))
}

/// Decodes row group `group` of `plan` on its own, from its starts in the decompressed streams:
/// its PRESENT bits, then as many DATA values as those bits mark. One value per row, `None` for
/// a null; booleans as 0 and 1, tinyints sign-extended. A value outside the column's type is
/// `Corrupt`, as in the whole-stripe decode.
pub fn decode_group(plan: &ColumnPlan, group: usize) -> Result<Vec<Option<i64>>> {
    let g = plan.groups.get(group).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "row group {group} does not exist ({} groups in stripe {})",
            plan.groups.len(),
            plan.stripe
        ))
    })?;
    let fail = |reason: String| group_error(plan, group, &reason);
    let rows = usize::try_from(g.rows)
        .map_err(|_| fail(format!("{} rows do not fit in memory", g.rows)))?;
    let present = match present_of(plan, g).map_err(fail)? {
        Some((bytes, start)) => {
            let mut bits = vec![
                false;
                checked_len(bytes, start, DataKind::Boolean, rows)
                    .map_err(|r| fail(format!("PRESENT stream: {r}")))?
            ];
            decode_run_prefix(
                DataKind::Boolean,
                bytes,
                start,
                &mut Values::Bits(&mut bits),
            )
            .map_err(|r| fail(format!("PRESENT stream: {r}")))?;
            Some(bits)
        }
        None => None,
    };
    let n = present
        .as_ref()
        .map_or(rows, |p| p.iter().filter(|&&b| b).count());
    let n = checked_len(&plan.data, &g.data, plan.kind, n)
        .map_err(|r| fail(format!("DATA stream: {r}")))?;
    let values: Vec<i64> = match plan.kind {
        DataKind::Boolean => {
            let mut bits = vec![false; n];
            decode_run_prefix(plan.kind, &plan.data, &g.data, &mut Values::Bits(&mut bits))
                .map_err(|r| fail(format!("DATA stream: {r}")))?;
            bits.into_iter().map(i64::from).collect()
        }
        DataKind::Byte => {
            let mut bytes = vec![0u8; n];
            decode_run_prefix(
                plan.kind,
                &plan.data,
                &g.data,
                &mut Values::Bytes(&mut bytes),
            )
            .map_err(|r| fail(format!("DATA stream: {r}")))?;
            bytes.into_iter().map(|b| i64::from(b as i8)).collect()
        }
        DataKind::IntV1 | DataKind::IntV2 => {
            let mut ints = vec![0i64; n];
            decode_run_prefix(plan.kind, &plan.data, &g.data, &mut Values::Ints(&mut ints))
                .map_err(|r| fail(format!("DATA stream: {r}")))?;
            ints
        }
    };
    if let Some((lo, hi)) = range_of(plan.column.kind) {
        if let Some(v) = values.iter().find(|v| !(lo..=hi).contains(*v)) {
            return Err(fail(format!(
                "value {v} does not fit type {}",
                plan.column.type_name
            )));
        }
    }
    let Some(present) = present else {
        return Ok(values.into_iter().map(Some).collect());
    };
    let mut values = values.into_iter();
    Ok(present
        .into_iter()
        .map(|p| if p { values.next() } else { None })
        .collect())
}

/// Integer values of a stripe column, one per row: the CPU twin of the GPU's warp-per-row-group
/// decode (nulls are 0 in `values`, as the GPU writes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenseColumn<T> {
    /// One value per row (0 where the row is null).
    pub values: Vec<T>,
    /// One flag per row, true where the row has a value; `None` when the stripe has no PRESENT
    /// stream (every row has one).
    pub valid: Option<Vec<bool>>,
}

/// Decodes every row group of an integer-RLE `plan` (DATA in Integer RLE v1 or v2) straight into
/// values of `T` (i16 for smallint, i32 for int and date, i64 for bigint), row group by row
/// group exactly as [`decode_group`] does, with the same checks and errors, but without its
/// `Option<i64>` per row. A value that does not fit `T` is an error naming the row group.
/// Other kinds of DATA (booleans, bytes) are `Unsupported` here: [`decode_plan`] reads them.
pub fn decode_plan_dense<T: orc_rle::OrcInt>(plan: &ColumnPlan) -> Result<DenseColumn<T>> {
    let total = usize::try_from(plan.rows)
        .map_err(|_| plan_error(plan.stripe, &plan.column, "too many rows for memory"))?;
    let mut values = vec![T::default(); total];
    let mut valid = plan.present.as_ref().map(|_| vec![false; total]);
    decode_plan_dense_into(plan, &mut values, valid.as_deref_mut())?;
    Ok(DenseColumn { values, valid })
}

/// [`decode_plan_dense`] into buffers the caller holds (reused across stripes or runs):
/// `values` of exactly the stripe's rows, and `valid` of as many flags where the stripe has a
/// PRESENT stream (`None` where it has none). A length that does not match is an error.
pub fn decode_plan_dense_into<T: orc_rle::OrcInt>(
    plan: &ColumnPlan,
    values: &mut [T],
    mut valid: Option<&mut [bool]>,
) -> Result<()> {
    if !matches!(plan.kind, DataKind::IntV1 | DataKind::IntV2) {
        return Err(Error::Unsupported(format!(
            "dense decode of {} DATA (ORC column '{}')",
            plan.kind.name(),
            plan.column.name
        )));
    }
    let total = values.len();
    if total as u64 != plan.rows
        || valid.as_ref().map(|v| v.len()) != plan.present.as_ref().map(|_| total)
    {
        return Err(Error::InvalidArgument(format!(
            "dense decode of ORC column '{}': buffers for {total} rows{}, the stripe has {}{}",
            plan.column.name,
            if valid.is_some() { " with flags" } else { "" },
            plan.rows,
            if plan.present.is_some() {
                " and a PRESENT stream"
            } else {
                ""
            }
        )));
    }
    let mut row0 = 0usize;
    for (group, g) in plan.groups.iter().enumerate() {
        let fail = |reason: String| group_error(plan, group, &reason);
        let rows = usize::try_from(g.rows)
            .ok()
            .filter(|&r| r <= total - row0)
            .ok_or_else(|| fail(format!("{} rows run past the stripe's {total}", g.rows)))?;
        // `valid` is there exactly when the stripe has a PRESENT stream (checked above).
        let n = match (present_of(plan, g).map_err(fail)?, valid.as_deref_mut()) {
            (Some((bytes, start)), Some(valid)) => {
                let flags = &mut valid[row0..row0 + rows];
                checked_len(bytes, start, DataKind::Boolean, rows)
                    .map_err(|r| fail(format!("PRESENT stream: {r}")))?;
                decode_run_prefix(DataKind::Boolean, bytes, start, &mut Values::Bits(flags))
                    .map_err(|r| fail(format!("PRESENT stream: {r}")))?;
                flags.iter().filter(|&&b| b).count()
            }
            _ => rows,
        };
        let n = checked_len(&plan.data, &g.data, plan.kind, n)
            .map_err(|r| fail(format!("DATA stream: {r}")))?;
        let out = &mut values[row0..row0 + rows];
        decode_int_prefix(plan.kind, &plan.data, &g.data, &mut out[..n])
            .map_err(|r| fail(format!("DATA stream: {r}")))?;
        if let Some(valid) = valid.as_deref() {
            // Spread the group's n values over its rows, from the last row back (a value only
            // moves to a later slot, so none is overwritten before it moves).
            let mut k = n;
            for (r, &present) in valid[row0..row0 + rows].iter().enumerate().rev() {
                if present {
                    k -= 1;
                    out[r] = out[k];
                } else {
                    out[r] = T::default();
                }
            }
        }
        row0 += rows;
    }
    if row0 != total {
        return Err(plan_error(
            plan.stripe,
            &plan.column,
            &format!("the row groups hold {row0} rows, the stripe {total}"),
        ));
    }
    Ok(())
}

/// Decodes every row group of `plan` in order, each on its own: the stripe's rows.
pub fn decode_plan(plan: &ColumnPlan) -> Result<Vec<Option<i64>>> {
    let mut rows = Vec::new();
    for g in 0..plan.groups.len() {
        rows.extend(decode_group(plan, g)?);
    }
    if rows.len() as u64 != plan.rows {
        return Err(Error::Corrupt {
            chunk: plan.stripe,
            reason: format!(
                "ORC stripe {} column '{}': the row groups hold {} rows, the stripe {}",
                plan.stripe,
                plan.column.name,
                rows.len(),
                plan.rows
            ),
        });
    }
    Ok(rows)
}

/// Decodes `column` of every stripe row group by row group (see [`decode_group`]) into the same
/// Arrow array as [`OrcFile::read_column`].
pub fn read_column_by_row_groups(file: &OrcFile, column: &OrcColumn) -> Result<ArrayRef> {
    let mut rows = Vec::new();
    for plan in plan_file_column(file, column)? {
        rows.extend(decode_plan(&plan)?);
    }
    let array: ArrayRef = match column.kind {
        TypeKind::Boolean => Arc::new(BooleanArray::from(
            rows.into_iter()
                .map(|v| v.map(|b| b != 0))
                .collect::<Vec<_>>(),
        )),
        TypeKind::Byte => Arc::new(Int8Array::from(narrow::<i8>(rows, column)?)),
        TypeKind::Short => Arc::new(Int16Array::from(narrow::<i16>(rows, column)?)),
        TypeKind::Int => Arc::new(Int32Array::from(narrow::<i32>(rows, column)?)),
        TypeKind::Long => Arc::new(Int64Array::from(rows)),
        TypeKind::Date => Arc::new(Date32Array::from(narrow::<i32>(rows, column)?)),
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    };
    Ok(array)
}

/// Values known to fit `T` (`decode_group` checked them) as `T`.
fn narrow<T: TryFrom<i64>>(rows: Vec<Option<i64>>, column: &OrcColumn) -> Result<Vec<Option<T>>> {
    rows.into_iter()
        .map(|v| {
            v.map(|v| {
                T::try_from(v).map_err(|_| {
                    Error::CorruptContainer(format!(
                        "ORC column '{}': value {v} does not fit type {}",
                        column.name, column.type_name
                    ))
                })
            })
            .transpose()
        })
        .collect()
}

/// The range of a type narrower than 64 bits (booleans and tinyints cannot leave theirs).
fn range_of(kind: TypeKind) -> Option<(i64, i64)> {
    match kind {
        TypeKind::Short => Some((i16::MIN.into(), i16::MAX.into())),
        TypeKind::Int | TypeKind::Date => Some((i32::MIN.into(), i32::MAX.into())),
        _ => None,
    }
}

/// Where one group's values go.
enum Values<'a> {
    Bits(&'a mut [bool]),
    Bytes(&'a mut [u8]),
    Ints(&'a mut [i64]),
}

/// `n` (the values wanted) once checked against what the stream can hold from `start` on.
fn checked_len(
    bytes: &[u8],
    start: &StreamStart,
    kind: DataKind,
    n: usize,
) -> std::result::Result<usize, String> {
    let rest = tail(bytes, start)?;
    let skipped = if kind == DataKind::Boolean {
        start
            .skip
            .saturating_mul(8)
            .saturating_add(u64::from(start.bit_skip))
    } else {
        start.skip
    };
    let wanted = skipped.saturating_add(n as u64);
    if n > 0 && wanted > (rest.len() as u64).saturating_mul(MAX_VALUES_PER_BYTE) {
        return Err(format!(
            "{} bytes from byte {} cannot hold {n} values after skipping {skipped}",
            rest.len(),
            start.byte
        ));
    }
    Ok(n)
}

/// The stream from `start.byte` on.
fn tail<'a>(bytes: &'a [u8], start: &StreamStart) -> std::result::Result<&'a [u8], String> {
    usize::try_from(start.byte)
        .ok()
        .and_then(|b| bytes.get(b..))
        .ok_or_else(|| {
            format!(
                "the group starts at byte {}, past the stream's end ({} bytes)",
                start.byte,
                bytes.len()
            )
        })
}

/// Fills `out` from the stream at `start` with the prefix decoder of `kind`.
fn decode_run_prefix(
    kind: DataKind,
    bytes: &[u8],
    start: &StreamStart,
    out: &mut Values<'_>,
) -> std::result::Result<(), String> {
    let wanted = match out {
        Values::Bits(o) => o.len(),
        Values::Bytes(o) => o.len(),
        Values::Ints(o) => return decode_int_prefix(kind, bytes, start, o),
    };
    if wanted == 0 {
        return Ok(());
    }
    let rest = tail(bytes, start)?;
    let skip = usize::try_from(start.skip).map_err(|_| format!("skip {} too large", start.skip))?;
    let result = match (kind, out) {
        (DataKind::Boolean, Values::Bits(o)) => {
            orc_rle::decode_bool_rle_prefix(rest, skip, start.bit_skip, o)
        }
        (DataKind::Byte, Values::Bytes(o)) => orc_rle::decode_byte_rle_prefix(rest, skip, o),
        _ => return Err(format!("{} values of the wrong type", kind.name())),
    };
    result
        .map(|_| ())
        .map_err(|status| run_error(status, wanted, start))
}

/// [`decode_run_prefix`] of Integer RLE v1 or v2 DATA into values of any integer type `T` (one
/// that a value does not fit is `Corrupt`).
fn decode_int_prefix<T: orc_rle::OrcInt>(
    kind: DataKind,
    bytes: &[u8],
    start: &StreamStart,
    out: &mut [T],
) -> std::result::Result<(), String> {
    if out.is_empty() {
        return Ok(());
    }
    let rest = tail(bytes, start)?;
    let skip = usize::try_from(start.skip).map_err(|_| format!("skip {} too large", start.skip))?;
    let result = match kind {
        DataKind::IntV1 => orc_rle::decode_int_rle_v1_prefix(rest, true, skip, out),
        DataKind::IntV2 => orc_rle::decode_int_rle_v2_prefix(rest, true, skip, out),
        _ => return Err(format!("{} values of the wrong type", kind.name())),
    };
    result
        .map(|_| ())
        .map_err(|status| run_error(status, out.len(), start))
}

/// What a failed run read from `start` says: the stream ending before the `wanted` values, or
/// the decoder's status.
fn run_error(status: ChunkStatus, wanted: usize, start: &StreamStart) -> String {
    match status {
        ChunkStatus::Underflow => format!(
            "the stream ends before the group's {wanted} values (from byte {}, skipping {})",
            start.byte, start.skip
        ),
        other => format!("{} (from byte {})", other.reason(), start.byte),
    }
}

/// The stripe's PRESENT stream and the group's start in it (`None` when the stripe has none);
/// the reason when only one of the two exists.
fn present_of<'a>(
    plan: &'a ColumnPlan,
    g: &'a RowGroup,
) -> std::result::Result<Option<(&'a [u8], &'a StreamStart)>, String> {
    match (&plan.present, &g.present) {
        (Some(bytes), Some(start)) => Ok(Some((bytes, start))),
        (None, None) => Ok(None),
        (Some(_), None) => {
            Err("the stripe has a PRESENT stream but the group no start in it".into())
        }
        (None, Some(_)) => {
            Err("the group has a PRESENT start but the stripe no PRESENT stream".into())
        }
    }
}

pub(crate) fn plan_error(stripe: usize, column: &OrcColumn, reason: &str) -> Error {
    Error::Corrupt {
        chunk: stripe,
        reason: format!("ORC stripe {stripe} column '{}': {reason}", column.name),
    }
}

fn group_error(plan: &ColumnPlan, group: usize, reason: &str) -> Error {
    plan_error(
        plan.stripe,
        &plan.column,
        &format!("row group {group}: {reason}"),
    )
}
