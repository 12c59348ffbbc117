//! The C entry points of `cpp/Bridge.cpp`, and safe wrappers over them.

use std::{
    ffi::{CString, OsStr, c_char, c_int, c_void},
    os::unix::ffi::OsStrExt,
    path::Path,
};

use melior::{
    Context,
    dialect::{DialectHandle, DialectRegistry},
    ir::{OperationRef, Type, TypeLike},
};
use mlir_sys::{
    MlirContext, MlirDialectHandle, MlirDialectRegistry, MlirOperation, MlirStringRef, MlirType,
};

use crate::passes;

/// The Rust implementations behind the C++ pass shells of `cpp/Passes.cpp`
/// (`ExecutorPassImplementations` there).
#[repr(C)]
struct PassImplementations {
    convert_executor_to_llvm: extern "C" fn(MlirOperation, u32) -> bool,
}

/// One run of executor-dispatch as `cpp/DispatchPass.cpp` hands it over
/// (`ExecutorDispatchRun` there).
#[repr(C)]
struct DispatchRun {
    object_dir: MlirStringRef,
    kernel_lowering: MlirStringRef,
    setup_function: MlirStringRef,
    pass: *mut c_void,
    lower_kernels: unsafe extern "C" fn(*mut c_void, MlirOperation) -> bool,
}

unsafe extern "C" {
    fn mlirGetDialectHandle__executor__() -> MlirDialectHandle;
    fn executorSetDispatchImplementation(
        implementation: extern "C" fn(MlirOperation, *const DispatchRun) -> bool,
    );
    fn executorRegisterPasses(implementations: PassImplementations);
    fn executorRegisterDialect(registry: MlirDialectRegistry);
    fn executorIsIsolatedFromAbove(operation: MlirOperation) -> bool;
    fn executorIsSymbolTable(operation: MlirOperation) -> bool;
    fn executorSessionTypeGet(context: MlirContext) -> MlirType;
    fn executorTokenTypeGet(context: MlirContext) -> MlirType;
    fn executorTypeNestsHandle(value_type: MlirType) -> bool;
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

/// Adds the executor dialect and its external interface models (bufferization
/// of `executor.call`) to `registry`.
pub fn register_executor_dialect(registry: &DialectRegistry) {
    // SAFETY: a melior registry is live while borrowed.
    unsafe { register_executor_dialect_raw(registry.to_raw()) }
}

/// [`register_executor_dialect`] on a registry handed over by C or C++ (the
/// mlir-opt plugin entry point).
///
/// # Safety
///
/// `registry` must wrap a live `mlir::DialectRegistry`.
pub unsafe fn register_executor_dialect_raw(registry: MlirDialectRegistry) {
    // SAFETY: the caller guarantees the registry is live; inserting a dialect
    // or an extension that is already there does nothing.
    unsafe { executorRegisterDialect(registry) }
}

/// Whether values defined outside `operation` are invisible inside its regions
/// (MLIR's `IsolatedFromAbove` trait: functions, modules, `omp.target`, ...).
pub fn is_isolated_from_above(operation: OperationRef<'_, '_>) -> bool {
    // SAFETY: the operation is live; the query only reads its registered traits.
    unsafe { executorIsIsolatedFromAbove(operation.to_raw()) }
}

/// Whether `operation` holds a symbol table (MLIR's `SymbolTable` trait:
/// `builtin.module`, `gpu.module`, ...).
pub fn is_symbol_table(operation: OperationRef<'_, '_>) -> bool {
    // SAFETY: the operation is live; the query only reads its registered traits.
    unsafe { executorIsSymbolTable(operation.to_raw()) }
}

/// `!executor.session`, in a context where the executor dialect is loaded.
pub fn session_type(context: &Context) -> Type<'_> {
    // SAFETY: the context is live and the dialect loaded (its types' storage is
    // registered on load); the type is uniqued in the context.
    unsafe { Type::from_raw(executorSessionTypeGet(context.to_raw())) }
}

/// `!executor.token`, in a context where the executor dialect is loaded.
pub fn token_type(context: &Context) -> Type<'_> {
    // SAFETY: as in `session_type`.
    unsafe { Type::from_raw(executorTokenTypeGet(context.to_raw())) }
}

/// Whether a session or token appears strictly inside `value_type`.
pub fn type_nests_handle(value_type: Type<'_>) -> bool {
    // SAFETY: the type is live; the walk only reads it.
    unsafe { executorTypeNestsHandle(value_type.to_raw()) }
}

/// Puts this project's passes (td/ExecutorPasses.td) into MLIR's global pass
/// registry, so textual pipelines can name them. The C++ side registers them
/// once per process, however often this is called.
pub fn register_passes() {
    let implementations = PassImplementations {
        convert_executor_to_llvm,
    };
    // SAFETY: the implementations are plain functions that live as long as the
    // process; the C++ side only stores them.
    unsafe {
        executorRegisterPasses(implementations);
        executorSetDispatchImplementation(executor_dispatch);
    }
}

extern "C" fn convert_executor_to_llvm(module: MlirOperation, entry_convention: u32) -> bool {
    // SAFETY: MLIR calls this from the pass's runOnOperation with the module the
    // pass owns for the duration of the call.
    let module = unsafe { OperationRef::from_raw(module) };
    passes::convert_executor_to_llvm::run(module, entry_convention)
}

extern "C" fn executor_dispatch(module: MlirOperation, run: *const DispatchRun) -> bool {
    // SAFETY: MLIR calls this from the pass's runOnOperation with the module
    // the pass owns and a pointer to the run's description, both valid for
    // the duration of the call; the strings point into the pass's options.
    let (module, run) = unsafe { (OperationRef::from_raw(module), &*run) };
    // SAFETY: as above: the option strings outlive this call.
    let [object_dir, kernel_lowering, setup_function] =
        [run.object_dir, run.kernel_lowering, run.setup_function]
            .map(|string| unsafe { string_ref_bytes(string) });
    let lower_kernels = |target: OperationRef<'_, '_>| {
        // SAFETY: the shell's callback runs kernel-lowering on `target`, an op
        // nested in the module the pass is running on, as a dynamic pipeline
        // of the running pass (`run.pass`, live for this call).
        unsafe { (run.lower_kernels)(run.pass, target.to_raw()) }
    };
    let options = passes::executor_dispatch::Options {
        object_dir: Path::new(OsStr::from_bytes(object_dir)),
        kernel_lowering: &String::from_utf8_lossy(kernel_lowering),
        setup_function: (!setup_function.is_empty()).then_some(setup_function),
        lower_kernels: &lower_kernels,
    };
    passes::executor_dispatch::run(module, &options)
}

/// The bytes of a string handed over by C++.
///
/// # Safety
///
/// `string` points at `length` readable bytes (or is empty) for 'a.
unsafe fn string_ref_bytes<'a>(string: MlirStringRef) -> &'a [u8] {
    if string.length == 0 {
        &[]
    } else {
        // SAFETY: guaranteed by the caller.
        unsafe { std::slice::from_raw_parts(string.data.cast(), string.length) }
    }
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
