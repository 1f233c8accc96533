//! `warpzip demo`: one row per part of warpzip, each run on the kind of data it is made for and
//! checked byte for byte against an independent result:
//!
//! - an ORC file (TPC-DS `customer_demographics`, ZLIB) decoded to Arrow, checked against a
//!   second decoder (the row-group decoder on the CPU, the CPU reader on a GPU);
//! - a gzip file and a BGZF file (made here from bundled and generated text) decompressed;
//! - the `.wz` codecs: ORC RLE v1 and v2 on TPC-H-like integer columns (sorted order keys,
//!   ship dates, quantities), byte RLE on a fax image, Deflate, Snappy and LZ4 on English text;
//! - compaction: the order keys of the lines whose quantity is under 25, against a scalar filter.
//!
//! Every input is bundled in the binary or generated deterministically: no files, no network.
//! A row that fails its check makes the command fail (exit status 1) after the table.

use super::{format_table, Align};
use crate::cli::DemoArgs;
use anyhow::{bail, ensure, Context, Result};
use arrow_array::{
    Array, ArrayRef, BooleanArray, Date32Array, Int16Array, Int32Array, Int64Array, Int8Array,
};
use std::io::Write;
use std::time::{Duration, Instant};
use warpzip::api::{self, CompressOptions};
use warpzip::codec::deflate::gzip::{self, Decoding};
use warpzip::format::ElemType;
use warpzip::ops::compact;
use warpzip::orc::{cpu as orc_cpu, OrcFile};
use warpzip::{CodecId, Device};

/// An ORC file written by Hive: TPC-DS `customer_demographics` (1,920,800 rows), ZLIB, RLE v2.
const ORC_FILE: &[u8] = include_bytes!("../../data/orc/demo-12-zlib.orc");
const ORC_NAME: &str = "demo-12-zlib.orc";
/// English text: Lewis Carroll's *Alice's Adventures in Wonderland* (Canterbury corpus).
const ALICE: &[u8] = include_bytes!("../../data/canterbury/alice29.txt");
/// A CCITT test fax page, one bit per pixel: long runs of white (Canterbury corpus).
const PTT5: &[u8] = include_bytes!("../../data/canterbury/ptt5");
/// ETOPO20 topography (540 x 1081 f32), one of the NOAA sample fields of the test data.
const ETOPO20: &[u8] = include_bytes!("../../../../testdata/fields/etopo20.ROSE.540x1081.f32");

/// Rows of the generated lineitem-like columns.
const LINEITEM_ROWS: usize = 1 << 20;
/// Bytes of generated VCF text compressed as BGZF.
const VCF_BYTES: usize = 3 << 20;
/// Uncompressed bytes per BGZF block (as bgzip writes them).
const BGZF_BLOCK: usize = 0xff00;

/// Timed repetitions: at least this many, and until this much time has passed (capped), so
/// that sub-millisecond calls are not timed once.
const MIN_RUNS: usize = 5;
const MAX_RUNS: usize = 100;
const MIN_TIME: Duration = Duration::from_millis(40);

