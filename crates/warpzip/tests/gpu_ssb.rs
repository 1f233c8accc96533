//! The SSB GPU engine against the CPU engine: all 13 queries over the compressed columns (the
//! fused kernel), the raw ones and the compressed ones decompressed first (the cascade), with
//! the fact columns written in every tile codec (`for`, `dfor`, `rfor`, `tile`), at scale
//! factors 0.01 and 0.1; and against DuckDB's answers. GPU tests fail (never skip) where no GPU
//! is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::gpu;
use common::tile_damage::damage_tile_header;

use std::path::{Path, PathBuf};
use warpzip::ssb::{self, ColumnDir, Query, Storage};
use warpzip::{CodecId, CompressOptions, Device};

/// A fresh directory under the system's temporary directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("warpzip-gpu-ssb-{tag}-{}", std::process::id()));
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

/// Rewrites every lineorder `.wz` column of `cols` with `codec`.
fn recode_fact_columns(cols: &Path, codec: CodecId) {
    let dir = cols.join("lineorder");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "u32") {
            let raw = std::fs::read(&path).unwrap();
            let opts = CompressOptions {
                elem_type: Some(warpzip::format::ElemType::U32),
                ..CompressOptions::for_codec(codec)
            };
            let wz = warpzip::compress(&raw, &opts, &Device::Cpu).unwrap();
            std::fs::write(path.with_extension("wz"), wz).unwrap();
        }
    }
}

fn gpu_equals_cpu(sf: f64, tag: &str) {
    let device = Device::Gpu(gpu());
    let tmp = TempDir::new(tag);
    let tbl = tmp.0.join("tbl");
    let cols = tmp.0.join("cols");
    ssb::generate(sf, &tbl).unwrap();
    ssb::load(&tbl, &cols).unwrap();
    let fixtures = common::testdata().join("ssb").join(format!("sf{tag}"));
    for codec in [CodecId::Tile, CodecId::For, CodecId::Dfor, CodecId::Rfor] {
        recode_fact_columns(&cols, codec);
        let dir = ColumnDir::open(&cols).unwrap();
        for q in Query::ALL {
            let expected = std::fs::read_to_string(fixtures.join(format!("{q}.csv"))).unwrap();
            for storage in [
                Storage::Compressed,
                Storage::Uncompressed,
                Storage::Decompressed,
            ] {
                let what = format!("sf {sf} {q} {codec} over {} columns", storage.name());
                let (cpu, _) = ssb::run(q, &dir, &Device::Cpu, storage).unwrap();
                let mut prepared = ssb::prepare(q, &dir, &device, storage).unwrap();
                // Twice: the sums are reset between runs.
                for _ in 0..2 {
                    let (on_gpu, ms) = prepared.execute().unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(on_gpu, cpu, "{what}: GPU differs from CPU");
                    assert_eq!(on_gpu.to_csv(), expected, "{what}: GPU differs from DuckDB");
                    assert!(ms >= 0.0);
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_answers_equal_cpu_at_sf_0_01() {
    gpu_equals_cpu(0.01, "0.01");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_answers_equal_cpu_at_sf_0_1() {
    gpu_equals_cpu(0.1, "0.1");
}

/// A damaged tile: the fused kernel and the cascade give the CPU engine's verdict.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_damaged_tile_gets_the_cpu_verdict() {
    let device = Device::Gpu(gpu());
    let tmp = TempDir::new("damaged");
    let tbl = tmp.0.join("tbl");
    let cols = tmp.0.join("cols");
    ssb::generate(0.1, &tbl).unwrap();
    ssb::load(&tbl, &cols).unwrap();
    damage_tile_header(&cols.join("lineorder").join("lo_quantity.wz"), 1, 5);
    let dir = ColumnDir::open(&cols).unwrap();
    let q = Query::parse("q1.1").unwrap();
    for storage in [Storage::Compressed, Storage::Decompressed] {
        let cpu = ssb::run(q, &dir, &Device::Cpu, storage).unwrap_err();
        let on_gpu = ssb::run(q, &dir, &device, storage).unwrap_err();
        assert_eq!(on_gpu.to_string(), cpu.to_string(), "{}", storage.name());
        assert!(cpu.to_string().contains("chunk 1: tile 5: "), "{cpu}");
    }
}
