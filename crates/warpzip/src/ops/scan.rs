//! Exclusive prefix sum over u32 and u64 (wrapping arithmetic): a CPU twin and a single-pass
//! GPU scan with decoupled look-back (`kernels/ops/scan.cu`).

use crate::error::{Error, Result};
use crate::gpu::{kernels, CudaSlice, GpuContext, LaunchConfig, PushKernelArg};
use cudarc::driver::{DevicePtr, DeviceRepr, ValidAsZeroBits};

/// The smallest tile, in elements, of any scan kernel variant.
const MIN_TILE: u64 = 512;

/// An element type the scan supports.
pub trait ScanElem: DeviceRepr + ValidAsZeroBits + Copy + Default + Send + Sync + 'static {
    /// The kernel entry point.
    const KERNEL: &'static str;
    /// Threads per block of `KERNEL`; must match `SCAN_U{32,64}_THREADS` in scan.cu.
    const THREADS: u32;
    /// 16-byte vectors per thread of `KERNEL`; must match `SCAN_U{32,64}_VECS` in scan.cu.
    const VECS: u32;
    /// Wrapping addition.
    fn wrapping_add(self, other: Self) -> Self;
    /// Elements per block tile.
    fn tile() -> u64 {
        (Self::THREADS * Self::VECS) as u64 * (16 / std::mem::size_of::<Self>()) as u64
    }
}

impl ScanElem for u32 {
    const KERNEL: &'static str = kernels::entry::SCAN_EXCLUSIVE_U32;
    const THREADS: u32 = 256;
    const VECS: u32 = 32;
    fn wrapping_add(self, other: Self) -> Self {
        u32::wrapping_add(self, other)
    }
}

impl ScanElem for u64 {
    const KERNEL: &'static str = kernels::entry::SCAN_EXCLUSIVE_U64;
    const THREADS: u32 = 256;
    const VECS: u32 = 32;
    fn wrapping_add(self, other: Self) -> Self {
        u64::wrapping_add(self, other)
    }
}

/// CPU twin: writes the exclusive prefix sum of `input` to `output` and returns the total.
pub fn exclusive_scan_cpu<T: ScanElem>(input: &[T], output: &mut [T]) -> Result<T> {
    if input.len() != output.len() {
        return Err(Error::InvalidArgument(format!(
            "scan output holds {} elements, input {}",
            output.len(),
            input.len()
        )));
    }
    let mut acc = T::default();
    for (o, &x) in output.iter_mut().zip(input) {
        *o = acc;
        acc = acc.wrapping_add(x);
    }
    Ok(acc)
}

/// Scratch state of the GPU scan, reusable across calls of at most `capacity` elements.
pub struct GpuScan<T: ScanElem> {
    capacity: u64,
    state: CudaSlice<u32>,
    flags: CudaSlice<u32>,
    aggregate: CudaSlice<T>,
    inclusive: CudaSlice<T>,
    total: CudaSlice<T>,
}

impl<T: ScanElem> GpuScan<T> {
    /// Allocates scratch for inputs of up to `capacity` elements.
    pub fn new(gpu: &GpuContext, capacity: u64) -> Result<Self> {
        // Sized for the smallest tile of any variant (`MIN_TILE`), so tuning variants fit too.
        let tiles = capacity.div_ceil(MIN_TILE).max(1) as usize;
        Ok(GpuScan {
            capacity,
            state: gpu.alloc_zeros::<u32>(1)?,
            // Two words per tile: the packed variants keep a 64-bit status per tile.
            flags: gpu.alloc_zeros_for::<u32>(2 * tiles, "the scan's tile flags")?,
            aggregate: gpu.alloc_for::<T>(tiles, "the scan's tile sums")?,
            inclusive: gpu.alloc_for::<T>(tiles, "the scan's tile prefixes")?,
            total: gpu.alloc_zeros::<T>(1)?,
        })
    }

    /// Queues the exclusive scan of the first `n` elements of `input` into `output` on the
    /// default stream. The total is left on the device (`total()`); nothing is synchronised.
    pub fn run(
        &mut self,
        gpu: &GpuContext,
        input: &CudaSlice<T>,
        output: &mut CudaSlice<T>,
        n: u64,
    ) -> Result<()> {
        self.run_kernel(gpu, T::KERNEL, T::THREADS, T::tile(), input, output, n)
    }

