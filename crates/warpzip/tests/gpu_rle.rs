//! The GPU rle encoder and decoder against the CPU reference: identical bytes on random inputs
//! of awkward sizes and on the real files of `testdata/`, and identical verdicts on corrupt
//! payloads. GPU tests fail (never skip) where no GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{gpu, testdata};

use rand::{Rng, SeedableRng};
use warpzip::codec::rle::pipeline::{HostMemory, RlePipeline};
use warpzip::codec::rle::{chunked, format as rle_format, gpu as rle_gpu};
use warpzip::codec::CodecId;
use warpzip::format::{write_container, ChunkSpan, Container, ElemType, Header};
use warpzip::gpu::GpuContext;

/// Mixed data: runs of geometric lengths, literal stretches, a few long runs.
fn mixed(rng: &mut rand::rngs::StdRng, n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    while v.len() < n {
        let kind = rng.gen_range(0..10);
        let len = match kind {
            0..=3 => rng.gen_range(1..6),
            4..=6 => rng.gen_range(1..200),
            7 => rng.gen_range(100..9000),
            _ => rng.gen_range(1..40),
        };
        if kind >= 8 {
            for _ in 0..len {
                v.push(rng.gen());
            }
        } else {
            let b: u8 = rng.gen_range(0..4);
            v.extend(std::iter::repeat_n(b, len));
        }
    }
    v.truncate(n);
    v
}

fn container_bytes(
    data_len: usize,
    chunk_size: usize,
    payload: &[u8],
    spans: &[ChunkSpan],
) -> Vec<u8> {
    let header = Header {
        codec: CodecId::Rle,
        codec_params: rle_format::codec_params(),
        elem_type: ElemType::Bytes,
        shape: Vec::new(),
        total_len: data_len as u64,
        chunk_size: chunk_size as u32,
    };
    let mut out = Vec::new();
    write_container(&mut out, &header, payload, spans).unwrap();
    out
}

fn contiguous(payload: &[u8], spans: &[ChunkSpan]) -> Vec<u8> {
    let mut v = Vec::new();
    for s in spans {
        v.extend_from_slice(&payload[s.offset..s.offset + s.compressed_len as usize]);
    }
    v
}

