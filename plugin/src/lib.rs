//! `libexecutor_plugin.so`: the executor dialect and this project's passes for
//! upstream `mlir-opt` (`--load-dialect-plugin`, `--load-pass-plugin`) and
//! other MLIR 22 tools that load plugins. It links the shared libMLIR, so it
//! registers into the host's own MLIR.
//!
//! The entry points are written in Rust because a Rust cdylib exports only
//! Rust `#[no_mangle]` symbols; they register through the same code as
//! `executor-opt` (`executor_mlir::registration`).
//!
//! Built for a Catalyst host (`make catalyst`), the pass entry point registers
//! passes that run this project's passes in executor-opt, in a child process:
//! docs/catalyst.md says why.

use std::{
    ffi::{c_char, c_void},
    panic::catch_unwind,
};

use executor_mlir::ffi;
use mlir_sys::MlirDialectRegistry;

/// `MLIR_PLUGIN_API_VERSION` of `mlir/Tools/Plugins/*Plugin.h`.
const PLUGIN_API_VERSION: u32 = 1;
const PLUGIN_NAME: &str = concat!(env!("CARGO_PKG_NAME"), "\0");
const PLUGIN_VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");

/// `mlir::DialectPluginLibraryInfo`.
#[repr(C)]
pub struct DialectPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_dialect_registry_callbacks: extern "C" fn(registry: *mut c_void),
}

/// `mlir::PassPluginLibraryInfo`.
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_registry_callbacks: extern "C" fn(),
}

/// Called by `--load-dialect-plugin`.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetDialectPluginInfo() -> DialectPluginLibraryInfo {
    DialectPluginLibraryInfo {
        api_version: PLUGIN_API_VERSION,
        plugin_name: PLUGIN_NAME.as_ptr().cast(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_dialect_registry_callbacks: register_dialects,
    }
}

/// Called by `--load-pass-plugin`.
#[unsafe(no_mangle)]
pub extern "C" fn mlirGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        api_version: PLUGIN_API_VERSION,
        plugin_name: PLUGIN_NAME.as_ptr().cast(),
        plugin_version: PLUGIN_VERSION.as_ptr().cast(),
        register_pass_registry_callbacks: register_passes,
    }
}

extern "C" fn register_dialects(registry: *mut c_void) {
    let registry = MlirDialectRegistry { ptr: registry };
    // SAFETY: mlir-opt passes its live `mlir::DialectRegistry *`, which is what
    // an `MlirDialectRegistry` wraps.
    let registered = catch_unwind(|| unsafe { ffi::register_executor_dialect_raw(registry) });
    if registered.is_err() {
        eprintln!("executor_plugin: registering the executor dialect failed");
        std::process::abort();
    }
}

#[cfg(not(catalyst_host))]
extern "C" fn register_passes() {
    if catch_unwind(executor_mlir::registration::register_passes).is_err() {
        eprintln!("executor_plugin: registering the executor passes failed");
        std::process::abort();
    }
}

/// The passes are Rust on the MLIR C API, which a Catalyst host lacks and
/// which Debian ships built for another ABI (docs/catalyst.md). In their place
/// the Catalyst plugin registers option-free C++ passes of the same names (and
/// one per option value) that run them in executor-opt, in a child process
/// (cpp/catalyst/OutOfProcessPasses.cpp).
#[cfg(catalyst_host)]
extern "C" fn register_passes() {
    unsafe extern "C" {
        fn executorRegisterOutOfProcessPasses();
    }
    // SAFETY: called by the host on its pass registry's thread, like every
    // registration; the function takes nothing and registers once.
    unsafe { executorRegisterOutOfProcessPasses() }
}
