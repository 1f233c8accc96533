//! The GPU inflate (`kernels/deflate/inflate.cu`) on the cases of `tests/deflate_cpu.rs`
//! (`common/deflate_cases.rs`), at full scale: every corpus file at every libdeflate and zlib
//! level and every awkward chunk size, pathological and crafted invalid streams with the GPU's
//! precise statuses (Truncated, Corrupt, BadDistance, Overflow), 100 000 corrupted streams judged
//! by zlib, cut streams `Truncated` whatever bytes follow them; then the GPU against the CPU on
//! all of them; and nothing written past what a stream reports. Outputs are poisoned before every
//! launch; streams sit packed, 128-byte aligned and at random offsets among junk bytes.
//!
//! Needs a CUDA GPU: `cargo test --release -p warpzip --test gpu_deflate -- --include-ignored`;
//! without `WARPZIP_REQUIRE_GPU=1` a missing GPU skips, with it fails.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/deflate_writer.rs"]
mod deflate_writer;

#[path = "common/deflate_cases.rs"]
mod deflate_cases;

#[path = "common/require_gpu.rs"]
mod require_gpu;

use deflate_cases::*;
use warpzip::device::Device;
use warpzip::error::ChunkStatus;

/// GPU 0; `None` (the test skips) when no GPU is usable, unless `WARPZIP_REQUIRE_GPU` is set.
fn gpu_or_skip() -> Option<Device> {
    match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(e) if !require_gpu::gpu_required() => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("WARPZIP_REQUIRE_GPU is set but no GPU is usable: {e}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_inflates_the_corpora_from_every_level() {
    let Some(gpu) = gpu_or_skip() else { return };
    let files = corpus_files();
    assert!(files.len() >= 4, "only {} corpus files", files.len());
    differential(&gpu, &files, &all_compressors(), Scale { full: true });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_inflates_random_and_compressible_data_from_every_level() {
    let Some(gpu) = gpu_or_skip() else { return };
    let files = synthetic(1 << 20, 1);
    differential(&gpu, &files, &all_compressors(), Scale { full: true });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_inflates_pathological_streams() {
    let Some(gpu) = gpu_or_skip() else { return };
    pathological_decode(&gpu);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rejects_crafted_invalid_streams_with_precise_statuses() {
    let Some(gpu) = gpu_or_skip() else { return };
    crafted_invalid_statuses(&gpu);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_output_capacity_and_consumed() {
    let Some(gpu) = gpu_or_skip() else { return };
    capacity_and_consumed(&gpu);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_agrees_with_zlib_on_corrupted_streams() {
    let Some(gpu) = gpu_or_skip() else { return };
    for seed in 0..5 {
        let tally = random_corruption(&gpu, 20_000, 100 + seed);
        eprintln!("corrupted streams on the GPU, seed {seed}: {tally:?}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_reports_cut_streams_as_truncated() {
    let Some(gpu) = gpu_or_skip() else { return };
    cut_streams_are_truncated(&gpu, 20_000, 8);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_on_valid_invalid_and_corrupted_streams() {
    let Some(gpu) = gpu_or_skip() else { return };
    compare_devices(&gpu, 30_000, 77);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_writes_nothing_past_what_it_reports() {
    let Some(gpu) = gpu_or_skip() else { return };
    no_writes_past_written(&gpu);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_empty_batch_and_api_path() {
    let Some(gpu) = gpu_or_skip() else { return };
    let r = warpzip::codec::deflate::inflate_batch(&gpu, &[], &mut []).unwrap();
    assert!(r.is_empty());
    // One empty stream with no output room, alone.
    let empty = [0x03u8, 0x00];
    let (r, _) = inflate_on(&gpu, &[&empty], &[0], 0xAB, Layout::Api);
    assert_eq!(r[0].status, ChunkStatus::Ok);
    assert_eq!((r[0].written, r[0].consumed), (0, 2));
}
