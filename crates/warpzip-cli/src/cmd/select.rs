//! `warpzip select`: keeps the values of a raw little-endian array whose mask bit is set
//! (compressstore) and writes them, in order, as raw little-endian values. The mask is a packed
//! bitmask file (`--mask`), a byte-per-flag file (`--flags`) or a repeating `--pattern`.

use super::{open_device, Input};
use crate::cli::{DType, SelectArgs};
use crate::output::{same_file, Sink};
use crate::progress::Progress;
use anyhow::{bail, Context, Result};
use std::io::Write;
use std::path::{Path, PathBuf};
use warpzip::ops::compact::{self, values_from_le_bytes, values_to_le_bytes, CompactElem, Mask};
use warpzip::Device;

pub fn run(args: SelectArgs) -> Result<()> {
    let input = Input::from_arg(args.input.clone());
    let output = output_path(&input, args.output.as_deref());
    if let Input::File(path) = &input {
        if same_file(path, &output) {
            bail!("{} would overwrite its own input", output.display());
        }
    }
    let mask_file = match (&args.mask, &args.flags) {
        (Some(path), _) | (None, Some(path)) => Some((
            path,
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
        )),
        (None, None) => None,
    };
    let device = open_device(args.device.device)?;
    let mut sink = Sink::open(&output, args.force)?;
    if sink.is_terminal() && !args.force {
        bail!("raw values not written to a terminal; use -o FILE, redirect the output, or -f");
    }

    let mut progress = Progress::for_size(0);
    let data = input.read(&mut progress)?;
    progress.finish();
    let (name, size) = dtype_name_size(args.dtype);
    if data.len() % size != 0 {
        bail!(
            "{} is {} bytes, not a whole number of {name} values ({size} bytes each)",
            input.describe(),
            data.len()
        );
    }
    let n = data.len() / size;
    let mask = match (&mask_file, &args.pattern) {
        (Some((_, bytes)), _) if args.mask.is_some() => Mask::Bits(bytes),
        (Some((_, bytes)), _) => Mask::Flags(bytes),
        (None, Some(pattern)) => Mask::Pattern(pattern),
        (None, None) => bail!("give --mask, --flags or --pattern"),
    };
    if let Some((path, bytes)) = &mask_file {
        mask.check(n).with_context(|| {
            format!(
                "{} does not cover the {n} values of {}",
                path.display(),
                input.describe()
            )
        })?;
        // A mask longer than the values is as likely a mistake (the wrong file, the wrong
        // --dtype) as a short one.
        let (needed, unit) = match mask {
            Mask::Bits(_) => (n.div_ceil(8), "bytes (one bit a value)"),
            _ => (n, "flags (one byte a value)"),
        };
        if bytes.len() > needed {
            bail!(
                "{} is longer than the values of {}: {} {unit} for {n} {name} values, which need \
                 {needed}",
                path.display(),
                input.describe(),
                bytes.len()
            );
        }
    }

    let kept = match args.dtype {
        DType::U8 => select_as::<u8>(&data, mask, &device),
        DType::U16 => select_as::<u16>(&data, mask, &device),
        DType::U32 => select_as::<u32>(&data, mask, &device),
        DType::U64 => select_as::<u64>(&data, mask, &device),
        DType::F32 => select_as::<f32>(&data, mask, &device),
        DType::F64 => select_as::<f64>(&data, mask, &device),
    }
    .with_context(|| format!("selecting from {}", input.describe()))?;
    sink.write_all(&kept)
        .with_context(|| format!("writing {}", sink.describe()))?;
    sink.finish()
}

fn dtype_name_size(dtype: DType) -> (&'static str, usize) {
    match dtype {
        DType::U8 => ("u8", 1),
        DType::U16 => ("u16", 2),
        DType::U32 => ("u32", 4),
        DType::U64 => ("u64", 8),
        DType::F32 => ("f32", 4),
        DType::F64 => ("f64", 8),
    }
}

fn select_as<T: CompactElem>(data: &[u8], mask: Mask<'_>, device: &Device) -> Result<Vec<u8>> {
    let values: Vec<T> = values_from_le_bytes(data)?;
    let kept = compact::select_masked(&values, mask, device)?;
    Ok(values_to_le_bytes(&kept))
}

/// `-o` when given; else stdout for stdin, and `INPUT.sel` for a file.
fn output_path(input: &Input, explicit: Option<&Path>) -> PathBuf {
    match (explicit, input) {
        (Some(out), _) => out.to_path_buf(),
        (None, Input::Stdin) => PathBuf::from("-"),
        (None, Input::File(path)) => {
            let mut name = path.as_os_str().to_owned();
            name.push(".sel");
            PathBuf::from(name)
        }
    }
}
