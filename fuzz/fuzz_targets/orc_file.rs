//! Any bytes as a whole ORC file: `OrcFile::from_bytes`, every stripe, every column's encoding,
//! row index and decode must return, never panic, and never allocate more than the input can
//! justify. Seeds: `corpus/orc_file/` (small real and pyarrow-written files, 0.11 and 0.12,
//! NONE and ZLIB), also run by `cargo test -p warpzip --test orc_files fuzz_corpus`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpzip::orc::OrcFile;

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
    for c in file.columns() {
        let _ = file.read_column(c);
    }
});
