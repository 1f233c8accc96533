//! GPU launches of `kernels/ops/compact.cu`: the single-pass select (decoupled look-back over the
//! tiles' counts, mask read once), the three-pass select (count kernel, device-wide scan,
//! write-out kernel) and the scan-free patterned gather. Nothing synchronizes until a count or
//! an output is read back.

use super::{CompactElem, Mask, Pattern};
use crate::error::{Error, Result};
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use crate::ops::scan::GpuScan;
use cudarc::driver::{CudaFunction, DevicePtr, DevicePtrMut};
use std::collections::HashMap;
use std::marker::PhantomData;

/// Threads per select block; must match `COMPACT_THREADS` in compact.cu.
pub const THREADS: u32 = 256;
/// 16-byte vectors per thread of the select kernels; must match `COMPACT_VECS`.
pub const VECS: u32 = 4;
/// Vectors per thread of the `_wide` select kernels; must match `COMPACT_VECS_WIDE`.
pub const VECS_WIDE: u32 = 8;
/// Warps (one tile each) per block of the count kernel; must match `COMPACT_COUNT_WARPS`.
pub const COUNT_WARPS: u32 = 8;
/// Threads per block of the pattern kernel; must match `COMPACT_PATTERN_THREADS`.
pub const PATTERN_THREADS: u32 = 256;

/// Words of the single-pass state before the tiles' look-back status.
const STATE_HEADER: usize = 2;

// Bits of the kernels' `align` argument; must match `COMPACT_ALIGN_*`.
const ALIGN_VALUES: u32 = 1;
const ALIGN_OUT: u32 = 2;
const ALIGN_MASK: u32 = 4;

/// Which select kernels run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The fastest strategy measured on an H200 at every density and mask shape (three-pass:
    /// 1.7x to 2.7x faster than single-pass for 2^28 u32, see docs/benchmarks.md). It needs no
    /// host round trip either: the count, scan and write-out kernels are queued back to back.
    #[default]
    Auto,
    /// Single pass, tiles of `VECS` vectors per thread.
    SinglePass,
    /// Single pass, tiles of `VECS_WIDE` vectors per thread (twice the bytes per look-back).
    SinglePassWide,
    /// Count kernel, device-wide scan of the counts, write-out kernel (mask read twice).
    ThreePass,
}

impl Strategy {
    /// Every explicit strategy.
    pub const ALL: [Strategy; 3] = [
        Strategy::SinglePass,
        Strategy::SinglePassWide,
        Strategy::ThreePass,
    ];

    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Auto => "auto",
            Strategy::SinglePass => "single-pass",
            Strategy::SinglePassWide => "single-pass wide",
            Strategy::ThreePass => "three-pass",
        }
    }

    fn vecs(self) -> u32 {
        match self {
            Strategy::SinglePassWide => VECS_WIDE,
            _ => VECS,
        }
    }
}

/// Elements per tile of the select kernels with `vecs` vectors per thread.
pub fn tile_elems<T>(vecs: u32) -> u64 {
    u64::from(THREADS) * u64::from(vecs) * (16 / std::mem::size_of::<T>()) as u64
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MaskKind {
    Bits,
    Flags,
}

impl MaskKind {
    fn name(self) -> &'static str {
        match self {
            MaskKind::Bits => "bits",
            MaskKind::Flags => "flags",
        }
    }
}

/// Where the count of the last queued select lives.
#[derive(Clone, Copy, Debug)]
enum LastCount {
    Known(u64),
    Device,
    Scan,
}

/// Which kernel gathers a patterned selection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PatternKernel {
    /// The staged kernel for patterns of elements up to 4 bytes that keep at most a quarter of
    /// their period and whose span fits in shared memory (`staged_pattern_smem`), else the
    /// direct gather.
    #[default]
    Auto,
    /// Every thread loads its outputs' sources straight from global memory.
    Gather,
    /// Each block loads the input span of its outputs with coalesced 16-byte loads (vectors
    /// without a kept element skipped) into shared memory and gathers from there.
    Staged,
}

/// Longest period the staged pattern kernel takes (its per-position table is one byte each).
pub const STAGED_MAX_PERIOD: usize = 1 << 16;
/// Most dynamic shared memory the staged pattern kernel asks for (no opt-in needed).
const STAGED_MAX_SMEM: u64 = 48 * 1024;

