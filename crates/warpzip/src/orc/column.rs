//! Columns: the schema's top-level fields, and the decoding of integer-family columns
//! (boolean, tinyint, smallint, int, bigint, date) from their PRESENT and DATA streams into Arrow
//! arrays. Any other type is an `Unsupported` error naming the column, never a guess.

use super::compression::Compression;
use super::proto::{ColumnEncodingKind, StreamKind, Type, TypeKind};
use super::rle_bridge;
use super::stripe::Stripe;
use crate::error::{Error, Result};
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
};
use std::sync::Arc;

/// Schema trees deeper than this are shown abbreviated (a file may nest types without end).
const MAX_TYPE_DEPTH: usize = 32;

/// One top-level column of an ORC file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrcColumn {
    /// The field name in the root struct.
    pub name: String,
    /// The column id: the index of its type in the footer's flattened schema, which is what
    /// streams and encodings refer to.
    pub id: u32,
    /// The type's kind.
    pub kind: TypeKind,
    /// The type as ORC writes it: `int`, `string`, `struct<a:int,b:string>`, `decimal(10,2)`.
    pub type_name: String,
}

impl OrcColumn {
    /// True for the types this reader decodes.
    pub fn is_supported(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Boolean
                | TypeKind::Byte
                | TypeKind::Short
                | TypeKind::Int
                | TypeKind::Long
                | TypeKind::Date
        )
    }

    /// An `Unsupported` error naming the column and its type, for the types not decoded.
    pub fn check_supported(&self) -> Result<()> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "ORC column '{}' has type {}; only boolean, tinyint, smallint, int, bigint and \
                 date columns are decoded",
                self.name, self.type_name
            )))
        }
    }
}

/// The root struct's fields. A file whose root is not a struct (old writers allowed a bare
/// type) gets one column named `_col0`.
pub fn top_level_columns(types: &[Type]) -> Result<Vec<OrcColumn>> {
    let root = types
        .first()
        .ok_or_else(|| Error::CorruptContainer("ORC footer has no schema".to_string()))?;
    if kind_of(root) != TypeKind::Struct {
        return Ok(vec![OrcColumn {
            name: "_col0".to_string(),
            id: 0,
            kind: kind_of(root),
            type_name: type_name(types, 0, 0),
        }]);
    }
    Ok(root
        .subtypes
        .iter()
        .zip(&root.field_names)
        .map(|(&id, name)| {
            let kind = types.get(id as usize).map_or(TypeKind::Struct, kind_of);
            OrcColumn {
                name: name.clone(),
                id,
                kind,
                type_name: type_name(types, id as usize, 0),
            }
        })
        .collect())
}

/// A type's kind; `read_tail` already rejected unknown kinds, so the fallback is never used.
fn kind_of(t: &Type) -> TypeKind {
    TypeKind::try_from(t.kind.unwrap_or(0)).unwrap_or(TypeKind::Struct)
}

/// The type as ORC's own tools print it.
pub fn type_name(types: &[Type], id: usize, depth: usize) -> String {
    let Some(t) = types.get(id) else {
        return "?".to_string();
    };
    if depth > MAX_TYPE_DEPTH {
        return "...".to_string();
    }
    let child = |i: usize| {
        t.subtypes.get(i).map_or("?".to_string(), |&s| {
            type_name(types, s as usize, depth + 1)
        })
    };
    match kind_of(t) {
        TypeKind::Boolean => "boolean".to_string(),
        TypeKind::Byte => "tinyint".to_string(),
        TypeKind::Short => "smallint".to_string(),
        TypeKind::Int => "int".to_string(),
        TypeKind::Long => "bigint".to_string(),
        TypeKind::Float => "float".to_string(),
        TypeKind::Double => "double".to_string(),
        TypeKind::String => "string".to_string(),
        TypeKind::Binary => "binary".to_string(),
        TypeKind::Timestamp => "timestamp".to_string(),
        TypeKind::TimestampInstant => "timestamp with local time zone".to_string(),
        TypeKind::Date => "date".to_string(),
        TypeKind::Decimal => format!(
            "decimal({},{})",
            t.precision.unwrap_or(38),
            t.scale.unwrap_or(10)
        ),
        TypeKind::Varchar => format!("varchar({})", t.maximum_length.unwrap_or(0)),
        TypeKind::Char => format!("char({})", t.maximum_length.unwrap_or(0)),
        TypeKind::List => format!("array<{}>", child(0)),
        TypeKind::Map => format!("map<{},{}>", child(0), child(1)),
        TypeKind::Union => {
            let parts: Vec<String> = (0..t.subtypes.len()).map(child).collect();
            format!("uniontype<{}>", parts.join(","))
        }
        TypeKind::Struct => {
            let parts: Vec<String> = t
                .field_names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{n}:{}", child(i)))
                .collect();
            format!("struct<{}>", parts.join(","))
        }
    }
}

