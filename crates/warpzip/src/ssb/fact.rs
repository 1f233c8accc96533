//! The fact table's columns as the engines read them: raw `u32` values, or a `.wz` file of a tile
//! codec cut into its tiles. Row `r` lies in tile `r / 512` of every column: all of them are
//! chunked alike (whole tiles in every chunk but the last), which opening checks.

use super::columns::ColumnDir;
use super::query::{Slot, SLOTS};
use crate::codec::tile::cpu::decode_tile_with;
use crate::codec::tile::format::{
    split_chunk, ChunkFault, Kind, Plan as TilePlan, Scheme, TILE_VALUES,
};
use crate::codec::CodecId;
use crate::error::{Error, Result};
use crate::format::{Container, ElemType};
use rayon::prelude::*;

/// The kind of every stored column.
pub(crate) const KIND: Kind = Kind {
    bits: 32,
    signed: false,
};

/// One tile of a compressed column.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TileSpan {
    /// Byte offset of its words in [`TiledColumn::words`].
    pub(crate) start: usize,
    /// Its words.
    pub(crate) words: usize,
    /// The chunk it lies in, and its index there (for errors).
    pub(crate) chunk: usize,
    pub(crate) tile: usize,
}

/// A compressed column: its chunks' bytes back to back, where each chunk lies (byte offset,
/// bytes, uncompressed bytes) and where each tile lies.
#[derive(Clone, Debug)]
pub(crate) struct TiledColumn {
    pub(crate) words: Vec<u8>,
    pub(crate) chunks: Vec<(usize, usize, usize)>,
    pub(crate) tiles: Vec<TileSpan>,
    pub(crate) plan: TilePlan,
}

/// One fact column.
#[derive(Clone, Debug)]
pub(crate) enum FactColumn {
    Plain(Vec<u32>),
    Tiled(TiledColumn),
}

/// The fact columns a plan reads (the others `None`).
#[derive(Clone, Debug)]
pub(crate) struct Fact {
    pub(crate) rows: usize,
    pub(crate) columns: [Option<FactColumn>; SLOTS],
}

impl Fact {
    /// Reads `slots` of `lineorder` from `dir`: the `.wz` files when `compressed`, else the raw
    /// copies.
    pub(crate) fn open(dir: &ColumnDir, slots: &[Slot], compressed: bool) -> Result<Fact> {
        let rows = dir.rows("lineorder");
        let mut columns: [Option<FactColumn>; SLOTS] = Default::default();
        for &slot in slots {
            let column = if compressed {
                FactColumn::Tiled(tiled(
                    &dir.compressed("lineorder", slot.column())?,
                    rows,
                    slot,
                )?)
            } else {
                FactColumn::Plain(dir.values("lineorder", slot.column(), false)?)
            };
            columns[slot as usize] = Some(column);
        }
        Ok(Fact { rows, columns })
    }

    /// Tiles of every column.
    pub(crate) fn tiles(&self) -> usize {
        self.rows.div_ceil(TILE_VALUES)
    }

    /// Values of tile `t`.
    pub(crate) fn tile_len(&self, t: usize) -> usize {
        (self.rows - t * TILE_VALUES).min(TILE_VALUES)
    }

    /// The same columns decoded whole into raw values (tiles in parallel).
    pub(crate) fn decompressed(&self) -> Result<Fact> {
        let mut columns: [Option<FactColumn>; SLOTS] = Default::default();
        for (dst, src) in columns.iter_mut().zip(&self.columns) {
            *dst = match src {
                Some(FactColumn::Tiled(c)) => Some(FactColumn::Plain(decode_whole(c, self.rows)?)),
                other => other.clone(),
            };
        }
        Ok(Fact {
            rows: self.rows,
            columns,
        })
    }

    /// Bytes the plan's columns take as stored.
    pub(crate) fn stored_bytes(&self) -> u64 {
        self.columns
            .iter()
            .flatten()
            .map(|c| match c {
                FactColumn::Plain(v) => v.len() as u64 * 4,
                FactColumn::Tiled(t) => t.words.len() as u64,
            })
            .sum()
    }
}

/// Every value of a compressed column of `rows` values.
fn decode_whole(c: &TiledColumn, rows: usize) -> Result<Vec<u32>> {
    let mut out = vec![0u32; rows];
    out.par_chunks_mut(TILE_VALUES)
        .zip(c.tiles.par_iter())
        .try_for_each_init(
            || vec![0u64; 3 * TILE_VALUES],
            |wide, (dst, span)| {
                let words = c
                    .words
                    .get(span.start..span.start + span.words * 4)
                    .unwrap_or(&[]);
                let (vals, rest) = wide.split_at_mut(TILE_VALUES);
                decode_tile_with(words, KIND, c.plan, &mut vals[..dst.len()], rest).map_err(
                    |fault| {
                        ChunkFault {
                            tile: Some(span.tile),
                            fault,
                        }
                        .into_error(span.chunk)
                    },
                )?;
                for (d, &v) in dst.iter_mut().zip(vals.iter()) {
                    *d = v as u32;
                }
                Ok::<(), Error>(())
            },
        )?;
    Ok(out)
}

/// Cuts a `.wz` file of `rows` `u32` values of a tile codec into its tiles.
fn tiled(file: &[u8], rows: usize, slot: Slot) -> Result<TiledColumn> {
    let name = slot.column();
    let container = Container::parse(file)?;
    let header = &container.header;
    let plan = match header.codec {
        CodecId::For => TilePlan::Fixed(Scheme::For),
        CodecId::Dfor => TilePlan::Fixed(Scheme::Dfor),
        CodecId::Rfor => TilePlan::Fixed(Scheme::Rfor),
        CodecId::Tile => TilePlan::Smallest,
        other => {
            return Err(Error::Unsupported(format!(
                "column {name} is {other}-compressed; the SSB engines read the tile codecs"
            )))
        }
    };
    if header.elem_type != ElemType::U32 || header.total_len != rows as u64 * 4 {
        return Err(Error::InvalidArgument(format!(
            "column {name} holds {} bytes of {} values, not the {rows} u32 values of lineorder",
            header.total_len, header.elem_type
        )));
    }
    container.verify_all()?;
    let chunks = container.chunk_list();
    let mut words = Vec::with_capacity(file.len());
    let mut tiles = Vec::with_capacity(rows.div_ceil(TILE_VALUES));
    let mut spans = Vec::with_capacity(chunks.len());
    for (c, &(bytes, len)) in chunks.iter().enumerate() {
        let values = len / 4;
        if c + 1 < chunks.len() && !values.is_multiple_of(TILE_VALUES) {
            return Err(Error::Unsupported(format!(
                "column {name}: chunk {c} holds {values} values, not whole tiles of {TILE_VALUES}"
            )));
        }
        let (data_at, ranges) = split_chunk(bytes, values).map_err(|f| f.into_error(c))?;
        let at = words.len();
        words.extend_from_slice(bytes);
        spans.push((at, bytes.len(), len));
        for (t, &(s, e)) in ranges.iter().enumerate() {
            tiles.push(TileSpan {
                start: at + data_at + s * 4,
                words: e - s,
                chunk: c,
                tile: t,
            });
        }
    }
    Ok(TiledColumn {
        words,
        chunks: spans,
        tiles,
        plan,
    })
}
