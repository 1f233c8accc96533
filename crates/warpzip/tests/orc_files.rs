//! Real ORC files: every tail and stripe footer parses, integer-family columns decode to the
//! values in `expected/<name>.jsn.gz`, and damaged files (corrupt/, truncated, bit-flipped)
//! give errors, never panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::as_i64s;

use arrow_array::Array;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use warpzip::orc::{CompressionKind, OrcFile, TypeKind};
use warpzip::{Device, Error};

/// The ORC files of the repository's test data (`testdata/orc`).
fn orc_dir() -> PathBuf {
    common::testdata().join("orc")
}

fn open(name: &str) -> OrcFile {
    let path = orc_dir().join(name);
    OrcFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn orc_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(orc_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "only {} ORC files found", files.len());
    files
}

#[test]
fn every_tail_and_stripe_footer_parses() {
    for path in orc_files() {
        if path.file_name().unwrap() == "zero.orc" {
            continue;
        }
        let file = OrcFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stripes = file
            .stripes()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let rows: u64 = stripes.iter().map(|s| s.rows()).sum();
        assert_eq!(rows, file.number_of_rows(), "{}", path.display());
        for stripe in &stripes {
            for c in file.columns() {
                if c.is_supported() && stripe.rows() > 0 {
                    stripe.encoding(c.id).unwrap();
                }
            }
        }
    }
}

#[test]
fn tails_report_what_the_files_are() {
    let test1 = open("TestOrcFile.test1.orc");
    assert_eq!(test1.tail().version(), "0.12");
    assert_eq!(test1.compression().kind, CompressionKind::Zlib);
    assert_eq!(test1.compression().block_size, 10000);
    assert_eq!(test1.number_of_rows(), 2);
    let names: Vec<&str> = test1.columns().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "boolean1", "byte1", "short1", "int1", "long1", "float1", "double1", "bytes1",
            "string1", "middle", "list", "map"
        ]
    );
    let types: Vec<&str> = test1
        .columns()
        .iter()
        .map(|c| c.type_name.as_str())
        .collect();
    assert_eq!(
        &types[..9],
        [
            "boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "binary",
            "string"
        ]
    );
    assert_eq!(
        types[9],
        "struct<list:array<struct<int1:int,string1:string>>>"
    );

    let v11 = open("orc-file-11-format.orc");
    assert_eq!(v11.tail().version(), "0.11");
    assert_eq!(v11.compression().kind, CompressionKind::None);
    let demo = open("demo-12-zlib.orc");
    assert_eq!(demo.compression().kind, CompressionKind::Zlib);
    assert_eq!(demo.compression().block_size, 262144);
}

#[test]
fn rle_versions_follow_the_file_version() {
    use warpzip::orc::ColumnEncodingKind::{Direct, DirectV2};
    for (name, want) in [
        ("orc-file-11-format.orc", Direct),
        ("TestOrcFile.testMemoryManagementV11.orc", Direct),
        ("TestOrcFile.testMemoryManagementV12.orc", DirectV2),
        ("TestOrcFile.test1.orc", DirectV2),
    ] {
        let file = open(name);
        let int1 = file.column("int1").unwrap();
        for stripe in file.stripes().unwrap() {
            assert_eq!(stripe.encoding(int1.id).unwrap(), want, "{name}");
        }
    }
}

/// Days since 1970-01-01 for a `YYYY-MM-DD` string (Howard Hinnant's days_from_civil).
fn days_from_civil(text: &str) -> i64 {
    let mut parts = text.split('-').map(|p| p.parse::<i64>().unwrap());
    let (y, m, d) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

fn expected_value(kind: TypeKind, v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::Bool(b) => Some(i64::from(*b)),
        serde_json::Value::Number(n) => Some(n.as_i64().unwrap()),
        serde_json::Value::String(s) if kind == TypeKind::Date => Some(days_from_civil(s)),
        other => panic!("unexpected JSON value {other} for {kind:?}"),
    }
}

