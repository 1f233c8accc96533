//! End-to-end tests of the `warpzip` binary: file handling, exit codes and messages, run in
//! fresh temporary directories.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::*;

use std::fs;
use std::path::Path;
use std::process::Output;

/// Deterministic test data with long runs, short runs and noise, `len` bytes.
fn sample(len: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let r = next();
        let byte = (r >> 8) as u8;
        let run = match r % 4 {
            0 => 1,
            1 => 1 + (r >> 32) as usize % 8,
            2 => 1 + (r >> 32) as usize % 300,
            _ => 1 + (r >> 32) as usize % 20_000,
        };
        out.extend(std::iter::repeat_n(byte, run.min(len - out.len())));
    }
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

/// Writes `sample(len)` as `name` and compresses it on the CPU in 256 KiB chunks to `name.wz`
/// (removing `name`).
fn compressed_sample(dir: &TempDir, name: &str, len: usize) {
    write(&dir.path(name), &sample(len));
    assert_ok(&warpzip(
        dir,
        &["compress", "--device", "cpu", "--chunk-size", "256K", name],
    ));
}

/// Flips bits of the last byte of `path`, which belongs to the last chunk's compressed data.
fn damage_last_chunk(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x5a;
    write(path, &bytes);
}

#[test]
fn file_round_trip_removes_inputs_like_gzip() {
    let dir = TempDir::new("roundtrip");
    let data = sample(3 * 1024 * 1024 + 123);
    write(&dir.path("data.bin"), &data);

    assert_ok(&warpzip(&dir, &["compress", "--device", "cpu", "data.bin"]));
    assert_eq!(dir.names(), vec!["data.bin.wz"]);
    let compressed = fs::read(dir.path("data.bin.wz")).unwrap();
    assert!(compressed.len() < data.len(), "sample data has runs");

    assert_ok(&warpzip(
        &dir,
        &["decompress", "--device", "cpu", "data.bin.wz"],
    ));
    assert_eq!(dir.names(), vec!["data.bin"]);
    assert_eq!(fs::read(dir.path("data.bin")).unwrap(), data);
}

#[test]
fn auto_device_round_trip() {
    let dir = TempDir::new("auto");
    let data = sample(200_000);
    write(&dir.path("a"), &data);
    assert_ok(&warpzip(&dir, &["compress", "a"]));
    assert_ok(&warpzip(&dir, &["decompress", "a.wz"]));
    assert_eq!(fs::read(dir.path("a")).unwrap(), data);
}

#[test]
fn empty_and_tiny_files_round_trip() {
    let dir = TempDir::new("tiny");
    for (name, data) in [
        ("empty", Vec::new()),
        ("one", vec![7u8]),
        ("odd", sample(4097)),
    ] {
        write(&dir.path(name), &data);
        assert_ok(&warpzip(&dir, &["compress", "--device", "cpu", name]));
        let wz = format!("{name}.wz");
        assert_ok(&warpzip(&dir, &["-d", "--device", "cpu", &wz]));
        assert_eq!(fs::read(dir.path(name)).unwrap(), data, "{name}");
    }
}

#[test]
fn stdin_to_stdout_round_trip() {
    let dir = TempDir::new("pipes");
    let data = sample(1_500_000);
    let c = warpzip_with_stdin(&dir, &["compress", "--device", "cpu"], Some(&data));
    assert_ok(&c);
    assert!(!c.stdout.is_empty());
    let c2 = warpzip_with_stdin(&dir, &["compress", "--device", "cpu", "-"], Some(&data));
    assert_ok(&c2);
    assert_eq!(c.stdout, c2.stdout, "`-` and no file both mean stdin");

    let d = warpzip_with_stdin(&dir, &["-d", "--device", "cpu"], Some(&c.stdout));
    assert_ok(&d);
    assert_eq!(d.stdout, data);
    assert!(
        dir.names().is_empty(),
        "pipes write no files: {:?}",
        dir.names()
    );
}

#[test]
fn explicit_output_and_stdout_keep_the_input() {
    let dir = TempDir::new("explicit");
    let data = sample(100_000);
    write(&dir.path("in"), &data);
    let o = warpzip(&dir, &["compress", "--device", "cpu", "-o", "-", "in"]);
    assert_ok(&o);
    assert!(dir.path("in").exists(), "writing to stdout keeps the input");
    write(&dir.path("packed"), &o.stdout);
    assert_ok(&warpzip(
        &dir,
        &["-d", "--device", "cpu", "-o", "restored", "packed"],
    ));
    assert_eq!(fs::read(dir.path("restored")).unwrap(), data);
}

