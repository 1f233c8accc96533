//! The streaming API: every codec round-trips through `compress_stream` / `decompress_stream`
//! at awkward sizes and batch sizes; a long input becomes a version-2 stream of frames that the
//! whole-buffer decoder reads too; an input that fits in one batch becomes the version-1
//! container the whole-buffer compressor writes; damage, truncation and concatenation are
//! answered by both decoders alike; gzip and BGZF output is read back by flate2 and by
//! warpzip's own gzip decoder; and the streaming gzip decoder agrees with the whole-file one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use warpzip::api::{self, CompressOptions, OutputFormat, StreamConfig};
use warpzip::format::{self, ElemType, Framing, STREAM_VERSION};
use warpzip::{CodecId, Device, Error};

/// Bytes with runs, text-like stretches and noise, so every codec has work of every kind.
fn mixed_bytes(n: usize, seed: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let run = (x % 300) as usize;
        match x % 3 {
            0 => out.extend(std::iter::repeat_n((x >> 8) as u8, run)),
            1 => out.extend(
                b"the quick brown fox jumps over the lazy dog "
                    .iter()
                    .take(run),
            ),
            _ => out.extend((0..run / 4).map(|i| (x >> (i % 24)) as u8)),
        }
    }
    out.truncate(n);
    out
}

/// Little-endian i32 values in runs and noise, `n` values.
fn int_column(n: usize) -> Vec<u8> {
    (0..n as i32)
        .flat_map(|i| {
            let v = if (i / 100) % 2 == 0 {
                i / 7
            } else {
                i.wrapping_mul(7919) % 1000
            };
            v.to_le_bytes()
        })
        .collect()
}

fn config(batch_size: Option<usize>) -> StreamConfig {
    StreamConfig {
        batch_size,
        ..StreamConfig::default()
    }
}

fn compress(data: &[u8], opts: &CompressOptions, cfg: &StreamConfig) -> Vec<u8> {
    let mut out = Vec::new();
    let stats = api::compress_stream_with(data, &mut out, opts, &Device::Cpu, cfg).unwrap();
    assert_eq!(stats.bytes_in, data.len() as u64);
    assert_eq!(stats.bytes_out, out.len() as u64);
    out
}

fn decompress(wz: &[u8], cfg: &StreamConfig) -> warpzip::Result<Vec<u8>> {
    let mut out = Vec::new();
    api::decompress_stream_with(wz, &mut out, &Device::Cpu, cfg).map(|_| out)
}

/// A codec's options, the unit its input comes in (the element size) and its input maker.
type Case = (CompressOptions, usize, fn(usize) -> Vec<u8>);

