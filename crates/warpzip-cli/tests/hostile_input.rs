//! Small files that lie about their size, through the real binary under a memory limit: a clean
//! error (exit 1) naming the chunk, never an abort, and no temporary file left behind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{bin, TempDir};
use prost::Message;
use std::fs;
use std::process::Command;
use warpzip::codec::{deflate, rle};
use warpzip::format::{write_container, ChunkSpan, ElemType, Header};
use warpzip::orc::proto::{Footer, PostScript};
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

/// The uncompressed ORC fixture with its footer listing `copies` copies of its first stripe and
/// claiming every one of their rows.
fn orc_with_repeated_stripe(copies: usize) -> Vec<u8> {
    let file = fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../warpzip/tests/data/orc/groups_v012_uncompressed.orc"
    ))
    .unwrap();
    let ps_len = usize::from(*file.last().unwrap());
    let ps_start = file.len() - 1 - ps_len;
    let mut ps = PostScript::decode(&file[ps_start..file.len() - 1]).unwrap();
    let footer_start = ps_start - ps.footer_length.unwrap() as usize;
    let mut footer = Footer::decode(&file[footer_start..ps_start]).unwrap();
    let first = footer.stripes[0].clone();
    footer.number_of_rows = Some(first.number_of_rows.unwrap() * copies as u64);
    footer.stripes = vec![first; copies];
    let new_footer = footer.encode_to_vec();
    ps.footer_length = Some(new_footer.len() as u64);
    let new_ps = ps.encode_to_vec();
    let mut out = file[..footer_start].to_vec();
    out.extend_from_slice(&new_footer);
    out.extend_from_slice(&new_ps);
    out.push(u8::try_from(new_ps.len()).unwrap());
    out
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
