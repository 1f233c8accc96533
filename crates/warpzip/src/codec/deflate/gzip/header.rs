//! RFC 1952 member headers and trailers, parsed with every read bounds-checked: a short or
//! malformed header is an error value, never a panic.

use std::fmt;

/// The two bytes every gzip member starts with.
pub const MAGIC: [u8; 2] = [0x1f, 0x8b];
/// Compression method 8, Deflate: the only one RFC 1952 defines.
pub const METHOD_DEFLATE: u8 = 8;
/// Bytes of the fixed part of a header (magic, method, flags, mtime, xfl, os).
pub const FIXED_LEN: usize = 10;
/// Bytes of a trailer: CRC-32 and ISIZE, both little-endian u32.
pub const TRAILER_LEN: usize = 8;
/// Shortest Deflate stream: one empty final block with fixed codes (`03 00`).
pub const MIN_DEFLATE_LEN: usize = 2;

/// FLG bit: the data is probably text (informational).
pub const FTEXT: u8 = 0x01;
/// FLG bit: a CRC-16 of the header follows it.
pub const FHCRC: u8 = 0x02;
/// FLG bit: an extra field (XLEN, then XLEN bytes of subfields) follows the fixed part.
pub const FEXTRA: u8 = 0x04;
/// FLG bit: a zero-terminated original file name follows.
pub const FNAME: u8 = 0x08;
/// FLG bit: a zero-terminated comment follows.
pub const FCOMMENT: u8 = 0x10;
/// FLG bits RFC 1952 reserves; a header with any of them set is rejected.
pub const RESERVED: u8 = 0xe0;

/// A parsed member header, borrowing its variable fields from the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// Bytes of the whole header; the Deflate stream starts right after it.
    pub len: usize,
    /// FLG.
    pub flags: u8,
    /// MTIME: modification time in seconds since 1970, 0 when unknown.
    pub mtime: u32,
    /// XFL: extra flags (2 = slowest compression, 4 = fastest).
    pub xfl: u8,
    /// OS: the file system the member was made on (255 = unknown).
    pub os: u8,
    /// The extra field's XLEN bytes, when FEXTRA is set.
    pub extra: Option<&'a [u8]>,
    /// The original file name without its terminating zero, when FNAME is set (ISO 8859-1).
    pub name: Option<&'a [u8]>,
    /// The comment without its terminating zero, when FCOMMENT is set (ISO 8859-1).
    pub comment: Option<&'a [u8]>,
    /// BGZF's whole-member size (its `BC` subfield's BSIZE + 1), when the extra field has one.
    pub bgzf_member_len: Option<usize>,
}

/// Why a header could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// The input ends inside the header; names the field.
    Truncated(&'static str),
    /// The bytes are not a valid header.
    Invalid(String),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::Truncated(field) => {
                write!(f, "the input ends inside the header ({field})")
            }
            HeaderError::Invalid(reason) => f.write_str(reason),
        }
    }
}

/// A member's trailer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Trailer {
    /// CRC-32 of the member's uncompressed bytes.
    pub crc32: u32,
    /// The member's uncompressed size modulo 2^32.
    pub isize: u32,
}

/// True when `bytes` start with the gzip magic.
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

/// Parses the member header at the start of `bytes` (which may go on past it).
pub fn parse_header(bytes: &[u8]) -> Result<Header<'_>, HeaderError> {
    let fixed = bytes
        .get(..FIXED_LEN)
        .ok_or(HeaderError::Truncated("fixed 10-byte part"))?;
    if fixed[..2] != MAGIC {
        return Err(HeaderError::Invalid(format!(
            "no gzip magic (found {:02x} {:02x}, expected 1f 8b)",
            fixed[0], fixed[1]
        )));
    }
    if fixed[2] != METHOD_DEFLATE {
        return Err(HeaderError::Invalid(format!(
            "compression method {} is not Deflate (8)",
            fixed[2]
        )));
    }
    let flags = fixed[3];
    if flags & RESERVED != 0 {
        return Err(HeaderError::Invalid(format!(
            "reserved header flags are set (FLG {flags:#04x})"
        )));
    }
    let mtime = u32::from_le_bytes([fixed[4], fixed[5], fixed[6], fixed[7]]);
    let mut header = Header {
        len: FIXED_LEN,
        flags,
        mtime,
        xfl: fixed[8],
        os: fixed[9],
        extra: None,
        name: None,
        comment: None,
        bgzf_member_len: None,
    };
    let mut at = FIXED_LEN;
    if flags & FEXTRA != 0 {
        let xlen = bytes
            .get(at..at + 2)
            .ok_or(HeaderError::Truncated("extra field length"))?;
        let xlen = usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
        at += 2;
        let extra = bytes
            .get(at..at + xlen)
            .ok_or(HeaderError::Truncated("extra field"))?;
        at += xlen;
        header.extra = Some(extra);
        header.bgzf_member_len = bgzf_member_len(extra);
    }
    if flags & FNAME != 0 {
        let (name, next) = zero_terminated(bytes, at).ok_or(HeaderError::Truncated("file name"))?;
        header.name = Some(name);
        at = next;
    }
    if flags & FCOMMENT != 0 {
        let (comment, next) =
            zero_terminated(bytes, at).ok_or(HeaderError::Truncated("comment"))?;
        header.comment = Some(comment);
        at = next;
    }
    if flags & FHCRC != 0 {
        let stored = bytes
            .get(at..at + 2)
            .ok_or(HeaderError::Truncated("header CRC-16"))?;
        let stored = u16::from_le_bytes([stored[0], stored[1]]);
        // The CRC-16 is the low half of the CRC-32 of every header byte before it.
        let computed = (libdeflater::crc32(&bytes[..at]) & 0xffff) as u16;
        if stored != computed {
            return Err(HeaderError::Invalid(format!(
                "header CRC-16 mismatch (stored {stored:#06x}, computed {computed:#06x})"
            )));
        }
        at += 2;
    }
    header.len = at;
    Ok(header)
}

