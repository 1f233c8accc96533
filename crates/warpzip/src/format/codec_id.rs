//! The codec ids a `.wz` header can name. The container layer knows a codec only by its id and
//! its name; what the codec does lives behind the `Codec` trait in `codec/`.

use crate::error::{Error, Result};

/// Declares `CodecId` from one table, so that an id, its variant and its name are written once.
macro_rules! codec_ids {
    ($( $(#[$doc:meta])* $variant:ident = $id:literal, $name:literal; )+) => {
        /// The codecs a `.wz` container can hold. The numeric value is what the header stores.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum CodecId {
            $( $(#[$doc])* $variant = $id, )+
        }

        impl CodecId {
            /// Every codec, in id order.
            pub const ALL: &'static [CodecId] = &[$(CodecId::$variant),+];

            /// The codec for a header id.
            pub fn from_u16(id: u16) -> Result<CodecId> {
                match id {
                    $( $id => Ok(CodecId::$variant), )+
                    other => Err(Error::Unsupported(format!("unknown codec id {other}"))),
                }
            }

            /// The name used on the command line and in tables.
            pub fn name(self) -> &'static str {
                match self {
                    $( CodecId::$variant => $name, )+
                }
            }
        }
    };
}

codec_ids! {
    /// Byte run-length encoding (`codec::rle`).
    Rle = 1, "rle";
    /// Apache ORC Integer RLE version 1 over typed integers (`codec::orc_rle`).
    OrcRleV1 = 2, "orc-rle-v1";
    /// Apache ORC Integer RLE version 2 over typed integers (`codec::orc_rle`).
    OrcRleV2 = 3, "orc-rle-v2";
    /// Deflate (RFC 1951): each chunk one raw Deflate stream (`codec::deflate`).
    Deflate = 4, "deflate";
    /// Tile-based frame of reference over 32/64-bit integers (`codec::tile`).
    For = 5, "for";
    /// Tile-based deltas, then frame of reference (`codec::tile`).
    Dfor = 6, "dfor";
    /// Tile-based runs, values and lengths each frame of reference (`codec::tile`).
    Rfor = 7, "rfor";
    /// Each tile in FOR, DFOR or RFOR, whichever is smallest (`codec::tile`).
    Tile = 8, "tile";
    /// Error-bounded lossy compression of f32/f64 fields after cuSZ (`codec::sz`).
    Sz = 9, "sz";
    /// Snappy: each chunk one raw Snappy block (`codec::lz`).
    Snappy = 10, "snappy";
    /// LZ4: each chunk one raw LZ4 block (`codec::lz`).
    Lz4 = 11, "lz4";
}

impl CodecId {
    /// The id stored in the container header.
    pub fn to_u16(self) -> u16 {
        self as u16
    }

    /// Looks a codec up by its command-line name.
    pub fn from_name(name: &str) -> Result<CodecId> {
        CodecId::ALL
            .iter()
            .copied()
            .find(|c| c.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = CodecId::ALL.iter().map(|c| c.name()).collect();
                Error::InvalidArgument(format!(
                    "unknown codec '{name}' (known: {})",
                    known.join(", ")
                ))
            })
    }
}

impl std::fmt::Display for CodecId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_names_round_trip() {
        for &codec in CodecId::ALL {
            assert_eq!(CodecId::from_u16(codec.to_u16()).ok(), Some(codec));
            assert_eq!(CodecId::from_name(codec.name()).ok(), Some(codec));
        }
        assert!(CodecId::from_u16(0).is_err());
        assert!(CodecId::from_name("zzz").is_err());
    }
}
