//! Cutting a gzip file into members before any of them is inflated, so that all can go to the
//! device as one batch. BGZF members say their own size; elsewhere member starts are guessed by
//! scanning for valid headers, and a guess is only believed once its member has been inflated and
//! its trailer checked (see `super::decode`).

use super::header::{has_magic, parse_header, read_trailer, MIN_DEFLATE_LEN, TRAILER_LEN};
use crate::codec::deflate::cpu;
use crate::error::ChunkStatus;
use rayon::prelude::*;

/// Deflate's largest possible ratio is about 1032:1 (a 258-byte match in under two bits); a
/// segment claiming more output per input byte than this cannot be one member.
const MAX_RATIO: usize = 1032;
/// Output room for the probe inflate at a candidate member start.
const PROBE_OUTPUT: usize = 4096;
/// Bytes of input each parallel scan task searches.
const SCAN_BLOCK: usize = 1 << 20;

/// A stretch of the file believed to be one member: its header at `start`, its Deflate data in
/// `deflate`, its trailer in the 8 bytes after that (ending at `end`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// Where the header starts.
    pub start: usize,
    /// The Deflate stream's bytes, `start + header length .. end - 8`.
    pub deflate: std::ops::Range<usize>,
    /// One past the trailer's last byte.
    pub end: usize,
    /// The trailer's ISIZE: the output size to reserve.
    pub isize: u32,
    /// The trailer's CRC-32.
    pub crc32: u32,
    /// True when the header's BGZF field gave the size; false for a guessed end.
    pub bgzf: bool,
}

impl Segment {
    /// True when the claimed output size can be inflated from the segment's Deflate bytes and
    /// fits in memory here; only such segments go into the batch.
    pub fn plausible(&self) -> bool {
        let deflate_len = self.deflate.len();
        deflate_len >= MIN_DEFLATE_LEN
            && usize::try_from(self.isize)
                .is_ok_and(|n| n <= deflate_len.saturating_mul(MAX_RATIO).saturating_add(1024))
    }
}

/// Walks BGZF members from `at`, each by the size its header records, until the file ends, a
/// member without a BGZF field, or bytes that are no member at all (left to the caller). Returns
/// the members and where the walk stopped. A recorded size that runs past the end of the file or
/// cannot hold the header and trailer also stops the walk there: gzip ignores the extra field,
/// so such a member is left to the scan and the walk, which decode it (or name its damage) as
/// gzip does.
pub fn bgzf_segments(data: &[u8], mut at: usize) -> (Vec<Segment>, usize) {
    let mut segments = Vec::new();
    while at < data.len() && has_magic(&data[at..]) {
        let Ok(header) = parse_header(&data[at..]) else {
            break;
        };
        let Some(len) = header.bgzf_member_len else {
            break;
        };
        let deflate_at = at + header.len;
        let Some(end) = at
            .checked_add(len)
            .filter(|&e| e <= data.len() && e >= deflate_at + MIN_DEFLATE_LEN + TRAILER_LEN)
        else {
            break;
        };
        segments.push(segment(data, at, deflate_at, end, true));
        at = end;
    }
    (segments, at)
}

/// Segments between the member header at `first` and the end of `data`, cut at every later
/// offset that looks like a member start: a valid header whose first 4 KiB of Deflate data
/// inflate without error. Each segment's trailer is taken from the 8 bytes before the next
/// start (or the end of the file). Some cuts may be false (a header-like run of bytes inside
/// compressed data); the caller confirms each segment by inflating it.
pub fn scanned_segments(data: &[u8], first: usize, first_header_len: usize) -> Vec<Segment> {
    // A later member cannot start before the first one's shortest Deflate data and trailer.
    let from = first + first_header_len + MIN_DEFLATE_LEN + TRAILER_LEN;
    let mut starts = vec![first];
    if from < data.len() {
        let blocks: Vec<usize> = (from..data.len()).step_by(SCAN_BLOCK).collect();
        let found: Vec<Vec<usize>> = blocks
            .par_iter()
            .map(|&block| {
                // A header starting in this block may extend past it: search with 2 bytes of
                // overlap, keep starts inside the block.
                let stop = (block + SCAN_BLOCK).min(data.len());
                let window = &data[block..(stop + 2).min(data.len())];
                memchr::memmem::find_iter(window, &[0x1f, 0x8b, 0x08])
                    .map(|i| block + i)
                    .filter(|&p| p < stop && looks_like_member(data, p))
                    .collect()
            })
            .collect();
        starts.extend(found.into_iter().flatten());
    }
    let mut segments = Vec::with_capacity(starts.len());
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(data.len());
        // Every start parsed as a header (the first by the caller), so this is its length.
        let header_len = parse_header(&data[start..]).map_or(0, |h| h.len);
        segments.push(segment(data, start, start + header_len, end, false));
    }
    segments
}

/// The segment with header at `start`, Deflate data from `deflate_at`, ending at `end`, its
/// trailer read from the 8 bytes before `end` (zeros when those overlap the header: such a
/// segment is not plausible).
fn segment(data: &[u8], start: usize, deflate_at: usize, end: usize, bgzf: bool) -> Segment {
    let trailer_at = end.saturating_sub(TRAILER_LEN).max(deflate_at);
    let trailer = (end >= deflate_at + TRAILER_LEN)
        .then(|| read_trailer(data, trailer_at))
        .flatten();
    Segment {
        start,
        deflate: deflate_at..trailer_at,
        end,
        isize: trailer.map_or(0, |t| t.isize),
        crc32: trailer.map_or(0, |t| t.crc32),
        bgzf,
    }
}

/// True when a member could start at `data[p]`: a valid header, room for the shortest member
/// after it, and Deflate data whose first few KiB inflate without error.
fn looks_like_member(data: &[u8], p: usize) -> bool {
    let Ok(header) = parse_header(&data[p..]) else {
        return false;
    };
    let deflate_at = p + header.len;
    if deflate_at + MIN_DEFLATE_LEN + TRAILER_LEN > data.len() {
        return false;
    }
    let mut probe = [0u8; PROBE_OUTPUT];
    let r = cpu::inflate(&data[deflate_at..], &mut probe);
    matches!(r.status, ChunkStatus::Ok | ChunkStatus::Overflow)
}