/// The bytes from `at` up to the next zero, and the index after that zero; `None` when no
/// zero follows.
fn zero_terminated(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let rest = bytes.get(at..)?;
    let end = memchr::memchr(0, rest)?;
    Some((&rest[..end], at + end + 1))
}

/// The member size a BGZF extra field records: subfield `B`,`C` with a 2-byte BSIZE holds the
/// member size minus one. `None` when the field has no such subfield or its subfields do not
/// tile it (gzip itself ignores the extra field's contents, so neither is an error).
pub fn bgzf_member_len(extra: &[u8]) -> Option<usize> {
    let mut at = 0usize;
    let mut found = None;
    while at < extra.len() {
        let sub = extra.get(at..at + 4)?;
        let len = usize::from(u16::from_le_bytes([sub[2], sub[3]]));
        let data = extra.get(at + 4..at + 4 + len)?;
        if sub[0] == b'B' && sub[1] == b'C' && len == 2 {
            found = Some(usize::from(u16::from_le_bytes([data[0], data[1]])) + 1);
        }
        at += 4 + len;
    }
    found
}

/// The trailer in the 8 bytes at `at`, or `None` when they are not all inside `bytes`.
pub fn read_trailer(bytes: &[u8], at: usize) -> Option<Trailer> {
    let t = bytes.get(at..at.checked_add(TRAILER_LEN)?)?;
    Some(Trailer {
        crc32: u32::from_le_bytes([t[0], t[1], t[2], t[3]]),
        isize: u32::from_le_bytes([t[4], t[5], t[6], t[7]]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_header_parses() {
        let h = [0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 0, 3, 0x03, 0x00];
        let parsed = parse_header(&h);
        assert_eq!(
            parsed.as_ref().map(|p| (p.len, p.mtime, p.os)),
            Ok((10, 0x0403_0201, 3))
        );
    }

    #[test]
    fn every_cut_of_a_full_header_is_truncated() {
        let mut h = vec![
            0x1f,
            0x8b,
            8,
            FEXTRA | FNAME | FCOMMENT | FHCRC,
            0,
            0,
            0,
            0,
            0,
            255,
        ];
        h.extend_from_slice(&[6, 0, b'B', b'C', 2, 0, 0x10, 0x00]);
        h.extend_from_slice(b"name\0comment\0");
        let crc = (libdeflater::crc32(&h) & 0xffff) as u16;
        h.extend_from_slice(&crc.to_le_bytes());
        let full = parse_header(&h);
        assert_eq!(full.as_ref().map(|p| p.len), Ok(h.len()));
        assert_eq!(full.as_ref().map(|p| p.bgzf_member_len), Ok(Some(0x11)));
        assert_eq!(full.as_ref().map(|p| p.name), Ok(Some(&b"name"[..])));
        for cut in 0..h.len() {
            assert!(
                matches!(parse_header(&h[..cut]), Err(HeaderError::Truncated(_))),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn reserved_flags_and_other_methods_are_invalid() {
        let h = [0x1f, 0x8b, 8, 0x20, 0, 0, 0, 0, 0, 3];
        assert!(matches!(parse_header(&h), Err(HeaderError::Invalid(_))));
        let h = [0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3];
        assert!(matches!(parse_header(&h), Err(HeaderError::Invalid(_))));
    }

    #[test]
    fn malformed_subfields_are_not_bgzf() {
        assert_eq!(bgzf_member_len(&[b'B', b'C', 2, 0, 1]), None);
        assert_eq!(bgzf_member_len(&[b'B', b'C', 3, 0, 1, 2, 3]), None);
        assert_eq!(
            bgzf_member_len(&[b'x', b'y', 0, 0, b'B', b'C', 2, 0, 0xff, 0xff]),
            Some(65536)
        );
    }
}
