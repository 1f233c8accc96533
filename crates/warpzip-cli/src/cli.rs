//! The command line's shape: clap types for every subcommand and the small value parsers
//! (sizes such as `128K`, codec names) they share.

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use warpzip::ops::compact::Pattern;
use warpzip::CodecId;

/// GPU compression: byte run-length encoding, ORC integer RLE and Deflate (`.wz` files), and
/// gzip decompression.
#[derive(Debug, Parser)]
#[command(name = "warpzip", version, propagate_version = true)]
#[command(
    after_help = "`warpzip -d FILE.wz` is short for `warpzip decompress FILE.wz`; it also \
decompresses gzip files (FILE.gz), like `gzip -d`. As with gzip, -d may come anywhere and \
combine with other short flags: `warpzip -dc FILE.wz`, `warpzip -dkv FILE.wz`, \
`warpzip --device cpu -d FILE.wz`.\n\
Exit status: 0 success, 1 error, 2 usage error; killed by SIGINT or SIGTERM (the shell shows \
130 or 143) after removing the unfinished output."
)]
pub struct Cli {
    /// CPU threads for the work done on the CPU (0, the default: one per core), like `zstd -T`.
    #[arg(
        short = 'T',
        long,
        global = true,
        value_name = "N",
        default_value_t = 0
    )]
    pub threads: usize,
    /// No notices on stderr (skipped columns, a GPU not used, gzip padding); errors still
    /// print. Also set by `WARPZIP_QUIET=1`.
    #[arg(short = 'q', long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compress FILE into FILE.wz (or stdin to stdout).
    Compress(CompressArgs),
    /// Decompress FILE.wz or FILE.gz into FILE (or stdin to stdout).
    #[command(visible_alias = "d")]
    Decompress(DecompressArgs),
    /// Show a .wz file's header, chunks and ratio, and verify its checksums; list a gzip
    /// file's sizes as `gzip -l` does.
    Inspect(InspectArgs),
    /// Run every part of warpzip on bundled and generated data it is made for (an ORC file,
    /// gzip and BGZF files, integer columns, a fax image, text), check each result byte for
    /// byte, and print a table.
    Demo(DemoArgs),
    /// Measure throughput against the same run's memory-copy roofline.
    Bench(BenchArgs),
    /// Keep the values of a raw little-endian array whose mask bit is set (compressstore).
    Select(SelectArgs),
    /// Read Apache ORC files: inspect them, or write integer columns as an Arrow IPC file.
    Orc(crate::cmd::orc::OrcArgs),
    /// Compare a float field with its lossy reconstruction: errors, PSNR, NRMSE and the values
    /// that break a bound.
    Compare(CompareArgs),
    /// The Star Schema Benchmark: generate its tables, load them into compressed columns, run
    /// its 13 queries on the CPU or the GPU.
    Ssb(crate::cmd::ssb::SsbArgs),
}

/// A usage error found after parsing (exit status 2, like clap's own).
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Where work runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DeviceChoice {
    /// The GPU when one is usable, else the CPU (with a notice).
    Auto,
    /// The CPU only; CUDA is never touched.
    Cpu,
    /// The GPU; fails when none is usable.
    Gpu,
}

/// The reader a compressed file is meant for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ReaderChoice {
    /// A GPU when the compressing device is one, else the CPU.
    Auto,
    /// The CPU.
    Cpu,
    /// A GPU.
    Gpu,
}

#[derive(Debug, Args)]
pub struct DeviceArg {
    /// Where to run.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
}

/// What `compress` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    /// A .wz file.
    Wz,
    /// gzip: one member per chunk.
    Gz,
    /// BGZF: gzip in blocks of at most 64 KiB that record their size, with the EOF block.
    Bgzf,
}

/// The streaming batch size, shared by compress and decompress.
#[derive(Debug, Args)]
pub struct BatchArg {
    /// Uncompressed bytes held per batch while streaming, such as 8M (default: 8M on the
    /// CPU, 64M on a GPU, at least a chunk per thread); memory use is a few batches,
    /// whatever the input's size.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub batch_size: Option<u64>,
}

