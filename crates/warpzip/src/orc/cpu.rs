//! The CPU decoder of integer-family columns (boolean, tinyint, smallint, int, bigint, date):
//! PRESENT and DATA streams through the ORC run-length decoders of `codec::orc_rle` into values,
//! and `arrow` makes them Arrow arrays. It reads a stripe's values from two kinds of start:
//!
//! - [`read_column`]: from the start of each stripe's streams, which must hold exactly the
//!   stripe's values. Row groups located by the row index only split the work across cores,
//!   where they provably chain into the whole-stripe decode; a damaged row index is not looked
//!   at further. This is what the file's columns are.
//! - [`decode_group`], [`decode_plan`], [`read_column_by_row_groups`]: each row group from its
//!   own start in a [`ColumnPlan`] (the row index's positions), as the GPU reads it. On a valid
//!   file both give the same values; on a damaged one this is the verdict the GPU's must equal.

use super::arrow;
use super::file::proto::{StreamKind, TypeKind};
use super::file::stripe::Stripe;
use super::file::OrcFile;
use super::place::Place;
use super::plan::{data_kind, plan_file_column, ColumnPlan, DataKind, RowGroup, StreamStart};
use super::schema::OrcColumn;
use crate::codec::orc_rle;
use crate::error::{
    try_filled, try_reserve, try_with_capacity, try_zeroed, try_zeroed_of, ChunkStatus, Error, Result,
};
use arrow_array::ArrayRef;

/// No ORC run-length encoding yields more values per input byte than this: a 2-byte Byte RLE run
/// gives 130 bytes, so 1,040 booleans. A stream claiming more values is damaged, and checking
/// first keeps a damaged row count from sizing a huge allocation.
const MAX_VALUES_PER_BYTE: usize = 520;

/// Decodes `column` of every stripe of `file` (`stripes`, parsed) into one Arrow array (see the
/// module).
///
/// Stripes, compression chunks and row groups are decoded in parallel, straight into the
/// array's buffers. Any failure sends the column to the exact stripe decoder, one stripe after
/// another, which reports it: results and errors are those of that decoder.
pub fn read_column(file: &OrcFile, stripes: &[Stripe], column: &OrcColumn) -> Result<ArrayRef> {
    column.check_supported()?;
    let source = Source {
        file: file.bytes(),
        compression: file.compression(),
        column,
        stride: file.row_index_stride().filter(|&s| s > 0),
    };
    match fast::decode(&source, stripes) {
        Some(array) => Ok(array),
        None => read_column_exact(file, stripes, column),
    }
}

/// What the fast stripe decoder reads a column from.
struct Source<'a> {
    file: &'a [u8],
    compression: super::file::compression::Compression,
    column: &'a OrcColumn,
    /// The footer's row index stride (positive), when the file has one.
    stride: Option<u32>,
}

/// The fast stripe decoder: stripes in parallel (their streams inflated chunk by chunk in
/// parallel), each straight into its share of the column's value buffer, large stripes row group
/// by row group where the row index says where each group starts and the groups provably chain
/// into the whole-stripe decode. `None` on anything it does not decode exactly as the exact
/// stripe decoder would.
mod fast {
    use super::super::arrow;
    use super::super::file::compression::{inflate_stream_mapped, ChunkMap};
    use super::super::file::proto::{StreamKind, TypeKind};
    use super::super::file::stripe::Stripe;
    use super::super::place::Place;
    use super::super::plan::{data_kind, locate_groups, DataKind, RowGroup};
    use super::{Source, MAX_VALUES_PER_BYTE};
    use crate::codec::orc_rle::{self, PrefixEnd};
    use crate::error::{try_zeroed_of, ChunkStatus, ZeroBits};
    use arrow_array::builder::NullBufferBuilder;
    use arrow_array::ArrayRef;
    use arrow_buffer::Buffer;
    use rayon::prelude::*;
    use std::borrow::Cow;

