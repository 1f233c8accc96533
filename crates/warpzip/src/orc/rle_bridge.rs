//! The seam between the file reader and the ORC run-length decoders of `codec::orc_rle`: a
//! stream's bytes in, exactly `n` values out, or an error.

use crate::codec::orc_rle;
use crate::error::{ChunkStatus, Error, Result};

/// Which integer RLE a column encoding uses: DIRECT is v1, DIRECT_V2 is v2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntRle {
    V1,
    V2,
}

/// No ORC run-length encoding yields more values per input byte than this: a 2-byte Byte RLE
/// run gives 130 bytes, so 1,040 booleans. A stream claiming more values is damaged, and
/// checking first keeps a damaged row count from sizing a huge allocation.
const MAX_VALUES_PER_BYTE: usize = 520;

/// Rejects a stream too short to hold `n` values.
fn check_capacity(bytes: &[u8], n: usize) -> Result<()> {
    if n > bytes.len().saturating_mul(MAX_VALUES_PER_BYTE) {
        return Err(Error::Corrupt {
            chunk: 0,
            reason: format!("{} bytes cannot hold {n} values", bytes.len()),
        });
    }
    Ok(())
}

fn status_error(status: ChunkStatus) -> Error {
    Error::Corrupt {
        chunk: 0,
        reason: status.reason().to_string(),
    }
}

/// Boolean RLE: `n` bits, most significant first, from a Byte RLE stream.
pub fn decode_booleans(bytes: &[u8], n: usize) -> Result<Vec<bool>> {
    check_capacity(bytes, n)?;
    let mut out = vec![false; n];
    orc_rle::decode_bool_rle(bytes, &mut out).map_err(status_error)?;
    Ok(out)
}

/// Byte RLE: `n` bytes.
pub fn decode_bytes(bytes: &[u8], n: usize) -> Result<Vec<u8>> {
    check_capacity(bytes, n)?;
    let mut out = vec![0u8; n];
    orc_rle::decode_byte_rle(bytes, &mut out).map_err(status_error)?;
    Ok(out)
}

/// Signed integer RLE (v1 or v2): `n` values.
pub fn decode_signed(bytes: &[u8], n: usize, version: IntRle) -> Result<Vec<i64>> {
    check_capacity(bytes, n)?;
    let mut out = vec![0i64; n];
    match version {
        IntRle::V1 => orc_rle::decode_int_rle_v1(bytes, true, &mut out),
        IntRle::V2 => orc_rle::decode_int_rle_v2(bytes, true, &mut out),
    }
    .map_err(status_error)?;
    Ok(out)
}
