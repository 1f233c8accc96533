//! The GPU runtime: opening a device, compiling and caching kernels, streams and event timing.
//! Everything here is reached only after `probe` has confirmed the CUDA libraries exist.

pub mod batch;
pub mod compile;
pub mod kernels;
pub mod probe;

use crate::error::{Error, Result};
use compile::KernelSource;
use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, PinnedHostSlice};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

/// An opened GPU: its context, a default stream, and the modules loaded so far.
pub struct GpuContext {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    compute_capability: (i32, i32),
    sm_count: u32,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    staging: Mutex<Vec<PinnedHostSlice<u8>>>,
}

/// A failed allocation's driver error: `Error::OutOfMemory` naming `what` and `bytes` when the
/// driver ran out of memory, `Error::Driver` otherwise.
fn device_error(e: cudarc::driver::DriverError, what: &str, bytes: u64) -> Error {
    if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
        Error::out_of_memory(what, bytes)
    } else {
        e.into()
    }
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext")
            .field("name", &self.name)
            .field("arch", &self.arch())
            .field("sm_count", &self.sm_count)
            .finish()
    }
}

impl GpuContext {
    /// Opens GPU `ordinal`, failing with a clear error (never a panic) when there is none.
    pub fn open(ordinal: usize) -> Result<Arc<GpuContext>> {
        probe::require_libraries()?;
        let count = CudaContext::device_count()
            .map_err(|e| Error::NoDevice(format!("the CUDA driver did not start: {e}")))?;
        if count <= 0 {
            return Err(Error::NoDevice("the CUDA driver reports no devices".into()));
        }
        if ordinal >= count as usize {
            return Err(Error::NoDevice(format!(
                "device {ordinal} requested but only {count} present"
            )));
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::NoDevice(format!("device {ordinal} did not open: {e}")))?;
        // We order work on explicit streams ourselves; per-buffer event tracking only adds
        // driver calls to every launch.
        // SAFETY: called before any buffer or stream of this context exists.
        unsafe { ctx.disable_event_tracking() };
        let name = ctx.name()?;
        let compute_capability = ctx.compute_capability()?;
        let sm_count =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
        let stream = ctx.new_stream()?;
        Ok(Arc::new(GpuContext {
            ctx,
            stream,
            name,
            compute_capability,
            sm_count,
            modules: Mutex::new(HashMap::new()),
            staging: Mutex::new(Vec::new()),
        }))
    }

    /// The device's marketing name, such as "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The NVRTC architecture of this device, such as `sm_90`.
    pub fn arch(&self) -> String {
        format!(
            "sm_{}{}",
            self.compute_capability.0, self.compute_capability.1
        )
    }

    /// Number of streaming multiprocessors.
    pub fn sm_count(&self) -> u32 {
        self.sm_count
    }

