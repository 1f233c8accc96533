//! Small files that lie about their size, through the real binary under a memory limit: a clean
//! error (exit 1) naming the chunk, never an abort, and no temporary file left behind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bin, TempDir};
use std::fs;
use std::process::Command;
use warpzip::codec::{deflate, rle};
use warpzip::format::{write_container, ChunkSpan, ElemType, Header};
use warpzip::CodecId;

/// An `rle` or `deflate` container of 40 chunks that claim 64 MiB each (2.5 GiB) over 10
/// compressed bytes each, with valid checksums.
fn lying(codec: CodecId) -> Vec<u8> {
    let chunk_size = 64u32 << 20;
    let codec_params = match codec {
        CodecId::Deflate => deflate::format::codec_params(6).unwrap(),
        _ => rle::format::codec_params(),
    };
    let header = Header {
        codec,
        codec_params,
        elem_type: ElemType::Bytes,
        shape: Vec::new(),
        total_len: u64::from(chunk_size) * 40,
        chunk_size,
    };
    let payload = vec![0x5A; 400];
    let spans: Vec<ChunkSpan> = (0..40)
        .map(|i| ChunkSpan {
            offset: i * 10,
            compressed_len: 10,
            uncompressed_len: chunk_size,
        })
        .collect();
    let mut out = Vec::new();
    write_container(&mut out, &header, &payload, &spans).unwrap();
    out
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
