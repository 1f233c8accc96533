//! The GPU decoder of the tile codecs (`for`, `dfor`, `rfor`, `tile`) against the CPU decoder:
//! identical values, the device output poisoned before every decode, on every type, every bit
//! width, ragged lengths and many chunks; identical verdicts (chunk, tile, reason) on damaged
//! chunks. GPU tests fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::gpu;

use rand::{Rng, SeedableRng};
use warpzip::codec::tile::format::{Kind, Plan, Scheme};
use warpzip::codec::tile::{chunked, cpu, gpu as tile_gpu};
use warpzip::format::ElemType;
use warpzip::gpu::GpuContext;
use warpzip::{CodecId, CompressOptions, Device};

const TYPES: [ElemType; 4] = [ElemType::I32, ElemType::U32, ElemType::I64, ElemType::U64];
const PLANS: [Plan; 4] = [
    Plan::Fixed(Scheme::For),
    Plan::Fixed(Scheme::Dfor),
    Plan::Fixed(Scheme::Rfor),
    Plan::Smallest,
];

fn bytes_of(values: &[u64], elem: ElemType) -> Vec<u8> {
    match elem.size() {
        4 => values
            .iter()
            .flat_map(|&v| (v as u32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    }
}

/// Decodes `data`'s encoding on both, the GPU output poisoned with two different bytes.
fn same_on_both(gpu: &GpuContext, data: &[u8], elem: ElemType, chunk_size: usize, what: &str) {
    let kind = Kind::of(elem).unwrap();
    for plan in PLANS {
        let (payload, spans) = chunked::compress(data, kind, plan, chunk_size).unwrap();
        let chunks: Vec<(&[u8], usize)> = spans
            .iter()
            .map(|s| {
                (
                    &payload[s.offset..s.offset + s.compressed_len as usize],
                    s.uncompressed_len as usize,
                )
            })
            .collect();
        for poison in [0x00u8, 0xa5] {
            let mut out = vec![0x5au8; data.len()];
            tile_gpu::decompress_poisoned(gpu, &chunks, kind, plan, &mut out, Some(poison))
                .unwrap_or_else(|e| panic!("{what}: {elem} {plan:?}: {e}"));
            assert!(
                out == data,
                "{what}: {elem} {plan:?} poison {poison:#x}: GPU differs"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_on_every_width() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(51);
    for elem in TYPES {
        let bits = elem.size() as u32 * 8;
        for w in 0..=bits {
            let span = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let base: u64 = rng.gen();
            let values: Vec<u64> = (0..2100)
                .map(|i| match (i / 300) % 3 {
                    0 => base.wrapping_add(rng.gen::<u64>() & span),
                    1 => base.wrapping_add((i as u64).wrapping_mul(span / 4096 + 1)),
                    _ => base.wrapping_add((i as u64 / 40).wrapping_mul(span / 64)),
                })
                .collect();
            same_on_both(
                &gpu,
                &bytes_of(&values, elem),
                elem,
                1 << 20,
                &format!("width {w}"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_matches_cpu_on_ragged_lengths_and_many_chunks() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for n in [0usize, 1, 31, 127, 128, 129, 511, 512, 513, 4097, 300_000] {
        let values: Vec<u64> = (0..n)
            .map(|i| match (i / 900) % 4 {
                0 => rng.gen_range(0..5000),
                1 => i as u64 * 11,
                2 => (i / 29) as u64,
                _ => rng.gen(),
            })
            .collect();
        for elem in TYPES {
            let data = bytes_of(&values, elem);
            same_on_both(&gpu, &data, elem, 1 << 20, &format!("{n} values"));
            same_on_both(
                &gpu,
                &data,
                elem,
                100 * elem.size() as usize,
                &format!("{n} values, small chunks"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_and_cpu_give_the_same_verdicts_on_damaged_chunks() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(17);
    for elem in [ElemType::I32, ElemType::U64] {
        let kind = Kind::of(elem).unwrap();
        let values: Vec<u64> = (0..1500u64)
            .map(|i| {
                if i < 700 {
                    i / 60
                } else {
                    rng.gen_range(0..1 << 20)
                }
            })
            .collect();
        let data = bytes_of(&values, elem);
        for plan in PLANS {
            let good = cpu::encode_chunk(&data, kind, plan);
            for trial in 0..300 {
                let mut bad = good.clone();
                if trial % 10 == 0 {
                    bad.truncate(rng.gen_range(0..bad.len()));
                } else {
                    let bit = rng.gen_range(0..bad.len() * 8);
                    bad[bit / 8] ^= 1 << (bit % 8);
                }
                let chunks = [(&bad[..], data.len())];
                let mut cpu_out = vec![0u8; data.len()];
                let cpu_verdict = chunked::decompress_into(&chunks, kind, plan, &mut cpu_out);
                let mut gpu_out = vec![0u8; data.len()];
                let gpu_verdict = tile_gpu::decompress_poisoned(
                    &gpu,
                    &chunks,
                    kind,
                    plan,
                    &mut gpu_out,
                    Some(0xee),
                );
                match (&cpu_verdict, &gpu_verdict) {
                    (Ok(()), Ok(())) => {
                        assert!(cpu_out == gpu_out, "{elem} {plan:?} trial {trial}")
                    }
                    (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "trial {trial}"),
                    _ => panic!(
                        "{elem} {plan:?} trial {trial}: CPU {cpu_verdict:?}, GPU {gpu_verdict:?}"
                    ),
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_api_decodes_on_the_gpu() {
    let gpu = gpu();
    let values: Vec<u64> = (0..100_000u64)
        .map(|i| (i * 37) % 1000 + i / 1000)
        .collect();
    for elem in TYPES {
        let data = bytes_of(&values, elem);
        for codec in [CodecId::For, CodecId::Dfor, CodecId::Rfor, CodecId::Tile] {
            let mut o = CompressOptions::for_codec(codec);
            o.elem_type = Some(elem);
            let packed = warpzip::compress(&data, &o, &Device::Cpu).unwrap();
            let back = warpzip::decompress(&packed, &Device::Gpu(gpu.clone())).unwrap();
            assert!(back == data, "{codec} {elem}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_encoder_writes_the_cpu_encoders_bytes() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(23);
    for n in [0usize, 1, 2, 33, 128, 129, 511, 512, 513, 5000, 70_000] {
        for elem in TYPES {
            let bits = elem.size() as u32 * 8;
            let w = rng.gen_range(0..=bits);
            let span = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let values: Vec<u64> = (0..n)
                .map(|i| match (i / 700) % 5 {
                    0 => rng.gen::<u64>() & span,
                    1 => (i as u64).wrapping_mul(3),
                    2 => (i / 9) as u64,
                    3 => 0u64.wrapping_sub(i as u64 * 5),
                    _ => rng.gen(),
                })
                .collect();
            let data = bytes_of(&values, elem);
            let kind = Kind::of(elem).unwrap();
            for plan in PLANS {
                for chunk_size in [1usize << 20, 700 * elem.size() as usize] {
                    let cpu = chunked::compress(&data, kind, plan, chunk_size).unwrap();
                    let gpu_out = tile_gpu::compress(&gpu, &data, kind, plan, chunk_size)
                        .unwrap_or_else(|e| panic!("{n} {elem} {plan:?}: {e}"));
                    assert_eq!(cpu.1, gpu_out.1, "{n} {elem} {plan:?} {chunk_size}: spans");
                    assert!(
                        cpu.0 == gpu_out.0,
                        "{n} {elem} {plan:?} {chunk_size}: payload differs"
                    );
                }
            }
        }
    }
}
