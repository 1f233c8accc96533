//! Prints ptxas's resource report (registers, spills, shared memory) for every kernel, compiled
//! by NVRTC for an architecture: `cargo run -p warpzip-bench --example ptxas_report -- sm_90`.
fn main() {
    let arch = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "sm_90".to_string());
    for src in warpzip::gpu::compile::ALL_SOURCES {
        let mut opts = src.options(&arch);
        opts.push("--ptxas-options=-v".to_string());
        match warpzip::gpu::compile::compile_cubin_with_log(src.name, &src.expanded(), &opts) {
            Ok((_, log)) => println!("== {} ({arch})\n{log}", src.name),
            Err(e) => println!("== {} ({arch}) failed: {e}", src.name),
        }
    }
}
