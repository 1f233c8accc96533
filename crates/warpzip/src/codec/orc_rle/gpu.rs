//! ORC run-length decoding on the GPU (`kernels/orc/orc_rle.cu`, on the CODAG framework of
//! `kernels/framework/codag.cuh`): one warp per chunk, a persistent grid. A batch is a set of
//! [`OrcRleChunk`]s over one input buffer; each chunk decodes one ORC stream (or the part of it
//! that one ORC row group needs) into its place in one output array. The same batches also run
//! on the block-per-chunk leader-thread decoders of `crates/warpzip-bench/kernels/orc_rle_leader.cu`, the
//! ablation the benchmark compares against. Indexed `.wz` chunks (layout 2) are decoded by one of
//! four sub-block decoders (a lane per sub-block, `kernels/orc/orc_rle_lanes.cu`, and the three
//! others): [`plan_sub_blocks`] turns their indexes into units, and [`arrange`] picks the decoder
//! from a sample of the headers and orders the units for it.

use super::format::{check_elem, split_indexed, Layout, RleVersion, INDEX_ENTRY};
use crate::error::{ChunkStatus, Error, Result};
use crate::format::{ChunkSpan, Container, ElemType};
use crate::gpu::batch::{self, BatchShape, ChunkBatch, ChunkRecord};
use crate::gpu::compile::KernelSource;
use crate::gpu::{kernels, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{CudaStream, DeviceRepr};
use std::sync::Arc;

/// Warps per block of the warp-per-chunk kernels; must match `ORC_WARPS` in orc_rle.cu.
pub const WARPS: u32 = 4;
/// Threads per block of the leader-thread ablation kernels.
pub const LEADER_THREADS: u32 = 128;
/// Resident blocks per SM the persistent grid asks for, but for the warp-per-chunk kernels,
/// whose grid is as many blocks as the occupancy API says fit (9 on an H100).
const BLOCKS_PER_SM: u32 = 8;
/// Input buffers are padded to a multiple of this many bytes: the kernels load whole aligned
/// 128-byte blocks around a chunk's bytes.
pub const INPUT_ALIGN: usize = 128;
/// Bytes of zeros [`padded`] puts after the input before rounding up to [`INPUT_ALIGN`]: the
/// lane decoders load 8-byte windows as two aligned words, up to 15 bytes past a stream's end,
/// and the walk-and-expand decoder stages 64 bytes from the word holding a lane's next byte.
pub const INPUT_SLACK: usize = 128;
const _: () = assert!(
    INPUT_SLACK >= 64,
    "the expand kernel reads 63 bytes past a payload byte"
);
/// Threads per block of the lane-per-sub-block kernels; `ORC_LANES_THREADS` in
/// orc_rle_lanes.cu.
pub const LANES_THREADS: u32 = 128;

/// One unit of GPU work; the layout of `OrcRleChunk` in `kernels/orc/orc_int.cuh`. The stream at
/// `in_offset` (`in_len` bytes) is decoded, its first `skip` values dropped and the next `count`
/// written from element `out_offset` on. `exact == 1` demands that the stream hold exactly
/// `skip + count` values (a `.wz` chunk); `exact == 0` stops after `count` (an ORC row group).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OrcRleChunk {
    pub in_offset: u64,
    pub in_len: u32,
    pub skip: u32,
    pub out_offset: u64,
    pub count: u32,
    pub exact: u32,
}

// SAFETY: `OrcRleChunk` is `#[repr(C)]` plain data with the field order, sizes and alignment of
// the CUDA struct (u64, u32, u32, u64, u32, u32: 32 bytes, no padding).
unsafe impl DeviceRepr for OrcRleChunk {}

/// The encoding a batch's streams use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamCodec {
    /// Integer RLE v1 or v2, decoded into integers of an element type.
    Int(RleVersion),
    /// Byte RLE (tinyint columns, and the packed bits of Boolean RLE), decoded into bytes.
    Byte,
}

/// How chunks are spread over the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parallelism {
    /// CODAG: one warp per chunk, all lanes decoding together (the library's decoder). An
    /// RLEv1 unit of at most 3056 stream bytes (a sub-block) is first staged whole in the warp's
    /// shared memory, and its literal varints decoded a varint a lane.
    WarpPerChunk,
    /// The ablation: one thread block per chunk, a leader thread parsing and the block writing.
    LeaderPerBlock,
    /// One lane per unit, for the sub-blocks of indexed chunks: every unit must be exact and
    /// skip nothing (a unit that is not is CORRUPT).
    LanePerSubBlock,
    /// For the same units: the lanes of a warp walk the group headers of 32 sub-blocks, one
    /// each, into descriptors, and the warp writes each sub-block's values 32 at a time
    /// (`kernels/orc/orc_rle_expand.cu`); a sub-block that fails a check is decoded again by its
    /// own lane, for the exact status.
    WalkExpand,
    /// For the same units: one lane per sub-block, the lanes stepping through their groups in
    /// lockstep (a header parse, then up to 8 values each, 16 of 4 bytes), their values staged
    /// in shared memory and written by the warp in whole 64-byte lines, four lanes' a store
    /// (`kernels/orc/orc_rle_lockstep.cu`); a sub-block that fails a check, or whose output is
    /// not 8-byte aligned, is decoded again by its own lane, for the exact status.
    Lockstep,
}

