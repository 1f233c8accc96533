//! The lossy `sz` codec on the CPU: every test field, both modes, the three error modes and
//! bounds from 1e-1 to 1e-6 with zero bound violations, checked here in exact arithmetic (a
//! big-integer comparison, independent of the codec's own check); special and fill values bit
//! for bit; awkward shapes; damaged streams.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use proptest::prelude::*;
use std::cmp::Ordering;
use warpzip::api::{self, CompressOptions};
use warpzip::codec::{CodecId, ErrorBound, LossyMode, LossyOptions};
use warpzip::format::ElemType;
use warpzip::{Device, Error};

// ---- exact arithmetic: |x - y| * 10^k <= rhs, over dyadic rationals scaled by 2^1074 ----

/// A magnitude, little-endian 32-bit limbs.
#[derive(Clone, Debug)]
struct Big(Vec<u32>);

impl Big {
    fn trim(mut self) -> Big {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        self
    }
    /// `m * 2^s`.
    fn shifted(m: u64, s: u32) -> Big {
        let mut v = vec![0u32; (s / 32) as usize + 3];
        let wide = u128::from(m) << (s % 32);
        for (i, limb) in v[(s / 32) as usize..].iter_mut().take(3).enumerate() {
            *limb = (wide >> (32 * i)) as u32;
        }
        Big(v).trim()
    }
    fn cmp(&self, o: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&o.0.len())
            .then_with(|| self.0.iter().rev().cmp(o.0.iter().rev()))
    }
    fn add(&self, o: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len().max(o.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(o.0.len()) {
            let s = u64::from(*self.0.get(i).unwrap_or(&0))
                + u64::from(*o.0.get(i).unwrap_or(&0))
                + carry;
            out.push(s as u32);
            carry = s >> 32;
        }
        out.push(carry as u32);
        Big(out).trim()
    }
    /// `self - o`, `self >= o`.
    fn sub(&self, o: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut d = i64::from(self.0[i]) - i64::from(*o.0.get(i).unwrap_or(&0)) - borrow;
            borrow = 0;
            if d < 0 {
                d += 1 << 32;
                borrow = 1;
            }
            out.push(d as u32);
        }
        assert_eq!(borrow, 0);
        Big(out).trim()
    }
    fn mul_small(&self, k: u32) -> Big {
        let mut out = Vec::with_capacity(self.0.len() + 1);
        let mut carry = 0u64;
        for &l in &self.0 {
            let p = u64::from(l) * u64::from(k) + carry;
            out.push(p as u32);
            carry = p >> 32;
        }
        out.push(carry as u32);
        Big(out).trim()
    }
}

/// A finite f64 as (negative, |v| * 2^1074).
fn exact(v: f64) -> (bool, Big) {
    assert!(v.is_finite());
    let bits = v.to_bits();
    let e = ((bits >> 52) & 0x7ff) as u32;
    let frac = bits & ((1 << 52) - 1);
    let (m, s) = if e == 0 {
        (frac, 0)
    } else {
        (frac | 1 << 52, e - 1)
    };
    (bits >> 63 == 1, Big::shifted(m, s))
}

/// `|a - b|` exactly.
fn abs_diff(a: f64, b: f64) -> Big {
    let (na, ma) = exact(a);
    let (nb, mb) = exact(b);
    if na != nb {
        ma.add(&mb)
    } else if ma.cmp(&mb) == Ordering::Less {
        mb.sub(&ma)
    } else {
        ma.sub(&mb)
    }
}

/// `|x - y| * 10^k <= rhs` exactly, where `rhs` is an exact magnitude.
fn within_exact(x: f64, y: f64, k: u32, rhs: &Big) -> bool {
    let mut lhs = abs_diff(x, y);
    for _ in 0..k {
        lhs = lhs.mul_small(10);
    }
    lhs.cmp(rhs) != Ordering::Greater
}

#[test]
fn the_exact_check_itself() {
    let one = exact(1.0).1;
    assert!(within_exact(1.0, 0.9, 1, &one)); // 0.1 rounded: 1 - 0.9 in f64 is below 0.1
    assert!(within_exact(0.5, 0.25, 0, &exact(0.25).1));
    assert!(!within_exact(0.5, 0.25, 0, &exact(0.25f64.next_down()).1));
    assert!(!within_exact(1e30, -1e-30, 0, &exact(1e30).1));
    assert!(within_exact(1e30, 1e-30, 0, &exact(1e30).1));
    assert!(within_exact(
        f64::MAX,
        -f64::MAX,
        0,
        &exact(f64::MAX).1.add(&exact(f64::MAX).1)
    ));
}

// ---- running the codec ----

#[derive(Clone, Copy, Debug)]
enum Kind {
    Abs,
    Rel,
    PwRel,
}

fn opts(
    elem: ElemType,
    kind: Kind,
    k: u32,
    mode: LossyMode,
    dims: &[u64],
    fill: &[f64],
) -> CompressOptions {
    let e = 10f64.powi(-(k as i32));
    let bound = match kind {
        Kind::Abs => ErrorBound::Abs(e),
        Kind::Rel => ErrorBound::Rel(e),
        Kind::PwRel => ErrorBound::PwRel(e),
    };
    CompressOptions {
        elem_type: Some(elem),
        lossy: Some(LossyOptions {
            bound,
            dims: dims.to_vec(),
            fill: fill.to_vec(),
            mode,
        }),
        chunk_size: None,
        ..CompressOptions::for_codec(CodecId::Sz)
    }
}

