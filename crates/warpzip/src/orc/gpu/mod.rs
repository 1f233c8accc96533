//! ORC integer-family columns decoded on the GPU. The plan (`orc::plan`) says where every row
//! group starts in the decompressed PRESENT and DATA streams; a file without a row index gets one
//! group per stripe. A ZLIB, SNAPPY or LZ4 file's compression chunks are decompressed on the
//! GPU (`inflate`, the columns read together in one batch), or on the CPU while the plans are
//! made (ZSTD always). `streams` decompresses and decodes whole streams on the GPU for the
//! type-tree decoder (`orc::column_tree`). `layout` lays
//! the row groups out for the kernels, `launch` runs them; the host turns the downloaded values
//! and validity bytes into Arrow arrays (`orc::arrow`).

mod inflate;
mod launch;
mod layout;
pub(crate) mod streams;

pub use launch::{DeviceColumn, GroupMode};
pub use layout::{OrcGroup, PlanShape, PreparedColumn};

use super::arrow;
use super::file::OrcFile;
use super::plan::{plan_file_column, ColumnPlan};
use super::schema::OrcColumn;
use crate::error::{try_zeroed, try_zeroed_of, Error, Result};
use crate::gpu::GpuContext;
use arrow_array::ArrayRef;
use arrow_buffer::MutableBuffer;
use launch::diagnostic_flags;
use layout::too_big;
use rayon::prelude::*;

