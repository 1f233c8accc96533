//! Deflate on the CPU through libdeflate: the reference the GPU inflate is checked against.

use super::batch::StreamResult;
use crate::error::ChunkStatus;

/// Inflates the raw-deflate stream `input` into `output`, reporting how many bytes were read
/// and written.
pub fn inflate(input: &[u8], output: &mut [u8]) -> StreamResult {
    let mut consumed: usize = 0;
    let mut written: usize = 0;
    // SAFETY: the decompressor is allocated and freed here and used by this thread only; the
    // input and output pointers come from live slices with their true lengths, and libdeflate
    // writes only the two `usize` results and at most `output.len()` bytes of `output`.
    let code = unsafe {
        let d = libdeflate_sys::libdeflate_alloc_decompressor();
        if d.is_null() {
            return StreamResult::failed(ChunkStatus::Corrupt);
        }
        let code = libdeflate_sys::libdeflate_deflate_decompress_ex(
            d,
            input.as_ptr().cast(),
            input.len(),
            output.as_mut_ptr().cast(),
            output.len(),
            &mut consumed,
            &mut written,
        );
        libdeflate_sys::libdeflate_free_decompressor(d);
        code
    };
    match code {
        libdeflate_sys::libdeflate_result_LIBDEFLATE_SUCCESS => StreamResult {
            status: ChunkStatus::Ok,
            written,
            consumed,
        },
        libdeflate_sys::libdeflate_result_LIBDEFLATE_INSUFFICIENT_SPACE => {
            StreamResult::failed(overflow_or_cut(input, output))
        }
        _ => StreamResult::failed(ChunkStatus::Corrupt),
    }
}

/// Why libdeflate ran out of output room. Past the end of a stream that is cut short it reads
/// zero bits (up to 8 bytes of them) and writes the symbols they decode to, so a truncated
/// stream with an exact-size output can fill it and read as `Overflow`. zlib stops at the end of
/// the input and tells the two apart: `Overflow` only when the stream really produces more
/// than `output.len()` bytes, else `Corrupt`. Runs on this error path only; `output` is
/// scratch by then.
fn overflow_or_cut(input: &[u8], output: &mut [u8]) -> ChunkStatus {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut z = Decompress::new(false);
    let mut spare = [0u8; 1];
    loop {
        let (read, wrote) = (z.total_in() as usize, z.total_out() as usize);
        let rest = input.get(read..).unwrap_or_default();
        // Once the output is full, one more byte decides.
        let full = wrote >= output.len();
        let room = match output.get_mut(wrote..) {
            Some(r) if !full => r,
            _ => &mut spare[..],
        };
        match z.decompress(rest, room, FlushDecompress::None) {
            Ok(_) if full && z.total_out() as usize > wrote => return ChunkStatus::Overflow,
            // libdeflate found no room for a stream zlib completes: keep its verdict.
            Ok(Status::StreamEnd) => return ChunkStatus::Overflow,
            Ok(_) if z.total_in() as usize != read || z.total_out() as usize != wrote => {}
            _ => return ChunkStatus::Corrupt,
        }
    }
}
