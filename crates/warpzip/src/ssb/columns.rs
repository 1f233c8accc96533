//! The column directory `ssb load` writes and the queries read (docs/format.md, "SSB column
//! directory"): a manifest of the tables' row counts, and for every column of every table its
//! `u32` values twice, compressed with the `tile` codec (`.wz`) and raw little-endian (`.u32`),
//! plus the sorted dictionary of a text column (`.dict`, one entry a line).

use super::schema::{ColumnType, Table, TABLES};
use super::tbl::{read_table, ColumnData};
use crate::codec::CodecId;
use crate::device::Device;
use crate::error::{Error, Result};
use crate::format::ElemType;
use crate::CompressOptions;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name.
pub const MANIFEST: &str = "ssb-columns.txt";
/// The manifest's first line.
const MAGIC: &str = "warpzip ssb columns 1";

/// One column written by [`load`].
#[derive(Clone, Debug)]
pub struct LoadedColumn {
    /// Its table.
    pub table: &'static str,
    /// Its name.
    pub column: &'static str,
    /// Its rows.
    pub rows: usize,
    /// Bytes of its raw `u32` values.
    pub raw_bytes: u64,
    /// Bytes of its `.wz` file.
    pub compressed_bytes: u64,
}

/// Reads the five `.tbl` files in `tbl_dir` and writes the column directory `out` (created if
/// missing): every column compressed with the `tile` codec and raw.
pub fn load(tbl_dir: &Path, out: &Path) -> Result<Vec<LoadedColumn>> {
    std::fs::create_dir_all(out)?;
    let mut manifest = format!("{MAGIC}\n");
    let mut loaded = Vec::new();
    for table in TABLES {
        let columns = read_table(tbl_dir, &table)?;
        let rows = columns.first().map_or(0, |c| c.values().len());
        let dir = out.join(table.name);
        std::fs::create_dir_all(&dir)?;
        for (&(name, _), data) in table.columns.iter().zip(&columns) {
            let raw: Vec<u8> = data.values().iter().flat_map(|v| v.to_le_bytes()).collect();
            let wz = compress_column(&raw)?;
            std::fs::write(dir.join(format!("{name}.u32")), &raw)?;
            std::fs::write(dir.join(format!("{name}.wz")), &wz)?;
            if let ColumnData::Text { dict, .. } = data {
                let mut text = String::new();
                for entry in dict {
                    text.push_str(entry);
                    text.push('\n');
                }
                std::fs::write(dir.join(format!("{name}.dict")), text)?;
            }
            loaded.push(LoadedColumn {
                table: table.name,
                column: name,
                rows,
                raw_bytes: raw.len() as u64,
                compressed_bytes: wz.len() as u64,
            });
        }
        manifest.push_str(&format!("{} {rows}\n", table.name));
    }
    std::fs::write(out.join(MANIFEST), manifest)?;
    Ok(loaded)
}

/// `u32` values compressed with the `tile` codec (each tile in its smallest scheme).
fn compress_column(raw: &[u8]) -> Result<Vec<u8>> {
    let opts = CompressOptions {
        elem_type: Some(ElemType::U32),
        ..CompressOptions::for_codec(CodecId::Tile)
    };
    crate::api::compress(raw, &opts, &Device::Cpu)
}

/// A column directory opened for reading.
#[derive(Clone, Debug)]
pub struct ColumnDir {
    root: PathBuf,
    rows: BTreeMap<String, usize>,
}

impl ColumnDir {
    /// Opens the column directory `root`: `Error::InvalidArgument` when it has no manifest or
    /// one that lacks a table.
    pub fn open(root: &Path) -> Result<ColumnDir> {
        let path = root.join(MANIFEST);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::InvalidArgument(format!(
                "{} is not an SSB column directory (written by `warpzip ssb load`): {e}",
                root.display()
            ))
        })?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            return Err(Error::InvalidArgument(format!(
                "{} does not start with {MAGIC:?}",
                path.display()
            )));
        }
        let mut rows = BTreeMap::new();
        for line in lines {
            let parsed = line
                .split_once(' ')
                .and_then(|(t, n)| Some((t.to_string(), n.parse::<usize>().ok()?)));
            match parsed {
                Some((t, n)) => rows.insert(t, n),
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "{}: bad line {line:?}",
                        path.display()
                    )))
                }
            };
        }
        for table in TABLES {
            if !rows.contains_key(table.name) {
                return Err(Error::InvalidArgument(format!(
                    "{} lists no table {}",
                    path.display(),
                    table.name
                )));
            }
        }
        Ok(ColumnDir {
            root: root.to_path_buf(),
            rows,
        })
    }

    /// Rows of `table`.
    pub fn rows(&self, table: &str) -> usize {
        self.rows.get(table).copied().unwrap_or(0)
    }

    fn path(&self, table: &str, column: &str, ext: &str) -> PathBuf {
        self.root.join(table).join(format!("{column}.{ext}"))
    }

    fn read(&self, table: &str, column: &str, ext: &str) -> Result<Vec<u8>> {
        let path = self.path(table, column, ext);
        std::fs::read(&path).map_err(|e| {
            Error::InvalidArgument(format!("cannot read column {}: {e}", path.display()))
        })
    }

    /// Column `column` of `table` as its `.wz` file's bytes.
    pub fn compressed(&self, table: &str, column: &str) -> Result<Vec<u8>> {
        self.read(table, column, "wz")
    }

    /// Column `column` of `table`: its raw values, or its `.wz` file decoded on the CPU.
    pub fn values(&self, table: &str, column: &str, compressed: bool) -> Result<Vec<u32>> {
        let bytes = if compressed {
            crate::api::decompress(&self.compressed(table, column)?, &Device::Cpu)?
        } else {
            self.read(table, column, "u32")?
        };
        let rows = self.rows(table);
        if bytes.len() != rows * 4 {
            return Err(Error::InvalidArgument(format!(
                "column {table}.{column} holds {} bytes, not the {rows} values of its table",
                bytes.len()
            )));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// The sorted dictionary of text column `column` of `table`.
    pub fn dictionary(&self, table: &str, column: &str) -> Result<Vec<String>> {
        let bytes = self.read(table, column, "dict")?;
        let text = String::from_utf8(bytes).map_err(|_| {
            Error::InvalidArgument(format!("dictionary of {table}.{column} is not UTF-8"))
        })?;
        Ok(text.lines().map(str::to_string).collect())
    }

    /// A column as [`ColumnData`]: its values and, for a text column, its dictionary.
    pub fn column(&self, table: &Table, column: &str, compressed: bool) -> Result<ColumnData> {
        let values = self.values(table.name, column, compressed)?;
        match table.column_type(column) {
            Some(ColumnType::Int) => Ok(ColumnData::Int(values)),
            Some(ColumnType::Text) => {
                let dict = self.dictionary(table.name, column)?;
                if let Some(&bad) = values.iter().find(|&&c| c as usize >= dict.len()) {
                    return Err(Error::InvalidArgument(format!(
                        "{}.{column} holds code {bad} past its dictionary of {}",
                        table.name,
                        dict.len()
                    )));
                }
                Ok(ColumnData::Text {
                    codes: values,
                    dict,
                })
            }
            None => Err(Error::InvalidArgument(format!(
                "table {} has no column {column}",
                table.name
            ))),
        }
    }
}
