//! Streaming gzip decompression in bounded memory. The input is read a window at a time
//! (a batch's worth of compressed bytes):
//!
//! - the window's whole members go to the batch decoder, as the whole-file decoder sends
//!   them: BGZF members cut by their recorded sizes, other members cut where the header scan
//!   finds them and kept only when confirmed (stream end right before the trailer, trailer's
//!   size and CRC-32), a run of confirmed members from the window's start at a time;
//! - a member that no batch confirms (a single member, one longer than the window) is inflated
//!   on the CPU with a streaming inflater as its bytes arrive, its output written a piece at a
//!   time, its CRC-32 and size checked at its trailer;
//! - the rest of the input, once it fits in the window, goes to the whole-file decoder, so an
//!   input no longer than a window gets exactly the whole-file decoder's answer.
//!
//! Errors and notices name members and offsets counted over the whole input.

use super::header::{has_magic, parse_header, read_trailer, TRAILER_LEN};
use super::{corrupt, decompress_report, header_error, inflate_segments, split, truncated, Notice};
use crate::api::InputFormat;
use crate::device::Device;
use crate::error::{ChunkStatus, Error, Result};
use crate::format::stream::fill;
use crate::stream::{batch_target, Counting, StreamConfig, StreamStats};
use flate2::{Decompress, FlushDecompress, Status};
use std::io::{self, Read, Write};

/// Bytes read or inflated at a time by the streaming inflater.
const PIECE: usize = 1 << 20;

/// Decompresses the gzip input `prefix` + `reader` into `w`; see the module's text.
pub(crate) fn decompress<R: Read, W: Write + ?Sized>(
    reader: R,
    prefix: Vec<u8>,
    w: &mut W,
    device: &Device,
    cfg: &StreamConfig,
) -> Result<StreamStats> {
    let mut r = Counting {
        inner: reader,
        count: prefix.len() as u64,
    };
    let window = batch_target(cfg, device, 0).max(PIECE) as u64;
    let mut stats = StreamStats::new(InputFormat::Gzip);
    let mut buf = prefix;
    let mut base = 0u64;
    let mut member = 0usize;
    let mut large_on_cpu = 0usize;
    loop {
        let full = fill(&mut r, &mut buf, window + 1)?;
        if member > 0 && buf.is_empty() {
            break;
        }
        if member > 0 && !has_magic(&buf) {
            after_last_member(&mut r, &buf, member, base, &mut stats)?;
            break;
        }
        if !full {
            // The rest of the input fits in the window: the whole-file decoder takes it.
            let decoded = decompress_report(&buf, device).map_err(|e| rebase(e, member, base))?;
            w.write_all(&decoded.data)?;
            stats.bytes_out += decoded.data.len() as u64;
            stats.frames += decoded.members.len() as u64;
            for n in decoded.notices {
                match n {
                    Notice::SingleMemberOnCpu if member == 0 => stats.notices.push(n),
                    Notice::SingleMemberOnCpu => large_on_cpu += 1,
                    Notice::LargeMembersOnCpu { members } => large_on_cpu += members,
                    Notice::TrailingZeros { offset, len } => {
                        stats.notices.push(Notice::TrailingZeros {
                            offset: offset + base,
                            len,
                        })
                    }
                }
            }
            break;
        }
        let (done, bytes, notices) = batch_prefix(&buf, device)?;
        if done.members > 0 {
            w.write_all(&bytes)?;
            stats.bytes_out += bytes.len() as u64;
            stats.frames += done.members as u64;
            large_on_cpu += notices;
            member += done.members;
            base += done.len as u64;
            buf.drain(..done.len);
            continue;
        }
        // No batch confirmed the member at the window's start: inflate it as it streams.
        let len = stream_member(&mut r, &mut buf, member, base, w, &mut stats)?;
        if device.is_gpu() {
            large_on_cpu += 1;
        }
        member += 1;
        base += len;
    }
    let single = stats.frames == 1 && !stats.notices.contains(&Notice::SingleMemberOnCpu);
    if single && large_on_cpu == 1 && device.is_gpu() {
        // The whole input was one member, streamed on the CPU.
        stats.notices.insert(0, Notice::SingleMemberOnCpu);
    } else if large_on_cpu > 0 && device.is_gpu() {
        stats.notices.insert(
            0,
            Notice::LargeMembersOnCpu {
                members: large_on_cpu,
            },
        );
    }
    stats.bytes_in = r.count;
    Ok(stats)
}

