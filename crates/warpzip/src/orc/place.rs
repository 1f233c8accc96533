//! Where in an ORC file something was found wrong: the stripe, column, stream and row group that
//! an `Error::CorruptOrc` names. Every layer of the reader builds its errors from a `Place`, so
//! that a damaged file's error says where the damage lies in the same words everywhere.

use crate::error::{Error, OrcCorruption};

/// A place in an ORC file, filled in as far as it is known.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    stripe: Option<usize>,
    column: Option<(u32, String)>,
    stream: Option<String>,
    row_group: Option<usize>,
}

impl Place {
    /// The file as a whole (its tail, its schema).
    pub fn file() -> Place {
        Place::default()
    }

    /// Stripe `index`.
    pub fn stripe(index: usize) -> Place {
        Place {
            stripe: Some(index),
            ..Place::default()
        }
    }

    /// This place, in the column with schema id `id` named `name` (empty where only the id is
    /// known).
    pub fn column(mut self, id: u32, name: &str) -> Place {
        self.column = Some((id, name.to_string()));
        self
    }

    /// This place, in the named stream (`PRESENT`, `DATA`, `ROW_INDEX`): `kind` is the stream's
    /// kind as the specification spells it.
    pub fn stream(mut self, kind: &str) -> Place {
        self.stream = Some(format!("{kind} stream"));
        self
    }

    /// This place, in a part of the file that is not a column's stream (`footer`,
    /// `stripe footer`).
    pub fn part(mut self, part: &str) -> Place {
        self.stream = Some(part.to_string());
        self
    }

    /// This place, in row group `index` of the stripe.
    pub fn row_group(mut self, index: usize) -> Place {
        self.row_group = Some(index);
        self
    }

    /// The error for damage found here.
    pub fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::CorruptOrc(Box::new(OrcCorruption {
            stripe: self.stripe,
            column: self.column.clone(),
            stream: self.stream.clone(),
            row_group: self.row_group,
            reason: reason.into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_every_known_place() {
        let e = Place::stripe(3)
            .column(2, "l_quantity")
            .stream("DATA")
            .row_group(4)
            .corrupt("the stream ends early");
        assert_eq!(
            e.to_string(),
            "corrupt ORC file: stripe 3, column 2 (l_quantity), DATA stream, row group 4: the \
             stream ends early"
        );
        assert_eq!(
            Place::file().part("footer").corrupt("x").to_string(),
            "corrupt ORC file: footer: x"
        );
        assert_eq!(
            Place::stripe(1)
                .column(3, "")
                .stream("PRESENT")
                .corrupt("x")
                .to_string(),
            "corrupt ORC file: stripe 1, column 3, PRESENT stream: x"
        );
        assert_eq!(
            Place::file().corrupt("no schema").to_string(),
            "corrupt ORC file: no schema"
        );
    }
}
