//! End-to-end tests of `warpzip orc inspect` and `warpzip orc to-arrow`: output, exit codes
//! (0 success, 1 error, 2 usage), no overwrite without -f, no partial output on failure.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use arrow_array::{Array, Int32Array, Int64Array};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The ORC files of the repository's test data (`testdata/orc`).
fn orc_dir() -> PathBuf {
    testdata().join("orc")
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../warpzip/tests/data/orc"
    ))
    .join(name)
}

/// A file of no rows with an int column `id` and an `array<uniontype<int,string>>` column `u`.
fn union_file() -> PathBuf {
    fixture("types/union.orc")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

fn read_arrow(path: &Path) -> arrow_array::RecordBatch {
    let file = fs::File::open(path).unwrap();
    let reader = arrow_ipc::reader::FileReader::try_new(file, None).unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 1);
    batches.into_iter().next().unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn inspect_shows_the_tail_columns_and_stripes() {
    let dir = TempDir::new("inspect");
    let file = orc_dir().join("TestOrcFile.test1.orc");
    let o = warpzip(&dir, &["orc", "inspect", s(&file)]);
    assert_exit(&o, 0);
    let out = text(&o.stdout);
    for want in [
        "ORC 0.12",
        "ZLIB, block size 10000 B",
        "rows          2",
        "boolean1",
        "DIRECT_V2",
        "map<string,struct<int1:int,string1:string>>",
        "stripes",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    let o = warpzip(
        &dir,
        &[
            "orc",
            "inspect",
            "--streams",
            s(&fixture("ints_v011_zlib.orc")),
        ],
    );
    assert_exit(&o, 0);
    let out = text(&o.stdout);
    assert!(out.contains("ORC 0.11") && out.contains("DIRECT ") && out.contains("PRESENT"));
}

#[test]
fn inspect_fails_cleanly_on_bad_files() {
    let dir = TempDir::new("inspect-bad");
    let o = warpzip(&dir, &["orc", "inspect", s(&orc_dir().join("zero.orc"))]);
    assert_exit(&o, 1);
    assert!(text(&o.stderr).contains("empty"));
    let bad = orc_dir().join("corrupt/stripe_footer_bad_column_encodings.orc");
    let o = warpzip(&dir, &["orc", "inspect", s(&bad)]);
    assert_exit(&o, 1);
    assert!(text(&o.stderr).contains("stripe 0"), "{}", text(&o.stderr));
    // What parses is still shown.
    assert!(
        text(&o.stdout).contains("decimal(10,5)"),
        "{}",
        text(&o.stdout)
    );
    let o = warpzip(&dir, &["orc", "inspect", "no-such-file.orc"]);
    assert_exit(&o, 1);
    let o = warpzip(&dir, &["orc", "inspect"]);
    assert_exit(&o, 2);
}

#[test]
fn to_arrow_writes_the_ipc_stream_format_to_stdout() {
    let dir = TempDir::new("to-arrow-stdout");
    let file = orc_dir().join("TestOrcFile.test1.orc");
    let o = warpzip(
        &dir,
        &[
            "orc",
            "to-arrow",
            s(&file),
            "-o",
            "-",
            "--columns",
            "long1,int1",
        ],
    );
    assert_exit(&o, 0);
    let reader =
        arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(o.stdout), None).unwrap();
    let batches: Vec<_> = reader.map(|b| b.unwrap()).collect();
    assert_eq!(batches.len(), 1);
    let batch = &batches[0];
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(batch.schema().field(0).name(), "long1");
    let int1 = batch
        .column(1)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(int1.values(), &[65536, 65536]);
    assert!(dir.names().is_empty());
}

#[test]
fn to_arrow_writes_the_selected_columns() {
    let dir = TempDir::new("to-arrow");
    let out = dir.path("t.arrow");
    let file = orc_dir().join("TestOrcFile.test1.orc");
    let o = warpzip(
        &dir,
        &[
            "orc",
            "to-arrow",
            s(&file),
            "-o",
            s(&out),
            "--columns",
            "long1,int1",
        ],
    );
    assert_exit(&o, 0);
    let batch = read_arrow(&out);
    assert_eq!(batch.num_rows(), 2);
    assert_eq!(batch.schema().field(0).name(), "long1");
    let long1 = batch
        .column(0)
        .as_any()
        .downcast_ref::<Int64Array>()
        .unwrap();
    assert_eq!(long1.values(), &[i64::MAX, i64::MAX]);
    let int1 = batch
        .column(1)
        .as_any()
        .downcast_ref::<Int32Array>()
        .unwrap();
    assert_eq!(int1.values(), &[65536, 65536]);

    // A column named twice is a usage error, and nothing is written.
    let twice = dir.path("twice.arrow");
    let o = warpzip(
        &dir,
        &[
            "orc",
            "to-arrow",
            s(&file),
            "-o",
            s(&twice),
            "--columns",
            "int1,long1,int1",
        ],
    );
    assert_exit(&o, 2);
    assert!(text(&o.stderr).contains("'int1' more than once"));
    assert!(!twice.exists());

    // Without --columns: every column, of every type.
    let all = dir.path("all.arrow");
    let o = warpzip(&dir, &["orc", "to-arrow", s(&file), "-o", s(&all)]);
    assert_exit(&o, 0);
    assert_eq!(text(&o.stderr), "");
    assert_eq!(read_arrow(&all).num_columns(), 12);
    // A union column is named on stderr as skipped; -q: the same file, no notice.
    let union = union_file();
    let some = dir.path("some.arrow");
    let o = warpzip(&dir, &["orc", "to-arrow", s(&union), "-o", s(&some)]);
    assert_exit(&o, 0);
    assert!(
        text(&o.stderr).contains("skipping column 'u'"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(read_arrow(&some).num_columns(), 1);
    let quiet = dir.path("quiet.arrow");
    let o = warpzip(&dir, &["-q", "orc", "to-arrow", s(&union), "-o", s(&quiet)]);
    assert_exit(&o, 0);
    assert_eq!(text(&o.stderr), "");
    assert_eq!(read_arrow(&quiet).num_columns(), 1);

    // Nulls survive (the fixture's all_null column).
    let nulls = dir.path("nulls.arrow");
    let o = warpzip(
        &dir,
        &[
            "orc",
            "to-arrow",
            s(&fixture("ints_v012_zlib.orc")),
            "-o",
            s(&nulls),
            "--columns",
            "all_null,id",
            "--device",
            "cpu",
        ],
    );
    assert_exit(&o, 0);
    let batch = read_arrow(&nulls);
    assert_eq!(batch.column(0).null_count(), 2000);
    assert_eq!(batch.column(1).null_count(), 0);
}

#[test]
fn to_arrow_refuses_overwrite_and_leaves_no_partial_output() {
    let dir = TempDir::new("to-arrow-safe");
    let file = orc_dir().join("TestOrcFile.test1.orc");
    let out = dir.path("out.arrow");
    fs::write(&out, b"keep me").unwrap();
    let o = warpzip(&dir, &["orc", "to-arrow", s(&file), "-o", "out.arrow"]);
    assert_exit(&o, 1);
    assert!(text(&o.stderr).contains("-f"));
    assert_eq!(fs::read(&out).unwrap(), b"keep me");
    let o = warpzip(
        &dir,
        &["orc", "to-arrow", s(&file), "-o", "out.arrow", "-f"],
    );
    assert_exit(&o, 0);
    assert_eq!(read_arrow(&out).num_rows(), 2);

    // Failures: an unsupported column, an unknown column, a damaged file. No output appears.
    let union = union_file();
    for (input, args, want) in [
        (&union, vec!["--columns", "u"], "'u'"),
        (&file, vec!["--columns", "nope"], "nope"),
    ] {
        let mut all = vec!["orc", "to-arrow", s(input), "-o", "new.arrow"];
        all.extend(args);
        let o = warpzip(&dir, &all);
        assert_exit(&o, 1);
        assert!(text(&o.stderr).contains(want), "{}", text(&o.stderr));
    }
    let zero = orc_dir().join("zero.orc");
    let o = warpzip(&dir, &["orc", "to-arrow", s(&zero), "-o", "new.arrow"]);
    assert_exit(&o, 1);
    assert_eq!(dir.names(), ["out.arrow"]);
    let o = warpzip(&dir, &["orc", "to-arrow", s(&file)]);
    assert_exit(&o, 2);
}
