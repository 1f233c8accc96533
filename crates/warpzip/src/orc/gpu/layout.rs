//! The host side of the GPU decode: every row group of a column, in every stripe, as the kernels
//! read it (`OrcGroup`, the layout of `kernels/orc/orc_group.cuh`), in batches by DATA encoding,
//! with the streams' places in the device input and the scratch and shared memory each needs.

use super::super::file::proto::TypeKind;
use super::super::plan::{ColumnPlan, DataKind, RowGroup};
use super::super::schema::OrcColumn;
use crate::error::{Error, Result};
use cudarc::driver::DeviceRepr;

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
    /// the device, see `gpu::inflate`).
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

/// Most bytes of a row group's DATA stream a block stages (longer groups are decoded by one
/// warp of the block): with RLEv1's masks of varint ends the block's shared memory stays under
/// the 48 KiB a launch gets without opting in.
pub(super) const RG_STAGE_MAX: u32 = 36 * 1024;

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

pub(super) fn too_big(what: &str) -> Error {
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
        let total = plans.iter().fold(0usize, |acc, p| {
            acc.saturating_add(p.present.as_ref().map_or(0, |b| b.len()))
                .saturating_add(p.data.len())
        });
        let mut input = crate::error::try_with_capacity(total, "an ORC column's streams")?;
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
