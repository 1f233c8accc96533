//! `warpzip decompress` (also `warpzip -d`): FILE.wz or FILE.gz to FILE (or stdin to stdout),
//! gzip style. Input starting with the gzip magic `1f 8b` is decoded as gzip whatever its name.
//! The output exists only after every chunk or member decoded and verified; a failure mid-way
//! leaves nothing.

use super::{finish_output, for_each_input, open_device, report, Input};
use crate::cli::{DecompressArgs, OutputArgs, UsageError};
use crate::output::{same_file, Sink};
use crate::progress::{self, Progress};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use warpzip::api::{self, InputFormat};
use warpzip::format::peek_header;
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
    super::set_verbose(args.out.verbose);
    let device = open_device(args.device.device)?;
    if args.test {
        return for_each_input(&inputs, |input| {
            test(input, args.out.force, &device)?;
            if args.out.verbose {
                eprintln!("{}:\tOK", input.describe());
            }
            Ok(())
        });
    }
    for_each_input(&inputs, |input| {
        decompress_one(input, explicit, &args.out, &device)
    })
}

/// Decompresses one input to its output (`-o`/`-c`, stdout for stdin, else FILE for FILE.wz).
fn decompress_one(
    input: &Input,
    explicit: Option<&Path>,
    out: &OutputArgs,
    device: &Device,
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

    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    let decoded = decode(
        &data,
        &input.describe(),
        device,
        &mut progress,
        "decompressing",
    )?;
    progress.bytes_phase("writing", Some(decoded.len() as u64));
    progress::write_all(&mut sink, &decoded, &progress)
        .with_context(|| format!("writing {}", sink.describe()))?;
    progress.finish();
    let line = report(
        input,
        &sink,
        out.keep,
        decoded.len() as u64,
        data.len() as u64,
    );
    finish_output(sink, input, out.keep)?;
    if out.verbose {
        eprintln!("{line}");
    }
    Ok(())
}

/// `-t`: decodes the input whole (every chunk or gzip member, every checksum verified) and
/// drops the result; nothing is written and the input stays.
fn test(input: &Input, force: bool, device: &Device) -> Result<()> {
    if input.is_terminal() && !force {
        bail!("compressed data not read from a terminal; name a file or redirect the input");
    }
    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    decode(&data, &input.describe(), device, &mut progress, "testing")?;
    progress.finish();
    Ok(())
}

/// Decodes a whole input through the library's front door: a gzip file (recognised by its
/// magic; every member checked, the library's notices printed on stderr) or a `.wz` container
/// (every checksum verified). `doing` names the work in the progress display and in errors.
fn decode(
    data: &[u8],
    what: &str,
    device: &Device,
    progress: &mut Progress,
    doing: &'static str,
) -> Result<Vec<u8>> {
    let expected = match InputFormat::detect(data) {
        Some(InputFormat::Gzip) => data.len() as u64,
        _ => {
            let header = peek_header(data).with_context(|| format!("{doing} {what}"))?;
            let total = header.total_len;
            usize::try_from(total)
                .with_context(|| format!("{what}: {total} bytes do not fit in memory here"))?;
            total.max(data.len() as u64)
        }
    };
    progress.enable_for(expected);
    progress.spinner_phase(doing);
    let decoded = api::decompress_any(data, device).with_context(|| format!("{doing} {what}"))?;
    for notice in &decoded.notices {
        super::notice(&notice.message(what));
    }
    Ok(decoded.data)
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
