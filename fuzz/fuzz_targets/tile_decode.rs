//! Any bytes: byte 0 picks the element type (bits 0..1: u32, i32, u64, i64) and the codec (bits
//! 2..3: for, dfor, rfor, tile), bytes 1..3 are the value count (u16 LE), the rest is one chunk
//! of the tile codecs (`codec::tile::cpu::decode_chunk`). The decoder must return, never panic;
//! a chunk it accepts must re-encode and decode back to the same values.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpzip::codec::tile::cpu::{decode_chunk, encode_chunk};
use warpzip::codec::tile::format::{Kind, Plan, Scheme};
use warpzip::format::ElemType;

fuzz_target!(|data: &[u8]| {
    let [sel, n0, n1, chunk @ ..] = data else {
        return;
    };
    let elem = [ElemType::U32, ElemType::I32, ElemType::U64, ElemType::I64][usize::from(sel & 3)];
    let plan = [
        Plan::Fixed(Scheme::For),
        Plan::Fixed(Scheme::Dfor),
        Plan::Fixed(Scheme::Rfor),
        Plan::Smallest,
    ][usize::from((sel >> 2) & 3)];
    let Ok(kind) = Kind::of(elem) else {
        return;
    };
    let n = usize::from(u16::from_le_bytes([*n0, *n1]));
    let mut out = vec![0u8; n * kind.bytes()];
    if decode_chunk(chunk, kind, plan, &mut out).is_ok() {
        let again = encode_chunk(&out, kind, plan);
        let mut back = vec![0u8; out.len()];
        assert!(decode_chunk(&again, kind, plan, &mut back).is_ok());
        assert!(back == out, "re-encoded chunk does not round-trip");
    }
});
