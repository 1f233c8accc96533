//! The CPU decoder of every ORC type but union, whole stripe by whole stripe, into the Arrow
//! types pyarrow gives for the same file: floats and doubles, strings and binaries (DIRECT and
//! DICTIONARY, length streams in RLE v1 or v2), decimals (Decimal128), timestamps (nanoseconds),
//! and structs, lists and maps decoded column by column down their type trees. Integer-family
//! columns at the top level go through `cpu` (row groups, all cores) and the GPU; inside a
//! nested type they are decoded here.

use super::file::compression::{inflate_stream_mapped, Compression};
use super::file::proto::{ColumnEncodingKind, StreamKind, Type, TypeKind};
use super::file::stripe::Stripe;
use super::file::OrcFile;
use super::place::Place;
use super::schema::{kind_of, OrcColumn};
use crate::codec::orc_rle::{self, OrcInt};
use crate::error::{try_zeroed, try_zeroed_of, ChunkStatus, Error, Result};
use arrow_array::types::{Decimal128Type, TimestampNanosecondType};
use arrow_array::{
    new_empty_array, Array, ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array,
    Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, ListArray, MapArray,
    PrimitiveArray, StringArray, StructArray, UInt32Array,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, TimeUnit};
use super::gpu::streams::{
    decimal_varints, decompress_stream, decompresses, dictionary_strings, offsets_of, stream_bools,
    stream_bytes, stream_ints, timestamps as timestamps_on_gpu,
};
use crate::gpu::GpuContext;
use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Seconds from 1970-01-01 to 2015-01-01 (UTC), ORC's timestamp epoch.
const ORC_EPOCH_SECONDS: i64 = 1_420_070_400;

/// Precision and scale of a decimal type whose writer (Hive 0.11, 0.12) recorded neither: the
/// Arrow type pyarrow gives such columns.
const UNSPECIFIED_DECIMAL: (u8, i8) = (38, 6);

/// The Arrow type of schema type `id`, as pyarrow reads it; a union is `Unsupported`.
pub fn arrow_type(types: &[Type], id: u32, name: &str) -> Result<DataType> {
    arrow_type_at(types, id, name, 0)
}

/// Deeper type trees than this are refused (a damaged footer may nest without end).
const MAX_DEPTH: usize = 64;

fn arrow_type_at(types: &[Type], id: u32, name: &str, depth: usize) -> Result<DataType> {
    let t = type_of(types, id)?;
    if depth > MAX_DEPTH {
        return Err(Error::Unsupported(format!(
            "ORC column '{name}' nests types more than {MAX_DEPTH} deep"
        )));
    }
    let child = |i: usize| -> Result<(u32, DataType)> {
        let c = *t.subtypes.get(i).ok_or_else(|| {
            Place::file()
                .part("footer")
                .corrupt(format!("type {id} ({name}) lacks its child type {i}"))
        })?;
        if c <= id {
            return Err(Place::file()
                .part("footer")
                .corrupt(format!("type {id} ({name}) names child type {c}, not after it")));
        }
        Ok((c, arrow_type_at(types, c, name, depth + 1)?))
    };
    Ok(match kind_of(t) {
        TypeKind::Boolean => DataType::Boolean,
        TypeKind::Byte => DataType::Int8,
        TypeKind::Short => DataType::Int16,
        TypeKind::Int => DataType::Int32,
        TypeKind::Long => DataType::Int64,
        TypeKind::Date => DataType::Date32,
        TypeKind::Float => DataType::Float32,
        TypeKind::Double => DataType::Float64,
        TypeKind::String | TypeKind::Varchar | TypeKind::Char => DataType::Utf8,
        TypeKind::Binary => DataType::Binary,
        TypeKind::Decimal => {
            let (p, s) = decimal_shape(t);
            DataType::Decimal128(p, s)
        }
        TypeKind::Timestamp => DataType::Timestamp(TimeUnit::Nanosecond, None),
        TypeKind::TimestampInstant => {
            DataType::Timestamp(TimeUnit::Nanosecond, Some("UTC".into()))
        }
        TypeKind::List => {
            let (_, item) = child(0)?;
            DataType::List(Arc::new(Field::new("item", item, true)))
        }
        TypeKind::Map => {
            let (_, key) = child(0)?;
            let (_, value) = child(1)?;
            DataType::Map(Arc::new(map_entries(key, value)), false)
        }
        TypeKind::Struct => {
            let mut fields = Vec::with_capacity(t.subtypes.len());
            for (i, field_name) in t.field_names.iter().enumerate() {
                let (_, dt) = child(i)?;
                fields.push(Field::new(field_name.clone(), dt, true));
            }
            DataType::Struct(Fields::from(fields))
        }
        TypeKind::Union => {
            return Err(Error::Unsupported(format!(
                "ORC column '{name}' holds a union type, which this reader does not decode"
            )))
        }
    })
}

/// The entries field of a map of `key` to `value`, as pyarrow names it.
fn map_entries(key: DataType, value: DataType) -> Field {
    Field::new(
        "entries",
        DataType::Struct(Fields::from(vec![
            Field::new("key", key, false),
            Field::new("value", value, true),
        ])),
        false,
    )
}

/// A decimal type's precision and scale as Arrow takes them.
fn decimal_shape(t: &Type) -> (u8, i8) {
    match t.precision {
        None | Some(0) => UNSPECIFIED_DECIMAL,
        Some(p) => {
            let p = p.min(38) as u8;
            let s = t.scale.unwrap_or(0).min(u32::from(p)) as i8;
            (p, s)
        }
    }
}

