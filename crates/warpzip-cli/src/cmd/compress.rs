//! `warpzip compress`: FILE to FILE.wz (or stdin to stdout), gzip style: the input is removed
//! after success unless `-k`, an existing output is kept unless `-f`, and compressed data is not
//! written to a terminal.

use super::{finish_output, open_device, Input};
use crate::cli::CompressArgs;
use crate::output::{same_file, Sink};
use crate::progress::{CountingWriter, Progress};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use warpzip::api::{self, CompressOptions};

pub fn run(args: CompressArgs) -> Result<()> {
    let input = Input::from_arg(args.input);
    let output = output_path(&input, args.out.output.as_deref(), args.out.force)?;
    let chunk_size = args
        .chunk_size
        .map(u32::try_from)
        .transpose()
        .map_err(|_| anyhow::anyhow!("--chunk-size is too large (at most 64M)"))?;
    let opts = CompressOptions {
        codec: args.codec,
        level: args.level,
        chunk_size,
        elem_type: args.dtype.map(|d| d.elem_type()),
    };
    api::validate_options(&opts)?;
    if let Input::File(path) = &input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    let device = open_device(args.device.device)?;
    let mut sink = Sink::open(&output, args.out.force)?;
    if sink.is_terminal() && !args.out.force {
        bail!("compressed data not written to a terminal; use -o FILE, redirect the output, or -f");
    }

    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    progress.enable_for(data.len() as u64);
    progress.spinner_phase("compressing");
    let mut counted = CountingWriter::new(&mut sink, &progress, "writing");
    api::compress_to(&mut counted, &data, &opts, &device)
        .with_context(|| format!("compressing {}", input.describe()))?;
    progress.finish();

    finish_output(sink, &input, args.out.keep)
}

/// `-o` when given; else stdout for stdin, and `FILE.wz` for a file.
fn output_path(input: &Input, explicit: Option<&Path>, force: bool) -> Result<PathBuf> {
    match (explicit, input) {
        (Some(out), _) => Ok(out.to_path_buf()),
        (None, Input::Stdin) => Ok(PathBuf::from("-")),
        (None, Input::File(path)) => {
            if path.extension().is_some_and(|e| e == "wz") && !force {
                bail!(
                    "{} already has the .wz suffix; use -o to name the output or -f to \
                     compress it again",
                    path.display()
                );
            }
            let mut name = path.as_os_str().to_owned();
            name.push(".wz");
            Ok(PathBuf::from(name))
        }
    }
}
