//! The compiler fuzzer: mutants of the corpus through `executor-opt` (parse
//! and verify), `convert-executor-to-llvm` (both entry conventions, its
//! output parsed again), the lowering pipeline and `mlir-translate` on its
//! output, and upstream `mlir-opt` with the plugin (compared with
//! `executor-opt`).
//!
//! Inputs run in batches: one process per tool and batch, with
//! `--split-input-file` (each input in its own context, diagnostics at their
//! own line). A batch whose run is a finding, or whose outputs do not split
//! into one per input, is run again one input at a time; so are the inputs
//! of a batch that look like a finding (a translate failure, a verifier error
//! of a lowered op, an output that does not parse, the plugin disagreeing).
//! Only findings confirmed on a single input are reported (or, when none
//! reproduces alone, the whole batch).

mod batch;
pub mod corpus;
mod fuzzer;
pub mod minimize;
pub mod mlir;
pub mod mutate;
mod oracle;
pub mod run;
mod scheduler;
mod stats;
mod tools;

pub use batch::Input;
pub use fuzzer::{Fuzzer, Options, Report};
pub use oracle::{Checked, Checker};
pub use stats::Stats;
pub use tools::{LOWERING, MARKER, PASS, PASS_PYFACE, Target, Tools, reproduce_command};
