//! The GPU select against the CPU reference: every element type, packed bits and byte flags at
//! densities 0, 1%, 50%, 99% and 100%, Zipf runs, bursts and patterns, sizes 0, 1, 31, 32, 33,
//! a tile +-1 and many tiles, for every strategy. Output buffers are poisoned (twice, with two
//! different bytes, so that no unwritten element can pass) and followed by a guard that must stay
//! poisoned. Also: misaligned views (the scalar fallbacks), outputs shorter than the selection,
//! the device and host APIs, and masks made from the files of `testdata/`. GPU tests run only with
//! `--include-ignored` and fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{gpu, testdata};

use rand::{Rng, SeedableRng};
use warpzip::gpu::{CudaSlice, GpuContext};
use warpzip::ops::compact::gpu::{
    self as cgpu, staged_pattern_smem, tile_elems, DevicePattern, GpuCompactor, PatternKernel,
    Strategy, VECS, VECS_WIDE,
};
use warpzip::ops::compact::{
    self, cpu, masks, values_from_le_bytes, values_to_le_bytes, CompactElem, Mask, Pattern,
};
use warpzip::{Device, Error};

const GUARD: usize = 67;

fn random_values<T: CompactElem>(rng: &mut rand::rngs::StdRng, n: usize) -> Vec<T> {
    let bytes: Vec<u8> = (0..n * std::mem::size_of::<T>())
        .map(|_| rng.gen())
        .collect();
    values_from_le_bytes(&bytes).unwrap()
}

fn filled<T: CompactElem>(byte: u8, n: usize) -> Vec<T> {
    values_from_le_bytes(&vec![byte; n * std::mem::size_of::<T>()]).unwrap()
}

/// Device copy of `data`, never empty (an empty upload would allocate nothing).
fn upload_nonempty<T: CompactElem>(gpu: &GpuContext, data: &[T]) -> CudaSlice<T> {
    if data.is_empty() {
        gpu.upload(&[T::default()]).unwrap()
    } else {
        gpu.upload(data).unwrap()
    }
}

fn upload_mask(gpu: &GpuContext, bytes: &[u8]) -> CudaSlice<u8> {
    if bytes.is_empty() {
        gpu.upload(&[0u8]).unwrap()
    } else {
        gpu.upload(bytes).unwrap()
    }
}

