//! `warpzip compress`: FILE to FILE.wz (or FILE.gz with `--format gz|bgzf`; stdin to stdout),
//! gzip style: the input is removed after success unless `-k`, an existing output is kept unless
//! `-f`, and compressed data is not written to a terminal. The input is streamed through the
//! library's bounded pipeline: memory stays at a few batches whatever the input's size.

use super::decompress::open_input;
use super::{finish_output, for_each_input, open_device, report, Input};
use crate::cli::{CompressArgs, OutFormat, OutputArgs, ReaderChoice, UsageError};
use crate::output::{same_file, Sink};
use crate::progress::{CountingWriter, Progress};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use warpzip::api::{self, CompressOptions, OutputFormat, StreamConfig};
use warpzip::{CodecId, Device};

pub fn run(mut args: CompressArgs) -> Result<()> {
    let inputs = Input::from_args(args.inputs);
    if args.stdout {
        // `-c` is `-o -`, gzip style.
        args.out.output = Some(PathBuf::from("-"));
    }
    if inputs.len() > 1 && args.out.output.is_some() {
        return Err(UsageError(
            "-o and -c name one output; with several files each is written to FILE.wz".into(),
        )
        .into());
    }
    let chunk_size = args
        .chunk_size
        .map(u32::try_from)
        .transpose()
        .map_err(|_| UsageError("--chunk-size is too large (at most 64M)".into()))?;
    let format = match args.format {
        OutFormat::Wz => OutputFormat::Wz,
        OutFormat::Gz => OutputFormat::Gzip,
        OutFormat::Bgzf => OutputFormat::Bgzf,
    };
    let gzip = format != OutputFormat::Wz;
    if gzip && args.codec != CodecId::Deflate {
        return Err(UsageError(format!(
            "--format {} writes Deflate; --codec {} does not apply",
            suffix_name(args.format),
            args.codec
        ))
        .into());
    }
    if gzip && args.dtype.is_some() {
        return Err(UsageError(format!(
            "--format {} holds bytes; --dtype does not apply",
            suffix_name(args.format)
        ))
        .into());
    }
    let mut opts = CompressOptions {
        codec: if gzip { CodecId::Deflate } else { args.codec },
        level: args.level,
        chunk_size,
        elem_type: args.dtype.map(|d| d.elem_type()),
        lossy: lossy_options(args.codec, &args.lossy)?,
    };
    // Options the codec refuses (a level it does not have, a chunk size outside its range) are
    // usage errors: exit status 2, as for any other malformed option.
    let checked = if gzip {
        warpzip::gzip::write::check_options(&opts, format)
    } else {
        api::validate_options(&opts)
    };
    checked.map_err(|e| match e {
        warpzip::Error::InvalidArgument(why) => UsageError(why),
        other => UsageError(other.to_string()),
    })?;
    let batch_size = args
        .batch
        .batch_size
        .map(usize::try_from)
        .transpose()
        .map_err(|_| UsageError("--batch-size is too large".into()))?;
    super::set_verbose(args.out.verbose);
    let device = open_device(args.device.device)?;
    opts.chunk_size = opts
        .chunk_size
        .or_else(|| reader_chunk_size(opts.codec, format, args.reader, &device));
    for_each_input(&inputs, |input| {
        let cfg = StreamConfig {
            batch_size,
            size_hint: None,
            format,
        };
        compress_one(input, &args.out, &opts, cfg, &device)
    })
}

/// The name of a `--format`, and the suffix it writes.
fn suffix_name(format: OutFormat) -> &'static str {
    match format {
        OutFormat::Wz => "wz",
        OutFormat::Gz => "gz",
        OutFormat::Bgzf => "bgzf",
    }
}

/// Deflate chunks for a CPU reader: the codec's largest, which compress best and still give
/// the CPU's threads a chunk each on any file worth splitting.
const CPU_READER_DEFLATE_CHUNK: u32 = 4 << 20;

