//! Launches of the ORC column kernels (`kernels/orc/orc_*.cuh`, on the CODAG framework) over a
//! prepared column on the device. Integer columns give each row group a block (`orc_rg_*`,
//! `GroupMode::Block`): its DATA bytes staged in shared memory and cut at RLE group boundaries
//! into units for the block's warps, or decoded in byte ranges a thread each where its groups are
//! short and small (docs/orc.md). Boolean and tinyint columns, and `GroupMode::Warp`, give each
//! row group one warp (`orc_col_*`). Either way the PRESENT bits are decoded, the non-null rows
//! counted, that many values decoded from the DATA position and spread over the rows.

use super::layout::{too_big, OrcGroup, PreparedColumn, RG_STAGE_MAX};
use crate::codec::orc_rle::gpu::padded;
use crate::error::{try_filled, ChunkStatus, Error, Result};
use crate::gpu::compile::KernelSource;
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaStream};
use std::sync::Arc;

/// Warps per block of the warp-per-row-group kernels; `ORC_WARPS` in orc_rle.cu.
const WARPS: u32 = crate::codec::orc_rle::gpu::WARPS;
/// Resident blocks per SM asked for by the persistent grid.
const BLOCKS_PER_SM: u32 = 8;

/// How the row groups of RLE v1 / v2 integer columns are spread over the GPU (Boolean and
/// Byte RLE columns always take a warp per row group).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupMode {
    /// One warp per row group (`orc_col_*`).
    Warp,
    /// One block per row group (`orc_rg_*`): the group's DATA bytes staged in shared memory,
    /// cut at RLE group boundaries into units that the block's warps decode at once.
    #[default]
    Block,
}

/// Warps per block of the block-per-row-group kernels (`orc_rg_*`; `ORC_RG_WARPS` in
/// kernels/orc/orc_rg_stage.cuh).
const RG_WARPS: u32 = 4;
/// Resident blocks per SM asked for by their persistent grid.
const RG_BLOCKS_PER_SM: u32 = 8;

/// The block-per-row-group kernel standing in for a warp-per-row-group one, and whether it
/// stages RLEv1 (masks of varint ends after the stage).
fn block_kernel(kernel: &str) -> Option<(&'static str, bool)> {
    Some(match kernel {
        "orc_col_v1_i16" => ("orc_rg_v1_i16", true),
        "orc_col_v1_i32" => ("orc_rg_v1_i32", true),
        "orc_col_v1_i64" => ("orc_rg_v1_i64", true),
        "orc_col_v2_i16" => ("orc_rg_v2_i16", false),
        "orc_col_v2_i32" => ("orc_rg_v2_i32", false),
        "orc_col_v2_i64" => ("orc_rg_v2_i64", false),
        _ => return None,
    })
}

/// The same block kernel compiled for 6 blocks an SM (80 registers) rather than 5 (96): for
/// batches of more row groups than one wave, where the SMs' throughput rather than each row
/// group's own time sets the column's (docs/orc.md). RLEv2 only: RLEv1 gained nothing
/// from it at TPC-H SF 12 but its quantities, and its keys lost 5% at SF 2.
fn block_kernel_6(name: &str) -> Option<&'static str> {
    Some(match name {
        "orc_rg_v2_i16" => "orc_rg6_v2_i16",
        "orc_rg_v2_i32" => "orc_rg6_v2_i32",
        "orc_rg_v2_i64" => "orc_rg6_v2_i64",
        _ => return None,
    })
}

/// Diagnostics (host side): always the 6-block kernels, or never.
const RG_FLAG_ALWAYS_6: u32 = 4096;
const RG_FLAG_NEVER_6: u32 = 8192;

