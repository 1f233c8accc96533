//! Safe output handling: a file is written under a temporary name in its own directory and
//! renamed into place only after everything succeeded, so an error (or a failed decode) never
//! leaves a partial output behind, and an existing file is never overwritten without `-f`.
//! An existing device, FIFO or socket (`-o /dev/null`, a named pipe) is written in place: it is
//! neither replaced nor needs `-f`, and the input is kept.

use anyhow::{bail, Context, Result};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// The temporary files of the outputs being written: what a terminating signal removes.
static UNFINISHED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The temporary files of the outputs not yet renamed into place. Held while one is created or
/// renamed, so that a signal's cleanup sees every file that exists.
pub fn unfinished_outputs() -> MutexGuard<'static, Vec<PathBuf>> {
    UNFINISHED.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Forgets `path`, which was renamed into place or removed.
fn forget_unfinished(unfinished: &mut Vec<PathBuf>, path: &Path) {
    unfinished.retain(|p| p != path);
}

/// Where a command's output goes.
pub enum Sink {
    File(OutputFile),
    Stdout(io::StdoutLock<'static>),
    /// An existing file that is not a regular file (a device, FIFO or socket), written directly.
    Special {
        path: PathBuf,
        writer: BufWriter<File>,
    },
}

impl Sink {
    /// Opens `path` (a file, or stdout for `-`); refuses an existing file unless `force`.
    pub fn open(path: &Path, force: bool) -> Result<Sink> {
        if path == Path::new("-") {
            return Ok(Sink::stdout());
        }
        // Renaming a temporary file over `/dev/null` would replace the device node: such
        // outputs are opened and written as they are (following links, as `/dev/stdout` is one).
        if fs::metadata(path).is_ok_and(|m| is_special(&m.file_type())) {
            let file = OpenOptions::new()
                .write(true)
                .open(path)
                .with_context(|| format!("cannot open {}", path.display()))?;
            return Ok(Sink::Special {
                path: path.to_path_buf(),
                writer: BufWriter::with_capacity(1 << 20, file),
            });
        }
        Ok(Sink::File(OutputFile::create(path, force)?))
    }

    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout(io::stdout().lock())
    }

    /// True when the output is standard output attached to a terminal.
    pub fn is_terminal(&self) -> bool {
        match self {
            Sink::Stdout(s) => s.is_terminal(),
            Sink::Special { writer, .. } => writer.get_ref().is_terminal(),
            Sink::File(_) => false,
        }
    }

    /// Flushes and, for a file, renames it into place.
    pub fn finish(self) -> Result<()> {
        match self {
            Sink::File(f) => f.commit(),
            Sink::Stdout(mut s) => s.flush().context("writing to standard output"),
            Sink::Special { path, mut writer } => writer
                .flush()
                .with_context(|| format!("writing {}", path.display())),
        }
    }

    /// A name for messages.
    pub fn describe(&self) -> String {
        match self {
            Sink::File(f) => f.final_path.display().to_string(),
            Sink::Stdout(_) => "standard output".to_string(),
            Sink::Special { path, .. } => path.display().to_string(),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::File(f) => f.write(buf),
            Sink::Stdout(s) => s.write(buf),
            Sink::Special { writer, .. } => writer.write(buf),
        }
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::File(f) => f.write_all(buf),
            Sink::Stdout(s) => s.write_all(buf),
            Sink::Special { writer, .. } => writer.write_all(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::File(f) => f.flush(),
            Sink::Stdout(s) => s.flush(),
            Sink::Special { writer, .. } => writer.flush(),
        }
    }
}

/// An output file being written under a temporary name; removed on drop unless committed.
pub struct OutputFile {
    final_path: PathBuf,
    tmp_path: PathBuf,
    writer: BufWriter<File>,
    force: bool,
    committed: bool,
}

impl OutputFile {
    /// Starts writing `path`. Fails at once if it exists (unless `force`) or is a directory.
    pub fn create(path: &Path, force: bool) -> Result<OutputFile> {
        check_target(path, force)?;
        let name = path
            .file_name()
            .with_context(|| format!("{}: not a file name", path.display()))?;
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".wz-tmp-{}", std::process::id()));
        let tmp_path = dir.join(tmp_name);
        let mut unfinished = unfinished_outputs();
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp_path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        unfinished.push(tmp_path.clone());
        drop(unfinished);
        Ok(OutputFile {
            final_path: path.to_path_buf(),
            tmp_path,
            writer: BufWriter::with_capacity(1 << 20, file),
            force,
            committed: false,
        })
    }

    /// Gives the output the permissions of `source` (gzip keeps the mode of its input).
    pub fn copy_permissions_from(&self, source: &Path) {
        // Best effort, like gzip: a file system that refuses modes still gets the data.
        if let Ok(meta) = fs::metadata(source) {
            let _ = fs::set_permissions(&self.tmp_path, meta.permissions());
        }
    }

    /// Flushes the data and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        self.writer
            .flush()
            .with_context(|| format!("writing {}", self.final_path.display()))?;
        // Someone may have created the output while we worked: check again before replacing.
        check_target(&self.final_path, self.force)?;
        let mut unfinished = unfinished_outputs();
        fs::rename(&self.tmp_path, &self.final_path)
            .with_context(|| format!("cannot put {} in place", self.final_path.display()))?;
        forget_unfinished(&mut unfinished, &self.tmp_path);
        self.committed = true;
        Ok(())
    }
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.writer.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if !self.committed {
            let mut unfinished = unfinished_outputs();
            let _ = fs::remove_file(&self.tmp_path);
            forget_unfinished(&mut unfinished, &self.tmp_path);
        }
    }
}

/// A device, FIFO or socket: an output that is written in place, never replaced.
#[cfg(unix)]
fn is_special(kind: &fs::FileType) -> bool {
    use std::os::unix::fs::FileTypeExt;
    kind.is_char_device() || kind.is_block_device() || kind.is_fifo() || kind.is_socket()
}

/// Elsewhere: anything that is neither a regular file nor a directory.
#[cfg(not(unix))]
fn is_special(kind: &fs::FileType) -> bool {
    !kind.is_file() && !kind.is_dir()
}

fn check_target(path: &Path, force: bool) -> Result<()> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => bail!("{} is a directory", path.display()),
        Ok(_) if !force => bail!("{} already exists; use -f to overwrite it", path.display()),
        _ => Ok(()),
    }
}

/// True when `a` and `b` name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}
