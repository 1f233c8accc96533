//! Row groups: every supported column of every ORC file here (the pyarrow fixtures of
//! `tests/data/orc` and `testdata/orc`) decodes row group by row group, each group on its own
//! from the starts its row index gives, to exactly what the whole-stripe decode gives; damaged
//! positions are errors naming the stripe, column and row group, never panics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;
use common::as_i64s;

use arrow_array::Array;
use std::path::{Path, PathBuf};
use warpzip::orc::cpu::{
    decode_group, decode_plan, decode_plan_dense, decode_plan_dense_into, read_column_by_row_groups,
};
use warpzip::orc::plan::{
    plan_column, plan_column_with_index, plan_file_column, ColumnPlan, DataKind, StreamStart,
};
use warpzip::orc::proto::RowIndex;
use warpzip::orc::{CompressionKind, OrcFile, TypeKind};
use warpzip::Error;

fn fixture_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/orc"))
}

fn orc_files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "orc"))
        .collect();
    files.sort();
    files
}

/// The pyarrow fixtures and `testdata/orc` (less `zero.orc`, which is no ORC file at all).
fn all_files() -> Vec<PathBuf> {
    let fixtures = orc_files_in(&fixture_dir());
    assert!(fixtures.len() >= 8, "only {} fixtures", fixtures.len());
    let real = orc_files_in(&common::testdata().join("orc"));
    assert!(
        real.len() >= 10,
        "only {} ORC files in testdata/orc",
        real.len()
    );
    fixtures
        .into_iter()
        .chain(real)
        .filter(|p| p.file_name().unwrap() != "zero.orc")
        .collect()
}