/// `-o` naming an existing FIFO (as `-o /dev/null` names a device): the data goes into it, the
/// FIFO is not replaced by a regular file, no `-f` is needed, and the input is kept. (A FIFO
/// rather than `/dev/null` itself, so that a regression cannot replace the test machine's
/// `/dev/null`.)
#[cfg(unix)]
#[test]
fn writes_into_an_existing_fifo_without_replacing_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = TempDir::new("fifo");
    let data = sample(200_000);
    write(&dir.path("in"), &data);
    let fifo = dir.path("pipe");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo failed");
    // The reader opens the FIFO (blocking until the writer does) and reads to its end.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read(fifo).unwrap())
    };
    let o = warpzip(
        &dir,
        &["compress", "--device", "cpu", "-v", "-o", "pipe", "in"],
    );
    assert_ok(&o);
    let packed = reader.join().unwrap();
    assert!(stderr(&o).contains("written to pipe"), "{}", stderr(&o));
    assert!(
        fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
        "the FIFO was replaced"
    );
    assert!(
        dir.path("in").exists(),
        "writing into a FIFO keeps the input"
    );
    assert_eq!(dir.names(), vec!["in", "pipe"], "no temporary file left");
    write(&dir.path("packed"), &packed);
    assert_ok(&warpzip(
        &dir,
        &["-d", "--device", "cpu", "-o", "restored", "packed"],
    ));
    assert_eq!(fs::read(dir.path("restored")).unwrap(), data);
}

#[test]
fn keep_flag_keeps_the_input() {
    let dir = TempDir::new("keep");
    let data = sample(50_000);
    write(&dir.path("k.txt"), &data);
    assert_ok(&warpzip(
        &dir,
        &["compress", "--device", "cpu", "-k", "k.txt"],
    ));
    assert_eq!(dir.names(), vec!["k.txt", "k.txt.wz"]);
    fs::remove_file(dir.path("k.txt")).unwrap();
    assert_ok(&warpzip(&dir, &["-d", "--device", "cpu", "-k", "k.txt.wz"]));
    assert_eq!(dir.names(), vec!["k.txt", "k.txt.wz"]);
    assert_eq!(fs::read(dir.path("k.txt")).unwrap(), data);
}

