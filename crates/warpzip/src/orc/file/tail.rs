//! The file tail, read from the end: the last byte is the postscript's length, the postscript
//! (never compressed) gives the footer's length and the compression, and the footer (compressed
//! like the streams) holds the schema and the stripe list.

use super::super::place::Place;
use super::compression::{decompress_stream, Compression};
use super::proto::{Footer, PostScript, TypeKind};
use crate::error::{Error, Result};
use prost::Message;

/// The magic string at the start of every ORC file and in its postscript.
pub const MAGIC: &[u8] = b"ORC";

/// A parsed file tail.
#[derive(Clone, Debug)]
pub struct FileTail {
    pub postscript: PostScript,
    pub footer: Footer,
    pub compression: Compression,
    /// The file's length in bytes.
    pub file_length: u64,
    /// The postscript's length (the file's last byte).
    pub postscript_length: u64,
}

impl FileTail {
    /// The format version as written (`0.11`, `0.12`), or `?` when the postscript has none.
    pub fn version(&self) -> String {
        if self.postscript.version.is_empty() {
            return "?".to_string();
        }
        let parts: Vec<String> = self
            .postscript
            .version
            .iter()
            .map(|v| v.to_string())
            .collect();
        parts.join(".")
    }

    /// The rows the footer says the file holds.
    pub fn number_of_rows(&self) -> u64 {
        self.footer.number_of_rows.unwrap_or(0)
    }
}

/// Reads the tail of a whole file held in memory.
pub fn read_tail(file: &[u8]) -> Result<FileTail> {
    let file_length = file.len();
    let &ps_len = file
        .last()
        .ok_or_else(|| Error::Truncated("ORC file is empty (0 bytes)".to_string()))?;
    let ps_len = usize::from(ps_len);
    if ps_len == 0 || ps_len + 1 > file_length {
        return Err(Place::file().corrupt(format!(
            "postscript length {ps_len} does not fit a {file_length}-byte file \
             (not an ORC file, or truncated)"
        )));
    }
    let ps_start = file_length - 1 - ps_len;
    let postscript = PostScript::decode(&file[ps_start..file_length - 1]).map_err(|e| {
        Place::file().corrupt(format!(
            "postscript does not parse ({e}): not an ORC file, or truncated"
        ))
    })?;
    match postscript.magic.as_deref() {
        Some(m) if m.as_bytes() == MAGIC => {}
        Some(m) => {
            return Err(Place::file().corrupt(format!("postscript magic is {m:?}, not \"ORC\"")))
        }
        // Files from before the postscript carried the magic have it only at the start.
        None if file.starts_with(MAGIC) => {}
        None => {
            return Err(Place::file()
                .corrupt("no ORC magic in the postscript or at the file's start".to_string()))
        }
    }
    let compression =
        Compression::from_postscript(postscript.compression, postscript.compression_block_size)?;
    let footer_length = postscript.footer_length.unwrap_or(0);
    let footer_start = u64::try_from(ps_start)
        .ok()
        .and_then(|ps| ps.checked_sub(footer_length))
        .filter(|&start| start >= MAGIC.len() as u64 || footer_length == 0)
        .ok_or_else(|| {
            Place::file().corrupt(format!(
                "footer length {footer_length} does not fit before the postscript \
                 (at byte {ps_start})"
            ))
        })?;
    let footer_bytes = &file[footer_start as usize..ps_start];
    let footer_bytes = decompress_stream(footer_bytes, compression, &Place::file().part("footer"))?;
    let footer = Footer::decode(footer_bytes.as_ref())
        .map_err(|e| Place::file().corrupt(format!("footer does not parse ({e})")))?;
    check_schema(&footer)?;
    let metadata_length = postscript.metadata_length.unwrap_or(0);
    let data_end = footer_start.checked_sub(metadata_length).ok_or_else(|| {
        Place::file().corrupt(format!(
            "metadata length {metadata_length} does not fit before the footer (at byte \
             {footer_start})"
        ))
    })?;
    check_stripes(&footer, data_end)?;
    Ok(FileTail {
        postscript,
        footer,
        compression,
        file_length: file_length as u64,
        postscript_length: ps_len as u64,
    })
}

/// Every stripe lies inside the file's data area (after the 3-byte magic, before the metadata
/// and footer), the stripes follow one another without overlapping, and their rows add up to
/// the footer's: a small file cannot list one stripe many times over, or claim rows no stripe
/// holds.
fn check_stripes(footer: &Footer, data_end: u64) -> Result<()> {
    let mut previous_end = MAGIC.len() as u64;
    let mut rows: u64 = 0;
    for (i, s) in footer.stripes.iter().enumerate() {
        let corrupt = |reason: String| Place::stripe(i).corrupt(reason);
        let start = s.offset.unwrap_or(0);
        let end = start
            .checked_add(s.index_length.unwrap_or(0))
            .and_then(|v| v.checked_add(s.data_length.unwrap_or(0)))
            .and_then(|v| v.checked_add(s.footer_length.unwrap_or(0)))
            .ok_or_else(|| corrupt("lengths overflow".to_string()))?;
        if start < previous_end {
            return Err(corrupt(format!(
                "starts at byte {start}, inside the file's magic or the stripe before it \
                 (which ends at {previous_end}): stripes must be in order and disjoint"
            )));
        }
        if end > data_end {
            return Err(corrupt(format!(
                "ends at byte {end}, past the data area (which ends at {data_end})"
            )));
        }
        previous_end = end;
        rows = rows
            .checked_add(s.number_of_rows.unwrap_or(0))
            .ok_or_else(|| corrupt("row counts overflow".to_string()))?;
    }
    if let Some(total) = footer.number_of_rows {
        if total != rows {
            return Err(Place::file().corrupt(format!(
                "the footer says {total} rows, its stripes hold {rows}"
            )));
        }
    }
    Ok(())
}

/// The schema is a tree flattened in pre-order: every subtype index points forward and lies
/// inside the list, so walking it cannot loop or index out of bounds.
fn check_schema(footer: &Footer) -> Result<()> {
    let types = &footer.types;
    if types.is_empty() {
        return Err(Place::file().corrupt("footer has no schema (no types)".to_string()));
    }
    // A tree: every type but the root is some type's child exactly once, so printing or
    // walking the schema takes time linear in its size.
    let mut has_parent = vec![false; types.len()];
    for (i, t) in types.iter().enumerate() {
        let raw = t.kind.unwrap_or(0);
        let kind = TypeKind::try_from(raw)
            .map_err(|_| Place::file().corrupt(format!("type {i} has unknown kind {raw}")))?;
        for &sub in &t.subtypes {
            let sub = sub as usize;
            if sub <= i || sub >= types.len() {
                return Err(Place::file().corrupt(format!(
                    "type {i} names subtype {sub}, outside {}..{}",
                    i + 1,
                    types.len()
                )));
            }
            if std::mem::replace(&mut has_parent[sub], true) {
                return Err(
                    Place::file().corrupt(format!("type {sub} is a child of more than one type"))
                );
            }
        }
        if kind == TypeKind::Struct && t.field_names.len() != t.subtypes.len() {
            return Err(Place::file().corrupt(format!(
                "struct type {i} has {} field names for {} fields",
                t.field_names.len(),
                t.subtypes.len()
            )));
        }
    }
    Ok(())
}
