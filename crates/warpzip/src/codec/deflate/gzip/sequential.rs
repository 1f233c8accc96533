//! Decoding one gzip member on the CPU when its end is not known in advance: the Deflate stream
//! is inflated with flate2 (zlib-rs) into a growing buffer until its final block, which also
//! says where the trailer is. The fallback for members the batch could not confirm, and the path
//! for single-member files (libdeflate first when the file's last ISIZE gives the size).

use super::header::{parse_header, read_trailer, TRAILER_LEN};
use super::{corrupt, header_error, truncated, MemberEnd};
use crate::codec::deflate::cpu;
use crate::error::{ChunkStatus, Result};
use flate2::{Decompress, FlushDecompress, Status};

/// Output space added when the buffer is full: at least this much, else as much as it holds.
const GROW_MIN: usize = 1 << 20;

/// Decodes the member whose header starts at `data[at]`, appending its bytes to `out`; it is
/// member number `index` (for messages). With `size_hint`, libdeflate tries first with exactly
/// that much output room; when that does not give a verified member, flate2 streams it.
pub fn decode_member(
    data: &[u8],
    at: usize,
    index: usize,
    size_hint: Option<usize>,
    out: &mut Vec<u8>,
) -> Result<MemberEnd> {
    let header =
        parse_header(data.get(at..).unwrap_or_default()).map_err(|e| header_error(index, at, e))?;
    let body_at = at + header.len;
    let body = data.get(body_at..).unwrap_or_default();
    let start = out.len();
    if let Some(size) = size_hint {
        if let Some(end) = try_exact_size(data, at, body_at, size, out) {
            return Ok(end);
        }
        out.truncate(start);
    }
    let consumed = inflate_streaming(body, out)?.map_err(|status| match status {
        ChunkStatus::Truncated => truncated(index, at, "the input ends inside the Deflate data"),
        other => corrupt(index, at, format!("Deflate data: {}", other.reason())),
    })?;
    let trailer_at = body_at + consumed;
    let trailer = read_trailer(data, trailer_at).ok_or_else(|| {
        truncated(
            index,
            at,
            "the input ends inside the member's 8-byte trailer",
        )
    })?;
    let written = &out[start..];
    let crc = libdeflater::crc32(written);
    if crc != trailer.crc32 {
        return Err(corrupt(
            index,
            at,
            format!(
                "CRC-32 mismatch (trailer says {:#010x}, data gives {crc:#010x})",
                trailer.crc32
            ),
        ));
    }
    // ISIZE is the size modulo 2^32: a member of 4 GiB or more is checked by its low 32 bits.
    if written.len() as u32 != trailer.isize {
        return Err(corrupt(
            index,
            at,
            format!(
                "size mismatch (trailer ISIZE {}, data gives {} bytes)",
                trailer.isize,
                written.len()
            ),
        ));
    }
    Ok(MemberEnd {
        len: trailer_at + TRAILER_LEN - at,
        uncompressed_len: written.len() as u64,
        crc32: crc,
    })
}

/// One libdeflate call with exactly `size` bytes of room; the member when it decodes to exactly
/// `size` bytes and its trailer matches, else `None` (with `out` possibly grown).
fn try_exact_size(
    data: &[u8],
    at: usize,
    body_at: usize,
    size: usize,
    out: &mut Vec<u8>,
) -> Option<MemberEnd> {
    let start = out.len();
    if out.is_empty() {
        // A fresh zeroed allocation is mapped lazily: a wrong size hint costs no writes. One
        // that cannot be had leaves the member to the growing path.
        *out = crate::error::try_zeroed(size, "a gzip member").ok()?;
    } else {
        out.try_reserve_exact(size).ok()?;
        out.resize(start.checked_add(size)?, 0);
    }
    let body = data.get(body_at..)?;
    let r = cpu::inflate(body, &mut out[start..]);
    if r.status != ChunkStatus::Ok || r.written != size {
        return None;
    }
    let trailer = read_trailer(data, body_at + r.consumed)?;
    let crc = libdeflater::crc32(&out[start..]);
    if crc != trailer.crc32 || size as u32 != trailer.isize {
        return None;
    }
    Some(MemberEnd {
        len: body_at + r.consumed + TRAILER_LEN - at,
        uncompressed_len: size as u64,
        crc32: crc,
    })
}

/// Inflates the raw Deflate stream at the start of `input` (which may go on past it), appending
/// to `out`; returns the bytes of `input` up to the end of the final block, or why the stream
/// does not decode. `Err` only when `out` cannot grow (`Error::OutOfMemory`).
pub fn inflate_streaming(input: &[u8], out: &mut Vec<u8>) -> Result<Result<usize, ChunkStatus>> {
    let mut inflater = Decompress::new(false);
    loop {
        if out.capacity() - out.len() < GROW_MIN / 4 {
            let more = out.len().max(GROW_MIN);
            out.try_reserve(more).map_err(|_| {
                crate::error::Error::out_of_memory(
                    "a gzip member's output",
                    (out.len() as u64).saturating_add(more as u64),
                )
            })?;
        }
        let before_in = inflater.total_in();
        let before_out = inflater.total_out();
        // total_in never exceeds input.len(), which is a usize.
        let Ok(fed) = usize::try_from(before_in) else {
            return Ok(Err(ChunkStatus::Corrupt));
        };
        let Ok(status) = inflater.decompress_vec(
            input.get(fed..).unwrap_or_default(),
            out,
            FlushDecompress::None,
        ) else {
            return Ok(Err(ChunkStatus::Corrupt));
        };
        let Ok(consumed) = usize::try_from(inflater.total_in()) else {
            return Ok(Err(ChunkStatus::Corrupt));
        };
        match status {
            Status::StreamEnd => return Ok(Ok(consumed)),
            Status::Ok | Status::BufError => {
                let progressed =
                    inflater.total_in() != before_in || inflater.total_out() != before_out;
                let room = out.capacity() > out.len();
                if !progressed && room {
                    // No progress with output room left: the input is used up mid-stream.
                    return Ok(Err(ChunkStatus::Truncated));
                }
            }
        }
    }
}