fn expected_rows(json_gz: &Path) -> Vec<serde_json::Map<String, serde_json::Value>> {
    let file = std::fs::File::open(json_gz).unwrap();
    let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
    reader
        .lines()
        .map(|l| l.unwrap())
        .filter(|l| !l.trim().is_empty())
        .map(|l| match serde_json::from_str(&l).unwrap() {
            serde_json::Value::Object(m) => m,
            other => panic!("expected a JSON object per row, got {other}"),
        })
        .collect()
}

/// Decodes every supported column of `name` and compares it with the expected JSON rows;
/// returns how many columns were compared.
fn check_against_expected(name: &str, expected: &Path) -> usize {
    let file = open(name);
    let rows = expected_rows(expected);
    assert_eq!(
        rows.len() as u64,
        file.number_of_rows(),
        "{name}: row count"
    );
    let mut compared = 0;
    for column in file.columns().iter().filter(|c| c.is_supported()) {
        let array = file
            .read_column(column)
            .unwrap_or_else(|e| panic!("{name} column {}: {e}", column.name));
        let got = as_i64s(&array);
        assert_eq!(got.len(), rows.len(), "{name} column {}", column.name);
        for (i, (g, row)) in got.iter().zip(&rows).enumerate() {
            let want = expected_value(
                column.kind,
                row.get(&column.name).unwrap_or(&serde_json::Value::Null),
            );
            assert_eq!(*g, want, "{name} column {} row {i}", column.name);
        }
        compared += 1;
    }
    compared
}

#[test]
fn integer_columns_equal_the_expected_values() {
    let dir = orc_dir();
    for (name, columns) in [
        ("TestOrcFile.test1.orc", 5),
        ("orc-file-11-format.orc", 5),
        ("TestOrcFile.testMemoryManagementV11.orc", 1),
        ("TestOrcFile.testMemoryManagementV12.orc", 1),
        ("over1k_bloom.orc", 5),
        ("orc_index_int_string.orc", 1),
    ] {
        let stem = name.trim_end_matches(".orc");
        let expected = dir.join("expected").join(format!("{stem}.jsn.gz"));
        assert_eq!(
            check_against_expected(name, &expected),
            columns,
            "{name}: columns compared"
        );
    }
}

#[test]
fn demo_zlib_decodes_its_key_column() {
    // No expected file ships for demo-12-zlib.orc; its first column is the TPC-DS
    // customer_demographics key, 1..=rows in order.
    let file = open("demo-12-zlib.orc");
    let first = &file.columns()[0];
    assert_eq!(first.kind, TypeKind::Int);
    let got = as_i64s(&file.read_column(first).unwrap());
    assert_eq!(got.len() as u64, file.number_of_rows());
    for (i, v) in got.iter().enumerate() {
        assert_eq!(*v, Some(i as i64 + 1), "row {i}");
    }
    for c in file.columns().iter().filter(|c| c.is_supported()) {
        assert_eq!(
            file.read_column(c).unwrap().len() as u64,
            file.number_of_rows()
        );
    }
}

#[test]
fn read_batch_selects_and_refuses_clearly() {
    let file = open("TestOrcFile.test1.orc");
    let batch = file
        .read_batch(Some(&["int1", "boolean1"]), &Device::Cpu)
        .unwrap();
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(batch.schema().field(0).name(), "int1");
    let strings = file.read_batch(Some(&["string1"]), &Device::Cpu).unwrap();
    let strings = strings
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::StringArray>();
    let strings: Vec<&str> = strings.unwrap().iter().map(Option::unwrap).collect();
    assert_eq!(strings, ["hi", "bye"]);
    let e = file.read_batch(Some(&["nope"]), &Device::Cpu).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // Every column of every type (a union is refused: tests/orc_types.rs).
    let all = file.read_batch(None, &Device::Cpu).unwrap();
    assert_eq!(all.num_columns(), file.columns().len());
}

