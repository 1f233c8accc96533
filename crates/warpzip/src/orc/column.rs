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
use rayon::prelude::*;
use std::sync::Arc;

/// Schema trees deeper than this are shown abbreviated (a file may nest types without end).
const MAX_TYPE_DEPTH: usize = 32;

/// What the fast decoder reads a column from.
struct Source<'a> {
    file: &'a [u8],
    compression: Compression,
    column: &'a OrcColumn,
    /// The footer's row index stride (positive), when the file has one.
    stride: Option<u32>,
}

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

/// Decodes `column` across `stripes` into one Arrow array. `file` is the whole file (its row
/// index stride, in the footer, lets large stripes be decoded row group by row group).
///
/// Stripes, compression chunks and row groups are decoded in parallel, straight into the
/// array's buffers. Any failure sends the column to the one-stripe-at-a-time decoder, which
/// reports it exactly: results and errors are those of that decoder.
pub fn decode_column(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    column: &OrcColumn,
) -> Result<ArrayRef> {
    column.check_supported()?;
    decode_column_with_stride(file, compression, stripes, column, row_index_stride(file))
}

/// [`decode_column`] for several columns at once, in parallel: the arrays in the order given,
/// or the error of the first column (in that order) that fails.
pub fn decode_columns(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    columns: &[&OrcColumn],
) -> Result<Vec<ArrayRef>> {
    for c in columns {
        c.check_supported()?;
    }
    let stride = row_index_stride(file);
    let arrays: Vec<Result<ArrayRef>> = columns
        .par_iter()
        .map(|c| decode_column_with_stride(file, compression, stripes, c, stride))
        .collect();
    arrays.into_iter().collect()
}

/// The footer's row index stride, when the file's tail reads.
fn row_index_stride(file: &[u8]) -> Option<u32> {
    super::tail::read_tail(file)
        .ok()
        .and_then(|t| t.footer.row_index_stride)
        .filter(|&s| s > 0)
}

fn decode_column_with_stride(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    column: &OrcColumn,
    stride: Option<u32>,
) -> Result<ArrayRef> {
    column.check_supported()?;
    let source = Source {
        file,
        compression,
        column,
        stride,
    };
    match fast::decode(&source, stripes) {
        Some(array) => Ok(array),
        None => decode_column_by_stripe(file, compression, stripes, column),
    }
}