/// One stripe's share of a column: the value of every row, `None` for a null.
type RowValues<T> = Vec<Option<T>>;

/// Decodes `column` across `stripes` into one Arrow array.
pub fn decode_column(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    column: &OrcColumn,
) -> Result<ArrayRef> {
    column.check_supported()?;
    let array: ArrayRef = match column.kind {
        TypeKind::Boolean => {
            let values = collect(stripes, |s| {
                decode_booleans_in(file, compression, s, column)
            })?;
            Arc::new(BooleanArray::from(values))
        }
        TypeKind::Byte => {
            let values = collect(stripes, |s| decode_bytes_in(file, compression, s, column))?;
            Arc::new(Int8Array::from(values))
        }
        TypeKind::Short => Arc::new(Int16Array::from(collect_ints::<i16>(
            file,
            compression,
            stripes,
            column,
        )?)),
        TypeKind::Int => Arc::new(Int32Array::from(collect_ints::<i32>(
            file,
            compression,
            stripes,
            column,
        )?)),
        TypeKind::Long => Arc::new(Int64Array::from(collect_ints::<i64>(
            file,
            compression,
            stripes,
            column,
        )?)),
        // Dates are days since 1970-01-01, Arrow's Date32.
        TypeKind::Date => Arc::new(Date32Array::from(collect_ints::<i32>(
            file,
            compression,
            stripes,
            column,
        )?)),
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    };
    Ok(array)
}

fn collect<T>(
    stripes: &[Stripe],
    mut per_stripe: impl FnMut(&Stripe) -> Result<RowValues<T>>,
) -> Result<RowValues<T>> {
    let mut all = Vec::new();
    for stripe in stripes {
        all.extend(per_stripe(stripe)?);
    }
    Ok(all)
}

/// Integer columns narrower than 64 bits: a decoded value outside the type's range is
/// corruption, not something to wrap.
fn collect_ints<T: TryFrom<i64>>(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    column: &OrcColumn,
) -> Result<RowValues<T>> {
    collect(stripes, |stripe| {
        let values = decode_ints_in(file, compression, stripe, column)?;
        values
            .into_iter()
            .map(|v| match v {
                None => Ok(None),
                Some(v) => T::try_from(v).map(Some).map_err(|_| {
                    stripe_error(
                        stripe,
                        column,
                        &format!("value {v} does not fit type {}", column.type_name),
                    )
                }),
            })
            .collect()
    })
}

/// The stripe's PRESENT bits (one per row), or `None` when every row is present.
fn present_in(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    rows: usize,
) -> Result<Option<Vec<bool>>> {
    let Some(bytes) = stripe.stream_bytes(file, compression, column.id, StreamKind::Present)?
    else {
        return Ok(None);
    };
    rle_bridge::decode_booleans(&bytes, rows)
        .map(Some)
        .map_err(|e| wrap(stripe, column, "PRESENT", e))
}

fn rows_of(stripe: &Stripe, column: &OrcColumn) -> Result<usize> {
    usize::try_from(stripe.rows())
        .map_err(|_| stripe_error(stripe, column, "row count does not fit in memory"))
}

