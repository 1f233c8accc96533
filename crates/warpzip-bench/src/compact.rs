//! select (compressstore) benchmark: device-resident u32 over 2^28 and u64 over 2^27 elements
//! (1 GiB of values by default) with random masks of 1%, 50% and 99%, Zipf runs, bursts, byte
//! flags and patterns, for each GPU strategy; every GPU result is checked against the CPU. The
//! roofline counts the bytes that must move: the mask, the 32-byte sectors of values that hold a
//! kept element, and the output. On the CPU: the scalar reference against each SIMD level.

use super::{gbps, inputs, wall_ms, BenchOptions, BenchRow, Ceilings};
use warpzip::error::{Error, Result};
use warpzip::gpu::{median, GpuContext, LaunchConfig, PushKernelArg};
use warpzip::ops::compact::gpu::{
    staged_pattern_smem, DevicePattern, GpuCompactor, PatternKernel, Strategy,
};
use warpzip::ops::compact::{
    cpu, cpu_simd, masks, values_from_le_bytes, CompactElem, Mask, Pattern, Width,
};

/// Nonzero values from noise, so that an unwritten (zeroed) output element cannot pass.
fn values<T: CompactElem>(n: usize) -> Result<Vec<T>> {
    let size = std::mem::size_of::<T>();
    let mut bytes = inputs::noise(n * size);
    for chunk in bytes.chunks_exact_mut(size) {
        chunk[0] |= 1;
    }
    values_from_le_bytes(&bytes)
}

/// Bits of the random-density, Zipf and burst masks used on both devices.
fn mask_cases(n: usize) -> Vec<(String, f64, Vec<u8>)> {
    let mut v = Vec::new();
    for d in [0.01, 0.5, 0.99] {
        v.push((
            format!("random {}%", d * 100.0),
            d,
            masks::random(n, d, 0x005e_1ec7 ^ (d * 1000.0) as u64),
        ));
    }
    v.push((
        "zipf runs (s=1.2, <=64Ki)".to_string(),
        -1.0,
        masks::zipf_runs(n, 1.2, 1 << 16, 11),
    ));
    v.push((
        "bursts (gap<256Ki, burst<16Ki at 90%)".to_string(),
        -1.0,
        masks::bursts(n, 1 << 18, 1 << 14, 0.9, 12),
    ));
    v
}

fn patterns() -> Result<Vec<Pattern>> {
    [
        "1,0,0,1",
        "1,0,0,0,0,0,0,0",
        "0,1,1,0,1,1,1,0,0,1,0,1,1,1,1,0",
    ]
    .iter()
    .map(|p| p.parse())
    .collect()
}

/// Bytes of the `block`-byte blocks (32: an L2 sector; 64: what the probe shows DRAM moves) of
/// values holding at least one kept element.
fn touched_block_bytes<T>(mask: &[u8], n: usize, block: usize) -> u64 {
    let per_block = block / std::mem::size_of::<T>(); // elements: 4 (u64, 32 B) ... 64 (u8, 64 B)
    let mask = &mask[..n.div_ceil(8)];
    let blocks = if per_block >= 8 {
        mask.chunks(per_block / 8)
            .filter(|group| group.iter().any(|&b| b != 0))
            .count() as u64
    } else {
        mask.iter()
            .map(|&b| u64::from(b & 0x0f != 0) + u64::from(b & 0xf0 != 0))
            .sum()
    };
    blocks * block as u64
}

struct Measured {
    ms: f64,
    count: usize,
}

/// Times `queue` (CUDA events, median), then zeroes the output, runs once more and checks the
/// result against `expected` element for element.
fn time_and_verify<T: CompactElem>(
    gpu: &GpuContext,
    opts: &BenchOptions,
    comp: &mut GpuCompactor<T>,
    d_out: &mut warpzip::gpu::CudaSlice<T>,
    expected: &[T],
    label: &str,
    mut queue: impl FnMut(&mut GpuCompactor<T>, &mut warpzip::gpu::CudaSlice<T>) -> Result<()>,
) -> Result<Measured> {
    let times = gpu.time_ms(3, opts.runs(), || queue(comp, d_out))?;
    let ms = median(&times);
    gpu.stream().memset_zeros(d_out)?;
    queue(comp, d_out)?;
    let count = comp.count(gpu)? as usize;
    if count != expected.len() {
        return Err(Error::Driver(format!(
            "select bench {label}: GPU kept {count} elements, the CPU {}",
            expected.len()
        )));
    }
    if count > 0 {
        let view = d_out
            .try_slice(0..count)
            .ok_or_else(|| Error::Driver("output view out of range".into()))?;
        let got = gpu.download(&view)?;
        if let Some(at) = got.iter().zip(expected).position(|(a, b)| a != b) {
            return Err(Error::Driver(format!(
                "select bench {label}: GPU output differs from the CPU at element {at}"
            )));
        }
    }
    Ok(Measured { ms, count })
}