fn values(data: &[u8], elem: ElemType) -> Vec<(u64, f64)> {
    match elem {
        ElemType::F32 => data
            .chunks_exact(4)
            .map(|c| {
                let b = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                (u64::from(b), f64::from(f32::from_bits(b)))
            })
            .collect(),
        _ => data
            .chunks_exact(8)
            .map(|c| {
                let b = u64::from_le_bytes(c.try_into().unwrap());
                (b, f64::from_bits(b))
            })
            .collect(),
    }
}

fn is_special(bits: u64, elem: ElemType) -> bool {
    match elem {
        ElemType::F32 => {
            let e = (bits >> 23) & 0xff;
            e == 0xff || (e == 0 && bits != 0)
        }
        _ => {
            let e = (bits >> 52) & 0x7ff;
            e == 0x7ff || (e == 0 && bits != 0)
        }
    }
}

fn fill_bits(fill: &[f64], elem: ElemType) -> Vec<u64> {
    fill.iter()
        .map(|&f| match elem {
            ElemType::F32 => u64::from((f as f32).to_bits()),
            _ => f.to_bits(),
        })
        .collect()
}

/// Compresses, decompresses, and checks every value: specials and fills bit-exact, the rest
/// within the bound exactly. Returns the ratio.
fn round_trip(data: &[u8], o: &CompressOptions, k: u32, kind: Kind) -> f64 {
    let elem = o.elem_type.unwrap();
    let fill = o.lossy.as_ref().unwrap().fill.clone();
    let wz = api::compress(data, o, &Device::Cpu).unwrap();
    let back = api::decompress(&wz, &Device::Cpu).unwrap();
    check_values(data, &back, elem, &fill, k, kind);
    data.len() as f64 / wz.len() as f64
}

/// Checks every decoded value of `back` against `data`: specials and fills bit-exact, the
/// rest within the bound `kind` 1e-`k` exactly.
fn check_values(data: &[u8], back: &[u8], elem: ElemType, fill: &[f64], k: u32, kind: Kind) {
    assert_eq!(back.len(), data.len());
    let fills = fill_bits(fill, elem);
    let orig = values(data, elem);
    let dec = values(back, elem);
    let regular = |b: u64| !is_special(b, elem) && !fills.contains(&b);
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(b, v) in &orig {
        if regular(b) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    let range = if hi >= lo {
        abs_diff(hi, lo)
    } else {
        Big(vec![])
    };
    let one = exact(1.0).1;
    let ek = 10f64.powi(k as i32);
    let mut violations = 0usize;
    for (i, (&(ob, x), &(db, y))) in orig.iter().zip(&dec).enumerate() {
        if !regular(ob) {
            assert_eq!(
                ob, db,
                "value {i}: special or fill value {x} came back as {y}"
            );
            continue;
        }
        // Rigorous fast path: far from the edge either way in f64, else the exact comparison.
        let d = (x - y).abs() * ek;
        let r = match kind {
            Kind::Abs => 1.0,
            Kind::Rel => hi - lo,
            Kind::PwRel => x.abs(),
        };
        let ok =
            if y.is_finite() && d.is_finite() && r > 1e-280 && d > 1e-280 && d < r * (1.0 - 1e-9) {
                true
            } else {
                let rhs = match kind {
                    Kind::Abs => one.clone(),
                    Kind::Rel => range.clone(),
                    Kind::PwRel => exact(x.abs()).1,
                };
                y.is_finite() && within_exact(x, y, k, &rhs)
            };
        if !ok {
            violations += 1;
            if violations < 5 {
                eprintln!("value {i}: {x:e} came back as {y:e}, bound {kind:?} 1e-{k}");
            }
        }
    }
    assert_eq!(violations, 0, "{kind:?} 1e-{k}: bound violations");
}

struct Field {
    name: &'static str,
    dims: &'static [u64],
    fill: &'static [f64],
}

const FIELDS: &[Field] = &[
    Field {
        name: "coads_climatology.SST.12x90x180.f32",
        dims: &[12, 90, 180],
        fill: &[-1e34],
    },
    Field {
        name: "etopo20.ROSE.540x1081.f32",
        dims: &[540, 1081],
        fill: &[],
    },
    Field {
        name: "levitus_climatology.SALT.20x180x360.f32",
        dims: &[20, 180, 360],
        fill: &[-1e10],
    },
    Field {
        name: "testfloat_8_8_128.dat",
        dims: &[8, 8, 128],
        fill: &[],
    },
];

fn field(f: &Field) -> Vec<u8> {
    std::fs::read(common::testdata().join("fields").join(f.name)).unwrap()
}

fn sweep(kinds: &[Kind], ks: &[u32]) {
    for f in FIELDS {
        let data = field(f);
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            for &kind in kinds {
                for &k in ks {
                    let o = opts(ElemType::F32, kind, k, mode, f.dims, f.fill);
                    let ratio = round_trip(&data, &o, k, kind);
                    eprintln!("{} {mode:?} {kind:?} 1e-{k}: ratio {ratio:.2}", f.name);
                }
            }
        }
    }
}

