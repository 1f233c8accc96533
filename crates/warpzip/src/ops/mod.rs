//! Device-wide primitives shared by codecs: scan (exclusive prefix sum).

pub mod scan;
