//! Progress on stderr for large inputs (above 64 MiB, stderr a terminal). Reading and writing
//! show real byte counts; a whole-buffer library call shows a spinner naming its phase, since
//! it reports no progress of its own and a made-up percentage would be a lie.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::cell::RefCell;
use std::io::{self, IsTerminal, Read, Write};
use std::time::Duration;

/// Inputs larger than this get a progress display.
pub const THRESHOLD: u64 = 64 << 20;

/// A progress display that may be switched off (small input, stderr not a terminal). Each
/// phase gets a fresh bar, built with its style before it first draws, so no frame mixes two
/// phases and each phase's rate is its own.
pub struct Progress {
    enabled: bool,
    bar: RefCell<Option<ProgressBar>>,
}

impl Progress {
    /// A display that shows only if `bytes` exceeds the threshold and stderr is a terminal.
    pub fn for_size(bytes: u64) -> Progress {
        let mut p = Progress {
            enabled: false,
            bar: RefCell::new(None),
        };
        p.enable_for(bytes);
        p
    }

    /// Switches the display on once a phase turns out to be large.
    pub fn enable_for(&mut self, bytes: u64) {
        if !self.enabled && bytes > THRESHOLD && io::stderr().is_terminal() {
            self.enabled = true;
        }
    }

    /// Starts a phase measured in bytes (`total` when known).
    pub fn bytes_phase(&self, phase: &str, total: Option<u64>) {
        let template = match total {
            Some(_) => "{msg:>12} [{wide_bar}] {bytes}/{total_bytes} ({bytes_per_sec})",
            None => "{msg:>12} {bytes} ({bytes_per_sec})",
        };
        self.start(phase, template, total);
    }

    /// Starts a phase whose progress cannot be measured: a spinner with the elapsed time.
    pub fn spinner_phase(&self, phase: &str) {
        self.start(phase, "{msg:>12} {spinner} {elapsed}", None);
        if let Some(bar) = self.bar.borrow().as_ref() {
            bar.enable_steady_tick(Duration::from_millis(100));
        }
    }

    fn start(&self, phase: &str, template: &str, total: Option<u64>) {
        if !self.enabled {
            return;
        }
        let style = ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ");
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr())
            .with_style(style)
            .with_message(phase.to_string());
        if let Some(old) = self.bar.replace(Some(bar)) {
            old.finish_and_clear();
        }
    }

    fn inc(&self, n: u64) {
        if let Some(bar) = self.bar.borrow().as_ref() {
            bar.inc(n);
        }
    }

    /// Removes the display.
    pub fn finish(&self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}

const PIECE: usize = 8 << 20;

/// Reads all of `reader`, reporting bytes as they arrive. `expected` sizes the buffer.
pub fn read_all<R: Read>(
    mut reader: R,
    expected: Option<u64>,
    progress: &Progress,
) -> io::Result<Vec<u8>> {
    let mut data = Vec::with_capacity(expected.unwrap_or(0).min(isize::MAX as u64) as usize);
    let mut piece = vec![0u8; PIECE];
    loop {
        let n = match reader.read(&mut piece) {
            Ok(0) => return Ok(data),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        data.extend_from_slice(&piece[..n]);
        progress.inc(n as u64);
    }
}

/// A writer that reports the bytes passing through it, starting the phase `phase` at its
/// first write (a library call that writes only after it has computed everything).
pub struct CountingWriter<'a, W> {
    inner: W,
    progress: &'a Progress,
    phase: &'static str,
    started: bool,
}

impl<'a, W: Write> CountingWriter<'a, W> {
    pub fn new(inner: W, progress: &'a Progress, phase: &'static str) -> Self {
        CountingWriter {
            inner,
            progress,
            phase,
            started: false,
        }
    }
}

impl<W: Write> Write for CountingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.started {
            self.started = true;
            self.progress.bytes_phase(self.phase, None);
        }
        let n = self.inner.write(buf)?;
        self.progress.inc(n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
