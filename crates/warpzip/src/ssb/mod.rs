//! The Star Schema Benchmark (O'Neil et al.) over tile-compressed columns: a generator of its
//! tables (`gen`), a loader of dbgen's `.tbl` files into a column directory (`columns`), and
//! its 13 queries (`query`) run by a CPU engine, the reference (`cpu`), and by one fused GPU
//! kernel a query that decodes, filters, probes and aggregates a tile at a time (`gpu`).

pub mod columns;
mod cpu;
mod fact;
pub mod gen;
mod gpu;
pub mod query;
pub mod schema;
pub mod tbl;

pub use columns::{load, ColumnDir, LoadedColumn};
pub use gen::{generate, Cardinality};
pub use query::{Query, QueryResult, Value};

use crate::device::Device;
use crate::error::Result;
use fact::Fact;
use query::Plan;
use std::time::Instant;

/// Which copy of the fact columns a query reads, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Storage {
    /// The `.wz` columns, each tile decoded inside the query (the fused engine).
    Compressed,
    /// The raw `u32` columns.
    Uncompressed,
    /// The `.wz` columns decompressed whole first, then queried as raw columns (the cascaded
    /// baseline); the time counts both.
    Decompressed,
}

impl Storage {
    /// `compressed`, `uncompressed` or `decompressed`.
    pub fn name(self) -> &'static str {
        match self {
            Storage::Compressed => "compressed",
            Storage::Uncompressed => "uncompressed",
            Storage::Decompressed => "decompressed",
        }
    }
}

/// A query ready to run on one device over one storage: its plan built, its columns read (and
/// on a GPU uploaded).
pub struct Prepared {
    plan: Plan,
    engine: Engine,
    stored_bytes: u64,
}

enum Engine {
    Cpu {
        fact: Box<Fact>,
        decompress_first: bool,
    },
    Gpu(Box<gpu::GpuQuery>),
}

/// Prepares `query` over the column directory `dir` on `device`.
pub fn prepare(
    query: Query,
    dir: &ColumnDir,
    device: &Device,
    storage: Storage,
) -> Result<Prepared> {
    let compressed = storage != Storage::Uncompressed;
    let plan = query::plan(query, dir, compressed)?;
    let fact = Fact::open(dir, &plan.slots(), compressed)?;
    let stored_bytes = fact.stored_bytes();
    let engine = match device {
        Device::Cpu => Engine::Cpu {
            fact: Box::new(fact),
            decompress_first: storage == Storage::Decompressed,
        },
        Device::Gpu(g) => Engine::Gpu(Box::new(gpu::GpuQuery::upload(g, &plan, &fact, storage)?)),
    };
    Ok(Prepared {
        plan,
        engine,
        stored_bytes,
    })
}

impl Prepared {
    /// Bytes of the fact columns the query reads, as stored (compressed or raw).
    pub fn stored_bytes(&self) -> u64 {
        self.stored_bytes
    }

    /// Bytes of the fact columns the query reads, raw (4 a value).
    pub fn raw_bytes(&self) -> u64 {
        self.rows() as u64 * 4 * self.plan.slots().len() as u64
    }

    /// Rows of the fact table.
    pub fn rows(&self) -> usize {
        match &self.engine {
            Engine::Cpu { fact, .. } => fact.rows,
            Engine::Gpu(g) => g.rows(),
        }
    }

    /// Runs the query once: its answer and its time in milliseconds (GPU: CUDA events around
    /// the kernels; CPU: the wall clock around the engine).
    pub fn execute(&mut self) -> Result<(QueryResult, f64)> {
        let (sums, counts, ms) = match &mut self.engine {
            Engine::Cpu {
                fact,
                decompress_first,
            } => {
                let start = Instant::now();
                let sums = if *decompress_first {
                    cpu::run(&self.plan, &fact.decompressed()?)?
                } else {
                    cpu::run(&self.plan, fact)?
                };
                let ms = start.elapsed().as_secs_f64() * 1e3;
                (sums.sums, sums.counts, ms)
            }
            Engine::Gpu(g) => g.run(&self.plan)?,
        };
        Ok((self.plan.finish(&sums, &counts), ms))
    }
}

/// Runs `query` once over `dir` on `device`: its answer and time in milliseconds.
pub fn run(
    query: Query,
    dir: &ColumnDir,
    device: &Device,
    storage: Storage,
) -> Result<(QueryResult, f64)> {
    prepare(query, dir, device, storage)?.execute()
}
