//! End-to-end tests of `warpzip select`: every element type against a direct computation,
//! packed masks, byte flags and patterns, default and explicit outputs, and the errors (exit 1)
//! and usage errors (exit 2). Run on the CPU, plus one `--device auto` run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
use std::path::Path;
use std::process::Output;

#[track_caller]
fn assert_ok(o: &Output) {
    assert!(
        o.status.success(),
        "warpzip failed ({:?}): {}",
        o.status.code(),
        stderr(o)
    );
}

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {} bytes\nstderr: {}",
        o.stdout.len(),
        stderr(o)
    );
}

fn write(path: &Path, data: &[u8]) {
    fs::write(path, data).unwrap();
}

/// Deterministic bytes.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// The kept elements (of `size` bytes each) of `data`, computed directly.
fn expected(data: &[u8], size: usize, keep: impl Fn(usize) -> bool) -> Vec<u8> {
    data.chunks_exact(size)
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .flat_map(|(_, e)| e.to_vec())
        .collect()
}

fn bit(mask: &[u8], i: usize) -> bool {
    (mask[i / 8] >> (i % 8)) & 1 == 1
}

#[test]
fn every_dtype_with_a_packed_mask() {
    let dir = TempDir::new("dtypes");
    for (dtype, size) in [
        ("u8", 1),
        ("u16", 2),
        ("u32", 4),
        ("u64", 8),
        ("f32", 4),
        ("f64", 8),
    ] {
        for n in [0usize, 1, 31, 33, 1000, 70_001] {
            let data = noise(n * size, n as u64 + size as u64);
            let mask = noise(n.div_ceil(8), 7 + n as u64);
            write(&dir.path("in.bin"), &data);
            write(&dir.path("mask.bin"), &mask);
            let o = warpzip(
                &dir,
                &[
                    "select", "--device", "cpu", "--dtype", dtype, "--mask", "mask.bin", "-f",
                    "in.bin",
                ],
            );
            assert_ok(&o);
            assert_eq!(
                fs::read(dir.path("in.bin.sel")).unwrap(),
                expected(&data, size, |i| bit(&mask, i)),
                "{dtype} n={n}"
            );
        }
    }
}

#[test]
fn byte_flags_and_patterns() {
    let dir = TempDir::new("flags");
    let n = 5000;
    let data = noise(4 * n, 3);
    write(&dir.path("v"), &data);
    let flags: Vec<u8> = noise(n, 4).iter().map(|b| b & 0x81).collect();
    write(&dir.path("flags"), &flags);
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u32", "--flags", "flags", "-o", "-", "v",
        ],
    );
    assert_ok(&o);
    assert_eq!(o.stdout, expected(&data, 4, |i| flags[i] != 0));

    let o = warpzip(
        &dir,
        &[
            "select",
            "--device",
            "cpu",
            "--dtype",
            "u32",
            "--pattern",
            "1,0,0,1",
            "-o",
            "-",
            "v",
        ],
    );
    assert_ok(&o);
    assert_eq!(o.stdout, expected(&data, 4, |i| i % 4 == 0 || i % 4 == 3));
    assert_eq!(
        dir.names(),
        vec!["flags", "v"],
        "stdout output writes no file"
    );
}

#[test]
fn stdin_goes_to_stdout_and_auto_device_works() {
    let dir = TempDir::new("stdin");
    let data = noise(8 * 999, 5);
    let mask = noise(125, 6);
    write(&dir.path("m"), &mask);
    let o = warpzip_with_stdin(
        &dir,
        &["select", "--dtype", "u64", "--mask", "m", "-"],
        Some(&data),
    );
    assert_ok(&o);
    assert_eq!(o.stdout, expected(&data, 8, |i| bit(&mask, i)));
    assert_eq!(dir.names(), vec!["m"]);
}

#[test]
fn short_mask_is_an_error_and_leaves_no_output() {
    let dir = TempDir::new("short");
    write(&dir.path("v"), &noise(4 * 17, 1));
    write(&dir.path("m"), &[0xff, 0xff]); // 16 bits for 17 values
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u32", "--mask", "m", "v",
        ],
    );
    assert_exit(&o, 1);
    let msg = stderr(&o);
    assert!(msg.contains("shorter"), "{msg}");
    assert!(msg.starts_with("warpzip: "), "{msg}");
    assert_eq!(dir.names(), vec!["m", "v"], "no output left behind");

    write(&dir.path("f"), &[1u8; 16]);
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u32", "--flags", "f", "v",
        ],
    );
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("shorter"), "{}", stderr(&o));
}

