//! The inflate test cases, written once and run on any `Device`: `tests/deflate_cpu.rs` runs
//! them on the CPU (libdeflate) in CI, `tests/gpu_deflate.rs` on the GPU. Every case states what
//! zlib (flate2, zlib-rs) does with the stream, the strict reference for validity, and what each
//! device must report.
//!
//! Known difference: libdeflate (the CPU path) accepts a few streams zlib rejects: lit/len
//! symbols 286/287 (as length 258), distance codes 30/31, HLIT > 286 / HDIST > 30, and the unused
//! half of a one-codeword (length 1) table. The GPU must reject them (`Corrupt`); on the CPU the
//! crafted cases expect `Ok` there, and the random-corruption test counts, rather than fails,
//! streams that zlib rejects and the CPU decodes.
#![allow(dead_code, clippy::panic, clippy::unwrap_used, clippy::expect_used)]

use super::deflate_writer::*;
use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use libdeflater::{CompressionLvl, Compressor};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;
use std::path::PathBuf;
use warpzip::codec::deflate::gpu::{output_layout, InflateBatch, InflateChunk, INPUT_ALIGN};
use warpzip::codec::deflate::{inflate_batch, StreamResult};
use warpzip::device::Device;
use warpzip::error::ChunkStatus;

// ---------------------------------------------------------------------------------------------
// Running a batch

/// Where the streams of a GPU batch sit in its input buffer.
#[derive(Clone, Copy, Debug)]
pub enum Layout {
    /// Back to back, as `InflateBatch::upload` does.
    Packed,
    /// Every stream at a multiple of 128 bytes.
    Aligned,
    /// Random gaps of 0..128 junk bytes before every stream.
    Scattered(u64),
    /// Through the public `inflate_batch` (no poison on the GPU: it uploads itself).
    Api,
}

/// Inflates `inputs[i]` into a buffer of `caps[i]` bytes poisoned with `poison` first. Bytes
/// around and between the streams are junk (never zeros), so reading past a stream shows.
pub fn inflate_on(
    dev: &Device,
    inputs: &[&[u8]],
    caps: &[usize],
    poison: u8,
    layout: Layout,
) -> (Vec<StreamResult>, Vec<Vec<u8>>) {
    assert_eq!(inputs.len(), caps.len());
    let mut outs: Vec<Vec<u8>> = caps.iter().map(|&c| vec![poison; c]).collect();
    let gpu = match (dev, layout) {
        (Device::Gpu(g), l) if !matches!(l, Layout::Api) => g,
        _ => {
            let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
            let results = inflate_batch(dev, inputs, &mut refs).unwrap();
            assert_eq!(results.len(), inputs.len());
            return (results, outs);
        }
    };
    if inputs.is_empty() {
        return (Vec::new(), outs);
    }
    let mut rng = StdRng::seed_from_u64(match layout {
        Layout::Scattered(s) => s,
        _ => 1,
    });
    let (out_offsets, out_len) = output_layout(caps);
    let mut buf: Vec<u8> = Vec::new();
    let mut chunks = Vec::with_capacity(inputs.len());
    for (i, s) in inputs.iter().enumerate() {
        let gap = match layout {
            Layout::Aligned => buf.len().div_ceil(INPUT_ALIGN) * INPUT_ALIGN - buf.len(),
            Layout::Scattered(_) => rng.gen_range(0..INPUT_ALIGN),
            _ => 0,
        };
        buf.extend((0..gap).map(|_| rng.gen_range(1..=255u8)));
        chunks.push(InflateChunk {
            in_offset: buf.len() as u64,
            out_offset: out_offsets[i],
            in_len: u32::try_from(s.len()).unwrap(),
            out_cap: u32::try_from(caps[i]).unwrap(),
        });
        buf.extend_from_slice(s);
    }
    let padded = buf.len().div_ceil(INPUT_ALIGN).max(1) * INPUT_ALIGN;
    while buf.len() < padded {
        buf.push(rng.gen_range(1..=255u8));
    }
    let input = gpu.upload(&buf).unwrap();
    let out = gpu.alloc::<u8>(out_len.max(4)).unwrap();
    let mut batch = InflateBatch::from_device(gpu, input, chunks, out).unwrap();
    batch.poison_output(gpu, poison).unwrap();
    batch.launch(gpu, gpu.stream()).unwrap();
    let results = batch.results(gpu).unwrap();
    assert_eq!(results.len(), inputs.len());
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    batch.download_into(gpu, &mut refs).unwrap();
    (results, outs)
}

/// Asserts that every stream decodes on `dev` to exactly `expected[i]` (output capacity
/// `expected[i].len() + slack`), reading exactly the whole stream.
pub fn expect_decodes(
    dev: &Device,
    label: &str,
    streams: &[&[u8]],
    expected: &[&[u8]],
    slack: usize,
    poison: u8,
    layout: Layout,
) {
    let caps: Vec<usize> = expected.iter().map(|e| e.len() + slack).collect();
    let (results, outs) = inflate_on(dev, streams, &caps, poison, layout);
    for (i, ((r, out), want)) in results.iter().zip(&outs).zip(expected).enumerate() {
        let ctx = || {
            format!(
                "{label}: stream {i} of {} ({} bytes in, {} out, layout {layout:?}, poison \
                 {poison:#x}, device {})",
                streams.len(),
                streams[i].len(),
                want.len(),
                dev.label()
            )
        };
        assert_eq!(r.status, ChunkStatus::Ok, "{}: {r:?}", ctx());
        assert_eq!(r.written, want.len(), "{}: written", ctx());
        assert_eq!(r.consumed, streams[i].len(), "{}: consumed", ctx());
        if let Some(at) = first_difference(&out[..want.len()], want) {
            panic!(
                "{}: output differs first at byte {at}: {:#04x}, want {:#04x}",
                ctx(),
                out[at],
                want[at]
            );
        }
    }
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<usize> {
    if a == b {
        return None;
    }
    Some(
        a.iter()
            .zip(b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len())),
    )
}

// ---------------------------------------------------------------------------------------------
// References: compressors and zlib

/// A reference compressor.
#[derive(Clone, Copy, Debug)]
pub enum RefCompressor {
    /// libdeflate, levels 1..=12.
    Libdeflate(i32),
    /// zlib (flate2 on zlib-rs), levels 0..=9.
    Zlib(u32),
}

/// Every libdeflate level 1..=12 and every zlib level 0..=9.
pub fn all_compressors() -> Vec<RefCompressor> {
    let mut c: Vec<RefCompressor> = (1..=12).map(RefCompressor::Libdeflate).collect();
    c.extend((0..=9).map(RefCompressor::Zlib));
    c
}

enum Engine {
    Libdeflate(Compressor),
    Zlib(Compress),
}

impl Engine {
    fn new(c: RefCompressor) -> Engine {
        match c {
            RefCompressor::Libdeflate(l) => {
                Engine::Libdeflate(Compressor::new(CompressionLvl::new(l).unwrap()))
            }
            RefCompressor::Zlib(l) => Engine::Zlib(Compress::new(Compression::new(l), false)),
        }
    }

    fn compress(&mut self, data: &[u8]) -> Vec<u8> {
        match self {
            Engine::Libdeflate(c) => {
                let mut out = vec![0u8; c.deflate_compress_bound(data.len())];
                let n = c.deflate_compress(data, &mut out).unwrap();
                out.truncate(n);
                out
            }
            Engine::Zlib(c) => {
                c.reset();
                let mut out = Vec::with_capacity(data.len() + data.len() / 64 + 64);
                loop {
                    let before = c.total_in() as usize;
                    let st = c
                        .compress_vec(&data[before..], &mut out, FlushCompress::Finish)
                        .unwrap();
                    if st == Status::StreamEnd {
                        return out;
                    }
                    out.reserve(out.capacity() + 1024);
                }
            }
        }
    }
}

/// `data` cut into `chunk`-byte pieces (one empty piece for empty data), each compressed alone.
pub fn compress_chunks(c: RefCompressor, data: &[u8], chunk: usize) -> Vec<Vec<u8>> {
    let pieces: Vec<&[u8]> = if data.is_empty() {
        vec![data]
    } else {
        data.chunks(chunk).collect()
    };
    pieces
        .par_iter()
        .map_init(|| Engine::new(c), |e, p| e.compress(p))
        .collect()
}

