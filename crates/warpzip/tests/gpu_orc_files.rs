//! ORC files decoded on the GPU (a block and a warp per row group) against the CPU: every column
//! of every ORC file here (the pyarrow fixtures and `testdata/orc`) gives exactly the CPU's
//! Arrow array; damaged files (the corrupt/ corpus, bit flips in the stripes' data) give the
//! verdict of the CPU's row-group decoder, never a fault. GPU tests fail (never skip) where no
//! GPU is usable.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::{gpu, testdata};

use rand::{Rng, SeedableRng};
use std::path::{Path, PathBuf};
use warpzip::orc::cpu::read_column_by_row_groups;
use warpzip::orc::gpu::GroupMode;
use warpzip::orc::{gpu as orc_gpu, OrcFile};
use warpzip::Device;

fn orc_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
        .collect();
    files.sort();
    files
}

/// The pyarrow fixtures: under `$WARPZIP_REPO_ROOT` first (the GPU machine's copy), else beside
/// this crate.
fn fixture_dir() -> PathBuf {
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        let dir = PathBuf::from(root).join("crates/warpzip/tests/data/orc");
        if dir.is_dir() {
            return dir;
        }
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orc"))
}

/// The `orc_file` / `orc_file_gpu` fuzz seeds (`fuzz/corpus/orc_file`), found as the fixtures.
fn fuzz_seed_dir() -> PathBuf {
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        let dir = PathBuf::from(root).join("fuzz/corpus/orc_file");
        if dir.is_dir() {
            return dir;
        }
    }
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/orc_file"
    ))
}