impl Parallelism {
    /// The kernel module whose entry points (`kernel_name`) decode this way.
    /// `None` for the leader-thread ablation, whose kernels are not part of the library: the
    /// benchmarks (`warpzip-bench`) and tests compile them and launch them with
    /// [`DecodeBatch::launch_kernel`].
    pub fn module(self) -> Option<&'static KernelSource> {
        match self {
            Parallelism::WarpPerChunk => Some(&kernels::ORC_RLE),
            Parallelism::LeaderPerBlock => None,
            Parallelism::LanePerSubBlock => Some(&kernels::ORC_RLE_LANES),
            Parallelism::WalkExpand => Some(&kernels::ORC_RLE_EXPAND),
            Parallelism::Lockstep => Some(&kernels::ORC_RLE_LOCKSTEP),
        }
    }
}

/// The kernel entry point for a codec, element type and parallelisation.
pub fn kernel_name(codec: StreamCodec, elem: ElemType, par: Parallelism) -> Result<String> {
    match codec {
        StreamCodec::Byte => match par {
            Parallelism::WarpPerChunk => Ok("orc_byte_rle".to_string()),
            Parallelism::LeaderPerBlock
            | Parallelism::LanePerSubBlock
            | Parallelism::WalkExpand
            | Parallelism::Lockstep => Err(Error::Unsupported(
                "only the warp-per-chunk decoder reads byte RLE".into(),
            )),
        },
        StreamCodec::Int(version) => {
            check_elem(elem)?;
            let v = match version {
                RleVersion::V1 => "v1",
                RleVersion::V2 => "v2",
            };
            let p = match par {
                Parallelism::WarpPerChunk => "",
                Parallelism::LeaderPerBlock => "_leader",
                Parallelism::LanePerSubBlock => "_lanes",
                Parallelism::WalkExpand => "_expand",
                Parallelism::Lockstep => "_lockstep",
            };
            Ok(format!("orc_rle_{v}{p}_{}", elem.name()))
        }
    }
}

impl ChunkRecord for OrcRleChunk {
    fn input_span(&self) -> (u64, u64) {
        (self.in_offset, u64::from(self.in_len))
    }

    fn output_span(&self) -> (u64, u64) {
        (self.out_offset, u64::from(self.count))
    }
}

/// The batch rules of the ORC RLE kernels for values of `elem_size` bytes: the input padded by
/// [`INPUT_SLACK`] to [`INPUT_ALIGN`], the output rounded to 8 bytes, one status a chunk.
fn batch_shape(elem_size: usize) -> BatchShape {
    BatchShape {
        input_align: INPUT_ALIGN,
        input_slack: INPUT_SLACK,
        out_unit: elem_size.max(1),
        out_align: 1,
        out_round: 8,
        status_words: 1,
        noun: "GPU chunk",
    }
}

/// `bytes` copied into a vector with [`INPUT_SLACK`] zeros after them, padded with more zeros
/// to a multiple of [`INPUT_ALIGN`]; `Error::OutOfMemory` when it cannot be had.
pub fn padded(bytes: &[u8]) -> Result<Vec<u8>> {
    batch::padded(bytes, INPUT_SLACK, INPUT_ALIGN)
}

/// One batch of ORC RLE chunks on the shared chunk batch: the padded input, the chunk list,
/// the output, one status per chunk and the persistent grid's work counter.
pub struct DecodeBatch {
    pub batch: ChunkBatch<OrcRleChunk>,
}

impl DecodeBatch {
    /// Uploads `input` (padded) and `chunks`, and allocates an output of `out_len` bytes. Every
    /// chunk must lie inside `input` and its values inside the output (`elem_size` bytes each):
    /// `Error::InvalidArgument` otherwise, before anything reaches the GPU.
    pub fn new(
        gpu: &GpuContext,
        input: &[u8],
        chunks: &[OrcRleChunk],
        out_len: usize,
        elem_size: usize,
    ) -> Result<DecodeBatch> {
        let shape = batch_shape(elem_size);
        Ok(DecodeBatch {
            batch: ChunkBatch::upload(gpu, input, chunks.to_vec(), out_len, shape)?,
        })
    }

    /// Queues the decoder on `stream` (no synchronisation).
    pub fn launch(
        &mut self,
        gpu: &GpuContext,
        stream: &Arc<CudaStream>,
        codec: StreamCodec,
        elem: ElemType,
        par: Parallelism,
    ) -> Result<()> {
        let name = kernel_name(codec, elem, par)?;
        let module = par.module().ok_or_else(|| {
            Error::Unsupported(
                "the leader-thread ablation kernels are not part of the library (warpzip-bench \
                 launches them with launch_kernel)"
                    .into(),
            )
        })?;
        self.launch_kernel(gpu, stream, module, &name, par)
    }

