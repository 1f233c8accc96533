//! The GPU scan against its CPU twin. GPU tests run only with `--include-ignored` on a machine
//! with a GPU, where a missing GPU fails them (never skips).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::gpu;

use rand::{Rng, SeedableRng};
use warpzip::gpu::GpuContext;
use warpzip::ops::scan::{exclusive_scan_cpu, GpuScan, ScanElem};

fn check<T: ScanElem + PartialEq + std::fmt::Debug>(gpu: &GpuContext, input: &[T], poison: T) {
    let n = input.len();
    let mut expected = vec![T::default(); n];
    let total = exclusive_scan_cpu(input, &mut expected).unwrap();
    let d_in = gpu.upload(input).unwrap();
    let mut d_out = gpu.upload(&vec![poison; n.max(1)]).unwrap();
    let mut scan = GpuScan::<T>::new(gpu, n as u64).unwrap();
    scan.run(gpu, &d_in, &mut d_out, n as u64).unwrap();
    let got = gpu.download(&d_out).unwrap();
    let first_bad = (0..n).find(|&i| got[i] != expected[i]);
    assert!(
        first_bad.is_none(),
        "n={n}: first mismatch at {first_bad:?}"
    );
    assert_eq!(scan.total(gpu).unwrap(), total, "n={n}: total");
}

fn sizes(tile: usize) -> Vec<usize> {
    vec![
        0,
        1,
        2,
        31,
        32,
        33,
        1000,
        tile - 1,
        tile,
        tile + 1,
        2 * tile + 3,
        17 * tile - 5,
        1_000_003,
        10 * 1024 * 1024 + 7,
    ]
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_u32_matches_cpu() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for n in sizes(u32::tile() as usize) {
        let input: Vec<u32> = (0..n).map(|_| rng.gen_range(0..1000)).collect();
        check(&gpu, &input, 0xdead_beef);
        // Wrapping sums.
        let input: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
        check(&gpu, &input, 0xdead_beef);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_u64_matches_cpu() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for n in sizes(u64::tile() as usize) {
        let input: Vec<u64> = (0..n).map(|_| rng.gen_range(0..1u64 << 40)).collect();
        check(&gpu, &input, 0xdead_beef_dead_beef);
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_unaligned_view_falls_back() {
    // Scanning starting one element into an allocation: the kernel must not use 16-byte loads.
    let gpu = gpu();
    let input: Vec<u32> = (0..100_001u32).map(|i| i % 7).collect();
    let d_in = gpu.upload(&input).unwrap();
    let shifted: Vec<u32> = input[1..].to_vec();
    let mut expected = vec![0u32; shifted.len()];
    exclusive_scan_cpu(&shifted, &mut expected).unwrap();
    let d_view_src = gpu.upload(&shifted).unwrap();
    let mut d_out = gpu.upload(&vec![1u32; shifted.len()]).unwrap();
    let mut scan = GpuScan::<u32>::new(&gpu, shifted.len() as u64).unwrap();
    scan.run(&gpu, &d_view_src, &mut d_out, shifted.len() as u64)
        .unwrap();
    assert_eq!(gpu.download(&d_out).unwrap(), expected);
    drop(d_in);
}

fn check_kernel<T: ScanElem + PartialEq + std::fmt::Debug>(
    gpu: &GpuContext,
    input: &[T],
    kernel: &str,
    threads: u32,
    tile: u64,
    poison: T,
) {
    let n = input.len();
    let mut expected = vec![T::default(); n];
    let total = exclusive_scan_cpu(input, &mut expected).unwrap();
    let d_in = gpu.upload(input).unwrap();
    let mut d_out = gpu.upload(&vec![poison; n.max(1)]).unwrap();
    let mut scan = GpuScan::<T>::new(gpu, n as u64).unwrap();
    // Twice: the second run reuses the scratch state of the first.
    for _ in 0..2 {
        scan.run_kernel(gpu, kernel, threads, tile, &d_in, &mut d_out, n as u64)
            .unwrap();
        let got = gpu.download(&d_out).unwrap();
        let first_bad = (0..n).find(|&i| got[i] != expected[i]);
        assert!(
            first_bad.is_none(),
            "{kernel} n={n}: first mismatch at {first_bad:?}"
        );
        assert_eq!(scan.total(gpu).unwrap(), total, "{kernel} n={n}: total");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_scan_variants_match_cpu() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let u32_kernels: [(&str, u32, u64); 7] = [
        ("scan_variant_u32_t256_v4", 256, 256 * 16),
        ("scan_variant_u32_t128_v16_po", 128, 128 * 64),
        ("scan_variant_u32_t512_v16_ps", 512, 512 * 64),
        ("scan_variant_u32_t256_v8", 256, 256 * 32),
        ("scan_variant_u32_t256_v8_p", 256, 256 * 32),
        ("scan_variant_u32_t128_v8_po", 128, 128 * 32),
        ("scan_variant_u32_t512_v4_po", 512, 512 * 16),
    ];
    for (kernel, threads, tile) in u32_kernels {
        for n in sizes(tile as usize).into_iter().chain([(1usize << 26) + 5]) {
            let input: Vec<u32> = (0..n).map(|_| rng.gen()).collect();
            check_kernel(&gpu, &input, kernel, threads, tile, 0xdead_beef);
        }
    }
    let u64_kernels: [(&str, u32, u64); 4] = [
        ("scan_variant_u64_t128_v8_o", 128, 128 * 16),
        ("scan_variant_u64_t256_v8_o", 256, 256 * 16),
        ("scan_variant_u64_t256_v4_o", 256, 256 * 8),
        ("scan_variant_u64_t256_v4", 256, 256 * 8),
    ];
    for (kernel, threads, tile) in u64_kernels {
        for n in sizes(tile as usize) {
            let input: Vec<u64> = (0..n).map(|_| rng.gen()).collect();
            check_kernel(&gpu, &input, kernel, threads, tile, 0xdead_beef_dead_beef);
        }
    }
}
