//! The GPU engine; this build runs the SSB queries on the CPU only and says so.
use super::fact::Fact;
use super::query::Plan;
use super::Storage;
use crate::error::{Error, Result};
use crate::gpu::GpuContext;

pub(crate) struct GpuQuery {
    rows: usize,
}

impl GpuQuery {
    pub(crate) fn upload(_g: &GpuContext, _p: &Plan, f: &Fact, _s: Storage) -> Result<GpuQuery> {
        let _ = f.rows;
        Err(Error::Unsupported("SSB queries on the GPU".into()))
    }
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }
    pub(crate) fn run(&self, _p: &Plan) -> Result<(Vec<u64>, Vec<u64>, f64)> {
        Err(Error::Unsupported("SSB queries on the GPU".into()))
    }
}