fn open(path: &Path) -> OrcFile {
    OrcFile::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the row groups of the files exercised, so that a test can insist the interesting cases
/// were seen rather than trust that they were.
#[derive(Debug, Default)]
struct Coverage {
    columns: usize,
    groups: usize,
    /// Stripes with more than one row group.
    indexed_stripes: usize,
    /// Indexed stripes with a PRESENT stream, and without one.
    with_present: usize,
    without_present: usize,
    /// Groups starting inside a run: DATA values skipped, PRESENT bytes and bits skipped.
    data_skips: usize,
    present_byte_skips: usize,
    present_bit_skips: usize,
    /// Boolean DATA starting mid-byte.
    data_bit_skips: usize,
    /// Groups whose DATA starts past the first 64 KiB of a compressed stream, so in a later
    /// compression chunk (no chunk decompresses to more than the block size, 64 KiB or more).
    later_chunks: usize,
    /// Groups with no non-null value.
    all_null_groups: usize,
    kinds: Vec<DataKind>,
}

/// Decodes every supported column of `path` row group by row group and compares it with
/// `read_column`, the whole array and every group on its own.
fn check_file(path: &Path, coverage: &mut Coverage) {
    let name = path.display();
    let file = open(path);
    let compressed = file.compression().kind != CompressionKind::None;
    for column in file.columns().iter().filter(|c| c.is_supported()) {
        let whole = file
            .read_column(column)
            .unwrap_or_else(|e| panic!("{name} column {}: {e}", column.name));
        let by_groups = read_column_by_row_groups(&file, column)
            .unwrap_or_else(|e| panic!("{name} column {}: row groups: {e}", column.name));
        assert_eq!(
            whole.data_type(),
            by_groups.data_type(),
            "{name} column {}",
            column.name
        );
        assert!(
            whole.as_ref() == by_groups.as_ref(),
            "{name} column {}: the row-group decode differs",
            column.name
        );
        let rows = as_i64s(&whole);
        let plans = plan_file_column(&file, column).unwrap();
        let mut stripe_start = 0usize;
        for plan in &plans {
            if plan.groups.len() > 1 {
                coverage.indexed_stripes += 1;
                if plan.present.is_some() {
                    coverage.with_present += 1;
                } else {
                    coverage.without_present += 1;
                }
            }
            if !coverage.kinds.contains(&plan.kind) {
                coverage.kinds.push(plan.kind);
            }
            let mut next_row = 0u64;
            for (g, group) in plan.groups.iter().enumerate() {
                assert_eq!(group.first_row, next_row, "{name} stripe {}", plan.stripe);
                next_row += group.rows;
                let got = decode_group(plan, g)
                    .unwrap_or_else(|e| panic!("{name} column {} group {g}: {e}", column.name));
                let first = stripe_start + group.first_row as usize;
                assert_eq!(
                    got,
                    rows[first..first + group.rows as usize],
                    "{name} column {} stripe {} group {g}",
                    column.name,
                    plan.stripe
                );
                coverage.groups += 1;
                coverage.data_skips += usize::from(group.data.skip > 0);
                coverage.data_bit_skips += usize::from(group.data.bit_skip > 0);
                if let Some(p) = group.present {
                    coverage.present_byte_skips += usize::from(p.skip > 0);
                    coverage.present_bit_skips += usize::from(p.bit_skip > 0);
                }
                coverage.later_chunks += usize::from(compressed && group.data.byte >= 65536);
                coverage.all_null_groups += usize::from(got.iter().all(Option::is_none));
            }
            assert_eq!(next_row, plan.rows, "{name} stripe {}", plan.stripe);
            stripe_start += plan.rows as usize;
        }
        assert_eq!(stripe_start, rows.len(), "{name} column {}", column.name);
        coverage.columns += 1;
    }
}

#[test]
fn row_group_decode_equals_the_whole_stripe_decode_everywhere() {
    let mut coverage = Coverage::default();
    for path in all_files() {
        check_file(&path, &mut coverage);
    }
    eprintln!("{coverage:?}");
    assert!(coverage.columns >= 60, "{coverage:?}");
    assert!(coverage.indexed_stripes >= 100, "{coverage:?}");
    assert!(coverage.with_present > 0 && coverage.without_present > 0);
    assert!(coverage.data_skips > 0 && coverage.data_bit_skips > 0);
    assert!(coverage.present_byte_skips > 0 && coverage.present_bit_skips > 0);
    assert!(coverage.later_chunks > 0, "{coverage:?}");
    assert!(coverage.all_null_groups > 0, "{coverage:?}");
    assert_eq!(coverage.kinds.len(), 4, "{coverage:?}");
}

/// The row-group fixtures are what `make_fixtures.py` says: several stripes, row groups of
/// 1,000 or 1,100 rows, stripes ending mid group, starts in later compression chunks.
#[test]
fn row_group_fixtures_have_several_stripes_and_groups() {
    use CompressionKind::{None as Plain, Zlib};
    use DataKind::{IntV1, IntV2};
    for (name, version, kind, rle, stride) in [
        ("groups_v011_uncompressed.orc", "0.11", Plain, IntV1, 1000),
        ("groups_v011_zlib.orc", "0.11", Zlib, IntV1, 1000),
        ("groups_v012_uncompressed.orc", "0.12", Plain, IntV2, 1100),
        ("groups_v012_zlib.orc", "0.12", Zlib, IntV2, 1100),
    ] {
        let file = open(&fixture_dir().join(name));
        assert_eq!(file.tail().version(), version, "{name}");
        assert_eq!(file.compression().kind, kind, "{name}");
        assert_eq!(file.number_of_rows(), 25_000, "{name}");
        assert_eq!(file.tail().footer.row_index_stride, Some(stride), "{name}");
        assert!(file.stripe_count() >= 3, "{name}");
        let stride = u64::from(stride);
        let id = file.column("id").unwrap();
        let plans = plan_file_column(&file, id).unwrap();
        for plan in &plans {
            assert_eq!(plan.kind, rle, "{name}");
            assert_eq!(
                plan.groups.len() as u64,
                plan.rows.div_ceil(stride),
                "{name}"
            );
            let last = plan.groups.last().unwrap();
            assert!(plan.groups.iter().all(|g| g.rows == stride || g == last));
        }
        assert!(
            plans.iter().any(|p| p.rows % stride != 0),
            "{name}: ends mid group"
        );
        let ids = as_i64s(&read_column_by_row_groups(&file, id).unwrap());
        assert!(ids
            .iter()
            .enumerate()
            .all(|(i, v)| *v == Some(i as i64 + 1)));
        // Nulls only in the last stripe: the earlier ones have no PRESENT stream, and no
        // PRESENT positions in their row index.
        let late = plan_file_column(&file, file.column("late_nulls").unwrap()).unwrap();
        assert!(late[0].present.is_none() && late.last().unwrap().present.is_some());
        assert!(late.iter().all(|p| p.groups.len() > 1));
        if kind == Zlib {
            // DATA of more than one 64 KiB chunk, with groups starting in the second.
            let wide = plan_file_column(&file, file.column("wide").unwrap()).unwrap();
            assert!(wide.iter().any(|p| p.data.len() > 65536), "{name}");
            let later = wide
                .iter()
                .flat_map(|p| &p.groups)
                .filter(|g| g.data.byte > 65536)
                .count();
            assert!(later >= 2, "{name}: {later} groups start in a later chunk");
        }
    }
}

/// The sorted-key fixtures (`gpu_orc_files`' test of RLEv1 groups sized by varint lengths) are
/// what `make_fixtures.py` says, which that test relies on: RLE v1, 30,000 rows in row groups of
/// 10,000, `key` non-decreasing from 1,030,001 and passing 2^20 (its zigzag varints growing from
/// 3 to 4 bytes) inside row group 1, `spiky` keys below 2^20 but for one value of 3,000,000 at
/// rows 5,003, 15,003 and 25,003, and `dip` equal to `key` but for a 5 at row 15,003.
#[test]
fn sorted_key_fixtures_have_the_varint_lengths_the_gpu_test_needs() {
    for name in ["keys_v011_uncompressed.orc", "keys_v011_zlib.orc"] {
        let file = open(&fixture_dir().join(name));
        assert_eq!(file.tail().version(), "0.11", "{name}");
        assert_eq!(file.number_of_rows(), 30_000, "{name}");
        assert_eq!(file.tail().footer.row_index_stride, Some(10_000), "{name}");
        let column = |c: &str| {
            let col = file.column(c).unwrap();
            let plans = plan_file_column(&file, col).unwrap();
            assert!(
                plans.iter().all(|p| p.kind == DataKind::IntV1),
                "{name} {c}"
            );
            assert_eq!(plans.iter().map(|p| p.groups.len()).sum::<usize>(), 3);
            let values = as_i64s(&read_column_by_row_groups(&file, col).unwrap());
            values.into_iter().map(Option::unwrap).collect::<Vec<i64>>()
        };
        let (key, spiky, dip) = (column("key"), column("spiky"), column("dip"));
        assert_eq!(key[0], 1_030_001, "{name}");
        assert!(key.windows(2).all(|w| w[0] <= w[1]), "{name}: key sorted");
        let grows = key.iter().position(|&k| k >= 1 << 20).unwrap();
        assert!(
            (10_000..20_000).contains(&grows),
            "{name}: 4-byte varints from row {grows}"
        );
        for (i, &v) in spiky.iter().enumerate() {
            let spike = i % 10_000 == 5_003;
            assert_eq!(v == 3_000_000, spike, "{name}: spiky row {i}");
            assert!(spike || v < 1 << 20, "{name}: spiky row {i}");
        }
        for (i, (&d, &k)) in dip.iter().zip(&key).enumerate() {
            assert_eq!(d, if i == 15_003 { 5 } else { k }, "{name}: dip row {i}");
        }
    }
}

/// A fixture file, a stripe and a column, with the column's row index, ready to be damaged.
struct Subject {
    bytes: Vec<u8>,
    file: OrcFile,
    stripe: warpzip::orc::Stripe,
    column: warpzip::orc::OrcColumn,
    index: RowIndex,
}

fn subject(name: &str, column: &str, stripe: usize) -> Subject {
    let bytes = std::fs::read(fixture_dir().join(name)).unwrap();
    let file = OrcFile::from_bytes(bytes.clone()).unwrap();
    let stripe = file.stripe(stripe).unwrap();
    let column = file.column(column).unwrap().clone();
    let index = stripe
        .row_index(&bytes, file.compression(), column.id)
        .unwrap()
        .unwrap();
    Subject {
        bytes,
        file,
        stripe,
        column,
        index,
    }
}

impl Subject {
    fn plan(&self, index: &RowIndex) -> Result<ColumnPlan, Error> {
        plan_column_with_index(
            &self.bytes,
            self.file.compression(),
            &self.stripe,
            &self.column,
            self.file.tail().footer.row_index_stride,
            Some(index),
        )
    }

    /// Plans with position `i` of group `g` replaced by `value`: planning must fail, naming
    /// the stripe, column and row group.
    fn refuses(&self, g: usize, i: usize, value: u64, what: &str) {
        let mut index = self.index.clone();
        index.entry[g].positions[i] = value;
        match self.plan(&index) {
            Ok(_) => panic!("{what}: position {i} of group {g} = {value} was accepted"),
            Err(e) => {
                let msg = e.to_string();
                assert!(matches!(e, Error::CorruptOrc(_)), "{what}: {msg}");
                let names = [
                    format!("stripe {}", self.stripe.index),
                    format!("({})", self.column.name),
                    format!("row group {g}"),
                ];
                for n in names {
                    assert!(msg.contains(&n), "{what}: '{msg}' does not name {n}");
                }
            }
        }
    }
}

#[test]
fn the_row_index_is_what_plan_column_reads() {
    let s = subject("groups_v012_zlib.orc", "flag", 1);
    let stride = s.file.tail().footer.row_index_stride;
    let read = plan_column(&s.bytes, s.file.compression(), &s.stripe, &s.column, stride).unwrap();
    assert_eq!(read, s.plan(&s.index).unwrap());
    // Without a stride (or a row index) the stripe is one group from the streams' starts.
    for plan in [
        plan_column(&s.bytes, s.file.compression(), &s.stripe, &s.column, None).unwrap(),
        plan_column(
            &s.bytes,
            s.file.compression(),
            &s.stripe,
            &s.column,
            Some(0),
        )
        .unwrap(),
        plan_column_with_index(
            &s.bytes,
            s.file.compression(),
            &s.stripe,
            &s.column,
            stride,
            None,
        )
        .unwrap(),
    ] {
        assert_eq!(plan.groups.len(), 1);
        assert_eq!(plan.groups[0].rows, s.stripe.rows());
        assert_eq!(plan.groups[0].data, StreamStart::default());
        assert_eq!(plan.groups[0].present, Some(StreamStart::default()));
        assert_eq!(decode_plan(&plan).unwrap(), decode_plan(&read).unwrap());
    }
}

#[test]
fn damaged_positions_are_errors_naming_the_group() {
    // Compressed: PRESENT (chunk, offset, bytes, bits), then DATA (chunk, offset, values).
    let s = subject("groups_v012_zlib.orc", "wide", 1);
    assert_eq!(s.index.entry[3].positions.len(), 7);
    let chunk = s.index.entry[3].positions[3 + 1];
    s.refuses(3, 0, 1, "a PRESENT chunk offset that is no chunk start");
    s.refuses(3, 1, 1 << 20, "a PRESENT offset past its chunk");
    s.refuses(3, 2, 130, "a PRESENT byte skip as long as a run");
    s.refuses(3, 3, 8, "a PRESENT bit skip of 8");
    s.refuses(3, 4, chunk + 1, "a DATA chunk offset inside a chunk");
    s.refuses(3, 4, u64::MAX, "a DATA chunk offset past the stream");
    s.refuses(3, 5, 70_000, "a DATA offset past its chunk");
    s.refuses(3, 6, 512, "a DATA skip as long as an RLE v2 group");
    // Uncompressed boolean DATA: (byte, bytes, bits) for PRESENT and for DATA.
    let s = subject("groups_v011_uncompressed.orc", "flag", 0);
    assert_eq!(s.index.entry[2].positions.len(), 6);
    s.refuses(2, 0, 1 << 30, "a PRESENT byte past the stream");
    s.refuses(2, 3, s.stripe.rows(), "a DATA byte past the stream");
    s.refuses(2, 5, 9, "a DATA bit skip of 9");
    // Integer RLE v1 runs hold at most 130 values.
    let s = subject("groups_v011_uncompressed.orc", "small", 0);
    assert_eq!(s.index.entry[1].positions.len(), 5);
    s.refuses(1, 4, 130, "a DATA skip as long as an RLE v1 run");

    // Too many or too few positions, too many or too few entries.
    let s = subject("groups_v011_zlib.orc", "id", 2);
    let mut index = s.index.clone();
    index.entry[1].positions.push(0);
    let e = s.plan(&index).unwrap_err().to_string();
    assert!(e.contains("row group 1") && e.contains("positions"), "{e}");
    index.entry[1].positions.truncate(1);
    assert!(s.plan(&index).is_err());
    let mut index = s.index.clone();
    index.entry.pop();
    let e = s.plan(&index).unwrap_err().to_string();
    assert!(
        e.contains("stripe 2") && e.contains("(id)") && e.contains("entries"),
        "{e}"
    );
    index.entry.push(index.entry[0].clone());
    index.entry.push(index.entry[0].clone());
    assert!(s.plan(&index).is_err());
}

#[test]
fn damaged_plans_are_errors_when_decoded() {
    let s = subject("groups_v012_uncompressed.orc", "small", 0);
    let good = s.plan(&s.index).unwrap();
    let try_group = |edit: &dyn Fn(&mut ColumnPlan)| {
        let mut plan = good.clone();
        edit(&mut plan);
        decode_group(&plan, 2)
    };
    let far = StreamStart {
        byte: u64::MAX,
        skip: 0,
        bit_skip: 0,
    };
    assert!(try_group(&|p| p.groups[2].data = far).is_err());
    assert!(try_group(&|p| p.groups[2].present = Some(far)).is_err());
    assert!(try_group(&|p| p.groups[2].present = None).is_err());
    assert!(try_group(&|p| p.present = None).is_err());
    assert!(try_group(&|p| p.groups[2].rows = u64::MAX).is_err());
    assert!(try_group(&|p| p.groups[2].rows = 1 << 40).is_err());
    assert!(try_group(&|p| p.groups[2].data.skip = u64::MAX).is_err());
    assert!(try_group(&|p| p.groups[2].present.as_mut().unwrap().bit_skip = 8).is_err());
    assert!(try_group(&|p| p.data.truncate(p.groups[2].data.byte as usize + 3)).is_err());
    let e = try_group(&|p| p.data.truncate(p.groups[2].data.byte as usize + 3))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("stripe 0") && e.contains("(small)") && e.contains("row group 2"),
        "{e}"
    );
    assert!(decode_group(&good, good.groups.len()).is_err());
    // The last group of a column without nulls reads DATA to its end; one more row runs out.
    let s = subject("groups_v012_uncompressed.orc", "id", 0);
    let mut plan = s.plan(&s.index).unwrap();
    assert!(plan.present.is_none());
    let last = plan.groups.len() - 1;
    decode_group(&plan, last).unwrap();
    plan.groups[last].rows += 1;
    let e = decode_group(&plan, last).unwrap_err().to_string();
    assert!(e.contains("ends before"), "{e}");
    // A value outside the column's type is corruption, as in the whole-stripe decode.
    let s = subject("groups_v012_uncompressed.orc", "big", 0);
    let mut plan = s.plan(&s.index).unwrap();
    plan.column = s.file.column("id").unwrap().clone();
    let too_wide = (0..plan.groups.len())
        .filter_map(|g| decode_group(&plan, g).err())
        .map(|e| e.to_string())
        .filter(|e| e.contains("does not fit type int"))
        .count();
    assert!(too_wide > 0);
}

