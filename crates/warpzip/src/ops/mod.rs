//! Device-wide primitives shared by codecs: scan (exclusive prefix sum), compact (stream
//! compaction by a mask).

pub mod compact;
pub mod scan;
