//! `warpzip orc`: reads Apache ORC files. `inspect` shows the tail (format version,
//! compression, stripes, columns with their types and encodings); `to-arrow` decodes columns
//! of every type but union into an Arrow IPC file. The clap types live here, beside their only
//! user, so that the ORC commands plug into `cli.rs` with one line.

use super::{format_table, human_bytes, Align};
use crate::cli::{DeviceChoice, UsageError};
use crate::output::{same_file, Sink};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use clap::{Args, Subcommand};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use warpzip::orc::{OrcFile, Stripe};

#[derive(Debug, Args)]
pub struct OrcArgs {
    #[command(subcommand)]
    pub command: OrcCommand,
}

#[derive(Debug, Subcommand)]
pub enum OrcCommand {
    /// Show an ORC file's format version, compression, stripes and columns.
    Inspect(OrcInspectArgs),
    /// Decode columns (every ORC type but union) into an Arrow IPC file, of the Arrow types
    /// pyarrow gives.
    #[command(
        after_help = "Without --columns, every column is written but those of a union type, \
which are named on stderr as skipped; with --columns, a union column is an error.\n\nExamples:\n  warpzip orc to-arrow data.orc -o data.arrow\n  \
warpzip orc to-arrow data.orc -o keys.arrow --columns id,date"
    )]
    ToArrow(OrcToArrowArgs),
}

#[derive(Debug, Args)]
pub struct OrcInspectArgs {
    /// Also list every stream of every stripe.
    #[arg(long)]
    pub streams: bool,
    /// The ORC file.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
}

#[derive(Debug, Args)]
pub struct OrcToArrowArgs {
    /// The Arrow IPC file to write; `-` writes the Arrow IPC stream format to stdout.
    #[arg(short, long, value_name = "OUT.arrow")]
    pub output: PathBuf,
    /// Columns to write, in this order (comma-separated names); default: every one but unions.
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub columns: Option<Vec<String>>,
    /// Overwrite an existing output; write to a terminal.
    #[arg(short, long)]
    pub force: bool,
    /// Where to decode: on the GPU, ZLIB, SNAPPY and LZ4 streams are decompressed and the RLE
    /// streams of integer-family columns decoded there (a block of 4 warps per row group of an
    /// integer column, a warp per row group of a boolean or tinyint one), then the columns are
    /// copied back; the other columns' streams are decoded there stream by stream (run-length
    /// streams, decimal varints, timestamps, string offsets and dictionaries) and their Arrow
    /// arrays assembled on the host; `auto` uses a GPU when one is usable.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
    /// The ORC file.
    #[arg(value_name = "FILE")]
    pub input: PathBuf,
}

/// Rows of one record batch `to-arrow` decodes and writes at a time on the CPU (whole stripes;
/// a larger stripe is a batch of its own).
const BATCH_ROWS: u64 = 1 << 22;

pub fn run(args: OrcArgs) -> Result<()> {
    match args.command {
        OrcCommand::Inspect(a) => inspect(a),
        OrcCommand::ToArrow(a) => to_arrow(a),
    }
}

fn open(path: &std::path::Path) -> Result<OrcFile> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    OrcFile::from_bytes(data).with_context(|| format!("reading {}", path.display()))
}

