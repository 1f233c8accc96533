//! Compiles every kernel module (each source with each of its define sets, and the test-only
//! kernels) with NVRTC for sm_80 and sm_90, and checks each CUBIN's symbol table against the
//! registry (`gpu::kernels`): every entry point a launcher may load is a kernel of the module,
//! and every kernel of the module is listed. A renamed or moved kernel fails here, without a GPU.
//! Without NVRTC it prints a notice and passes, unless `WARPZIP_REQUIRE_NVRTC=1` (CI sets it).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod kernels;

use std::collections::BTreeSet;
use warpzip::codec::orc_rle::format::RleVersion;
use warpzip::codec::orc_rle::gpu::{kernel_name, Parallelism, StreamCodec};
use warpzip::format::ElemType;
use warpzip::gpu::compile::{compile_cubin, KernelSource, ALL_SOURCES};
use warpzip::gpu::probe;

/// The library's modules, then the test-only ones.
fn modules() -> Vec<KernelSource> {
    ALL_SOURCES
        .iter()
        .chain(kernels::TEST_SOURCES)
        .copied()
        .collect()
}

/// A defined function symbol of a CUBIN's `.symtab`.
#[derive(Debug)]
struct FuncSymbol {
    name: String,
    global: bool,
}

fn read_u16(b: &[u8], at: usize) -> Result<u16, String> {
    b.get(at..at + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or_else(|| format!("ELF read past the end at {at}"))
}

fn read_u32(b: &[u8], at: usize) -> Result<u32, String> {
    b.get(at..at + 4)
        .map(|s| u32::from_le_bytes(s.try_into().unwrap()))
        .ok_or_else(|| format!("ELF read past the end at {at}"))
}

fn read_u64(b: &[u8], at: usize) -> Result<u64, String> {
    b.get(at..at + 8)
        .map(|s| u64::from_le_bytes(s.try_into().unwrap()))
        .ok_or_else(|| format!("ELF read past the end at {at}"))
}

/// The defined FUNC symbols of a little-endian ELF64 object's `.symtab` (SHT_SYMTAB).
fn func_symbols(elf: &[u8]) -> Result<Vec<FuncSymbol>, String> {
    const SHT_SYMTAB: u32 = 2;
    const STT_FUNC: u8 = 2;
    const STB_GLOBAL: u8 = 1;
    if elf.get(..4) != Some(b"\x7fELF") || elf.get(4) != Some(&2) || elf.get(5) != Some(&1) {
        return Err("not a little-endian ELF64 object".into());
    }
    let shoff = read_u64(elf, 0x28)? as usize;
    let shentsize = read_u16(elf, 0x3a)? as usize;
    let shnum = read_u16(elf, 0x3c)? as usize;
    // Section header i: (type, offset, size, link).
    let section = |i: usize| -> Result<(u32, usize, usize, usize), String> {
        let h = shoff + i * shentsize;
        Ok((
            read_u32(elf, h + 4)?,
            read_u64(elf, h + 0x18)? as usize,
            read_u64(elf, h + 0x20)? as usize,
            read_u32(elf, h + 0x28)? as usize,
        ))
    };
    let mut out = Vec::new();
    let mut symtabs = 0;
    for i in 0..shnum {
        let (kind, offset, size, link) = section(i)?;
        if kind != SHT_SYMTAB {
            continue;
        }
        symtabs += 1;
        let (_, str_offset, str_size, _) = section(link)?;
        let strings = elf
            .get(str_offset..str_offset + str_size)
            .ok_or("string table past the end")?;
        // Elf64_Sym: name u32, info u8, other u8, shndx u16, value u64, size u64.
        for at in (offset..offset + size).step_by(24) {
            let name = read_u32(elf, at)? as usize;
            let info = *elf.get(at + 4).ok_or("symbol past the end")?;
            let shndx = read_u16(elf, at + 6)?;
            if info & 0xf != STT_FUNC || shndx == 0 {
                continue;
            }
            let tail = strings
                .get(name..)
                .ok_or("symbol name past the string table")?;
            let end = tail
                .iter()
                .position(|&c| c == 0)
                .ok_or("unterminated name")?;
            out.push(FuncSymbol {
                name: String::from_utf8_lossy(&tail[..end]).into_owned(),
                global: info >> 4 == STB_GLOBAL,
            });
        }
    }
    if symtabs == 0 {
        return Err("no .symtab".into());
    }
    Ok(out)
}

/// Checks `cubin` against the entry points `source` lists; the problems found.
fn check_symbols(source: &KernelSource, arch: &str, cubin: &[u8]) -> Vec<String> {
    let what = format!("{} for {arch}", source.name);
    let symbols = match func_symbols(cubin) {
        Ok(s) => s,
        Err(e) => return vec![format!("{what}: {e}")],
    };
    let defined: BTreeSet<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
    let mut problems = Vec::new();
    for name in source.entries {
        if !defined.contains(name) {
            problems.push(format!(
                "{what}: `{name}` is listed but not a kernel of the CUBIN"
            ));
        }
    }
    for s in symbols.iter().filter(|s| s.global) {
        if !source.entries.contains(&s.name.as_str()) {
            problems.push(format!(
                "{what}: kernel `{}` is not listed in the module's `entries` (the registry)",
                s.name
            ));
        }
    }
    problems
}

/// The registry itself, without NVRTC: module names unique (they key the caches), entry points
/// unique, and every `#include` of a module resolved to a library header.
#[test]
fn the_registry_is_consistent() {
    let modules = modules();
    let mut names = BTreeSet::new();
    for m in &modules {
        assert!(names.insert(m.name), "two modules named {}", m.name);
        assert!(!m.entries.is_empty(), "{} lists no entry points", m.name);
        let unique: BTreeSet<_> = m.entries.iter().collect();
        assert_eq!(
            unique.len(),
            m.entries.len(),
            "{}: an entry listed twice",
            m.name
        );
        let text = m.expanded();
        let left: Vec<_> = text
            .lines()
            .filter(|l| l.trim_start().starts_with("#include"))
            .collect();
        assert!(left.is_empty(), "{}: unresolved {left:?}", m.name);
    }
    // The same source with the same defines would be the same module twice.
    let mut builds = BTreeSet::new();
    for m in &modules {
        assert!(
            builds.insert((m.text, m.defines)),
            "{} repeats another module's source and defines",
            m.name
        );
    }
}

/// Every name the ORC RLE launcher asks for is an entry point of the module it loads it from.
#[test]
fn orc_rle_kernel_names_are_registered() {
    let pars = [
        Parallelism::WarpPerChunk,
        Parallelism::LeaderPerBlock,
        Parallelism::LanePerSubBlock,
        Parallelism::WalkExpand,
        Parallelism::Lockstep,
    ];
    let codecs = [
        StreamCodec::Int(RleVersion::V1),
        StreamCodec::Int(RleVersion::V2),
        StreamCodec::Byte,
    ];
    let mut checked = 0;
    for par in pars {
        for codec in codecs {
            for &elem in ElemType::ALL {
                if let Ok(name) = kernel_name(codec, elem, par) {
                    let module = par.module().unwrap_or(&kernels::ORC_RLE_LEADER);
                    assert!(
                        module.entries.contains(&name.as_str()),
                        "{name} is not an entry point of {}",
                        module.name
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 0);
}

/// One module for one architecture: its report line, the names checked, and the problems found.
fn compile_and_check(source: &KernelSource, arch: &str) -> (String, usize, Vec<String>) {
    match compile_cubin(source.name, &source.expanded(), &source.options(arch)) {
        Ok(cubin) => {
            if let Some(dir) = std::env::var_os("WARPZIP_NVRTC_DUMP") {
                let path = std::path::Path::new(&dir).join(format!("{}-{arch}.cubin", source.name));
                std::fs::write(path, &cubin).unwrap();
            }
            let problems = check_symbols(source, arch, &cubin);
            let line = format!(
                "{} for {arch}: {} bytes of CUBIN, {} entry points",
                source.name,
                cubin.len(),
                source.entries.len()
            );
            let checked = if problems.is_empty() {
                source.entries.len()
            } else {
                0
            };
            (line, checked, problems)
        }
        Err(e) => (
            format!("{} for {arch}: failed", source.name),
            0,
            vec![format!("{} for {arch}: {e}", source.name)],
        ),
    }
}

/// Compiles every module (or only those named in `WARPZIP_NVRTC_ONLY`, a comma-separated list)
/// on as many threads as there are cores. `WARPZIP_NVRTC_DUMP=DIR` writes the CUBINs there.
#[test]
fn every_kernel_compiles_for_sm80_and_sm90() {
    if !probe::nvrtc_library_present() {
        let required = std::env::var("WARPZIP_REQUIRE_NVRTC").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "WARPZIP_REQUIRE_NVRTC=1 but libnvrtc could not be loaded (is it on LD_LIBRARY_PATH?)"
        );
        eprintln!("notice: NVRTC not found; kernel compilation not tested");
        return;
    }
    let (major, minor) = probe::nvrtc_version().unwrap();
    eprintln!("NVRTC {major}.{minor}");
    let only = std::env::var("WARPZIP_NVRTC_ONLY").unwrap_or_default();
    let modules: Vec<KernelSource> = modules()
        .into_iter()
        .filter(|m| only.is_empty() || only.split(',').any(|n| n.trim() == m.name))
        .collect();
    assert!(
        !modules.is_empty(),
        "no module named in WARPZIP_NVRTC_ONLY={only}"
    );
    let jobs: Vec<(&KernelSource, &str)> = modules
        .iter()
        .flat_map(|m| ["sm_80", "sm_90"].map(|arch| (m, arch)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads.min(jobs.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(source, arch)) = jobs.get(i) else {
                    break;
                };
                let result = compile_and_check(source, arch);
                eprintln!("{}", result.0);
                results.lock().unwrap().push(result);
            });
        }
    });
    let results = results.into_inner().unwrap();
    let names_checked: usize = results.iter().map(|r| r.1).sum();
    let failures: Vec<String> = results.into_iter().flat_map(|r| r.2).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let sources: BTreeSet<_> = modules.iter().map(|m| m.text).collect();
    let variants = modules.iter().filter(|m| !m.defines.is_empty()).count();
    eprintln!(
        "{} modules ({} sources; {variants} of the modules built with defines) compiled for sm_80 \
         and sm_90; {names_checked} entry-point names found in the CUBINs' symbol tables, none \
         missing, none unlisted",
        modules.len(),
        sources.len()
    );
}
