//! Needs a GPU machine (CUDA driver and NVRTC): without a usable GPU every input returns at
//! once and the target tests nothing. Any bytes: the first two (little-endian) give an output
//! capacity (0..=65535), the rest is a raw-deflate stream, inflated on the GPU (`inflate_batch`
//! on `Device::Gpu`, `kernels/inflate.cu`) and on the CPU (libdeflate). Where both decode: the
//! same bytes, `written` and `consumed`. The GPU never decodes what the CPU rejects; where only
//! the CPU decodes, zlib must reject the stream (libdeflate accepts a few streams zlib refuses;
//! the GPU must not). Same input format and seeds as `inflate_cpu` (`corpus/inflate_gpu/`).
//! Run it under `compute-sanitizer --tool memcheck` now and then.

#![no_main]

use flate2::{Decompress, FlushDecompress, Status};
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use warpzip::codec::deflate::inflate_batch;
use warpzip::device::Device;
use warpzip::error::ChunkStatus;

/// GPU 0, opened once (`None` without one).
fn gpu() -> Option<&'static Device> {
    static GPU: OnceLock<Option<Device>> = OnceLock::new();
    GPU.get_or_init(|| match Device::gpu(0) {
        Ok(d) => Some(d),
        Err(e) => {
            eprintln!("inflate_gpu: no GPU ({e}); this target needs one and tests nothing here");
            None
        }
    })
    .as_ref()
}

/// True when zlib decodes the whole stream into `cap` bytes.
fn zlib_accepts(input: &[u8], cap: usize) -> bool {
    let mut d = Decompress::new(false);
    let mut out = vec![0u8; cap + 1];
    loop {
        let (i0, o0) = (d.total_in(), d.total_out());
        let r = d.decompress(
            &input[i0 as usize..],
            &mut out[o0 as usize..],
            FlushDecompress::Finish,
        );
        if d.total_out() as usize > cap {
            return false;
        }
        match r {
            Ok(Status::StreamEnd) => return true,
            Ok(_) if d.total_in() != i0 || d.total_out() != o0 => continue,
            _ => return false,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(gpu) = gpu() else {
        return;
    };
    let Some((cap, stream)) = data.split_first_chunk::<2>() else {
        return;
    };
    let cap = usize::from(u16::from_le_bytes(*cap));
    let mut on_gpu = vec![0xA5u8; cap];
    let mut on_cpu = vec![0x5Au8; cap];
    let g = inflate_batch(gpu, &[stream], &mut [on_gpu.as_mut_slice()]).expect("GPU batch")[0];
    let c = inflate_batch(&Device::Cpu, &[stream], &mut [on_cpu.as_mut_slice()]).expect("CPU")[0];
    match (c.status == ChunkStatus::Ok, g.status == ChunkStatus::Ok) {
        (true, true) => {
            assert_eq!(
                (g.written, g.consumed),
                (c.written, c.consumed),
                "GPU {g:?}, CPU {c:?}"
            );
            assert!(
                on_gpu[..g.written] == on_cpu[..c.written],
                "GPU and CPU bytes differ"
            );
        }
        (false, true) => panic!("CPU says {:?}, GPU decodes: {g:?}", c.status),
        (true, false) => assert!(
            !zlib_accepts(stream, cap),
            "CPU and zlib decode, GPU says {:?}",
            g.status
        ),
        (false, false) => {}
    }
});