/// The one-stripe-at-a-time decoder: every stripe's rows as `Option`s, then one array. Its
/// results and errors define the column's.
fn decode_column_by_stripe(
    file: &[u8],
    compression: Compression,
    stripes: &[Stripe],
    column: &OrcColumn,
) -> Result<ArrayRef> {
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

/// The fast decoder: stripes in parallel (their streams inflated chunk by chunk in parallel),
/// each straight into its share of the column's value buffer, large stripes row group by row
/// group where the row index says where each group starts and the groups provably chain into
/// the whole-stripe decode. `None` on anything it does not decode exactly as the
/// one-stripe-at-a-time decoder would.
mod fast {
    use super::super::proto::{ColumnEncodingKind, StreamKind, TypeKind};
    use super::super::rle_bridge::IntRle;
    use super::super::row_groups::{inflate_stream_mapped, locate_groups, DataKind, RowGroup};
    use super::super::stripe::Stripe;
    use super::Source;
    use crate::codec::orc_rle::{self, PrefixEnd};
    use crate::error::ChunkStatus;
    use arrow_array::builder::{BooleanBufferBuilder, NullBufferBuilder};
    use arrow_array::types::{Date32Type, Int16Type, Int32Type, Int64Type, Int8Type};
    use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray};
    use rayon::prelude::*;
    use std::borrow::Cow;
    use std::sync::Arc;

    /// No ORC run-length encoding yields more values per input byte than this (as in
    /// `rle_bridge`): the one-stripe decoder refuses a stream claiming more.
    const MAX_VALUES_PER_BYTE: usize = 520;

    /// Stripes with fewer row groups than this are decoded whole.
    const MIN_GROUPS: usize = 2;

    /// The column as an Arrow array, or `None` (see the module).
    pub(super) fn decode(source: &Source<'_>, stripes: &[Stripe]) -> Option<ArrayRef> {
        let column = source.column;
        Some(match column.kind {
            TypeKind::Boolean => {
                let (values, mut validity) = values::<bool>(source, stripes, Data::Boolean)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                let mut bits = BooleanBufferBuilder::new(values.len());
                bits.append_slice(&values);
                Arc::new(BooleanArray::new(bits.finish(), nulls))
            }
            TypeKind::Byte => {
                let (values, mut validity) = values::<u8>(source, stripes, Data::Byte)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                let values: Vec<i8> = values.into_iter().map(|b| b as i8).collect();
                Arc::new(PrimitiveArray::<Int8Type>::try_new(values.into(), nulls).ok()?)
            }
            TypeKind::Short => {
                let (values, mut validity) = values::<i16>(source, stripes, Data::Int)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                Arc::new(PrimitiveArray::<Int16Type>::try_new(values.into(), nulls).ok()?)
            }
            TypeKind::Int => {
                let (values, mut validity) = values::<i32>(source, stripes, Data::Int)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                Arc::new(PrimitiveArray::<Int32Type>::try_new(values.into(), nulls).ok()?)
            }
            TypeKind::Long => {
                let (values, mut validity) = values::<i64>(source, stripes, Data::Int)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                Arc::new(PrimitiveArray::<Int64Type>::try_new(values.into(), nulls).ok()?)
            }
            TypeKind::Date => {
                let (values, mut validity) = values::<i32>(source, stripes, Data::Int)?;
                let nulls = validity.finish().filter(|n| n.null_count() > 0);
                Arc::new(PrimitiveArray::<Date32Type>::try_new(values.into(), nulls).ok()?)
            }
            _ => return None,
        })
    }

    /// How a column's DATA stream is encoded, before the stripe says which integer RLE.
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Data {
        Boolean,
        Byte,
        Int,
    }

    /// One stripe's share of a column, its streams inflated.
    struct Prepared<'a> {
        rows: usize,
        /// PRESENT, one flag per row; `None` when the stripe has no PRESENT stream.
        present: Option<Vec<bool>>,
        /// Non-null rows: the values DATA holds.
        values: usize,
        data: Cow<'a, [u8]>,
        /// The integer RLE of an integer column.
        version: Option<IntRle>,
        /// Where each row group starts, when the stripe is decoded group by group.
        groups: Vec<RowGroup>,
    }

    /// Values a decoder writes: booleans, bytes or integers.
    trait Value: Copy + Default + Send + Sync {
        /// Decodes exactly `out.len()` values of a whole DATA stream.
        fn decode_whole(
            data: &[u8],
            version: Option<IntRle>,
            out: &mut [Self],
        ) -> Result<(), ChunkStatus>;
        /// Decodes `out.len()` values of DATA after `skip`, saying where the next one lies.
        fn decode_prefix(
            data: &[u8],
            version: Option<IntRle>,
            skip: usize,
            out: &mut [Self],
        ) -> Option<PrefixEnd>;
    }

    impl Value for bool {
        fn decode_whole(
            data: &[u8],
            _: Option<IntRle>,
            out: &mut [bool],
        ) -> Result<(), ChunkStatus> {
            orc_rle::decode_bool_rle(data, out)
        }
        fn decode_prefix(
            _: &[u8],
            _: Option<IntRle>,
            _: usize,
            _: &mut [bool],
        ) -> Option<PrefixEnd> {
            None
        }
    }

    impl Value for u8 {
        fn decode_whole(data: &[u8], _: Option<IntRle>, out: &mut [u8]) -> Result<(), ChunkStatus> {
            orc_rle::decode_byte_rle(data, out)
        }
        fn decode_prefix(_: &[u8], _: Option<IntRle>, _: usize, _: &mut [u8]) -> Option<PrefixEnd> {
            None
        }
    }

    macro_rules! int_value {
        ($($t:ty),*) => {$(
            impl Value for $t {
                fn decode_whole(
                    data: &[u8],
                    version: Option<IntRle>,
                    out: &mut [$t],
                ) -> Result<(), ChunkStatus> {
                    match version {
                        Some(IntRle::V1) => orc_rle::decode_int_rle_v1(data, true, out),
                        Some(IntRle::V2) => orc_rle::decode_int_rle_v2(data, true, out),
                        None => Err(ChunkStatus::Corrupt),
                    }
                }
                fn decode_prefix(
                    data: &[u8],
                    version: Option<IntRle>,
                    skip: usize,
                    out: &mut [$t],
                ) -> Option<PrefixEnd> {
                    match version {
                        Some(IntRle::V1) => {
                            orc_rle::decode_int_rle_v1_prefix_end(data, true, skip, out).ok()
                        }
                        Some(IntRle::V2) => {
                            orc_rle::decode_int_rle_v2_prefix_end(data, true, skip, out).ok()
                        }
                        None => None,
                    }
                }
            }
        )*};
    }
    int_value!(i16, i32, i64);

    /// Every stripe's values, in row order (nulls as the default value), and the validity of
    /// the rows, to be finished.
    fn values<T: Value>(
        source: &Source<'_>,
        stripes: &[Stripe],
        data: Data,
    ) -> Option<(Vec<T>, NullBufferBuilder)> {
        let prepared: Vec<Option<Prepared<'_>>> = stripes
            .par_iter()
            .map(|stripe| prepare(source, stripe, data))
            .collect();
        let prepared: Vec<Prepared<'_>> = prepared.into_iter().collect::<Option<_>>()?;
        let total = prepared
            .iter()
            .try_fold(0usize, |acc, p| acc.checked_add(p.rows))?;
        let mut values = vec![T::default(); total];
        let mut shares = Vec::with_capacity(prepared.len());
        let mut rest = &mut values[..];
        for p in &prepared {
            let (share, tail) = rest.split_at_mut_checked(p.rows)?;
            shares.push(share);
            rest = tail;
        }
        let decoded = prepared
            .par_iter()
            .zip(shares)
            .all(|(p, share)| decode_stripe(p, share));
        if !decoded {
            return None;
        }
        let mut validity = NullBufferBuilder::new(total);
        for p in &prepared {
            match &p.present {
                Some(present) => validity.append_slice(present),
                None => validity.append_n_non_nulls(p.rows),
            }
        }
        Some((values, validity))
    }

    /// The stripe's bytes of one of the column's streams, inflated, with its chunk map; `None`
    /// inside when the stripe has no such stream.
    #[allow(clippy::type_complexity)]
    fn stream<'a>(
        source: &Source<'a>,
        stripe: &Stripe,
        kind: StreamKind,
    ) -> Option<Option<(Cow<'a, [u8]>, super::super::compression::ChunkMap)>> {
        let Some(info) = stripe.stream(source.column.id, kind) else {
            return Some(None);
        };
        let start = usize::try_from(info.offset).ok()?;
        let end = start.checked_add(usize::try_from(info.length).ok()?)?;
        let bytes = source.file.get(start..end)?;
        inflate_stream_mapped(bytes, source.compression, "stream")
            .ok()
            .map(Some)
    }

    /// Inflates the stripe's streams, decodes PRESENT and locates the row groups.
    fn prepare<'a>(source: &Source<'a>, stripe: &Stripe, data: Data) -> Option<Prepared<'a>> {
        let column = source.column;
        let version = match data {
            Data::Int => Some(match stripe.encoding(column.id).ok()? {
                ColumnEncodingKind::Direct => IntRle::V1,
                ColumnEncodingKind::DirectV2 => IntRle::V2,
                _ => return None,
            }),
            Data::Boolean | Data::Byte => None,
        };
        let rows = usize::try_from(stripe.rows()).ok()?;
        let present_stream = stream(source, stripe, StreamKind::Present)?;
        let present = match &present_stream {
            Some((bytes, _)) => {
                if rows > bytes.len().saturating_mul(MAX_VALUES_PER_BYTE) {
                    return None;
                }
                let mut bits = vec![false; rows];
                orc_rle::decode_bool_rle(bytes, &mut bits).ok()?;
                Some(bits)
            }
            None => None,
        };
        let values = present
            .as_ref()
            .map_or(rows, |p| p.iter().filter(|&&b| b).count());
        let (data_bytes, data_map) = match stream(source, stripe, StreamKind::Data)? {
            Some(stream) => stream,
            None if values == 0 => (Cow::Borrowed(&[][..]), Default::default()),
            None => return None,
        };
        if values > data_bytes.len().saturating_mul(MAX_VALUES_PER_BYTE) {
            return None;
        }
        let mut groups = Vec::new();
        if let (Some(version), Some(_), true) = (version, source.stride, values > 0) {
            let kind = match version {
                IntRle::V1 => DataKind::IntV1,
                IntRle::V2 => DataKind::IntV2,
            };
            if let Ok(Some(index)) = stripe.row_index(source.file, source.compression, column.id) {
                if let Ok(located) = locate_groups(
                    stripe,
                    column,
                    source.compression,
                    kind,
                    source.stride,
                    Some(&index),
                    present_stream.as_ref().map(|(_, map)| map),
                    &data_map,
                ) {
                    if located.len() >= MIN_GROUPS {
                        groups = located;
                    }
                }
            }
        }
        Some(Prepared {
            rows,
            present,
            values,
            data: data_bytes,
            version,
            groups,
        })
    }

    /// Decodes one stripe's DATA into `share` (its rows), spread over the non-null rows.
    fn decode_stripe<T: Value>(p: &Prepared<'_>, share: &mut [T]) -> bool {
        let Some(dense) = share.get_mut(..p.values) else {
            return false;
        };
        if p.values > 0
            && !decode_groups(p, dense)
            && T::decode_whole(&p.data, p.version, dense).is_err()
        {
            return false;
        }
        if let Some(present) = &p.present {
            spread(share, present, p.values);
        }
        true
    }

    /// Decodes the stripe's values row group by row group, in parallel; true when every group
    /// decodes and each starts exactly where the one before it stopped, the first at the
    /// stream's start and the last stopping at its end: then the values are those of one
    /// decode of the whole stream.
    fn decode_groups<T: Value>(p: &Prepared<'_>, out: &mut [T]) -> bool {
        if p.groups.is_empty() {
            return false;
        }
        let mut counts = Vec::with_capacity(p.groups.len());
        for g in &p.groups {
            let (Ok(first), Ok(rows)) = (usize::try_from(g.first_row), usize::try_from(g.rows))
            else {
                return false;
            };
            let count = match &p.present {
                Some(present) => {
                    match first.checked_add(rows).and_then(|e| present.get(first..e)) {
                        Some(flags) => flags.iter().filter(|&&b| b).count(),
                        None => return false,
                    }
                }
                None => rows,
            };
            counts.push(count);
        }
        if counts.iter().sum::<usize>() != out.len() {
            return false;
        }
        let mut jobs = Vec::with_capacity(counts.len());
        let mut rest = &mut out[..];
        for (g, &count) in p.groups.iter().zip(&counts) {
            let Some((dst, tail)) = rest.split_at_mut_checked(count) else {
                return false;
            };
            rest = tail;
            if count > 0 {
                jobs.push((g, dst));
            }
        }
        let ends: Vec<Option<(usize, PrefixEnd)>> = jobs
            .into_par_iter()
            .map(|(g, dst)| {
                let byte = usize::try_from(g.data.byte).ok()?;
                let skip = usize::try_from(g.data.skip).ok()?;
                let end = T::decode_prefix(p.data.get(byte..)?, p.version, skip, dst)?;
                Some((byte, end))
            })
            .collect();
        // Positions compare in canonical form (a row index may skip across whole runs).
        let mut expect = (0usize, 0usize);
        for end in ends {
            let Some((byte, end)) = end else {
                return false;
            };
            if (byte + end.start_byte, end.start_skip) != expect {
                return false;
            }
            expect = (byte + end.resume_byte, end.resume_skip);
        }
        expect == (p.data.len(), 0)
    }

    /// Moves the first `values` entries of `rows` to the rows `present` marks, in order, and
    /// clears the others.
    fn spread<T: Copy + Default>(rows: &mut [T], present: &[bool], values: usize) {
        let mut next = values;
        for (i, &p) in present.iter().enumerate().rev() {
            if p && next > 0 {
                next -= 1;
                rows[i] = rows[next];
            } else {
                rows[i] = T::default();
            }
        }
    }
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