/// Which of a batch's two block kernels to launch for `n` row groups: the 6-block one where
/// the 5-block one would need more than one wave and the 6-block one holds more blocks an SM
/// (a large stage can leave both at the same count).
fn choose_block_function(
    gpu: &GpuContext,
    name: &'static str,
    stage: u32,
    v1: bool,
    n: u32,
    flags: u32,
) -> Result<(CudaFunction, u32, u32)> {
    let (five, shared) = block_function(gpu, &kernels::ORC_RLE, name, stage, v1)?;
    let blocks = |f: &CudaFunction| -> Result<u32> {
        Ok(f.occupancy_max_active_blocks_per_multiprocessor(RG_WARPS * 32, shared as usize, None)?)
    };
    let five_blocks = blocks(&five)?;
    let Some(name6) = block_kernel_6(name) else {
        return Ok((five, shared, five_blocks));
    };
    if flags & RG_FLAG_NEVER_6 != 0 {
        return Ok((five, shared, five_blocks));
    }
    let one_wave = u64::from(n) <= u64::from(gpu.sm_count()) * u64::from(five_blocks);
    if one_wave && flags & RG_FLAG_ALWAYS_6 == 0 {
        return Ok((five, shared, five_blocks));
    }
    // (A module of its own: compiled the first time a batch needs it.)
    let (six, _) = block_function(gpu, &kernels::ORC_RLE_RG6, name6, stage, v1)?;
    let six_blocks = blocks(&six)?;
    if six_blocks > five_blocks || flags & RG_FLAG_ALWAYS_6 != 0 {
        Ok((six, shared, six_blocks))
    } else {
        Ok((five, shared, five_blocks))
    }
}

