//! `warpzip inspect`: what a `.wz` file holds (header, chunks, sizes, ratio) and whether every
//! checksum matches; `--decode` also decodes every chunk. A gzip file (first bytes `1f 8b`) is
//! listed as `gzip -l` lists it, from every member (each one inflated and checked), with
//! `--chunks` a line per member. Exits 1 when anything fails.

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
    if warpzip::gzip::is_gzip(&data) {
        return inspect_gzip(path, &data, list_chunks, device, printed);
    }
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
    if r.frames > 1 {
        field(
            "frames",
            format!("{} (a stream of frames, format version 2)", r.frames),
        );
    }
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

/// `gzip -l` for one gzip file: compressed size (the file's), uncompressed size (every member's,
/// where `gzip -l` reports the last member's size alone), the ratio `gzip -l` prints (the
/// Deflate data's saving: headers and trailers not counted as compressed data) and the name the
/// file decompresses to; then the member count, and with `list_members` one line per member.
fn inspect_gzip(
    path: &Path,
    data: &[u8],
    list_members: bool,
    device: Option<&Device>,
    printed: &mut bool,
) -> Result<()> {
    let decode_on = device.cloned().unwrap_or(Device::Cpu);
    let members = warpzip::gzip::list_members(data, &decode_on)
        .with_context(|| format!("inspecting {}", path.display()))?;
    if *printed {
        println!();
    }
    *printed = true;
    print!(
        "{}",
        describe_gzip(path, data.len() as u64, &members, list_members)
    );
    if let Some(device) = device {
        println!("decoded          OK, every member on {}", device.label());
    }
    Ok(())
}

/// The listing [`inspect_gzip`] prints.
fn describe_gzip(
    path: &Path,
    compressed: u64,
    members: &[warpzip::gzip::Member],
    list_members: bool,
) -> String {
    let uncompressed: u64 = members.iter().map(|m| m.uncompressed_len).sum();
    let framing: u64 = members.iter().map(|m| m.header_len as u64 + 8).sum();
    let saved = uncompressed as f64 - (compressed as f64 - framing as f64);
    let ratio = if uncompressed == 0 {
        0.0
    } else {
        100.0 * saved / uncompressed as f64
    };
    let file = path.display().to_string();
    let name = [".gz", ".z", ".tgz", ".taz"]
        .iter()
        .find_map(|suffix| {
            let stem = file.strip_suffix(suffix)?;
            let tar = if suffix.starts_with(".t") { ".tar" } else { "" };
            (!stem.is_empty()).then(|| format!("{stem}{tar}"))
        })
        .unwrap_or_else(|| file.clone());
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>19} {:>19}  ratio uncompressed_name",
        "compressed", "uncompressed"
    );
    let _ = writeln!(s, "{compressed:>19} {uncompressed:>19} {ratio:5.1}% {name}");
    let bgzf = members
        .iter()
        .filter(|m| m.bgzf_member_len.is_some())
        .count();
    let kind = match bgzf {
        0 => String::new(),
        n if n == members.len() => " (BGZF)".to_string(),
        n => format!(" ({n} BGZF)"),
    };
    let _ = writeln!(s, "{} gzip member(s){kind}", members.len());
    if list_members {
        let _ = writeln!(
            s,
            "\n{:>7}  {:>14}  {:>12}  {:>12}  {:>10}",
            "member", "offset", "compressed", "uncompressed", "crc32"
        );
        for (i, m) in members.iter().enumerate() {
            let _ = writeln!(
                s,
                "{i:>7}  {:>14}  {:>12}  {:>12}  {:#010x}",
                m.offset, m.compressed_len, m.uncompressed_len, m.crc32
            );
        }
    }
    s
}
