//! A module in the LLVM dialect to a relocatable object file, in process: MLIR's
//! translation to LLVM IR (`mlirTranslateModuleToLLVMIR`) and LLVM's target
//! machine (the C API, through llvm-sys, on the same libLLVM that libMLIR.so
//! uses): what `mlir-translate --mlir-to-llvmir | llc -filetype=obj
//! -relocation-model=pic` does, without the tools or the text in between.
//!
//! An FFI module: every `unsafe` block of the object emission lives here.

use std::{
    ffi::{CStr, c_char},
    ptr,
    sync::OnceLock,
};

use llvm_sys::{
    core::{
        LLVMContextCreate, LLVMContextDispose, LLVMDisposeMemoryBuffer, LLVMDisposeMessage,
        LLVMDisposeModule, LLVMGetBufferSize, LLVMGetBufferStart, LLVMGetTarget, LLVMSetTarget,
    },
    prelude::{LLVMContextRef, LLVMModuleRef},
    target::{
        LLVM_InitializeNativeAsmPrinter, LLVM_InitializeNativeTarget, LLVMDisposeTargetData,
        LLVMSetModuleDataLayout,
    },
    target_machine::{
        LLVMCodeGenFileType, LLVMCodeGenOptLevel, LLVMCodeModel, LLVMCreateTargetDataLayout,
        LLVMCreateTargetMachine, LLVMDisposeTargetMachine, LLVMGetDefaultTargetTriple,
        LLVMGetTargetFromTriple, LLVMRelocMode, LLVMTargetMachineEmitToMemoryBuffer,
        LLVMTargetMachineRef, LLVMTargetRef,
    },
};
use melior::ir::OperationRef;

/// Why no object file was made.
#[derive(Debug, thiserror::Error)]
pub enum ObjectError {
    /// MLIR's translation failed; it has reported why at the ops.
    #[error("the module does not translate to LLVM IR")]
    Translation,
    #[error("LLVM's native target is not available: {0}")]
    NativeTarget(&'static str),
    #[error("no LLVM target for the triple {triple}: {message}")]
    Target { triple: String, message: String },
    #[error("LLVM cannot make a target machine for {0}")]
    TargetMachine(String),
    #[error("LLVM's code generation for {triple} failed: {message}")]
    CodeGeneration { triple: String, message: String },
}

/// The object file of `module`, an op in the LLVM dialect (with LLVM IR
/// translations registered in its context), for the module's
/// `llvm.target_triple` or else the host's default triple: generic CPU,
/// position-independent code, codegen at the default level (llc's -O2).
pub fn emit_object(module: OperationRef<'_, '_>) -> Result<Vec<u8>, ObjectError> {
    initialize_native_target()?;
    let context = LlvmContext::new();
    let llvm_module = context.translate(module)?;
    let triple = llvm_module.triple();
    let machine = TargetMachine::new(&triple)?;
    machine.emit_object(&llvm_module, &triple)
}

fn initialize_native_target() -> Result<(), ObjectError> {
    static INITIALIZED: OnceLock<Result<(), &'static str>> = OnceLock::new();
    let initialized = INITIALIZED.get_or_init(|| {
        // SAFETY: LLVM's initializers only register the native target and its
        // printer with LLVM's registry (repeating them is harmless); the
        // OnceLock runs them once per process.
        unsafe {
            if LLVM_InitializeNativeTarget() != 0 {
                return Err("LLVM_InitializeNativeTarget failed");
            }
            if LLVM_InitializeNativeAsmPrinter() != 0 {
                return Err("LLVM_InitializeNativeAsmPrinter failed");
            }
        }
        Ok(())
    });
    initialized.map_err(ObjectError::NativeTarget)
}

/// An LLVM context of its own, so that translations do not share state.
struct LlvmContext(LLVMContextRef);

impl LlvmContext {
    fn new() -> Self {
        // SAFETY: creates a fresh context, owned by the returned value.
        Self(unsafe { LLVMContextCreate() })
    }

    fn translate(&self, module: OperationRef<'_, '_>) -> Result<LlvmModule<'_>, ObjectError> {
        // SAFETY: the operation is live; mlir-sys and llvm-sys declare the same
        // opaque LLVMContext, so the pointer casts only change its Rust type.
        // The returned module (null on failure, after MLIR's diagnostics)
        // belongs to this context and is disposed before it.
        let raw = unsafe { mlir_sys::mlirTranslateModuleToLLVMIR(module.to_raw(), self.0.cast()) };
        if raw.is_null() {
            return Err(ObjectError::Translation);
        }
        Ok(LlvmModule {
            raw: raw.cast(),
            _context: self,
        })
    }
}

impl Drop for LlvmContext {
    fn drop(&mut self) {
        // SAFETY: the context is owned here and its modules, which borrow it,
        // are gone.
        unsafe { LLVMContextDispose(self.0) }
    }
}

