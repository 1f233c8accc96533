//! gzip files (RFC 1952): one or more members, each a header, a raw Deflate stream and a trailer
//! (CRC-32 and size). Members are cut apart first and inflated as one batch through
//! [`inflate_batch`](super::batch::inflate_batch), one member per stream, so a GPU device
//! decodes them all in one launch:
//!
//! - BGZF files record every member's size in its header, so the cut is exact;
//! - other multi-member files (`cat a.gz b.gz`) are cut where a scan finds valid headers; a
//!   piece is believed only when it inflates to exactly its trailer's size and CRC-32 and its
//!   stream ends right before that trailer, and whatever is not believed is decoded member by
//!   member on the CPU, exactly as gzip does;
//! - a single member is decoded on the CPU (one stream cannot be split).
//!
//! Every member's CRC-32 and size are checked; zero bytes after the last member are ignored (as
//! gzip does, with a notice); anything else after it is an error.

pub mod header;
mod sequential;
mod split;
pub(crate) mod stream;
pub mod write;

use self::header::{has_magic, parse_header, Header, HeaderError};
use self::split::Segment;
use super::batch::{inflate_batch, StreamResult};
use crate::device::Device;
use crate::error::{ChunkStatus, Error, Result};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt;
use std::ops::Range;

/// How a member was inflated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decoding {
    /// In the batch, cut by the size its BGZF header field records.
    Bgzf,
    /// In the batch, cut where the header scan found it, and confirmed by its trailer.
    Scanned,
    /// On the CPU, one member after another (single-member files, and members the batch could
    /// not confirm).
    Sequential,
}

/// One member of a gzip file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Where the member's header starts in the file.
    pub offset: u64,
    /// Bytes of the whole member: header, Deflate data and trailer.
    pub compressed_len: u64,
    /// Bytes of its header.
    pub header_len: usize,
    /// Bytes it inflated to.
    pub uncompressed_len: u64,
    /// CRC-32 of those bytes (equal to the trailer's).
    pub crc32: u32,
    /// The header's FLG byte.
    pub flags: u8,
    /// The header's MTIME.
    pub mtime: u32,
    /// The header's OS byte.
    pub os: u8,
    /// The original file name (FNAME, read as ISO 8859-1).
    pub name: Option<String>,
    /// The comment (FCOMMENT, read as ISO 8859-1).
    pub comment: Option<String>,
    /// Bytes of the extra field (FEXTRA), if any.
    pub extra_len: Option<usize>,
    /// The member size its BGZF extra subfield records, if any.
    pub bgzf_member_len: Option<usize>,
    /// How it was inflated.
    pub decoding: Decoding,
}

/// Something worth telling the user that is not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    /// The file is one member, which the device cannot split: it was decoded on the CPU
    /// although the device is a GPU.
    SingleMemberOnCpu,
    /// The device is a GPU, but `members` members were too large for one warp each
    /// (over [`GPU_MAX_MEMBER_LEN`]) and were inflated on the CPU.
    LargeMembersOnCpu { members: usize },
    /// `len` zero bytes after the last member (at `offset`) were ignored.
    TrailingZeros { offset: u64, len: u64 },
}

impl Notice {
    /// The notice as one line about the file called `what`.
    pub fn message(&self, what: &str) -> String {
        match self {
            Notice::SingleMemberOnCpu => {
                format!("{what} is a single gzip member; decoding it on the CPU")
            }
            Notice::LargeMembersOnCpu { members } => format!(
                "{what}: {members} gzip member(s) of more than {} MiB decoded on the CPU",
                GPU_MAX_MEMBER_LEN >> 20
            ),
            Notice::TrailingZeros { len, .. } => {
                format!("{what}: decompression OK, {len} trailing zero bytes ignored")
            }
        }
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("the gzip file"))
    }
}

/// A decoded gzip file: the bytes, its members and any notices.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Every member's bytes, in order.
    pub data: Vec<u8>,
    /// The members, in file order.
    pub members: Vec<Member>,
    /// Notices for the user.
    pub notices: Vec<Notice>,
}

