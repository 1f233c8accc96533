//! Round trips through the public API (`compress`, `decompress`, `inspect`) on the CPU, and on
//! the GPU compared byte for byte with the CPU.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use warpzip::api::{self, CompressOptions, Verification};
use warpzip::{CodecId, Device, Error};

/// Deterministic data with runs of many lengths and noise between them.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut out = Vec::with_capacity(len);
    while out.len() < len {
        let r = next();
        let run = match r % 4 {
            0 => 1,
            1 => 1 + (r >> 32) as usize % 5,
            2 => 1 + (r >> 32) as usize % 200,
            _ => 1 + (r >> 32) as usize % 70_000,
        };
        out.extend(std::iter::repeat_n(
            (r >> 8) as u8,
            run.min(len - out.len()),
        ));
    }
    out
}

fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// Awkward sizes around the segment (4096) and chunk boundaries.
fn inputs(chunk: usize) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for (i, len) in [
        0,
        1,
        2,
        3,
        31,
        32,
        33,
        4095,
        4096,
        4097,
        chunk - 1,
        chunk,
        chunk + 1,
        3 * chunk + 4097,
    ]
    .into_iter()
    .enumerate()
    {
        v.push(sample(len, 17 + i as u64));
        v.push(random(len, 99 + i as u64));
        v.push(vec![0xAB; len]);
    }
    v
}

fn opts(chunk: u32) -> CompressOptions {
    CompressOptions {
        chunk_size: Some(chunk),
        ..CompressOptions::default()
    }
}

#[test]
fn default_options_are_rle_with_its_default_chunk_size() {
    let o = CompressOptions::default();
    assert_eq!(o.codec, CodecId::Rle);
    assert_eq!(o.level, None);
    assert_eq!(
        o.chunk_size,
        Some(warpzip::codec::rle::format::DEFAULT_CHUNK_SIZE)
    );
}

#[test]
fn cpu_round_trips() {
    let cpu = Device::cpu();
    for chunk in [4096u32, 64 << 10, 1 << 20] {
        for data in inputs(chunk as usize) {
            let packed = api::compress(&data, &opts(chunk), &cpu).unwrap();
            let restored = api::decompress(&packed, &cpu).unwrap();
            assert!(restored == data, "chunk {chunk}, len {}", data.len());
            let mut written = Vec::new();
            let n = api::compress_to(&mut written, &data, &opts(chunk), &cpu).unwrap();
            assert_eq!(n as usize, written.len());
            assert_eq!(written, packed, "compress_to writes what compress returns");
        }
    }
}

#[test]
fn runs_compress_and_noise_grows_by_a_small_bound() {
    let cpu = Device::cpu();
    let zeros = vec![0u8; 8 << 20];
    let packed = api::compress(&zeros, &CompressOptions::default(), &cpu).unwrap();
    assert!(packed.len() * 100 < zeros.len(), "{} bytes", packed.len());

    let noise = random(8 << 20, 5);
    let packed = api::compress(&noise, &CompressOptions::default(), &cpu).unwrap();
    // The rle format bounds the growth at 1/128 plus a segment table and the container.
    assert!(
        packed.len() < noise.len() + noise.len() / 100 + 4096,
        "{} bytes",
        packed.len()
    );
    assert_eq!(api::decompress(&packed, &cpu).unwrap(), noise);
}