/// Bytes of shared memory the staged pattern kernel needs for elements of `elem` bytes, or
/// `None` where the pattern does not suit it. Mirrors `compact_pattern_staged`: a block makes
/// PATTERN_THREADS output vectors, which come from at most (q + 1) periods of input, q =
/// floor((outputs - 1 + ones - 1) / ones); the span is stored as 32-bit words with one pad word
/// after every 32.
pub fn staged_pattern_smem(elem: usize, pattern: &Pattern) -> Option<u32> {
    let (ones, period) = (pattern.ones() as u64, pattern.period() as u64);
    if ones == 0 || pattern.period() > STAGED_MAX_PERIOD {
        return None;
    }
    let per_vec = (16 / elem) as u64;
    let outputs = u64::from(PATTERN_THREADS) * per_vec;
    let q = (outputs - 1).div_ceil(ones);
    let span = (q + 1) * period;
    let vectors = (span - 1) / per_vec + 2;
    let words = 4 * vectors + (4 * vectors) / 32 + 1;
    let bytes = 4 * words;
    (bytes <= STAGED_MAX_SMEM).then_some(bytes as u32)
}

/// A pattern on the device: its kept positions, and for periods up to `STAGED_MAX_PERIOD` a
/// byte per position whose bit k says that one of the 2^(k+1) positions from there on
/// (cyclically) is kept: which 16-byte vectors the staged kernel must load.
pub struct DevicePattern {
    pattern: Pattern,
    kept: CudaSlice<u32>,
    need: CudaSlice<u8>,
}

impl DevicePattern {
    /// Uploads `pattern`'s kept positions (and its vector table where the period is short).
    pub fn new(gpu: &GpuContext, pattern: &Pattern) -> Result<DevicePattern> {
        let kept = if pattern.kept_positions().is_empty() {
            gpu.upload(&[0u32])?
        } else {
            gpu.upload(pattern.kept_positions())?
        };
        let need = if pattern.period() <= STAGED_MAX_PERIOD {
            gpu.upload(&vector_need_table(pattern.flags()))?
        } else {
            gpu.upload(&[0u8])?
        };
        Ok(DevicePattern {
            pattern: pattern.clone(),
            kept,
            need,
        })
    }

    /// The host pattern.
    pub fn pattern(&self) -> &Pattern {
        &self.pattern
    }
}

/// Byte r, bit k: one of positions r .. r + 2^(k+1) - 1 of the period (cyclically) is kept,
/// for k = 0..6 (up to 128 elements; the staged kernel asks about 64-byte groups: 8 u64, 16 u32,
/// 32 u16 or 64 u8).
fn vector_need_table(flags: &[bool]) -> Vec<u8> {
    let p = flags.len();
    (0..p)
        .map(|r| {
            let mut byte = 0u8;
            for k in 0..6 {
                let width = 2usize << k;
                if (0..width).any(|j| flags[(r + j) % p]) {
                    byte |= 1 << k;
                }
            }
            byte
        })
        .collect()
}

/// Scratch state of the GPU select for inputs of up to `capacity` elements, reusable across
/// calls (benchmarks time `queue_*` alone).
pub struct GpuCompactor<T: CompactElem> {
    capacity: u64,
    /// The single pass's state, zeroed by one memset per call: word 0 the tile counter (its
    /// low half, as a u32), word 1 the total, words 2.. the look-back status of every tile
    /// (flag in the top two bits, count below).
    state: CudaSlice<u64>,
    tiles: u64,
    functions: HashMap<String, CudaFunction>,
    counts: CudaSlice<u64>,
    offsets: CudaSlice<u64>,
    scan: GpuScan<u64>,
    last: LastCount,
    _elem: PhantomData<T>,
}

impl<T: CompactElem> GpuCompactor<T> {
    /// Allocates scratch for inputs of up to `capacity` elements.
    pub fn new(gpu: &GpuContext, capacity: u64) -> Result<Self> {
        let tiles = capacity.div_ceil(tile_elems::<T>(VECS)).max(1);
        if tiles > u64::from(u32::MAX) {
            return Err(Error::InvalidArgument(format!(
                "{capacity} elements are too many for one GPU select"
            )));
        }
        let tiles = tiles as usize;
        Ok(GpuCompactor {
            capacity,
            state: gpu.alloc_zeros_for::<u64>(tiles + STATE_HEADER, "the select's tile states")?,
            tiles: tiles as u64,
            functions: HashMap::new(),
            counts: gpu.alloc_for::<u64>(tiles, "the select's tile counts")?,
            offsets: gpu.alloc_for::<u64>(tiles, "the select's tile offsets")?,
            scan: GpuScan::<u64>::new(gpu, tiles as u64)?,
            last: LastCount::Known(0),
            _elem: PhantomData,
        })
    }