pub fn run(args: DemoArgs) -> Result<()> {
    let device = super::open_device(args.device.device)?;
    match &device {
        Device::Gpu(_) => println!(
            "warpzip demo on {} (GPU): throughput is end to end from host memory",
            device.label()
        ),
        Device::Cpu => println!("warpzip demo on the CPU"),
    }
    println!(
        "each row runs one part of warpzip on the data it is made for and checks the result \
         byte for byte\n"
    );

    let items = Lineitem::generate(LINEITEM_ROWS);
    let keys = le_bytes(&items.orderkey, i64::to_le_bytes);
    let dates = le_bytes(&items.shipdate, i32::to_le_bytes);
    let quantities = le_bytes(&items.quantity, i32::to_le_bytes);
    let n = LINEITEM_ROWS;

    let mut rows = vec![orc_row(&device), gzip_row(&device), bgzf_row(&device)];
    for (codec, elem, data, what) in [
        (CodecId::OrcRleV1, ElemType::I64, &keys, "l_orderkey"),
        (CodecId::OrcRleV2, ElemType::I64, &keys, "l_orderkey"),
        (CodecId::OrcRleV1, ElemType::I32, &dates, "l_shipdate"),
        (CodecId::OrcRleV2, ElemType::I32, &dates, "l_shipdate"),
        (CodecId::OrcRleV1, ElemType::I32, &quantities, "l_quantity"),
        (CodecId::OrcRleV2, ElemType::I32, &quantities, "l_quantity"),
        (CodecId::For, ElemType::I32, &quantities, "l_quantity"),
        (CodecId::Dfor, ElemType::I64, &keys, "l_orderkey"),
        (CodecId::Rfor, ElemType::I32, &dates, "l_shipdate"),
        (CodecId::Tile, ElemType::I32, &dates, "l_shipdate"),
    ] {
        let detail = match what {
            "l_orderkey" => "sorted",
            "l_shipdate" => "days",
            _ => "1 to 50",
        };
        let label = format!("{what}: {n} x {elem}, {detail}");
        rows.push(wz_row(codec, Some(elem), data, label, &device));
    }
    rows.push(wz_row(
        CodecId::Rle,
        None,
        PTT5,
        "ptt5: fax page, 1 bit per pixel".to_string(),
        &device,
    ));
    rows.push(wz_row(
        CodecId::Deflate,
        None,
        ALICE,
        "alice29.txt: English text".to_string(),
        &device,
    ));
    for codec in [CodecId::Snappy, CodecId::Lz4] {
        rows.push(wz_row(
            codec,
            None,
            ALICE,
            "alice29.txt: English text".to_string(),
            &device,
        ));
    }
    rows.push(compact_row(&items, &device));
    rows.push(sz_row(&device));

    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.check.is_err())
        .map(|r| format!("{} ({})", r.part, r.data))
        .collect();
    let cells: Vec<Vec<String>> = rows.iter().map(Row::cells).collect();
    print!(
        "{}",
        format_table(
            &[
                ("part", Align::Left),
                ("data", Align::Left),
                ("device", Align::Left),
                ("original", Align::Right),
                ("encoded", Align::Right),
                ("ratio", Align::Right),
                ("GB/s", Align::Right),
                ("encode GB/s", Align::Right),
                ("check", Align::Left),
            ],
            &cells,
        )
    );
    println!(
        "\noriginal: uncompressed bytes (ORC: the Arrow values decoded; compact: the values \
         filtered)\n\
         encoded: the ORC, gzip or .wz file; ratio = original / encoded\n\
         GB/s: original bytes per second through the reading side (decode to Arrow, decompress, \
         select);\n\
         encode GB/s: the .wz codecs' compression; medians of {MIN_RUNS} or more runs\n\
         device a/b: encoded on a, decoded on b (the ORC RLE, tile and Deflate encoders run on the CPU)"
    );
    if !failed.is_empty() {
        bail!(
            "{} of {} rows failed their check: {}",
            failed.len(),
            rows.len(),
            failed.join(", ")
        );
    }
    println!(
        "all {} rows verified byte for byte (sz: every value within its bound, checked exactly)",
        rows.len()
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Rows

/// One row of the table.
struct Row {
    part: String,
    data: String,
    device: String,
    original: u64,
    encoded: Option<u64>,
    /// Seconds of the reading side (decode, decompress, select).
    read_s: f64,
    encode_s: Option<f64>,
    /// What the result was checked against, or why the row failed.
    check: std::result::Result<String, String>,
}

impl Row {
    /// A row whose work failed before it could be measured.
    fn failed(part: &str, data: String, error: anyhow::Error) -> Row {
        Row {
            part: part.to_string(),
            data,
            device: String::new(),
            original: 0,
            encoded: None,
            read_s: 0.0,
            encode_s: None,
            check: Err(format!("{error:#}")),
        }
    }

    fn cells(&self) -> Vec<String> {
        let measured = self.original > 0;
        let dash = || "-".to_string();
        vec![
            self.part.clone(),
            self.data.clone(),
            self.device.clone(),
            if measured {
                self.original.to_string()
            } else {
                dash()
            },
            self.encoded.map_or_else(dash, |e| e.to_string()),
            self.encoded
                .map_or_else(dash, |e| format!("{:.2}", ratio(self.original, e))),
            if measured {
                format!("{:.2}", gbps(self.original, self.read_s))
            } else {
                dash()
            },
            self.encode_s
                .map_or_else(dash, |s| format!("{:.2}", gbps(self.original, s))),
            match &self.check {
                Ok(against) => format!("ok ({against})"),
                Err(why) => format!("FAILED: {why}"),
            },
        ]
    }
}

/// Runs `work` for a row; an error becomes a failed row.
fn row(part: &str, data: String, work: impl FnOnce(&mut Row) -> Result<()>) -> Row {
    let mut r = Row {
        part: part.to_string(),
        data: data.clone(),
        device: String::new(),
        original: 0,
        encoded: None,
        read_s: 0.0,
        encode_s: None,
        check: Ok(String::new()),
    };
    match work(&mut r) {
        Ok(()) => r,
        Err(e) => Row::failed(part, data, e),
    }
}

fn short_label(device: &Device) -> &'static str {
    match device {
        Device::Gpu(_) => "gpu",
        Device::Cpu => "cpu",
    }
}

