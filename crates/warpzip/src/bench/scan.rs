//! Scan benchmark: 2^28 u32 and 2^27 u64, exclusive, against the same run's copy bandwidth.

use super::{gbps, inputs, BenchOptions, BenchRow, Ceilings};
use crate::error::{Error, Result};
use crate::gpu::{median, GpuContext};
use crate::ops::scan::{exclusive_scan_cpu, GpuScan, ScanElem};

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

/// Times the scan.cu tuning variants on 2^28 u32 (`--codec scan-sweep`).
pub(super) fn sweep_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let input = inputs::u32_values(1 << 28, 1 << 20);
    let n = input.len();
    let mut expected = vec![0u32; n];
    exclusive_scan_cpu(&input, &mut expected)?;
    let d_in = gpu.upload(&input)?;
    let mut d_out = gpu.alloc::<u32>(n)?;
    let mut scan = GpuScan::<u32>::new(gpu, n as u64)?;
    let variants: [(u32, u32, &str); 7] = [
        (256, 4, ""),
        (256, 8, ""),
        (256, 8, "_p"),
        (256, 8, "_po"),
        (128, 8, "_po"),
        (512, 4, "_po"),
        (128, 16, "default"),
    ];
    for (threads, vecs, suffix) in variants {
        let name = if suffix == "default" {
            "scan_exclusive_u32".to_string()
        } else {
            format!("scan_variant_u32_t{threads}_v{vecs}{suffix}")
        };
        let tile = (threads * vecs * 4) as u64;
        let times = gpu.time_ms(3, opts.runs(), || {
            scan.run_kernel(gpu, &name, threads, tile, &d_in, &mut d_out, n as u64)
        })?;
        let ms = median(&times);
        let ok = gpu.download(&d_out)?[..n] == expected[..];
        let bytes = (n * 4) as f64;
        rows.push(BenchRow {
            what: format!("scan u32 t{threads} v{vecs}{suffix}"),
            input: "2^28 random".into(),
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
    let input: Vec<u64> = inputs::u32_values(1 << 27, u32::MAX)
        .into_iter()
        .map(|x| (x as u64) << 7)
        .collect();
    let n = input.len();
    let mut expected = vec![0u64; n];
    exclusive_scan_cpu(&input, &mut expected)?;
    let d_in = gpu.upload(&input)?;
    let mut d_out = gpu.alloc::<u64>(n)?;
    let mut scan = GpuScan::<u64>::new(gpu, n as u64)?;
    for (threads, vecs, name) in [
        (256u32, 8u32, "scan_exclusive_u64"),
        (256, 4, "scan_variant_u64_t256_v4"),
        (128, 8, "scan_variant_u64_t128_v8_o"),
        (256, 4, "scan_variant_u64_t256_v4_o"),
    ] {
        let tile = (threads * vecs * 2) as u64;
        let times = gpu.time_ms(3, opts.runs(), || {
            scan.run_kernel(gpu, name, threads, tile, &d_in, &mut d_out, n as u64)
        })?;
        let ms = median(&times);
        let ok = gpu.download(&d_out)?[..n] == expected[..];
        let bytes = (n * 8) as f64;
        rows.push(BenchRow {
            what: format!("scan u64 {name}"),
            input: "2^27 random".into(),
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
