//! End-to-end tests of the lossy codec from the command line: `compress -c sz` with its
//! options, `decompress`, `inspect` and `compare`, and the usage errors (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
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

#[test]
fn compress_decompress_compare_inspect() {
    let dir = TempDir::new("sz");
    let field = "coads_climatology.SST.12x90x180.f32";
    let original = fs::read(testdata().join("fields").join(field)).unwrap();
    fs::write(dir.path("f.f32"), &original).unwrap();
    for mode in ["ratio", "fast"] {
        let o = warpzip(
            &dir,
            &[
                "compress",
                "-c",
                "sz",
                "--dtype",
                "f32",
                "--dims",
                "12x90x180",
                "--eb",
                "rel:1e-3",
                "--fill",
                "-1e34",
                "--mode",
                mode,
                "-k",
                "-f",
                "f.f32",
            ],
        );
        assert_exit(&o, 0);
        assert!(!stderr(&o).contains("--fill"), "{}", stderr(&o));
        let o = warpzip(&dir, &["inspect", "f.f32.wz"]);
        assert_exit(&o, 0);
        let text = stdout(&o);
        assert!(
            text.contains(&format!("mode {mode}")) && text.contains("rel:1e-3"),
            "{text}"
        );
        assert!(text.contains("outliers"), "{text}");
        let o = warpzip(&dir, &["decompress", "-c", "f.f32.wz"]);
        assert_exit(&o, 0);
        assert_eq!(o.stdout.len(), original.len());
        fs::write(dir.path("back.f32"), &o.stdout).unwrap();
        let o = warpzip(
            &dir,
            &[
                "compare",
                "f.f32",
                "back.f32",
                "--dtype",
                "f32",
                "--dims",
                "12x90x180",
            ],
        );
        assert_exit(&o, 0);
        assert!(stdout(&o).contains("PSNR"), "{}", stdout(&o));
        // Without the fill value the range is the fill's, so the bound the test asks here
        // (relative to the whole range) holds; a tight absolute bound does not.
        let o = warpzip(
            &dir,
            &[
                "compare", "f.f32", "back.f32", "--dtype", "f32", "--eb", "rel:1e-3",
            ],
        );
        assert_exit(&o, 0);
        assert!(stdout(&o).contains("violations = 0"), "{}", stdout(&o));
        let o = warpzip(
            &dir,
            &[
                "compare", "f.f32", "back.f32", "--dtype", "f32", "--eb", "abs:1e-9",
            ],
        );
        assert_exit(&o, 1);
        assert!(stderr(&o).contains("break the bound"), "{}", stderr(&o));
    }
}

#[test]
fn a_rel_bound_set_by_a_fill_value_warns() {
    let dir = TempDir::new("sz-warn");
    let field = "coads_climatology.SST.12x90x180.f32";
    fs::copy(testdata().join("fields").join(field), dir.path("f.f32")).unwrap();
    let o = warpzip(
        &dir,
        &[
            "compress", "-c", "sz", "--dtype", "f32", "--eb", "rel:1e-2", "-k", "f.f32",
        ],
    );
    assert_exit(&o, 0);
    assert!(stderr(&o).contains("--fill -1e34"), "{}", stderr(&o));
}

#[test]
fn usage_errors() {
    let dir = TempDir::new("sz-usage");
    fs::write(dir.path("f"), [0u8; 64]).unwrap();
    // sz without a bound, a bound for another codec, a malformed bound, dims or mode.
    for args in [
        &["compress", "-c", "sz", "--dtype", "f32", "f"][..],
        &["compress", "-c", "rle", "--eb", "abs:1", "f"][..],
        &["compress", "-c", "sz", "--dtype", "f32", "--eb", "abs", "f"][..],
        &[
            "compress", "-c", "sz", "--dtype", "f32", "--eb", "rel:-1", "f",
        ][..],
        &[
            "compress", "-c", "sz", "--dtype", "f32", "--eb", "rel:1e-3", "--dims", "4x0", "f",
        ][..],
        &[
            "compress", "-c", "sz", "--dtype", "f32", "--eb", "rel:1e-3", "--mode", "slow", "f",
        ][..],
        &[
            "compress", "-c", "sz", "--dtype", "u32", "--eb", "rel:1e-3", "f",
        ][..],
        &["compare", "f", "f", "--dtype", "f32", "--dims", "3x3"][..],
    ] {
        assert_exit(&warpzip(&dir, args), 2);
    }
    // Dims that do not match the input are an error of that input (exit 1).
    let o = warpzip(
        &dir,
        &[
            "compress", "-c", "sz", "--dtype", "f32", "--eb", "rel:1e-3", "--dims", "3x5", "f",
        ],
    );
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("dims 3x5"), "{}", stderr(&o));
}