/// The bundled ORC file's integer columns decoded to Arrow on `device`, checked column by
/// column (row count, checksum and every value) against a second decoder.
fn orc_row(device: &Device) -> Row {
    let data = format!("{ORC_NAME}: TPC-DS table, ZLIB");
    row("ORC to Arrow", data, |r| {
        let file = OrcFile::from_bytes(ORC_FILE.to_vec()).context("parsing the ORC file")?;
        let columns: Vec<_> = file.columns().iter().filter(|c| c.is_supported()).collect();
        ensure!(!columns.is_empty(), "the ORC file has no integer columns");
        let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
        let decode = || file.read_batch(Some(&names), device);
        let batch = decode().context("decoding the ORC file")?;
        let rows = file.number_of_rows();
        r.data = format!(
            "{ORC_NAME}: {rows} rows x {} int columns, ZLIB",
            columns.len()
        );
        // The second decoder: on the CPU, each row group decoded on its own from the starts the
        // row index gives; on a GPU, the CPU's whole-stripe reader.
        let (reference, against): (Vec<ArrayRef>, &str) = match device {
            Device::Cpu => (
                columns
                    .iter()
                    .map(|c| orc_cpu::read_column_by_row_groups(&file, c))
                    .collect::<warpzip::Result<_>>()
                    .context("decoding the ORC file row group by row group")?,
                "= row-group decoder",
            ),
            Device::Gpu(_) => (
                file.read_batch(Some(&names), &Device::Cpu)
                    .context("decoding the ORC file on the CPU")?
                    .columns()
                    .to_vec(),
                "= CPU reader",
            ),
        };
        ensure!(
            batch.num_rows() as u64 == rows && batch.num_columns() == reference.len(),
            "decoded {} rows of {} columns, expected {rows} rows of {}",
            batch.num_rows(),
            batch.num_columns(),
            reference.len()
        );
        let mut original = 0u64;
        for ((got, want), name) in batch.columns().iter().zip(&reference).zip(&names) {
            ensure!(
                want.len() as u64 == rows,
                "column {name}: the second decoder gave {} rows, the footer says {rows}",
                want.len()
            );
            let (got_values, want_values) = (values(got)?, values(want)?);
            ensure!(
                checksum(&got_values) == checksum(&want_values) && got_values == want_values,
                "column {name} differs from the second decoder"
            );
            original += value_bytes(got);
        }
        r.device = short_label(device).to_string();
        r.original = original;
        r.encoded = Some(ORC_FILE.len() as u64);
        r.read_s = median_seconds(|| decode().map(drop))?;
        r.check = Ok(against.to_string());
        Ok(())
    })
}

/// A one-member gzip file of English text, as `gzip` writes it.
fn gzip_row(device: &Device) -> Row {
    row("gzip -d", "alice29.txt.gz".to_string(), |r| {
        let mut encoder = flate2::GzBuilder::new()
            .filename("alice29.txt")
            .write(Vec::new(), flate2::Compression::new(9));
        encoder.write_all(ALICE)?;
        let file = encoder.finish()?;
        let members = gunzip(r, &file, ALICE, device)?;
        r.data = format!("alice29.txt.gz: {members} member, level 9");
        Ok(())
    })
}

/// A BGZF file (as `bgzip` writes genomics data: independent members of at most 64 KiB, each
/// recording its size) of generated VCF text.
fn bgzf_row(device: &Device) -> Row {
    row("BGZF -d", "variants.vcf.gz".to_string(), |r| {
        let text = vcf_text(VCF_BYTES);
        let file = bgzf(&text)?;
        let members = gunzip(r, &file, &text, device)?;
        r.data = format!("variants.vcf.gz: {members} BGZF members of VCF");
        Ok(())
    })
}

