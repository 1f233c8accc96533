//! Reading dbgen's `.tbl` files: a row a line, every field followed by `|`. Integer columns are
//! parsed as `u32`; text columns are dictionary-encoded as they are read, then their codes are
//! renumbered so that the dictionary is sorted (code order is text order).

use super::schema::{ColumnType, Table};
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// One column as read: integers, or codes into a sorted dictionary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnData {
    /// An integer column.
    Int(Vec<u32>),
    /// A text column: `dict[codes[i]]` is row `i`'s text; `dict` is sorted and distinct.
    Text { codes: Vec<u32>, dict: Vec<String> },
}

impl ColumnData {
    /// The stored values: the integers, or the codes.
    pub fn values(&self) -> &[u32] {
        match self {
            ColumnData::Int(v) => v,
            ColumnData::Text { codes, .. } => codes,
        }
    }
}

/// A text column being read: codes in order of first appearance.
#[derive(Default)]
struct DictBuilder {
    index: HashMap<String, u32>,
    codes: Vec<u32>,
    dict: Vec<String>,
}

impl DictBuilder {
    fn push(&mut self, text: &str) {
        let code = match self.index.get(text) {
            Some(&c) => c,
            None => {
                let c = self.dict.len() as u32;
                self.index.insert(text.to_string(), c);
                self.dict.push(text.to_string());
                c
            }
        };
        self.codes.push(code);
    }

    /// The codes renumbered into the sorted dictionary's order.
    fn finish(self) -> ColumnData {
        let mut order: Vec<u32> = (0..self.dict.len() as u32).collect();
        order.sort_by(|&a, &b| self.dict[a as usize].cmp(&self.dict[b as usize]));
        let mut renumber = vec![0u32; order.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old as usize] = new as u32;
        }
        let mut dict = self.dict;
        let sorted: Vec<String> = order
            .iter()
            .map(|&o| std::mem::take(&mut dict[o as usize]))
            .collect();
        ColumnData::Text {
            codes: self.codes.iter().map(|&c| renumber[c as usize]).collect(),
            dict: sorted,
        }
    }
}

enum Builder {
    Int(Vec<u32>),
    Text(DictBuilder),
}

/// Reads `DIR/<table>.tbl`: every column, in the table's order.
pub fn read_table(dir: &Path, table: &Table) -> Result<Vec<ColumnData>> {
    let path = dir.join(format!("{}.tbl", table.name));
    let file = std::fs::File::open(&path)
        .map_err(|e| Error::InvalidArgument(format!("cannot read {}: {e}", path.display())))?;
    read_rows(
        std::io::BufReader::with_capacity(1 << 20, file),
        table,
        &path,
    )
}

/// Reads the rows of `table` from `input` (named `path` in errors).
pub fn read_rows<R: BufRead>(input: R, table: &Table, path: &Path) -> Result<Vec<ColumnData>> {
    let mut builders: Vec<Builder> = table
        .columns
        .iter()
        .map(|&(_, t)| match t {
            ColumnType::Int => Builder::Int(Vec::new()),
            ColumnType::Text => Builder::Text(DictBuilder::default()),
        })
        .collect();
    let bad = |line: usize, why: String| {
        Error::InvalidArgument(format!("{} line {}: {why}", path.display(), line + 1))
    };
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        let line = line.strip_suffix('\r').unwrap_or(&line);
        if line.is_empty() {
            continue;
        }
        let body = line.strip_suffix('|').unwrap_or(line);
        let mut fields = body.split('|');
        for (b, &(name, _)) in builders.iter_mut().zip(table.columns) {
            let field = fields.next().ok_or_else(|| {
                bad(
                    n,
                    format!(
                        "{} fields (expected {})",
                        body.split('|').count(),
                        table.columns.len()
                    ),
                )
            })?;
            match b {
                Builder::Int(v) => v.push(field.trim().parse().map_err(|_| {
                    bad(
                        n,
                        format!("{name} is {field:?}, not an integer from 0 to 2^32 - 1"),
                    )
                })?),
                Builder::Text(d) => d.push(field),
            }
        }
        if fields.next().is_some() {
            return Err(bad(
                n,
                format!(
                    "more than the {} fields of {}",
                    table.columns.len(),
                    table.name
                ),
            ));
        }
    }
    Ok(builders
        .into_iter()
        .map(|b| match b {
            Builder::Int(v) => ColumnData::Int(v),
            Builder::Text(d) => d.finish(),
        })
        .collect())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::ssb::schema::SUPPLIER;

    #[test]
    fn text_codes_follow_the_sorted_dictionary() {
        let rows = "2|b|x|C|N|R|p|\n1|a|y|A|N|R|q|\n";
        let cols = read_rows(rows.as_bytes(), &SUPPLIER, Path::new("s.tbl")).unwrap();
        assert_eq!(cols[0], ColumnData::Int(vec![2, 1]));
        assert_eq!(
            cols[3],
            ColumnData::Text {
                codes: vec![1, 0],
                dict: vec!["A".into(), "C".into()]
            }
        );
    }

    #[test]
    fn short_rows_and_bad_integers_are_errors() {
        assert!(read_rows("1|a|\n".as_bytes(), &SUPPLIER, Path::new("s")).is_err());
        assert!(read_rows("x|b|x|C|N|R|p|\n".as_bytes(), &SUPPLIER, Path::new("s")).is_err());
    }
}
