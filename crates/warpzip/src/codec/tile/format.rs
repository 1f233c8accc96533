//! The byte layout shared by `for`, `dfor`, `rfor` and `tile` (docs/format.md, "Tile-based
//! integer codecs"): the codec parameters, the geometry of tiles, blocks and miniblocks, the
//! schemes a tile can be coded in, and the faults a decoder reports.

use crate::error::{Error, Result};
use crate::format::ElemType;

/// Values a tile holds (the last tile of a chunk may hold fewer).
pub const TILE_VALUES: usize = 512;
/// Values a block holds: a reference, a word of widths and four miniblocks.
pub const BLOCK_VALUES: usize = 128;
/// Values a miniblock holds; a miniblock of width `w` is `w` 32-bit words.
pub const MINI_VALUES: usize = 32;
/// Miniblocks in a block.
pub const MINIS_PER_BLOCK: usize = 4;
/// Zero words after a chunk's last tile, so that a decoder's window reads stay inside it.
pub const PAD_WORDS: usize = 2;
/// The layout version the codec parameters name.
pub const LAYOUT: u8 = 1;
/// Uncompressed bytes per chunk by default (512 tiles of 32-bit values).
pub const DEFAULT_CHUNK_SIZE: u32 = 1 << 20;
/// Longest tile, in words, any type can need: a header word, then run values of 64 bits in
/// four blocks of (2 + 1 + 256) words and run lengths in four blocks of (1 + 1 + 128) words.
pub const MAX_TILE_WORDS: usize = 1 + 4 * (2 + 1 + 256) + 4 * (1 + 1 + 128);

/// How one tile is coded (the low byte of its header word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// Frame of reference: the values, each block less its minimum, bit-packed.
    For = 0,
    /// Delta: a base, then the differences between neighbours coded as FOR.
    Dfor = 1,
    /// Runs: the run values and the run lengths, each coded as FOR.
    Rfor = 2,
}

impl Scheme {
    /// Every scheme, in code order.
    pub const ALL: [Scheme; 3] = [Scheme::For, Scheme::Dfor, Scheme::Rfor];

    /// The scheme of a header's low byte.
    pub fn from_code(code: u32) -> Option<Scheme> {
        Scheme::ALL.get(code as usize).copied()
    }

    /// The scheme's name in inspect output and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::For => "FOR",
            Scheme::Dfor => "DFOR",
            Scheme::Rfor => "RFOR",
        }
    }
}

/// Which schemes a codec writes and accepts: one, or any (the `tile` planner).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Plan {
    /// Every tile in this scheme.
    Fixed(Scheme),
    /// Each tile in the scheme that codes it in the fewest bytes (ties: FOR, DFOR, RFOR).
    Smallest,
}

impl Plan {
    /// Whether a tile of `scheme` may appear under this plan.
    pub fn allows(self, scheme: Scheme) -> bool {
        match self {
            Plan::Fixed(s) => s == scheme,
            Plan::Smallest => true,
        }
    }

    /// The schemes allowed, as a bit set (bit `s` for scheme code `s`), as the kernels take it.
    pub fn mask(self) -> u32 {
        Scheme::ALL
            .iter()
            .filter(|&&s| self.allows(s))
            .fold(0, |m, &s| m | 1 << s as u32)
    }
}

/// The element types the tile codecs store, as the decoders see them: `bits` (32 or 64) wide,
/// signed values mapped to unsigned ones by flipping the sign bit (which keeps their order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kind {
    /// 32 or 64.
    pub bits: u32,
    /// Whether the values are signed (and so stored with the sign bit flipped).
    pub signed: bool,
}

impl Kind {
    /// The kind of `elem`, or `Error::InvalidArgument` for a type the tile codecs do not store.
    pub fn of(elem: ElemType) -> Result<Kind> {
        match elem {
            ElemType::U32 => Ok(Kind { bits: 32, signed: false }),
            ElemType::I32 => Ok(Kind { bits: 32, signed: true }),
            ElemType::U64 => Ok(Kind { bits: 64, signed: false }),
            ElemType::I64 => Ok(Kind { bits: 64, signed: true }),
            other => Err(Error::InvalidArgument(format!(
                "the tile codecs (for, dfor, rfor, tile) store i32, u32, i64 or u64 values, not \
                 {other} (give --dtype)"
            ))),
        }
    }

    /// Bytes a value.
    pub fn bytes(self) -> usize {
        self.bits as usize / 8
    }

    /// Words a block reference takes.
    pub fn ref_words(self) -> usize {
        self.bits as usize / 32
    }

    /// The values' mask (`bits` ones).
    pub fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// What a stored value is XORed with to map it to its unsigned order (and back).
    pub fn flip(self) -> u64 {
        if self.signed {
            1u64 << (self.bits - 1)
        } else {
            0
        }
    }
}

/// The header's codec parameters: the layout version.
pub fn codec_params() -> Vec<u8> {
    vec![LAYOUT]
}

