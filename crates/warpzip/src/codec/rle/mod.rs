//! Byte run-length encoding (codec id 1, name `rle`), after "Run-length Encoding on Graphics
//! Hardware": chunks are cut into fixed segments that encode and decode independently, so the
//! GPU can give every segment to one warp and stitch the pieces with a prefix sum.

pub mod chunked;
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod pipeline;