    /// Stripes with fewer row groups than this are decoded whole.
    const MIN_GROUPS: usize = 2;

    /// The column as an Arrow array, or `None` (see the module).
    pub(super) fn decode(source: &Source<'_>, stripes: &[Stripe]) -> Option<ArrayRef> {
        let column = source.column;
        let rows_and_nulls = |validity: &mut NullBufferBuilder| {
            let rows = validity.len();
            (rows, validity.finish().filter(|n| n.null_count() > 0))
        };
        match column.kind {
            TypeKind::Boolean => {
                let (values, mut validity) = values::<bool>(source, stripes)?;
                let (_, nulls) = rows_and_nulls(&mut validity);
                Some(arrow::booleans(&values, nulls))
            }
            TypeKind::Byte => {
                let (values, mut validity) = values::<u8>(source, stripes)?;
                let (rows, nulls) = rows_and_nulls(&mut validity);
                arrow::from_buffer(column, Buffer::from_vec(values), nulls, rows).ok()
            }
            TypeKind::Short => {
                let (values, mut validity) = values::<i16>(source, stripes)?;
                let (rows, nulls) = rows_and_nulls(&mut validity);
                arrow::from_buffer(column, Buffer::from_vec(values), nulls, rows).ok()
            }
            TypeKind::Int | TypeKind::Date => {
                let (values, mut validity) = values::<i32>(source, stripes)?;
                let (rows, nulls) = rows_and_nulls(&mut validity);
                arrow::from_buffer(column, Buffer::from_vec(values), nulls, rows).ok()
            }
            TypeKind::Long => {
                let (values, mut validity) = values::<i64>(source, stripes)?;
                let (rows, nulls) = rows_and_nulls(&mut validity);
                arrow::from_buffer(column, Buffer::from_vec(values), nulls, rows).ok()
            }
            _ => None,
        }
    }

