//! This project's passes, written in Rust with melior.

mod catalyst_form;
mod control_flow;
pub mod convert_executor_to_llvm;
pub mod dispatch_executor_targets;
mod dispatch_plan;
pub mod executor_dispatch;
mod executor_ops;
mod handle_types;
mod host_module;
mod ir;
mod llvm_builder;
mod module_symbols;
mod object_file;
pub mod optimize_executor;
mod session_analysis;
mod symbol_names;
pub mod verify_sessions;

use std::panic::{AssertUnwindSafe, catch_unwind};

use melior::ir::{OperationRef, operation::OperationLike};

/// Runs a pass body; a panic must not unwind into MLIR's C++, so it becomes an
/// error at `root` naming the pass. Returns whether the body succeeded.
fn run_guarded<T>(
    pass: &str,
    root: OperationRef<'_, '_>,
    body: impl FnOnce() -> Result<(), T>,
) -> bool {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(result) => result.is_ok(),
        Err(panic) => {
            let message = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            ir::emit_error(
                root.location(),
                &format!("internal error in {pass}: {message}"),
            );
            false
        }
    }
}
