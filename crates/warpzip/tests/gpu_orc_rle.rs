//! The GPU ORC run-length decoders (warp per chunk on the CODAG framework, lane per sub-block
//! for indexed chunks, and the block-per-chunk leader-thread ablation) against the CPU
//! reference: identical values on random streams of every sub-encoding, width and element type,
//! at awkward sizes; identical verdicts on corrupted and truncated streams and on damaged
//! indexed chunks; row-group decoding (skip and count) inside streams. The CODAG framework itself is checked through its test codec (`codag_test.cu`) with
//! both input windows. GPU tests fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
mod kernels;
use common::gpu;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use warpzip::api::{self, CompressOptions};
use warpzip::codec::orc_rle::chunked;
use warpzip::codec::orc_rle::format::{Layout, RleVersion};
use warpzip::codec::orc_rle::gpu::{
    kernel_name, plan_sub_blocks, DecodeBatch, OrcRleChunk, Parallelism, StreamCodec, INPUT_ALIGN,
};
use warpzip::codec::orc_rle::{decode_byte_rle, encode_byte_rle};
use warpzip::codec::CodecId;
use warpzip::device::Device;
use warpzip::error::ChunkStatus;
use warpzip::format::ElemType;
use warpzip::gpu::GpuContext;

const ELEMS: [ElemType; 8] = [
    ElemType::I8,
    ElemType::I16,
    ElemType::I32,
    ElemType::I64,
    ElemType::U8,
    ElemType::U16,
    ElemType::U32,
    ElemType::U64,
];
const VERSIONS: [RleVersion; 2] = [RleVersion::V1, RleVersion::V2];
/// Every decoder of whole exact streams.
const PARS: [Parallelism; 5] = [
    Parallelism::WarpPerChunk,
    Parallelism::LanePerSubBlock,
    Parallelism::WalkExpand,
    Parallelism::Lockstep,
    Parallelism::LeaderPerBlock,
];
/// The decoders that also take row-group windows (skip, count, not exact).
const WINDOW_PARS: [Parallelism; 2] = [Parallelism::WarpPerChunk, Parallelism::LeaderPerBlock];

