//! `warpzip compress`: FILE to FILE.wz (or stdin to stdout), gzip style: the input is removed
//! after success unless `-k`, an existing output is kept unless `-f`, and compressed data is not
//! written to a terminal.

use super::{finish_output, for_each_input, open_device, report, Input};
use crate::cli::{CompressArgs, OutputArgs, UsageError};
use crate::output::{same_file, Sink};
use crate::progress::{CountingWriter, Progress};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use warpzip::api::{self, CompressOptions};
use warpzip::Device;

pub fn run(args: CompressArgs) -> Result<()> {
    let inputs = Input::from_args(args.inputs);
    if inputs.len() > 1 && args.out.output.is_some() {
        return Err(UsageError(
            "-o names one output; with several files each is written to FILE.wz".into(),
        )
        .into());
    }
    let chunk_size = args
        .chunk_size
        .map(u32::try_from)
        .transpose()
        .map_err(|_| UsageError("--chunk-size is too large (at most 64M)".into()))?;
    let opts = CompressOptions {
        codec: args.codec,
        level: args.level,
        chunk_size,
        elem_type: args.dtype.map(|d| d.elem_type()),
        lossy: lossy_options(args.codec, &args.lossy)?,
    };
    // Options the codec refuses (a level it does not have, a chunk size outside its range) are
    // usage errors: exit status 2, as for any other malformed option.
    api::validate_options(&opts).map_err(|e| match e {
        warpzip::Error::InvalidArgument(why) => UsageError(why),
        other => UsageError(other.to_string()),
    })?;
    super::set_verbose(args.out.verbose);
    let device = open_device(args.device.device)?;
    for_each_input(&inputs, |input| {
        compress_one(input, &args.out, &opts, &device)
    })
}

/// Compresses one input to its output (FILE.wz, `-o`, or stdout for stdin).
fn compress_one(
    input: &Input,
    out: &OutputArgs,
    opts: &CompressOptions,
    device: &Device,
) -> Result<()> {
    let output = output_path(input, out.output.as_deref(), out.force)?;
    if let Input::File(path) = input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    let mut sink = Sink::open(&output, out.force)?;
    if sink.is_terminal() && !out.force {
        bail!("compressed data not written to a terminal; use -o FILE, redirect the output, or -f");
    }

    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    if let (Some(lossy), Some(elem)) = (&opts.lossy, opts.elem_type) {
        if let Some(warning) = warpzip::codec::range_warning(&data, elem, lossy) {
            super::notice(&format!("{}: {warning}", input.describe()));
        }
    }
    progress.enable_for(data.len() as u64);
    progress.spinner_phase("compressing");
    let mut counted = CountingWriter::new(&mut sink, &progress, "writing");
    let written = api::compress_to(&mut counted, &data, opts, device)
        .with_context(|| format!("compressing {}", input.describe()))?;
    progress.finish();
    let line = report(input, &sink, out.keep, data.len() as u64, written);
    finish_output(sink, input, out.keep)?;
    if out.verbose {
        eprintln!("{line}");
    }
    Ok(())
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

/// The sz codec's options from `--eb`, `--dims`, `--fill` and `--mode`; a usage error when
/// they are given to another codec or when sz lacks its bound.
fn lossy_options(
    codec: warpzip::CodecId,
    l: &crate::cli::LossyArgs,
) -> Result<Option<warpzip::codec::LossyOptions>> {
    if codec != warpzip::CodecId::Sz {
        if l.any() {
            return Err(UsageError(format!(
                "--eb, --dims, --fill and --mode are options of codec sz, not {codec}"
            ))
            .into());
        }
        return Ok(None);
    }
    let Some(bound) = l.eb else {
        return Err(UsageError(
            "codec sz needs an error bound: --eb abs:E, rel:E or pw-rel:E".into(),
        )
        .into());
    };
    Ok(Some(warpzip::codec::LossyOptions {
        bound,
        dims: l.dims.clone().map(|d| d.0).unwrap_or_default(),
        fill: l.fill.clone(),
        mode: l.mode.unwrap_or_default(),
    }))
}