    /// Queues entry point `name` of `source`, which must take `ORC_KERNEL_PARAMS` and follow
    /// the contract of `launch` (the CODAG self-test kernels do), on `stream`.
    pub fn launch_kernel(
        &mut self,
        gpu: &GpuContext,
        stream: &Arc<CudaStream>,
        source: &KernelSource,
        name: &str,
        par: Parallelism,
    ) -> Result<()> {
        let n_chunks = self.batch.count();
        if n_chunks == 0 {
            return Ok(());
        }
        let function = gpu.function(source, name)?;
        let (blocks, threads) = match par {
            Parallelism::WarpPerChunk => (n_chunks.div_ceil(WARPS), WARPS * 32),
            Parallelism::LeaderPerBlock => (n_chunks, LEADER_THREADS),
            Parallelism::LanePerSubBlock | Parallelism::WalkExpand | Parallelism::Lockstep => {
                (n_chunks.div_ceil(LANES_THREADS), LANES_THREADS)
            }
        };
        // The persistent grid: BLOCKS_PER_SM blocks an SM, or as many as fit for the warps (their
        // staged RLEv1 units keep the lanes busy, so every resident warp adds throughput).
        let per_sm = match par {
            Parallelism::WarpPerChunk => function
                .occupancy_max_active_blocks_per_multiprocessor(threads, 0, None)?
                .max(1),
            _ => BLOCKS_PER_SM,
        };
        let cfg = LaunchConfig {
            grid_dim: (blocks.min(gpu.sm_count() * per_sm).max(1), 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let b = &mut self.batch;
        b.reset_counter(stream)?;
        let mut launch = stream.launch_builder(&function);
        launch
            .arg(&b.input)
            .arg(&b.records)
            .arg(&n_chunks)
            .arg(&mut b.out)
            .arg(&mut b.status)
            .arg(&mut b.counter);
        // SAFETY: the arguments match ORC_KERNEL_PARAMS (input, chunks, count, output, statuses,
        // counter). `ChunkBatch::upload` proved that every chunk's input lies inside the input,
        // whose allocation it extends by INPUT_SLACK (128) bytes and to a multiple of 128 (the
        // framework's whole aligned blocks, the lane kernels' 8-byte windows), and that every
        // chunk's values lie inside the output; the kernels bound every value-bearing read by
        // the chunk's `in_len` and write only values skip..skip+count of each chunk.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    /// Overwrites the output with `byte` (tests poison it before a kernel runs).
    pub fn poison_output(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        self.batch.poison_output(gpu, byte)
    }

    /// The per-chunk statuses (synchronises).
    pub fn statuses(&self, gpu: &GpuContext) -> Result<Vec<u32>> {
        self.batch.status_words(gpu)
    }

    /// The output's bytes (synchronises).
    pub fn output(&self, gpu: &GpuContext) -> Result<Vec<u8>> {
        self.batch.output(gpu)
    }
}

/// The error of the lowest-numbered failed chunk, if any.
pub fn first_failure(statuses: &[u32]) -> Result<()> {
    batch::first_failure(statuses, 1)
}

/// The spans of a validated container's chunks, offsets counted from its payload's start.
pub fn container_spans(container: &Container<'_>) -> Vec<ChunkSpan> {
    let base = container.payload.as_ptr() as usize;
    (0..container.chunk_count())
        .zip(&container.chunks)
        .map(|(i, entry)| ChunkSpan {
            offset: container.chunk_bytes(i).as_ptr() as usize - base,
            compressed_len: entry.compressed_len,
            uncompressed_len: entry.uncompressed_len,
        })
        .collect()
}

/// One exact unit per chunk over its whole ORC stream: the chunk itself in layout 1, the
/// chunk's streams after its index in layout 2 (their concatenation is one stream of the
/// chunk's values). A chunk whose index does not fit it gives that chunk's error.
pub fn stream_units(
    payload: &[u8],
    spans: &[ChunkSpan],
    elem: ElemType,
    layout: Layout,
) -> Result<Vec<OrcRleChunk>> {
    let size = elem.size();
    let mut out_offset = 0u64;
    let mut units = Vec::with_capacity(spans.len());
    for (i, s) in spans.iter().enumerate() {
        let len = u64::from(s.uncompressed_len);
        if !len.is_multiple_of(size) {
            return Err(Error::chunk(i, ChunkStatus::Corrupt));
        }
        let count = len / size;
        let skip_index = match layout {
            Layout::Plain => 0,
            Layout::Indexed { sub_block } => {
                let bytes =
                    chunk_slice(payload, s).ok_or(Error::chunk(i, ChunkStatus::Truncated))?;
                split_indexed(bytes, count as usize, sub_block)
                    .map_err(|st| Error::chunk(i, st))?
                    .0
                    .len()
                    * INDEX_ENTRY
            }
        };
        units.push(OrcRleChunk {
            in_offset: (s.offset + skip_index) as u64,
            in_len: s.compressed_len - skip_index as u32,
            skip: 0,
            out_offset,
            count: count as u32,
            exact: 1,
        });
        out_offset += count;
    }
    Ok(units)
}

/// The bytes of chunk `s` in `payload`, if it lies inside it.
fn chunk_slice<'a>(payload: &'a [u8], s: &ChunkSpan) -> Option<&'a [u8]> {
    payload.get(s.offset..s.offset.checked_add(s.compressed_len as usize)?)
}

/// The lane-per-sub-block work of layout-2 chunks.
#[derive(Debug, Default)]
pub struct SubBlockPlan {
    /// One exact unit per sub-block, chunk by chunk, in order.
    pub units: Vec<OrcRleChunk>,
    /// The chunk of every unit.
    pub unit_chunk: Vec<u32>,
    /// The first chunk whose index is bad, and its status; its sub-blocks (and no others) have
    /// no units.
    pub index_failure: Option<(usize, ChunkStatus)>,
}

impl SubBlockPlan {
    /// Puts the units in order of stream length, longest first, so that the 32 sub-blocks a
    /// warp of the lanes in lockstep takes together (one a lane) take about as many steps as each
    /// other, and the longest are started first. [`arrange`] says when this pays.
    pub fn balance(&mut self) {
        let mut order: Vec<usize> = (0..self.units.len()).collect();
        order.sort_by_key(|&u| std::cmp::Reverse(self.units[u].in_len));
        self.units = order.iter().map(|&u| self.units[u]).collect();
        self.unit_chunk = order.iter().map(|&u| self.unit_chunk[u]).collect();
    }

