//! End-to-end tests of `warpzip decompress` on gzip files (it behaves like `gzip -d`) and of the
//! `deflate` codec through the binary, on the CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use flate2::write::GzEncoder;
use flate2::Compression;
use std::fs;
use std::io::Write;
use std::process::Output;

/// Deterministic text-like bytes.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let words = ["gzip ", "member ", "warp ", "lane ", "deflate ", "\n"];
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(words[(state % words.len() as u64) as usize].as_bytes());
    }
    out.truncate(len);
    out
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

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
fn assert_fails(o: &Output, needle: &str) {
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(o));
    assert!(stderr(o).contains(needle), "{}", stderr(o));
}

#[test]
fn decompress_gz_like_gzip_d() {
    let dir = TempDir::new("gz");
    let (a, b) = (sample(300_000, 1), sample(50_000, 2));
    let gz = [gzip(&a), gzip(&b)].concat();
    let want = [&a[..], &b[..]].concat();
    fs::write(dir.path("data.gz"), &gz).unwrap();

    // -k keeps the input; the output name drops .gz.
    assert_ok(&warpzip(&dir, &["-d", "-k", "--device", "cpu", "data.gz"]));
    assert_eq!(dir.names(), vec!["data", "data.gz"]);
    assert_eq!(fs::read(dir.path("data")).unwrap(), want);

    // An existing output is kept without -f, overwritten with it.
    fs::write(dir.path("data"), b"old").unwrap();
    assert_fails(
        &warpzip(&dir, &["-d", "--device", "cpu", "data.gz"]),
        "exists",
    );
    assert_eq!(fs::read(dir.path("data")).unwrap(), b"old");
    assert_ok(&warpzip(
        &dir,
        &["decompress", "-f", "--device", "cpu", "data.gz"],
    ));
    assert_eq!(dir.names(), vec!["data"], "without -k the input is removed");
    assert_eq!(fs::read(dir.path("data")).unwrap(), want);

    // -c writes to stdout and keeps the input; -o names the output; .tgz gives .tar.
    fs::write(dir.path("x.tgz"), &gz).unwrap();
    let o = warpzip(&dir, &["-d", "-c", "--device", "cpu", "x.tgz"]);
    assert_ok(&o);
    assert_eq!(o.stdout, want);
    assert!(dir.path("x.tgz").exists());
    assert_ok(&warpzip(&dir, &["-d", "--device", "cpu", "x.tgz"]));
    assert_eq!(fs::read(dir.path("x.tar")).unwrap(), want);
    fs::write(dir.path("y.gz"), &gz).unwrap();
    assert_ok(&warpzip(
        &dir,
        &["-d", "--device", "cpu", "-o", "out.bin", "y.gz"],
    ));
    assert_eq!(fs::read(dir.path("out.bin")).unwrap(), want);
    assert!(!dir.path("y.gz").exists());
}

#[test]
fn gzip_is_recognised_by_its_magic_not_its_name() {
    let dir = TempDir::new("magic");
    let data = sample(100_000, 3);
    let gz = gzip(&data);
    // From stdin.
    let o = warpzip_with_stdin(&dir, &["-d", "--device", "cpu"], Some(&gz));
    assert_ok(&o);
    assert_eq!(o.stdout, data);
    // A gzip file named .wz.
    fs::write(dir.path("odd.wz"), &gz).unwrap();
    assert_ok(&warpzip(&dir, &["-d", "--device", "cpu", "odd.wz"]));
    assert_eq!(fs::read(dir.path("odd")).unwrap(), data);
    // No known suffix: refused unless the output is named.
    fs::write(dir.path("blob"), &gz).unwrap();
    assert_fails(
        &warpzip(&dir, &["-d", "--device", "cpu", "blob"]),
        "unknown suffix",
    );
    let o = warpzip(&dir, &["-d", "-c", "--device", "cpu", "blob"]);
    assert_ok(&o);
    assert_eq!(o.stdout, data);
}

#[test]
fn damaged_gzip_files_fail_and_leave_no_output() {
    let dir = TempDir::new("damaged");
    let parts = [gzip(&sample(40_000, 4)), gzip(&sample(40_000, 5))];
    let good = parts.concat();
    let crc_at = parts[0].len() + parts[1].len() - 8;

    let mut bad_crc = good.clone();
    bad_crc[crc_at] ^= 0x55;
    fs::write(dir.path("crc.gz"), &bad_crc).unwrap();
    assert_fails(
        &warpzip(&dir, &["-d", "--device", "cpu", "crc.gz"]),
        "gzip member 1",
    );
    assert!(!dir.path("crc").exists());

    fs::write(dir.path("cut.gz"), &good[..good.len() - 3]).unwrap();
    assert_fails(
        &warpzip(&dir, &["-d", "--device", "cpu", "cut.gz"]),
        "truncated",
    );

    let mut junk = good.clone();
    junk.extend_from_slice(b"junk");
    fs::write(dir.path("junk.gz"), &junk).unwrap();
    assert_fails(
        &warpzip(&dir, &["-d", "--device", "cpu", "junk.gz"]),
        "trailing garbage",
    );

    let mut names = dir.names();
    names.sort();
    assert_eq!(
        names,
        vec!["crc.gz", "cut.gz", "junk.gz"],
        "inputs kept, no outputs"
    );

    // Zero padding is accepted, with a notice naming the file.
    let mut padded = good.clone();
    padded.extend_from_slice(&[0u8; 512]);
    fs::write(dir.path("pad.gz"), &padded).unwrap();
    let o = warpzip(&dir, &["-d", "--device", "cpu", "pad.gz"]);
    assert_ok(&o);
    assert!(
        stderr(&o).contains("pad.gz") && stderr(&o).contains("trailing zero"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn deflate_codec_round_trips_through_the_binary() {
    let dir = TempDir::new("deflate");
    let data = sample(700_000, 6);
    fs::write(dir.path("d.bin"), &data).unwrap();
    assert_ok(&warpzip(
        &dir,
        &[
            "compress",
            "-c",
            "deflate",
            "-l",
            "9",
            "--chunk-size",
            "64K",
            "--device",
            "cpu",
            "d.bin",
        ],
    ));
    let o = warpzip(&dir, &["inspect", "d.bin.wz"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("deflate (id 4)"), "{}", stdout(&o));
    assert!(stdout(&o).contains("level 9"), "{}", stdout(&o));
    assert_ok(&warpzip(&dir, &["-d", "--device", "cpu", "d.bin.wz"]));
    assert_eq!(fs::read(dir.path("d.bin")).unwrap(), data);

    // Options the codec refuses are usage errors (exit 2), named in the message.
    let o = warpzip(&dir, &["compress", "-c", "deflate", "-l", "13", "d.bin"]);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("level"), "{}", stderr(&o));
    let o = warpzip(
        &dir,
        &["compress", "-c", "deflate", "--chunk-size", "16K", "d.bin"],
    );
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(stderr(&o).contains("32 KiB"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["d.bin"]);
}
