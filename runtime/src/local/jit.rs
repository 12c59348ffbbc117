//! Relocatable object files JIT-linked with LLVM's ORC (LLJIT, through the LLVM
//! C API), resolving against the executor process (libc, libm, ...) and the
//! objects already added. Every `unsafe` call into ORC lives here.

use std::{
    ffi::{CStr, CString, c_char},
    path::Path,
    ptr,
    sync::Once,
};

use llvm_sys::{
    core::LLVMCreateMemoryBufferWithContentsOfFile,
    error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage},
    orc2::{
        LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcDefinitionGeneratorRef,
        LLVMOrcJITDylibAddGenerator,
        lljit::{
            LLVMOrcCreateLLJIT, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
            LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup,
            LLVMOrcLLJITRef,
        },
    },
    target::{LLVM_InitializeNativeAsmPrinter, LLVM_InitializeNativeTarget},
};

use crate::error::{Result, RuntimeError};

/// One LLJIT instance: the objects of one session.
pub struct Jit {
    raw: LLVMOrcLLJITRef,
}

// SAFETY: LLJIT is thread-safe for adding objects and looking up symbols; the
// session serializes its own calls anyway.
unsafe impl Send for Jit {}
// SAFETY: as above.
unsafe impl Sync for Jit {}

impl Jit {
    pub fn new() -> Result<Self> {
        static NATIVE_TARGET: Once = Once::new();
        // SAFETY: initializes LLVM's native target once per process.
        NATIVE_TARGET.call_once(|| unsafe {
            LLVM_InitializeNativeTarget();
            LLVM_InitializeNativeAsmPrinter();
        });
        let mut raw = ptr::null_mut();
        // SAFETY: a null builder asks for the default (host) configuration;
        // `raw` receives the instance on success.
        check(
            unsafe { LLVMOrcCreateLLJIT(&mut raw, ptr::null_mut()) },
            "creating the JIT",
        )?;
        let jit = Self { raw };
        let mut generator: LLVMOrcDefinitionGeneratorRef = ptr::null_mut();
        // SAFETY: the JIT is live; the generator resolves symbols of the
        // process itself and is handed over to the main JITDylib.
        unsafe {
            let prefix = LLVMOrcLLJITGetGlobalPrefix(jit.raw);
            check(
                LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                    &mut generator,
                    prefix,
                    None,
                    ptr::null_mut(),
                ),
                "resolving against the process",
            )?;
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit.raw), generator);
        }
        Ok(jit)
    }

    /// Adds the object file at `path`; its symbols become visible to lookups
    /// and to objects added later.
    pub fn add_object_file(&self, path: &Path) -> Result<()> {
        let failed = |reason: String| RuntimeError::LoadFailed {
            path: path.display().to_string(),
            reason,
        };
        let c_path = CString::new(path.as_os_str().as_encoded_bytes())
            .map_err(|_| failed("the path holds a NUL byte".into()))?;
        let mut buffer = ptr::null_mut();
        let mut message: *mut c_char = ptr::null_mut();
        // SAFETY: the path is NUL-terminated; on failure LLVM returns true and
        // a message we free.
        let unreadable = unsafe {
            LLVMCreateMemoryBufferWithContentsOfFile(c_path.as_ptr(), &mut buffer, &mut message)
        } != 0;
        if unreadable {
            // SAFETY: LLVM set `message` to a string it allocated.
            let reason = unsafe { take_llvm_message(message) };
            return Err(RuntimeError::Unreadable {
                path: path.display().to_string(),
                reason,
            });
        }
        // SAFETY: the JIT is live; ownership of the buffer passes to ORC.
        let error = unsafe {
            LLVMOrcLLJITAddObjectFile(self.raw, LLVMOrcLLJITGetMainJITDylib(self.raw), buffer)
        };
        check(error, "adding the object").map_err(|error| failed(error.to_string()))
    }

    /// The address of `symbol`, linking whatever it needs on first use.
    pub fn lookup(&self, symbol: &str) -> Result<usize> {
        let not_found = |reason: String| RuntimeError::SymbolNotFound {
            symbol: symbol.to_owned(),
            place: format!("the session's objects ({reason})"),
        };
        let c_symbol =
            CString::new(symbol).map_err(|_| not_found("the name holds a NUL byte".into()))?;
        let mut address = 0;
        // SAFETY: the JIT is live and the name NUL-terminated.
        let error = unsafe { LLVMOrcLLJITLookup(self.raw, &mut address, c_symbol.as_ptr()) };
        check(error, "lookup").map_err(|error| not_found(error.to_string()))?;
        usize::try_from(address).map_err(|_| not_found("address out of range".into()))
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: the instance is live and dropped once; an error here has no
        // one to report to, so its message is freed.
        let error = unsafe { LLVMOrcDisposeLLJIT(self.raw) };
        if !error.is_null() {
            // SAFETY: consumes the error.
            let message = unsafe { take_error_message(error) };
            tracing::warn!("disposing the JIT: {message}");
        }
    }
}

fn check(error: LLVMErrorRef, what: &str) -> Result<()> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null error is consumed exactly once.
    let message = unsafe { take_error_message(error) };
    Err(RuntimeError::LoadFailed {
        path: what.to_owned(),
        reason: message,
    })
}

/// # Safety
/// `error` must be a live, unconsumed LLVM error.
unsafe fn take_error_message(error: LLVMErrorRef) -> String {
    // SAFETY: consumes the error; the message is ours to free.
    unsafe { take_llvm_message_with(LLVMGetErrorMessage(error), LLVMDisposeErrorMessage) }
}

/// # Safety
/// `message` must be null or a string LLVM allocated with `malloc`-style
/// ownership for the caller (`LLVMDisposeMessage`).
unsafe fn take_llvm_message(message: *mut c_char) -> String {
    // SAFETY: per the contract.
    unsafe { take_llvm_message_with(message, llvm_sys::core::LLVMDisposeMessage) }
}

/// # Safety
/// `message` must be null or owned by the caller and released by `dispose`.
unsafe fn take_llvm_message_with(
    message: *mut c_char,
    dispose: unsafe extern "C" fn(*mut c_char),
) -> String {
    if message.is_null() {
        return "unknown LLVM error".to_owned();
    }
    // SAFETY: a NUL-terminated string owned by the caller.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: released once, with its own deallocator.
    unsafe { dispose(message) };
    text
}
