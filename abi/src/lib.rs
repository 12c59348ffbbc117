//! The executor runtime ABI, defined once for every side of it.
//!
//! `convert-executor-to-llvm` emits calls, launch-site caches and memory layouts from these
//! definitions (and `send_binary`'s formats, which the verifier checks), the runtime decodes with them, `build_script/main.rs` generates the pass
//! option's C++ values from [`EntryConvention`], and this crate's tests check
//! `include/executor_runtime.h` and `docs/runtime-abi.md` against them. A
//! change here reaches every user, or fails a test that names the stale copy.
//!
//! The crate has no dependencies (serde only with the feature `serde`, for the
//! runtime's wire protocol), so the compiler's build script, the pass and the
//! runtime all link the same definitions.

pub mod address;
mod binary_format;
pub mod call_buffer;
pub mod descriptor;
mod entry;
pub mod functions;
pub mod launch_site;

pub use binary_format::BinaryFormat;
pub use entry::EntryConvention;
