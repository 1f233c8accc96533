//! The CPU engine, the reference: tiles in parallel with rayon, each tile's rows filtered on
//! quantity and discount, probed against each dimension map in turn (a column is decoded only
//! while some row of the tile is still selected), and the measure summed into per-group sums
//! and counts that are merged at the end.

use super::fact::{Fact, FactColumn, KIND};
use super::query::{Plan, Slot, SLOTS};
use crate::codec::tile::cpu::decode_tile_with;
use crate::codec::tile::format::{ChunkFault, TILE_VALUES};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Per-group sums (two's-complement `i64`s) and row counts.
pub(crate) struct Sums {
    pub(crate) sums: Vec<u64>,
    pub(crate) counts: Vec<u64>,
}

impl Sums {
    fn new(groups: usize) -> Sums {
        Sums {
            sums: vec![0; groups],
            counts: vec![0; groups],
        }
    }

    fn merge(mut self, other: Sums) -> Sums {
        for (a, b) in self.sums.iter_mut().zip(other.sums) {
            *a = a.wrapping_add(b);
        }
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
        self
    }
}

/// One thread's buffers: each slot's values of the current tile, the selected rows and their
/// group indexes, and the tile decoder's scratch.
struct Scratch {
    values: Vec<[u32; TILE_VALUES]>,
    loaded: [bool; SLOTS],
    selected: Vec<u16>,
    group: Vec<u32>,
    wide: Vec<u64>,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch {
            values: vec![[0; TILE_VALUES]; SLOTS],
            loaded: [false; SLOTS],
            selected: Vec::with_capacity(TILE_VALUES),
            group: Vec::with_capacity(TILE_VALUES),
            wide: vec![0; 3 * TILE_VALUES],
        }
    }

    /// Makes tile `t` of `slot` available in `values[slot]`.
    fn load(&mut self, fact: &Fact, slot: Slot, t: usize, n: usize) -> Result<()> {
        let s = slot as usize;
        if self.loaded[s] {
            return Ok(());
        }
        let column = fact.columns[s].as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the plan reads {} but it was not opened",
                slot.column()
            ))
        })?;
        let dst = &mut self.values[s][..n];
        match column {
            FactColumn::Plain(v) => {
                let src = v.get(t * TILE_VALUES..t * TILE_VALUES + n).ok_or_else(|| {
                    Error::InvalidArgument(format!("{} is shorter than lineorder", slot.column()))
                })?;
                dst.copy_from_slice(src);
            }
            FactColumn::Tiled(c) => {
                let span = c.tiles.get(t).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "{} has fewer tiles than lineorder",
                        slot.column()
                    ))
                })?;
                let words = c
                    .words
                    .get(span.start..span.start + span.words * 4)
                    .unwrap_or(&[]);
                let (out, rest) = self.wide.split_at_mut(TILE_VALUES);
                decode_tile_with(words, KIND, c.plan, &mut out[..n], rest).map_err(|fault| {
                    ChunkFault {
                        tile: Some(span.tile),
                        fault,
                    }
                    .into_error(span.chunk)
                })?;
                for (d, &v) in dst.iter_mut().zip(out.iter()) {
                    *d = v as u32;
                }
            }
        }
        self.loaded[s] = true;
        Ok(())
    }
}

/// Keeps the selected rows whose value of `slot` lies in `lo..=hi`.
fn keep_range(s: &mut Scratch, slot: Slot, (lo, hi): (u32, u32)) {
    let v = &s.values[slot as usize];
    let mut k = 0;
    for i in 0..s.selected.len() {
        let r = s.selected[i];
        let x = v[r as usize];
        if lo <= x && x <= hi {
            s.selected[k] = r;
            s.group[k] = s.group[i];
            k += 1;
        }
    }
    s.selected.truncate(k);
    s.group.truncate(k);
}

/// One tile of the fact table into `sums`.
fn run_tile(plan: &Plan, fact: &Fact, t: usize, s: &mut Scratch, sums: &mut Sums) -> Result<()> {
    let n = fact.tile_len(t);
    s.loaded = [false; SLOTS];
    s.selected.clear();
    s.selected.extend(0..n as u16);
    s.group.clear();
    s.group.resize(n, 0);
    for (slot, range) in [
        (Slot::Quantity, plan.quantity),
        (Slot::Discount, plan.discount),
    ] {
        if let Some(range) = range {
            s.load(fact, slot, t, n)?;
            keep_range(s, slot, range);
        }
    }
    for join in &plan.joins {
        if s.selected.is_empty() {
            return Ok(());
        }
        s.load(fact, join.slot, t, n)?;
        let keys = &s.values[join.slot as usize];
        let mut k = 0;
        for i in 0..s.selected.len() {
            let r = s.selected[i];
            if let Some(code) = join.probe(keys[r as usize]) {
                s.selected[k] = r;
                s.group[k] = s.group[i] + code * join.stride;
                k += 1;
            }
        }
        s.selected.truncate(k);
        s.group.truncate(k);
    }
    if s.selected.is_empty() {
        return Ok(());
    }
    for &slot in plan.measure.slots() {
        s.load(fact, slot, t, n)?;
    }
    let v = &s.values;
    for (&r, &g) in s.selected.iter().zip(&s.group) {
        let r = r as usize;
        let m = plan.measure.of(
            v[Slot::ExtendedPrice as usize][r],
            v[Slot::Discount as usize][r],
            v[Slot::Revenue as usize][r],
            v[Slot::SupplyCost as usize][r],
        );
        let g = g as usize;
        if let (Some(sum), Some(count)) = (sums.sums.get_mut(g), sums.counts.get_mut(g)) {
            *sum = sum.wrapping_add(m);
            *count += 1;
        }
    }
    Ok(())
}

/// Runs `plan` over `fact`: per-group sums and counts.
pub(crate) fn run(plan: &Plan, fact: &Fact) -> Result<Sums> {
    let groups = plan.groups;
    (0..fact.tiles())
        .into_par_iter()
        .with_min_len(16)
        .try_fold(
            || (Sums::new(groups), Scratch::new()),
            |(mut sums, mut s), t| {
                run_tile(plan, fact, t, &mut s, &mut sums)?;
                Ok::<_, Error>((sums, s))
            },
        )
        .map(|r| r.map(|(sums, _)| sums))
        .try_reduce(|| Sums::new(groups), |a, b| Ok(a.merge(b)))
}
