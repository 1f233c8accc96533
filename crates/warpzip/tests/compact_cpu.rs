//! The CPU compaction paths against the scalar reference: every SIMD level this CPU has, the
//! parallel default, `select_into` and the Device::Cpu API, for every element type, on random
//! masks of every density, Zipf runs, bursts, byte flags and patterns, at awkward sizes. Floats
//! are compared bit for bit (NaN payloads included).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use rand::{Rng, SeedableRng};
use warpzip::ops::compact::{
    self, cpu, cpu_simd, masks, values_from_le_bytes, values_to_le_bytes, CompactElem, Mask,
    Pattern,
};
use warpzip::{Device, Error};

const CHUNK: usize = cpu_simd::CHUNK;

fn random_values<T: CompactElem>(rng: &mut rand::rngs::StdRng, n: usize) -> Vec<T> {
    let size = std::mem::size_of::<T>();
    let bytes: Vec<u8> = (0..n * size).map(|_| rng.gen()).collect();
    values_from_le_bytes(&bytes).unwrap()
}

fn bits<T: CompactElem>(v: &[T]) -> Vec<u8> {
    values_to_le_bytes(v)
}

/// Named packed masks over n elements.
fn mask_set(n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut v = Vec::new();
    for d in [0.0, 0.01, 0.5, 0.99, 1.0] {
        v.push((format!("random {d}"), masks::random(n, d, seed)));
    }
    v.push(("zipf".into(), masks::zipf_runs(n, 1.2, 5000, seed)));
    v.push(("burst".into(), masks::bursts(n, 3000, 700, 0.9, seed)));
    v.push((
        "burst solid".into(),
        masks::bursts(n, 5000, 9000, 1.0, seed),
    ));
    v
}

fn sizes() -> Vec<usize> {
    vec![
        0,
        1,
        2,
        7,
        8,
        9,
        31,
        32,
        33,
        63,
        64,
        65,
        127,
        129,
        1000,
        4095,
        4097,
        CHUNK - 1,
        CHUNK,
        CHUNK + 1,
        3 * CHUNK + 77,
    ]
}

#[track_caller]
fn same<T: CompactElem>(got: &[T], want: &[T], what: &str) {
    if bits(got) != bits(want) {
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| bits(&[*a]) != bits(&[*b]));
        panic!(
            "{what}: lengths {} vs {}, first difference at {at:?}",
            got.len(),
            want.len()
        );
    }
}

/// Every CPU path on one input, against the reference.
fn check_all_paths<T: CompactElem>(values: &[T], mask: Mask<'_>, what: &str) {
    let want = cpu::select(values, mask).unwrap();
    assert_eq!(
        want.len(),
        mask.count(values.len()).unwrap(),
        "{what}: reference length vs count"
    );
    for level in cpu_simd::Level::available_levels() {
        let got = cpu_simd::select_with(values, mask, level).unwrap();
        same(&got, &want, &format!("{what} {}", level.name()));
    }
    same(
        &cpu_simd::select(values, mask).unwrap(),
        &want,
        &format!("{what} default"),
    );
    same(
        &compact::select_masked(values, mask, &Device::Cpu).unwrap(),
        &want,
        &format!("{what} Device::Cpu"),
    );
    // select_into: exact and roomy outputs, the tail untouched.
    let sentinel = values.first().copied().unwrap_or_default();
    let mut out = vec![sentinel; want.len() + 5];
    let n = compact::select_into(values, mask, &mut out, &Device::Cpu).unwrap();
    assert_eq!(n, want.len(), "{what}: select_into count");
    same(&out[..n], &want, &format!("{what} select_into"));
    assert!(
        out[n..].iter().all(|x| bits(&[*x]) == bits(&[sentinel])),
        "{what}: select_into wrote past the count"
    );
}

fn check_type<T: CompactElem>(seed: u64) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    for n in sizes() {
        let values: Vec<T> = random_values(&mut rng, n);
        for (name, m) in mask_set(n, seed ^ n as u64) {
            let what = format!("{} n={n} {name}", T::NAME);
            check_all_paths(&values, Mask::Bits(&m), &format!("{what} bits"));
            let flags = masks::bits_to_flags(&m, n);
            check_all_paths(&values, Mask::Flags(&flags), &format!("{what} flags"));
        }
        for flags in [
            vec![true, false, false, true],
            vec![false, true, true],
            vec![true],
            vec![false],
            vec![false, false, false, false, false, false, false, true],
            (0..67).map(|i| i % 5 == 1).collect(),
        ] {
            let p = Pattern::new(&flags).unwrap();
            check_all_paths(
                &values,
                Mask::Pattern(&p),
                &format!("{} n={n} pattern period {}", T::NAME, flags.len()),
            );
        }
    }
}