#[test]
fn refuses_to_overwrite_without_force() {
    let dir = TempDir::new("overwrite");
    let data = sample(60_000);
    write(&dir.path("f"), &data);
    write(&dir.path("f.wz"), b"precious");

    let o = warpzip(&dir, &["compress", "--device", "cpu", "f"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert!(stderr(&o).starts_with("warpzip: "), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path("f.wz")).unwrap(), b"precious");
    assert_eq!(fs::read(dir.path("f")).unwrap(), data);
    assert_eq!(dir.names(), vec!["f", "f.wz"], "no temporary file left");

    assert_ok(&warpzip(
        &dir,
        &["compress", "--device", "cpu", "-f", "-k", "f"],
    ));
    assert_ne!(fs::read(dir.path("f.wz")).unwrap(), b"precious");

    // Decompressing onto an existing file is refused the same way.
    let o = warpzip(&dir, &["-d", "--device", "cpu", "f.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("already exists"), "{}", stderr(&o));
    assert_eq!(fs::read(dir.path("f")).unwrap(), data);
}

#[test]
fn decompress_requires_the_wz_suffix_or_an_output_name() {
    let dir = TempDir::new("suffix");
    write(&dir.path("plain"), b"not compressed");
    let o = warpzip(&dir, &["-d", "plain"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains(".wz"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["plain"]);
}

#[test]
fn compress_refuses_a_wz_input_without_force() {
    let dir = TempDir::new("wzinput");
    write(&dir.path("x.wz"), b"data");
    let o = warpzip(&dir, &["compress", "--device", "cpu", "x.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains(".wz suffix"), "{}", stderr(&o));
}

#[test]
fn missing_input_is_an_error() {
    let dir = TempDir::new("missing");
    let o = warpzip(&dir, &["compress", "--device", "cpu", "nope"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));
    assert!(dir.names().is_empty(), "{:?}", dir.names());
}

#[test]
fn unknown_codec_is_a_usage_error_naming_the_known_codecs() {
    let dir = TempDir::new("codec");
    write(&dir.path("f"), b"abc");
    for flag in ["--codec", "-C"] {
        let o = warpzip(&dir, &["compress", flag, "lzma", "f"]);
        assert_exit(&o, 2);
        let msg = stderr(&o);
        assert!(msg.contains("lzma"), "{msg}");
        for codec in warpzip::CodecId::ALL {
            assert!(msg.contains(codec.name()), "{msg}");
        }
        assert_eq!(dir.names(), vec!["f"]);
    }
}

#[test]
fn usage_errors_exit_2() {
    let dir = TempDir::new("usage");
    assert_exit(&warpzip(&dir, &[]), 2);
    assert_exit(&warpzip(&dir, &["frobnicate"]), 2);
    assert_exit(&warpzip(&dir, &["compress", "--chunk-size", "12Q", "f"]), 2);
    assert_exit(&warpzip(&dir, &["compress", "--device", "tpu", "f"]), 2);
    // Options a codec refuses, and an unknown benchmark, are usage errors too.
    write(&dir.path("f"), b"some bytes");
    for args in [
        &["compress", "-k", "-l", "0", "f"][..],
        &["compress", "-k", "--codec", "deflate", "-l", "13", "f"],
        &["compress", "-k", "--codec", "rle", "-l", "5", "f"],
        &["compress", "-k", "--chunk-size", "1000", "f"],
        &["compress", "-k", "--chunk-size", "4G", "f"],
        &["bench", "--codec", "zzz", "--device", "cpu"],
    ] {
        let o = warpzip(&dir, args);
        assert_exit(&o, 2);
        assert!(!stderr(&o).contains("invalid argument:"), "{}", stderr(&o));
    }
    assert_eq!(dir.names(), vec!["f"]);
    assert_exit(&warpzip(&dir, &["--help"]), 0);
}

#[test]
fn chunk_sizes_are_parsed_and_validated() {
    let dir = TempDir::new("chunks");
    let data = sample(1_000_000);
    write(&dir.path("c"), &data);

    let o = warpzip(
        &dir,
        &[
            "compress",
            "--codec",
            "rle",
            "--device",
            "cpu",
            "--chunk-size",
            "1000",
            "c",
        ],
    );
    // A size the codec refuses is a usage error, as a malformed one is.
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("4096"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["c"]);

    let o = warpzip(
        &dir,
        &["compress", "--device", "cpu", "--chunk-size", "128M", "c"],
    );
    assert_exit(&o, 2);
    assert_eq!(dir.names(), vec!["c"]);

    assert_ok(&warpzip(
        &dir,
        &[
            "compress",
            "--device",
            "cpu",
            "-k",
            "--chunk-size",
            "128K",
            "c",
        ],
    ));
    let o = warpzip(&dir, &["inspect", "c.wz"]);
    assert_ok(&o);
    let text = stdout(&o);
    assert!(text.contains("131072"), "{text}");
    // 1_000_000 bytes in chunks of 128 KiB: 8 chunks.
    assert!(
        text.lines()
            .any(|l| l.starts_with("chunks") && l.trim_end().ends_with(" 8")),
        "{text}"
    );
    assert_ok(&warpzip(&dir, &["-d", "-f", "--device", "cpu", "c.wz"]));
    assert_eq!(fs::read(dir.path("c")).unwrap(), data);
}

#[test]
fn truncated_input_fails_and_leaves_no_output() {
    let dir = TempDir::new("truncated");
    compressed_sample(&dir, "t", 2_500_000);
    let full = fs::read(dir.path("t.wz")).unwrap();
    for cut in [full.len() - 1, full.len() / 2, 40, 3] {
        write(&dir.path("t.wz"), &full[..cut]);
        let o = warpzip(&dir, &["-d", "--device", "cpu", "t.wz"]);
        assert_exit(&o, 1);
        let msg = stderr(&o).to_lowercase();
        assert!(
            msg.contains("truncated") || msg.contains("chunk"),
            "cut at {cut}: {msg}"
        );
        assert_eq!(
            dir.names(),
            vec!["t.wz"],
            "cut at {cut}: partial output left"
        );
    }
}

#[test]
fn corrupt_chunk_fails_naming_the_chunk_and_leaves_no_output() {
    let dir = TempDir::new("corrupt");
    compressed_sample(&dir, "c", 2_000_000);
    damage_last_chunk(&dir.path("c.wz"));

    let o = warpzip(&dir, &["-d", "--device", "cpu", "c.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("chunk"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["c.wz"], "no partial output");

    let o = warpzip(&dir, &["inspect", "c.wz"]);
    assert_exit(&o, 1);
    assert!(stdout(&o).contains("FAILED"), "{}", stdout(&o));
    assert!(stderr(&o).contains("chunk"), "{}", stderr(&o));
}

#[test]
fn several_files_are_each_compressed_and_decompressed_like_gzip() {
    let dir = TempDir::new("several");
    let (a, b) = (sample(300_000), sample(70_001));
    write(&dir.path("a"), &a);
    write(&dir.path("b"), &b);
    assert_ok(&warpzip(&dir, &["compress", "--device", "cpu", "a", "b"]));
    assert_eq!(dir.names(), vec!["a.wz", "b.wz"]);
    // -c writes them all to standard output, one after the other, and keeps the inputs.
    let o = warpzip(&dir, &["-d", "-c", "--device", "cpu", "a.wz", "b.wz"]);
    assert_ok(&o);
    assert_eq!(o.stdout, [a.clone(), b.clone()].concat());
    // A failing file is reported, the others are still done, and the exit status is 1.
    let o = warpzip(
        &dir,
        &["-d", "--device", "cpu", "a.wz", "missing.wz", "b.wz"],
    );
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("missing.wz"), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 3 files failed"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["a", "b"]);
    assert_eq!(fs::read(dir.path("a")).unwrap(), a);
    assert_eq!(fs::read(dir.path("b")).unwrap(), b);
    // One -o cannot name several outputs: a usage error, and nothing is touched.
    assert_exit(&warpzip(&dir, &["compress", "-o", "x.wz", "a", "b"]), 2);
    assert_eq!(dir.names(), vec!["a", "b"]);
}

#[test]
fn verbose_reports_each_file_and_threads_are_honoured() {
    let dir = TempDir::new("verbose");
    write(&dir.path("a"), &sample(400_000));
    let o = warpzip(
        &dir,
        &["-T", "1", "compress", "-v", "-k", "--device", "cpu", "a"],
    );
    assert_ok(&o);
    let line = stderr(&o);
    assert!(line.starts_with("a:\t"), "{line}");
    assert!(line.contains("% -- created a.wz"), "{line}");
    let o = warpzip(
        &dir,
        &[
            "-d",
            "-t",
            "-v",
            "--threads",
            "2",
            "--device",
            "cpu",
            "a.wz",
        ],
    );
    assert_ok(&o);
    assert_eq!(stderr(&o), "a.wz:\tOK\n");
    let o = warpzip(&dir, &["-d", "-v", "-c", "--device", "cpu", "a.wz"]);
    assert_ok(&o);
    assert!(
        !stderr(&o).contains("--"),
        "stdout gets no name: {}",
        stderr(&o)
    );
    // Without -v nothing is printed.
    let o = warpzip(&dir, &["-d", "-f", "--device", "cpu", "a.wz"]);
    assert_ok(&o);
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    assert_exit(&warpzip(&dir, &["-T", "x", "demo"]), 2);
}

#[test]
fn test_flag_decodes_everything_and_writes_nothing() {
    let dir = TempDir::new("testflag");
    compressed_sample(&dir, "t", 1_500_000);
    // A good file: silent success, nothing written, the input kept.
    let o = warpzip(&dir, &["-d", "-t", "--device", "cpu", "t.wz"]);
    assert_ok(&o);
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert_eq!(dir.names(), vec!["t.wz"]);
    // Standard input works too.
    let wz = fs::read(dir.path("t.wz")).unwrap();
    let o = warpzip_with_stdin(
        &dir,
        &["decompress", "--test", "--device", "cpu"],
        Some(&wz),
    );
    assert_ok(&o);
    // A damaged chunk: exit 1, the chunk named, still nothing written.
    damage_last_chunk(&dir.path("t.wz"));
    let o = warpzip(&dir, &["-d", "-t", "--device", "cpu", "t.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("chunk"), "{}", stderr(&o));
    assert_eq!(dir.names(), vec!["t.wz"]);
    // -t writes nothing, so an output name is a usage error.
    assert_exit(&warpzip(&dir, &["-d", "-t", "-o", "x", "t.wz"]), 2);
}

#[test]
fn inspect_reports_header_chunks_ratio_and_checksums() {
    let dir = TempDir::new("inspect");
    let data = sample(3_000_000);
    write(&dir.path("i"), &data);
    assert_ok(&warpzip(
        &dir,
        &["compress", "--codec", "rle", "--device", "cpu", "i"],
    ));
    let o = warpzip(&dir, &["inspect", "--chunks", "i.wz"]);
    assert_ok(&o);
    let text = stdout(&o);
    for needle in [
        "codec",
        "rle",
        "chunk size",
        "1048576",
        "chunks",
        "3000000",
        "ratio",
        "checksums",
        "OK",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    let o = warpzip(&dir, &["inspect", "--decode", "--device", "cpu", "i.wz"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("decoded"), "{}", stdout(&o));
    assert!(dir.path("i.wz").exists(), "inspect never removes its input");
}

#[test]
fn inspect_rejects_a_file_that_is_not_wz() {
    let dir = TempDir::new("notwz");
    write(&dir.path("x.wz"), &sample(10_000));
    let o = warpzip(&dir, &["inspect", "x.wz"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).starts_with("warpzip: "), "{}", stderr(&o));
}

#[test]
fn inspect_reports_several_files_and_goes_on_past_a_bad_one() {
    let dir = TempDir::new("inspectmany");
    write(&dir.path("a"), &sample(200_000));
    write(&dir.path("b"), &sample(50_000));
    assert_ok(&warpzip(&dir, &["compress", "--device", "cpu", "a", "b"]));
    write(&dir.path("x.wz"), b"not a container");
    let o = warpzip(&dir, &["inspect", "a.wz", "x.wz", "b.wz"]);
    assert_exit(&o, 1);
    let out = stdout(&o);
    assert!(out.contains("a.wz") && out.contains("b.wz"), "{out}");
    assert_eq!(out.matches("checksums        OK").count(), 2, "{out}");
    assert!(stderr(&o).contains("x.wz"), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 3 files failed"), "{}", stderr(&o));
    assert_exit(&warpzip(&dir, &["inspect"]), 2);
}

#[test]
fn demo_runs_every_part_on_its_data_and_verifies_it() {
    let dir = TempDir::new("demo");
    let o = warpzip(&dir, &["demo", "--device", "cpu"]);
    assert_ok(&o);
    let text = stdout(&o);
    for column in [
        "part",
        "data",
        "device",
        "ratio",
        "GB/s",
        "encode GB/s",
        "check",
    ] {
        assert!(
            text.lines().any(|l| l.contains(column)),
            "{column}:\n{text}"
        );
    }
    // (part, what its data must name, what it must be checked against)
    let rows = [
        ("ORC to Arrow", "demo-12-zlib.orc", "= row-group decoder"),
        ("gzip -d", "alice29.txt.gz", "= original"),
        ("BGZF -d", "BGZF members", "= original"),
        ("orc-rle-v1", "l_orderkey", "= original"),
        ("orc-rle-v2", "l_orderkey", "= original"),
        ("orc-rle-v1", "l_shipdate", "= original"),
        ("orc-rle-v2", "l_shipdate", "= original"),
        ("orc-rle-v1", "l_quantity", "= original"),
        ("orc-rle-v2", "l_quantity", "= original"),
        ("rle", "ptt5", "= original"),
        ("deflate", "alice29.txt", "= original"),
        ("compact", "l_quantity < 25", "= scalar filter"),
    ];
    for (part, data, against) in rows {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{part} ")) && l.contains(data))
            .unwrap_or_else(|| panic!("no row for {part} on {data}:\n{text}"));
        assert!(line.contains(&format!("ok ({against}")), "{line}");
        assert!(line.split_whitespace().any(|w| w == "cpu"), "{line}");
    }
    // Every codec has a row.
    for codec in warpzip::CodecId::ALL {
        assert!(
            text.lines()
                .any(|l| l.starts_with(&format!("{} ", codec.name()))),
            "no row for {codec}:\n{text}"
        );
    }
    // The ORC file's five int columns of 1,920,800 rows decode to 38,416,000 bytes of values.
    assert!(
        text.lines()
            .any(|l| l.starts_with("ORC to Arrow") && l.contains(" 38416000 ")),
        "{text}"
    );
    assert!(!text.contains("FAILED"), "{text}");
    assert!(
        text.contains("all 19 rows verified byte for byte"),
        "{text}"
    );
    assert!(dir.names().is_empty(), "demo writes no files");

    // Without --device the demo runs wherever `auto` lands.
    let o = warpzip(&dir, &["demo"]);
    assert_ok(&o);
    assert!(stdout(&o).contains("all 19 rows verified byte for byte"));
    assert_exit(&warpzip(&dir, &["demo", "--device", "tpu"]), 2);
    assert_exit(&warpzip(&dir, &["demo", "extra"]), 2);
}

#[test]
fn gpu_device_fails_clearly_without_a_gpu_or_works_with_one() {
    let dir = TempDir::new("gpu");
    let data = sample(300_000);
    write(&dir.path("g"), &data);
    let required = common::require_gpu::gpu_required();
    let usable = required || warpzip::Device::gpu(0).is_ok();
    let o = warpzip(&dir, &["compress", "--device", "gpu", "-k", "g"]);
    if usable {
        assert_ok(&o);
        let cpu = warpzip(&dir, &["compress", "--device", "cpu", "-o", "-", "g"]);
        assert_ok(&cpu);
        assert_eq!(
            fs::read(dir.path("g.wz")).unwrap(),
            cpu.stdout,
            "the GPU writes the CPU's bytes"
        );
        fs::remove_file(dir.path("g")).unwrap();
        assert_ok(&warpzip(&dir, &["-d", "--device", "gpu", "g.wz"]));
        assert_eq!(fs::read(dir.path("g")).unwrap(), data);
    } else {
        assert_exit(&o, 1);
        let msg = stderr(&o);
        assert!(msg.starts_with("warpzip: "), "{msg}");
        assert!(msg.contains("GPU"), "{msg}");
        assert_eq!(dir.names(), vec!["g"], "nothing written");
    }
}

#[test]
fn a_reader_that_closes_the_pipe_ends_warpzip_quietly() {
    // As `gzip -dc f.gz | head` does: killed by SIGPIPE, nothing on stderr.
    let dir = TempDir::new("sigpipe");
    write(&dir.path("p"), &sample(4_000_000));
    assert_ok(&warpzip(&dir, &["compress", "--device", "cpu", "-k", "p"]));
    let script = "\"$0\" -d -c --device cpu \"$1\" 2>\"$2\" | head -c 10 >/dev/null; \
                  echo ${PIPESTATUS[0]}";
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(common::bin())
        .arg(dir.path("p.wz"))
        .arg(dir.path("err"))
        .output()
        .unwrap();
    let status = String::from_utf8_lossy(&o.stdout).trim().to_string();
    assert_eq!(status, "141", "warpzip's exit status under a closed pipe");
    assert_eq!(
        fs::read(dir.path("err")).unwrap(),
        b"",
        "stderr under a closed pipe"
    );
}

#[test]
fn huge_thread_counts_are_capped() {
    let dir = TempDir::new("threads");
    write(&dir.path("t"), &sample(100_000));
    let o = warpzip(
        &dir,
        &["compress", "-T", "100000", "--device", "cpu", "-k", "t"],
    );
    assert_ok(&o);
    assert!(stderr(&o).contains("capped at"), "{}", stderr(&o));
    assert!(dir.names().contains(&"t.wz".to_string()));
}

#[test]
fn notices_only_when_asked_and_never_with_quiet() {
    let dir = TempDir::new("notices");
    write(&dir.path("n"), &sample(50_000));
    let gpu = warpzip::Device::gpu(0).is_ok();
    // By default a machine without a GPU is not worth a line; -t is silent on success.
    let o = warpzip(&dir, &["compress", "-k", "n"]);
    assert_ok(&o);
    assert_eq!(stderr(&o), "", "compress");
    let o = warpzip(&dir, &["-d", "-t", "n.wz"]);
    assert_ok(&o);
    assert_eq!(stderr(&o), "", "decompress -t");
    // -v asks for it; -q silences it (but not -v's own report).
    let o = warpzip(&dir, &["compress", "-f", "-k", "-v", "n"]);
    assert_ok(&o);
    assert_eq!(stderr(&o).contains("using the CPU"), !gpu, "{}", stderr(&o));
    let o = warpzip(&dir, &["compress", "-f", "-k", "-v", "-q", "n"]);
    assert_ok(&o);
    assert!(!stderr(&o).contains("warpzip:"), "{}", stderr(&o));
    assert!(stderr(&o).contains("n.wz"), "{}", stderr(&o));
    // -T's cap is a notice too.
    let o = warpzip(&dir, &["-q", "-T", "100000", "compress", "-f", "-k", "n"]);
    assert_ok(&o);
    assert_eq!(stderr(&o), "", "-q with -T");
}
