//! Deflate benchmark (`--codec deflate`): independent raw-deflate chunks inflated by the GPU
//! kernel (device-resident and end to end from host memory) and by libdeflate on every CPU core
//! and on one, plus libdeflate's compression speed per core at each level. Inputs are the
//! anchors' chunk files as they are (so that warpzip and nvCOMP decode identical bytes) or any
//! other file cut into chunks and compressed here; every decoded byte is checked before a time
//! is reported.

use super::{gbps, wall_ms, BenchOptions, BenchRow, Ceilings};
use crate::chunk_file::{compression_level, deflate_chunk, is_chunk_file, ChunkFile};
use libdeflater::{Compressor, Decompressor};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use warpzip::codec::deflate::batch::check_results;
use warpzip::codec::deflate::gpu::{inflate_host, InflateBatch, InflateKernel};
use warpzip::error::{Error, Result};
use warpzip::gpu::{median, GpuContext};

/// Chunk sizes of the sweep when `--chunk-size` is not given.
pub const DEFAULT_CHUNK_SIZES: [usize; 3] = [64 << 10, 128 << 10, 1 << 20];
/// libdeflate level of the decode inputs when `--level` is not given (as the anchors' zlib -9).
pub const DEFAULT_LEVEL: i32 = 9;
/// Size of the generated text input when `--size` is not given: 10 MB (decimal).
pub const TEXT_SIZE: usize = 10_000_000;
/// The compression-level sweep compresses at most this much of its input.
const LEVEL_SWEEP_BYTES: usize = 4 << 20;
/// Timed runs of the compression-level sweep (after one warm-up): level 12 is slow.
const LEVEL_SWEEP_RUNS: usize = 3;
/// Byte written over outputs before a decoder runs, so that an unwritten byte cannot pass.
const POISON: u8 = 0xa5;

/// The Canterbury corpus files that are text (the rest are a spreadsheet, a fax image and a
/// SPARC executable).
const CANTERBURY_TEXT: &[&str] = &[
    "alice29.txt",
    "asyoulik.txt",
    "cp.html",
    "fields.c",
    "grammar.lsp",
    "lcet10.txt",
    "plrabn12.txt",
    "xargs.1",
];
/// The Calgary corpus files that are text (the rest are geophysical data, object code and a
/// fax image).
const CALGARY_TEXT: &[&str] = &[
    "bib", "book1", "book2", "news", "paper1", "paper2", "paper3", "paper4", "paper5", "paper6",
    "progc", "progl", "progp", "trans",
];

/// One benchmark input: raw bytes to cut and compress here, or a chunk file decoded as is.
enum Source {
    Raw { name: String, data: Vec<u8> },
    Chunks { name: String, file: ChunkFile },
}

/// One decode case: a chunk file and the bytes it must inflate to.
struct Case<'a> {
    /// Row label: input name, chunking and level.
    input: String,
    file: &'a ChunkFile,
    raw: &'a [u8],
}