/// Diagnostics for benchmarks and tests, from `WARPZIP_ORC_RG_FLAGS` (a number; 0 when unset),
/// read when a column is put on the device: 8 skips the thread regions and the RLEv1 split
/// groups (units only), 16 tries the regions on every row group, 4 finds their entries by the
/// tables only (never the rounds), 64 skips the split groups, 128 has RLEv2 regions decode
/// without their list of groups, 256 has the units' warps read global memory rather than the
/// stage, 512 never sizes RLEv1 groups by their varints' expected lengths and 2048 never by a
/// range of lengths, and 1024 (for tests) reports a row group whose regions so sized fail as
/// corrupt rather than trying them again, sized varint by varint; 4096 always launches the RLEv2
/// 6-block kernels and 8192 never (by default, batches of more than one wave take them); bits
/// 16-23, where not 0, replace the 96 bytes within which a row group's first 8 groups must lie
/// for the thread regions to be tried. Results with 0, 4, 8, 16, 20, 64, 256, 512 and 2048
/// have equalled the CPU's on every file of `gpu_orc_files`. Read only in a build with the
/// `diagnostics` feature; the product always takes its own paths (0).
#[cfg(feature = "diagnostics")]
pub(super) fn diagnostic_flags() -> u32 {
    std::env::var("WARPZIP_ORC_RG_FLAGS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The kernels' own paths: without the `diagnostics` feature no switch is read.
#[cfg(not(feature = "diagnostics"))]
pub(super) fn diagnostic_flags() -> u32 {
    0
}

/// Most dynamic shared memory a block kernel's batch may use for the thread regions' marks:
/// with the kernel's 8.3 KiB of static shared memory, 5 blocks of 128 threads still fit an SM
/// of 228 KiB.
const RG_MARKS_MAX_DYNAMIC: u32 = 35 * 1024;
/// The flag that tells a block kernel its dynamic shared memory holds the regions' marks
/// (`RG_FLAG_MARKS` in kernels/orc/orc_rg_regions.cuh).
const RG_FLAG_MARKS: u32 = 32;

/// RLEv1's masks after the stage: a 16-bit mask per 16 bytes of it plus 128 more (the walk reads
/// 64-byte words of masks, up to one past the stage's last).
fn masks_bytes(stage: u32, v1: bool) -> u32 {
    if v1 {
        (2 * (stage / 16 + 128)).next_multiple_of(16)
    } else {
        0
    }
}

/// Whether a batch with this stage gets the thread regions' marks (4 bits a stage byte, after
/// the masks): only where they leave 5 blocks an SM.
fn has_marks(stage: u32, v1: bool) -> bool {
    stage + masks_bytes(stage, v1) + stage / 2 <= RG_MARKS_MAX_DYNAMIC
}

/// Dynamic shared memory of a block kernel with a stage of `stage` bytes: the stage, RLEv1's
/// masks, and where they fit, the regions' marks.
fn block_shared_bytes(stage: u32, v1: bool) -> u32 {
    let marks = if has_marks(stage, v1) { stage / 2 } else { 0 };
    stage + masks_bytes(stage, v1) + marks
}

/// The block kernel `name` for a batch with this stage, allowed the dynamic shared memory it
/// needs (past 48 KiB in all, a launch must ask for it), and that many bytes.
fn block_function(
    gpu: &GpuContext,
    source: &KernelSource,
    name: &str,
    stage: u32,
    v1: bool,
) -> Result<(CudaFunction, u32)> {
    let function = gpu.function(source, name)?;
    let shared = block_shared_bytes(stage, v1);
    function.set_attribute(
        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
        shared as i32,
    )?;
    Ok((function, shared))
}

/// A prepared column on the device, ready to be decoded (again and again, for benchmarks).
pub struct DeviceColumn {
    /// The decompressed streams (possibly shared with other columns of the same file).
    input: Arc<CudaSlice<u8>>,
    batches: Vec<(&'static str, CudaSlice<OrcGroup>, u32)>,
    pub values: CudaSlice<u8>,
    pub valid: CudaSlice<u8>,
    scratch: CudaSlice<u8>,
    status: Vec<CudaSlice<u32>>,
    counter: CudaSlice<u32>,
    /// Per batch: the block kernel's stage in bytes.
    stages: Vec<u32>,
    /// How the integer columns' row groups are spread over the GPU.
    pub mode: GroupMode,
    /// `diagnostic_flags()`, passed to the block kernels.
    pub(super) flags: u32,
}

impl DeviceColumn {
    /// Uploads a prepared column and allocates its outputs.
    pub fn upload(gpu: &GpuContext, p: &PreparedColumn) -> Result<DeviceColumn> {
        let input = gpu.upload_for(&padded(&p.input)?, "an ORC column's streams")?;
        DeviceColumn::with_input(gpu, p, Arc::new(input))
    }

    /// A prepared column whose decompressed streams are already on the device in `input`
    /// (`p.input_len` bytes, the allocation padded to a multiple of 128).
    pub fn with_input(
        gpu: &GpuContext,
        p: &PreparedColumn,
        input: Arc<CudaSlice<u8>>,
    ) -> Result<DeviceColumn> {
        if (input.len() as u64) < p.input_len || !input.len().is_multiple_of(128) {
            return Err(Error::InvalidArgument(format!(
                "device input of {} bytes for {} bytes of streams (must be padded to 128)",
                input.len(),
                p.input_len
            )));
        }
        let rows = usize::try_from(p.rows).map_err(|_| too_big("the column"))?;
        let mut batches = Vec::new();
        let mut status = Vec::new();
        for (kernel, groups) in &p.batches {
            let n = u32::try_from(groups.len()).map_err(|_| too_big("the row group list"))?;
            batches.push((*kernel, gpu.upload_for(groups, "an ORC row group list")?, n));
            status.push(gpu.alloc_zeros_for::<u32>(groups.len().max(1), "an ORC row group status")?);
        }
        let scratch_len = usize::try_from(p.scratch_len).map_err(|_| too_big("scratch"))?;
        Ok(DeviceColumn {
            input,
            batches,
            values: gpu.alloc_zeros_for(
                rows.saturating_mul(p.width).div_ceil(8).saturating_mul(8),
                "an ORC column's values",
            )?,
            valid: gpu.alloc_zeros_for(rows.max(1), "an ORC column's validity")?,
            scratch: gpu.alloc_zeros_for(scratch_len.max(8), "an ORC column's scratch")?,
            status,
            counter: gpu.alloc_zeros(1)?,
            stages: p.stages.clone(),
            mode: GroupMode::default(),
            flags: diagnostic_flags(),
        })
    }

    /// Overwrites the values and the validity bytes with `byte` (tests poison them before the
    /// kernels run; the product's outputs start zeroed).
    pub fn poison_outputs(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        let stream = gpu.stream();
        let what = "the poison for an ORC column";
        stream.memcpy_htod(&try_filled(byte, self.values.len(), what)?, &mut self.values)?;
        stream.memcpy_htod(&try_filled(byte, self.valid.len(), what)?, &mut self.valid)?;
        Ok(())
    }

    /// Queues the decode of every row group on `stream`.
    pub fn launch(&mut self, gpu: &GpuContext, stream: &Arc<CudaStream>) -> Result<()> {
        for (b, ((kernel, groups, n), status)) in
            self.batches.iter().zip(self.status.iter_mut()).enumerate()
        {
            if *n == 0 {
                continue;
            }
            let block = match self.mode {
                GroupMode::Block => block_kernel(kernel),
                GroupMode::Warp => None,
            };
            let stage = self.stages.get(b).copied().unwrap_or(RG_STAGE_MAX);
            let (function, cfg) = match block {
                Some((name, v1)) => {
                    let (function, shared, _) =
                        choose_block_function(gpu, name, stage, v1, *n, self.flags)?;
                    let cfg = LaunchConfig {
                        grid_dim: ((*n).min(gpu.sm_count() * RG_BLOCKS_PER_SM).max(1), 1, 1),
                        block_dim: (RG_WARPS * 32, 1, 1),
                        shared_mem_bytes: shared,
                    };
                    (function, cfg)
                }
                None => {
                    let cfg = LaunchConfig {
                        grid_dim: (
                            n.div_ceil(WARPS).min(gpu.sm_count() * BLOCKS_PER_SM).max(1),
                            1,
                            1,
                        ),
                        block_dim: (WARPS * 32, 1, 1),
                        shared_mem_bytes: 0,
                    };
                    (gpu.function(&kernels::ORC_RLE, kernel)?, cfg)
                }
            };
            stream.memset_zeros(&mut self.counter)?;
            let mut launch = stream.launch_builder(&function);
            launch
                .arg(self.input.as_ref())
                .arg(groups)
                .arg(n)
                .arg(&mut self.values)
                .arg(&mut self.valid)
                .arg(&mut self.scratch)
                .arg(status)
                .arg(&mut self.counter);
            let flags = match block {
                Some((_, v1)) if has_marks(stage, v1) => self.flags | RG_FLAG_MARKS,
                _ => self.flags,
            };
            if block.is_some() {
                launch.arg(&stage);
                launch.arg(&flags);
            }
            // SAFETY: the arguments match ORC_COLUMN_PARAMS (ORC_RG_PARAMS: and the stage's
            // bytes, which the launch's dynamic shared memory holds, with RLEv1's masks after
            // it). `PreparedColumn::new` built every group from validated plans: its stream
            // starts and lengths lie inside `input` (padded to 128 bytes as the framework
            // requires; a staged group's aligned 16-byte words end inside that padding), its
            // rows inside the outputs (`values` holds rows x width bytes, `valid` rows bytes)
            // and its scratch area inside `scratch`; the kernels bound every read by the
            // group's stream length, stage only groups that fit the stage, and write at most
            // the group's rows and scratch.
            unsafe { launch.launch(cfg) }?;
        }
        Ok(())
    }

    /// How many blocks of the block per row group an SM holds at once (the fewest over the
    /// batches; `None` in the warp per row group or with no block kernel): below
    /// `RG_BLOCKS_PER_SM`, a stripe of 601 row groups takes two waves on an H100.
    pub fn blocks_per_sm(&self, gpu: &GpuContext) -> Result<Option<u32>> {
        let mut fewest: Option<u32> = None;
        for (b, (kernel, _, n)) in self.batches.iter().enumerate() {
            let (Some((name, v1)), GroupMode::Block) = (block_kernel(kernel), self.mode) else {
                continue;
            };
            if *n == 0 {
                continue;
            }
            let stage = self.stages.get(b).copied().unwrap_or(RG_STAGE_MAX);
            let (_, _, blocks) = choose_block_function(gpu, name, stage, v1, *n, self.flags)?;
            fewest = Some(fewest.map_or(blocks, |f| f.min(blocks)));
        }
        Ok(fewest)
    }

    /// The first failed group as an error naming stripe, column and row group.
    pub fn check(&self, gpu: &GpuContext, p: &PreparedColumn) -> Result<()> {
        for (b, status) in self.status.iter().enumerate() {
            let s = gpu.download(status)?;
            for (i, &code) in s.iter().enumerate().take(p.batches[b].1.len()) {
                if code != 0 {
                    let (stripe, group) = p.origins[b][i];
                    return Err(p
                        .column
                        .in_stripe(stripe)
                        .row_group(group)
                        .corrupt(ChunkStatus::from_code(code).reason()));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::layout::OrcGroup;
    use super::{RG_FLAG_MARKS, RG_WARPS};
    use crate::gpu::kernels;

    #[test]
    fn group_layout_matches_the_kernel() {
        assert_eq!(std::mem::size_of::<OrcGroup>(), 64);
        let src = kernels::ORC_RLE.expanded();
        assert!(src.contains("struct OrcGroup"));
        assert!(src.contains(&format!("#define ORC_RG_WARPS {RG_WARPS}u ")));
        assert!(src.contains(&format!("#define RG_FLAG_MARKS {RG_FLAG_MARKS}u ")));
    }
}