/// Every field, both modes, every error mode at every bound from 1e-1 to 1e-6 (about 20 s
/// on two cores in a release build).
#[test]
fn fields_keep_their_bounds() {
    sweep(&[Kind::Abs, Kind::Rel, Kind::PwRel], &[1, 2, 3, 4, 5, 6]);
}

#[test]
fn fields_without_their_fill_values_and_as_flat_streams() {
    for f in FIELDS {
        let data = field(f);
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            round_trip(
                &data,
                &opts(ElemType::F32, Kind::Rel, 3, mode, &[], &[]),
                3,
                Kind::Rel,
            );
            round_trip(
                &data,
                &opts(ElemType::F32, Kind::Abs, 2, mode, f.dims, &[]),
                2,
                Kind::Abs,
            );
        }
    }
}

#[test]
fn rel_bound_set_by_a_fill_value_warns() {
    let f = &FIELDS[0];
    let data = field(f);
    let lossy = opts(ElemType::F32, Kind::Rel, 3, LossyMode::Ratio, f.dims, &[])
        .lossy
        .unwrap();
    let w = warpzip::codec::range_warning(&data, ElemType::F32, &lossy).expect("a warning");
    assert!(w.contains("--fill"), "{w}");
    let mut with_fill = lossy.clone();
    with_fill.fill = vec![-1e34];
    assert!(warpzip::codec::range_warning(&data, ElemType::F32, &with_fill).is_none());
    let etopo = field(&FIELDS[1]);
    assert!(warpzip::codec::range_warning(&etopo, ElemType::F32, &lossy).is_none());
}

#[test]
fn etopo_ratios() {
    let f = &FIELDS[1];
    let data = field(f);
    for (k, least) in [(2, 8.0), (3, 4.0), (4, 2.5)] {
        let o = opts(ElemType::F32, Kind::Rel, k, LossyMode::Ratio, f.dims, &[]);
        let ratio = round_trip(&data, &o, k, Kind::Rel);
        eprintln!("etopo rel 1e-{k}: {ratio:.2}");
        assert!(ratio > least, "rel 1e-{k}: ratio {ratio:.2}");
    }
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64s(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn all_modes(data: &[u8], elem: ElemType, dims: &[u64], fill: &[f64]) {
    for mode in [LossyMode::Ratio, LossyMode::Fast] {
        for kind in [Kind::Abs, Kind::Rel, Kind::PwRel] {
            for k in [1, 4, 6] {
                round_trip(data, &opts(elem, kind, k, mode, dims, fill), k, kind);
            }
        }
    }
}

fn specials32() -> Vec<f32> {
    vec![
        f32::NAN,
        f32::from_bits(0xffc0_0001),
        f32::from_bits(0x7f80_0001),
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        f32::from_bits(1),
        -f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::MIN,
        -99.9,
    ]
}

#[test]
fn special_values_and_fills_are_exact() {
    let mut v: Vec<f32> = (0..3000).map(|i| (i as f32 * 0.01).sin() * 50.0).collect();
    for (j, s) in specials32().into_iter().enumerate() {
        for rep in 0..7 {
            v[j * 211 + rep * 13] = s;
        }
    }
    all_modes(&f32s(&v), ElemType::F32, &[], &[-99.9]);
    all_modes(&f32s(&v), ElemType::F32, &[30, 100], &[-99.9]);
    all_modes(&f32s(&v), ElemType::F32, &[3, 10, 100], &[-99.9, 1e34]);
    let v64: Vec<f64> = v
        .iter()
        .map(|&x| f64::from(x))
        .chain([f64::from_bits(1), -0.0, f64::NAN, f64::MAX])
        .collect();
    all_modes(&f64s(&v64), ElemType::F64, &[], &[-99.9f32 as f64]);
}

#[test]
fn awkward_shapes() {
    let wave = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 37 % 101) as f32).sqrt() - 5.0)
            .collect()
    };
    for (dims, n) in [
        (vec![1u64], 1usize),
        (vec![], 1),
        (vec![], 0),
        (vec![255], 255),
        (vec![257], 257),
        (vec![1, 1], 1),
        (vec![1, 300], 300),
        (vec![300, 1], 300),
        (vec![17, 33], 17 * 33),
        (vec![1, 1, 1], 1),
        (vec![9, 1, 17], 9 * 17),
        (vec![3, 5, 7], 105),
        (vec![2, 3, 4, 5], 120),
    ] {
        let data = f32s(&wave(n));
        all_modes(&data, ElemType::F32, &dims, &[]);
    }
}