fn round_trip(gpu: &GpuContext, data: &[u8], chunk_size: usize, what: &str) {
    let (cpu_payload, cpu_spans) = chunked::compress(data, chunk_size).unwrap();
    let (gpu_payload, gpu_spans) = rle_gpu::compress(gpu, data, chunk_size).unwrap();
    let cpu_bytes = contiguous(&cpu_payload, &cpu_spans);
    let gpu_bytes = contiguous(&gpu_payload, &gpu_spans);
    assert_eq!(cpu_spans.len(), gpu_spans.len(), "{what}: chunk count");
    for (i, (a, b)) in cpu_spans.iter().zip(&gpu_spans).enumerate() {
        assert_eq!(
            (a.compressed_len, a.uncompressed_len),
            (b.compressed_len, b.uncompressed_len),
            "{what}: chunk {i} sizes"
        );
    }
    if cpu_bytes != gpu_bytes {
        let at = cpu_bytes.iter().zip(&gpu_bytes).position(|(a, b)| a != b);
        panic!(
            "{what}: GPU encoding differs from CPU at byte {at:?} (len {} vs {})",
            cpu_bytes.len(),
            gpu_bytes.len()
        );
    }
    let file = container_bytes(data.len(), chunk_size, &gpu_payload, &gpu_spans);
    let container = Container::parse(&file).unwrap();
    container.verify_all().unwrap();
    // Two passes through one pipeline, each with its device outputs poisoned by another byte:
    // an unwritten byte cannot pass, nor one the first pass left in a reused buffer.
    for poison in [0xA5u8, 0x5A] {
        let pipeline = RlePipeline::new(gpu).unwrap().poison_outputs(poison);
        let mut out = vec![!poison; data.len()];
        pipeline
            .decompress_into(gpu, &container, &mut out, HostMemory::Pageable)
            .unwrap();
        if out != data {
            let at = out.iter().zip(data).position(|(a, b)| a != b);
            panic!("{what}: GPU decode (poison {poison:#04x}) differs at byte {at:?}");
        }
    }
    let mut out = vec![0xA5u8; data.len()];
    rle_gpu::decompress_into(gpu, &container, &mut out).unwrap();
    if out != data {
        let at = out.iter().zip(data).position(|(a, b)| a != b);
        panic!("{what}: GPU decode differs at byte {at:?}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_matches_cpu_on_awkward_sizes() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let seg = rle_format::SEGMENT_SIZE;
    for &chunk in &[seg, 2 * seg, 64 * 1024, 1 << 20] {
        for n in [
            0,
            1,
            2,
            3,
            31,
            32,
            33,
            129,
            130,
            131,
            seg - 1,
            seg,
            seg + 1,
            chunk - 1,
            chunk,
            chunk + 1,
            3 * chunk + 77,
        ] {
            let data = mixed(&mut rng, n);
            round_trip(&gpu, &data, chunk, &format!("mixed n={n} chunk={chunk}"));
            let noise: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            round_trip(&gpu, &noise, chunk, &format!("noise n={n} chunk={chunk}"));
            let constant = vec![0x42u8; n];
            round_trip(
                &gpu,
                &constant,
                chunk,
                &format!("constant n={n} chunk={chunk}"),
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_matches_cpu_on_many_chunks() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let data = mixed(&mut rng, 230 * 1024 * 1024 + 12345);
    round_trip(&gpu, &data, 1 << 20, "230 MiB mixed (4 pipeline batches)");
    // Patterns that stress the tokenizer: period-2 and period-3 bytes, runs of exactly 1..4.
    let mut tricky = Vec::new();
    for i in 0..2_000_000usize {
        tricky.push(match (i / 997) % 4 {
            0 => (i % 2) as u8,
            1 => ((i / 3) % 2) as u8,
            2 => ((i / 2) % 3) as u8,
            _ => ((i / 4) % 2) as u8,
        });
    }
    round_trip(&gpu, &tricky, 64 * 1024, "tricky periods");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_matches_cpu_on_real_files() {
    let gpu = gpu();
    let root = testdata();
    let mut files = Vec::new();
    for dir in ["corpora/canterbury", "corpora/calgary", "fields", "orc"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.is_file() {
                files.push(path);
            }
        }
    }
    assert!(
        files.len() > 20,
        "expected the files of testdata/, found {} files",
        files.len()
    );
    let mut all = Vec::new();
    for path in &files {
        let data = std::fs::read(path).unwrap();
        round_trip(&gpu, &data, 64 * 1024, &path.display().to_string());
        all.extend_from_slice(&data);
    }
    round_trip(&gpu, &all, 1 << 20, "all testdata files concatenated");
}

/// CPU and GPU agree: both decode to the same bytes, or both blame the same chunk (the
/// reasons may differ where several segments of a chunk fail: the CPU names the first, the GPU
/// the most severe).
fn same_verdict(
    cpu: &warpzip::Result<()>,
    cpu_out: &[u8],
    gpu: &warpzip::Result<()>,
    gpu_out: &[u8],
    what: &str,
) {
    match (cpu, gpu) {
        (Ok(()), Ok(())) => assert!(cpu_out == gpu_out, "{what}: both decoded, bytes differ"),
        (
            Err(warpzip::Error::Corrupt { chunk: a, .. }),
            Err(warpzip::Error::Corrupt { chunk: b, .. }),
        ) => assert_eq!(a, b, "{what}: CPU and GPU blame different chunks"),
        _ => panic!("{what}: CPU said {cpu:?}, GPU said {gpu:?}"),
    }
}

/// Makes `trials` damaged copies of the container `file` (whose last `payload_len` bytes are its
/// payload), flipping 1 to `max_flips` payload bits in each (cycling with the trial), and checks
/// that the CPU and GPU decoders agree on every copy. The chunks are decoded without the checksum
/// check, so that the decoders see the damage.
#[allow(clippy::too_many_arguments)]
fn damaged_copies_match_cpu(
    gpu: &GpuContext,
    file: &[u8],
    payload_len: usize,
    data_len: usize,
    trials: usize,
    max_flips: usize,
    rng: &mut rand::rngs::StdRng,
    what: &str,
) {
    let payload_start = file.len() - payload_len;
    for trial in 0..trials {
        let mut bad = file.to_vec();
        for _ in 0..1 + trial % max_flips {
            let at = payload_start + rng.gen_range(0..payload_len);
            bad[at] ^= 1 << rng.gen_range(0..8);
        }
        let container = Container::parse(&bad).unwrap();
        let chunks: Vec<(&[u8], usize)> = (0..container.chunks.len())
            .map(|i| {
                (
                    container.chunk_bytes(i),
                    container.chunks[i].uncompressed_len as usize,
                )
            })
            .collect();
        let mut cpu_out = vec![0u8; data_len];
        let cpu = chunked::decompress_into(&chunks, &mut cpu_out);
        let mut gpu_out = vec![0u8; data_len];
        let gpu_res = rle_gpu::decompress_into(gpu, &container, &mut gpu_out);
        same_verdict(
            &cpu,
            &cpu_out,
            &gpu_res,
            &gpu_out,
            &format!("{what} trial {trial}"),
        );
    }
}

/// A valid, usually non-canonical, layout-2 segment for `seg`: literals of random lengths
/// (runs stored as literals too), runs split in two, short runs written as long ones, and
/// zero-length long runs; with `padding` zero-length long runs, a segment longer than any
/// canonical one (the decoder then reads it from global memory).
fn non_canonical_segment(seg: &[u8], rng: &mut rand::rngs::StdRng, padding: usize) -> Vec<u8> {
    let mut payload = Vec::new();
    let mut controls = Vec::new();
    let long = |payload: &mut Vec<u8>, controls: &mut Vec<u8>, len: usize, v: u8| {
        controls.push(0xFF);
        payload.extend_from_slice(&(len as u16).to_le_bytes());
        payload.push(v);
    };
    let mut i = 0;
    while i < seg.len() {
        let v = seg[i];
        let run = seg[i..].iter().take_while(|&&b| b == v).count();
        if rng.gen_range(0..8) == 0 {
            long(&mut payload, &mut controls, 0, rng.gen());
        }
        if run >= 3 && rng.gen_range(0..4) != 0 {
            let take = if rng.gen() {
                run
            } else {
                rng.gen_range(3..=run)
            };
            if take <= 129 && rng.gen() {
                controls.push(0x80 + (take - 3) as u8);
                payload.push(v);
            } else {
                long(&mut payload, &mut controls, take, v);
            }
            i += take;
        } else {
            let take = rng.gen_range(1..=128).min(seg.len() - i);
            controls.push((take - 1) as u8);
            payload.extend_from_slice(&seg[i..i + take]);
            i += take;
        }
    }
    for _ in 0..padding {
        long(&mut payload, &mut controls, 0, 0);
    }
    let mut out = (controls.len() as u16).to_le_bytes().to_vec();
    out.extend_from_slice(&payload);
    out.extend_from_slice(&controls);
    out
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_decodes_non_canonical_streams() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let chunk = 8 * rle_format::SEGMENT_SIZE;
    let data = mixed(&mut rng, 37 * chunk + 1234);
    let mut payload = Vec::new();
    let mut spans = Vec::new();
    for piece in data.chunks(chunk) {
        let segs: Vec<&[u8]> = piece.chunks(rle_format::SEGMENT_SIZE).collect();
        let mut table = Vec::new();
        let mut body = Vec::new();
        for seg in &segs {
            // Some segments too long to stage in shared memory (over 4130 bytes).
            let padding = if rng.gen_range(0..5) == 0 { 1100 } else { 0 };
            body.extend(non_canonical_segment(seg, &mut rng, padding));
            table.extend_from_slice(&(body.len() as u32).to_le_bytes());
        }
        let offset = payload.len();
        payload.extend_from_slice(&table);
        payload.extend_from_slice(&body);
        spans.push(ChunkSpan {
            offset,
            compressed_len: (table.len() + body.len()) as u32,
            uncompressed_len: piece.len() as u32,
        });
    }
    let file = container_bytes(data.len(), chunk, &payload, &spans);
    let container = Container::parse(&file).unwrap();
    let mut out = vec![0u8; data.len()];
    rle_gpu::decompress_into(&gpu, &container, &mut out).unwrap();
    assert!(
        out == data,
        "non-canonical streams decode differently on the GPU"
    );
    // Damaged copies: the same verdicts as the CPU's, on staged and unstaged segments alike.
    damaged_copies_match_cpu(
        &gpu,
        &file,
        payload.len(),
        data.len(),
        200,
        3,
        &mut rng,
        "non-canonical",
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_corrupt_payloads_match_cpu_verdicts() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let chunk = 16 * 1024;
    let data = mixed(&mut rng, 5 * chunk + 999);
    let (payload, spans) = chunked::compress(&data, chunk).unwrap();
    let clean = container_bytes(data.len(), chunk, &payload, &spans);
    damaged_copies_match_cpu(
        &gpu,
        &clean,
        payload.len(),
        data.len(),
        300,
        4,
        &mut rng,
        "corrupt",
    );
    // Truncated chunk tables and payloads (sizes shrunk inside a valid container).
    for cut in [1usize, 3, 4, 7, 100] {
        let mut spans2 = spans.clone();
        let last = spans2.len() - 1;
        spans2[last].compressed_len = spans2[last].compressed_len.saturating_sub(cut as u32);
        let file = container_bytes(data.len(), chunk, &payload, &spans2);
        let container = Container::parse(&file).unwrap();
        let mut out = vec![0u8; data.len()];
        match rle_gpu::decompress_into(&gpu, &container, &mut out) {
            Err(warpzip::Error::Corrupt { chunk, .. }) => assert_eq!(chunk, last),
            other => panic!("cut {cut}: expected a corrupt last chunk, got {other:?}"),
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn gpu_rle_pipeline_with_pinned_buffers_matches_cpu() {
    let gpu = gpu();
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let chunk = 256 * 1024;
    let data = mixed(&mut rng, 300 * 1024 * 1024 + 4097);
    let (cpu_payload, cpu_spans) = chunked::compress(&data, chunk).unwrap();
    let pipeline = RlePipeline::new(&gpu).unwrap();
    let mut pin_in = gpu.alloc_pinned(data.len()).unwrap();
    pin_in.as_mut_slice().unwrap().copy_from_slice(&data);
    let bound = rle_gpu::Geometry::new(data.len() as u64, chunk)
        .unwrap()
        .max_payload();
    let mut pin_out = gpu.alloc_pinned(bound.max(data.len())).unwrap();
    pin_out.as_mut_slice().unwrap().fill(0x5A);
    let (spans, total) = pipeline
        .compress_into(
            &gpu,
            pin_in.as_slice().unwrap(),
            chunk,
            pin_out.as_mut_slice().unwrap(),
            HostMemory::Pinned,
        )
        .unwrap();
    let got = contiguous(&pin_out.as_slice().unwrap()[..total], &spans);
    assert!(
        got == contiguous(&cpu_payload, &cpu_spans),
        "pinned pipeline encoding differs from CPU"
    );
    let file = container_bytes(data.len(), chunk, &cpu_payload, &cpu_spans);
    let mut pin_file = gpu.alloc_pinned(file.len()).unwrap();
    pin_file.as_mut_slice().unwrap().copy_from_slice(&file);
    let container = Container::parse(pin_file.as_slice().unwrap()).unwrap();
    for (memory, poison) in [(HostMemory::Pinned, 0x3Cu8), (HostMemory::Pageable, 0xC3)] {
        pin_out.as_mut_slice().unwrap().fill(!poison);
        let out = &mut pin_out.as_mut_slice().unwrap()[..data.len()];
        let pipeline = RlePipeline::new(&gpu).unwrap().poison_outputs(poison);
        pipeline
            .decompress_into(&gpu, &container, out, memory)
            .unwrap();
        assert!(
            pin_out.as_slice().unwrap()[..data.len()] == data[..],
            "pipeline decode ({memory:?}) differs"
        );
    }
}
