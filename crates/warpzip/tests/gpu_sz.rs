//! The GPU decoder of the `sz` fast mode (`codec::sz::gpu`) against the CPU reference: identical bits on every
//! test field, every error mode and several bounds, f32 and f64, special and fill values, and
//! the same chunk named on damaged streams. Outputs are poisoned before every GPU decode. GPU
//! tests fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{gpu, testdata};

use warpzip::api::{self, CompressOptions};
use warpzip::codec::sz::format::Params;
use warpzip::codec::sz::gpu::decompress_fast;
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

/// The fast-mode GPU decoder on a container's chunks.
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
    decompress_fast(&gpu(), &c.chunk_list(), out, &ctx)
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

#[test]
#[ignore = "needs a CUDA GPU"]
fn fields_decode_identically() {
    for (name, dims, fill) in [
        (
            "coads_climatology.SST.12x90x180.f32",
            &[12u64, 90, 180][..],
            &[-1e34][..],
        ),
        ("etopo20.ROSE.540x1081.f32", &[540, 1081][..], &[][..]),
        (
            "levitus_climatology.SALT.20x180x360.f32",
            &[20, 180, 360][..],
            &[-1e10][..],
        ),
        ("testfloat_8_8_128.dat", &[8, 8, 128][..], &[][..]),
    ] {
        let data = std::fs::read(testdata().join("fields").join(name)).unwrap();
        for bound in [
            ErrorBound::Rel(1e-2),
            ErrorBound::Rel(1e-5),
            ErrorBound::Abs(1e-3),
            ErrorBound::PwRel(1e-3),
        ] {
            for d in [dims, &[][..]] {
                let wz = api::compress(&data, &opts(ElemType::F32, bound, d, fill), &Device::Cpu)
                    .unwrap();
                same_on_both(&wz, &format!("{name} {bound} dims {d:?}"));
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn f64_specials_and_awkward_shapes_decode_identically() {
    let mut v: Vec<f64> = (0..20000)
        .map(|i| (i as f64 * 0.001).sin() * 1e3 + (i % 7) as f64)
        .collect();
    for (j, s) in [
        f64::NAN,
        f64::INFINITY,
        -0.0,
        f64::from_bits(1),
        -99.9,
        1e300,
    ]
    .into_iter()
    .enumerate()
    {
        for r in 0..9 {
            v[j * 997 + r] = s;
        }
    }
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
    for dims in [&[1, 20000][..], &[20000, 1][..], &[3, 7, 952][..]] {
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

/// The GPU encoder writes the CPU encoder's chunks byte for byte.
fn same_encoding(data: &[u8], o: &CompressOptions, what: &str) {
    let float = if o.elem_type == Some(ElemType::F32) {
        Float::F32
    } else {
        Float::F64
    };
    let lossy = o.lossy.as_ref().unwrap();
    let chunk_size = api::validate_options(o).unwrap() as usize;
    let (ctx, _) = chunked::plan(data, lossy, float).unwrap();
    let cpu: Vec<_> = data
        .chunks(chunk_size)
        .map(|c| warpzip::codec::sz::cpu::encode_chunk(c, &ctx).unwrap())
        .collect();
    let on_gpu = warpzip::codec::sz::gpu::compress_fast(&gpu(), data, chunk_size, &ctx).unwrap();
    assert_eq!(cpu.len(), on_gpu.len(), "{what}");
    for (i, (a, b)) in cpu.iter().zip(&on_gpu).enumerate() {
        assert!(a.bytes == b.bytes, "{what}: chunk {i} differs");
        assert_eq!(a.exceptions, b.exceptions, "{what}: chunk {i}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_gpu_encoder_writes_the_cpu_bytes() {
    for (name, dims, fill) in [
        (
            "coads_climatology.SST.12x90x180.f32",
            &[12u64, 90, 180][..],
            &[-1e34][..],
        ),
        ("etopo20.ROSE.540x1081.f32", &[540, 1081][..], &[][..]),
        (
            "levitus_climatology.SALT.20x180x360.f32",
            &[20, 180, 360][..],
            &[-1e10][..],
        ),
        ("testfloat_8_8_128.dat", &[8, 8, 128][..], &[][..]),
    ] {
        let data = std::fs::read(testdata().join("fields").join(name)).unwrap();
        for bound in [
            ErrorBound::Rel(1e-1),
            ErrorBound::Rel(1e-4),
            ErrorBound::Abs(1e-6),
            ErrorBound::PwRel(1e-3),
        ] {
            for d in [dims, &[][..]] {
                same_encoding(
                    &data,
                    &opts(ElemType::F32, bound, d, fill),
                    &format!("{name} {bound} {d:?}"),
                );
            }
        }
    }
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
