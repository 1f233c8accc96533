//! `warpzip bench`: runs the benchmarks of `warpzip-bench` and prints their rows as a table,
//! and as CSV with `--csv`.

use super::{format_table, human_bytes, open_device, Align};
use crate::cli::{BenchArgs, UsageError};
use crate::output::OutputFile;
use anyhow::{bail, Context, Result};
use std::io::Write;
use warpzip_bench::{BenchOptions, BenchRow};

pub fn run(args: BenchArgs) -> Result<()> {
    // An unknown codec name is a usage error (exit 2), found before the device opens.
    if let Some(bad) = args
        .codecs
        .iter()
        .find(|c| !warpzip_bench::KNOWN_CODECS.contains(&c.as_str()))
    {
        return Err(UsageError(format!(
            "bench knows no codec '{bad}' (known: {})",
            warpzip_bench::KNOWN_CODECS.join(", ")
        ))
        .into());
    }
    let device = open_device(args.device.device)?;
    check_options(&args, device.is_gpu())?;
    let size = args
        .size
        .map(usize::try_from)
        .transpose()
        .context("--size does not fit in memory here")?;
    let plot = args.plot;
    let opts = BenchOptions {
        codecs: args.codecs,
        files: args.files,
        size,
        runs: usize::try_from(args.runs).context("--runs is too large")?,
        dump_dir: args.dump_inputs,
        chunk_size: args
            .chunk_size
            .map(usize::try_from)
            .transpose()
            .context("--chunk-size does not fit in memory here")?,
        levels: args.levels,
        write_chunks: args.write_chunks,
        columns: args.columns,
    };
    // The CSV target is checked before minutes of measuring, not after.
    let csv = match &args.csv {
        Some(path) => Some(OutputFile::create(path, true)?),
        None => None,
    };
    let rows = warpzip_bench::run(&device, &opts).context("benchmark failed")?;
    if rows.is_empty() {
        bail!(
            "nothing was measured on {} with these options; see `warpzip bench --help`",
            device.label()
        );
    }
    print!("{}", table(&rows));
    if let Some(path) = &plot {
        warpzip_bench::write_rate_distortion_plot(&opts, path)
            .context("writing the rate-distortion plot")?;
        eprintln!(
            "warpzip: rate-distortion plot written to {}",
            path.display()
        );
    }
    if let Some(mut file) = csv {
        file.write_all(csv_text(&rows).as_bytes())
            .context("writing the CSV file")?;
        file.commit()?;
    }
    Ok(())
}

/// The benchmarks that run on the CPU (the others need a GPU).
const CPU_BENCHES: &[&str] = &[
    "rle", "select", "orc-rle", "orc", "deflate", "for", "dfor", "rfor", "tile", "sz", "ssb",
    "snappy", "lz4",
];

