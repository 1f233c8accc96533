//! `warpzip decompress` (also `warpzip -d`): FILE.wz or FILE.gz to FILE (or stdin to stdout),
//! gzip style. Input starting with the gzip magic `1f 8b` is decoded as gzip whatever its name.
//! The input is streamed through the library's bounded pipeline, a batch of chunks (or gzip
//! members) at a time, every checksum verified before its batch is written. A file output exists
//! only after everything decoded and verified (a failure mid-way leaves nothing); on standard
//! output, the batches before a failure have been written, as with `gzip -dc`.

use super::{finish_output, for_each_input, open_device, report, Input};
use crate::cli::{DecompressArgs, OutputArgs, UsageError};
use crate::output::{same_file, Sink};
use crate::progress::{CountingWriter, Progress};
use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use warpzip::api::{self, StreamConfig, StreamStats};
use warpzip::Device;

/// Name suffixes `decompress` strips (or replaces) to name its output, as gzip does.
const SUFFIXES: &[(&str, &str)] = &[
    (".wz", ""),
    (".gz", ""),
    (".z", ""),
    (".tgz", ".tar"),
    (".taz", ".tar"),
];

pub fn run(args: DecompressArgs) -> Result<()> {
    let inputs = Input::from_args(args.inputs);
    let explicit = if args.stdout {
        Some(Path::new("-"))
    } else {
        args.out.output.as_deref()
    };
    if inputs.len() > 1 && explicit.is_some_and(|p| p != Path::new("-")) {
        return Err(UsageError(
            "-o names one output; with several files each takes its own name, or -c writes \
             them all to standard output"
                .into(),
        )
        .into());
    }
    let batch_size = args
        .batch
        .batch_size
        .map(usize::try_from)
        .transpose()
        .map_err(|_| UsageError("--batch-size is too large".into()))?;
    let cfg = StreamConfig {
        batch_size,
        ..StreamConfig::default()
    };
    super::set_verbose(args.out.verbose);
    let device = open_device(args.device.device)?;
    if args.test {
        return for_each_input(&inputs, |input| {
            test(input, args.out.force, &device, &cfg)?;
            if args.out.verbose {
                eprintln!("{}:\tOK", input.describe());
            }
            Ok(())
        });
    }
    for_each_input(&inputs, |input| {
        decompress_one(input, explicit, &args.out, &device, &cfg)
    })
}

/// Opens a command's input for streaming: a file (refusing a directory), with its length, or
/// standard input.
pub(super) fn open_input(input: &Input) -> Result<(Box<dyn Read + Send>, Option<u64>)> {
    match input {
        Input::File(path) => {
            let file =
                File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
            let meta = file
                .metadata()
                .with_context(|| format!("cannot read {}", path.display()))?;
            if meta.is_dir() {
                bail!("{} is a directory", path.display());
            }
            let len = meta.is_file().then_some(meta.len());
            Ok((Box::new(file), len))
        }
        Input::Stdin => Ok((Box::new(io::stdin()), None)),
    }
}

/// Decompresses one input to its output (`-o`/`-c`, stdout for stdin, else FILE for FILE.wz).
fn decompress_one(
    input: &Input,
    explicit: Option<&Path>,
    out: &OutputArgs,
    device: &Device,
    cfg: &StreamConfig,
) -> Result<()> {
    let output = output_path(input, explicit)?;
    super::refuse_symlink(input, &output, out.force)?;
    if let Input::File(path) = input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    if input.is_terminal() && !out.force {
        bail!("compressed data not read from a terminal; name a file or redirect the input");
    }
    let mut sink = Sink::open(&output, out.force)?;
    let (reader, size) = open_input(input)?;
    let progress = Progress::for_size(size.unwrap_or(0));
    let stats = {
        let mut counted = CountingWriter::new(&mut sink, &progress, "decompressing");
        decode(
            reader,
            &mut counted,
            &input.describe(),
            device,
            cfg,
            "decompressing",
        )?
    };
    progress.finish();
    let line = report(input, &sink, out.keep, stats.bytes_out, stats.bytes_in);
    finish_output(sink, input, out.keep)?;
    if out.verbose {
        eprintln!("{line}");
    }
    Ok(())
}

/// `-t`: decodes the input whole (every chunk or gzip member, every checksum verified) and
/// drops the result; nothing is written and the input stays.
fn test(input: &Input, force: bool, device: &Device, cfg: &StreamConfig) -> Result<()> {
    if input.is_terminal() && !force {
        bail!("compressed data not read from a terminal; name a file or redirect the input");
    }
    let (reader, _) = open_input(input)?;
    decode(
        reader,
        &mut io::sink(),
        &input.describe(),
        device,
        cfg,
        "testing",
    )?;
    Ok(())
}

/// Decodes an input through the library's streaming front door: a gzip file (recognised by its
/// magic; every member checked, the library's notices printed on stderr) or a `.wz` file (every
/// checksum verified). `doing` names the work in errors.
fn decode(
    reader: Box<dyn Read + Send>,
    w: &mut dyn io::Write,
    what: &str,
    device: &Device,
    cfg: &StreamConfig,
    doing: &'static str,
) -> Result<StreamStats> {
    let stats = api::decompress_stream_with(reader, w, device, cfg)
        .with_context(|| format!("{doing} {what}"))?;
    for notice in &stats.notices {
        super::notice(&notice.message(what));
    }
    Ok(stats)
}

/// `-o` when given; else stdout for stdin, and FILE for FILE.wz or FILE.gz (FILE.tar for
/// FILE.tgz).
fn output_path(input: &Input, explicit: Option<&Path>) -> Result<PathBuf> {
    match (explicit, input) {
        (Some(out), _) => Ok(out.to_path_buf()),
        (None, Input::Stdin) => Ok(PathBuf::from("-")),
        (None, Input::File(path)) => {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let renamed = SUFFIXES.iter().find_map(|(suffix, replacement)| {
                let stem = name.strip_suffix(suffix)?;
                (!stem.is_empty()).then(|| format!("{stem}{replacement}"))
            });
            match renamed {
                Some(out) => Ok(path.with_file_name(out)),
                None => bail!(
                    "{}: unknown suffix (expected .wz or .gz); use -o to name the output or -c \
                     to write to standard output",
                    path.display()
                ),
            }
        }
    }
}