/// Output-file flags shared by compress and decompress.
#[derive(Debug, Args)]
pub struct OutputArgs {
    /// Write to OUT instead of the default name (`-` for stdout).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Keep the input file (by default it is removed after success, like gzip).
    #[arg(short, long)]
    pub keep: bool,
    /// Overwrite an existing output; write compressed data to a terminal; read through a
    /// symbolic link input (removing the link, never its target, unless -k).
    #[arg(short, long)]
    pub force: bool,
    /// Print each file's name, how much smaller the compressed form is, and where the output
    /// went, on stderr (like `gzip -v`).
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct CompressArgs {
    /// Codec to use: deflate (the default), rle, orc-rle-v1 or orc-rle-v2 (with --dtype), the
    /// tile bit-packing codecs for, dfor, rfor and tile (with --dtype i32|u32|i64|u64), sz
    /// (lossy, with --dtype f32|f64 and --eb), or snappy or lz4.
    /// `-c CODEC`, the older spelling, still works when CODEC is not the name of an existing
    /// file.
    #[arg(short = 'C', long, value_name = "CODEC", default_value = "deflate", value_parser = parse_codec)]
    pub codec: CodecId,
    /// Write to standard output and keep the input (same as `-o -`), like `gzip -c`.
    #[arg(short = 'c', long, conflicts_with = "output")]
    pub stdout: bool,
    /// The reader the file is meant for, which sets deflate's default chunk size: `gpu` (many
    /// chunks of at most 128 KiB, for the GPU's parallel inflate), `cpu` (4 MiB chunks, a
    /// better ratio and fewer chunks for CPU threads), `auto` (the default): `gpu` when the
    /// device compressing is a GPU, else `cpu`. `--chunk-size` overrides it.
    #[arg(long = "for", value_enum, value_name = "READER", default_value_t = ReaderChoice::Auto)]
    pub reader: ReaderChoice,
    /// Compression level, for codecs that have levels (deflate: 1 fastest to 12 smallest,
    /// default 6).
    #[arg(short, long, value_name = "LEVEL", allow_negative_numbers = true)]
    pub level: Option<i32>,
    /// Uncompressed bytes per chunk, such as 4096, 128K or 1M (default: the codec's; for
    /// deflate, the one `--for` implies).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub chunk_size: Option<u64>,
    /// Element type of FILE (raw little-endian integers); the orc-rle codecs need one.
    #[arg(long, value_enum, value_name = "T")]
    pub dtype: Option<IntDType>,
    /// Output format: wz (.wz), gz (gzip, one member per chunk, readable by any gzip) or bgzf
    /// (blocked gzip of 64 KiB blocks, as bgzip writes); gz and bgzf are Deflate at --level and
    /// write FILE.gz.
    #[arg(long, value_enum, value_name = "F", default_value_t = OutFormat::Wz)]
    pub format: OutFormat,
    #[command(flatten)]
    pub batch: BatchArg,
    #[command(flatten)]
    pub lossy: LossyArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub device: DeviceArg,
    /// Files to compress, each to FILE.wz; `-` or nothing for stdin. With several files a
    /// failure is reported and the others are still compressed (exit status 1).
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DecompressArgs {
    #[command(flatten)]
    pub out: OutputArgs,
    /// Write to standard output and keep the input (same as `-o -`), like `gzip -dc`.
    #[arg(short = 'c', long, conflicts_with = "output")]
    pub stdout: bool,
    /// Test: decode everything and verify every checksum, write nothing and keep the input,
    /// like `gzip -t`. Silent on success; exit status 1 and the failing chunk on stderr
    /// otherwise.
    #[arg(short = 't', long, conflicts_with_all = ["output", "stdout"])]
    pub test: bool,
    #[command(flatten)]
    pub batch: BatchArg,
    #[command(flatten)]
    pub device: DeviceArg,
    /// Files to decompress: .wz files, or gzip files (.gz, .tgz; recognised by their first
    /// bytes, 1f 8b); `-` or nothing for stdin. With several files a failure is reported and
    /// the others are still decompressed (exit status 1); `-c` writes them all to stdout, one
    /// after the other.
    #[arg(value_name = "FILE")]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// Also decompress every chunk (on --device) and report the first that fails.
    #[arg(long)]
    pub decode: bool,
    /// List every chunk's table entry (for a gzip file: every member).
    #[arg(long)]
    pub chunks: bool,
    #[command(flatten)]
    pub device: DeviceArg,
    /// The .wz or gzip files to inspect (each reported in turn; a failure is reported and the others
    /// are still inspected, exit status 1).
    #[arg(value_name = "FILE.wz", required = true)]
    pub inputs: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct DemoArgs {
    #[command(flatten)]
    pub device: DeviceArg,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Codec or primitive to measure (rle, scan, select, orc-rle, orc, deflate, for, dfor, rfor,
    /// tile, sz); repeat for several; default all. `ssb` (only when named) runs the Star Schema
    /// Benchmark's 13 queries on tables it generates, or on a column directory given as FILES.
    /// `-C` as in compress, or `-c`.
    #[arg(short = 'C', long = "codec", value_name = "C", short_alias = 'c')]
    pub codecs: Vec<String>,
    /// Also write the rows as CSV to OUT.
    #[arg(long, value_name = "OUT")]
    pub csv: Option<PathBuf>,
    /// Size of generated inputs, such as 256M or 1G.
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub size: Option<u64>,
    /// Timed repetitions per measurement (the median is reported).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: u64,
    /// Write the generated inputs to DIR as raw little-endian files (to time other programs on
    /// the same bytes).
    #[arg(long, value_name = "DIR")]
    pub dump_inputs: Option<PathBuf>,
    /// Chunk size for codecs that take one (orc-rle, deflate), such as 32K; default the codec's
    /// own (deflate: a sweep of 64K, 128K and 1M).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub chunk_size: Option<u64>,
    /// libdeflate level of the inputs the deflate bench compresses (0 to 12; repeat for
    /// several); default 9.
    #[arg(long = "level", value_name = "L", value_parser = clap::value_parser!(i32).range(0..=12))]
    pub levels: Vec<i32>,
    /// Write the chunk files the deflate bench makes to DIR (u64 count, count x (u64 raw size,
    /// u64 compressed size), the raw-deflate streams), for nvCOMP's anchor to decode the same
    /// bytes.
    #[arg(long, value_name = "DIR")]
    pub write_chunks: Option<PathBuf>,
    /// The column to measure: a generated column of the orc-rle bench (l_orderkey,
    /// lo_orderdate, l_quantity, lo_discount, random) or a column of the ORC files given to the
    /// orc bench; repeat for several; default all.
    #[arg(long = "column", value_name = "NAME")]
    pub columns: Vec<String>,
    /// Write the sz bench's rate-distortion plot (bits per value against PSNR, both modes,
    /// bounds rel 1e-1 to 1e-6, with SZ3 and ZFP reference points) as a PNG to FILE.
    #[arg(long, value_name = "FILE")]
    pub plot: Option<PathBuf>,
    #[command(flatten)]
    pub device: DeviceArg,
    /// Input files; without any, inputs are generated.
    #[arg(value_name = "FILES")]
    pub files: Vec<PathBuf>,
}

/// Integer element type of a file to compress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IntDType {
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// IEEE binary32 floats (codec sz).
    F32,
    /// IEEE binary64 floats (codec sz).
    F64,
}

impl IntDType {
    /// The container's element type.
    pub fn elem_type(self) -> warpzip::format::ElemType {
        use warpzip::format::ElemType;
        match self {
            IntDType::I8 => ElemType::I8,
            IntDType::I16 => ElemType::I16,
            IntDType::I32 => ElemType::I32,
            IntDType::I64 => ElemType::I64,
            IntDType::U8 => ElemType::U8,
            IntDType::U16 => ElemType::U16,
            IntDType::U32 => ElemType::U32,
            IntDType::U64 => ElemType::U64,
            IntDType::F32 => ElemType::F32,
            IntDType::F64 => ElemType::F64,
        }
    }
}

/// Element type of a raw array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DType {
    U8,
    U16,
    U32,
    U64,
    F32,
    F64,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("selector").required(true).args(["mask", "flags", "pattern"])))]
