//! Byte views of Python objects through the buffer protocol: no copy in, and writes in place
//! for `out=` buffers. A view keeps its buffer exported (and so its memory alive and unmoved)
//! until it is dropped.

use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::prelude::*;

/// A read-only byte view of a C-contiguous buffer.
pub struct ReadView {
    buf: PyBuffer<u8>,
}

impl ReadView {
    pub fn as_slice(&self) -> &[u8] {
        let len = self.buf.len_bytes();
        if len == 0 {
            return &[];
        }
        // SAFETY: the buffer is C-contiguous (checked in `read_slice`), `len_bytes` long and
        // stays exported, so its memory stays valid and in place, for as long as `self` lives.
        unsafe { std::slice::from_raw_parts(self.buf.buf_ptr() as *const u8, len) }
    }
}

/// A writable byte view of a C-contiguous buffer.
pub struct WriteView {
    buf: PyBuffer<u8>,
}

impl WriteView {
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        let len = self.buf.len_bytes();
        if len == 0 {
            return &mut [];
        }
        // SAFETY: the buffer is writable and C-contiguous (checked in `write_slice`),
        // `len_bytes` long and stays exported for as long as `self` lives; the one mutable
        // slice is borrowed from `self`.
        unsafe { std::slice::from_raw_parts_mut(self.buf.buf_ptr() as *mut u8, len) }
    }
}

/// The object's buffer as unsigned bytes: the Python package casts typed memoryviews to bytes
/// (`memoryview(x).cast("B")`) before they get here.
fn byte_buffer(obj: &Bound<'_, PyAny>) -> PyResult<PyBuffer<u8>> {
    let buf = PyBuffer::<u8>::get(obj).map_err(|e| {
        PyTypeError::new_err(format!(
            "expected a bytes-like object (buffer of unsigned bytes): {e}"
        ))
    })?;
    if !buf.is_c_contiguous() {
        return Err(PyBufferError::new_err("the buffer is not C-contiguous"));
    }
    Ok(buf)
}

pub fn read_slice(obj: &Bound<'_, PyAny>) -> PyResult<ReadView> {
    Ok(ReadView {
        buf: byte_buffer(obj)?,
    })
}

pub fn write_slice(obj: &Bound<'_, PyAny>) -> PyResult<WriteView> {
    let buf = byte_buffer(obj)?;
    if buf.readonly() {
        return Err(PyBufferError::new_err("the output buffer is read-only"));
    }
    Ok(WriteView { buf })
}
