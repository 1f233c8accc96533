//! The schema: the root struct's fields as columns, their types as ORC writes them, and which of
//! them this reader decodes: every type but union (and types holding one), integer-family ones
//! (boolean, tinyint, smallint, int, bigint, date) also row group by row group and on the GPU.
//! A union is an `Unsupported` error naming the column, never a guess.

use super::file::proto::{Type, TypeKind};
use super::place::Place;
use crate::error::{Error, Result};

/// Schema trees deeper than this are shown abbreviated (a file may nest types without end).
const MAX_TYPE_DEPTH: usize = 32;

/// One top-level column of an ORC file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrcColumn {
    /// The field name in the root struct.
    pub name: String,
    /// The column id: the index of its type in the footer's flattened schema, which is what
    /// streams and encodings refer to.
    pub id: u32,
    /// The type's kind.
    pub kind: TypeKind,
    /// The type as ORC writes it: `int`, `string`, `struct<a:int,b:string>`, `decimal(10,2)`.
    pub type_name: String,
    /// Why the reader cannot decode the column (its type is or holds a union), `None` when it
    /// can.
    pub unreadable: Option<String>,
}

impl OrcColumn {
    /// True for the columns this reader decodes: every type but union and types that hold one.
    pub fn is_readable(&self) -> bool {
        self.unreadable.is_none()
    }

    /// An `Unsupported` error naming the column, for the columns [`is_readable`] refuses.
    ///
    /// [`is_readable`]: OrcColumn::is_readable
    pub fn check_readable(&self) -> Result<()> {
        match &self.unreadable {
            None => Ok(()),
            Some(why) => Err(Error::Unsupported(format!(
                "ORC column '{}' has type {}: {why}",
                self.name, self.type_name
            ))),
        }
    }

    /// True for the integer-family types (boolean, tinyint, smallint, int, bigint, date), which
    /// are decoded row group by row group (`plan`, the CPU's row-group decoder, the GPU).
    pub fn is_supported(&self) -> bool {
        matches!(
            self.kind,
            TypeKind::Boolean
                | TypeKind::Byte
                | TypeKind::Short
                | TypeKind::Int
                | TypeKind::Long
                | TypeKind::Date
        )
    }

    /// An `Unsupported` error naming the column and its type, for the types the row-group
    /// decoders do not decode.
    pub fn check_supported(&self) -> Result<()> {
        if self.is_supported() {
            Ok(())
        } else {
            Err(Error::Unsupported(format!(
                "ORC column '{}' has type {}; only boolean, tinyint, smallint, int, bigint and \
                 date columns are decoded by row groups",
                self.name, self.type_name
            )))
        }
    }

    /// Bytes per value of the column's Arrow type (booleans as one byte each, as the GPU writes
    /// them), `None` for the types not decoded.
    pub fn value_width(&self) -> Option<usize> {
        match self.kind {
            TypeKind::Boolean | TypeKind::Byte => Some(1),
            TypeKind::Short => Some(2),
            TypeKind::Int | TypeKind::Date => Some(4),
            TypeKind::Long => Some(8),
            _ => None,
        }
    }

    /// The column in stripe `stripe`, for errors.
    pub(crate) fn in_stripe(&self, stripe: usize) -> Place {
        Place::stripe(stripe).column(self.id, &self.name)
    }
}

/// The root struct's fields. A file whose root is not a struct (old writers allowed a bare
/// type) gets one column named `_col0`.
pub fn top_level_columns(types: &[Type]) -> Result<Vec<OrcColumn>> {
    let root = types
        .first()
        .ok_or_else(|| Place::file().part("footer").corrupt("no schema"))?;
    if kind_of(root) != TypeKind::Struct {
        return Ok(vec![OrcColumn {
            name: "_col0".to_string(),
            id: 0,
            kind: kind_of(root),
            type_name: type_name(types, 0, 0),
            unreadable: unreadable(types, 0),
        }]);
    }
    Ok(root
        .subtypes
        .iter()
        .zip(&root.field_names)
        .map(|(&id, name)| {
            let kind = types.get(id as usize).map_or(TypeKind::Struct, kind_of);
            OrcColumn {
                name: name.clone(),
                id,
                kind,
                type_name: type_name(types, id as usize, 0),
                unreadable: unreadable(types, id),
            }
        })
        .collect())
}

/// Why type `id` cannot be decoded (it is or holds a union, or its tree is damaged), `None`
/// when it can.
fn unreadable(types: &[Type], id: u32) -> Option<String> {
    super::column_tree::arrow_type(types, id, "")
        .err()
        .map(|e| match e {
            Error::Unsupported(_) => "union types are not decoded".to_string(),
            other => other.to_string(),
        })
}

/// A type's kind; `read_tail` already rejected unknown kinds, so the fallback is never used.
pub(crate) fn kind_of(t: &Type) -> TypeKind {
    TypeKind::try_from(t.kind.unwrap_or(0)).unwrap_or(TypeKind::Struct)
}

/// The type as ORC's own tools print it.
pub fn type_name(types: &[Type], id: usize, depth: usize) -> String {
    let Some(t) = types.get(id) else {
        return "?".to_string();
    };
    if depth > MAX_TYPE_DEPTH {
        return "...".to_string();
    }
    let child = |i: usize| {
        t.subtypes.get(i).map_or("?".to_string(), |&s| {
            type_name(types, s as usize, depth + 1)
        })
    };
    match kind_of(t) {
        TypeKind::Boolean => "boolean".to_string(),
        TypeKind::Byte => "tinyint".to_string(),
        TypeKind::Short => "smallint".to_string(),
        TypeKind::Int => "int".to_string(),
        TypeKind::Long => "bigint".to_string(),
        TypeKind::Float => "float".to_string(),
        TypeKind::Double => "double".to_string(),
        TypeKind::String => "string".to_string(),
        TypeKind::Binary => "binary".to_string(),
        TypeKind::Timestamp => "timestamp".to_string(),
        TypeKind::TimestampInstant => "timestamp with local time zone".to_string(),
        TypeKind::Date => "date".to_string(),
        TypeKind::Decimal => format!(
            "decimal({},{})",
            t.precision.unwrap_or(38),
            t.scale.unwrap_or(10)
        ),
        TypeKind::Varchar => format!("varchar({})", t.maximum_length.unwrap_or(0)),
        TypeKind::Char => format!("char({})", t.maximum_length.unwrap_or(0)),
        TypeKind::List => format!("array<{}>", child(0)),
        TypeKind::Map => format!("map<{},{}>", child(0), child(1)),
        TypeKind::Union => {
            let parts: Vec<String> = (0..t.subtypes.len()).map(child).collect();
            format!("uniontype<{}>", parts.join(","))
        }
        TypeKind::Struct => {
            let parts: Vec<String> = t
                .field_names
                .iter()
                .enumerate()
                .map(|(i, n)| format!("{n}:{}", child(i)))
                .collect();
            format!("struct<{}>", parts.join(","))
        }
    }
}
