//! Library errors as Python exceptions, and panics caught before they reach the interpreter.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyMemoryError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _warpzip,
    WarpzipError,
    PyException,
    "A failure inside warpzip that is neither bad input nor a missing GPU."
);
create_exception!(
    _warpzip,
    CorruptDataError,
    PyValueError,
    "The compressed input is damaged: a checksum, an encoding, a size or a header is wrong."
);
create_exception!(
    _warpzip,
    UnsupportedError,
    PyValueError,
    "The input is valid but uses something this build does not handle (a newer format \
     version, a codec it lacks, an ORC union column)."
);
create_exception!(
    _warpzip,
    GpuUnavailableError,
    PyRuntimeError,
    "No usable CUDA GPU: the driver or NVRTC is missing, or no device opens."
);

/// The Python exception for a library error.
pub fn to_py(e: warpzip::Error) -> PyErr {
    use warpzip::Error as E;
    let msg = e.to_string();
    match e {
        E::Corrupt { .. }
        | E::CorruptContainer(_)
        | E::CorruptGzip { .. }
        | E::CorruptOrc(_)
        | E::Truncated(_) => CorruptDataError::new_err(msg),
        E::InvalidArgument(_) => PyValueError::new_err(msg),
        E::Unsupported(_) => UnsupportedError::new_err(msg),
        E::NoDevice(_) => GpuUnavailableError::new_err(msg),
        E::OutOfMemory { .. } => PyMemoryError::new_err(msg),
        E::Io(io) => PyOSError::new_err(io.to_string()),
        _ => WarpzipError::new_err(msg),
    }
}

/// Runs `f`, turning its error into a Python exception and a panic into `WarpzipError`.
pub fn guard<T>(f: impl FnOnce() -> warpzip::Result<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(result) => result.map_err(to_py),
        Err(payload) => Err(WarpzipError::new_err(format!(
            "internal error: {}",
            panic_message(payload.as_ref())
        ))),
    }
}

/// The text a panic was raised with.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic without a message".to_string())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("WarpzipError", py.get_type::<WarpzipError>())?;
    m.add("CorruptDataError", py.get_type::<CorruptDataError>())?;
    m.add("UnsupportedError", py.get_type::<UnsupportedError>())?;
    m.add("GpuUnavailableError", py.get_type::<GpuUnavailableError>())?;
    Ok(())
}
