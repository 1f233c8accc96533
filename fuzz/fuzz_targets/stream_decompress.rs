//! Whole files through the streaming decoder, `api::decompress_stream_with`, on the CPU, read
//! in small pieces and decoded in small batches, against the whole-buffer decoder
//! `api::decompress_any` on the same bytes. The first byte picks the read size (1 to 64 bytes)
//! and the batch size (16, 256 or 4,096 bytes, rounded up by the decoder to whole chunks,
//! or the default); the rest is the file (a `.wz` stream of frames or a gzip file).
//!
//! No input may panic, hang or allocate by what it claims (run with `-malloc_limit_mb=256`); a
//! file one decoder accepts the other accepts too, with the same bytes. Seeds: the corpus of
//! `wz_decompress` (its even-first-byte files are the same shape).

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::io::Read;
use warpzip::api::{self, StreamConfig};
use warpzip::Device;

/// Hands out the input at most `piece` bytes a read, as a pipe may.
struct Pieces<'a> {
    data: &'a [u8],
    piece: usize,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.piece).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, file)) = data.split_first() else {
        return;
    };
    let piece = 1 + usize::from(mode & 0x3f);
    let batch_size = match mode >> 6 {
        0 => None,
        k => Some(1usize << (4 * k)),
    };
    let cfg = StreamConfig {
        batch_size,
        ..StreamConfig::default()
    };
    let cpu = Device::cpu();
    let mut streamed = Vec::new();
    let stream =
        api::decompress_stream_with(Pieces { data: file, piece }, &mut streamed, &cpu, &cfg);
    let whole = api::decompress_any(file, &cpu);
    match (&stream, &whole) {
        (Ok(_), Ok(w)) => assert!(streamed == w.data, "the stream decoded other bytes"),
        (Err(_), Err(_)) => {}
        (Ok(_), Err(e)) => panic!("only the stream accepted the file: {e}"),
        (Err(e), Ok(_)) => panic!("only the whole-buffer decoder accepted the file: {e}"),
    }
});