#[test]
fn empty_and_zero_byte_files() {
    let e = OrcFile::open(&orc_dir().join("zero.orc")).unwrap_err();
    assert!(e.to_string().contains("empty"), "{e}");
    let empty = open("TestOrcFile.emptyFile.orc");
    assert_eq!(empty.number_of_rows(), 0);
    assert_eq!(empty.stripe_count(), 0);
    let supported: Vec<&str> = empty
        .columns()
        .iter()
        .filter(|c| c.is_supported())
        .map(|c| c.name.as_str())
        .collect();
    let batch = empty.read_batch(Some(&supported), &Device::Cpu).unwrap();
    assert_eq!(batch.num_rows(), 0);
}

/// Opens the file and decodes every column; true when any step gave an error.
fn decode_everything(bytes: Vec<u8>) -> bool {
    let file = match OrcFile::from_bytes(bytes) {
        Ok(f) => f,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return true;
        }
    };
    let mut failed = file.stripes().is_err();
    for c in file.columns() {
        for s in 0..file.stripe_count() {
            if let Ok(stripe) = file.stripe(s) {
                let _ = stripe.encoding(c.id);
            }
        }
        let whole = file.read_column(c);
        let by_groups = warpzip::orc::cpu::read_column_by_row_groups(&file, c);
        for array in [&whole, &by_groups].into_iter().flatten() {
            assert_eq!(array.len() as u64, file.number_of_rows());
        }
        failed |= whole.is_err();
    }
    let _ = file.read_batch(None, &warpzip::Device::Cpu);
    failed
}

#[test]
fn corrupt_files_give_errors_not_panics() {
    let dir = orc_dir().join("corrupt");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            decode_everything(bytes),
            "{} decoded without error",
            path.display()
        );
        n += 1;
    }
    assert!(n >= 4, "only {n} corrupt files");
}

#[test]
fn truncated_and_bit_flipped_files_never_panic() {
    let fixture = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/orc/ints_v011_zlib.orc"
    ));
    for path in [
        orc_dir().join("TestOrcFile.test1.orc"),
        orc_dir().join("TestOrcFile.testMemoryManagementV12.orc"),
        fixture,
    ] {
        let bytes = std::fs::read(&path).unwrap();
        for len in (0..bytes.len()).step_by(if bytes.len() > 4000 { 7 } else { 1 }) {
            decode_everything(bytes[..len].to_vec());
        }
        let step = if bytes.len() > 4000 { 5 } else { 1 };
        for pos in (0..bytes.len()).step_by(step) {
            let mut damaged = bytes.clone();
            damaged[pos] ^= 1 << (pos % 8);
            decode_everything(damaged);
        }
    }
}

