//! The plan of a column's read: for each stripe, the decompressed PRESENT and DATA streams of the
//! column and where each row group (`row_index_stride` rows, the last one of a stripe shorter)
//! starts in them, from the column's row index, so that every group can be decoded on its own
//! (by the CPU's row-group decoder in `cpu`, by a GPU block or warp in `gpu`).
//!
//! A row index entry's `positions` give, for each stream of the column in stream order (PRESENT
//! first when the stripe has one, then DATA): in a compressed file the offset of a compression
//! chunk's header from the stream's start and an offset in that chunk's decompressed bytes, in
//! an uncompressed file one byte offset; then the codec's own positions: one for Byte RLE and
//! Integer RLE v1/v2 (values to skip in the run that starts at that byte), two for Boolean RLE
//! (bytes to skip in the Byte RLE run, then bits to skip in the next byte). Writers leave out
//! the PRESENT positions of a stripe whose column has no nulls, as they leave out its PRESENT
//! stream.

use super::file::compression::{inflate_stream_mapped, ChunkMap, Compression};
use super::file::proto::{ColumnEncodingKind, CompressionKind, RowIndex, StreamKind, TypeKind};
use super::file::stripe::Stripe;
use super::file::OrcFile;
use super::schema::OrcColumn;
use crate::codec::orc_rle;
use crate::error::{Error, Result};
use rayon::prelude::*;

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
/// under 8): a bad one is `Error::CorruptOrc` naming the stripe, column and row group.
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
                        column.in_stripe(stripe.index).row_group(g).corrupt(reason)
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
    let stride = file.row_index_stride();
    // Stripes are planned in parallel; the first failure in stripe order is the one reported.
    let plans: Vec<Result<ColumnPlan>> = (0..file.stripe_count())
        .into_par_iter()
        .map(|s| {
            let stripe = file.stripe(s)?;
            plan_column(file.bytes(), file.compression(), &stripe, column, stride)
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
                    read_stream(file.bytes(), file.compression(), &stripe, column, kind)?
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
pub(crate) fn read_stream(
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
    let place = column.in_stripe(stripe.index).stream(kind.name());
    let (bytes, map) = inflate_stream_mapped(bytes, compression, &place)?;
    Ok(Some((bytes.into_owned(), map)))
}

pub(crate) fn plan_error(stripe: usize, column: &OrcColumn, reason: &str) -> Error {
    column.in_stripe(stripe).corrupt(reason)
}
