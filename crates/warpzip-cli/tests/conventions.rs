//! End-to-end tests of the gzip and zstd conventions of the `warpzip` binary: flags that
//! combine and come anywhere, `-c` for standard output, the default codec and the chunk size
//! that follows the reader, signals, symbolic links and the wording of errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
use std::path::Path;
use std::process::Output;

/// English-like text, `len` bytes: what the default codec is for.
fn text(len: usize) -> Vec<u8> {
    let words = [
        "the",
        "quick",
        "brown",
        "fox",
        "jumps",
        "over",
        "lazy",
        "dog",
        "and",
        "runs",
        "away",
        "from",
        "a",
        "compressed",
        "file",
        "of",
        "words",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(words[(state % words.len() as u64) as usize].as_bytes());
        out.push(if state.is_multiple_of(11) {
            b'\n'
        } else {
            b' '
        });
    }
    out.truncate(len);
    out
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
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        stdout(o),
        stderr(o)
    );
}

fn write(path: &Path, data: &[u8]) {
    fs::write(path, data).unwrap();
}

/// The `inspect` field `name` of a `.wz` file.
fn inspect_field(dir: &TempDir, file: &str, name: &str) -> String {
    let o = warpzip(dir, &["inspect", file]);
    assert_ok(&o);
    stdout(&o)
        .lines()
        .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
        .unwrap_or_else(|| panic!("no {name} in {}", stdout(&o)))
}

#[test]
fn dash_d_combines_and_comes_anywhere() {
    let dir = TempDir::new("dash-d");
    let data = text(300_000);
    write(&dir.path("f"), &data);
    assert_ok(&warpzip(&dir, &["compress", "-k", "--device", "cpu", "f"]));
    // To standard output, keeping the input, whatever the order of the flags.
    for args in [
        &["-dc", "f.wz"][..],
        &["-cd", "f.wz"],
        &["-d", "-c", "f.wz"],
        &["-T", "1", "-dc", "f.wz"],
        &["--device", "cpu", "-dc", "f.wz"],
        &["-q", "--decompress", "-c", "f.wz"],
        &["f.wz", "-dc"],
    ] {
        let o = warpzip(&dir, args);
        assert_ok(&o);
        assert!(o.stdout == data, "{args:?}: wrong output");
        assert!(dir.path("f.wz").exists(), "{args:?}: input removed");
    }
    // -dt tests; -dkv writes the file, keeps the input and says so.
    let o = warpzip(&dir, &["-dt", "f.wz"]);
    assert_ok(&o);
    assert!(o.stdout.is_empty());
    fs::remove_file(dir.path("f")).unwrap();
    let o = warpzip(&dir, &["-dkv", "f.wz"]);
    assert_ok(&o);
    assert!(stderr(&o).contains("created f"), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path("f")).unwrap(), data);
    assert!(dir.path("f.wz").exists());
    // --device after -d, -T before it.
    fs::remove_file(dir.path("f")).unwrap();
    assert_ok(&warpzip(
        &dir,
        &["-T", "1", "-d", "--device", "cpu", "f.wz"],
    ));
    assert_eq!(fs::read(dir.path("f")).unwrap(), data);
    assert!(
        !dir.path("f.wz").exists(),
        "-d without -k removes the input"
    );
    // A subcommand word first keeps clap's reading: `compress -d` is an unknown flag.
    assert_exit(&warpzip(&dir, &["compress", "-d", "f"]), 2);
}