/// The pyarrow fixtures of `tests/data/orc` (see `make_fixtures.py` there): one table of
/// integer-family columns with nulls, written as 0.11 and 0.12, NONE and ZLIB.
#[test]
fn pyarrow_fixtures_decode_to_their_values() {
    use warpzip::orc::ColumnEncodingKind::{Direct, DirectV2};
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orc"));
    let file = std::fs::File::open(dir.join("ints.json.gz")).unwrap();
    let expected: serde_json::Value =
        serde_json::from_reader(flate2::read::GzDecoder::new(file)).unwrap();
    let rows = expected["rows"].as_u64().unwrap();
    let columns = expected["columns"].as_object().unwrap();
    for (name, version, compression, encoding) in [
        (
            "ints_v011_uncompressed.orc",
            "0.11",
            CompressionKind::None,
            Direct,
        ),
        ("ints_v011_zlib.orc", "0.11", CompressionKind::Zlib, Direct),
        (
            "ints_v012_uncompressed.orc",
            "0.12",
            CompressionKind::None,
            DirectV2,
        ),
        (
            "ints_v012_zlib.orc",
            "0.12",
            CompressionKind::Zlib,
            DirectV2,
        ),
    ] {
        let orc = OrcFile::open(&dir.join(name)).unwrap();
        assert_eq!(orc.tail().version(), version, "{name}");
        assert_eq!(orc.compression().kind, compression, "{name}");
        assert_eq!(orc.number_of_rows(), rows, "{name}");
        let id = orc.column("id").unwrap().id;
        for stripe in orc.stripes().unwrap() {
            assert_eq!(stripe.encoding(id).unwrap(), encoding, "{name}");
        }
        let names: Vec<&str> = columns.keys().map(String::as_str).collect();
        let batch = orc.read_batch(Some(&names), &Device::Cpu).unwrap();
        assert_eq!(batch.num_rows() as u64, rows);
        for (i, (column, want)) in columns.iter().enumerate() {
            let kind = orc.column(column).unwrap().kind;
            let got = as_i64s(batch.column(i));
            let want: Vec<Option<i64>> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| expected_value(kind, v))
                .collect();
            assert_eq!(got, want, "{name} column {column}");
        }
        let nulls = batch.column_by_name("all_null").unwrap().null_count();
        assert_eq!(nulls as u64, rows, "{name}");
    }
    let day = OrcFile::open(&dir.join("ints_v012_zlib.orc")).unwrap();
    let day = day.read_batch(Some(&["day"]), &Device::Cpu).unwrap();
    assert_eq!(
        day.schema().field(0).data_type(),
        &arrow_schema::DataType::Date32
    );
}

/// The row index (what the GPU path will use to give every row group its own warp) has one
/// entry per `row_index_stride` rows of a stripe, each with stream positions.
#[test]
fn row_indexes_have_one_entry_per_row_group() {
    let mut checked = 0;
    for name in [
        "demo-12-zlib.orc",
        "orc_index_int_string.orc",
        "TestOrcFile.test1.orc",
    ] {
        let file = open(name);
        let stride = u64::from(file.tail().footer.row_index_stride.unwrap());
        assert!(stride > 0);
        let data = std::fs::read(orc_dir().join(name)).unwrap();
        for stripe in file.stripes().unwrap() {
            for c in file.columns().iter().filter(|c| c.is_supported()) {
                let index = stripe
                    .row_index(&data, file.compression(), c.id)
                    .unwrap()
                    .unwrap_or_else(|| panic!("{name}: no row index for {}", c.name));
                assert_eq!(
                    index.entry.len() as u64,
                    stripe.rows().div_ceil(stride),
                    "{name} column {}",
                    c.name
                );
                assert!(index.entry.iter().all(|e| !e.positions.is_empty()));
                checked += 1;
            }
        }
    }
    assert!(checked > 5);
}

/// The seeds of the `orc_file` fuzz target run through the same calls, so that CI exercises
/// them without cargo-fuzz.
#[test]
fn fuzz_corpus() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/orc_file"
    ));
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        decode_everything(std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n >= 5, "only {n} seeds in {}", dir.display());
}

#[test]
fn batches_of_stripes_equal_the_whole_batch() {
    let mut multi = 0;
    for entry in std::fs::read_dir(orc_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "orc") {
            continue;
        }
        let Ok(file) = OrcFile::open(&path) else {
            continue;
        };
        let names: Vec<&str> = file
            .columns()
            .iter()
            .filter(|c| c.is_supported())
            .map(|c| c.name.as_str())
            .collect();
        if names.is_empty() || file.stripe_count() < 2 {
            continue;
        }
        multi += 1;
        let whole = file.read_batch(Some(&names), &Device::Cpu).unwrap();
        // One row a batch at most: every stripe becomes a batch of its own.
        let batches: Vec<_> = file
            .read_batches(Some(&names), &Device::Cpu, 1)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(batches.len(), file.stripe_count(), "{}", path.display());
        let mut at = 0;
        for b in &batches {
            assert_eq!(b.schema(), whole.schema());
            for (j, col) in b.columns().iter().enumerate() {
                let want = whole.column(j).slice(at, b.num_rows());
                assert_eq!(
                    col.to_data(),
                    want.to_data(),
                    "{} column {j}",
                    path.display()
                );
            }
            at += b.num_rows();
        }
        assert_eq!(at, whole.num_rows());
        // A bound above every stripe's rows: the file in one batch.
        let one: Vec<_> = file
            .read_batches(Some(&names), &Device::Cpu, u64::MAX)
            .unwrap()
            .collect();
        assert_eq!(one.len(), 1);
    }
    assert!(
        multi >= 1,
        "no multi-stripe file with integer columns in the test data"
    );
}