/// Runs the deflate benchmark; `gpu` is `None` on the CPU (the GPU rows are then left out).
pub(super) fn bench(
    gpu: Option<(&GpuContext, &Ceilings)>,
    opts: &BenchOptions,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let chunk_sizes: Vec<usize> = match opts.chunk_size {
        Some(c) => vec![c],
        None => DEFAULT_CHUNK_SIZES.to_vec(),
    };
    let levels: Vec<i32> = if opts.levels.is_empty() {
        vec![DEFAULT_LEVEL]
    } else {
        opts.levels.clone()
    };
    // Bad arguments fail before minutes of work, not after.
    for &level in &levels {
        compression_level(level)?;
    }
    ChunkFile::compress(&[], chunk_sizes.iter().copied().max().unwrap_or(1), 1)?;
    for dir in [&opts.write_chunks, &opts.dump_dir].into_iter().flatten() {
        std::fs::create_dir_all(dir)?;
    }

    // Part of a run of every codec, missing corpora skip this bench instead of failing the run.
    let asked = opts.codecs.iter().any(|c| c == "deflate");
    let sources = match sources(opts) {
        Err(e) if !asked && opts.files.is_empty() => {
            eprintln!("warpzip bench: deflate skipped: {e}");
            return Ok(());
        }
        other => other?,
    };
    let mut level_sweep: Option<(String, Vec<u8>)> = None;
    for source in sources {
        match source {
            Source::Raw { name, data } => {
                if data.is_empty() {
                    continue;
                }
                for &chunk in &chunk_sizes {
                    for &level in &levels {
                        let file = ChunkFile::compress(&data, chunk, level)?;
                        if let Some(dir) = &opts.write_chunks {
                            let path = dir.join(format!(
                                "{}.{}.l{level}.z",
                                file_stem(&name),
                                size_label(chunk).replace(' ', "")
                            ));
                            std::fs::write(path, file.as_bytes())?;
                        }
                        let case = Case {
                            input: format!("{name}, {} chunks, level {level}", size_label(chunk)),
                            file: &file,
                            raw: &data,
                        };
                        decode_rows(gpu, opts, &case, rows)?;
                    }
                }
                if level_sweep.is_none() {
                    level_sweep = Some((name, data));
                }
            }
            Source::Chunks { name, file } => {
                if file.raw_len() == 0 {
                    continue;
                }
                let raw = reference_inflate(&name, &file)?;
                let largest = file.raw_sizes().iter().copied().max().unwrap_or(0);
                let case = Case {
                    input: format!("{name} (chunk file, {} chunks)", size_label(largest)),
                    file: &file,
                    raw: &raw,
                };
                decode_rows(gpu, opts, &case, rows)?;
                if level_sweep.is_none() {
                    level_sweep = Some((name, raw));
                }
            }
        }
    }
    if let Some((name, data)) = level_sweep {
        let chunk = chunk_sizes.first().copied().unwrap_or(128 << 10);
        level_rows(&name, &data, chunk, rows)?;
    }
    Ok(())
}

/// The inputs: each FILE (a chunk file when it parses as one), else the corpora and the
/// generated text (written to `--dump-inputs DIR` when given).
fn sources(opts: &BenchOptions) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    if opts.files.is_empty() {
        let dir = corpora_dir()?;
        let corpora = corpora_concatenated(&dir)?;
        let text = text_input(&dir, opts.size.unwrap_or(TEXT_SIZE))?;
        let generated = [
            (
                format!("corpora ({})", size_label(corpora.len())),
                "corpora",
                corpora,
            ),
            (
                format!("corpus text ({})", size_label(text.len())),
                "text",
                text,
            ),
        ];
        for (name, stem, data) in generated {
            if let Some(dir) = &opts.dump_dir {
                std::fs::write(dir.join(format!("{stem}.bin")), &data)?;
            }
            out.push(Source::Raw { name, data });
        }
        return Ok(out);
    }
    for path in &opts.files {
        let bytes = std::fs::read(path)?;
        let name = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        if is_chunk_file(&bytes) {
            out.push(Source::Chunks {
                name,
                file: ChunkFile::parse(bytes)?,
            });
        } else {
            out.push(Source::Raw { name, data: bytes });
        }
    }
    Ok(out)
}

