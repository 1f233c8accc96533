//! ORC Byte RLE: a control byte 0..=127 is a run of `c + 3` copies of the next byte; a control
//! byte 128..=255 (as i8, -128..=-1) is a literal list of `-c` bytes that follow.

use crate::error::ChunkStatus;

/// Shortest run a run group stores.
pub const MIN_RUN: usize = 3;
/// Longest run one group stores.
pub const MAX_RUN: usize = 130;
/// Longest literal list.
pub const MAX_LITERALS: usize = 128;

/// Decodes a Byte RLE stream into exactly `out.len()` bytes.
pub fn decode_byte_rle(input: &[u8], out: &mut [u8]) -> Result<(), ChunkStatus> {
    let mut pos = 0usize;
    let mut written = 0usize;
    while pos < input.len() {
        let control = input[pos];
        pos += 1;
        if control < 0x80 {
            let len = usize::from(control) + MIN_RUN;
            let value = *input.get(pos).ok_or(ChunkStatus::Truncated)?;
            pos += 1;
            let dst = out
                .get_mut(written..written + len)
                .ok_or(ChunkStatus::Overflow)?;
            dst.fill(value);
            written += len;
        } else {
            let len = 256 - usize::from(control);
            let src = input.get(pos..pos + len).ok_or(ChunkStatus::Truncated)?;
            pos += len;
            let dst = out
                .get_mut(written..written + len)
                .ok_or(ChunkStatus::Overflow)?;
            dst.copy_from_slice(src);
            written += len;
        }
    }
    if written < out.len() {
        return Err(ChunkStatus::Underflow);
    }
    Ok(())
}

/// Appends the Byte RLE encoding of `data` to `out`: every run of 3 or more equal bytes becomes
/// run groups of at most 130, the bytes between runs literal lists of at most 128.
pub fn encode_byte_rle(data: &[u8], out: &mut Vec<u8>) {
    let n = data.len();
    let mut i = 0usize;
    while i < n {
        let run = run_len(data, i);
        if run >= MIN_RUN {
            out.push((run - MIN_RUN) as u8);
            out.push(data[i]);
            i += run;
            continue;
        }
        let start = i;
        while i < n && i - start < MAX_LITERALS && run_len(data, i) < MIN_RUN {
            i += 1;
        }
        let len = i - start;
        out.push((256 - len) as u8);
        out.extend_from_slice(&data[start..i]);
    }
}

/// Length of the run of bytes equal to `data[i]` starting at `i`, at most `MAX_RUN`.
fn run_len(data: &[u8], i: usize) -> usize {
    let v = data[i];
    data[i..]
        .iter()
        .take(MAX_RUN)
        .take_while(|&&b| b == v)
        .count()
}