#[command(after_help = "Examples:\n  \
    warpzip select --dtype u32 --mask keep.bits values.u32          # writes values.u32.sel\n  \
    warpzip select --dtype f64 --pattern 1,0,0,1 -o - rows.f64 > cols.f64")]
pub struct SelectArgs {
    /// Element type of INPUT.
    #[arg(long, value_enum, value_name = "T")]
    pub dtype: DType,
    /// Packed bitmask: bit i (byte i/8, least significant bit first) keeps element i.
    #[arg(long, value_name = "MASK.bin")]
    pub mask: Option<PathBuf>,
    /// One byte per element: a nonzero byte keeps its element.
    #[arg(long, value_name = "FLAGS.bin")]
    pub flags: Option<PathBuf>,
    /// A repeating pattern of 0/1 flags: 1,0,0,1 keeps elements 0, 3, 4, 7, 8, ...
    #[arg(long, value_name = "P", value_parser = parse_pattern)]
    pub pattern: Option<Pattern>,
    /// Write to OUT instead of INPUT.sel (`-` for stdout).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Overwrite an existing output; write raw values to a terminal.
    #[arg(short, long)]
    pub force: bool,
    #[command(flatten)]
    pub device: DeviceArg,
    /// Raw little-endian values (`-` for stdin, which writes to stdout by default).
    #[arg(value_name = "INPUT")]
    pub input: PathBuf,
}