/// What inflating the segments as one batch gave: one buffer with every batched segment's
/// claimed size back to back and, per segment, the range of it holding the segment's member
/// when the segment was confirmed.
#[derive(Default)]
struct BatchOutput {
    buffer: Vec<u8>,
    confirmed: Vec<Option<Range<usize>>>,
    notices: Vec<Notice>,
}

/// The members of a batch that go to one side (the device, or the CPU): their places in the
/// batch, inputs and outputs.
#[derive(Default)]
struct Stream<'i, 'o> {
    index: Vec<usize>,
    inputs: Vec<&'i [u8]>,
    outputs: Vec<&'o mut [u8]>,
}

/// Members inflating to more than this many bytes are inflated on the CPU even when the device
/// is a GPU: one warp decodes a member serially, far slower than a CPU core on one long stream.
pub const GPU_MAX_MEMBER_LEN: usize = 16 << 20;

/// Where a member ended, and what it inflated to.
pub(crate) struct MemberEnd {
    /// Bytes of the whole member.
    len: usize,
    uncompressed_len: u64,
    crc32: u32,
}

/// True when `data` starts with the gzip magic `1f 8b`.
pub fn is_gzip(data: &[u8]) -> bool {
    has_magic(data)
}

/// Decompresses a gzip file: every member, concatenated, after checking each one's CRC-32 and
/// size. Errors name the member (counting from 0) and where it starts.
pub fn decompress(data: &[u8], device: &Device) -> Result<Vec<u8>> {
    Ok(decompress_report(data, device)?.data)
}

/// The members of a gzip file, each decoded and checked (a member's end is only known once its
/// Deflate data has been inflated).
pub fn list_members(data: &[u8], device: &Device) -> Result<Vec<Member>> {
    Ok(decompress_report(data, device)?.members)
}

/// Decompresses a gzip file and reports its members and notices; see [`decompress`].
pub fn decompress_report(data: &[u8], device: &Device) -> Result<Decoded> {
    let first = parse_header(data).map_err(|e| header_error(0, 0, e))?;
    let (mut segments, at) = if first.bgzf_member_len.is_some() {
        split::bgzf_segments(data, 0)
    } else {
        (Vec::new(), 0)
    };
    // Members after the BGZF ones (or all of them): cut where valid headers are found. A file
    // of one member is left to the CPU walk, with its last ISIZE as a size hint.
    let mut first_hint = None;
    if let Some(h) = data.get(at..).and_then(|rest| parse_header(rest).ok()) {
        let scanned = split::scanned_segments(data, at, h.len);
        match scanned.as_slice() {
            [only] if segments.is_empty() => {
                first_hint = only.plausible().then_some(only.isize as usize);
            }
            _ => segments.extend(scanned),
        }
    }
    if segments.is_empty() {
        let mut decoded = walk(data, &segments, BatchOutput::default(), first_hint)?;
        if device.is_gpu() {
            decoded.notices.insert(0, Notice::SingleMemberOnCpu);
        }
        return Ok(decoded);
    }
    let batch = inflate_segments(data, &segments, device)?;
    walk(data, &segments, batch, None)
}