    /// The decode's verdict from the units' statuses: the error of the lowest chunk that failed,
    /// by its index or by its lowest failing sub-block (the sequential decoder's verdict).
    pub fn verdict(&self, statuses: &[u32]) -> Result<()> {
        // The units may be in any order (see `balance`): the first failure is the one earliest
        // in the output.
        let unit_failure = statuses
            .iter()
            .enumerate()
            .filter(|&(_, &s)| s != 0)
            .min_by_key(|&(u, _)| {
                let chunk = self.unit_chunk.get(u).copied().unwrap_or(u32::MAX);
                (chunk, self.units.get(u).map_or(u64::MAX, |c| c.out_offset))
            })
            .map(|(u, &s)| {
                let chunk = self.unit_chunk.get(u).copied().unwrap_or(u32::MAX) as usize;
                (chunk, ChunkStatus::from_code(s))
            });
        let first = match (unit_failure, self.index_failure) {
            (Some(a), Some(b)) => Some(if a.0 <= b.0 { a } else { b }),
            (a, b) => a.or(b),
        };
        match first {
            Some((chunk, status)) => Err(Error::chunk(chunk, status)),
            None => Ok(()),
        }
    }
}

/// Splits layout-2 chunks (`sub_block` values per sub-block) into one exact unit per
/// sub-block, after checking each chunk's index on the host.
pub fn plan_sub_blocks(
    payload: &[u8],
    spans: &[ChunkSpan],
    elem: ElemType,
    sub_block: u32,
) -> Result<SubBlockPlan> {
    let size = elem.size();
    let per_block = u64::from(sub_block.max(1));
    let mut plan = SubBlockPlan::default();
    let mut out_offset = 0u64;
    for (i, s) in spans.iter().enumerate() {
        let len = u64::from(s.uncompressed_len);
        if !len.is_multiple_of(size) {
            return Err(Error::chunk(i, ChunkStatus::Corrupt));
        }
        let count = len / size;
        let chunk = u32::try_from(i)
            .map_err(|_| Error::InvalidArgument("too many chunks for one GPU batch".into()))?;
        let split = chunk_slice(payload, s)
            .ok_or(ChunkStatus::Truncated)
            .and_then(|bytes| split_indexed(bytes, count as usize, sub_block));
        match split {
            Ok((ends, _)) => {
                let streams = (s.offset + ends.len() * INDEX_ENTRY) as u64;
                let mut start = 0u32;
                for (j, &end) in ends.iter().enumerate() {
                    let first = j as u64 * per_block;
                    plan.units.push(OrcRleChunk {
                        in_offset: streams + u64::from(start),
                        in_len: end - start,
                        skip: 0,
                        out_offset: out_offset + first,
                        count: per_block.min(count - first) as u32,
                        exact: 1,
                    });
                    plan.unit_chunk.push(chunk);
                    start = end;
                }
            }
            Err(status) => {
                if plan.index_failure.is_none() {
                    plan.index_failure = Some((i, status));
                }
            }
        }
        out_offset += count;
    }
    Ok(plan)
}

/// RLEv2 values per group at or above which the walk-and-expand decoder beats the lanes in
/// lockstep on values of 4 bytes or fewer: long DIRECT groups, which it writes 16 bytes a lane
/// (quantities, 366 values a group: 1588.6 GB/s against 1184.0). Shorter groups go to the lanes
/// in lockstep (discounts, 63 values a group: 462.5 against 423.9; dates, 4 values a group:
/// 382.3 against 282.8; H200).
pub const LONG_MEAN_GROUP: f64 = 128.0;
/// Stream bytes per value at or above which the walk-and-expand decoder beats the lanes in
/// lockstep on 8-byte RLEv2 values: random values, 8 bytes a value, whose DIRECT groups of 512
/// it writes 16 bytes a lane (1304.3 GB/s against 575.6, and 1004.9 for a warp per sub-block, on
/// an H200, nvCOMP Cascaded 1160.1 in the same run; an earlier H200 measurement had the warp at
/// 1000-1342 between runs against the walk's 1264-1290, and on an H100 the warp
/// 1174-1186 against 979-1055, nvCOMP 963-968). Sorted keys, 1 byte a value, stay with the lanes
/// in lockstep (996.3 against 645.8 for the warp on an H200).
pub const V2_WIDE_COMPRESSED: f64 = 4.0;
/// Stream bytes per value at or above which a warp per sub-block beats the lanes in lockstep on
/// 8-byte RLEv1 values: literal groups of long varints, which the warp decodes from its staged
/// copy of the stream, a varint a lane (random values, 9.5 bytes a value: 989.9-1001.1 GB/s
/// against 592.7-593.4 on an H100, in one run; every other bench column has 1-1.6 bytes
/// a value and short groups, where the lanes in lockstep are 4-12x faster).
pub const V1_WIDE_VARINTS: f64 = 4.0;

/// What the picker knows of a payload's streams (from a sample of them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StreamShape {
    /// Values per group (an RLEv1 run or literal group, an RLEv2 group).
    pub mean_group: f64,
    /// Stream bytes per value.
    pub bytes_per_value: f64,
    /// Stream bytes per sub-block.
    pub mean_stream: f64,
}

