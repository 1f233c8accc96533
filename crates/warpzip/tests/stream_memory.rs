//! The streaming API's memory stays bounded whatever the input's size: 512 MiB of generated
//! data are compressed from a reader and decompressed into a writer that only hashes, and the
//! most bytes allocated at once (every thread of the pipeline counted) stay under a fixed
//! budget, far below the input's size.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{peak_during, Counting};
use std::io::{self, Read, Write};
use warpzip::api::{self, CompressOptions};
use warpzip::{CodecId, Device};

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `len` bytes of runs and noise, generated as they are read; hashes what it yields.
struct Generated {
    left: u64,
    x: u64,
    hash: u64,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (buf.len() as u64).min(self.left) as usize;
        for b in &mut buf[..n] {
            self.x = self
                .x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            // Runs of 64 KiB (so the compressed stream is small), and one MiB of noise in
            // every 64.
            let v = if (self.left >> 20).is_multiple_of(64) {
                (self.x >> 33) as u8
            } else {
                (self.left >> 16) as u8
            };
            *b = v;
            self.hash = fold(self.hash, v);
            self.left -= 1;
        }
        Ok(n)
    }
}

/// A writer that keeps only a hash and a count of what it is given.
#[derive(Default)]
struct Hashing {
    hash: u64,
    len: u64,
}

impl Write for Hashing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            self.hash = fold(self.hash, b);
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn fold(h: u64, b: u8) -> u64 {
    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
}

/// Most bytes the pipeline may hold at once: a few 8 MiB batches (reader, worker, writer and
/// the channels between them) and their compressed forms, whatever the input's size.
const BUDGET: usize = 96 << 20;

#[test]
fn streaming_512_mib_stays_within_a_fixed_memory_budget() {
    const LEN: u64 = 512 << 20;
    for codec in [CodecId::Rle, CodecId::Deflate] {
        let mut input = Generated {
            left: LEN,
            x: 7,
            hash: 0,
        };
        let opts = CompressOptions::for_codec(codec);
        let mut wz = Vec::new();
        let (stats, peak) =
            peak_during(|| api::compress_stream(&mut input, &mut wz, &opts, &Device::Cpu));
        let stats = stats.unwrap();
        assert_eq!(stats.bytes_in, LEN);
        assert!(stats.frames > 1);
        // The compressed stream itself is kept here (in `wz`); it is small for this input.
        let held = wz.capacity();
        println!(
            "{codec}: compress peak {} MiB ({} MiB output kept)",
            peak >> 20,
            held >> 20
        );
        assert!(peak < BUDGET + held, "{codec}: compress peak {peak} bytes");

        let mut out = Hashing::default();
        let (stats, peak) = peak_during(|| api::decompress_stream(&wz[..], &mut out, &Device::Cpu));
        stats.unwrap();
        println!("{codec}: decompress peak {} MiB", peak >> 20);
        assert!(peak < BUDGET, "{codec}: decompress peak {peak} bytes");
        assert_eq!(out.len, LEN);
        assert_eq!(out.hash, input.hash);
    }
}
