//! ORC run-length decoding on the GPU (`kernels/orc_rle.cu`, on the CODAG framework of
//! `kernels/codag.cuh`): one warp per chunk, a persistent grid. A batch is a set of
//! [`OrcRleChunk`]s over one input buffer; each chunk decodes one ORC stream (or the part of it
//! that one ORC row group needs) into its place in one output array. The same batches also run
//! on the block-per-chunk leader-thread decoders of `kernels/orc_rle_leader.cu`, the ablation the
//! benchmark compares against.

use super::format::{check_elem, RleVersion};
use crate::error::{ChunkStatus, Error, Result};
use crate::format::{Container, ElemType};
use crate::gpu::compile::KernelSource;
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{CudaStream, DeviceRepr};
use std::sync::Arc;

/// Warps per block of the warp-per-chunk kernels; must match `ORC_WARPS` in orc_rle.cu.
pub const WARPS: u32 = 4;
/// Threads per block of the leader-thread ablation kernels.
pub const LEADER_THREADS: u32 = 128;
/// Resident blocks per SM the persistent grid asks for (the kernels use about 56 registers, so
/// 8 blocks of 128 threads fit).
const BLOCKS_PER_SM: u32 = 8;
/// Input buffers are padded to a multiple of this many bytes: the kernels load whole aligned
/// 128-byte blocks around a chunk's bytes.
pub const INPUT_ALIGN: usize = 128;

/// One unit of GPU work; the layout of `OrcRleChunk` in `kernels/orc_int.cuh`. The stream at
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
    /// CODAG: one warp per chunk, all lanes decoding together (the library's decoder).
    WarpPerChunk,
    /// The ablation: one thread block per chunk, a leader thread parsing and the block writing.
    LeaderPerBlock,
}