#[test]
fn invalid_chunk_sizes_and_levels_are_rejected() {
    let cpu = Device::cpu();
    for bad in [0u32, 1, 4095, 4097, 100_000, (64 << 20) + 4096, u32::MAX] {
        match api::compress(b"abc", &opts(bad), &cpu) {
            Err(Error::InvalidArgument(msg)) => assert!(msg.contains("4096"), "{msg}"),
            other => panic!("chunk size {bad}: {other:?}"),
        }
    }
    assert!(api::compress(b"abc", &opts(64 << 20), &cpu).is_ok());
    let leveled = CompressOptions {
        level: Some(3),
        ..CompressOptions::default()
    };
    assert!(matches!(
        api::compress(b"abc", &leveled, &cpu),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn inspect_summarises_a_container() {
    let data = sample(2_500_000, 3);
    let packed = api::compress(&data, &opts(1 << 20), &Device::cpu()).unwrap();
    let r = api::inspect(&packed).unwrap();
    assert_eq!(r.header.codec, CodecId::Rle);
    assert_eq!(r.header.total_len, data.len() as u64);
    assert_eq!(r.header.chunk_size, 1 << 20);
    assert_eq!(r.chunk_count(), 3);
    assert_eq!(r.container_len, packed.len() as u64);
    assert!(r.payload_len < r.container_len);
    assert!((r.ratio - data.len() as f64 / packed.len() as f64).abs() < 1e-9);
    assert_eq!(r.verification, Verification::Ok);
}

#[test]
fn damaged_chunks_are_named() {
    let cpu = Device::cpu();
    let data = sample(3 << 20, 4);
    let mut packed = api::compress(&data, &opts(1 << 20), &cpu).unwrap();
    let last = packed.len() - 1;
    packed[last] ^= 1;
    match api::decompress(&packed, &cpu) {
        Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, 2),
        other => panic!("{other:?}"),
    }
    match api::inspect(&packed).unwrap().verification {
        Verification::Failed { chunk, .. } => assert_eq!(chunk, Some(2)),
        Verification::Ok => panic!("a flipped payload bit went unnoticed"),
    }
}

#[test]
fn truncated_containers_are_errors_not_panics() {
    let cpu = Device::cpu();
    let packed = api::compress(&sample(300_000, 8), &opts(64 << 10), &cpu).unwrap();
    for cut in 0..packed.len().min(200) {
        assert!(api::decompress(&packed[..cut], &cpu).is_err(), "cut {cut}");
    }
    for cut in (200..packed.len()).step_by(997) {
        assert!(api::decompress(&packed[..cut], &cpu).is_err(), "cut {cut}");
    }
}

#[test]
fn decompress_into_checks_the_output_length() {
    let cpu = Device::cpu();
    let packed = api::compress(&sample(10_000, 1), &opts(4096), &cpu).unwrap();
    let container = warpzip::format::Container::parse(&packed).unwrap();
    let mut short = vec![0u8; 9_999];
    assert!(matches!(
        api::decompress_container_into(&container, &mut short, &cpu),
        Err(Error::InvalidArgument(_))
    ));
}

fn gpu_or_skip() -> Option<Device> {
    match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(e) if std::env::var_os("WARPZIP_REQUIRE_GPU").is_none() => {
            eprintln!("skipping: {e}");
            None
        }
        Err(e) => panic!("WARPZIP_REQUIRE_GPU is set but no GPU is usable: {e}"),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_decodes_cpu_containers() {
    let Some(gpu) = gpu_or_skip() else { return };
    let cpu = Device::cpu();
    for chunk in [4096u32, 64 << 10, 1 << 20] {
        for data in inputs(chunk as usize) {
            let on_cpu = api::compress(&data, &opts(chunk), &cpu).unwrap();
            let restored = api::decompress(&on_cpu, &gpu).unwrap();
            assert!(restored == data, "chunk {chunk}, len {}", data.len());
        }
    }
    // A damaged chunk is reported by index on the GPU path too.
    let data = sample(40 << 20, 11);
    let mut damaged = api::compress(&data, &CompressOptions::default(), &cpu).unwrap();
    let last = damaged.len() - 1;
    damaged[last] ^= 0x80;
    assert!(matches!(
        api::decompress(&damaged, &gpu),
        Err(Error::Corrupt { chunk: 39, .. })
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_encodes_the_cpu_bytes_and_round_trips() {
    let Some(gpu) = gpu_or_skip() else { return };
    let cpu = Device::cpu();
    for chunk in [4096u32, 64 << 10, 1 << 20] {
        for data in inputs(chunk as usize) {
            let on_cpu = api::compress(&data, &opts(chunk), &cpu).unwrap();
            let on_gpu = api::compress(&data, &opts(chunk), &gpu).unwrap();
            assert!(on_gpu == on_cpu, "chunk {chunk}, len {}", data.len());
            assert!(api::decompress(&on_gpu, &gpu).unwrap() == data);
        }
    }
    // One large input with many chunks.
    let data = sample(40 << 20, 11);
    let on_cpu = api::compress(&data, &CompressOptions::default(), &cpu).unwrap();
    let on_gpu = api::compress(&data, &CompressOptions::default(), &gpu).unwrap();
    assert!(on_gpu == on_cpu);
    assert!(api::decompress(&on_gpu, &gpu).unwrap() == data);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_downloads_into_host_memory_in_staged_pieces() {
    let Some(Device::Gpu(gpu)) = gpu_or_skip() else {
        return;
    };
    // Small copies go straight to the host; large ones through two staging buffers of 16 MiB
    // (a last piece of every length, and a prefix of the device buffer).
    for len in [1usize, 4097, (32 << 20) + 1, (50 << 20) + 12_345, 96 << 20] {
        let data = random(len, len as u64 + 1);
        let dev = gpu.upload(&data).unwrap();
        let mut back = vec![0u8; len];
        gpu.download_into(&dev, &mut back).unwrap();
        assert!(back == data, "len {len}");
        let mut prefix = vec![0u8; len - len / 3];
        gpu.download_into(&dev, &mut prefix).unwrap();
        assert!(prefix[..] == data[..len - len / 3], "prefix of len {len}");
        gpu.download_into(&dev, &mut []).unwrap();
    }
    // More than the device buffer holds is an error, not a panic.
    let dev = gpu.upload(&[1u8; 100]).unwrap();
    assert!(gpu.download_into(&dev, &mut [0u8; 101]).is_err());
    let big = gpu.upload(&random(40 << 20, 5)).unwrap();
    assert!(gpu
        .download_into(&big, &mut vec![0u8; (40 << 20) + 1])
        .is_err());
}
