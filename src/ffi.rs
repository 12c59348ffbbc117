//! The C entry points of `cpp/Bridge.cpp`, and safe wrappers over them.

use std::{
    ffi::{CString, OsStr, c_char, c_int, c_void},
    os::unix::ffi::OsStrExt,
    path::Path,
};

use melior::{
    Context,
    dialect::{DialectHandle, DialectRegistry},
    ir::{
        Attribute, AttributeLike, Location, OperationRef, Type, TypeLike, Value, ValueLike,
        attribute::StringAttribute,
    },
};
use mlir_sys::{
    MlirAttribute, MlirContext, MlirDialectHandle, MlirDialectRegistry, MlirLocation,
    MlirOperation, MlirStringRef, MlirType, MlirValue,
};

use crate::passes;

/// The Rust implementations behind the C++ pass shells of `cpp/Passes.cpp`
/// (`ExecutorPassImplementations` there).
#[repr(C)]
struct PassImplementations {
    convert_executor_to_llvm: extern "C" fn(MlirOperation, u32) -> bool,
    verify_sessions: extern "C" fn(MlirOperation) -> bool,
    optimize_executor: extern "C" fn(MlirOperation, bool, u32) -> bool,
    dispatch_executor_targets: extern "C" fn(MlirOperation) -> bool,
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
    fn executorEmitDiagnostic(
        location: MlirLocation,
        severity: c_int,
        message: *const c_char,
        note_count: isize,
        note_locations: *const MlirLocation,
        note_messages: *const *const c_char,
    );
    fn executorDominanceCreate(root: MlirOperation) -> *mut c_void;
    fn executorDominanceDestroy(dominance: *mut c_void);
    fn executorDominanceProperlyDominates(
        dominance: *mut c_void,
        a: MlirOperation,
        b: MlirOperation,
    ) -> bool;
    fn executorIsMemoryEffectFree(operation: MlirOperation) -> bool;
    fn executorMayUseSessions(operation: MlirOperation) -> bool;
    fn executorSuccessorOperands(
        operation: MlirOperation,
        successor: isize,
        start: *mut isize,
        count: *mut isize,
    ) -> bool;
    fn executorNonCallSymbolReferences(
        op: MlirOperation,
        callback: unsafe extern "C" fn(name: MlirStringRef, user_data: *mut c_void),
        user_data: *mut c_void,
    );
    fn executorPathAttr(operation: MlirOperation) -> MlirAttribute;
    fn executorCreateLaunchBefore(
        before: MlirOperation,
        session: MlirValue,
        kernel: MlirAttribute,
        object: MlirAttribute,
    ) -> MlirOperation;
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

/// How severe a diagnostic is (the values `executorEmitDiagnostic` takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error = 0,
    Warning = 1,
    Remark = 2,
}

