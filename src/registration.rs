//! The one place that lists what this project adds to MLIR: its dialect and
//! its passes. The driver and the mlir-opt plugin both register through here.

use melior::dialect::DialectRegistry;

use crate::ffi;

/// Adds the executor dialect and its external interface models to `registry`.
pub fn register_dialect(registry: &DialectRegistry) {
    ffi::register_executor_dialect(registry);
}

/// Adds every upstream dialect and extension, then the executor dialect.
pub fn register_all_dialects(registry: &DialectRegistry) {
    melior::utility::register_all_dialects(registry);
    register_dialect(registry);
}

/// Puts this project's passes into MLIR's global pass registry (once per
/// process; later calls do nothing).
pub fn register_passes() {
    ffi::register_passes();
}