/// Flips bits of the ROW_INDEX streams (and of the positions they hold) of fixture files: the
/// plan and the decode may fail, never panic.
#[test]
fn bit_flipped_row_indexes_never_panic() {
    for name in ["groups_v011_uncompressed.orc", "groups_v012_zlib.orc"] {
        let bytes = std::fs::read(fixture_dir().join(name)).unwrap();
        let file = OrcFile::from_bytes(bytes.clone()).unwrap();
        let stripe = file.stripe(1).unwrap();
        for column_name in ["flag", "tiny", "big"] {
            let column = file.column(column_name).unwrap();
            let stream = *stripe
                .stream(column.id, warpzip::orc::StreamKind::RowIndex)
                .unwrap();
            let mut errors = 0;
            for at in stream.offset..stream.offset + stream.length {
                let mut damaged = bytes.clone();
                damaged[at as usize] ^= 1 << (at % 8);
                let Ok(damaged_file) = OrcFile::from_bytes(damaged.clone()) else {
                    continue;
                };
                let Ok(s) = damaged_file.stripe(1) else {
                    continue;
                };
                let stride = damaged_file.tail().footer.row_index_stride;
                match plan_column(&damaged, file.compression(), &s, column, stride) {
                    Ok(plan) => errors += usize::from(decode_plan(&plan).is_err()),
                    Err(e) => {
                        assert!(!e.to_string().is_empty());
                        errors += 1;
                    }
                }
            }
            assert!(errors > 0, "{name} {column_name}: no flip was noticed");
        }
    }
}

