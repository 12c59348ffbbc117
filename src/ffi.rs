//! The C entry points of `cpp/Bridge.cpp`, and safe wrappers over them.

use std::ffi::{CString, c_char, c_int};

use melior::dialect::{DialectHandle, DialectRegistry};
use mlir_sys::{MlirDialectHandle, MlirDialectRegistry, MlirPass};

unsafe extern "C" {
    fn mlirGetDialectHandle__executor__() -> MlirDialectHandle;
    fn executorRegisterPass(factory: extern "C" fn() -> MlirPass);
    fn executorOptMain(
        argc: c_int,
        argv: *mut *mut c_char,
        registry: MlirDialectRegistry,
        version: *const c_char,
    ) -> c_int;
}

/// The handle of the executor dialect, to insert it into a registry or load it.
pub fn executor_dialect_handle() -> DialectHandle {
    // SAFETY: the generated function returns a pointer to a static handle of
    // the dialect compiled into this library; it takes no arguments.
    unsafe { DialectHandle::from_raw(mlirGetDialectHandle__executor__()) }
}

/// A function that creates a fresh instance of one pass each time it is called.
pub type PassFactory = extern "C" fn() -> MlirPass;

/// Puts a pass into MLIR's global pass registry under its own argument, so
/// textual pipelines (`--pass-pipeline`, `mlir::parsePassPipeline`) can name it.
pub fn register_pass(factory: PassFactory) {
    // SAFETY: `factory` is a plain function that returns an owned pass; the
    // registry takes ownership of each pass it creates.
    unsafe { executorRegisterPass(factory) }
}

/// Runs mlir-opt's driver on the command line `args` with the dialects of
/// `registry`; returns the process exit code.
pub fn opt_main(args: &[CString], registry: &DialectRegistry, version: &str) -> i32 {
    let mut argv: Vec<*mut c_char> = args.iter().map(|arg| arg.as_ptr().cast_mut()).collect();
    argv.push(std::ptr::null_mut());
    let version = CString::new(version).unwrap_or_default();
    let argc = c_int::try_from(args.len()).unwrap_or(c_int::MAX);
    // SAFETY: `argv` holds `argc` NUL-terminated strings that outlive the call
    // followed by a null pointer, as C's main receives them; LLVM's option
    // parser reads but never writes them. `registry` is alive for the call.
    unsafe { executorOptMain(argc, argv.as_mut_ptr(), registry.to_raw(), version.as_ptr()) }
}