fn parse_pattern(text: &str) -> Result<Pattern, String> {
    text.parse::<Pattern>().map_err(|e| match e {
        warpzip::Error::InvalidArgument(msg) => msg,
        other => other.to_string(),
    })
}

fn parse_codec(name: &str) -> Result<CodecId, String> {
    CodecId::from_name(name).map_err(|_| {
        let known: Vec<&str> = CodecId::ALL.iter().map(|c| c.name()).collect();
        format!(
            "unknown codec '{name}' (known codecs: {})",
            known.join(", ")
        )
    })
}

/// Parses a byte count: a number with an optional binary suffix K, M, G (also KiB, MiB, GiB;
/// any case). `128K` is 131072.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(digits_end);
    if digits.is_empty() {
        return Err(format!(
            "'{text}' is not a size (examples: 4096, 128K, 1M, 1G)"
        ));
    }
    let value: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is too large"))?;
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        other => {
            return Err(format!(
                "unknown size suffix '{other}' in '{text}' (use K, M or G)"
            ))
        }
    };
    value
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Every subcommand name and alias: the first word that is one of these is the subcommand.
const SUBCOMMANDS: &[&str] = &[
    "compress",
    "decompress",
    "d",
    "inspect",
    "demo",
    "bench",
    "select",
    "orc",
    "help",
];

/// Short options that take a value: the rest of their cluster, or else the next word.
const SHORT_WITH_VALUE: &[char] = &['T', 'o', 'l', 'C'];

/// Long options of `compress` and `decompress` (and the global ones) that take a value as the
/// next word.
const LONG_WITH_VALUE: &[&str] = &[
    "--threads",
    "--output",
    "--device",
    "--codec",
    "--level",
    "--chunk-size",
    "--dtype",
    "--for",
];

/// Rewrites gzip-style command lines into clap's: `-d` (or `--decompress`) anywhere before the
/// first subcommand word, alone or in a cluster of short flags (`-dc`, `-dkv`, `-cd`, `-T 1 -d`),
/// becomes the `decompress` subcommand; and `compress -c CODEC`, the older spelling of
/// `--codec`, is kept when CODEC is a codec name and no file of that name exists (else `-c` is
/// standard output and CODEC a file, as in gzip).
pub fn normalize_args(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut args = rewrite_decompress_flag(args);
    if let Some(at) = subcommand_at(&args) {
        if args[at] == "compress" {
            args = rewrite_legacy_codec_flag(args, at + 1);
        }
    }
    args
}