/// Reports `message` at `location` through the context's diagnostic handlers,
/// with a note per entry of `notes` attached (printed by mlir-opt, matched by
/// `-verify-diagnostics` as expected-error/warning/remark and expected-note).
pub fn emit_diagnostic(
    location: Location<'_>,
    severity: Severity,
    message: &str,
    notes: &[(Location<'_>, String)],
) {
    let text = |text: &str| CString::new(text.replace('\0', " ")).unwrap_or_default();
    let message = text(message);
    let note_texts: Vec<CString> = notes.iter().map(|(_, note)| text(note)).collect();
    let note_pointers: Vec<*const c_char> = note_texts.iter().map(|note| note.as_ptr()).collect();
    let note_locations: Vec<MlirLocation> = notes
        .iter()
        .map(|(location, _)| location.to_raw())
        .collect();
    // SAFETY: the locations are live; the strings are NUL-terminated and
    // outlive the call, which copies them; both arrays hold `notes.len()`
    // entries.
    unsafe {
        executorEmitDiagnostic(
            location.to_raw(),
            severity as c_int,
            message.as_ptr(),
            notes.len() as isize,
            note_locations.as_ptr(),
            note_pointers.as_ptr(),
        )
    }
}

/// MLIR's dominance information for the ops under a root op, which must stay
/// alive (and its regions unchanged) while this is used.
pub struct Dominance {
    raw: *mut c_void,
}

impl Dominance {
    pub fn new(root: OperationRef<'_, '_>) -> Self {
        // SAFETY: the root is live; the C++ side allocates the analysis, which
        // `Drop` frees.
        let raw = unsafe { executorDominanceCreate(root.to_raw()) };
        Self { raw }
    }

    /// Whether `a` properly dominates `b`: every path to `b` runs `a` first
    /// and `a`'s results are visible at `b`.
    pub fn properly_dominates(&self, a: OperationRef<'_, '_>, b: OperationRef<'_, '_>) -> bool {
        // SAFETY: `raw` is the live analysis made in `new`; the ops are live
        // and under its root, as the caller uses it.
        unsafe { executorDominanceProperlyDominates(self.raw, a.to_raw(), b.to_raw()) }
    }
}

impl Drop for Dominance {
    fn drop(&mut self) {
        // SAFETY: `raw` was made by executorDominanceCreate and is freed once.
        unsafe { executorDominanceDestroy(self.raw) }
    }
}

/// Creates `executor.launch %session(kernel, object)()`, with no inputs and
/// no results, before `before` (an op in a block) and at its location, with
/// the op's C++ builder: the C API's generic creation (melior's
/// `OperationBuilder`) goes through an attribute dictionary, which costs more
/// than the rest of the op when thousands are made.
pub fn create_launch_before<'c, 'a>(
    before: OperationRef<'c, 'a>,
    session: Value<'c, 'a>,
    kernel: StringAttribute<'c>,
    object: StringAttribute<'c>,
) -> OperationRef<'c, 'a> {
    // SAFETY: `before` is a live op in a block, `session` a live value of the
    // session type and both attributes live strings of its context; the op is
    // created in that block, which owns it from then on.
    unsafe {
        OperationRef::from_raw(executorCreateLaunchBefore(
            before.to_raw(),
            session.to_raw(),
            kernel.to_raw(),
            object.to_raw(),
        ))
    }
}

/// Whether `operation` has no memory effects, its regions included.
pub fn is_memory_effect_free(operation: OperationRef<'_, '_>) -> bool {
    // SAFETY: the operation is live; the query only reads its interfaces.
    unsafe { executorIsMemoryEffectFree(operation.to_raw()) }
}

/// Whether `operation` (its regions included) may read or change executor
/// sessions, by its memory effects: an effect on the `executor.sessions`
/// resource, or effects MLIR does not know (a call). Ops for which this is
/// false commute with the executor ops.
pub fn may_use_sessions(operation: OperationRef<'_, '_>) -> bool {
    // SAFETY: the operation is live; the query only reads its interfaces.
    unsafe { executorMayUseSessions(operation.to_raw()) }
}

/// The range of `operation`'s operands it forwards to its successor
/// `successor` as that block's arguments; None when it is not a branch op
/// that MLIR can describe so.
pub fn successor_operands(
    operation: OperationRef<'_, '_>,
    successor: usize,
) -> Option<std::ops::Range<usize>> {
    let (mut start, mut count) = (0isize, 0isize);
    // SAFETY: the operation is live and `successor` is below its successor
    // count (callers iterate over them); the outputs are plain integers.
    let known = unsafe {
        executorSuccessorOperands(
            operation.to_raw(),
            successor as isize,
            &mut start,
            &mut count,
        )
    };
    let start = usize::try_from(start).ok()?;
    let count = usize::try_from(count).ok()?;
    known.then_some(start..start + count)
}

/// The path an executor op names: the address of an `executor.open`, the
/// binary of an `executor.send_binary`, the object of an `executor.launch` or
/// `executor.launch_async`; None for other ops. Read from the op's
/// properties, not by name: a lookup by name reaches the op's context
/// through its location, a cache miss per op on a large module.
pub fn executor_path<'c>(operation: OperationRef<'c, '_>) -> Option<StringAttribute<'c>> {
    // SAFETY: the op is live; the C++ side only reads its properties. The
    // attribute, when there is one, is owned by the op's context, which
    // lives for 'c.
    let attribute = unsafe { executorPathAttr(operation.to_raw()) };
    if attribute.ptr.is_null() {
        return None;
    }
    // SAFETY: a non-null attribute of a live context (above).
    StringAttribute::try_from(unsafe { Attribute::from_raw(attribute) }).ok()
}

/// Calls `reference` with the leaf name of each symbol reference in the
/// attributes of `op` (not of the ops nested in it) other than a
/// `func.call`'s callee (`func.constant`'s, other dialects'): functions that
/// may be called in ways an analysis following `func.call` does not see.
/// The executor ops' own (inherent) attributes are not read: they are
/// strings and integers (td/ExecutorOps.td says so too).
pub fn non_call_symbol_references(op: OperationRef<'_, '_>, mut reference: impl FnMut(&[u8])) {
    unsafe extern "C" fn trampoline(name: MlirStringRef, user_data: *mut c_void) {
        // SAFETY: `user_data` is the `&mut dyn FnMut` passed below, alive and
        // not otherwise borrowed during the call; `name` points at `length`
        // bytes of an interned string.
        unsafe {
            let reference = &mut *user_data.cast::<&mut dyn FnMut(&[u8])>();
            let bytes = if name.length == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(name.data.cast::<u8>(), name.length)
            };
            reference(bytes);
        }
    }
    let mut reference: &mut dyn FnMut(&[u8]) = &mut reference;
    // SAFETY: the op is live; the C++ side only reads its attributes and
    // calls `trampoline` with `reference`, which outlives the call.
    unsafe {
        executorNonCallSymbolReferences(
            op.to_raw(),
            trampoline,
            (&raw mut reference).cast::<c_void>(),
        )
    }
}

/// Puts this project's passes (td/ExecutorPasses.td) into MLIR's global pass
/// registry, so textual pipelines can name them. The C++ side registers them
/// once per process, however often this is called.
pub fn register_passes() {
    let implementations = PassImplementations {
        convert_executor_to_llvm,
        verify_sessions,
        optimize_executor,
        dispatch_executor_targets,
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

extern "C" fn verify_sessions(module: MlirOperation) -> bool {
    // SAFETY: as in `convert_executor_to_llvm`.
    let module = unsafe { OperationRef::from_raw(module) };
    passes::verify_sessions::run(module)
}

extern "C" fn dispatch_executor_targets(module: MlirOperation) -> bool {
    // SAFETY: as in `convert_executor_to_llvm`.
    let module = unsafe { OperationRef::from_raw(module) };
    passes::dispatch_executor_targets::run(module)
}

extern "C" fn optimize_executor(
    module: MlirOperation,
    reuse_sessions: bool,
    entry_convention: u32,
) -> bool {
    // SAFETY: as in `convert_executor_to_llvm`.
    let module = unsafe { OperationRef::from_raw(module) };
    passes::optimize_executor::run(module, reuse_sessions, entry_convention)
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
