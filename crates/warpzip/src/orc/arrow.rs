//! Arrow arrays and record batches from decoded ORC columns: the one place the reader assembles
//! them, whether the values come from the CPU decoder (typed buffers, or one `Option<i64>` per
//! row) or from the GPU (little-endian bytes and one validity byte per row). Dates are days
//! since 1970-01-01, Arrow's Date32; a validity bitmap is attached only when some row is null.

use super::file::proto::TypeKind;
use super::place::Place;
use super::schema::OrcColumn;
use crate::error::{Error, Result};
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
    RecordBatch, RecordBatchOptions,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, ScalarBuffer};
use arrow_schema::{Field, Schema};
use std::sync::Arc;

/// A boolean column from one flag per row.
pub(crate) fn booleans(values: &[bool], nulls: Option<NullBuffer>) -> ArrayRef {
    let bits = BooleanBuffer::collect_bool(values.len(), |i| values[i]);
    Arc::new(BooleanArray::new(bits, nulls))
}

/// The column's array from `rows` values, little-endian, of the width of its type (booleans:
/// one byte each, 0 for false), and its nulls.
pub(crate) fn from_buffer(
    column: &OrcColumn,
    values: Buffer,
    nulls: Option<NullBuffer>,
    rows: usize,
) -> Result<ArrayRef> {
    let width = column
        .value_width()
        .ok_or_else(|| Error::Unsupported(format!("ORC column '{}'", column.name)))?;
    if Some(values.len()) != rows.checked_mul(width) {
        return Err(Error::InvalidArgument(format!(
            "ORC column '{}': {} bytes of values for {rows} rows",
            column.name,
            values.len()
        )));
    }
    Ok(match column.kind {
        TypeKind::Boolean => {
            let bytes = values.as_slice();
            let bits = BooleanBuffer::collect_bool(rows, |i| bytes[i] != 0);
            Arc::new(BooleanArray::new(bits, nulls))
        }
        TypeKind::Byte => Arc::new(Int8Array::new(ScalarBuffer::new(values, 0, rows), nulls)),
        TypeKind::Short => Arc::new(Int16Array::new(ScalarBuffer::new(values, 0, rows), nulls)),
        TypeKind::Int => Arc::new(Int32Array::new(ScalarBuffer::new(values, 0, rows), nulls)),
        TypeKind::Date => Arc::new(Date32Array::new(ScalarBuffer::new(values, 0, rows), nulls)),
        TypeKind::Long => Arc::new(Int64Array::new(ScalarBuffer::new(values, 0, rows), nulls)),
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    })
}

/// [`from_buffer`] with the nulls given as one byte per row (0 for null), where the column may
/// have nulls.
pub(crate) fn from_valid_bytes(
    column: &OrcColumn,
    values: Buffer,
    valid: Option<&[u8]>,
    rows: usize,
) -> Result<ArrayRef> {
    if valid.is_some_and(|v| v.len() != rows) {
        return Err(Error::InvalidArgument(format!(
            "ORC column '{}': validity of {} rows for {rows} rows",
            column.name,
            valid.map_or(0, <[u8]>::len)
        )));
    }
    let nulls = valid
        .filter(|v| v.contains(&0))
        .map(|v| NullBuffer::new(BooleanBuffer::collect_bool(rows, |i| v[i] != 0)));
    from_buffer(column, values, nulls, rows)
}