/// Nanoseconds since 1970-01-01 for `YYYY-MM-DD HH:MM:SS[.fraction]` read as UTC (the wall
/// clock Apache ORC's tools print, which pyarrow gives as the instant).
fn wall_clock_nanos(text: &str) -> i64 {
    let (date, time) = text.split_once(' ').unwrap();
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let mut parts = hms.split(':').map(|p| p.parse::<i64>().unwrap());
    let (h, m, s) = (
        parts.next().unwrap(),
        parts.next().unwrap(),
        parts.next().unwrap(),
    );
    let mut nanos: i64 = format!("{frac:0<9}")[..9].parse().unwrap();
    if frac.is_empty() {
        nanos = 0;
    }
    ((days_from_civil(date) * 24 + h) * 60 + m) * 60_000_000_000 + s * 1_000_000_000 + nanos
}

/// Row `i` of `array` against Apache ORC's JSON dump of it.
fn check_json(array: &dyn arrow_array::Array, i: usize, want: &serde_json::Value, at: &str) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::*;
    use arrow_schema::DataType;
    if array.is_null(i) {
        assert!(want.is_null(), "{at}: null, expected {want}");
        return;
    }
    assert!(!want.is_null(), "{at}: a value, expected null");
    let int = |v: i64| assert_eq!(Some(v), want.as_i64(), "{at}");
    match array.data_type() {
        DataType::Boolean => assert_eq!(Some(array.as_boolean().value(i)), want.as_bool(), "{at}"),
        DataType::Int8 => int(array.as_primitive::<Int8Type>().value(i).into()),
        DataType::Int16 => int(array.as_primitive::<Int16Type>().value(i).into()),
        DataType::Int32 => int(array.as_primitive::<Int32Type>().value(i).into()),
        DataType::Int64 => int(array.as_primitive::<Int64Type>().value(i)),
        DataType::Date32 => assert_eq!(
            i64::from(array.as_primitive::<Date32Type>().value(i)),
            days_from_civil(want.as_str().unwrap()),
            "{at}"
        ),
        DataType::Float32 => {
            let want = want.as_f64().unwrap() as f32;
            assert_eq!(array.as_primitive::<Float32Type>().value(i), want, "{at}");
        }
        DataType::Float64 => {
            assert_eq!(
                Some(array.as_primitive::<Float64Type>().value(i)),
                want.as_f64(),
                "{at}"
            )
        }
        DataType::Utf8 => assert_eq!(
            Some(array.as_string::<i32>().value(i)),
            want.as_str(),
            "{at}"
        ),
        DataType::Binary => {
            let bytes: Vec<u64> = array
                .as_binary::<i32>()
                .value(i)
                .iter()
                .map(|&b| b.into())
                .collect();
            let want: Vec<u64> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(bytes, want, "{at}");
        }
        DataType::Decimal128(_, s) => {
            let v =
                array.as_primitive::<Decimal128Type>().value(i) as f64 / 10f64.powi(i32::from(*s));
            let w = want.as_f64().unwrap();
            assert!(
                (v - w).abs() <= 1e-9 * w.abs().max(1.0),
                "{at}: {v} against {w}"
            );
        }
        DataType::Timestamp(..) => assert_eq!(
            array.as_primitive::<TimestampNanosecondType>().value(i),
            wall_clock_nanos(want.as_str().unwrap()),
            "{at}: {want}"
        ),
        DataType::Struct(fields) => {
            let s = array.as_struct();
            for (f, child) in fields.iter().zip(s.columns()) {
                let w = want.get(f.name()).unwrap_or(&serde_json::Value::Null);
                check_json(child.as_ref(), i, w, &format!("{at}.{}", f.name()));
            }
        }
        DataType::List(_) => {
            let items = array.as_list::<i32>().value(i);
            let want = want.as_array().unwrap();
            assert_eq!(items.len(), want.len(), "{at}: length");
            for (k, w) in want.iter().enumerate() {
                check_json(items.as_ref(), k, w, &format!("{at}[{k}]"));
            }
        }
        DataType::Map(..) => {
            let entries = array.as_map().value(i);
            let want = want.as_array().unwrap();
            assert_eq!(entries.len(), want.len(), "{at}: length");
            for (k, w) in want.iter().enumerate() {
                check_json(
                    entries.column(0).as_ref(),
                    k,
                    &w["key"],
                    &format!("{at}[{k}].key"),
                );
                check_json(
                    entries.column(1).as_ref(),
                    k,
                    &w["value"],
                    &format!("{at}[{k}].value"),
                );
            }
        }
        other => panic!("{at}: unexpected type {other}"),
    }
}

