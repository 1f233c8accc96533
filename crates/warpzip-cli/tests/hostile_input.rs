//! Small files that lie about their size, through the real binary under a memory limit: a clean
//! error (exit 1) naming the chunk, never an abort, and no temporary file left behind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
#[path = "../../warpzip/tests/common/lying_files.rs"]
mod lying_files;

use common::{bin, TempDir};
use std::fs;
use std::process::Command;
use warpzip::CodecId;

/// A container of 40 chunks that claim 64 MiB each (2.5 GiB) over 10 compressed bytes each,
/// with valid checksums.
fn lying(codec: CodecId) -> Vec<u8> {
    lying_files::lying_container(codec, 64 << 20, 40, 10, 0x5A)
}

#[test]
fn lying_containers_fail_cleanly_under_a_memory_limit() {
    for codec in [CodecId::Rle, CodecId::Deflate] {
        let dir = TempDir::new("hostile");
        let file = dir.0.join("lie.bin.wz");
        fs::write(&file, lying(codec)).unwrap();
        for args in [
            &["-d", "-c"][..],
            &["-d", "-k"],
            &["-d", "-t"],
            &["inspect", "--decode"],
        ] {
            // 1 GB of address space: far less than the 2.5 GiB the file claims.
            let script = format!(
                "ulimit -v 1000000 2>/dev/null; exec \"$0\" {} \"$1\"",
                args.join(" ")
            );
            let out = Command::new("bash")
                .arg("-c")
                .arg(&script)
                .arg(bin())
                .arg(&file)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{codec} {args:?}: {stderr}");
            assert!(
                stderr.contains("chunk 0") && stderr.contains("claims"),
                "{codec} {args:?}: {stderr}"
            );
            let left: Vec<_> = fs::read_dir(&dir.0)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| n != "lie.bin.wz")
                .collect();
            assert!(left.is_empty(), "{codec} {args:?} left {left:?}");
        }
    }
}

#[test]
fn a_legal_claim_above_the_memory_limit_fails_cleanly() {
    let dir = TempDir::new("oom");
    let file = dir.0.join("big.bin.wz");
    // 40 chunks of 64 MiB (2.5 GiB) over 65,100 compressed bytes each: within what Deflate can
    // decode to (1,032 bytes a compressed byte), so the decoder accepts the claims.
    fs::write(
        &file,
        lying_files::lying_container(CodecId::Deflate, 64 << 20, 40, 65_100, 0),
    )
    .unwrap();
    // 1 GB of address space: less than the 2.5 GiB of output.
    let run = |args: &[&str]| {
        let script = format!(
            "ulimit -v 1000000 2>/dev/null; exec \"$0\" {} \"$1\"",
            args.join(" ")
        );
        Command::new("bash")
            .arg("-c")
            .arg(&script)
            .arg(bin())
            .arg(&file)
            .output()
            .unwrap()
    };
    // Decompression streams a batch at a time, so it never asks for the whole output: it reaches
    // the first chunk's garbage and names it.
    for args in [&["-d", "-c"][..], &["-d", "-t"]] {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("chunk 0"), "{args:?}: {stderr}");
        assert!(
            out.stdout.is_empty(),
            "{args:?}: wrote {} bytes",
            out.stdout.len()
        );
    }
    // `inspect --decode` decodes the container whole: the claim is refused as out of memory.
    let out = run(&["inspect", "--decode", "--device", "cpu"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("out of memory") && stderr.contains("2684354560 bytes"),
        "{stderr}"
    );
}

/// The uncompressed ORC fixture with its footer listing `copies` copies of its first stripe and
/// claiming every one of their rows.
fn orc_with_repeated_stripe(copies: usize) -> Vec<u8> {
    let file = fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../warpzip/tests/data/orc/groups_v012_uncompressed.orc"
    ))
    .unwrap();
    lying_files::with_footer(&file, |footer| {
        let first = footer.stripes[0].clone();
        footer.number_of_rows = Some(first.number_of_rows.unwrap() * copies as u64);
        footer.stripes = vec![first; copies];
    })
}

#[test]
fn an_orc_footer_listing_one_stripe_a_thousand_times_fails_cleanly() {
    let dir = TempDir::new("hostile-orc");
    let file = dir.0.join("lie.orc");
    fs::write(&file, orc_with_repeated_stripe(1000)).unwrap();
    let out = Command::new("bash")
        .arg("-c")
        .arg(
            "ulimit -v 1000000 2>/dev/null; exec \"$0\" orc to-arrow --device cpu \"$1\" -o \"$2\"",
        )
        .arg(bin())
        .arg(&file)
        .arg(dir.0.join("lie.arrow"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stripe 1") && stderr.contains("disjoint"),
        "{stderr}"
    );
    let left: Vec<_> = fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "lie.orc")
        .collect();
    assert!(left.is_empty(), "left {left:?}");
}
