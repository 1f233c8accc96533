//! End-to-end tests of `warpzip compress -c orc-rle-v1|orc-rle-v2 --dtype T`: typed integer
//! files round-trip through the binary, and a missing or wrong element type is a clear error.
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

/// Sorted keys with short repeats and a few jumps, as little-endian i32.
fn keys_i32(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * 4);
    let mut key = -50_000i32;
    for i in 0..n {
        if i % 3 == 0 {
            key += if i % 97 == 0 { 1000 } else { 1 };
        }
        out.extend_from_slice(&key.to_le_bytes());
    }
    out
}

#[test]
fn orc_rle_codecs_round_trip_typed_files() {
    let dir = TempDir::new("roundtrip");
    let data = keys_i32(300_000);
    for codec in ["orc-rle-v1", "orc-rle-v2"] {
        fs::write(dir.path("keys.i32"), &data).unwrap();
        let o = warpzip(
            &dir,
            &["compress", "-c", codec, "--dtype", "i32", "keys.i32"],
        );
        assert_ok(&o);
        let wz = fs::read(dir.path("keys.i32.wz")).unwrap();
        assert!(wz.len() * 2 < data.len(), "{codec}: {} bytes", wz.len());
        let o = warpzip(&dir, &["inspect", "keys.i32.wz"]);
        assert_ok(&o);
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains(codec) && text.contains("i32"), "{text}");
        assert!(text.contains("4-byte signed values"), "{text}");
        let o = warpzip(&dir, &["decompress", "keys.i32.wz"]);
        assert_ok(&o);
        assert_eq!(fs::read(dir.path("keys.i32")).unwrap(), data, "{codec}");
        fs::remove_file(dir.path("keys.i32")).unwrap();
    }
    // Unsigned 64-bit values near the top of the range.
    let values: Vec<u8> = (0..10_000u64)
        .flat_map(|i| (u64::MAX - i * i).to_le_bytes())
        .collect();
    fs::write(dir.path("big.u64"), &values).unwrap();
    let o = warpzip(
        &dir,
        &[
            "compress",
            "-k",
            "-c",
            "orc-rle-v2",
            "--dtype",
            "u64",
            "big.u64",
        ],
    );
    assert_ok(&o);
    let o = warpzip(&dir, &["decompress", "-o", "back.u64", "big.u64.wz"]);
    assert_ok(&o);
    assert_eq!(fs::read(dir.path("back.u64")).unwrap(), values);
}

#[test]
fn orc_rle_needs_an_integer_dtype_and_whole_values() {
    let dir = TempDir::new("dtype");
    fs::write(dir.path("f"), [1u8, 2, 3, 4, 5, 6, 7]).unwrap();
    let o = warpzip(&dir, &["compress", "-c", "orc-rle-v2", "f"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--dtype"));
    let o = warpzip(
        &dir,
        &["compress", "-c", "orc-rle-v1", "--dtype", "i32", "f"],
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("whole number"));
    let o = warpzip(
        &dir,
        &["compress", "-c", "orc-rle-v2", "--dtype", "f32", "f"],
    );
    assert_eq!(o.status.code(), Some(2), "f32 is not an integer type");
    assert!(fs::read(dir.path("f")).is_ok(), "input kept on failure");
}
