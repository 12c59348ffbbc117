//! executor-mlir: Catalyst's `executor` MLIR dialect, defined in TableGen
//! (`td/`), registered with MLIR through melior, with its passes in Rust.

pub mod dialect;
pub mod ffi;
pub mod passes;
pub mod registration;
