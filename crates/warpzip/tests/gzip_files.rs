//! gzip decompression (`codec::deflate::gzip`) on the CPU: single members from flate2, multi-
//! member files with every optional header field and empty members, BGZF, header-like bytes
//! inside compressed data, and damaged files (bad CRC, bad size, every truncation, trailing
//! bytes), each giving a clear error that names the member.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

#[path = "common/gzip_builders.rs"]
mod gzip_builders;

use flate2::read::MultiGzDecoder;
use gzip_builders::*;
use std::io::Read;
use warpzip::codec::deflate::gzip::{self, Decoding, Notice};
use warpzip::{Device, Error};

const CPU: Device = Device::Cpu;

fn corpus(dir: &str, name: &str) -> Vec<u8> {
    let path = common::testdata().join("corpora").join(dir).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The gzip error's member index and reason.
#[track_caller]
fn gzip_error(gz: &[u8]) -> (usize, String) {
    match gzip::decompress(gz, &CPU) {
        Err(Error::CorruptGzip { member, reason, .. }) => (member, reason),
        other => panic!("expected a corrupt gzip member, got {other:?}"),
    }
}

#[test]
fn single_member_from_flate2_decodes_on_the_cpu() {
    let data = corpus("canterbury", "alice29.txt");
    let gz = flate2_gzip(&data);
    assert!(gzip::is_gzip(&gz));
    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert_eq!(d.data, data);
    assert_eq!(d.members.len(), 1);
    assert_eq!(d.members[0].decoding, Decoding::Sequential);
    assert_eq!(d.members[0].uncompressed_len, data.len() as u64);
    assert_eq!(d.members[0].compressed_len, gz.len() as u64);
    assert_eq!(d.members[0].crc32, libdeflater::crc32(&data));
    assert!(
        d.notices.is_empty(),
        "no notice on the CPU: {:?}",
        d.notices
    );
    // Empty input, and a member of nothing.
    assert_eq!(gzip::decompress(&flate2_gzip(b""), &CPU).unwrap(), b"");
}

#[test]
fn multi_member_files_with_every_header_field_decode_as_one_batch() {
    let a = corpus("canterbury", "alice29.txt");
    let b = corpus("canterbury", "kennedy.xls");
    let c = noise(3, 70_000);
    let mut gz = member(&a);
    gz.extend(member_with(
        &b,
        &Fields {
            text: true,
            extra: Some(b"XY\x03\x00abc"),
            name: Some(b"kennedy.xls"),
            comment: Some(b"a comment \xe9"),
            header_crc: true,
        },
        &raw_deflate(&b, 9),
    ));
    gz.extend(member(b""));
    gz.extend(member_with(
        &c,
        &Fields {
            name: Some(b"noise"),
            ..Fields::default()
        },
        &raw_deflate(&c, 1),
    ));
    gz.extend(flate2_gzip(b"tail"));
    let want = [&a[..], &b[..], &c[..], b"tail"].concat();
    assert_eq!(zlib_reference(&gz), want, "the test file is valid gzip");

    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert!(d.data == want);
    assert!(d.notices.is_empty());
    let m = &d.members;
    assert_eq!(m.len(), 5);
    assert!(m.iter().all(|m| m.decoding == Decoding::Scanned), "{m:?}");
    assert_eq!(m[1].name.as_deref(), Some("kennedy.xls"));
    assert_eq!(m[1].comment.as_deref(), Some("a comment é"));
    assert_eq!(m[1].extra_len, Some(7));
    assert_eq!(m[1].flags, 0x1f);
    assert_eq!(m[1].mtime, 0x1234_5678);
    assert_eq!(m[2].uncompressed_len, 0);
    assert_eq!(m[3].name.as_deref(), Some("noise"));
    let mut at = 0;
    for x in m {
        assert_eq!(x.offset, at);
        at += x.compressed_len;
    }
    assert_eq!(at, gz.len() as u64);
    assert_eq!(gzip::list_members(&gz, &CPU).unwrap(), d.members);
}

#[test]
fn many_small_members_match_zlib() {
    let text = corpus("canterbury", "lcet10.txt");
    let mut gz = Vec::new();
    let mut at = 0;
    let mut n = 0;
    while at < text.len() {
        let len = (1 + (at * 7919) % 9000).min(text.len() - at);
        gz.extend(member(&text[at..at + len]));
        at += len;
        n += 1;
    }
    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert!(d.data == text);
    assert_eq!(d.members.len(), n);
    assert!(d.members.iter().all(|m| m.decoding == Decoding::Scanned));
}

#[test]
fn bgzf_members_are_cut_by_their_recorded_sizes() {
    let data = corpus("canterbury", "kennedy.xls");
    let gz = bgzf(&data);
    assert_eq!(zlib_reference(&gz), data);
    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert!(d.data == data);
    let blocks = data.len().div_ceil(65280);
    assert_eq!(d.members.len(), blocks + 1, "data blocks and the EOF block");
    assert!(d.members.iter().all(|m| m.decoding == Decoding::Bgzf));
    assert!(d
        .members
        .iter()
        .all(|m| m.bgzf_member_len == Some(m.compressed_len as usize)));
    assert_eq!(d.members[blocks].uncompressed_len, 0);
    // A plain member after the BGZF ones is still found.
    let mut mixed = gz.clone();
    mixed.extend(member(b"after"));
    let d = gzip::decompress_report(&mixed, &CPU).unwrap();
    assert!(d.data == [&data[..], b"after"].concat());
    assert_eq!(d.members.last().unwrap().decoding, Decoding::Scanned);
    // A BGZF size that runs past the end of the file: the file is cut inside that member's
    // trailer, which names it.
    let cut = &gz[..gz.len() - BGZF_EOF.len() - 1];
    let last = format!("gzip member {}", blocks - 1);
    assert!(
        matches!(gzip::decompress(cut, &CPU), Err(Error::Truncated(m)) if m.contains(&last)),
        "{:?}",
        gzip::decompress(cut, &CPU)
    );
}

/// A BGZF `BC` subfield whose size is wrong (too small for a member, or past the end of the
/// file) in an otherwise valid file: gzip ignores the extra field, so the file decodes as zlib
/// reads it. (Found by the `gzip_decompress` fuzz target: these were errors.)
#[test]
fn bgzf_sizes_that_cannot_be_right_are_ignored() {
    let data = b"abcdefgh".repeat(20_000);
    let gz = bgzf(&data);
    let want = zlib_reference(&gz);
    let eof = gz.len() - BGZF_EOF.len();
    // BSIZE sits at bytes 16..18 of each BGZF header: the EOF member's and the first member's.
    for (at, bsize) in [(eof, 11u16), (eof, 200), (0, 5), (0, u16::MAX)] {
        let mut bad = gz.clone();
        bad[at + 16..at + 18].copy_from_slice(&bsize.to_le_bytes());
        assert_eq!(zlib_reference(&bad), want, "zlib ignores BSIZE {bsize}");
        let d = gzip::decompress_report(&bad, &CPU)
            .unwrap_or_else(|e| panic!("BSIZE {bsize} at {at}: {e}"));
        assert!(d.data == want, "BSIZE {bsize} at {at}");
        assert_eq!(
            d.members.len(),
            gzip::list_members(&gz, &CPU).unwrap().len()
        );
    }
}

/// A member whose compressed data holds, in a stored block, the bytes of a whole gzip member
/// (header, valid Deflate data, trailer) and then more: the header scan finds a start inside
/// it, whose segment must be rejected.
#[test]
fn gzip_headers_inside_compressed_data_are_not_member_starts() {
    let fake = member(b"I am not a member of this file");
    let mut payload = b"prefix ".to_vec();
    payload.extend_from_slice(&fake);
    payload.extend_from_slice(b" and a suffix after the fake member");
    let outer = member_with(&payload, &Fields::default(), &stored(&payload));
    let second = member(b"the real second member");

    // Alone: a single real member, with a false candidate inside.
    let d = gzip::decompress_report(&outer, &CPU).unwrap();
    assert_eq!(d.data, payload);
    assert_eq!(d.members.len(), 1);
    assert_eq!(d.members[0].decoding, Decoding::Sequential);

    // Followed by a real member: the first member is decoded on the CPU, the second confirmed.
    let gz = [&outer[..], &second[..]].concat();
    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert_eq!(d.data, [&payload[..], b"the real second member"].concat());
    assert_eq!(d.members.len(), 2);
    assert_eq!(d.members[0].decoding, Decoding::Sequential);
    assert_eq!(d.members[0].compressed_len, outer.len() as u64);
    assert_eq!(d.members[1].decoding, Decoding::Scanned);

    // The fake ends exactly where the next real member starts (its segment decodes and checks
    // out, but the walk never lands on it).
    let mut payload = b"prefix ".to_vec();
    payload.extend_from_slice(&fake);
    let outer = member_with(&payload, &Fields::default(), &stored(&payload));
    let gz = [&outer[..], &second[..]].concat();
    assert_eq!(
        gzip::decompress(&gz, &CPU).unwrap(),
        [&payload[..], b"the real second member"].concat()
    );

    // A header followed by bytes that do not inflate (rejected by the scan's probe).
    let mut payload = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff, 0xff];
    payload.extend_from_slice(&noise(5, 200));
    let outer = member_with(&payload, &Fields::default(), &stored(&payload));
    let gz = [&outer[..], &second[..], &member(b"third")].concat();
    let d = gzip::decompress_report(&gz, &CPU).unwrap();
    assert_eq!(d.data, zlib_reference(&gz));
    assert_eq!(d.members.len(), 3);
    assert!(d.members.iter().all(|m| m.decoding == Decoding::Scanned));
}

