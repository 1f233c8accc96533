//! The chunk table: one 24-byte entry per chunk, and the rules that tie the entries to the
//! header (sizes) and to each other (contiguous offsets).

use super::header::{ByteCursor, Header};
use super::TABLE_ENTRY_LEN;
use crate::error::{Error, Result};

/// One chunk's entry in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkEntry {
    /// Offset of the chunk's compressed bytes from the start of the payload.
    pub offset: u64,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
    /// xxh3-64 of the chunk's compressed bytes.
    pub checksum: u64,
}

/// Where one chunk's compressed bytes lie in a payload buffer being written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSpan {
    pub offset: usize,
    pub compressed_len: u32,
    pub uncompressed_len: u32,
}

impl ChunkEntry {
    /// Appends the entry's 24 bytes.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.compressed_len.to_le_bytes());
        out.extend_from_slice(&self.uncompressed_len.to_le_bytes());
        out.extend_from_slice(&self.checksum.to_le_bytes());
    }

    fn decode(cur: &mut ByteCursor<'_>) -> Result<ChunkEntry> {
        Ok(ChunkEntry {
            offset: cur.u64("chunk table")?,
            compressed_len: cur.u32("chunk table")?,
            uncompressed_len: cur.u32("chunk table")?,
            checksum: cur.u64("chunk table")?,
        })
    }
}

/// Checks that chunk `index`, of `uncompressed_len` bytes, is where the header says it must
/// be: every chunk holds `chunk_size` bytes but the last, which holds the rest.
pub(crate) fn check_uncompressed_len(
    header: &Header,
    index: u32,
    uncompressed_len: u32,
    bad: fn(String) -> Error,
) -> Result<()> {
    let expected = header.chunk_uncompressed_len(index);
    if expected != Some(uncompressed_len) {
        return Err(bad(format!(
            "chunk {index} has uncompressed size {uncompressed_len}, expected {}",
            expected.map_or_else(|| "no such chunk".to_string(), |e| e.to_string())
        )));
    }
    Ok(())
}

/// Reads `count` entries at the cursor and checks their sizes and offsets. Returns the entries
/// and the payload length they add up to. The caller has already checked that the table fits
/// in the input, so the allocation is bounded by the input's size.
pub(crate) fn decode_table(
    header: &Header,
    count: u32,
    cur: &mut ByteCursor<'_>,
) -> Result<(Vec<ChunkEntry>, u64)> {
    let corrupt = Error::CorruptContainer;
    let table_len = usize::try_from(u64::from(count) * TABLE_ENTRY_LEN as u64)
        .map_err(|_| corrupt(format!("chunk table of {count} entries is too large")))?;
    let mut table = ByteCursor::new(cur.take(table_len, "chunk table")?);
    let mut entries =
        crate::error::try_with_capacity(table_len / TABLE_ENTRY_LEN, "the chunk table")?;
    let mut next_offset = 0u64;
    for index in 0..count {
        let entry = ChunkEntry::decode(&mut table)?;
        check_uncompressed_len(header, index, entry.uncompressed_len, corrupt)?;
        if entry.offset != next_offset {
            return Err(corrupt(format!(
                "chunk {index} starts at payload offset {}, expected {next_offset} \
                 (chunks must be contiguous)",
                entry.offset
            )));
        }
        next_offset = next_offset
            .checked_add(u64::from(entry.compressed_len))
            .ok_or_else(|| corrupt(format!("chunk {index} ends past 2^64 bytes")))?;
        entries.push(entry);
    }
    Ok((entries, next_offset))
}