#[test]
fn constant_one_value_and_huge_ranges() {
    all_modes(&f32s(&[3.7; 1000]), ElemType::F32, &[], &[]);
    all_modes(&f32s(&[0.0; 1000]), ElemType::F32, &[10, 100], &[]);
    all_modes(&f32s(&[-1.25e-20]), ElemType::F32, &[], &[]);
    all_modes(&f64s(&[3.7; 999]), ElemType::F64, &[9, 111], &[]);
    let huge: Vec<f32> = (0..4000)
        .map(|i| {
            let e = (i % 61) - 30;
            let s = if i % 3 == 0 { -1.0 } else { 1.0 };
            s * 10f32.powi(e) * (1.0 + (i % 7) as f32 / 10.0)
        })
        .collect();
    all_modes(&f32s(&huge), ElemType::F32, &[40, 100], &[]);
    let huge64: Vec<f64> = (0..4000)
        .map(|i| {
            let e = (i % 601) - 300;
            10f64.powi(e) * (1.0 + (i % 7) as f64 / 10.0)
        })
        .collect();
    all_modes(&f64s(&huge64), ElemType::F64, &[], &[]);
    let edges = vec![f64::MAX, -f64::MAX, 1.0, f64::MIN_POSITIVE, 0.5];
    all_modes(&f64s(&edges), ElemType::F64, &[], &[]);
}

/// Constant 3-D fields are the densest coding there is: they still decode under the output
/// bound every chunk's claim is checked against.
#[test]
fn constant_3d_fields_decode_under_the_output_bound() {
    for v in [0.0f32, 3.7, -1e30] {
        let data = f32s(&vec![v; 64 * 128 * 128]);
        for mode in [LossyMode::Ratio, LossyMode::Fast] {
            for kind in [Kind::Abs, Kind::Rel, Kind::PwRel] {
                let o = opts(ElemType::F32, kind, 2, mode, &[64, 128, 128], &[]);
                let ratio = round_trip(&data, &o, 2, kind);
                assert!(ratio > 30.0, "{v} {mode:?} {kind:?}: {ratio}");
            }
        }
    }
    let data = f64s(&vec![0.0; 32 * 64 * 64]);
    let o = opts(
        ElemType::F64,
        Kind::Abs,
        2,
        LossyMode::Ratio,
        &[32, 64, 64],
        &[],
    );
    round_trip(&data, &o, 2, Kind::Abs);
}

#[test]
fn a_constant_field_compresses_well() {
    let data = f32s(&[3.7; 1 << 16]);
    for mode in [LossyMode::Ratio, LossyMode::Fast] {
        let ratio = round_trip(
            &data,
            &opts(ElemType::F32, Kind::Rel, 3, mode, &[256, 256], &[]),
            3,
            Kind::Rel,
        );
        assert!(ratio > 20.0, "{mode:?}: {ratio}");
    }
}

#[test]
fn options_are_checked() {
    let data = f32s(&[1.0; 100]);
    let mut o = opts(
        ElemType::F32,
        Kind::Abs,
        2,
        LossyMode::Ratio,
        &[10, 11],
        &[],
    );
    assert!(matches!(
        api::compress(&data, &o, &Device::Cpu),
        Err(Error::InvalidArgument(_))
    ));
    o.lossy = None;
    assert!(matches!(
        api::validate_options(&o),
        Err(Error::InvalidArgument(_))
    ));
    let mut o = opts(ElemType::F32, Kind::Abs, 2, LossyMode::Ratio, &[], &[]);
    o.elem_type = Some(ElemType::I32);
    assert!(matches!(
        api::validate_options(&o),
        Err(Error::InvalidArgument(_))
    ));
    assert!(ErrorBound::parse("rel:0").is_err());
    assert!(ErrorBound::parse("rel:-1").is_err());
    assert!(ErrorBound::parse("abs:nan").is_err());
    assert!(ErrorBound::parse("pw-rel:2").is_err());
    assert!(ErrorBound::parse("x:1").is_err());
    assert_eq!(
        ErrorBound::parse("pw-rel:1e-3").unwrap(),
        ErrorBound::PwRel(1e-3)
    );
}

#[test]
fn inspect_names_mode_bound_and_outliers() {
    let f = &FIELDS[1];
    let data = field(f);
    let wz = api::compress(
        &data,
        &opts(ElemType::F32, Kind::Rel, 3, LossyMode::Ratio, f.dims, &[]),
        &Device::Cpu,
    )
    .unwrap();
    let ins = api::inspect(&wz).unwrap();
    let c = warpzip::codec::codec(CodecId::Sz).unwrap();
    let words = c
        .describe_params(&ins.header.codec_params, ins.header.elem_type)
        .unwrap();
    assert!(
        words.contains("mode ratio") && words.contains("rel:1e-3") && words.contains("outliers"),
        "{words}"
    );
}

