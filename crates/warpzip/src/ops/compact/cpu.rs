//! The scalar reference: one element at a time, in order, obviously correct. Every other path
//! (SIMD, GPU) is tested against it.

use super::{Mask, Pattern};
use crate::error::{Error, Result};

/// Kept elements of `values` under `mask`.
pub fn select<T: Copy>(values: &[T], mask: Mask<'_>) -> Result<Vec<T>> {
    mask.check(values.len())?;
    let mut out = crate::error::try_with_capacity(mask.count(values.len())?, "the selected values")?;
    match mask {
        Mask::Bits(bits) => {
            for (group, &byte) in values.chunks(8).zip(bits) {
                for (j, &v) in group.iter().enumerate() {
                    if (byte >> j) & 1 == 1 {
                        out.push(v);
                    }
                }
            }
        }
        Mask::Flags(flags) => {
            for (&v, &f) in values.iter().zip(flags) {
                if f != 0 {
                    out.push(v);
                }
            }
        }
        Mask::Pattern(pattern) => select_pattern_into(values, pattern, &mut out),
    }
    Ok(out)
}

/// Writes the kept elements to the front of `out` and returns their number; fails, writing
/// nothing, when `out` is too short.
pub fn select_into<T: Copy>(values: &[T], mask: Mask<'_>, out: &mut [T]) -> Result<usize> {
    let count = mask.count(values.len())?;
    if out.len() < count {
        return Err(Error::InvalidArgument(format!(
            "the output holds {} elements but {count} are selected",
            out.len()
        )));
    }
    let mut slots = out.iter_mut();
    let mut keep = |v: T| {
        if let Some(slot) = slots.next() {
            *slot = v;
        }
    };
    match mask {
        Mask::Bits(bits) => {
            for (group, &byte) in values.chunks(8).zip(bits) {
                for (j, &v) in group.iter().enumerate() {
                    if (byte >> j) & 1 == 1 {
                        keep(v);
                    }
                }
            }
        }
        Mask::Flags(flags) => {
            for (&v, &f) in values.iter().zip(flags) {
                if f != 0 {
                    keep(v);
                }
            }
        }
        Mask::Pattern(pattern) => {
            let flags = pattern.flags();
            for row in values.chunks(flags.len()) {
                for (&v, &k) in row.iter().zip(flags) {
                    if k {
                        keep(v);
                    }
                }
            }
        }
    }
    Ok(count)
}

fn select_pattern_into<T: Copy>(values: &[T], pattern: &Pattern, out: &mut Vec<T>) {
    let flags = pattern.flags();
    for row in values.chunks(flags.len()) {
        for (&v, &k) in row.iter().zip(flags) {
            if k {
                out.push(v);
            }
        }
    }
}