/// `decode_plan_dense` of `plan` with the value type of its column, as `decode_plan` gives it:
/// one `Option<i64>` per row (`None` where the row is not valid), or the error's text.
fn dense_rows(plan: &ColumnPlan) -> Result<Vec<Option<i64>>, String> {
    fn rows<T: warpzip::codec::orc_rle::OrcInt>(
        plan: &ColumnPlan,
        widen: fn(T) -> i64,
    ) -> Result<Vec<Option<i64>>, String> {
        let d = decode_plan_dense::<T>(plan).map_err(|e| e.to_string())?;
        Ok(match &d.valid {
            Some(valid) => d
                .values
                .iter()
                .zip(valid)
                .map(|(&v, &ok)| {
                    assert!(ok || widen(v) == 0, "a null row holds {}", widen(v));
                    ok.then(|| widen(v))
                })
                .collect(),
            None => d.values.iter().map(|&v| Some(widen(v))).collect(),
        })
    }
    match plan.column.kind {
        TypeKind::Short => rows::<i16>(plan, i64::from),
        TypeKind::Int | TypeKind::Date => rows::<i32>(plan, i64::from),
        _ => rows::<i64>(plan, |v| v),
    }
}

/// The dense row-group decode (typed values and validity flags, what the bench's CPU row
/// times) gives exactly what the per-row decode gives, on every integer column of every file.
#[test]
fn dense_row_group_decode_equals_the_per_row_decode_everywhere() {
    let mut plans = 0usize;
    for path in all_files() {
        let file = open(&path);
        for column in file.columns().iter().filter(|c| c.is_supported()) {
            for plan in plan_file_column(&file, column).unwrap() {
                if !matches!(plan.kind, DataKind::IntV1 | DataKind::IntV2) {
                    assert!(decode_plan_dense::<i64>(&plan).is_err());
                    continue;
                }
                let want = decode_plan(&plan)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", path.display(), column.name));
                let got = dense_rows(&plan)
                    .unwrap_or_else(|e| panic!("{} {}: {e}", path.display(), column.name));
                assert!(got == want, "{} column {}", path.display(), column.name);
                plans += 1;
            }
        }
    }
    assert!(plans >= 40, "only {plans} integer plans");
}

