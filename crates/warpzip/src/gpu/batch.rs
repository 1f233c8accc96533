//! The chunk batch the GPU chunk decoders share: one input buffer holding every chunk's
//! compressed bytes (padded for the kernels' aligned loads), one record a chunk saying where its
//! input and output lie, one output buffer, the per-chunk statuses and the persistent grid's work
//! counter. The batch checks every record against the buffers before anything reaches the GPU,
//! so a kernel can trust its records; a decoder adds only its record type and its launch.

use super::GpuContext;
use crate::error::{ChunkStatus, Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};
use std::sync::Arc;

/// A chunk's record, in the layout its kernel reads.
pub trait ChunkRecord: DeviceRepr + Copy {
    /// The chunk's compressed bytes: offset and length in the batch input.
    fn input_span(&self) -> (u64, u64);
    /// Where the chunk's kernel may write: offset and length in output units
    /// ([`BatchShape::out_unit`] bytes each).
    fn output_span(&self) -> (u64, u64);
}

/// The buffer rules of one decoder's kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchShape {
    /// The input allocation is a multiple of this many bytes (the kernels load whole aligned
    /// blocks around a chunk's bytes).
    pub input_align: usize,
    /// Zero bytes an uploaded input gets after its last byte, before rounding up to
    /// `input_align` (for kernels that read windows past a stream's end).
    pub input_slack: usize,
    /// Bytes of one output unit (a value, or a byte).
    pub out_unit: usize,
    /// Every chunk's output starts at a multiple of this many bytes.
    pub out_align: usize,
    /// The output allocation is a multiple of this many bytes (at least one multiple).
    pub out_round: usize,
    /// `u32` status words a chunk (the first is its `ChunkStatus` code).
    pub status_words: usize,
    /// What the decoder calls a chunk in errors ("GPU chunk", "GPU inflate stream").
    pub noun: &'static str,
}

/// Device buffers of one batch; see the module documentation.
pub struct ChunkBatch<R: ChunkRecord> {
    /// Every chunk's compressed bytes, at the offsets the records give.
    pub input: CudaSlice<u8>,
    /// The records, on the device.
    pub records: CudaSlice<R>,
    /// The records, on the host.
    pub host_records: Vec<R>,
    /// The output; its first `out_len` bytes are the decoded data.
    pub out: CudaSlice<u8>,
    /// Bytes of the output that hold data (the allocation may be rounded up).
    pub out_len: usize,
    /// `status_words` words a chunk, zeroed when the batch is made.
    pub status: CudaSlice<u32>,
    /// The persistent grid's next-chunk counter; [`ChunkBatch::reset_counter`] before a launch.
    pub counter: CudaSlice<u32>,
    count: u32,
    shape: BatchShape,
}

impl<R: ChunkRecord> ChunkBatch<R> {
    /// Uploads `input` (followed by `shape.input_slack` zeros and padded to
    /// `shape.input_align`) and `records`, and allocates an output of `out_len` bytes (rounded
    /// up to `shape.out_round`). Every record must lie inside both: `Error::InvalidArgument`
    /// otherwise, before anything reaches the GPU.
    pub fn upload(
        gpu: &GpuContext,
        input: &[u8],
        records: Vec<R>,
        out_len: usize,
        shape: BatchShape,
    ) -> Result<ChunkBatch<R>> {
        // The records must lie inside the caller's bytes, not merely inside the padding.
        check_spans(input.len(), &records, out_len, &shape)?;
        let padded = padded(input, shape.input_slack, shape.input_align)?;
        let rounded = out_len.div_ceil(shape.out_round.max(1)).max(1) * shape.out_round.max(1);
        let out = gpu.alloc_for::<u8>(rounded, "a GPU batch's output")?;
        let input = gpu.upload_for(&padded, "a GPU batch's input")?;
        ChunkBatch::from_device(gpu, input, records, out, out_len, shape)
    }