/// The groups of an ORC stream: (values, groups), or `None` where a header does not parse.
/// Reads headers and varint lengths only.
fn walk_groups(s: &[u8], version: RleVersion) -> Option<(u64, u64)> {
    use super::int_rle_v2::{closest_fixed_width, decode_width};
    let varint_end = |mut p: usize| -> Option<usize> {
        loop {
            let b = *s.get(p)?;
            p += 1;
            if b & 0x80 == 0 {
                return Some(p);
            }
        }
    };
    let (mut values, mut groups, mut p) = (0u64, 0u64, 0usize);
    while p < s.len() {
        let h0 = s[p];
        let (n, next) = match version {
            RleVersion::V1 if h0 < 0x80 => (u64::from(h0) + 3, varint_end(p + 2)?),
            RleVersion::V1 => {
                let n = 256 - u64::from(h0);
                let mut q = p + 1;
                for _ in 0..n {
                    q = varint_end(q)?;
                }
                (n, q)
            }
            RleVersion::V2 => {
                let h1 = u64::from(*s.get(p + 1).unwrap_or(&0));
                let len = ((u64::from(h0 & 1) << 8) | h1) + 1;
                let w = u64::from(decode_width((h0 >> 1) & 31));
                match h0 >> 6 {
                    0 => (u64::from(h0 & 7) + 3, p + 2 + usize::from((h0 >> 3) & 7)),
                    1 => (len, p + 2 + (w * len).div_ceil(8) as usize),
                    2 => {
                        let h2 = *s.get(p + 2)?;
                        let h3 = *s.get(p + 3)?;
                        let pw = decode_width(h2 & 31);
                        let ew = u64::from(closest_fixed_width(u32::from(h3 >> 5) + 1 + pw));
                        let patches = (ew * u64::from(h3 & 31)).div_ceil(8);
                        let body =
                            usize::from(h2 >> 5) + 1 + ((w * len).div_ceil(8) + patches) as usize;
                        (len, p + 4 + body)
                    }
                    _ => {
                        let q = varint_end(varint_end(p + 2)?)?;
                        let dw = if (h0 >> 1) & 31 == 0 { 0 } else { w };
                        (len, q + (dw * len.saturating_sub(2)).div_ceil(8) as usize)
                    }
                }
            }
        };
        values += n;
        groups += 1;
        p = next;
    }
    Some((values, groups))
}

/// The shape of a layout-2 payload's streams, from the headers of up to 256 sub-blocks spread
/// over it (`None` when none parses).
pub fn sample_shape(
    payload: &[u8],
    plan: &SubBlockPlan,
    version: RleVersion,
) -> Option<StreamShape> {
    let step = plan.units.len().div_ceil(256).max(1);
    let (mut values, mut groups, mut bytes, mut streams) = (0u64, 0u64, 0u64, 0u64);
    for u in plan.units.iter().step_by(step) {
        let start = u.in_offset as usize;
        let Some(stream) = payload.get(start..start + u.in_len as usize) else {
            continue;
        };
        if let Some((v, g)) = walk_groups(stream, version) {
            values += v;
            groups += g;
            bytes += stream.len() as u64;
            streams += 1;
        }
    }
    (groups > 0 && values > 0).then(|| StreamShape {
        mean_group: values as f64 / groups as f64,
        bytes_per_value: bytes as f64 / values as f64,
        mean_stream: bytes as f64 / streams.max(1) as f64,
    })
}

/// The decoder for layout-2 chunks, from [`sample_shape`] and the element width (see
/// [`pick_decoder`]). A lane per sub-block when no header parses.
pub fn choose_decoder(
    payload: &[u8],
    plan: &SubBlockPlan,
    version: RleVersion,
    elem: ElemType,
) -> Parallelism {
    decoder_for(sample_shape(payload, plan, version), version, elem)
}

/// [`pick_decoder`] for a sampled shape; a lane per sub-block when no header parsed.
fn decoder_for(shape: Option<StreamShape>, version: RleVersion, elem: ElemType) -> Parallelism {
    shape.map_or(Parallelism::LanePerSubBlock, |shape| {
        pick_decoder(version, shape, elem.size() == 8)
    })
}

/// Values per group at or below which the lanes in lockstep spend about one step a group
/// (they make up to 16 values a step), so that a sub-block's steps follow its groups, and its
/// groups its stream's length.
pub const BALANCE_MAX_GROUP: f64 = 16.0;
/// Stream bytes per sub-block at or above which neighbouring lanes share few 128-byte lines of
/// input, so that reordering the sub-blocks costs little locality.
pub const BALANCE_MIN_STREAM: f64 = 512.0;

