//! Devices named by strings (`auto`, `cpu`, `cuda`, `cuda:N`), opened once and shared by every
//! call; what the GPU probe found, for `gpu_info()`; and copies between host buffers and CUDA
//! device pointers, for arrays handed over through DLPack or `__cuda_array_interface__`.

use crate::buffers::{read_slice, write_slice};
use crate::errors::{guard, GpuUnavailableError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Mutex, OnceLock};
use warpzip::Device;

/// GPUs opened so far, by ordinal.
static OPENED: Mutex<Vec<(usize, Device)>> = Mutex::new(Vec::new());
/// What `auto` resolved to, once: GPU 0, or the CPU with the reason GPU 0 did not open.
static AUTO: OnceLock<Result<Device, String>> = OnceLock::new();

/// GPU `ordinal`, opened on first use (and kept open).
pub fn open_gpu(ordinal: usize) -> warpzip::Result<Device> {
    let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, d)) = opened.iter().find(|(o, _)| *o == ordinal) {
        return Ok(d.clone());
    }
    let device = Device::gpu(ordinal)?;
    opened.push((ordinal, device.clone()));
    Ok(device)
}

/// GPU `ordinal` for a Python call. It is opened with the GIL held: a thread waiting for the
/// cache's lock never holds the GIL that the thread opening a GPU would need back.
fn gpu(py: Python<'_>, ordinal: usize) -> PyResult<Device> {
    let _ = py;
    guard(|| open_gpu(ordinal))
}

/// What `auto` resolved to, once: GPU 0, or the CPU and the reason GPU 0 did not open.
fn auto_choice() -> &'static Result<Device, String> {
    AUTO.get_or_init(|| open_gpu(0).map_err(|e| e.to_string()))
}

/// The device `auto` names: GPU 0 when usable, else the CPU.
pub fn auto_device() -> Device {
    auto_choice().as_ref().map_or(Device::Cpu, Device::clone)
}

/// The device `name` names: `auto` (GPU 0 when usable, else the CPU), `cpu`, `cuda` or `gpu`
/// (GPU 0), `cuda:N` or `gpu:N`.
pub fn parse_device(py: Python<'_>, name: &str) -> PyResult<Device> {
    match name {
        "auto" => Ok(auto_device()),
        "cpu" => Ok(Device::Cpu),
        "cuda" | "gpu" => gpu(py, 0),
        other => {
            let ordinal = other
                .strip_prefix("cuda:")
                .or_else(|| other.strip_prefix("gpu:"))
                .and_then(|n| n.parse::<usize>().ok())
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown device '{other}' (known: auto, cpu, cuda, cuda:N)"
                    ))
                })?;
            gpu(py, ordinal)
        }
    }
}

/// Whether a GPU is used by `device="auto"`, and why or why not.
#[pyfunction]
fn gpu_info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    match auto_choice() {
        Ok(Device::Gpu(g)) => {
            d.set_item("available", true)?;
            d.set_item("reason", "GPU 0 opened and its kernels compile")?;
            d.set_item("name", g.name())?;
            d.set_item("arch", g.arch())?;
            d.set_item("sm_count", g.sm_count())?;
        }
        Ok(Device::Cpu) => {
            d.set_item("available", false)?;
            d.set_item("reason", "the CPU was chosen")?;
        }
        Err(why) => {
            d.set_item("available", false)?;
            d.set_item("reason", why)?;
        }
    }
    d.set_item("device", parse_device(py, "auto")?.label())?;
    Ok(d)
}

/// The CUDA context of GPU `ordinal`, made current on this thread.
fn bind(py: Python<'_>, ordinal: usize) -> PyResult<std::sync::Arc<warpzip::GpuContext>> {
    match gpu(py, ordinal)? {
        Device::Gpu(g) => {
            g.context()
                .bind_to_thread()
                .map_err(|e| GpuUnavailableError::new_err(e.to_string()))?;
            Ok(g)
        }
        Device::Cpu => Err(GpuUnavailableError::new_err(format!(
            "GPU {ordinal} is not open"
        ))),
    }
}

/// The stream handle a Python caller passed: `None` for the legacy default stream (handle 1
/// in the CUDA array interface and DLPack, 0 in the driver API), else the raw handle.
fn stream_handle(stream: Option<usize>) -> cudarc::driver::sys::CUstream {
    match stream {
        None | Some(0) | Some(1) => std::ptr::null_mut(),
        Some(2) => 2usize as cudarc::driver::sys::CUstream,
        Some(h) => h as cudarc::driver::sys::CUstream,
    }
}

/// Copies `out`'s length of bytes from device address `ptr` of GPU `ordinal` into the
/// writable host buffer `out`, ordered after the work queued on `stream`.
#[pyfunction]
#[pyo3(signature = (ptr, out, ordinal=0, stream=None))]
fn device_to_host(
    py: Python<'_>,
    ptr: u64,
    out: &Bound<'_, PyAny>,
    ordinal: usize,
    stream: Option<usize>,
) -> PyResult<()> {
    let _gpu = bind(py, ordinal)?;
    let mut view = write_slice(out)?;
    let dst = view.as_mut_slice();
    let s = stream_handle(stream) as usize;
    py.detach(|| {
        let s = s as cudarc::driver::sys::CUstream;
        // SAFETY: the caller hands a device pointer of at least `dst.len()` bytes (from a DLPack
        // tensor or a CUDA array interface); `dst` is a host buffer of that length that stays
        // exported until the stream is synchronized below.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(dst, ptr, s)
                .and_then(|()| cudarc::driver::result::stream::synchronize(s))
        }
        .map_err(|e| GpuUnavailableError::new_err(e.to_string()))
    })
}

/// Copies the host buffer `data` to device address `ptr` of GPU `ordinal`, ordered on
/// `stream`, and waits for the copy.
#[pyfunction]
#[pyo3(signature = (data, ptr, ordinal=0, stream=None))]
fn host_to_device(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    ptr: u64,
    ordinal: usize,
    stream: Option<usize>,
) -> PyResult<()> {
    let _gpu = bind(py, ordinal)?;
    let view = read_slice(data)?;
    let src = view.as_slice();
    let s = stream_handle(stream) as usize;
    py.detach(|| {
        let s = s as cudarc::driver::sys::CUstream;
        // SAFETY: the caller hands a device pointer of at least `src.len()` writable bytes;
        // `src` stays exported until the stream is synchronized below.
        unsafe {
            cudarc::driver::result::memcpy_htod_async(ptr, src, s)
                .and_then(|()| cudarc::driver::result::stream::synchronize(s))
        }
        .map_err(|e| GpuUnavailableError::new_err(e.to_string()))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gpu_info, m)?)?;
    m.add_function(wrap_pyfunction!(device_to_host, m)?)?;
    m.add_function(wrap_pyfunction!(host_to_device, m)?)?;
    Ok(())
}