/// Checks the header's codec parameters: `Error::Unsupported` for a layout this build does not
/// know, `Error::CorruptContainer` for an element type the codecs never write.
pub fn parse_codec_params(params: &[u8], elem: ElemType) -> Result<Kind> {
    match params {
        [LAYOUT] => Kind::of(elem).map_err(|_| {
            Error::CorruptContainer(format!("a tile codec container of {elem} values"))
        }),
        [layout, ..] if *layout != LAYOUT => Err(Error::Unsupported(format!(
            "layout {layout} (this build reads layout {LAYOUT})"
        ))),
        _ => Err(Error::CorruptContainer(format!(
            "tile codec parameters of {} bytes (expected 1)",
            params.len()
        ))),
    }
}

/// Tiles of a chunk of `values` values.
pub fn tile_count(values: usize) -> usize {
    values.div_ceil(TILE_VALUES)
}

/// Why a chunk or one of its tiles does not decode. The numeric values are the kernels'
/// `TILE_FAULT_*` status codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The tile's words end before its streams do.
    Truncated = 1,
    /// The header's scheme is unknown or its reserved bits are set.
    BadHeader = 2,
    /// A miniblock's bit width exceeds the type's bits.
    WidthTooLarge = 3,
    /// A miniblock wholly past the tile's values has a nonzero width.
    WidthPastEnd = 4,
    /// An RFOR run count is 0 or more than the tile's values.
    BadRunCount = 5,
    /// An RFOR run length is 0, or the lengths do not add up to the tile's values.
    BadRunLengths = 6,
    /// The tile has words after its streams.
    TrailingWords = 7,
    /// The scheme is not one the container's codec writes.
    SchemeNotAllowed = 8,
    /// The chunk is not a whole number of words or is shorter than its tile table and padding.
    ChunkSize = 9,
    /// The tile table does not start at 0, go up, and end at the tiles' last word.
    BadTable = 10,
}

impl Fault {
    /// The fault of a kernel status code (an unknown code counts as a bad header).
    pub fn from_code(code: u32) -> Fault {
        match code {
            1 => Fault::Truncated,
            3 => Fault::WidthTooLarge,
            4 => Fault::WidthPastEnd,
            5 => Fault::BadRunCount,
            6 => Fault::BadRunLengths,
            7 => Fault::TrailingWords,
            8 => Fault::SchemeNotAllowed,
            9 => Fault::ChunkSize,
            10 => Fault::BadTable,
            _ => Fault::BadHeader,
        }
    }

    /// What is wrong, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Fault::Truncated => "its words end before its streams do",
            Fault::BadHeader => "its header names no scheme or has reserved bits set",
            Fault::WidthTooLarge => "a bit width exceeds the type's bits",
            Fault::WidthPastEnd => "a miniblock past the last value has a nonzero bit width",
            Fault::BadRunCount => "its run count is 0 or more than its values",
            Fault::BadRunLengths => "its run lengths are 0 or do not add up to its values",
            Fault::TrailingWords => "it has words after its streams",
            Fault::SchemeNotAllowed => "its scheme is not the container codec's",
            Fault::ChunkSize => {
                "the chunk is not a whole number of words or is shorter than its tile table"
            }
            Fault::BadTable => "the tile table's starts do not go up from 0 to the tiles' end",
        }
    }
}

/// A fault and where: the tile, when the fault lies in one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChunkFault {
    /// The tile (counted from 0 in the chunk), if the fault lies in one.
    pub tile: Option<usize>,
    /// What is wrong.
    pub fault: Fault,
}

impl ChunkFault {
    /// The library error for this fault in chunk `chunk`.
    pub fn into_error(self, chunk: usize) -> Error {
        let reason = match self.tile {
            Some(t) => format!("tile {t}: {}", self.fault.reason()),
            None => self.fault.reason().to_string(),
        };
        Error::Corrupt { chunk, reason }
    }
}

/// The little-endian word `i` of `bytes` (0 past the end).
pub fn word_at(bytes: &[u8], i: usize) -> u32 {
    match bytes.get(i * 4..i * 4 + 4) {
        Some(&[a, b, c, d]) => u32::from_le_bytes([a, b, c, d]),
        _ => 0,
    }
}

/// Checks a chunk's size and tile table, for `values` values: returns the byte offset of the
/// data section (the words after the table) and every tile's `(start, end)` word range in it.
pub fn split_chunk(input: &[u8], values: usize) -> Result<(usize, Vec<(usize, usize)>), ChunkFault> {
    let tiles = tile_count(values);
    let chunk_fault = |fault| ChunkFault { tile: None, fault };
    let table_end = tiles + 1;
    if !input.len().is_multiple_of(4) || input.len() / 4 < table_end + PAD_WORDS {
        return Err(chunk_fault(Fault::ChunkSize));
    }
    let data_words = input.len() / 4 - table_end - PAD_WORDS;
    if word_at(input, 0) != 0 || word_at(input, tiles) as usize != data_words {
        return Err(chunk_fault(Fault::BadTable));
    }
    let mut ranges = Vec::with_capacity(tiles);
    let mut start = 0usize;
    for t in 0..tiles {
        let end = word_at(input, t + 1) as usize;
        if end <= start {
            return Err(ChunkFault {
                tile: Some(t),
                fault: Fault::BadTable,
            });
        }
        ranges.push((start, end));
        start = end;
    }
    Ok((table_end * 4, ranges))
}
