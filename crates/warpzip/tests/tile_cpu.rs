//! The tile codecs (`for`, `dfor`, `rfor`, `tile`) on the CPU: round trips of every bit width,
//! extreme values and ragged lengths through the public API, property round trips, the planner's
//! choices, the densest chunk against `max_decoded_len`, and damaged chunks (an error naming the
//! chunk and the tile, never a panic).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use warpzip::codec::tile::format::{Kind, Plan, Scheme};
use warpzip::codec::tile::{chunked, cpu, TileCodec};
use warpzip::format::{write_container, ChunkSpan, ElemType, Header};
use warpzip::{CodecId, CompressOptions, Device, Error};

const CODECS: [CodecId; 4] = [CodecId::For, CodecId::Dfor, CodecId::Rfor, CodecId::Tile];
const TYPES: [ElemType; 4] = [ElemType::I32, ElemType::U32, ElemType::I64, ElemType::U64];

fn opts(codec: CodecId, elem: ElemType, chunk_size: Option<u32>) -> CompressOptions {
    let mut o = CompressOptions::for_codec(codec);
    o.elem_type = Some(elem);
    if chunk_size.is_some() {
        o.chunk_size = chunk_size;
    }
    o
}

/// Values (as u64 bit patterns, truncated to the type) to little-endian bytes of `elem`.
fn bytes_of(values: &[u64], elem: ElemType) -> Vec<u8> {
    match elem.size() {
        4 => values
            .iter()
            .flat_map(|&v| (v as u32).to_le_bytes())
            .collect(),
        _ => values.iter().flat_map(|&v| v.to_le_bytes()).collect(),
    }
}

fn round_trip(data: &[u8], codec: CodecId, elem: ElemType, chunk_size: Option<u32>, what: &str) {
    let packed = warpzip::compress(data, &opts(codec, elem, chunk_size), &Device::Cpu)
        .unwrap_or_else(|e| panic!("{what}: {codec} {elem}: compress: {e}"));
    let back = warpzip::decompress(&packed, &Device::Cpu)
        .unwrap_or_else(|e| panic!("{what}: {codec} {elem}: decompress: {e}"));
    assert!(back == data, "{what}: {codec} {elem}: round trip differs");
}

fn every(data_of: impl Fn(ElemType) -> Vec<u64>, chunk_size: Option<u32>, what: &str) {
    for elem in TYPES {
        let data = bytes_of(&data_of(elem), elem);
        for codec in CODECS {
            round_trip(&data, codec, elem, chunk_size, what);
        }
    }
}

fn bits_of(elem: ElemType) -> u32 {
    elem.size() as u32 * 8
}

#[test]
fn every_bit_width_round_trips() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(51);
    for elem in TYPES {
        let bits = bits_of(elem);
        for w in 0..=bits {
            let span = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let base: u64 = rng.gen::<u64>()
                & if bits == 64 {
                    u64::MAX
                } else {
                    u32::MAX as u64
                };
            let values: Vec<u64> = (0..1500)
                .map(|i| match i % 97 {
                    0 => base,
                    1 => base.wrapping_add(span),
                    _ => base.wrapping_add(rng.gen::<u64>() & span),
                })
                .collect();
            let data = bytes_of(&values, elem);
            for codec in CODECS {
                round_trip(&data, codec, elem, None, &format!("width {w}"));
            }
        }
    }
}

#[test]
fn a_miniblock_spanning_exactly_w_bits_is_packed_at_width_w() {
    for elem in TYPES {
        let kind = Kind::of(elem).unwrap();
        for w in 0..=kind.bits {
            let span = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
            let values: Vec<u64> = (0..128)
                .map(|i| if i % 2 == 0 { 0 } else { span })
                .collect();
            let words = cpu::encode_tile(&values, kind, Scheme::For);
            let widths = words[1 + kind.ref_words()];
            assert_eq!(widths, w * 0x0101_0101, "{elem} width {w}");
            assert_eq!(words.len(), 1 + kind.ref_words() + 1 + 4 * w as usize);
            let bytes: Vec<u8> = words.iter().flat_map(|x| x.to_le_bytes()).collect();
            let mut out = vec![0u64; 128];
            cpu::decode_tile(&bytes, kind, Plan::Fixed(Scheme::For), &mut out).unwrap();
            assert_eq!(out, values);
        }
    }
}