fn type_of(types: &[Type], id: u32) -> Result<&Type> {
    types.get(id as usize).ok_or_else(|| {
        Place::file()
            .part("footer")
            .corrupt(format!("no type {id} in the schema"))
    })
}

/// Where a stripe's streams are decompressed and its run-length streams decoded.
#[derive(Clone, Copy)]
pub enum Decoder<'a> {
    /// On the CPU, stripes on all cores.
    Cpu,
    /// On a GPU, stripe after stripe: the chunks of ZLIB, SNAPPY and LZ4 streams decompressed
    /// there, and every integer, byte and Boolean run-length stream decoded there (PRESENT,
    /// DATA, LENGTH, SECONDARY), but RLE v1 nanoseconds of timestamps, whose runs may wrap past
    /// 2^64 (see `wrapping_rle_v1`). The counter adds one for each stream sent to the GPU. The
    /// host assembles the Arrow buffers from the decoded streams.
    Gpu(&'a GpuContext, &'a AtomicUsize),
}

/// Decodes `column` (any type but union) of every stripe into one Arrow array.
pub fn read_column(file: &OrcFile, stripes: &[Stripe], column: &OrcColumn) -> Result<ArrayRef> {
    read_column_on(file, stripes, column, Decoder::Cpu)
}

/// [`read_column`] with the streams decoded as `decoder` says.
pub fn read_column_on(
    file: &OrcFile,
    stripes: &[Stripe],
    column: &OrcColumn,
    decoder: Decoder<'_>,
) -> Result<ArrayRef> {
    let types = &file.tail().footer.types;
    let data_type = arrow_type(types, column.id, &column.name)?;
    let one = |stripe: &Stripe| -> Result<ArrayRef> {
        let reader = StripeReader {
            file: file.bytes(),
            compression: file.compression(),
            stripe,
            types,
            name: &column.name,
            decoder,
        };
        let rows = usize::try_from(stripe.rows()).map_err(|_| {
            column
                .in_stripe(stripe.index)
                .corrupt("too many rows for memory")
        })?;
        reader.decode(column.id, rows)
    };
    let parts: Vec<ArrayRef> = match decoder {
        Decoder::Cpu => stripes.par_iter().map(one).collect::<Result<_>>()?,
        // One GPU stream: stripe after stripe.
        Decoder::Gpu(..) => stripes.iter().map(one).collect::<Result<_>>()?,
    };
    if parts.is_empty() {
        return Ok(new_empty_array(&data_type));
    }
    for p in &parts {
        if p.data_type() != &data_type {
            return Err(Error::InvalidArgument(format!(
                "ORC column '{}': a stripe decoded to {}, the schema says {data_type}",
                column.name,
                p.data_type()
            )));
        }
    }
    let refs: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
    arrow_select::concat::concat(&refs).map_err(|e| {
        Error::InvalidArgument(format!("ORC column '{}': {e}", column.name))
    })
}

/// One stripe's streams, decoded column by column down a type tree.
struct StripeReader<'a> {
    file: &'a [u8],
    compression: Compression,
    stripe: &'a Stripe,
    types: &'a [Type],
    /// The top-level column's name, for errors.
    name: &'a str,
    decoder: Decoder<'a>,
}