struct LlvmModule<'a> {
    raw: LLVMModuleRef,
    _context: &'a LlvmContext,
}

impl LlvmModule<'_> {
    /// The module's target triple if the translation set one
    /// (`llvm.target_triple`), else the host's default.
    fn triple(&self) -> String {
        // SAFETY: the module is live; its triple is a NUL-terminated string
        // it owns, copied before anything changes it.
        let own = unsafe { CStr::from_ptr(LLVMGetTarget(self.raw)) };
        if !own.is_empty() {
            return own.to_string_lossy().into_owned();
        }
        // SAFETY: LLVM returns a message the caller disposes of.
        unsafe { take_message(LLVMGetDefaultTargetTriple()) }
    }
}

impl Drop for LlvmModule<'_> {
    fn drop(&mut self) {
        // SAFETY: the module is owned here; its context outlives it.
        unsafe { LLVMDisposeModule(self.raw) }
    }
}

struct TargetMachine(LLVMTargetMachineRef);

impl TargetMachine {
    fn new(triple: &str) -> Result<Self, ObjectError> {
        let c_triple = c_string(triple);
        let mut target: LLVMTargetRef = ptr::null_mut();
        let mut message: *mut c_char = ptr::null_mut();
        // SAFETY: the triple is NUL-terminated; on failure LLVM returns a
        // message the caller disposes of.
        let failed =
            unsafe { LLVMGetTargetFromTriple(c_triple.as_ptr(), &mut target, &mut message) };
        if failed != 0 {
            return Err(ObjectError::Target {
                triple: triple.to_owned(),
                // SAFETY: LLVM set the message on failure.
                message: unsafe { take_message(message) },
            });
        }
        let empty = c"";
        // SAFETY: the target comes from LLVM's registry; the strings are
        // NUL-terminated and copied. An empty CPU and feature string is the
        // generic CPU, as llc without -mcpu.
        let machine = unsafe {
            LLVMCreateTargetMachine(
                target,
                c_triple.as_ptr(),
                empty.as_ptr(),
                empty.as_ptr(),
                LLVMCodeGenOptLevel::LLVMCodeGenLevelDefault,
                LLVMRelocMode::LLVMRelocPIC,
                LLVMCodeModel::LLVMCodeModelDefault,
            )
        };
        if machine.is_null() {
            return Err(ObjectError::TargetMachine(triple.to_owned()));
        }
        Ok(Self(machine))
    }

    fn emit_object(&self, module: &LlvmModule<'_>, triple: &str) -> Result<Vec<u8>, ObjectError> {
        let c_triple = c_string(triple);
        // SAFETY: the machine and the module are live; the data layout is
        // copied into the module before it is disposed of.
        unsafe {
            let layout = LLVMCreateTargetDataLayout(self.0);
            LLVMSetModuleDataLayout(module.raw, layout);
            LLVMDisposeTargetData(layout);
            LLVMSetTarget(module.raw, c_triple.as_ptr());
        }
        let mut message: *mut c_char = ptr::null_mut();
        let mut buffer = ptr::null_mut();
        // SAFETY: the machine and the module are live; on success LLVM hands
        // over a memory buffer, on failure a message, each disposed of below.
        let failed = unsafe {
            LLVMTargetMachineEmitToMemoryBuffer(
                self.0,
                module.raw,
                LLVMCodeGenFileType::LLVMObjectFile,
                &mut message,
                &mut buffer,
            )
        };
        if failed != 0 {
            return Err(ObjectError::CodeGeneration {
                triple: triple.to_owned(),
                // SAFETY: LLVM set the message on failure.
                message: unsafe { take_message(message) },
            });
        }
        // SAFETY: the buffer holds `size` bytes from `start`, copied before it
        // is disposed of.
        unsafe {
            let start = LLVMGetBufferStart(buffer).cast::<u8>();
            let size = LLVMGetBufferSize(buffer);
            let bytes = if size == 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(start, size).to_vec()
            };
            LLVMDisposeMemoryBuffer(buffer);
            Ok(bytes)
        }
    }
}

impl Drop for TargetMachine {
    fn drop(&mut self) {
        // SAFETY: the machine is owned here.
        unsafe { LLVMDisposeTargetMachine(self.0) }
    }
}

fn c_string(text: &str) -> std::ffi::CString {
    std::ffi::CString::new(text.replace('\0', "")).unwrap_or_default()
}

/// Copies and disposes of a message LLVM allocated (null reads as empty).
///
/// # Safety
///
/// `message` is null or a NUL-terminated string from LLVM that nothing else
/// disposes of.
unsafe fn take_message(message: *mut c_char) -> String {
    if message.is_null() {
        return String::new();
    }
    // SAFETY: the caller passes LLVM's NUL-terminated message, owned here.
    unsafe {
        let text = CStr::from_ptr(message).to_string_lossy().into_owned();
        LLVMDisposeMessage(message);
        text
    }
}