/// Spreads the non-null values over the rows that PRESENT marks.
fn spread<T>(
    stripe: &Stripe,
    column: &OrcColumn,
    present: Option<Vec<bool>>,
    values: Vec<T>,
) -> Result<RowValues<T>> {
    let Some(present) = present else {
        return Ok(values.into_iter().map(Some).collect());
    };
    let mut values = values.into_iter();
    let mut rows = Vec::with_capacity(present.len());
    for p in present {
        if p {
            let v = values.next().ok_or_else(|| {
                stripe_error(stripe, column, "DATA holds fewer values than PRESENT marks")
            })?;
            rows.push(Some(v));
        } else {
            rows.push(None);
        }
    }
    Ok(rows)
}

/// The DATA stream, required whenever a stripe has non-null values.
fn data_in<'a>(
    file: &'a [u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    values: usize,
) -> Result<std::borrow::Cow<'a, [u8]>> {
    match stripe.stream_bytes(file, compression, column.id, StreamKind::Data)? {
        Some(bytes) => Ok(bytes),
        None if values == 0 => Ok(std::borrow::Cow::Borrowed(&[])),
        None => Err(stripe_error(
            stripe,
            column,
            &format!("no DATA stream for {values} non-null values"),
        )),
    }
}

/// The PRESENT and DATA streams of one column in one stripe, decoded with `decode` (which
/// gets the DATA bytes and the count of non-null values) and spread over the rows.
fn decode_present_and_data<T>(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
    decode: impl Fn(&[u8], usize) -> Result<Vec<T>>,
) -> Result<RowValues<T>> {
    let rows = rows_of(stripe, column)?;
    let present = present_in(file, compression, stripe, column, rows)?;
    let n = present
        .as_ref()
        .map_or(rows, |p| p.iter().filter(|&&b| b).count());
    let data = data_in(file, compression, stripe, column, n)?;
    let values = if n == 0 {
        Vec::new()
    } else {
        decode(&data, n).map_err(|e| wrap(stripe, column, "DATA", e))?
    };
    spread(stripe, column, present, values)
}

fn decode_booleans_in(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
) -> Result<RowValues<bool>> {
    decode_present_and_data(
        file,
        compression,
        stripe,
        column,
        rle_bridge::decode_booleans,
    )
}

fn decode_bytes_in(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
) -> Result<RowValues<i8>> {
    decode_present_and_data(file, compression, stripe, column, |data, n| {
        rle_bridge::decode_bytes(data, n).map(|v| v.into_iter().map(|b| b as i8).collect())
    })
}

fn decode_ints_in(
    file: &[u8],
    compression: Compression,
    stripe: &Stripe,
    column: &OrcColumn,
) -> Result<RowValues<i64>> {
    let version = match stripe.encoding(column.id)? {
        ColumnEncodingKind::Direct => rle_bridge::IntRle::V1,
        ColumnEncodingKind::DirectV2 => rle_bridge::IntRle::V2,
        other => {
            return Err(Error::Unsupported(format!(
                "ORC column '{}' ({}) uses encoding {} in stripe {}; integer columns are read \
                 with DIRECT and DIRECT_V2",
                column.name,
                column.type_name,
                other.name(),
                stripe.index
            )))
        }
    };
    decode_present_and_data(file, compression, stripe, column, |data, n| {
        rle_bridge::decode_signed(data, n, version)
    })
}

fn stripe_error(stripe: &Stripe, column: &OrcColumn, reason: &str) -> Error {
    Error::Corrupt {
        chunk: stripe.index,
        reason: format!(
            "ORC stripe {} column '{}': {reason}",
            stripe.index, column.name
        ),
    }
}

/// Names the stripe, column and stream in a decoder's error; `Unsupported` passes through.
fn wrap(stripe: &Stripe, column: &OrcColumn, stream: &str, e: Error) -> Error {
    match e {
        Error::Unsupported(msg) => Error::Unsupported(msg),
        Error::Corrupt { reason, .. } => {
            stripe_error(stripe, column, &format!("{stream} stream: {reason}"))
        }
        other => stripe_error(stripe, column, &format!("{stream} stream: {other}")),
    }
}
