//! Scan benchmark: 2^28 u32 and 2^27 u64, exclusive, against the same run's copy bandwidth.

use super::{gbps, inputs, BenchOptions, BenchRow, Ceilings};
use warpzip::error::{Error, Result};
use warpzip::gpu::{median, GpuContext};
use warpzip::ops::scan::{exclusive_scan_cpu, GpuScan, ScanElem};

fn one<T: ScanElem + PartialEq>(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    input: Vec<T>,
    label: &str,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let n = input.len();
    let d_in = gpu.upload(&input)?;
    let mut d_out = gpu.alloc::<T>(n)?;
    let mut scan = GpuScan::<T>::new(gpu, n as u64)?;
    let times = gpu.time_ms(3, opts.runs(), || {
        scan.run(gpu, &d_in, &mut d_out, n as u64)
    })?;
    let ms = median(&times);
    let got = gpu.download(&d_out)?;
    let mut expected = vec![T::default(); n];
    exclusive_scan_cpu(&input, &mut expected)?;
    if got[..n] != expected[..] {
        return Err(Error::Driver(format!(
            "{label}: GPU scan differs from the CPU twin"
        )));
    }
    let bytes = (n * std::mem::size_of::<T>()) as f64;
    rows.push(BenchRow {
        what: format!("scan {label}"),
        input: format!("2^{} random", n.trailing_zeros()),
        device: gpu.name().into(),
        bytes: bytes as u64,
        ratio: None,
        ms,
        gbps: gbps(bytes, ms),
        roofline: Some(gbps(2.0 * bytes, ms) / ceilings.d2d_gbps),
        note: "verified against CPU".into(),
    });
    Ok(())
}

pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    one::<u32>(
        gpu,
        opts,
        ceilings,
        inputs::u32_values(1 << 28, 1 << 20),
        "u32",
        rows,
    )?;
    let v64: Vec<u64> = inputs::u32_values(1 << 27, u32::MAX)
        .into_iter()
        .map(|x| (x as u64) << 7)
        .collect();
    one::<u64>(gpu, opts, ceilings, v64, "u64", rows)
}

/// Times scan.cu kernels (entry point, threads, vectors per thread) on one input, each checked
/// against the CPU twin.
fn sweep_rows<T: ScanElem + PartialEq>(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    input: &[T],
    kernels: &[(&str, u32, u32)],
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let n = input.len();
    let size = std::mem::size_of::<T>();
    let mut expected = vec![T::default(); n];
    exclusive_scan_cpu(input, &mut expected)?;
    let d_in = gpu.upload(input)?;
    let mut d_out = gpu.alloc::<T>(n)?;
    let mut scan = GpuScan::<T>::new(gpu, n as u64)?;
    for &(name, threads, vecs) in kernels {
        let tile = (threads * vecs) as u64 * (16 / size) as u64;
        let times = gpu.time_ms(3, opts.runs(), || {
            scan.run_kernel(gpu, name, threads, tile, &d_in, &mut d_out, n as u64)
        })?;
        let ms = median(&times);
        let ok = gpu.download(&d_out)?[..n] == expected[..];
        let bytes = std::mem::size_of_val(input) as f64;
        rows.push(BenchRow {
            what: format!("scan {name} ({threads}x{vecs})"),
            input: format!("2^{} random", n.trailing_zeros()),
            device: gpu.name().into(),
            bytes: bytes as u64,
            ratio: None,
            ms,
            gbps: gbps(bytes, ms),
            roofline: Some(gbps(2.0 * bytes, ms) / ceilings.d2d_gbps),
            note: if ok {
                "verified".into()
            } else {
                "MISMATCH".into()
            },
        });
    }
    Ok(())
}

/// Times the scan.cu tuning variants against the defaults (`--codec scan-sweep`): suffix `_p`
/// packs flag and value in one status word, `_o` takes tiles in block order, `_s` keeps the tile
/// warp-striped in registers (no shared-memory staging, block order); the defaults also prefetch
/// the next wave's tile to L2.
pub(super) fn sweep_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let v32 = inputs::u32_values(1 << 28, 1 << 20);
    let u32_kernels = [
        ("scan_variant_u32_t256_v4", 256, 4),
        ("scan_variant_u32_t256_v8", 256, 8),
        ("scan_variant_u32_t256_v8_p", 256, 8),
        ("scan_variant_u32_t256_v8_po", 256, 8),
        ("scan_variant_u32_t128_v8_po", 128, 8),
        ("scan_variant_u32_t512_v4_po", 512, 4),
        ("scan_variant_u32_t256_v8_ps", 256, 8),
        ("scan_variant_u32_t256_v16_ps", 256, 16),
        ("scan_variant_u32_t128_v32_ps", 128, 32),
        ("scan_variant_u32_t256_v24_ps", 256, 24),
        ("scan_variant_u32_t512_v16_ps", 512, 16),
        ("scan_variant_u32_t64_v32_ps", 64, 32),
        ("scan_variant_u32_t192_v32_ps", 192, 32),
        ("scan_variant_u32_t128_v16_po", 128, 16),
        ("scan_exclusive_u32", 256, 32),
        ("scan_variant_u32_t256_v32_ps", 256, 32),
    ];
    sweep_rows::<u32>(gpu, opts, ceilings, &v32, &u32_kernels, rows)?;
    drop(v32);
    let v64: Vec<u64> = inputs::u32_values(1 << 27, u32::MAX)
        .into_iter()
        .map(|x| (x as u64) << 7)
        .collect();
    let u64_kernels = [
        ("scan_variant_u64_t256_v4", 256, 4),
        ("scan_variant_u64_t256_v4_o", 256, 4),
        ("scan_variant_u64_t128_v8_o", 128, 8),
        ("scan_variant_u64_t256_v16_s", 256, 16),
        ("scan_variant_u64_t128_v32_s", 128, 32),
        ("scan_variant_u64_t256_v8_o", 256, 8),
        ("scan_variant_u64_t256_v32_s", 256, 32),
        ("scan_exclusive_u64", 256, 32),
    ];
    sweep_rows::<u64>(gpu, opts, ceilings, &v64, &u64_kernels, rows)
}