/// Damaged DATA and PRESENT bytes and positions: the dense decode fails exactly where the
/// per-row decode fails, naming the row group, and otherwise gives the same rows.
#[test]
fn damaged_plans_fail_alike_in_the_dense_decode() {
    let mut failures = 0usize;
    let mut seed = 0x5eed_u64;
    let mut next = move |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n.max(1)
    };
    for (name, column) in [
        ("groups_v011_zlib.orc", "small"),
        ("groups_v012_uncompressed.orc", "small"),
        ("groups_v012_uncompressed.orc", "id"),
        ("groups_v012_uncompressed.orc", "big"),
    ] {
        let s = subject(name, column, 0);
        let good = s.plan(&s.index).unwrap();
        for round in 0..200 {
            let mut plan = good.clone();
            match round % 4 {
                0 if !plan.data.is_empty() => {
                    let i = next(plan.data.len());
                    plan.data[i] ^= 1 << next(8);
                }
                1 if !plan.data.is_empty() => {
                    let keep = next(plan.data.len());
                    plan.data.truncate(keep);
                }
                2 => {
                    if let Some(p) = plan.present.as_mut().filter(|p| !p.is_empty()) {
                        let i = next(p.len());
                        p[i] ^= 1 << next(8);
                    }
                }
                _ => {
                    let g = next(plan.groups.len());
                    plan.groups[g].data.skip += next(3) as u64;
                }
            }
            let want = decode_plan(&plan).map_err(|e| e.to_string());
            let got = dense_rows(&plan);
            match (&want, &got) {
                (Ok(a), Ok(b)) => assert!(a == b, "{name} {column} round {round}"),
                (Err(_), Err(e)) => {
                    assert!(e.contains("row group") || e.contains("rows"), "{e}");
                    failures += 1;
                }
                _ => panic!("{name} {column} round {round}: {want:?} against {got:?}"),
            }
        }
    }
    assert!(failures > 50, "only {failures} damaged plans failed");
}

