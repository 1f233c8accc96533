//! Exclusive prefix sum over u32 and u64: a CPU twin and a single-pass GPU scan with decoupled
//! look-back.
