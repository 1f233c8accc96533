//! The reader's entry point: [`OrcFile::read_batch`] decodes the chosen columns on the device
//! asked for, and [`OrcFile::read_column`] one column on the CPU.

use super::arrow;
use super::column_tree;
use super::cpu;
use super::file::OrcFile;
use super::gpu;
use super::schema::OrcColumn;
use crate::device::Device;
use crate::error::Result;
use arrow_array::{ArrayRef, RecordBatch};
use column_tree::Decoder;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What a read did, column by column.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadStats {
    /// For each column of the batch, in its order: whether any of its streams was decompressed
    /// or decoded on the device (a GPU read of a column with nothing to decode there, such as
    /// the floats of an uncompressed file without nulls, stays on the host).
    pub on_device: Vec<bool>,
}

impl ReadStats {
    /// How many of the batch's columns were decoded on the device.
    pub fn columns_on_device(&self) -> usize {
        self.on_device.iter().filter(|&&d| d).count()
    }
}

impl OrcFile {
    /// Decodes one column of every stripe into one Arrow array on the CPU. A column of an
    /// unsupported type (a union) is an `Unsupported` error naming it.
    pub fn read_column(&self, column: &OrcColumn) -> Result<ArrayRef> {
        // The stripes are read first: a damaged stripe is reported before the column's type.
        let stripes = self.stripes()?;
        read_on_cpu(self, &stripes, column)
    }

    /// Decodes the named columns (all columns for `None`) into one record batch, in the order
    /// given, on `device`: on the CPU (the reference), or on a GPU, where the streams of a ZLIB,
    /// SNAPPY or LZ4 file are decompressed and the run-length streams of every column decoded
    /// (integer-family columns row group by row group, the others stream by stream down their
    /// type trees, the host assembling their Arrow buffers) before the columns are copied back.
    /// A column of an unsupported type (a union) is an `Unsupported` error naming it, an unknown
    /// name an `InvalidArgument` one.
    pub fn read_batch(&self, names: Option<&[&str]>, device: &Device) -> Result<RecordBatch> {
        self.read_batch_with_stats(names, device)
            .map(|(batch, _)| batch)
    }

    /// [`read_batch`](OrcFile::read_batch), also saying which columns were decoded on the
    /// device.
    pub fn read_batch_with_stats(
        &self,
        names: Option<&[&str]>,
        device: &Device,
    ) -> Result<(RecordBatch, ReadStats)> {
        let selected = self.selected(names)?;
        let stripes = self.stripes()?;
        let rows = OrcFile::rows_in(&stripes)?;
        let (arrays, on_device) = match device {
            Device::Cpu => (
                read_columns_on_cpu(self, &stripes, &selected)?,
                vec![false; selected.len()],
            ),
            Device::Gpu(g) => {
                // Integer-family columns by row groups, together; the others down their trees.
                let on_gpu: Vec<&OrcColumn> = selected
                    .iter()
                    .copied()
                    .filter(|c| c.is_supported())
                    .collect();
                let mut from_gpu = if on_gpu.is_empty() {
                    Vec::new()
                } else {
                    gpu::read_columns(g, self, &on_gpu)?
                }
                .into_iter();
                let mut arrays = Vec::with_capacity(selected.len());
                let mut on_device = Vec::with_capacity(selected.len());
                for c in &selected {
                    if c.is_supported() {
                        arrays.push(from_gpu.next().ok_or_else(|| {
                            crate::error::Error::Driver(format!(
                                "ORC column '{}' did not come back from the GPU",
                                c.name
                            ))
                        })?);
                        on_device.push(true);
                    } else {
                        c.check_readable()?;
                        let used = AtomicUsize::new(0);
                        arrays.push(column_tree::read_column_on(
                            self,
                            &stripes,
                            c,
                            Decoder::Gpu(g, &used),
                        )?);
                        on_device.push(used.load(Ordering::Relaxed) > 0);
                    }
                }
                (arrays, on_device)
            }
        };
        let batch = arrow::record_batch(&selected, arrays, rows)?;
        Ok((batch, ReadStats { on_device }))
    }

    /// [`read_batch`](OrcFile::read_batch) in pieces: record batches of whole consecutive
    /// stripes, each of at most `max_rows` rows (a larger stripe is a batch of its own), decoded
    /// one at a time as the iterator is advanced, so that memory follows the batch rather than
    /// the file. On a GPU the file is decoded as one batch (its streams go to the device
    /// together). Names are checked before the first batch.
    pub fn read_batches<'a>(
        &'a self,
        names: Option<&[&str]>,
        device: &'a Device,
        max_rows: u64,
    ) -> Result<Box<dyn Iterator<Item = Result<RecordBatch>> + 'a>> {
        let selected = self.selected(names)?;
        let stripes = self.stripes()?;
        if device.is_gpu() || stripes.len() <= 1 {
            let names: Vec<&str> = selected.iter().map(|c| c.name.as_str()).collect();
            return Ok(Box::new(std::iter::once(
                self.read_batch(Some(&names), device),
            )));
        }
        // Consecutive stripes, cut where adding the next would pass `max_rows`.
        let mut groups: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 0;
        let mut rows = 0u64;
        for (i, s) in stripes.iter().enumerate() {
            if i > start && rows.saturating_add(s.rows()) > max_rows {
                groups.push(start..i);
                start = i;
                rows = 0;
            }
            rows = rows.saturating_add(s.rows());
        }
        groups.push(start..stripes.len());
        Ok(Box::new(groups.into_iter().map(move |range| {
            let part = &stripes[range];
            let rows = OrcFile::rows_in(part)?;
            let arrays = read_columns_on_cpu(self, part, &selected)?;
            arrow::record_batch(&selected, arrays, rows)
        })))
    }

    /// The named columns (all for `None`), each of a supported type.
    fn selected(&self, names: Option<&[&str]>) -> Result<Vec<&OrcColumn>> {
        let selected: Vec<&OrcColumn> = match names {
            Some(names) => names
                .iter()
                .map(|n| self.column(n))
                .collect::<Result<_>>()?,
            None => self.columns().iter().collect(),
        };
        for c in &selected {
            c.check_readable()?;
        }
        Ok(selected)
    }
}

/// `columns` of `stripes` on the CPU, in their order, decoded side by side on the rayon pool
/// (each column's own stripes and row groups share the same pool). Where several fail, the
/// error is the first failing column's in that order, whichever failed first in time.
fn read_columns_on_cpu(
    file: &OrcFile,
    stripes: &[super::file::stripe::Stripe],
    columns: &[&OrcColumn],
) -> Result<Vec<ArrayRef>> {
    columns
        .par_iter()
        .map(|c| read_on_cpu(file, stripes, c))
        .collect::<Vec<Result<ArrayRef>>>()
        .into_iter()
        .collect()
}

/// `column` of `stripes` on the CPU: integer-family columns by row groups (`cpu`), the others
/// down their type tree (`column_tree`).
fn read_on_cpu(
    file: &OrcFile,
    stripes: &[super::file::stripe::Stripe],
    column: &OrcColumn,
) -> Result<ArrayRef> {
    if column.is_supported() {
        cpu::read_column(file, stripes, column)
    } else {
        column.check_readable()?;
        column_tree::read_column(file, stripes, column)
    }
}
