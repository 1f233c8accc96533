//! Allocations the memory cannot hold: legal files whose claims exceed what the allocator will
//! give decode to `Error::OutOfMemory` naming what was asked, never to an abort. The allocator
//! of this test binary refuses every single allocation above a limit, as a process under a
//! memory limit would.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use warpzip::format::ElemType;
use warpzip::orc::OrcFile;
use warpzip::{api, codec, CodecId, Device, Error};

#[path = "common/lying_files.rs"]
mod lying_files;

/// The system allocator, refusing any one allocation larger than `LIMIT` bytes.
struct Limited;

static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

// SAFETY: every call is forwarded to the system allocator unchanged, or refused with a null
// pointer, which `GlobalAlloc` allows.
unsafe impl GlobalAlloc for Limited {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT.load(Ordering::Relaxed) {
            return std::ptr::null_mut();
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`, with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Limited = Limited;

/// Tests in this file change the limit one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

/// Runs `f` with single allocations above `limit` bytes refused.
fn limited<T>(limit: usize, f: impl FnOnce() -> T) -> T {
    LIMIT.store(limit, Ordering::Relaxed);
    let out = f();
    LIMIT.store(usize::MAX, Ordering::Relaxed);
    out
}

/// The fewest compressed bytes from which `codec` may legally claim `claim` bytes.
fn legal_len(codec: CodecId, claim: u64, elem: ElemType) -> usize {
    let c = codec::codec(codec).unwrap();
    let (mut lo, mut hi) = (1u64, claim);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if c.max_decoded_len(mid, elem) >= claim {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo as usize
}

#[test]
fn a_legal_claim_above_the_memory_limit_is_out_of_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for &codec in CodecId::ALL {
        let elem = match codec {
            CodecId::OrcRleV1 | CodecId::OrcRleV2 => ElemType::I64,
            _ => ElemType::Bytes,
        };
        // 40 chunks of 64 MiB (2.5 GiB), each with as many compressed bytes as the codec's
        // densest encoding needs for it: every claim passes the decoder's checks.
        let chunk = 64u32 << 20;
        let per_chunk = legal_len(codec, u64::from(chunk), elem);
        let file = lying_files::lying_container(codec, chunk, 40, per_chunk, 0);
        let total = 40 * u64::from(chunk);
        for result in [
            limited(1 << 30, || api::decompress(&file, &Device::cpu())),
            limited(1 << 30, || {
                api::decompress_any(&file, &Device::cpu()).map(|d| d.data)
            }),
        ] {
            match result {
                Err(Error::OutOfMemory { what, bytes }) => {
                    assert_eq!(what, "the decompressed output", "{codec}");
                    assert_eq!(bytes, total, "{codec}");
                }
                other => panic!(
                    "{codec}: expected OutOfMemory, got {:?}",
                    other.map(|v| v.len())
                ),
            }
        }
        let message = limited(1 << 30, || api::decompress(&file, &Device::cpu()))
            .unwrap_err()
            .to_string();
        assert_eq!(
            message,
            format!(
                "out of memory: {total} bytes for the decompressed output could not be allocated"
            )
        );
    }
}

#[test]
fn compressing_more_than_the_memory_limit_is_out_of_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // 64 MiB of input, and no buffer above 16 MiB: rle encodes every chunk into a worst-case
    // slot of one payload buffer, sized from the input.
    let data = vec![7u8; 64 << 20];
    let opts = api::CompressOptions::for_codec(CodecId::Rle);
    let result = limited(16 << 20, || api::compress(&data, &opts, &Device::cpu()));
    match result {
        Err(Error::OutOfMemory { what, bytes }) => {
            assert_eq!(what, "the rle payload");
            assert!(bytes > 64 << 20, "{bytes}");
        }
        other => panic!("expected OutOfMemory, got {:?}", other.map(|v| v.len())),
    }
}

#[test]
fn an_orc_column_above_the_memory_limit_is_out_of_memory() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/orc/groups_v012_uncompressed.orc"
    );
    let orc = OrcFile::from_bytes(std::fs::read(path).unwrap()).unwrap();
    let rows = usize::try_from(orc.number_of_rows()).unwrap();
    let batch = orc.read_batch(None, &Device::Cpu).unwrap();
    assert_eq!(batch.num_rows(), rows);
    // Half of one bigint column's values: the fast decoder cannot have its buffer and hands the
    // column to the exact decoder, which cannot have its rows either and says so.
    let result = limited(rows * 8 / 2, || orc.read_batch(None, &Device::Cpu));
    match result {
        Err(Error::OutOfMemory { what, bytes }) => {
            assert!(what.starts_with("an ORC column's"), "{what}");
            assert!(
                bytes as usize > rows * 8 / 2,
                "{bytes} bytes for {rows} rows"
            );
        }
        other => panic!(
            "expected OutOfMemory, got {:?}",
            other.map(|b| b.num_rows())
        ),
    }
}
