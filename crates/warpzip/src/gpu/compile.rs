//! NVRTC compilation of the embedded CUDA sources to CUBIN for one exact architecture, with an
//! in-process cache and an on-disk cache keyed by everything that changes the machine code.

use super::probe;
use crate::error::{Error, Result};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};
use std::collections::HashMap;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// A kernel module: a CUDA source embedded in the library, the defines it is compiled with, and
/// its entry points (the registry is `gpu::kernels`). `#include "DIR/NAME.cuh"` lines naming one
/// of the library's headers are replaced by the header's text (each header once, headers may
/// include headers), so NVRTC needs no include paths.
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// The module's name: its key in the kernel caches and its name in compiler errors.
    pub name: &'static str,
    /// The CUDA source.
    pub text: &'static str,
    /// Preprocessor definitions it is compiled with, `(NAME, VALUE)` for `-DNAME=VALUE`: one
    /// source built with different definitions makes different modules.
    pub defines: &'static [(&'static str, &'static str)],
    /// Every `extern "C"` kernel of the module, the names launchers load.
    pub entries: &'static [&'static str],
}

/// A header as `(name, text)`: its path under `src/kernels/`, which is also the name kernels
/// include it by (`#include "framework/codag.cuh"`), so the two cannot disagree.
macro_rules! header {
    ($path:literal) => {
        ($path, include_str!(concat!("../kernels/", $path)))
    };
}

/// The shared headers kernels include, by the name they are included as.
const HEADERS: &[(&str, &str)] = &[
    header!("framework/common.cuh"),
    header!("framework/codag.cuh"),
    header!("orc/orc_int.cuh"),
    header!("orc/orc_lanes.cuh"),
    header!("orc/orc_group.cuh"),
    header!("orc/orc_rg_stage.cuh"),
    header!("orc/orc_rg_regions.cuh"),
    header!("orc/orc_rg_split.cuh"),
    header!("orc/orc_rg_blocks.cuh"),
    header!("deflate/inflate.cuh"),
    header!("tile/tile_decode.cuh"),
    header!("sz/sz_common.cuh"),
];

/// Every kernel module of the library, for the compile-everything test and cache warm-up.
pub const ALL_SOURCES: &[KernelSource] = &[
    super::kernels::SCAN,
    super::kernels::RLE,
    super::kernels::COMPACT,
    super::kernels::ORC_RLE,
    super::kernels::ORC_RLE_RG6,
    super::kernels::ORC_RLE_LANES,
    super::kernels::ORC_RLE_EXPAND,
    super::kernels::ORC_RLE_LOCKSTEP,
    super::kernels::INFLATE,
    super::kernels::LZ,
    super::kernels::INFLATE_PAIR,
    super::kernels::TILE,
    super::kernels::SZ_FAST,
    super::kernels::SZ_RATIO,
    super::kernels::SZ_RATIO_ENCODE,
    super::kernels::SSB,
    super::kernels::ORC_TREE,
];

impl KernelSource {
    /// The NVRTC options for `arch` (such as `sm_90`): `options_for(arch)` and the module's
    /// defines.
    pub fn options(&self, arch: &str) -> Vec<String> {
        let mut options = options_for(arch);
        options.extend(self.defines.iter().map(|(n, v)| format!("-D{n}={v}")));
        options
    }

    /// The full text handed to NVRTC.
    pub fn expanded(&self) -> String {
        let mut out = String::with_capacity(self.text.len() + 16 * 1024);
        let mut included = Vec::new();
        expand_into(self.text, &mut included, &mut out);
        out
    }
}

