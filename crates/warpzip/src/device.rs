//! Where work runs: the CPU reference/fast paths or an opened GPU. A missing GPU is a normal
//! state: `Device::auto()` falls back to the CPU with a one-line notice.

use crate::error::Result;
use crate::gpu::GpuContext;
use std::sync::Arc;

/// The device a library call runs on.
#[derive(Clone, Debug)]
pub enum Device {
    Cpu,
    Gpu(Arc<GpuContext>),
}

impl Device {
    /// The CPU.
    pub fn cpu() -> Device {
        Device::Cpu
    }

    /// GPU `ordinal`, or a clear error saying why it cannot be used.
    pub fn gpu(ordinal: usize) -> Result<Device> {
        Ok(Device::Gpu(GpuContext::open(ordinal)?))
    }

    /// GPU 0 when one is usable, else the CPU with a one-line notice on stderr.
    pub fn auto() -> Device {
        match GpuContext::open(0) {
            Ok(gpu) => Device::Gpu(gpu),
            Err(e) => {
                eprintln!("warpzip: no GPU ({e}); using the CPU");
                Device::Cpu
            }
        }
    }

    /// Like `auto`, but silent: for callers that report the device themselves.
    pub fn auto_quiet() -> Device {
        GpuContext::open(0).map(Device::Gpu).unwrap_or(Device::Cpu)
    }

    /// True for a GPU.
    pub fn is_gpu(&self) -> bool {
        matches!(self, Device::Gpu(_))
    }

    /// A short name for tables: "cpu" or the GPU's name.
    pub fn label(&self) -> String {
        match self {
            Device::Cpu => "cpu".to_string(),
            Device::Gpu(g) => g.name().to_string(),
        }
    }
}
