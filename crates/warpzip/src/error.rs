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

/// Bytes taken by `len` values of `T`, for an out-of-memory error (saturating: a size that does
/// not fit a u64 is named as `u64::MAX`).
pub(crate) fn bytes_of<T>(len: usize) -> u64 {
    (len as u64).saturating_mul(std::mem::size_of::<T>() as u64)
}

/// Types whose all-zero bit pattern is a valid value, which [`try_zeroed_of`] allocates
/// zeroed by the allocator (no pass that writes the zeros).
///
/// # Safety
/// An implementor must be a sized, non-zero-sized type for which every byte being 0 is a valid
/// value.
pub(crate) unsafe trait ZeroBits: Copy {}

macro_rules! zero_bits {
    ($($t:ty),*) => {
        // SAFETY: primitive integers, floats and bool are valid and non-zero-sized when
        // every byte is 0 (0, 0.0, false).
        $(unsafe impl ZeroBits for $t {})*
    };
}
zero_bits!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool);

/// `len` zeroed values of `T` for `what`, or `Error::OutOfMemory` naming `what` and the bytes
/// asked for (never an abort).
pub(crate) fn try_zeroed_of<T: ZeroBits>(len: usize, what: &str) -> Result<Vec<T>> {
    let oom = || Error::out_of_memory(what, bytes_of::<T>(len));
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(len).map_err(|_| oom())?;
    // SAFETY: the layout's size is non-zero (`len > 0` and `T` is not zero-sized, as
    // `ZeroBits` requires).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
    if ptr.is_null() {
        return Err(oom());
    }
    // SAFETY: `ptr` comes from the global allocator with the layout of `len` values of `T`
    // (which is the layout a `Vec<T>` of capacity `len` frees with), it is aligned for `T`,
    // and all `len` values are initialised: all-zero bytes are a valid `T` (`ZeroBits`).
    Ok(unsafe { Vec::from_raw_parts(ptr.cast::<T>(), len, len) })
}

/// A zeroed buffer of `len` bytes for `what`, or `Error::OutOfMemory` (never an abort).
pub(crate) fn try_zeroed(len: usize, what: &str) -> Result<Vec<u8>> {
    try_zeroed_of::<u8>(len, what)
}

/// `len` copies of `value` for `what`, or `Error::OutOfMemory` (never an abort).
pub(crate) fn try_filled<T: Clone>(value: T, len: usize, what: &str) -> Result<Vec<T>> {
    let mut out = try_with_capacity(len, what)?;
    out.resize(len, value);
    Ok(out)
}

/// An empty vector with room for exactly `len` values of `T`, for `what`, or
/// `Error::OutOfMemory` (never an abort).
pub(crate) fn try_with_capacity<T>(len: usize, what: &str) -> Result<Vec<T>> {
    let mut out = Vec::new();
    try_reserve(&mut out, len, what)?;
    Ok(out)
}

/// Makes room in `v` for `additional` more values beyond its length (growing as `reserve`
/// does), for `what`, or `Error::OutOfMemory` naming the bytes `v` would have held (never an
/// abort).
pub(crate) fn try_reserve<T>(v: &mut Vec<T>, additional: usize, what: &str) -> Result<()> {
    v.try_reserve(additional)
        .map_err(|_| Error::out_of_memory(what, bytes_of::<T>(v.len().saturating_add(additional))))
}

/// A copy of `src` for `what`, or `Error::OutOfMemory` (never an abort).
pub(crate) fn try_to_vec<T: Clone>(src: &[T], what: &str) -> Result<Vec<T>> {
    let mut out = try_with_capacity(src.len(), what)?;
    out.extend_from_slice(src);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn an_impossible_allocation_is_an_error_naming_what_was_asked() {
        // Every result goes through `black_box`: an allocation whose memory is never used may
        // be optimised away, and then it cannot fail.
        use std::hint::black_box;
        let huge = black_box(usize::MAX / 2);
        match black_box(try_zeroed(huge, "the test's buffer")) {
            Err(Error::OutOfMemory { what, bytes }) => {
                assert_eq!(what, "the test's buffer");
                assert_eq!(bytes, huge as u64);
            }
            other => panic!("expected OutOfMemory, got {:?}", other.map(|v| v.len())),
        }
        let e = black_box(try_zeroed_of::<u64>(huge, "values")).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "out of memory: {} bytes for values could not be allocated",
                u64::MAX
            )
        );
        assert!(matches!(
            black_box(try_filled(7u32, huge / 2, "a fill")),
            Err(Error::OutOfMemory { bytes, .. }) if bytes == (huge / 2) as u64 * 4
        ));
        assert!(matches!(
            black_box(try_with_capacity::<u16>(huge / 2, "room")),
            Err(Error::OutOfMemory { .. })
        ));
        let mut v = vec![1u8; 3];
        assert!(matches!(
            black_box(try_reserve(&mut v, huge, "more")),
            Err(Error::OutOfMemory { bytes, .. }) if bytes == huge as u64 + 3
        ));
        assert_eq!(black_box(v), [1, 1, 1]);
    }

    #[test]
    fn possible_allocations_hold_what_was_asked() {
        assert_eq!(try_zeroed(5, "x").unwrap(), [0u8; 5]);
        assert_eq!(try_zeroed_of::<i64>(3, "x").unwrap(), [0i64; 3]);
        assert_eq!(try_zeroed_of::<bool>(2, "x").unwrap(), [false; 2]);
        assert!(try_zeroed(0, "x").unwrap().is_empty());
        assert_eq!(try_filled(9u16, 4, "x").unwrap(), [9u16; 4]);
        assert_eq!(try_to_vec(&[1, 2, 3], "x").unwrap(), [1, 2, 3]);
        let v: Vec<u32> = try_with_capacity(10, "x").unwrap();
        assert!(v.is_empty() && v.capacity() >= 10);
    }
}
