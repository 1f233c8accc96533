//! `warpzip`: the command-line face of the warpzip library. The binary is thin: it parses
//! arguments, handles files safely, shows progress and maps errors to exit codes (0 success,
//! 1 error, 2 usage error); the library does the work.

mod cli;
mod cmd;
mod output;
mod progress;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::rewrite_decompress_flag(std::env::args_os().collect());
    // Usage errors exit with clap's status 2 (help and version with 0).
    let cli = match cli::Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if cli.threads > 0 {
        // Only fails when a pool was already built, which nothing before this does.
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(cli.threads)
            .build_global();
    }
    match cmd::run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.downcast_ref::<cli::UsageError>().is_some() => {
            eprintln!("error: {e}\n\nFor more information, try '--help'.");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("warpzip: {e:#}");
            ExitCode::FAILURE
        }
    }
}