impl StripeReader<'_> {
    fn place(&self, id: u32) -> Place {
        Place::stripe(self.stripe.index).column(id, self.name)
    }

    fn fail(&self, id: u32, kind: StreamKind, reason: impl Into<String>) -> Error {
        self.place(id).stream(kind.name()).corrupt(reason)
    }

    /// The decompressed bytes of a stream, `None` when the stripe has none.
    fn stream(&self, id: u32, kind: StreamKind) -> Result<Option<Vec<u8>>> {
        let Some(info) = self.stripe.stream(id, kind) else {
            return Ok(None);
        };
        let place = self.place(id).stream(kind.name());
        let bytes = usize::try_from(info.offset)
            .ok()
            .zip(usize::try_from(info.length).ok())
            .and_then(|(start, len)| self.file.get(start..start.checked_add(len)?))
            .ok_or_else(|| place.corrupt("the stream lies outside the file"))?;
        if let Decoder::Gpu(gpu, used) = self.decoder {
            if decompresses(self.compression.kind) {
                used.fetch_add(1, Ordering::Relaxed);
                let start = info.offset as usize;
                return decompress_stream(gpu, self.file, start, bytes.len(), self.compression, &place)
                    .map(Some);
            }
        }
        let (bytes, _) = inflate_stream_mapped(bytes, self.compression, &place)?;
        Ok(Some(bytes.into_owned()))
    }

    /// A stream that must be there when `n` values are to come from it (an empty one otherwise).
    fn needed(&self, id: u32, kind: StreamKind, n: usize) -> Result<Vec<u8>> {
        match self.stream(id, kind)? {
            Some(bytes) => Ok(bytes),
            None if n == 0 => Ok(Vec::new()),
            None => Err(self.fail(id, kind, format!("missing, but {n} values need it"))),
        }
    }

    /// The column's encoding kind in this stripe.
    fn encoding(&self, id: u32) -> Result<ColumnEncodingKind> {
        self.stripe.encoding(id)
    }

    /// Whether the column's integer streams are RLE v2 (else v1).
    fn rle_v2(&self, id: u32) -> Result<bool> {
        Ok(match self.encoding(id)? {
            ColumnEncodingKind::Direct | ColumnEncodingKind::Dictionary => false,
            ColumnEncodingKind::DirectV2 | ColumnEncodingKind::DictionaryV2 => true,
            ColumnEncodingKind::Decimal64 => {
                return Err(Error::Unsupported(format!(
                    "ORC column '{}' (type {id}) uses encoding DECIMAL_64 in stripe {}",
                    self.name, self.stripe.index
                )))
            }
        })
    }

    /// `n` integers of a stream in RLE v1 or v2.
    fn ints<T: OrcInt + crate::error::ZeroBits>(&self, id: u32, kind: StreamKind, n: usize, signed: bool) -> Result<Vec<T>> {
        let v2 = self.rle_v2(id)?;
        let bytes = self.needed(id, kind, n)?;
        let mut out = try_zeroed_of::<T>(n, "an ORC stream's values")?;
        if n == 0 {
            return Ok(out);
        }
        let result = match self.decoder {
            Decoder::Gpu(gpu, used) => {
                used.fetch_add(1, Ordering::Relaxed);
                stream_ints(gpu, &bytes, v2, signed, &mut out)?
            }
            Decoder::Cpu if v2 => orc_rle::decode_int_rle_v2(&bytes, signed, &mut out),
            Decoder::Cpu => orc_rle::decode_int_rle_v1(&bytes, signed, &mut out),
        };
        result.map_err(|s| self.fail(id, kind, status_reason(s, n)))?;
        Ok(out)
    }

    /// Decodes the Boolean RLE stream `bytes` into `out`.
    fn bools(&self, bytes: &[u8], out: &mut [bool]) -> Result<std::result::Result<(), ChunkStatus>> {
        Ok(match self.decoder {
            Decoder::Gpu(gpu, used) => {
                used.fetch_add(1, Ordering::Relaxed);
                stream_bools(gpu, bytes, out)?
            }
            Decoder::Cpu => orc_rle::decode_bool_rle(bytes, out),
        })
    }

    /// Decodes the byte RLE stream `bytes` into `out`.
    fn byte_rle(&self, bytes: &[u8], out: &mut [u8]) -> Result<std::result::Result<(), ChunkStatus>> {
        Ok(match self.decoder {
            Decoder::Gpu(gpu, used) => {
                used.fetch_add(1, Ordering::Relaxed);
                stream_bytes(gpu, bytes, out)?
            }
            Decoder::Cpu => orc_rle::decode_byte_rle(bytes, out),
        })
    }

    /// The column's PRESENT flags for `rows` rows, `None` when it has no PRESENT stream.
    fn present(&self, id: u32, rows: usize) -> Result<Option<Vec<bool>>> {
        let Some(bytes) = self.stream(id, StreamKind::Present)? else {
            return Ok(None);
        };
        let mut flags = try_zeroed_of::<bool>(rows, "an ORC PRESENT stream")?;
        if rows > 0 {
            self.bools(&bytes, &mut flags)?
                .map_err(|s| self.fail(id, StreamKind::Present, status_reason(s, rows)))?;
        }
        Ok(Some(flags))
    }

    /// Decodes type `id` for `rows` rows (of its parent: the stripe's rows at the top, a list's
    /// elements below one). `read_column` checked the tree first (`arrow_type`): it is at most
    /// 64 deep and its child ids grow, so the recursion ends.
    fn decode(&self, id: u32, rows: usize) -> Result<ArrayRef> {
        let t = type_of(self.types, id)?;
        let kind = kind_of(t);
        let present = self.present(id, rows)?;
        let n = present
            .as_ref()
            .map_or(rows, |p| p.iter().filter(|&&b| b).count());
        let nulls = present
            .as_ref()
            .filter(|p| p.iter().any(|&b| !b))
            .map(|p| NullBuffer::new(BooleanBuffer::collect_bool(rows, |i| p[i])));
        // Positions of the values among the rows (`None` for a null row), where some row is
        // null: the values of every primitive type are spread by one `take`.
        let spread = |values: ArrayRef| -> Result<ArrayRef> {
            spread_values(values, present.as_deref())
        };
        Ok(match kind {
            TypeKind::Boolean => {
                let bytes = self.needed(id, StreamKind::Data, n)?;
                let mut bits = try_zeroed_of::<bool>(n, "an ORC column's values")?;
                if n > 0 {
                    self.bools(&bytes, &mut bits)?
                        .map_err(|s| self.fail(id, StreamKind::Data, status_reason(s, n)))?;
                }
                spread(Arc::new(BooleanArray::from(bits)))?
            }
            TypeKind::Byte => {
                let bytes = self.needed(id, StreamKind::Data, n)?;
                let mut values = try_zeroed(n, "an ORC column's values")?;
                if n > 0 {
                    self.byte_rle(&bytes, &mut values)?
                        .map_err(|s| self.fail(id, StreamKind::Data, status_reason(s, n)))?;
                }
                let values: Vec<i8> = values.into_iter().map(|b| b as i8).collect();
                spread(Arc::new(Int8Array::from(values)))?
            }
            TypeKind::Short => {
                let v = self.ints::<i16>(id, StreamKind::Data, n, true)?;
                spread(Arc::new(Int16Array::from(v)))?
            }
            TypeKind::Int => {
                let v = self.ints::<i32>(id, StreamKind::Data, n, true)?;
                spread(Arc::new(Int32Array::from(v)))?
            }
            TypeKind::Long => {
                let v = self.ints::<i64>(id, StreamKind::Data, n, true)?;
                spread(Arc::new(Int64Array::from(v)))?
            }
            TypeKind::Date => {
                let v = self.ints::<i32>(id, StreamKind::Data, n, true)?;
                spread(Arc::new(Date32Array::from(v)))?
            }
            TypeKind::Float => {
                let bytes = self.fixed_width(id, n, 4)?;
                let v: Vec<f32> = bytes
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                spread(Arc::new(Float32Array::from(v)))?
            }
            TypeKind::Double => {
                let bytes = self.fixed_width(id, n, 8)?;
                let v: Vec<f64> = bytes
                    .chunks_exact(8)
                    .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
                    .collect();
                spread(Arc::new(Float64Array::from(v)))?
            }
            TypeKind::String | TypeKind::Varchar | TypeKind::Char | TypeKind::Binary => {
                let (offsets, bytes) = self.byte_strings(id, n)?;
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                let values: ArrayRef = if kind == TypeKind::Binary {
                    Arc::new(BinaryArray::new(offsets, Buffer::from_vec(bytes), None))
                } else {
                    Arc::new(
                        StringArray::try_new(offsets, Buffer::from_vec(bytes), None).map_err(
                            |e| self.fail(id, StreamKind::Data, format!("not UTF-8 text ({e})")),
                        )?,
                    )
                };
                spread(values)?
            }
            TypeKind::Decimal => spread(self.decimals(id, t, n)?)?,
            TypeKind::Timestamp | TypeKind::TimestampInstant => {
                spread(self.timestamps(id, kind, n)?)?
            }
            TypeKind::Struct => {
                let mut fields = Vec::with_capacity(t.subtypes.len());
                let mut children = Vec::with_capacity(t.subtypes.len());
                for (i, field_name) in t.field_names.iter().enumerate() {
                    let child = self.child(t, id, i)?;
                    let values = self.decode(child, n)?;
                    // Children hold values only for the struct's non-null rows.
                    let values = spread_values(values, present.as_deref())?;
                    fields.push(Field::new(field_name.clone(), values.data_type().clone(), true));
                    children.push(values);
                }
                if fields.is_empty() {
                    return Ok(Arc::new(StructArray::new_empty_fields(rows, nulls)));
                }
                Arc::new(
                    StructArray::try_new(Fields::from(fields), children, nulls)
                        .map_err(|e| self.place(id).corrupt(format!("the struct's fields: {e}")))?,
                )
            }
            TypeKind::List | TypeKind::Map => {
                let lengths = self.ints::<u64>(id, StreamKind::Length, n, false)?;
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0i32);
                let mut total = 0i64;
                let mut next = lengths.iter();
                for r in 0..rows {
                    if present.as_ref().is_none_or(|p| p[r]) {
                        let len = next.next().copied().unwrap_or(0);
                        total = i64::try_from(len)
                            .ok()
                            .and_then(|l| total.checked_add(l))
                            .filter(|&t| t <= i64::from(i32::MAX))
                            .ok_or_else(|| {
                                self.fail(
                                    id,
                                    StreamKind::Length,
                                    "the lengths add up to more than 2^31 - 1 elements",
                                )
                            })?;
                    }
                    offsets.push(total as i32);
                }
                let elements = total as usize;
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                if kind == TypeKind::List {
                    let child = self.child(t, id, 0)?;
                    let items = self.decode(child, elements)?;
                    let field = Arc::new(Field::new("item", items.data_type().clone(), true));
                    Arc::new(
                        ListArray::try_new(field, offsets, items, nulls)
                            .map_err(|e| self.place(id).corrupt(format!("the list: {e}")))?,
                    )
                } else {
                    let keys = self.decode(self.child(t, id, 0)?, elements)?;
                    let values = self.decode(self.child(t, id, 1)?, elements)?;
                    if keys.null_count() > 0 {
                        return Err(self.place(id).corrupt("a map key is null"));
                    }
                    let entries_field = map_entries(keys.data_type().clone(), values.data_type().clone());
                    let DataType::Struct(entry_fields) = entries_field.data_type().clone() else {
                        return Err(Error::InvalidArgument("map entries are not a struct".into()));
                    };
                    let entries = StructArray::try_new(entry_fields, vec![keys, values], None)
                        .map_err(|e| self.place(id).corrupt(format!("the map's entries: {e}")))?;
                    Arc::new(
                        MapArray::try_new(Arc::new(entries_field), offsets, entries, nulls, false)
                            .map_err(|e| self.place(id).corrupt(format!("the map: {e}")))?,
                    )
                }
            }
            TypeKind::Union => {
                return Err(Error::Unsupported(format!(
                    "ORC column '{}' holds a union type (type {id}), which this reader does not \
                     decode",
                    self.name
                )))
            }
        })
    }

    /// Child `i` of type `t` (whose id is `id`).
    fn child(&self, t: &Type, id: u32, i: usize) -> Result<u32> {
        t.subtypes
            .get(i)
            .copied()
            .filter(|&c| c > id)
            .ok_or_else(|| {
                Place::file()
                    .part("footer")
                    .corrupt(format!("type {id} lacks a valid child type {i}"))
            })
    }

    /// `n` values of `width` bytes from DATA.
    fn fixed_width(&self, id: u32, n: usize, width: usize) -> Result<Vec<u8>> {
        let bytes = self.needed(id, StreamKind::Data, n)?;
        let want = n.saturating_mul(width);
        if bytes.len() < want {
            return Err(self.fail(
                id,
                StreamKind::Data,
                format!("{} bytes hold fewer than {n} values of {width} bytes", bytes.len()),
            ));
        }
        let mut bytes = bytes;
        bytes.truncate(want);
        Ok(bytes)
    }

    /// `n` byte strings: their offsets (n + 1) and bytes, from DIRECT (LENGTH, DATA) or
    /// DICTIONARY (DATA indices, LENGTH and DICTIONARY_DATA of the dictionary) streams.
    fn byte_strings(&self, id: u32, n: usize) -> Result<(Vec<i32>, Vec<u8>)> {
        let too_long = |kind: StreamKind| {
            self.fail(id, kind, "the strings add up to more than 2^31 - 1 bytes")
        };
        match self.encoding(id)? {
            ColumnEncodingKind::Direct | ColumnEncodingKind::DirectV2 => {
                let lengths = self.ints::<u64>(id, StreamKind::Length, n, false)?;
                let data = self.needed(id, StreamKind::Data, n)?;
                if let Decoder::Gpu(gpu, _) = self.decoder {
                    // The offsets by the GPU scan: every length below 2^31 first, so that their
                    // sum cannot wrap.
                    if lengths.iter().any(|&l| l > i32::MAX as u64) {
                        return Err(too_long(StreamKind::Length));
                    }
                    let (starts, total) = offsets_of(gpu, &lengths)?;
                    if total > i32::MAX as u64 {
                        return Err(too_long(StreamKind::Length));
                    }
                    let end = total as usize;
                    if end > data.len() {
                        return Err(self.fail(
                            id,
                            StreamKind::Data,
                            format!("{} bytes, but the lengths add up to {end}", data.len()),
                        ));
                    }
                    let mut offsets = Vec::with_capacity(n + 1);
                    offsets.extend(starts.iter().map(|&o| o as i32));
                    offsets.push(end as i32);
                    let mut data = data;
                    data.truncate(end);
                    return Ok((offsets, data));
                }
                let mut offsets = Vec::with_capacity(n + 1);
                offsets.push(0i32);
                let mut end = 0usize;
                for &len in &lengths {
                    end = usize::try_from(len)
                        .ok()
                        .and_then(|l| end.checked_add(l))
                        .filter(|&e| e <= i32::MAX as usize)
                        .ok_or_else(|| too_long(StreamKind::Length))?;
                    offsets.push(end as i32);
                }
                if end > data.len() {
                    return Err(self.fail(
                        id,
                        StreamKind::Data,
                        format!("{} bytes, but the lengths add up to {end}", data.len()),
                    ));
                }
                let mut data = data;
                data.truncate(end);
                Ok((offsets, data))
            }
            ColumnEncodingKind::Dictionary | ColumnEncodingKind::DictionaryV2 => {
                let size = self
                    .stripe
                    .footer
                    .columns
                    .get(id as usize)
                    .and_then(|e| e.dictionary_size)
                    .unwrap_or(0) as usize;
                let dict = self.needed(id, StreamKind::DictionaryData, size)?;
                // A damaged dictionary size cannot ask for more lengths than its bytes could
                // hold (a length of one byte at least per 520 values).
                let lengths_bytes = self.stream(id, StreamKind::Length)?.map_or(0, |b| b.len());
                if size > lengths_bytes.saturating_mul(520) {
                    return Err(self.fail(
                        id,
                        StreamKind::Length,
                        format!("{lengths_bytes} bytes cannot hold {size} dictionary lengths"),
                    ));
                }
                let lengths = self.ints::<u64>(id, StreamKind::Length, size, false)?;
                let mut starts = Vec::with_capacity(size + 1);
                starts.push(0usize);
                let mut end = 0usize;
                for &len in &lengths {
                    end = usize::try_from(len)
                        .ok()
                        .and_then(|l| end.checked_add(l))
                        .filter(|&e| e <= dict.len())
                        .ok_or_else(|| {
                            self.fail(
                                id,
                                StreamKind::Length,
                                format!(
                                    "the dictionary's lengths run past its {} bytes",
                                    dict.len()
                                ),
                            )
                        })?;
                    starts.push(end);
                }
                let indices = self.ints::<u64>(id, StreamKind::Data, n, false)?;
                if let Decoder::Gpu(gpu, _) = self.decoder {
                    let starts: Vec<u64> = starts.iter().map(|&s| s as u64).collect();
                    let limit = i32::MAX as u64;
                    return match dictionary_strings(gpu, &dict, &starts, &indices, limit)? {
                        Err(k) => {
                            let i = indices.get(k).copied().unwrap_or(u64::MAX);
                            Err(self.fail(
                                id,
                                StreamKind::Data,
                                format!("index {i} in a dictionary of {size} entries"),
                            ))
                        }
                        Ok(d) if d.total > limit => Err(too_long(StreamKind::Data)),
                        Ok(d) => {
                            let mut offsets = Vec::with_capacity(n + 1);
                            offsets.extend(d.offsets.iter().map(|&o| o as i32));
                            offsets.push(d.total as i32);
                            Ok((offsets, d.bytes))
                        }
                    };
                }
                let mut offsets = Vec::with_capacity(n + 1);
                offsets.push(0i32);
                let mut bytes = Vec::new();
                for &i in &indices {
                    let i = usize::try_from(i).ok().filter(|&i| i < size).ok_or_else(|| {
                        self.fail(
                            id,
                            StreamKind::Data,
                            format!("index {i} in a dictionary of {size} entries"),
                        )
                    })?;
                    let entry = &dict[starts[i]..starts[i + 1]];
                    if bytes.len() + entry.len() > i32::MAX as usize {
                        return Err(too_long(StreamKind::Data));
                    }
                    crate::error::try_reserve(&mut bytes, entry.len(), "an ORC string column")?;
                    bytes.extend_from_slice(entry);
                    offsets.push(bytes.len() as i32);
                }
                Ok((offsets, bytes))
            }
            ColumnEncodingKind::Decimal64 => Err(self.place(id).corrupt(
                "a string column cannot use encoding DECIMAL_64".to_string(),
            )),
        }
    }

    /// `n` decimals: unbounded zigzag varints in DATA, each with its scale in SECONDARY, brought
    /// to the type's scale.
    fn decimals(&self, id: u32, t: &Type, n: usize) -> Result<ArrayRef> {
        let (precision, scale) = decimal_shape(t);
        let data = self.needed(id, StreamKind::Data, n)?;
        let scales = self.ints::<i64>(id, StreamKind::Secondary, n, true)?;
        let mut values = try_zeroed_of::<i128>(n, "an ORC column's values")?;
        // On a GPU the varints are decoded there first (the first that fails is named).
        let on_device = match self.decoder {
            Decoder::Gpu(gpu, used) if n > 0 => {
                used.fetch_add(1, Ordering::Relaxed);
                Some(decimal_varints(gpu, &data, n)?.map_err(|(k, reason)| {
                    self.fail(id, StreamKind::Data, format!("value {k}: {reason}"))
                })?)
            }
            _ => None,
        };
        let mut pos = 0usize;
        for (k, (v, &s)) in values.iter_mut().zip(&scales).enumerate() {
            let unscaled = match &on_device {
                Some(unscaled) => unscaled.get(k).copied().unwrap_or(0),
                None => {
                    let raw = read_varint128(&data, &mut pos).map_err(|reason| {
                        self.fail(id, StreamKind::Data, format!("value {k}: {reason}"))
                    })?;
                    ((raw >> 1) as i128) ^ -((raw & 1) as i128)
                }
            };
            *v = rescale(unscaled, s, i64::from(scale)).ok_or_else(|| {
                self.fail(
                    id,
                    StreamKind::Secondary,
                    format!("value {k}: scale {s} cannot be brought to the column's {scale}"),
                )
            })?;
        }
        let array = PrimitiveArray::<Decimal128Type>::from(values)
            .with_precision_and_scale(precision, scale)
            .map_err(|e| self.place(id).corrupt(format!("decimal type: {e}")))?;
        Ok(Arc::new(array))
    }

    /// `n` timestamps: seconds from ORC's epoch in DATA, nanoseconds (trailing zeros counted in
    /// the low 3 bits) in SECONDARY.
    fn timestamps(&self, id: u32, kind: TypeKind, n: usize) -> Result<ArrayRef> {
        // A timestamp without a time zone is the writer's wall clock: its seconds count from
        // 2015-01-01 00:00:00 in the writer's zone, and it reads back as that wall clock (as
        // ORC's C++ reader, and so pyarrow, give it with the reader's zone UTC).
        let zone = if kind == TypeKind::TimestampInstant {
            None
        } else {
            match self.stripe.footer.writer_timezone.as_deref() {
                Some(z) if !is_utc(z) => Some(z.parse::<chrono_tz::Tz>().map_err(|_| {
                    Error::Unsupported(format!(
                        "ORC column '{}' (type {id}) holds timestamps written in time zone \
                         {z} (stripe {}), which the time zone database does not know",
                        self.name, self.stripe.index
                    ))
                })?),
                _ => None,
            }
        };
        let seconds = self.ints::<i64>(id, StreamKind::Data, n, true)?;
        let nanos = if self.rle_v2(id)? {
            self.ints::<u64>(id, StreamKind::Secondary, n, false)?
        } else {
            // RLE v1 runs of pyarrow's negative nanoseconds step across 2^64: read them as the
            // 64-bit words ORC's C++ reader sees.
            let bytes = self.needed(id, StreamKind::Secondary, n)?;
            wrapping_rle_v1(&bytes, n)
                .map_err(|s| self.fail(id, StreamKind::Secondary, status_reason(s, n)))?
        };
        let values = match self.decoder {
            Decoder::Gpu(gpu, used) if n > 0 => {
                used.fetch_add(1, Ordering::Relaxed);
                match timestamps_on_gpu(gpu, &seconds, &nanos)? {
                    Ok(values) => values,
                    Err(k) => {
                        // The GPU names the first value out of range; the host says why.
                        let (kind, reason) = seconds
                            .get(k)
                            .zip(nanos.get(k))
                            .and_then(|(&s, &z)| timestamp_of(k, s, z).err())
                            .unwrap_or((StreamKind::Data, format!("value {k} is out of range")));
                        return Err(self.fail(id, kind, reason));
                    }
                }
            }
            _ => {
                let mut values = try_zeroed_of::<i64>(n, "an ORC column's values")?;
                for (k, (v, (&s, &z))) in
                    values.iter_mut().zip(seconds.iter().zip(&nanos)).enumerate()
                {
                    *v = timestamp_of(k, s, z).map_err(|(kind, reason)| self.fail(id, kind, reason))?;
                }
                values
            }
        };
        let values = match zone {
            Some(zone) => to_wall_clock(zone, values).map_err(|k| {
                self.fail(id, StreamKind::Data, format!("value {k} is out of range"))
            })?,
            None => values,
        };
        let array = PrimitiveArray::<TimestampNanosecondType>::from(values);
        Ok(if kind == TypeKind::TimestampInstant {
            Arc::new(array.with_timezone("UTC"))
        } else {
            Arc::new(array)
        })
    }
}