/// Whether `elem` is signed, and the least and greatest values it holds.
fn elem_range(elem: ElemType) -> (bool, i128, i128) {
    let bits = elem.size() as u32 * 8;
    let signed = matches!(
        elem,
        ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64
    );
    if signed {
        (true, -(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (false, 0, (1i128 << bits) - 1)
    }
}

/// Values of `elem` (as raw little-endian bytes) in one of several shapes that steer the
/// encoders into every sub-encoding: constant runs, linear runs, sorted keys with repeats,
/// small values with rare outliers (PATCHED_BASE), random values of a random width, extremes.
fn values(rng: &mut StdRng, elem: ElemType, n: usize, shape: u32) -> Vec<u8> {
    let bits = elem.size() as u32 * 8;
    let (signed, min, max) = elem_range(elem);
    let clamp = |v: i128| v.clamp(min, max);
    let mut out = Vec::with_capacity(n * elem.size() as usize);
    let mut cur: i128 = rng.gen_range(min..=max) / 2;
    let width = rng.gen_range(1..=bits);
    let mut i = 0;
    while i < n {
        let v = match shape % 7 {
            0 => {
                if rng.gen_ratio(1, 50) {
                    cur = rng.gen_range(min..=max);
                }
                cur
            }
            1 => {
                cur = clamp(cur + rng.gen_range(-3..=3));
                cur
            }
            2 => {
                if rng.gen_ratio(1, 4) {
                    cur = clamp(cur + rng.gen_range(1..40));
                }
                cur
            }
            3 => {
                if rng.gen_ratio(1, 40) {
                    clamp(rng.gen_range(min..=max))
                } else {
                    clamp(rng.gen_range(0..100) + if signed { -50 } else { 0 })
                }
            }
            4 => {
                let r: u128 = rng.gen::<u128>() & ((1u128 << width) - 1);
                clamp(if signed {
                    r as i128 - (1i128 << (width - 1))
                } else {
                    r as i128
                })
            }
            5 => [min, max, 0, min + 1, max - 1][rng.gen_range(0..5)],
            _ => {
                // Mixed stretches of the above.
                let s = rng.gen_range(0..6);
                let len = rng.gen_range(1..600).min(n - i);
                let part = values(rng, elem, len, s);
                out.extend_from_slice(&part);
                i += len;
                continue;
            }
        };
        out.extend_from_slice(&(v as i64).to_le_bytes()[..elem.size() as usize]);
        i += 1;
    }
    out
}

/// Encodes `data` in chunks on the CPU and returns the encoded chunks, each one ORC stream.
fn encode_chunks(data: &[u8], elem: ElemType, v: RleVersion, chunk: usize) -> Vec<Vec<u8>> {
    data.chunks(chunk)
        .map(|c| chunked::encode_chunk(c, elem, v, Layout::Plain).unwrap())
        .collect()
}

/// Lays encoded chunks out back to back (at random small gaps, so chunks start unaligned) and
/// returns the buffer and the GPU chunks decoding them exactly.
fn layout(rng: &mut StdRng, encoded: &[Vec<u8>], counts: &[usize]) -> (Vec<u8>, Vec<OrcRleChunk>) {
    let mut buf = Vec::new();
    let mut chunks = Vec::new();
    let mut out_offset = 0u64;
    for (e, &count) in encoded.iter().zip(counts) {
        for _ in 0..rng.gen_range(0..5) {
            buf.push(rng.gen());
        }
        chunks.push(OrcRleChunk {
            in_offset: buf.len() as u64,
            in_len: e.len() as u32,
            skip: 0,
            out_offset,
            count: count as u32,
            exact: 1,
        });
        buf.extend_from_slice(e);
        out_offset += count as u64;
    }
    (buf, chunks)
}

/// Runs a batch and returns (statuses, output bytes), the output poisoned first.
fn run_batch(
    g: &GpuContext,
    input: &[u8],
    chunks: &[OrcRleChunk],
    out_len: usize,
    elem: ElemType,
    codec: StreamCodec,
    par: Parallelism,
) -> (Vec<u32>, Vec<u8>) {
    let mut batch = DecodeBatch::new(g, input, chunks, out_len, elem.size() as usize).unwrap();
    batch.poison_output(g, 0xa5).unwrap();
    match par.module() {
        Some(_) => batch.launch(g, g.stream(), codec, elem, par).unwrap(),
        // The ablation's kernels are the tests' own (kernels/mod.rs).
        None => {
            let name = kernel_name(codec, elem, par).unwrap();
            batch
                .launch_kernel(g, g.stream(), &kernels::ORC_RLE_LEADER, &name, par)
                .unwrap()
        }
    }
    (batch.statuses(g).unwrap(), batch.output(g).unwrap())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_decoders_match_the_cpu_on_random_streams() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0x0c0da6);
    for &elem in &ELEMS {
        let size = elem.size() as usize;
        for &v in &VERSIONS {
            for shape in 0..7 {
                for &n in &[
                    0usize, 1, 2, 3, 31, 32, 33, 511, 512, 513, 4095, 4097, 40_000,
                ] {
                    let data = values(&mut rng, elem, n, shape);
                    let chunk = size * [32usize, 1000, 4096][rng.gen_range(0..3)];
                    let encoded = encode_chunks(&data, elem, v, chunk);
                    let counts: Vec<usize> = data.chunks(chunk).map(|c| c.len() / size).collect();
                    let (buf, chunks) = layout(&mut rng, &encoded, &counts);
                    for &par in &PARS {
                        let (status, out) = run_batch(
                            &g,
                            &buf,
                            &chunks,
                            data.len(),
                            elem,
                            StreamCodec::Int(v),
                            par,
                        );
                        assert!(
                            status.iter().all(|&s| s == 0),
                            "{elem} {v:?} shape {shape} n {n} {par:?}: statuses {status:?}"
                        );
                        assert!(
                            out == data,
                            "{elem} {v:?} shape {shape} n {n} {par:?}: values differ"
                        );
                    }
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn containers_decode_on_the_gpu_through_the_api() {
    let g = gpu();
    let device = Device::Gpu(g);
    let mut rng = StdRng::seed_from_u64(7);
    for &elem in &ELEMS {
        for codec in [CodecId::OrcRleV1, CodecId::OrcRleV2] {
            let n = 300_000 + rng.gen_range(0..1000);
            let data = values(&mut rng, elem, n, 6);
            let mut opts = CompressOptions::for_codec(codec);
            opts.elem_type = Some(elem);
            let wz = api::compress(&data, &opts, &Device::Cpu).unwrap();
            let back = api::decompress(&wz, &device).unwrap();
            assert!(back == data, "{elem} {codec:?}: GPU round trip differs");
        }
    }
}

/// Applies one random damage to a stream: a flipped bit, a random byte, a cut, or bytes added.
fn damage(rng: &mut StdRng, s: &mut Vec<u8>) {
    if s.is_empty() {
        s.push(rng.gen());
        return;
    }
    match rng.gen_range(0..4) {
        0 => {
            let i = rng.gen_range(0..s.len());
            s[i] ^= 1 << rng.gen_range(0..8);
        }
        1 => {
            let i = rng.gen_range(0..s.len());
            s[i] = rng.gen();
        }
        2 => {
            let keep = rng.gen_range(0..s.len());
            s.truncate(keep);
        }
        _ => {
            for _ in 0..rng.gen_range(1..20) {
                s.push(rng.gen());
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn corrupt_streams_get_the_cpu_verdict() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0xbad);
    let (mut same_status, mut total) = (0usize, 0usize);
    for &elem in &ELEMS {
        let size = elem.size() as usize;
        for &v in &VERSIONS {
            // 64 chunks of 1000 values, each damaged once.
            let data = values(&mut rng, elem, 64_000, 6);
            let chunk = 1000 * size;
            let mut encoded = encode_chunks(&data, elem, v, chunk);
            for e in encoded.iter_mut() {
                damage(&mut rng, e);
            }
            let counts = vec![1000usize; 64];
            let (buf, chunks) = layout(&mut rng, &encoded, &counts);
            let cpu: Vec<Result<Vec<u8>, ChunkStatus>> = encoded
                .iter()
                .map(|e| {
                    let mut dst = vec![0u8; chunk];
                    chunked::decode_chunk(e, elem, v, Layout::Plain, &mut dst).map(|_| dst)
                })
                .collect();
            for &par in &PARS {
                let (status, out) = run_batch(
                    &g,
                    &buf,
                    &chunks,
                    data.len(),
                    elem,
                    StreamCodec::Int(v),
                    par,
                );
                for (i, c) in cpu.iter().enumerate() {
                    total += 1;
                    match c {
                        Ok(values) => {
                            assert_eq!(status[i], 0, "{elem} {v:?} {par:?} chunk {i}: CPU ok");
                            assert!(
                                out[i * chunk..(i + 1) * chunk] == values[..],
                                "{elem} {v:?} {par:?} chunk {i}: values differ"
                            );
                            same_status += 1;
                        }
                        Err(s) => {
                            assert_ne!(
                                status[i], 0,
                                "{elem} {v:?} {par:?} chunk {i}: CPU says {s:?}, GPU ok"
                            );
                            if ChunkStatus::from_code(status[i]) == *s {
                                same_status += 1;
                            } else {
                                // The lane decoders follow the CPU check for check (the
                                // walk-and-expand one hands every failure to them).
                                assert!(
                                    par != Parallelism::LanePerSubBlock
                                        && par != Parallelism::WalkExpand
                                        && par != Parallelism::Lockstep,
                                    "{elem} {v:?} chunk {i}: CPU says {s:?}, {par:?} {}",
                                    status[i]
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    println!("{same_status} of {total} damaged chunks got the CPU's exact status");
    assert!(same_status * 10 >= total * 9, "statuses differ too often");
}

/// RLEv1 units short enough for the warps' shared-memory stage (streams of at most 3 KiB less
/// 16 bytes, as sub-blocks are): the staged decoder gives the CPU's values on clean streams and
/// the CPU's exact status on damaged ones (cut, bit-flipped, overwritten, lengthened).
#[test]
#[ignore = "needs a CUDA GPU"]
fn staged_rlev1_units_get_the_cpu_status() {
    const STAGED: usize = 3072 - 16; // V1_STAGE_BYTES - 16 in kernels/orc/orc_rle.cu
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0x57a6ed);
    let (mut staged, mut staged_errors) = (0usize, 0usize);
    for &elem in &ELEMS {
        let size = elem.size() as usize;
        let data = values(&mut rng, elem, 60_000, 6);
        let total = data.len() / size;
        // Units of 1 to 270 values: streams of at most 2.7 KiB even of 10-byte varints.
        let (mut encoded, mut counts) = (Vec::new(), Vec::new());
        let mut i = 0usize;
        while i < total {
            let n = rng.gen_range(1..=270).min(total - i);
            let unit = &data[i * size..(i + n) * size];
            encoded.push(chunked::encode_chunk(unit, elem, RleVersion::V1, Layout::Plain).unwrap());
            counts.push(n);
            i += n;
        }
        for e in encoded.iter_mut().skip(1).step_by(2) {
            damage(&mut rng, e);
        }
        let (buf, chunks) = layout(&mut rng, &encoded, &counts);
        let (status, out) = run_batch(
            &g,
            &buf,
            &chunks,
            data.len(),
            elem,
            StreamCodec::Int(RleVersion::V1),
            Parallelism::WarpPerChunk,
        );
        let mut at = 0usize;
        for (k, (e, &n)) in encoded.iter().zip(&counts).enumerate() {
            let mut dst = vec![0u8; n * size];
            let cpu = chunked::decode_chunk(e, elem, RleVersion::V1, Layout::Plain, &mut dst);
            let what = format!("{elem} unit {k} ({} bytes, {n} values)", e.len());
            match cpu {
                Ok(_) => {
                    assert_eq!(status[k], 0, "{what}: CPU ok");
                    assert!(out[at..at + n * size] == dst[..], "{what}: values differ");
                }
                Err(s) => {
                    assert_eq!(ChunkStatus::from_code(status[k]), s, "{what}");
                    if e.len() <= STAGED {
                        staged_errors += 1;
                    }
                }
            }
            if e.len() <= STAGED {
                staged += 1;
            }
            at += n * size;
        }
    }
    println!("{staged} staged units, {staged_errors} of them refused");
    assert!(staged > 2000 && staged_errors > 500, "too few staged units");
}

/// One RLEv2 DELTA group of `n` values: `base` (the stream's value: zigzagged for a signed
/// stream), the first step `db`, then `n - 2` steps of `width` bits (2 or more: ORC's width
/// code 0 means no steps in a DELTA group), packed big-endian.
fn delta_group(out: &mut Vec<u8>, signed: bool, base: i128, db: i64, width: u32, steps: &[u64]) {
    let n = steps.len() as u32 + 2;
    let code = match width {
        1..=24 => width - 1,
        26 => 24,
        28 => 25,
        30 => 26,
        _ => 27, // 32
    };
    out.push(0xc0 | (code << 1) as u8 | ((n - 1) >> 8) as u8);
    out.push((n - 1) as u8);
    let zz = |v: i64| ((v << 1) ^ (v >> 63)) as u64;
    put_varint(out, if signed { zz(base as i64) } else { base as u64 });
    put_varint(out, zz(db));
    let (mut acc, mut have) = (0u128, 0u32);
    for &s in steps {
        acc = (acc << width) | u128::from(s);
        have += width;
        while have >= 8 {
            out.push((acc >> (have - 8)) as u8);
            have -= 8;
        }
    }
    if have > 0 {
        out.push((acc << (8 - have)) as u8);
    }
}

/// RLEv2 streams of short DELTA groups (the lanes in lockstep), with steps that often carry the
/// values out of the element type or past 64 bits: every stream gets the CPU's exact status, and
/// the CPU's values where it decodes.
#[test]
#[ignore = "needs a CUDA GPU"]
fn short_delta_groups_get_the_cpu_status() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0xde17a);
    let widths = [2u32, 3, 4, 7, 8, 11, 16, 24, 26, 28, 30, 32];
    let (mut ok, mut refused) = (0usize, 0usize);
    for &elem in &ELEMS {
        let size = elem.size() as usize;
        let (signed, min, max) = elem_range(elem);
        let (mut encoded, mut counts) = (Vec::new(), Vec::new());
        for _ in 0..3000 {
            let mut e = Vec::new();
            let mut count = 0usize;
            for _ in 0..rng.gen_range(1..=6) {
                let n = rng.gen_range(2..=20usize);
                let width = widths[rng.gen_range(0..widths.len())];
                let db: i64 = rng.gen_range(-3..=3);
                // Near an end of the type (or of 64 bits) half the time.
                let base = match rng.gen_range(0..4) {
                    0 => (max - rng.gen_range(0..1000)).max(min),
                    1 => (min + rng.gen_range(0..1000)).min(max),
                    _ => rng.gen_range(min..=max),
                }
                .clamp(min + 3, max - 3);
                let cap = if rng.gen_bool(0.5) {
                    1u64 << width.min(3)
                } else {
                    1u64 << width
                };
                let steps: Vec<u64> = (0..n - 2).map(|_| rng.gen_range(0..cap)).collect();
                delta_group(&mut e, signed, base, db, width, &steps);
                count += n;
            }
            if rng.gen_ratio(1, 8) {
                e.truncate(rng.gen_range(0..e.len()));
            }
            encoded.push(e);
            counts.push(count);
        }
        // Every unit's output starts 8-byte aligned (the lanes in lockstep decode others
        // serially).
        let mut buf = Vec::new();
        let mut chunks = Vec::new();
        let mut out_at = 0u64;
        for (e, &count) in encoded.iter().zip(&counts) {
            chunks.push(OrcRleChunk {
                in_offset: buf.len() as u64,
                in_len: e.len() as u32,
                skip: 0,
                out_offset: out_at,
                count: count as u32,
                exact: 1,
            });
            buf.extend_from_slice(e);
            out_at = (out_at + count as u64).next_multiple_of(8);
        }
        let (status, out) = run_batch(
            &g,
            &buf,
            &chunks,
            out_at as usize * size,
            elem,
            StreamCodec::Int(RleVersion::V2),
            Parallelism::Lockstep,
        );
        for (k, (e, c)) in encoded.iter().zip(&chunks).enumerate() {
            let n = c.count as usize;
            let mut dst = vec![0u8; n * size];
            let cpu = chunked::decode_chunk(e, elem, RleVersion::V2, Layout::Plain, &mut dst);
            let what = format!("{elem} unit {k} ({} bytes, {n} values)", e.len());
            match cpu {
                Ok(_) => {
                    assert_eq!(status[k], 0, "{what}: CPU ok");
                    let at = c.out_offset as usize * size;
                    assert!(out[at..at + n * size] == dst[..], "{what}: values differ");
                    ok += 1;
                }
                Err(s) => {
                    assert_eq!(ChunkStatus::from_code(status[k]), s, "{what}");
                    refused += 1;
                }
            }
        }
    }
    println!("{ok} streams decoded, {refused} refused alike");
    assert!(ok > 3000 && refused > 3000, "too few of one kind");
}

/// Layout-2 chunks (index plus one stream per sub-block) of every type, version and several
/// sub-block sizes: the lane decoder's values equal the input, and after damaging one chunk's
/// bytes (index or streams) the GPU's verdict (which chunk, which status) is the CPU's.
#[test]
#[ignore = "needs a CUDA GPU"]
fn indexed_chunks_get_the_cpu_verdict() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0x1dec5);
    let mut damaged_errors = 0usize;
    for &elem in &ELEMS {
        let size = elem.size() as usize;
        for &v in &VERSIONS {
            for sub_block in [1u32, 7, 64, 256, 1000, 4096] {
                let layout = Layout::indexed(sub_block).unwrap();
                let n = 20_000 + rng.gen_range(0..500);
                let data = values(&mut rng, elem, n, 6);
                let chunk = size * [1000usize, 4096, 7777][rng.gen_range(0..3)];
                let (payload, spans) = chunked::compress(&data, elem, v, layout, chunk).unwrap();
                let pieces: Vec<Vec<u8>> = spans
                    .iter()
                    .map(|s| payload[s.offset..s.offset + s.compressed_len as usize].to_vec())
                    .collect();
                for trial in 0..8 {
                    let mut pieces = pieces.clone();
                    if trial > 0 {
                        let i = rng.gen_range(0..pieces.len());
                        damage(&mut rng, &mut pieces[i]);
                    }
                    let counts: Vec<usize> =
                        spans.iter().map(|s| s.uncompressed_len as usize).collect();
                    let refs: Vec<(&[u8], usize)> = pieces
                        .iter()
                        .zip(&counts)
                        .map(|(p, &n)| (p.as_slice(), n))
                        .collect();
                    let mut cpu_out = vec![0u8; data.len()];
                    let cpu = chunked::decompress_into(&refs, elem, v, layout, &mut cpu_out);
                    let mut buf = Vec::new();
                    let mut new_spans = Vec::new();
                    for (p, s) in pieces.iter().zip(&spans) {
                        new_spans.push(warpzip::format::ChunkSpan {
                            offset: buf.len(),
                            compressed_len: p.len() as u32,
                            uncompressed_len: s.uncompressed_len,
                        });
                        buf.extend_from_slice(p);
                    }
                    let plan = plan_sub_blocks(&buf, &new_spans, elem, sub_block).unwrap();
                    // The decoders the library picks between for indexed chunks.
                    for par in [
                        Parallelism::LanePerSubBlock,
                        Parallelism::WalkExpand,
                        Parallelism::Lockstep,
                        Parallelism::WarpPerChunk,
                    ] {
                        let (status, out) = run_batch(
                            &g,
                            &buf,
                            &plan.units,
                            data.len(),
                            elem,
                            StreamCodec::Int(v),
                            par,
                        );
                        let gpu_verdict = plan.verdict(&status);
                        let what =
                            format!("{elem} {v:?} {par:?} sub-block {sub_block} trial {trial}");
                        match (&cpu, &gpu_verdict) {
                            (Ok(()), Ok(())) => {
                                assert!(out == cpu_out, "{what}: values differ");
                                if trial == 0 {
                                    assert!(out == data, "{what}: values differ from the input");
                                }
                            }
                            (
                                Err(warpzip::Error::Corrupt { chunk: a, .. }),
                                Err(warpzip::Error::Corrupt { chunk: b, .. }),
                            ) => {
                                assert_eq!(a, b, "{what}: a different chunk fails");
                                // The lanes follow the CPU check for check, and the walk-and-
                                // expand decoder hands every failure to them: the same status.
                                if par != Parallelism::WarpPerChunk {
                                    assert_eq!(
                                        format!("{cpu:?}"),
                                        format!("{gpu_verdict:?}"),
                                        "{what}"
                                    );
                                }
                                if par == Parallelism::LanePerSubBlock {
                                    damaged_errors += 1;
                                }
                            }
                            _ => panic!("{what}: CPU {cpu:?}, GPU {gpu_verdict:?}"),
                        }
                    }
                    assert!(trial > 0 || cpu.is_ok(), "{elem} {v:?}: clean chunks fail");
                }
            }
        }
    }
    println!("{damaged_errors} damaged payloads refused alike");
    assert!(
        damaged_errors > 300,
        "too few damaged payloads were refused"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn row_groups_skip_into_runs_and_stop_early() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(99);
    for &elem in &[ElemType::I64, ElemType::I32, ElemType::U16] {
        let size = elem.size() as usize;
        // A long stream, and one short enough for the RLEv1 warps' shared-memory stage.
        for (&v, n) in VERSIONS.iter().flat_map(|v| [(v, 20_000usize), (v, 300)]) {
            let data = values(&mut rng, elem, n, 6);
            let stream = chunked::encode_chunk(&data, elem, v, Layout::Plain).unwrap();
            assert!(
                n > 300 || stream.len() <= 3072 - 16,
                "{elem}: {} bytes",
                stream.len()
            );
            // Many windows (skip, count) over the one stream, every one starting at byte 0.
            let mut chunks = Vec::new();
            let mut expect = Vec::new();
            let mut out_offset = 0u64;
            for _ in 0..200 {
                let skip = rng.gen_range(0..n);
                let count = rng.gen_range(0..=(n - skip).min(3000));
                chunks.push(OrcRleChunk {
                    in_offset: 0,
                    in_len: stream.len() as u32,
                    skip: skip as u32,
                    out_offset,
                    count: count as u32,
                    exact: 0,
                });
                expect.extend_from_slice(&data[skip * size..(skip + count) * size]);
                out_offset += count as u64;
            }
            // One window that runs past the end of the stream: TRUNCATED.
            chunks.push(OrcRleChunk {
                in_offset: 0,
                in_len: stream.len() as u32,
                skip: (n - 5) as u32,
                out_offset,
                count: 10,
                exact: 0,
            });
            let out_len = expect.len() + 10 * size;
            for &par in &WINDOW_PARS {
                let (status, out) = run_batch(
                    &g,
                    &stream,
                    &chunks,
                    out_len,
                    elem,
                    StreamCodec::Int(v),
                    par,
                );
                let last = status.len() - 1;
                assert!(
                    status[..last].iter().all(|&s| s == 0),
                    "{elem} {v:?} {par:?}"
                );
                assert_ne!(
                    status[last], 0,
                    "{elem} {v:?} {par:?}: reading past the end"
                );
                assert!(out[..expect.len()] == expect[..], "{elem} {v:?} {par:?}");
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn byte_rle_matches_the_cpu() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(5);
    let mut buf = Vec::new();
    let mut chunks = Vec::new();
    let mut expect = Vec::new();
    let mut cpu_status = Vec::new();
    for i in 0..300 {
        let n = [0usize, 1, 2, 3, 127, 128, 129, 130, 131, 5000][i % 10] + rng.gen_range(0..3);
        let mut data = Vec::with_capacity(n);
        while data.len() < n {
            let b: u8 = rng.gen();
            let len = if rng.gen_bool(0.5) {
                rng.gen_range(1..300)
            } else {
                1
            };
            data.extend(std::iter::repeat_n(b, len));
        }
        data.truncate(n);
        let mut enc = Vec::new();
        encode_byte_rle(&data, &mut enc);
        if i % 3 == 2 {
            damage(&mut rng, &mut enc);
        }
        let mut dst = vec![0u8; n];
        let verdict = decode_byte_rle(&enc, &mut dst);
        cpu_status.push(verdict.is_ok());
        chunks.push(OrcRleChunk {
            in_offset: buf.len() as u64,
            in_len: enc.len() as u32,
            skip: 0,
            out_offset: expect.len() as u64,
            count: n as u32,
            exact: 1,
        });
        buf.extend_from_slice(&enc);
        expect.extend_from_slice(&dst);
    }
    let (status, out) = run_batch(
        &g,
        &buf,
        &chunks,
        expect.len(),
        ElemType::U8,
        StreamCodec::Byte,
        Parallelism::WarpPerChunk,
    );
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(status[i] == 0, cpu_status[i], "chunk {i}: verdicts differ");
        if cpu_status[i] {
            let r = c.out_offset as usize..(c.out_offset + u64::from(c.count)) as usize;
            assert!(out[r.clone()] == expect[r], "chunk {i}: bytes differ");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The CODAG framework through its test codec (see tests/kernels/codag_test.cu for the format).

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A random op script and the bytes the CPU interpreter says it produces.
fn ops_script(rng: &mut StdRng, target: usize) -> (Vec<u8>, Vec<u8>) {
    let mut s = Vec::new();
    let mut out: Vec<u8> = Vec::new();
    while out.len() < target {
        match rng.gen_range(0..6) {
            0 => {
                let n = rng.gen_range(1..=32);
                s.push(0);
                s.push(n as u8);
                for _ in 0..n {
                    let b = rng.gen();
                    s.push(b);
                    out.push(b);
                }
            }
            1 => {
                let n = rng.gen_range(0..400u64);
                let (first, delta): (u8, u8) = (rng.gen(), rng.gen_range(0..3));
                s.push(1);
                put_varint(&mut s, n);
                s.push(first);
                s.push(delta);
                for i in 0..n {
                    out.push(first.wrapping_add((i as u8).wrapping_mul(delta)));
                }
            }
            2 if !out.is_empty() => {
                let d = if rng.gen_bool(0.5) {
                    rng.gen_range(1..=out.len().min(8))
                } else {
                    rng.gen_range(1..=out.len())
                };
                let n = rng.gen_range(0..600usize);
                s.push(2);
                put_varint(&mut s, d as u64);
                put_varint(&mut s, n as u64);
                let from = out.len() - d;
                for i in 0..n {
                    let b = out[from + i % d];
                    out.push(b);
                }
            }
            3 | 4 => {
                // Drop `a` bits, read `n` bits least significant first, align to a byte.
                let op = if rng.gen_bool(0.5) { 3u8 } else { 4u8 };
                let a = rng.gen_range(0..8u32);
                let n = rng.gen_range(1..=32u32);
                let bytes: [u8; 8] = rng.gen();
                let used = (a + n).div_ceil(8) as usize;
                let mut word = [0u8; 8];
                word[..used].copy_from_slice(&bytes[..used]);
                let v = (u64::from_le_bytes(word) >> a) as u32
                    & if n == 32 { u32::MAX } else { (1 << n) - 1 };
                s.extend_from_slice(&[op, a as u8, n as u8]);
                s.extend_from_slice(&bytes[..used]);
                out.extend_from_slice(&v.to_le_bytes());
            }
            _ => {
                let k = rng.gen_range(1..=8usize);
                let bytes: [u8; 8] = rng.gen();
                s.push(5);
                s.push(k as u8);
                s.extend_from_slice(&bytes[..k]);
                let v = bytes[..k]
                    .iter()
                    .fold(0u64, |a, &b| (a << 8) | u64::from(b));
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    (s, out)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn codag_framework_matches_its_cpu_interpreter() {
    let g = gpu();
    let mut rng = StdRng::seed_from_u64(0xc0da9);
    let mut buf = Vec::new();
    let mut chunks = Vec::new();
    let mut expect = Vec::new();
    for i in 0..400 {
        let target = [0usize, 1, 31, 33, 128, 129, 1000, 20_000][i % 8];
        let (script, out) = ops_script(&mut rng, target);
        // Outputs start 4-byte aligned for copy_back.
        while expect.len() % 4 != 0 {
            expect.push(0);
        }
        for _ in 0..rng.gen_range(0..7) {
            buf.push(rng.gen());
        }
        chunks.push(OrcRleChunk {
            in_offset: buf.len() as u64,
            in_len: script.len() as u32,
            skip: 0,
            out_offset: expect.len() as u64,
            count: out.len() as u32,
            exact: 1,
        });
        buf.extend_from_slice(&script);
        expect.extend_from_slice(&out);
    }
    let total = expect.len() + 4;
    // One ops kernel over `chunks`: statuses and output.
    let run = |name: &str, chunks: &[OrcRleChunk]| {
        let mut batch = DecodeBatch::new(&g, &buf, chunks, total, 1).unwrap();
        batch.poison_output(&g, 0x5a).unwrap();
        batch
            .launch_kernel(
                &g,
                g.stream(),
                &kernels::CODAG_TEST,
                name,
                Parallelism::WarpPerChunk,
            )
            .unwrap();
        (batch.statuses(&g).unwrap(), batch.output(&g).unwrap())
    };
    for name in ["codag_ops_smem", "codag_ops_reg", "codag_ops_ring"] {
        let (status, out) = run(name, &chunks);
        for (i, c) in chunks.iter().enumerate() {
            assert_eq!(status[i], 0, "{name} chunk {i}");
            let r = c.out_offset as usize..(c.out_offset + u64::from(c.count)) as usize;
            assert!(
                out[r.clone()] == expect[r],
                "{name} chunk {i}: bytes differ"
            );
        }
    }
    // Every chunk cut short is TRUNCATED or UNDERFLOW, never ok, and never a fault.
    let mut cut = chunks.clone();
    for c in cut.iter_mut().filter(|c| c.in_len > 1) {
        c.in_len -= 1 + rng.gen_range(0..c.in_len / 2);
    }
    for name in ["codag_ops_smem", "codag_ops_ring"] {
        let (status, _) = run(name, &cut);
        for (i, c) in chunks.iter().enumerate() {
            if c.in_len > 1 && c.count > 0 {
                assert_ne!(status[i], 0, "{name}: cut chunk {i} decoded");
            }
        }
    }
    assert_eq!(INPUT_ALIGN % 8, 0);
}
