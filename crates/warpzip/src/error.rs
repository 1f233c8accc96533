//! The library's one error type. Corruption always names the chunk it was found in, so that a
//! user can tell a damaged file from a bug, and a caller can skip or re-fetch just that chunk.

use std::fmt;

/// Why a chunk could not be decoded. Shared by the CPU decoders and the status words that GPU
/// kernels write back (the numeric values are the kernels' `WZ_STATUS_*` constants).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChunkStatus {
    /// The chunk decoded completely and produced exactly its recorded size.
    Ok = 0,
    /// The compressed bytes ended before the decoder was done.
    Truncated = 1,
    /// The compressed bytes are not a valid encoding.
    Corrupt = 2,
    /// Decoding would write past the chunk's recorded uncompressed size.
    Overflow = 3,
    /// Decoding finished but produced fewer bytes than recorded.
    Underflow = 4,
    /// A back-reference reaches before the start of the output (LZ77 codecs: Deflate).
    BadDistance = 5,
}

impl ChunkStatus {
    /// Maps a kernel status word back to a status; unknown words count as corruption.
    pub fn from_code(code: u32) -> ChunkStatus {
        match code {
            0 => ChunkStatus::Ok,
            1 => ChunkStatus::Truncated,
            3 => ChunkStatus::Overflow,
            4 => ChunkStatus::Underflow,
            5 => ChunkStatus::BadDistance,
            _ => ChunkStatus::Corrupt,
        }
    }

    /// A short human-readable reason.
    pub fn reason(self) -> &'static str {
        match self {
            ChunkStatus::Ok => "ok",
            ChunkStatus::Truncated => "compressed data is truncated",
            ChunkStatus::Corrupt => "compressed data is not a valid encoding",
            ChunkStatus::Overflow => "decoded data exceeds the recorded size",
            ChunkStatus::Underflow => "decoded data is shorter than the recorded size",
            ChunkStatus::BadDistance => "a back-reference reaches before the start of the output",
        }
    }
}

impl fmt::Display for ChunkStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

/// Everything that can go wrong in warpzip.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A chunk's bytes are damaged: bad checksum, bad encoding, wrong size.
    #[error("corrupt data in chunk {chunk}: {reason}")]
    Corrupt { chunk: usize, reason: String },
    /// The container's header or chunk table is damaged or not a `.wz` file at all.
    #[error("corrupt container: {0}")]
    CorruptContainer(String),
    /// A gzip file is damaged: a member's header, Deflate data or trailer (CRC-32, size) is
    /// wrong, or the bytes after the last member are neither a member nor zero padding.
    /// Members count from 0; `offset` is where the member's header starts.
    #[error("corrupt gzip member {member} (at byte {offset}): {reason}")]
    CorruptGzip {
        member: usize,
        offset: u64,
        reason: String,
    },
    /// An ORC file is damaged; the error names where (stripe, column, stream, row group) as far
    /// as that is known.
    #[error("corrupt ORC file: {0}")]
    CorruptOrc(Box<OrcCorruption>),
    /// The input ended before the container said it would.
    #[error("truncated input: {0}")]
    Truncated(String),
    /// A caller passed an argument that cannot work (bad chunk size, unknown codec, ...).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The input is valid but uses something this build cannot handle.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// No usable CUDA GPU: the driver or NVRTC library is missing or no device opens.
    #[error("no usable CUDA GPU: {0}")]
    NoDevice(String),
    /// A CUDA driver call failed.
    #[error("CUDA driver error: {0}")]
    Driver(String),
    /// NVRTC failed to compile a kernel; `log` is the compiler's own log.
    #[error("NVRTC failed to compile {kernel}: {message}\n{log}")]
    Nvrtc {
        kernel: String,
        message: String,
        log: String,
    },
    /// Memory for `what` (`bytes` bytes) could not be had; nothing was aborted.
    #[error("out of memory: {bytes} bytes for {what} could not be allocated")]
    OutOfMemory { what: String, bytes: u64 },
    /// Reading or writing a file failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl Error {
    /// The error for a failed allocation of `bytes` bytes for `what`.
    pub fn out_of_memory(what: impl Into<String>, bytes: u64) -> Error {
        Error::OutOfMemory {
            what: what.into(),
            bytes,
        }
    }

    /// The error for a chunk whose decoder stopped with `status`.
    pub fn chunk(chunk: usize, status: ChunkStatus) -> Error {
        Error::Corrupt {
            chunk,
            reason: status.reason().to_string(),
        }
    }
}

/// Where an ORC file is damaged, and how. Each place is `None` where it is not known or does not
/// apply (the file's tail lies in no stripe).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrcCorruption {
    /// The stripe's index in the file.
    pub stripe: Option<usize>,
    /// The column's id (its type's index in the footer's flattened schema) and name (empty
    /// where only the id is known).
    pub column: Option<(u32, String)>,
    /// The stream (`DATA stream`, `ROW_INDEX stream`) or other part of the file (`footer`,
    /// `stripe footer`).
    pub stream: Option<String>,
    /// The row group's index in the stripe.
    pub row_group: Option<usize>,
    /// What is wrong there.
    pub reason: String,
}

impl fmt::Display for OrcCorruption {
    /// `stripe 3, column 2 (l_quantity), DATA stream, row group 4: <reason>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut places = Vec::new();
        if let Some(s) = self.stripe {
            places.push(format!("stripe {s}"));
        }
        match &self.column {
            Some((id, name)) if name.is_empty() => places.push(format!("column {id}")),
            Some((id, name)) => places.push(format!("column {id} ({name})")),
            None => {}
        }
        if let Some(stream) = &self.stream {
            places.push(stream.clone());
        }
        if let Some(g) = self.row_group {
            places.push(format!("row group {g}"));
        }
        if places.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", places.join(", "), self.reason)
        }
    }
}

impl From<cudarc::driver::DriverError> for Error {
    fn from(e: cudarc::driver::DriverError) -> Self {
        Error::Driver(e.to_string())
    }
}

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A zeroed buffer of `len` bytes for `what`, or `Error::OutOfMemory` (never an abort).
pub(crate) fn try_zeroed(len: usize, what: &str) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.try_reserve_exact(len)
        .map_err(|_| Error::out_of_memory(what, len as u64))?;
    out.resize(len, 0);
    Ok(out)
}