    /// The underlying cudarc context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The stream every library call uses unless it makes its own.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A new stream on this device, for overlapping copies and kernels.
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        Ok(self.ctx.new_stream()?)
    }

    /// Loads (compiling on first use) `source` and returns its entry point `function`.
    pub fn function(&self, source: &KernelSource, function: &str) -> Result<CudaFunction> {
        let module = {
            let mut modules = self
                .modules
                .lock()
                .map_err(|_| Error::Driver("module cache lock poisoned".into()))?;
            match modules.get(source.name) {
                Some(m) => m.clone(),
                None => {
                    let cubin = compile::cubin_for(source, &self.arch())?;
                    let m = self
                        .ctx
                        .load_module(cudarc::nvrtc::Ptx::from_binary(cubin))?;
                    modules.insert(source.name, m.clone());
                    m
                }
            }
        };
        Ok(module.load_function(function)?)
    }

    /// Device memory holding a copy of `data`; `Error::OutOfMemory` when the device has no room.
    pub fn upload<T: cudarc::driver::DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>> {
        self.upload_for(data, "device memory")
    }

    /// [`upload`](Self::upload), naming what the memory is for should it be out of memory.
    pub(crate) fn upload_for<T: cudarc::driver::DeviceRepr>(
        &self,
        data: &[T],
        what: &str,
    ) -> Result<CudaSlice<T>> {
        let mut dst = self.exact_alloc::<T>(data.len(), what)?;
        self.stream.memcpy_htod(data, &mut dst)?;
        Ok(dst)
    }

    /// The device's default memory pool, from which every allocation of this context is made
    /// (stream-ordered); `None` when the device has no memory pools.
    fn memory_pool(&self) -> Result<Option<cudarc::driver::sys::CUmemoryPool>> {
        use cudarc::driver::sys;
        if !self.ctx.has_async_alloc() {
            return Ok(None);
        }
        self.ctx.bind_to_thread()?;
        let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
        // SAFETY: `pool` is a valid place for the handle and the device handle is this
        // context's own.
        unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, self.ctx.cu_device()) }.result()?;
        Ok(Some(pool))
    }

    /// Starts a new measure of the most device memory allocated at once.
    pub fn reset_peak_memory(&self) -> Result<()> {
        if let Some(pool) = self.memory_pool()? {
            let mut zero = 0u64;
            let attr = cudarc::driver::sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH;
            // SAFETY: the attribute is a u64 (cuuint64_t), and only 0 may be written to it.
            unsafe {
                cudarc::driver::sys::cuMemPoolSetAttribute(
                    pool,
                    attr,
                    (&mut zero as *mut u64).cast(),
                )
            }
            .result()?;
        }
        Ok(())
    }

    /// The most device memory this context had allocated at once since
    /// [`reset_peak_memory`](Self::reset_peak_memory) (bytes in use, not the pool's reserve);
    /// `None` when the device has no memory pools.
    pub fn peak_memory(&self) -> Result<Option<u64>> {
        let Some(pool) = self.memory_pool()? else {
            return Ok(None);
        };
        let mut high = 0u64;
        let attr = cudarc::driver::sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_USED_MEM_HIGH;
        // SAFETY: the attribute is a u64 (cuuint64_t), written to `high`.
        unsafe {
            cudarc::driver::sys::cuMemPoolGetAttribute(pool, attr, (&mut high as *mut u64).cast())
        }
        .result()?;
        Ok(Some(high))
    }

    /// Uninitialised device memory of `len` elements; `Error::OutOfMemory` when the device has
    /// no room.
    pub fn alloc<T: cudarc::driver::DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        self.alloc_for(len, "device memory")
    }

    /// [`alloc`](Self::alloc), naming what the memory is for should it be out of memory.
    pub(crate) fn alloc_for<T: cudarc::driver::DeviceRepr>(
        &self,
        len: usize,
        what: &str,
    ) -> Result<CudaSlice<T>> {
        self.exact_alloc(len.max(1), what)
    }

    /// Uninitialised device memory of exactly `len` elements for `what`.
    fn exact_alloc<T: cudarc::driver::DeviceRepr>(
        &self,
        len: usize,
        what: &str,
    ) -> Result<CudaSlice<T>> {
        let bytes = crate::error::bytes_of::<T>(len);
        if bytes > isize::MAX as u64 {
            return Err(Error::out_of_memory(what, bytes));
        }
        // SAFETY: the memory is uninitialised; every caller writes before reading, and tests
        // poison such buffers so that an unwritten element cannot pass.
        unsafe { self.stream.alloc::<T>(len) }.map_err(|e| device_error(e, what, bytes))
    }

    /// Device memory of `len` zeroed elements; `Error::OutOfMemory` when the device has no room.
    pub fn alloc_zeros<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>> {
        self.alloc_zeros_for(len, "device memory")
    }

    /// [`alloc_zeros`](Self::alloc_zeros), naming what the memory is for should it be out of
    /// memory.
    pub(crate) fn alloc_zeros_for<
        T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits,
    >(
        &self,
        len: usize,
        what: &str,
    ) -> Result<CudaSlice<T>> {
        let mut dst = self.alloc_for::<T>(len, what)?;
        self.stream.memset_zeros(&mut dst)?;
        Ok(dst)
    }

    /// Copies device memory back to the host; `Error::OutOfMemory` when the host has no room.
    pub fn download<
        T: cudarc::driver::DeviceRepr + Default + Clone,
        S: cudarc::driver::DevicePtr<T>,
    >(
        &self,
        data: &S,
    ) -> Result<Vec<T>> {
        let mut out = crate::error::try_filled(T::default(), data.len(), "a copy of device memory")?;
        self.stream.memcpy_dtoh(data, &mut out)?;
        Ok(out)
    }

    /// Takes `count` pinned host buffers of at least `len` bytes each from the context's pool
    /// (allocating what is missing); give them back with `return_staging`. Pinned memory is
    /// slow to allocate, so pipelines keep reusing the same few buffers.
    pub fn take_staging(&self, count: usize, len: usize) -> Result<Vec<PinnedHostSlice<u8>>> {
        let mut taken = Vec::with_capacity(count);
        if let Ok(mut pool) = self.staging.lock() {
            while taken.len() < count {
                match pool.iter().position(|b| b.len() >= len) {
                    Some(i) => taken.push(pool.swap_remove(i)),
                    None => break,
                }
            }
        }
        while taken.len() < count {
            // SAFETY: staging buffers are only ever filled (host copies or device-to-host
            // copies) before the bytes that were filled are read.
            taken.push(self.alloc_pinned(len)?);
        }
        Ok(taken)
    }

    /// Page-locked host memory of `len` bytes (cached, not write-combined, so the host can read
    /// it fast). Its contents are unspecified until written.
    pub fn alloc_pinned(&self, len: usize) -> Result<PinnedHostSlice<u8>> {
        let what = "pinned host memory";
        let len = len.max(1);
        if len >= isize::MAX as usize {
            return Err(Error::out_of_memory(what, len as u64));
        }
        // SAFETY: the bytes are unspecified (not undefined: u8 has no invalid values) and every
        // caller fills what it reads.
        unsafe { self.ctx.alloc_pinned_with_flags::<u8>(len, 0) }
            .map_err(|e| device_error(e, what, len as u64))
    }

    /// The first `len` bytes of a staging buffer taken with `take_staging`.
    pub fn staging_slice(buf: &mut PinnedHostSlice<u8>, len: usize) -> Result<&mut [u8]> {
        buf.as_mut_slice()?
            .get_mut(..len)
            .ok_or_else(|| Error::Driver("staging buffer smaller than requested".into()))
    }

    /// Returns staging buffers to the pool (the pool keeps at most eight).
    pub fn return_staging(&self, buffers: Vec<PinnedHostSlice<u8>>) {
        if let Ok(mut pool) = self.staging.lock() {
            for b in buffers {
                if pool.len() < 8 {
                    pool.push(b);
                }
            }
        }
    }

    /// Copies the first `dst.len()` bytes of `src` into host memory `dst` after the work queued
    /// on the default stream. Large copies go through two pinned staging buffers: while one
    /// piece is copied from the device, the piece before it is copied into `dst` by every core.
    /// A plain copy into pageable memory runs at the speed of one thread touching fresh pages:
    /// 1.4 GB/s for a 1.3 GB ORC file on the H200 machine's host.
    pub fn download_into(&self, src: &CudaSlice<u8>, dst: &mut [u8]) -> Result<()> {
        use rayon::prelude::*;
        /// Bytes of one staged piece.
        const PIECE: usize = 16 << 20;
        /// Bytes each host thread copies out of a staged piece at once.
        const SPLIT: usize = 1 << 20;
        /// Once the copy into `buf` is `done`, its first `out.len()` bytes into `out`, by every
        /// core.
        fn copy_out(
            buf: &mut PinnedHostSlice<u8>,
            out: &mut [u8],
            done: &cudarc::driver::CudaEvent,
        ) -> Result<()> {
            done.synchronize()?;
            let staged = GpuContext::staging_slice(buf, out.len())?;
            out.par_chunks_mut(SPLIT)
                .zip(staged.par_chunks(SPLIT))
                .for_each(|(d, s)| d.copy_from_slice(s));
            Ok(())
        }
        if dst.is_empty() {
            return Ok(());
        }
        let view = src
            .try_slice(0..dst.len())
            .ok_or_else(|| Error::Driver("download longer than its device buffer".into()))?;
        if dst.len() <= 2 * PIECE {
            self.stream.memcpy_dtoh(&view, dst)?;
            return self.synchronize();
        }
        let mut staging = self.take_staging(2, PIECE)?;
        let copied = (|| -> Result<()> {
            let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DISABLE_TIMING);
            // The piece staged last: its buffer, its place in `dst` and the event after its copy.
            let mut previous: Option<(usize, &mut [u8], cudarc::driver::CudaEvent)> = None;
            for (i, piece) in dst.chunks_mut(PIECE).enumerate() {
                let slot = i % 2;
                let start = i * PIECE;
                let part = view
                    .try_slice(start..start + piece.len())
                    .ok_or_else(|| Error::Driver("download piece out of range".into()))?;
                // The buffer of `slot` was last read on the host two pieces ago (done).
                let stage = GpuContext::staging_slice(&mut staging[slot], piece.len())?;
                self.stream.memcpy_dtoh(&part, stage)?;
                let done = self.stream.record_event(flags)?;
                if let Some((p, out, event)) = previous.take() {
                    copy_out(&mut staging[p], out, &event)?;
                }
                previous = Some((slot, piece, done));
            }
            if let Some((p, out, event)) = previous {
                copy_out(&mut staging[p], out, &event)?;
            }
            Ok(())
        })();
        if copied.is_err() {
            // Nothing may still be writing into the buffers when they go back to the pool.
            let _ = self.synchronize();
        }
        self.return_staging(staging);
        copied
    }

    /// Waits for all work queued on the default stream.
    pub fn synchronize(&self) -> Result<()> {
        Ok(self.stream.synchronize()?)
    }

    /// Times `work` on the default stream with CUDA events: `warmup` untimed runs, then
    /// `runs` timed ones; returns every timed run's milliseconds, sorted.
    pub fn time_ms<F>(&self, warmup: usize, runs: usize, mut work: F) -> Result<Vec<f64>>
    where
        F: FnMut() -> Result<()>,
    {
        for _ in 0..warmup {
            work()?;
        }
        self.synchronize()?;
        let flags = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
        let mut times = Vec::with_capacity(runs);
        for _ in 0..runs {
            let start = self.ctx.new_event(flags)?;
            let end = self.ctx.new_event(flags)?;
            start.record(&self.stream)?;
            work()?;
            end.record(&self.stream)?;
            times.push(start.elapsed_ms(&end)? as f64);
        }
        times.sort_by(|a, b| a.total_cmp(b));
        Ok(times)
    }
}

/// Median of sorted timings.
pub fn median(sorted: &[f64]) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        0.5 * (sorted[n / 2 - 1] + sorted[n / 2])
    }
}