/// Appends `text` to `out` with every include of a library header replaced by the header's
/// (expanded) text, each header at most once.
fn expand_into(text: &str, included: &mut Vec<&'static str>, out: &mut String) {
    for line in text.lines() {
        // `#include "name.cuh"`, optionally followed by a `//` comment.
        let header = line
            .trim()
            .strip_prefix("#include \"")
            .and_then(|rest| rest.split_once('"'))
            .filter(|(_, after)| {
                let after = after.trim();
                after.is_empty() || after.starts_with("//")
            })
            .and_then(|(name, _)| HEADERS.iter().find(|(n, _)| *n == name));
        match header {
            Some(&(name, body)) => {
                if !included.contains(&name) {
                    included.push(name);
                    expand_into(body, included, out);
                }
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
}

/// The NVRTC options used for `arch` (such as `sm_90`).
pub fn options_for(arch: &str) -> Vec<String> {
    vec![
        format!("--gpu-architecture={arch}"),
        "--std=c++17".to_string(),
        "--extra-device-vectorization".to_string(),
        "-default-device".to_string(),
        "-DWZ_NVRTC=1".to_string(),
        // 128-bit integers for overflow-checked value arithmetic in the ORC decoders.
        "--device-int128".to_string(),
        // Line tables only (no change to the code): profilers can name source lines.
        "--generate-line-info".to_string(),
    ]
}

fn cache_dir() -> Option<PathBuf> {
    if std::env::var_os("WARPZIP_NO_CACHE").is_some_and(|v| v != "0" && !v.is_empty()) {
        return None;
    }
    if let Some(dir) = std::env::var_os("WARPZIP_CACHE_DIR") {
        return Some(PathBuf::from(dir));
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("warpzip").join("kernels"))
}

fn cache_key(source: &str, options: &[String], arch: &str) -> Result<String> {
    let (major, minor) = probe::nvrtc_version()?;
    let mut keyed = String::new();
    keyed.push_str(source);
    for o in options {
        keyed.push('\0');
        keyed.push_str(o);
    }
    keyed.push_str(&format!(
        "\0nvrtc {major}.{minor}\0{arch}\0warpzip {}",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(format!(
        "{:032x}",
        xxhash_rust::xxh3::xxh3_128(keyed.as_bytes())
    ))
}

fn memory_cache() -> &'static Mutex<HashMap<String, Vec<u8>>> {
    static CACHE: OnceLock<Mutex<HashMap<String, Vec<u8>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Compiles `source` to CUBIN for `arch` (such as `sm_90`), using the caches where it can.
pub fn cubin_for(source: &KernelSource, arch: &str) -> Result<Vec<u8>> {
    let text = source.expanded();
    let options = source.options(arch);
    let key = format!(
        "{}-{arch}-{}",
        source.name,
        cache_key(&text, &options, arch)?
    );
    if let Ok(cache) = memory_cache().lock() {
        if let Some(hit) = cache.get(&key) {
            return Ok(hit.clone());
        }
    }
    let dir = cache_dir();
    let path = dir.as_ref().map(|d| d.join(format!("{key}.cubin")));
    let cubin = match path.as_ref().and_then(|p| std::fs::read(p).ok()) {
        Some(bytes) if !bytes.is_empty() => bytes,
        _ => {
            let bytes = compile_cubin(source.name, &text, &options)?;
            if let (Some(dir), Some(path)) = (dir, path) {
                // A failed cache write only costs a recompile next time; never fail on it.
                let _ = std::fs::create_dir_all(&dir);
                let tmp = dir.join(format!("{key}.{}.tmp", std::process::id()));
                if std::fs::write(&tmp, &bytes).is_ok() {
                    let _ = std::fs::rename(&tmp, &path);
                }
            }
            bytes
        }
    };
    if let Ok(mut cache) = memory_cache().lock() {
        cache.insert(key, cubin.clone());
    }
    Ok(cubin)
}

/// Runs NVRTC once, returning the CUBIN or an error carrying the compiler log.
pub fn compile_cubin(name: &str, text: &str, options: &[String]) -> Result<Vec<u8>> {
    compile_cubin_with_log(name, text, options).map(|(cubin, _)| cubin)
}

/// Like `compile_cubin`, also returning the compiler's log (with `--ptxas-options=-v` it holds
/// every kernel's registers, spills and shared memory).
pub fn compile_cubin_with_log(
    name: &str,
    text: &str,
    options: &[String],
) -> Result<(Vec<u8>, String)> {
    probe::nvrtc_version()?;
    let nvrtc_err = |message: String, log: String| Error::Nvrtc {
        kernel: name.to_string(),
        message,
        log,
    };
    let src = CString::new(text).map_err(|e| nvrtc_err(e.to_string(), String::new()))?;
    let cname =
        CString::new(format!("{name}.cu")).map_err(|e| nvrtc_err(e.to_string(), String::new()))?;
    let prog = nvrtc::create_program(&src, Some(&cname))
        .map_err(|e| nvrtc_err(format!("{e:?}"), String::new()))?;
    // SAFETY: prog was just created and is destroyed exactly once below.
    let compiled = unsafe { nvrtc::compile_program(prog, options) };
    // SAFETY: prog is a live program.
    let log = unsafe { nvrtc::get_program_log(prog) }
        .map(|raw| {
            let bytes: Vec<u8> = raw
                .iter()
                .map(|&c| c as u8)
                .take_while(|&c| c != 0)
                .collect();
            String::from_utf8_lossy(&bytes).into_owned()
        })
        .unwrap_or_default();
    let result = match compiled {
        Err(e) => Err(nvrtc_err(format!("{e:?}"), log)),
        Ok(()) => read_cubin(prog)
            .map(|cubin| (cubin, log))
            .map_err(|m| nvrtc_err(m, String::new())),
    };
    // SAFETY: prog is live and not used after this call.
    let _ = unsafe { nvrtc::destroy_program(prog) };
    result
}

fn read_cubin(prog: nvrtc_sys::nvrtcProgram) -> std::result::Result<Vec<u8>, String> {
    let mut size = 0usize;
    // SAFETY: prog compiled successfully; size is a valid out-pointer.
    let status = unsafe { nvrtc_sys::nvrtcGetCUBINSize(prog, &mut size) };
    if status != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS || size == 0 {
        return Err(format!("nvrtcGetCUBINSize failed: {status:?}"));
    }
    let mut buf = vec![0u8; size];
    // SAFETY: buf holds exactly the size NVRTC reported.
    let status = unsafe { nvrtc_sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr().cast()) };
    if status != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcGetCUBIN failed: {status:?}"));
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn library_headers_expand_once_with_or_without_a_comment() {
        let source = KernelSource {
            name: "t",
            defines: &[],
            entries: &[],
            text: "#include \"framework/codag.cuh\" // the framework\n\
                   #include \"framework/common.cuh\"\n#include \"orc/orc_int.cuh\"\n\
                   #include \"other.h\"\nint x;",
        };
        let text = source.expanded();
        assert!(!text.contains("#include \"framework/codag.cuh\""));
        assert!(!text.contains("#include \"orc/orc_int.cuh\""));
        assert!(
            text.contains("#include \"other.h\""),
            "unknown headers stay"
        );
        assert_eq!(text.matches("struct CodagSmemSlots {").count(), 1);
        assert_eq!(text.matches("#define WZ_FULL_MASK").count(), 1);
        assert!(text.ends_with("int x;\n"));
    }
}