/// Refuses options that no chosen benchmark would use (each would be silently ignored), a
/// GPU-only benchmark on the CPU, `--codec orc` without ORC files and a `--column` that no
/// chosen benchmark has.
fn check_options(args: &BenchArgs, gpu: bool) -> Result<()> {
    let explicit = !args.codecs.is_empty();
    if !gpu {
        if let Some(only_gpu) = args
            .codecs
            .iter()
            .find(|c| !CPU_BENCHES.contains(&c.as_str()))
        {
            bail!(
                "the {only_gpu} bench measures the GPU only, and runs on no CPU (this run's \
                 device is the CPU); the CPU benches are {}",
                CPU_BENCHES.join(", ")
            );
        }
    }
    let chosen: Vec<&str> = if explicit {
        args.codecs.iter().map(String::as_str).collect()
    } else if gpu {
        warpzip_bench::KNOWN_CODECS
            .iter()
            .copied()
            .filter(|c| *c != "scan-sweep" && *c != "ssb")
            .collect()
    } else {
        CPU_BENCHES.to_vec()
    };
    let runs = |names: &[&str]| chosen.iter().any(|c| names.contains(c));
    let dump_benches: &[&str] = if gpu {
        &["orc-rle", "orc", "deflate", "for", "dfor", "rfor", "tile"]
    } else {
        &["orc-rle", "deflate", "for", "dfor", "rfor", "tile"]
    };
    let checks: [(&str, bool, &[&str]); 8] = [
        (
            "--size",
            args.size.is_some(),
            &[
                "rle", "select", "orc-rle", "deflate", "for", "dfor", "rfor", "tile", "sz", "ssb",
                "snappy", "lz4",
            ],
        ),
        ("--dump-inputs", args.dump_inputs.is_some(), dump_benches),
        (
            "--chunk-size",
            args.chunk_size.is_some(),
            &["orc-rle", "deflate", "snappy", "lz4"],
        ),
        ("--level", !args.levels.is_empty(), &["deflate"]),
        ("--write-chunks", args.write_chunks.is_some(), &["deflate"]),
        (
            "--column",
            !args.columns.is_empty(),
            &["orc-rle", "orc", "for", "dfor", "rfor", "tile"],
        ),
        (
            "FILES",
            !args.files.is_empty(),
            &["rle", "orc", "deflate", "sz", "ssb", "snappy", "lz4"],
        ),
        ("--plot", args.plot.is_some(), &["sz"]),
    ];
    for (option, given, users) in checks {
        if given && !runs(users) {
            return Err(UsageError(format!(
                "{option} is used by the {} bench{} on {}; the benches chosen ({}) would ignore it",
                and_list(users),
                if users.len() > 1 { "es" } else { "" },
                if gpu { "a GPU" } else { "the CPU" },
                chosen.join(", ")
            ))
            .into());
        }
    }
    let orc_files: Vec<&std::path::PathBuf> = args
        .files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
        .collect();
    if explicit && runs(&["orc"]) && orc_files.is_empty() {
        return Err(UsageError(
            "--codec orc measures ORC files: name one or more FILE.orc (warpzip bench --codec \
             orc lineitem.orc)"
                .into(),
        )
        .into());
    }
    // Every --column must be a column some chosen bench measures.
    let mut known: Vec<String> = Vec::new();
    if runs(&["orc-rle"]) {
        known.extend(
            warpzip_bench::orc::columns(0)
                .iter()
                .map(|c| c.name.to_string()),
        );
    }
    if runs(&["for", "dfor", "rfor", "tile"]) {
        known.extend(
            warpzip_bench::tile::COLUMN_NAMES
                .iter()
                .map(|c| c.to_string()),
        );
    }
    if runs(&["orc"]) {
        for path in &orc_files {
            match warpzip::orc::OrcFile::open(path) {
                Ok(file) => known.extend(
                    file.columns()
                        .iter()
                        .filter(|c| c.is_supported())
                        .map(|c| c.name.clone()),
                ),
                // A file that does not open is reported by the bench itself.
                Err(_) => return Ok(()),
            }
        }
    }
    if let Some(missing) = args.columns.iter().find(|c| !known.contains(c)) {
        bail!(
            "no column '{missing}' in the benches chosen; they have {}",
            if known.is_empty() {
                "none".to_string()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(())
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

fn table(rows: &[BenchRow]) -> String {
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.what.clone(),
                r.input.clone(),
                r.device.clone(),
                human_bytes(r.bytes),
                r.ratio.map_or("-".to_string(), |x| format!("{x:.3}")),
                format!("{:.3}", r.ms),
                gbps_cell(r.gbps),
                r.roofline
                    .map_or("-".to_string(), |x| format!("{:.1}", 100.0 * x)),
                r.note.clone(),
            ]
        })
        .collect();
    format_table(
        &[
            ("what", Align::Left),
            ("input", Align::Left),
            ("device", Align::Left),
            ("size", Align::Right),
            ("ratio", Align::Right),
            ("ms", Align::Right),
            ("GB/s", Align::Right),
            ("roofline %", Align::Right),
            ("note", Align::Left),
        ],
        &cells,
    )
}

/// GB/s with one decimal, or three below 1 GB/s (per-core compression at high levels).
fn gbps_cell(gbps: f64) -> String {
    if gbps < 1.0 {
        format!("{gbps:.3}")
    } else {
        format!("{gbps:.1}")
    }
}

fn csv_text(rows: &[BenchRow]) -> String {
    let mut s = String::from("what,input,device,bytes,ratio,ms,gb_per_s,roofline_fraction,note\n");
    for r in rows {
        let fields = [
            csv_field(&r.what),
            csv_field(&r.input),
            csv_field(&r.device),
            r.bytes.to_string(),
            r.ratio.map_or(String::new(), |x| format!("{x}")),
            format!("{}", r.ms),
            format!("{}", r.gbps),
            r.roofline.map_or(String::new(), |x| format!("{x}")),
            csv_field(&r.note),
        ];
        s.push_str(&fields.join(","));
        s.push('\n');
    }
    s
}

/// Quotes a field that holds a comma, quote or line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_only_when_needed() {
        assert_eq!(csv_field("rle decode"), "rle decode");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    }

    #[test]
    fn csv_has_a_header_and_one_line_per_row() {
        let row = BenchRow {
            what: "rle decode".into(),
            input: "random, runs".into(),
            device: "cpu".into(),
            bytes: 1024,
            ratio: Some(2.5),
            ms: 1.25,
            gbps: 0.5,
            roofline: None,
            note: String::new(),
        };
        let text = csv_text(&[row]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0],
            "what,input,device,bytes,ratio,ms,gb_per_s,roofline_fraction,note"
        );
        assert_eq!(
            lines[1],
            "rle decode,\"random, runs\",cpu,1024,2.5,1.25,0.5,,"
        );
    }
}
