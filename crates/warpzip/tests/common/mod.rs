//! Helpers shared by the library's integration tests: the GPU under test and the repository's
//! test data folder. Both fail the test, never skip it, when what they look for is missing.
#![allow(dead_code, clippy::panic)]

pub mod require_gpu;
pub mod tile_damage;

use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
};
use std::path::PathBuf;
use std::sync::Arc;
use warpzip::gpu::GpuContext;

/// GPU 0, or a failed test saying why it cannot be used.
pub fn gpu() -> Arc<GpuContext> {
    GpuContext::open(0).unwrap_or_else(|e| panic!("this test needs a CUDA GPU: {e}"))
}

/// The repository's test data folder (`testdata/`): `$WARPZIP_REPO_ROOT/testdata` when that
/// variable is set (the GPU machine's copy of the repository), else the one two levels above
/// this crate.
pub fn testdata() -> PathBuf {
    let mut tried = Vec::new();
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        tried.push(PathBuf::from(root).join("testdata"));
    }
    tried.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata"
    )));
    match tried.iter().find(|p| p.is_dir()) {
        Some(dir) => dir.clone(),
        None => panic!("the repository's testdata/ folder is missing; tried: {tried:?}"),
    }
}

/// An Arrow array of a supported type as one `Option<i64>` per row (booleans as 0/1).
pub fn as_i64s(array: &ArrayRef) -> Vec<Option<i64>> {
    let any = array.as_any();
    let n = array.len();
    let get = |i: usize| -> Option<i64> {
        if array.is_null(i) {
            return None;
        }
        Some(if let Some(a) = any.downcast_ref::<BooleanArray>() {
            i64::from(a.value(i))
        } else if let Some(a) = any.downcast_ref::<Int8Array>() {
            i64::from(a.value(i))
        } else if let Some(a) = any.downcast_ref::<Int16Array>() {
            i64::from(a.value(i))
        } else if let Some(a) = any.downcast_ref::<Int32Array>() {
            i64::from(a.value(i))
        } else if let Some(a) = any.downcast_ref::<Int64Array>() {
            a.value(i)
        } else if let Some(a) = any.downcast_ref::<Date32Array>() {
            i64::from(a.value(i))
        } else {
            panic!("unexpected array type {:?}", array.data_type())
        })
    };
    (0..n).map(get).collect()
}
