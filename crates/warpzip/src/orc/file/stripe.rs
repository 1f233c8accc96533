//! Stripes: each stripe's footer lists its streams (in file order, so their offsets are running
//! sums from the stripe's start) and the encoding of every column. This module locates streams
//! and hands out their decompressed bytes; it does not decode values.

use super::super::place::Place;
use super::compression::{decompress_stream, Compression};
use super::proto::{ColumnEncodingKind, RowIndex, StreamKind, StripeFooter, StripeInformation};
use crate::error::{Error, Result};
use prost::Message;
use std::borrow::Cow;

/// One stream of a stripe, located in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamInfo {
    /// The stream's kind, or `None` for a kind this reader does not know (it is skipped).
    pub kind: Option<StreamKind>,
    /// The column (schema type id) the stream belongs to.
    pub column: u32,
    /// Absolute byte offset in the file.
    pub offset: u64,
    /// Length in the file (compressed, with chunk headers, when the file is compressed).
    pub length: u64,
}

/// A stripe with its footer parsed and its streams located.
#[derive(Clone, Debug)]
pub struct Stripe {
    /// The stripe's position in the file's stripe list.
    pub index: usize,
    pub info: StripeInformation,
    pub footer: StripeFooter,
    pub streams: Vec<StreamInfo>,
}

impl Stripe {
    /// The rows the stripe holds.
    pub fn rows(&self) -> u64 {
        self.info.number_of_rows.unwrap_or(0)
    }

    /// The stream of `kind` for `column`, if the stripe has one.
    pub fn stream(&self, column: u32, kind: StreamKind) -> Option<&StreamInfo> {
        self.streams
            .iter()
            .find(|s| s.column == column && s.kind == Some(kind))
    }

    /// How `column` is encoded in this stripe.
    pub fn encoding(&self, column: u32) -> Result<ColumnEncodingKind> {
        let encoding = self.footer.columns.get(column as usize).ok_or_else(|| {
            self.corrupt(format!(
                "the footer has no encoding for column {column} ({} encodings)",
                self.footer.columns.len()
            ))
        })?;
        let raw = encoding.kind.unwrap_or(0);
        ColumnEncodingKind::try_from(raw)
            .map_err(|_| self.corrupt(format!("column {column} has unknown encoding {raw}")))
    }

    /// The decompressed bytes of a stream, or `None` when the stripe has no such stream.
    pub fn stream_bytes<'a>(
        &self,
        file: &'a [u8],
        compression: Compression,
        column: u32,
        kind: StreamKind,
    ) -> Result<Option<Cow<'a, [u8]>>> {
        let Some(stream) = self.stream(column, kind) else {
            return Ok(None);
        };
        // (The stripe knows the column's id, not its name.)
        let place = Place::stripe(self.index)
            .column(column, "")
            .stream(kind.name());
        // `read_stripe` checked that every stream lies inside the file.
        let bytes = slice(file, stream.offset, stream.length)
            .ok_or_else(|| place.corrupt("the stream is outside the file"))?;
        decompress_stream(bytes, compression, &place).map(Some)
    }

    /// The row index of `column` (one entry per row group), or `None` when the file has none.
    pub fn row_index(
        &self,
        file: &[u8],
        compression: Compression,
        column: u32,
    ) -> Result<Option<RowIndex>> {
        let Some(bytes) = self.stream_bytes(file, compression, column, StreamKind::RowIndex)?
        else {
            return Ok(None);
        };
        RowIndex::decode(bytes.as_ref()).map(Some).map_err(|e| {
            Place::stripe(self.index)
                .column(column, "")
                .stream(StreamKind::RowIndex.name())
                .corrupt(format!("the row index does not parse ({e})"))
        })
    }

    fn corrupt(&self, reason: String) -> Error {
        Place::stripe(self.index).corrupt(reason)
    }
}

/// Reads stripe `index`'s footer and locates its streams. `columns` is the schema's type count:
/// a stripe must give every column an encoding.
pub fn read_stripe(
    file: &[u8],
    compression: Compression,
    info: &StripeInformation,
    index: usize,
    columns: usize,
) -> Result<Stripe> {
    let corrupt = |reason: String| Place::stripe(index).corrupt(reason);
    let offset = info.offset.unwrap_or(0);
    let index_length = info.index_length.unwrap_or(0);
    let data_length = info.data_length.unwrap_or(0);
    let footer_length = info.footer_length.unwrap_or(0);
    let footer_offset = offset
        .checked_add(index_length)
        .and_then(|v| v.checked_add(data_length))
        .ok_or_else(|| corrupt("offsets overflow".to_string()))?;
    let footer_bytes = slice(file, footer_offset, footer_length).ok_or_else(|| {
        corrupt(format!(
            "footer ({footer_length} bytes at {footer_offset}) lies outside the {}-byte file",
            file.len()
        ))
    })?;
    let footer_bytes = decompress_stream(
        footer_bytes,
        compression,
        &Place::stripe(index).part("stripe footer"),
    )?;
    let footer = StripeFooter::decode(footer_bytes.as_ref())
        .map_err(|e| corrupt(format!("footer does not parse ({e})")))?;
    if footer.columns.len() < columns {
        return Err(corrupt(format!(
            "footer has {} column encodings for {columns} columns",
            footer.columns.len()
        )));
    }
    let mut streams = Vec::with_capacity(footer.streams.len());
    let mut at = offset;
    for s in &footer.streams {
        let length = s.length.unwrap_or(0);
        let column = s.column.unwrap_or(0);
        if column as usize >= columns {
            return Err(corrupt(format!(
                "a stream names column {column}, but the schema has {columns} columns"
            )));
        }
        let end = at
            .checked_add(length)
            .filter(|&end| end <= footer_offset)
            .ok_or_else(|| {
                corrupt(format!(
                    "stream of column {column} ({length} bytes at {at}) runs past the stripe's \
                     index and data ({} bytes)",
                    index_length.saturating_add(data_length)
                ))
            })?;
        streams.push(StreamInfo {
            kind: s.kind.and_then(|k| StreamKind::try_from(k).ok()),
            column,
            offset: at,
            length,
        });
        at = end;
    }
    Ok(Stripe {
        index,
        info: info.clone(),
        footer,
        streams,
    })
}

/// `file[offset..offset + length]`, or `None` when that is not inside the file.
fn slice(file: &[u8], offset: u64, length: u64) -> Option<&[u8]> {
    let start = usize::try_from(offset).ok()?;
    let end = start.checked_add(usize::try_from(length).ok()?)?;
    file.get(start..end)
}
