//! The kernel registry: every module the library compiles, as a CUDA source under
//! `src/kernels/`, the defines it is compiled with, and the `extern "C"` entry points launchers
//! load from it (named `<codec>_<op>_<type>`). One source compiled with other defines is a
//! module of its own, compiled and cached apart. `tests/nvrtc_compile.rs` compiles every module
//! for sm_80 and sm_90 and checks that its CUBIN defines exactly the entry points listed here.

use super::compile::KernelSource;

/// The entry points launchers name with a fixed string.
pub mod entry {
    pub const SCAN_EXCLUSIVE_U32: &str = "scan_exclusive_u32";
    pub const SCAN_EXCLUSIVE_U64: &str = "scan_exclusive_u64";
    pub const RLE_ENCODE_SEGMENTS: &str = "rle_encode_segments";
    pub const RLE_ENCODE_TABLES: &str = "rle_encode_tables";
    pub const RLE_DECODE: &str = "rle_decode";
    pub const COMPACT_PROBE_READ: &str = "compact_probe_read";
    pub const INFLATE_WARP: &str = "inflate_warp";
    pub const INFLATE_PAIR: &str = "inflate_pair";
    pub const TILE_DECODE_U32: &str = "tile_decode_u32";
    pub const TILE_DECODE_U64: &str = "tile_decode_u64";
    pub const TILE_ENCODE_U32: &str = "tile_encode_u32";
    pub const TILE_ENCODE_U64: &str = "tile_encode_u64";
    pub const SSB_QUERY_TILE: &str = "ssb_query_tile";
    pub const SSB_QUERY_PLAIN: &str = "ssb_query_plain";
    pub const SZ_FAST_INDEX: &str = "sz_fast_index";
    pub const SZ_FAST_DECODE_F32: &str = "sz_fast_decode_f32";
    pub const SZ_FAST_DECODE_F64: &str = "sz_fast_decode_f64";
    pub const SZ_FAST_EXACT_F32: &str = "sz_fast_exact_f32";
    pub const SZ_FAST_EXACT_F64: &str = "sz_fast_exact_f64";
    pub const SZ_FAST_ENCODE_F32: &str = "sz_fast_encode_f32";
    pub const SZ_FAST_ENCODE_F64: &str = "sz_fast_encode_f64";
    pub const SZ_FAST_ASSEMBLE_F32: &str = "sz_fast_assemble_f32";
    pub const SZ_FAST_ASSEMBLE_F64: &str = "sz_fast_assemble_f64";
    pub const SZ_RATIO_SYMBOLS: &str = "sz_ratio_symbols";
    pub const SZ_RATIO_LORENZO_F32: &str = "sz_ratio_lorenzo_f32";
    pub const SZ_RATIO_LORENZO_F64: &str = "sz_ratio_lorenzo_f64";
    pub const SZ_RATIO_INTERP_F32: &str = "sz_ratio_interp_f32";
    pub const SZ_RATIO_INTERP_F64: &str = "sz_ratio_interp_f64";
    pub const SZ_RATIO_ENC_LORENZO_F32: &str = "sz_ratio_enc_lorenzo_f32";
    pub const SZ_RATIO_ENC_LORENZO_F64: &str = "sz_ratio_enc_lorenzo_f64";
    pub const SZ_RATIO_ENC_INTERP_F32: &str = "sz_ratio_enc_interp_f32";
    pub const SZ_RATIO_ENC_INTERP_F64: &str = "sz_ratio_enc_interp_f64";
    pub const SZ_RATIO_ENC_GROUPS: &str = "sz_ratio_enc_groups";
    pub const SZ_RATIO_ENC_HISTOGRAM: &str = "sz_ratio_enc_histogram";
    pub const SZ_RATIO_ENC_CODES: &str = "sz_ratio_enc_codes";
    pub const SZ_RATIO_ENC_GROUP_BITS: &str = "sz_ratio_enc_group_bits";
    pub const SZ_RATIO_ENC_ENDS: &str = "sz_ratio_enc_ends";
    pub const SZ_RATIO_ENC_WRITE: &str = "sz_ratio_enc_write";
    pub const SZ_RATIO_ENC_EXCEPTIONS: &str = "sz_ratio_enc_exceptions";
    pub const LZ_DECODE_SNAPPY: &str = "lz_decode_snappy";
    pub const LZ_DECODE_LZ4: &str = "lz_decode_lz4";
    pub const ORC_DECIMAL_VARINTS: &str = "orc_decimal_varints";
    pub const ORC_TIMESTAMPS: &str = "orc_timestamps";
    pub const ORC_DICT_LENGTHS: &str = "orc_dict_lengths";
    pub const ORC_DICT_GATHER: &str = "orc_dict_gather";
}

