//! Any bytes as a whole ORC file: `OrcFile::from_bytes`, every stripe, every column's encoding,
//! row index and decode (the whole-stripe decoder, the row-group planner and decoder, and
//! `read_batch`) must return, never panic, and never allocate more than the input can justify;
//! a decoded column has the footer's row count. Seeds: `corpus/orc_file/` (small real and
//! pyarrow-written files, 0.11 and 0.12, NONE and ZLIB), also run by `cargo test -p warpzip
//! --test orc_files fuzz_corpus`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpzip::orc::cpu::read_column_by_row_groups;
use warpzip::orc::OrcFile;
use warpzip::Device;

fuzz_target!(|data: &[u8]| {
    let Ok(file) = OrcFile::from_bytes(data.to_vec()) else {
        return;
    };
    for i in 0..file.stripe_count() {
        if let Ok(stripe) = file.stripe(i) {
            for c in file.columns() {
                let _ = stripe.encoding(c.id);
                let _ = stripe.row_index(data, file.compression(), c.id);
            }
        }
    }
    let rows = file.number_of_rows();
    for c in file.columns() {
        let whole = file.read_column(c);
        // The CPU row-group planner and decoder (what the GPU is checked against): each row
        // group from its row-index position. A column it decodes has the footer's row count.
        let by_groups = read_column_by_row_groups(&file, c);
        if let Ok(array) = &by_groups {
            assert_eq!(
                array.len() as u64,
                rows,
                "row-group decode of column {}",
                c.id
            );
        }
        if let Ok(array) = &whole {
            assert_eq!(array.len() as u64, rows, "stripe decode of column {}", c.id);
        }
    }
    let _ = file.read_batch(None, &Device::Cpu);
});
