//! The CPU reference encoder and decoder of one tile and of one chunk (docs/format.md,
//! "Tile-based integer codecs"). Values are handled as `u64`s in their unsigned order (signed
//! values with the sign bit flipped), `Kind::bits` wide; arithmetic wraps at that width.

use super::format::{
    split_chunk, word_at, ChunkFault, Fault, Kind, Plan, Scheme, BLOCK_VALUES, MINIS_PER_BLOCK,
    MINI_VALUES, PAD_WORDS, TILE_VALUES,
};
use super::unpack32;
use rayon::prelude::*;

/// Bits needed for `v` (0 for 0).
fn bit_width(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// How a FOR stream's block reference is chosen.
#[derive(Clone, Copy)]
enum Reference {
    /// The smallest value in unsigned order.
    Min,
    /// The smallest value read as a two's-complement number (for deltas, which may be
    /// negative).
    SignedMin,
}

/// Appends a FOR stream of `values` (`bits` wide): blocks of 128 values, each its reference
/// (`bits / 32` words, low word first), a word of four widths, then the four miniblocks
/// bit-packed LSB first (a width-0 miniblock takes no words; values past the end pack as 0).
fn put_for(values: &[u64], bits: u32, reference: Reference, out: &mut Vec<u32>) {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let sign = 1u64 << (bits - 1);
    for block in values.chunks(BLOCK_VALUES) {
        let r = match reference {
            Reference::Min => block.iter().copied().min().unwrap_or(0),
            Reference::SignedMin => block.iter().map(|&v| v ^ sign).min().unwrap_or(sign) ^ sign,
        };
        out.push(r as u32);
        if bits == 64 {
            out.push((r >> 32) as u32);
        }
        let mut widths = [0u32; MINIS_PER_BLOCK];
        for (i, mini) in block.chunks(MINI_VALUES).enumerate() {
            let max = mini.iter().map(|&v| v.wrapping_sub(r) & mask).max().unwrap_or(0);
            widths[i] = bit_width(max);
        }
        out.push(widths.iter().enumerate().fold(0u32, |w, (i, &b)| w | b << (8 * i)));
        for (mini, &w) in block.chunks(MINI_VALUES).zip(&widths) {
            if w == 0 {
                continue;
            }
            let mut acc: u128 = 0;
            let mut held = 0u32;
            for j in 0..MINI_VALUES {
                let v = mini.get(j).map_or(0, |&v| v.wrapping_sub(r) & mask);
                acc |= (v as u128) << held;
                held += w;
                while held >= 32 {
                    out.push(acc as u32);
                    acc >>= 32;
                    held -= 32;
                }
            }
        }
    }
}

/// Encodes one tile (1 to 512 values in unsigned order, `kind.bits` wide) in `scheme`.
pub fn encode_tile(values: &[u64], kind: Kind, scheme: Scheme) -> Vec<u32> {
    let mut out = Vec::with_capacity(values.len() * kind.bits as usize / 32 + 16);
    let mask = kind.mask();
    match scheme {
        Scheme::For => {
            out.push(Scheme::For as u32);
            put_for(values, kind.bits, Reference::Min, &mut out);
        }
        Scheme::Dfor => {
            let mut deltas: Vec<u64> = Vec::with_capacity(values.len());
            deltas.push(0);
            deltas.extend(values.windows(2).map(|p| p[1].wrapping_sub(p[0]) & mask));
            // The first delta is free: make it the first block's reference, so that it packs
            // as 0, and fold it out of the base.
            let sign = 1u64 << (kind.bits - 1);
            let first = deltas
                .get(1..BLOCK_VALUES.min(deltas.len()))
                .and_then(|d| d.iter().map(|&v| v ^ sign).min())
                .map_or(0, |m| m ^ sign);
            deltas[0] = first;
            let base = values.first().map_or(0, |&v| v.wrapping_sub(first) & mask);
            out.push(Scheme::Dfor as u32);
            out.push(base as u32);
            if kind.bits == 64 {
                out.push((base >> 32) as u32);
            }
            put_for(&deltas, kind.bits, Reference::SignedMin, &mut out);
        }
        Scheme::Rfor => {
            let mut runs: Vec<u64> = Vec::new();
            let mut lengths: Vec<u64> = Vec::new();
            for &v in values {
                match (runs.last(), lengths.last_mut()) {
                    (Some(&last), Some(len)) if last == v => *len += 1,
                    _ => {
                        runs.push(v);
                        lengths.push(1);
                    }
                }
            }
            out.push(Scheme::Rfor as u32 | (runs.len() as u32) << 8);
            put_for(&runs, kind.bits, Reference::Min, &mut out);
            put_for(&lengths, 32, Reference::Min, &mut out);
        }
    }
    out
}

/// Encodes one tile in the scheme `plan` names, or the one of the fewest words.
pub fn encode_tile_planned(values: &[u64], kind: Kind, plan: Plan) -> Vec<u32> {
    match plan {
        Plan::Fixed(scheme) => encode_tile(values, kind, scheme),
        Plan::Smallest => {
            let mut best = encode_tile(values, kind, Scheme::For);
            for scheme in [Scheme::Dfor, Scheme::Rfor] {
                let words = encode_tile(values, kind, scheme);
                if words.len() < best.len() {
                    best = words;
                }
            }
            best
        }
    }
}

/// Encodes one chunk of little-endian values of `kind` (a whole number of them): the tile table,
/// the tiles, the padding, as bytes.
pub fn encode_chunk(chunk: &[u8], kind: Kind, plan: Plan) -> Vec<u8> {
    let values = load_values(chunk, kind);
    let tiles: Vec<Vec<u32>> = values
        .par_chunks(TILE_VALUES)
        .map(|tile| encode_tile_planned(tile, kind, plan))
        .collect();
    let data_words: usize = tiles.iter().map(Vec::len).sum();
    let mut words: Vec<u32> = Vec::with_capacity(tiles.len() + 1 + data_words + PAD_WORDS);
    let mut start = 0u32;
    words.push(0);
    for t in &tiles {
        // A chunk holds at most 64 MiB of values (2^17 tiles) and a tile at most
        // MAX_TILE_WORDS words, so the offsets fit a u32.
        start = start.wrapping_add(t.len() as u32);
        words.push(start);
    }
    for t in &tiles {
        words.extend_from_slice(t);
    }
    words.extend_from_slice(&[0; PAD_WORDS]);
    let mut bytes = Vec::with_capacity(words.len() * 4);
    for w in words {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes
}

/// The little-endian values of `kind` in `bytes`, in unsigned order.
pub fn load_values(bytes: &[u8], kind: Kind) -> Vec<u64> {
    let flip = kind.flip();
    if kind.bits == 32 {
        bytes
            .chunks_exact(4)
            .map(|b| u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])) ^ flip)
            .collect()
    } else {
        bytes
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]) ^ flip)
            .collect()
    }
}

