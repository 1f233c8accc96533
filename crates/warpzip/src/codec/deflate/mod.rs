//! Deflate (RFC 1951): raw-deflate streams compressed on the CPU with libdeflate and inflated
//! either on the CPU (libdeflate) or on the GPU (`kernels/deflate/inflate.cu`, one warp per
//! stream on the CODAG framework).
//!
//! - [`format`]: the `.wz` codec's constants and params; [`chunked`]: the container glue;
//! - [`gzip`]: `.gz` files (RFC 1952), single-member, multi-member and BGZF, members inflated as
//!   one batch;
//! - [`batch`]: the library call that inflates a batch of independent streams into
//!   caller-provided buffers and returns one [`batch::StreamResult`] per stream;
//! - [`cpu`]: libdeflate compression and inflation of one stream;
//! - [`gpu`]: the GPU batch (host or device memory) and its kernel launch.

pub mod batch;
pub mod chunk_file;
pub mod chunked;
pub mod cpu;
pub mod format;
pub mod gpu;
pub mod gzip;

pub use batch::{inflate_batch, StreamResult};