/// Decompresses a gzip file on `device` and checks it against `original`. A GPU device decodes
/// the members it can split off in one batch; a single member goes to the CPU. Returns the
/// number of members.
fn gunzip(r: &mut Row, file: &[u8], original: &[u8], device: &Device) -> Result<usize> {
    let decoded = gzip::decompress_report(file, device).context("decompressing")?;
    ensure!(
        decoded.data == original,
        "the decompressed bytes differ from the original"
    );
    let on_cpu = decoded
        .members
        .iter()
        .filter(|m| m.decoding == Decoding::Sequential)
        .count();
    r.device = match device {
        Device::Gpu(_) if on_cpu == decoded.members.len() => "cpu".to_string(),
        Device::Gpu(_) if on_cpu > 0 => "gpu+cpu".to_string(),
        other => short_label(other).to_string(),
    };
    r.original = original.len() as u64;
    r.encoded = Some(file.len() as u64);
    r.read_s = median_seconds(|| gzip::decompress(file, device).map(drop))?;
    r.check = Ok("= original".to_string());
    Ok(decoded.members.len())
}

/// `data` through a `.wz` codec and back on `device`.
fn wz_row(
    codec: CodecId,
    elem: Option<ElemType>,
    data: &[u8],
    label: String,
    device: &Device,
) -> Row {
    row(codec.name(), label, |r| {
        let mut opts = CompressOptions::for_codec(codec);
        opts.elem_type = elem;
        let packed = api::compress(data, &opts, device).context("compressing")?;
        let restored = api::decompress(&packed, device).context("decompressing")?;
        ensure!(
            restored == data,
            "the decompressed bytes differ from the original"
        );
        let dev = short_label(device);
        r.device = match (codec, device) {
            (CodecId::Rle, _) | (_, Device::Cpu) => dev.to_string(),
            _ => format!("cpu/{dev}"),
        };
        r.original = data.len() as u64;
        r.encoded = Some(packed.len() as u64);
        r.encode_s = Some(median_seconds(|| {
            api::compress(data, &opts, device).map(drop)
        })?);
        r.read_s = median_seconds(|| api::decompress(&packed, device).map(drop))?;
        r.check = Ok("= original".to_string());
        Ok(())
    })
}

/// The lossy codec on a real field (ETOPO20 topography, 540 x 1081 f32, from the NOAA sample
/// fields in `testdata/fields`) at a range-relative bound of 1e-3, checked value by value
/// against the bound (exactly).
fn sz_row(device: &Device) -> Row {
    const NY: usize = 540;
    const NX: usize = 1081;
    let data = ETOPO20;
    let bound = warpzip::codec::ErrorBound::Rel(1e-3);
    row(
        CodecId::Sz.name(),
        format!("etopo20: {NY}x{NX} x f32 topography, {bound}"),
        |r| {
            let mut opts = CompressOptions::for_codec(CodecId::Sz);
            opts.elem_type = Some(ElemType::F32);
            opts.lossy = Some(warpzip::codec::LossyOptions {
                dims: vec![NY as u64, NX as u64],
                ..warpzip::codec::LossyOptions::new(bound)
            });
            let packed = api::compress(data, &opts, device).context("compressing")?;
            let restored = api::decompress(&packed, device).context("decompressing")?;
            let c = warpzip::codec::compare(data, &restored, ElemType::F32, Some(bound))?;
            ensure!(
                c.violations == Some(0),
                "{:?} values break the bound",
                c.violations
            );
            r.device = "cpu".to_string();
            r.original = data.len() as u64;
            r.encoded = Some(packed.len() as u64);
            r.encode_s = Some(median_seconds(|| {
                api::compress(data, &opts, device).map(drop)
            })?);
            r.read_s = median_seconds(|| api::decompress(&packed, device).map(drop))?;
            r.check = Ok(format!("within {bound}, PSNR {:.0} dB", c.psnr));
            Ok(())
        },
    )
}