#[test]
fn dash_c_is_standard_output_in_compress_too() {
    let dir = TempDir::new("dash-c");
    let data = text(200_000);
    write(&dir.path("f"), &data);
    let o = warpzip(&dir, &["compress", "-c", "--device", "cpu", "f"]);
    assert_ok(&o);
    assert_eq!(
        dir.names(),
        vec!["f"],
        "-c keeps the input and writes no file"
    );
    let d = warpzip_with_stdin(&dir, &["-dc", "--device", "cpu"], Some(&o.stdout));
    assert_ok(&d);
    assert_eq!(d.stdout, data);
    // Combined with other flags, and with -C naming the codec.
    let o = warpzip(&dir, &["compress", "-kcC", "rle", "--device", "cpu", "f"]);
    assert_ok(&o);
    assert_eq!(
        o.stdout[..4],
        [0x89, b'W', b'Z', 0x0a],
        "a .wz container on stdout"
    );
    assert_eq!(dir.names(), vec!["f"]);
    // -c with several files is refused: -c names one output.
    write(&dir.path("g"), b"gg");
    assert_exit(&warpzip(&dir, &["compress", "-c", "f", "g"]), 2);
    // -c and -o together are a usage error.
    assert_exit(&warpzip(&dir, &["compress", "-c", "-o", "x", "f"]), 2);
}

#[test]
fn the_older_codec_spelling_still_works_unless_a_file_has_that_name() {
    let dir = TempDir::new("legacy-c");
    let data = text(100_000);
    write(&dir.path("f"), &data);
    assert_ok(&warpzip(
        &dir,
        &["compress", "-c", "rle", "-k", "--device", "cpu", "f"],
    ));
    assert_eq!(inspect_field(&dir, "f.wz", "codec"), "rle (id 1)");
    // With a file named `rle`, `-c rle` is gzip's: that file to standard output.
    write(&dir.path("rle"), &data);
    let o = warpzip(&dir, &["compress", "-c", "rle", "--device", "cpu"]);
    assert_ok(&o);
    assert!(dir.path("rle").exists());
    let d = warpzip_with_stdin(&dir, &["-dc"], Some(&o.stdout));
    assert_eq!(d.stdout, data);
}

#[test]
fn deflate_is_the_default_and_its_chunks_follow_the_reader() {
    let dir = TempDir::new("defaults");
    let data = text(9 << 20);
    write(&dir.path("t"), &data);
    // On the CPU (or --for cpu): 4 MiB chunks; the text shrinks.
    assert_ok(&warpzip(&dir, &["compress", "-k", "--device", "cpu", "t"]));
    assert!(inspect_field(&dir, "t.wz", "codec").starts_with("deflate"));
    assert!(inspect_field(&dir, "t.wz", "chunk size").starts_with("4194304 bytes"));
    assert!(fs::metadata(dir.path("t.wz")).unwrap().len() < data.len() as u64 / 2);
    // For a GPU reader: the codec's GPU-sized chunks (at most 128 KiB).
    assert_ok(&warpzip(
        &dir,
        &["compress", "-kf", "--device", "cpu", "--for", "gpu", "t"],
    ));
    let chunk: u64 = inspect_field(&dir, "t.wz", "chunk size")
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(chunk <= 128 << 10, "{chunk}");
    // --chunk-size wins over --for.
    assert_ok(&warpzip(
        &dir,
        &[
            "compress",
            "-kf",
            "--device",
            "cpu",
            "--for",
            "cpu",
            "--chunk-size",
            "64K",
            "t",
        ],
    ));
    assert!(inspect_field(&dir, "t.wz", "chunk size").starts_with("65536 bytes"));
    assert_exit(&warpzip(&dir, &["compress", "--for", "tpu", "t"]), 2);
    fs::remove_file(dir.path("t")).unwrap();
    assert_ok(&warpzip(&dir, &["-d", "t.wz"]));
    assert_eq!(fs::read(dir.path("t")).unwrap(), data);
}

