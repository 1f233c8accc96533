//! Reading a container's header and table from a byte stream (a pipe, standard input) in bounded
//! memory: only the header, dims, codec params, table and header checksum are held, never the
//! payload, which the caller reads chunk by chunk after.

use super::header::decode_header;
use super::read::Head;
use super::{FIXED_HEADER_LEN, MAX_CODEC_PARAMS_LEN, MAX_NDIM};
use crate::error::Result;
use std::io::{self, Read};

/// Reads from `r` until `buf` holds `target` bytes or the input ends; returns whether it holds
/// them.
pub(crate) fn fill<R: Read + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
    target: u64,
) -> io::Result<bool> {
    let have = buf.len() as u64;
    if have < target {
        r.take(target - have).read_to_end(buf)?;
    }
    Ok(buf.len() as u64 >= target)
}

/// Reads one container's header and table from `r` and validates them exactly as
/// [`Head::parse`] does on a whole file (the same errors, in the same order). `buf` holds the
/// bytes of the container already read (it may be empty) and is left holding the header bytes.
/// Returns `None` when the input ends before its first byte. The table is read as it arrives,
/// so a header that claims a table longer than the input is `Truncated` after reading only what
/// the input holds.
pub fn read_head<R: Read + ?Sized>(r: &mut R, buf: &mut Vec<u8>) -> Result<Option<Head>> {
    fill(r, buf, FIXED_HEADER_LEN as u64)?;
    if buf.is_empty() {
        return Ok(None);
    }
    if let (Some(&ndim), Some(params)) = (buf.get(11), buf.get(28..32)) {
        let params_len = u32::from_le_bytes([params[0], params[1], params[2], params[3]]);
        if usize::from(ndim) <= MAX_NDIM && params_len as usize <= MAX_CODEC_PARAMS_LEN {
            let need = FIXED_HEADER_LEN as u64 + 8 * u64::from(ndim) + u64::from(params_len);
            fill(r, buf, need)?;
        }
    }
    // The fixed header, dims and params are present (or the input ended): their errors first.
    let (header, count, _, _) = decode_header(buf)?;
    let head_len = super::header_len(&header, count);
    fill(r, buf, head_len)?;
    Head::parse(buf).map(Some)
}