/// Where the subcommand word is: the first word that is neither an option nor an option's value.
fn subcommand_at(args: &[std::ffi::OsString]) -> Option<usize> {
    let mut i = 1;
    while i < args.len() {
        let arg = args[i].to_str()?;
        if arg == "--" {
            return None;
        }
        if !arg.starts_with('-') || arg == "-" {
            return SUBCOMMANDS.contains(&arg).then_some(i);
        }
        i += 1 + usize::from(takes_next_word(arg));
    }
    None
}

/// True when the option word `arg` takes the next word as its value (`-T 4`, `--device cpu`,
/// `-kT 4`, not `-T4` or `--device=cpu`).
fn takes_next_word(arg: &str) -> bool {
    if let Some(long) = arg.strip_prefix("--") {
        return !long.contains('=') && LONG_WITH_VALUE.contains(&arg);
    }
    let cluster: Vec<char> = arg.chars().skip(1).collect();
    match cluster.iter().position(|c| SHORT_WITH_VALUE.contains(c)) {
        Some(p) => p + 1 == cluster.len(),
        None => false,
    }
}

/// `-d` anywhere before the subcommand word (or among the files when there is none) becomes the
/// `decompress` subcommand, gzip style; the other flags of its cluster stay. `-t` there (gzip's
/// test, which needs no `-d`) means `decompress -t`.
pub fn rewrite_decompress_flag(args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let mut rewritten: Vec<std::ffi::OsString> = args.iter().take(1).cloned().collect();
    let mut found = false;
    let mut i = 1;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        let Some(text) = arg.to_str() else {
            rewritten.push(arg.clone());
            continue;
        };
        if text == "--" {
            rewritten.extend(args[i - 1..].iter().cloned());
            break;
        }
        if text == "--decompress" || text == "--uncompress" {
            found = true;
            continue;
        }
        if text == "--test" {
            // gzip's -t tests without -d.
            found = true;
            rewritten.push(arg.clone());
            continue;
        }
        if !text.starts_with('-') || text == "-" {
            if SUBCOMMANDS.contains(&text) && !found {
                // A subcommand word before any -d: the command line is clap's as it is.
                return args;
            }
            // A file (gzip's `warpzip f.wz -d`): -d may still follow.
            rewritten.push(arg.clone());
            continue;
        }
        let value = takes_next_word(text).then(|| args.get(i)).flatten();
        i += usize::from(value.is_some());
        if text.starts_with("--") {
            rewritten.push(arg.clone());
            rewritten.extend(value.cloned());
            continue;
        }
        // A cluster of short flags: drop its d's, up to the first flag that takes a value.
        let mut kept = String::from("-");
        let mut chars = text.chars().skip(1);
        for c in chars.by_ref() {
            if SHORT_WITH_VALUE.contains(&c) {
                kept.push(c);
                break;
            }
            if c == 'd' {
                found = true;
            } else {
                // gzip's -t tests without -d.
                found |= c == 't';
                kept.push(c);
            }
        }
        kept.extend(chars);
        if kept != "-" {
            rewritten.push(kept.into());
        }
        rewritten.extend(value.cloned());
    }
    if !found {
        return args;
    }
    rewritten.insert(1, "decompress".into());
    rewritten
}