/// The corpora folder (holding `canterbury/` and `calgary/`): the repository's
/// `testdata/corpora`, under `$WARPZIP_REPO_ROOT` (the GPU machine's copy of the tree) or in
/// the source tree the binary was built from.
pub fn corpora_dir() -> Result<PathBuf> {
    let mut tried: Vec<PathBuf> = Vec::new();
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        tried.push(PathBuf::from(root).join("testdata/corpora"));
    }
    tried.push(PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../testdata/corpora"
    )));
    match tried
        .iter()
        .find(|p| p.join("canterbury").is_dir() && p.join("calgary").is_dir())
    {
        Some(p) => Ok(p.clone()),
        None => Err(Error::InvalidArgument(format!(
            "the deflate bench without FILES needs the Canterbury and Calgary corpora (set \
             WARPZIP_REPO_ROOT to the repository's root, or give FILES); tried: {}",
            tried
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

/// Every file of `canterbury/` then of `calgary/`, each folder in name order, back to back.
pub fn corpora_concatenated(dir: &Path) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for corpus in ["canterbury", "calgary"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(corpus))?
            .map(|e| e.map(|e| e.path()))
            .collect::<std::io::Result<_>>()?;
        files.retain(|p| p.is_file());
        files.sort();
        for f in files {
            out.extend_from_slice(&std::fs::read(f)?);
        }
    }
    Ok(out)
}

/// The text files of both corpora (`CANTERBURY_TEXT` then `CALGARY_TEXT`, 3.6 MB together),
/// back to back and repeated until `size` bytes. Each repetition is far more than deflate's
/// 32 KiB window apart, so the ratio is that of the text, not of the repetition.
pub fn text_input(dir: &Path, size: usize) -> Result<Vec<u8>> {
    let mut text = Vec::new();
    for (corpus, names) in [("canterbury", CANTERBURY_TEXT), ("calgary", CALGARY_TEXT)] {
        for name in names {
            text.extend_from_slice(&std::fs::read(dir.join(corpus).join(name))?);
        }
    }
    Ok(super::inputs::tiled(&text, size))
}

/// A chunk file's bytes inflated by libdeflate, checking that every chunk inflates to exactly
/// its declared size (the reference the GPU output is compared with).
fn reference_inflate(name: &str, file: &ChunkFile) -> Result<Vec<u8>> {
    let mut raw = vec![POISON; file.raw_len()];
    let streams = file.streams();
    let mut outputs = split_outputs(&mut raw, file.raw_sizes());
    cpu_inflate_parallel(&streams, &mut outputs).map_err(|e| Error::Corrupt {
        chunk: e.chunk,
        reason: format!(
            "{name}: libdeflate cannot inflate this chunk file: {}",
            e.why
        ),
    })?;
    Ok(raw)
}

/// Splits `out` into consecutive slices of `sizes` bytes (shorter at the end if `out` is).
fn split_outputs<'a>(out: &'a mut [u8], sizes: &[usize]) -> Vec<&'a mut [u8]> {
    let mut rest = out;
    let mut v = Vec::with_capacity(sizes.len());
    for &s in sizes {
        let cut = s.min(rest.len());
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(cut);
        v.push(head);
        rest = tail;
    }
    v
}

/// Why a CPU inflate failed.
struct CpuFailure {
    chunk: usize,
    why: String,
}

/// Inflates `streams[i]` into `outputs[i]` on every core (one decompressor per rayon job, not
/// per chunk), requiring each to fill its output exactly.
fn cpu_inflate_parallel(
    streams: &[&[u8]],
    outputs: &mut [&mut [u8]],
) -> std::result::Result<(), CpuFailure> {
    streams
        .par_iter()
        .zip(outputs.par_iter_mut())
        .enumerate()
        .try_for_each_init(Decompressor::new, |d, (chunk, (s, o))| {
            inflate_exact(d, s, o).map_err(|why| CpuFailure { chunk, why })
        })
}

/// Inflates `stream` into `out` with `d`, requiring exactly `out.len()` bytes.
fn inflate_exact(
    d: &mut Decompressor,
    stream: &[u8],
    out: &mut [u8],
) -> std::result::Result<(), String> {
    match d.deflate_decompress(stream, out) {
        Ok(n) if n == out.len() => Ok(()),
        Ok(n) => Err(format!("inflated to {n} bytes, not {}", out.len())),
        Err(e) => Err(e.to_string()),
    }
}

