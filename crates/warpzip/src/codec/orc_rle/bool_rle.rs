//! ORC Boolean RLE: booleans packed 8 to a byte, most significant bit first, and the bytes
//! Byte-RLE encoded. The last byte's unused low bits are written as zero and ignored on read.

use super::byte_rle::{decode_byte_rle, decode_byte_rle_prefix, encode_byte_rle};
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

/// Decodes `out.len()` booleans from the Boolean RLE stream `input` after discarding its first
/// `skip_bytes` decoded bytes (8 booleans each) and then `skip_bits` more booleans (0..=7), and
/// stops as soon as `out` is full even where the stream goes on: the read of one ORC row group,
/// whose row index position names a Byte RLE run, the bytes to skip in it and the bits to skip
/// in the next byte. Returns the input bytes read. `skip_bits` over 7 is `Corrupt`; a stream
/// that ends too early is `Underflow` or `Truncated`, as [`decode_byte_rle_prefix`] says.
pub fn decode_bool_rle_prefix(
    input: &[u8],
    skip_bytes: usize,
    skip_bits: u8,
    out: &mut [bool],
) -> Result<usize, ChunkStatus> {
    if skip_bits > 7 {
        return Err(ChunkStatus::Corrupt);
    }
    let bits = usize::from(skip_bits);
    let total = bits.checked_add(out.len()).ok_or(ChunkStatus::Overflow)?;
    let mut bytes = vec![0u8; total.div_ceil(8)];
    let used = decode_byte_rle_prefix(input, skip_bytes, &mut bytes)?;
    for (i, b) in out.iter_mut().enumerate() {
        let k = bits + i;
        *b = bytes[k / 8] & (0x80 >> (k % 8)) != 0;
    }
    Ok(used)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn prefix_skips_bytes_then_bits() {
        let values: Vec<bool> = (0..3000)
            .map(|i| i % 7 == 0 || (1000..2000).contains(&i))
            .collect();
        let mut encoded = Vec::new();
        encode_bool_rle(&values, &mut encoded);
        for skip in [0usize, 1, 7, 8, 9, 1003, 1500, 2999] {
            for n in [0usize, 1, 5, 8, 100, 3000 - skip] {
                if skip + n > values.len() {
                    continue;
                }
                let mut out = vec![false; n];
                decode_bool_rle_prefix(&encoded, skip / 8, (skip % 8) as u8, &mut out).unwrap();
                assert_eq!(out, &values[skip..skip + n], "skip {skip} n {n}");
            }
        }
        let mut out = vec![false; 3000];
        assert_eq!(
            decode_bool_rle_prefix(&encoded, 0, 0, &mut out).unwrap(),
            encoded.len()
        );
    }

    #[test]
    fn prefix_refuses_bad_skips_and_short_streams() {
        let mut encoded = Vec::new();
        encode_bool_rle(&[true; 16], &mut encoded);
        assert_eq!(
            decode_bool_rle_prefix(&encoded, 0, 8, &mut [false; 1]),
            Err(ChunkStatus::Corrupt)
        );
        assert_eq!(
            decode_bool_rle_prefix(&encoded, 1, 1, &mut [false; 8]),
            Err(ChunkStatus::Underflow)
        );
        assert_eq!(
            decode_bool_rle_prefix(&encoded, 2, 0, &mut [false; 1]),
            Err(ChunkStatus::Underflow)
        );
        let mut out = [false; 7];
        decode_bool_rle_prefix(&encoded, 1, 1, &mut out).unwrap();
        assert_eq!(out, [true; 7]);
    }
}