/// Timestamp `k` in nanoseconds since 1970 from its seconds from ORC's epoch `s` and its
/// SECONDARY word `z`, or the stream and reason that make it fail.
fn timestamp_of(k: usize, s: i64, z: u64) -> std::result::Result<i64, (StreamKind, String)> {
    let nano = decode_nanos(z).ok_or_else(|| {
        (
            StreamKind::Secondary,
            format!("value {k}: {} is not a nanosecond count", z as i64),
        )
    })?;
    let mut secs = s.checked_add(ORC_EPOCH_SECONDS);
    // Writers (the Java one first) stored seconds rounded toward zero before 1970; readers take
    // one off when the nanoseconds show a fraction, as ORC's own do.
    if secs.is_some_and(|s| s < 0) && nano > 999_999 {
        secs = secs.and_then(|s| s.checked_sub(1));
    }
    secs.and_then(|s| s.checked_mul(1_000_000_000))
        .and_then(|s| s.checked_add(nano))
        .ok_or_else(|| {
            (
                StreamKind::Data,
                format!("value {k}: {s} seconds do not fit in nanoseconds"),
            )
        })
}

/// `n` unsigned Integer RLE v1 values as 64-bit words, runs stepping with wrap-around (the
/// `codec::orc_rle` decoder refuses a run that leaves the type's range).
fn wrapping_rle_v1(input: &[u8], n: usize) -> std::result::Result<Vec<u64>, ChunkStatus> {
    let mut out = Vec::with_capacity(n.min(input.len().saturating_mul(130)));
    let mut pos = 0usize;
    while out.len() < n {
        let control = *input.get(pos).ok_or(ChunkStatus::Underflow)?;
        pos += 1;
        if control < 0x80 {
            let len = usize::from(control) + 3;
            let delta = *input.get(pos).ok_or(ChunkStatus::Truncated)? as i8;
            pos += 1;
            let mut v = orc_rle::read_varint(input, &mut pos)?;
            for _ in 0..len {
                if out.len() == n {
                    return Err(ChunkStatus::Overflow);
                }
                out.push(v);
                v = v.wrapping_add_signed(i64::from(delta));
            }
        } else {
            let len = 0x100 - usize::from(control);
            for _ in 0..len {
                if out.len() == n {
                    return Err(ChunkStatus::Overflow);
                }
                out.push(orc_rle::read_varint(input, &mut pos)?);
            }
        }
    }
    if pos != input.len() {
        return Err(ChunkStatus::Overflow);
    }
    Ok(out)
}