/// Whole members decoded from the start of a window.
#[derive(Clone, Copy, Default)]
struct Done {
    members: usize,
    len: usize,
}

/// Decodes the members at the start of `buf` (a window that does not reach the end of the
/// input) that a batch can take: BGZF members by their recorded sizes, else scanned members
/// confirmed by their trailers, as long as they follow each other from the window's start.
/// Returns how many and how long, their bytes, and how many went to the CPU for their size.
fn batch_prefix(buf: &[u8], device: &Device) -> Result<(Done, Vec<u8>, usize)> {
    let Ok(h) = parse_header(buf) else {
        return Ok((Done::default(), Vec::new(), 0));
    };
    if h.bgzf_member_len.is_some() {
        let (segments, at) = split::bgzf_segments(buf, 0);
        if at == 0 {
            return Ok((Done::default(), Vec::new(), 0));
        }
        let decoded = decompress_report(&buf[..at], device)?;
        let cpu = decoded
            .notices
            .iter()
            .map(|n| match n {
                Notice::LargeMembersOnCpu { members } => *members,
                _ => 0,
            })
            .sum();
        let done = Done {
            members: segments.len(),
            len: at,
        };
        return Ok((done, decoded.data, cpu));
    }
    let mut segments = split::scanned_segments(buf, 0, h.len);
    // The last segment runs to the window's end, not to a member's end.
    segments.pop();
    if segments.is_empty() {
        return Ok((Done::default(), Vec::new(), 0));
    }
    let batch = inflate_segments(buf, &segments, device)?;
    let mut done = Done::default();
    let mut ranges = Vec::new();
    for (s, confirmed) in segments.iter().zip(&batch.confirmed) {
        match confirmed {
            Some(range) if s.start == done.len => {
                ranges.push(range.clone());
                done.members += 1;
                done.len = s.end;
            }
            _ => break,
        }
    }
    let mut bytes = Vec::with_capacity(ranges.iter().map(|r| r.len()).sum());
    for range in ranges {
        bytes.extend_from_slice(&batch.buffer[range]);
    }
    let cpu = batch
        .notices
        .iter()
        .map(|n| match n {
            Notice::LargeMembersOnCpu { members } => *members,
            _ => 0,
        })
        .sum();
    Ok((done, bytes, cpu))
}

