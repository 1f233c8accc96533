//! The command line streams: a GiB generated on the fly is piped through `warpzip compress |
//! warpzip -d -c` with each process's peak resident memory (VmHWM) checked against a fixed
//! budget; long inputs become streams of frames that `inspect`, `-t` and `-d` read; `--format
//! gz` and `--format bgzf` write files that gzip, pigz and bgzip read (each tool skipped, with a
//! note, when it is not installed); `inspect` lists gzip files as `gzip -l` does.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Text-like bytes with runs, deterministic.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        match x % 4 {
            0 => out.extend(std::iter::repeat_n((x >> 16) as u8, (x % 200) as usize)),
            1 => out.extend_from_slice(b"streaming frames of chunks, "),
            2 => out.extend_from_slice(format!("{} ", x % 100_000).as_bytes()),
            _ => out.push(b'\n'),
        }
    }
    out.truncate(len);
    out
}

fn fold(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// A process's peak resident set so far, in KiB (Linux), read from `/proc/PID/status`.
fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Peak resident memory each of the two processes may reach, whatever the input's size: a few
/// 8 MiB batches, the binary and its libraries.
const BUDGET_KIB: u64 = 200 << 10;

#[test]
fn a_gib_piped_through_compress_and_decompress_stays_within_a_fixed_memory_budget() {
    if !std::path::Path::new("/proc/self/status").exists() {
        println!("note: /proc is not available; the memory check needs Linux");
        return;
    }
    // A GiB in release builds; a quarter in debug builds, which run far slower.
    let len: u64 = if cfg!(debug_assertions) {
        256 << 20
    } else {
        1 << 30
    };
    let dir = TempDir::new("gib-pipe");
    let mut compress = Command::new(bin())
        .args(["compress", "--device", "cpu"])
        .current_dir(&dir.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut decompress = Command::new(bin())
        .args(["-d", "-c", "--device", "cpu"])
        .current_dir(&dir.0)
        .stdin(Stdio::from(compress.stdout.take().unwrap()))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pids = [compress.id(), decompress.id()];

    // Each process's VmHWM, polled while it runs (the last value read is its peak).
    let running = Arc::new(AtomicBool::new(true));
    let poll = {
        let running = Arc::clone(&running);
        std::thread::spawn(move || {
            let mut peak = [0u64; 2];
            while running.load(Ordering::Relaxed) {
                for (p, pid) in peak.iter_mut().zip(pids) {
                    if let Some(kib) = vm_hwm_kib(pid) {
                        *p = (*p).max(kib);
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            peak
        })
    };
    let mut stdin = compress.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        let block = sample(1 << 20, 11);
        let mut hash = 0u64;
        let mut sent = 0u64;
        let mut i = 0u8;
        while sent < len {
            // Every MiB differs a little, so no two frames are alike.
            let mut piece = block.clone();
            piece[0] = i;
            i = i.wrapping_add(1);
            hash = fold(hash, &piece);
            stdin.write_all(&piece).unwrap();
            sent += piece.len() as u64;
        }
        hash
    });
    let mut out = decompress.stdout.take().unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let (mut hash, mut got) = (0u64, 0u64);
    loop {
        let n = out.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        hash = fold(hash, &buf[..n]);
        got += n as u64;
    }
    let sent_hash = feed.join().unwrap();
    let c = compress.wait_with_output().unwrap();
    let d = decompress.wait_with_output().unwrap();
    running.store(false, Ordering::Relaxed);
    let [peak_c, peak_d] = poll.join().unwrap();
    assert!(c.status.success(), "compress: {}", stderr(&c));
    assert!(d.status.success(), "decompress: {}", stderr(&d));
    assert_eq!(got, len);
    assert_eq!(hash, sent_hash, "the output differs from the input");
    println!(
        "{} MiB piped: compress peak RSS {} MiB, decompress peak RSS {} MiB",
        len >> 20,
        peak_c >> 10,
        peak_d >> 10
    );
    assert!(peak_c > 0 && peak_d > 0, "VmHWM was never read");
    assert!(peak_c < BUDGET_KIB, "compress peak {peak_c} KiB");
    assert!(peak_d < BUDGET_KIB, "decompress peak {peak_d} KiB");
}

#[test]
fn a_long_file_becomes_frames_that_inspect_test_and_decompress_read() {
    let dir = TempDir::new("frames");
    let data = sample(3_000_000, 3);
    fs::write(dir.path("f.bin"), &data).unwrap();
    for codec in ["rle", "deflate"] {
        let o = warpzip(
            &dir,
            &[
                "compress",
                "-k",
                "-f",
                "-C",
                codec,
                "--chunk-size",
                "64K",
                "--batch-size",
                "1M",
                "f.bin",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let o = warpzip(&dir, &["inspect", "f.bin.wz"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("frames           3"), "{}", stdout(&o));
        assert!(stdout(&o).contains("uncompressed     3000000 bytes"));
        let o = warpzip(&dir, &["-d", "-t", "f.bin.wz"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let o = warpzip(&dir, &["-d", "-c", "f.bin.wz"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(o.stdout == data, "{codec}");
        // Cut inside the last frame: an error, and no output file is left behind.
        let wz = fs::read(dir.path("f.bin.wz")).unwrap();
        fs::write(dir.path("cut.wz"), &wz[..wz.len() - 10]).unwrap();
        let o = warpzip(&dir, &["-d", "-k", "cut.wz"]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains("truncated"), "{}", stderr(&o));
        assert!(!dir.path("cut").exists());
        fs::remove_file(dir.path("f.bin.wz")).unwrap();
    }
}

/// Runs `tool ARGS` on `input`, returning its stdout; `None` (with a note) when the tool is not
/// installed.
fn external(tool: &str, args: &[&str], input: &[u8]) -> Option<Vec<u8>> {
    let child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(_) => {
            println!("note: {tool} is not installed; its check is skipped");
            return None;
        }
    };
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let feed = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let o = child.wait_with_output().unwrap();
    feed.join().unwrap();
    assert!(
        o.status.success(),
        "{tool} {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    Some(o.stdout)
}

#[test]
fn gz_and_bgzf_output_is_read_by_gzip_pigz_bgzip_and_warpzip() {
    let dir = TempDir::new("gz-out");
    for (name, len) in [("small", 1000), ("large", 700_000), ("empty", 0)] {
        let data = sample(len, 5);
        fs::write(dir.path(name), &data).unwrap();
        for format in ["gz", "bgzf"] {
            let o = warpzip(&dir, &["compress", "-k", "-f", "--format", format, name]);
            assert!(o.status.success(), "{}", stderr(&o));
            let gz = fs::read(dir.path(&format!("{name}.gz"))).unwrap();
            assert_eq!(&gz[..2], &[0x1f, 0x8b]);
            if format == "bgzf" {
                // The SAM specification's end-of-file block closes the file.
                assert!(gz.ends_with(&[
                    0x1f, 0x8b, 0x08, 0x04, 0, 0, 0, 0, 0, 0xff, 0x06, 0, 0x42, 0x43, 0x02, 0,
                    0x1b, 0, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0
                ]));
            }
            for (tool, args) in [
                ("gzip", &["-dc"][..]),
                ("pigz", &["-dc"][..]),
                ("bgzip", &["-dc"][..]),
            ] {
                if tool == "bgzip" && format == "gz" {
                    continue;
                }
                if let Some(out) = external(tool, args, &gz) {
                    assert!(out == data, "{tool} on {name} ({format})");
                }
            }
            let o = warpzip_with_stdin(&dir, &["-d", "-c"], Some(&gz));
            assert!(o.status.success(), "{}", stderr(&o));
            assert!(o.stdout == data, "warpzip on {name} ({format})");
        }
    }
}

#[test]
fn inspect_lists_a_gzip_file_as_gzip_l_does() {
    let dir = TempDir::new("gz-list");
    fs::write(dir.path("one"), sample(20_000, 7)).unwrap();
    fs::write(dir.path("many"), sample(1_000_000, 8)).unwrap();
    for name in ["one", "many"] {
        let o = warpzip(
            &dir,
            &[
                "compress",
                "-k",
                "--format",
                "gz",
                "--chunk-size",
                "32K",
                name,
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let ours = warpzip(&dir, &["inspect", "one.gz"]);
    assert!(ours.status.success(), "{}", stderr(&ours));
    let ours = stdout(&ours);
    let lines: Vec<&str> = ours.lines().collect();
    assert_eq!(
        lines[0],
        "         compressed        uncompressed  ratio uncompressed_name"
    );
    assert_eq!(lines[2], "1 gzip member(s)");
    let gz_len = fs::metadata(dir.path("one.gz")).unwrap().len();
    assert!(
        lines[1].starts_with(&format!("{gz_len:>19} {:>19} ", 20_000)),
        "{ours}"
    );
    match Command::new("gzip")
        .args(["-l", "one.gz"])
        .current_dir(&dir.0)
        .output()
    {
        Ok(gz) if gz.status.success() => {
            let theirs = String::from_utf8_lossy(&gz.stdout).into_owned();
            let theirs: Vec<&str> = theirs.lines().collect();
            assert_eq!(&lines[..2], &theirs[..2], "one member: the same two lines");
        }
        _ => println!("note: gzip is not installed; the comparison with gzip -l is skipped"),
    }

    // Several members: gzip -l reports the last member's size only; inspect adds them all.
    let many = warpzip(&dir, &["inspect", "--chunks", "many.gz"]);
    assert!(many.status.success(), "{}", stderr(&many));
    let many = stdout(&many);
    let lines: Vec<&str> = many.lines().collect();
    let gz_len = fs::metadata(dir.path("many.gz")).unwrap().len();
    assert!(
        lines[1].starts_with(&format!("{gz_len:>19} {:>19} ", 1_000_000)),
        "{many}"
    );
    assert!(lines[1].ends_with(" many"), "{many}");
    // 1,000,000 bytes in chunks of 32 KiB: 31 members, each listed.
    assert_eq!(lines[2], "31 gzip member(s)");
    assert_eq!(lines.len(), 3 + 2 + 31, "{many}");
    if let Ok(gz) = Command::new("gzip")
        .args(["-l", "many.gz"])
        .current_dir(&dir.0)
        .output()
    {
        let theirs = String::from_utf8_lossy(&gz.stdout).into_owned();
        let compressed = theirs
            .lines()
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        assert_eq!(compressed, gz_len.to_string());
    }
}