/// Starts warpzip with `args` in `dir`, reading a pipe that receives `input` and stays open,
/// waits until its hidden temporary output exists, sends it `signal` and returns how it ended.
#[cfg(unix)]
fn interrupted(
    dir: &TempDir,
    args: &[&str],
    input: &[u8],
    signal: i32,
) -> std::process::ExitStatus {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(&dir.0)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(input).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !dir.names().iter().any(|n| n.contains(".wz-tmp-")) {
        assert!(
            std::time::Instant::now() < deadline,
            "no temporary output appeared: {:?}",
            dir.names()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: sends a signal to the child this test started and has not yet reaped.
    assert_eq!(unsafe { libc::kill(pid, signal) }, 0);
    let status = child.wait().unwrap();
    drop(pipe);
    status
}

#[cfg(unix)]
#[test]
fn sigint_and_sigterm_remove_the_unfinished_output() {
    use std::os::unix::process::ExitStatusExt;
    let dir = TempDir::new("signals");
    // Compression waits for the rest of its first batch; decompression for the stream's
    // header (the decoder stops at the first byte it can judge, so it is given none).
    let data = text(1 << 20);
    let status = interrupted(&dir, &["compress", "-o", "out.wz"], &data, libc::SIGINT);
    assert_eq!(status.signal(), Some(libc::SIGINT), "{status:?}");
    assert!(dir.names().is_empty(), "left behind: {:?}", dir.names());
    let status = interrupted(&dir, &["-d", "-o", "out"], &[], libc::SIGTERM);
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    assert!(dir.names().is_empty(), "left behind: {:?}", dir.names());
    let status = interrupted(&dir, &["compress", "-o", "out.wz"], &data, libc::SIGHUP);
    assert_eq!(status.signal(), Some(libc::SIGHUP), "{status:?}");
    assert!(dir.names().is_empty(), "left behind: {:?}", dir.names());

    // The shell sees 143 for SIGTERM, as for gzip.
    let script = "\"$0\" compress -o out.wz < <(sleep 30 2>/dev/null) & pid=$!; \
                  while ! ls -A | grep -q wz-tmp; do sleep 0.05; done; \
                  kill -TERM $pid; wait $pid; echo $?; ls -A";
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(bin())
        .current_dir(&dir.0)
        .output()
        .unwrap();
    assert_eq!(stdout(&o).trim(), "143", "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_refused_unless_forced_and_targets_never_removed() {
    let dir = TempDir::new("symlinks");
    let data = text(100_000);
    write(&dir.path("target"), &data);
    std::os::unix::fs::symlink("target", dir.path("link")).unwrap();
    let o = warpzip(&dir, &["compress", "link"]);
    assert_exit(&o, 1);
    assert!(
        stderr(&o).contains("link is a symbolic link -- ignored"),
        "{}",
        stderr(&o)
    );
    assert_eq!(dir.names(), vec!["link", "target"]);
    // To standard output the link is read through, and kept.
    let o = warpzip(&dir, &["compress", "-c", "link"]);
    assert_ok(&o);
    assert_eq!(dir.names(), vec!["link", "target"]);
    // With -f: link.wz, the link removed, its target untouched.
    assert_ok(&warpzip(&dir, &["compress", "-f", "link"]));
    assert_eq!(dir.names(), vec!["link.wz", "target"]);
    assert_eq!(fs::read(dir.path("target")).unwrap(), data);

    // Decompressing a link to a .wz file: the same rules.
    fs::rename(dir.path("link.wz"), dir.path("real.wz")).unwrap();
    std::os::unix::fs::symlink("real.wz", dir.path("alias.wz")).unwrap();
    let o = warpzip(&dir, &["-d", "alias.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("symbolic link"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["alias.wz", "real.wz", "target"]);
    let o = warpzip(&dir, &["-dc", "alias.wz"]);
    assert_ok(&o);
    assert_eq!(o.stdout, data);
    assert_ok(&warpzip(&dir, &["-t", "-d", "alias.wz"]));
    assert_ok(&warpzip(&dir, &["-df", "alias.wz"]));
    assert_eq!(dir.names(), vec!["alias", "real.wz", "target"]);
    assert_eq!(fs::read(dir.path("alias")).unwrap(), data);
    assert!(dir.path("real.wz").exists(), "the link's target is kept");
    // Several files: the link is reported, the others still done.
    std::os::unix::fs::symlink("target", dir.path("l2")).unwrap();
    let o = warpzip(&dir, &["compress", "-k", "l2", "target"]);
    assert_exit(&o, 1);
    assert!(dir.path("target.wz").exists());
    assert!(!dir.path("l2.wz").exists());
}

/// Runs warpzip in `dir` with its standard output going to /dev/full.
#[cfg(target_os = "linux")]
fn to_dev_full(dir: &TempDir, args: &[&str]) -> Output {
    std::process::Command::new(bin())
        .args(args)
        .current_dir(&dir.0)
        .stdin(std::process::Stdio::null())
        .stdout(
            fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        )
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap()
}

#[track_caller]
fn said_once(o: &Output, needle: &str) {
    let msg = stderr(o);
    assert_eq!(msg.matches(needle).count(), 1, "{needle:?} in {msg}");
    assert!(!msg.contains("wz-tmp"), "the temporary name leaked: {msg}");
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_device_is_reported_once_naming_the_output() {
    let dir = TempDir::new("enospc");
    write(&dir.path("f"), &text(3 << 20));
    let o = warpzip(&dir, &["compress", "-k", "-o", "/dev/full", "f"]);
    assert_exit(&o, 1);
    said_once(&o, "No space left on device");
    said_once(&o, "/dev/full");
    let o = to_dev_full(&dir, &["compress", "-kc", "f"]);
    assert_exit(&o, 1);
    said_once(&o, "No space left on device");
    said_once(&o, "standard output");
    assert_ok(&warpzip(&dir, &["compress", "-k", "f"]));
    let o = to_dev_full(&dir, &["-dc", "f.wz"]);
    assert_exit(&o, 1);
    said_once(&o, "No space left on device");
    let o = warpzip(&dir, &["-d", "-o", "/dev/full", "f.wz"]);
    assert_exit(&o, 1);
    said_once(&o, "No space left on device");
    assert_eq!(dir.names(), vec!["f", "f.wz"]);
}

#[test]
fn errors_name_the_users_paths_and_each_cause_once() {
    let dir = TempDir::new("messages");
    write(&dir.path("f"), &text(1 << 20));
    assert_ok(&warpzip(
        &dir,
        &["compress", "-k", "--chunk-size", "64K", "f"],
    ));
    let good = fs::read(dir.path("f.wz")).unwrap();

    // A damaged chunk: named once, with its reason once.
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 0x5a;
    write(&dir.path("bad.wz"), &bad);
    for args in [
        &["inspect", "bad.wz"][..],
        &["-t", "bad.wz"],
        &["-dc", "bad.wz"],
    ] {
        let o = warpzip(&dir, args);
        assert_exit(&o, 1);
        said_once(&o, "checksum mismatch");
        said_once(&o, "bad.wz");
        said_once(&o, "chunk 15");
    }

    // A flipped bit in the version field: an unsupported or damaged file, said plainly.
    for (byte, flip) in [(5, 0x01), (4, 0x80), (4, 0x01)] {
        let mut v = good.clone();
        v[byte] ^= flip;
        write(&dir.path("v.wz"), &v);
        for args in [&["-d", "v.wz"][..], &["inspect", "v.wz"]] {
            let o = warpzip(&dir, args);
            assert_exit(&o, 1);
            said_once(&o, "format version");
            said_once(&o, "damaged");
            said_once(&o, "v.wz");
        }
        assert!(!dir.path("v").exists());
    }

    // An output that cannot be created is named as the user wrote it.
    let o = warpzip(&dir, &["compress", "-k", "-o", "no/such/dir/x.wz", "f"]);
    assert_exit(&o, 1);
    said_once(&o, "cannot create no/such/dir/x.wz");
}