/// Inflates every plausible segment as one batch on `device`. A segment is confirmed when its
/// stream ended exactly before its trailer and inflated to the trailer's size and CRC-32.
fn inflate_segments(data: &[u8], segments: &[Segment], device: &Device) -> Result<BatchOutput> {
    let batch: Vec<usize> = (0..segments.len())
        .filter(|&i| segments[i].plausible())
        .collect();
    let mut ranges: Vec<Range<usize>> = Vec::with_capacity(batch.len());
    let mut total = 0usize;
    for &i in &batch {
        let size = segments[i].isize as usize;
        let end = total.checked_add(size).ok_or_else(|| {
            Error::Unsupported("gzip members' sizes do not fit in memory here".into())
        })?;
        ranges.push(total..end);
        total = end;
    }
    if batch.is_empty() {
        return Ok(BatchOutput {
            confirmed: vec![None; segments.len()],
            ..BatchOutput::default()
        });
    }
    let mut buffer = crate::error::try_zeroed(total, "the gzip members' output")?;
    let inputs: Vec<&[u8]> = batch
        .iter()
        .map(|&i| &data[segments[i].deflate.clone()])
        .collect();
    let mut outputs: Vec<&mut [u8]> = Vec::with_capacity(batch.len());
    let mut rest = buffer.as_mut_slice();
    for r in &ranges {
        let (dst, tail) = rest.split_at_mut(r.len());
        outputs.push(dst);
        rest = tail;
    }
    // One warp inflates one member serially, so a large member would hold the whole batch up
    // (and one over 4 GiB cannot be described to the kernel): those go to the CPU, in parallel
    // with the device's batch.
    let mut results = vec![StreamResult::failed(ChunkStatus::Corrupt); batch.len()];
    let (mut dev, mut cpu) = (Stream::default(), Stream::default());
    for (k, (input, output)) in inputs.into_iter().zip(outputs).enumerate() {
        let side = if device.is_gpu() && output.len() <= GPU_MAX_MEMBER_LEN {
            &mut dev
        } else {
            &mut cpu
        };
        side.index.push(k);
        side.inputs.push(input);
        side.outputs.push(output);
    }
    let (dev_results, cpu_results) = rayon::join(
        || inflate_batch(device, &dev.inputs, &mut dev.outputs),
        || inflate_batch(&Device::Cpu, &cpu.inputs, &mut cpu.outputs),
    );
    for (side, side_results) in [(&dev, dev_results?), (&cpu, cpu_results?)] {
        for (&k, r) in side.index.iter().zip(side_results) {
            results[k] = r;
        }
    }
    let mut notices = Vec::new();
    if device.is_gpu() && !cpu.index.is_empty() {
        notices.push(Notice::LargeMembersOnCpu {
            members: cpu.index.len(),
        });
    }
    let ok: Vec<bool> = batch
        .par_iter()
        .zip(&results)
        .zip(&ranges)
        .map(|((&i, r), range)| {
            let s = &segments[i];
            r.status == ChunkStatus::Ok
                && r.consumed == s.deflate.len()
                && r.written == range.len()
                && libdeflater::crc32(&buffer[range.clone()]) == s.crc32
        })
        .collect();
    let mut confirmed = vec![None; segments.len()];
    for ((&i, range), good) in batch.iter().zip(ranges).zip(ok) {
        if good {
            confirmed[i] = Some(range);
        }
    }
    Ok(BatchOutput {
        buffer,
        confirmed,
        notices,
    })
}

/// Walks the file from its start as gzip does, member after member: a member that starts where a
/// confirmed segment starts is that segment's output; any other is inflated on the CPU (the
/// first with `first_hint` as its size). Ends at the end of the file or at zero padding; any
/// other bytes after a member are an error.
fn walk(
    data: &[u8],
    segments: &[Segment],
    batch: BatchOutput,
    first_hint: Option<usize>,
) -> Result<Decoded> {
    let BatchOutput {
        buffer: outputs,
        confirmed,
        notices: batch_notices,
    } = batch;
    let mut members = Vec::with_capacity(segments.len().max(1));
    let mut notices = batch_notices;
    // Fast path: every segment confirmed, back to back from the start, and nothing after the
    // last one but zeros. Then the batch buffer is the output as it is.
    let tiled = !segments.is_empty()
        && confirmed.iter().all(Option::is_some)
        && segments.first().is_some_and(|s| s.start == 0)
        && segments.windows(2).all(|w| w[0].end == w[1].start);
    let end = segments.last().map_or(0, |s| s.end);
    if tiled
        && data
            .get(end..)
            .is_some_and(|rest| rest.iter().all(|&b| b == 0))
    {
        for (s, range) in segments.iter().zip(confirmed.iter().flatten()) {
            members.push(member(
                data,
                s.start,
                s.end - s.start,
                range.len() as u64,
                s.crc32,
                decoding(s),
            ));
        }
        if end < data.len() {
            notices.push(zeros(end, data.len()));
        }
        return Ok(Decoded {
            data: outputs,
            members,
            notices,
        });
    }
    let by_start: HashMap<usize, usize> = (0..segments.len())
        .filter(|&i| confirmed[i].is_some())
        .map(|i| (segments[i].start, i))
        .collect();
    let mut out = crate::error::try_with_capacity(outputs.len(), "the gzip output")?;
    let mut pos = 0usize;
    while pos < data.len() {
        let index = members.len();
        if let Some((s, range)) = by_start
            .get(&pos)
            .and_then(|&i| Some((&segments[i], confirmed[i].clone()?)))
        {
            crate::error::try_reserve(&mut out, range.len(), "the gzip output")?;
            out.extend_from_slice(&outputs[range.clone()]);
            members.push(member(
                data,
                pos,
                s.end - pos,
                range.len() as u64,
                s.crc32,
                decoding(s),
            ));
            pos = s.end;
            continue;
        }
        if index > 0 && data[pos..].iter().all(|&b| b == 0) {
            notices.push(zeros(pos, data.len()));
            break;
        }
        if index > 0 && !has_magic(&data[pos..]) {
            return Err(corrupt(
                index,
                pos,
                format!(
                    "trailing garbage: the {} bytes after the last member are neither a gzip \
                     member nor zero padding",
                    data.len() - pos
                ),
            ));
        }
        let hint = if index == 0 { first_hint } else { None };
        let end = sequential::decode_member(data, pos, index, hint, &mut out)?;
        members.push(member(
            data,
            pos,
            end.len,
            end.uncompressed_len,
            end.crc32,
            Decoding::Sequential,
        ));
        pos += end.len;
    }
    Ok(Decoded {
        data: out,
        members,
        notices,
    })
}