#[allow(clippy::too_many_arguments)]
fn push_gpu_row<T: CompactElem>(
    rows: &mut Vec<BenchRow>,
    gpu: &GpuContext,
    ceilings: &Ceilings,
    what: String,
    input: String,
    n: usize,
    m: &Measured,
    mask_bytes: u64,
    read: (u64, u64),
) {
    let size = std::mem::size_of::<T>() as u64;
    let written = m.count as u64 * size;
    let moved = (mask_bytes + read.0 + written) as f64;
    let moved64 = (mask_bytes + read.1 + written) as f64;
    let block_note = if read.1 == read.0 {
        String::new()
    } else {
        format!(
            "; {:.1}% of a roofline counting touched 64-byte blocks",
            100.0 * gbps(moved64, m.ms) / ceilings.d2d_gbps
        )
    };
    rows.push(BenchRow {
        what,
        input,
        device: gpu.name().into(),
        bytes: n as u64 * size,
        ratio: None,
        ms: m.ms,
        gbps: gbps((n as u64 * size) as f64, m.ms),
        roofline: Some(gbps(moved, m.ms) / ceilings.d2d_gbps),
        note: format!(
            "{:.1} Gelem/s; kept {:.2}%; moved {:.0} MiB (mask + touched sectors + out){block_note}; \
             verified",
            n as f64 / (m.ms * 1e6),
            100.0 * m.count as f64 / n.max(1) as f64,
            moved / (1u64 << 20) as f64
        ),
    });
}

fn bench_gpu_type<T: CompactElem>(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    n: usize,
    strategies: &[Strategy],
    flag_rows: bool,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let host = values::<T>(n)?;
    let d_values = gpu.upload(&host)?;
    let mut d_out = gpu.alloc::<T>(n)?;
    let mut comp = GpuCompactor::<T>::new(gpu, n as u64)?;
    let nn = n as u64;
    for (name, density, mask) in mask_cases(n) {
        let expected = cpu_simd::select(&host, Mask::Bits(&mask))?;
        let read = (
            touched_block_bytes::<T>(&mask, n, 32),
            touched_block_bytes::<T>(&mask, n, 64),
        );
        let d_mask = gpu.upload(&mask)?;
        for &s in strategies {
            let label = format!("{} {} {name}", T::NAME, s.name());
            let m = time_and_verify(
                gpu,
                opts,
                &mut comp,
                &mut d_out,
                &expected,
                &label,
                |c, o| c.queue_bits(gpu, &d_values, nn, &d_mask, o, s),
            )?;
            push_gpu_row::<T>(
                rows,
                gpu,
                ceilings,
                format!("select {} {}", T::NAME, s.name()),
                format!("{name}, packed bits"),
                n,
                &m,
                mask.len() as u64,
                read,
            );
        }
        drop(d_mask);
        if flag_rows && density > 0.0 {
            let flags = masks::bits_to_flags(&mask, n);
            let d_flags = gpu.upload(&flags)?;
            let label = format!("{} flags {name}", T::NAME);
            let m = time_and_verify(
                gpu,
                opts,
                &mut comp,
                &mut d_out,
                &expected,
                &label,
                |c, o| c.queue_flags(gpu, &d_values, nn, &d_flags, o, Strategy::Auto),
            )?;
            push_gpu_row::<T>(
                rows,
                gpu,
                ceilings,
                format!("select {} auto", T::NAME),
                format!("{name}, byte flags"),
                n,
                &m,
                n as u64,
                read,
            );
        }
    }
    for p in patterns()? {
        let expected = cpu_simd::select(&host, Mask::Pattern(&p))?;
        let bits = masks::from_pattern(p.flags(), n);
        let read = (
            touched_block_bytes::<T>(&bits, n, 32),
            touched_block_bytes::<T>(&bits, n, 64),
        );
        let dp = DevicePattern::new(gpu, &p)?;
        let flags: Vec<&str> = p
            .flags()
            .iter()
            .map(|&k| if k { "1" } else { "0" })
            .collect();
        let mut kernels = vec![PatternKernel::Gather];
        if staged_pattern_smem(std::mem::size_of::<T>(), &p).is_some() {
            kernels.push(PatternKernel::Staged);
        }
        for k in kernels {
            let name = match k {
                PatternKernel::Staged => "staged",
                _ => "gather",
            };
            let label = format!("{} pattern {} {name}", T::NAME, flags.join(","));
            let m = time_and_verify(
                gpu,
                opts,
                &mut comp,
                &mut d_out,
                &expected,
                &label,
                |c, o| c.queue_pattern_with(gpu, &d_values, nn, &dp, o, k),
            )?;
            push_gpu_row::<T>(
                rows,
                gpu,
                ceilings,
                format!("select {} pattern {name}", T::NAME),
                format!("pattern {}", flags.join(",")),
                n,
                &m,
                0,
                read,
            );
        }
    }
    Ok(())
}

