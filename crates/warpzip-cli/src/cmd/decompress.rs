//! `warpzip decompress` (also `warpzip -d`): FILE.wz to FILE (or stdin to stdout). The output
//! exists only after every chunk decoded and verified; a failure mid-way leaves nothing.

use super::{finish_output, open_device, Input};
use crate::cli::DecompressArgs;
use crate::output::{same_file, Sink};
use crate::progress::{self, Progress};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use warpzip::api;
use warpzip::format::Container;

pub fn run(args: DecompressArgs) -> Result<()> {
    let input = Input::from_arg(args.input);
    let output = output_path(&input, args.out.output.as_deref())?;
    if let Input::File(path) = &input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    if input.is_terminal() && !args.out.force {
        bail!("compressed data not read from a terminal; name a file or redirect the input");
    }
    let device = open_device(args.device.device)?;
    let mut sink = Sink::open(&output, args.out.force)?;

    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    let what = input.describe();
    let container = Container::parse(&data).with_context(|| format!("decompressing {what}"))?;
    let total = container.header.total_len;
    let len = usize::try_from(total)
        .with_context(|| format!("{what}: {total} bytes do not fit in memory here"))?;
    progress.enable_for(total.max(data.len() as u64));
    progress.spinner_phase("decompressing");
    let mut out = vec![0u8; len];
    api::decompress_container_into(&container, &mut out, &device)
        .with_context(|| format!("decompressing {what}"))?;
    progress.bytes_phase("writing", Some(total));
    progress::write_all(&mut sink, &out, &progress)
        .with_context(|| format!("writing {}", sink.describe()))?;
    progress.finish();

    finish_output(sink, &input, args.out.keep)
}

/// `-o` when given; else stdout for stdin, and FILE for FILE.wz.
fn output_path(input: &Input, explicit: Option<&Path>) -> Result<PathBuf> {
    match (explicit, input) {
        (Some(out), _) => Ok(out.to_path_buf()),
        (None, Input::Stdin) => Ok(PathBuf::from("-")),
        (None, Input::File(path)) => {
            let stripped = path.extension().is_some_and(|e| e == "wz")
                && path.file_stem().is_some_and(|s| !s.is_empty());
            if !stripped {
                bail!(
                    "{}: unknown suffix (expected .wz); use -o to name the output",
                    path.display()
                );
            }
            Ok(path.with_extension(""))
        }
    }
}