/// Every truncation and many bit flips of every chunk, re-sealed with valid checksums: an
/// error naming a chunk or (for flips that keep the encoding valid) some output; never a panic.
#[test]
fn damaged_streams_give_errors() {
    let wave: Vec<f32> = (0..5000)
        .map(|i| (i as f32 * 0.013).sin() * 10.0 + if i % 97 == 0 { 1e6 } else { 0.0 })
        .collect();
    let data = f32s(&wave);
    for mode in [LossyMode::Ratio, LossyMode::Fast] {
        for kind in [Kind::Abs, Kind::PwRel] {
            let mut o = opts(ElemType::F32, kind, 3, mode, &[50, 100], &[]);
            o.chunk_size = Some(16 * 100 * 4);
            let wz = api::compress(&data, &o, &Device::Cpu).unwrap();
            let parsed = warpzip::format::Container::parse(&wz).unwrap();
            let header = parsed.header.clone();
            let chunks: Vec<Vec<u8>> = parsed
                .chunk_list()
                .iter()
                .map(|(c, _)| c.to_vec())
                .collect();
            let reseal = |chunks: &[Vec<u8>]| -> Vec<u8> {
                let mut payload = Vec::new();
                let mut spans = Vec::new();
                for (i, c) in chunks.iter().enumerate() {
                    spans.push(warpzip::format::ChunkSpan {
                        offset: payload.len(),
                        compressed_len: c.len() as u32,
                        uncompressed_len: header.chunk_uncompressed_len(i as u32).unwrap(),
                    });
                    payload.extend_from_slice(c);
                }
                let mut out = Vec::new();
                warpzip::format::write_container(&mut out, &header, &payload, &spans).unwrap();
                out
            };
            assert_eq!(
                api::decompress(&reseal(&chunks), &Device::Cpu)
                    .unwrap()
                    .len(),
                data.len()
            );
            for victim in 0..chunks.len() {
                let len = chunks[victim].len();
                for cut in (0..len).step_by((len / 60).max(1)) {
                    let mut c = chunks.clone();
                    c[victim].truncate(cut);
                    match api::decompress(&reseal(&c), &Device::Cpu) {
                        Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, victim),
                        other => panic!(
                            "truncated chunk {victim} at {cut}: {:?}",
                            other.map(|v| v.len())
                        ),
                    }
                }
                for flip in (0..len * 8).step_by((len * 8 / 200).max(1)) {
                    let mut c = chunks.clone();
                    c[victim][flip / 8] ^= 1 << (flip % 8);
                    if let Err(e) = api::decompress(&reseal(&c), &Device::Cpu) {
                        assert!(
                            matches!(e, Error::Corrupt { chunk, .. } if chunk == victim),
                            "{e}"
                        );
                    }
                }
                let mut c = chunks.clone();
                c[victim].push(0);
                assert!(api::decompress(&reseal(&c), &Device::Cpu).is_err());
            }
        }
    }
}