/// The eight kernels `ORC_INT_KERNELS*` (orc_int.cuh) makes for each prefix, then `extra`.
macro_rules! orc_int_entries {
    ($($prefix:literal),+ $(; $($extra:literal),+)?) => {
        &[
            $(
                concat!($prefix, "_i8"),
                concat!($prefix, "_i16"),
                concat!($prefix, "_i32"),
                concat!($prefix, "_i64"),
                concat!($prefix, "_u8"),
                concat!($prefix, "_u16"),
                concat!($prefix, "_u32"),
                concat!($prefix, "_u64"),
            )+
            $($($extra,)+)?
        ]
    };
}

/// Single-pass scans with decoupled look-back, and the variants the scan bench compares.
pub const SCAN: KernelSource = KernelSource {
    name: "scan",
    text: include_str!("../kernels/ops/scan.cu"),
    defines: &[],
    entries: &[
        entry::SCAN_EXCLUSIVE_U32,
        entry::SCAN_EXCLUSIVE_U64,
        "scan_variant_u32_t256_v4",
        "scan_variant_u32_t256_v8",
        "scan_variant_u32_t256_v8_p",
        "scan_variant_u32_t256_v8_po",
        "scan_variant_u32_t128_v8_po",
        "scan_variant_u32_t512_v4_po",
        "scan_variant_u32_t128_v16_po",
        "scan_variant_u32_t256_v8_ps",
        "scan_variant_u32_t256_v16_ps",
        "scan_variant_u32_t256_v24_ps",
        "scan_variant_u32_t256_v32_ps",
        "scan_variant_u32_t128_v32_ps",
        "scan_variant_u32_t512_v16_ps",
        "scan_variant_u32_t64_v32_ps",
        "scan_variant_u32_t192_v32_ps",
        "scan_variant_u64_t256_v4",
        "scan_variant_u64_t256_v4_o",
        "scan_variant_u64_t128_v8_o",
        "scan_variant_u64_t256_v8_o",
        "scan_variant_u64_t256_v16_s",
        "scan_variant_u64_t256_v32_s",
        "scan_variant_u64_t128_v32_s",
    ],
};

/// Byte RLE (`rle` chunks).
pub const RLE: KernelSource = KernelSource {
    name: "rle",
    text: include_str!("../kernels/rle/rle.cu"),
    defines: &[],
    entries: &[
        entry::RLE_ENCODE_SEGMENTS,
        entry::RLE_ENCODE_TABLES,
        entry::RLE_DECODE,
    ],
};

/// Stream compaction: `compact_{select,writeout}_{bits,flags}[_wide]_T`,
/// `compact_pattern[_staged]_T`, `compact_count_{bits,flags}`, and the bench's read probe.
pub const COMPACT: KernelSource = KernelSource {
    name: "compact",
    text: include_str!("../kernels/ops/compact.cu"),
    defines: &[],
    entries: &[
        entry::COMPACT_PROBE_READ,
        "compact_count_bits",
        "compact_count_flags",
        "compact_select_bits_u8",
        "compact_select_bits_u16",
        "compact_select_bits_u32",
        "compact_select_bits_u64",
        "compact_select_flags_u8",
        "compact_select_flags_u16",
        "compact_select_flags_u32",
        "compact_select_flags_u64",
        "compact_select_bits_wide_u8",
        "compact_select_bits_wide_u16",
        "compact_select_bits_wide_u32",
        "compact_select_bits_wide_u64",
        "compact_select_flags_wide_u8",
        "compact_select_flags_wide_u16",
        "compact_select_flags_wide_u32",
        "compact_select_flags_wide_u64",
        "compact_writeout_bits_u8",
        "compact_writeout_bits_u16",
        "compact_writeout_bits_u32",
        "compact_writeout_bits_u64",
        "compact_writeout_flags_u8",
        "compact_writeout_flags_u16",
        "compact_writeout_flags_u32",
        "compact_writeout_flags_u64",
        "compact_pattern_u8",
        "compact_pattern_u16",
        "compact_pattern_u32",
        "compact_pattern_u64",
        "compact_pattern_staged_u8",
        "compact_pattern_staged_u16",
        "compact_pattern_staged_u32",
        "compact_pattern_staged_u64",
    ],
};