/// Seconds from 1970 to ORC's timestamp epoch, 2015-01-01 00:00:00 UTC.
const ORC_EPOCH_UTC: i64 = 1_420_070_400;

/// Timestamps read as if written in UTC (nanoseconds from 1970) turned into the wall clock of a
/// writer in `zone`: the stored seconds count from 2015-01-01 00:00:00 in `zone`, which gives
/// the instant, and the instant's offset in `zone` gives its wall clock. `Err` names the first
/// value out of range.
fn to_wall_clock(
    zone: chrono_tz::Tz,
    mut values: Vec<i64>,
) -> std::result::Result<Vec<i64>, usize> {
    use chrono::{Offset, TimeZone};
    const NANOS: i64 = 1_000_000_000;
    let offset_at = |instant: i64| -> Option<i64> {
        let utc = chrono::DateTime::from_timestamp(instant, 0)?;
        Some(i64::from(zone.offset_from_utc_datetime(&utc.naive_utc()).fix().local_minus_utc()))
    };
    // The writer's epoch as an instant: its local midnight of 2015-01-01, at that day's offset.
    let base = offset_at(ORC_EPOCH_UTC).ok_or(0usize)?;
    let shift = NANOS * -base;
    for (k, v) in values.iter_mut().enumerate() {
        let instant = v.checked_add(shift).ok_or(k)?;
        let offset = offset_at(instant.div_euclid(NANOS)).ok_or(k)?;
        *v = instant.checked_add(offset * NANOS).ok_or(k)?;
    }
    Ok(values)
}

