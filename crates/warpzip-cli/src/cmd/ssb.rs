//! `warpzip ssb`: the Star Schema Benchmark. `gen` writes its tables as dbgen's `.tbl` files,
//! `load` turns `.tbl` files into a column directory (each column `tile`-compressed and raw),
//! `query` runs one of the 13 queries on the CPU or the GPU. The clap types live here, beside
//! their only user, so that the commands plug into `cli.rs` with one line.

use super::{format_table, human_bytes, open_device, Align};
use crate::cli::DeviceChoice;
use anyhow::{Context, Result};
use clap::{ArgGroup, Args, Subcommand};
use std::path::PathBuf;
use warpzip::ssb::{self, ColumnDir, Query, Storage, Value};

#[derive(Debug, Args)]
pub struct SsbArgs {
    #[command(subcommand)]
    pub command: SsbCommand,
}

#[derive(Debug, Subcommand)]
pub enum SsbCommand {
    /// Write the five SSB tables at a scale factor as dbgen's `.tbl` files.
    #[command(after_help = "Example:\n  warpzip ssb gen --sf 1 -o ssb-sf1")]
    Gen(SsbGenArgs),
    /// Read dbgen's `.tbl` files and write a column directory: every column compressed with
    /// the `tile` codec (text columns as codes into a sorted dictionary), and raw.
    #[command(after_help = "Example:\n  warpzip ssb load ssb-sf1 -o ssb-sf1-cols")]
    Load(SsbLoadArgs),
    /// Run one of the 13 SSB queries (q1.1 to q4.3) over a column directory.
    #[command(
        after_help = "Prints the answer's rows in the specification's order, then the time. With \
--csv, the rows as CSV (a header line first) on stdout and the time on stderr.\n\nExamples:\n  \
warpzip ssb query q2.1 ssb-sf1-cols\n  warpzip ssb query q4.3 ssb-sf1-cols --device gpu \
--uncompressed --csv"
    )]
    Query(SsbQueryArgs),
}

#[derive(Debug, Args)]
pub struct SsbGenArgs {
    /// Scale factor: 1 is 6 million lineorder rows; fractions such as 0.01 are allowed.
    #[arg(long, value_name = "N")]
    pub sf: f64,
    /// Directory to write lineorder.tbl, date.tbl, customer.tbl, supplier.tbl and part.tbl to.
    #[arg(short, long, value_name = "DIR")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
pub struct SsbLoadArgs {
    /// Directory holding the five `.tbl` files.
    #[arg(value_name = "DIR")]
    pub input: PathBuf,
    /// Column directory to write.
    #[arg(short, long, value_name = "COLS")]
    pub output: PathBuf,
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("storage").args(["uncompressed", "decompressed"])))]
pub struct SsbQueryArgs {
    /// The query: q1.1, q1.2, q1.3, q2.1, q2.2, q2.3, q3.1, q3.2, q3.3, q3.4, q4.1, q4.2, q4.3.
    #[arg(value_name = "QUERY", value_parser = parse_query)]
    pub query: Query,
    /// The column directory `ssb load` wrote.
    #[arg(value_name = "COLS")]
    pub columns: PathBuf,
    /// Where to run: on the GPU, one fused kernel decodes, filters, probes and aggregates a
    /// tile at a time; `auto` uses a GPU when one is usable.
    #[arg(long, value_enum, default_value_t = DeviceChoice::Auto)]
    pub device: DeviceChoice,
    /// Read the raw columns instead of the compressed ones.
    #[arg(long)]
    pub uncompressed: bool,
    /// Decompress the compressed columns whole first, then query them raw (the time counts
    /// both).
    #[arg(long)]
    pub decompressed: bool,
    /// Print the rows as CSV on stdout and the time on stderr.
    #[arg(long)]
    pub csv: bool,
}

fn parse_query(name: &str) -> std::result::Result<Query, String> {
    Query::parse(name).map_err(|e| e.to_string())
}

pub fn run(args: SsbArgs) -> Result<()> {
    match args.command {
        SsbCommand::Gen(a) => {
            let card = ssb::generate(a.sf, &a.output)
                .with_context(|| format!("writing the SSB tables to {}", a.output.display()))?;
            println!(
                "wrote SSB scale factor {} to {}: {} orders, {} customers, {} suppliers, {} \
                 parts, {} days",
                a.sf,
                a.output.display(),
                card.orders,
                card.customers,
                card.suppliers,
                card.parts,
                ssb::gen::DAYS
            );
            Ok(())
        }
        SsbCommand::Load(a) => load(a),
        SsbCommand::Query(a) => query(a),
    }
}

fn load(a: SsbLoadArgs) -> Result<()> {
    let loaded = ssb::load(&a.input, &a.output)
        .with_context(|| format!("loading {} into {}", a.input.display(), a.output.display()))?;
    let rows: Vec<Vec<String>> = loaded
        .iter()
        .map(|c| {
            vec![
                format!("{}.{}", c.table, c.column),
                c.rows.to_string(),
                human_bytes(c.raw_bytes),
                human_bytes(c.compressed_bytes),
                format!(
                    "{:.2}",
                    c.raw_bytes as f64 / c.compressed_bytes.max(1) as f64
                ),
            ]
        })
        .collect();
    print!(
        "{}",
        format_table(
            &[
                ("column", Align::Left),
                ("rows", Align::Right),
                ("raw", Align::Right),
                ("tile", Align::Right),
                ("ratio", Align::Right),
            ],
            &rows
        )
    );
    let raw: u64 = loaded.iter().map(|c| c.raw_bytes).sum();
    let packed: u64 = loaded.iter().map(|c| c.compressed_bytes).sum();
    println!(
        "wrote {} columns to {}: {} raw, {} compressed",
        loaded.len(),
        a.output.display(),
        human_bytes(raw),
        human_bytes(packed)
    );
    Ok(())
}

fn query(a: SsbQueryArgs) -> Result<()> {
    let dir = ColumnDir::open(&a.columns)?;
    let device = open_device(a.device)?;
    let storage = if a.uncompressed {
        Storage::Uncompressed
    } else if a.decompressed {
        Storage::Decompressed
    } else {
        Storage::Compressed
    };
    let (result, ms) = ssb::run(a.query, &dir, &device, storage)
        .with_context(|| format!("running {}", a.query))?;
    let timing = format!(
        "{}: {} rows in {ms:.3} ms ({}, {} columns)",
        a.query,
        result.rows.len(),
        device.label(),
        storage.name()
    );
    if a.csv {
        print!("{}", result.to_csv());
        eprintln!("{timing}");
    } else {
        let header: Vec<(&str, Align)> = result
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let numeric = result
                    .rows
                    .first()
                    .is_some_and(|r| matches!(r[i], Value::Int(_)));
                (c.as_str(), if numeric { Align::Right } else { Align::Left })
            })
            .collect();
        let rows: Vec<Vec<String>> = result
            .rows
            .iter()
            .map(|r| r.iter().map(Value::to_string).collect())
            .collect();
        print!("{}", format_table(&header, &rows));
        println!("{timing}");
    }
    Ok(())
}
