//! End-to-end tests of `warpzip ssb gen|load|query` and `warpzip bench --codec ssb`: the tables
//! written, the column directory loaded, every query's CSV equal to DuckDB's answer
//! (`testdata/ssb/sf0.01`), the time on stderr, and the exit codes of bad queries and missing
//! directories.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
use std::process::Output;

fn assert_ok(o: &Output) {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        stdout(o),
        stderr(o)
    );
}

const QUERIES: [&str; 13] = [
    "q1.1", "q1.2", "q1.3", "q2.1", "q2.2", "q2.3", "q3.1", "q3.2", "q3.3", "q3.4", "q4.1", "q4.2",
    "q4.3",
];

#[test]
fn gen_load_and_every_query_as_csv() {
    let dir = TempDir::new("ssb-cli");
    let o = warpzip(&dir, &["ssb", "gen", "--sf", "0.01", "-o", "tbl"]);
    assert_ok(&o);
    for table in ["lineorder", "date", "customer", "supplier", "part"] {
        assert!(dir.path(&format!("tbl/{table}.tbl")).is_file(), "{table}");
    }
    let o = warpzip(&dir, &["ssb", "load", "tbl", "-o", "cols"]);
    assert_ok(&o);
    assert!(
        stdout(&o).contains("lineorder.lo_revenue"),
        "{}",
        stdout(&o)
    );
    assert!(dir.path("cols/lineorder/lo_revenue.wz").is_file());
    assert!(dir.path("cols/lineorder/lo_revenue.u32").is_file());
    assert!(dir.path("cols/part/p_brand1.dict").is_file());
    let fixtures = testdata().join("ssb").join("sf0.01");
    for q in QUERIES {
        let expected = fs::read_to_string(fixtures.join(format!("{q}.csv"))).unwrap();
        for extra in [None, Some("--uncompressed"), Some("--decompressed")] {
            let mut args = vec!["ssb", "query", q, "cols", "--device", "cpu", "--csv"];
            args.extend(extra);
            let o = warpzip(&dir, &args);
            assert_ok(&o);
            assert_eq!(stdout(&o), expected, "{q} {extra:?}");
            assert!(stderr(&o).contains(" ms "), "{q}: {}", stderr(&o));
        }
    }
    // Without --csv: an aligned table and the time on stdout.
    let o = warpzip(&dir, &["ssb", "query", "Q2.1", "cols", "--device", "cpu"]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.trim_start().starts_with("revenue"), "{text}");
    assert!(
        text.contains("MFGR#12") && text.contains("q2.1: "),
        "{text}"
    );
}

#[test]
fn bad_queries_and_missing_directories_fail() {
    let dir = TempDir::new("ssb-cli-errors");
    // An unknown query is a usage error.
    let o = warpzip(&dir, &["ssb", "query", "q5.1", "cols", "--device", "cpu"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("q5.1"), "{}", stderr(&o));
    // --uncompressed and --decompressed exclude each other.
    let o = warpzip(
        &dir,
        &[
            "ssb",
            "query",
            "q1.1",
            "cols",
            "--uncompressed",
            "--decompressed",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A missing column directory is an error naming it.
    let o = warpzip(
        &dir,
        &["ssb", "query", "q1.1", "nowhere", "--device", "cpu"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("nowhere"), "{}", stderr(&o));
    assert!(stdout(&o).is_empty());
    // Loading a directory without .tbl files fails.
    fs::create_dir_all(dir.path("empty")).unwrap();
    let o = warpzip(&dir, &["ssb", "load", "empty", "-o", "cols"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains(".tbl"), "{}", stderr(&o));
    // A scale factor of 0 is refused.
    let o = warpzip(&dir, &["ssb", "gen", "--sf", "0", "-o", "tbl"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

#[test]
fn bench_runs_the_queries_on_the_cpu() {
    let dir = TempDir::new("ssb-bench");
    let o = warpzip(&dir, &["ssb", "gen", "--sf", "0.01", "-o", "tbl"]);
    assert_ok(&o);
    let o = warpzip(&dir, &["ssb", "load", "tbl", "-o", "cols"]);
    assert_ok(&o);
    let o = warpzip(
        &dir,
        &[
            "bench", "--device", "cpu", "--codec", "ssb", "--runs", "1", "cols",
        ],
    );
    assert_ok(&o);
    let text = stdout(&o);
    for q in QUERIES {
        assert!(
            text.contains(&format!("ssb {q} fused decode+query")),
            "{text}"
        );
        assert!(text.contains(&format!("ssb {q} query")), "{text}");
        assert!(
            text.contains(&format!("ssb {q} decompress, then query")),
            "{text}"
        );
    }
}
