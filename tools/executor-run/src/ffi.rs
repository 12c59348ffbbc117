//! What executor-run calls through C: parsing a file with its name in the
//! locations, MLIR's execution engine, the runtime's entry points handed to
//! it, and C's stdio. Every `unsafe` block of executor-run lives here.
//!
//! The engine is driven through the MLIR C API rather than melior's
//! `ExecutionEngine`, whose constructor cannot report a failure: it wraps the
//! null engine the C API returns (for a module that does not translate to
//! LLVM IR, say), and every later call would dereference it.

use std::{
    ffi::{CString, c_void},
    os::unix::ffi::OsStrExt,
    path::Path,
};

use executor_abi::functions;
use executor_runtime::c_api;
use melior::{
    Context, StringRef,
    ir::{Location, Module},
};
use mlir_sys::{
    MlirExecutionEngine, mlirExecutionEngineCreate, mlirExecutionEngineDestroy,
    mlirExecutionEngineLookupPacked, mlirExecutionEngineRegisterSymbol, mlirIdentifierStr,
    mlirLocationFileLineColRangeGetFilename, mlirLocationFileLineColRangeGetStartColumn,
    mlirLocationFileLineColRangeGetStartLine, mlirLocationIsAFileLineColRange,
    mlirModuleCreateParseFromFile,
};

/// Parses the file at `path` into a module whose locations name the file;
/// None after the parser's diagnostics.
pub fn parse_file<'c>(context: &'c Context, path: &Path) -> Option<Module<'c>> {
    let path = path.to_string_lossy();
    // SAFETY: the context is live and the path is copied by the parser; a
    // null module (a parse error) becomes None.
    unsafe {
        Module::from_option_raw(mlirModuleCreateParseFromFile(
            context.to_raw(),
            StringRef::new(&path).to_raw(),
        ))
    }
}

/// `file:line:col` for a file location, as compilers print it; MLIR's own
/// form for any other.
pub fn describe_location(location: Location<'_>) -> String {
    let raw = location.to_raw();
    // SAFETY: the accessors are called on a file location only; its file
    // name is an identifier owned by the context, copied here.
    unsafe {
        if !mlirLocationIsAFileLineColRange(raw) {
            return location.to_string();
        }
        let file = StringRef::from_raw(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
            raw,
        )));
        format!(
            "{}:{}:{}",
            file.as_str().unwrap_or("<file name that is not UTF-8>"),
            mlirLocationFileLineColRangeGetStartLine(raw),
            mlirLocationFileLineColRangeGetStartColumn(raw)
        )
    }
}

/// MLIR's execution engine over a module in the LLVM dialect.
pub struct Jit {
    raw: MlirExecutionEngine,
}

impl Jit {
    /// JIT-compiles `module` at `opt_level` (0 to 3) with the symbols of
    /// `shared_libraries`; None if the engine cannot be made (the module does
    /// not translate to LLVM IR, or no target machine for the host).
    pub fn new(module: &Module<'_>, opt_level: u8, shared_libraries: &[&Path]) -> Option<Self> {
        // The C API reads each path as a NUL-terminated string (it keeps only
        // the pointer), so the strings carry their NUL.
        let owned: Vec<CString> = shared_libraries
            .iter()
            .map(|path| CString::new(path.as_os_str().as_bytes()).unwrap_or_default())
            .collect();
        let paths: Vec<mlir_sys::MlirStringRef> = owned
            .iter()
            .map(|path| mlir_sys::MlirStringRef {
                data: path.as_ptr(),
                length: path.as_bytes().len(),
            })
            .collect();
        // SAFETY: the module is live for the call, the paths outlive it and
        // are copied; the engine keeps its own translation of the module.
        let raw = unsafe {
            mlirExecutionEngineCreate(
                module.to_raw(),
                i32::from(opt_level),
                i32::try_from(paths.len()).unwrap_or(i32::MAX),
                paths.as_ptr(),
                false,
                false,
            )
        };
        (!raw.ptr.is_null()).then_some(Self { raw })
    }

    /// Makes the executor runtime, linked into this process, the one the
    /// program's runtime calls (`executor_abi::functions::RUNTIME`) reach.
    pub fn register_runtime(&self) {
        for (name, address) in runtime_symbols() {
            // SAFETY: the engine is live; each address is the runtime's
            // function of that name, whose C signature is the one the lowered
            // code declares (executor_abi defines both), and it lives as long
            // as the process.
            unsafe {
                mlirExecutionEngineRegisterSymbol(self.raw, StringRef::new(name).to_raw(), address)
            }
        }
    }