    /// A batch over buffers already on the device: `input` (a multiple of `shape.input_align`
    /// bytes) holds the chunks, the first `out_len` bytes of `out` receive the outputs. Every
    /// record must lie inside both, its output aligned as `shape` says: `Error::InvalidArgument`
    /// otherwise, before anything runs.
    pub fn from_device(
        gpu: &GpuContext,
        input: CudaSlice<u8>,
        records: Vec<R>,
        out: CudaSlice<u8>,
        out_len: usize,
        shape: BatchShape,
    ) -> Result<ChunkBatch<R>> {
        if out_len > out.len() {
            return Err(Error::InvalidArgument(format!(
                "a batch output of {out_len} bytes in a buffer of {}",
                out.len()
            )));
        }
        check_records(input.len(), &records, out_len, &shape)?;
        let count = u32::try_from(records.len()).map_err(|_| {
            Error::InvalidArgument(format!(
                "too many chunks for one GPU batch ({})",
                records.len()
            ))
        })?;
        Ok(ChunkBatch {
            input,
            records: gpu.upload_for(&records, "a GPU batch's chunk list")?,
            host_records: records,
            out,
            out_len,
            status: gpu.alloc_zeros_for(
                count.max(1) as usize * shape.status_words.max(1),
                "a GPU batch's chunk status",
            )?,
            counter: gpu.alloc_zeros(1)?,
            count,
            shape,
        })
    }

    /// Number of chunks.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// Zeroes the work counter on `stream`, before a launch of a persistent grid.
    pub fn reset_counter(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        stream.memset_zeros(&mut self.counter)?;
        Ok(())
    }

    /// Overwrites the whole output allocation with `byte` (tests poison it before a kernel
    /// runs, so that an unwritten byte cannot pass).
    pub fn poison_output(&mut self, gpu: &GpuContext, byte: u8) -> Result<()> {
        let poison = crate::error::try_filled(byte, self.out.len(), "the poison for a GPU batch")?;
        gpu.stream().memcpy_htod(&poison, &mut self.out)?;
        Ok(())
    }

    /// Every chunk's status words, `status_words` a chunk (synchronises).
    pub fn status_words(&self, gpu: &GpuContext) -> Result<Vec<u32>> {
        let mut words = gpu.download(&self.status)?;
        words.truncate(self.count as usize * self.shape.status_words.max(1));
        Ok(words)
    }

    /// The output's first `out_len` bytes (synchronises).
    pub fn output(&self, gpu: &GpuContext) -> Result<Vec<u8>> {
        let mut out = gpu.download(&self.out)?;
        out.truncate(self.out_len);
        Ok(out)
    }
}

/// The error of the lowest-numbered chunk whose status (the first of its `words` words) is
/// not OK, if any.
pub fn first_failure(statuses: &[u32], words: usize) -> Result<()> {
    match statuses
        .iter()
        .step_by(words.max(1))
        .position(|&code| code != 0)
    {
        Some(i) => Err(Error::chunk(
            i,
            ChunkStatus::from_code(statuses[i * words.max(1)]),
        )),
        None => Ok(()),
    }
}

/// `bytes` copied into a vector with `slack` zeros after them, padded with more zeros to a
/// multiple of `align` (at least one multiple); `Error::OutOfMemory` when it cannot be had.
pub fn padded(bytes: &[u8], slack: usize, align: usize) -> Result<Vec<u8>> {
    let align = align.max(1);
    let len = bytes
        .len()
        .saturating_add(slack)
        .div_ceil(align)
        .max(1)
        .saturating_mul(align);
    let mut v = crate::error::try_with_capacity(len, "a padded GPU upload")?;
    v.extend_from_slice(bytes);
    v.resize(len, 0);
    Ok(v)
}

/// Rejects an input that is not padded as `shape` says, and records that reach outside the
/// input or the output or whose output is misaligned.
pub fn check_records<R: ChunkRecord>(
    input_len: usize,
    records: &[R],
    out_len: usize,
    shape: &BatchShape,
) -> Result<()> {
    if !input_len.is_multiple_of(shape.input_align.max(1)) {
        return Err(Error::InvalidArgument(format!(
            "{} input of {input_len} bytes is not padded to a multiple of {}",
            shape.noun, shape.input_align
        )));
    }
    check_spans(input_len, records, out_len, shape)
}