/// Corrupt codec parameters are refused, never a panic.
#[test]
fn damaged_parameters_are_refused() {
    let data = f32s(&(0..3000).map(|i| i as f32).collect::<Vec<_>>());
    let wz = api::compress(
        &data,
        &opts(
            ElemType::F32,
            Kind::Abs,
            2,
            LossyMode::Ratio,
            &[30, 100],
            &[],
        ),
        &Device::Cpu,
    )
    .unwrap();
    let parsed = warpzip::format::Container::parse(&wz).unwrap();
    let payload = parsed.payload.to_vec();
    let spans: Vec<_> = parsed
        .chunk_list()
        .iter()
        .scan(0usize, |at, (c, n)| {
            let s = warpzip::format::ChunkSpan {
                offset: *at,
                compressed_len: c.len() as u32,
                uncompressed_len: *n as u32,
            };
            *at += c.len();
            Some(s)
        })
        .collect();
    for i in 0..parsed.header.codec_params.len() {
        for bit in 0..8 {
            let mut h = parsed.header.clone();
            h.codec_params[i] ^= 1 << bit;
            let mut out = Vec::new();
            if warpzip::format::write_container(&mut out, &h, &payload, &spans).is_ok() {
                let _ = api::decompress(&out, &Device::Cpu);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_fields_keep_their_bounds(
        raw in proptest::collection::vec(any::<u32>(), 0..700),
        smooth in any::<bool>(),
        k in 1u32..7,
        which in 0usize..3,
        fast in any::<bool>(),
        ndim in 1usize..4,
    ) {
        let v: Vec<f32> = raw.iter().enumerate().map(|(i, &r)| {
            if smooth { (i as f32 * 0.05).sin() * 100.0 + (r % 1000) as f32 * 1e-3 } else { f32::from_bits(r) }
        }).collect();
        let n = v.len() as u64;
        let dims = match ndim {
            1 => vec![n],
            2 if n > 0 && n.is_multiple_of(7) => vec![7, n / 7],
            3 if n > 0 && n.is_multiple_of(6) => vec![2, 3, n / 6],
            _ => vec![],
        };
        let kind = [Kind::Abs, Kind::Rel, Kind::PwRel][which];
        let mode = if fast { LossyMode::Fast } else { LossyMode::Ratio };
        round_trip(&f32s(&v), &opts(ElemType::F32, kind, k, mode, &dims, &[]), k, kind);
    }

    #[test]
    fn random_f64_fields_keep_their_bounds(
        raw in proptest::collection::vec(any::<u64>(), 0..300),
        k in 1u32..7,
        which in 0usize..3,
        fast in any::<bool>(),
    ) {
        let v: Vec<f64> = raw.iter().map(|&r| f64::from_bits(r)).collect();
        let kind = [Kind::Abs, Kind::Rel, Kind::PwRel][which];
        let mode = if fast { LossyMode::Fast } else { LossyMode::Ratio };
        round_trip(&f64s(&v), &opts(ElemType::F64, kind, k, mode, &[], &[]), k, kind);
    }
}

/// A deterministic field with special and fill values (no RNG: golden files must not change).
fn golden_field() -> Vec<u8> {
    let mut v: Vec<f32> = (0..24 * 40)
        .map(|i| {
            let (y, x) = ((i / 40) as f32, (i % 40) as f32);
            (x * 0.21).sin() * 30.0 + y * y * 0.05 + ((i * 7919) % 13) as f32 * 0.01
        })
        .collect();
    for (j, s) in specials32().into_iter().enumerate() {
        v[j * 61 + 5] = s;
    }
    v[900] = 1e6;
    f32s(&v)
}

/// Layout 1 frozen: the files written by this layout decode to the same values, and the
/// encoder still writes them byte for byte. Regenerate with WARPZIP_BLESS=1 (never over a
/// released layout's files).
#[test]
fn golden_files_decode() {
    let data = golden_field();
    for (name, o, k, kind) in [
        (
            "sz_v1_ratio_golden.wz",
            opts(
                ElemType::F32,
                Kind::Rel,
                3,
                LossyMode::Ratio,
                &[24, 40],
                &[-99.9],
            ),
            3,
            Kind::Rel,
        ),
        (
            "sz_v1_fast_golden.wz",
            opts(
                ElemType::F32,
                Kind::PwRel,
                2,
                LossyMode::Fast,
                &[2, 12, 40],
                &[],
            ),
            2,
            Kind::PwRel,
        ),
    ] {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name);
        let fresh = api::compress(&data, &o, &Device::Cpu).unwrap();
        if std::env::var_os("WARPZIP_BLESS").is_some() {
            std::fs::write(&path, &fresh).unwrap();
        }
        let golden = std::fs::read(&path).unwrap();
        let c = warpzip::format::Container::parse(&golden).unwrap();
        assert_eq!(c.header.codec.to_u16(), 9, "{name}");
        assert_eq!(c.header.codec_params[0], 1, "{name}: layout");
        assert_eq!(golden, fresh, "{name}: the encoder's bytes changed");
        let back = api::decompress(&golden, &Device::Cpu).unwrap();
        let again = api::decompress(&fresh, &Device::Cpu).unwrap();
        assert_eq!(back, again);
        round_trip(&data, &o, k, kind);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    /// The fuzz target `sz_decode`'s logic: any bytes under any context return, never panic.
    #[test]
    fn random_chunks_never_panic(data in proptest::collection::vec(any::<u8>(), 6..400)) {
        use warpzip::codec::sz::cpu::{decode_chunk, Ctx};
        use warpzip::codec::sz::format::{Geometry, MODE_FAST, MODE_RATIO, RADIUS};
        use warpzip::codec::sz::quant::Float;
        let (head, stream) = data.split_at(6);
        let flags = head[0];
        let float = if flags & 4 != 0 { Float::F64 } else { Float::F32 };
        let ndim = head[1] % 3 + 1;
        let (ny, nx) = (usize::from(head[2] % 17) + 1, usize::from(head[3] % 17) + 1);
        let geometry = match ndim {
            1 => Geometry { ndim, ny: 1, nx: 1 },
            2 => Geometry { ndim, ny: 1, nx },
            _ => Geometry { ndim, ny, nx },
        };
        let lines = usize::from(u16::from_le_bytes([head[4], head[5]])) % 600;
        let n = lines * geometry.line();
        let ctx = Ctx {
            float,
            geometry,
            mode: if flags & 1 != 0 { MODE_FAST } else { MODE_RATIO },
            pw_rel: (flags & 2 != 0).then_some(1e-3),
            bound: 1e-3,
            step: 2e-3,
            fills: if flags & 8 != 0 { vec![0x7f7f_ffff] } else { Vec::new() },
            radius: if flags & 16 != 0 { 3 } else { RADIUS },
            interp: flags & 64 == 0,
        runs: flags & 64 == 0,
        };
        // Mostly coded chunks (kind byte 0, or 2: interpolated), so that the decoder gets
        // past the first byte.
        let mut stream = stream.to_vec();
        if flags & 32 == 0 && !stream.is_empty() {
            stream[0] = if flags & 128 != 0 { 2 } else { 0 };
        }
        let mut out = vec![0u8; n * float.size()];
        let _ = decode_chunk(&stream, &mut out, &ctx);
    }
}

// ---- the interpolation predictor (chunk kind 2, layout 2), forced on every chunk ----

use warpzip::codec::sz::{chunked, cpu, interp, quant::Float};

/// Encodes every chunk of `data` with the interpolation predictor and spline `spline`, decodes
/// it, and returns the decoded bytes and the chunks' total size.
fn interp_round_trip(data: &[u8], o: &CompressOptions, spline: u8) -> (Vec<u8>, usize) {
    let elem = o.elem_type.unwrap();
    let float = if elem == ElemType::F64 {
        Float::F64
    } else {
        Float::F32
    };
    let (ctx, _) = chunked::plan(data, o.lossy.as_ref().unwrap(), float).unwrap();
    assert!(ctx.interp);
    let cs = chunked::chunk_size(ctx.geometry, float, o.chunk_size).unwrap() as usize;
    let mut back = vec![0u8; data.len()];
    let mut bytes = 0;
    for (c, out) in data.chunks(cs).zip(back.chunks_mut(cs)) {
        let e = interp::encode_chunk_spline(c, &ctx, spline).unwrap();
        assert_eq!(e.bytes[0], cpu::CHUNK_INTERP);
        bytes += e.bytes.len();
        cpu::decode_chunk(&e.bytes, out, &ctx).unwrap();
    }
    (back, bytes)
}

fn interp_check(data: &[u8], o: &CompressOptions, k: u32, kind: Kind) -> [f64; 2] {
    let fill = o.lossy.as_ref().unwrap().fill.clone();
    [interp::SPLINE_LINEAR, interp::SPLINE_CUBIC].map(|spline| {
        let (back, bytes) = interp_round_trip(data, o, spline);
        check_values(data, &back, o.elem_type.unwrap(), &fill, k, kind);
        data.len() as f64 / bytes.max(1) as f64
    })
}

/// Every field, `abs` and `rel` at every bound from 1e-1 to 1e-6, both splines: zero
/// violations, fill values bit-exact.
#[test]
fn interpolated_fields_keep_their_bounds() {
    for f in FIELDS {
        let data = field(f);
        for kind in [Kind::Abs, Kind::Rel] {
            for k in 1..=6 {
                let o = opts(ElemType::F32, kind, k, LossyMode::Ratio, f.dims, f.fill);
                let [lin, cub] = interp_check(&data, &o, k, kind);
                eprintln!(
                    "{} interp {kind:?} 1e-{k}: linear {lin:.2}, cubic {cub:.2}",
                    f.name
                );
            }
        }
    }
}

#[test]
fn interpolated_specials_fills_and_shapes() {
    let mut v: Vec<f32> = (0..3000).map(|i| (i as f32 * 0.01).sin() * 50.0).collect();
    for (j, s) in specials32().into_iter().enumerate() {
        for rep in 0..7 {
            v[j * 211 + rep * 13] = s;
        }
    }
    let data = f32s(&v);
    for dims in [&[][..], &[30, 100], &[3, 10, 100]] {
        for kind in [Kind::Abs, Kind::Rel] {
            for k in [1, 4, 6] {
                let o = opts(
                    ElemType::F32,
                    kind,
                    k,
                    LossyMode::Ratio,
                    dims,
                    &[-99.9, 1e34],
                );
                interp_check(&data, &o, k, kind);
            }
        }
    }
    let v64: Vec<f64> = v
        .iter()
        .map(|&x| f64::from(x))
        .chain([f64::from_bits(1), -0.0, f64::NAN, f64::MAX])
        .collect();
    let o = opts(
        ElemType::F64,
        Kind::Rel,
        5,
        LossyMode::Ratio,
        &[],
        &[-99.9f32 as f64],
    );
    interp_check(&f64s(&v64), &o, 5, Kind::Rel);
    let wave = |n: usize| -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 37 % 101) as f32).sqrt() - 5.0)
            .collect()
    };
    for (dims, n) in [
        (vec![1u64], 1usize),
        (vec![257], 257),
        (vec![1, 300], 300),
        (vec![300, 1], 300),
        (vec![17, 33], 17 * 33),
        (vec![9, 1, 17], 9 * 17),
        (vec![3, 5, 7], 105),
        (vec![19, 40, 41], 19 * 40 * 41),
    ] {
        let o = opts(ElemType::F32, Kind::Abs, 3, LossyMode::Ratio, &dims, &[]);
        interp_check(&f32s(&wave(n)), &o, 3, Kind::Abs);
    }
    let o = opts(
        ElemType::F32,
        Kind::Rel,
        2,
        LossyMode::Ratio,
        &[40, 100],
        &[],
    );
    interp_check(&f32s(&[3.7; 4000]), &o, 2, Kind::Rel);
}

