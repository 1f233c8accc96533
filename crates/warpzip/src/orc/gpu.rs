//! ORC integer-family columns decoded on the GPU (`kernels/orc/orc_*.cuh`, on the CODAG
//! framework). The row index says where every group starts in the decompressed PRESENT and DATA
//! streams (`row_groups`); a file without a row index gets one group per stripe. A ZLIB file's
//! compression chunks are inflated on the GPU (`orc::gpu_inflate`, the columns read together in
//! one batch), or on the CPU while the plans are made.
//! Integer columns give each row group a block (`orc_rg_*`, `GroupMode::Block`): its DATA bytes
//! staged in shared memory and cut at RLE group boundaries into units for the block's warps, or
//! decoded in byte ranges a thread each where its groups are short and small (docs/orc.md).
//! Boolean and tinyint columns, and `GroupMode::Warp`, give each row group one warp
//! (`orc_col_*`). Either way the PRESENT bits are decoded, the non-null rows counted, that many
//! values decoded from the DATA position and spread over the rows; the host turns the values and
//! validity bytes into Arrow arrays.

use super::column::OrcColumn;
use super::proto::TypeKind;
use super::row_groups::{plan_file_column, ColumnPlan, DataKind, RowGroup};
use super::OrcFile;
use crate::codec::orc_rle::gpu::padded;
use crate::error::{ChunkStatus, Error, Result};
use crate::gpu::compile::KernelSource;
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
    RecordBatch, RecordBatchOptions,
};
use arrow_buffer::{BooleanBuffer, Buffer, MutableBuffer, NullBuffer, ScalarBuffer};
use arrow_schema::{Field, Schema};
use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr};
use rayon::prelude::*;
use std::sync::Arc;

/// Warps per block of the warp-per-row-group kernels; `ORC_WARPS` in orc_rle.cu.
const WARPS: u32 = crate::codec::orc_rle::gpu::WARPS;
/// Resident blocks per SM asked for by the persistent grid.
const BLOCKS_PER_SM: u32 = 8;

/// One row group as the kernels read it; the layout of `OrcGroup` in `kernels/orc/orc_group.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrcGroup {
    pub present_offset: u64,
    pub present_len: u32,
    pub present_skip: u32,
    pub data_offset: u64,
    pub data_len: u32,
    pub data_skip: u32,
    pub out_row: u64,
    pub scratch: u64,
    pub rows: u32,
    pub present_bit_skip: u8,
    pub data_bit_skip: u8,
    pub has_present: u8,
    pub reserved: u8,
    /// Bytes from `data_offset` that hold the group's values in a valid file (what the block
    /// kernels stage; decoding never trusts it).
    pub data_span: u32,
    /// Bytes from `data_offset` up to and including the next group's position (`data_span` for
    /// a stripe's last group): where the block kernels' thread regions lie. The group's last
    /// values may lie in RLE groups that start past it (a position names the values its writer
    /// still held, which it may write as more than one group); the kernels walk on to them.
    /// Decoding never trusts it either.
    pub data_starts: u32,
}

// SAFETY: `OrcGroup` is `#[repr(C)]` plain data laid out as the CUDA struct: u64, u32, u32, u64,
// u32, u32, u64, u64, u32, u8 x4, u32, u32 (64 bytes, no padding).
unsafe impl DeviceRepr for OrcGroup {}

