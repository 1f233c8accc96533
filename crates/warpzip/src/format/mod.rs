//! The `.wz` container: header, chunk table, checksums; version 1 (one container, the whole
//! file) and version 2 (a stream of frames, each a container of a batch of chunks, written by
//! the streaming compressor). `docs/format.md` describes every byte. The reader validates the header and the whole table before any payload is used;
//! the writer checks its input by the same rules, so it never writes a file the reader rejects.

mod codec_id;
mod header;
mod read;
pub(crate) mod stream;
mod table;
mod write;

pub use codec_id::CodecId;
pub use header::{header_len, peek_header, ElemType, Framing, Header};
pub(crate) use read::in_frame;
pub use read::{parse_stream, Container, Head};
pub use stream::read_head;
pub use table::{ChunkEntry, ChunkSpan};
pub use write::{write_container, write_frame};

/// The first four bytes of every `.wz` file. The non-ASCII first byte and the line feed catch
/// transfers that mangle text (the PNG trick).
pub const MAGIC: [u8; 4] = [0x89, b'W', b'Z', 0x0A];
/// The format version of a container that is the whole file (written by the whole-buffer
/// compressor, and by the streaming one when the input fits in one frame).
pub const FORMAT_VERSION: u16 = 1;
/// The format version of a frame of a stream of frames (written by the streaming compressor).
pub const STREAM_VERSION: u16 = 2;
/// Flag bit 0 of a version-2 frame: another frame of the same stream follows.
pub const FLAG_MORE_FRAMES: u16 = 0x0001;
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