#[test]
fn long_mask_is_an_error_and_leaves_no_output() {
    let dir = TempDir::new("long");
    write(&dir.path("v"), &noise(4 * 17, 1));
    // 17 values need 3 bytes of bits or 17 flags; one more is refused.
    write(&dir.path("m"), &[0xff; 4]);
    write(&dir.path("f"), &[1u8; 18]);
    for args in [["--mask", "m"], ["--flags", "f"]] {
        let o = warpzip(
            &dir,
            &[
                "select", "--device", "cpu", "--dtype", "u32", args[0], args[1], "v",
            ],
        );
        assert_exit(&o, 1);
        let msg = stderr(&o);
        assert!(msg.contains("longer than the values"), "{msg}");
        assert!(msg.contains("17 u32 values"), "{msg}");
        assert_eq!(dir.names(), vec!["f", "m", "v"], "no output left behind");
    }
    // Exactly enough is fine.
    write(&dir.path("m"), &[0xff; 3]);
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u32", "--mask", "m", "-o", "-", "v",
        ],
    );
    assert_ok(&o);
    assert_eq!(o.stdout.len(), 4 * 17);
}

#[test]
fn ragged_input_is_an_error() {
    let dir = TempDir::new("ragged");
    write(&dir.path("v"), &noise(4 * 10 + 3, 1));
    write(&dir.path("m"), &[0xff; 2]);
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u32", "--mask", "m", "v",
        ],
    );
    assert_exit(&o, 1);
    let msg = stderr(&o);
    assert!(msg.contains("43 bytes") && msg.contains("u32"), "{msg}");
    assert_eq!(dir.names(), vec!["m", "v"]);
}

#[test]
fn existing_output_needs_force() {
    let dir = TempDir::new("force");
    write(&dir.path("v"), &noise(16, 1));
    write(&dir.path("v.sel"), b"precious");
    let args = [
        "select",
        "--device",
        "cpu",
        "--dtype",
        "u8",
        "--pattern",
        "1",
        "v",
    ];
    let o = warpzip(&dir, &args);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path("v.sel")).unwrap(), b"precious");
    let mut forced = args.to_vec();
    forced.insert(1, "-f");
    assert_ok(&warpzip(&dir, &forced));
    assert_eq!(fs::read(dir.path("v.sel")).unwrap(), noise(16, 1));
}

#[test]
fn missing_mask_file_is_an_error() {
    let dir = TempDir::new("nomask");
    write(&dir.path("v"), &noise(16, 1));
    let o = warpzip(
        &dir,
        &[
            "select", "--device", "cpu", "--dtype", "u8", "--mask", "nope", "v",
        ],
    );
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["v"]);
}

#[test]
fn usage_errors_exit_2() {
    let dir = TempDir::new("usage");
    write(&dir.path("v"), &noise(16, 1));
    write(&dir.path("m"), &[0xff; 2]);
    for args in [
        // No selector, two selectors.
        vec!["select", "--dtype", "u8", "v"],
        vec![
            "select",
            "--dtype",
            "u8",
            "--mask",
            "m",
            "--pattern",
            "1,0",
            "v",
        ],
        vec![
            "select", "--dtype", "u8", "--mask", "m", "--flags", "m", "v",
        ],
        // Bad pattern, bad dtype, missing dtype, missing input.
        vec!["select", "--dtype", "u8", "--pattern", "1,2", "v"],
        vec!["select", "--dtype", "u8", "--pattern", "", "v"],
        vec!["select", "--dtype", "i7", "--mask", "m", "v"],
        vec!["select", "--mask", "m", "v"],
        vec!["select", "--dtype", "u8", "--mask", "m"],
    ] {
        let o = warpzip(&dir, &args);
        assert_exit(&o, 2);
    }
    let o = warpzip(&dir, &["select", "--dtype", "u8", "--pattern", "1,2", "v"]);
    assert!(stderr(&o).contains("not 0 or 1"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["m", "v"]);
    assert_exit(&warpzip(&dir, &["select", "--help"]), 0);
}