/// A column prepared for the GPU: every stripe's streams in one buffer and every row group, in
/// batches by DATA encoding (a file may switch encodings between stripes).
pub struct PreparedColumn {
    pub column: OrcColumn,
    /// The decompressed streams of every stripe, back to back (empty when they were built on
    /// the device, see `orc::gpu_inflate`).
    pub input: Vec<u8>,
    /// The bytes of the device input the streams reach (their total length when back to back).
    pub input_len: u64,
    /// (kernel entry point, groups) per DATA encoding present.
    pub batches: Vec<(&'static str, Vec<OrcGroup>)>,
    /// For each group of each batch: (stripe, group index in the stripe), for errors.
    pub origins: Vec<Vec<(usize, usize)>>,
    /// Rows of the whole column.
    pub rows: u64,
    /// Bytes per value in the output.
    pub width: usize,
    /// Bytes of scratch the groups need.
    pub scratch_len: u64,
    /// Per batch: the stage the block kernel needs (a multiple of 16, at most `RG_STAGE_MAX`).
    pub stages: Vec<u32>,
}

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
/// Most bytes of a row group's DATA stream a block stages (longer groups are decoded by one
/// warp of the block): with RLEv1's masks of varint ends the block's shared memory stays under
/// the 48 KiB a launch gets without opting in.
const RG_STAGE_MAX: u32 = 36 * 1024;

/// The longest RLE group, in bytes: how far past the next row group's position the values of
/// a row group can reach. RLEv1: a literal group of 128 ten-byte varints and its control byte.
/// RLEv2: a PATCHED_BASE group (4 header bytes, an 8-byte base, 512 values of 64 bits and 31
/// patch entries of at most 64 bits), rounded up.
fn longest_group(kind: DataKind) -> u64 {
    match kind {
        DataKind::IntV1 => 1 + 128 * 10,
        DataKind::IntV2 => 4400,
        _ => 0,
    }
}

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
/// group's own time sets the column's (stop 44, docs/orc.md). RLEv2 only: RLEv1 gained nothing
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
/// without their list of groups (stop 38), 256 has the units' warps read global memory rather
/// than the stage, 512 never sizes RLEv1 groups by their varints' expected lengths and 2048
/// never by a range of lengths (stop 41), and 1024 (for tests) reports a row group whose
/// regions so sized fail as corrupt rather than trying them again, sized varint by varint;
/// 4096 always launches the RLEv2 6-block kernels and 8192 never (stop 44: by default, batches of
/// more than one wave take them); bits 16-23, where not 0, replace the 96 bytes within which a
/// row group's first 8 groups must lie for the thread regions to be tried.
/// Results with 0, 8, 20, 64 and 256 equal the CPU's (`gpu_orc_files`, stop 33; 0, 16 and 64
/// in stop 34; 0, 512, 2048, 16 and 4 in stop 41).
fn diagnostic_flags() -> u32 {
    std::env::var("WARPZIP_ORC_RG_FLAGS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
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

/// Output width and kernel for a column type and DATA encoding.
fn kernel_for(kind: TypeKind, data: DataKind) -> Result<(&'static str, usize)> {
    Ok(match (kind, data) {
        (TypeKind::Boolean, DataKind::Boolean) => ("orc_col_bool", 1),
        (TypeKind::Byte, DataKind::Byte) => ("orc_col_byte", 1),
        (TypeKind::Short, DataKind::IntV1) => ("orc_col_v1_i16", 2),
        (TypeKind::Short, DataKind::IntV2) => ("orc_col_v2_i16", 2),
        (TypeKind::Int | TypeKind::Date, DataKind::IntV1) => ("orc_col_v1_i32", 4),
        (TypeKind::Int | TypeKind::Date, DataKind::IntV2) => ("orc_col_v2_i32", 4),
        (TypeKind::Long, DataKind::IntV1) => ("orc_col_v1_i64", 8),
        (TypeKind::Long, DataKind::IntV2) => ("orc_col_v2_i64", 8),
        (k, d) => {
            return Err(Error::Unsupported(format!(
                "ORC {k:?} column with {} DATA stream",
                d.name()
            )))
        }
    })
}

fn too_big(what: &str) -> Error {
    Error::Unsupported(format!("{what} is too large for one GPU batch"))
}

/// What the layout of one stripe needs from its plan: its streams' lengths and row groups.
pub struct PlanShape<'a> {
    pub stripe: usize,
    pub rows: u64,
    pub kind: DataKind,
    pub groups: &'a [RowGroup],
    pub present_len: Option<u64>,
    pub data_len: u64,
    /// Where the PRESENT and DATA streams start in the device input, when they are not simply
    /// back to back (GPU-inflated streams read in place from the inflate's output slots).
    pub bases: Option<(u64, u64)>,
}

impl PreparedColumn {
    /// Lays out the plans of every stripe of `column` for the kernel.
    pub fn new(column: &OrcColumn, plans: &[ColumnPlan]) -> Result<PreparedColumn> {
        let shapes: Vec<PlanShape<'_>> = plans
            .iter()
            .map(|p| PlanShape {
                stripe: p.stripe,
                rows: p.rows,
                kind: p.kind,
                groups: &p.groups,
                present_len: p.present.as_ref().map(|b| b.len() as u64),
                data_len: p.data.len() as u64,
                bases: None,
            })
            .collect();
        let mut prepared = PreparedColumn::lay_out(column, &shapes)?;
        let mut input = Vec::new();
        for plan in plans {
            if let Some(p) = &plan.present {
                input.extend_from_slice(p);
            }
            input.extend_from_slice(&plan.data);
        }
        prepared.input = input;
        Ok(prepared)
    }

    /// The layout of stripes with the given shapes, their streams back to back (PRESENT then
    /// DATA, stripe after stripe) or where their `bases` say; `input` is left empty for the
    /// caller to fill (or to build on the device).
    pub fn lay_out(column: &OrcColumn, shapes: &[PlanShape<'_>]) -> Result<PreparedColumn> {
        column.check_supported()?;
        let mut at = 0u64;
        let mut batches: Vec<(&'static str, Vec<OrcGroup>)> = Vec::new();
        let mut origins: Vec<Vec<(usize, usize)>> = Vec::new();
        let mut row_base = 0u64;
        let mut scratch = 0u64;
        let mut width = 1;
        let mut stages: Vec<u32> = Vec::new();
        for plan in shapes {
            let (kernel, w) = kernel_for(column.kind, plan.kind)?;
            width = w;
            let present_len = plan.present_len.unwrap_or(0);
            let (present_base, data_base) = plan.bases.unwrap_or((at, at + present_len));
            let present_end = present_base + present_len;
            let data_end = data_base + plan.data_len;
            at = at.max(present_end).max(data_end);
            let slot = match batches.iter().position(|(k, _)| *k == kernel) {
                Some(i) => i,
                None => {
                    batches.push((kernel, Vec::new()));
                    origins.push(Vec::new());
                    stages.push(16);
                    batches.len() - 1
                }
            };
            for (gi, g) in plan.groups.iter().enumerate() {
                let rows = u32::try_from(g.rows).map_err(|_| too_big("a row group"))?;
                let mut group = OrcGroup {
                    data_offset: data_base + g.data.byte,
                    data_skip: u32::try_from(g.data.skip).map_err(|_| too_big("a skip"))?,
                    data_bit_skip: g.data.bit_skip,
                    out_row: row_base + g.first_row,
                    scratch,
                    rows,
                    ..OrcGroup::default()
                };
                group.data_len = u32::try_from(data_end.saturating_sub(group.data_offset))
                    .map_err(|_| too_big("a DATA stream"))?;
                // The group's values end at most one RLE group past the next group's position
                // (in a valid file; the kernels check every read against `data_len`).
                // Its RLE groups start before the next group's position, but for those that
                // hold the values the writer still held there.
                (group.data_span, group.data_starts) = match plan.groups.get(gi + 1) {
                    Some(next) if next.data.byte >= g.data.byte => {
                        let to_next = next.data.byte - g.data.byte;
                        let span = (to_next + longest_group(plan.kind)).min(group.data_len as u64);
                        (span as u32, (to_next + 1).min(span) as u32)
                    }
                    _ => (group.data_len, group.data_len),
                };
                let need = ((group.data_offset & 15) + group.data_span as u64 + 16)
                    .next_multiple_of(16)
                    .min(RG_STAGE_MAX as u64) as u32;
                stages[slot] = stages[slot].max(need);
                if let Some(p) = g.present {
                    group.has_present = 1;
                    group.present_offset = present_base + p.byte;
                    group.present_len =
                        u32::try_from(present_end.saturating_sub(group.present_offset))
                            .map_err(|_| too_big("a PRESENT stream"))?;
                    group.present_skip = u32::try_from(p.skip).map_err(|_| too_big("a skip"))?;
                    group.present_bit_skip = p.bit_skip;
                }
                // Scratch: the PRESENT bytes, then the dense values (or the DATA bits).
                let bits = (g.rows + 7).div_ceil(8) + 8;
                let dense = (g.rows * w as u64).max(bits);
                scratch += (bits + 8).next_multiple_of(8) + dense.next_multiple_of(8);
                batches[slot].1.push(group);
                origins[slot].push((plan.stripe, gi));
            }
            row_base += plan.rows;
        }
        Ok(PreparedColumn {
            column: column.clone(),
            input: Vec::new(),
            input_len: at,
            batches,
            origins,
            rows: row_base,
            width,
            scratch_len: scratch,
            stages,
        })
    }
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
    flags: u32,
}

impl DeviceColumn {
    /// Uploads a prepared column and allocates its outputs.
    pub fn upload(gpu: &GpuContext, p: &PreparedColumn) -> Result<DeviceColumn> {
        DeviceColumn::with_input(gpu, p, Arc::new(gpu.upload(&padded(&p.input))?))
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
            batches.push((*kernel, gpu.upload(groups)?, n));
            status.push(gpu.alloc_zeros::<u32>(groups.len().max(1))?);
        }
        let scratch_len = usize::try_from(p.scratch_len).map_err(|_| too_big("scratch"))?;
        Ok(DeviceColumn {
            input,
            batches,
            values: gpu.alloc_zeros((rows * p.width).div_ceil(8) * 8)?,
            valid: gpu.alloc_zeros(rows.max(1))?,
            scratch: gpu.alloc_zeros(scratch_len.max(8))?,
            status,
            counter: gpu.alloc_zeros(1)?,
            stages: p.stages.clone(),
            mode: GroupMode::default(),
            flags: diagnostic_flags(),
        })
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
                    return Err(Error::Corrupt {
                        chunk: stripe,
                        reason: format!(
                            "ORC stripe {stripe} column '{}' row group {group}: {}",
                            p.column.name,
                            ChunkStatus::from_code(code).reason()
                        ),
                    });
                }
            }
        }
        Ok(())
    }
}

