//! Deflate (RFC 1951): raw-deflate streams compressed on the CPU with libdeflate and inflated
//! either on the CPU (libdeflate) or on the GPU (`kernels/inflate.cu`, one warp per stream on
//! the CODAG framework).
//!
//! - [`batch`]: the library call that inflates a batch of independent streams into
//!   caller-provided buffers and returns one [`batch::StreamResult`] per stream;
//! - [`cpu`]: libdeflate compression and inflation of one stream;
//! - [`gpu`]: the GPU batch (host or device memory) and its kernel launch.

pub mod batch;
pub mod cpu;
pub mod gpu;

pub use batch::{inflate_batch, StreamResult};