    /// Runs `entry`, a function without arguments that returns nothing;
    /// false if it cannot be found.
    pub fn run_void(&self, entry: &str) -> bool {
        let mut arguments: [*mut c_void; 0] = [];
        // SAFETY: the caller checked that `entry` takes no arguments and
        // returns nothing, so its packed wrapper reads no argument slot.
        unsafe { self.invoke_packed(entry, &mut arguments) }
    }

    /// Runs `entry`, a function without arguments that returns a `T`; None if
    /// it cannot be found.
    pub fn run_returning<T: ReturnValue>(&self, entry: &str) -> Option<T> {
        let mut result = T::default();
        let mut arguments = [(&raw mut result).cast::<c_void>()];
        // SAFETY: the caller checked that `entry` takes no arguments and
        // returns a `T` (an i32, i64 or f32, as ReturnValue allows), so its
        // packed wrapper writes one `T` through the one slot, which points at
        // `result`.
        unsafe { self.invoke_packed(entry, &mut arguments) }.then_some(result)
    }

    /// Calls the packed wrapper the engine made for `entry` (`_mlir_<entry>`,
    /// `void(void **arguments)`), as mlir-runner does; false if there is none.
    /// (`mlirExecutionEngineInvokePacked` would call the wrapper of
    /// `_mlir_ciface_<entry>`, which only an entry with
    /// `llvm.emit_c_interface` has.)
    ///
    /// # Safety
    ///
    /// `arguments` holds what the packed wrapper of `entry` reads and writes:
    /// a pointer per argument, then one per result.
    unsafe fn invoke_packed(&self, entry: &str, arguments: &mut [*mut c_void]) -> bool {
        // SAFETY: the engine is live; the name is copied.
        let wrapper =
            unsafe { mlirExecutionEngineLookupPacked(self.raw, StringRef::new(entry).to_raw()) };
        if wrapper.is_null() {
            return false;
        }
        // SAFETY: the engine makes every packed wrapper a `void(void **)`
        // function, which lives as long as the engine; the caller guarantees
        // the slots it reads and writes.
        unsafe {
            let wrapper: unsafe extern "C" fn(*mut *mut c_void) = std::mem::transmute(wrapper);
            wrapper(arguments.as_mut_ptr());
        }
        true
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: the engine is owned here and not used afterwards.
        unsafe { mlirExecutionEngineDestroy(self.raw) }
    }
}

/// The types an entry may return, as mlir-runner's `--entry-point-result`.
pub trait ReturnValue: Default + Copy {}
impl ReturnValue for i32 {}
impl ReturnValue for i64 {}
impl ReturnValue for f32 {}

/// Each runtime function by its name in the ABI.
fn runtime_symbols() -> [(&'static str, *mut c_void); functions::RUNTIME.len()] {
    [
        (
            functions::OPEN.name,
            c_api::__catalyst__executor__open as *mut c_void,
        ),
        (
            functions::SEND_BINARY.name,
            c_api::__catalyst__executor__send_binary as *mut c_void,
        ),
        (
            functions::LAUNCH.name,
            c_api::__catalyst__executor__launch as *mut c_void,
        ),
        (
            functions::LAUNCH_AT_SITE.name,
            c_api::__executor__launch_at_site as *mut c_void,
        ),
        (
            functions::LAUNCH_ASYNC.name,
            c_api::__catalyst__executor__launch_async as *mut c_void,
        ),
        (
            functions::AWAIT.name,
            c_api::__catalyst__executor__await as *mut c_void,
        ),
        (
            functions::CALL_WRAPPER.name,
            c_api::__catalyst__executor__call_wrapper as *mut c_void,
        ),
        (
            functions::FREE_RESULT.name,
            c_api::__catalyst__executor__free_result as *mut c_void,
        ),
        (
            functions::CLOSE.name,
            c_api::__catalyst__executor__close as *mut c_void,
        ),
    ]
}

/// Writes out what the program printed through C's stdio, which is buffered
/// when the output is not a terminal, before executor-run prints anything.
pub fn flush_c_stdio() {
    // SAFETY: fflush(NULL) flushes every open output stream of C's stdio.
    unsafe {
        libc::fflush(std::ptr::null_mut());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_function_is_registered_once() {
        let registered: Vec<&str> = runtime_symbols().iter().map(|(name, _)| *name).collect();
        let expected: Vec<&str> = functions::RUNTIME
            .iter()
            .map(|function| function.name)
            .collect();
        assert_eq!(registered, expected);
        assert!(
            runtime_symbols()
                .iter()
                .all(|(_, address)| !address.is_null())
        );
    }
}
