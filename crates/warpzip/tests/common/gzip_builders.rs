//! gzip files built by hand for the gzip tests (`gzip_files.rs`, `gpu_gzip.rs`): members with
//! any header fields, stored-block streams, BGZF, and zlib's reading of them as the reference.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;
use std::io::{Read, Write};

/// Deterministic noise.
pub fn noise(seed: u64, n: usize) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

pub fn raw_deflate(data: &[u8], level: i32) -> Vec<u8> {
    let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
    let mut out = vec![0u8; c.deflate_compress_bound(data.len())];
    let n = c.deflate_compress(data, &mut out).unwrap();
    out.truncate(n);
    out
}

/// A stored-block-only raw Deflate stream of `data` (at most 65535 bytes): its bytes appear
/// verbatim in the stream.
pub fn stored(data: &[u8]) -> Vec<u8> {
    let len = u16::try_from(data.len()).unwrap();
    let mut out = vec![0x01];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// Optional header fields of a member written by [`member_with`].
#[derive(Default, Clone)]
pub struct Fields<'a> {
    pub text: bool,
    pub extra: Option<&'a [u8]>,
    pub name: Option<&'a [u8]>,
    pub comment: Option<&'a [u8]>,
    pub header_crc: bool,
}

pub fn header(f: &Fields<'_>) -> Vec<u8> {
    let mut flags = 0u8;
    flags |= if f.text { 0x01 } else { 0 };
    flags |= if f.header_crc { 0x02 } else { 0 };
    flags |= if f.extra.is_some() { 0x04 } else { 0 };
    flags |= if f.name.is_some() { 0x08 } else { 0 };
    flags |= if f.comment.is_some() { 0x10 } else { 0 };
    let mut h = vec![0x1f, 0x8b, 8, flags, 0x78, 0x56, 0x34, 0x12, 0, 3];
    if let Some(extra) = f.extra {
        h.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        h.extend_from_slice(extra);
    }
    for s in [f.name, f.comment].into_iter().flatten() {
        h.extend_from_slice(s);
        h.push(0);
    }
    if f.header_crc {
        let crc = (libdeflater::crc32(&h) & 0xffff) as u16;
        h.extend_from_slice(&crc.to_le_bytes());
    }
    h
}

/// A member of `data` with the given header fields and Deflate stream.
pub fn member_with(data: &[u8], f: &Fields<'_>, stream: &[u8]) -> Vec<u8> {
    let mut m = header(f);
    m.extend_from_slice(stream);
    m.extend_from_slice(&libdeflater::crc32(data).to_le_bytes());
    m.extend_from_slice(&(data.len() as u32).to_le_bytes());
    m
}

pub fn member(data: &[u8]) -> Vec<u8> {
    member_with(data, &Fields::default(), &raw_deflate(data, 6))
}

/// flate2's own gzip writer (a reference implementation of the format).
pub fn flate2_gzip(data: &[u8]) -> Vec<u8> {
    let mut e = GzEncoder::new(Vec::new(), Compression::new(6));
    e.write_all(data).unwrap();
    e.finish().unwrap()
}

/// What zlib (flate2's multi-member reader) makes of `gz`.
pub fn zlib_reference(gz: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    MultiGzDecoder::new(gz).read_to_end(&mut out).unwrap();
    out
}

/// BGZF: members of at most 64 KiB input, each recording its size in a `BC` subfield, then
/// the standard 28-byte end-of-file member.
pub fn bgzf(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in data.chunks(65280) {
        let stream = raw_deflate(block, 6);
        // Header 18 bytes, trailer 8.
        let bsize = (18 + stream.len() + 8 - 1) as u16;
        let mut extra = vec![b'B', b'C', 2, 0];
        extra.extend_from_slice(&bsize.to_le_bytes());
        let f = Fields {
            extra: Some(&extra),
            ..Fields::default()
        };
        let m = member_with(block, &f, &stream);
        assert_eq!(m.len(), usize::from(bsize) + 1);
        out.extend_from_slice(&m);
    }
    out.extend_from_slice(&BGZF_EOF);
    out
}

pub const BGZF_EOF: [u8; 28] = [
    0x1f, 0x8b, 0x08, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x06, 0x00, 0x42, 0x43, 0x02, 0x00,
    0x1b, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];
