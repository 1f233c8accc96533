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

/// Decodes `out.len()` bytes from the Byte RLE stream `input` after discarding its first `skip`
/// decoded bytes, and stops as soon as `out` is full even where the stream goes on: the read of
/// one ORC row group, which starts at a run's first byte (`skip` bytes into that run) and ends
/// wherever the group's values end. Returns the input bytes read, up to the end of the last run
/// touched. `Underflow` when the stream ends before `skip + out.len()` bytes, `Truncated` when it
/// ends inside a run.
pub fn decode_byte_rle_prefix(
    input: &[u8],
    skip: usize,
    out: &mut [u8],
) -> Result<usize, ChunkStatus> {
    let mut pos = 0usize;
    let mut skip = skip;
    let mut written = 0usize;
    while written < out.len() || skip > 0 {
        let control = *input.get(pos).ok_or(ChunkStatus::Underflow)?;
        pos += 1;
        let wanted = out.len() - written;
        if control < 0x80 {
            let len = usize::from(control) + MIN_RUN;
            let value = *input.get(pos).ok_or(ChunkStatus::Truncated)?;
            pos += 1;
            let skipped = len.min(skip);
            skip -= skipped;
            let n = (len - skipped).min(wanted);
            out[written..written + n].fill(value);
            written += n;
        } else {
            let len = 256 - usize::from(control);
            let src = input.get(pos..pos + len).ok_or(ChunkStatus::Truncated)?;
            pos += len;
            let skipped = len.min(skip);
            skip -= skipped;
            let n = (len - skipped).min(wanted);
            out[written..written + n].copy_from_slice(&src[skipped..skipped + n]);
            written += n;
        }
    }
    Ok(pos)
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn sample() -> (Vec<u8>, Vec<u8>) {
        // Runs (long and short), literals, and a run longer than one group.
        let mut data = vec![5u8; 200];
        data.extend(0..=99u8);
        data.extend([9, 9, 9, 1, 2]);
        let mut encoded = Vec::new();
        encode_byte_rle(&data, &mut encoded);
        (data, encoded)
    }

    #[test]
    fn prefix_decodes_any_window_and_stops_early() {
        let (data, encoded) = sample();
        for skip in [0usize, 1, 2, 129, 130, 131, 250, 300, 303] {
            for n in [0usize, 1, 7, 100, data.len() - skip] {
                if skip + n > data.len() {
                    continue;
                }
                let mut out = vec![0u8; n];
                let used = decode_byte_rle_prefix(&encoded, skip, &mut out).unwrap();
                assert_eq!(out, &data[skip..skip + n], "skip {skip} n {n}");
                assert!(used <= encoded.len());
            }
        }
        // The whole stream: every byte read, as the exact decoder does.
        let mut out = vec![0u8; data.len()];
        assert_eq!(
            decode_byte_rle_prefix(&encoded, 0, &mut out).unwrap(),
            encoded.len()
        );
        // Starting at a later run's first byte: 200 fives are runs of 130 and 70 (2 bytes each).
        let mut out = vec![0u8; 75];
        decode_byte_rle_prefix(&encoded[2..], 5, &mut out).unwrap();
        assert_eq!(out, &data[135..210]);
    }

    #[test]
    fn prefix_reports_short_streams() {
        let (data, encoded) = sample();
        let mut out = vec![0u8; data.len() + 1];
        assert_eq!(
            decode_byte_rle_prefix(&encoded, 0, &mut out),
            Err(ChunkStatus::Underflow)
        );
        let mut out = vec![0u8; 1];
        assert_eq!(
            decode_byte_rle_prefix(&encoded, data.len(), &mut out),
            Err(ChunkStatus::Underflow)
        );
        // A literal list cut short, and a run without its value.
        assert_eq!(
            decode_byte_rle_prefix(&[0xfe, 1], 0, &mut [0u8; 1]),
            Err(ChunkStatus::Truncated)
        );
        assert_eq!(
            decode_byte_rle_prefix(&[0x00], 0, &mut [0u8; 1]),
            Err(ChunkStatus::Truncated)
        );
        // Nothing wanted: nothing read, even from an empty stream.
        assert_eq!(decode_byte_rle_prefix(&[], 0, &mut []), Ok(0));
    }
}