/// The ORC RLE warp decoders (`.wz` chunks and Byte RLE), and ORC files' row groups: a warp per
/// row group (`orc_col_*`) or a block per row group built for 5 blocks an SM (`orc_rg_*`).
pub const ORC_RLE: KernelSource = KernelSource {
    name: "orc_rle",
    text: include_str!("../kernels/orc/orc_rle.cu"),
    defines: &[],
    entries: orc_int_entries![
        "orc_rle_v1", "orc_rle_v2";
        "orc_byte_rle",
        "orc_col_bool",
        "orc_col_byte",
        "orc_col_v1_i16",
        "orc_col_v1_i32",
        "orc_col_v1_i64",
        "orc_col_v2_i16",
        "orc_col_v2_i32",
        "orc_col_v2_i64",
        "orc_rg_v1_i16",
        "orc_rg_v1_i32",
        "orc_rg_v1_i64",
        "orc_rg_v2_i16",
        "orc_rg_v2_i32",
        "orc_rg_v2_i64"
    ],
};

/// `orc_rle.cu` with `ORC_RLE_RG6`: its RLEv2 block-per-row-group kernels alone, built for 6
/// blocks an SM (`orc_rg6_*`). A module of its own, compiled the first time a batch of more row
/// groups than one wave of the 5-block build needs it.
pub const ORC_RLE_RG6: KernelSource = KernelSource {
    name: "orc_rle_rg6",
    text: include_str!("../kernels/orc/orc_rle.cu"),
    defines: &[("ORC_RLE_RG6", "1")],
    entries: &["orc_rg6_v2_i16", "orc_rg6_v2_i32", "orc_rg6_v2_i64"],
};

/// A lane per sub-block.
pub const ORC_RLE_LANES: KernelSource = KernelSource {
    name: "orc_rle_lanes",
    text: include_str!("../kernels/orc/orc_rle_lanes.cu"),
    defines: &[],
    entries: orc_int_entries!["orc_rle_v1_lanes", "orc_rle_v2_lanes"],
};

/// The lanes walk 32 sub-blocks' headers into descriptors, then expand them together.
pub const ORC_RLE_EXPAND: KernelSource = KernelSource {
    name: "orc_rle_expand",
    text: include_str!("../kernels/orc/orc_rle_expand.cu"),
    defines: &[],
    entries: orc_int_entries!["orc_rle_v1_expand", "orc_rle_v2_expand"],
};

/// A lane per sub-block, the lanes in lockstep.
pub const ORC_RLE_LOCKSTEP: KernelSource = KernelSource {
    name: "orc_rle_lockstep",
    text: include_str!("../kernels/orc/orc_rle_lockstep.cu"),
    defines: &[],
    entries: orc_int_entries!["orc_rle_v1_lockstep", "orc_rle_v2_lockstep"],
};

/// Inflate, a warp per raw-deflate stream.
pub const INFLATE: KernelSource = KernelSource {
    name: "inflate",
    text: include_str!("../kernels/deflate/inflate.cu"),
    defines: &[],
    entries: &[entry::INFLATE_WARP],
};

/// Inflate, two warps per stream.
pub const INFLATE_PAIR: KernelSource = KernelSource {
    name: "inflate_pair",
    text: include_str!("../kernels/deflate/inflate_pair.cu"),
    defines: &[],
    entries: &[entry::INFLATE_PAIR],
};

/// The tile codecs' decoder and encoder (`for`, `dfor`, `rfor`, `tile` chunks), a thread block
/// per tiles.
pub const TILE: KernelSource = KernelSource {
    name: "tile",
    text: include_str!("../kernels/tile/tile.cu"),
    defines: &[],
    entries: &[
        entry::TILE_DECODE_U32,
        entry::TILE_DECODE_U64,
        entry::TILE_ENCODE_U32,
        entry::TILE_ENCODE_U64,
    ],
};

