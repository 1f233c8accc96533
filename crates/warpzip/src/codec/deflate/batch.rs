//! Inflating a batch of independent raw-deflate streams, on the CPU or the GPU, into
//! caller-provided buffers.

use super::{cpu, gpu};
use crate::device::Device;
use crate::error::{ChunkStatus, Error, Result};
use rayon::prelude::*;

/// What inflating one stream gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamResult {
    /// `Ok` when a final block ended the stream inside its input and every byte fitted in its
    /// output; otherwise why decoding stopped. The CPU path reports every malformed stream as
    /// `Corrupt`; the GPU tells truncation and bad distances apart.
    pub status: ChunkStatus,
    /// Bytes written to the output (meaningful when `status` is `Ok`).
    pub written: usize,
    /// Bytes of input up to the end of the final block, rounded up to a byte (meaningful when
    /// `status` is `Ok`); a stream may be followed by other bytes (a gzip trailer).
    pub consumed: usize,
}

impl StreamResult {
    /// A result for a stream that could not be decoded.
    pub fn failed(status: ChunkStatus) -> StreamResult {
        StreamResult {
            status,
            written: 0,
            consumed: 0,
        }
    }
}

/// Inflates every `inputs[i]` (a raw-deflate stream) into `outputs[i]`, on `device`. A
/// malformed stream is reported in its result, never as an `Err` and never by a panic; `Err`
/// means the batch itself could not run (mismatched lengths, a GPU failure).
pub fn inflate_batch(
    device: &Device,
    inputs: &[&[u8]],
    outputs: &mut [&mut [u8]],
) -> Result<Vec<StreamResult>> {
    if inputs.len() != outputs.len() {
        return Err(Error::InvalidArgument(format!(
            "{} input streams but {} output buffers",
            inputs.len(),
            outputs.len()
        )));
    }
    match device {
        Device::Cpu => Ok(inputs
            .par_iter()
            .zip(outputs.par_iter_mut())
            .map(|(input, output)| cpu::inflate(input, output))
            .collect()),
        Device::Gpu(g) => gpu::inflate_host(g, inputs, outputs),
    }
}

/// `Ok(())` when every result is `Ok` and wrote exactly `expected[i]` bytes; otherwise the error
/// for the first stream that did not, naming it as chunk `first_chunk + i`.
pub fn check_results(
    results: &[StreamResult],
    expected: &[usize],
    first_chunk: usize,
) -> Result<()> {
    for (i, (r, &want)) in results.iter().zip(expected).enumerate() {
        let status = match r.status {
            ChunkStatus::Ok if r.written < want => ChunkStatus::Underflow,
            ChunkStatus::Ok if r.written > want => ChunkStatus::Overflow,
            s => s,
        };
        if status != ChunkStatus::Ok {
            return Err(Error::chunk(first_chunk + i, status));
        }
    }
    Ok(())
}
