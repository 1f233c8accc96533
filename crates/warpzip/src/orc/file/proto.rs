//! ORC's protobuf messages (`orc_proto.proto` of the ORC specification), written out by hand with
//! prost's derive so that the build needs no `protoc`. Only the messages the reader uses are
//! here; fields left out (statistics, bloom filters, encryption) are skipped by the decoder as
//! unknown fields. Field numbers and types are the specification's.

/// The file's last message, stored uncompressed: how to find and read the footer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PostScript {
    #[prost(uint64, optional, tag = "1")]
    pub footer_length: Option<u64>,
    #[prost(enumeration = "CompressionKind", optional, tag = "2")]
    pub compression: Option<i32>,
    #[prost(uint64, optional, tag = "3")]
    pub compression_block_size: Option<u64>,
    /// The file format version: `[0, 11]` (Hive 0.11) or `[0, 12]` (Hive 0.12 and later).
    #[prost(uint32, repeated, packed = "true", tag = "4")]
    pub version: Vec<u32>,
    #[prost(uint64, optional, tag = "5")]
    pub metadata_length: Option<u64>,
    #[prost(uint32, optional, tag = "6")]
    pub writer_version: Option<u32>,
    #[prost(uint64, optional, tag = "7")]
    pub stripe_statistics_length: Option<u64>,
    #[prost(string, optional, tag = "8000")]
    pub magic: Option<String>,
}

/// How the footer, metadata and every stream are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum CompressionKind {
    None = 0,
    Zlib = 1,
    Snappy = 2,
    Lzo = 3,
    Lz4 = 4,
    Zstd = 5,
    Brotli = 6,
}

/// The file footer: schema, stripes, row count.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Footer {
    #[prost(uint64, optional, tag = "1")]
    pub header_length: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub content_length: Option<u64>,
    #[prost(message, repeated, tag = "3")]
    pub stripes: Vec<StripeInformation>,
    /// The schema, flattened in pre-order: type 0 is the root (a struct).
    #[prost(message, repeated, tag = "4")]
    pub types: Vec<Type>,
    #[prost(message, repeated, tag = "5")]
    pub metadata: Vec<UserMetadataItem>,
    #[prost(uint64, optional, tag = "6")]
    pub number_of_rows: Option<u64>,
    #[prost(uint32, optional, tag = "8")]
    pub row_index_stride: Option<u32>,
    #[prost(uint32, optional, tag = "9")]
    pub writer: Option<u32>,
}

/// One node of the schema tree.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Type {
    #[prost(enumeration = "TypeKind", optional, tag = "1")]
    pub kind: Option<i32>,
    #[prost(uint32, repeated, packed = "true", tag = "2")]
    pub subtypes: Vec<u32>,
    #[prost(string, repeated, tag = "3")]
    pub field_names: Vec<String>,
    #[prost(uint32, optional, tag = "4")]
    pub maximum_length: Option<u32>,
    #[prost(uint32, optional, tag = "5")]
    pub precision: Option<u32>,
    #[prost(uint32, optional, tag = "6")]
    pub scale: Option<u32>,
}

/// The kind of a schema node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum TypeKind {
    Boolean = 0,
    Byte = 1,
    Short = 2,
    Int = 3,
    Long = 4,
    Float = 5,
    Double = 6,
    String = 7,
    Binary = 8,
    Timestamp = 9,
    List = 10,
    Map = 11,
    Struct = 12,
    Union = 13,
    Decimal = 14,
    Date = 15,
    Varchar = 16,
    Char = 17,
    TimestampInstant = 18,
}

/// Where a stripe lies in the file and how many rows it holds.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StripeInformation {
    #[prost(uint64, optional, tag = "1")]
    pub offset: Option<u64>,
    #[prost(uint64, optional, tag = "2")]
    pub index_length: Option<u64>,
    #[prost(uint64, optional, tag = "3")]
    pub data_length: Option<u64>,
    #[prost(uint64, optional, tag = "4")]
    pub footer_length: Option<u64>,
    #[prost(uint64, optional, tag = "5")]
    pub number_of_rows: Option<u64>,
}

/// A user's key/value pair in the footer.
#[derive(Clone, PartialEq, prost::Message)]
pub struct UserMetadataItem {
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub value: Option<Vec<u8>>,
}

