//! Helpers shared by the command-line tests: the binary under test, the repository's test data,
//! temporary directories and running the binary. Each test file uses only some of them.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../../../warpzip/tests/common/require_gpu.rs"]
pub mod require_gpu;

use std::fs;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The binary under test: `WARPZIP_BIN` when set, else the one cargo built, else (on the GPU
/// machine, where the build machine's paths do not exist) `$WARPZIP_REPO_ROOT/.gpu/bin/warpzip`.
pub fn bin() -> PathBuf {
    if let Some(path) = std::env::var_os("WARPZIP_BIN") {
        return PathBuf::from(path);
    }
    let built = PathBuf::from(env!("CARGO_BIN_EXE_warpzip"));
    if built.exists() {
        return built;
    }
    match std::env::var_os("WARPZIP_REPO_ROOT") {
        Some(root) => PathBuf::from(root).join(".gpu/bin/warpzip"),
        None => built,
    }
}

/// The repository's test data folder (`testdata/`): `$WARPZIP_REPO_ROOT/testdata` when that
/// variable is set (the GPU machine's copy of the repository), else the one two levels above
/// this crate. A missing folder fails the test.
pub fn testdata() -> PathBuf {
    let mut tried = Vec::new();
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        tried.push(PathBuf::from(root).join("testdata"));
    }
    tried.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata"
    )));
    match tried.iter().find(|p| p.is_dir()) {
        Some(dir) => dir.clone(),
        None => panic!("the repository's testdata/ folder is missing; tried: {tried:?}"),
    }
}

/// A directory under the system temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "warpzip-cli-test-{}-{n}-{name}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Every file name in the directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

pub fn warpzip(dir: &TempDir, args: &[&str]) -> Output {
    warpzip_with_stdin(dir, args, None)
}

pub fn warpzip_with_stdin(dir: &TempDir, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(&dir.0)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        let input = input.to_vec();
        // Feed stdin from a thread so that a full stdout pipe cannot deadlock the test.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    child.wait_with_output().unwrap()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
