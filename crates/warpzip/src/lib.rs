#![doc = include_str!("../../../README.md")]

pub mod api;
pub mod bench;
pub mod codec;
pub mod device;
pub mod error;
pub mod format;
pub mod gpu;
pub mod ops;
pub mod orc;

pub use api::{compress, decompress, CompressOptions};
pub use codec::CodecId;
pub use device::Device;
pub use error::{ChunkStatus, Error, Result};