/// The rows of one case: GPU kernel and end to end (when a GPU is given), libdeflate on every
/// core and on one.
fn decode_rows(
    gpu: Option<(&GpuContext, &Ceilings)>,
    opts: &BenchOptions,
    case: &Case,
    rows: &mut Vec<BenchRow>,
) -> Result<()> {
    let n = case.raw.len();
    let comp = case.file.compressed_len();
    let ratio = n as f64 / comp.max(1) as f64;
    let chunks = case.file.len();
    let row = |what: &str, device: String, ms: f64, roofline: Option<f64>, note: String| BenchRow {
        what: what.into(),
        input: case.input.clone(),
        device,
        bytes: n as u64,
        ratio: Some(ratio),
        ms,
        gbps: gbps(n as f64, ms),
        roofline,
        note,
    };
    if let Some((gpu, ceilings)) = gpu {
        let (kernel_ms, e2e_ms, kernel) = gpu_times(gpu, opts, case)?;
        let moved = (comp + n) as f64;
        rows.push(row(
            "deflate decode (GPU kernel)",
            gpu.name().into(),
            kernel_ms,
            Some(gbps(moved, kernel_ms) / ceilings.d2d_gbps),
            format!("{chunks} chunks; {kernel:?} kernel; device-resident; bytes equal input"),
        ));
        // The end-to-end ceiling: copying the compressed bytes in and the output back at the
        // same run's pinned copy speeds.
        let ideal_ms =
            comp as f64 / (ceilings.h2d_gbps * 1e6) + n as f64 / (ceilings.d2h_gbps * 1e6);
        rows.push(row(
            "deflate decode e2e (GPU, pageable host)",
            gpu.name().into(),
            e2e_ms,
            Some(ideal_ms / e2e_ms),
            format!(
                "{chunks} chunks; host to host; roofline = pinned h2d {:.1} + d2h {:.1} GB/s",
                ceilings.h2d_gbps, ceilings.d2h_gbps
            ),
        ));
    }
    let streams = case.file.streams();
    let sizes = case.file.raw_sizes();
    let mut out = vec![POISON; n];
    let threads = rayon::current_num_threads();
    let all_ms = {
        let mut outputs = split_outputs(&mut out, sizes);
        wall_ms(opts.runs().min(10), || {
            cpu_inflate_parallel(&streams, &mut outputs).map_err(|e| cpu_error(case, e))
        })?
    };
    check_equal(case, "libdeflate (all cores)", &out)?;
    out.fill(POISON);
    let one_ms = {
        let mut outputs = split_outputs(&mut out, sizes);
        let mut d = Decompressor::new();
        wall_ms(opts.runs().min(5), || {
            for (chunk, (s, o)) in streams.iter().zip(outputs.iter_mut()).enumerate() {
                inflate_exact(&mut d, s, o)
                    .map_err(|why| cpu_error(case, CpuFailure { chunk, why }))?;
            }
            Ok(())
        })?
    };
    check_equal(case, "libdeflate (1 core)", &out)?;
    rows.push(row(
        "deflate decode (libdeflate, all cores)",
        format!("CPU, {threads} threads"),
        all_ms,
        None,
        format!("{chunks} chunks; rayon over chunks"),
    ));
    rows.push(row(
        "deflate decode (libdeflate, 1 core)",
        "CPU, 1 thread".into(),
        one_ms,
        None,
        format!("{chunks} chunks; per core"),
    ));
    Ok(())
}

fn cpu_error(case: &Case, e: CpuFailure) -> Error {
    Error::Corrupt {
        chunk: e.chunk,
        reason: format!("libdeflate on {}: {}", case.input, e.why),
    }
}

/// `Err` naming the first differing chunk when `out` is not the case's raw bytes.
fn check_equal(case: &Case, decoder: &str, out: &[u8]) -> Result<()> {
    if out == case.raw {
        return Ok(());
    }
    let mut at = 0usize;
    for (chunk, &size) in case.file.raw_sizes().iter().enumerate() {
        let end = at + size;
        if out.get(at..end) != case.raw.get(at..end) {
            return Err(Error::Corrupt {
                chunk,
                reason: format!("{decoder} output of {} differs from the input", case.input),
            });
        }
        at = end;
    }
    Err(Error::Corrupt {
        chunk: 0,
        reason: format!(
            "{decoder} output of {} has {} bytes, the input {}",
            case.input,
            out.len(),
            case.raw.len()
        ),
    })
}

