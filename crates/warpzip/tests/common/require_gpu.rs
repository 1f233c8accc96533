//! `WARPZIP_REQUIRE_GPU`, read as a boolean: `1`, `true`, `yes` or `on` (any case) require a
//! GPU, so that a GPU test that cannot reach one fails instead of skipping; unset, empty, `0`,
//! `false`, `no` or `off` do not. Any other value fails the test, so that a typo cannot turn the
//! requirement off.

/// Whether the environment requires a GPU.
pub fn gpu_required() -> bool {
    let Some(value) = std::env::var_os("WARPZIP_REQUIRE_GPU") else {
        return false;
    };
    let value = value.to_string_lossy().trim().to_ascii_lowercase();
    match value.as_str() {
        "1" | "true" | "yes" | "on" => true,
        "" | "0" | "false" | "no" | "off" => false,
        other => {
            panic!("WARPZIP_REQUIRE_GPU={other:?} is not a boolean (1/true/yes or 0/false/no)")
        }
    }
}