#[derive(Clone, Copy)]
enum Kind<'a> {
    Bits(&'a CudaSlice<u8>),
    Flags(&'a CudaSlice<u8>),
    Pattern(&'a DevicePattern, PatternKernel),
}

/// Runs one select into a poisoned output (twice, two poisons) and compares it with `want`;
/// the guard after the selection must stay poisoned.
#[allow(clippy::too_many_arguments)]
fn run_and_compare<T: CompactElem>(
    gpu: &GpuContext,
    comp: &mut GpuCompactor<T>,
    d_values: &CudaSlice<T>,
    n: usize,
    kind: Kind<'_>,
    strategy: Strategy,
    want: &[T],
    what: &str,
) {
    let want_bytes = values_to_le_bytes(want);
    for poison in [0xa5u8, 0x5a] {
        let mut d_out = gpu
            .upload(&filled::<T>(poison, want.len() + GUARD))
            .unwrap();
        match kind {
            Kind::Bits(m) => comp
                .queue_bits(gpu, d_values, n as u64, m, &mut d_out, strategy)
                .unwrap(),
            Kind::Flags(m) => comp
                .queue_flags(gpu, d_values, n as u64, m, &mut d_out, strategy)
                .unwrap(),
            Kind::Pattern(p, k) => comp
                .queue_pattern_with(gpu, d_values, n as u64, p, &mut d_out, k)
                .unwrap(),
        }
        let count = comp.count(gpu).unwrap();
        assert_eq!(count as usize, want.len(), "{what}: count");
        let got = values_to_le_bytes(&gpu.download(&d_out).unwrap());
        let size = std::mem::size_of::<T>();
        let (body, guard) = got.split_at(want_bytes.len());
        if body != want_bytes {
            let at = body.iter().zip(&want_bytes).position(|(a, b)| a != b);
            panic!(
                "{what} (poison {poison:#x}): first difference at element {:?}",
                at.map(|b| b / size)
            );
        }
        assert!(
            guard.iter().all(|&b| b == poison),
            "{what}: wrote past the selection"
        );
    }
}

fn mask_set(n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for d in [0.0, 0.01, 0.5, 0.99, 1.0] {
        v.push((format!("random {d}"), masks::random(n, d, seed)));
    }
    v.push(("zipf".into(), masks::zipf_runs(n, 1.2, 20_000, seed)));
    v.push(("bursts".into(), masks::bursts(n, 30_000, 3_000, 0.9, seed)));
    v.push((
        "solid bursts".into(),
        masks::bursts(n, 50_000, 20_000, 1.0, seed),
    ));
    v
}

fn sizes<T>() -> Vec<usize> {
    let t = tile_elems::<T>(VECS) as usize;
    let w = tile_elems::<T>(VECS_WIDE) as usize;
    vec![
        0,
        1,
        2,
        31,
        32,
        33,
        127,
        128,
        129,
        t - 1,
        t,
        t + 1,
        w - 1,
        w + 1,
        17 * t + 5,
        300_007,
    ]
}

fn patterns() -> Vec<Pattern> {
    let mut v: Vec<Pattern> = [
        "1,0,0,1",
        "0,1,1",
        "1",
        "0",
        "1,1,1,1,1,1,1,0",
        "0,0,0,0,0,0,0,1",
    ]
    .iter()
    .map(|p| p.parse().unwrap())
    .collect();
    v.push(Pattern::new(&(0..67).map(|i| i % 5 == 1).collect::<Vec<_>>()).unwrap());
    v.push(Pattern::new(&(0..5003).map(|i| (i * 31) % 7 < 3).collect::<Vec<_>>()).unwrap());
    v
}

fn check_type<T: CompactElem>(seed: u64) {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let device_patterns: Vec<(Pattern, DevicePattern)> = patterns()
        .into_iter()
        .map(|p| {
            let d = DevicePattern::new(&gpu, &p).unwrap();
            (p, d)
        })
        .collect();
    for n in sizes::<T>() {
        let values: Vec<T> = random_values(&mut rng, n);
        let d_values = upload_nonempty(&gpu, &values);
        let mut comp = GpuCompactor::<T>::new(&gpu, n as u64).unwrap();
        for (name, bits) in mask_set(n, seed ^ n as u64) {
            let want = cpu::select(&values, Mask::Bits(&bits)).unwrap();
            let d_bits = upload_mask(&gpu, &bits);
            let flags = masks::bits_to_flags(&bits, n);
            let d_flags = upload_mask(&gpu, &flags);
            for s in Strategy::ALL {
                let what = format!("{} n={n} {name} {}", T::NAME, s.name());
                run_and_compare(
                    &gpu,
                    &mut comp,
                    &d_values,
                    n,
                    Kind::Bits(&d_bits),
                    s,
                    &want,
                    &format!("{what} bits"),
                );
                run_and_compare(
                    &gpu,
                    &mut comp,
                    &d_values,
                    n,
                    Kind::Flags(&d_flags),
                    s,
                    &want,
                    &format!("{what} flags"),
                );
            }
        }
        for (p, dp) in &device_patterns {
            let want = cpu::select(&values, Mask::Pattern(p)).unwrap();
            let mut kernels = vec![PatternKernel::Auto, PatternKernel::Gather];
            if staged_pattern_smem(std::mem::size_of::<T>(), p).is_some() {
                kernels.push(PatternKernel::Staged);
            }
            for k in kernels {
                run_and_compare(
                    &gpu,
                    &mut comp,
                    &d_values,
                    n,
                    Kind::Pattern(dp, k),
                    Strategy::Auto,
                    &want,
                    &format!("{} n={n} pattern period {} {k:?}", T::NAME, p.period()),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_u8_matches_cpu() {
    check_type::<u8>(1);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_u16_matches_cpu() {
    check_type::<u16>(2);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_u32_matches_cpu() {
    check_type::<u32>(3);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_u64_matches_cpu() {
    check_type::<u64>(4);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_f32_matches_cpu_bit_for_bit() {
    check_type::<f32>(5);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_f64_matches_cpu_bit_for_bit() {
    check_type::<f64>(6);
}

fn many_tiles<T: CompactElem>(n: usize, seed: u64) {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let values: Vec<T> = random_values(&mut rng, n);
    let d_values = gpu.upload(&values).unwrap();
    let mut comp = GpuCompactor::<T>::new(&gpu, n as u64).unwrap();
    let cases = vec![
        ("random 0.5".to_string(), masks::random(n, 0.5, seed)),
        ("random 0.01".to_string(), masks::random(n, 0.01, seed)),
        ("random 0.99".to_string(), masks::random(n, 0.99, seed)),
        // Long stretches of empty tiles: the look-back walks many aggregates.
        (
            "sparse bursts".to_string(),
            masks::bursts(n, 1 << 21, 1 << 12, 1.0, seed),
        ),
        ("zipf".to_string(), masks::zipf_runs(n, 1.1, 1 << 18, seed)),
    ];
    for (name, bits) in cases {
        let want = cpu::select(&values, Mask::Bits(&bits)).unwrap();
        let d_bits = gpu.upload(&bits).unwrap();
        for s in Strategy::ALL {
            run_and_compare(
                &gpu,
                &mut comp,
                &d_values,
                n,
                Kind::Bits(&d_bits),
                s,
                &want,
                &format!("{} n={n} {name} {}", T::NAME, s.name()),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_many_tiles() {
    many_tiles::<u32>(48 * 1024 * 1024 + 13, 21);
    many_tiles::<u8>(64 * 1024 * 1024 + 5, 22);
    many_tiles::<u64>(12 * 1024 * 1024 + 3, 23);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_repeated_runs_agree() {
    // A race shows as results that change between identical runs.
    let gpu = gpu();
    let n = 8 * 1024 * 1024 + 77;
    let mut rng = rand::rngs::StdRng::seed_from_u64(30);
    let values: Vec<u32> = random_values(&mut rng, n);
    let bits = masks::random(n, 0.5, 31);
    let want = cpu::select(&values, Mask::Bits(&bits)).unwrap();
    let d_values = gpu.upload(&values).unwrap();
    let d_bits = gpu.upload(&bits).unwrap();
    let mut comp = GpuCompactor::<u32>::new(&gpu, n as u64).unwrap();
    for round in 0..20 {
        run_and_compare(
            &gpu,
            &mut comp,
            &d_values,
            n,
            Kind::Bits(&d_bits),
            Strategy::SinglePass,
            &want,
            &format!("round {round}"),
        );
    }
}

/// Views that start one element (or mask byte) into their allocations, so no 16-byte vector
/// path may run; the results must not change.
fn misaligned<T: CompactElem>(seed: u64) {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in [1usize, 33, tile_elems::<T>(VECS) as usize + 3, 200_003] {
        let values: Vec<T> = random_values(&mut rng, n + 1);
        let bits = masks::random(n, 0.6, seed ^ n as u64);
        let want = cpu::select(&values[1..], Mask::Bits(&bits)).unwrap();
        let mut shifted_bits = vec![0xffu8];
        shifted_bits.extend_from_slice(&bits);
        let flags = masks::bits_to_flags(&bits, n);
        let mut shifted_flags = vec![1u8];
        shifted_flags.extend_from_slice(&flags);
        let d_values = gpu.upload(&values).unwrap();
        let d_bits = gpu.upload(&shifted_bits).unwrap();
        let d_flags = gpu.upload(&shifted_flags).unwrap();
        let mut comp = GpuCompactor::<T>::new(&gpu, n as u64).unwrap();
        for s in Strategy::ALL {
            for flags_mask in [false, true] {
                let mut d_out = gpu.upload(&filled::<T>(0xa5, want.len() + 2)).unwrap();
                {
                    let v = d_values.slice(1..);
                    let mut o = d_out.slice_mut(1..);
                    if flags_mask {
                        let m = d_flags.slice(1..);
                        comp.queue_flags(&gpu, &v, n as u64, &m, &mut o, s).unwrap();
                    } else {
                        let m = d_bits.slice(1..);
                        comp.queue_bits(&gpu, &v, n as u64, &m, &mut o, s).unwrap();
                    }
                }
                assert_eq!(comp.count(&gpu).unwrap() as usize, want.len());
                let got = gpu.download(&d_out).unwrap();
                let what = format!("{} n={n} {} flags={flags_mask}", T::NAME, s.name());
                assert_eq!(
                    values_to_le_bytes(&got[1..=want.len()]),
                    values_to_le_bytes(&want),
                    "{what}"
                );
                assert_eq!(
                    values_to_le_bytes(&got[..1]),
                    vec![0xa5; std::mem::size_of::<T>()]
                );
            }
        }
        // The pattern kernel with a misaligned output.
        let p: Pattern = "1,1,0,1,0".parse().unwrap();
        let want = cpu::select(&values[1..], Mask::Pattern(&p)).unwrap();
        let dp = DevicePattern::new(&gpu, &p).unwrap();
        for k in [PatternKernel::Staged, PatternKernel::Gather] {
            let mut d_out = gpu.upload(&filled::<T>(0xa5, want.len() + 1)).unwrap();
            {
                let v = d_values.slice(1..);
                let mut o = d_out.slice_mut(1..);
                comp.queue_pattern_with(&gpu, &v, n as u64, &dp, &mut o, k)
                    .unwrap();
            }
            let got = gpu.download(&d_out).unwrap();
            assert_eq!(
                values_to_le_bytes(&got[1..]),
                values_to_le_bytes(&want),
                "{} n={n} pattern misaligned {k:?}",
                T::NAME
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_misaligned_views_fall_back() {
    misaligned::<u8>(40);
    misaligned::<u16>(41);
    misaligned::<u32>(42);
    misaligned::<u64>(43);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_stops_at_the_output_capacity() {
    let gpu = gpu();
    let n = 100_000;
    let mut rng = rand::rngs::StdRng::seed_from_u64(50);
    let values: Vec<u32> = random_values(&mut rng, n);
    let bits = masks::random(n, 0.7, 51);
    let want = cpu::select(&values, Mask::Bits(&bits)).unwrap();
    let d_values = gpu.upload(&values).unwrap();
    let d_bits = gpu.upload(&bits).unwrap();
    let mut comp = GpuCompactor::<u32>::new(&gpu, n as u64).unwrap();
    for cap in [0usize, 1, 4095, want.len() / 2 + 3, want.len() - 1] {
        for s in Strategy::ALL {
            let mut d_out = gpu.upload(&vec![0xa5a5_a5a5u32; want.len() + 8]).unwrap();
            {
                let mut o = d_out.slice_mut(..cap);
                comp.queue_bits(&gpu, &d_values, n as u64, &d_bits, &mut o, s)
                    .unwrap();
            }
            assert_eq!(comp.count(&gpu).unwrap() as usize, want.len());
            let got = gpu.download(&d_out).unwrap();
            assert_eq!(&got[..cap], &want[..cap], "cap {cap} {}", s.name());
            assert!(
                got[cap..].iter().all(|&x| x == 0xa5a5_a5a5),
                "cap {cap} {}: wrote past the output",
                s.name()
            );
        }
    }
    // The convenience call reports it.
    let mut short = gpu.upload(&vec![0u32; want.len() - 1]).unwrap();
    match cgpu::select_device(&gpu, &d_values, &d_bits, &mut short) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("output"), "{msg}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    // A pattern whose selection does not fit is refused before anything runs.
    let dp = DevicePattern::new(&gpu, &"1,1".parse().unwrap()).unwrap();
    let mut small = gpu.upload(&vec![0u32; n - 1]).unwrap();
    assert!(comp
        .queue_pattern(&gpu, &d_values, n as u64, &dp, &mut small)
        .is_err());
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_device_and_host_apis_match_cpu() {
    let gpu = gpu();
    let n = 250_001;
    let mut rng = rand::rngs::StdRng::seed_from_u64(60);
    let values: Vec<f32> = random_values(&mut rng, n);
    let bits = masks::random(n, 0.3, 61);
    let flags = masks::bits_to_flags(&bits, n);
    let p: Pattern = "0,1,1,0,1".parse().unwrap();
    let device = Device::Gpu(gpu.clone());
    for mask in [Mask::Bits(&bits), Mask::Flags(&flags), Mask::Pattern(&p)] {
        let want = values_to_le_bytes(&cpu::select(&values, mask).unwrap());
        let got = compact::select_masked(&values, mask, &device).unwrap();
        assert_eq!(values_to_le_bytes(&got), want);
        let mut out = vec![0f32; values.len()];
        let c = compact::select_into(&values, mask, &mut out, &device).unwrap();
        assert_eq!(values_to_le_bytes(&out[..c]), want);
    }
    assert!(compact::select::<u8>(&[], &[], &device).unwrap().is_empty());
    let d_values = gpu.upload(&values).unwrap();
    let d_bits = gpu.upload(&bits).unwrap();
    let d_flags = gpu.upload(&flags).unwrap();
    let mut d_out = gpu.upload(&vec![1f32; n]).unwrap();
    let c = cgpu::select_device(&gpu, &d_values, &d_bits, &mut d_out).unwrap();
    let want = cpu::select(&values, Mask::Bits(&bits)).unwrap();
    assert_eq!(
        values_to_le_bytes(&gpu.download(&d_out).unwrap()[..c]),
        values_to_le_bytes(&want)
    );
    let c = cgpu::select_flags_device(&gpu, &d_values, &d_flags, &mut d_out).unwrap();
    assert_eq!(c, want.len());
    let c = cgpu::select_pattern_device(&gpu, &d_values, &p, &mut d_out).unwrap();
    assert_eq!(
        values_to_le_bytes(&gpu.download(&d_out).unwrap()[..c]),
        values_to_le_bytes(&cpu::select(&values, Mask::Pattern(&p)).unwrap())
    );
    // Short masks are clear errors on the device too.
    let short = gpu.upload(&bits[..bits.len() - 1]).unwrap();
    match cgpu::select_device(&gpu, &d_values, &short, &mut d_out) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("shorter"), "{msg}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let short = gpu.upload(&flags[..n - 1]).unwrap();
    assert!(matches!(
        cgpu::select_flags_device(&gpu, &d_values, &short, &mut d_out),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        compact::select(&values, &bits[..bits.len() - 1], &device),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_select_on_masks_from_real_files() {
    // A filter over real data: keep the bytes (and the u32 words) above a threshold.
    let gpu = gpu();
    let root = testdata();
    let mut files = Vec::new();
    for dir in ["corpora/canterbury", "corpora/calgary", "fields"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            for e in entries {
                let path = e.unwrap().path();
                if path.is_file() {
                    files.push(path);
                }
            }
        }
    }
    assert!(
        files.len() > 10,
        "found only {} files in testdata/",
        files.len()
    );
    let device = Device::Gpu(gpu.clone());
    for path in files {
        let data = std::fs::read(&path).unwrap();
        let flags: Vec<u8> = data.iter().map(|&b| u8::from(b > b'm')).collect();
        let mut packed = vec![0u8; data.len().div_ceil(8)];
        for (i, &f) in flags.iter().enumerate() {
            packed[i / 8] |= f << (i % 8);
        }
        for mask in [Mask::Flags(&flags), Mask::Bits(&packed)] {
            let want = cpu::select(&data, mask).unwrap();
            let got = compact::select_masked(&data, mask, &device).unwrap();
            assert_eq!(got, want, "{}", path.display());
        }
        let words: Vec<u32> = values_from_le_bytes(&data[..data.len() / 4 * 4]).unwrap();
        let mut bits = vec![0u8; words.len().div_ceil(8)];
        for (i, w) in words.iter().enumerate() {
            if w % 3 == 0 {
                bits[i / 8] |= 1 << (i % 8);
            }
        }
        let want = cpu::select(&words, Mask::Bits(&bits)).unwrap();
        let got = compact::select(&words, &bits, &device).unwrap();
        assert_eq!(got, want, "{} as u32", path.display());
    }
}
