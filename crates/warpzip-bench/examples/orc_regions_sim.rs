//! A CPU model of the ORC block kernel's thread regions (`kernels/orc/orc_rg_*.cuh`, steps 1-4
//! of `rg_threads`), run on a file's row groups, for choosing what to try on the GPU. The
//! regions lie over `data_starts` (up to the next row group's position), the last thread
//! walking on to the groups past it that hold the row group's last values. Per column it
//! prints averages over the row groups:
//!
//! - the exit tables' walk steps (most of any thread, mean per thread, and the sum over the 4
//!   warps of their slowest thread's: the cost of a flat loop over the tables);
//! - the serial chain (thread 0 through the 128 tables): regions it must walk itself because
//!   the entry lies past the table ("far") or the table does not know it, and their steps;
//!   and the row groups whose chain, so found, falls short of their last value;
//! - whether warp 0's composition of the tables (a variant measured and not kept) gives the
//!   serial chain's entries;
//! - the rounds of exits (a variant measured and not kept) a row group needs to settle, and the regions whose
//!   exit depends on their entry;
//! - for RLEv2, step 4's balance: rounds per warp, groups per lane, values of DELTA groups of
//!   bit-packed steps.
//!
//! `cargo run --release -p warpzip-bench --example orc_regions_sim -- FILE [ENTRIES [STEPS]]`
//! (defaults 15 and 64, the kernel's RG_ENTRIES and RG_TABLE_STEPS).
use std::path::Path;
use warpzip::codec::orc_rle::int_rle_v2::{closest_fixed_width, decode_width};
use warpzip::orc::gpu::PreparedColumn;
use warpzip::orc::plan::plan_file_column;
use warpzip::orc::OrcFile;
use warpzip::{Error, Result};

/// Threads (regions) of a block, and the lanes of a warp.
const THREADS: usize = 128;
const LANES: usize = 32;
/// Most tabled entries this model takes.
const MAX_ENTRIES: usize = 16;
/// Exit sentinels: the walk gave up (unknown), or the chain broke.
const UNKNOWN: usize = usize::MAX - 1;
const BROKEN: usize = usize::MAX;

fn skip_varint(s: &[u8], q: &mut usize, end: usize) -> bool {
    for _ in 0..10 {
        if *q >= end {
            return false;
        }
        let b = s[*q];
        *q += 1;
        if b < 0x80 {
            return true;
        }
    }
    false
}

/// The RLE group at `p`: (bytes, values); bytes 0 where it is not valid or runs past `end`
/// (`rg_extent`).
fn extent(v1: bool, s: &[u8], p: usize, end: usize) -> (usize, usize) {
    let h = u32::from(s[p]);
    let (bytes, values) = if v1 {
        let (mut q, n, values) = if h < 0x80 {
            (p + 2, 1, h + 3)
        } else {
            (p + 1, 256 - h, 256 - h)
        };
        for _ in 0..n {
            if !skip_varint(s, &mut q, end) {
                return (0, 0);
            }
        }
        (q - p, values as usize)
    } else if h >> 6 == 0 {
        (2 + ((h >> 3) & 7) as usize, ((h & 7) + 3) as usize)
    } else {
        if end - p < 2 {
            return (0, 0);
        }
        let len = (((h & 1) << 8) | u32::from(s[p + 1])) + 1;
        let packed = |w: u32, n: u32| ((w * n).div_ceil(8)) as usize;
        let bytes = match h >> 6 {
            1 => 2 + packed(decode_width((h >> 1) as u8), len),
            2 => {
                if end - p < 4 {
                    return (0, 0);
                }
                let (b2, b3) = (u32::from(s[p + 2]), u32::from(s[p + 3]));
                let patch = decode_width(b2 as u8);
                let gap = (b3 >> 5) + 1;
                if gap + patch > 64 {
                    return (0, 0);
                }
                4 + (b2 >> 5) as usize
                    + 1
                    + packed(decode_width((h >> 1) as u8), len)
                    + packed(closest_fixed_width(gap + patch), b3 & 31)
            }
            _ => {
                let mut q = p + 2;
                if !skip_varint(s, &mut q, end) || !skip_varint(s, &mut q, end) {
                    return (0, 0);
                }
                let code = (h >> 1) & 31;
                let w = if code == 0 {
                    0
                } else {
                    decode_width(code as u8)
                };
                q - p + packed(w, len.saturating_sub(2))
            }
        };
        (bytes, len as usize)
    };
    if bytes > end - p {
        (0, 0)
    } else {
        (bytes, values)
    }
}

