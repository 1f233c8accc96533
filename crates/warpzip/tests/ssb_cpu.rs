//! The SSB CPU engine against an independent SQL engine: the 13 queries' answers over tables
//! that `ssb::generate` writes at scale factors 0.01, 0.1 and (ignored, slow) 1 equal DuckDB's
//! answers over the same `.tbl` files (`testdata/ssb/sf*/q*.csv`, written by
//! `scripts/ssb_fixtures.py`), over the compressed columns, the raw ones, and the compressed
//! ones decompressed first.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::tile_damage::damage_tile_header;

use std::path::PathBuf;
use warpzip::ssb::{self, ColumnDir, Query, Storage};
use warpzip::Device;

/// A fresh directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("warpzip-ssb-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn answers_match_duckdb(sf: f64, tag: &str) {
    let tmp = TempDir::new(tag);
    let tbl = tmp.0.join("tbl");
    let cols = tmp.0.join("cols");
    ssb::generate(sf, &tbl).unwrap();
    ssb::load(&tbl, &cols).unwrap();
    let dir = ColumnDir::open(&cols).unwrap();
    let fixtures = common::testdata().join("ssb").join(format!("sf{tag}"));
    for q in Query::ALL {
        let expected = std::fs::read_to_string(fixtures.join(format!("{q}.csv"))).unwrap();
        for storage in [
            Storage::Compressed,
            Storage::Uncompressed,
            Storage::Decompressed,
        ] {
            let (result, _) = ssb::run(q, &dir, &Device::Cpu, storage).unwrap();
            assert_eq!(
                result.to_csv(),
                expected,
                "sf {sf} {q} over {} columns",
                storage.name()
            );
        }
    }
}

#[test]
fn cpu_answers_equal_duckdb_at_sf_0_01() {
    answers_match_duckdb(0.01, "0.01");
}

#[test]
fn cpu_answers_equal_duckdb_at_sf_0_1() {
    answers_match_duckdb(0.1, "0.1");
}

/// Scale factor 1 (6 million lineorder rows), where every query, Q3.3 and Q3.4 too, has rows.
#[test]
#[ignore = "slow: generates and loads 6 million lineorder rows (about 25 s in release)"]
fn cpu_answers_equal_duckdb_at_sf_1() {
    answers_match_duckdb(1.0, "1");
}

#[test]
fn generation_is_deterministic() {
    let a = TempDir::new("gen-a");
    let b = TempDir::new("gen-b");
    ssb::generate(0.01, &a.0).unwrap();
    ssb::generate(0.01, &b.0).unwrap();
    for table in ["lineorder", "date", "customer", "supplier", "part"] {
        let name = format!("{table}.tbl");
        assert!(
            std::fs::read(a.0.join(&name)).unwrap() == std::fs::read(b.0.join(&name)).unwrap(),
            "{name} differs between two runs"
        );
    }
}

#[test]
fn a_missing_column_directory_is_an_error() {
    let tmp = TempDir::new("missing");
    let err = ColumnDir::open(&tmp.0.join("nothing")).unwrap_err();
    assert!(
        err.to_string().contains("not an SSB column directory"),
        "{err}"
    );
}

#[test]
fn a_damaged_compressed_column_is_reported() {
    let tmp = TempDir::new("damaged");
    let tbl = tmp.0.join("tbl");
    let cols = tmp.0.join("cols");
    ssb::generate(0.01, &tbl).unwrap();
    ssb::load(&tbl, &cols).unwrap();
    let path = cols.join("lineorder").join("lo_revenue.wz");
    let mut bytes = std::fs::read(&path).unwrap();
    let n = bytes.len();
    bytes[n - 40] ^= 0x5a;
    std::fs::write(&path, bytes).unwrap();
    let dir = ColumnDir::open(&cols).unwrap();
    let q = Query::parse("q2.1").unwrap();
    assert!(ssb::run(q, &dir, &Device::Cpu, Storage::Compressed).is_err());
    // The raw copy is untouched.
    assert!(ssb::run(q, &dir, &Device::Cpu, Storage::Uncompressed).is_ok());
}

#[test]
fn a_damaged_tile_names_its_chunk_and_tile() {
    let tmp = TempDir::new("damaged-tile");
    let tbl = tmp.0.join("tbl");
    let cols = tmp.0.join("cols");
    ssb::generate(0.01, &tbl).unwrap();
    ssb::load(&tbl, &cols).unwrap();
    damage_tile_header(&cols.join("lineorder").join("lo_quantity.wz"), 0, 3);
    let dir = ColumnDir::open(&cols).unwrap();
    let q = Query::parse("q1.1").unwrap();
    for storage in [Storage::Compressed, Storage::Decompressed] {
        let err = ssb::run(q, &dir, &Device::Cpu, storage).unwrap_err();
        assert!(
            matches!(&err, warpzip::Error::Corrupt { chunk: 0, reason } if reason.starts_with("tile 3: ")),
            "{}: {err}",
            storage.name()
        );
    }
}
