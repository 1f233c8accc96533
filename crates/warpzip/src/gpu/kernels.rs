//! The embedded CUDA sources. Entry points are `extern "C"` and named `<codec>_<op>_<type>`.

use super::compile::KernelSource;

pub const SCAN: KernelSource = KernelSource {
    name: "scan",
    text: include_str!("../kernels/ops/scan.cu"),
};

pub const RLE: KernelSource = KernelSource {
    name: "rle",
    text: include_str!("../kernels/rle/rle.cu"),
};

pub const COMPACT: KernelSource = KernelSource {
    name: "compact",
    text: include_str!("../kernels/ops/compact.cu"),
};

pub const ORC_RLE: KernelSource = KernelSource {
    name: "orc_rle",
    text: include_str!("../kernels/orc/orc_rle.cu"),
};

/// `orc_rle.cu`'s RLEv2 block-per-row-group kernels alone, built for 6 blocks an SM (`orc_rg6_*`).
pub const ORC_RLE_RG6: KernelSource = KernelSource {
    name: "orc_rle_rg6",
    text: include_str!("../kernels/orc/orc_rle_rg6.cu"),
};

pub const ORC_RLE_LEADER: KernelSource = KernelSource {
    name: "orc_rle_leader",
    text: include_str!("../kernels/orc/orc_rle_leader.cu"),
};

pub const ORC_RLE_LANES: KernelSource = KernelSource {
    name: "orc_rle_lanes",
    text: include_str!("../kernels/orc/orc_rle_lanes.cu"),
};

pub const ORC_RLE_EXPAND: KernelSource = KernelSource {
    name: "orc_rle_expand",
    text: include_str!("../kernels/orc/orc_rle_expand.cu"),
};

pub const ORC_RLE_LOCKSTEP: KernelSource = KernelSource {
    name: "orc_rle_lockstep",
    text: include_str!("../kernels/orc/orc_rle_lockstep.cu"),
};

pub const INFLATE: KernelSource = KernelSource {
    name: "inflate",
    text: include_str!("../kernels/deflate/inflate.cu"),
};

pub const INFLATE_PAIR: KernelSource = KernelSource {
    name: "inflate_pair",
    text: include_str!("../kernels/deflate/inflate_pair.cu"),
};