/// Median kernel milliseconds (device-resident, CUDA events) and end-to-end milliseconds (the
/// library's host-to-host call: upload, kernel, download), both checked against the input; and
/// the kernel that ran.
fn gpu_times(
    gpu: &GpuContext,
    opts: &BenchOptions,
    case: &Case,
) -> Result<(f64, f64, InflateKernel)> {
    let streams = case.file.streams();
    let sizes = case.file.raw_sizes();
    let stream = gpu.stream().clone();
    let mut batch = InflateBatch::upload(gpu, &streams, sizes)?;
    batch.poison_output(gpu, POISON)?;
    batch.launch(gpu, &stream)?;
    check_gpu(gpu, &batch, case)?;
    // Poisoned again, so that the check after the timed runs sees their output.
    batch.poison_output(gpu, POISON)?;
    let times = gpu.time_ms(3, opts.runs(), || batch.launch(gpu, &stream))?;
    check_gpu(gpu, &batch, case)?;
    let kernel_ms = median(&times);
    let kernel = batch.kernel;
    drop(batch);

    let mut out = vec![POISON; case.raw.len()];
    let e2e_ms = {
        let mut outputs = split_outputs(&mut out, sizes);
        wall_ms(opts.runs().min(10), || {
            let results = inflate_host(gpu, &streams, &mut outputs)?;
            check_statuses(&results, sizes, case)
        })?
    };
    check_equal(case, "GPU inflate (end to end)", &out)?;
    Ok((kernel_ms, e2e_ms, kernel))
}

/// Every stream `Ok` with exactly its size, and the output equal to the input.
fn check_gpu(gpu: &GpuContext, batch: &InflateBatch, case: &Case) -> Result<()> {
    let sizes = case.file.raw_sizes();
    check_statuses(&batch.results(gpu)?, sizes, case)?;
    let mut out = vec![!POISON; case.raw.len()];
    batch.download_into(gpu, &mut split_outputs(&mut out, sizes))?;
    check_equal(case, "GPU inflate", &out)
}

fn check_statuses(
    results: &[warpzip::codec::deflate::StreamResult],
    sizes: &[usize],
    case: &Case,
) -> Result<()> {
    if results.len() != sizes.len() {
        return Err(Error::Driver(format!(
            "GPU inflate of {} returned {} results for {} streams",
            case.input,
            results.len(),
            sizes.len()
        )));
    }
    check_results(results, sizes, 0).map_err(|e| match e {
        Error::Corrupt { chunk, reason } => Error::Corrupt {
            chunk,
            reason: format!("GPU inflate of {}: {reason}", case.input),
        },
        other => other,
    })
}

/// libdeflate compression on one core at each level 1 to 12, over at most
/// [`LEVEL_SWEEP_BYTES`] of `data` (the input called `name`) cut into `chunk_size` chunks.
fn level_rows(name: &str, data: &[u8], chunk_size: usize, rows: &mut Vec<BenchRow>) -> Result<()> {
    let data = &data[..data.len().min(LEVEL_SWEEP_BYTES)];
    if data.is_empty() {
        return Ok(());
    }
    for level in 1..=12 {
        let mut compressor = Compressor::new(compression_level(level)?);
        let mut compressed = 0usize;
        let ms = wall_ms(LEVEL_SWEEP_RUNS, || {
            compressed = 0;
            for chunk in data.chunks(chunk_size) {
                compressed += deflate_chunk(&mut compressor, chunk)?.len();
            }
            Ok(())
        })?;
        rows.push(BenchRow {
            what: format!("deflate compress level {level} (libdeflate)"),
            input: format!("{name}, first {}", size_label(data.len())),
            device: "CPU, 1 thread".into(),
            bytes: data.len() as u64,
            ratio: Some(data.len() as f64 / compressed.max(1) as f64),
            ms,
            gbps: gbps(data.len() as f64, ms),
            roofline: None,
            note: format!("per core; {} chunks", size_label(chunk_size)),
        });
    }
    Ok(())
}