/// A filter: the order keys of the lines shipped in quantities under 25, selected by a packed
/// bitmask and checked against a scalar loop.
fn compact_row(items: &Lineitem, device: &Device) -> Row {
    let data = format!(
        "l_orderkey where l_quantity < 25: {} x u64",
        items.orderkey.len()
    );
    row("compact", data, |r| {
        let keys: Vec<u64> = items.orderkey.iter().map(|&k| k as u64).collect();
        let mut mask = vec![0u8; keys.len().div_ceil(8)];
        for (i, q) in items.quantity.iter().enumerate() {
            if *q < 25 {
                mask[i / 8] |= 1 << (i % 8);
            }
        }
        let got = compact::select(&keys, &mask, device).context("selecting")?;
        let want: Vec<u64> = keys
            .iter()
            .zip(&items.quantity)
            .filter(|(_, q)| **q < 25)
            .map(|(k, _)| *k)
            .collect();
        ensure!(got == want, "the selection differs from the scalar filter");
        r.device = short_label(device).to_string();
        r.original = (keys.len() * 8) as u64;
        r.read_s = median_seconds(|| compact::select(&keys, &mask, device).map(drop))?;
        r.check = Ok(format!(
            "= scalar filter, {:.1}% kept",
            100.0 * want.len() as f64 / keys.len().max(1) as f64
        ));
        Ok(())
    })
}

// ---------------------------------------------------------------------------------------------
// Arrow values

/// Every row of an integer-family Arrow array as `Option<i64>` (booleans as 0/1).
fn values(array: &ArrayRef) -> Result<Vec<Option<i64>>> {
    let any = array.as_any();
    macro_rules! collect {
        ($t:ty) => {
            if let Some(a) = any.downcast_ref::<$t>() {
                return Ok(a.iter().map(|v| v.map(i64::from)).collect());
            }
        };
    }
    collect!(Int8Array);
    collect!(Int16Array);
    collect!(Int32Array);
    collect!(Int64Array);
    collect!(Date32Array);
    collect!(BooleanArray);
    bail!("unexpected Arrow type {}", array.data_type())
}