/// One staged row group as the regions see it.
struct RowGroup<'a> {
    st: &'a [u8],
    /// The bytes where the row group's RLE groups start (`data_starts`): the regions' span.
    reach: usize,
    v1: bool,
    size: usize,
    entries: usize,
    /// exits[t][j]: where the chain entering region t at its byte j leaves it.
    exits: Vec<[usize; MAX_ENTRIES]>,
    /// Walk steps of each thread's tables.
    steps: Vec<usize>,
}

impl<'a> RowGroup<'a> {
    fn bounds(&self, r: usize) -> (usize, usize) {
        let r0 = (r * self.size).min(self.reach);
        (r0, (r0 + self.size).min(self.reach))
    }

    /// Step 1: each thread's exit table, walks stopping at bytes earlier walks marked.
    fn new(st: &'a [u8], reach: usize, v1: bool, entries: usize, step_limit: usize) -> Self {
        let end = st.len();
        let size = reach.div_ceil(THREADS).max(1);
        let mut rg = RowGroup {
            st,
            reach,
            v1,
            size,
            entries,
            exits: vec![[UNKNOWN; MAX_ENTRIES]; THREADS],
            steps: vec![0; THREADS],
        };
        let mut marks = vec![0u8; end + 1];
        for t in 0..THREADS {
            let (s0, s1) = rg.bounds(t);
            for j in 0..entries {
                let (mut x, mut k) = (s0 + j, 0);
                let exit = loop {
                    if x >= s1 {
                        break x;
                    }
                    if marks[x] != 0 {
                        break rg.exits[t][usize::from(marks[x]) - 1];
                    }
                    if j > 0 && k == step_limit {
                        break UNKNOWN;
                    }
                    let (b, _) = extent(v1, st, x, end);
                    rg.steps[t] += 1;
                    if b == 0 {
                        break BROKEN;
                    }
                    marks[x] = j as u8 + 1;
                    x += b;
                    k += 1;
                };
                rg.exits[t][j] = exit;
            }
        }
        rg
    }

    /// The table's exit for entry `x` of region `r`; None where it needs a walk.
    fn by_table(&self, r: usize, x: usize) -> Option<usize> {
        let (r0, r1) = self.bounds(r);
        if x == BROKEN || x >= r1 {
            return Some(x);
        }
        let e = if x - r0 < self.entries {
            self.exits[r][x - r0]
        } else {
            UNKNOWN
        };
        (e != UNKNOWN).then_some(e)
    }

    /// `rg_region_exit`: by the table, else walking (the steps counted in `walked`).
    fn exit(&self, r: usize, x: usize, walked: &mut usize) -> usize {
        if let Some(e) = self.by_table(r, x) {
            return e;
        }
        let (_, r1) = self.bounds(r);
        let mut x = x;
        while x < r1 {
            let (b, _) = extent(self.v1, self.st, x, self.st.len());
            *walked += 1;
            if b == 0 {
                return BROKEN;
            }
            x += b;
        }
        x
    }

    /// Step 2 by one thread: each region's entry, and (regions walked, walk steps).
    fn serial_entries(&self) -> (Vec<usize>, usize, usize) {
        let (mut x, mut walked, mut misses) = (0, 0, 0);
        let mut entries = vec![0; THREADS];
        for (r, entry) in entries.iter_mut().enumerate() {
            *entry = x;
            if self.by_table(r, x).is_none() {
                misses += 1;
            }
            x = self.exit(r, x, &mut walked);
        }
        (entries, misses, walked)
    }

