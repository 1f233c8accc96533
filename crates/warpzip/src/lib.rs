#![doc = include_str!("../../../README.md")]
// Without `internal-api`, items that only the tests and the bench crate reach look unused.
#![cfg_attr(not(feature = "internal-api"), allow(dead_code, unused_imports))]

/// Declares a module that is public only with the `internal-api` feature (for the tests and
/// `warpzip-bench`) and private to the crate otherwise: the public API stays narrow while the
/// internals stay testable.
macro_rules! internal_mod {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        #[cfg(feature = "internal-api")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internal-api"))]
        pub(crate) mod $name;
    };
}

pub mod api;
pub mod codec;
pub mod device;
pub mod error;
pub mod format;
pub mod ops;
pub mod orc;
pub mod ssb;
pub mod stream;
internal_mod!(
    /// The GPU runtime: device, NVRTC compilation and cache, buffers, the chunk batch.
    gpu
);

/// gzip files (RFC 1952): single-member, multi-member and BGZF, members inflated as one batch on
/// the device; [`api::decompress_any`] reaches it by the file's first bytes.
pub mod gzip {
    pub use crate::codec::deflate::gzip::*;
}

pub use api::{compress, decompress, decompress_any, CompressOptions};
pub use codec::CodecId;
pub use device::Device;
pub use error::{ChunkStatus, Error, Result};
pub use gpu::GpuContext;