/// The `sz` codec's fast mode: the decoder (the chunk index, a thread per block, the exact
/// values) and the encoder (a thread per block, a thread per chunk assembling it).
pub const SZ_FAST: KernelSource = KernelSource {
    name: "sz_fast",
    text: include_str!("../kernels/sz/sz_fast.cu"),
    defines: &[],
    entries: &[
        entry::SZ_FAST_INDEX,
        entry::SZ_FAST_DECODE_F32,
        entry::SZ_FAST_DECODE_F64,
        entry::SZ_FAST_EXACT_F32,
        entry::SZ_FAST_EXACT_F64,
        entry::SZ_FAST_ENCODE_F32,
        entry::SZ_FAST_ENCODE_F64,
        entry::SZ_FAST_ASSEMBLE_F32,
        entry::SZ_FAST_ASSEMBLE_F64,
    ],
};

/// The `sz` codec's ratio-mode decoder: the Huffman groups' symbols (a thread per group), the
/// values of Lorenzo blocks (a thread per block) and of interpolated chunks (a thread per
/// chunk).
pub const SZ_RATIO: KernelSource = KernelSource {
    name: "sz_ratio",
    text: include_str!("../kernels/sz/sz_ratio.cu"),
    defines: &[],
    entries: &[
        entry::SZ_RATIO_SYMBOLS,
        entry::SZ_RATIO_LORENZO_F32,
        entry::SZ_RATIO_LORENZO_F64,
        entry::SZ_RATIO_INTERP_F32,
        entry::SZ_RATIO_INTERP_F64,
    ],
};

/// The `sz` codec's ratio-mode encoder: Lorenzo candidates (a thread per block), interpolated
/// candidates (a thread per chunk), and per Huffman group and section the run symbols,
/// histograms, code lengths and canonical codes, group ends and the bits.
pub const SZ_RATIO_ENCODE: KernelSource = KernelSource {
    name: "sz_ratio_encode",
    text: include_str!("../kernels/sz/sz_ratio_encode.cu"),
    defines: &[],
    entries: &[
        entry::SZ_RATIO_ENC_LORENZO_F32,
        entry::SZ_RATIO_ENC_LORENZO_F64,
        entry::SZ_RATIO_ENC_INTERP_F32,
        entry::SZ_RATIO_ENC_INTERP_F64,
        entry::SZ_RATIO_ENC_GROUPS,
        entry::SZ_RATIO_ENC_HISTOGRAM,
        entry::SZ_RATIO_ENC_CODES,
        entry::SZ_RATIO_ENC_GROUP_BITS,
        entry::SZ_RATIO_ENC_ENDS,
        entry::SZ_RATIO_ENC_WRITE,
        entry::SZ_RATIO_ENC_EXCEPTIONS,
    ],
};

/// The Star Schema Benchmark's queries: one parametrised kernel that decodes (or loads), filters,
/// probes the dimension maps and aggregates a tile of the fact table at a time, over tile-codec
/// columns (`ssb_query_tile`) or raw `u32` columns (`ssb_query_plain`).
pub const SSB: KernelSource = KernelSource {
    name: "ssb",
    text: include_str!("../kernels/ssb/ssb.cu"),
    defines: &[],
    entries: &[entry::SSB_QUERY_TILE, entry::SSB_QUERY_PLAIN],
};

/// The `snappy` and `lz4` codecs' decoders, a warp per raw block on the CODAG framework.
pub const LZ: KernelSource = KernelSource {
    name: "lz",
    text: include_str!("../kernels/lz/lz.cu"),
    defines: &[],
    entries: &[entry::LZ_DECODE_SNAPPY, entry::LZ_DECODE_LZ4],
};

/// The ORC type-tree decoder's kernels on a GPU: decimal varints, timestamps, and dictionary
/// strings' lengths and bytes.
pub const ORC_TREE: KernelSource = KernelSource {
    name: "orc_tree",
    text: include_str!("../kernels/orc/orc_tree.cu"),
    defines: &[],
    entries: &[
        entry::ORC_DECIMAL_VARINTS,
        entry::ORC_TIMESTAMPS,
        entry::ORC_DICT_LENGTHS,
        entry::ORC_DICT_GATHER,
    ],
};