/// A smooth field at a tight bound is interpolated (layout 2) by the automatic choice, and
/// decodes within its bound; `inspect` says so.
#[test]
fn smooth_fields_choose_interpolation() {
    let v: Vec<f32> = (0..256 * 256)
        .map(|i| {
            let (y, x) = ((i / 256) as f32, (i % 256) as f32);
            (x * 0.05).sin() * (y * 0.03).cos() * 100.0
        })
        .collect();
    let data = f32s(&v);
    let o = opts(
        ElemType::F32,
        Kind::Rel,
        5,
        LossyMode::Ratio,
        &[256, 256],
        &[],
    );
    let ratio = round_trip(&data, &o, 5, Kind::Rel);
    let wz = api::compress(&data, &o, &Device::Cpu).unwrap();
    let c = warpzip::format::Container::parse(&wz).unwrap();
    assert_eq!(c.header.codec_params[0], 2, "layout");
    assert!(c
        .chunk_list()
        .iter()
        .all(|(b, _)| b[0] == cpu::CHUNK_INTERP));
    let words = warpzip::codec::codec(CodecId::Sz)
        .unwrap()
        .describe_params(&c.header.codec_params, c.header.elem_type)
        .unwrap();
    assert!(words.contains("interpolated"), "{words}");
    // Lorenzo alone: the same field in fast mode is never interpolated.
    let mut fast = o.clone();
    fast.lossy.as_mut().unwrap().mode = LossyMode::Fast;
    let f = api::compress(&data, &fast, &Device::Cpu).unwrap();
    assert_eq!(
        warpzip::format::Container::parse(&f)
            .unwrap()
            .header
            .codec_params[0],
        1
    );
    eprintln!("smooth rel 1e-5: ratio {ratio:.2}");
    assert!(ratio > 8.0, "{ratio:.2}");
}

