//! The `.wz` container, version 1: header, chunk table, checksums. `docs/format.md` describes
//! every byte. The reader validates the header and the whole table before any payload is used;
//! the writer checks its input by the same rules, so it never writes a file the reader rejects.

mod codec_id;
mod header;
mod read;
mod table;
mod write;

pub use codec_id::CodecId;
pub use header::{header_len, peek_header, ElemType, Header};
pub use read::Container;
pub use table::{ChunkEntry, ChunkSpan};
pub use write::write_container;

/// The first four bytes of every `.wz` file. The non-ASCII first byte and the line feed catch
/// transfers that mangle text (the PNG trick).
pub const MAGIC: [u8; 4] = [0x89, b'W', b'Z', 0x0A];
/// The format version this build writes and reads.
pub const FORMAT_VERSION: u16 = 1;
/// Bytes of the fixed header, before the dims.
pub const FIXED_HEADER_LEN: usize = 32;
/// Bytes of one chunk table entry.
pub const TABLE_ENTRY_LEN: usize = 24;
/// Bytes of the header checksum that follows the chunk table.
pub const HEADER_CHECKSUM_LEN: usize = 8;
/// Most dimensions a shape may have.
pub const MAX_NDIM: usize = 4;
/// Most bytes of codec parameters.
pub const MAX_CODEC_PARAMS_LEN: usize = 64;
/// Largest chunk size, 1 GiB.
pub const MAX_CHUNK_SIZE: u32 = 1 << 30;