#[test]
fn u8_paths_match_the_reference() {
    check_type::<u8>(1);
}

#[test]
fn u16_paths_match_the_reference() {
    check_type::<u16>(2);
}

#[test]
fn u32_paths_match_the_reference() {
    check_type::<u32>(3);
}

#[test]
fn u64_paths_match_the_reference() {
    check_type::<u64>(4);
}

#[test]
fn f32_paths_match_the_reference_bit_for_bit() {
    check_type::<f32>(5);
}

#[test]
fn f64_paths_match_the_reference_bit_for_bit() {
    check_type::<f64>(6);
}

#[test]
fn many_chunks_and_random_sizes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for _ in 0..6 {
        let n = rng.gen_range(0..9 * CHUNK);
        let d = rng.gen_range(0.0..1.0);
        let m = masks::random(n, d, rng.gen());
        let v32: Vec<u32> = random_values(&mut rng, n);
        check_all_paths(&v32, Mask::Bits(&m), &format!("u32 n={n} d={d}"));
        let v8: Vec<u8> = random_values(&mut rng, n);
        check_all_paths(&v8, Mask::Bits(&m), &format!("u8 n={n} d={d}"));
    }
}

#[test]
fn the_reference_is_what_the_mask_says() {
    // Bit i of byte i/8, least significant first.
    let values: Vec<u32> = (0..20).collect();
    let mask = [0b1000_0001u8, 0b0000_0010, 0b1111_0000];
    let got = cpu::select(&values, Mask::Bits(&mask)).unwrap();
    assert_eq!(got, vec![0, 7, 9]);
    // Byte 2 covers elements 16..24, of which 16..20 exist: bits 4..7 are past the values.
    let flags = [
        0u8, 1, 0, 0x80, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
    ];
    assert_eq!(
        cpu::select(&values, Mask::Flags(&flags)).unwrap(),
        vec![1, 3, 4, 19]
    );
    let p: Pattern = "1,0,0,1".parse().unwrap();
    assert_eq!(
        cpu::select(&values, Mask::Pattern(&p)).unwrap(),
        vec![0, 3, 4, 7, 8, 11, 12, 15, 16, 19]
    );
}

#[test]
fn longer_masks_are_fine_and_their_extra_bits_ignored() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    for n in [1usize, 13, 64, 1000, CHUNK + 3] {
        let values: Vec<u16> = random_values(&mut rng, n);
        let mut m = masks::random(n, 0.5, 9);
        let want = cpu::select(&values, Mask::Bits(&m)).unwrap();
        // Set every bit past n, in the last byte and in extra bytes.
        if n % 8 != 0 {
            let last = m.len() - 1;
            m[last] |= !((1u8 << (n % 8)) - 1);
        }
        m.extend_from_slice(&[0xff; 9]);
        check_all_paths(&values, Mask::Bits(&m), &format!("long mask n={n}"));
        same(
            &cpu::select(&values, Mask::Bits(&m)).unwrap(),
            &want,
            "long mask reference",
        );
        let mut flags = masks::bits_to_flags(&m, n);
        flags.extend_from_slice(&[1; 100]);
        same(
            &cpu_simd::select(&values, Mask::Flags(&flags)).unwrap(),
            &want,
            "long flags",
        );
    }
}

