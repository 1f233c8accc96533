//! ORC files whose footers lie: a stripe listed many times over, a stripe past the data area,
//! row counts that do not add up, and a claim of billions of rows in a few kilobytes. Each is
//! refused with an error naming the stripe or the file, or decoded with bounded memory; none
//! aborts.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use warpzip::orc::OrcFile;
use warpzip::{Device, Error};

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::{peak_during, Counting};

#[path = "common/lying_files.rs"]
mod lying_files;

use lying_files::with_footer;

#[global_allocator]
static GLOBAL: Counting = Counting;

/// An uncompressed ORC file written by pyarrow (file version 0.12, integer columns).
fn original() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/orc/groups_v012_uncompressed.orc"
    ))
    .unwrap()
}

/// The ORC error's text, or a failure naming what came instead.
fn orc_error(result: Result<OrcFile, Error>) -> String {
    match result {
        Err(e @ Error::CorruptOrc(_)) => e.to_string(),
        Err(other) => panic!("expected a corrupt ORC file, got {other}"),
        Ok(_) => panic!("expected a corrupt ORC file, it opened"),
    }
}

#[test]
fn the_fixture_opens_and_reads_unedited() {
    let file = with_footer(&original(), |_| {});
    let orc = OrcFile::from_bytes(file).unwrap();
    let batch = orc.read_batch(None, &Device::Cpu).unwrap();
    assert_eq!(batch.num_rows() as u64, orc.number_of_rows());
}

#[test]
fn one_stripe_listed_fifty_times_is_refused() {
    let file = with_footer(&original(), |f| {
        let first = f.stripes[0].clone();
        f.stripes = vec![first.clone(); 50];
        f.number_of_rows = Some(first.number_of_rows.unwrap() * 50);
    });
    let message = orc_error(OrcFile::from_bytes(file));
    assert!(
        message.contains("stripe 1") && message.contains("disjoint"),
        "{message}"
    );
}

#[test]
fn a_stripe_past_the_data_area_is_refused() {
    let file = with_footer(&original(), |f| {
        let last = f.stripes.last_mut().unwrap();
        last.data_length = Some(last.data_length.unwrap() + 1_000_000);
    });
    let message = orc_error(OrcFile::from_bytes(file));
    assert!(message.contains("past the data area"), "{message}");
}

#[test]
fn row_counts_that_do_not_add_up_are_refused() {
    let file = with_footer(&original(), |f| {
        f.number_of_rows = Some(f.number_of_rows.unwrap() + 1);
    });
    let message = orc_error(OrcFile::from_bytes(file));
    assert!(message.contains("its stripes hold"), "{message}");
}

#[test]
fn billions_of_claimed_rows_decode_to_an_error_in_bounded_memory() {
    // Every stripe and the footer claim 2^32 rows more than the streams hold: consistent
    // counts, lying streams.
    let file = with_footer(&original(), |f| {
        for s in &mut f.stripes {
            s.number_of_rows = Some(s.number_of_rows.unwrap() + (1 << 32));
        }
        let rows: u64 = f.stripes.iter().map(|s| s.number_of_rows.unwrap()).sum();
        f.number_of_rows = Some(rows);
    });
    let len = file.len();
    let orc = OrcFile::from_bytes(file).unwrap();
    let (result, peak) = peak_during(|| orc.read_batch(None, &Device::Cpu));
    assert!(
        matches!(result, Err(Error::CorruptOrc(_))),
        "{:?}",
        result.map(|b| b.num_rows())
    );
    assert!(
        peak < 1100 * len + (64 << 20),
        "{peak} bytes allocated for a {len}-byte file"
    );
}
