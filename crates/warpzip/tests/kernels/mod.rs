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

/// The leader-thread ablation decoders, which live with the benchmarks
/// (`crates/warpzip-bench/kernels/orc_rle_leader.cu`): the tests compare them with the CPU too.
pub const ORC_RLE_LEADER: KernelSource = KernelSource {
    name: "orc_rle_leader",
    text: include_str!("../../../warpzip-bench/kernels/orc_rle_leader.cu"),
    defines: &[],
    entries: &[
        "orc_rle_v1_leader_i8",
        "orc_rle_v1_leader_i16",
        "orc_rle_v1_leader_i32",
        "orc_rle_v1_leader_i64",
        "orc_rle_v1_leader_u8",
        "orc_rle_v1_leader_u16",
        "orc_rle_v1_leader_u32",
        "orc_rle_v1_leader_u64",
        "orc_rle_v2_leader_i8",
        "orc_rle_v2_leader_i16",
        "orc_rle_v2_leader_i32",
        "orc_rle_v2_leader_i64",
        "orc_rle_v2_leader_u8",
        "orc_rle_v2_leader_u16",
        "orc_rle_v2_leader_u32",
        "orc_rle_v2_leader_u64",
    ],
};

/// Every test-only kernel module, for the compile test.
pub const TEST_SOURCES: &[KernelSource] = &[CODAG_TEST, ORC_RLE_LEADER];