/// `compress -c CODEC` (and `-kc CODEC`, `-cCODEC`), where CODEC names a codec and no such file
/// exists, becomes `--codec CODEC`: the spelling from before `-c` meant standard output.
fn rewrite_legacy_codec_flag(
    mut args: Vec<std::ffi::OsString>,
    from: usize,
) -> Vec<std::ffi::OsString> {
    let is_codec =
        |word: &str| CodecId::from_name(word).is_ok() && !std::path::Path::new(word).exists();
    let mut i = from;
    while i < args.len() {
        let Some(text) = args[i].to_str().map(str::to_owned) else {
            i += 1;
            continue;
        };
        if text == "--" {
            break;
        }
        if text.starts_with("--") || !text.starts_with('-') || text == "-" {
            i += 1 + usize::from(text.starts_with("--") && takes_next_word(&text));
            continue;
        }
        let cluster: Vec<char> = text.chars().skip(1).collect();
        let before_value = cluster
            .iter()
            .position(|c| SHORT_WITH_VALUE.contains(c))
            .unwrap_or(cluster.len());
        match cluster[..before_value].iter().position(|&c| c == 'c') {
            Some(p) => {
                let head: String = cluster[..p].iter().collect();
                let tail: String = cluster[p + 1..].iter().collect();
                let tail = tail.strip_prefix('=').unwrap_or(&tail).to_string();
                let next = args.get(i + 1).and_then(|a| a.to_str()).map(str::to_owned);
                let mut replacement: Vec<std::ffi::OsString> = Vec::new();
                if !head.is_empty() {
                    replacement.push(format!("-{head}").into());
                }
                if !tail.is_empty() && CodecId::from_name(&tail).is_ok() {
                    replacement.push(format!("--codec={tail}").into());
                    args.splice(i..=i, replacement.clone());
                    i += replacement.len();
                    continue;
                }
                if tail.is_empty() && next.as_deref().is_some_and(is_codec) {
                    replacement.push("--codec".into());
                    let n = replacement.len();
                    args.splice(i..=i, replacement);
                    i += n + 1;
                    continue;
                }
                i += 1 + usize::from(takes_next_word(&text));
            }
            None => i += 1 + usize::from(takes_next_word(&text)),
        }
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("128K"), Ok(128 << 10));
        assert_eq!(parse_size("128k"), Ok(128 << 10));
        assert_eq!(parse_size("1M"), Ok(1 << 20));
        assert_eq!(parse_size("1MiB"), Ok(1 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert!(parse_size("").is_err());
        assert!(parse_size("K").is_err());
        assert!(parse_size("1T").is_err());
        assert!(parse_size("1.5M").is_err());
        assert!(parse_size("99999999999999999999G").is_err());
    }

    fn argv(v: &[&str]) -> Vec<std::ffi::OsString> {
        v.iter().map(std::ffi::OsString::from).collect()
    }

    #[test]
    fn dash_d_anywhere_and_in_clusters_becomes_decompress() {
        let cases: &[(&[&str], &[&str])] = &[
            (&["w", "-dc", "f.wz"], &["w", "decompress", "-c", "f.wz"]),
            (&["w", "-cd", "f.wz"], &["w", "decompress", "-c", "f.wz"]),
            (&["w", "-dkv", "f.wz"], &["w", "decompress", "-kv", "f.wz"]),
            (&["w", "-dt", "f.wz"], &["w", "decompress", "-t", "f.wz"]),
            (
                &["w", "-T", "1", "-d", "f.wz"],
                &["w", "decompress", "-T", "1", "f.wz"],
            ),
            (
                &["w", "-dT", "1", "f.wz"],
                &["w", "decompress", "-T", "1", "f.wz"],
            ),
            (
                &["w", "-T", "d", "-d", "f"],
                &["w", "decompress", "-T", "d", "f"],
            ),
            (
                &["w", "--device", "cpu", "-d", "f.wz"],
                &["w", "decompress", "--device", "cpu", "f.wz"],
            ),
            (&["w", "f.wz", "-d"], &["w", "decompress", "f.wz"]),
            (&["w", "--decompress", "f.wz"], &["w", "decompress", "f.wz"]),
            (&["w", "-o", "-d", "x"], &["w", "-o", "-d", "x"]),
            (&["w", "compress", "-d"], &["w", "compress", "-d"]),
            (&["w", "inspect", "-d", "x"], &["w", "inspect", "-d", "x"]),
            (
                &["w", "-q", "-d", "--", "-d"],
                &["w", "decompress", "-q", "--", "-d"],
            ),
            (&["w", "-t", "f.wz"], &["w", "decompress", "-t", "f.wz"]),
            (&["w", "-tv", "f.wz"], &["w", "decompress", "-tv", "f.wz"]),
            (
                &["w", "--test", "f.wz"],
                &["w", "decompress", "--test", "f.wz"],
            ),
            (&["w", "-T", "2", "f.wz"], &["w", "-T", "2", "f.wz"]),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize_args(argv(input)), argv(expected), "{input:?}");
        }
    }

    #[test]
    fn the_older_codec_spelling_still_works() {
        let cases: &[(&[&str], &[&str])] = &[
            (
                &["w", "compress", "-c", "deflate", "f"],
                &["w", "compress", "--codec", "deflate", "f"],
            ),
            (
                &["w", "compress", "-kc", "rle", "f"],
                &["w", "compress", "-k", "--codec", "rle", "f"],
            ),
            (
                &["w", "compress", "-crle", "f"],
                &["w", "compress", "--codec=rle", "f"],
            ),
            (&["w", "compress", "-c", "f"], &["w", "compress", "-c", "f"]),
            (
                &["w", "compress", "-ck", "f"],
                &["w", "compress", "-ck", "f"],
            ),
            (
                &["w", "compress", "-o", "-c", "rle"],
                &["w", "compress", "-o", "-c", "rle"],
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize_args(argv(input)), argv(expected), "{input:?}");
        }
    }

    #[test]
    fn leading_dash_d_becomes_decompress() {
        let args = |v: &[&str]| v.iter().map(std::ffi::OsString::from).collect::<Vec<_>>();
        assert_eq!(
            rewrite_decompress_flag(args(&["warpzip", "-d", "x.wz"])),
            args(&["warpzip", "decompress", "x.wz"])
        );
        assert_eq!(
            rewrite_decompress_flag(args(&["warpzip", "compress", "-d"])),
            args(&["warpzip", "compress", "-d"])
        );
    }

    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}