    /// Queues the select of the first `n` values under the packed bitmask `mask` (at least
    /// `n.div_ceil(8)` bytes) into `out`. Writes stop at `out.len()`; `count` then exceeds it.
    pub fn queue_bits<V, M, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        mask: &M,
        out: &mut O,
        strategy: Strategy,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        M: DevicePtr<u8>,
        O: DevicePtrMut<T>,
    {
        self.queue_select(gpu, values, n, mask, MaskKind::Bits, out, strategy)
    }

    /// Like `queue_bits`, with one byte per flag (at least `n` bytes; nonzero keeps).
    pub fn queue_flags<V, M, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        flags: &M,
        out: &mut O,
        strategy: Strategy,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        M: DevicePtr<u8>,
        O: DevicePtrMut<T>,
    {
        self.queue_select(gpu, values, n, flags, MaskKind::Flags, out, strategy)
    }

    /// Queues the gather of the first `n` values under a pattern into `out`, which must hold
    /// every kept element (the count is known in advance: nothing is written otherwise).
    pub fn queue_pattern<V, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        pattern: &DevicePattern,
        out: &mut O,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
    {
        self.queue_pattern_with(gpu, values, n, pattern, out, PatternKernel::Auto)
    }

    /// `queue_pattern` with a chosen kernel; `PatternKernel::Staged` is refused (an
    /// `InvalidArgument`) for patterns it does not take (`staged_pattern_smem` is `None`).
    pub fn queue_pattern_with<V, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        pattern: &DevicePattern,
        out: &mut O,
        kernel: PatternKernel,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
    {
        check_values(n, values.len())?;
        let p = &pattern.pattern;
        let count = p.count_before(n);
        if count > out.len() as u64 {
            return Err(Error::InvalidArgument(format!(
                "the output holds {} elements but {count} are selected",
                out.len()
            )));
        }
        self.last = LastCount::Known(count);
        let staged = staged_pattern_smem(std::mem::size_of::<T>(), p);
        if kernel == PatternKernel::Staged && staged.is_none() {
            return Err(Error::InvalidArgument(format!(
                "the staged pattern kernel does not take a period of {} with {} kept",
                p.period(),
                p.ones()
            )));
        }
        if count == 0 {
            return Ok(());
        }
        let per_vec = (16 / std::mem::size_of::<T>()) as u64;
        // Auto stages patterns of elements up to 4 bytes that keep at most a quarter of their
        // period. On an H200, u32 1-of-8 went from 79% of the roofline gathered to 93% staged,
        // but the gather won where half or more is kept (1,0,0,1: 96% against 73%; a 16-long
        // pattern keeping 10: 93% against 66%) and on u64 1-of-8 (0.292 against 0.305 ms).
        let stage = match kernel {
            PatternKernel::Staged => true,
            PatternKernel::Gather => false,
            PatternKernel::Auto => std::mem::size_of::<T>() <= 4 && 4 * p.ones() <= p.period(),
        };
        if let (Some(smem), true) = (staged, stage) {
            return self.launch_pattern_staged(gpu, values, n, pattern, out, count, smem);
        }
        let nvec = count.div_ceil(per_vec);
        let blocks = nvec
            .div_ceil(u64::from(PATTERN_THREADS))
            .min(u64::from(gpu.sm_count().max(1)) * 8)
            .max(1);
        let ones = p.ones() as u64;
        let stride = blocks * u64::from(PATTERN_THREADS) * per_vec;
        let adv_q = stride / ones;
        let adv_r = (stride % ones) as u32;
        let ones = ones as u32;
        let period = p.period() as u32;
        let stream = gpu.stream();
        let func = self.function(gpu, &format!("compact_pattern_{}", T::KERNEL_TYPE))?;
        let (pv, _gv) = values.device_ptr(stream);
        let (po, _go) = out.device_ptr_mut(stream);
        let align = if po % 16 == 0 { ALIGN_OUT } else { 0 };
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (PATTERN_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&func);
        launch
            .arg(&pv)
            .arg(&pattern.kept)
            .arg(&ones)
            .arg(&period)
            .arg(&po)
            .arg(&count)
            .arg(&adv_q)
            .arg(&adv_r)
            .arg(&align);
        // SAFETY: the arguments match `compact_pattern_<type>`; `values` holds n elements
        // (checked) and every source index (o / ones) * period + kept[o % ones] of an output
        // o < count is below n; `out` holds at least `count` elements (checked); `kept` holds
        // `ones` positions.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn launch_pattern_staged<V, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        pattern: &DevicePattern,
        out: &mut O,
        count: u64,
        smem: u32,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        O: DevicePtrMut<T>,
    {
        let p = &pattern.pattern;
        let per_vec = (16 / std::mem::size_of::<T>()) as u64;
        let blocks = count.div_ceil(u64::from(PATTERN_THREADS) * per_vec);
        let blocks = u32::try_from(blocks).map_err(|_| {
            Error::InvalidArgument(format!("a pattern select of {count} outputs is too large"))
        })?;
        let ones = p.ones() as u32;
        let period = p.period() as u32;
        let stream = gpu.stream();
        let func = self.function(gpu, &format!("compact_pattern_staged_{}", T::KERNEL_TYPE))?;
        let (pv, _gv) = values.device_ptr(stream);
        let (po, _go) = out.device_ptr_mut(stream);
        let mut align = 0;
        if pv % 16 == 0 {
            align |= ALIGN_VALUES;
        }
        if po % 16 == 0 {
            align |= ALIGN_OUT;
        }
        let cfg = LaunchConfig {
            grid_dim: (blocks, 1, 1),
            block_dim: (PATTERN_THREADS, 1, 1),
            shared_mem_bytes: smem,
        };
        let mut launch = stream.launch_builder(&func);
        launch
            .arg(&pv)
            .arg(&n)
            .arg(&pattern.kept)
            .arg(&pattern.need)
            .arg(&ones)
            .arg(&period)
            .arg(&po)
            .arg(&count)
            .arg(&align);
        // SAFETY: the arguments match `compact_pattern_staged_<type>`; `values` holds n
        // elements (checked) and the kernel reads none at or past n; every source of an output
        // o < count is below n; `out` holds at least `count` elements (checked by the caller);
        // `kept` holds `ones` positions and `need` one byte per position of the period (the
        // period is at most STAGED_MAX_PERIOD, or `staged_pattern_smem` is None); `smem` is the
        // kernel's largest span, computed by `staged_pattern_smem` from the same constants.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn queue_select<V, M, O>(
        &mut self,
        gpu: &GpuContext,
        values: &V,
        n: u64,
        mask: &M,
        kind: MaskKind,
        out: &mut O,
        strategy: Strategy,
    ) -> Result<()>
    where
        V: DevicePtr<T>,
        M: DevicePtr<u8>,
        O: DevicePtrMut<T>,
    {
        check_values(n, values.len())?;
        if n > self.capacity {
            return Err(Error::InvalidArgument(format!(
                "select of {n} elements exceeds the scratch capacity {}",
                self.capacity
            )));
        }
        let need = match kind {
            MaskKind::Bits => n.div_ceil(8),
            MaskKind::Flags => n,
        };
        let mask_len = mask.len() as u64;
        if mask_len < need {
            return Err(Error::InvalidArgument(format!(
                "the mask is shorter than the values: {mask_len} bytes, {n} values need {need}"
            )));
        }
        if n == 0 {
            self.last = LastCount::Known(0);
            return Ok(());
        }
        let vecs = strategy.vecs();
        let tile = tile_elems::<T>(vecs);
        let tiles = n.div_ceil(tile);
        if tiles > self.tiles {
            return Err(Error::InvalidArgument(format!(
                "select of {n} elements needs {tiles} tiles, scratch holds {}",
                self.tiles
            )));
        }
        let num_tiles = tiles as u32;
        let capacity = out.len() as u64;
        let stream = gpu.stream().clone();
        let (pv, _gv) = values.device_ptr(&stream);
        let (pm, _gm) = mask.device_ptr(&stream);
        let (po, _go) = out.device_ptr_mut(&stream);
        let mut align = 0;
        if pv % 16 == 0 {
            align |= ALIGN_VALUES;
        }
        if po % 16 == 0 {
            align |= ALIGN_OUT;
        }
        if pm % 16 == 0 {
            align |= ALIGN_MASK;
        }
        let single = !matches!(strategy, Strategy::ThreePass | Strategy::Auto);
        if single {
            let mut used = self
                .state
                .try_slice_mut(0..STATE_HEADER + tiles as usize)
                .ok_or_else(|| Error::InvalidArgument("select state out of range".into()))?;
            stream.memset_zeros(&mut used)?;
        } else {
            let func = self.function(gpu, &format!("compact_count_{}", kind.name()))?;
            let cfg = LaunchConfig {
                grid_dim: (num_tiles.div_ceil(COUNT_WARPS), 1, 1),
                block_dim: (COUNT_WARPS * 32, 1, 1),
                shared_mem_bytes: 0,
            };
            let tile32 = tile as u32;
            let mut launch = stream.launch_builder(&func);
            launch
                .arg(&pm)
                .arg(&mask_len)
                .arg(&n)
                .arg(&tile32)
                .arg(&mut self.counts)
                .arg(&num_tiles)
                .arg(&align);
            // SAFETY: the arguments match `compact_count_{bits,flags}`; the mask holds what n
            // values need (checked) and the kernel reads no byte at or past mask_len; `counts`
            // holds at least `num_tiles` entries (checked against the scratch).
            unsafe { launch.launch(cfg) }?;
            self.scan
                .run(gpu, &self.counts, &mut self.offsets, u64::from(num_tiles))?;
        }
        let name = format!(
            "compact_{}_{}{}_{}",
            if single { "select" } else { "writeout" },
            kind.name(),
            if vecs == VECS_WIDE { "_wide" } else { "" },
            T::KERNEL_TYPE
        );
        let func = self.function(gpu, &name)?;
        let (ps, _gs) = self.state.device_ptr_mut(&stream);
        let (counter, total, status) = (ps, ps + 8, ps + 8 * STATE_HEADER as u64);
        let cfg = LaunchConfig {
            grid_dim: (num_tiles, 1, 1),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&func);
        launch
            .arg(&pv)
            .arg(&n)
            .arg(&pm)
            .arg(&mask_len)
            .arg(&po)
            .arg(&capacity)
            .arg(&counter)
            .arg(&status)
            .arg(&self.offsets)
            .arg(&self.counts)
            .arg(&total)
            .arg(&num_tiles)
            .arg(&align);
        // SAFETY: the arguments match the `compact_{select,writeout}_*` entry points; `values`
        // holds n elements and the mask what n needs (checked; the kernel reads only kept
        // values, whole vectors only inside n, and no mask byte at or past mask_len); every
        // output write is below `capacity`, the length of `out`; the tile arrays hold at least
        // `num_tiles` entries, and the look-back status and tile counter were zeroed above
        // (single pass) or `offsets` scanned (three pass).
        unsafe { launch.launch(cfg) }?;
        self.last = if single {
            LastCount::Device
        } else {
            LastCount::Scan
        };
        Ok(())
    }

    /// Kept elements of the last queued select (synchronizes). More than the output held
    /// means only the first `out.len()` were written.
    pub fn count(&self, gpu: &GpuContext) -> Result<u64> {
        match self.last {
            LastCount::Known(c) => Ok(c),
            LastCount::Device => gpu
                .download(
                    &self
                        .state
                        .try_slice(1..2)
                        .ok_or_else(|| Error::Driver("select state too short".into()))?,
                )?
                .first()
                .copied()
                .ok_or_else(|| Error::Driver("empty select total".into())),
            LastCount::Scan => self.scan.total(gpu),
        }
    }
}

impl<T: CompactElem> GpuCompactor<T> {
    /// The entry point `name` of compact.cu, looked up once per compactor.
    fn function(&mut self, gpu: &GpuContext, name: &str) -> Result<CudaFunction> {
        if let Some(f) = self.functions.get(name) {
            return Ok(f.clone());
        }
        let f = gpu.function(&kernels::COMPACT, name)?;
        self.functions.insert(name.to_string(), f.clone());
        Ok(f)
    }
}

fn check_values(n: u64, len: usize) -> Result<()> {
    if n > len as u64 {
        return Err(Error::InvalidArgument(format!(
            "select of {n} values from a device array of {len}"
        )));
    }
    Ok(())
}

fn finish_count(count: u64, out_len: usize) -> Result<usize> {
    if count > out_len as u64 {
        return Err(Error::InvalidArgument(format!(
            "the output holds {out_len} elements but {count} are selected (the first {out_len} \
             were written)"
        )));
    }
    Ok(count as usize)
}

/// Selects from the device array `values` (all of it) by the packed bitmask `mask` into `out`;
/// returns the count (synchronizes).
pub fn select_device<T, V, M, O>(
    gpu: &GpuContext,
    values: &V,
    mask: &M,
    out: &mut O,
) -> Result<usize>
where
    T: CompactElem,
    V: DevicePtr<T>,
    M: DevicePtr<u8>,
    O: DevicePtrMut<T>,
{
    let n = values.len() as u64;
    let mut c = GpuCompactor::<T>::new(gpu, n)?;
    c.queue_bits(gpu, values, n, mask, out, Strategy::Auto)?;
    finish_count(c.count(gpu)?, out.len())
}

/// Like `select_device`, with one byte per flag.
pub fn select_flags_device<T, V, M, O>(
    gpu: &GpuContext,
    values: &V,
    flags: &M,
    out: &mut O,
) -> Result<usize>
where
    T: CompactElem,
    V: DevicePtr<T>,
    M: DevicePtr<u8>,
    O: DevicePtrMut<T>,
{
    let n = values.len() as u64;
    let mut c = GpuCompactor::<T>::new(gpu, n)?;
    c.queue_flags(gpu, values, n, flags, out, Strategy::Auto)?;
    finish_count(c.count(gpu)?, out.len())
}

/// Like `select_device`, with a repeating pattern.
pub fn select_pattern_device<T, V, O>(
    gpu: &GpuContext,
    values: &V,
    pattern: &Pattern,
    out: &mut O,
) -> Result<usize>
where
    T: CompactElem,
    V: DevicePtr<T>,
    O: DevicePtrMut<T>,
{
    let n = values.len() as u64;
    let dp = DevicePattern::new(gpu, pattern)?;
    let mut c = GpuCompactor::<T>::new(gpu, n)?;
    c.queue_pattern(gpu, values, n, &dp, out)?;
    finish_count(c.count(gpu)?, out.len())
}

/// Host slices through the GPU: uploads, selects, downloads into the front of `out` (which
/// must hold every kept element); returns the count.
pub fn select_host<T: CompactElem>(
    gpu: &GpuContext,
    values: &[T],
    mask: Mask<'_>,
    out: &mut [T],
) -> Result<usize> {
    let n = values.len();
    let expected = mask.count(n)?;
    let len = out.len();
    let dst = out.get_mut(..expected).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "the output holds {len} elements but {expected} are selected"
        ))
    })?;
    if expected == 0 {
        return Ok(0);
    }
    let d_values = gpu.upload_for(values, "the values to select from")?;
    let mut d_out = gpu.alloc_for::<T>(expected, "the selected values")?;
    let mut c = GpuCompactor::<T>::new(gpu, n as u64)?;
    // The mask buffers live until the count is read back (which synchronizes).
    let mut d_mask = None;
    let mut d_pattern = None;
    match mask {
        Mask::Bits(bits) => {
            let bytes = bits
                .get(..n.div_ceil(8))
                .ok_or_else(|| Error::InvalidArgument("mask too short".into()))?;
            let m = d_mask.insert(gpu.upload_for(bytes, "the select's mask")?);
            c.queue_bits(gpu, &d_values, n as u64, m, &mut d_out, Strategy::Auto)?;
        }
        Mask::Flags(flags) => {
            let bytes = flags
                .get(..n)
                .ok_or_else(|| Error::InvalidArgument("mask too short".into()))?;
            let m = d_mask.insert(gpu.upload_for(bytes, "the select's mask")?);
            c.queue_flags(gpu, &d_values, n as u64, m, &mut d_out, Strategy::Auto)?;
        }
        Mask::Pattern(p) => {
            let dp = d_pattern.insert(DevicePattern::new(gpu, p)?);
            c.queue_pattern(gpu, &d_values, n as u64, dp, &mut d_out)?;
        }
    }
    let got = c.count(gpu)?;
    if got != expected as u64 {
        return Err(Error::Driver(format!(
            "the GPU selected {got} elements where the mask keeps {expected}"
        )));
    }
    let view = d_out
        .try_slice(0..expected)
        .ok_or_else(|| Error::Driver("output view out of range".into()))?;
    gpu.stream().memcpy_dtoh(&view, dst)?;
    gpu.synchronize()?;
    drop((d_mask, d_pattern));
    Ok(expected)
}