/// A stripe's footer: its streams, in file order, and each column's encoding.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StripeFooter {
    #[prost(message, repeated, tag = "1")]
    pub streams: Vec<Stream>,
    #[prost(message, repeated, tag = "2")]
    pub columns: Vec<ColumnEncoding>,
    #[prost(string, optional, tag = "3")]
    pub writer_timezone: Option<String>,
}

/// One stream of a stripe; streams follow each other in the order the footer lists them.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Stream {
    #[prost(enumeration = "StreamKind", optional, tag = "1")]
    pub kind: Option<i32>,
    #[prost(uint32, optional, tag = "2")]
    pub column: Option<u32>,
    #[prost(uint64, optional, tag = "3")]
    pub length: Option<u64>,
}

/// What a stream holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum StreamKind {
    Present = 0,
    Data = 1,
    Length = 2,
    DictionaryData = 3,
    DictionaryCount = 4,
    Secondary = 5,
    RowIndex = 6,
    BloomFilter = 7,
    BloomFilterUtf8 = 8,
    EncryptedIndex = 9,
    EncryptedData = 10,
    StripeStatistics = 100,
    FileStatistics = 101,
}

/// How a column's streams are encoded in one stripe.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ColumnEncoding {
    #[prost(enumeration = "ColumnEncodingKind", optional, tag = "1")]
    pub kind: Option<i32>,
    #[prost(uint32, optional, tag = "2")]
    pub dictionary_size: Option<u32>,
    #[prost(uint32, optional, tag = "3")]
    pub bloom_encoding: Option<u32>,
}

/// A column encoding: `Direct` uses integer RLE v1, `DirectV2` integer RLE v2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
#[repr(i32)]
pub enum ColumnEncodingKind {
    Direct = 0,
    Dictionary = 1,
    DirectV2 = 2,
    DictionaryV2 = 3,
    Decimal64 = 4,
}

/// A column's row index in one stripe: one entry per row group (`row_index_stride` rows).
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowIndex {
    #[prost(message, repeated, tag = "1")]
    pub entry: Vec<RowIndexEntry>,
}

/// Where a row group starts in each of the column's streams: for every stream in order, the
/// (decompressed-chunk start, offset in the chunk when compressed) and the run positions.
/// The entry's statistics (tag 2) are not read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RowIndexEntry {
    #[prost(uint64, repeated, packed = "true", tag = "1")]
    pub positions: Vec<u64>,
}

impl CompressionKind {
    /// The name the specification gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            CompressionKind::None => "NONE",
            CompressionKind::Zlib => "ZLIB",
            CompressionKind::Snappy => "SNAPPY",
            CompressionKind::Lzo => "LZO",
            CompressionKind::Lz4 => "LZ4",
            CompressionKind::Zstd => "ZSTD",
            CompressionKind::Brotli => "BROTLI",
        }
    }
}

impl StreamKind {
    /// The name the specification gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Present => "PRESENT",
            StreamKind::Data => "DATA",
            StreamKind::Length => "LENGTH",
            StreamKind::DictionaryData => "DICTIONARY_DATA",
            StreamKind::DictionaryCount => "DICTIONARY_COUNT",
            StreamKind::Secondary => "SECONDARY",
            StreamKind::RowIndex => "ROW_INDEX",
            StreamKind::BloomFilter => "BLOOM_FILTER",
            StreamKind::BloomFilterUtf8 => "BLOOM_FILTER_UTF8",
            StreamKind::EncryptedIndex => "ENCRYPTED_INDEX",
            StreamKind::EncryptedData => "ENCRYPTED_DATA",
            StreamKind::StripeStatistics => "STRIPE_STATISTICS",
            StreamKind::FileStatistics => "FILE_STATISTICS",
        }
    }
}

impl ColumnEncodingKind {
    /// The name the specification gives the kind.
    pub fn name(self) -> &'static str {
        match self {
            ColumnEncodingKind::Direct => "DIRECT",
            ColumnEncodingKind::Dictionary => "DICTIONARY",
            ColumnEncodingKind::DirectV2 => "DIRECT_V2",
            ColumnEncodingKind::DictionaryV2 => "DICTIONARY_V2",
            ColumnEncodingKind::Decimal64 => "DECIMAL_64",
        }
    }
}