/// Decodes `column` of every stripe on the GPU into one Arrow array. A ZLIB file's streams are
/// inflated on the GPU too (`orc::gpu_inflate`): nothing is inflated on the CPU but the row
/// index.
pub fn read_column(gpu: &GpuContext, file: &OrcFile, column: &OrcColumn) -> Result<ArrayRef> {
    let (prepared, dev) = decode_on_device(gpu, file, column, false)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// [`read_column`] with the streams inflated on the CPU while the plans are made, and the row
/// groups of integer columns spread over the GPU as `mode` says (tests compare the two modes).
pub fn read_column_in_mode(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
) -> Result<ArrayRef> {
    read_column_with_flags(gpu, file, column, mode, diagnostic_flags())
}

/// [`read_column_in_mode`] with the block kernels' diagnostic flags (see `diagnostic_flags`)
/// given rather than read from `WARPZIP_ORC_RG_FLAGS`: for tests that need one path taken.
pub fn read_column_with_flags(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    mode: GroupMode,
    flags: u32,
) -> Result<ArrayRef> {
    let plans = plan_file_column(file, column)?;
    let prepared = PreparedColumn::new(column, &plans)?;
    let mut dev = DeviceColumn::upload(gpu, &prepared)?;
    dev.mode = mode;
    dev.flags = flags;
    dev.launch(gpu, gpu.stream())?;
    dev.check(gpu, &prepared)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// [`read_column`] with the streams inflated on the CPU while the plans are made (the path of
/// ZLIB files before GPU inflate; kept for the benchmark's comparison).
pub fn read_column_cpu_inflate(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
) -> Result<ArrayRef> {
    let (prepared, dev) = decode_on_device(gpu, file, column, true)?;
    to_host_arrow(gpu, column, &prepared, &dev)
}

/// Decodes `column` into device memory (`dev.values`, `dev.valid`) and checks every row
/// group's status: the column ready for a GPU pipeline. ZLIB streams are inflated on the GPU,
/// or on the CPU while planning when `cpu_inflate` is set.
pub fn decode_on_device(
    gpu: &GpuContext,
    file: &OrcFile,
    column: &OrcColumn,
    cpu_inflate: bool,
) -> Result<(PreparedColumn, DeviceColumn)> {
    decode_columns_on_device(gpu, file, &[column], cpu_inflate)?
        .pop()
        .ok_or_else(|| Error::InvalidArgument("no column decoded".into()))
}

/// [`decode_on_device`] for several columns of one file: a ZLIB file's streams are inflated
/// together, in one GPU batch (or, with `cpu_inflate`, planned on all cores, column beside
/// column); every column's row groups are decoded before any status is read.
pub fn decode_columns_on_device(
    gpu: &GpuContext,
    file: &OrcFile,
    columns: &[&OrcColumn],
    cpu_inflate: bool,
) -> Result<Vec<(PreparedColumn, DeviceColumn)>> {
    for c in columns {
        c.check_supported()?;
    }
    let zlib = file.compression().kind == super::proto::CompressionKind::Zlib;
    let mut decoded = if zlib && !cpu_inflate {
        super::gpu_inflate::prepare_columns(gpu, file, columns)?
    } else {
        let plans: Vec<Vec<ColumnPlan>> = columns
            .par_iter()
            .map(|c| plan_file_column(file, c))
            .collect::<Result<_>>()?;
        columns
            .iter()
            .zip(&plans)
            .map(|(c, plans)| {
                let prepared = PreparedColumn::new(c, plans)?;
                let dev = DeviceColumn::upload(gpu, &prepared)?;
                Ok((prepared, dev))
            })
            .collect::<Result<_>>()?
    };
    for (_, dev) in &mut decoded {
        dev.launch(gpu, gpu.stream())?;
    }
    for (prepared, dev) in &decoded {
        dev.check(gpu, prepared)?;
    }
    Ok(decoded)
}

/// Downloads a decoded device column and turns it into an Arrow array.
fn to_host_arrow(
    gpu: &GpuContext,
    column: &OrcColumn,
    prepared: &PreparedColumn,
    dev: &DeviceColumn,
) -> Result<ArrayRef> {
    let rows = usize::try_from(prepared.rows).map_err(|_| too_big("the column"))?;
    let (mut values, width) = host_values(column, rows)?;
    if rows > 0 && width != prepared.width {
        return Err(Error::Driver(format!(
            "ORC column '{}': values of {} bytes for a type of {width}",
            column.name, prepared.width
        )));
    }
    gpu.download_into(&dev.values, values.as_slice_mut())?;
    // Only a row group with a PRESENT stream has nulls: the kernels mark every row of the
    // others valid, so without one the validity bytes are not fetched at all.
    let has_present = prepared
        .batches
        .iter()
        .any(|(_, groups)| groups.iter().any(|g| g.has_present != 0));
    let valid = if has_present {
        let mut valid = vec![0u8; rows];
        gpu.download_into(&dev.valid, &mut valid)?;
        Some(valid)
    } else {
        None
    };
    arrow_array_of(column, values.into(), valid.as_deref(), rows)
}

/// A zeroed host buffer for `rows` values of the column's Arrow type, aligned for that type, and
/// the type's width in bytes (a column without stripes has no plan to say it). A zeroed `Vec`
/// of the value type comes from `calloc`, whose fresh pages are zero already: the 128-byte
/// aligned `MutableBuffer::from_len_zeroed` is zeroed byte by byte on one thread first, and
/// touching 512 MiB of fresh pages on one thread took 250 ms on the H200 machine's host (stop
/// 46).
fn host_values(column: &OrcColumn, rows: usize) -> Result<(MutableBuffer, usize)> {
    let width = match column.kind {
        TypeKind::Boolean | TypeKind::Byte => 1,
        TypeKind::Short => 2,
        TypeKind::Int | TypeKind::Date => 4,
        TypeKind::Long => 8,
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    };
    // (A byte count past `usize` would make `vec!` panic.)
    rows.checked_mul(width)
        .ok_or_else(|| too_big("the column"))?;
    let values = match width {
        1 => MutableBuffer::from(vec![0u8; rows]),
        2 => MutableBuffer::from(vec![0u16; rows]),
        4 => MutableBuffer::from(vec![0u32; rows]),
        _ => MutableBuffer::from(vec![0u64; rows]),
    };
    Ok((values, width))
}

/// The column's Arrow array from its values (little-endian, `rows` of them, one per row) and,
/// where the column may have nulls, its validity bytes (0 for null).
fn arrow_array_of(
    column: &OrcColumn,
    values: Buffer,
    valid: Option<&[u8]>,
    rows: usize,
) -> Result<ArrayRef> {
    // A validity bitmap only when some row is null.
    let nulls = valid
        .filter(|v| v.contains(&0))
        .map(|v| NullBuffer::new(BooleanBuffer::collect_bool(rows, |i| v[i] != 0)));
    macro_rules! prim {
        ($array:ty, $t:ty) => {{
            if values.len() != rows * std::mem::size_of::<$t>() {
                return Err(Error::Driver(format!(
                    "ORC column '{}': {} bytes of values for {rows} rows",
                    column.name,
                    values.len()
                )));
            }
            Arc::new(<$array>::new(
                ScalarBuffer::<$t>::new(values, 0, rows),
                nulls,
            )) as ArrayRef
        }};
    }
    Ok(match column.kind {
        TypeKind::Boolean => {
            let bytes = values.as_slice();
            if bytes.len() != rows {
                return Err(Error::Driver(format!(
                    "ORC column '{}': {} bytes of values for {rows} rows",
                    column.name,
                    bytes.len()
                )));
            }
            let bits = BooleanBuffer::collect_bool(rows, |i| bytes[i] != 0);
            Arc::new(BooleanArray::new(bits, nulls))
        }
        TypeKind::Byte => prim!(Int8Array, i8),
        TypeKind::Short => prim!(Int16Array, i16),
        TypeKind::Int => prim!(Int32Array, i32),
        TypeKind::Date => prim!(Date32Array, i32),
        TypeKind::Long => prim!(Int64Array, i64),
        _ => return Err(Error::Unsupported(format!("ORC column '{}'", column.name))),
    })
}

/// Decodes the named columns (all for `None`) on the GPU into one record batch.
pub fn read_batch(gpu: &GpuContext, file: &OrcFile, names: Option<&[&str]>) -> Result<RecordBatch> {
    let selected: Vec<&OrcColumn> = match names {
        Some(names) => names
            .iter()
            .map(|n| file.column(n))
            .collect::<Result<_>>()?,
        None => file.columns().iter().collect(),
    };
    let mut fields = Vec::with_capacity(selected.len());
    let mut arrays = Vec::with_capacity(selected.len());
    let decoded = decode_columns_on_device(gpu, file, &selected, false)?;
    for (c, (prepared, dev)) in selected.iter().zip(&decoded) {
        let array = to_host_arrow(gpu, c, prepared, dev)?;
        fields.push(Field::new(c.name.clone(), array.data_type().clone(), true));
        arrays.push(array);
    }
    let rows = file.stripes()?.iter().try_fold(0usize, |acc, s| {
        usize::try_from(s.rows())
            .ok()
            .and_then(|r| acc.checked_add(r))
            .ok_or_else(|| too_big("the file"))
    })?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &options)
        .map_err(|e| Error::CorruptContainer(format!("ORC columns disagree: {e}")))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn host_buffers_make_arrays_of_every_type_and_length() {
        // Empty columns too: a file without stripes once gave a `u8` buffer to an `i32` array.
        for kind in [
            TypeKind::Boolean,
            TypeKind::Byte,
            TypeKind::Short,
            TypeKind::Int,
            TypeKind::Date,
            TypeKind::Long,
        ] {
            let column = OrcColumn {
                name: "c".into(),
                id: 1,
                kind,
                type_name: format!("{kind:?}"),
            };
            for rows in [0usize, 1, 7, 1000] {
                let (mut values, width) = host_values(&column, rows).unwrap();
                assert_eq!(values.len(), rows * width);
                if let Some(first) = values.as_slice_mut().first_mut() {
                    *first = 1;
                }
                let mut valid = vec![1u8; rows];
                if rows > 1 {
                    valid[1] = 0;
                }
                let array = arrow_array_of(&column, values.into(), Some(&valid), rows).unwrap();
                assert_eq!(array.len(), rows, "{kind:?}");
                assert_eq!(array.null_count(), usize::from(rows > 1), "{kind:?}");
                if rows > 0 {
                    assert!(array.is_valid(0));
                }
            }
        }
        let string = OrcColumn {
            name: "s".into(),
            id: 2,
            kind: TypeKind::String,
            type_name: "string".into(),
        };
        assert!(host_values(&string, 3).is_err());
    }

    #[test]
    fn group_layout_matches_the_kernel() {
        assert_eq!(std::mem::size_of::<OrcGroup>(), 64);
        let src = kernels::ORC_RLE.expanded();
        assert!(src.contains("struct OrcGroup"));
        assert!(src.contains(&format!("#define ORC_RG_WARPS {RG_WARPS}u ")));
        assert!(src.contains(&format!("#define RG_FLAG_MARKS {RG_FLAG_MARKS}u ")));
    }
}
