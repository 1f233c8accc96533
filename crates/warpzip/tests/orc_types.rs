//! ORC files of every type pyarrow writes (float, double, string DIRECT and DICTIONARY, binary,
//! decimal, timestamp, timestamp with local time zone, struct, list, map, nested), in every
//! compression (NONE, ZLIB, SNAPPY, LZ4, ZSTD) and file versions 0.11 and 0.12, decode to the
//! Arrow types and values pyarrow gives (`data/orc/types/types.json.gz`, written by
//! `make_types.py` beside it); damaged streams give errors naming stripe, column and stream.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampNanosecondType,
};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use warpzip::orc::{CompressionKind, OrcFile, StreamKind};
use warpzip::{Device, Error};

fn types_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orc/types"))
}

fn answers(name: &str) -> Value {
    let bytes = std::fs::read(types_dir().join(name)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .unwrap();
    serde_json::from_str(&text).unwrap()
}

const FILES: [(&str, CompressionKind); 6] = [
    ("types_v012_uncompressed.orc", CompressionKind::None),
    ("types_v012_zlib.orc", CompressionKind::Zlib),
    ("types_v012_snappy.orc", CompressionKind::Snappy),
    ("types_v012_lz4.orc", CompressionKind::Lz4),
    ("types_v012_zstd.orc", CompressionKind::Zstd),
    ("types_v011_zlib.orc", CompressionKind::Zlib),
];

fn open(name: &str) -> OrcFile {
    OrcFile::open(&types_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// An Arrow type as pyarrow prints it.
fn pyarrow_type(t: &DataType) -> String {
    match t {
        DataType::Boolean => "bool".into(),
        DataType::Int8 => "int8".into(),
        DataType::Int16 => "int16".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::Date32 => "date32[day]".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Utf8 => "string".into(),
        DataType::Binary => "binary".into(),
        DataType::Decimal128(p, s) => format!("decimal128({p}, {s})"),
        DataType::Timestamp(TimeUnit::Nanosecond, None) => "timestamp[ns]".into(),
        DataType::Timestamp(TimeUnit::Nanosecond, Some(tz)) => format!("timestamp[ns, tz={tz}]"),
        DataType::List(f) => format!("list<{}: {}>", f.name(), pyarrow_type(f.data_type())),
        DataType::Struct(fields) => {
            let parts: Vec<String> = fields
                .iter()
                .map(|f| format!("{}: {}", f.name(), pyarrow_type(f.data_type())))
                .collect();
            format!("struct<{}>", parts.join(", "))
        }
        DataType::Map(entries, _) => {
            let DataType::Struct(kv) = entries.data_type() else {
                panic!("map entries {entries:?}")
            };
            format!(
                "map<{}, {}>",
                pyarrow_type(kv[0].data_type()),
                pyarrow_type(kv[1].data_type())
            )
        }
        other => format!("{other:?}"),
    }
}

/// A decimal string (`-12.50`, `1E-7`) as an unscaled integer at `scale`.
fn decimal_of(text: &str, scale: i8) -> i128 {
    let (mantissa, exponent) = match text.split_once(['E', 'e']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap()),
        None => (text, 0),
    };
    let (negative, digits) = match mantissa.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, mantissa),
    };
    let (whole, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let mut v: i128 = format!("{whole}{frac}").parse().unwrap();
    let shift = i32::from(scale) - frac.len() as i32 + exponent;
    if shift >= 0 {
        v *= 10i128.pow(shift as u32);
    } else {
        v /= 10i128.pow((-shift) as u32);
    }
    if negative {
        -v
    } else {
        v
    }
}

/// Row `i` of `array` compared with pyarrow's answer for it.
fn check_value(array: &dyn Array, i: usize, want: &Value, at: &str) {
    if array.is_null(i) {
        assert!(want.is_null(), "{at}: null, pyarrow gives {want}");
        return;
    }
    assert!(!want.is_null(), "{at}: a value, pyarrow gives null");
    let int = |v: i64| assert_eq!(Some(v), want.as_i64(), "{at}");
    match array.data_type() {
        DataType::Boolean => assert_eq!(Some(array.as_boolean().value(i)), want.as_bool(), "{at}"),
        DataType::Int8 => int(array.as_primitive::<Int8Type>().value(i).into()),
        DataType::Int16 => int(array.as_primitive::<Int16Type>().value(i).into()),
        DataType::Int32 => int(array.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int64 => int(array.as_primitive::<Int64Type>().value(i)),
        DataType::Date32 => int(array.as_primitive::<Date32Type>().value(i).into()),
        DataType::Timestamp(..) => int(array.as_primitive::<TimestampNanosecondType>().value(i)),
        DataType::Float32 => {
            let v = f64::from(array.as_primitive::<Float32Type>().value(i));
            assert_eq!(Some(v), want.as_f64(), "{at}");
        }
        DataType::Float64 => {
            let v = array.as_primitive::<Float64Type>().value(i);
            assert_eq!(Some(v), want.as_f64(), "{at}");
        }
        DataType::Utf8 => assert_eq!(
            Some(array.as_string::<i32>().value(i)),
            want.as_str(),
            "{at}"
        ),
        DataType::Binary => {
            let hex: String = array
                .as_binary::<i32>()
                .value(i)
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(Some(hex.as_str()), want.as_str(), "{at}");
        }
        DataType::Decimal128(_, s) => {
            let v = array.as_primitive::<Decimal128Type>().value(i);
            assert_eq!(v, decimal_of(want.as_str().unwrap(), *s), "{at}: {want}");
        }
        DataType::Struct(fields) => {
            let s = array.as_struct();
            let obj = want.as_object().unwrap();
            for (f, child) in fields.iter().zip(s.columns()) {
                check_value(
                    child.as_ref(),
                    i,
                    &obj[f.name()],
                    &format!("{at}.{}", f.name()),
                );
            }
        }
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(i);
            let want = want.as_array().unwrap();
            assert_eq!(items.len(), want.len(), "{at}: list length");
            for (k, w) in want.iter().enumerate() {
                check_value(items.as_ref(), k, w, &format!("{at}[{k}]"));
            }
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(i);
            let want = want.as_array().unwrap();
            assert_eq!(entries.len(), want.len(), "{at}: map length");
            for (k, w) in want.iter().enumerate() {
                let pair = w.as_array().unwrap();
                check_value(
                    entries.column(0).as_ref(),
                    k,
                    &pair[0],
                    &format!("{at}[{k}].key"),
                );
                check_value(
                    entries.column(1).as_ref(),
                    k,
                    &pair[1],
                    &format!("{at}[{k}].value"),
                );
            }
        }
        other => panic!("{at}: unexpected type {other}"),
    }
}

/// The batch equals pyarrow's reading (types, rows, every value).
fn check_batch(name: &str, batch: &RecordBatch, want: &Value) {
    assert_eq!(
        batch.num_rows() as u64,
        want["rows"].as_u64().unwrap(),
        "{name}: rows"
    );
    let types = want["types"].as_object().unwrap();
    // (The answers' objects come back with their keys sorted.)
    let mut names: Vec<String> = batch
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    names.sort();
    let want_names: Vec<String> = types.keys().cloned().collect();
    assert_eq!(names, want_names, "{name}: columns");
    for (field, array) in batch.schema().fields().iter().zip(batch.columns()) {
        let col = field.name();
        assert_eq!(
            pyarrow_type(array.data_type()),
            types[col].as_str().unwrap(),
            "{name}: type of {col}"
        );
        let values = want["columns"][col].as_array().unwrap();
        assert_eq!(array.len(), values.len(), "{name}: rows of {col}");
        for (i, v) in values.iter().enumerate() {
            check_value(array.as_ref(), i, v, &format!("{name}: {col}[{i}]"));
        }
    }
}

#[test]
fn every_type_and_compression_equals_pyarrow() {
    let want = answers("types.json.gz");
    for (name, compression) in FILES {
        let file = open(name);
        assert_eq!(file.compression().kind, compression, "{name}");
        assert!(file.columns().iter().all(|c| c.is_readable()), "{name}");
        assert!(
            file.stripe_count() >= 2,
            "{name}: {} stripes",
            file.stripe_count()
        );
        let batch = file
            .read_batch(None, &Device::Cpu)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        check_batch(name, &batch, &want);
        // Column by column, and in batches of stripes, the same arrays.
        for (c, whole) in file.columns().iter().zip(batch.columns()) {
            let one = file.read_column(c).unwrap();
            assert_eq!(one.to_data(), whole.to_data(), "{name}: {}", c.name);
        }
        let parts: Vec<RecordBatch> = file
            .read_batches(None, &Device::Cpu, 1)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(parts.len(), file.stripe_count(), "{name}");
        let joined = arrow_select::concat::concat_batches(&batch.schema(), &parts).unwrap();
        assert_eq!(joined, batch, "{name}");
    }
}

#[test]
fn strings_come_direct_and_from_dictionaries_in_both_rle_versions() {
    for (name, v2) in [
        ("types_v012_zlib.orc", true),
        ("types_v011_zlib.orc", false),
    ] {
        let file = open(name);
        let stripe = file.stripe(0).unwrap();
        let direct = file.column("s_direct").unwrap();
        let dict = file.column("s_dict").unwrap();
        let names = |c: &warpzip::orc::OrcColumn| stripe.encoding(c.id).unwrap().name();
        if v2 {
            assert_eq!(names(direct), "DIRECT_V2");
            assert_eq!(names(dict), "DICTIONARY_V2");
        } else {
            assert_eq!(names(direct), "DIRECT");
            assert_eq!(names(dict), "DICTIONARY");
        }
    }
}

#[test]
fn a_file_without_rows_has_every_column_and_type() {
    let want = answers("types_empty.json.gz");
    let file = open("types_empty_zstd.orc");
    assert_eq!(file.compression().kind, CompressionKind::Zstd);
    let batch = file.read_batch(None, &Device::Cpu).unwrap();
    check_batch("types_empty_zstd.orc", &batch, &want);
}

/// `name` with the bytes of `column`'s `kind` stream of stripe 0 overwritten by `fill`.
fn damaged(name: &str, column: &str, kind: StreamKind, fill: u8) -> (OrcFile, u32) {
    let file = open(name);
    let id = file.column(column).unwrap().id;
    (
        OrcFile::from_bytes(damage(&file, column, kind, fill)).unwrap(),
        id,
    )
}

/// The bytes of `file` with `column`'s `kind` stream of stripe 0 overwritten by `fill`.
fn damage(file: &OrcFile, column: &str, kind: StreamKind, fill: u8) -> Vec<u8> {
    let id = file.column(column).unwrap().id;
    let stripe = file.stripe(0).unwrap();
    let s = stripe
        .stream(id, kind)
        .unwrap_or_else(|| panic!("no {kind:?} for {column}"));
    let mut bytes = file.bytes().to_vec();
    let (start, len) = (s.offset as usize, s.length as usize);
    // Keep a compressed stream's first chunk header, so the damage is in its bytes.
    let skip = if file.compression().kind == CompressionKind::None {
        0
    } else {
        3
    };
    for b in &mut bytes[start + skip..start + len] {
        *b = fill;
    }
    bytes
}

/// Streams damaged by `damaged` (file, column, stream, fill byte): every decoder family on
/// every compression, for the CPU and the GPU damaged-stream tests.
const DAMAGE_CASES: [(&str, &str, StreamKind, u8); 11] = [
    (
        "types_v012_uncompressed.orc",
        "s_direct",
        StreamKind::Length,
        0xff,
    ),
    (
        "types_v012_uncompressed.orc",
        "s_dict",
        StreamKind::Data,
        0x7f,
    ),
    ("types_v012_uncompressed.orc", "dec", StreamKind::Data, 0xff),
    (
        "types_v012_uncompressed.orc",
        "ts",
        StreamKind::Secondary,
        0xff,
    ),
    (
        "types_v012_uncompressed.orc",
        "li",
        StreamKind::Length,
        0xff,
    ),
    ("types_v012_snappy.orc", "f64", StreamKind::Data, 0xff),
    ("types_v012_lz4.orc", "s_direct", StreamKind::Data, 0xff),
    ("types_v012_zstd.orc", "bin", StreamKind::Length, 0x00),
    ("types_v012_zlib.orc", "mp", StreamKind::Length, 0xff),
    ("types_v012_snappy.orc", "st", StreamKind::Present, 0xff),
    ("types_v012_lz4.orc", "nested", StreamKind::Length, 0x5a),
];

#[test]
fn damaged_streams_name_stripe_column_and_stream() {
    for (name, column, kind, fill) in DAMAGE_CASES {
        let (file, id) = damaged(name, column, kind, fill);
        let c = file.column(column).unwrap().clone();
        let e = file
            .read_column(&c)
            .expect_err(&format!("{name} {column} {kind:?}"));
        let Error::CorruptOrc(detail) = &e else {
            panic!("{name} {column} {kind:?}: {e}")
        };
        assert_eq!(detail.stripe, Some(0), "{e}");
        assert_eq!(
            detail.column.as_ref().map(|(i, _)| *i).filter(|&i| i >= id),
            detail.column.as_ref().map(|(i, _)| *i),
            "{e}"
        );
        assert!(detail.stream.is_some(), "{name} {column} {kind:?}: {e}");
        assert!(e.to_string().contains(column), "{e}");
    }
}

#[test]
fn a_batch_with_two_damaged_columns_names_the_first_in_its_order() {
    // The CPU decodes a batch's columns side by side: whichever fails first, the error is the
    // first failing column's in the batch's order.
    let (once, _) = damaged(
        "types_v012_uncompressed.orc",
        "s_direct",
        StreamKind::Length,
        0xff,
    );
    let twice = OrcFile::from_bytes(damage(&once, "dec", StreamKind::Data, 0xff)).unwrap();
    let order: Vec<String> = twice.columns().iter().map(|c| c.name.clone()).collect();
    let first = ["s_direct", "dec"]
        .into_iter()
        .min_by_key(|n| order.iter().position(|c| c == n).unwrap())
        .unwrap();
    let column_of = |e: Error| -> String {
        let Error::CorruptOrc(detail) = &e else {
            panic!("{e}")
        };
        detail.column.as_ref().map(|(_, n)| n.clone()).unwrap()
    };
    let named =
        |names: Option<&[&str]>| column_of(twice.read_batch(names, &Device::Cpu).unwrap_err());
    for _ in 0..20 {
        assert_eq!(named(None), first);
        assert_eq!(named(Some(&["s_direct", "dec"])), "s_direct");
        assert_eq!(named(Some(&["dec", "s_direct"])), "dec");
        let mut batches = twice
            .read_batches(Some(&["dec", "s_direct"]), &Device::Cpu, 1 << 20)
            .unwrap();
        let e = batches.find_map(|b| b.err()).unwrap();
        assert_eq!(column_of(e), "dec");
    }
}

/// A file of no rows with an int column and an `array<uniontype<int,string>>` one, built from
/// the specification.
fn union_file() -> Vec<u8> {
    use prost::Message;
    use warpzip::orc::proto::{Footer, PostScript, Type};
    let t = |kind: warpzip::orc::TypeKind, subtypes: Vec<u32>, names: Vec<&str>| Type {
        kind: Some(kind as i32),
        subtypes,
        field_names: names.into_iter().map(String::from).collect(),
        ..Type::default()
    };
    use warpzip::orc::TypeKind as K;
    let footer = Footer {
        header_length: Some(3),
        content_length: Some(0),
        types: vec![
            t(K::Struct, vec![1, 2], vec!["id", "u"]),
            t(K::Int, vec![], vec![]),
            t(K::List, vec![3], vec![]),
            t(K::Union, vec![4, 5], vec![]),
            t(K::Int, vec![], vec![]),
            t(K::String, vec![], vec![]),
        ],
        number_of_rows: Some(0),
        ..Footer::default()
    };
    let mut out = b"ORC".to_vec();
    let footer = footer.encode_to_vec();
    out.extend_from_slice(&footer);
    let ps = PostScript {
        footer_length: Some(footer.len() as u64),
        compression: Some(0),
        version: vec![0, 12],
        magic: Some("ORC".into()),
        ..PostScript::default()
    }
    .encode_to_vec();
    out.extend_from_slice(&ps);
    out.push(ps.len() as u8);
    out
}

#[test]
fn a_union_is_unsupported_by_name() {
    // `union.orc` (the CLI's tests read it) is this file.
    let path = types_dir().join("union.orc");
    if std::env::var_os("WARPZIP_WRITE_UNION_ORC").is_some() {
        std::fs::write(&path, union_file()).unwrap();
    }
    assert_eq!(std::fs::read(&path).unwrap(), union_file());
    let file = OrcFile::from_bytes(union_file()).unwrap();
    let u = file.column("u").unwrap();
    assert!(!u.is_readable());
    let e = file.read_batch(None, &Device::Cpu).unwrap_err();
    assert!(matches!(e, Error::Unsupported(_)), "{e}");
    assert!(e.to_string().contains("'u'"), "{e}");
    assert!(e.to_string().contains("union"), "{e}");
    // The other column still reads.
    let batch = file.read_batch(Some(&["id"]), &Device::Cpu).unwrap();
    assert_eq!(batch.num_rows(), 0);
}

/// GPU and CPU give the same batch of every column, every column decoded on the GPU (integer
/// ones row group by row group, the others stream by stream down their type trees: the read's
/// statistics say so), whole batches and each column alone.
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_batches_equal_the_cpu() {
    let gpu = Device::Gpu(common::gpu());
    for (name, _) in FILES {
        let file = open(name);
        let cpu = file.read_batch(None, &Device::Cpu).unwrap();
        let (on_gpu, stats) = file.read_batch_with_stats(None, &gpu).unwrap();
        assert_eq!(cpu, on_gpu, "{name}");
        assert_eq!(stats.on_device.len(), cpu.num_columns(), "{name}");
        // Every column of the fixtures has nulls (a PRESENT stream): none stays on the host.
        assert_eq!(
            stats.columns_on_device(),
            cpu.num_columns(),
            "{name}: {stats:?}"
        );
        for (i, c) in file.columns().iter().enumerate() {
            let (one, stats) = file
                .read_batch_with_stats(Some(&[c.name.as_str()]), &gpu)
                .unwrap_or_else(|e| panic!("{name} column {}: {e}", c.name));
            assert_eq!(
                one.column(0).to_data(),
                cpu.column(i).to_data(),
                "{name} column {}",
                c.name
            );
            assert_eq!(stats.on_device, [true], "{name} column {}", c.name);
        }
    }
    // A file without stripes: nothing to decode anywhere.
    let file = open("types_empty_zstd.orc");
    let cpu = file.read_batch(None, &Device::Cpu).unwrap();
    let (on_gpu, stats) = file.read_batch_with_stats(None, &gpu).unwrap();
    assert_eq!(cpu, on_gpu);
    assert_eq!(stats.on_device.len(), cpu.num_columns());
}

/// Streams damaged as `damaged_streams_name_stripe_column_and_stream` damages them give errors
/// on the GPU too, naming stripe, column and stream; bits flipped in the fixtures' stripes give
/// the CPU's verdict column by column (the same values, or an error on both).
#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_damaged_streams_get_the_cpu_verdict() {
    use rand::{Rng, SeedableRng};
    let gpu = Device::Gpu(common::gpu());
    for (name, column, kind, fill) in DAMAGE_CASES {
        let (file, _) = damaged(name, column, kind, fill);
        let e = file
            .read_batch(Some(&[column]), &gpu)
            .expect_err(&format!("{name} {column} {kind:?}"));
        let Error::CorruptOrc(detail) = &e else {
            panic!("{name} {column} {kind:?}: {e}")
        };
        assert_eq!(detail.stripe, Some(0), "{e}");
        assert!(detail.stream.is_some(), "{name} {column} {kind:?}: {e}");
        assert!(e.to_string().contains(column), "{e}");
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x7e5);
    let trials: usize = std::env::var("WARPZIP_DAMAGED_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let (mut ok, mut err) = (0, 0);
    for (name, _) in FILES {
        let clean = std::fs::read(types_dir().join(name)).unwrap();
        // The stripes' bytes only (the tail sits in the last part of the file).
        let body = clean.len() * 3 / 4;
        for trial in 0..trials {
            let mut bytes = clean.clone();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(3..body);
                bytes[i] ^= 1 << rng.gen_range(0..8);
            }
            let Ok(file) = OrcFile::from_bytes(bytes) else {
                continue;
            };
            for c in file.columns() {
                let names = [c.name.as_str()];
                let cpu = file.read_batch(Some(&names), &Device::Cpu);
                let on_gpu = file.read_batch(Some(&names), &gpu);
                match (&cpu, &on_gpu) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{name} trial {trial} column {}", c.name);
                        ok += 1;
                    }
                    (Err(_), Err(_)) => err += 1,
                    _ => panic!(
                        "{name} trial {trial} column {}: CPU {:?} but GPU {:?}",
                        c.name,
                        cpu.as_ref().map(|_| "ok").map_err(|e| e.to_string()),
                        on_gpu.as_ref().map(|_| "ok").map_err(|e| e.to_string())
                    ),
                }
            }
        }
    }
    println!("damaged type fixtures: {ok} columns decoded alike, {err} refused alike");
    assert!(err > 0, "no damage reached a decoder");
}