    /// Like `run`, with an explicit kernel entry point of `threads` threads per block scanning
    /// `tile` elements per block (the tuning variants of scan.cu).
    #[allow(clippy::too_many_arguments)]
    pub fn run_kernel(
        &mut self,
        gpu: &GpuContext,
        kernel: &str,
        threads: u32,
        tile: u64,
        input: &CudaSlice<T>,
        output: &mut CudaSlice<T>,
        n: u64,
    ) -> Result<()> {
        if tile < MIN_TILE {
            return Err(Error::InvalidArgument(format!(
                "scan tile {tile} below {MIN_TILE}"
            )));
        }
        if n > self.capacity || n > input.len() as u64 || n > output.len() as u64 {
            return Err(Error::InvalidArgument(format!(
                "scan of {n} elements exceeds a buffer (capacity {}, input {}, output {})",
                self.capacity,
                input.len(),
                output.len()
            )));
        }
        let stream = gpu.stream();
        stream.memset_zeros(&mut self.state)?;
        stream.memset_zeros(&mut self.total)?;
        if n == 0 {
            return Ok(());
        }
        let tiles = n.div_ceil(tile);
        // Packed-status variants use two words per tile.
        let words = (2 * tiles as usize).min(self.flags.len());
        let mut flags = self.flags.slice_mut(0..words);
        stream.memset_zeros(&mut flags)?;
        let vector_ok: i32 = {
            let (pi, _gi) = input.device_ptr(stream);
            let (po, _go) = output.device_ptr(stream);
            i32::from(pi % 16 == 0 && po % 16 == 0)
        };
        let func = gpu.function(&kernels::SCAN, kernel)?;
        let cfg = LaunchConfig {
            grid_dim: (tiles as u32, 1, 1),
            block_dim: (threads, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut launch = stream.launch_builder(&func);
        launch
            .arg(input)
            .arg(output)
            .arg(&n)
            .arg(&mut self.state)
            .arg(&mut self.flags)
            .arg(&mut self.aggregate)
            .arg(&mut self.inclusive)
            .arg(&mut self.total)
            .arg(&vector_ok);
        // SAFETY: the argument list matches `scan_exclusive_{u32,u64}` in scan.cu; every buffer
        // holds at least the elements the kernel touches (n elements in and out, `tiles` flags
        // and values, one state word and one total), checked above.
        unsafe { launch.launch(cfg) }?;
        Ok(())
    }

    /// The total of the last scan, copied back (synchronises).
    pub fn total(&self, gpu: &GpuContext) -> Result<T> {
        let v = gpu.download(&self.total)?;
        v.first()
            .copied()
            .ok_or_else(|| Error::Driver("empty scan total".into()))
    }
}

/// Convenience: scans a host slice on the GPU and returns (exclusive sums, total).
pub fn exclusive_scan_gpu<T: ScanElem>(gpu: &GpuContext, input: &[T]) -> Result<(Vec<T>, T)> {
    let n = input.len() as u64;
    let d_in = gpu.upload_for(input, "the scan's input")?;
    let mut d_out = gpu.alloc_for::<T>(input.len(), "the scan's output")?;
    let mut scan = GpuScan::<T>::new(gpu, n)?;
    scan.run(gpu, &d_in, &mut d_out, n)?;
    let mut out = gpu.download(&d_out)?;
    out.truncate(input.len());
    let total = scan.total(gpu)?;
    Ok((out, total))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;

    /// The launch geometry on the Rust side must be the kernels' own.
    #[test]
    fn launch_constants_match_scan_cu() {
        let src = kernels::SCAN.text;
        let define = |name: &str| -> u32 {
            src.lines()
                .find_map(|l| l.strip_prefix(&format!("#define {name} ")))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("scan.cu defines no {name}"))
        };
        assert_eq!(<u32 as ScanElem>::THREADS, define("SCAN_U32_THREADS"));
        assert_eq!(<u32 as ScanElem>::VECS, define("SCAN_U32_VECS"));
        assert_eq!(<u64 as ScanElem>::THREADS, define("SCAN_U64_THREADS"));
        assert_eq!(<u64 as ScanElem>::VECS, define("SCAN_U64_VECS"));
    }

    #[test]
    fn cpu_scan_wraps_and_returns_the_total() {
        let input = [u32::MAX, 2, 3];
        let mut out = [0u32; 3];
        let total = exclusive_scan_cpu(&input, &mut out).unwrap();
        assert_eq!(out, [0, u32::MAX, 1]);
        assert_eq!(total, 4);
        assert!(exclusive_scan_cpu(&input, &mut [0u32; 2]).is_err());
    }
}
