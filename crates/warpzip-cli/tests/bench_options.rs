//! End-to-end tests of `warpzip bench`'s option checks on the CPU: an option that no chosen
//! benchmark uses, a GPU-only benchmark, `--codec orc` without ORC files and an unknown column
//! are errors, never an empty table; the deflate bench runs on the bundled corpora.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::process::Output;

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
}

#[track_caller]
fn fails_saying(dir: &TempDir, args: &[&str], code: i32, needle: &str) {
    let o = warpzip(dir, args);
    assert_exit(&o, code);
    assert!(stderr(&o).contains(needle), "{args:?}: {}", stderr(&o));
    assert!(
        stdout(&o).is_empty(),
        "{args:?} printed a table: {}",
        stdout(&o)
    );
}

#[test]
fn bench_refuses_what_it_would_ignore_or_cannot_measure() {
    let dir = TempDir::new("bench-options");
    let orc = testdata().join("orc/TestOrcFile.test1.orc");
    let orc = orc.to_str().unwrap();
    let cpu = ["bench", "--device", "cpu", "--runs", "1"];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        cpu.iter().copied().chain(extra.iter().copied()).collect()
    };
    fails_saying(&dir, &with(&["--codec", "scan"]), 1, "GPU only");
    fails_saying(&dir, &with(&["--codec", "orc"]), 2, "FILE.orc");
    fails_saying(
        &dir,
        &with(&["--codec", "orc-rle", "--size", "64K", "--column", "nope"]),
        1,
        "no column 'nope'",
    );
    let mut args = with(&["--codec", "orc", "--column", "nope"]);
    args.push(orc);
    fails_saying(&dir, &args, 1, "no column 'nope'");
    fails_saying(
        &dir,
        &with(&["--codec", "select", "--level", "3"]),
        2,
        "--level",
    );
    fails_saying(
        &dir,
        &with(&["--codec", "rle", "--dump-inputs", "d"]),
        2,
        "--dump-inputs",
    );
    fails_saying(
        &dir,
        &with(&["--codec", "orc", "--size", "1M"]),
        2,
        "--size",
    );
    let mut args = with(&["--codec", "orc", "--dump-inputs", "d"]);
    args.push(orc);
    fails_saying(&dir, &args, 2, "--dump-inputs");
    assert!(dir.names().is_empty(), "nothing written: {:?}", dir.names());

    // --dump-inputs and --size work for the orc-rle bench on the CPU.
    let o = warpzip(
        &dir,
        &with(&[
            "--codec",
            "orc-rle",
            "--size",
            "64K",
            "--column",
            "l_quantity",
            "--dump-inputs",
            "cols",
        ]),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("l_quantity"), "{}", stdout(&o));
    assert_eq!(
        std::fs::metadata(dir.path("cols/l_quantity.i32.bin"))
            .unwrap()
            .len(),
        64 << 10
    );

    // The tile bench runs on the CPU too, and dumps the columns it measures.
    let o = warpzip(
        &dir,
        &with(&[
            "--codec",
            "tile",
            "--size",
            "64K",
            "--column",
            "lo_discount",
            "--dump-inputs",
            "tiles",
        ]),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("lo_discount"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("lo_orderdate"), "{}", stdout(&o));
    assert_eq!(
        std::fs::metadata(dir.path("tiles/lo_discount.i32.bin"))
            .unwrap()
            .len(),
        64 << 10
    );
    assert!(!dir.path("tiles/lo_orderdate.i32.bin").exists());
}

#[test]
fn the_deflate_bench_runs_on_the_bundled_corpora_without_files() {
    let dir = TempDir::new("bench-deflate");
    let o = warpzip(
        &dir,
        &[
            "bench",
            "--codec",
            "deflate",
            "--device",
            "cpu",
            "--runs",
            "1",
            "--size",
            "1M",
            "--chunk-size",
            "256K",
            "--level",
            "1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert!(table.contains("corpora"), "{table}");
    assert!(table.contains("corpus text"), "{table}");
}
