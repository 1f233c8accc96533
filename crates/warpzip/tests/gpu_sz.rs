//! The GPU decoders and encoders of the `sz` codec (`codec::sz::gpu`, fast and ratio mode)
//! against the CPU reference: identical bits on every test field, every error mode and several
//! bounds, both ratio-mode predictors (Lorenzo and interpolation), run symbols (layout 3),
//! f32 and f64, special and fill values, awkward shapes, and the same chunk named on damaged
//! streams. Outputs are poisoned before every GPU decode. GPU
//! tests fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{gpu, testdata};

use warpzip::api::{self, CompressOptions};
use warpzip::codec::sz::compare::compare;
use warpzip::codec::sz::format::Params;
use warpzip::codec::sz::gpu::{decompress_fast, decompress_ratio};
use warpzip::codec::sz::{chunked, quant::Float};
use warpzip::codec::{CodecId, ErrorBound, LossyMode, LossyOptions};
use warpzip::format::{write_container, ChunkSpan, Container, ElemType};
use warpzip::{Device, Error};

fn opts(elem: ElemType, bound: ErrorBound, dims: &[u64], fill: &[f64]) -> CompressOptions {
    CompressOptions {
        elem_type: Some(elem),
        lossy: Some(LossyOptions {
            bound,
            dims: dims.to_vec(),
            fill: fill.to_vec(),
            mode: LossyMode::Fast,
        }),
        chunk_size: Some(256 << 10),
        ..CompressOptions::for_codec(CodecId::Sz)
    }
}

thread_local! {
    /// One GPU context per test thread, opened once: the damaged-stream tests decode thousands
    /// of streams, and opening a context (and loading its kernels) for each would dominate.
    static GPU: std::sync::Arc<warpzip::gpu::GpuContext> = gpu();
}

/// The GPU decoder of the container's mode on its chunks.
fn gpu_decode(wz: &[u8], out: &mut [u8]) -> warpzip::Result<()> {
    let c = Container::parse(wz)?;
    c.verify_all()?;
    let params = Params::parse(&c.header.codec_params, c.header.elem_type)?;
    let float = if c.header.elem_type == ElemType::F32 {
        Float::F32
    } else {
        Float::F64
    };
    let ctx = chunked::decode_ctx(&params, float);
    GPU.with(|g| {
        if params.mode == warpzip::codec::sz::format::MODE_FAST {
            decompress_fast(g, &c.chunk_list(), out, &ctx)
        } else {
            decompress_ratio(g, &c.chunk_list(), out, &ctx)
        }
    })
}

/// Decodes `wz` on the GPU into a poisoned buffer and on the CPU; both must agree bit for bit.
fn same_on_both(wz: &[u8], what: &str) {
    let c = Container::parse(wz).unwrap();
    let cpu = api::decompress(wz, &Device::Cpu).unwrap();
    for poison in [0x00u8, 0xA5, 0xFF] {
        let mut out = vec![poison; c.header.total_len as usize];
        gpu_decode(wz, &mut out).unwrap();
        assert!(
            out == cpu,
            "{what}: GPU and CPU differ (poison {poison:#x})"
        );
    }
}

/// Decodes on the GPU into a new buffer.
fn gpu_decompress(wz: &[u8]) -> warpzip::Result<Vec<u8>> {
    let c = Container::parse(wz)?;
    let mut out = vec![0x5Au8; c.header.total_len as usize];
    gpu_decode(wz, &mut out)?;
    Ok(out)
}

/// The special values the decoder tests plant (NaN, +Inf, -0.0, the smallest denormal, the
/// fill value -99.9, a value too large to quantize).
const SPECIALS: [f64; 6] = [
    f64::NAN,
    f64::INFINITY,
    -0.0,
    f64::from_bits(1),
    -99.9,
    1e300,
];

/// The encoder test's: the same with -Inf among them.
const ENCODER_SPECIALS: [f64; 7] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    f64::from_bits(1),
    -99.9,
    1e300,
];