/// What zlib makes of a stream with an output capacity of `cap` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Zlib {
    /// The final block ended after `consumed` bytes of input and `out` fitted.
    Ok { out: Vec<u8>, consumed: usize },
    /// More than `cap` bytes came out before the stream ended or failed.
    Overflow,
    /// Invalid, or the input ended before the final block did.
    Rejected,
}

pub fn zlib_inflate(input: &[u8], cap: usize) -> Zlib {
    let mut d = Decompress::new(false);
    let mut out = vec![0u8; cap + 1];
    loop {
        let (in_before, out_before) = (d.total_in(), d.total_out());
        let r = d.decompress(
            &input[in_before as usize..],
            &mut out[out_before as usize..],
            FlushDecompress::Finish,
        );
        let written = d.total_out() as usize;
        if written > cap {
            return Zlib::Overflow;
        }
        match r {
            Ok(Status::StreamEnd) => {
                out.truncate(written);
                return Zlib::Ok {
                    out,
                    consumed: d.total_in() as usize,
                };
            }
            Ok(_) if d.total_in() != in_before || d.total_out() != out_before => continue,
            _ => return Zlib::Rejected,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Data

/// The Canterbury and Calgary corpora (name, bytes) of the repository's test data:
/// `$WARPZIP_REPO_ROOT/testdata/corpora` when that variable is set, else the one two levels
/// above this crate. Fails when they are missing.
pub fn corpus_files() -> Vec<(String, Vec<u8>)> {
    let mut tried = Vec::new();
    if let Some(root) = std::env::var_os("WARPZIP_REPO_ROOT") {
        tried.push(PathBuf::from(root).join("testdata/corpora"));
    }
    tried.push(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/corpora"));
    let Some(root) = tried.iter().find(|p| p.is_dir()) else {
        panic!("the repository's testdata/corpora folder is missing; tried {tried:?}");
    };
    let mut files = Vec::new();
    for corpus in ["canterbury", "calgary"] {
        let dir = root.join(corpus);
        let mut these: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_file())
            .map(|p| {
                let name = format!("{corpus}/{}", p.file_name().unwrap().to_string_lossy());
                (name, std::fs::read(&p).unwrap())
            })
            .collect();
        these.sort();
        assert!(!these.is_empty(), "no files in {}", dir.display());
        files.extend(these);
    }
    files
}

/// Random bytes and highly compressible data of about `n` bytes (name, bytes).
pub fn synthetic(n: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = StdRng::seed_from_u64(seed);
    let random: Vec<u8> = (0..n + 1).map(|_| rng.gen()).collect();
    let zeros = vec![0u8; n];
    let period: Vec<u8> = (0..n).map(|i| b"abc"[i % 3]).collect();
    let words = [
        "the ", "deflate ", "stream ", "warp ", "of ", "GPU ", "and ", "lane ", "\n",
    ];
    let mut text = Vec::with_capacity(n);
    while text.len() < n {
        text.extend_from_slice(words[rng.gen_range(0..words.len())].as_bytes());
    }
    let mut runs = Vec::with_capacity(n);
    while runs.len() < n {
        let b: u8 = rng.gen();
        let len = rng.gen_range(1..3000);
        runs.extend(std::iter::repeat_n(b, len));
    }
    runs.truncate(n);
    // Far repeats: a random 32 KiB block repeated with rare changes (matches at 32768).
    let block: Vec<u8> = (0..32768).map(|_| rng.gen()).collect();
    let mut far = Vec::with_capacity(n);
    while far.len() < n {
        far.extend_from_slice(&block);
        let at = far.len() - rng.gen_range(1..32768);
        far[at] ^= 1;
    }
    far.truncate(n);
    vec![
        ("random".into(), random),
        ("zeros".into(), zeros),
        ("abc".into(), period),
        ("words".into(), text),
        ("runs".into(), runs),
        ("far-repeats".into(), far),
    ]
}

// ---------------------------------------------------------------------------------------------
// Differential against libdeflate and zlib

/// How much of the matrix a run covers.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// Every file at every level and every chunk size (GPU runs); else a CI-sized subset.
    pub full: bool,
}

/// One file's pieces and their streams: (file index, pieces, streams).
type Compressed<'a> = (usize, Vec<&'a [u8]>, Vec<Vec<u8>>);

/// How a file is cut into streams.
#[derive(Clone, Copy, Debug)]
enum Cut {
    /// The whole file in chunks of this many bytes.
    Whole(usize),
    /// A prefix of the file in chunks of this many bytes.
    Prefix(usize),
    /// No bytes at all: one empty stream.
    Empty,
}

/// Chunk sizes over whole files, and the small ones used on a prefix of each file.
const BIG_CHUNKS: [usize; 6] = [65535, 65536, 65537, 131072, 1 << 20, usize::MAX];
const SMALL_CHUNKS: [usize; 4] = [1, 31, 32, 33];

/// Every file compressed by `comps`, cut at awkward chunk sizes, must inflate to itself.
pub fn differential(
    dev: &Device,
    files: &[(String, Vec<u8>)],
    comps: &[RefCompressor],
    scale: Scale,
) {
    let prefix = if scale.full { 4096 } else { 512 };
    for (ci, &c) in comps.iter().enumerate() {
        // Compress every file at every chunk size on the CPU threads, then decode by file.
        let jobs: Vec<(usize, Cut)> = (0..files.len())
            .flat_map(|f| {
                let mut cuts: Vec<Cut> = if scale.full {
                    BIG_CHUNKS.iter().map(|&s| Cut::Whole(s)).collect()
                } else {
                    // CI: one big chunking per compressor, rotating, and whole files.
                    vec![Cut::Whole(BIG_CHUNKS[(ci + f) % 5]), Cut::Whole(usize::MAX)]
                };
                cuts.extend(SMALL_CHUNKS.iter().map(|&s| Cut::Prefix(s)));
                cuts.push(Cut::Empty);
                cuts.into_iter().map(move |s| (f, s))
            })
            .collect();
        let compressed: Vec<Compressed> = jobs
            .par_iter()
            .map(|&(f, cut)| {
                let data: &[u8] = &files[f].1;
                let pieces: Vec<&[u8]> = match cut {
                    Cut::Empty => vec![&data[..0]],
                    Cut::Prefix(s) => data[..data.len().min(prefix)].chunks(s).collect(),
                    Cut::Whole(s) => data.chunks(s).collect(),
                };
                let mut e = Engine::new(c);
                let streams = pieces.iter().map(|p| e.compress(p)).collect();
                (f, pieces, streams)
            })
            .collect();
        for f in 0..files.len() {
            let mut streams: Vec<&[u8]> = Vec::new();
            let mut expected: Vec<&[u8]> = Vec::new();
            for (_, pieces, s) in compressed.iter().filter(|j| j.0 == f) {
                streams.extend(s.iter().map(|v| v.as_slice()));
                expected.extend(pieces.iter().copied());
            }
            let label = format!("{} by {c:?}", files[f].0);
            let layout = match (ci + f) % 3 {
                0 => Layout::Packed,
                1 => Layout::Aligned,
                _ => Layout::Scattered((ci * 1000 + f) as u64),
            };
            let poison = [0xA5, 0x00, 0xFF][(ci + 2 * f) % 3];
            // Exact capacities on every other run, a little room on the others.
            let slack = [0, 1, 13][(ci + f) % 3];
            expect_decodes(dev, &label, &streams, &expected, slack, poison, layout);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Crafted valid streams

/// A crafted stream and what it must inflate to.
pub struct Valid {
    pub name: String,
    pub stream: Vec<u8>,
    pub data: Vec<u8>,
}

fn valid(name: &str, stream: Vec<u8>, data: Vec<u8>) -> Valid {
    Valid {
        name: name.to_string(),
        stream,
        data,
    }
}

/// Fixed-block tokens of `cost` bits in total (8, 9, 12 or 13 bits each: literals 0..=143 and
/// 144..=255, Match{3,1} and Match{11,1}); literals come first so the matches have history.
fn tokens_of_bits(cost: usize) -> Vec<Token> {
    for m13 in 0..8 {
        for m12 in 0..8 {
            for l9 in 0..8 {
                let used = 13 * m13 + 12 * m12 + 9 * l9;
                if used > cost || !(cost - used).is_multiple_of(8) {
                    continue;
                }
                let l8 = (cost - used) / 8;
                if m12 + m13 > 0 && l8 + l9 == 0 {
                    continue;
                }
                let mut t: Vec<Token> =
                    (0..l8).map(|i| Token::Lit(b'0' + (i % 10) as u8)).collect();
                t.extend((0..l9).map(|i| Token::Lit(200 + i as u8)));
                t.extend((0..m12).map(|_| Token::Match { len: 3, dist: 1 }));
                t.extend((0..m13).map(|_| Token::Match { len: 11, dist: 1 }));
                return t;
            }
        }
    }
    panic!("no token mix of {cost} bits");
}

/// Random tokens valid after `history` bytes of output.
fn random_tokens(rng: &mut StdRng, history: usize, n: usize) -> Vec<Token> {
    let mut out_len = history;
    let mut t = Vec::with_capacity(n);
    for _ in 0..n {
        if out_len > 0 && rng.gen_ratio(1, 3) {
            let dist = rng.gen_range(1..=out_len.min(32768)) as u16;
            let len = if rng.gen_ratio(1, 8) {
                258
            } else {
                rng.gen_range(3..=258)
            };
            t.push(Token::Match { len, dist });
            out_len += len as usize;
        } else {
            t.push(Token::Lit(rng.gen()));
            out_len += 1;
        }
    }
    t
}

/// Streams that are valid but hard: long and far matches, empty and stored blocks, blocks
/// ending on 4- and 128-byte boundaries, codes of every length 1..=15, one-code distance
/// tables, thousands of tiny blocks, repeat codes across the literal/distance boundary.
pub fn pathological() -> Vec<Valid> {
    let mut rng = StdRng::seed_from_u64(0xDEF1);
    let mut v = Vec::new();

    // 258-byte matches at distance 1, fixed and dynamic.
    let mut t = vec![Token::Lit(7)];
    t.extend(std::iter::repeat_n(
        Token::Match { len: 258, dist: 1 },
        4000,
    ));
    let data = expand(&[], &t);
    let mut w = DeflateWriter::new();
    w.fixed(true, &t);
    v.push(valid("258 at distance 1, fixed", w.finish(), data.clone()));
    let mut w = DeflateWriter::new();
    w.dynamic_auto(true, &t);
    v.push(valid("258 at distance 1, dynamic", w.finish(), data));

    // Distance 32768 after a 32 KiB stored block; and across several blocks.
    let history: Vec<u8> = (0..32768).map(|_| rng.gen()).collect();
    let mut t = Vec::new();
    for i in 0..300 {
        t.push(Token::Match {
            len: [258, 3, 4, 100][i % 4],
            dist: 32768,
        });
        t.push(Token::Lit(i as u8));
    }
    let mut data = history.clone();
    data.extend(expand(&history, &t));
    for dynamic in [false, true] {
        let mut w = DeflateWriter::new();
        w.stored(false, &history);
        if dynamic {
            w.dynamic_auto(true, &t);
        } else {
            w.fixed(true, &t);
        }
        v.push(valid(
            &format!("distance 32768, dynamic {dynamic}"),
            w.finish(),
            data.clone(),
        ));
    }
    let mut w = DeflateWriter::new();
    let mut data = Vec::new();
    for b in 0..12 {
        let t = if data.is_empty() {
            (0..5000).map(|_| Token::Lit(rng.gen())).collect()
        } else {
            random_tokens(&mut rng, data.len(), 700)
        };
        let more = expand(&data, &t);
        match b % 3 {
            0 => w.fixed(b == 11, &t),
            1 => w.dynamic_auto(b == 11, &t),
            _ => w.stored_all(b == 11, &more),
        }
        data.extend(more);
    }
    v.push(valid("far matches across 12 blocks", w.finish(), data));

    // Empty blocks of every kind, and an empty final stored block.
    let mut w = DeflateWriter::new();
    w.fixed(false, &[]);
    w.stored(false, &[]);
    let only_eob = {
        let mut lit = vec![0u8; 257];
        lit[256] = 1;
        Dynamic {
            lit_lens: lit,
            dist_lens: vec![0],
            ..Dynamic::default()
        }
    };
    w.dynamic(false, &only_eob, &[]);
    w.fixed(false, &[]);
    w.stored(true, &[]);
    v.push(valid("empty blocks", w.finish(), Vec::new()));
    let mut w = DeflateWriter::new();
    w.stored(true, &[]);
    v.push(valid("one empty stored block", w.finish(), Vec::new()));
    let mut w = DeflateWriter::new();
    w.fixed(true, &[]);
    v.push(valid("one empty fixed block", w.finish(), Vec::new()));
    let mut w = DeflateWriter::new();
    w.dynamic(true, &only_eob, &[]);
    v.push(valid(
        "dynamic block with only end-of-block",
        w.finish(),
        Vec::new(),
    ));

    // Stored blocks of 65535 bytes and of 0.
    let big: Vec<u8> = (0..3 * 65535).map(|_| rng.gen()).collect();
    let mut w = DeflateWriter::new();
    for (i, c) in big.chunks(65535).enumerate() {
        w.stored(false, c);
        if i == 1 {
            w.stored(false, &[]);
        }
    }
    w.stored(true, &[]);
    v.push(valid("stored 65535 x3 and empty", w.finish(), big));

    // Blocks ending exactly at input bytes 4 and 128, 256 (from the stream's start).
    let mut w = DeflateWriter::new();
    let stored: Vec<u8> = (0..123).collect();
    w.stored(false, &stored);
    assert_eq!(w.bit_len(), 128 * 8);
    let t = tokens_of_bits(128 * 8 - 3 - 7);
    w.fixed(false, &t);
    assert_eq!(w.bit_len(), 256 * 8);
    w.fixed(true, &[Token::Lit(b'!')]);
    let mut data = stored.clone();
    data.extend(expand(&[], &t));
    data.push(b'!');
    v.push(valid(
        "blocks ending at input bytes 128 and 256",
        w.finish(),
        data,
    ));
    let mut w = DeflateWriter::new();
    let t = tokens_of_bits(32 - 3 - 7);
    w.fixed(false, &t);
    assert_eq!(w.bit_len(), 32);
    w.stored(true, b"tail");
    let mut data = expand(&[], &t);
    data.extend_from_slice(b"tail");
    v.push(valid("block ending at input byte 4", w.finish(), data));
    let t = tokens_of_bits(128 * 8 - 3 - 7);
    let mut w = DeflateWriter::new();
    w.fixed(true, &t);
    assert_eq!(w.bit_len(), 128 * 8);
    v.push(valid(
        "final block ending at input byte 128",
        w.finish(),
        expand(&[], &t),
    ));

    // Blocks ending when the output reaches 4, 128 and 65536 bytes.
    let mut w = DeflateWriter::new();
    let mut data = Vec::new();
    for (i, n) in [4usize, 124, 65536 - 128, 1].into_iter().enumerate() {
        let t = random_tokens(&mut rng, data.len(), n);
        // Trim to exactly n bytes: literals only where the count matters.
        let mut more = expand(&data, &t);
        more.truncate(n);
        let t: Vec<Token> = more.iter().map(|&b| Token::Lit(b)).collect();
        if i % 2 == 0 {
            w.fixed(i == 3, &t);
        } else {
            w.dynamic_auto(i == 3, &t);
        }
        data.extend(more);
    }
    v.push(valid(
        "blocks ending at output bytes 4, 128, 65536",
        w.finish(),
        data,
    ));

    // Every code length 1..=15 in both tables: literals 'a'..='n' of lengths 1..=14, length
    // symbol 284 and end-of-block of length 15; distance codes 0..=14 of lengths 1..=15 and
    // code 29 of length 15. Matches cost up to 15+5+15+13 bits.
    let mut lit = vec![0u8; 285];
    for (i, b) in (b'a'..=b'n').enumerate() {
        lit[b as usize] = i as u8 + 1;
    }
    lit[284] = 15;
    lit[256] = 15;
    let mut dist = vec![0u8; 30];
    for (c, l) in dist.iter_mut().take(15).enumerate() {
        *l = c as u8 + 1;
    }
    dist[29] = 15;
    assert_eq!(Table::new(&lit).kraft(), 32768);
    assert_eq!(Table::new(&dist).kraft(), 32768);
    let mut t: Vec<Token> = (0..30000)
        .map(|i| Token::Lit(b'a' + (i as u32).trailing_zeros().min(13) as u8))
        .collect();
    for round in 0..3 {
        for code in (0..15).chain([29]) {
            let d = DIST_BASE[code] + ((round * 7) % (1u32 << DIST_EXTRA[code])) as u16;
            t.push(Token::Match {
                len: 227 + (round * 11 % 31) as u16,
                dist: d,
            });
            t.push(Token::Lit(b'n'));
        }
    }
    let d = Dynamic {
        lit_lens: lit,
        dist_lens: dist,
        ..Dynamic::default()
    };
    let mut w = DeflateWriter::new();
    w.dynamic(true, &d, &t);
    v.push(valid(
        "code lengths 1..15 in both tables",
        w.finish(),
        expand(&[], &t),
    ));

    // Fibonacci frequencies: a Huffman code as deep as the 15-bit limit allows.
    let mut fib = vec![1u64, 1];
    while fib.len() < 24 {
        fib.push(fib[fib.len() - 1] + fib[fib.len() - 2]);
    }
    let mut data = Vec::new();
    for (i, &f) in fib.iter().enumerate() {
        data.extend(std::iter::repeat_n(b'A' + i as u8, f as usize));
    }
    // Shuffle so that literals, not matches, carry the frequencies.
    for i in (1..data.len()).rev() {
        data.swap(i, rng.gen_range(0..=i));
    }
    let t: Vec<Token> = data.iter().map(|&b| Token::Lit(b)).collect();
    let d = Dynamic::for_tokens(&t);
    let deepest = *d.lit_lens.iter().max().unwrap();
    assert!(deepest >= 13, "Fibonacci code only {deepest} bits deep");
    let mut w = DeflateWriter::new();
    w.dynamic(true, &d, &t);
    v.push(valid("Fibonacci literal frequencies", w.finish(), data));

    // A distance table with a single code of length 1 (RFC 1951 allows it), codes 0 and 3.
    for code in [0usize, 3, 29] {
        let start: Vec<u8> = (0..DIST_BASE[code] as usize).map(|i| i as u8).collect();
        let mut t: Vec<Token> = start.iter().map(|&b| Token::Lit(b)).collect();
        for i in 0..50 {
            t.push(Token::Match {
                len: 3 + i * 5,
                dist: DIST_BASE[code],
            });
        }
        let mut d = Dynamic::for_tokens(&t);
        assert_eq!(d.dist_lens.iter().filter(|&&l| l > 0).count(), 1);
        d.dist_lens[code] = 1;
        let mut w = DeflateWriter::new();
        w.dynamic(true, &d, &t);
        v.push(valid(
            &format!("single distance code {code}"),
            w.finish(),
            expand(&[], &t),
        ));
    }

    // Literal-only dynamic block with an empty distance table.
    let t: Vec<Token> = (0..1000).map(|i| Token::Lit((i * 7) as u8)).collect();
    let mut d = Dynamic::for_tokens(&t);
    d.dist_lens = vec![0; 5];
    let mut w = DeflateWriter::new();
    w.dynamic(true, &d, &t);
    v.push(valid("empty distance table", w.finish(), expand(&[], &t)));

    // Code-length repeats (16 and 18) across the literal/distance boundary.
    let mut lit = vec![9u8; 256];
    lit.extend([6u8; 16]);
    lit.extend([5u8; 8]);
    let dist = vec![5u8, 5, 5, 5, 3, 3, 3, 3, 3, 3, 3];
    assert_eq!(Table::new(&lit).kraft(), 32768);
    assert_eq!(Table::new(&dist).kraft(), 32768);
    let mut t: Vec<Token> = (0..=255u8).map(Token::Lit).collect();
    for base in &DIST_BASE[..11] {
        for len in [3u16, 4, 10, 31, 34, 50, 51, 57, 58] {
            t.push(Token::Match {
                len,
                dist: base + 1,
            });
        }
    }
    let d = Dynamic {
        lit_lens: lit.clone(),
        dist_lens: dist,
        ..Dynamic::default()
    };
    let mut w = DeflateWriter::new();
    w.dynamic(true, &d, &t);
    v.push(valid(
        "repeat 16 across the boundary",
        w.finish(),
        expand(&[], &t),
    ));
    let mut lit0 = lit;
    lit0.extend([0u8; 6]); // 286 symbols, the last six unused
    let mut dist0 = vec![0u8; 28];
    dist0.extend([1u8, 1]);
    let t: Vec<Token> = (0..=255u8).map(Token::Lit).collect();
    let d = Dynamic {
        lit_lens: lit0,
        dist_lens: dist0,
        ..Dynamic::default()
    };
    let mut w = DeflateWriter::new();
    w.dynamic(true, &d, &t);
    v.push(valid(
        "zero run across the boundary",
        w.finish(),
        expand(&[], &t),
    ));

    // Every literal, every length symbol and every distance code in fixed blocks.
    let mut t: Vec<Token> = (0..=255u8).map(Token::Lit).collect();
    let history: Vec<u8> = (0..32768).map(|_| rng.gen()).collect();
    for i in 0..29 {
        for (c, &base) in DIST_BASE.iter().enumerate() {
            t.push(Token::Match {
                len: LEN_BASE[i] + if LEN_EXTRA[i] > 0 { 1 } else { 0 },
                dist: base + (DIST_EXTRA[c] > 0) as u16,
            });
        }
    }
    let mut w = DeflateWriter::new();
    w.stored(false, &history);
    w.fixed(true, &t);
    let mut data = history.clone();
    data.extend(expand(&history, &t));
    v.push(valid("every fixed symbol", w.finish(), data));

    // Thousands of tiny blocks of all three kinds.
    let mut w = DeflateWriter::new();
    let mut data = Vec::new();
    let n = 3000;
    for b in 0..n {
        let last = b == n - 1;
        match rng.gen_range(0..4) {
            0 => {
                let s: Vec<u8> = (0..rng.gen_range(0..6)).map(|_| rng.gen()).collect();
                w.stored(last, &s);
                data.extend(s);
            }
            1 => {
                let n = rng.gen_range(0..4);
                let t = random_tokens(&mut rng, data.len(), n);
                w.fixed(last, &t);
                data.extend(expand(&data, &t));
            }
            _ => {
                let n = rng.gen_range(1..12);
                let t = random_tokens(&mut rng, data.len(), n);
                w.dynamic_auto(last, &t);
                data.extend(expand(&data, &t));
            }
        }
    }
    v.push(valid("3000 tiny blocks", w.finish(), data));

    // Our own dynamic blocks over compressible data, blocks of random sizes.
    for (name, data) in synthetic(200_000, 5).into_iter().skip(1) {
        let t = lz77(&data);
        let mut w = DeflateWriter::new();
        let mut at = 0;
        while at < t.len() {
            let n = rng.gen_range(1..20000).min(t.len() - at);
            w.dynamic_auto(at + n == t.len(), &t[at..at + n]);
            at += n;
        }
        assert_eq!(expand(&[], &t), data);
        v.push(valid(
            &format!("lz77 dynamic blocks over {name}"),
            w.finish(),
            data,
        ));
    }
    v
}

/// Every pathological stream inflates correctly, by zlib (checking the writer) and on `dev`,
/// at several layouts and poisons.
pub fn pathological_decode(dev: &Device) {
    let cases = pathological();
    for c in &cases {
        match zlib_inflate(&c.stream, c.data.len()) {
            Zlib::Ok { out, consumed } => {
                assert!(out == c.data, "{}: zlib decodes other bytes", c.name);
                assert_eq!(consumed, c.stream.len(), "{}: zlib consumed", c.name);
            }
            other => panic!("{}: zlib says {other:?}", c.name),
        }
    }
    let streams: Vec<&[u8]> = cases.iter().map(|c| c.stream.as_slice()).collect();
    let data: Vec<&[u8]> = cases.iter().map(|c| c.data.as_slice()).collect();
    for (i, layout) in [
        Layout::Packed,
        Layout::Aligned,
        Layout::Scattered(3),
        Layout::Api,
    ]
    .into_iter()
    .enumerate()
    {
        for (k, c) in cases.iter().enumerate() {
            expect_decodes(
                dev,
                &c.name,
                &streams[k..=k],
                &data[k..=k],
                i,
                [0x00, 0xFF, 0x5A, 0x00][i],
                layout,
            );
        }
        expect_decodes(dev, "all pathological", &streams, &data, i, 0xC3, layout);
    }
}

// ---------------------------------------------------------------------------------------------
// Crafted invalid streams

/// A crafted stream, its output capacity, and the status each device must give.
pub struct Invalid {
    pub name: String,
    pub stream: Vec<u8>,
    pub cap: usize,
    pub gpu: ChunkStatus,
    pub cpu: ChunkStatus,
    /// Whether zlib decodes it (only the `Overflow` cases, with more room).
    pub zlib_rejects: bool,
}

fn invalid(name: &str, stream: Vec<u8>, cap: usize, gpu: ChunkStatus, cpu: ChunkStatus) -> Invalid {
    Invalid {
        name: name.to_string(),
        stream,
        cap,
        gpu,
        cpu,
        zlib_rejects: true,
    }
}

/// Streams that must not decode, with the status each path reports.
pub fn crafted_invalid() -> Vec<Invalid> {
    use ChunkStatus::{BadDistance, Corrupt, Ok, Overflow, Truncated};
    let mut rng = StdRng::seed_from_u64(0xBAD);
    let mut v = Vec::new();

    v.push(invalid("empty input", Vec::new(), 100, Truncated, Corrupt));
    v.push(invalid(
        "one byte, a non-final fixed header",
        vec![0x02],
        100,
        Truncated,
        Corrupt,
    ));

    // Reserved block type 3, first and after a stored block.
    for last in [false, true] {
        let mut w = DeflateWriter::new();
        w.header(last, 3);
        w.w.bits(rng.gen(), 32);
        v.push(invalid(
            &format!("block type 3, final {last}"),
            w.finish(),
            100,
            Corrupt,
            Corrupt,
        ));
    }
    let mut w = DeflateWriter::new();
    w.stored(false, b"hello");
    w.header(true, 3);
    w.w.bits(0, 16);
    v.push(invalid(
        "block type 3 after a stored block",
        w.finish(),
        100,
        Corrupt,
        Corrupt,
    ));

    // Stored blocks: LEN/NLEN mismatch, LEN beyond the input, header cut short.
    let mut w = DeflateWriter::new();
    w.stored_raw(true, 5, !5 ^ 0x0100, b"hello");
    v.push(invalid(
        "stored LEN/NLEN mismatch",
        w.finish(),
        100,
        Corrupt,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored_raw(true, 0, 0, &[]);
    v.push(invalid(
        "stored LEN 0, NLEN 0",
        w.finish(),
        100,
        Corrupt,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored_raw(true, 100, !100, &[7u8; 99]);
    v.push(invalid(
        "stored LEN past the input",
        w.finish(),
        200,
        Truncated,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored(true, &[1u8; 10]);
    let mut s = w.finish();
    s.truncate(3);
    v.push(invalid(
        "stored header cut in NLEN",
        s,
        100,
        Truncated,
        Corrupt,
    ));

    // Missing final block: input ends after non-final blocks.
    let mut w = DeflateWriter::new();
    w.fixed(false, &[Token::Lit(b'a'), Token::Lit(b'b')]);
    v.push(invalid(
        "only a non-final fixed block",
        w.finish(),
        100,
        Truncated,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored(false, b"abc");
    w.fixed(false, &[Token::Lit(b'a')]);
    w.dynamic_auto(false, &[Token::Lit(b'a'), Token::Match { len: 5, dist: 1 }]);
    w.stored(false, &[]);
    v.push(invalid(
        "four non-final blocks",
        w.finish(),
        100,
        Truncated,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.fixed_open(true, &[Token::Lit(b'a'); 30]);
    v.push(invalid(
        "final fixed block without end-of-block",
        w.finish(),
        100,
        Truncated,
        Corrupt,
    ));

    // Cut inside a dynamic header and inside its code lengths.
    let t = random_tokens(&mut rng, 0, 300);
    let mut w = DeflateWriter::new();
    w.dynamic_auto(true, &t);
    let full = w.finish();
    for cut in [1usize, 2, 3, 5, 9, 20] {
        v.push(invalid(
            &format!("dynamic block cut at byte {cut}"),
            full[..cut].to_vec(),
            100_000,
            Truncated,
            Corrupt,
        ));
    }

    // Lit/len symbols 286 and 287 (fixed blocks give them codes): libdeflate reads them as
    // length 258; zlib rejects them.
    for sym in [286u16, 287] {
        let mut w = DeflateWriter::new();
        w.fixed(
            true,
            &[
                Token::Lit(b'x'),
                Token::LitLenSym {
                    sym,
                    extra: 0,
                    nextra: 0,
                },
                Token::DistSym {
                    sym: 0,
                    extra: 0,
                    nextra: 0,
                },
            ],
        );
        v.push(invalid(
            &format!("fixed lit/len symbol {sym}"),
            w.finish(),
            1000,
            Corrupt,
            Ok,
        ));
    }

    // Distance codes 30 and 31: early (libdeflate rejects too, as too far) and after 32 KiB
    // (libdeflate reads them as code 29).
    for sym in [30u16, 31] {
        let mut w = DeflateWriter::new();
        w.fixed(
            true,
            &[
                Token::Lit(b'x'),
                Token::LitLenSym {
                    sym: 257,
                    extra: 0,
                    nextra: 0,
                },
                Token::DistSym {
                    sym,
                    extra: 0,
                    nextra: 13,
                },
            ],
        );
        v.push(invalid(
            &format!("distance code {sym} early"),
            w.finish(),
            1000,
            Corrupt,
            Corrupt,
        ));
        let mut w = DeflateWriter::new();
        w.stored(false, &vec![9u8; 32768]);
        w.fixed(
            true,
            &[
                Token::LitLenSym {
                    sym: 257,
                    extra: 0,
                    nextra: 0,
                },
                Token::DistSym {
                    sym,
                    extra: 5,
                    nextra: 13,
                },
            ],
        );
        v.push(invalid(
            &format!("distance code {sym} after 32 KiB"),
            w.finish(),
            40000,
            Corrupt,
            Ok,
        ));
    }

    // Distances before the start of the output.
    let mut w = DeflateWriter::new();
    w.fixed(true, &[Token::Lit(b'a'), Token::Match { len: 3, dist: 2 }]);
    v.push(invalid(
        "distance 2 after 1 byte",
        w.finish(),
        100,
        BadDistance,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.fixed(true, &[Token::Match { len: 3, dist: 1 }]);
    v.push(invalid(
        "match before any output",
        w.finish(),
        100,
        BadDistance,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored(false, &[1u8; 100]);
    w.fixed(true, &[Token::Match { len: 10, dist: 101 }]);
    v.push(invalid(
        "distance 101 after 100 bytes, next block",
        w.finish(),
        1000,
        BadDistance,
        Corrupt,
    ));
    let mut w = DeflateWriter::new();
    w.stored(false, &vec![1u8; 32767]);
    w.dynamic_auto(
        true,
        &[Token::Match {
            len: 258,
            dist: 32768,
        }],
    );
    v.push(invalid(
        "distance 32768 after 32767 bytes",
        w.finish(),
        40000,
        BadDistance,
        Corrupt,
    ));

    // Dynamic tables: over-subscribed and incomplete literal/length, distance and code-length
    // codes; repeats with nothing to repeat or past the end; HLIT and HDIST out of range;
    // no end-of-block code.
    let body = |w: &mut DeflateWriter, rng: &mut StdRng| {
        for _ in 0..8 {
            w.w.bits(rng.gen(), 32);
        }
    };
    let base = {
        let t: Vec<Token> = b"abcabcabc".iter().map(|&b| Token::Lit(b)).collect();
        Dynamic::for_tokens(&t)
    };
    let mut lit_over = vec![0u8; 257];
    lit_over[b'a' as usize] = 1;
    lit_over[b'b' as usize] = 1;
    lit_over[256] = 1;
    let mut lit_incomplete = vec![0u8; 257];
    lit_incomplete[b'a' as usize] = 2;
    lit_incomplete[256] = 2;
    let mut no_eob = vec![0u8; 257];
    no_eob[b'a' as usize] = 1;
    no_eob[b'b' as usize] = 1;
    for (name, lit, dist) in [
        ("over-subscribed lit/len code", lit_over, vec![1u8, 1]),
        ("incomplete lit/len code", lit_incomplete, vec![1u8, 1]),
        (
            "over-subscribed distance code",
            base.lit_lens.clone(),
            vec![1u8, 1, 1],
        ),
        (
            "incomplete distance code",
            base.lit_lens.clone(),
            vec![2u8, 2, 0, 0],
        ),
        (
            "incomplete distance code, 15-bit",
            base.lit_lens.clone(),
            vec![1u8, 15],
        ),
        ("no end-of-block code", no_eob, vec![1u8, 1]),
    ] {
        let mut w = DeflateWriter::new();
        w.dynamic_header(
            true,
            &Dynamic {
                lit_lens: lit,
                dist_lens: dist,
                ..Dynamic::default()
            },
        );
        body(&mut w, &mut rng);
        v.push(invalid(name, w.finish(), 1000, Corrupt, Corrupt));
    }
    let mut pre_over = [0u8; 19];
    pre_over[0] = 1;
    pre_over[8] = 1;
    pre_over[1] = 1;
    let mut pre_incomplete = [0u8; 19];
    pre_incomplete[0] = 2;
    pre_incomplete[1] = 2;
    let mut pre_single = [0u8; 19];
    pre_single[0] = 1;
    for (name, pre) in [
        ("over-subscribed code-length code", pre_over),
        ("incomplete code-length code", pre_incomplete),
        ("code-length code of one length-1 code", pre_single),
        ("empty code-length code", [0u8; 19]),
    ] {
        let mut w = DeflateWriter::new();
        w.dynamic_header(
            true,
            &Dynamic {
                precode_lens: Some(pre),
                hclen: Some(19),
                ..base.clone()
            },
        );
        body(&mut w, &mut rng);
        v.push(invalid(name, w.finish(), 1000, Corrupt, Corrupt));
    }
    let mut seq = rle_code_lengths(&[base.lit_lens.clone(), base.dist_lens.clone()].concat());
    seq.insert(0, ClSym { sym: 16, extra: 0 });
    seq.truncate(seq.len() - 1);
    let mut w = DeflateWriter::new();
    w.dynamic_header(
        true,
        &Dynamic {
            sequence: Some(seq),
            ..base.clone()
        },
    );
    body(&mut w, &mut rng);
    v.push(invalid(
        "repeat 16 with no previous length",
        w.finish(),
        1000,
        Corrupt,
        Corrupt,
    ));
    let mut seq = rle_code_lengths(&[base.lit_lens.clone(), base.dist_lens.clone()].concat());
    assert_eq!(seq.pop(), Some(ClSym { sym: 0, extra: 0 }));
    seq.push(ClSym {
        sym: 18,
        extra: 127,
    });
    let mut w = DeflateWriter::new();
    w.dynamic_header(
        true,
        &Dynamic {
            sequence: Some(seq),
            ..base.clone()
        },
    );
    body(&mut w, &mut rng);
    v.push(invalid(
        "zero run past HLIT+HDIST",
        w.finish(),
        1000,
        Corrupt,
        Corrupt,
    ));
    let mut seq = rle_code_lengths(&[base.lit_lens.clone(), base.dist_lens.clone()].concat());
    let last_len = seq.iter().rposition(|s| s.sym > 0 && s.sym < 16).unwrap();
    seq.insert(last_len + 1, ClSym { sym: 16, extra: 3 });
    let mut w = DeflateWriter::new();
    w.dynamic_header(
        true,
        &Dynamic {
            sequence: Some(seq),
            ..base.clone()
        },
    );
    body(&mut w, &mut rng);
    v.push(invalid(
        "repeat 16 past HLIT+HDIST",
        w.finish(),
        1000,
        Corrupt,
        Corrupt,
    ));

    // HLIT 287/288 and HDIST 31/32 with otherwise valid codes: zlib refuses the counts,
    // libdeflate decodes.
    let t: Vec<Token> = b"abcabcabc"
        .iter()
        .map(|&b| Token::Lit(b))
        .chain([Token::Match { len: 6, dist: 3 }])
        .collect();
    let ok = Dynamic::for_tokens(&t);
    for (nlit, ndist) in [(287usize, 1usize), (288, 1), (257, 31), (257, 32)] {
        let mut d = ok.clone();
        d.lit_lens.resize(nlit.max(d.lit_lens.len()), 0);
        d.dist_lens.resize(ndist.max(d.dist_lens.len()), 0);
        let mut w = DeflateWriter::new();
        w.dynamic(true, &d, &t);
        v.push(invalid(
            &format!(
                "{} lit/len and {} distance lengths",
                d.lit_lens.len(),
                d.dist_lens.len()
            ),
            w.finish(),
            1000,
            Corrupt,
            Ok,
        ));
    }

    // The unused half of one-codeword codes: bit 1 of a single distance code and of a
    // lit/len code holding only end-of-block. zlib: invalid code; libdeflate: the one symbol.
    let mut d = ok.clone();
    d.dist_lens = vec![0, 0, 1];
    let mut w = DeflateWriter::new();
    let (lit, dist) = w.dynamic_header(true, &d);
    w.tokens(
        &lit,
        &dist,
        &[
            Token::Lit(b'a'),
            Token::Lit(b'b'),
            Token::Lit(b'c'),
            Token::Match { len: 6, dist: 3 },
            Token::LitLenSym {
                sym: 260,
                extra: 0,
                nextra: 0,
            },
            Token::Bits { value: 1, n: 1 },
        ],
    );
    w.end_of_block(&lit);
    v.push(invalid(
        "unused code of a one-code distance table",
        w.finish(),
        1000,
        Corrupt,
        Ok,
    ));
    let mut only_eob = vec![0u8; 257];
    only_eob[256] = 1;
    let mut w = DeflateWriter::new();
    w.dynamic_header(
        true,
        &Dynamic {
            lit_lens: only_eob,
            dist_lens: vec![0],
            ..Dynamic::default()
        },
    );
    w.w.bits(1, 1);
    v.push(invalid(
        "unused code of a one-code lit/len table",
        w.finish(),
        1000,
        Corrupt,
        Ok,
    ));

    // Output overflow: one byte too small, a match running past the end, stored past the end.
    let mut w = DeflateWriter::new();
    w.fixed(true, &[Token::Lit(1), Token::Lit(2), Token::Lit(3)]);
    let mut o = invalid("3 literals into 2 bytes", w.finish(), 2, Overflow, Overflow);
    o.zlib_rejects = false;
    v.push(o);
    let mut w = DeflateWriter::new();
    w.fixed(true, &[Token::Lit(1), Token::Match { len: 258, dist: 1 }]);
    let mut o = invalid(
        "match past the output end",
        w.finish(),
        200,
        Overflow,
        Overflow,
    );
    o.zlib_rejects = false;
    v.push(o);
    let mut w = DeflateWriter::new();
    w.stored(true, &[5u8; 1000]);
    let mut o = invalid(
        "stored block past the output end",
        w.finish(),
        999,
        Overflow,
        Overflow,
    );
    o.zlib_rejects = false;
    v.push(o);
    let mut w = DeflateWriter::new();
    w.fixed(true, &[Token::Lit(1)]);
    let mut o = invalid("1 literal into 0 bytes", w.finish(), 0, Overflow, Overflow);
    o.zlib_rejects = false;
    v.push(o);
    v
}

/// Every crafted invalid stream gets its status on `dev`, and zlib agrees that it is invalid.
pub fn crafted_invalid_statuses(dev: &Device) {
    let cases = crafted_invalid();
    for c in &cases {
        let z = zlib_inflate(&c.stream, c.cap);
        if c.zlib_rejects {
            assert_eq!(z, Zlib::Rejected, "{}: zlib", c.name);
        } else {
            assert_eq!(z, Zlib::Overflow, "{}: zlib", c.name);
        }
    }
    let streams: Vec<&[u8]> = cases.iter().map(|c| c.stream.as_slice()).collect();
    let caps: Vec<usize> = cases.iter().map(|c| c.cap).collect();
    let mut failures = Vec::new();
    for layout in [Layout::Packed, Layout::Scattered(9), Layout::Api] {
        let (results, _) = inflate_on(dev, &streams, &caps, 0x77, layout);
        for (c, r) in cases.iter().zip(&results) {
            let want = if dev.is_gpu() { c.gpu } else { c.cpu };
            if r.status != want {
                failures.push(format!(
                    "{} ({layout:?}): {:?}, want {want:?}",
                    c.name, r.status
                ));
            }
        }
        // One at a time too: a neighbour must not change a verdict.
        if matches!(layout, Layout::Packed) {
            for (k, c) in cases.iter().enumerate() {
                let (r, _) = inflate_on(dev, &streams[k..=k], &caps[k..=k], 0x11, layout);
                let want = if dev.is_gpu() { c.gpu } else { c.cpu };
                if r[0].status != want {
                    failures.push(format!(
                        "{} (alone): {:?}, want {want:?}",
                        c.name, r[0].status
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} wrong statuses:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// Capacity and `consumed`

/// Output room exactly right, one byte short, one byte over; junk after the final block.
pub fn capacity_and_consumed(dev: &Device) {
    let mut rng = StdRng::seed_from_u64(0xCAFE);
    let mut cases: Vec<(String, Vec<u8>, Vec<u8>)> = pathological()
        .into_iter()
        .map(|c| (c.name, c.stream, c.data))
        .collect();
    for (name, data) in synthetic(70_000, 11) {
        for c in [
            RefCompressor::Libdeflate(6),
            RefCompressor::Zlib(0),
            RefCompressor::Zlib(9),
        ] {
            let s = compress_chunks(c, &data, usize::MAX).remove(0);
            cases.push((format!("{name} by {c:?}"), s, data.clone()));
        }
    }
    let streams: Vec<&[u8]> = cases.iter().map(|c| c.1.as_slice()).collect();
    let data: Vec<&[u8]> = cases.iter().map(|c| c.2.as_slice()).collect();
    expect_decodes(
        dev,
        "exact capacity",
        &streams,
        &data,
        0,
        0xEE,
        Layout::Scattered(1),
    );
    expect_decodes(
        dev,
        "one byte more",
        &streams,
        &data,
        1,
        0x11,
        Layout::Packed,
    );

    // One byte short: Overflow (streams with output only).
    let short: Vec<usize> = cases
        .iter()
        .enumerate()
        .filter(|(_, c)| !c.2.is_empty())
        .map(|(i, _)| i)
        .collect();
    let s: Vec<&[u8]> = short.iter().map(|&i| streams[i]).collect();
    let caps: Vec<usize> = short.iter().map(|&i| data[i].len() - 1).collect();
    let (results, _) = inflate_on(dev, &s, &caps, 0x22, Layout::Aligned);
    for (r, &i) in results.iter().zip(&short) {
        assert_eq!(
            r.status,
            ChunkStatus::Overflow,
            "{}: one byte short",
            cases[i].0
        );
    }

    // Junk after the final block is not read: consumed stops at the final block's last byte.
    let junked: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| {
            let mut j = s.to_vec();
            j.extend((0..rng.gen_range(1..300)).map(|_| rng.gen::<u8>()));
            j
        })
        .collect();
    let caps: Vec<usize> = data.iter().map(|d| d.len() + 7).collect();
    let jrefs: Vec<&[u8]> = junked.iter().map(|j| j.as_slice()).collect();
    let (results, outs) = inflate_on(dev, &jrefs, &caps, 0x33, Layout::Scattered(2));
    for (i, r) in results.iter().enumerate() {
        let name = &cases[i].0;
        assert_eq!(r.status, ChunkStatus::Ok, "{name}: with junk after");
        assert_eq!(
            r.consumed,
            streams[i].len(),
            "{name}: consumed with junk after"
        );
        assert_eq!(r.written, data[i].len(), "{name}: written with junk after");
        assert!(
            outs[i][..r.written] == *data[i],
            "{name}: output with junk after"
        );
        match zlib_inflate(&junked[i], caps[i]) {
            Zlib::Ok { consumed, .. } => assert_eq!(consumed, streams[i].len(), "{name}: zlib"),
            z => panic!("{name}: zlib {z:?}"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Random corruption against zlib

/// One mutated stream.
pub struct Mutant {
    pub what: String,
    pub stream: Vec<u8>,
    pub cap: usize,
    /// A strict prefix of a valid stream whose final block ends at its last byte, with room
    /// for all of the stream's output: only `Truncated` is right.
    pub pure_cut: bool,
}

/// Valid streams to mutate (stream, decoded length): libdeflate, zlib and our writer, stored,
/// fixed and dynamic blocks.
fn mutation_bases(rng: &mut StdRng) -> Vec<(String, Vec<u8>, usize)> {
    let mut bases = Vec::new();
    for (name, data) in synthetic(6000, 21) {
        for c in [
            RefCompressor::Libdeflate(1),
            RefCompressor::Libdeflate(6),
            RefCompressor::Libdeflate(12),
            RefCompressor::Zlib(0),
            RefCompressor::Zlib(1),
            RefCompressor::Zlib(9),
        ] {
            let n = rng.gen_range(1..data.len());
            let s = compress_chunks(c, &data[..n], usize::MAX).remove(0);
            bases.push((format!("{name}[..{n}] by {c:?}"), s, n));
        }
    }
    for c in pathological() {
        if c.stream.len() < 40_000 {
            bases.push((c.name, c.stream, c.data.len()));
        }
    }
    for i in 0..20 {
        let t = random_tokens(rng, 0, 50 + i * 20);
        let data = expand(&[], &t);
        let mut w = DeflateWriter::new();
        if i % 2 == 0 {
            w.fixed(true, &t);
        } else {
            w.dynamic_auto(true, &t);
        }
        bases.push((format!("random tokens {i}"), w.finish(), data.len()));
    }
    bases
}

/// Random bit flips, truncations, spliced junk and random bytes.
pub fn mutants(count: usize, seed: u64) -> Vec<Mutant> {
    let mut rng = StdRng::seed_from_u64(seed);
    let bases = mutation_bases(&mut rng);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let kind = rng.gen_range(0..10);
        if kind == 0 {
            // Random bytes, sometimes behind a plausible block header.
            let n = rng.gen_range(0..400);
            let mut s: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            if n > 0 && rng.gen() {
                s[0] = (s[0] & !6) | (rng.gen_range(0..3u8) << 1);
            }
            out.push(Mutant {
                what: format!("{n} random bytes"),
                stream: s,
                cap: rng.gen_range(0..5000),
                pure_cut: false,
            });
            continue;
        }
        let (name, base, len) = &bases[rng.gen_range(0..bases.len())];
        let mut s = base.clone();
        let mut what = name.clone();
        let mut pure_cut = false;
        match kind {
            1..=5 => {
                // Flip 1..=4 bits, often inside the first bytes where headers live.
                for _ in 0..rng.gen_range(1..=4) {
                    if s.is_empty() {
                        break;
                    }
                    let byte = if rng.gen() {
                        rng.gen_range(0..s.len().min(64))
                    } else {
                        rng.gen_range(0..s.len())
                    };
                    let bit = rng.gen_range(0..8);
                    s[byte] ^= 1 << bit;
                    what += &format!(", flip {byte}.{bit}");
                }
            }
            6 | 7 => {
                let cut = rng.gen_range(0..s.len());
                s.truncate(cut);
                what += &format!(", cut at {cut}");
                pure_cut = true;
            }
            8 => {
                let at = rng.gen_range(0..s.len());
                let n = rng.gen_range(1..16).min(s.len() - at);
                for b in &mut s[at..at + n] {
                    *b = rng.gen();
                }
                what += &format!(", {n} random bytes at {at}");
            }
            _ => {
                let byte = rng.gen_range(0..s.len());
                s[byte] ^= 1 << rng.gen_range(0..8);
                let cut = rng.gen_range(0..s.len());
                s.truncate(cut);
                what += &format!(", flip in byte {byte}, cut at {cut}");
            }
        }
        // Mostly room for the original and more; sometimes tight.
        let cap = match rng.gen_range(0..4) {
            0 => *len,
            1 => len.saturating_sub(rng.gen_range(0..4)),
            _ => len + rng.gen_range(0..2000),
        };
        out.push(Mutant {
            what,
            stream: s,
            cap,
            pure_cut: pure_cut && cap >= *len,
        });
    }
    out
}

/// Counts of what the corruption test saw.
#[derive(Debug, Default)]
pub struct CorruptionTally {
    pub zlib_ok: usize,
    pub zlib_rejected: usize,
    pub zlib_overflow: usize,
    /// CPU only: zlib rejects, libdeflate decodes (the known leniencies).
    pub lenient: usize,
}

/// Mutated streams: whatever zlib decodes, `dev` decodes to the same bytes (Ok, same written
/// and consumed); whatever zlib rejects or overflows, `dev` rejects (the GPU: always; the CPU:
/// except for libdeflate's known leniencies, which are counted). Statuses are checked by
/// `cut_streams_are_truncated`.
pub fn random_corruption(dev: &Device, count: usize, seed: u64) -> CorruptionTally {
    let ms = mutants(count, seed);
    let zlib: Vec<Zlib> = ms
        .par_iter()
        .map(|m| zlib_inflate(&m.stream, m.cap))
        .collect();
    let streams: Vec<&[u8]> = ms.iter().map(|m| m.stream.as_slice()).collect();
    let caps: Vec<usize> = ms.iter().map(|m| m.cap).collect();
    let (results, outs) = inflate_on(dev, &streams, &caps, 0x6B, Layout::Scattered(seed));
    let mut tally = CorruptionTally::default();
    let mut failures = Vec::new();
    for (i, ((m, z), (r, out))) in ms
        .iter()
        .zip(&zlib)
        .zip(results.iter().zip(&outs))
        .enumerate()
    {
        let mut fail = |why: String| {
            if failures.len() < 30 {
                failures.push(format!("#{i} {} (cap {}): {why}", m.what, m.cap));
            }
        };
        match z {
            Zlib::Ok {
                out: want,
                consumed,
            } => {
                tally.zlib_ok += 1;
                if r.status != ChunkStatus::Ok {
                    fail(format!(
                        "zlib decodes {} bytes, device says {r:?}",
                        want.len()
                    ));
                } else if r.written != want.len() || r.consumed != *consumed {
                    fail(format!(
                        "zlib wrote {} read {consumed}, device {r:?}",
                        want.len()
                    ));
                } else if out[..r.written] != want[..] {
                    fail("output differs from zlib's".into());
                }
            }
            Zlib::Rejected | Zlib::Overflow => {
                if matches!(z, Zlib::Rejected) {
                    tally.zlib_rejected += 1;
                } else {
                    tally.zlib_overflow += 1;
                }
                if r.status == ChunkStatus::Ok {
                    if !dev.is_gpu() && matches!(z, Zlib::Rejected) {
                        tally.lenient += 1;
                    } else {
                        fail(format!("zlib says {z:?}, device Ok ({r:?})"));
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} mutants misjudged on {} (first 30):\n{}",
        failures.len(),
        dev.label(),
        failures.join("\n")
    );
    assert!(
        tally.zlib_ok > count / 50,
        "too few valid mutants: {tally:?}"
    );
    assert!(
        tally.zlib_rejected > count / 4,
        "too few invalid mutants: {tally:?}"
    );
    tally
}

// ---------------------------------------------------------------------------------------------
// The GPU against the CPU

/// Corrupted, crafted invalid and pathological streams on the CPU and on `gpu`: where both
/// decode, the same bytes, `written` and `consumed`; the GPU never decodes what the CPU
/// rejects; where only the CPU decodes, zlib rejects the stream (libdeflate's leniencies).
pub fn compare_devices(gpu: &Device, count: usize, seed: u64) {
    let mut cases: Vec<(String, Vec<u8>, usize)> = mutants(count, seed)
        .into_iter()
        .map(|m| (m.what, m.stream, m.cap))
        .collect();
    cases.extend(
        crafted_invalid()
            .into_iter()
            .map(|c| (c.name, c.stream, c.cap)),
    );
    cases.extend(
        pathological()
            .into_iter()
            .map(|c| (c.name, c.stream, c.data.len() + 3)),
    );
    let streams: Vec<&[u8]> = cases.iter().map(|c| c.1.as_slice()).collect();
    let caps: Vec<usize> = cases.iter().map(|c| c.2).collect();
    let (rc, oc) = inflate_on(&Device::Cpu, &streams, &caps, 0x00, Layout::Packed);
    let (rg, og) = inflate_on(gpu, &streams, &caps, 0xFF, Layout::Scattered(seed));
    let mut failures = Vec::new();
    let mut cpu_only = 0;
    for (i, c) in cases.iter().enumerate() {
        let (c_ok, g_ok) = (
            rc[i].status == ChunkStatus::Ok,
            rg[i].status == ChunkStatus::Ok,
        );
        let why = match (c_ok, g_ok) {
            (true, true)
                if rc[i].written != rg[i].written
                    || rc[i].consumed != rg[i].consumed
                    || oc[i][..rc[i].written] != og[i][..rg[i].written] =>
            {
                Some(format!(
                    "both decode, differently: CPU {:?}, GPU {:?}",
                    rc[i], rg[i]
                ))
            }
            (false, true) => Some(format!(
                "CPU says {:?}, GPU decodes ({:?})",
                rc[i].status, rg[i]
            )),
            (true, false) => {
                cpu_only += 1;
                match zlib_inflate(&c.1, c.2) {
                    Zlib::Rejected => None,
                    z => Some(format!(
                        "CPU decodes, GPU says {:?}, zlib says {}",
                        rg[i].status,
                        if matches!(z, Zlib::Ok { .. }) {
                            "Ok"
                        } else {
                            "Overflow"
                        }
                    )),
                }
            }
            _ => None,
        };
        if let Some(why) = why {
            if failures.len() < 30 {
                failures.push(format!("#{i} {} (cap {}): {why}", c.0, c.2));
            }
        }
    }
    eprintln!(
        "CPU vs GPU: {} streams, {cpu_only} decoded by the CPU only (zlib rejects them)",
        cases.len()
    );
    assert!(
        failures.is_empty(),
        "CPU and GPU disagree (first 30):\n{}",
        failures.join("\n")
    );
}

/// Valid streams with room to spare: bytes past `written` keep their poison (the kernel writes
/// only what it reports; libdeflate may scribble there, so this is for the GPU).
pub fn no_writes_past_written(dev: &Device) {
    let cases = pathological();
    let streams: Vec<&[u8]> = cases.iter().map(|c| c.stream.as_slice()).collect();
    let caps: Vec<usize> = cases.iter().map(|c| c.data.len() + 301).collect();
    for poison in [0x00u8, 0xFF] {
        let (results, outs) = inflate_on(dev, &streams, &caps, poison, Layout::Scattered(4));
        for ((c, r), out) in cases.iter().zip(&results).zip(&outs) {
            assert_eq!(r.status, ChunkStatus::Ok, "{}", c.name);
            assert_eq!(r.written, c.data.len(), "{}", c.name);
            if let Some(at) = out[r.written..].iter().position(|&b| b != poison) {
                panic!(
                    "{}: byte {} (after the {} written) changed from the poison",
                    c.name,
                    r.written + at,
                    r.written
                );
            }
        }
    }
}

/// Strict prefixes of valid streams, with room for all their output, are `Truncated` on the
/// GPU (`Corrupt` on the CPU), whatever bytes follow them in the batch: the bits past a
/// stream's end must not turn a cut into `Corrupt` (e.g. by decoding as symbol 286 or
/// distance code 30).
pub fn cut_streams_are_truncated(dev: &Device, count: usize, seed: u64) {
    let cuts: Vec<Mutant> = mutants(count * 6, seed)
        .into_iter()
        .filter(|m| m.pure_cut)
        .take(count)
        .collect();
    assert!(cuts.len() > count / 2, "only {} cuts", cuts.len());
    for m in &cuts {
        assert_eq!(
            zlib_inflate(&m.stream, m.cap),
            Zlib::Rejected,
            "{}: zlib",
            m.what
        );
    }
    let want = if dev.is_gpu() {
        ChunkStatus::Truncated
    } else {
        ChunkStatus::Corrupt
    };
    let streams: Vec<&[u8]> = cuts.iter().map(|m| m.stream.as_slice()).collect();
    let caps: Vec<usize> = cuts.iter().map(|m| m.cap).collect();
    let mut failures = Vec::new();
    for layout in [Layout::Packed, Layout::Aligned, Layout::Scattered(seed)] {
        let (results, _) = inflate_on(dev, &streams, &caps, 0x3C, layout);
        for (m, r) in cuts.iter().zip(&results) {
            if r.status != want && failures.len() < 30 {
                failures.push(format!("{} ({layout:?}): {:?}", m.what, r.status));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "cut streams not {want:?} on {} (first 30):\n{}",
        dev.label(),
        failures.join("\n")
    );
}
