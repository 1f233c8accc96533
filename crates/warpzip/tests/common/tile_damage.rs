//! Damage to a tile-compressed `.wz` file that only the tile decoder can notice.

use std::path::Path;

/// Rewrites the `.wz` file at `path` with tile `tile` of chunk `chunk` given a header that names
/// no scheme, the checksums recomputed (so that only the tile decoder can notice).
pub fn damage_tile_header(path: &Path, chunk: usize, tile: usize) {
    let file = std::fs::read(path).unwrap();
    let container = warpzip::format::Container::parse(&file).unwrap();
    let mut payload = Vec::new();
    let mut spans = Vec::new();
    for (i, &(bytes, len)) in container.chunk_list().iter().enumerate() {
        let mut b = bytes.to_vec();
        if i == chunk {
            let tiles = (len / 4).div_ceil(512);
            let start = u32::from_le_bytes(b[4 * tile..4 * tile + 4].try_into().unwrap()) as usize;
            b[4 * (tiles + 1 + start)] = 7;
        }
        spans.push(warpzip::format::ChunkSpan {
            offset: payload.len(),
            compressed_len: b.len() as u32,
            uncompressed_len: len as u32,
        });
        payload.extend_from_slice(&b);
    }
    let mut out = Vec::new();
    warpzip::format::write_container(&mut out, &container.header, &payload, &spans).unwrap();
    std::fs::write(path, out).unwrap();
}
