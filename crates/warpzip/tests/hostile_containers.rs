//! Containers that lie about their size: valid checksums over a few bytes that claim gigabytes.
//! Decoding must refuse them before allocating, and no small container may make the decoder
//! allocate more than a fixed multiple of its size plus the largest chunk.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use std::sync::Mutex;
use warpzip::format::ElemType;
use warpzip::{api, CodecId, Device, Error};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{peak_during, Counting};

#[path = "common/lying_files.rs"]
mod lying_files;

use lying_files::lying_container as lying;

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Tests in this file measure the allocator one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

#[test]
fn a_kilobyte_claiming_gigabytes_is_refused_before_any_allocation() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for &codec in CodecId::ALL {
        // 40 chunks of 64 MiB (2.5 GiB) in about 1.4 KB, checksums valid.
        let file = lying(codec, 64 << 20, 40, 10, 0xAB);
        assert!(file.len() < 2048, "{codec}: {} bytes", file.len());
        let (result, peak) = peak_during(|| api::decompress(&file, &Device::cpu()));
        match result {
            Err(Error::Corrupt { chunk: 0, reason }) => {
                assert!(reason.contains("claims"), "{codec}: {reason}")
            }
            other => panic!("{codec}: expected a refused claim, got {other:?}"),
        }
        assert!(peak < 1 << 20, "{codec}: {peak} bytes allocated");
        // The front door for any input takes the same path.
        assert!(matches!(
            api::decompress_any(&file, &Device::cpu()),
            Err(Error::Corrupt { chunk: 0, .. })
        ));
    }
}

#[test]
fn chunks_above_64_mib_are_refused_by_the_decoder() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The container format allows chunks of up to 1 GiB; this build decodes 64 MiB at most.
    let file = lying(CodecId::Rle, 1 << 30, 40, 10, 0);
    let (result, peak) = peak_during(|| api::decompress(&file, &Device::cpu()));
    assert!(
        matches!(&result, Err(Error::Unsupported(m)) if m.contains("64 MiB")),
        "{result:?}"
    );
    assert!(peak < 1 << 20, "{peak} bytes allocated");
}

#[test]
fn a_claim_within_the_bound_still_decodes_honest_data() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // The densest data each codec writes decodes under the bound.
    let zeros = vec![0u8; 8 << 20];
    for &codec in CodecId::ALL {
        let mut opts = api::CompressOptions::for_codec(codec);
        if matches!(
            codec,
            CodecId::OrcRleV1
                | CodecId::OrcRleV2
                | CodecId::For
                | CodecId::Dfor
                | CodecId::Rfor
                | CodecId::Tile
        ) {
            opts.elem_type = Some(ElemType::I64);
        }
        if codec == CodecId::Sz {
            opts.elem_type = Some(ElemType::F32);
            opts.lossy = Some(warpzip::codec::LossyOptions::new(
                warpzip::codec::ErrorBound::Abs(1e-3),
            ));
        }
        let packed = api::compress(&zeros, &opts, &Device::cpu()).unwrap();
        assert_eq!(
            api::decompress(&packed, &Device::cpu()).unwrap(),
            zeros,
            "{codec}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// No container of N bytes makes decoding allocate more than 1,100 N bytes plus the
    /// largest chunk (64 MiB) plus a small constant, whatever it claims.
    #[test]
    fn allocation_is_bounded_by_the_container_size(
        codec_index in 0usize..CodecId::ALL.len(),
        chunk_kib in 1u32..=65536,
        chunks in 1usize..40,
        per_chunk in 1usize..64,
        fill in any::<u8>(),
    ) {
        let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let codec = CodecId::ALL[codec_index];
        let chunk_size = match codec {
            CodecId::Rle => (chunk_kib.div_ceil(4) * 4) << 10,
            _ => chunk_kib << 10,
        };
        let file = lying(codec, chunk_size, chunks, per_chunk, fill);
        let (result, peak) = peak_during(|| api::decompress(&file, &Device::cpu()));
        // Whether the junk decodes does not matter here; what it cost does.
        drop(result);
        let bound = 1100 * file.len() + (64 << 20) + (1 << 20);
        prop_assert!(peak <= bound, "{codec}: {peak} bytes for a {}-byte file", file.len());
    }
}

#[path = "../../../fuzz/common/wz_seal.rs"]
mod wz_seal;

/// The seeds of the fuzz target `wz_decompress` (`fuzz/corpus/wz_decompress/`), as the target
/// takes them: a decoded output has exactly the claimed length, and nothing panics.
#[test]
fn wz_decompress_seeds_run_clean() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/wz_decompress");
    let mut seeds = 0;
    let mut decoded = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let data = std::fs::read(entry.unwrap().path()).unwrap();
        let Some((&mode, rest)) = data.split_first() else {
            continue;
        };
        let sealed;
        let file = if mode & 1 == 0 {
            rest
        } else {
            match wz_seal::seal(rest) {
                Some(f) => {
                    sealed = f;
                    &sealed[..]
                }
                None => continue,
            }
        };
        seeds += 1;
        let (result, peak) = peak_during(|| api::decompress_any(file, &Device::cpu()));
        if let (Ok(out), Ok(header)) = (&result, warpzip::format::peek_header(file)) {
            assert_eq!(out.data.len() as u64, header.total_len);
            decoded += 1;
        }
        assert!(peak <= 1100 * file.len() + (65 << 20));
    }
    assert!(seeds >= 10, "{seeds} seeds under {}", dir.display());
    assert!(decoded >= 5, "only {decoded} seeds decoded");
}
