//! An HDF5 dynamic filter plugin in the extension module itself: `H5PLget_plugin_type` and
//! `H5PLget_plugin_info` are exported with C linkage, so the module can be registered with a
//! running HDF5 (`warpzip.hdf5` does so through h5py on import, as hdf5plugin does) or loaded
//! from `HDF5_PLUGIN_PATH`.
//!
//! The filter id is [`FILTER_ID`] (307), from the range 256-511 that the HDF Group keeps for
//! testing: it is not a registered id. Client data: `[codec id, level + 1 (0: the codec's
//! default), element type id]`; every value may be left out (deflate, its default level,
//! bytes). A chunk is one `.wz` container; reading accepts any `.wz` or gzip chunk.

use std::ffi::{c_char, c_int, c_uint, c_void};
use warpzip::api::{self, CompressOptions};
use warpzip::format::ElemType;
use warpzip::CodecId;

/// The filter id, from the HDF Group's testing range (256-511).
pub const FILTER_ID: c_int = 307;

/// `H5Z_FLAG_REVERSE`: the filter is called to decode.
const FLAG_REVERSE: c_uint = 0x0100;

type FilterFn = unsafe extern "C" fn(
    c_uint,
    usize,
    *const c_uint,
    usize,
    *mut usize,
    *mut *mut c_void,
) -> usize;

/// HDF5's `H5Z_class2_t`.
#[repr(C)]
pub struct H5ZClass2 {
    version: c_int,
    id: c_int,
    encoder_present: c_uint,
    decoder_present: c_uint,
    name: *const c_char,
    can_apply: *const c_void,
    set_local: *const c_void,
    filter: Option<FilterFn>,
}

// SAFETY: the class is immutable static data; its name points to a static string.
unsafe impl Sync for H5ZClass2 {}

static CLASS: H5ZClass2 = H5ZClass2 {
    version: 1,
    id: FILTER_ID,
    encoder_present: 1,
    decoder_present: 1,
    name: c"warpzip (GPU compression; id 307, from the HDF Group's testing range)".as_ptr(),
    can_apply: std::ptr::null(),
    set_local: std::ptr::null(),
    filter: Some(filter),
};

extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

/// `H5PL_TYPE_FILTER`: this plugin is a filter.
#[no_mangle]
pub extern "C" fn H5PLget_plugin_type() -> c_int {
    0
}

/// The filter's class.
#[no_mangle]
pub extern "C" fn H5PLget_plugin_info() -> *const c_void {
    std::ptr::addr_of!(CLASS).cast()
}

/// The options client data `cd` asks for.
fn options(cd: &[c_uint]) -> CompressOptions {
    let codec = cd
        .first()
        .and_then(|&c| u16::try_from(c).ok())
        .and_then(|c| CodecId::from_u16(c).ok())
        .unwrap_or(CodecId::Deflate);
    let mut opts = CompressOptions::for_codec(codec);
    opts.level = cd
        .get(1)
        .filter(|&&l| l != 0)
        .and_then(|&l| i32::try_from(l).ok())
        .map(|l| l - 1);
    opts.elem_type = cd
        .get(2)
        .and_then(|&e| u8::try_from(e).ok())
        .and_then(ElemType::from_u8)
        .filter(|&e| e != ElemType::Bytes);
    opts
}

/// The filter: encodes or decodes the `nbytes` bytes at `*buf`, replacing the buffer (HDF5
/// frees it with `free`); returns the new size, or 0 on failure (HDF5's convention).
unsafe extern "C" fn filter(
    flags: c_uint,
    cd_nelmts: usize,
    cd_values: *const c_uint,
    nbytes: usize,
    buf_size: *mut usize,
    buf: *mut *mut c_void,
) -> usize {
    if buf.is_null() || buf_size.is_null() {
        return 0;
    }
    // SAFETY: HDF5 passes `*buf`, a buffer of at least `nbytes` valid bytes, and `cd_values`,
    // `cd_nelmts` values (or null when there are none).
    let (input, cd) = unsafe {
        let data = *buf as *const u8;
        let input = if data.is_null() || nbytes == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(data, nbytes)
        };
        let cd = if cd_values.is_null() || cd_nelmts == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(cd_values, cd_nelmts)
        };
        (input, cd)
    };
    let work = std::panic::catch_unwind(|| {
        let device = crate::device::auto_device();
        if flags & FLAG_REVERSE != 0 {
            api::decompress_any(input, &device).map(|d| d.data)
        } else {
            api::compress(input, &options(cd), &device)
        }
    });
    let Ok(Ok(out)) = work else {
        return 0;
    };
    // SAFETY: a fresh allocation of `out.len()` bytes (at least 1) is filled from `out`; the
    // old buffer, allocated by HDF5 with `malloc`, is freed and replaced as the filter
    // interface asks.
    unsafe {
        let p = malloc(out.len().max(1));
        if p.is_null() {
            return 0;
        }
        std::ptr::copy_nonoverlapping(out.as_ptr(), p.cast::<u8>(), out.len());
        free(*buf);
        *buf = p;
        *buf_size = out.len().max(1);
    }
    out.len()
}
