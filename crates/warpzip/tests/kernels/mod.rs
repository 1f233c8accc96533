//! Kernels that only tests compile (through the library's compile entry), kept out of the
//! library's embedded set.
#![allow(dead_code)]

use warpzip::gpu::compile::KernelSource;

/// A toy codec that calls every part of the CODAG framework (`codag_test.cu`).
pub const CODAG_TEST: KernelSource = KernelSource {
    name: "codag_test",
    text: include_str!("codag_test.cu"),
    defines: &[],
    entries: &["codag_ops_smem", "codag_ops_reg", "codag_ops_ring"],
};

/// Every test-only kernel module, for the compile test.
pub const TEST_SOURCES: &[KernelSource] = &[CODAG_TEST];
