//! One module per subcommand, plus what they share: opening the device, reading the input,
//! and printing aligned tables.

mod bench;
mod compare;
mod compress;
mod decompress;
mod demo;
mod inspect;
pub mod orc;
mod select;
pub mod ssb;

use crate::cli::{Command, DeviceChoice};
use crate::output::Sink;
use crate::progress::{self, Progress};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, IsTerminal};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use warpzip::Device;

/// Runs one subcommand.
pub fn run(command: Command) -> Result<()> {
    match command {
        Command::Compress(args) => compress::run(args),
        Command::Decompress(args) => decompress::run(args),
        Command::Inspect(args) => inspect::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Select(args) => select::run(args),
        Command::Orc(args) => orc::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Ssb(args) => ssb::run(args),
    }
}

/// Opens the device the user asked for. `cpu` never touches CUDA; `gpu` fails with the reason
/// no GPU is usable; `auto` falls back to the CPU with the library's one-line notice.
pub fn open_device(choice: DeviceChoice) -> Result<Device> {
    match choice {
        DeviceChoice::Cpu => Ok(Device::cpu()),
        DeviceChoice::Gpu => Device::gpu(0).context("--device gpu"),
        // Falling back to the CPU is the normal state of a machine without a GPU: said only
        // when the user asked to hear it (-v).
        DeviceChoice::Auto => match Device::gpu(0) {
            Ok(device) => Ok(device),
            Err(e) => {
                if VERBOSE.load(Ordering::Relaxed) {
                    notice(&format!("no GPU ({e}); using the CPU"));
                }
                Ok(Device::cpu())
            }
        },
    }
}

/// Set by `-q` or `WARPZIP_QUIET`: notices are not printed.
static QUIET: AtomicBool = AtomicBool::new(false);
/// Set by a command's `-v`: notices the user asked for are printed.
static VERBOSE: AtomicBool = AtomicBool::new(false);

/// Silences notices (`-q`, `WARPZIP_QUIET`).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Asks for the notices that only `-v` prints (the CPU used in place of a GPU).
pub fn set_verbose(verbose: bool) {
    VERBOSE.store(verbose, Ordering::Relaxed);
}

/// Prints `warpzip: MESSAGE` on stderr unless notices are silenced.
pub fn notice(message: &str) {
    if !QUIET.load(Ordering::Relaxed) {
        eprintln!("warpzip: {message}");
    }
}

/// A command's input: a file or standard input.
pub enum Input {
    File(PathBuf),
    Stdin,
}

impl Input {
    /// `-` means standard input.
    pub fn from_arg(arg: PathBuf) -> Input {
        if arg == Path::new("-") {
            Input::Stdin
        } else {
            Input::File(arg)
        }
    }

    /// A command's FILE arguments; none means standard input.
    pub fn from_args(args: Vec<PathBuf>) -> Vec<Input> {
        if args.is_empty() {
            return vec![Input::Stdin];
        }
        args.into_iter().map(Input::from_arg).collect()
    }

    /// A name for messages.
    pub fn describe(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "standard input".to_string(),
        }
    }

    /// True for standard input attached to a terminal.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Input::Stdin) && io::stdin().is_terminal()
    }

    /// Reads everything, showing progress for large files.
    pub fn read(&self, progress: &mut Progress) -> Result<Vec<u8>> {
        match self {
            Input::File(path) => {
                let file =
                    File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
                let meta = file
                    .metadata()
                    .with_context(|| format!("cannot read {}", path.display()))?;
                if meta.is_dir() {
                    bail!("{} is a directory", path.display());
                }
                progress.enable_for(meta.len());
                progress.bytes_phase("reading", Some(meta.len()));
                progress::read_all(file, Some(meta.len()), progress)
                    .with_context(|| format!("cannot read {}", path.display()))
            }
            Input::Stdin => {
                progress.bytes_phase("reading", None);
                progress::read_all(io::stdin().lock(), None, progress)
                    .context("cannot read standard input")
            }
        }
    }
}