/// FNV-1a over each row's validity and value.
fn checksum(values: &[Option<i64>]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for v in values {
        let bytes = v.map_or([0xff; 9], |x| {
            let mut b = [0u8; 9];
            b[1..].copy_from_slice(&x.to_le_bytes());
            b
        });
        for byte in bytes {
            h = (h ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// Bytes of an array's values in Arrow's layout (booleans one bit each).
fn value_bytes(array: &ArrayRef) -> u64 {
    let n = array.len() as u64;
    match array.data_type().primitive_width() {
        Some(width) => n * width as u64,
        None => n.div_ceil(8),
    }
}

// ---------------------------------------------------------------------------------------------
// Generated data

/// A deterministic pseudo-random sequence (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Three columns shaped like TPC-H's `lineitem`, in order-key order.
struct Lineitem {
    /// Sorted; 1 to 7 lines per order; keys in TPC-H's sparse pattern (8 of every 32 used).
    orderkey: Vec<i64>,
    /// The order date (1992-01-01 to 1998-08-02) plus 1 to 121 days, as days since 1970.
    shipdate: Vec<i32>,
    /// 1 to 50.
    quantity: Vec<i32>,
}

impl Lineitem {
    fn generate(rows: usize) -> Lineitem {
        let mut rng = Rng(0x5eed_1e57_0000_0001);
        let mut items = Lineitem {
            orderkey: Vec::with_capacity(rows),
            shipdate: Vec::with_capacity(rows),
            quantity: Vec::with_capacity(rows),
        };
        let mut order = 0i64;
        while items.orderkey.len() < rows {
            let key = (order / 8) * 32 + order % 8 + 1;
            let order_date = 8035 + rng.below(2406) as i32;
            let lines = 1 + rng.below(7) as usize;
            for _ in 0..lines.min(rows - items.orderkey.len()) {
                items.orderkey.push(key);
                items.shipdate.push(order_date + 1 + rng.below(121) as i32);
                items.quantity.push(1 + rng.below(50) as i32);
            }
            order += 1;
        }
        items
    }
}

fn le_bytes<T: Copy, const N: usize>(values: &[T], to_le: fn(T) -> [u8; N]) -> Vec<u8> {
    values.iter().flat_map(|&v| to_le(v)).collect()
}

/// About `len` bytes of VCF variant records on one chromosome.
fn vcf_text(len: usize) -> Vec<u8> {
    const BASES: [&str; 4] = ["A", "C", "G", "T"];
    let mut rng = Rng(0x0bcf_0000_0000_0002);
    let mut out = Vec::with_capacity(len + 256);
    out.extend_from_slice(
        b"##fileformat=VCFv4.2\n##contig=<ID=chr20,length=64444167>\n\
          #CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tNA12878\n",
    );
    let mut pos = 60_000u64;
    while out.len() < len {
        pos += 1 + rng.below(300);
        let reference = rng.below(4) as usize;
        let alt = (reference + 1 + rng.below(3) as usize) % 4;
        let genotype = ["0/1", "1/1", "0|1", "1|0"][rng.below(4) as usize];
        let _ = writeln!(
            out,
            "chr20\t{pos}\trs{}\t{}\t{}\t{}\tPASS\tDP={};AF={:.3}\tGT:GQ\t{genotype}:{}",
            6_000_000 + rng.below(4_000_000),
            BASES[reference],
            BASES[alt],
            20 + rng.below(80),
            5 + rng.below(60),
            rng.below(1000) as f64 / 1000.0,
            rng.below(99),
        );
    }
    out.truncate(len);
    out
}

/// `data` as a BGZF file: members of at most [`BGZF_BLOCK`] bytes, each with the `BC` extra
/// subfield giving the member's size, then the empty end-of-file member.
fn bgzf(data: &[u8]) -> Result<Vec<u8>> {
    const EOF: [u8; 28] = [
        0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0,
        0, 0, 0, 0,
    ];
    let mut out = Vec::new();
    for block in data.chunks(BGZF_BLOCK) {
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::new(6));
        encoder.write_all(block)?;
        let deflated = encoder.finish()?;
        let member_len = 18 + deflated.len() + 8;
        let bsize = u16::try_from(member_len - 1)
            .ok()
            .context("a BGZF block compressed to more than 64 KiB")?;
        out.extend_from_slice(&[
            0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0,
        ]);
        out.extend_from_slice(&bsize.to_le_bytes());
        out.extend_from_slice(&deflated);
        let mut crc = flate2::Crc::new();
        crc.update(block);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(block.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(&EOF);
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Measuring

fn ratio(original: u64, encoded: u64) -> f64 {
    if encoded == 0 {
        0.0
    } else {
        original as f64 / encoded as f64
    }
}

fn gbps(bytes: u64, seconds: f64) -> f64 {
    if seconds > 0.0 {
        bytes as f64 / seconds / 1e9
    } else {
        f64::INFINITY
    }
}

/// Median wall time of `work` over repeated runs (the first call, outside, was the warm-up).
fn median_seconds<F: FnMut() -> warpzip::Result<()>>(mut work: F) -> Result<f64> {
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < MIN_RUNS || (start.elapsed() < MIN_TIME && times.len() < MAX_RUNS) {
        let t = Instant::now();
        work()?;
        times.push(t.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn generated_columns_look_like_lineitem() {
        let items = Lineitem::generate(10_000);
        assert_eq!(items.orderkey.len(), 10_000);
        assert!(items.orderkey.windows(2).all(|w| w[0] <= w[1]));
        assert!(items.quantity.iter().all(|q| (1..=50).contains(q)));
        assert!(items.shipdate.iter().all(|d| (8036..=10561).contains(d)));
        // Deterministic.
        assert_eq!(Lineitem::generate(100).shipdate, items.shipdate[..100]);
    }

    #[test]
    fn bgzf_members_record_their_sizes() {
        let text = vcf_text(200_000);
        let file = bgzf(&text).unwrap();
        let mut at = 0;
        let mut members = 0;
        while at < file.len() {
            assert_eq!(&file[at..at + 4], &[0x1f, 0x8b, 8, 4]);
            let bsize = u16::from_le_bytes([file[at + 16], file[at + 17]]) as usize;
            at += bsize + 1;
            members += 1;
        }
        assert_eq!(at, file.len());
        assert_eq!(members, text.len().div_ceil(BGZF_BLOCK) + 1);
        assert_eq!(gzip::decompress(&file, &Device::Cpu).unwrap(), text);
    }

    #[test]
    fn checksums_see_nulls_and_values() {
        assert_ne!(checksum(&[Some(0)]), checksum(&[None]));
        assert_ne!(checksum(&[Some(1), Some(2)]), checksum(&[Some(2), Some(1)]));
    }
}