fn assert_short_mask(e: Error) {
    match e {
        Error::InvalidArgument(msg) => assert!(msg.contains("shorter"), "{msg}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
}

#[test]
fn short_masks_are_invalid_arguments() {
    let values = vec![1u32; 17];
    let short_bits = [0xffu8; 2]; // 16 bits for 17 values
    let short_flags = [1u8; 16];
    for mask in [Mask::Bits(&short_bits), Mask::Flags(&short_flags)] {
        assert_short_mask(cpu::select(&values, mask).unwrap_err());
        assert_short_mask(cpu_simd::select(&values, mask).unwrap_err());
        assert_short_mask(compact::select_masked(&values, mask, &Device::Cpu).unwrap_err());
        let mut out = vec![0u32; 17];
        assert_short_mask(compact::select_into(&values, mask, &mut out, &Device::Cpu).unwrap_err());
        assert_short_mask(mask.count(17).unwrap_err());
    }
    assert_short_mask(compact::select(&values, &short_bits, &Device::Cpu).unwrap_err());
    assert_short_mask(compact::select_flags(&values, &short_flags, &Device::Cpu).unwrap_err());
    // An empty mask is enough for no values.
    assert!(compact::select::<u8>(&[], &[], &Device::Cpu)
        .unwrap()
        .is_empty());
}

#[test]
fn select_into_refuses_a_short_output_and_writes_nothing() {
    let values: Vec<u64> = (0..100).collect();
    let mask = masks::random(100, 0.5, 3);
    let count = Mask::Bits(&mask).count(100).unwrap();
    let mut out = vec![7u64; count - 1];
    match compact::select_into(&values, Mask::Bits(&mask), &mut out, &Device::Cpu) {
        Err(Error::InvalidArgument(msg)) => assert!(msg.contains("output"), "{msg}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    assert!(out.iter().all(|&x| x == 7));
}

#[test]
fn patterns_parse_count_and_validate() {
    let p: Pattern = "1,0,0,1".parse().unwrap();
    assert_eq!(p.period(), 4);
    assert_eq!(p.ones(), 2);
    assert_eq!(p.kept_positions(), &[0, 3]);
    assert_eq!(p.count_before(0), 0);
    assert_eq!(p.count_before(1), 1);
    assert_eq!(p.count_before(4), 2);
    assert_eq!(p.count_before(5), 3);
    assert_eq!(p.count_before(1 << 40), 1 << 39);
    assert_eq!(
        " 1 , 0 ".parse::<Pattern>().unwrap().flags(),
        &[true, false]
    );
    for bad in ["", "1,,0", "1,2", "a", "1;0", "10"] {
        assert!(bad.parse::<Pattern>().is_err(), "'{bad}' parsed");
    }
    assert!(Pattern::new(&[]).is_err());
    // Words of a long period (no precomputed cycle) agree with the flags.
    let flags: Vec<bool> = (0..300_007u64).map(|i| (i * 7919) % 13 < 4).collect();
    let long = Pattern::new(&flags).unwrap();
    for w in [0usize, 1, 4687, 4688, 9000, 123_456] {
        let word = long.word(w);
        for j in 0..64 {
            assert_eq!(
                (word >> j) & 1 == 1,
                flags[(w * 64 + j) % flags.len()],
                "word {w} bit {j}"
            );
        }
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let values: Vec<u32> = random_values(&mut rng, 700_001);
    check_all_paths(&values, Mask::Pattern(&long), "long pattern");
}

#[test]
fn raw_value_bytes_round_trip_and_reject_ragged_lengths() {
    let v = vec![1.5f64, -0.0, f64::NAN];
    let b = values_to_le_bytes(&v);
    assert_eq!(b.len(), 24);
    let back: Vec<f64> = values_from_le_bytes(&b).unwrap();
    assert_eq!(values_to_le_bytes(&back), b);
    assert!(values_from_le_bytes::<u32>(&[1, 2, 3]).is_err());
    assert_eq!(values_from_le_bytes::<u16>(&[1, 2]).unwrap(), vec![0x0201]);
}

#[test]
fn mask_generators_have_the_asked_density() {
    let n = 1 << 20;
    for d in [0.01, 0.5, 0.99] {
        let m = masks::random(n, d, 1);
        let got = Mask::Bits(&m).count(n).unwrap() as f64 / n as f64;
        assert!((got - d).abs() < 0.01, "density {d}: got {got}");
    }
    assert_eq!(Mask::Bits(&masks::random(n, 0.0, 1)).count(n).unwrap(), 0);
    assert_eq!(Mask::Bits(&masks::random(n, 1.0, 1)).count(n).unwrap(), n);
    assert_eq!(masks::random(13, 1.0, 1), vec![0xff, 0x1f]);
    let z = Mask::Bits(&masks::zipf_runs(n, 1.2, 5000, 2))
        .count(n)
        .unwrap();
    assert!(z > n / 5 && z < 4 * n / 5, "zipf kept {z}");
    let b = Mask::Bits(&masks::bursts(n, 100_000, 10_000, 1.0, 3))
        .count(n)
        .unwrap();
    assert!(b > 0 && b < n / 4, "bursts kept {b}");
}

#[test]
fn rust_launch_constants_match_the_kernel() {
    let text = warpzip::gpu::kernels::COMPACT.text;
    let define = |name: &str| -> u32 {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("#define {name} ")))
            .unwrap_or_else(|| panic!("compact.cu defines no {name}"));
        line.split_whitespace()
            .nth(2)
            .unwrap()
            .trim_end_matches('u')
            .parse()
            .unwrap()
    };
    use compact::gpu;
    assert_eq!(define("COMPACT_THREADS"), gpu::THREADS);
    assert_eq!(define("COMPACT_VECS"), gpu::VECS);
    assert_eq!(define("COMPACT_VECS_WIDE"), gpu::VECS_WIDE);
    assert_eq!(define("COMPACT_COUNT_WARPS"), gpu::COUNT_WARPS);
    assert_eq!(define("COMPACT_PATTERN_THREADS"), gpu::PATTERN_THREADS);
    assert_eq!(define("COMPACT_ALIGN_VALUES"), 1);
    assert_eq!(define("COMPACT_ALIGN_OUT"), 2);
    assert_eq!(define("COMPACT_ALIGN_MASK"), 4);
    for op in [
        "select_bits",
        "select_flags",
        "select_bits_wide",
        "select_flags_wide",
        "writeout_bits",
        "writeout_flags",
        "pattern",
        "pattern_staged",
    ] {
        assert!(
            text.contains(&format!("compact_{op}_##T")),
            "entry point compact_{op}_<type> missing"
        );
    }
    for t in ["u8", "u16", "u32", "u64"] {
        assert!(text.contains(&format!("COMPACT_TYPE_ENTRIES({t})")));
    }
}

/// The staged pattern kernel's index arithmetic (`compact_pattern_staged`), replayed on the CPU
/// for every block: every word it stores or gathers lies inside the shared memory that
/// `staged_pattern_smem` asks for, and every gathered element was loaded (its vector holds a
/// kept element, so its `need` bit is set).
#[test]
fn staged_pattern_span_fits_its_shared_memory() {
    use compact::gpu::{staged_pattern_smem, PATTERN_THREADS, STAGED_MAX_PERIOD};
    let pad = |w: u64| w + (w >> 5);
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    let mut patterns: Vec<Pattern> = ["1", "1,0,0,1", "1,0,0,0,0,0,0,0", "0,0,0,0,0,0,0,1"]
        .iter()
        .map(|p| p.parse().unwrap())
        .collect();
    for _ in 0..60 {
        let period = rng.gen_range(1..200);
        let density = rng.gen_range(0.02..1.0);
        let flags: Vec<bool> = (0..period).map(|_| rng.gen_bool(density)).collect();
        if flags.iter().any(|&f| f) {
            patterns.push(Pattern::new(&flags).unwrap());
        }
    }
    patterns.push(
        Pattern::new(
            &(0..STAGED_MAX_PERIOD + 1)
                .map(|i| i % 2 == 0)
                .collect::<Vec<_>>(),
        )
        .unwrap(),
    );
    let mut staged = 0;
    for p in &patterns {
        for elem in [1usize, 2, 4, 8] {
            let Some(smem) = staged_pattern_smem(elem, p) else {
                continue;
            };
            staged += 1;
            let words = u64::from(smem) / 4;
            let per_vec = (16 / elem) as u64;
            let out_per_block = u64::from(PATTERN_THREADS) * per_vec;
            let (ones, period) = (p.ones() as u64, p.period() as u64);
            let sel = p.kept_positions();
            let src = |o: u64| (o / ones) * period + u64::from(sel[(o % ones) as usize]);
            let n = rng.gen_range(1..6 * out_per_block * period / ones + 7);
            let count = p.count_before(n);
            let mut o0 = 0;
            while o0 < count {
                let o_last = (o0 + out_per_block).min(count) - 1;
                let (first, last) = (src(o0), src(o_last));
                assert!(last < n, "a source past the input");
                let v_lo = first / per_vec;
                let nv = last / per_vec - v_lo + 1;
                let top = pad(4 * nv - 1);
                assert!(top < words, "span of {nv} vectors needs word {top}, smem holds {words} ({elem}-byte, period {period}, {ones} kept)");
                for o in o0..=o_last {
                    let e = src(o) - v_lo * per_vec;
                    let w = (e * elem as u64) / 4 + u64::from(elem == 8);
                    assert!(pad(w) < words);
                    let v = v_lo + e / per_vec;
                    let r = (v * per_vec) % period;
                    assert!((0..per_vec).any(|j| p.keeps(((r + j) % period) as usize)));
                }
                o0 += out_per_block;
            }
        }
    }
    assert!(staged > 150, "only {staged} staged cases");
}

/// Patterns whose cycle of 16-byte segment classes is at the shuffle table's limit (4096) and
/// just past it (the mask-word path), over several chunks, for every element width.
#[test]
fn long_pattern_cycles_match_the_reference() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(77);
    for period in [4095usize, 4096, 4099, 16 * 4096 + 3] {
        let flags: Vec<bool> = (0..period).map(|i| (i * 7919) % 5 < 2).collect();
        let p = Pattern::new(&flags).unwrap();
        let n = 3 * CHUNK + 19;
        let v8: Vec<u8> = random_values(&mut rng, n);
        check_all_paths(&v8, Mask::Pattern(&p), &format!("u8 period {period}"));
        let v16: Vec<u16> = random_values(&mut rng, n);
        check_all_paths(&v16, Mask::Pattern(&p), &format!("u16 period {period}"));
        let v32: Vec<f32> = random_values(&mut rng, n);
        check_all_paths(&v32, Mask::Pattern(&p), &format!("f32 period {period}"));
        let v64: Vec<u64> = random_values(&mut rng, n);
        check_all_paths(&v64, Mask::Pattern(&p), &format!("u64 period {period}"));
    }
}
