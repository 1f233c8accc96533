//! A first end-to-end check of the GPU inflate kernel against libdeflate: real corpora at
//! several levels and chunk sizes, random and constant data, tiny streams and cut streams, each
//! decoded by both kernels (one warp per stream, and pairs).
//! (The full differential suite is tests/gpu_deflate.rs.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use rand::{Rng, SeedableRng};
use warpzip::codec::deflate::gpu::{InflateBatch, InflateKernel};
use warpzip::ChunkStatus;

fn corpora() -> Vec<u8> {
    let root = common::testdata().join("corpora");
    let mut all = Vec::new();
    for sub in ["canterbury", "calgary"] {
        let mut files: Vec<_> = std::fs::read_dir(root.join(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for f in files {
            all.extend(std::fs::read(f).unwrap());
        }
    }
    all
}

fn deflate(data: &[u8], level: i32) -> Vec<u8> {
    let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
    let mut out = vec![0u8; c.deflate_compress_bound(data.len())];
    let n = c.deflate_compress(data, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Both inflate kernels, each of which every check runs on.
const KERNELS: [InflateKernel; 2] = [InflateKernel::Warp, InflateKernel::Pair];

/// Inflates `streams` on the GPU by `kernel` with outputs of `caps` bytes (poisoned first).
fn gpu_inflate(
    streams: &[Vec<u8>],
    caps: &[usize],
    kernel: InflateKernel,
) -> (Vec<warpzip::codec::deflate::StreamResult>, Vec<Vec<u8>>) {
    let g = common::gpu();
    let refs: Vec<&[u8]> = streams.iter().map(|s| s.as_slice()).collect();
    let mut batch = InflateBatch::upload_with_kernel(&g, &refs, caps, kernel).unwrap();
    batch.poison_output(&g, 0xa5).unwrap();
    batch.launch(&g, g.stream()).unwrap();
    let results = batch.results(&g).unwrap();
    let mut outs: Vec<Vec<u8>> = caps.iter().map(|&c| vec![0u8; c]).collect();
    let mut views: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    batch.download_into(&g, &mut views).unwrap();
    (results, outs)
}

fn check_round_trip(data: &[u8], chunk: usize, level: i32) {
    let pieces: Vec<&[u8]> = if data.is_empty() {
        vec![data]
    } else {
        data.chunks(chunk).collect()
    };
    let streams: Vec<Vec<u8>> = pieces.iter().map(|p| deflate(p, level)).collect();
    let caps: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
    for kernel in KERNELS {
        let (results, outs) = gpu_inflate(&streams, &caps, kernel);
        for (i, ((r, o), p)) in results.iter().zip(&outs).zip(&pieces).enumerate() {
            assert_eq!(
                r.status,
                ChunkStatus::Ok,
                "{kernel:?} level {level} chunk {chunk}: stream {i}"
            );
            assert_eq!(
                r.written,
                p.len(),
                "{kernel:?} level {level} chunk {chunk}: stream {i}"
            );
            assert_eq!(
                r.consumed,
                streams[i].len(),
                "{kernel:?} level {level}: stream {i}"
            );
            assert!(
                o == p,
                "{kernel:?} level {level} chunk {chunk}: stream {i} differs"
            );
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn corpora_at_several_levels_and_chunk_sizes() {
    let data = corpora();
    for level in [1, 4, 6, 9, 12] {
        for chunk in [65536, 131072] {
            check_round_trip(&data, chunk, level);
        }
    }
    check_round_trip(&data, 1 << 20, 9);
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn random_constant_and_tiny_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let random: Vec<u8> = (0..300_000).map(|_| rng.gen()).collect();
    let zeros = vec![0u8; 300_000];
    let few: Vec<u8> = (0..300_000).map(|_| b"ab"[rng.gen_range(0..2)]).collect();
    for level in [1, 6, 12] {
        check_round_trip(&random, 65536, level);
        check_round_trip(&zeros, 131072, level);
        check_round_trip(&few, 100_000, level);
        for n in [0usize, 1, 2, 3, 31, 32, 33, 100, 1000] {
            check_round_trip(&random[..n], 1 << 20, level);
            check_round_trip(&few[..n], 1 << 20, level);
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cut_and_overfull_streams_fail() {
    let data = corpora();
    let piece = &data[..50_000];
    let full = deflate(piece, 9);
    let mut streams = Vec::new();
    for cut in [0usize, 1, 2, 10, 100, full.len() / 2, full.len() - 1] {
        streams.push(full[..cut].to_vec());
    }
    let caps = vec![piece.len(); streams.len()];
    for kernel in KERNELS {
        let (results, _) = gpu_inflate(&streams, &caps, kernel);
        for (i, r) in results.iter().enumerate() {
            assert_eq!(
                r.status,
                ChunkStatus::Truncated,
                "{kernel:?}: cut stream {i}"
            );
        }
        let (results, _) = gpu_inflate(std::slice::from_ref(&full), &[piece.len() - 1], kernel);
        assert_eq!(results[0].status, ChunkStatus::Overflow, "{kernel:?}");
    }
}

/// Not a benchmark (see `warpzip bench --codec deflate`): a rough rate for development.
#[test]
#[ignore = "needs a CUDA GPU"]
fn rough_rate() {
    let g = common::gpu();
    let base = corpora();
    let mut data = Vec::new();
    while data.len() < 256 << 20 {
        data.extend_from_slice(&base);
    }
    data.truncate(256 << 20);
    let pieces: Vec<&[u8]> = data.chunks(131072).collect();
    let streams: Vec<Vec<u8>> = {
        use rayon::prelude::*;
        pieces.par_iter().map(|p| deflate(p, 9)).collect()
    };
    let refs: Vec<&[u8]> = streams.iter().map(|s| s.as_slice()).collect();
    let caps: Vec<usize> = pieces.iter().map(|p| p.len()).collect();
    let mut batch = InflateBatch::upload(&g, &refs, &caps).unwrap();
    batch.poison_output(&g, 0xA5).unwrap();
    let stream = g.stream().clone();
    let times = g.time_ms(2, 10, || batch.launch(&g, &stream)).unwrap();
    let results = batch.results(&g).unwrap();
    assert!(results.iter().all(|r| r.status == ChunkStatus::Ok));
    // Every stream's bytes, not only its status: the timed launches must have decoded.
    let mut outputs: Vec<Vec<u8>> = caps.iter().map(|&c| vec![0x5A; c]).collect();
    let mut views: Vec<&mut [u8]> = outputs.iter_mut().map(|o| o.as_mut_slice()).collect();
    batch.download_into(&g, &mut views).unwrap();
    for (i, (out, piece)) in outputs.iter().zip(&pieces).enumerate() {
        assert_eq!(results[i].written, piece.len(), "stream {i}");
        assert!(out.as_slice() == *piece, "stream {i} decoded other bytes");
    }
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let ms = warpzip::gpu::median(&sorted);
    eprintln!(
        "rough rate: {} chunks, ratio {:.2}, {:.3} ms, {:.1} GB/s",
        pieces.len(),
        data.len() as f64 / streams.iter().map(|s| s.len()).sum::<usize>() as f64,
        ms,
        data.len() as f64 / ms / 1e6
    );
}