/// Whether a writer's time zone name is UTC under one of its names.
fn is_utc(zone: &str) -> bool {
    matches!(
        zone,
        "UTC" | "GMT" | "Etc/UTC" | "Etc/GMT" | "Z" | "Zulu" | "Etc/Zulu" | "UCT" | "Etc/UCT"
    )
}

/// A SECONDARY value of a timestamp: when its low 3 bits `z` are not 0, the value above them
/// is the nanoseconds with `z + 1` trailing decimal zeros taken off. The value is read as a
/// signed 64-bit word, as ORC's C++ reader reads it: writers that split a timestamp before 1970
/// into seconds and nanoseconds by truncating division (pyarrow's) store negative nanoseconds
/// there, and readers give back the instant written.
pub fn decode_nanos(raw: u64) -> Option<i64> {
    let zeros = raw & 7;
    let mut nanos = (raw as i64) >> 3;
    if zeros != 0 {
        for _ in 0..=zeros {
            nanos = nanos.checked_mul(10)?;
        }
    }
    Some(nanos)
}

/// `value` of scale `from` at scale `to` (digits dropped when `to` is smaller, as ORC's readers
/// do); `None` when it does not fit 128 bits.
fn rescale(value: i128, from: i64, to: i64) -> Option<i128> {
    let diff = to.checked_sub(from)?;
    if diff == 0 {
        return Some(value);
    }
    let factor = 10i128.checked_pow(u32::try_from(diff.unsigned_abs()).ok()?)?;
    if diff > 0 {
        value.checked_mul(factor)
    } else {
        Some(value / factor)
    }
}