/// Writes values in unsigned order back as little-endian values of `kind` into `dst`.
fn store_values(values: &[u64], kind: Kind, dst: &mut [u8]) {
    let flip = kind.flip();
    if kind.bits == 32 {
        for (d, &v) in dst.chunks_exact_mut(4).zip(values) {
            d.copy_from_slice(&((v ^ flip) as u32).to_le_bytes());
        }
    } else {
        for (d, &v) in dst.chunks_exact_mut(8).zip(values) {
            d.copy_from_slice(&(v ^ flip).to_le_bytes());
        }
    }
}

/// A reader over one tile's words (little-endian bytes).
struct Reader<'a> {
    bytes: &'a [u8],
    /// Words read so far.
    pos: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` words' bytes.
    fn take(&mut self, n: usize) -> Result<&'a [u8], Fault> {
        let end = self.pos.checked_add(n).ok_or(Fault::Truncated)?;
        let s = self.bytes.get(self.pos * 4..end * 4).ok_or(Fault::Truncated)?;
        self.pos = end;
        Ok(s)
    }

    /// The next word.
    fn word(&mut self) -> Result<u32, Fault> {
        Ok(word_at(self.take(1)?, 0))
    }

    /// A reference of `bits` bits (low word first).
    fn value(&mut self, bits: u32) -> Result<u64, Fault> {
        let lo = u64::from(self.word()?);
        if bits == 64 {
            Ok(lo | u64::from(self.word()?) << 32)
        } else {
            Ok(lo)
        }
    }

    /// Whether every word was read.
    fn at_end(&self) -> bool {
        self.pos * 4 == self.bytes.len()
    }

    /// Decodes a FOR stream of `out.len()` values, `bits` wide.
    fn for_stream(&mut self, bits: u32, out: &mut [u64]) -> Result<(), Fault> {
        let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
        let n = out.len();
        for (b, block) in out.chunks_mut(BLOCK_VALUES).enumerate() {
            let r = self.value(bits)?;
            let widths = self.word()?;
            for i in 0..MINIS_PER_BLOCK {
                let w = (widths >> (8 * i)) & 0xff;
                if w > bits {
                    return Err(Fault::WidthTooLarge);
                }
                let first = b * BLOCK_VALUES + i * MINI_VALUES;
                if first >= n {
                    if w != 0 {
                        return Err(Fault::WidthPastEnd);
                    }
                    continue;
                }
                let words = self.take(w as usize)?;
                let lo = i * MINI_VALUES;
                let hi = (lo + MINI_VALUES).min(block.len());
                match <&mut [u64; MINI_VALUES]>::try_from(&mut block[lo..hi]) {
                    Ok(full) if w <= 32 => unpack_full(words, w, r, mask, full),
                    _ => unpack(words, w, r, mask, &mut block[lo..hi]),
                }
            }
        }
        Ok(())
    }
}

/// Unpacks a whole miniblock of width `w` (1 to 32) from `words` (the little-endian bytes of `w`
/// words), each value plus `r`: one copy of the loop per width, unrolled with every shift known.
fn unpack_full(words: &[u8], w: u32, r: u64, mask: u64, out: &mut [u64; MINI_VALUES]) {
    #[inline(always)]
    fn fixed<const W: usize>(words: &[u8], r: u64, mask: u64, out: &mut [u64; MINI_VALUES]) {
        if words.len() < 4 * W {
            return unpack(words, W as u32, r, mask, out);
        }
        #[inline(always)]
        fn word_of(words: &[u8], k: usize) -> u64 {
            u64::from(u32::from_le_bytes([
                words[4 * k],
                words[4 * k + 1],
                words[4 * k + 2],
                words[4 * k + 3],
            ]))
        }
        let word = |k: usize| word_of(words, k);
        let wmask = (1u64 << W) - 1;
        // Written out value by value so that every index and shift is a constant (and a value
        // within one word reads only that word).
        macro_rules! value {
            ($($i:literal)*) => {$(
                let bit = $i * W;
                let (k, sh) = (bit / 32, bit % 32);
                let x = if sh + W <= 32 {
                    word(k) >> sh
                } else {
                    (word(k) | word(k + 1) << 32) >> sh
                };
                out[$i] = (x & wmask).wrapping_add(r) & mask;
            )*};
        }
        value!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31);
    }
    macro_rules! dispatch {
        ($($n:literal)*) => {
            match w {
                $($n => fixed::<$n>(words, r, mask, out),)*
                _ => unpack(words, w, r, mask, out),
            }
        };
    }
    dispatch!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
}

/// Unpacks `out.len()` (at most 32) values of width `w` from `words` (the little-endian bytes of
/// `w` words), each plus `r`.
fn unpack(words: &[u8], w: u32, r: u64, mask: u64, out: &mut [u64]) {
    if w == 0 {
        out.fill(r);
        return;
    }
    // The words in order; past the miniblock's last word, zeros (only ever shifted out).
    let mut next = words
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .chain(std::iter::repeat(0));
    if w <= 32 {
        let wmask = (1u64 << w) - 1;
        let mut acc = 0u64;
        let mut held = 0u32;
        for o in out.iter_mut() {
            if held < w {
                acc |= u64::from(next.next().unwrap_or(0)) << held;
                held += 32;
            }
            *o = (acc & wmask).wrapping_add(r) & mask;
            acc >>= w;
            held -= w;
        }
    } else {
        let wmask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
        let mut acc = 0u128;
        let mut held = 0u32;
        for o in out.iter_mut() {
            while held < w {
                acc |= u128::from(next.next().unwrap_or(0)) << held;
                held += 32;
            }
            *o = ((acc as u64) & wmask).wrapping_add(r) & mask;
            acc >>= w;
            held -= w;
        }
    }
}

/// Decodes one tile (the little-endian bytes of its exact words) into `out` (its 1 to 512
/// values, in unsigned order).
pub fn decode_tile(bytes: &[u8], kind: Kind, plan: Plan, out: &mut [u64]) -> Result<(), Fault> {
    let mut scratch = vec![0u64; 2 * TILE_VALUES];
    decode_tile_with(bytes, kind, plan, out, &mut scratch)
}

/// `decode_tile` with RFOR's run values and lengths in `scratch` (at least 1024 values), for
/// callers that decode many tiles with one scratch buffer.
pub fn decode_tile_with(
    bytes: &[u8],
    kind: Kind,
    plan: Plan,
    out: &mut [u64],
    scratch: &mut [u64],
) -> Result<(), Fault> {
    let mut rd = Reader { bytes, pos: 0 };
    let header = rd.word()?;
    let scheme = Scheme::from_code(header & 0xff).ok_or(Fault::BadHeader)?;
    if !plan.allows(scheme) {
        return Err(Fault::SchemeNotAllowed);
    }
    let mask = kind.mask();
    match scheme {
        Scheme::For | Scheme::Dfor => {
            if header >> 8 != 0 {
                return Err(Fault::BadHeader);
            }
            let base = match scheme {
                Scheme::Dfor => Some(rd.value(kind.bits)?),
                _ => None,
            };
            rd.for_stream(kind.bits, out)?;
            if let Some(mut acc) = base {
                for v in out.iter_mut() {
                    acc = acc.wrapping_add(*v) & mask;
                    *v = acc;
                }
            }
        }
        Scheme::Rfor => {
            let runs = (header >> 8) as usize;
            if runs == 0 || runs > out.len() {
                return Err(Fault::BadRunCount);
            }
            let (values, lengths) = scratch.split_at_mut(TILE_VALUES);
            if runs > lengths.len() {
                return Err(Fault::BadRunCount);
            }
            rd.for_stream(kind.bits, &mut values[..runs])?;
            rd.for_stream(32, &mut lengths[..runs])?;
            if !rd.at_end() {
                return Err(Fault::TrailingWords);
            }
            let mut at = 0usize;
            for (&v, &len) in values[..runs].iter().zip(&lengths[..runs]) {
                let end = at.wrapping_add(len as usize);
                if len == 0 || end > out.len() {
                    return Err(Fault::BadRunLengths);
                }
                out[at..end].fill(v);
                at = end;
            }
            if at != out.len() {
                return Err(Fault::BadRunLengths);
            }
        }
    }
    if !rd.at_end() {
        return Err(Fault::TrailingWords);
    }
    Ok(())
}

/// Decodes one tile of 32-bit values straight into `dst` (its little-endian values): a FOR tile
/// through `unpack32`'s whole-miniblock unpackers, any other tile through `decode_tile_with`.
fn decode_tile32(
    bytes: &[u8],
    kind: Kind,
    plan: Plan,
    dst: &mut [u8],
    scratch: &mut Vec<u64>,
) -> Result<(), Fault> {
    let n = dst.len() / 4;
    let header = Reader { bytes, pos: 0 }.word()?;
    if header != Scheme::For as u32 || !plan.allows(Scheme::For) {
        scratch.resize(3 * TILE_VALUES, 0);
        let (buf, rest) = scratch.split_at_mut(TILE_VALUES);
        let buf = buf.get_mut(..n).ok_or(Fault::BadTable)?;
        decode_tile_with(bytes, kind, plan, buf, rest)?;
        store_values(buf, kind, dst);
        return Ok(());
    }
    let flip = kind.flip() as u32;
    let mut rd = Reader { bytes, pos: 1 };
    for (b, block) in dst.chunks_mut(BLOCK_VALUES * 4).enumerate() {
        let r = rd.word()?;
        let widths = rd.word()?;
        for i in 0..MINIS_PER_BLOCK {
            let w = (widths >> (8 * i)) & 0xff;
            if w > 32 {
                return Err(Fault::WidthTooLarge);
            }
            let first = b * BLOCK_VALUES + i * MINI_VALUES;
            if first >= n {
                if w != 0 {
                    return Err(Fault::WidthPastEnd);
                }
                continue;
            }
            let words = rd.take(w as usize)?;
            let lo = i * MINI_VALUES * 4;
            let hi = (lo + MINI_VALUES * 4).min(block.len());
            let out = &mut block[lo..hi];
            let count = out.len() / 4;
            if let (Ok(full), true) = (<&mut [u8; 4 * MINI_VALUES]>::try_from(&mut *out), w > 0) {
                unpack32::miniblock(words, w, r, flip, full);
                continue;
            }
            let mut wide = [0u64; MINI_VALUES];
            unpack(words, w, u64::from(r), u64::from(u32::MAX), &mut wide[..count]);
            for (d, &x) in out.chunks_exact_mut(4).zip(&wide[..count]) {
                d.copy_from_slice(&(x as u32 ^ flip).to_le_bytes());
            }
        }
    }
    if !rd.at_end() {
        return Err(Fault::TrailingWords);
    }
    Ok(())
}

/// Decodes one chunk into `dst` (little-endian values of `kind` filling it exactly), its tiles
/// in parallel; the lowest failing tile names the fault.
pub fn decode_chunk(
    input: &[u8],
    kind: Kind,
    plan: Plan,
    dst: &mut [u8],
) -> Result<(), ChunkFault> {
    let size = kind.bytes();
    let (data_at, ranges) = split_chunk(input, dst.len() / size)?;
    let data = input.get(data_at..).unwrap_or(&[]);
    let failure = dst
        .par_chunks_mut(TILE_VALUES * size)
        .zip(ranges.par_iter())
        .with_min_len(16)
        .enumerate()
        .map_init(
            // Grown on first use: a chunk of 32-bit FOR tiles never needs it.
            Vec::new,
            |scratch: &mut Vec<u64>, (t, (out, &(start, end)))| {
            let tile = data.get(start * 4..end * 4).ok_or(Fault::BadTable);
            let decoded = tile.and_then(|w| {
                if kind.bits == 32 {
                    decode_tile32(w, kind, plan, out, scratch)
                } else {
                    scratch.resize(3 * TILE_VALUES, 0);
                    let (buf, rest) = scratch.split_at_mut(TILE_VALUES);
                    let n = out.len() / size;
                    decode_tile_with(w, kind, plan, &mut buf[..n], rest)?;
                    store_values(&buf[..n], kind, out);
                    Ok(())
                }
            });
            match decoded {
                Ok(()) => None,
                Err(fault) => Some(ChunkFault {
                    tile: Some(t),
                    fault,
                }),
            }
        })
        .find_map_first(|f| f);
    match failure {
        Some(f) => Err(f),
        None => Ok(()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const K32: Kind = Kind {
        bits: 32,
        signed: false,
    };

    #[test]
    fn a_tile_round_trips_in_every_scheme() {
        let values: Vec<u64> = (0..300u64).map(|i| (i * 7919) % 1000 + (i / 50)).collect();
        for scheme in Scheme::ALL {
            let words = encode_tile(&values, K32, scheme);
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut out = vec![0u64; values.len()];
            decode_tile(&bytes, K32, Plan::Fixed(scheme), &mut out).unwrap();
            assert_eq!(out, values, "{scheme:?}");
        }
    }

    /// The worked example of docs/format.md.
    #[test]
    fn the_documented_example_is_written_byte_for_byte() {
        let data: Vec<u8> = [5u32, 6, 7].iter().flat_map(|v| v.to_le_bytes()).collect();
        let words = [0u32, 5, 0, 5, 2, 0x24, 0, 0, 0];
        let expected: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(encode_chunk(&data, K32, Plan::Fixed(Scheme::For)), expected);
    }

    #[test]
    fn widths_are_per_miniblock() {
        let mut values = vec![5u64; 128];
        values[40] = 5 + 255;
        let words = encode_tile(&values, K32, Scheme::For);
        // header, reference, widths, then one miniblock of 8 words.
        assert_eq!(words.len(), 3 + 8);
        assert_eq!(words[2], 8 << 8);
    }
}
