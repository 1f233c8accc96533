//! `warpzip inspect`: what a `.wz` file holds (header, chunks, sizes, ratio) and whether every
//! checksum matches; `--decode` also decodes every chunk. Exits 1 when anything fails.

use super::{for_each_input, human_bytes, open_device, Input};
use crate::cli::InspectArgs;
use anyhow::{bail, Context, Result};
use std::fmt::Write as _;
use std::path::Path;
use warpzip::api::{self, Inspection, Verification};
use warpzip::format::ElemType;
use warpzip::CodecId;
use warpzip::Device;

pub fn run(args: InspectArgs) -> Result<()> {
    let device = match args.decode {
        true => Some(open_device(args.device.device)?),
        false => None,
    };
    let inputs: Vec<Input> = args.inputs.into_iter().map(Input::File).collect();
    let mut printed = false;
    for_each_input(&inputs, |input| match input {
        Input::File(path) => inspect_one(path, args.chunks, device.as_ref(), &mut printed),
        Input::Stdin => bail!("inspect reads files, not standard input"),
    })
}

/// Prints one file's report (after a blank line if one was `printed` before); fails when a
/// checksum or (with `device`) a chunk's decode does.
fn inspect_one(
    path: &Path,
    list_chunks: bool,
    device: Option<&Device>,
    printed: &mut bool,
) -> Result<()> {
    let data = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let report = api::inspect(&data).with_context(|| format!("inspecting {}", path.display()))?;
    if *printed {
        println!();
    }
    *printed = true;
    print!(
        "{}",
        describe(&path.display().to_string(), &report, list_chunks)
    );
    if let Verification::Failed { chunk, message } = &report.verification {
        match chunk {
            Some(c) => bail!("{}: chunk {c}: {message}", path.display()),
            None => bail!(
                "{}: checksum verification failed: {message}",
                path.display()
            ),
        }
    }
    if let Some(device) = device {
        api::decompress(&data, device).with_context(|| format!("decoding {}", path.display()))?;
        println!("decoded          OK, every chunk on {}", device.label());
    }
    Ok(())
}

fn describe(name: &str, r: &Inspection, list_chunks: bool) -> String {
    let h = &r.header;
    let mut s = String::new();
    let mut field = |k: &str, v: String| {
        let _ = writeln!(s, "{k:<16} {v}");
    };
    field("file", name.to_string());
    field("codec", format!("{} (id {})", h.codec, h.codec.to_u16()));
    field(
        "codec params",
        codec_params(h.codec, &h.codec_params, h.elem_type),
    );
    field("element type", h.elem_type.to_string());
    field(
        "shape",
        if h.shape.is_empty() {
            "(flat byte stream)".to_string()
        } else {
            h.shape
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" x ")
        },
    );
    field(
        "chunk size",
        format!(
            "{} bytes ({})",
            h.chunk_size,
            human_bytes(h.chunk_size.into())
        ),
    );
    field("chunks", r.chunk_count().to_string());
    field(
        "uncompressed",
        format!("{} bytes ({})", h.total_len, human_bytes(h.total_len)),
    );
    field(
        "compressed",
        format!(
            "{} bytes ({}), of which {} bytes chunk data",
            r.container_len,
            human_bytes(r.container_len),
            r.payload_len
        ),
    );
    field("ratio", format!("{:.3}", r.ratio));
    field(
        "checksums",
        match &r.verification {
            Verification::Ok => format!(
                "OK (xxh3-64 of header, table and {} chunks)",
                r.chunk_count()
            ),
            Verification::Failed {
                chunk: Some(c),
                message,
            } => format!("FAILED in chunk {c}: {message}"),
            Verification::Failed {
                chunk: None,
                message,
            } => format!("FAILED: {message}"),
        },
    );
    if list_chunks {
        let _ = writeln!(
            s,
            "\n{:>7}  {:>14}  {:>12}  {:>12}  {:>18}",
            "chunk", "offset", "compressed", "uncompressed", "xxh3-64"
        );
        for (i, c) in r.chunks.iter().enumerate() {
            let _ = writeln!(
                s,
                "{i:>7}  {:>14}  {:>12}  {:>12}  {:#018x}",
                c.offset, c.compressed_len, c.uncompressed_len, c.checksum
            );
        }
    }
    s
}

fn codec_params(codec: CodecId, params: &[u8], elem: ElemType) -> String {
    let hex = if params.is_empty() {
        "(none)".to_string()
    } else {
        params
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match warpzip::codec::codec(codec)
        .ok()
        .and_then(|c| c.describe_params(params, elem))
    {
        Some(words) => format!("{hex} ({words})"),
        None => hex,
    }
}
