//! Finds out, without panicking, whether a CUDA GPU can be used. cudarc panics when a library
//! is missing, so the libraries' presence is checked before anything else in cudarc is touched.

use crate::error::{Error, Result};

/// True when the CUDA driver library (`libcuda.so`) can be loaded.
pub fn driver_library_present() -> bool {
    // SAFETY: is_culib_present only tries to dlopen the library and reports whether it loaded.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// True when NVRTC (`libnvrtc.so`) can be loaded.
pub fn nvrtc_library_present() -> bool {
    // SAFETY: is_culib_present only tries to dlopen the library and reports whether it loaded.
    unsafe { cudarc::nvrtc::sys::is_culib_present() }
}

/// Checks both libraries and returns a clear error naming the missing one.
pub fn require_libraries() -> Result<()> {
    if !driver_library_present() {
        return Err(Error::NoDevice(
            "the CUDA driver library (libcuda.so.1) was not found".into(),
        ));
    }
    if !nvrtc_library_present() {
        return Err(Error::NoDevice(
            "the NVRTC library (libnvrtc.so.13) was not found".into(),
        ));
    }
    Ok(())
}

/// NVRTC's version as (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32)> {
    if !nvrtc_library_present() {
        return Err(Error::NoDevice("the NVRTC library was not found".into()));
    }
    let mut major = 0;
    let mut minor = 0;
    // SAFETY: the library is present (checked above) and both pointers are valid for writes.
    let status = unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    if status != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(Error::NoDevice(format!("nvrtcVersion failed: {status:?}")));
    }
    Ok((major, minor))
}