    /// One stripe's share of a column, its streams inflated.
    struct Prepared<'a> {
        rows: usize,
        /// PRESENT, one flag per row; `None` when the stripe has no PRESENT stream.
        present: Option<Vec<bool>>,
        /// Non-null rows: the values DATA holds.
        values: usize,
        data: Cow<'a, [u8]>,
        /// How DATA is encoded.
        kind: DataKind,
        /// Where each row group starts, when the stripe is decoded group by group.
        groups: Vec<RowGroup>,
    }

    /// Values a decoder writes: booleans, bytes or integers.
    trait Value: Copy + Default + Send + Sync + ZeroBits {
        /// Decodes exactly `out.len()` values of a whole DATA stream.
        fn decode_whole(data: &[u8], kind: DataKind, out: &mut [Self]) -> Result<(), ChunkStatus>;
        /// Decodes `out.len()` values of DATA after `skip`, saying where the next one lies.
        fn decode_prefix(
            data: &[u8],
            kind: DataKind,
            skip: usize,
            out: &mut [Self],
        ) -> Option<PrefixEnd>;
    }

    impl Value for bool {
        fn decode_whole(data: &[u8], _: DataKind, out: &mut [bool]) -> Result<(), ChunkStatus> {
            orc_rle::decode_bool_rle(data, out)
        }
        fn decode_prefix(_: &[u8], _: DataKind, _: usize, _: &mut [bool]) -> Option<PrefixEnd> {
            None
        }
    }

    impl Value for u8 {
        fn decode_whole(data: &[u8], _: DataKind, out: &mut [u8]) -> Result<(), ChunkStatus> {
            orc_rle::decode_byte_rle(data, out)
        }
        fn decode_prefix(_: &[u8], _: DataKind, _: usize, _: &mut [u8]) -> Option<PrefixEnd> {
            None
        }
    }

    macro_rules! int_value {
        ($($t:ty),*) => {$(
            impl Value for $t {
                fn decode_whole(
                    data: &[u8],
                    kind: DataKind,
                    out: &mut [$t],
                ) -> Result<(), ChunkStatus> {
                    match kind {
                        DataKind::IntV1 => orc_rle::decode_int_rle_v1(data, true, out),
                        DataKind::IntV2 => orc_rle::decode_int_rle_v2(data, true, out),
                        _ => Err(ChunkStatus::Corrupt),
                    }
                }
                fn decode_prefix(
                    data: &[u8],
                    kind: DataKind,
                    skip: usize,
                    out: &mut [$t],
                ) -> Option<PrefixEnd> {
                    match kind {
                        DataKind::IntV1 => {
                            orc_rle::decode_int_rle_v1_prefix_end(data, true, skip, out).ok()
                        }
                        DataKind::IntV2 => {
                            orc_rle::decode_int_rle_v2_prefix_end(data, true, skip, out).ok()
                        }
                        _ => None,
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
    ) -> Option<(Vec<T>, NullBufferBuilder)> {
        let prepared: Vec<Option<Prepared<'_>>> = stripes
            .par_iter()
            .map(|stripe| prepare(source, stripe))
            .collect();
        let prepared: Vec<Prepared<'_>> = prepared.into_iter().collect::<Option<_>>()?;
        let total = prepared
            .iter()
            .try_fold(0usize, |acc, p| acc.checked_add(p.rows))?;
        // Memory that cannot be had sends the column to the exact decoder, which names it.
        let mut values = try_zeroed_of::<T>(total, "an ORC column's values").ok()?;
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
    ) -> Option<Option<(Cow<'a, [u8]>, ChunkMap)>> {
        let Some(info) = stripe.stream(source.column.id, kind) else {
            return Some(None);
        };
        let start = usize::try_from(info.offset).ok()?;
        let end = start.checked_add(usize::try_from(info.length).ok()?)?;
        let bytes = source.file.get(start..end)?;
        inflate_stream_mapped(bytes, source.compression, &Place::file())
            .ok()
            .map(Some)
    }

    /// Inflates the stripe's streams, decodes PRESENT and locates the row groups.
    fn prepare<'a>(source: &Source<'a>, stripe: &Stripe) -> Option<Prepared<'a>> {
        let column = source.column;
        let kind = data_kind(stripe, column).ok()?;
        let rows = usize::try_from(stripe.rows()).ok()?;
        let present_stream = stream(source, stripe, StreamKind::Present)?;
        let present = match &present_stream {
            Some((bytes, _)) => {
                if rows > bytes.len().saturating_mul(MAX_VALUES_PER_BYTE) {
                    return None;
                }
                let mut bits = try_zeroed_of::<bool>(rows, "an ORC PRESENT stream").ok()?;
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
        let integer = matches!(kind, DataKind::IntV1 | DataKind::IntV2);
        if let (true, Some(_), true) = (integer, source.stride, values > 0) {
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
            kind,
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
            && T::decode_whole(&p.data, p.kind, dense).is_err()
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
                let end = T::decode_prefix(p.data.get(byte..)?, p.kind, skip, dst)?;
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

/// The exact stripe decoder: every stripe's PRESENT and DATA streams decoded whole, one stripe
/// after another, every row as an `Option<i64>`. Its results and errors define the column's.
fn read_column_exact(file: &OrcFile, stripes: &[Stripe], column: &OrcColumn) -> Result<ArrayRef> {
    let mut rows = Vec::new();
    for stripe in stripes {
        let stripe_rows = decode_stripe_exact(file, stripe, column)?;
        try_reserve(&mut rows, stripe_rows.len(), "an ORC column's rows")?;
        rows.extend(stripe_rows);
    }
    arrow::from_rows(column, rows)
}

/// One stripe's rows of `column`: PRESENT decoded whole (one bit per row), then DATA decoded
/// whole (one value per non-null row), spread over the rows. A value outside the column's type
/// is corruption, not something to wrap.
fn decode_stripe_exact(
    file: &OrcFile,
    stripe: &Stripe,
    column: &OrcColumn,
) -> Result<Vec<Option<i64>>> {
    let place = column.in_stripe(stripe.index);
    let kind = data_kind(stripe, column)?;
    let rows = usize::try_from(stripe.rows())
        .map_err(|_| place.corrupt("row count does not fit in memory"))?;
    let bytes =
        |kind: StreamKind| stripe.stream_bytes(file.bytes(), file.compression(), column.id, kind);
    let present = match bytes(StreamKind::Present)? {
        Some(present) => {
            let flags = decode_whole(&present, DataKind::Boolean, rows, |r| {
                place.clone().stream("PRESENT").corrupt(r)
            })?;
            let mut bits = try_with_capacity(flags.len(), "an ORC PRESENT stream")?;
            bits.extend(flags.into_iter().map(|b| b != 0));
            Some(bits)
        }
        None => None,
    };
    let n = present
        .as_ref()
        .map_or(rows, |p| p.iter().filter(|&&b| b).count());
    let data = match bytes(StreamKind::Data)? {
        Some(data) => data,
        None if n == 0 => std::borrow::Cow::Borrowed(&[][..]),
        None => {
            return Err(place.corrupt(format!("no DATA stream for {n} non-null values")));
        }
    };
    let values = if n == 0 {
        Vec::new()
    } else {
        decode_whole(&data, kind, n, |r| place.clone().stream("DATA").corrupt(r))?
    };
    if let Some((lo, hi)) = range_of(column.kind) {
        if let Some(v) = values.iter().find(|v| !(lo..=hi).contains(*v)) {
            return Err(place.corrupt(format!("value {v} does not fit type {}", column.type_name)));
        }
    }
    let mut out = try_with_capacity(present.as_ref().map_or(values.len(), Vec::len), ROWS)?;
    let Some(present) = present else {
        out.extend(values.into_iter().map(Some));
        return Ok(out);
    };
    let mut values = values.into_iter();
    for p in present {
        if p {
            let v = values
                .next()
                .ok_or_else(|| place.corrupt("DATA holds fewer values than PRESENT marks"))?;
            out.push(Some(v));
        } else {
            out.push(None);
        }
    }
    Ok(out)
}

/// Exactly `n` values of a whole stream in the encoding `kind`, widened to i64 (booleans as 0
/// and 1, tinyints sign-extended); `fail` makes the error from the reason when the stream does
/// not hold exactly that many.
fn decode_whole(
    bytes: &[u8],
    kind: DataKind,
    n: usize,
    fail: impl Fn(String) -> Error,
) -> Result<Vec<i64>> {
    if n > bytes.len().saturating_mul(MAX_VALUES_PER_BYTE) {
        return Err(fail(format!("{} bytes cannot hold {n} values", bytes.len())));
    }
    let reason = |s: ChunkStatus| fail(s.reason().to_string());
    match kind {
        DataKind::Boolean => {
            let mut out = try_zeroed_of::<bool>(n, VALUES)?;
            orc_rle::decode_bool_rle(bytes, &mut out).map_err(reason)?;
            widened(&out, i64::from)
        }
        DataKind::Byte => {
            let mut out = try_zeroed(n, VALUES)?;
            orc_rle::decode_byte_rle(bytes, &mut out).map_err(reason)?;
            widened(&out, |b| i64::from(b as i8))
        }
        DataKind::IntV1 | DataKind::IntV2 => {
            let mut out = try_zeroed_of::<i64>(n, VALUES)?;
            if kind == DataKind::IntV1 {
                orc_rle::decode_int_rle_v1(bytes, true, &mut out)
            } else {
                orc_rle::decode_int_rle_v2(bytes, true, &mut out)
            }
            .map_err(reason)?;
            Ok(out)
        }
    }
}

/// What [`decode_whole`] and [`decode_group`] allocate, named in an out-of-memory error.
const VALUES: &str = "an ORC column's values";
/// The rows [`decode_stripe_exact`] and [`decode_group`] give, named likewise.
const ROWS: &str = "an ORC column's rows";

/// `narrow`'s values widened to i64 by `widen`, in a new vector.
fn widened<T: Copy>(narrow: &[T], widen: impl Fn(T) -> i64) -> Result<Vec<i64>> {
    let mut out = try_with_capacity(narrow.len(), VALUES)?;
    out.extend(narrow.iter().map(|&v| widen(v)));
    Ok(out)
}

/// `values`, one per row where `present` is `None`, else spread over the rows `present` marks
/// (`None` where it marks no value, and where `values` runs out).
fn with_nulls(values: Vec<i64>, present: Option<Vec<bool>>) -> Result<Vec<Option<i64>>> {
    let mut out = try_with_capacity(present.as_ref().map_or(values.len(), Vec::len), ROWS)?;
    let Some(present) = present else {
        out.extend(values.into_iter().map(Some));
        return Ok(out);
    };
    let mut values = values.into_iter();
    out.extend(
        present
            .into_iter()
            .map(|p| if p { values.next() } else { None }),
    );
    Ok(out)
}

/// Decodes row group `group` of `plan` on its own, from its starts in the decompressed streams:
/// its PRESENT bits, then as many DATA values as those bits mark. One value per row, `None` for
/// a null; booleans as 0 and 1, tinyints sign-extended. A value outside the column's type is
/// corruption, as in the whole-stripe decode.
pub fn decode_group(plan: &ColumnPlan, group: usize) -> Result<Vec<Option<i64>>> {
    let g = plan.groups.get(group).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "row group {group} does not exist ({} groups in stripe {})",
            plan.groups.len(),
            plan.stripe
        ))
    })?;
    let fail = |reason: String| group_place(plan, group).corrupt(reason);
    let fail_in =
        |stream: &str, reason: String| group_place(plan, group).stream(stream).corrupt(reason);
    let rows = usize::try_from(g.rows)
        .map_err(|_| fail(format!("{} rows do not fit in memory", g.rows)))?;
    let present = match present_of(plan, g).map_err(fail)? {
        Some((bytes, start)) => {
            let len = checked_len(bytes, start, DataKind::Boolean, rows)
                .map_err(|r| fail_in("PRESENT", r))?;
            let mut bits = try_zeroed_of::<bool>(len, "an ORC PRESENT stream")?;
            decode_run_prefix(
                DataKind::Boolean,
                bytes,
                start,
                &mut Values::Bits(&mut bits),
            )
            .map_err(|r| fail_in("PRESENT", r))?;
            Some(bits)
        }
        None => None,
    };
    let n = present
        .as_ref()
        .map_or(rows, |p| p.iter().filter(|&&b| b).count());
    let n = checked_len(&plan.data, &g.data, plan.kind, n).map_err(|r| fail_in("DATA", r))?;
    let values: Vec<i64> = match plan.kind {
        DataKind::Boolean => {
            let mut bits = try_zeroed_of::<bool>(n, VALUES)?;
            decode_run_prefix(plan.kind, &plan.data, &g.data, &mut Values::Bits(&mut bits))
                .map_err(|r| fail_in("DATA", r))?;
            widened(&bits, i64::from)?
        }
        DataKind::Byte => {
            let mut bytes = try_zeroed(n, VALUES)?;
            decode_run_prefix(
                plan.kind,
                &plan.data,
                &g.data,
                &mut Values::Bytes(&mut bytes),
            )
            .map_err(|r| fail_in("DATA", r))?;
            widened(&bytes, |b| i64::from(b as i8))?
        }
        DataKind::IntV1 | DataKind::IntV2 => {
            let mut ints = try_zeroed_of::<i64>(n, VALUES)?;
            decode_run_prefix(plan.kind, &plan.data, &g.data, &mut Values::Ints(&mut ints))
                .map_err(|r| fail_in("DATA", r))?;
            ints
        }
    };
    if let Some((lo, hi)) = range_of(plan.column.kind) {
        if let Some(v) = values.iter().find(|v| !(lo..=hi).contains(*v)) {
            return Err(fail(format!(
                "value {v} does not fit type {}",
                plan.column.type_name
            )));
        }
    }
    with_nulls(values, present)
}

/// Integer values of a stripe column, one per row: the CPU twin of the GPU's warp-per-row-group
/// decode (nulls are 0 in `values`, as the GPU writes them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DenseColumn<T> {
    /// One value per row (0 where the row is null).
    pub values: Vec<T>,
    /// One flag per row, true where the row has a value; `None` when the stripe has no PRESENT
    /// stream (every row has one).
    pub valid: Option<Vec<bool>>,
}

/// Decodes every row group of an integer-RLE `plan` (DATA in Integer RLE v1 or v2) straight into
/// values of `T` (i16 for smallint, i32 for int and date, i64 for bigint), row group by row
/// group exactly as [`decode_group`] does, with the same checks and errors, but without its
/// `Option<i64>` per row. A value that does not fit `T` is an error naming the row group.
/// Other kinds of DATA (booleans, bytes) are `Unsupported` here: [`decode_plan`] reads them.
pub fn decode_plan_dense<T: orc_rle::OrcInt>(plan: &ColumnPlan) -> Result<DenseColumn<T>> {
    let total = usize::try_from(plan.rows).map_err(|_| {
        plan.column
            .in_stripe(plan.stripe)
            .corrupt("too many rows for memory")
    })?;
    let mut values = try_filled(T::default(), total, VALUES)?;
    let mut valid = match plan.present {
        Some(_) => Some(try_zeroed_of::<bool>(total, "an ORC PRESENT stream")?),
        None => None,
    };
    decode_plan_dense_into(plan, &mut values, valid.as_deref_mut())?;
    Ok(DenseColumn { values, valid })
}

/// [`decode_plan_dense`] into buffers the caller holds (reused across stripes or runs):
/// `values` of exactly the stripe's rows, and `valid` of as many flags where the stripe has a
/// PRESENT stream (`None` where it has none). A length that does not match is an error.
pub fn decode_plan_dense_into<T: orc_rle::OrcInt>(
    plan: &ColumnPlan,
    values: &mut [T],
    mut valid: Option<&mut [bool]>,
) -> Result<()> {
    if !matches!(plan.kind, DataKind::IntV1 | DataKind::IntV2) {
        return Err(Error::Unsupported(format!(
            "dense decode of {} DATA (ORC column '{}')",
            plan.kind.name(),
            plan.column.name
        )));
    }
    let total = values.len();
    if total as u64 != plan.rows
        || valid.as_ref().map(|v| v.len()) != plan.present.as_ref().map(|_| total)
    {
        return Err(Error::InvalidArgument(format!(
            "dense decode of ORC column '{}': buffers for {total} rows{}, the stripe has {}{}",
            plan.column.name,
            if valid.is_some() { " with flags" } else { "" },
            plan.rows,
            if plan.present.is_some() {
                " and a PRESENT stream"
            } else {
                ""
            }
        )));
    }
    let mut row0 = 0usize;
    for (group, g) in plan.groups.iter().enumerate() {
        let fail = |reason: String| group_place(plan, group).corrupt(reason);
        let fail_in =
            |stream: &str, reason: String| group_place(plan, group).stream(stream).corrupt(reason);
        let rows = usize::try_from(g.rows)
            .ok()
            .filter(|&r| r <= total - row0)
            .ok_or_else(|| fail(format!("{} rows run past the stripe's {total}", g.rows)))?;
        // `valid` is there exactly when the stripe has a PRESENT stream (checked above).
        let n = match (present_of(plan, g).map_err(fail)?, valid.as_deref_mut()) {
            (Some((bytes, start)), Some(valid)) => {
                let flags = &mut valid[row0..row0 + rows];
                checked_len(bytes, start, DataKind::Boolean, rows)
                    .map_err(|r| fail_in("PRESENT", r))?;
                decode_run_prefix(DataKind::Boolean, bytes, start, &mut Values::Bits(flags))
                    .map_err(|r| fail_in("PRESENT", r))?;
                flags.iter().filter(|&&b| b).count()
            }
            _ => rows,
        };
        let n = checked_len(&plan.data, &g.data, plan.kind, n).map_err(|r| fail_in("DATA", r))?;
        let out = &mut values[row0..row0 + rows];
        decode_int_prefix(plan.kind, &plan.data, &g.data, &mut out[..n])
            .map_err(|r| fail_in("DATA", r))?;
        if let Some(valid) = valid.as_deref() {
            // Spread the group's n values over its rows, from the last row back (a value only
            // moves to a later slot, so none is overwritten before it moves).
            let mut k = n;
            for (r, &present) in valid[row0..row0 + rows].iter().enumerate().rev() {
                if present {
                    k -= 1;
                    out[r] = out[k];
                } else {
                    out[r] = T::default();
                }
            }
        }
        row0 += rows;
    }
    if row0 != total {
        return Err(plan.column.in_stripe(plan.stripe).corrupt(format!(
            "the row groups hold {row0} rows, the stripe {total}"
        )));
    }
    Ok(())
}

/// Decodes every row group of `plan` in order, each on its own: the stripe's rows.
pub fn decode_plan(plan: &ColumnPlan) -> Result<Vec<Option<i64>>> {
    let mut rows = Vec::new();
    for g in 0..plan.groups.len() {
        let group = decode_group(plan, g)?;
        try_reserve(&mut rows, group.len(), ROWS)?;
        rows.extend(group);
    }
    if rows.len() as u64 != plan.rows {
        return Err(plan.column.in_stripe(plan.stripe).corrupt(format!(
            "the row groups hold {} rows, the stripe {}",
            rows.len(),
            plan.rows
        )));
    }
    Ok(rows)
}

/// Decodes `column` of every stripe row group by row group (see [`decode_group`]) into the same
/// Arrow array as [`read_column`] gives for a file that is not damaged: the CPU twin of the GPU
/// decode, which starts every row group where the row index says.
pub fn read_column_by_row_groups(file: &OrcFile, column: &OrcColumn) -> Result<ArrayRef> {
    let mut rows = Vec::new();
    for plan in plan_file_column(file, column)? {
        rows.extend(decode_plan(&plan)?);
    }
    arrow::from_rows(column, rows)
}

/// The range of a type narrower than 64 bits (booleans and tinyints cannot leave theirs).
fn range_of(kind: TypeKind) -> Option<(i64, i64)> {
    match kind {
        TypeKind::Short => Some((i16::MIN.into(), i16::MAX.into())),
        TypeKind::Int | TypeKind::Date => Some((i32::MIN.into(), i32::MAX.into())),
        _ => None,
    }
}

/// Where one group's values go.
enum Values<'a> {
    Bits(&'a mut [bool]),
    Bytes(&'a mut [u8]),
    Ints(&'a mut [i64]),
}

/// `n` (the values wanted) once checked against what the stream can hold from `start` on.
fn checked_len(
    bytes: &[u8],
    start: &StreamStart,
    kind: DataKind,
    n: usize,
) -> std::result::Result<usize, String> {
    let rest = tail(bytes, start)?;
    let skipped = if kind == DataKind::Boolean {
        start
            .skip
            .saturating_mul(8)
            .saturating_add(u64::from(start.bit_skip))
    } else {
        start.skip
    };
    let wanted = skipped.saturating_add(n as u64);
    if n > 0 && wanted > (rest.len() as u64).saturating_mul(MAX_VALUES_PER_BYTE as u64) {
        return Err(format!(
            "{} bytes from byte {} cannot hold {n} values after skipping {skipped}",
            rest.len(),
            start.byte
        ));
    }
    Ok(n)
}

/// The stream from `start.byte` on.
fn tail<'a>(bytes: &'a [u8], start: &StreamStart) -> std::result::Result<&'a [u8], String> {
    usize::try_from(start.byte)
        .ok()
        .and_then(|b| bytes.get(b..))
        .ok_or_else(|| {
            format!(
                "the group starts at byte {}, past the stream's end ({} bytes)",
                start.byte,
                bytes.len()
            )
        })
}

/// Fills `out` from the stream at `start` with the prefix decoder of `kind`.
fn decode_run_prefix(
    kind: DataKind,
    bytes: &[u8],
    start: &StreamStart,
    out: &mut Values<'_>,
) -> std::result::Result<(), String> {
    let wanted = match out {
        Values::Bits(o) => o.len(),
        Values::Bytes(o) => o.len(),
        Values::Ints(o) => return decode_int_prefix(kind, bytes, start, o),
    };
    if wanted == 0 {
        return Ok(());
    }
    let rest = tail(bytes, start)?;
    let skip = usize::try_from(start.skip).map_err(|_| format!("skip {} too large", start.skip))?;
    let result = match (kind, out) {
        (DataKind::Boolean, Values::Bits(o)) => {
            orc_rle::decode_bool_rle_prefix(rest, skip, start.bit_skip, o)
        }
        (DataKind::Byte, Values::Bytes(o)) => orc_rle::decode_byte_rle_prefix(rest, skip, o),
        _ => return Err(format!("{} values of the wrong type", kind.name())),
    };
    result
        .map(|_| ())
        .map_err(|status| run_error(status, wanted, start))
}

/// [`decode_run_prefix`] of Integer RLE v1 or v2 DATA into values of any integer type `T` (one
/// that a value does not fit is corruption).
fn decode_int_prefix<T: orc_rle::OrcInt>(
    kind: DataKind,
    bytes: &[u8],
    start: &StreamStart,
    out: &mut [T],
) -> std::result::Result<(), String> {
    if out.is_empty() {
        return Ok(());
    }
    let rest = tail(bytes, start)?;
    let skip = usize::try_from(start.skip).map_err(|_| format!("skip {} too large", start.skip))?;
    let result = match kind {
        DataKind::IntV1 => orc_rle::decode_int_rle_v1_prefix(rest, true, skip, out),
        DataKind::IntV2 => orc_rle::decode_int_rle_v2_prefix(rest, true, skip, out),
        _ => return Err(format!("{} values of the wrong type", kind.name())),
    };
    result
        .map(|_| ())
        .map_err(|status| run_error(status, out.len(), start))
}

/// What a failed run read from `start` says: the stream ending before the `wanted` values, or
/// the decoder's status.
fn run_error(status: ChunkStatus, wanted: usize, start: &StreamStart) -> String {
    match status {
        ChunkStatus::Underflow => format!(
            "the stream ends before the group's {wanted} values (from byte {}, skipping {})",
            start.byte, start.skip
        ),
        other => format!("{} (from byte {})", other.reason(), start.byte),
    }
}

/// The stripe's PRESENT stream and the group's start in it (`None` when the stripe has none);
/// the reason when only one of the two exists.
fn present_of<'a>(
    plan: &'a ColumnPlan,
    g: &'a RowGroup,
) -> std::result::Result<Option<(&'a [u8], &'a StreamStart)>, String> {
    match (&plan.present, &g.present) {
        (Some(bytes), Some(start)) => Ok(Some((bytes, start))),
        (None, None) => Ok(None),
        (Some(_), None) => {
            Err("the stripe has a PRESENT stream but the group no start in it".into())
        }
        (None, Some(_)) => {
            Err("the group has a PRESENT start but the stripe no PRESENT stream".into())
        }
    }
}

/// Row group `group` of `plan`, for errors.
fn group_place(plan: &ColumnPlan, group: usize) -> Place {
    plan.column.in_stripe(plan.stripe).row_group(group)
}