#[test]
fn extreme_values_round_trip() {
    let min_max = |elem: ElemType| -> (u64, u64) {
        match elem {
            ElemType::I32 => (i32::MIN as u32 as u64, i32::MAX as u32 as u64),
            ElemType::U32 => (0, u32::MAX as u64),
            ElemType::I64 => (i64::MIN as u64, i64::MAX as u64),
            _ => (0, u64::MAX),
        }
    };
    every(|e| vec![min_max(e).0; 1000], None, "all MIN");
    every(|e| vec![min_max(e).1; 1000], None, "all MAX");
    every(
        |e| {
            (0..1000)
                .map(|i| {
                    if i % 2 == 0 {
                        min_max(e).0
                    } else {
                        min_max(e).1
                    }
                })
                .collect()
        },
        None,
        "MIN/MAX alternating",
    );
    every(
        |e| {
            (0..1000)
                .map(|i| if i < 500 { min_max(e).1 } else { min_max(e).0 })
                .collect()
        },
        None,
        "MAX then MIN",
    );
    every(
        |_| (0..1000u64).map(|i| 0u64.wrapping_sub(i)).collect(),
        None,
        "-i",
    );
}

#[test]
fn ragged_lengths_and_many_chunks_round_trip() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for n in [
        0usize, 1, 2, 31, 32, 33, 127, 128, 129, 511, 512, 513, 1025, 5000, 40_000,
    ] {
        let values: Vec<u64> = (0..n)
            .map(|i| match (i / 700) % 4 {
                0 => rng.gen_range(0..1000),
                1 => i as u64 * 3,
                2 => (i / 37) as u64,
                _ => rng.gen(),
            })
            .collect();
        every(|_| values.clone(), None, &format!("{n} values"));
        // Chunks of 2048 bytes: many chunks, and chunks that end inside a tile.
        every(
            |_| values.clone(),
            Some(2048),
            &format!("{n} values, 2 KiB chunks"),
        );
        every(
            |_| values.clone(),
            Some(8 * 100),
            &format!("{n} values, 800-byte chunks"),
        );
    }
}

#[test]
fn the_planner_picks_the_smallest_scheme() {
    let kind = Kind::of(ElemType::U32).unwrap();
    let scheme_of =
        |values: &[u64]| cpu::encode_tile_planned(values, kind, Plan::Smallest)[0] & 0xff;
    let runs: Vec<u64> = (0..512).map(|i| (i / 64) as u64 * 1_000_003).collect();
    let sorted: Vec<u64> = (0..512).map(|i| 1_000_000 + i as u64 * 17).collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let noise: Vec<u64> = (0..512).map(|_| rng.gen_range(0..256)).collect();
    assert_eq!(scheme_of(&runs), Scheme::Rfor as u32);
    assert_eq!(scheme_of(&sorted), Scheme::Dfor as u32);
    assert_eq!(scheme_of(&noise), Scheme::For as u32);
    for values in [&runs, &sorted, &noise] {
        let best = cpu::encode_tile_planned(values, kind, Plan::Smallest).len();
        for s in Scheme::ALL {
            assert!(best <= cpu::encode_tile(values, kind, s).len());
        }
    }
}