/// A base-128 varint of up to 128 bits.
fn read_varint128(input: &[u8], pos: &mut usize) -> std::result::Result<u128, String> {
    let mut value = 0u128;
    let mut shift = 0u32;
    loop {
        let byte = *input
            .get(*pos)
            .ok_or_else(|| "the stream ends inside a value".to_string())?;
        *pos += 1;
        if shift >= 128 || (shift == 126 && byte & 0x7c != 0) {
            return Err("a value of more than 128 bits".to_string());
        }
        value |= u128::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
        shift += 7;
    }
}

/// `values` (one per present row) placed at the rows `present` marks, null elsewhere; as is
/// when every row is present.
fn spread_values(values: ArrayRef, present: Option<&[bool]>) -> Result<ArrayRef> {
    let Some(present) = present.filter(|p| p.iter().any(|&b| !b)) else {
        return Ok(values);
    };
    let mut next = 0u32;
    let indices: UInt32Array = present
        .iter()
        .map(|&p| {
            p.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    arrow_select::take::take(values.as_ref(), &indices, None)
        .map_err(|e| Error::InvalidArgument(format!("spreading ORC values over rows: {e}")))
}

/// The reason a run-length decode of `n` values failed.
fn status_reason(status: ChunkStatus, n: usize) -> String {
    match status {
        ChunkStatus::Underflow | ChunkStatus::Truncated => {
            format!("the stream ends before its {n} values")
        }
        ChunkStatus::Overflow => format!("the stream holds more than its {n} values"),
        other => other.reason().to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn nanoseconds_drop_their_trailing_zeros() {
        assert_eq!(decode_nanos(0), Some(0));
        assert_eq!(decode_nanos(5 << 3), Some(5));
        // 1000 written as 1 with 3 zeros: z = 2.
        assert_eq!(decode_nanos((1 << 3) | 2), Some(1000));
        assert_eq!(decode_nanos((123_456 << 3) | 2), Some(123_456_000));
        assert_eq!(decode_nanos((5 << 3) | 7), Some(500_000_000));
        // -500,000,000 as pyarrow writes it for a time before 1970.
        assert_eq!(decode_nanos(-33i64 as u64), Some(-500_000_000));
        assert_eq!(decode_nanos(((1u64 << 60) << 3) | 7), None);
    }

    #[test]
    fn decimals_rescale_and_varints_reach_128_bits() {
        assert_eq!(rescale(125, 2, 4), Some(12500));
        assert_eq!(rescale(12345, 3, 1), Some(123));
        assert_eq!(rescale(-12345, 3, 1), Some(-123));
        assert_eq!(rescale(1, 0, 39), None);
        let mut bytes = Vec::new();
        let mut v = u128::MAX;
        while v >= 0x80 {
            bytes.push((v as u8) | 0x80);
            v >>= 7;
        }
        bytes.push(v as u8);
        let mut pos = 0;
        assert_eq!(read_varint128(&bytes, &mut pos), Ok(u128::MAX));
        assert_eq!(pos, bytes.len());
        let mut pos = 0;
        assert!(read_varint128(&[0x80, 0x80], &mut pos).is_err());
        let mut pos = 0;
        assert!(read_varint128(&[0xff; 20], &mut pos).is_err());
    }

    #[test]
    fn rle_v1_runs_wrap_around() {
        // A run of 3 from 7 stepping -20, then a literal of 1 and 2.
        let stream = [0u8, (-20i8) as u8, 7, 0xfe, 1, 2];
        let want = [7u64, 7u64.wrapping_sub(20), 7u64.wrapping_sub(40), 1, 2];
        assert_eq!(wrapping_rle_v1(&stream, 5).unwrap(), want);
        assert_eq!(wrapping_rle_v1(&stream, 6), Err(ChunkStatus::Underflow));
        assert_eq!(wrapping_rle_v1(&stream, 4), Err(ChunkStatus::Overflow));
        assert_eq!(wrapping_rle_v1(&stream[..4], 5), Err(ChunkStatus::Truncated));
    }

    #[test]
    fn values_spread_over_present_rows() {
        let v: ArrayRef = Arc::new(Int32Array::from(vec![1, 2]));
        let out = spread_values(v, Some(&[false, true, false, true])).unwrap();
        let out = out.as_any().downcast_ref::<Int32Array>().unwrap();
        assert_eq!(out.iter().collect::<Vec<_>>(), [None, Some(1), None, Some(2)]);
    }
}