/// `64 KiB`, `1 MiB`, `5.8 MiB`, `10 MB` (whole decimal megabytes), `300 B`.
fn size_label(n: usize) -> String {
    const KIB: usize = 1 << 10;
    const MIB: usize = 1 << 20;
    const MB: usize = 1_000_000;
    if n >= MB && n.is_multiple_of(MB) && !n.is_multiple_of(MIB) {
        format!("{} MB", n / MB)
    } else if n >= MIB {
        if n.is_multiple_of(MIB) {
            format!("{} MiB", n / MIB)
        } else {
            format!("{:.1} MiB", n as f64 / MIB as f64)
        }
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} B")
    }
}

/// `name` with every character other than ASCII letters, digits, `.`, `-` and `_` replaced by
/// `_`, and no leading dot (a file name for `--write-chunks`).
fn file_stem(name: &str) -> String {
    let stem = name.split(" (").next().unwrap_or(name);
    let s: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .collect();
    s.trim_start_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn outputs_split_at_the_chunk_sizes() {
        let mut out = vec![0u8; 10];
        let parts = split_outputs(&mut out, &[4, 0, 5, 1]);
        assert_eq!(
            parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
            [4, 0, 5, 1]
        );
        let mut short = vec![0u8; 3];
        let parts = split_outputs(&mut short, &[2, 2]);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), [2, 1]);
    }

    #[test]
    fn labels_and_stems() {
        assert_eq!(size_label(64 << 10), "64 KiB");
        assert_eq!(size_label(1 << 20), "1 MiB");
        assert_eq!(size_label(10_000_000), "10 MB");
        assert_eq!(size_label(6_062_277), "5.8 MiB");
        assert_eq!(size_label(300), "300 B");
        assert_eq!(file_stem("corpus text (10 MB)"), "corpus_text");
        assert_eq!(file_stem(".hidden/x y"), "hidden_x_y");
    }

    #[test]
    fn cpu_decode_rows_check_bytes_and_report_per_chunk_failures() {
        let data: Vec<u8> = (0..200_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 977) as u8)
            .collect();
        let file = ChunkFile::compress(&data, 64 << 10, 6).unwrap();
        let case = Case {
            input: "t".into(),
            file: &file,
            raw: &data,
        };
        let opts = BenchOptions {
            runs: 1,
            ..BenchOptions::default()
        };
        let mut rows = Vec::new();
        decode_rows(None, &opts, &case, &mut rows).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r.gbps > 0.0 && r.ratio.unwrap() > 1.0));
        // A reference that differs in chunk 2 is an error naming chunk 2, not a figure.
        let mut wrong = data.clone();
        wrong[2 * 65_536 + 7] ^= 1;
        let case = Case {
            raw: &wrong,
            ..case
        };
        match decode_rows(None, &opts, &case, &mut rows) {
            Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, 2),
            other => panic!("expected a corrupt-chunk error, got {other:?}"),
        }
    }

    #[test]
    fn damaged_chunk_file_is_an_error_naming_the_chunk() {
        let data = vec![7u8; 100_000];
        let file = ChunkFile::compress(&data, 32 << 10, 6).unwrap();
        let streams = file.streams();
        let mut bad = streams[1].to_vec();
        bad.truncate(bad.len() / 2);
        let mut replaced: Vec<&[u8]> = streams.clone();
        replaced[1] = &bad;
        let damaged = ChunkFile::from_streams(file.raw_sizes(), &replaced).unwrap();
        assert_eq!(reference_inflate("x", &file).unwrap(), data);
        match reference_inflate("x", &damaged) {
            Err(Error::Corrupt { chunk, .. }) => assert_eq!(chunk, 1),
            other => panic!(
                "expected a corrupt-chunk error, got {:?}",
                other.map(|v| v.len())
            ),
        }
    }

    #[test]
    fn level_sweep_has_twelve_rows() {
        let data: Vec<u8> = (0..50_000u32).map(|i| (i % 97) as u8).collect();
        let mut rows = Vec::new();
        level_rows("x", &data, 16 << 10, &mut rows).unwrap();
        assert_eq!(rows.len(), 12);
        assert!(rows[11].what.contains("level 12"));
    }
}