/// Every truncation and many bit flips of interpolated chunks: an error or some output, never
/// a panic; a truncation or a trailing byte is always an error; a reader of layout 1 refuses
/// the chunk kind.
#[test]
fn damaged_interpolated_chunks_give_errors() {
    let wave: Vec<f32> = (0..5000)
        .map(|i| (i as f32 * 0.013).sin() * 10.0 + if i % 97 == 0 { 1e6 } else { 0.0 })
        .collect();
    let data = f32s(&wave);
    for spline in [interp::SPLINE_LINEAR, interp::SPLINE_CUBIC] {
        let o = opts(
            ElemType::F32,
            Kind::Abs,
            3,
            LossyMode::Ratio,
            &[50, 100],
            &[1e6],
        );
        let (mut ctx, _) = chunked::plan(&data, o.lossy.as_ref().unwrap(), Float::F32).unwrap();
        let chunk = interp::encode_chunk_spline(&data, &ctx, spline)
            .unwrap()
            .bytes;
        let mut out = vec![0u8; data.len()];
        cpu::decode_chunk(&chunk, &mut out, &ctx).unwrap();
        for cut in 0..chunk.len() {
            assert!(
                cpu::decode_chunk(&chunk[..cut], &mut out, &ctx).is_err(),
                "cut at {cut}"
            );
        }
        for flip in (0..chunk.len() * 8).step_by(3) {
            let mut c = chunk.clone();
            c[flip / 8] ^= 1 << (flip % 8);
            let _ = cpu::decode_chunk(&c, &mut out, &ctx);
        }
        let mut c = chunk.clone();
        c.push(0);
        assert!(cpu::decode_chunk(&c, &mut out, &ctx).is_err());
        ctx.interp = false;
        assert!(cpu::decode_chunk(&chunk, &mut out, &ctx).is_err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn random_fields_keep_their_bounds_interpolated(
        raw in proptest::collection::vec(any::<u32>(), 0..900),
        smooth in any::<bool>(),
        k in 1u32..7,
        rel in any::<bool>(),
        ndim in 1usize..4,
    ) {
        let v: Vec<f32> = raw.iter().enumerate().map(|(i, &r)| {
            if smooth { (i as f32 * 0.05).sin() * 100.0 + (r % 1000) as f32 * 1e-3 } else { f32::from_bits(r) }
        }).collect();
        let n = v.len() as u64;
        let dims = match ndim {
            1 => vec![n],
            2 if n.is_multiple_of(7) => vec![7, n / 7],
            3 if n.is_multiple_of(6) => vec![2, 3, n / 6],
            _ => vec![],
        };
        // No zero dimension: an empty field is a flat one.
        let dims = if n == 0 { vec![] } else { dims };
        let kind = if rel { Kind::Rel } else { Kind::Abs };
        let o = opts(ElemType::F32, kind, k, LossyMode::Ratio, &dims, &[]);
        interp_check(&f32s(&v), &o, k, kind);
        round_trip(&f32s(&v), &o, k, kind);
    }
}

#[test]
fn a_dimension_of_zero_is_refused_cleanly() {
    for dims in [vec![7u64, 0], vec![2, 0, 3], vec![2, 3, 0]] {
        let o = opts(ElemType::F32, Kind::Abs, 3, LossyMode::Ratio, &dims, &[]);
        let err = api::compress(&[], &o, &Device::Cpu).unwrap_err();
        assert!(
            err.to_string().contains("dimension of 0"),
            "{dims:?}: {err}"
        );
    }
}

// ---- run symbols (layout 3) ----

/// At a tight bound some etopo chunks code runs of the zero delta (layout 3); the stream keeps
/// its bound, and a layout-3 stream whose runs are damaged gives errors, never panics.
#[test]
fn zero_runs_are_coded_where_they_pay() {
    let f = &FIELDS[1];
    let data = field(f);
    let o = opts(ElemType::F32, Kind::Rel, 4, LossyMode::Ratio, f.dims, &[]);
    let wz = api::compress(&data, &o, &Device::Cpu).unwrap();
    let c = warpzip::format::Container::parse(&wz).unwrap();
    assert_eq!(c.header.codec_params[0], 3, "layout");
    round_trip(&data, &o, 4, Kind::Rel);
    // Every run flag cleared in turn: the chunk is refused or decodes to something.
    let chunks: Vec<Vec<u8>> = c.chunk_list().iter().map(|(b, _)| b.to_vec()).collect();
    let params =
        warpzip::codec::sz::format::Params::parse(&c.header.codec_params, c.header.elem_type)
            .unwrap();
    let ctx = chunked::decode_ctx(&params, Float::F32);
    let lens: Vec<usize> = c.chunk_list().iter().map(|&(_, l)| l).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        let mut out = vec![0u8; lens[i]];
        cpu::decode_chunk(chunk, &mut out, &ctx).unwrap();
        for at in (0..chunk.len()).step_by(chunk.len() / 50 + 1) {
            let mut bad = chunk.clone();
            bad[at] ^= 0x5a;
            let _ = cpu::decode_chunk(&bad, &mut out, &ctx);
        }
        // Without layout 3 a chunk that codes runs is corrupt.
        let mut old = ctx.clone();
        old.runs = false;
        let _ = cpu::decode_chunk(chunk, &mut out, &old);
    }
}
