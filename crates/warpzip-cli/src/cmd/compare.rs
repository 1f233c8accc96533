//! `warpzip compare ORIGINAL DECOMPRESSED --dtype f32`: the distortion of a lossy
//! reconstruction, as SZ's compareData prints it, and the values that break a bound.

use crate::cli::{CompareArgs, FloatDType, UsageError};
use anyhow::{bail, Context, Result};
use warpzip::format::ElemType;

pub fn run(args: CompareArgs) -> Result<()> {
    let elem = match args.dtype {
        FloatDType::F32 => ElemType::F32,
        FloatDType::F64 => ElemType::F64,
    };
    let original = std::fs::read(&args.original)
        .with_context(|| format!("reading {}", args.original.display()))?;
    let decompressed = std::fs::read(&args.decompressed)
        .with_context(|| format!("reading {}", args.decompressed.display()))?;
    if let Some(crate::cli::Dims(dims)) = &args.dims {
        let values = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
        if values.and_then(|v| v.checked_mul(elem.size())) != Some(original.len() as u64) {
            return Err(UsageError(format!(
                "--dims {} do not match {} bytes of {elem}",
                dims.iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join("x"),
                original.len()
            ))
            .into());
        }
    }
    let c = warpzip::codec::compare(&original, &decompressed, elem, args.eb)
        .map_err(|e| UsageError(e.to_string()))?;
    println!("values                 = {}", c.count);
    println!(
        "Min = {:e}, Max = {:e}, range = {:e}",
        c.min, c.max, c.range
    );
    println!("Max absolute error     = {:e}", c.max_abs_error);
    println!("Max relative error     = {:e}", c.max_rel_error);
    println!("Max pw relative error  = {:e}", c.max_pw_rel_error);
    println!("PSNR                   = {:.6} dB", c.psnr);
    println!("NRMSE                  = {:e}", c.nrmse);
    if c.special_mismatches > 0 {
        println!(
            "NaN/Inf differing      = {} (bit patterns of non-finite values)",
            c.special_mismatches
        );
    }
    if let (Some(bound), Some(v)) = (args.eb, c.violations) {
        println!("bound {bound} violations = {v}");
        if v > 0 {
            bail!(
                "{v} values break the bound {bound} (the first at index {})",
                c.first_violation.unwrap_or(0)
            );
        }
    }
    Ok(())
}