/// 20000 values of a rippled sine (with plateaus of 5.0, 300 of every 3000 values, where
/// `plateaus`), each of `specials` written over 9 values from a multiple of 997.
fn special_field(specials: &[f64], plateaus: bool) -> Vec<f64> {
    let mut v: Vec<f64> = (0..20000)
        .map(|i| {
            if plateaus && i % 3000 < 300 {
                5.0
            } else {
                (i as f64 * 0.001).sin() * 1e3 + (i % 7) as f64
            }
        })
        .collect();
    for (j, &s) in specials.iter().enumerate() {
        for r in 0..9 {
            v[j * 997 + r] = s;
        }
    }
    v
}

/// The test fields: name, dims, fill values.
const FIELDS: [(&str, &[u64], &[f64]); 4] = [
    (
        "coads_climatology.SST.12x90x180.f32",
        &[12, 90, 180],
        &[-1e34],
    ),
    ("etopo20.ROSE.540x1081.f32", &[540, 1081], &[]),
    (
        "levitus_climatology.SALT.20x180x360.f32",
        &[20, 180, 360],
        &[-1e10],
    ),
    ("testfloat_8_8_128.dat", &[8, 8, 128], &[]),
];

/// Runs `check(data, dims, fill, bound, what)` on every test field under every bound of
/// `bounds`, with the field's dims and as a flat field.
fn for_fields(
    bounds: &[ErrorBound],
    mut check: impl FnMut(&[u8], &[u64], &[f64], ErrorBound, &str),
) {
    for (name, dims, fill) in FIELDS {
        let data = std::fs::read(testdata().join("fields").join(name)).unwrap();
        for &bound in bounds {
            for d in [dims, &[][..]] {
                check(&data, d, fill, bound, &format!("{name} {bound} dims {d:?}"));
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn fields_decode_identically() {
    let bounds = [
        ErrorBound::Rel(1e-2),
        ErrorBound::Rel(1e-5),
        ErrorBound::Abs(1e-3),
        ErrorBound::PwRel(1e-3),
    ];
    for_fields(&bounds, |data, d, fill, bound, what| {
        let wz = api::compress(data, &opts(ElemType::F32, bound, d, fill), &Device::Cpu).unwrap();
        same_on_both(&wz, what);
    });
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_specials_and_awkward_shapes_decode_identically() {
    let v = special_field(&SPECIALS, false);
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    for dims in [
        &[][..],
        &[20000][..],
        &[100, 200][..],
        &[8, 50, 50][..],
        &[5, 4, 1000][..],
    ] {
        for bound in [
            ErrorBound::Abs(1e-2),
            ErrorBound::Rel(1e-6),
            ErrorBound::PwRel(1e-4),
        ] {
            let wz = api::compress(
                &data,
                &opts(ElemType::F64, bound, dims, &[-99.9]),
                &Device::Cpu,
            )
            .unwrap();
            same_on_both(&wz, &format!("f64 {bound} dims {dims:?}"));
        }
    }
    let v32: Vec<u8> = v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    for dims in [&[1, 20000][..], &[20000, 1][..], &[5, 25, 160][..]] {
        let wz = api::compress(
            &v32,
            &opts(ElemType::F32, ErrorBound::Rel(1e-3), dims, &[]),
            &Device::Cpu,
        )
        .unwrap();
        same_on_both(&wz, &format!("f32 dims {dims:?}"));
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn damaged_chunks_are_named_on_the_gpu() {
    let data: Vec<u8> = (0..50000)
        .flat_map(|i| ((i as f32 * 0.01).sin() * 10.0).to_le_bytes())
        .collect();
    let mut o = opts(ElemType::F32, ErrorBound::Abs(1e-3), &[500, 100], &[]);
    o.chunk_size = Some(16 * 100 * 4);
    let wz = api::compress(&data, &o, &Device::Cpu).unwrap();
    let parsed = Container::parse(&wz).unwrap();
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
            spans.push(ChunkSpan {
                offset: payload.len(),
                compressed_len: c.len() as u32,
                uncompressed_len: header.chunk_uncompressed_len(i as u32).unwrap(),
            });
            payload.extend_from_slice(c);
        }
        let mut out = Vec::new();
        write_container(&mut out, &header, &payload, &spans).unwrap();
        out
    };
    for victim in [0, chunks.len() / 2, chunks.len() - 1] {
        for cut in [0, 1, 5, chunks[victim].len() / 2, chunks[victim].len() - 1] {
            let mut c = chunks.clone();
            c[victim].truncate(cut);
            match gpu_decompress(&reseal(&c)) {
                Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, victim),
                other => panic!("chunk {victim} cut at {cut}: {:?}", other.map(|v| v.len())),
            }
        }
        for flip in (0..chunks[victim].len() * 8).step_by(37) {
            let mut c = chunks.clone();
            c[victim][flip / 8] ^= 1 << (flip % 8);
            let wz = reseal(&c);
            let on_cpu = api::decompress(&wz, &Device::Cpu);
            let on_gpu = gpu_decompress(&wz);
            match (on_cpu, on_gpu) {
                (Ok(a), Ok(b)) => assert!(a == b, "flip {flip}: outputs differ"),
                (Err(_), Err(Error::Corrupt { chunk, .. })) => assert_eq!(chunk, victim),
                (a, b) => panic!(
                    "flip {flip} of chunk {victim}: CPU {:?}, GPU {:?}",
                    a.map(|v| v.len()),
                    b.map(|v| v.len())
                ),
            }
        }
    }
}

/// The GPU encoder of the options' mode writes the CPU encoder's chunks byte for byte
/// (`compress_fast` against `cpu::encode_chunk`, `compress_ratio` against
/// `cpu::encode_chunk_best`, the latter also with interpolation and with run symbols switched
/// off); in ratio mode the GPU's chunks, decoded on the CPU and on the GPU, keep the bound.
fn same_encoding(data: &[u8], o: &CompressOptions, what: &str) {
    use rayon::prelude::*;
    use warpzip::codec::sz::{cpu, gpu as sz_gpu};
    let float = if o.elem_type == Some(ElemType::F32) {
        Float::F32
    } else {
        Float::F64
    };
    let lossy = o.lossy.as_ref().unwrap();
    let chunk_size = api::validate_options(o).unwrap() as usize;
    let (ctx, _) = chunked::plan(data, lossy, float).unwrap();
    let gpu = gpu();
    let variants: &[(bool, bool)] = match lossy.mode {
        LossyMode::Fast => &[(true, true)],
        LossyMode::Ratio => &[(true, true), (false, true), (true, false)],
    };
    for &(interp, runs) in variants {
        let mut ctx = ctx.clone();
        ctx.interp &= interp;
        ctx.runs &= runs;
        let what = format!("{what} (interpolation {interp}, runs {runs})");
        let (cpu, on_gpu) = match lossy.mode {
            LossyMode::Fast => (
                data.par_chunks(chunk_size)
                    .map(|c| cpu::encode_chunk(c, &ctx).unwrap())
                    .collect::<Vec<_>>(),
                sz_gpu::compress_fast(&gpu, data, chunk_size, &ctx).unwrap(),
            ),
            LossyMode::Ratio => (
                data.par_chunks(chunk_size)
                    .map(|c| cpu::encode_chunk_best(c, &ctx).unwrap())
                    .collect::<Vec<_>>(),
                sz_gpu::compress_ratio(&gpu, data, chunk_size, &ctx).unwrap(),
            ),
        };
        assert_eq!(cpu.len(), on_gpu.len(), "{what}");
        for (i, (a, b)) in cpu.iter().zip(&on_gpu).enumerate() {
            assert!(
                a.bytes == b.bytes,
                "{what}: chunk {i} differs ({} bytes on the CPU, {} on the GPU)",
                a.bytes.len(),
                b.bytes.len()
            );
            assert_eq!(a.exceptions, b.exceptions, "{what}: chunk {i}");
            assert_eq!(a.runs, b.runs, "{what}: chunk {i}");
        }
        if lossy.mode == LossyMode::Ratio && interp && runs {
            // The GPU's chunks in a container (layout 3 reads every chunk kind), decoded.
            let wz = api::compress(data, o, &Device::Cpu).unwrap();
            let header = Container::parse(&wz).unwrap().header;
            let chunks: Vec<Vec<u8>> = on_gpu.into_iter().map(|c| c.bytes).collect();
            let wz = reseal_with(&header, Some(3), &chunks);
            let back = api::decompress(&wz, &Device::Cpu).unwrap();
            let elem = o.elem_type.unwrap();
            let c = compare(data, &back, elem, Some(lossy.bound)).unwrap();
            assert_eq!(c.violations, Some(0), "{what}: bound broken");
            assert_eq!(c.special_mismatches, 0, "{what}: special values changed");
            same_on_both(&wz, &what);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_gpu_encoder_writes_the_cpu_bytes() {
    let bounds = [
        ErrorBound::Rel(1e-1),
        ErrorBound::Rel(1e-4),
        ErrorBound::Abs(1e-6),
        ErrorBound::PwRel(1e-3),
    ];
    for_fields(&bounds, |data, d, fill, bound, what| {
        same_encoding(data, &opts(ElemType::F32, bound, d, fill), what);
    });
    let v: Vec<u8> = (0..30000)
        .flat_map(|i| {
            let x = match i % 1000 {
                7 => f64::NAN,
                8 => -0.0,
                9 => f64::from_bits(3),
                10 => -99.9,
                _ => (i as f64 * 0.002).cos() * 1e4 + (i % 13) as f64,
            };
            x.to_le_bytes()
        })
        .collect();
    for dims in [&[][..], &[300, 100][..], &[3, 100, 100][..]] {
        for bound in [
            ErrorBound::Abs(1e-2),
            ErrorBound::Rel(1e-6),
            ErrorBound::PwRel(1e-5),
        ] {
            same_encoding(
                &v,
                &opts(ElemType::F64, bound, dims, &[-99.9]),
                &format!("f64 {bound} {dims:?}"),
            );
        }
    }
}

// ---- ratio mode ----

fn ratio_opts(elem: ElemType, bound: ErrorBound, dims: &[u64], fill: &[f64]) -> CompressOptions {
    let mut o = opts(elem, bound, dims, fill);
    if let Some(l) = o.lossy.as_mut() {
        l.mode = LossyMode::Ratio;
    }
    o
}

/// A container with `header` (its layout set to `layout`) around `chunks`.
fn reseal_with(
    header: &warpzip::format::Header,
    layout: Option<u8>,
    chunks: &[Vec<u8>],
) -> Vec<u8> {
    let mut header = header.clone();
    if let Some(l) = layout {
        header.codec_params[0] = l;
    }
    let mut payload = Vec::new();
    let mut spans = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        spans.push(ChunkSpan {
            offset: payload.len(),
            compressed_len: c.len() as u32,
            uncompressed_len: header.chunk_uncompressed_len(i as u32).unwrap(),
        });
        payload.extend_from_slice(c);
    }
    let mut out = Vec::new();
    write_container(&mut out, &header, &payload, &spans).unwrap();
    out
}

/// The container `wz` re-encoded chunk by chunk with `encode` (layout 3, which reads every
/// chunk kind and run symbols).
fn re_encoded(
    wz: &[u8],
    data: &[u8],
    o: &CompressOptions,
    encode: impl Fn(&[u8], &warpzip::codec::sz::cpu::Ctx) -> warpzip::codec::sz::cpu::EncodedChunk,
) -> Vec<u8> {
    let c = Container::parse(wz).unwrap();
    let float = if o.elem_type == Some(ElemType::F32) {
        Float::F32
    } else {
        Float::F64
    };
    let (ctx, _) = chunked::plan(data, o.lossy.as_ref().unwrap(), float).unwrap();
    let chunk_size = c.header.chunk_size as usize;
    let chunks: Vec<Vec<u8>> = data
        .chunks(chunk_size)
        .map(|part| encode(part, &ctx).bytes)
        .collect();
    reseal_with(&c.header, Some(3), &chunks)
}

/// Ratio-mode streams of every field, bound and shape decode on the GPU to the CPU's bits:
/// as the CPU writes them (each chunk the better predictor, runs where they pay), and with
/// every chunk forced to Lorenzo, to the linear and to the cubic spline.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ratio_fields_decode_identically() {
    use warpzip::codec::sz::{cpu, interp};
    let bounds = [
        ErrorBound::Rel(1e-2),
        ErrorBound::Rel(1e-3),
        ErrorBound::Rel(1e-4),
        ErrorBound::Abs(1e-3),
        ErrorBound::PwRel(1e-3),
    ];
    for_fields(&bounds, |data, d, fill, bound, what| {
        let o = ratio_opts(ElemType::F32, bound, d, fill);
        let wz = api::compress(data, &o, &Device::Cpu).unwrap();
        same_on_both(&wz, what);
        if matches!(bound, ErrorBound::PwRel(_)) {
            return;
        }
        let lorenzo = re_encoded(&wz, data, &o, |p, ctx| cpu::encode_chunk(p, ctx).unwrap());
        same_on_both(&lorenzo, &format!("{what}, Lorenzo"));
        for spline in [interp::SPLINE_LINEAR, interp::SPLINE_CUBIC] {
            let wz2 = re_encoded(&wz, data, &o, |p, ctx| {
                interp::encode_chunk_spline(p, ctx, spline).unwrap()
            });
            same_on_both(&wz2, &format!("{what}, spline {spline}"));
        }
    });
}

/// f64 and f32 ratio-mode streams with special and fill values, one-value and odd shapes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ratio_specials_and_awkward_shapes_decode_identically() {
    let v = special_field(&SPECIALS, false);
    let data: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    for dims in [
        &[][..],
        &[20000][..],
        &[100, 200][..],
        &[8, 50, 50][..],
        &[5, 4, 1000][..],
        &[20000, 1][..],
    ] {
        for bound in [
            ErrorBound::Abs(1e-2),
            ErrorBound::Abs(0.0),
            ErrorBound::Rel(1e-6),
            ErrorBound::Rel(1e-1),
            ErrorBound::PwRel(1e-4),
        ] {
            let wz = api::compress(
                &data,
                &ratio_opts(ElemType::F64, bound, dims, &[-99.9]),
                &Device::Cpu,
            )
            .unwrap();
            same_on_both(&wz, &format!("f64 {bound} dims {dims:?}"));
        }
    }
    let v32: Vec<u8> = v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    for dims in [
        &[1, 20000][..],
        &[20000, 1][..],
        &[5, 25, 160][..],
        &[1, 1, 20000][..],
    ] {
        for bound in [ErrorBound::Rel(1e-3), ErrorBound::Rel(1e-2)] {
            let mut o = ratio_opts(ElemType::F32, bound, dims, &[]);
            o.chunk_size = Some(4096);
            let wz = api::compress(&v32, &o, &Device::Cpu).unwrap();
            same_on_both(&wz, &format!("f32 {bound} dims {dims:?}"));
        }
    }
    // A single value, a constant field (runs of the zero delta everywhere).
    for (vals, dims) in [
        (vec![1.5f32], vec![1u64]),
        (vec![3.25f32; 70000], vec![70000]),
    ] {
        let d: Vec<u8> = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
        let wz = api::compress(
            &d,
            &ratio_opts(ElemType::F32, ErrorBound::Rel(1e-3), &dims, &[]),
            &Device::Cpu,
        )
        .unwrap();
        same_on_both(&wz, &format!("{} values", vals.len()));
    }
}

/// Damaged ratio-mode chunks (Lorenzo, interpolated, with runs): the GPU names the chunk the
/// CPU refuses, and where the CPU decodes the GPU gives the same values.
#[test]
#[ignore = "needs a CUDA GPU"]
fn damaged_ratio_chunks_are_named_on_the_gpu() {
    use warpzip::codec::sz::{cpu, interp};
    let data: Vec<u8> = (0..50000)
        .flat_map(|i| {
            let x = if i % 3000 < 400 {
                5.0
            } else {
                (i as f32 * 0.01).sin() * 10.0
            };
            x.to_le_bytes()
        })
        .collect();
    let mut o = ratio_opts(ElemType::F32, ErrorBound::Abs(1e-3), &[500, 100], &[]);
    o.chunk_size = Some(16 * 100 * 4);
    let wz = api::compress(&data, &o, &Device::Cpu).unwrap();
    let lorenzo = re_encoded(&wz, &data, &o, |p, ctx| cpu::encode_chunk(p, ctx).unwrap());
    let spline = re_encoded(&wz, &data, &o, |p, ctx| {
        interp::encode_chunk_spline(p, ctx, interp::SPLINE_CUBIC).unwrap()
    });
    for stream in [wz, lorenzo, spline] {
        let parsed = Container::parse(&stream).unwrap();
        let header = parsed.header.clone();
        let chunks: Vec<Vec<u8>> = parsed
            .chunk_list()
            .iter()
            .map(|(c, _)| c.to_vec())
            .collect();
        same_on_both(&stream, "undamaged");
        for victim in [0, chunks.len() / 2, chunks.len() - 1] {
            for cut in [0, 1, 5, chunks[victim].len() / 2, chunks[victim].len() - 1] {
                let mut c = chunks.clone();
                c[victim].truncate(cut);
                match gpu_decompress(&reseal_with(&header, None, &c)) {
                    Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, victim),
                    other => panic!("chunk {victim} cut at {cut}: {:?}", other.map(|v| v.len())),
                }
            }
            for flip in (0..chunks[victim].len() * 8).step_by(29) {
                let mut c = chunks.clone();
                c[victim][flip / 8] ^= 1 << (flip % 8);
                let wz = reseal_with(&header, None, &c);
                match (api::decompress(&wz, &Device::Cpu), gpu_decompress(&wz)) {
                    (Ok(a), Ok(b)) => assert!(a == b, "flip {flip}: outputs differ"),
                    (Err(_), Err(Error::Corrupt { chunk, .. })) => assert_eq!(chunk, victim),
                    (a, b) => panic!(
                        "flip {flip} of chunk {victim}: CPU {:?}, GPU {:?}",
                        a.map(|v| v.len()),
                        b.map(|v| v.len())
                    ),
                }
            }
        }
    }
}

/// The ratio mode's GPU encoder writes the CPU's chunks on every test field, under `abs`,
/// `rel` and `pw-rel` bounds from 1e-1 to 1e-6, with the field's dims and flat, with
/// interpolation and run symbols as planned and each switched off; its chunks decode within
/// the bound.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ratio_encode_fields_write_the_cpu_bytes() {
    let bounds = [
        ErrorBound::Rel(1e-1),
        ErrorBound::Rel(1e-4),
        ErrorBound::Abs(1e-2),
        ErrorBound::Abs(1e-6),
        ErrorBound::PwRel(1e-1),
        ErrorBound::PwRel(1e-4),
    ];
    for_fields(&bounds, |data, d, fill, bound, what| {
        same_encoding(data, &ratio_opts(ElemType::F32, bound, d, fill), what);
    });
}

/// The ratio mode's GPU encoder on f64 and f32 fields with special values (NaN, infinities,
/// -0.0, denormals), fill values, huge values, constant stretches, odd shapes, dims of 1,
/// small chunks, a single value and a constant field.
#[test]
#[ignore = "needs a CUDA GPU"]
fn ratio_encode_specials_and_shapes_write_the_cpu_bytes() {
    let v = special_field(&ENCODER_SPECIALS, true);
    let f64s: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    for dims in [
        &[][..],
        &[20000][..],
        &[100, 200][..],
        &[8, 50, 50][..],
        &[5, 4, 1000][..],
        &[20000, 1][..],
        &[1, 20000][..],
        &[1, 1, 20000][..],
    ] {
        for bound in [
            ErrorBound::Abs(1e-2),
            ErrorBound::Abs(0.0),
            ErrorBound::Rel(1e-6),
            ErrorBound::Rel(1e-1),
            ErrorBound::PwRel(1e-4),
        ] {
            same_encoding(
                &f64s,
                &ratio_opts(ElemType::F64, bound, dims, &[-99.9]),
                &format!("f64 {bound} dims {dims:?}"),
            );
        }
    }
    let f32s: Vec<u8> = v.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    for dims in [
        &[1, 20000][..],
        &[20000, 1][..],
        &[5, 25, 160][..],
        &[1, 1, 20000][..],
        &[][..],
    ] {
        for bound in [
            ErrorBound::Rel(1e-3),
            ErrorBound::Rel(1e-2),
            ErrorBound::Abs(1e-5),
            ErrorBound::PwRel(1e-2),
        ] {
            for chunk in [4096u32, 256 << 10] {
                let mut o = ratio_opts(ElemType::F32, bound, dims, &[-99.9]);
                o.chunk_size = Some(chunk);
                same_encoding(
                    &f32s,
                    &o,
                    &format!("f32 {bound} dims {dims:?} chunk {chunk}"),
                );
            }
        }
    }
    // A single value, a constant field (runs of the zero delta everywhere).
    for (vals, dims) in [
        (vec![1.5f32], vec![1u64]),
        (vec![3.25f32; 70000], vec![70000]),
        (vec![3.25f32; 70000], vec![7, 100, 100]),
    ] {
        let d: Vec<u8> = vals.iter().flat_map(|x| x.to_le_bytes()).collect();
        same_encoding(
            &d,
            &ratio_opts(ElemType::F32, ErrorBound::Rel(1e-3), &dims, &[]),
            &format!("{} values dims {dims:?}", vals.len()),
        );
    }
}

/// The codec behind `api::compress` and `api::decompress` on a GPU device: both modes encode
/// on the GPU to the CPU's bytes and decode on the GPU to the CPU's values.
#[test]
#[ignore = "needs a CUDA GPU"]
fn the_codec_on_a_gpu_device_matches_the_cpu() {
    let device = Device::Gpu(gpu());
    for_fields(
        &[
            ErrorBound::Rel(1e-2),
            ErrorBound::Abs(0.5),
            ErrorBound::PwRel(1e-3),
        ],
        |data, dims, fill, bound, what| {
            for o in [
                opts(ElemType::F32, bound, dims, fill),
                ratio_opts(ElemType::F32, bound, dims, fill),
            ] {
                let on_cpu = api::compress(data, &o, &Device::Cpu).unwrap();
                let on_gpu = api::compress(data, &o, &device).unwrap();
                assert!(on_cpu == on_gpu, "{what}: the GPU device wrote other bytes");
                let cpu = api::decompress(&on_cpu, &Device::Cpu).unwrap();
                let gpu_out = api::decompress(&on_cpu, &device).unwrap();
                assert!(
                    cpu == gpu_out,
                    "{what}: the GPU device decoded other values"
                );
            }
        },
    );
}