/// Rejects records that reach outside `input_len` input bytes or `out_len` output bytes, or
/// whose output is misaligned.
pub fn check_spans<R: ChunkRecord>(
    input_len: usize,
    records: &[R],
    out_len: usize,
    shape: &BatchShape,
) -> Result<()> {
    let noun = shape.noun;
    let unit = shape.out_unit.max(1) as u64;
    let out_units = out_len as u64 / unit;
    for (i, r) in records.iter().enumerate() {
        let (in_offset, in_len) = r.input_span();
        let (out_offset, out_count) = r.output_span();
        let in_end = in_offset.checked_add(in_len);
        let out_end = out_offset.checked_add(out_count);
        let aligned = out_offset
            .checked_mul(unit)
            .is_some_and(|b| b.is_multiple_of(shape.out_align.max(1) as u64));
        if in_end.is_none_or(|e| e > input_len as u64)
            || out_end.is_none_or(|e| e > out_units)
            || !aligned
        {
            return Err(Error::InvalidArgument(format!(
                "{noun} {i} reaches outside its input ({input_len} bytes) or output \
                 ({out_units} units of {unit} bytes), or its output is not {}-byte aligned",
                shape.out_align
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[repr(C)]
    #[derive(Clone, Copy, Debug)]
    struct Rec {
        in_offset: u64,
        in_len: u64,
        out_offset: u64,
        count: u64,
    }

    // SAFETY: plain `#[repr(C)]` data of four u64s.
    unsafe impl DeviceRepr for Rec {}

    impl ChunkRecord for Rec {
        fn input_span(&self) -> (u64, u64) {
            (self.in_offset, self.in_len)
        }
        fn output_span(&self) -> (u64, u64) {
            (self.out_offset, self.count)
        }
    }

    const SHAPE: BatchShape = BatchShape {
        input_align: 128,
        input_slack: 0,
        out_unit: 4,
        out_align: 4,
        out_round: 8,
        status_words: 1,
        noun: "test chunk",
    };

    #[test]
    fn records_outside_the_buffers_are_refused() {
        let ok = Rec {
            in_offset: 0,
            in_len: 100,
            out_offset: 1,
            count: 3,
        };
        assert!(check_records(128, &[ok], 16, &SHAPE).is_ok());
        assert!(check_records(100, &[ok], 16, &SHAPE).is_err());
        assert!(check_records(128, &[Rec { in_len: 129, ..ok }], 16, &SHAPE).is_err());
        assert!(check_records(128, &[Rec { count: 4, ..ok }], 16, &SHAPE).is_err());
        assert!(check_records(
            128,
            &[Rec {
                in_offset: u64::MAX,
                ..ok
            }],
            16,
            &SHAPE
        )
        .is_err());
        assert!(check_records(
            128,
            &[Rec {
                out_offset: u64::MAX,
                ..ok
            }],
            16,
            &SHAPE
        )
        .is_err());
        let bytes = BatchShape {
            out_unit: 1,
            ..SHAPE
        };
        assert!(check_records(
            128,
            &[Rec {
                out_offset: 2,
                ..ok
            }],
            16,
            &bytes
        )
        .is_err());
        assert!(check_records(
            128,
            &[Rec {
                out_offset: 4,
                ..ok
            }],
            16,
            &bytes
        )
        .is_ok());
    }

    #[test]
    fn padding_adds_slack_and_rounds_up() {
        assert_eq!(padded(&[], 0, 128).unwrap().len(), 128);
        assert_eq!(padded(&[1; 128], 0, 128).unwrap().len(), 128);
        assert_eq!(padded(&[1; 128], 1, 128).unwrap().len(), 256);
        let p = padded(&[7; 3], 128, 128).unwrap();
        assert_eq!(p.len(), 256);
        assert_eq!(&p[..4], &[7, 7, 7, 0]);
    }

    #[test]
    fn the_lowest_failing_chunk_is_named() {
        assert!(first_failure(&[0, 0, 0], 1).is_ok());
        let err = first_failure(&[0, 9, 0, 5, 0, 0, 1, 0, 0], 3);
        assert!(matches!(err, Err(Error::Corrupt { chunk: 1, .. })));
        assert!(first_failure(&[], 3).is_ok());
    }
}