/// The kernel entry point for a codec, element type and parallelisation.
pub fn kernel_name(codec: StreamCodec, elem: ElemType, par: Parallelism) -> Result<String> {
    match codec {
        StreamCodec::Byte => match par {
            Parallelism::WarpPerChunk => Ok("orc_byte_rle".to_string()),
            Parallelism::LeaderPerBlock => Err(Error::Unsupported(
                "the leader-thread ablation decodes integer RLE only".into(),
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
            };
            Ok(format!("orc_rle_{v}{p}_{}", elem.name()))
        }
    }
}

/// Device buffers of one batch: the padded input, the chunk list, the output, one status per
/// chunk and the persistent grid's work counter.
pub struct DecodeBatch {
    pub input: CudaSlice<u8>,
    pub chunks: CudaSlice<OrcRleChunk>,
    pub n_chunks: u32,
    /// The output, `out_len` bytes used (padded to 8).
    pub out: CudaSlice<u8>,
    pub out_len: usize,
    pub status: CudaSlice<u32>,
    counter: CudaSlice<u32>,
}

/// `bytes` copied into a vector padded with zeros to a multiple of [`INPUT_ALIGN`].
pub fn padded(bytes: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(bytes.len().div_ceil(INPUT_ALIGN) * INPUT_ALIGN);
    v.extend_from_slice(bytes);
    v.resize(bytes.len().div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN, 0);
    v
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
        check_chunks(input.len(), chunks, out_len, elem_size)?;
        let n_chunks = u32::try_from(chunks.len())
            .map_err(|_| Error::InvalidArgument("too many chunks for one GPU batch".into()))?;
        Ok(DecodeBatch {
            input: gpu.upload(&padded(input))?,
            chunks: gpu.upload(chunks)?,
            n_chunks,
            out: gpu.alloc(out_len.div_ceil(8) * 8)?,
            out_len,
            status: gpu.alloc_zeros(chunks.len().max(1))?,
            counter: gpu.alloc_zeros(1)?,
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
        let source = match par {
            Parallelism::WarpPerChunk => &kernels::ORC_RLE,
            Parallelism::LeaderPerBlock => &kernels::ORC_RLE_LEADER,
        };
        self.launch_kernel(gpu, stream, source, &name, par)
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
        if self.n_chunks == 0 {
            return Ok(());
        }
        let function = gpu.function(source, name)?;
        let blocks = match par {
            Parallelism::WarpPerChunk => self.n_chunks.div_ceil(WARPS),
            Parallelism::LeaderPerBlock => self.n_chunks,
        };
        let cfg = LaunchConfig {
            grid_dim: (blocks.min(gpu.sm_count() * BLOCKS_PER_SM).max(1), 1, 1),
            block_dim: (WARPS * 32, 1, 1),
            shared_mem_bytes: 0,
        };
        stream.memset_zeros(&mut self.counter)?;
        let mut launch = stream.launch_builder(&function);
        launch
            .arg(&self.input)
            .arg(&self.chunks)
            .arg(&self.n_chunks)
            .arg(&mut self.out)
            .arg(&mut self.status)
            .arg(&mut self.counter);
        // SAFETY: the arguments match ORC_KERNEL_PARAMS (input, chunks, count, output, statuses,
        // counter). `check_chunks` proved that every chunk's input lies inside the input, whose
        // allocation is padded to a multiple of 128 bytes as the framework requires, and that
        // every chunk's values lie inside the output; the kernels bound every read by the chunk's
        // `in_len` and write only values skip..skip+count of each chunk.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    /// Overwrites the output with `byte` (tests poison it before a kernel runs).
    pub fn poison_output(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        let poison = vec![byte; self.out.len()];
        gpu.stream().memcpy_htod(&poison, &mut self.out)?;
        Ok(())
    }

    /// The per-chunk statuses (synchronises).
    pub fn statuses(&self, gpu: &GpuContext) -> Result<Vec<u32>> {
        let mut s = gpu.download(&self.status)?;
        s.truncate(self.n_chunks as usize);
        Ok(s)
    }

    /// The output's bytes (synchronises).
    pub fn output(&self, gpu: &GpuContext) -> Result<Vec<u8>> {
        let mut out = gpu.download(&self.out)?;
        out.truncate(self.out_len);
        Ok(out)
    }
}

/// Rejects chunks that reach outside the input or the output.
fn check_chunks(
    input_len: usize,
    chunks: &[OrcRleChunk],
    out_len: usize,
    elem_size: usize,
) -> Result<()> {
    let out_elems = (out_len / elem_size.max(1)) as u64;
    for (i, c) in chunks.iter().enumerate() {
        let in_end = c.in_offset.checked_add(u64::from(c.in_len));
        let out_end = c.out_offset.checked_add(u64::from(c.count));
        if in_end.is_none_or(|e| e > input_len as u64) || out_end.is_none_or(|e| e > out_elems) {
            return Err(Error::InvalidArgument(format!(
                "GPU chunk {i} reaches outside its input ({input_len} bytes) or output \
                 ({out_elems} values)"
            )));
        }
    }
    Ok(())
}

/// The error of the lowest-numbered failed chunk, if any.
pub fn first_failure(statuses: &[u32]) -> Result<()> {
    match statuses.iter().position(|&s| s != 0) {
        Some(i) => Err(Error::chunk(i, ChunkStatus::from_code(statuses[i]))),
        None => Ok(()),
    }
}

/// The chunks of a validated `orc-rle-v1`/`orc-rle-v2` container as GPU work over its payload.
pub fn container_chunks(container: &Container<'_>, elem: ElemType) -> Result<Vec<OrcRleChunk>> {
    let size = elem.size();
    let base = container.payload.as_ptr() as usize;
    let mut out_offset = 0u64;
    let mut chunks = Vec::with_capacity(container.chunk_count());
    for (i, entry) in container.chunks.iter().enumerate() {
        let bytes = container.chunk_bytes(i);
        let len = u64::from(entry.uncompressed_len);
        if !len.is_multiple_of(size) {
            return Err(Error::chunk(i, ChunkStatus::Corrupt));
        }
        let count = len / size;
        chunks.push(OrcRleChunk {
            in_offset: (bytes.as_ptr() as usize - base) as u64,
            in_len: entry.compressed_len,
            skip: 0,
            out_offset,
            count: count as u32,
            exact: 1,
        });
        out_offset += count;
    }
    Ok(chunks)
}

/// Decodes every chunk of a validated `orc-rle-v1`/`orc-rle-v2` container on the GPU into
/// `out` (the container's total length). A chunk that does not decode gives `Error::Corrupt`
/// naming the lowest such chunk, as the CPU path does.
pub fn decompress_into(
    gpu: &GpuContext,
    container: &Container<'_>,
    elem: ElemType,
    version: RleVersion,
    par: Parallelism,
    out: &mut [u8],
) -> Result<()> {
    if out.len() as u64 != container.header.total_len {
        return Err(Error::InvalidArgument(format!(
            "output holds {} bytes, the container {}",
            out.len(),
            container.header.total_len
        )));
    }
    let chunks = container_chunks(container, elem)?;
    if out.is_empty() {
        return Ok(());
    }
    let mut batch = DecodeBatch::new(
        gpu,
        container.payload,
        &chunks,
        out.len(),
        elem.size() as usize,
    )?;
    batch.launch(gpu, gpu.stream(), StreamCodec::Int(version), elem, par)?;
    first_failure(&batch.statuses(gpu)?)?;
    let decoded = batch.output(gpu)?;
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
        let src = include_str!("../../kernels/orc_rle.cu");
        let warps = src
            .lines()
            .find_map(|l| l.strip_prefix("#define ORC_WARPS "))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.trim_end_matches('u').parse::<u32>().ok())
            .unwrap_or_else(|| panic!("orc_rle.cu defines no ORC_WARPS"));
        assert_eq!(WARPS, warps);
        assert_eq!(std::mem::size_of::<OrcRleChunk>(), 32);
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
        assert!(check_chunks(10, &[ok], 16, 4).is_ok());
        let long_input = OrcRleChunk { in_len: 11, ..ok };
        assert!(check_chunks(10, &[long_input], 16, 4).is_err());
        let long_output = OrcRleChunk { count: 5, ..ok };
        assert!(check_chunks(10, &[long_output], 16, 4).is_err());
        let wrapping = OrcRleChunk {
            in_offset: u64::MAX,
            ..ok
        };
        assert!(check_chunks(10, &[wrapping], 16, 4).is_err());
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
