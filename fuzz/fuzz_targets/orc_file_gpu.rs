//! Needs a GPU machine (CUDA driver and NVRTC): without a usable GPU every input returns at
//! once and the target tests nothing. Any bytes as a whole ORC file; every supported column is
//! decoded on the GPU twice, a block per row group and a warp per row group
//! (`orc::gpu::read_column_in_mode`), and on the CPU by the row-group decoder
//! (`orc::cpu::read_column_by_row_groups`, which reads each row group from its row index
//! position as the GPU does). The two GPU modes give the same values or the same error (naming
//! the same stripe, column and row group); the GPU decodes a column where, and only where, the
//! CPU does, to the same values. Seeds: `corpus/orc_file/` (as for `orc_file`), also decoded by
//! `gpu_orc_files`' `fuzz_seeds_get_the_cpu_verdict`. Run it under `compute-sanitizer --tool
//! memcheck` now and then.

#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};
use warpzip::gpu::GpuContext;
use warpzip::orc::cpu::read_column_by_row_groups;
use warpzip::orc::gpu::{read_column_in_mode, GroupMode};
use warpzip::orc::OrcFile;

/// GPU 0, opened once (`None` without one).
fn gpu() -> Option<&'static GpuContext> {
    static GPU: OnceLock<Option<Arc<GpuContext>>> = OnceLock::new();
    GPU.get_or_init(|| match GpuContext::open(0) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("orc_file_gpu: no GPU ({e}); this target needs one and tests nothing here");
            None
        }
    })
    .as_deref()
}

fuzz_target!(|data: &[u8]| {
    let Some(gpu) = gpu() else {
        return;
    };
    let Ok(file) = OrcFile::from_bytes(data.to_vec()) else {
        return;
    };
    for c in file.columns().iter().filter(|c| c.is_supported()) {
        let cpu = read_column_by_row_groups(&file, c);
        let block = read_column_in_mode(gpu, &file, c, GroupMode::Block);
        let warp = read_column_in_mode(gpu, &file, c, GroupMode::Warp);
        match (&block, &warp) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_data(), b.to_data(), "column {}", c.name),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "column {}", c.name),
            _ => panic!(
                "column {}: block {:?} but warp {:?}",
                c.name,
                block.as_ref().map(|_| "ok"),
                warp.as_ref().map(|_| "ok")
            ),
        }
        match (&cpu, &block) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_data(), b.to_data(), "column {}", c.name),
            (Err(_), Err(_)) => {}
            _ => panic!(
                "column {}: CPU {:?} but GPU {:?}",
                c.name,
                cpu.as_ref().map(|_| "ok"),
                block.as_ref().map(|_| "ok")
            ),
        }
    }
});
