//! ORC Boolean RLE: booleans packed 8 to a byte, most significant bit first, and the bytes
//! Byte-RLE encoded. The last byte's unused low bits are written as zero and ignored on read.

use super::byte_rle::{decode_byte_rle, encode_byte_rle};
use crate::error::ChunkStatus;

/// Decodes a Boolean RLE stream into exactly `out.len()` booleans.
pub fn decode_bool_rle(input: &[u8], out: &mut [bool]) -> Result<(), ChunkStatus> {
    let mut bytes = vec![0u8; out.len().div_ceil(8)];
    decode_bool_rle_packed(input, &mut bytes)?;
    for (i, b) in out.iter_mut().enumerate() {
        *b = bytes[i / 8] & (0x80 >> (i % 8)) != 0;
    }
    Ok(())
}

/// Decodes a Boolean RLE stream into its packed bytes (bit 7 of byte 0 is the first boolean):
/// `out.len()` must be `ceil(count / 8)` for a stream of `count` booleans.
pub fn decode_bool_rle_packed(input: &[u8], out: &mut [u8]) -> Result<(), ChunkStatus> {
    decode_byte_rle(input, out)
}

/// Appends the Boolean RLE encoding of `values` to `out`.
pub fn encode_bool_rle(values: &[bool], out: &mut Vec<u8>) {
    let mut bytes = vec![0u8; values.len().div_ceil(8)];
    for (i, &v) in values.iter().enumerate() {
        if v {
            bytes[i / 8] |= 0x80 >> (i % 8);
        }
    }
    encode_byte_rle(&bytes, out);
}