    /// Step 3 from the entries: whether the regions' values, with the last thread walking on
    /// past `reach` to the groups that hold the row group's last values, reach `target`.
    fn reaches(&self, entries: &[usize], target: u64) -> bool {
        let mut before = 0u64;
        for (t, &entry) in entries.iter().enumerate() {
            let (_, s1) = self.bounds(t);
            let last = t == THREADS - 1;
            let (mut p, mut count, mut broken) = (entry, 0u64, false);
            while p != BROKEN && (p < s1 || (last && before + count < target)) {
                let (b, values) = extent(self.v1, self.st, p, self.st.len());
                if b == 0 {
                    broken = true;
                    break;
                }
                count += values as u64;
                p += b;
            }
            if (broken || last) && before + count < target {
                return false;
            }
            before += count;
        }
        true
    }

    /// Step 2 by warp 0's composition: lane l composes regions l * per.. for each entry.
    fn composed_entries(&self) -> Vec<usize> {
        let per = THREADS / LANES;
        let mut walked = 0;
        let mut comp = vec![[0usize; MAX_ENTRIES]; LANES];
        for (l, c) in comp.iter_mut().enumerate() {
            let (b0, _) = self.bounds(per * l);
            for (j, slot) in c.iter_mut().enumerate().take(self.entries) {
                let mut y = b0 + j;
                for r in per * l..per * (l + 1) {
                    y = self.exit(r, y, &mut walked);
                }
                *slot = y;
            }
        }
        let mut starts = vec![0; LANES];
        let mut y = 0;
        for (m, start) in starts.iter_mut().enumerate() {
            *start = y;
            let (b, _) = self.bounds(per * m);
            if y != BROKEN && y - b < self.entries {
                y = comp[m][y - b];
            } else {
                for r in per * m..per * (m + 1) {
                    y = self.exit(r, y, &mut walked);
                }
            }
        }
        let mut entries = vec![0; THREADS];
        for (l, &start) in starts.iter().enumerate() {
            let mut y = start;
            for (r, entry) in entries.iter_mut().enumerate().skip(per * l).take(per) {
                *entry = y;
                y = self.exit(r, y, &mut walked);
            }
        }
        entries
    }

    /// Rounds of exits until no entry changes (at most `limit`).
    fn rounds_to_settle(&self, limit: usize) -> usize {
        let mut walked = 0;
        let mut xs: Vec<usize> = (0..THREADS).map(|t| self.bounds(t).0).collect();
        let mut ex: Vec<usize> = (0..THREADS)
            .map(|t| self.exit(t, xs[t], &mut walked))
            .collect();
        for round in 1..=limit {
            let next: Vec<usize> = (0..THREADS)
                .map(|t| if t == 0 { 0 } else { ex[t - 1] })
                .collect();
            if next == xs {
                return round;
            }
            xs = next;
            ex = (0..THREADS)
                .map(|t| self.exit(t, xs[t], &mut walked))
                .collect();
        }
        limit
    }

    /// Regions whose known exits differ between entries.
    fn entry_dependent(&self) -> usize {
        (0..THREADS)
            .filter(|&t| {
                let known: Vec<usize> = self.exits[t][..self.entries]
                    .iter()
                    .copied()
                    .filter(|&e| e != UNKNOWN)
                    .collect();
                known.iter().any(|&e| Some(&e) != known.first())
            })
            .count()
    }

