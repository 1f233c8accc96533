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
            StreamResult::failed(ChunkStatus::Overflow)
        }
        _ => StreamResult::failed(ChunkStatus::Corrupt),
    }
}