#[test]
fn the_densest_chunk_is_within_max_decoded_len() {
    for elem in TYPES {
        for codec in CODECS {
            let data = bytes_of(&vec![9u64; 512 * 64], elem);
            let o = opts(codec, elem, None);
            let c = warpzip::codec::codec(codec).unwrap();
            let chunk = c.check_options(&o).unwrap();
            let enc = c.compress(&data, &o, chunk, &Device::Cpu).unwrap();
            for s in &enc.spans {
                assert!(
                    u64::from(s.uncompressed_len)
                        <= c.max_decoded_len(u64::from(s.compressed_len), elem),
                    "{codec} {elem}: {s:?}"
                );
            }
        }
    }
}

#[test]
fn options_are_checked() {
    let bad_types = [ElemType::Bytes, ElemType::U8, ElemType::I16, ElemType::F64];
    for codec in CODECS {
        for elem in bad_types {
            let e = warpzip::compress(&[0; 8], &opts(codec, elem, None), &Device::Cpu);
            assert!(
                matches!(e, Err(Error::InvalidArgument(_))),
                "{codec} {elem}"
            );
        }
        let e = warpzip::compress(&[0; 8], &opts(codec, ElemType::U32, Some(6)), &Device::Cpu);
        assert!(matches!(e, Err(Error::InvalidArgument(_))));
        let mut o = opts(codec, ElemType::U32, None);
        o.level = Some(3);
        assert!(warpzip::compress(&[0; 8], &o, &Device::Cpu).is_err());
        let e = warpzip::compress(&[0; 6], &opts(codec, ElemType::U32, None), &Device::Cpu);
        assert!(e.is_err());
    }
}

#[test]
fn inspect_describes_the_parameters() {
    let data = bytes_of(&[1, 2, 3], ElemType::I64);
    let packed = warpzip::compress(
        &data,
        &opts(CodecId::Tile, ElemType::I64, None),
        &Device::Cpu,
    )
    .unwrap();
    let c = warpzip::codec::codec(CodecId::Tile).unwrap();
    let text = c.describe_params(&[1], ElemType::I64).unwrap();
    assert!(text.contains("64-bit signed"), "{text}");
    assert!(c.describe_params(&[2], ElemType::I64).is_none());
    assert!(warpzip::api::inspect(&packed).is_ok());
}

/// One chunk encoded by `plan`, and the decoder's verdict on `bytes` in its place.
fn decode_one(bytes: &[u8], values: usize, kind: Kind, plan: Plan) -> Result<Vec<u8>, Error> {
    let mut out = vec![0u8; values * kind.bytes()];
    chunked::decompress_into(&[(bytes, out.len())], kind, plan, &mut out).map(|()| out)
}

fn set_word(bytes: &mut [u8], i: usize, w: u32) {
    bytes[i * 4..i * 4 + 4].copy_from_slice(&w.to_le_bytes());
}

fn word(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap())
}

fn expect_fault(r: Result<Vec<u8>, Error>, tile: Option<usize>, what: &str) {
    match r {
        Err(Error::Corrupt { chunk: 0, reason }) => {
            if let Some(t) = tile {
                assert!(
                    reason.starts_with(&format!("tile {t}:")),
                    "{what}: {reason}"
                );
            }
        }
        other => panic!("{what}: {other:?}"),
    }
}

