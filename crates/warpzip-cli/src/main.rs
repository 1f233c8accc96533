//! `warpzip`: the command-line face of the warpzip library. The binary is thin: it parses
//! arguments, handles files safely, shows progress and maps errors to exit codes (0 success,
//! 1 error, 2 usage error; a terminating signal removes the unfinished output and ends warpzip
//! by that signal); the library does the work.

mod cli;
mod cmd;
mod output;
mod progress;
mod signals;

use clap::Parser;
use std::process::ExitCode;

/// Restores the default action of SIGPIPE, which the Rust runtime ignores: a reader that
/// closes the pipe early (`warpzip -d -c f.wz | head`) then ends warpzip quietly, as it ends
/// gzip and zstd, instead of an error message about a broken pipe (or a panic when the pipe
/// was stderr).
#[cfg(unix)]
fn default_sigpipe() {
    // SAFETY: `signal` with SIG_DFL for SIGPIPE only changes the process's signal disposition;
    // it runs first in `main`, before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn default_sigpipe() {}

/// The most CPU threads `-T` gets per core.
const THREADS_PER_CORE: usize = 8;

fn main() -> ExitCode {
    default_sigpipe();
    signals::install();
    let args = cli::normalize_args(std::env::args_os().collect());
    // Usage errors exit with clap's status 2 (help and version with 0).
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let quiet_env = std::env::var_os("WARPZIP_QUIET")
        .is_some_and(|v| !matches!(v.to_str(), Some("" | "0" | "false" | "no" | "off")));
    cmd::set_quiet(cli.quiet || quiet_env);
    if cli.threads > 0 {
        // More threads than this only costs memory and start-up time (each has its own stack).
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = cores.saturating_mul(THREADS_PER_CORE);
        let threads = if cli.threads > most {
            cmd::notice(&format!(
                "-T {} capped at {most} ({THREADS_PER_CORE} per core)",
                cli.threads
            ));
            most
        } else {
            cli.threads
        };
        // Only fails when a pool was already built, which nothing before this does.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global();
    }
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<cli::UsageError>().is_some() => {
            eprintln!("error: {e}\n\nFor more information, try '--help'.");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("warpzip: {}", cmd::error_text(&e));
            ExitCode::FAILURE
        }
    }
}