/// The chunk size `--for` implies when `--chunk-size` is not given: deflate's largest chunks for
/// a CPU reader (`--for cpu`, or `auto` when the compressing device is the CPU); the codec's own
/// default, sized for a GPU's parallel inflate, otherwise. BGZF keeps its own block size, which
/// its format caps at 64 KiB.
fn reader_chunk_size(
    codec: CodecId,
    format: OutputFormat,
    reader: ReaderChoice,
    device: &Device,
) -> Option<u32> {
    if format == OutputFormat::Bgzf {
        return None;
    }
    let for_cpu = match reader {
        ReaderChoice::Cpu => true,
        ReaderChoice::Gpu => false,
        ReaderChoice::Auto => !device.is_gpu(),
    };
    (codec == CodecId::Deflate && for_cpu).then_some(CPU_READER_DEFLATE_CHUNK)
}

/// Compresses one input to its output (FILE.wz or FILE.gz, `-o`, or stdout for stdin).
fn compress_one(
    input: &Input,
    out: &OutputArgs,
    opts: &CompressOptions,
    mut cfg: StreamConfig,
    device: &Device,
) -> Result<()> {
    let suffix = if cfg.format == OutputFormat::Wz {
        "wz"
    } else {
        "gz"
    };
    let output = output_path(input, out.output.as_deref(), out.force, suffix)?;
    super::refuse_symlink(input, &output, out.force)?;
    if let Input::File(path) = input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    let mut sink = Sink::open(&output, out.force)?;
    if sink.is_terminal() && !out.force {
        bail!("compressed data not written to a terminal; use -o FILE, redirect the output, or -f");
    }

    if opts.codec == CodecId::Sz {
        // A lossy field is compressed whole: its dimensions and value range span the input.
        let mut progress = Progress::for_size(0);
        let data = input.read(&mut progress)?;
        if let (Some(lossy), Some(elem)) = (&opts.lossy, opts.elem_type) {
            if let Some(warning) = warpzip::codec::range_warning(&data, elem, lossy) {
                super::notice(&format!("{}: {warning}", input.describe()));
            }
        }
        progress.enable_for(data.len() as u64);
        progress.spinner_phase("compressing");
        let output_name = sink.describe();
        let mut counted = CountingWriter::new(&mut sink, &progress, "writing");
        let written = api::compress_to(&mut counted, &data, opts, device).map_err(|e| match e {
            warpzip::Error::Io(io) => {
                anyhow::Error::new(io).context(format!("writing {output_name}"))
            }
            other => anyhow::Error::new(other).context(format!("compressing {}", input.describe())),
        })?;
        progress.finish();
        let line = report(input, &sink, out.keep, data.len() as u64, written);
        finish_output(sink, input, out.keep)?;
        if out.verbose {
            eprintln!("{line}");
        }
        return Ok(());
    }
    let (reader, size) = open_input(input)?;
    cfg.size_hint = size;
    let progress = Progress::for_size(size.unwrap_or(0));
    let output_name = sink.describe();
    let mut counted = CountingWriter::new(&mut sink, &progress, "compressing");
    // A failed write names the output; anything else, the input being compressed.
    let stats = api::compress_stream_with(reader, &mut counted, opts, device, &cfg).map_err(
        |e| match e {
            warpzip::Error::Io(io) => {
                anyhow::Error::new(io).context(format!("writing {output_name}"))
            }
            other => anyhow::Error::new(other).context(format!("compressing {}", input.describe())),
        },
    )?;
    progress.finish();
    let line = report(input, &sink, out.keep, stats.bytes_in, stats.bytes_out);
    finish_output(sink, input, out.keep)?;
    if out.verbose {
        eprintln!("{line}");
    }
    Ok(())
}

/// `-o` when given; else stdout for stdin, and `FILE.wz` (or `FILE.gz`, `suffix`) for a file.
fn output_path(
    input: &Input,
    explicit: Option<&Path>,
    force: bool,
    suffix: &str,
) -> Result<PathBuf> {
    match (explicit, input) {
        (Some(out), _) => Ok(out.to_path_buf()),
        (None, Input::Stdin) => Ok(PathBuf::from("-")),
        (None, Input::File(path)) => {
            if path.extension().is_some_and(|e| e == suffix) && !force {
                bail!(
                    "{} already has the .{suffix} suffix; use -o to name the output or -f to \
                     compress it again",
                    path.display()
                );
            }
            let mut name = path.as_os_str().to_owned();
            name.push(format!(".{suffix}"));
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