#[test]
fn corrupt_chunks_name_the_tile() {
    let kind = Kind::of(ElemType::U32).unwrap();
    let values: Vec<u64> = (0..1100u64).map(|i| i * i % 5000).collect();
    let data = bytes_of(&values, ElemType::U32);
    let good = cpu::encode_chunk(&data, kind, Plan::Fixed(Scheme::For));
    assert_eq!(
        decode_one(&good, 1100, kind, Plan::Fixed(Scheme::For)).unwrap(),
        data
    );
    let plan = Plan::Fixed(Scheme::For);
    // The data section starts after the table of 3 tiles + 1 entries.
    let tile1 = 4 + word(&good, 1) as usize;
    // A width above 32 in tile 1's first block.
    let mut bad = good.clone();
    set_word(&mut bad, tile1 + 2, 33);
    expect_fault(decode_one(&bad, 1100, kind, plan), Some(1), "width 33");
    // An unknown scheme.
    let mut bad = good.clone();
    set_word(&mut bad, tile1, 3);
    expect_fault(decode_one(&bad, 1100, kind, plan), Some(1), "scheme 3");
    // Another codec's scheme.
    let mut bad = good.clone();
    set_word(&mut bad, tile1, Scheme::Dfor as u32);
    expect_fault(
        decode_one(&bad, 1100, kind, plan),
        Some(1),
        "DFOR in a for chunk",
    );
    // A table entry past the end, and one going down.
    let mut bad = good.clone();
    set_word(&mut bad, 3, 1 << 30);
    expect_fault(
        decode_one(&bad, 1100, kind, plan),
        None,
        "table past the end",
    );
    let mut bad = good.clone();
    set_word(&mut bad, 2, word(&good, 1) - 1);
    set_word(&mut bad, 1, word(&good, 2));
    expect_fault(
        decode_one(&bad, 1100, kind, plan),
        Some(1),
        "table going down",
    );
    // Truncations: every length short of the chunk.
    for cut in 0..good.len() {
        let r = decode_one(&good[..cut], 1100, kind, plan);
        assert!(
            matches!(r, Err(Error::Corrupt { chunk: 0, .. })),
            "cut {cut}: {r:?}"
        );
    }
    // RFOR: a run length of 0 and lengths that do not add up.
    let runs: Vec<u64> = (0..512u64).map(|i| i / 100).collect();
    let data = bytes_of(&runs, ElemType::U32);
    let rfor = Plan::Fixed(Scheme::Rfor);
    let good = cpu::encode_chunk(&data, kind, rfor);
    assert_eq!(decode_one(&good, 512, kind, rfor).unwrap(), data);
    let mut bad = good.clone();
    set_word(&mut bad, 2, Scheme::Rfor as u32 | 600 << 8);
    expect_fault(decode_one(&bad, 512, kind, rfor), Some(0), "600 runs");
    let mut bad = good.clone();
    set_word(&mut bad, 2, Scheme::Rfor as u32);
    expect_fault(decode_one(&bad, 512, kind, rfor), Some(0), "0 runs");
    // Lengths' reference (the word after the values' block: header, ref, widths, 6 runs at
    // width 3 = 3 words) raised by one: the lengths add up to 518.
    let lengths_ref = 2 + 1 + 2 + 3;
    let mut bad = good.clone();
    set_word(&mut bad, lengths_ref, word(&good, lengths_ref) + 1);
    expect_fault(decode_one(&bad, 512, kind, rfor), Some(0), "lengths + 1");
    let mut bad = good.clone();
    set_word(&mut bad, lengths_ref, 0);
    let r = decode_one(&bad, 512, kind, rfor);
    assert!(r.is_err(), "lengths reference 0: {r:?}");
}

#[test]
fn bit_flips_give_errors_or_values_never_panics() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    for elem in [ElemType::I32, ElemType::U64] {
        let kind = Kind::of(elem).unwrap();
        let values: Vec<u64> = (0..1300u64)
            .map(|i| {
                if i < 600 {
                    i / 50
                } else {
                    rng.gen_range(0..100_000)
                }
            })
            .collect();
        let data = bytes_of(&values, elem);
        for plan in [
            Plan::Fixed(Scheme::For),
            Plan::Fixed(Scheme::Dfor),
            Plan::Fixed(Scheme::Rfor),
            Plan::Smallest,
        ] {
            let good = cpu::encode_chunk(&data, kind, plan);
            for _ in 0..400 {
                let mut bad = good.clone();
                let bit = rng.gen_range(0..bad.len() * 8);
                bad[bit / 8] ^= 1 << (bit % 8);
                let _ = decode_one(&bad, 1300, kind, plan);
            }
        }
    }
}

