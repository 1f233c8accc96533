//! The reader's entry point: [`OrcFile::read_batch`] decodes the chosen columns on the device
//! asked for, and [`OrcFile::read_column`] one column on the CPU.

use super::arrow;
use super::cpu;
use super::file::OrcFile;
use super::gpu;
use super::schema::OrcColumn;
use crate::device::Device;
use crate::error::Result;
use arrow_array::{ArrayRef, RecordBatch};

impl OrcFile {
    /// Decodes one column of every stripe into one Arrow array on the CPU. A column of an
    /// unsupported type is an `Unsupported` error naming it.
    pub fn read_column(&self, column: &OrcColumn) -> Result<ArrayRef> {
        // The stripes are read first: a damaged stripe is reported before the column's type.
        let stripes = self.stripes()?;
        cpu::read_column(self, &stripes, column)
    }

    /// Decodes the named columns (all columns for `None`) into one record batch, in the order
    /// given, on `device`: on the CPU (the reference), or on a GPU, where a ZLIB file's streams
    /// are inflated and the run-length streams decoded before the columns are copied back. A
    /// column of an unsupported type is an `Unsupported` error naming it, an unknown name an
    /// `InvalidArgument` one.
    pub fn read_batch(&self, names: Option<&[&str]>, device: &Device) -> Result<RecordBatch> {
        let selected: Vec<&OrcColumn> = match names {
            Some(names) => names
                .iter()
                .map(|n| self.column(n))
                .collect::<Result<_>>()?,
            None => self.columns().iter().collect(),
        };
        for c in &selected {
            c.check_supported()?;
        }
        let stripes = self.stripes()?;
        let rows = OrcFile::rows_in(&stripes)?;
        let arrays = match device {
            Device::Cpu => selected
                .iter()
                .map(|c| cpu::read_column(self, &stripes, c))
                .collect::<Result<Vec<_>>>()?,
            Device::Gpu(g) => gpu::read_columns(g, self, &selected)?,
        };
        arrow::record_batch(&selected, arrays, rows)
    }
}