/// Reading every 32-byte sector of a buffer against reading the first of every two: equal
/// times mean that the memory moves 64 bytes at least, so that a selection touching one sector
/// in two cannot beat a full read, whatever the sector-counting roofline says.
fn probe_sector_reads(
    gpu: &GpuContext,
    opts: &BenchOptions,
    bytes: usize,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let vecs = bytes / 16;
    let host: Vec<u32> = values::<u32>(vecs * 4)?;
    let d_in = gpu.upload(&host)?;
    let mut sink = gpu.alloc::<u32>(1)?;
    let func = gpu.function(
        &warpzip::gpu::kernels::COMPACT,
        warpzip::gpu::kernels::entry::COMPACT_PROBE_READ,
    )?;
    let groups = (vecs / 4) as u64;
    let blocks = gpu.sm_count().max(1) * 16;
    let mut full_ms = None;
    for (read_vecs, what) in [(4u32, "read every sector"), (2, "read 1 sector of 2")] {
        let times = gpu.time_ms(3, opts.runs(), || {
            let group_vecs = 4u32;
            let cfg = LaunchConfig {
                grid_dim: (blocks, 1, 1),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut launch = gpu.stream().launch_builder(&func);
            launch
                .arg(&d_in)
                .arg(&groups)
                .arg(&group_vecs)
                .arg(&read_vecs)
                .arg(&mut sink);
            // SAFETY: the arguments match `compact_probe_read`; the buffer holds groups * 4
            // vectors of 16 bytes and the kernel reads the first read_vecs <= 4 of each.
            unsafe { launch.launch(cfg) }?;
            Ok(())
        })?;
        let ms = median(&times);
        let asked = groups as f64 * f64::from(read_vecs) * 16.0;
        let note = match full_ms {
            None => "1 GiB of 16-byte loads, every 32-byte sector".to_string(),
            Some(full) => format!(
                "first 32 bytes of every 64: {:.2}x the time of reading everything",
                ms / full
            ),
        };
        full_ms.get_or_insert(ms);
        rows.push(BenchRow {
            what: format!("probe {what}"),
            input: format!("{} MiB", (groups * 64) >> 20),
            device: gpu.name().into(),
            bytes: asked as u64,
            ratio: None,
            ms,
            gbps: gbps(asked, ms),
            roofline: None,
            note,
        });
    }
    Ok(())
}

pub(super) fn bench_gpu(
    gpu: &GpuContext,
    opts: &BenchOptions,
    ceilings: &Ceilings,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let bytes = opts.size.unwrap_or(1 << 30);
    probe_sector_reads(gpu, opts, bytes, rows)?;
    bench_gpu_type::<u32>(gpu, opts, ceilings, bytes / 4, &Strategy::ALL, true, rows)?;
    bench_gpu_type::<u64>(
        gpu,
        opts,
        ceilings,
        bytes / 8,
        &[
            Strategy::SinglePass,
            Strategy::SinglePassWide,
            Strategy::ThreePass,
        ],
        false,
        rows,
    )
}

fn bench_cpu_type<T: CompactElem>(
    opts: &BenchOptions,
    n: usize,
    one: &rayon::ThreadPool,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    if n == 0 {
        return Ok(());
    }
    let runs = opts.runs().min(10);
    let host = values::<T>(n)?;
    let bytes = (n * std::mem::size_of::<T>()) as u64;
    let pattern: Pattern = "1,0,0,1".parse()?;
    let mut cases: Vec<(String, Vec<u8>, bool)> = mask_cases(n)
        .into_iter()
        .filter(|(_, d, _)| *d > 0.0)
        .map(|(name, _, m)| (name, m, false))
        .collect();
    if let Some((_, m, _)) = cases.get(1) {
        cases.push((
            "random 50%, byte flags".into(),
            masks::bits_to_flags(m, n),
            true,
        ));
    }
    cases.push(("pattern 1,0,0,1".into(), Vec::new(), false));
    // Levels whose kernel for this width differs from the next lower level's.
    let levels: Vec<cpu_simd::Level> = cpu_simd::Level::available_levels()
        .into_iter()
        .filter(|l| {
            !matches!(
                (T::WIDTH, l),
                (Width::W8 | Width::W16, cpu_simd::Level::Avx512)
                    | (Width::W32 | Width::W64, cpu_simd::Level::Avx512Vbmi2)
            )
        })
        .collect();
    for (name, data, is_flags) in &cases {
        let mask = if name.starts_with("pattern") {
            Mask::Pattern(&pattern)
        } else if *is_flags {
            Mask::Flags(data)
        } else {
            Mask::Bits(data)
        };
        let want = cpu::select(&host, mask)?;
        // Into a preallocated, already touched output: first-touch page faults of a fresh
        // output would otherwise dominate every path alike.
        let mut out = vec![T::default(); want.len()];
        let scalar_ms =
            one.install(|| wall_ms(runs, || cpu::select_into(&host, mask, &mut out).map(|_| ())))?;
        let mut row = |what: String, ms: f64, note: String| {
            rows.push(BenchRow {
                what,
                input: name.clone(),
                device: "cpu".into(),
                bytes,
                ratio: None,
                ms,
                gbps: gbps(bytes as f64, ms),
                roofline: None,
                note,
            });
        };
        row(
            format!("select {} scalar (1 core)", T::NAME),
            scalar_ms,
            format!("reference; {:.2} Gelem/s", n as f64 / (scalar_ms * 1e6)),
        );
        for &level in &levels {
            out.fill(T::default());
            cpu_simd::select_into_with(&host, mask, level, &mut out)?;
            if out != want {
                return Err(Error::InvalidArgument(format!(
                    "select bench: {} {} differs from the reference on {name}",
                    T::NAME,
                    level.name()
                )));
            }
            let ms = one.install(|| {
                wall_ms(runs, || {
                    cpu_simd::select_into_with(&host, mask, level, &mut out).map(|_| ())
                })
            })?;
            row(
                format!("select {} {} (1 core)", T::NAME, level.name()),
                ms,
                format!("{:.1}x scalar; verified", scalar_ms / ms),
            );
        }
        let best = cpu_simd::detect();
        let ms = wall_ms(runs, || {
            cpu_simd::select_into_with(&host, mask, best, &mut out).map(|_| ())
        })?;
        if out != want {
            return Err(Error::InvalidArgument(format!(
                "select bench: {} {} on all threads differs from the reference on {name}",
                T::NAME,
                best.name()
            )));
        }
        row(
            format!(
                "select {} {} ({} threads)",
                T::NAME,
                best.name(),
                rayon::current_num_threads()
            ),
            ms,
            format!("{:.1}x scalar; verified", scalar_ms / ms),
        );
    }
    Ok(())
}

/// The memory ceiling of the CPU paths: copying the same bytes between two touched buffers,
/// on one core and on every core (rayon over 1 MiB pieces). A select that keeps nearly
/// everything moves about as many bytes as this copy, so no path can beat it by much.
fn cpu_copy_ceiling(
    opts: &BenchOptions,
    bytes: usize,
    one: &rayon::ThreadPool,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    use rayon::prelude::*;
    let runs = opts.runs().min(10);
    let src = inputs::noise(bytes);
    let mut dst = vec![0u8; bytes];
    let one_ms = one.install(|| {
        wall_ms(runs, || {
            dst.copy_from_slice(&src);
            Ok(())
        })
    })?;
    let all_ms = wall_ms(runs, || {
        dst.par_chunks_mut(1 << 20)
            .zip(src.par_chunks(1 << 20))
            .for_each(|(d, s)| d.copy_from_slice(s));
        Ok(())
    })?;
    if dst != src {
        return Err(Error::InvalidArgument(
            "copy ceiling: the copy differs".into(),
        ));
    }
    for (what, ms) in [
        ("memcpy (1 core)".to_string(), one_ms),
        (
            format!("memcpy ({} threads)", rayon::current_num_threads()),
            all_ms,
        ),
    ] {
        rows.push(BenchRow {
            what,
            input: format!("{} MiB", bytes >> 20),
            device: "cpu".into(),
            bytes: bytes as u64,
            ratio: None,
            ms,
            gbps: gbps(bytes as f64, ms),
            roofline: None,
            note: format!("{:.1} GB/s read + write", gbps(2.0 * bytes as f64, ms)),
        });
    }
    Ok(())
}

pub(super) fn bench_cpu(opts: &BenchOptions, rows: &mut Vec<BenchRow>) -> Result<()> {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::InvalidArgument(format!("thread pool: {e}")))?;
    let bytes = opts.size.unwrap_or(64 << 20);
    cpu_copy_ceiling(opts, bytes, &one, rows)?;
    bench_cpu_type::<u32>(opts, bytes / 4, &one, rows)?;
    bench_cpu_type::<u64>(opts, bytes / 8, &one, rows)?;
    bench_cpu_type::<u16>(opts, bytes / 2, &one, rows)?;
    bench_cpu_type::<u8>(opts, bytes, &one, rows)
}