/// Inflates member `index`, whose header starts at `buf[0]` (byte `at` of the input), reading
/// more input as needed and writing its output to `w` a piece at a time; checks its trailer.
/// Leaves `buf` holding the bytes after the member; returns the member's length.
fn stream_member<R: Read, W: Write + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
    index: usize,
    at: u64,
    w: &mut W,
    stats: &mut StreamStats,
) -> Result<u64> {
    let offset = at as usize;
    let header_len = parse_header(buf)
        .map_err(|e| header_error(index, offset, e))?
        .len;
    let mut pos = header_len;
    let mut used = header_len as u64;
    let mut inflater = Decompress::new(false);
    let mut crc = libdeflater::Crc::new();
    let mut size = 0u64;
    let mut out = vec![0u8; PIECE];
    loop {
        if pos == buf.len() {
            buf.clear();
            pos = 0;
            fill(r, buf, PIECE as u64)?;
        }
        let (in0, out0) = (inflater.total_in(), inflater.total_out());
        let status = inflater
            .decompress(&buf[pos..], &mut out, FlushDecompress::None)
            .map_err(|_| {
                corrupt(
                    index,
                    offset,
                    format!("Deflate data: {}", ChunkStatus::Corrupt.reason()),
                )
            })?;
        let consumed = (inflater.total_in() - in0) as usize;
        let produced = (inflater.total_out() - out0) as usize;
        pos += consumed;
        used += consumed as u64;
        if produced > 0 {
            w.write_all(&out[..produced])?;
            crc.update(&out[..produced]);
            size += produced as u64;
            stats.bytes_out += produced as u64;
        }
        match status {
            Status::StreamEnd => break,
            Status::Ok | Status::BufError => {
                if consumed == 0 && produced == 0 && pos == buf.len() {
                    // Nothing left to feed: the input ended mid-stream.
                    return Err(truncated(
                        index,
                        offset,
                        "the input ends inside the Deflate data",
                    ));
                }
            }
        }
    }
    buf.drain(..pos);
    fill(r, buf, TRAILER_LEN as u64)?;
    let trailer = read_trailer(buf, 0).ok_or_else(|| {
        truncated(
            index,
            offset,
            "the input ends inside the member's 8-byte trailer",
        )
    })?;
    buf.drain(..TRAILER_LEN);
    let sum = crc.sum();
    if sum != trailer.crc32 {
        return Err(corrupt(
            index,
            offset,
            format!(
                "CRC-32 mismatch (trailer says {:#010x}, data gives {sum:#010x})",
                trailer.crc32
            ),
        ));
    }
    // ISIZE is the size modulo 2^32.
    if size as u32 != trailer.isize {
        return Err(corrupt(
            index,
            offset,
            format!(
                "size mismatch (trailer ISIZE {}, data gives {size} bytes)",
                trailer.isize
            ),
        ));
    }
    stats.frames += 1;
    Ok(used + TRAILER_LEN as u64)
}

/// What follows the last member, `buf` and the rest of `r` (member `index` would start at
/// byte `at`): zero padding (a notice) or trailing garbage (an error), as gzip reads them.
fn after_last_member<R: Read>(
    r: &mut R,
    buf: &[u8],
    index: usize,
    at: u64,
    stats: &mut StreamStats,
) -> Result<()> {
    let mut len = buf.len() as u64;
    let mut zeros = buf.iter().all(|&b| b == 0);
    let mut piece = vec![0u8; PIECE];
    loop {
        let n = match r.read(&mut piece) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        zeros &= piece[..n].iter().all(|&b| b == 0);
        len += n as u64;
    }
    if zeros {
        stats.notices.push(Notice::TrailingZeros { offset: at, len });
        return Ok(());
    }
    Err(corrupt(
        index,
        at as usize,
        format!(
            "trailing garbage: the {len} bytes after the last member are neither a gzip member \
             nor zero padding"
        ),
    ))
}

/// An error of the whole-file decoder run on the part of the input from member `member` (at
/// byte `base`) on, with its member and offset counted over the whole input.
fn rebase(e: Error, member: usize, base: u64) -> Error {
    if member == 0 && base == 0 {
        return e;
    }
    match e {
        Error::CorruptGzip {
            member: m,
            offset,
            reason,
        } => Error::CorruptGzip {
            member: m + member,
            offset: offset + base,
            reason: reason
                .strip_prefix("not a gzip file: ")
                .map(str::to_string)
                .unwrap_or(reason),
        },
        Error::Truncated(msg) => Error::Truncated(rebase_words(&msg, member, base).unwrap_or(msg)),
        other => other,
    }
}

/// `gzip member M (at byte O): ...` with M and O moved on by `member` and `base`.
fn rebase_words(msg: &str, member: usize, base: u64) -> Option<String> {
    let rest = msg.strip_prefix("gzip member ")?;
    let (m, rest) = rest.split_once(" (at byte ")?;
    let (o, rest) = rest.split_once("): ")?;
    let m: usize = m.parse().ok()?;
    let o: u64 = o.parse().ok()?;
    Some(format!(
        "gzip member {} (at byte {}): {rest}",
        m + member,
        o + base
    ))
}