/// The column's array from one value per row, `None` for a null (booleans as 0 and 1). A value
/// outside the column's type is an error (the decoders check the range first).
pub(crate) fn from_rows(column: &OrcColumn, rows: Vec<Option<i64>>) -> Result<ArrayRef> {
    let n = rows.len();
    let nulls = rows
        .iter()
        .any(Option::is_none)
        .then(|| NullBuffer::new(BooleanBuffer::collect_bool(n, |i| rows[i].is_some())));
    if column.kind == TypeKind::Boolean {
        let bits = BooleanBuffer::collect_bool(n, |i| rows[i].is_some_and(|v| v != 0));
        return Ok(Arc::new(BooleanArray::new(bits, nulls)));
    }
    fn narrow<T: TryFrom<i64> + arrow_buffer::ArrowNativeType>(
        column: &OrcColumn,
        rows: Vec<Option<i64>>,
    ) -> Result<Buffer> {
        let mut values: Vec<T> =
            crate::error::try_with_capacity(rows.len(), "an ORC column's values")?;
        for v in rows {
            let v = v.unwrap_or(0);
            values.push(T::try_from(v).map_err(|_| {
                Place::file()
                    .column(column.id, &column.name)
                    .corrupt(format!("value {v} does not fit type {}", column.type_name))
            })?);
        }
        Ok(Buffer::from_vec(values))
    }
    let values = match column.kind {
        TypeKind::Byte => narrow::<i8>(column, rows)?,
        TypeKind::Short => narrow::<i16>(column, rows)?,
        TypeKind::Int | TypeKind::Date => narrow::<i32>(column, rows)?,
        TypeKind::Long => narrow::<i64>(column, rows)?,
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    };
    from_buffer(column, values, nulls, n)
}

/// One record batch of `rows` rows from the columns' arrays, in the order given.
pub(crate) fn record_batch(
    columns: &[&OrcColumn],
    arrays: Vec<ArrayRef>,
    rows: usize,
) -> Result<RecordBatch> {
    let fields: Vec<Field> = columns
        .iter()
        .zip(&arrays)
        .map(|(c, a)| Field::new(c.name.clone(), a.data_type().clone(), true))
        .collect();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
        .map_err(|e| Place::file().corrupt(format!("the columns disagree: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use arrow_array::Array;

    fn column(kind: TypeKind) -> OrcColumn {
        OrcColumn {
            name: "c".into(),
            id: 1,
            kind,
            type_name: format!("{kind:?}"),
            unreadable: None,
        }
    }

    #[test]
    fn rows_and_buffers_make_the_same_arrays() {
        let rows = vec![Some(1), None, Some(-3), Some(0)];
        for kind in [
            TypeKind::Boolean,
            TypeKind::Byte,
            TypeKind::Short,
            TypeKind::Int,
            TypeKind::Date,
            TypeKind::Long,
        ] {
            let c = column(kind);
            let a = from_rows(&c, rows.clone()).unwrap();
            assert_eq!(a.len(), 4);
            assert_eq!(a.null_count(), 1, "{kind:?}");
            let width = c.value_width().unwrap();
            let mut bytes = vec![0u8; 4 * width];
            for (i, v) in rows.iter().enumerate() {
                let v = v.unwrap_or(0);
                let v = if kind == TypeKind::Boolean {
                    i64::from(v != 0)
                } else {
                    v
                };
                bytes[i * width..(i + 1) * width].copy_from_slice(&v.to_le_bytes()[..width]);
            }
            let b = from_valid_bytes(&c, Buffer::from_vec(bytes), Some(&[1, 0, 1, 1]), 4).unwrap();
            assert_eq!(a.to_data(), b.to_data(), "{kind:?}");
        }
        // No nulls, no bitmap.
        let a = from_rows(&column(TypeKind::Int), vec![Some(1), Some(2)]).unwrap();
        assert!(a.nulls().is_none());
        let e = from_rows(&column(TypeKind::Short), vec![Some(1 << 20)]).unwrap_err();
        assert!(matches!(e, Error::CorruptOrc(_)), "{e}");
        let string = OrcColumn {
            kind: TypeKind::String,
            ..column(TypeKind::Int)
        };
        assert!(from_rows(&string, vec![Some(1)]).is_err());
        assert!(from_buffer(
            &column(TypeKind::Int),
            Buffer::from_vec(vec![0u8; 3]),
            None,
            1
        )
        .is_err());
    }
}