/// Refuses a symbolic link as the input of a command that writes a file and removes its input,
/// as gzip does, unless `force`: the link is then followed for reading, and only the link,
/// never its target, is removed afterwards. Output to stdout (`-c`, `-o -`) reads through links.
pub fn refuse_symlink(input: &Input, output: &Path, force: bool) -> Result<()> {
    if let Input::File(path) = input {
        let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && !force && output != Path::new("-") {
            bail!(
                "{} is a symbolic link -- ignored (use -f to follow it, or -c)",
                path.display()
            );
        }
    }
    Ok(())
}

/// An error and its causes on one line, `outer: inner: innermost`, each said once: a cause whose
/// text the line already holds (an I/O error the library's error quotes) is left out.
pub fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let part = cause.to_string();
        if text.contains(&part) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&part);
    }
    text
}

/// Runs `one` on every input, gzip style: with one input its error is the command's; with
/// several, every failure is printed (`warpzip: ...`) and the others still run, and the
/// command fails at the end if any did.
pub fn for_each_input(inputs: &[Input], mut one: impl FnMut(&Input) -> Result<()>) -> Result<()> {
    if let [only] = inputs {
        return one(only);
    }
    let mut failed = 0usize;
    for input in inputs {
        if let Err(e) = one(input) {
            eprintln!("warpzip: {}", error_text(&e));
            failed += 1;
        }
    }
    if failed > 0 {
        bail!("{failed} of {} files failed", inputs.len());
    }
    Ok(())
}

/// `-v`'s line for one file, gzip style: `NAME: 61.2% -- replaced with NAME.wz` (the share of
/// the uncompressed size saved; `created` when the input is kept, nothing after the share for
/// stdout). Printed by the caller once the output is committed.
pub fn report(input: &Input, sink: &Sink, keep: bool, original: u64, compressed: u64) -> String {
    let saved = if original == 0 {
        0.0
    } else {
        100.0 * (1.0 - compressed as f64 / original as f64)
    };
    let tail = match (sink, input) {
        (Sink::Stdout(_), _) => String::new(),
        (Sink::Special { .. }, _) => format!(" -- written to {}", sink.describe()),
        (Sink::File(_), Input::File(_)) if !keep => {
            format!(" -- replaced with {}", sink.describe())
        }
        (Sink::File(_), _) => format!(" -- created {}", sink.describe()),
    };
    format!("{}:\t{saved:5.1}%{tail}", input.describe())
}

/// Commits the output (giving a file the input file's permissions, as gzip does) and then,
/// gzip style, removes the input file unless `keep` or the output went to stdout.
pub fn finish_output(sink: Sink, input: &Input, keep: bool) -> Result<()> {
    if let (Sink::File(file), Input::File(path)) = (&sink, input) {
        file.copy_permissions_from(path);
    }
    let to_file = matches!(sink, Sink::File(_));
    sink.finish()?;
    if let Input::File(path) = input {
        if to_file && !keep {
            std::fs::remove_file(path)
                .with_context(|| format!("output written, but cannot remove {}", path.display()))?;
        }
    }
    Ok(())
}

/// Column alignment in a table.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// Formats rows under a header, each column as wide as its widest cell.
pub fn format_table(header: &[(&str, Align)], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|(h, _)| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut s = String::new();
        for (i, ((cell, w), (_, align))) in cells.iter().zip(&widths).zip(header).enumerate() {
            if i > 0 {
                s.push_str("  ");
            }
            let pad = w.saturating_sub(cell.chars().count());
            if *align == Align::Right {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            } else {
                s.push_str(cell);
                if i + 1 < cells.len() {
                    s.push_str(&" ".repeat(pad));
                }
            }
        }
        let mut s = s.trim_end().to_string();
        s.push('\n');
        s
    };
    let mut out = line(header.iter().map(|(h, _)| *h).collect());
    for row in rows {
        out.push_str(&line(row.iter().map(String::as_str).collect()));
    }
    out
}

/// A byte count for humans: `1.5 MiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_align_columns() {
        let t = format_table(
            &[("name", Align::Left), ("n", Align::Right)],
            &[
                vec!["a".into(), "100".into()],
                vec!["longer".into(), "2".into()],
            ],
        );
        assert_eq!(t, "name      n\na       100\nlonger    2\n");
    }

    #[test]
    fn human_sizes() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(64 << 20), "64.0 MiB");
    }
}