fn all_files() -> Vec<PathBuf> {
    let fixtures = orc_files_in(&fixture_dir());
    let real = orc_files_in(&testdata().join("orc"));
    assert!(fixtures.len() >= 8 && real.len() >= 10);
    fixtures
        .into_iter()
        .chain(real)
        .filter(|p| p.file_name().unwrap() != "zero.orc")
        .collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_column_of_every_file_equals_the_cpu() {
    let g = gpu();
    let mut columns = 0;
    for path in all_files() {
        let file = OrcFile::open(&path).unwrap();
        for c in file.columns().iter().filter(|c| c.is_supported()) {
            let cpu = file.read_column(c).unwrap();
            let on_gpu = orc_gpu::read_column(&g, &file, c)
                .unwrap_or_else(|e| panic!("{} column {}: {e}", path.display(), c.name));
            for mode in [GroupMode::Block, GroupMode::Warp] {
                // The device outputs poisoned first: an unwritten row cannot pass as a zero.
                let m = orc_gpu::read_column_poisoned(&g, &file, c, mode, 0, 0xA5).unwrap_or_else(
                    |e| panic!("{} column {} {mode:?}: {e}", path.display(), c.name),
                );
                assert_eq!(
                    cpu.to_data(),
                    m.to_data(),
                    "{} column {} {mode:?}",
                    path.display(),
                    c.name
                );
            }
            assert_eq!(
                cpu.to_data(),
                on_gpu.to_data(),
                "{} column {}",
                path.display(),
                c.name
            );
            columns += 1;
        }
        // And the whole batch, as `orc to-arrow --device gpu` reads it: every readable column,
        // the types other than integers decoded stream by stream on the GPU too.
        let names: Vec<&str> = file
            .columns()
            .iter()
            .filter(|c| c.is_readable())
            .map(|c| c.name.as_str())
            .collect();
        if !names.is_empty() {
            let cpu = file.read_batch(Some(&names), &Device::Cpu).unwrap();
            let on_gpu = file
                .read_batch(Some(&names), &Device::Gpu(g.clone()))
                .unwrap();
            assert_eq!(cpu, on_gpu, "{}", path.display());
        }
    }
    assert!(columns >= 100, "only {columns} columns compared");
}

/// The sorted-key fixtures (RLE v1): the block kernels size a row group's RLE groups by one
/// varint length, or by a range of two or three lengths, where its first groups and the next
/// row group's first group agree on it, and check every group as they decode. Flags 1024 make
/// a row group whose so-sized regions fail CORRUPT instead of trying them again, which shows
/// what was taken: `spiky` (a 4-byte varint amid 3-byte ones in every row group: one length)
/// and `dip` (a 1-byte varint in row group 1, whose varints grow from 3 to 4 bytes: a range)
/// must fail so, and `key` (as `dip` without the 1-byte one) must not. With 0 (checked, and
/// where they differ the regions are tried again, sized varint by varint), 512 (never so
/// sized) and 2048 (never by a range), every value equals the CPU's.
#[test]
#[ignore = "needs a CUDA GPU"]
fn rlev1_groups_sized_by_varint_lengths_are_checked() {
    let g = gpu();
    for name in ["keys_v011_uncompressed.orc", "keys_v011_zlib.orc"] {
        let file = OrcFile::open(&fixture_dir().join(name)).unwrap();
        assert_eq!(file.columns().len(), 3, "{name}");
        for c in file.columns() {
            let cpu = file.read_column(c).unwrap();
            for flags in [0u32, 512, 2048, 1024] {
                let what = format!("{name} column {} flags {flags}", c.name);
                let got =
                    orc_gpu::read_column_poisoned(&g, &file, c, GroupMode::Block, flags, 0x5A);
                if c.name != "key" && flags == 1024 {
                    let e = got.err().unwrap_or_else(|| panic!("{what}: decoded"));
                    assert!(matches!(e, warpzip::Error::CorruptOrc(_)), "{what}: {e}");
                } else {
                    let got = got.unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(cpu.to_data(), got.to_data(), "{what}");
                }
            }
        }
    }
}

/// The RLEv2 block kernels compiled for 6 blocks an SM (launched by default only for batches of
/// more than one wave, which no fixture has: flags 4096 force them) and the thread regions' probe
/// with a wider byte bound (flags bits 16-23; 255 bytes lets more row groups try the regions)
/// give every column of every file as the CPU does; 8192 (never the 6-block kernels) too.
#[test]
#[ignore = "needs a CUDA GPU"]
fn six_block_kernels_and_wider_probe_equal_the_cpu() {
    let g = gpu();
    for path in all_files() {
        let file = OrcFile::open(&path).unwrap();
        for c in file.columns().iter().filter(|c| c.is_supported()) {
            let cpu = file.read_column(c).unwrap();
            for flags in [4096u32, 8192, 255 << 16, 4096 | (255 << 16)] {
                let what = format!("{} column {} flags {flags}", path.display(), c.name);
                let got =
                    orc_gpu::read_column_poisoned(&g, &file, c, GroupMode::Block, flags, 0xC3)
                        .unwrap_or_else(|e| panic!("{what}: {e}"));
                assert_eq!(cpu.to_data(), got.to_data(), "{what}");
            }
        }
    }
}

/// The GPU verdict for one column of damaged bytes equals the CPU row-group decoder's.
fn compare_damaged(
    g: &std::sync::Arc<warpzip::gpu::GpuContext>,
    bytes: Vec<u8>,
    what: &str,
) -> (usize, usize) {
    let Ok(file) = OrcFile::from_bytes(bytes) else {
        return (0, 0);
    };
    let (mut ok, mut err) = (0, 0);
    for c in file.columns().iter().filter(|c| c.is_supported()) {
        let cpu = read_column_by_row_groups(&file, c);
        let on_gpu = orc_gpu::read_column(g, &file, c);
        // A block per row group and a warp per row group give the same values, or the same
        // error naming the same row group.
        let block = orc_gpu::read_column_in_mode(g, &file, c, GroupMode::Block);
        let warp = orc_gpu::read_column_in_mode(g, &file, c, GroupMode::Warp);
        match (&block, &warp) {
            (Ok(a), Ok(b)) => assert_eq!(a.to_data(), b.to_data(), "{what} column {}", c.name),
            (Err(a), Err(b)) => {
                assert_eq!(a.to_string(), b.to_string(), "{what} column {}", c.name)
            }
            _ => panic!(
                "{what} column {}: block {:?} but warp {:?}",
                c.name,
                block.as_ref().map(|_| "ok"),
                warp.as_ref().map(|_| "ok")
            ),
        }
        match (&cpu, &on_gpu) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.to_data(), b.to_data(), "{what} column {}", c.name);
                ok += 1;
            }
            (Err(_), Err(_)) => err += 1,
            _ => panic!(
                "{what} column {}: CPU {:?} but GPU {:?}",
                c.name,
                cpu.as_ref().map(|_| "ok"),
                on_gpu.as_ref().map(|_| "ok")
            ),
        }
    }
    // The columns of other types (read down their type trees, stream by stream on the GPU): the
    // CPU's values, or an error on both.
    for c in file
        .columns()
        .iter()
        .filter(|c| !c.is_supported() && c.is_readable())
    {
        let names = [c.name.as_str()];
        let cpu = file.read_batch(Some(&names), &Device::Cpu);
        let on_gpu = file.read_batch(Some(&names), &Device::Gpu(g.clone()));
        match (&cpu, &on_gpu) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{what} column {}", c.name);
                ok += 1;
            }
            (Err(_), Err(_)) => err += 1,
            _ => panic!(
                "{what} column {}: CPU {:?} but GPU {:?}",
                c.name,
                cpu.as_ref().map(|_| "ok"),
                on_gpu.as_ref().map(|_| "ok")
            ),
        }
    }
    (ok, err)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn damaged_files_get_the_cpu_verdict() {
    let g = gpu();
    for path in orc_files_in(&testdata().join("orc/corrupt")) {
        compare_damaged(
            &g,
            std::fs::read(&path).unwrap(),
            &path.display().to_string(),
        );
    }
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x0bc);
    let (mut ok, mut err) = (0, 0);
    let fixtures = orc_files_in(&fixture_dir());
    // Fewer trials for the slower sanitizers (racecheck did not finish 40 in 240 s).
    let trials: usize = std::env::var("WARPZIP_DAMAGED_TRIALS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for path in &fixtures {
        let clean = std::fs::read(path).unwrap();
        // Damage only the stripes' bytes (the tail sits in the last part of the file), so that
        // most damaged files still open and their streams reach the decoders.
        let body = clean.len() * 3 / 4;
        for trial in 0..trials {
            let mut bytes = clean.clone();
            for _ in 0..rng.gen_range(1..4) {
                let i = rng.gen_range(3..body);
                bytes[i] ^= 1 << rng.gen_range(0..8);
            }
            let (o, e) = compare_damaged(&g, bytes, &format!("{} trial {trial}", path.display()));
            ok += o;
            err += e;
        }
    }
    println!("damaged fixtures: {ok} columns decoded alike, {err} refused alike");
    assert!(err > 0, "no damage reached a decoder");
}

/// The seeds of the `orc_file_gpu` fuzz target get the verdict the target checks: block and warp
/// per row group alike, and the CPU row-group decoder's values or an error where it errs.
#[test]
#[ignore = "needs a CUDA GPU"]
fn fuzz_seeds_get_the_cpu_verdict() {
    let g = gpu();
    let seeds = orc_files_in(&fuzz_seed_dir());
    assert!(seeds.len() >= 4, "{} seeds", seeds.len());
    let (mut ok, mut err) = (0, 0);
    for path in &seeds {
        let (o, e) = compare_damaged(
            &g,
            std::fs::read(path).unwrap(),
            &path.display().to_string(),
        );
        ok += o;
        err += e;
    }
    println!("fuzz seeds: {ok} columns decoded alike, {err} refused alike");
    assert!(ok > 0, "no seed column reached the GPU decoders");
}
