//! End-to-end tests of `warpzip compress -c for|dfor|rfor|tile --dtype T`: typed integer files
//! round-trip through the binary, inspect names the parameters, and a byte type is refused.
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
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Sorted keys, runs and noise in turn, as little-endian i32.
fn column_i32(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| match (i / 5000) % 3 {
            0 => -1_000_000 + i as i32 * 3,
            1 => (i / 700) as i32,
            _ => ((i as i64 * 2_654_435_761) % 4096) as i32 - 2048,
        })
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

#[test]
fn tile_codecs_round_trip_typed_files() {
    let dir = TempDir::new("tile-roundtrip");
    let data = column_i32(100_003);
    for codec in ["tile", "for", "dfor", "rfor"] {
        fs::write(dir.path("col.i32"), &data).unwrap();
        let o = warpzip(
            &dir,
            &["compress", "--codec", codec, "--dtype", "i32", "col.i32"],
        );
        assert_ok(&o);
        let wz = fs::read(dir.path("col.i32.wz")).unwrap();
        assert!(wz.len() < data.len(), "{codec}: {} bytes", wz.len());
        let o = warpzip(&dir, &["inspect", "col.i32.wz"]);
        assert_ok(&o);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains(codec) && text.contains("32-bit signed values"),
            "{text}"
        );
        let o = warpzip(&dir, &["decompress", "col.i32.wz"]);
        assert_ok(&o);
        assert_eq!(fs::read(dir.path("col.i32")).unwrap(), data, "{codec}");
        fs::remove_file(dir.path("col.i32")).unwrap();
    }
    let values: Vec<u8> = (0..10_000u64)
        .flat_map(|i| (u64::MAX - i * i).to_le_bytes())
        .collect();
    fs::write(dir.path("big.u64"), &values).unwrap();
    let o = warpzip(
        &dir,
        &["compress", "-k", "-c", "tile", "--dtype", "u64", "big.u64"],
    );
    assert_ok(&o);
    let o = warpzip(&dir, &["decompress", "-o", "back.u64", "big.u64.wz"]);
    assert_ok(&o);
    assert_eq!(fs::read(dir.path("back.u64")).unwrap(), values);
}

#[test]
fn tile_codecs_need_a_32_or_64_bit_dtype() {
    let dir = TempDir::new("tile-dtype");
    fs::write(dir.path("x.bin"), [0u8; 64]).unwrap();
    for args in [
        &["compress", "-c", "tile", "x.bin"][..],
        &["compress", "-c", "for", "--dtype", "i16", "x.bin"][..],
    ] {
        let o = warpzip(&dir, args);
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("i32, u32, i64 or u64"), "{err}");
    }
}
