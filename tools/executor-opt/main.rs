//! executor-opt: mlir-opt with the executor dialect and this project's passes.
//!
//! Every upstream dialect and pass is registered too, and the command line is
//! MLIR's own (`MlirOptMain`), so every mlir-opt flag works the same way here.

use std::{ffi::CString, os::unix::ffi::OsStringExt, process::ExitCode};

use executor_mlir::{ffi, registration};
use melior::dialect::DialectRegistry;

fn main() -> ExitCode {
    let registry = DialectRegistry::new();
    registration::register_all_dialects(&registry);
    melior::utility::register_all_passes();
    registration::register_passes();

    let args: Vec<CString> = std::env::args_os()
        .map(|arg| CString::new(arg.into_vec()).expect("a command-line argument holds no NUL byte"))
        .collect();
    let version = concat!(
        env!("CARGO_PKG_NAME"),
        " ",
        env!("CARGO_PKG_VERSION"),
        " (executor-opt)"
    );
    let code = ffi::opt_main(&args, &registry, version);
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}