/// Decodes `column` of every stripe on the GPU into one Arrow array. A ZLIB, SNAPPY or LZ4
/// file's streams are decompressed on the GPU too (`inflate`): nothing is decompressed on the
/// CPU but the row index.
pub fn read_column(gpu: &GpuContext, file: &OrcFile, column: &OrcColumn) -> Result<ArrayRef> {
    let (prepared, dev) = decode_on_device(gpu, file, column, false)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// [`read_column`] with the streams inflated on the CPU while the plans are made, and the row
/// groups of integer columns spread over the GPU as `mode` says (tests compare the two modes).
pub fn read_column_in_mode(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
) -> Result<ArrayRef> {
    read_column_with_flags(gpu, file, column, mode, diagnostic_flags())
}

/// [`read_column_in_mode`] with the block kernels' diagnostic flags (see `diagnostic_flags`)
/// given rather than read from `WARPZIP_ORC_RG_FLAGS`: for tests that need one path taken.
pub fn read_column_with_flags(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
    flags: u32,
) -> Result<ArrayRef> {
    read_column_on_device(gpu, file, column, mode, flags, None)
}

/// [`read_column_with_flags`] with the device outputs (values and validity) overwritten by
/// `poison` before the kernels run: for tests, so that a row no kernel wrote cannot pass as a
/// zero, a null or `false`.
pub fn read_column_poisoned(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
    flags: u32,
    poison: u8,
) -> Result<ArrayRef> {
    read_column_on_device(gpu, file, column, mode, flags, Some(poison))
}

fn read_column_on_device(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
    flags: u32,
    poison: Option<u8>,
) -> Result<ArrayRef> {
    let plans = plan_file_column(file, column)?;
    let prepared = PreparedColumn::new(column, &plans)?;
    let mut dev = DeviceColumn::upload(gpu, &prepared)?;
    dev.mode = mode;
    dev.flags = flags;
    if let Some(byte) = poison {
        dev.poison_outputs(gpu, byte)?;
    }
    dev.launch(gpu, gpu.stream())?;
    dev.check(gpu, &prepared)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// [`read_column`] with the streams inflated on the CPU while the plans are made (the path of
/// ZLIB files before GPU inflate; kept for the benchmark's comparison).
pub fn read_column_cpu_inflate(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
) -> Result<ArrayRef> {
    let (prepared, dev) = decode_on_device(gpu, file, column, true)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// Decodes `column` into device memory (`dev.values`, `dev.valid`) and checks every row
/// group's status: the column ready for a GPU pipeline. ZLIB, SNAPPY and LZ4 streams are
/// decompressed on the GPU, or on the CPU while planning when `cpu_inflate` is set.
pub fn decode_on_device(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    cpu_inflate: bool,
) -> Result<(PreparedColumn, DeviceColumn)> {
    decode_columns_on_device(gpu, file, &[column], cpu_inflate)?
        .pop()
        .ok_or_else(|| Error::InvalidArgument("no column decoded".into()))
}

/// [`decode_on_device`] for several columns of one file: a ZLIB, SNAPPY or LZ4 file's streams
/// are decompressed together, in one GPU batch (or, with `cpu_inflate`, planned on all cores, column beside
/// column); every column's row groups are decoded before any status is read.
pub fn decode_columns_on_device(
    gpu: &GpuContext,
    file: &OrcFile,
    columns: &[&OrcColumn],
    cpu_inflate: bool,
) -> Result<Vec<(PreparedColumn, DeviceColumn)>> {
    for c in columns {
        c.check_supported()?;
    }
    let on_gpu = inflate::decompresses(file.compression().kind);
    let mut decoded = if on_gpu && !cpu_inflate {
        inflate::prepare_columns(gpu, file, columns)?
    } else {
        let plans: Vec<Vec<ColumnPlan>> = columns
            .par_iter()
            .map(|c| plan_file_column(file, c))
            .collect::<Result<_>>()?;
        columns
            .iter()
            .zip(&plans)
            .map(|(c, plans)| {
                let prepared = PreparedColumn::new(c, plans)?;
                let dev = DeviceColumn::upload(gpu, &prepared)?;
                Ok((prepared, dev))
            })
            .collect::<Result<_>>()?
    };
    for (_, dev) in &mut decoded {
        dev.launch(gpu, gpu.stream())?;
    }
    for (prepared, dev) in &decoded {
        dev.check(gpu, prepared)?;
    }
    Ok(decoded)
}

/// Downloads a decoded device column and turns it into an Arrow array.
fn to_host_arrow(
    gpu: &GpuContext,
    column: &OrcColumn,
    prepared: &PreparedColumn,
    dev: &DeviceColumn,
) -> Result<ArrayRef> {
    let rows = usize::try_from(prepared.rows).map_err(|_| too_big("the column"))?;
    let (mut values, width) = host_values(column, rows)?;
    if rows > 0 && width != prepared.width {
        return Err(Error::Driver(format!(
            "ORC column '{}': values of {} bytes for a type of {width}",
            column.name, prepared.width
        )));
    }
    gpu.download_into(&dev.values, values.as_slice_mut())?;
    // Only a row group with a PRESENT stream has nulls: the kernels mark every row of the
    // others valid, so without one the validity bytes are not fetched at all.
    let has_present = prepared
        .batches
        .iter()
        .any(|(_, groups)| groups.iter().any(|g| g.has_present != 0));
    let valid = if has_present {
        let mut valid = try_zeroed(rows, "an ORC column's validity")?;
        gpu.download_into(&dev.valid, &mut valid)?;
        Some(valid)
    } else {
        None
    };
    arrow::from_valid_bytes(column, values.into(), valid.as_deref(), rows)
}

/// A zeroed host buffer for `rows` values of the column's Arrow type, aligned for that type, and
/// the type's width in bytes (a column without stripes has no plan to say it). A zeroed `Vec`
/// of the value type comes from `calloc` (through `try_zeroed_of`), whose fresh pages are zero already: the 128-byte
/// aligned `MutableBuffer::from_len_zeroed` is zeroed byte by byte on one thread first, and
/// touching 512 MiB of fresh pages on one thread took 250 ms on the H200 machine's host.
fn host_values(column: &OrcColumn, rows: usize) -> Result<(MutableBuffer, usize)> {
    let width = column
        .value_width()
        .ok_or_else(|| Error::Unsupported(format!("ORC column '{}'", column.name)))?;
    rows.checked_mul(width)
        .ok_or_else(|| too_big("the column"))?;
    const WHAT: &str = "an ORC column's values";
    let values = match width {
        1 => MutableBuffer::from(try_zeroed_of::<u8>(rows, WHAT)?),
        2 => MutableBuffer::from(try_zeroed_of::<u16>(rows, WHAT)?),
        4 => MutableBuffer::from(try_zeroed_of::<u32>(rows, WHAT)?),
        _ => MutableBuffer::from(try_zeroed_of::<u64>(rows, WHAT)?),
    };
    Ok((values, width))
}

/// Decodes `columns` of `file` on the GPU into Arrow arrays, in the order given: a compressed
/// file's streams decompressed together in one GPU batch, every column decoded before any is downloaded.
pub(crate) fn read_columns(
    gpu: &GpuContext,
    file: &OrcFile,
    columns: &[&OrcColumn],
) -> Result<Vec<ArrayRef>> {
    let decoded = decode_columns_on_device(gpu, file, columns, false)?;
    columns
        .iter()
        .zip(&decoded)
        .map(|(c, (prepared, dev))| to_host_arrow(gpu, c, prepared, dev))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::orc::file::proto::TypeKind;

    #[test]
    fn host_buffers_make_arrays_of_every_type_and_length() {
        // Empty columns too: a file without stripes once gave a `u8` buffer to an `i32` array.
        for kind in [
            TypeKind::Boolean,
            TypeKind::Byte,
            TypeKind::Short,
            TypeKind::Int,
            TypeKind::Date,
            TypeKind::Long,
        ] {
            let column = OrcColumn {
                name: "c".into(),
                id: 1,
                kind,
                type_name: format!("{kind:?}"),
                unreadable: None,
            };
            for rows in [0usize, 1, 7, 1000] {
                let (mut values, width) = host_values(&column, rows).unwrap();
                assert_eq!(values.len(), rows * width);
                if let Some(first) = values.as_slice_mut().first_mut() {
                    *first = 1;
                }
                let mut valid = vec![1u8; rows];
                if rows > 1 {
                    valid[1] = 0;
                }
                let array =
                    arrow::from_valid_bytes(&column, values.into(), Some(&valid), rows).unwrap();
                assert_eq!(array.len(), rows, "{kind:?}");
                assert_eq!(array.null_count(), usize::from(rows > 1), "{kind:?}");
                if rows > 0 {
                    assert!(array.is_valid(0));
                }
            }
        }
        let string = OrcColumn {
            name: "s".into(),
            id: 2,
            kind: TypeKind::String,
            type_name: "string".into(),
            unreadable: None,
        };
        assert!(host_values(&string, 3).is_err());
    }
}