/// The dense decode into the caller's buffers: reused buffers give the same rows again, and
/// buffers of the wrong length (or flags where the stripe has no PRESENT stream, or none where
/// it has one) are refused before anything is decoded.
#[test]
fn dense_decode_into_reuses_buffers_and_checks_their_lengths() {
    let s = subject("groups_v012_uncompressed.orc", "small", 0);
    let plan = s.plan(&s.index).unwrap();
    assert!(plan.present.is_some());
    let want = dense_rows(&plan).unwrap();
    let rows = plan.rows as usize;
    let mut values = vec![7i64; rows];
    let mut valid = vec![true; rows];
    for _ in 0..2 {
        decode_plan_dense_into(&plan, &mut values, Some(&mut valid)).unwrap();
        let got: Vec<Option<i64>> = values
            .iter()
            .zip(&valid)
            .map(|(&v, &ok)| ok.then_some(v))
            .collect();
        assert_eq!(got, want);
    }
    let mut short = vec![0i64; rows - 1];
    let mut short_flags = vec![false; rows - 1];
    assert!(decode_plan_dense_into(&plan, &mut short, Some(&mut valid)).is_err());
    assert!(decode_plan_dense_into(&plan, &mut values, Some(&mut short_flags)).is_err());
    let e = decode_plan_dense_into(&plan, &mut values, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("PRESENT"), "{e}");
    let s = subject("groups_v012_uncompressed.orc", "id", 0);
    let plan = s.plan(&s.index).unwrap();
    assert!(plan.present.is_none());
    let mut values = vec![0i64; plan.rows as usize];
    let mut flags = vec![false; plan.rows as usize];
    assert!(decode_plan_dense_into(&plan, &mut values, Some(&mut flags)).is_err());
    decode_plan_dense_into(&plan, &mut values, None).unwrap();
}
