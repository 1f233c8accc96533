//! The leader-thread ablation: ORC RLE decoded a thread block per chunk, one leader thread
//! parsing each group while the block writes its values (`kernels/orc_rle_leader.cu`). It is
//! what the CODAG warp per chunk is measured against, so it lives with the benchmarks, not in
//! the library; it runs on the library's chunk batch through `DecodeBatch::launch_kernel`.

use warpzip::codec::orc_rle::gpu::{kernel_name, DecodeBatch, Parallelism, StreamCodec};
use warpzip::error::Result;
use warpzip::format::ElemType;
use warpzip::gpu::compile::KernelSource;
use warpzip::gpu::{CudaStream, GpuContext};

/// The entry points, `orc_rle_v{1,2}_leader_<type>` for every integer type.
macro_rules! leader_entries {
    ($($version:literal),+) => {
        &[$(
            concat!("orc_rle_", $version, "_leader_i8"),
            concat!("orc_rle_", $version, "_leader_i16"),
            concat!("orc_rle_", $version, "_leader_i32"),
            concat!("orc_rle_", $version, "_leader_i64"),
            concat!("orc_rle_", $version, "_leader_u8"),
            concat!("orc_rle_", $version, "_leader_u16"),
            concat!("orc_rle_", $version, "_leader_u32"),
            concat!("orc_rle_", $version, "_leader_u64"),
        )+]
    };
}

/// The block-per-chunk leader-thread decoders.
pub const ORC_RLE_LEADER: KernelSource = KernelSource {
    name: "orc_rle_leader",
    text: include_str!("../kernels/orc_rle_leader.cu"),
    defines: &[],
    entries: leader_entries!["v1", "v2"],
};

/// Queues `batch` on `gpu`'s default stream with `par`: the library's decoders, or the
/// ablation's for [`Parallelism::LeaderPerBlock`].
pub fn launch(
    gpu: &GpuContext,
    stream: &std::sync::Arc<CudaStream>,
    batch: &mut DecodeBatch,
    codec: StreamCodec,
    elem: ElemType,
    par: Parallelism,
) -> Result<()> {
    match par {
        Parallelism::LeaderPerBlock => {
            let name = kernel_name(codec, elem, par)?;
            batch.launch_kernel(gpu, stream, &ORC_RLE_LEADER, &name, par)
        }
        _ => batch.launch(gpu, stream, codec, elem, par),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_leader_kernel_name_is_an_entry() {
        for version in [
            warpzip::codec::orc_rle::format::RleVersion::V1,
            warpzip::codec::orc_rle::format::RleVersion::V2,
        ] {
            for &elem in ElemType::ALL {
                if let Ok(name) =
                    kernel_name(StreamCodec::Int(version), elem, Parallelism::LeaderPerBlock)
                {
                    assert!(ORC_RLE_LEADER.entries.contains(&name.as_str()), "{name}");
                }
            }
        }
        assert_eq!(ORC_RLE_LEADER.entries.len(), 16);
    }
}
