//! Apache ORC files read into Arrow arrays, in layers, each using only those listed before it:
//!
//! - `place`: where in a file damage lies, for `Error::CorruptOrc`;
//! - `file::proto`: the protobuf messages of the file's tail and stripe footers;
//! - `schema`: the columns and their types, and which of them are decoded (every type but
//!   union, which is reported as unsupported, never mis-decoded);
//! - `file`: the tail, compression chunks and their inflation, stripes and their streams, and
//!   [`OrcFile`], a file held in memory;
//! - `plan`: each stripe's decompressed streams of a column, and where its row groups start;
//! - `arrow`: Arrow arrays and record batches from decoded values;
//! - `cpu`: the CPU decoder of integer-family columns, through the ORC integer RLE decoders of
//!   `codec::orc_rle`, row group by row group;
//! - `gpu`: the GPU decoder of integer-family columns (row groups laid out, kernels launched,
//!   ZLIB, SNAPPY and LZ4 chunks decompressed on the GPU), and whole streams decompressed and
//!   run-length decoded on the GPU for `column_tree`;
//! - `column_tree`: the decoder of every other type (floats, strings, decimals, timestamps,
//!   structs, lists, maps), whole stripes down the type tree, its streams decoded on the CPU or
//!   (through `gpu`) on a GPU;
//! - `read`: the entry point, [`OrcFile::read_batch`] on a [`Device`](crate::device::Device).

mod arrow;
internal_mod!(column_tree);
internal_mod!(cpu);
internal_mod!(file);
internal_mod!(gpu);
internal_mod!(place);
internal_mod!(plan);
mod read;
internal_mod!(schema);

pub use crate::error::OrcCorruption;
pub use file::compression::Compression;
pub use file::proto;
pub use file::proto::{ColumnEncodingKind, CompressionKind, StreamKind, TypeKind};
pub use file::stripe::{StreamInfo, Stripe};
pub use file::tail::FileTail;
pub use file::OrcFile;
pub use read::ReadStats;
pub use schema::OrcColumn;
