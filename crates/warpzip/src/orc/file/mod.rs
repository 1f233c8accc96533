//! The file's structure, below any decoding: the protobuf messages (`proto`), the tail read from
//! the end (`tail`), compression chunks and their inflation (`compression`), stripes and the
//! streams they locate (`stripe`), and [`OrcFile`], a file held in memory with its tail parsed.

pub mod compression;
pub mod proto;
pub mod stripe;
pub mod tail;

use super::place::Place;
use super::schema::{top_level_columns, OrcColumn};
use compression::Compression;
use stripe::Stripe;
use tail::FileTail;

use crate::error::{Error, Result};
use std::path::Path;

/// An ORC file held in memory with its tail parsed. Its columns are decoded by
/// [`OrcFile::read_batch`] (on the CPU or a GPU) and [`OrcFile::read_column`] (on the CPU).
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
        let columns = top_level_columns(&tail.footer.types)?;
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

    /// The whole file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.data
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

    /// The footer's row index stride as written (`None` or 0: the file has no row index).
    pub fn row_index_stride(&self) -> Option<u32> {
        self.tail.footer.row_index_stride
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

    /// The rows of `stripes` in all, as a count that fits in memory.
    pub(crate) fn rows_in(stripes: &[Stripe]) -> Result<usize> {
        stripes
            .iter()
            .try_fold(0usize, |acc, s| {
                usize::try_from(s.rows())
                    .ok()
                    .and_then(|r| acc.checked_add(r))
            })
            .ok_or_else(|| Place::file().corrupt("the stripes hold more rows than fit in memory"))
    }
}