/// The case of each codec.
fn cases() -> Vec<Case> {
    let opts = |codec, chunk: usize, elem| CompressOptions {
        codec,
        level: None,
        chunk_size: Some(chunk as u32),
        elem_type: elem,
        lossy: None,
    };
    vec![
        (opts(CodecId::Rle, 8192, None), 1, |n| mixed_bytes(n, 1)),
        (opts(CodecId::Deflate, 32 << 10, None), 1, |n| {
            mixed_bytes(n, 2)
        }),
        (opts(CodecId::OrcRleV1, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
        (opts(CodecId::OrcRleV2, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
        (opts(CodecId::For, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
        (opts(CodecId::Dfor, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
        (opts(CodecId::Rfor, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
        (opts(CodecId::Tile, 4096, Some(ElemType::I32)), 4, |n| {
            int_column(n / 4)
        }),
    ]
}

#[test]
fn every_codec_round_trips_through_the_stream_at_awkward_sizes() {
    for (opts, unit, make) in cases() {
        let chunk = opts.chunk_size.unwrap() as usize;
        let sizes = [
            0,
            unit,
            chunk - unit,
            chunk,
            chunk + unit,
            3 * chunk,
            7 * chunk + unit,
            20 * chunk - unit,
        ];
        for size in sizes {
            let data = make(size);
            assert_eq!(data.len(), size);
            for batch in [None, Some(chunk), Some(2 * chunk + 1)] {
                let cfg = config(batch);
                let wz = compress(&data, &opts, &cfg);
                let what = format!("{} size {size} batch {batch:?}", opts.codec);
                assert_eq!(decompress(&wz, &cfg).unwrap(), data, "{what}");
                assert_eq!(decompress(&wz, &config(None)).unwrap(), data, "{what}");
                assert_eq!(api::decompress(&wz, &Device::Cpu).unwrap(), data, "{what}");
                let frames = format::parse_stream(&wz).unwrap();
                let batch_len = batch.map_or(usize::MAX, |b| (b / chunk).max(1) * chunk);
                if size <= batch.unwrap_or(usize::MAX).max(chunk) {
                    // One batch: the whole-buffer compressor's version-1 container.
                    assert_eq!(
                        wz,
                        api::compress(&data, &opts, &Device::Cpu).unwrap(),
                        "{what}"
                    );
                    assert_eq!(wz[4], 1, "{what}");
                } else {
                    assert_eq!(frames.len(), size.div_ceil(batch_len), "{what}");
                    assert_eq!(wz[4], STREAM_VERSION as u8, "{what}");
                }
            }
        }
    }
}

#[test]
fn a_long_input_is_a_stream_of_frames_marked_until_the_last() {
    let data = mixed_bytes(100_000, 3);
    let opts = CompressOptions {
        chunk_size: Some(8192),
        ..CompressOptions::for_codec(CodecId::Rle)
    };
    let wz = compress(&data, &opts, &config(Some(3 * 8192)));
    let frames = format::parse_stream(&wz).unwrap();
    assert_eq!(frames.len(), 5);
    let mut at = 0usize;
    for (i, frame) in frames.iter().enumerate() {
        let head = format::Head::parse(&wz[at..]).unwrap();
        assert_eq!(head.framing, Framing::frame(i + 1 < frames.len()));
        assert_eq!(head.header.chunk_size, 8192);
        assert_eq!(frame.header.total_len, if i < 4 { 3 * 8192 } else { 1696 });
        // Flags: bit 0 on every frame but the last.
        assert_eq!(wz[at + 8], u8::from(i + 1 < frames.len()));
        at += frame.compressed_len() as usize;
    }
    assert_eq!(at, wz.len());
    // One container's parser refuses a stream of several frames, naming them.
    match format::Container::parse(&wz) {
        Err(Error::CorruptContainer(msg)) => assert!(msg.contains("further frames"), "{msg}"),
        other => panic!("expected CorruptContainer, got {other:?}"),
    }
    let inspected = api::inspect(&wz).unwrap();
    assert_eq!(inspected.frames, 5);
    assert_eq!(inspected.header.total_len, data.len() as u64);
    assert_eq!(inspected.chunk_count(), 13);
}

#[test]
fn truncation_damage_trailing_bytes_and_concatenation_are_answered_by_both_decoders() {
    let data = mixed_bytes(100_000, 4);
    let opts = CompressOptions {
        chunk_size: Some(8192),
        ..CompressOptions::for_codec(CodecId::Rle)
    };
    let cfg = config(Some(3 * 8192));
    let wz = compress(&data, &opts, &cfg);
    let frames = format::parse_stream(&wz).unwrap();
    let first_len = frames[0].compressed_len() as usize;
    let both = |bytes: &[u8]| {
        let s = decompress(bytes, &cfg);
        let w = api::decompress(bytes, &Device::Cpu);
        (s, w)
    };

    // Cut where a frame ends that says more follow.
    match both(&wz[..first_len]) {
        (Err(Error::Truncated(a)), Err(Error::Truncated(b))) => {
            assert!(a.contains("more frames follow"), "{a}");
            assert!(b.contains("more frames follow"), "{b}");
        }
        other => panic!("expected Truncated twice, got {other:?}"),
    }
    // Cut inside the last frame's payload.
    match both(&wz[..wz.len() - 1]) {
        (Err(Error::Truncated(a)), Err(Error::Truncated(b))) => {
            assert!(a.contains("frame 4") && a.contains("payload"), "{a}");
            assert!(b.contains("frame 4") && b.contains("payload"), "{b}");
        }
        other => panic!("expected Truncated twice, got {other:?}"),
    }
    // Bytes after the last frame that are not another stream.
    let mut long = wz.clone();
    long.extend_from_slice(b"xyz");
    match both(&long) {
        (Err(Error::CorruptContainer(a)), Err(Error::CorruptContainer(b))) => {
            assert!(a.contains("3 trailing bytes"), "{a}");
            assert_eq!(a, b);
        }
        other => panic!("expected CorruptContainer twice, got {other:?}"),
    }
    // A damaged chunk in the third frame: named by its index over the whole file.
    let mut bad = wz.clone();
    let third = first_len + frames[1].compressed_len() as usize;
    let head = format::Head::parse(&wz[third..]).unwrap();
    bad[third + head.len as usize + 5] ^= 0x40;
    match both(&bad) {
        (Err(Error::Corrupt { chunk: a, .. }), Err(Error::Corrupt { chunk: b, .. })) => {
            assert_eq!((a, b), (6, 6));
        }
        other => panic!("expected Corrupt twice, got {other:?}"),
    }
    // Concatenated streams (and a single container after them) decode as one input.
    let small = api::compress(b"tail", &opts, &Device::Cpu).unwrap();
    let cat = [&wz[..], &wz[..], &small[..]].concat();
    let expected = [&data[..], &data[..], b"tail"].concat();
    assert_eq!(decompress(&cat, &cfg).unwrap(), expected);
    assert_eq!(api::decompress(&cat, &Device::Cpu).unwrap(), expected);
}

#[test]
fn an_input_that_fits_in_one_batch_gets_the_whole_buffer_answer() {
    // The golden files (and damaged ones) decode, or fail, exactly as the whole-buffer decoder
    // says, through the stream.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "wz") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let mut variants = vec![bytes.clone(), bytes[..bytes.len() / 2].to_vec()];
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        variants.push(flipped);
        for v in variants {
            let whole = api::decompress(&v, &Device::Cpu).map_err(|e| e.to_string());
            let streamed = decompress(&v, &config(None)).map_err(|e| e.to_string());
            assert_eq!(streamed, whole, "{}", path.display());
        }
        seen += 1;
    }
    assert!(seen >= 5, "golden files found: {seen}");
    let empty = decompress(&[], &config(None)).map_err(|e| e.to_string());
    assert_eq!(
        empty,
        api::decompress(&[], &Device::Cpu).map_err(|e| e.to_string())
    );
}

fn gzip_members(bytes: &[u8]) -> Vec<warpzip::gzip::Member> {
    warpzip::gzip::list_members(bytes, &Device::Cpu).unwrap()
}

#[test]
fn gzip_and_bgzf_output_is_read_by_flate2_and_by_warpzip() {
    // No chunk size: BGZF's 0xff00-byte blocks, deflate's choice for gzip.
    let opts = CompressOptions {
        chunk_size: None,
        ..CompressOptions::for_codec(CodecId::Deflate)
    };
    for format in [OutputFormat::Gzip, OutputFormat::Bgzf] {
        for size in [0usize, 1, 0xff00 - 1, 0xff00, 0xff00 + 1, 300_000] {
            let data = mixed_bytes(size, 5);
            for batch in [None, Some(100_000)] {
                let cfg = StreamConfig {
                    batch_size: batch,
                    format,
                    ..StreamConfig::default()
                };
                let gz = compress(&data, &opts, &cfg);
                let what = format!("{format:?} size {size} batch {batch:?}");
                let mut flate = Vec::new();
                flate2::read::MultiGzDecoder::new(&gz[..])
                    .read_to_end(&mut flate)
                    .unwrap();
                assert_eq!(flate, data, "{what}");
                assert_eq!(decompress(&gz, &cfg).unwrap(), data, "{what}");
                assert_eq!(
                    warpzip::gzip::decompress(&gz, &Device::Cpu).unwrap(),
                    data,
                    "{what}"
                );
                let members = gzip_members(&gz);
                if format == OutputFormat::Bgzf {
                    assert!(gz.ends_with(&warpzip::gzip::write::BGZF_EOF), "{what}");
                    assert_eq!(members.len(), size.div_ceil(0xff00) + 1, "{what}");
                    assert!(members.iter().all(|m| m.bgzf_member_len.is_some()));
                    assert!(members.iter().all(|m| m.compressed_len <= 65536));
                } else {
                    // One member per chunk: 32 KiB (deflate's choice for an input this short)
                    // when the input fits in one batch, else 128 KiB (for an input of unknown
                    // length).
                    let first_batch = batch.map_or(usize::MAX, |b| b.max(128 << 10));
                    let chunk = if size <= first_batch {
                        32 << 10
                    } else {
                        128 << 10
                    };
                    assert_eq!(members.len(), size.div_ceil(chunk).max(1), "{what}");
                }
            }
        }
    }
}

#[test]
fn the_streaming_gzip_decoder_agrees_with_the_whole_file_decoder() {
    let data = mixed_bytes(5 << 20, 6);
    let opts = CompressOptions {
        chunk_size: Some(64 << 10),
        ..CompressOptions::for_codec(CodecId::Deflate)
    };
    let gz_cfg = |format| StreamConfig {
        format,
        ..StreamConfig::default()
    };
    let members = compress(&data, &opts, &gz_cfg(OutputFormat::Gzip));
    let bgzf_opts = CompressOptions {
        chunk_size: None,
        ..opts.clone()
    };
    let bgzf = compress(&data, &bgzf_opts, &gz_cfg(OutputFormat::Bgzf));
    let mut single = Vec::new();
    {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(&mut single, flate2::Compression::fast());
        enc.write_all(&data).unwrap();
        enc.finish().unwrap();
    }
    // Batches of 64 KiB: the input is read a 1 MiB window at a time.
    let small = config(Some(64 << 10));
    for (name, gz) in [("members", &members), ("bgzf", &bgzf), ("single", &single)] {
        let mut out = Vec::new();
        let stats = api::decompress_stream_with(&gz[..], &mut out, &Device::Cpu, &small).unwrap();
        assert!(out == data, "{name}");
        assert_eq!(stats.bytes_in, gz.len() as u64, "{name}");
        assert_eq!(
            stats.frames as usize,
            gzip_members(gz).len(),
            "{name}: members"
        );
        // Zero padding: a notice at the right offset. Other bytes: the same error.
        let mut padded = gz.clone();
        padded.extend_from_slice(&[0; 100]);
        let stats = api::decompress_stream_with(&padded[..], &mut Vec::new(), &Device::Cpu, &small)
            .unwrap();
        assert_eq!(
            stats.notices,
            vec![warpzip::gzip::Notice::TrailingZeros {
                offset: gz.len() as u64,
                len: 100
            }],
            "{name}"
        );
        let mut junk = gz.clone();
        junk.extend_from_slice(b"junk");
        let cut = gz[..gz.len() - 3].to_vec();
        let mut flipped = gz.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x10;
        for bad in [&junk, &cut, &flipped] {
            let whole = warpzip::gzip::decompress(bad, &Device::Cpu).map_err(|e| kind(&e));
            let streamed = decompress(bad, &small).map_err(|e| kind(&e));
            assert!(streamed.is_err(), "{name}");
            assert_eq!(streamed.err(), whole.err(), "{name}");
        }
    }
}

/// An error's kind, and for a corrupt member its index and offset, without the reason (the
/// streaming inflater and libdeflate word some Deflate errors differently).
fn kind(e: &Error) -> String {
    match e {
        Error::CorruptGzip { member, offset, .. } => format!("corrupt member {member} at {offset}"),
        Error::Truncated(m) => format!("truncated {}", m.split(':').next().unwrap_or("")),
        other => other.to_string(),
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_codec_round_trips_through_the_stream_on_the_gpu() {
    let gpu = Device::gpu(0).unwrap();
    for (opts, _, make) in cases() {
        let chunk = opts.chunk_size.unwrap() as usize;
        let data = make(40 * chunk + 4);
        let cfg = config(Some(8 * chunk));
        let mut wz = Vec::new();
        api::compress_stream_with(&data[..], &mut wz, &opts, &gpu, &cfg).unwrap();
        let mut out = Vec::new();
        api::decompress_stream_with(&wz[..], &mut out, &gpu, &cfg).unwrap();
        assert!(out == data, "{}", opts.codec);
        assert_eq!(decompress(&wz, &cfg).unwrap(), data, "{}", opts.codec);
    }
}

#[test]
fn the_golden_stream_is_what_todays_writer_writes_and_it_decodes() {
    // 20,000 generated bytes in rle chunks of 4096 and batches of 8192: three frames.
    let data = mixed_bytes(20_000, 9);
    let opts = CompressOptions {
        chunk_size: Some(4096),
        ..CompressOptions::for_codec(CodecId::Rle)
    };
    let wz = compress(&data, &opts, &config(Some(8192)));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stream_v2_rle.wz");
    if std::env::var_os("WARPZIP_WRITE_GOLDEN").is_some() {
        std::fs::write(path, &wz).unwrap();
    }
    let golden = std::fs::read(path).unwrap();
    assert!(
        golden == wz,
        "today's writer no longer writes the golden stream"
    );
    let frames = format::parse_stream(&golden).unwrap();
    assert_eq!(frames.len(), 3);
    assert_eq!(
        &golden[..12],
        &[0x89, b'W', b'Z', 0x0A, 2, 0, 1, 0, 1, 0, 0, 0]
    );
    assert_eq!(api::decompress(&golden, &Device::Cpu).unwrap(), data);
    assert_eq!(decompress(&golden, &config(None)).unwrap(), data);
}

#[test]
fn every_bit_flip_and_cut_of_a_stream_is_judged_alike_by_both_decoders() {
    let data = mixed_bytes(12_000, 10);
    let opts = CompressOptions {
        chunk_size: Some(4096),
        ..CompressOptions::for_codec(CodecId::Rle)
    };
    let cfg = config(Some(4096));
    let wz = compress(&data, &opts, &cfg);
    assert_eq!(format::parse_stream(&wz).unwrap().len(), 3);
    let judge = |bytes: &[u8], what: &str| {
        let whole = api::decompress(bytes, &Device::Cpu);
        let streamed = decompress(bytes, &cfg);
        match (&whole, &streamed) {
            (Ok(a), Ok(b)) => assert!(a == b, "{what}: outputs differ"),
            (Err(_), Err(_)) => {}
            _ => panic!("{what}: whole {whole:?}, streamed {streamed:?}"),
        }
    };
    for i in 0..wz.len() {
        let mut bad = wz.clone();
        bad[i] ^= 1 << (i % 8);
        judge(&bad, &format!("bit flip at byte {i}"));
    }
    for len in 0..wz.len() {
        judge(&wz[..len], &format!("cut at {len}"));
    }
}
