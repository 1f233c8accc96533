//! The `deflate` codec and gzip files decoded on the GPU, against the CPU: `.wz` containers at
//! several levels and chunk sizes, BGZF and scanned multi-member gzip files (one member per
//! stream of the GPU batch), header-like bytes inside compressed data, members too large for
//! one warp, and damaged files, which must give the CPU's verdicts.
//!
//! Needs a CUDA GPU: `cargo test --release -p warpzip --test gpu_gzip -- --include-ignored`;
//! without `WARPZIP_REQUIRE_GPU=1` a missing GPU skips, with it fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[path = "common/gzip_builders.rs"]
mod gzip_builders;

use gzip_builders::*;
use warpzip::api::{self, CompressOptions};
use warpzip::codec::deflate::gzip::{self, Decoding, Notice};
use warpzip::{CodecId, Device, Error};

/// GPU 0; `None` (the test skips) when no GPU is usable, unless `WARPZIP_REQUIRE_GPU` is set.
fn gpu_or_skip() -> Option<Device> {
    match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(e) if !common::require_gpu::gpu_required() => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("WARPZIP_REQUIRE_GPU is set but no GPU is usable: {e}"),
    }
}

fn corpus(dir: &str, name: &str) -> Vec<u8> {
    let path = common::testdata().join("corpora").join(dir).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The GPU's decode of `gz` equals the CPU's, member for member (bytes, extents, and whether
/// each member came from the batch); returns the GPU's report.
#[track_caller]
fn same_as_cpu(gpu: &Device, gz: &[u8]) -> gzip::Decoded {
    let cpu = gzip::decompress_report(gz, &Device::Cpu).unwrap();
    let on_gpu = gzip::decompress_report(gz, gpu).unwrap();
    assert!(on_gpu.data == cpu.data, "bytes differ");
    assert_eq!(on_gpu.members, cpu.members);
    on_gpu
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn wz_deflate_decodes_on_the_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    for (dir, name) in [("calgary", "book1"), ("canterbury", "kennedy.xls")] {
        let data = corpus(dir, name);
        for (level, chunk) in [(1, 32 << 10), (6, 128 << 10), (12, 4 << 20)] {
            let opts = CompressOptions {
                level: Some(level),
                chunk_size: Some(chunk),
                ..CompressOptions::for_codec(CodecId::Deflate)
            };
            let wz = api::compress(&data, &opts, &gpu).unwrap();
            assert!(
                api::decompress(&wz, &gpu).unwrap() == data,
                "{name} level {level} chunk {chunk}"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn bgzf_and_multi_member_files_decode_as_one_gpu_batch() {
    let Some(gpu) = gpu_or_skip() else { return };
    let text = corpus("canterbury", "lcet10.txt");
    let binary = corpus("canterbury", "kennedy.xls");

    let d = same_as_cpu(&gpu, &bgzf(&[&text[..], &binary[..]].concat()));
    assert!(d.members.iter().all(|m| m.decoding == Decoding::Bgzf));
    assert!(d.notices.is_empty(), "{:?}", d.notices);

    let f = Fields {
        name: Some(b"kennedy.xls"),
        comment: Some(b"c"),
        extra: Some(b"XY\x01\x00z"),
        header_crc: true,
        ..Fields::default()
    };
    let gz = [
        member(&text),
        member_with(&binary, &f, &raw_deflate(&binary, 9)),
        member(b""),
        member(&noise(1, 100_000)),
        flate2_gzip(b"last"),
    ]
    .concat();
    let d = same_as_cpu(&gpu, &gz);
    assert!(d.data == zlib_reference(&gz));
    assert!(d.members.iter().all(|m| m.decoding == Decoding::Scanned));

    // Many small members.
    let mut gz = Vec::new();
    for piece in text.chunks(3001) {
        gz.extend(member(piece));
    }
    let d = same_as_cpu(&gpu, &gz);
    assert!(d.data == text);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn header_like_bytes_and_large_members_on_the_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let fake = member(b"I am not a member of this file");
    let mut payload = b"prefix ".to_vec();
    payload.extend_from_slice(&fake);
    payload.extend_from_slice(b" suffix");
    let outer = member_with(&payload, &Fields::default(), &stored(&payload));
    let gz = [&outer[..], &member(b"second")[..]].concat();
    let d = same_as_cpu(&gpu, &gz);
    assert_eq!(d.members[0].decoding, Decoding::Sequential);
    assert_eq!(d.members[1].decoding, Decoding::Scanned);

    // A single member: the CPU, with a notice.
    let d = gzip::decompress_report(&flate2_gzip(b"just one"), &gpu).unwrap();
    assert_eq!(d.data, b"just one");
    assert_eq!(d.notices, vec![Notice::SingleMemberOnCpu]);

    // A member over 16 MiB goes to the CPU beside the GPU batch.
    let text = corpus("canterbury", "lcet10.txt");
    let big: Vec<u8> = text.iter().copied().cycle().take(17 << 20).collect();
    let gz = [member(&big), member(&text), member(b"end")].concat();
    let d = same_as_cpu(&gpu, &gz);
    assert_eq!(d.notices, vec![Notice::LargeMembersOnCpu { members: 1 }]);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn damaged_gzip_files_give_the_cpu_verdicts_on_the_gpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let text = corpus("canterbury", "alice29.txt");
    let good = bgzf(&text);
    let verdict = |gz: &[u8], device: &Device| match gzip::decompress(gz, device) {
        Ok(_) => "ok".to_string(),
        Err(Error::CorruptGzip { member, .. }) => format!("corrupt member {member}"),
        Err(Error::Truncated(m)) => format!("truncated: {m}"),
        Err(other) => format!("{other}"),
    };
    let mut state = 0x1234_5678_9abc_def1u64;
    for round in 0..300 {
        let mut gz = good.clone();
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let at = (state % gz.len() as u64) as usize;
        gz[at] ^= 1 + (state >> 32) as u8 % 255;
        assert_eq!(
            verdict(&gz, &gpu),
            verdict(&gz, &Device::Cpu),
            "round {round}, byte {at}"
        );
    }
    assert_eq!(
        verdict(&good[..good.len() - 30], &gpu),
        verdict(&good[..good.len() - 30], &Device::Cpu)
    );
}