/// Whether [`SubBlockPlan::balance`] pays for a plan of this shape decoded by `pick`: only for
/// the lanes in lockstep, on streams of short groups ([`BALANCE_MAX_GROUP`]) whose sub-blocks
/// are long enough ([`BALANCE_MIN_STREAM`]). Measured on an H100: dates
/// +2.2% (RLEv1) and +5.6% (RLEv2), RLEv1 discounts +8.8%; where it does not hold it lost: RLEv2
/// discounts (62 values a group) -5.3%, sorted keys (206-242 bytes a sub-block) -2% (RLEv1) and
/// -25% (RLEv2).
pub fn wants_balance(shape: StreamShape, pick: Parallelism) -> bool {
    pick == Parallelism::Lockstep
        && shape.mean_group <= BALANCE_MAX_GROUP
        && shape.mean_stream >= BALANCE_MIN_STREAM
}

/// Picks the decoder for a layout-2 plan ([`choose_decoder`]) and puts its units in the order
/// that decoder runs best ([`wants_balance`]). Returns the decoder.
pub fn arrange(
    payload: &[u8],
    plan: &mut SubBlockPlan,
    version: RleVersion,
    elem: ElemType,
) -> Parallelism {
    let shape = sample_shape(payload, plan, version);
    let pick = decoder_for(shape, version, elem);
    if shape.is_some_and(|shape| wants_balance(shape, pick)) {
        plan.balance();
    }
    pick
}

/// The rule [`choose_decoder`] applies, fitted to the ten bench columns on an H200 (it picks
/// the fastest of the four sub-block decoders on nine; on RLEv2 random values the warp per
/// sub-block measured 1000-1342 GB/s between runs on the H200 against 1264-1290
/// for the walk-and-expand decoder, and wins on the H100, 1174-1186 against 979-1055):
/// - RLEv1 into 8-byte values: a warp per sub-block where the values are long varints
///   ([`V1_WIDE_VARINTS`] bytes a value or more; H100), else the lanes in lockstep;
/// - RLEv1 into narrower values: the lanes in lockstep (363.2-847.5 GB/s there, against
///   192.4-615.0 for the walk-and-expand decoder);
/// - RLEv2 into 8-byte values: the walk-and-expand decoder where values hardly compress
///   ([`V2_WIDE_COMPRESSED`] bytes a value or more: 1264-1304 GB/s on the H200 in two
///   measurements, where the warp per sub-block ranged from 1000 to 1342), else the lanes in
///   lockstep;
/// - RLEv2 into narrower values: the walk-and-expand decoder for groups of
///   [`LONG_MEAN_GROUP`] values or more, else the lanes in lockstep.
pub fn pick_decoder(version: RleVersion, shape: StreamShape, wide: bool) -> Parallelism {
    match version {
        RleVersion::V1 if wide && shape.bytes_per_value >= V1_WIDE_VARINTS => {
            Parallelism::WarpPerChunk
        }
        RleVersion::V1 => Parallelism::Lockstep,
        RleVersion::V2 if wide && shape.bytes_per_value >= V2_WIDE_COMPRESSED => {
            Parallelism::WalkExpand
        }
        RleVersion::V2 if !wide && shape.mean_group >= LONG_MEAN_GROUP => Parallelism::WalkExpand,
        RleVersion::V2 => Parallelism::Lockstep,
    }
}

