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
    sync::Once,
};

use llvm_sys::{
    core::{
        LLVMContextCreate, LLVMContextDispose, LLVMDisposeMemoryBuffer, LLVMDisposeMessage,
        LLVMDisposeModule, LLVMGetBufferSize, LLVMGetBufferStart, LLVMGetTarget, LLVMSetTarget,
    },
    prelude::{LLVMContextRef, LLVMModuleRef},
    target::{
        LLVM_InitializeAllAsmPrinters, LLVM_InitializeAllTargetInfos, LLVM_InitializeAllTargetMCs,
        LLVM_InitializeAllTargets, LLVMDisposeTargetData, LLVMSetModuleDataLayout,
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
    #[error("the triple '{triple}' names no target of this LLVM: {message}")]
    Target { triple: String, message: String },
    #[error("LLVM cannot make a target machine for {0}")]
    TargetMachine(String),
    #[error("LLVM's code generation for {triple} failed: {message}")]
    CodeGeneration { triple: String, message: String },
}

/// The machine a module is compiled for, as `llc -mtriple -mcpu -mattr` takes
/// it: no triple is the host's default one, an empty CPU the generic one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Machine {
    pub triple: Option<String>,
    pub cpu: String,
    pub features: String,
}

impl Machine {
    /// Whether this LLVM has a target for the machine's triple.
    pub fn check(&self) -> Result<(), ObjectError> {
        match &self.triple {
            Some(triple) => target_of(triple).map(|_| ()),
            None => Ok(()),
        }
    }
}

/// The object file of `module`, an op in the LLVM dialect (with LLVM IR
/// translations registered in its context), for `machine`, or else for the
/// module's `llvm.target_triple` or the host's default triple:
/// position-independent code, codegen at the default level (llc's -O2).
pub fn emit_object(
    module: OperationRef<'_, '_>,
    machine: &Machine,
) -> Result<Vec<u8>, ObjectError> {
    let context = LlvmContext::new();
    let llvm_module = context.translate(module)?;
    let triple = machine
        .triple
        .clone()
        .unwrap_or_else(|| llvm_module.triple());
    let target_machine = TargetMachine::new(&triple, machine)?;
    target_machine.emit_object(&llvm_module, &triple)
}

/// Registers every target of the LLVM installation, once per process.
fn initialize_targets() {
    static INITIALIZED: Once = Once::new();
    // SAFETY: LLVM's initializers only register targets, their machine code
    // layers and printers with LLVM's registry (repeating them is harmless);
    // the Once runs them once per process.
    INITIALIZED.call_once(|| unsafe {
        LLVM_InitializeAllTargetInfos();
        LLVM_InitializeAllTargets();
        LLVM_InitializeAllTargetMCs();
        LLVM_InitializeAllAsmPrinters();
    });
}

/// LLVM's target for `triple`.
fn target_of(triple: &str) -> Result<LLVMTargetRef, ObjectError> {
    initialize_targets();
    let c_triple = c_string(triple);
    let mut target: LLVMTargetRef = ptr::null_mut();
    let mut message: *mut c_char = ptr::null_mut();
    // SAFETY: the triple is NUL-terminated; on failure LLVM returns a
    // message the caller disposes of.
    let failed = unsafe { LLVMGetTargetFromTriple(c_triple.as_ptr(), &mut target, &mut message) };
    if failed != 0 || target.is_null() {
        return Err(ObjectError::Target {
            triple: triple.to_owned(),
            // SAFETY: LLVM set the message on failure (or left it null).
            message: unsafe { take_message(message) },
        });
    }
    Ok(target)
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
    fn new(triple: &str, machine: &Machine) -> Result<Self, ObjectError> {
        let target = target_of(triple)?;
        let (c_triple, cpu, features) = (
            c_string(triple),
            c_string(&machine.cpu),
            c_string(&machine.features),
        );
        // SAFETY: the target comes from LLVM's registry; the strings are
        // NUL-terminated and copied. An empty CPU and feature string is the
        // generic CPU, as llc without -mcpu.
        let raw = unsafe {
            LLVMCreateTargetMachine(
                target,
                c_triple.as_ptr(),
                cpu.as_ptr(),
                features.as_ptr(),
                LLVMCodeGenOptLevel::LLVMCodeGenLevelDefault,
                LLVMRelocMode::LLVMRelocPIC,
                LLVMCodeModel::LLVMCodeModelDefault,
            )
        };
        if raw.is_null() {
            return Err(ObjectError::TargetMachine(triple.to_owned()));
        }
        Ok(Self(raw))
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