    /// Step 4 of RLEv2: (rounds per warp, groups per lane, DELTA-steps values, most in a warp).
    fn step4(&self) -> (f64, f64, usize, usize) {
        let warps = THREADS / LANES;
        let mut groups = vec![0usize; THREADS];
        let mut delta = vec![0usize; warps];
        let mut x = 0;
        while x < self.reach {
            let (b, values) = extent(self.v1, self.st, x, self.st.len());
            if b == 0 {
                break;
            }
            let r = (x / self.size).min(THREADS - 1);
            groups[r] += 1;
            let h = self.st[x];
            if h >> 6 == 3 && (h >> 1) & 31 != 0 {
                delta[r / LANES] += values;
            }
            x += b;
        }
        let rounds: usize = groups
            .chunks(LANES)
            .map(|w| w.iter().copied().max().unwrap_or(0))
            .sum();
        (
            rounds as f64 / warps as f64,
            groups.iter().sum::<usize>() as f64 / THREADS as f64,
            delta.iter().sum(),
            delta.iter().copied().max().unwrap_or(0),
        )
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let usage = || Error::InvalidArgument("usage: orc_regions_sim FILE [ENTRIES [STEPS]]".into());
    let path = args.get(1).ok_or_else(usage)?;
    let number = |i: usize, default: usize| -> Result<usize> {
        args.get(i)
            .map_or(Ok(default), |a| a.parse().map_err(|_| usage()))
    };
    let entries = number(2, 15)?.clamp(1, MAX_ENTRIES);
    let step_limit = number(3, 64)?;
    let file = OrcFile::open(Path::new(path))?;
    for column in file.columns().iter().filter(|c| c.is_supported()) {
        let prepared = PreparedColumn::new(column, &plan_file_column(&file, column)?)?;
        let mut n = 0usize;
        let mut sums = [0f64; 12];
        let mut unlike = 0usize;
        let mut short = 0usize;
        for (kernel, groups) in &prepared.batches {
            let v1 = kernel.contains("v1");
            for g in groups {
                let span = g.data_span.min(g.data_len) as usize;
                let start = g.data_offset as usize;
                let Some(st) = prepared.input.get(start..start + span) else {
                    continue;
                };
                let reach = (g.data_starts as usize).min(span);
                let rg = RowGroup::new(st, reach, v1, entries, step_limit);
                let (serial, misses, walked) = rg.serial_entries();
                if !rg.reaches(&serial, g.data_skip as u64 + g.rows as u64) {
                    short += 1;
                }
                if rg.composed_entries() != serial {
                    unlike += 1;
                }
                let warp_max: usize = rg
                    .steps
                    .chunks(LANES)
                    .map(|w| w.iter().copied().max().unwrap_or(0))
                    .sum();
                let (rounds, lanes, delta, delta_max) =
                    if v1 { (0.0, 0.0, 0, 0) } else { rg.step4() };
                let row = [
                    rg.steps.iter().copied().max().unwrap_or(0) as f64,
                    rg.steps.iter().sum::<usize>() as f64 / THREADS as f64,
                    warp_max as f64,
                    misses as f64,
                    walked as f64,
                    rg.rounds_to_settle(THREADS) as f64,
                    rg.entry_dependent() as f64,
                    rounds,
                    lanes,
                    delta as f64,
                    delta_max as f64,
                    0.0,
                ];
                for (s, v) in sums.iter_mut().zip(row) {
                    *s += v;
                }
                n += 1;
            }
        }
        let a: Vec<f64> = sums.iter().map(|s| s / n.max(1) as f64).collect();
        println!(
            "{} ({n} row groups, {entries} entries, {step_limit} steps):",
            column.name
        );
        println!(
            "  tables: walk steps most {:.0}, mean {:.0} a thread; warps' slowest summed {:.0}",
            a[0], a[1], a[2]
        );
        println!(
            "  serial chain: {:.1} regions walked, {:.0} steps; composition unlike it in {unlike} row groups, short of the last value in {short}",
            a[3], a[4]
        );
        println!(
            "  rounds to settle {:.1}; regions whose exit depends on the entry {:.1}",
            a[5], a[6]
        );
        if a[8] > 0.0 {
            println!(
                "  step 4: rounds a warp {:.1}, groups a lane {:.1}; DELTA-steps values {:.1} (most in a warp {:.1})",
                a[7], a[8], a[9], a[10]
            );
        }
    }
    Ok(())
}