fn inspect(args: OrcInspectArgs) -> Result<()> {
    let path = &args.input;
    let file = open(path)?;
    // Show what parses, then fail on the first damaged stripe.
    let mut stripes = Vec::new();
    let mut first_error = None;
    for i in 0..file.stripe_count() {
        match file.stripe(i) {
            Ok(stripe) => stripes.push(stripe),
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    print!(
        "{}",
        describe(&path.display().to_string(), &file, &stripes, args.streams)
    );
    match first_error {
        Some(e) => Err(e).with_context(|| format!("reading the stripes of {}", path.display())),
        None => Ok(()),
    }
}

fn describe(name: &str, file: &OrcFile, stripes: &[Stripe], list_streams: bool) -> String {
    let tail = file.tail();
    let compression = file.compression();
    let mut s = String::new();
    let mut field = |k: &str, v: String| {
        let _ = writeln!(s, "{k:<13} {v}");
    };
    field(
        "file",
        format!("{name} ({})", human_bytes(tail.file_length)),
    );
    field("format", format!("ORC {}", tail.version()));
    field(
        "compression",
        if compression.kind == warpzip::orc::CompressionKind::None {
            "NONE".to_string()
        } else {
            format!(
                "{}, block size {} B ({})",
                compression.name(),
                compression.block_size,
                human_bytes(compression.block_size)
            )
        },
    );
    field("rows", file.number_of_rows().to_string());
    field("stripes", file.stripe_count().to_string());
    field(
        "row index",
        match tail.footer.row_index_stride {
            Some(n) if n > 0 => format!("every {n} rows"),
            _ => "none".to_string(),
        },
    );

    let rows: Vec<Vec<String>> = file
        .columns()
        .iter()
        .map(|c| {
            let encodings: BTreeSet<&str> = stripes
                .iter()
                .filter_map(|st| st.encoding(c.id).ok())
                .map(|e| e.name())
                .collect();
            vec![
                c.id.to_string(),
                c.name.clone(),
                c.type_name.clone(),
                if encodings.is_empty() {
                    "-".to_string()
                } else {
                    encodings.into_iter().collect::<Vec<_>>().join(",")
                },
                if c.is_readable() { "yes" } else { "no" }.to_string(),
            ]
        })
        .collect();
    s.push_str("\ncolumns\n");
    s.push_str(&format_table(
        &[
            ("id", Align::Right),
            ("name", Align::Left),
            ("type", Align::Left),
            ("encoding", Align::Left),
            ("decoded", Align::Left),
        ],
        &rows,
    ));

    if !stripes.is_empty() {
        let rows: Vec<Vec<String>> = stripes
            .iter()
            .map(|st| {
                let i = &st.info;
                vec![
                    st.index.to_string(),
                    i.offset.unwrap_or(0).to_string(),
                    st.rows().to_string(),
                    i.index_length.unwrap_or(0).to_string(),
                    i.data_length.unwrap_or(0).to_string(),
                    i.footer_length.unwrap_or(0).to_string(),
                    st.streams.len().to_string(),
                ]
            })
            .collect();
        s.push_str("\nstripes\n");
        s.push_str(&format_table(
            &[
                ("stripe", Align::Right),
                ("offset", Align::Right),
                ("rows", Align::Right),
                ("index B", Align::Right),
                ("data B", Align::Right),
                ("footer B", Align::Right),
                ("streams", Align::Right),
            ],
            &rows,
        ));
    }
    if list_streams {
        for st in stripes {
            let rows: Vec<Vec<String>> = st
                .streams
                .iter()
                .map(|x| {
                    vec![
                        x.column.to_string(),
                        x.kind.map_or("(unknown)", |k| k.name()).to_string(),
                        x.offset.to_string(),
                        x.length.to_string(),
                    ]
                })
                .collect();
            let _ = writeln!(s, "\nstripe {} streams", st.index);
            s.push_str(&format_table(
                &[
                    ("column", Align::Right),
                    ("kind", Align::Left),
                    ("offset", Align::Right),
                    ("length", Align::Right),
                ],
                &rows,
            ));
        }
    }
    s
}

/// An Arrow IPC writer: the file format, or the stream format for standard output.
enum IpcWriter<W: std::io::Write> {
    File(arrow_ipc::writer::FileWriter<W>),
    Stream(arrow_ipc::writer::StreamWriter<W>),
}

impl<W: std::io::Write> IpcWriter<W> {
    fn new(
        out: W,
        schema: &arrow_schema::Schema,
        stream: bool,
    ) -> Result<Self, arrow_schema::ArrowError> {
        Ok(if stream {
            IpcWriter::Stream(arrow_ipc::writer::StreamWriter::try_new(out, schema)?)
        } else {
            IpcWriter::File(arrow_ipc::writer::FileWriter::try_new(out, schema)?)
        })
    }

    fn write(&mut self, batch: &arrow_array::RecordBatch) -> Result<(), arrow_schema::ArrowError> {
        match self {
            IpcWriter::File(w) => w.write(batch),
            IpcWriter::Stream(w) => w.write(batch),
        }
    }

    fn finish(&mut self) -> Result<(), arrow_schema::ArrowError> {
        match self {
            IpcWriter::File(w) => w.finish(),
            IpcWriter::Stream(w) => w.finish(),
        }
    }
}

fn to_arrow(args: OrcToArrowArgs) -> Result<()> {
    let path = &args.input;
    if same_file(path, &args.output) {
        bail!("{} would overwrite its own input", args.output.display());
    }
    // An unusable GPU fails here for --device gpu, before any output is created.
    let device = super::open_device(args.device)?;
    // Open (and so check) the output first: an existing file is refused before any work.
    let mut sink = Sink::open(&args.output, args.force)?;
    if sink.is_terminal() && !args.force {
        bail!("Arrow IPC data not written to a terminal; use -o FILE or -f");
    }
    let file = open(path)?;
    let names: Vec<String> = match &args.columns {
        Some(names) => {
            // A column named twice would be written twice; that is a mistake, not a wish.
            for (i, name) in names.iter().enumerate() {
                if names[..i].contains(name) {
                    return Err(
                        UsageError(format!("--columns names '{name}' more than once")).into(),
                    );
                }
            }
            names.clone()
        }
        None => {
            let mut names = Vec::new();
            for c in file.columns() {
                if c.is_readable() {
                    names.push(c.name.clone());
                } else {
                    super::notice(&format!(
                        "skipping column '{}' ({}: union types are not decoded)",
                        c.name, c.type_name
                    ));
                }
            }
            if names.is_empty() {
                bail!(
                    "{} has no column of a decoded type (every type but union)",
                    path.display()
                );
            }
            names
        }
    };
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    // A spinner for each phase of a large file (the decode reports no progress of its own).
    let mut progress = Progress::for_size(file.tail().file_length);
    progress.spinner_phase("decoding");
    // On the CPU, whole stripes at most BATCH_ROWS rows at a time: memory follows the batch,
    // not the file, whatever row count the file holds.
    let mut batches = file
        .read_batches(Some(&name_refs), &device, BATCH_ROWS)
        .with_context(|| format!("decoding {}", path.display()))?;
    let decoding = || format!("decoding {}", path.display());
    let first = batches
        .next()
        .ok_or_else(|| anyhow::anyhow!("{}: no record batch", path.display()))?
        .with_context(decoding)?;
    progress.enable_for(first.get_array_memory_size() as u64);
    progress.spinner_phase("writing");
    // Standard output gets the IPC stream format, which a reader takes as it arrives; a file
    // gets the IPC file format, with its footer for random access.
    let to_stdout = matches!(sink, Sink::Stdout(_));
    let mut writer = IpcWriter::new(&mut sink, &first.schema(), to_stdout)
        .context("starting the Arrow IPC output")?;
    writer
        .write(&first)
        .with_context(|| format!("writing {}", args.output.display()))?;
    drop(first);
    for batch in batches {
        let batch = batch.with_context(decoding)?;
        writer
            .write(&batch)
            .with_context(|| format!("writing {}", args.output.display()))?;
    }
    writer
        .finish()
        .with_context(|| format!("writing {}", args.output.display()))?;
    drop(writer);
    progress.finish();
    sink.finish()
}
