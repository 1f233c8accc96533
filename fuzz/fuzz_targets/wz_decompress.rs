//! Whole files through the library's front door, `api::decompress_any`, on the CPU and (on a
//! machine with a GPU) on the GPU. The first byte picks the mode:
//!
//! - even: the rest as it is (a `.wz` container or a gzip file, recognised by its first bytes);
//! - odd: the rest describes a container (codec, element type, layout, chunk size, claimed
//!   lengths, chunk bytes) that is sealed with valid checksums by the project's writer, so that
//!   the decoders, not the checksums, meet lying headers and damaged chunks.
//!
//! No input may panic or allocate by what it claims (run with `-malloc_limit_mb=256`); a
//! decoded output has exactly the claimed length; the GPU gives the CPU's bytes, or fails on
//! the same chunk. Seeds: `corpus/wz_decompress/`; dictionary: `dict/wz.dict`.

#![no_main]

#[path = "../common/wz_seal.rs"]
mod wz_seal;

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warpzip::{api, Device, Error};
use wz_seal::seal;

/// The GPU, when this machine has one.
fn gpu() -> Option<&'static Device> {
    static GPU: OnceLock<Option<Device>> = OnceLock::new();
    GPU.get_or_init(|| Device::gpu(0).ok()).as_ref()
}

/// The chunk an error names, if any.
fn chunk_of(e: &Error) -> Option<usize> {
    match e {
        Error::Corrupt { chunk, .. } => Some(*chunk),
        _ => None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let sealed;
    let file = if mode & 1 == 0 {
        rest
    } else {
        match seal(rest) {
            Some(f) => {
                sealed = f;
                &sealed
            }
            None => return,
        }
    };
    let cpu = api::decompress_any(file, &Device::cpu());
    if let (Ok(out), Ok(header)) = (&cpu, warpzip::format::peek_header(file)) {
        assert_eq!(out.data.len() as u64, header.total_len);
    }
    if let Some(gpu) = gpu() {
        let on_gpu = api::decompress_any(file, gpu);
        match (&cpu, &on_gpu) {
            (Ok(c), Ok(g)) => assert!(c.data == g.data, "the GPU decoded other bytes"),
            (Err(c), Err(g)) => assert_eq!(chunk_of(c), chunk_of(g), "{c} / {g}"),
            (c, g) => panic!(
                "CPU and GPU disagree: {:?} / {:?}",
                c.as_ref().map(|d| d.data.len()),
                g.as_ref().map(|d| d.data.len())
            ),
        }
    }
});