fn decoding(s: &Segment) -> Decoding {
    if s.bgzf {
        Decoding::Bgzf
    } else {
        Decoding::Scanned
    }
}

fn zeros(from: usize, to: usize) -> Notice {
    Notice::TrailingZeros {
        offset: from as u64,
        len: (to - from) as u64,
    }
}

/// The listing entry of a decoded member whose header starts at `data[at]`.
fn member(
    data: &[u8],
    at: usize,
    len: usize,
    uncompressed_len: u64,
    crc32: u32,
    decoding: Decoding,
) -> Member {
    let header: Option<Header<'_>> = data.get(at..).and_then(|h| parse_header(h).ok());
    let latin1 = |b: &[u8]| b.iter().map(|&c| char::from(c)).collect::<String>();
    Member {
        offset: at as u64,
        compressed_len: len as u64,
        header_len: header.as_ref().map_or(0, |h| h.len),
        uncompressed_len,
        crc32,
        flags: header.as_ref().map_or(0, |h| h.flags),
        mtime: header.as_ref().map_or(0, |h| h.mtime),
        os: header.as_ref().map_or(0, |h| h.os),
        name: header.as_ref().and_then(|h| h.name).map(latin1),
        comment: header.as_ref().and_then(|h| h.comment).map(latin1),
        extra_len: header.as_ref().and_then(|h| h.extra).map(<[u8]>::len),
        bgzf_member_len: header.as_ref().and_then(|h| h.bgzf_member_len),
        decoding,
    }
}

/// The error for corrupt member `member` whose header starts at byte `offset`.
pub(crate) fn corrupt(member: usize, offset: usize, reason: impl Into<String>) -> Error {
    Error::CorruptGzip {
        member,
        offset: offset as u64,
        reason: reason.into(),
    }
}

/// The error for member `member` (header at byte `offset`) cut short by the end of the input.
pub(crate) fn truncated(member: usize, offset: usize, what: &str) -> Error {
    Error::Truncated(format!("gzip member {member} (at byte {offset}): {what}"))
}

/// The error for a header that did not parse.
pub(crate) fn header_error(member: usize, offset: usize, e: HeaderError) -> Error {
    match e {
        HeaderError::Truncated(_) => truncated(member, offset, &e.to_string()),
        HeaderError::Invalid(reason) if member == 0 && offset == 0 => {
            corrupt(member, offset, format!("not a gzip file: {reason}"))
        }
        HeaderError::Invalid(reason) => corrupt(member, offset, reason),
    }
}
