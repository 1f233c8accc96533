//! The embedded CUDA sources. Entry points are `extern "C"` and named `<codec>_<op>_<type>`.

use super::compile::KernelSource;

pub const SCAN: KernelSource = KernelSource {
    name: "scan",
    text: include_str!("../kernels/scan.cu"),
};

pub const RLE: KernelSource = KernelSource {
    name: "rle",
    text: include_str!("../kernels/rle.cu"),
};

pub const COMPACT: KernelSource = KernelSource {
    name: "compact",
    text: include_str!("../kernels/compact.cu"),
};