/// Decodes every chunk of a validated `orc-rle-v1`/`orc-rle-v2` container on the GPU into
/// `out` (the container's total length): layout 1 one warp per chunk, layout 2 with the
/// sub-block decoder [`choose_decoder`] picks. A chunk that does not decode gives the error of
/// the lowest such chunk, with the CPU's status (a failure under the warps is decoded again by
/// the lanes, which follow the CPU check for check).
pub fn decompress_into(
    gpu: &GpuContext,
    container: &Container<'_>,
    elem: ElemType,
    version: RleVersion,
    layout: Layout,
    out: &mut [u8],
) -> Result<()> {
    if out.len() as u64 != container.header.total_len {
        return Err(Error::InvalidArgument(format!(
            "output holds {} bytes, the container {}",
            out.len(),
            container.header.total_len
        )));
    }
    let spans = container_spans(container);
    let size = elem.size() as usize;
    let codec = StreamCodec::Int(version);
    let decoded = match layout {
        Layout::Plain => {
            let units = stream_units(container.payload, &spans, elem, layout)?;
            if out.is_empty() {
                return Ok(());
            }
            let mut batch = DecodeBatch::new(gpu, container.payload, &units, out.len(), size)?;
            batch.launch(gpu, gpu.stream(), codec, elem, Parallelism::WarpPerChunk)?;
            first_failure(&batch.statuses(gpu)?)?;
            batch.output(gpu)?
        }
        Layout::Indexed { sub_block } => {
            let mut plan = plan_sub_blocks(container.payload, &spans, elem, sub_block)?;
            if out.is_empty() {
                return plan.verdict(&[]);
            }
            let pick = arrange(container.payload, &mut plan, version, elem);
            let mut batch = DecodeBatch::new(gpu, container.payload, &plan.units, out.len(), size)?;
            batch.launch(gpu, gpu.stream(), codec, elem, pick)?;
            let mut statuses = batch.statuses(gpu)?;
            if pick == Parallelism::WarpPerChunk && statuses.iter().any(|&st| st != 0) {
                // The warps name the failing chunk, but not always with the CPU's status; the
                // lanes give it exactly.
                batch.launch(gpu, gpu.stream(), codec, elem, Parallelism::LanePerSubBlock)?;
                statuses = batch.statuses(gpu)?;
            }
            plan.verdict(&statuses)?;
            batch.output(gpu)?
        }
    };
    out.copy_from_slice(&decoded);
    Ok(())
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;

    /// The launch geometry on the Rust side must be the kernels' own.
    #[test]
    fn launch_constants_match_orc_rle_cu() {
        let src = kernels::ORC_RLE.text;
        let warps = src
            .lines()
            .find_map(|l| l.strip_prefix("#define ORC_WARPS "))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.trim_end_matches('u').parse::<u32>().ok())
            .unwrap_or_else(|| panic!("orc_rle.cu defines no ORC_WARPS"));
        assert_eq!(WARPS, warps);
        assert_eq!(std::mem::size_of::<OrcRleChunk>(), 32);
        let define = |src: &str, name: &str| {
            src.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.trim_end_matches('u').parse::<u32>().ok())
                .unwrap_or_else(|| panic!("no {name}"))
        };
        let lanes = kernels::ORC_RLE_LANES.text;
        assert_eq!(LANES_THREADS, define(lanes, "#define ORC_LANES_THREADS "));
        let expand = kernels::ORC_RLE_EXPAND.text;
        assert_eq!(LANES_THREADS, 32 * define(expand, "#define XP_WARPS "));
        let lockstep = kernels::ORC_RLE_LOCKSTEP.text;
        assert_eq!(LANES_THREADS, 32 * define(lockstep, "#define ST_WARPS "));
    }

    /// A generated column: name, element type, raw little-endian values.
    struct Column {
        name: &'static str,
        elem: ElemType,
        data: Vec<u8>,
    }

    /// The five columns of `warpzip bench --codec orc-rle`, `bytes` long each, generated here
    /// byte for byte as the benchmark does (same xorshift64* and seed): TPC-H's `l_orderkey`
    /// (sorted, 8 of every 32 keys, 1 to 7 lines an order), SSB's `lo_orderdate` (a random
    /// yyyymmdd repeated 1 to 7 times), `l_quantity` (1 to 50), `lo_discount` (0 to 10) and
    /// random i64 values.
    fn columns(bytes: usize) -> Vec<Column> {
        struct Rng(u64);
        impl Rng {
            fn next(&mut self) -> u64 {
                self.0 ^= self.0 >> 12;
                self.0 ^= self.0 << 25;
                self.0 ^= self.0 >> 27;
                self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
            }
            fn below(&mut self, n: u64) -> u64 {
                self.next() % n
            }
        }
        let mut rng = Rng(0x7c4_5eed_1234_abcd);
        let quantity: Vec<u8> = (0..bytes / 4)
            .flat_map(|_| (1 + rng.below(50) as i32).to_le_bytes())
            .collect();
        let discount: Vec<u8> = (0..bytes / 2)
            .flat_map(|_| (rng.below(11) as i16).to_le_bytes())
            .collect();
        let random: Vec<u8> = (0..bytes / 8)
            .flat_map(|_| (rng.next() as i64).to_le_bytes())
            .collect();
        let mut keys = Vec::with_capacity(bytes);
        let mut order = 0u64;
        while keys.len() < bytes / 8 * 8 {
            let key = (order / 8) * 32 + order % 8 + 1;
            for _ in 0..1 + rng.below(7) {
                keys.extend_from_slice(&(key as i64).to_le_bytes());
            }
            order += 1;
        }
        keys.truncate(bytes / 8 * 8);
        let mut dates = Vec::with_capacity(bytes);
        while dates.len() < bytes / 4 * 4 {
            let day = rng.below(2405) as u32;
            let (y, d) = (1992 + day / 365, day % 365);
            let date = (y * 10_000 + (d / 31 + 1).min(12) * 100 + d % 28 + 1) as i32;
            for _ in 0..1 + rng.below(7) {
                dates.extend_from_slice(&date.to_le_bytes());
            }
        }
        dates.truncate(bytes / 4 * 4);
        let column = |name, elem, data| Column { name, elem, data };
        vec![
            column("l_orderkey", ElemType::I64, keys),
            column("lo_orderdate", ElemType::I32, dates),
            column("l_quantity", ElemType::I32, quantity),
            column("lo_discount", ElemType::I16, discount),
            column("random", ElemType::I64, random),
        ]
    }

    /// The picker's choices on the bench's columns: the fastest of the four sub-block decoders
    /// on an H200, RLEv1 random values' staged warps (H100), and RLEv2 random values' walk and
    /// expand (H200).
    #[test]
    fn the_picker_takes_the_measured_winners() {
        use crate::codec::orc_rle::chunked;
        use Parallelism::{Lockstep as Step, WalkExpand as Expand, WarpPerChunk as Warps};
        // Per column, RLEv1 then RLEv2: the pick, and whether the units are reordered (dates
        // both ways, RLEv1 discounts).
        let want = [
            ("l_orderkey", [(Step, false), (Step, false)]),
            ("lo_orderdate", [(Step, true), (Step, true)]),
            ("l_quantity", [(Step, false), (Expand, false)]),
            ("lo_discount", [(Step, true), (Step, false)]),
            ("random", [(Warps, false), (Expand, false)]),
        ];
        for col in columns(2 << 20) {
            let Some((_, picks)) = want.iter().find(|(n, _)| *n == col.name) else {
                panic!("no expected pick for {}", col.name)
            };
            let layout = Layout::default_for(col.elem);
            let Layout::Indexed { sub_block } = layout else {
                panic!("the default layout has no index")
            };
            for (version, &(expected, expect_sorted)) in
                [RleVersion::V1, RleVersion::V2].into_iter().zip(picks)
            {
                let (payload, spans) =
                    chunked::compress(&col.data, col.elem, version, layout, 128 << 10)
                        .unwrap_or_else(|e| panic!("{e}"));
                let plan = plan_sub_blocks(&payload, &spans, col.elem, sub_block)
                    .unwrap_or_else(|e| panic!("{e}"));
                let pick = choose_decoder(&payload, &plan, version, col.elem);
                assert_eq!(pick, expected, "{} {version:?}", col.name);
                let mut arranged = plan_sub_blocks(&payload, &spans, col.elem, sub_block)
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(arrange(&payload, &mut arranged, version, col.elem), pick);
                assert_eq!(
                    arranged.units != plan.units,
                    expect_sorted,
                    "{} {version:?}",
                    col.name
                );
                assert!(
                    arranged
                        .units
                        .windows(2)
                        .all(|w| w[0].in_len >= w[1].in_len)
                        || !expect_sorted
                );
            }
        }
    }

    /// Reordered units keep their chunks, and the verdict is still that of the failing unit
    /// earliest in the output, whatever the order of the statuses.
    #[test]
    fn balanced_plans_keep_the_sequential_verdict() {
        let unit = |in_len: u32, out_offset: u64| OrcRleChunk {
            in_offset: 0,
            in_len,
            skip: 0,
            out_offset,
            count: 4,
            exact: 1,
        };
        let mut plan = SubBlockPlan {
            units: vec![unit(5, 0), unit(9, 4), unit(7, 8), unit(9, 12), unit(1, 16)],
            unit_chunk: vec![0, 0, 1, 1, 2],
            index_failure: None,
        };
        plan.balance();
        let lens: Vec<u32> = plan.units.iter().map(|u| u.in_len).collect();
        assert_eq!(lens, [9, 9, 7, 5, 1]);
        // Ties keep their order; every unit keeps its chunk.
        let offsets: Vec<u64> = plan.units.iter().map(|u| u.out_offset).collect();
        assert_eq!(offsets, [4, 12, 8, 0, 16]);
        assert_eq!(plan.unit_chunk, [0, 1, 1, 0, 2]);
        // Units of chunks 1 (out 12: CORRUPT, out 8: TRUNCATED) and 2 fail: chunk 1's first
        // sub-block (out 8) gives the verdict, though it comes later in the list.
        let statuses = [0, 2, 1, 0, 3];
        match plan.verdict(&statuses) {
            Err(Error::Corrupt { chunk: 1, reason }) => {
                assert_eq!(reason, ChunkStatus::Truncated.reason());
            }
            other => panic!("{other:?}"),
        }
        assert!(plan.verdict(&[0; 5]).is_ok());
        // An index failure in an earlier chunk still wins.
        plan.index_failure = Some((0, ChunkStatus::Corrupt));
        assert!(matches!(
            plan.verdict(&statuses),
            Err(Error::Corrupt { chunk: 0, .. })
        ));
    }

    #[test]
    fn chunks_outside_the_buffers_are_refused() {
        let ok = OrcRleChunk {
            in_offset: 0,
            in_len: 10,
            skip: 0,
            out_offset: 0,
            count: 4,
            exact: 1,
        };
        assert!(batch::check_spans(10, &[ok], 16, &batch_shape(4)).is_ok());
        let long_input = OrcRleChunk { in_len: 11, ..ok };
        assert!(batch::check_spans(10, &[long_input], 16, &batch_shape(4)).is_err());
        let long_output = OrcRleChunk { count: 5, ..ok };
        assert!(batch::check_spans(10, &[long_output], 16, &batch_shape(4)).is_err());
        let wrapping = OrcRleChunk {
            in_offset: u64::MAX,
            ..ok
        };
        assert!(batch::check_spans(10, &[wrapping], 16, &batch_shape(4)).is_err());
    }

    #[test]
    fn kernel_names_follow_the_entry_points() {
        let name = |c, e, p| kernel_name(c, e, p).unwrap_or_default();
        assert_eq!(
            name(
                StreamCodec::Int(RleVersion::V2),
                ElemType::I64,
                Parallelism::WarpPerChunk
            ),
            "orc_rle_v2_i64"
        );
        assert_eq!(
            name(
                StreamCodec::Int(RleVersion::V1),
                ElemType::U8,
                Parallelism::LeaderPerBlock
            ),
            "orc_rle_v1_leader_u8"
        );
        assert_eq!(
            name(StreamCodec::Byte, ElemType::U8, Parallelism::WarpPerChunk),
            "orc_byte_rle"
        );
        assert!(kernel_name(
            StreamCodec::Int(RleVersion::V1),
            ElemType::F32,
            Parallelism::WarpPerChunk
        )
        .is_err());
    }
}