#[test]
fn resealed_containers_with_bad_chunks_are_corrupt() {
    let kind = Kind::of(ElemType::U32).unwrap();
    let data = bytes_of(&(0..3000u64).collect::<Vec<_>>(), ElemType::U32);
    let (mut payload, spans) = chunked::compress(&data, kind, Plan::Smallest, 4096).unwrap();
    // Chunk 1's second tile gets an unknown scheme.
    let at = spans[1].offset;
    let t1 = 3 + word(&payload[at..], 1) as usize;
    set_word(&mut payload[at..], t1, 0xff);
    let header = Header {
        codec: CodecId::Tile,
        codec_params: vec![1],
        elem_type: ElemType::U32,
        shape: Vec::new(),
        total_len: data.len() as u64,
        chunk_size: 4096,
    };
    let spans: Vec<ChunkSpan> = spans.to_vec();
    let mut file = Vec::new();
    write_container(&mut file, &header, &payload, &spans).unwrap();
    match warpzip::decompress(&file, &Device::Cpu) {
        Err(Error::Corrupt { chunk: 1, reason }) => {
            assert!(reason.starts_with("tile 1:"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    let _ = TileCodec::TILE;
}

fn plan_strategy() -> impl Strategy<Value = Vec<u64>> {
    prop::collection::vec((0u64..4, any::<u64>(), 1usize..300), 0..12).prop_map(|segments| {
        let mut v = Vec::new();
        for (kind, seed, len) in segments {
            for i in 0..len as u64 {
                v.push(match kind {
                    0 => seed,
                    1 => seed.wrapping_add(i.wrapping_mul(seed >> 40)),
                    2 => seed.wrapping_add(i * 7 % 13),
                    _ => seed.rotate_left(i as u32).wrapping_mul(i | 1),
                });
            }
        }
        v
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_values_round_trip(values in plan_strategy(), chunk_values in 1u32..3000) {
        for elem in TYPES {
            let data = bytes_of(&values, elem);
            let chunk = chunk_values * elem.size() as u32;
            for codec in CODECS {
                let packed = warpzip::compress(&data, &opts(codec, elem, Some(chunk)), &Device::Cpu).unwrap();
                let back = warpzip::decompress(&packed, &Device::Cpu).unwrap();
                prop_assert!(back == data, "{} {}", codec, elem);
            }
        }
    }
}

/// The golden file's input: 3000 i32 values in four shapes (runs, a falling ramp, noise from a
/// fixed formula, extremes), so that its tiles use every scheme.
fn golden_input() -> Vec<u8> {
    let values: Vec<u64> = (0..3000u64)
        .map(|i| match i / 600 {
            0 => i / 70,
            1 => 0u64.wrapping_sub(i * 13),
            2 => (i * 2_654_435_761) % 100_003,
            3 => (i / 3) * 5,
            _ => {
                if i % 2 == 0 {
                    i32::MIN as u32 as u64
                } else {
                    i32::MAX as u64
                }
            }
        })
        .collect();
    bytes_of(&values, ElemType::I32)
}

/// `tests/data/tile_v1_golden.wz` (codec `tile`, i32, 4 KiB chunks) decodes to its input and is
/// what today's writer writes. Regenerate with `WARPZIP_BLESS=1` (never over a released file).
#[test]
fn the_golden_file_decodes_and_is_todays_writer() {
    let path = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/tile_v1_golden.wz"
    ));
    let input = golden_input();
    let written = warpzip::compress(
        &input,
        &opts(CodecId::Tile, ElemType::I32, Some(4096)),
        &Device::Cpu,
    )
    .unwrap();
    if std::env::var("WARPZIP_BLESS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &written).unwrap();
    }
    let golden = std::fs::read(&path).unwrap();
    assert_eq!(warpzip::decompress(&golden, &Device::Cpu).unwrap(), input);
    assert!(
        golden == written,
        "the writer no longer writes the golden file"
    );
}