/// Every column of the Apache ORC examples with reference dumps equals the dump, whatever its
/// type, timestamps written in a time zone other than UTC included.
#[test]
fn every_column_equals_the_expected_values() {
    let dir = orc_dir();
    let mut compared = 0;
    for name in [
        "TestOrcFile.test1.orc",
        "orc-file-11-format.orc",
        "TestOrcFile.testMemoryManagementV11.orc",
        "TestOrcFile.testMemoryManagementV12.orc",
        "over1k_bloom.orc",
        "orc_index_int_string.orc",
    ] {
        let file = open(name);
        let stem = name.trim_end_matches(".orc");
        let rows = expected_rows(&dir.join("expected").join(format!("{stem}.jsn.gz")));
        for c in file.columns() {
            let array = file
                .read_column(c)
                .unwrap_or_else(|e| panic!("{name} {}: {e}", c.name));
            assert_eq!(array.len(), rows.len(), "{name} {}", c.name);
            for (i, row) in rows.iter().enumerate() {
                let want = row.get(&c.name).unwrap_or(&serde_json::Value::Null);
                check_json(array.as_ref(), i, want, &format!("{name} {}[{i}]", c.name));
            }
            compared += 1;
        }
    }
    assert!(compared >= 30, "{compared} columns compared");
}

/// Apache ORC's timestamp example, written in US/Pacific, reads back as the wall clock its
/// writer was given (the values ORC's own test writes), across daylight saving time.
#[test]
fn timestamps_of_a_us_pacific_writer_read_as_its_wall_clock() {
    let file = open("TestOrcFile.testTimestamp.orc");
    let stripe = file.stripe(0).unwrap();
    assert_eq!(stripe.footer.writer_timezone.as_deref(), Some("US/Pacific"));
    let want = [
        "2037-01-01 00:00:00.000999",
        "2003-01-01 00:00:00.000000222",
        "1999-01-01 00:00:00.999999999",
        "1995-01-01 00:00:00.688888888",
        "2002-01-01 00:00:00.1",
        "2010-03-02 00:00:00.000009001",
        "2005-01-01 00:00:00.000002229",
        "2006-01-01 00:00:00.900203003",
        "2003-01-01 00:00:00.800000007",
        "1996-08-02 00:00:00.723100809",
        "1998-11-02 00:00:00.857340643",
        "2008-10-02 00:00:00",
    ];
    let batch = file.read_batch(None, &Device::Cpu).unwrap();
    let column = batch
        .column(0)
        .as_any()
        .downcast_ref::<arrow_array::TimestampNanosecondArray>()
        .unwrap();
    let want: Vec<i64> = want.iter().map(|t| wall_clock_nanos(t)).collect();
    assert_eq!(column.values().to_vec(), want);
}
