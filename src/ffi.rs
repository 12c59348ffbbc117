//! The C entry points of `cpp/Bridge.cpp`, and safe wrappers over them.

use std::ffi::{CString, c_char, c_int};

use melior::{
    Context, StringRef,
    dialect::{DialectHandle, DialectRegistry},
    ir::{Operation, OperationRef, Type},
};
use mlir_sys::{
    MlirDialectHandle, MlirDialectRegistry, MlirOperation, MlirStringRef, mlirOperationCreateParse,
    mlirTypeParseGet,
};

use crate::passes;

/// The Rust implementations behind the C++ pass shells of `cpp/Passes.cpp`
/// (`ExecutorPassImplementations` there).
#[repr(C)]
struct PassImplementations {
    convert_executor_to_llvm: extern "C" fn(MlirOperation, MlirStringRef) -> bool,
}

unsafe extern "C" {
    fn mlirGetDialectHandle__executor__() -> MlirDialectHandle;
    fn executorRegisterPasses(implementations: PassImplementations);
    fn executorRegisterDialect(registry: MlirDialectRegistry);
    fn executorIsIsolatedFromAbove(operation: MlirOperation) -> bool;
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

/// Puts this project's passes (td/ExecutorPasses.td) into MLIR's global pass
/// registry, so textual pipelines can name them. The C++ side registers them
/// once per process, however often this is called.
pub fn register_passes() {
    let implementations = PassImplementations {
        convert_executor_to_llvm,
    };
    // SAFETY: the implementations are plain functions that live as long as the
    // process; the C++ side only stores them.
    unsafe { executorRegisterPasses(implementations) }
}

extern "C" fn convert_executor_to_llvm(
    module: MlirOperation,
    entry_convention: MlirStringRef,
) -> bool {
    // SAFETY: MLIR calls this from the pass's runOnOperation with the module the
    // pass owns for the duration of the call, and the option's string, which
    // outlives the call.
    let (module, entry_convention) = unsafe {
        (
            OperationRef::from_raw(module),
            StringRef::from_raw(entry_convention),
        )
    };
    passes::convert_executor_to_llvm::run(module, entry_convention.as_str().unwrap_or_default())
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

/// Text for MLIR's parsers. Their lexer stops at a NUL byte rather than at the
/// end of the string it is given, so the text is passed NUL-terminated, with
/// the NUL outside the length.
struct ParserInput(CString);

impl ParserInput {
    fn new(source: &str) -> Option<Self> {
        CString::new(source).ok().map(Self)
    }

    fn to_raw(&self) -> MlirStringRef {
        MlirStringRef {
            data: self.0.as_ptr(),
            length: self.0.as_bytes().len(),
        }
    }
}

/// Parses a type; None (with the error reported to the context) if it does not parse.
pub fn parse_type<'c>(context: &'c Context, source: &str) -> Option<Type<'c>> {
    let input = ParserInput::new(source)?;
    // SAFETY: the input is NUL-terminated and outlives the call; a null type
    // (a parse error) becomes None.
    unsafe { Type::from_option_raw(mlirTypeParseGet(context.to_raw(), input.to_raw())) }
}

/// Parses one operation, detached from any block; None (with the error
/// reported to the context) if it does not parse. `source_name` names the
/// text in diagnostics.
pub fn parse_operation<'c>(
    context: &'c Context,
    source: &str,
    source_name: &str,
) -> Option<Operation<'c>> {
    let (input, name) = (ParserInput::new(source)?, ParserInput::new(source_name)?);
    // SAFETY: both inputs are NUL-terminated and outlive the call; a null
    // operation (a parse error) becomes None.
    unsafe {
        Operation::from_option_raw(mlirOperationCreateParse(
            context.to_raw(),
            input.to_raw(),
            name.to_raw(),
        ))
    }
}