/// The lossy codec's options (`--codec sz`).
#[derive(Debug, Args)]
pub struct LossyArgs {
    /// Error bound of codec sz: abs:E (|x - x'| <= E), rel:E (E times the value range) or
    /// pw-rel:E (|x - x'| <= E |x|).
    #[arg(long, value_name = "MODE:E", value_parser = parse_eb)]
    pub eb: Option<warpzip::codec::ErrorBound>,
    /// Dimensions of the field, slowest first, such as 100x500x500 (codec sz; default 1-D).
    #[arg(long, value_name = "DxHxW", value_parser = parse_dims)]
    pub dims: Option<Dims>,
    /// A fill value kept bit-exact and left out of a rel bound's range (codec sz; repeatable).
    #[arg(long, value_name = "V", allow_negative_numbers = true)]
    pub fill: Vec<f64>,
    /// Codec sz's mode: ratio (Huffman-coded, smaller) or fast (bit-packed per block).
    #[arg(long, value_name = "MODE", value_parser = parse_lossy_mode)]
    pub mode: Option<warpzip::codec::LossyMode>,
}

impl LossyArgs {
    /// Whether any lossy option was given.
    pub fn any(&self) -> bool {
        self.eb.is_some() || self.dims.is_some() || !self.fill.is_empty() || self.mode.is_some()
    }
}

fn parse_eb(s: &str) -> Result<warpzip::codec::ErrorBound, String> {
    warpzip::codec::ErrorBound::parse(s).map_err(|e| e.to_string())
}

/// Dimensions of a field, slowest first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dims(pub Vec<u64>);

fn parse_dims(s: &str) -> Result<Dims, String> {
    warpzip::codec::parse_dims(s)
        .map(Dims)
        .map_err(|e| e.to_string())
}

fn parse_lossy_mode(s: &str) -> Result<warpzip::codec::LossyMode, String> {
    warpzip::codec::LossyMode::parse(s).map_err(|e| e.to_string())
}

/// Float element type of the files `compare` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FloatDType {
    F32,
    F64,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The original field (raw little-endian floats).
    #[arg(value_name = "ORIGINAL")]
    pub original: PathBuf,
    /// Its reconstruction, of the same type and size.
    #[arg(value_name = "DECOMPRESSED")]
    pub decompressed: PathBuf,
    /// Element type of both files.
    #[arg(long, value_enum, value_name = "T")]
    pub dtype: FloatDType,
    /// Dimensions, slowest first (checked against the files' size).
    #[arg(long, value_name = "DxHxW", value_parser = parse_dims)]
    pub dims: Option<Dims>,
    /// Count the values that break this bound (abs:E, rel:E, pw-rel:E), checked exactly; exit
    /// status 1 when any does.
    #[arg(long, value_name = "MODE:E", value_parser = parse_eb)]
    pub eb: Option<warpzip::codec::ErrorBound>,
}
