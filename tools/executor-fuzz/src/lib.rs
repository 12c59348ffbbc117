//! Seeded mutation fuzzers of this project (`make fuzz`, docs/fuzzing.md):
//!
//! - [`compiler`]: mutants of the project's `.mlir` corpus through
//!   `executor-opt`, `convert-executor-to-llvm`, the lowering pipeline,
//!   `mlir-translate` and upstream `mlir-opt` with the plugin;
//! - [`protocol`]: frames of the executor-server protocol, mutated from
//!   valid ones, through the decoder in process and a real `executor-server`.
//!
//! Each finding (a crash, panic, assertion, `LLVM ERROR`, hang, translate
//! failure after a successful pipeline, ...) is minimized and written under
//! `target/fuzz/findings/` ([`shared::findings`]).

pub mod compiler;
pub mod protocol;
pub mod shared;
