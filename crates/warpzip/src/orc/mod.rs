//! Apache ORC files read on the CPU: the file tail (`tail`), compression chunks (`compression`),
//! stripes and streams (`stripe`), and integer-family columns decoded into Arrow arrays
//! (`column`) through the ORC integer RLE decoders of `codec::orc_rle`. Other column types are
//! reported as unsupported, never mis-decoded.

pub mod column;
pub mod compression;
pub mod gpu;
pub mod gpu_inflate;
pub mod proto;
mod rle_bridge;
pub mod row_groups;
pub mod stripe;
pub mod tail;

pub use column::OrcColumn;
pub use compression::Compression;
pub use proto::{ColumnEncodingKind, CompressionKind, StreamKind, TypeKind};
pub use stripe::{StreamInfo, Stripe};
pub use tail::FileTail;

use crate::error::{Error, Result};
use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema};
use std::path::Path;
use std::sync::Arc;

/// An ORC file held in memory with its tail parsed.
#[derive(Clone, Debug)]
pub struct OrcFile {
    data: Vec<u8>,
    tail: FileTail,
    columns: Vec<OrcColumn>,
}

impl OrcFile {
    /// Parses the tail of a whole file held in memory.
    pub fn from_bytes(data: Vec<u8>) -> Result<OrcFile> {
        let tail = tail::read_tail(&data)?;
        let columns = column::top_level_columns(&tail.footer.types)?;
        Ok(OrcFile {
            data,
            tail,
            columns,
        })
    }

    /// Reads and parses the file at `path`.
    pub fn open(path: &Path) -> Result<OrcFile> {
        OrcFile::from_bytes(std::fs::read(path)?)
    }

    /// The parsed tail: postscript, footer, compression.
    pub fn tail(&self) -> &FileTail {
        &self.tail
    }

    /// The file's compression kind and block size.
    pub fn compression(&self) -> Compression {
        self.tail.compression
    }

    /// The rows the footer says the file holds.
    pub fn number_of_rows(&self) -> u64 {
        self.tail.number_of_rows()
    }

    /// The root struct's fields, in schema order.
    pub fn columns(&self) -> &[OrcColumn] {
        &self.columns
    }

    /// The column named `name`.
    pub fn column(&self, name: &str) -> Result<&OrcColumn> {
        self.columns.iter().find(|c| c.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.columns.iter().map(|c| c.name.as_str()).collect();
            Error::InvalidArgument(format!(
                "no column '{name}' in the ORC file (columns: {})",
                known.join(", ")
            ))
        })
    }

    /// How many stripes the file has.
    pub fn stripe_count(&self) -> usize {
        self.tail.footer.stripes.len()
    }

    /// Stripe `index` with its footer parsed and its streams located.
    pub fn stripe(&self, index: usize) -> Result<Stripe> {
        let info = self.tail.footer.stripes.get(index).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "stripe {index} does not exist ({} stripes)",
                self.stripe_count()
            ))
        })?;
        stripe::read_stripe(
            &self.data,
            self.tail.compression,
            info,
            index,
            self.tail.footer.types.len(),
        )
    }

    /// Every stripe, parsed.
    pub fn stripes(&self) -> Result<Vec<Stripe>> {
        (0..self.stripe_count()).map(|i| self.stripe(i)).collect()
    }

    /// Decodes one column of every stripe into one Arrow array (on the CPU).
    pub fn read_column(&self, column: &OrcColumn) -> Result<ArrayRef> {
        let stripes = self.stripes()?;
        column::decode_column(&self.data, self.tail.compression, &stripes, column)
    }

    /// Decodes the named columns (all columns for `None`) into one record batch, in the order
    /// given. Any column of an unsupported type is an `Unsupported` error naming it.
    pub fn read_batch(&self, names: Option<&[&str]>) -> Result<RecordBatch> {
        let selected: Vec<&OrcColumn> = match names {
            Some(names) => names
                .iter()
                .map(|n| self.column(n))
                .collect::<Result<_>>()?,
            None => self.columns.iter().collect(),
        };
        for c in &selected {
            c.check_supported()?;
        }
        let stripes = self.stripes()?;
        let mut fields = Vec::with_capacity(selected.len());
        let mut arrays = Vec::with_capacity(selected.len());
        for c in selected {
            let array = column::decode_column(&self.data, self.tail.compression, &stripes, c)?;
            fields.push(Field::new(c.name.clone(), array.data_type().clone(), true));
            arrays.push(array);
        }
        let rows = stripes
            .iter()
            .try_fold(0usize, |acc, s| {
                usize::try_from(s.rows())
                    .ok()
                    .and_then(|r| acc.checked_add(r))
            })
            .ok_or_else(|| {
                Error::CorruptContainer("ORC stripes hold more rows than fit in memory".into())
            })?;
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
            .map_err(|e| Error::CorruptContainer(format!("ORC columns disagree: {e}")))
    }
}
