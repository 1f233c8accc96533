//! Helpers shared by the library's integration tests: the GPU under test and the shared data
//! folder. Both fail the test, never skip it, when what they look for is missing.
#![allow(dead_code, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;
use warpzip::gpu::GpuContext;

/// GPU 0, or a failed test saying why it cannot be used.
pub fn gpu() -> Arc<GpuContext> {
    GpuContext::open(0).unwrap_or_else(|e| panic!("this test needs a CUDA GPU: {e}"))
}

/// The shared test data (`../shared/data`): `$WARPZIP_REPO_ROOT/.gpu/data` on the GPU machine,
/// `$WARPZIP_REPO_ROOT/../shared/data`, or beside the repository.
pub fn shared_data() -> PathBuf {
    let mut tried = Vec::new();
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        let root = PathBuf::from(root);
        tried.push(root.join(".gpu/data"));
        tried.push(root.join("../shared/data"));
    }
    tried.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/data"
    )));
    match tried.iter().find(|p| p.join("corpora").is_dir()) {
        Some(dir) => dir.clone(),
        None => panic!(
            "shared test data not found (set WARPZIP_REPO_ROOT); tried: {}",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
