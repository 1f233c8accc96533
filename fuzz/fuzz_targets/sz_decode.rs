//! Any bytes: the first six choose the decoder's context (mode, pw-rel or not, f32 or f64, the
//! block dimensionality and the plane sizes, a fill value or not) and the output length; the
//! rest is one `sz` chunk to `codec::sz::cpu::decode_chunk`, which must return, never panic and
//! never read or write out of bounds.

#![no_main]

use libfuzzer_sys::fuzz_target;
use warpzip::codec::sz::cpu::{decode_chunk, Ctx};
use warpzip::codec::sz::format::{Geometry, MODE_FAST, MODE_RATIO, RADIUS};
use warpzip::codec::sz::quant::Float;

fuzz_target!(|data: &[u8]| {
    let Some((head, stream)) = data.split_first_chunk::<6>() else {
        return;
    };
    let flags = head[0];
    let float = if flags & 4 != 0 {
        Float::F64
    } else {
        Float::F32
    };
    let ndim = head[1] % 3 + 1;
    let (ny, nx) = (usize::from(head[2] % 17) + 1, usize::from(head[3] % 17) + 1);
    let geometry = match ndim {
        1 => Geometry { ndim, ny: 1, nx: 1 },
        2 => Geometry { ndim, ny: 1, nx },
        _ => Geometry { ndim, ny, nx },
    };
    let lines = usize::from(u16::from_le_bytes([head[4], head[5]])) % 600;
    let n = lines * geometry.line();
    let ctx = Ctx {
        float,
        geometry,
        mode: if flags & 1 != 0 {
            MODE_FAST
        } else {
            MODE_RATIO
        },
        pw_rel: (flags & 2 != 0).then_some(1e-3),
        bound: 1e-3,
        step: 2e-3,
        fills: if flags & 8 != 0 {
            vec![0x7f7f_ffff]
        } else {
            Vec::new()
        },
        radius: if flags & 16 != 0 { 3 } else { RADIUS },
        interp: flags & 64 == 0,
        runs: flags & 64 == 0,
    };
    let mut out = vec![0u8; n * float.size()];
    let _ = decode_chunk(stream, &mut out, &ctx);
});