#[test]
fn bad_crc_and_bad_size_name_the_member() {
    let parts = [member(b"first"), member(&noise(1, 5000)), member(b"third")];
    let at1 = parts[0].len();
    let end1 = at1 + parts[1].len();

    let mut gz = parts.concat();
    gz[end1 - 8] ^= 1;
    let (m, reason) = gzip_error(&gz);
    assert_eq!(m, 1);
    assert!(reason.contains("CRC-32"), "{reason}");
    match gzip::decompress(&gz, &CPU) {
        Err(e @ Error::CorruptGzip { .. }) => {
            let text = e.to_string();
            assert!(
                text.contains("gzip member 1") && text.contains(&format!("byte {at1}")),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }

    let mut gz = parts.concat();
    gz[end1 - 4] ^= 1;
    let (m, reason) = gzip_error(&gz);
    assert_eq!(m, 1);
    assert!(reason.contains("size"), "{reason}");

    // A flipped bit inside member 2's header (its FHCRC-less header: the method byte).
    let mut gz = parts.concat();
    gz[end1 + 2] = 7;
    let (m, reason) = gzip_error(&gz);
    assert_eq!(m, 2, "{reason}");

    // A wrong header CRC-16, reserved flags, another method: in the first member.
    let f = Fields {
        header_crc: true,
        name: Some(b"x"),
        ..Fields::default()
    };
    let mut bad = member_with(b"x", &f, &raw_deflate(b"x", 6));
    bad[12] ^= 0xff;
    assert!(gzip_error(&bad).1.contains("CRC-16"));
    let mut bad = member(b"x");
    bad[3] = 0x20;
    assert!(gzip_error(&bad).1.contains("reserved"));
    let mut bad = member(b"x");
    bad[2] = 9;
    assert!(gzip_error(&bad).1.contains("method"));
    assert!(gzip_error(b"not gzip at all").1.contains("not a gzip file"));
}

#[test]
fn every_truncation_is_an_error_and_never_a_panic() {
    let f = Fields {
        extra: Some(b"AB\x01\x00z"),
        name: Some(b"n"),
        comment: Some(b"c"),
        header_crc: true,
        ..Fields::default()
    };
    let first = member_with(
        b"hello hello hello",
        &f,
        &raw_deflate(b"hello hello hello", 6),
    );
    let second = member(&noise(9, 300));
    let gz = [&first[..], &second[..]].concat();
    for cut in 0..gz.len() {
        let r = gzip::decompress(&gz[..cut], &CPU);
        if cut == first.len() {
            assert_eq!(r.unwrap(), b"hello hello hello");
            continue;
        }
        match r {
            Err(Error::Truncated(msg)) => assert!(msg.contains("gzip member"), "{msg}"),
            Err(Error::CorruptGzip { .. }) => {}
            other => panic!("cut at {cut}: {other:?}"),
        }
    }
    // Cut inside the second member's Deflate data: a truncation naming member 1.
    match gzip::decompress(&gz[..first.len() + 40], &CPU) {
        Err(Error::Truncated(msg)) => assert!(msg.contains("gzip member 1"), "{msg}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn trailing_zeros_are_ignored_with_a_notice_and_other_bytes_are_errors() {
    let data = corpus("canterbury", "fields.c");
    let one = member(&data);
    let two = [&one[..], &member(b"more")[..]].concat();
    for gz in [&one, &two] {
        let mut padded = gz.clone();
        padded.extend(std::iter::repeat_n(0u8, 1000));
        let d = gzip::decompress_report(&padded, &CPU).unwrap();
        assert_eq!(d.data, zlib_reference(gz));
        assert_eq!(
            d.notices,
            vec![Notice::TrailingZeros {
                offset: gz.len() as u64,
                len: 1000
            }]
        );
        for junk in [&b"junk"[..], b"\0\0\0x", b"\x1f", b"\x1f\x8b\x08"] {
            let mut bad = gz.clone();
            bad.extend_from_slice(junk);
            assert!(gzip::decompress(&bad, &CPU).is_err(), "{junk:?}");
        }
        let mut bad = gz.clone();
        bad.extend_from_slice(b"trailing garbage");
        let (_, reason) = gzip_error(&bad);
        assert!(reason.contains("trailing garbage"), "{reason}");
    }
}

#[test]
fn single_member_hint_survives_padding_and_huge_claims() {
    // The last four bytes are not this member's ISIZE (padding), or claim far too much.
    let data = noise(11, 10_000);
    let mut gz = member(&data);
    gz.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]);
    gz.truncate(gz.len() - 3);
    assert_eq!(gzip::decompress(&gz, &CPU).unwrap(), data);
    let mut gz = member(&data);
    let n = gz.len();
    gz[n - 1] ^= 0x80;
    assert!(gzip_error(&gz).1.contains("size"));
}

/// Random byte damage to multi-member and BGZF files: every outcome is a value (never a panic),
/// and whatever decodes agrees with zlib when zlib decodes it too.
#[test]
fn random_damage_never_panics() {
    let text = corpus("canterbury", "fields.c");
    let f = Fields {
        name: Some(b"f.c"),
        header_crc: true,
        ..Fields::default()
    };
    let multi = [
        member(&text[..3000]),
        member_with(&text[3000..], &f, &raw_deflate(&text[3000..], 9)),
        member(b""),
        member(&noise(2, 500)),
    ]
    .concat();
    let blocked = bgzf(&[&text[..], &noise(4, 70_000)].concat());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut decoded = 0;
    for round in 0..1500 {
        let mut gz = if round % 2 == 0 {
            multi.clone()
        } else {
            blocked.clone()
        };
        for _ in 0..1 + next() % 3 {
            let at = (next() % gz.len() as u64) as usize;
            gz[at] = next() as u8;
        }
        if let Ok(out) = gzip::decompress(&gz, &CPU) {
            decoded += 1;
            let mut reference = Vec::new();
            if MultiGzDecoder::new(&gz[..])
                .read_to_end(&mut reference)
                .is_ok()
            {
                assert!(out == reference, "round {round}");
            }
        }
    }
    // Damage to MTIME, OS, XFL or a stored byte's duplicate leaves some files valid.
    assert!(decoded < 1500, "{decoded}");
}

// The fuzz target's logic (`fuzz/fuzz_targets/gzip_decompress.rs`), run over its corpus.

/// zlib's multi-member reading of `gz`, or `None` when it rejects it.
fn zlib_multi(gz: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    MultiGzDecoder::new(gz).read_to_end(&mut out).ok()?;
    Some(out)
}

fn gzip_fuzz_check(data: &[u8]) {
    let got = gzip::decompress_report(data, &CPU);
    let whole = if data.is_empty() {
        None
    } else {
        zlib_multi(data)
    };
    let d = match got {
        Ok(d) => d,
        Err(e) => {
            assert!(whole.is_none(), "zlib decodes, warpzip says {e}");
            return;
        }
    };
    let mut end = 0u64;
    let mut total = 0u64;
    for m in &d.members {
        assert_eq!(m.offset, end, "members do not tile: {:?}", d.members);
        assert!(m.compressed_len > 0 && m.header_len > 0, "{m:?}");
        end += m.compressed_len;
        total += m.uncompressed_len;
    }
    assert!(!d.members.is_empty());
    assert_eq!(total, d.data.len() as u64);
    let end = usize::try_from(end).unwrap();
    assert!(data[end..].iter().all(|&b| b == 0));
    let padding: Vec<&Notice> = d
        .notices
        .iter()
        .filter(|n| matches!(n, Notice::TrailingZeros { .. }))
        .collect();
    if end < data.len() {
        let want = Notice::TrailingZeros {
            offset: end as u64,
            len: (data.len() - end) as u64,
        };
        assert_eq!(padding, vec![&want]);
    } else {
        assert!(padding.is_empty(), "{padding:?}");
    }
    let reference = if end == data.len() {
        whole
    } else {
        zlib_multi(&data[..end])
    };
    if let Some(want) = reference {
        assert!(d.data == want, "warpzip and zlib decode differently");
    }
}

/// Seeds: small single-member, multi-member and BGZF files, padded, damaged and cut ones.
fn gzip_fuzz_seeds() -> Vec<(&'static str, Vec<u8>)> {
    let text = b"The quick brown fox jumps over the lazy dog. ".repeat(20);
    let all = Fields {
        text: true,
        extra: Some(b"XY\x02\x00ab"),
        name: Some(b"fox.txt"),
        comment: Some(b"a comment"),
        header_crc: true,
    };
    let multi = [
        member(&text[..300]),
        member(b""),
        member_with(&text[300..], &all, &raw_deflate(&text[300..], 9)),
        flate2_gzip(b"tail"),
    ]
    .concat();
    // A stored block holding a whole member: a header the scan finds inside compressed data.
    let fake = [&b"x"[..], &member(b"fake member"), b"y"].concat();
    let repetitive = b"abcdefgh".repeat(20_000);
    let blocked = bgzf(&repetitive);
    let mut bgzf_size_too_small = blocked.clone();
    let eof = blocked.len() - BGZF_EOF.len();
    bgzf_size_too_small[eof + 16] = 11;
    let mut bad_crc = member(&text);
    let n = bad_crc.len();
    bad_crc[n - 8] ^= 1;
    vec![
        ("single", flate2_gzip(b"hello, gzip\n")),
        ("empty_member", flate2_gzip(b"")),
        (
            "all_header_fields",
            member_with(&text, &all, &raw_deflate(&text, 6)),
        ),
        (
            "stored_block",
            member_with(b"stored", &Fields::default(), &stored(b"stored")),
        ),
        ("multi_member", multi.clone()),
        (
            "header_inside_stored",
            member_with(&fake, &Fields::default(), &stored(&fake)),
        ),
        ("bgzf", bgzf(&text)),
        ("bgzf_three_blocks", blocked.clone()),
        (
            "bgzf_then_plain",
            [&blocked[..], &member(b"after")].concat(),
        ),
        ("zero_padding", [&multi[..], &[0u8; 16]].concat()),
        ("trailing_garbage", [&member(b"x")[..], b"junk"].concat()),
        ("bad_crc", bad_crc),
        ("truncated", multi[..multi.len() - 3].to_vec()),
        ("bgzf_size_too_small", bgzf_size_too_small),
    ]
}

#[test]
fn fuzz_corpus_runs_clean() {
    let dir = std::path::PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fuzz/corpus/gzip_decompress"
    ));
    if std::env::var("WARPZIP_BLESS").as_deref() == Ok("1") {
        std::fs::create_dir_all(&dir).unwrap();
        for (name, bytes) in gzip_fuzz_seeds() {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let mut count = 0;
    for entry in std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("fuzz corpus {} missing: {e}", dir.display()))
    {
        let path = entry.unwrap().path();
        gzip_fuzz_check(&std::fs::read(&path).unwrap());
        count += 1;
    }
    assert!(count > 0, "fuzz corpus {} is empty", dir.display());
}
