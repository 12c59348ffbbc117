//! Relocatable object files JIT-linked with LLVM's ORC (LLJIT, through the LLVM
//! C API and the calls of `runtime/cpp/ObjectDylibs.cpp` it lacks). Each
//! object gets a JITDylib of its own, so two objects may define the same
//! kernel; each resolves against itself, the objects added before it and the
//! executor process (libc, libm, ...). An object's constructors run once it
//! is linked (at once, for an object with load-time code), its destructors
//! when the JIT is dropped (`runtime/cpp/Initializers.cpp`). Every `unsafe`
//! call into ORC lives here.

use std::{
    ffi::{CStr, CString, c_char, c_int, c_void},
    ptr,
    sync::{Mutex, Once, OnceLock, PoisonError},
};

use llvm_sys::{
    core::{
        LLVMCreateMemoryBufferWithMemoryRange, LLVMCreateMemoryBufferWithMemoryRangeCopy,
        LLVMDisposeMemoryBuffer, LLVMDisposeMessage,
    },
    error::{LLVMCreateStringError, LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage},
    object::{LLVMBinaryGetType, LLVMBinaryType, LLVMCreateBinary, LLVMDisposeBinary},
    orc2::{
        LLVMOrcCLookupSet, LLVMOrcCreateCustomCAPIDefinitionGenerator,
        LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcDefinitionGeneratorRef,
        LLVMOrcExecutionSessionSetErrorReporter, LLVMOrcJITDylibAddGenerator,
        LLVMOrcJITDylibLookupFlags, LLVMOrcJITDylibRef, LLVMOrcLookupKind, LLVMOrcLookupStateRef,
        LLVMOrcSymbolStringPoolEntryStr,
        lljit::{
            LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile, LLVMOrcLLJITGetExecutionSession,
            LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITRef,
        },
    },
    prelude::LLVMMemoryBufferRef,
    target::{LLVM_InitializeNativeAsmPrinter, LLVM_InitializeNativeTarget},
    target_machine::LLVMGetDefaultTargetTriple,
};
use rustc_hash::FxHashMap;

use super::{
    crash,
    object_bytes::ObjectBytes,
    split_object::{Link, SplitObject},
};
use crate::{
    error::{Result, RuntimeError},
    executor::BinaryFormat,
};

/// The largest object linked ahead of its first lookup ([`Jit::link_ahead`]):
/// a small one links in about the time its client takes to send the next
/// request; a larger one would only hold up that request, which may not
/// even launch it.
const LINK_AHEAD_MAX_BYTES: usize = 64 * 1024;

/// One LLJIT instance: the objects of one session.
pub struct Jit {
    raw: LLVMOrcLLJITRef,
    /// Each object's JITDylib, in the order the objects were added.
    objects: Vec<LLVMOrcJITDylibRef>,
    /// Each object's name, in the same order.
    object_names: Vec<String>,
    /// The objects linked a piece at a time (split_object/), which their
    /// JITDylibs' generators read. Boxed, since ORC holds a pointer to each
    /// until the JIT is disposed.
    #[allow(clippy::vec_box, reason = "ORC keeps each source's address")]
    split_objects: Vec<Box<SplitSource>>,
    /// What ORC reports outside the error of the call that caused it: why the
    /// symbols a lookup needed could not be linked (an undefined reference,
    /// say), which the lookup's own error only calls a failure to materialize
    /// them. Boxed, since ORC holds a pointer to it until the JIT is disposed.
    session_errors: Box<Mutex<Vec<String>>>,
    /// For each object added whole and not linked yet that may be linked
    /// ahead of its first lookup (at most [`LINK_AHEAD_MAX_BYTES`], its
    /// references all to the process's symbols), by index: a symbol it
    /// defines, whose lookup links it ([`Jit::link_ahead`]).
    link_triggers: FxHashMap<usize, String>,
    /// Why linking an object ahead failed, by index: what its lookups report
    /// (ORC's own words for them would only say that the object failed).
    failed_ahead: FxHashMap<usize, String>,
}

// SAFETY: LLJIT is thread-safe for adding objects and looking up symbols; the
// session serializes its own calls anyway.
unsafe impl Send for Jit {}
// SAFETY: as above.
unsafe impl Sync for Jit {}

/// An object linked a piece at a time: what its JITDylib's generator needs.
struct SplitSource {
    jit: LLVMOrcLLJITRef,
    dylib: LLVMOrcJITDylibRef,
    /// The object's name, for the pieces' names in LLVM's messages.
    name: String,
    object: Mutex<SplitObject>,
}

impl SplitSource {
    /// [`SplitObject::read_anew`], the error naming the object.
    fn read_anew(&self) -> std::result::Result<bool, String> {
        self.object
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .read_anew()
            .map_err(|reason| format!("{}: {reason}", self.name))
    }
}

/// An object added to a [`Jit`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectIndex(usize);

unsafe extern "C" {
    /// `runtime/cpp/ObjectDylibs.cpp`.
    fn executorCreateObjectJit(result: *mut LLVMOrcLLJITRef) -> LLVMErrorRef;
    fn executorWarmUpLinking(jit: LLVMOrcLLJITRef) -> LLVMErrorRef;
    fn executorCreateObjectDylib(
        jit: LLVMOrcLLJITRef,
        name: *const c_char,
        earlier: *const LLVMOrcJITDylibRef,
        count: usize,
    ) -> LLVMOrcJITDylibRef;
    fn executorCreateLibraryDylib(
        jit: LLVMOrcLLJITRef,
        name: *const c_char,
        handle: *mut c_void,
    ) -> LLVMOrcJITDylibRef;
    fn executorLookupInDylib(
        jit: LLVMOrcLLJITRef,
        dylib: LLVMOrcJITDylibRef,
        name: *const c_char,
        address: *mut u64,
    ) -> LLVMErrorRef;
    fn executorAddWholeObject(
        jit: LLVMOrcLLJITRef,
        dylib: LLVMOrcJITDylibRef,
        buffer: LLVMMemoryBufferRef,
        linked: *mut c_int,
        defined: *mut *mut c_char,
    ) -> LLVMErrorRef;
    fn executorNextInitializers(
        jit: LLVMOrcLLJITRef,
        functions: *mut *const u64,
        count: *mut usize,
    ) -> LLVMOrcJITDylibRef;
    fn executorRunDestructors(
        jit: LLVMOrcLLJITRef,
        announce: extern "C" fn(context: *mut c_void, dylib: LLVMOrcJITDylibRef),
        context: *mut c_void,
    );
}

/// Why a lookup found no address.
pub enum Missing {
    /// No object of the JIT defines the symbol.
    Undefined,
    /// An object defines it, but linking it (or what it refers to) failed.
    Unlinkable(String),
}

/// Initializes LLVM's native target, once per process.
fn initialize_native_target() {
    static NATIVE_TARGET: Once = Once::new();
    // SAFETY: initializes LLVM's native target once per process.
    NATIVE_TARGET.call_once(|| unsafe {
        LLVM_InitializeNativeTarget();
        LLVM_InitializeNativeAsmPrinter();
    });
}

/// The triple of the machine this process runs on, as LLVM names it (its
/// default target triple, as `executor-dispatch` compiles for by default):
/// what `local` and an executor-server's workers run.
pub fn host_triple() -> &'static str {
    static TRIPLE: OnceLock<String> = OnceLock::new();
    TRIPLE.get_or_init(|| {
        // SAFETY: LLVM returns a NUL-terminated string the caller disposes
        // of; it is copied, then disposed of once.
        unsafe {
            let raw = LLVMGetDefaultTargetTriple();
            let triple = CStr::from_ptr(raw).to_string_lossy().into_owned();
            LLVMDisposeMessage(raw);
            triple
        }
    })
}

impl Jit {
    /// A JIT that links object files. LLVM's native target is not
    /// initialized for it: linking object files (JITLink) does not use it,
    /// and registering it (its passes, instruction selectors, ...) costs a
    /// first `send_binary` about 0.1 ms.
    pub fn new() -> Result<Self> {
        let mut raw = ptr::null_mut();
        // SAFETY: `raw` receives the instance on success, to be disposed of
        // with LLVMOrcDisposeLLJIT like one the C API created.
        check(unsafe { executorCreateObjectJit(&mut raw) })
            .map_err(RuntimeError::JitUnavailable)?;
        let jit = Self {
            raw,
            objects: Vec::new(),
            object_names: Vec::new(),
            split_objects: Vec::new(),
            session_errors: Box::default(),
            link_triggers: FxHashMap::default(),
            failed_ahead: FxHashMap::default(),
        };
        let session_errors: *const Mutex<Vec<String>> = &*jit.session_errors;
        // SAFETY: the JIT is live; the context is the boxed list, which is
        // freed only after the JIT is disposed (`Drop`).
        unsafe {
            LLVMOrcExecutionSessionSetErrorReporter(
                LLVMOrcLLJITGetExecutionSession(jit.raw),
                collect_session_error,
                session_errors.cast_mut().cast(),
            );
        }
        let mut generator: LLVMOrcDefinitionGeneratorRef = ptr::null_mut();
        // SAFETY: the JIT is live; the generator resolves symbols of the
        // process itself and is handed over to the main JITDylib.
        unsafe {
            let prefix = LLVMOrcLLJITGetGlobalPrefix(jit.raw);
            check(LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                prefix,
                None,
                ptr::null_mut(),
            ))
            .map_err(|reason| {
                RuntimeError::JitUnavailable(format!(
                    "cannot resolve against the process: {reason}"
                ))
            })?;
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(jit.raw), generator);
        }
        Ok(jit)
    }

    /// Links a throwaway object and removes it, so that what the first link
    /// of this JIT costs once (about 0.15 ms) is not a session's.
    pub fn warm_up(&mut self) -> Result<()> {
        initialize_native_target();
        // The check a whole object gets first runs too (on no bytes, which
        // it refuses), so that its code is mapped before a session needs it.
        let _ = check_object_file(&[], c"warm-up");
        // SAFETY: the JIT is live; the call creates and removes everything it
        // links; an error is returned to be consumed here.
        check(unsafe { executorWarmUpLinking(self.raw) }).map_err(RuntimeError::JitUnavailable)
    }

    /// Adds the object file `bytes` under the name `name`, which messages
    /// about it (LLVM's too) use, in a JITDylib of its own; returns the
    /// object's index for [`Jit::lookup`]. An object compiled with function
    /// sections is linked a piece at a time, as lookups need its symbols
    /// (split_object: each piece is an object LLVM reads then). Any other is
    /// linked whole at the first lookup (now, and its constructors run, if
    /// it has load-time code), and parsed as an object file first, so that
    /// input LLVM's object reader rejects becomes an error here instead of
    /// reaching the linker.
    pub fn add_object(&mut self, name: &str, bytes: ObjectBytes) -> Result<ObjectIndex> {
        let failed = |reason: String| RuntimeError::LoadFailed {
            format: BinaryFormat::RelocatableObject,
            path: name.to_owned(),
            reason,
        };
        let c_name = CString::new(name).map_err(|_| failed("the name holds a NUL byte".into()))?;
        let index = self.objects.len();
        // Unique in the JIT whatever the names: the index comes first.
        let dylib_name = CString::new(format!("object {index}: {name}"))
            .expect("the name has no NUL byte (checked)");
        // SAFETY: the JIT and the earlier JITDylibs are live; the name is
        // copied by ORC.
        let dylib = unsafe {
            executorCreateObjectDylib(
                self.raw,
                dylib_name.as_ptr(),
                self.objects.as_ptr(),
                self.objects.len(),
            )
        };
        // Whether the object was linked now, for its load-time code.
        let linked = match SplitObject::new(bytes) {
            Ok(object) => {
                let source = Box::new(SplitSource {
                    jit: self.raw,
                    dylib,
                    name: name.to_owned(),
                    object: Mutex::new(object),
                });
                let context: *const SplitSource = &*source;
                // SAFETY: the context is the boxed source, which the JIT keeps
                // until after it is disposed (`Drop`), and with it the
                // generator; the generator is handed over to the JITDylib.
                unsafe {
                    let generator = LLVMOrcCreateCustomCAPIDefinitionGenerator(
                        link_piece,
                        context.cast_mut().cast(),
                        keep_split_source,
                    );
                    LLVMOrcJITDylibAddGenerator(dylib, generator);
                }
                self.split_objects.push(source);
                false
            }
            Err(bytes) => {
                // A mapped file is read now: ORC keeps a copy of its own.
                let bytes = bytes
                    .into_owned()
                    .map_err(|error| failed(format!("reading it: {error}")))?;
                check_object_file(&bytes, &c_name).map_err(failed)?;
                let mut linked = 0;
                let mut defined = ptr::null_mut();
                // A larger object is not linked ahead: not even asked about.
                let ask_defined = if bytes.len() <= LINK_AHEAD_MAX_BYTES {
                    &raw mut defined
                } else {
                    ptr::null_mut()
                };
                self.session_errors().clear();
                // SAFETY: the JIT and the JITDylib are live; ownership of the
                // buffer, a copy of the bytes, passes to ORC; `ask_defined` is
                // null or points at `defined`, live for the call.
                check(unsafe {
                    executorAddWholeObject(
                        self.raw,
                        dylib,
                        copy_to_buffer(&bytes, &c_name),
                        &mut linked,
                        ask_defined,
                    )
                })
                .map_err(|message| failed(self.reason_for(message)))?;
                if !defined.is_null() {
                    // SAFETY: a NUL-terminated copy made with strdup, ours to
                    // free once.
                    let name = unsafe {
                        let name = CStr::from_ptr(defined).to_str().map(str::to_owned);
                        libc::free(defined.cast());
                        name
                    };
                    if let Ok(name) = name {
                        self.link_triggers.insert(index, name);
                    }
                }
                linked != 0
            }
        };
        self.objects.push(dylib);
        self.object_names.push(name.to_owned());
        // Its load-time code runs now, as a shared library's runs when it is
        // loaded.
        if linked {
            self.run_initializers();
        }
        Ok(ObjectIndex(index))
    }

    /// Adds the object called `name` that the session opened as a shared
    /// library (`handle`, from `dlopen`) instead of linking it: the objects
    /// added after it resolve their references against its symbols as they
    /// would against an object linked here. Nothing of it runs at close.
    pub fn add_library(&mut self, name: &str, handle: *mut c_void) {
        // Unique in the JIT whatever the names: the index comes first.
        let dylib_name = CString::new(format!("object {}: {name}", self.objects.len()))
            .unwrap_or_else(|_| c"an object opened as a library".to_owned());
        // SAFETY: the JIT is live; the name is copied by ORC; the handle
        // stays open as long as the session's objects (`close` closes the
        // library after the JIT's objects are gone).
        let dylib = unsafe { executorCreateLibraryDylib(self.raw, dylib_name.as_ptr(), handle) };
        self.objects.push(dylib);
        self.object_names.push(name.to_owned());
    }

    /// Whether `object` was added whole and waits for a lookup to be linked
    /// ([`Jit::link_ahead`]).
    pub fn waits_for_link(&self, object: ObjectIndex) -> bool {
        self.link_triggers.contains_key(&object.0)
    }

    /// Links `object` now if it was added whole to be linked at its first
    /// lookup: an executor-server does this once it has answered the
    /// object's `send_binary`, while its client's next request is on the
    /// way. Why it failed, if it did, is what the object's lookups report
    /// from then on, as the first of them would have.
    pub fn link_ahead(&mut self, object: ObjectIndex) {
        let Some(symbol) = self.link_triggers.remove(&object.0) else {
            return;
        };
        if let Err(Missing::Unlinkable(reason)) = self.lookup(object, &symbol) {
            self.failed_ahead.insert(object.0, reason);
        }
    }

    /// The address of `symbol` as `object` defines it, linking whatever it
    /// needs on first use.
    pub fn lookup(&self, object: ObjectIndex, symbol: &str) -> std::result::Result<usize, Missing> {
        // No symbol has a NUL byte in its name.
        let c_symbol = CString::new(symbol).map_err(|_| Missing::Undefined)?;
        self.session_errors().clear();
        let mut address = 0;
        // SAFETY: the JIT and the object's JITDylib are live and the name
        // NUL-terminated.
        let error = unsafe {
            executorLookupInDylib(
                self.raw,
                self.objects[object.0],
                c_symbol.as_ptr(),
                &mut address,
            )
        };
        if let Err(message) = check(error) {
            // ORC's words for a name that no object defines.
            if message == format!("Symbols not found: [ {symbol} ]") {
                // Unless a saved layout of a split object missed it.
                return match self.split_source(object).map(SplitSource::read_anew) {
                    Some(Ok(true)) => self.lookup(object, symbol),
                    Some(Err(reason)) => Err(Missing::Unlinkable(reason)),
                    _ => Err(Missing::Undefined),
                };
            }
            if let Some(reason) = self.failed_ahead.get(&object.0) {
                return Err(Missing::Unlinkable(reason.clone()));
            }
            let reason = self.reason_for(message);
            let reason = match self.split_source(object) {
                Some(source) => source
                    .object
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .explain_aliases(&reason),
                None => reason,
            };
            return Err(Missing::Unlinkable(reason));
        }
        self.run_initializers();
        usize::try_from(address).map_err(|_| Missing::Unlinkable("address out of range".into()))
    }

    /// The split object `object` is, if it is one.
    fn split_source(&self, object: ObjectIndex) -> Option<&SplitSource> {
        let dylib = self.objects[object.0];
        self.split_objects
            .iter()
            .map(|source| &**source)
            .find(|source| source.dylib == dylib)
    }

    /// Runs the constructors of the objects the last lookup linked, the
    /// objects sent first first: each object's load-time code, reported as
    /// a crash of loading that object if it crashes.
    fn run_initializers(&self) {
        loop {
            let (mut functions, mut count) = (ptr::null(), 0);
            // SAFETY: the JIT is live; the list stays valid until the next
            // call on this thread, and is copied before it.
            let dylib = unsafe { executorNextInitializers(self.raw, &mut functions, &mut count) };
            if dylib.is_null() {
                return;
            }
            let functions = if count == 0 {
                Vec::new()
            } else {
                // SAFETY: `count` addresses at `functions` (see above).
                unsafe { std::slice::from_raw_parts(functions, count) }.to_vec()
            };
            crash::guard_load(self.name_of(dylib), || {
                for address in functions {
                    // SAFETY: an `.init_array` entry of a linked object: the
                    // address of a function without arguments or result,
                    // which the object's code expects to run once, before
                    // any other of its code.
                    let constructor: extern "C" fn() =
                        unsafe { std::mem::transmute(address as usize) };
                    constructor();
                }
            });
        }
    }

    /// Runs the destructors of the objects whose constructors ran, as
    /// `dlclose` would (docs/runtime-abi.md), calling `announce` with each
    /// object's name before its destructors run. Once: none is left to run
    /// after.
    pub fn run_destructors(&self, announce: &mut dyn FnMut(&str)) {
        struct Announcing<'a> {
            jit: &'a Jit,
            announce: &'a mut dyn FnMut(&str),
        }
        extern "C" fn announce_object(context: *mut c_void, dylib: LLVMOrcJITDylibRef) {
            // SAFETY: `context` is the `Announcing` below, alive for the call
            // that calls this, on this thread.
            let context = unsafe { &mut *context.cast::<Announcing>() };
            (context.announce)(context.jit.name_of(dylib));
        }
        let mut announcing = Announcing {
            jit: self,
            announce,
        };
        // SAFETY: the JIT is live, and so are its linked objects; the context
        // outlives the call.
        unsafe {
            executorRunDestructors(self.raw, announce_object, (&raw mut announcing).cast());
        }
    }

    /// The name `dylib`, one of this JIT's objects, was sent as.
    fn name_of(&self, dylib: LLVMOrcJITDylibRef) -> &str {
        self.objects
            .iter()
            .position(|object| *object == dylib)
            .map_or("an object", |index| self.object_names[index].as_str())
    }

    /// Why a link failed: what ORC reported outside the error `message` of
    /// the call that linked, which only calls it a failure to materialize.
    fn reason_for(&self, message: String) -> String {
        let reported = std::mem::take(&mut *self.session_errors());
        if reported.is_empty() {
            message
        } else {
            reported.join("; ")
        }
    }

    fn session_errors(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.session_errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Adds the object file `bytes`, called `name`, to `dylib` whole, once
/// LLVM's object reader takes it (see [`check_object_file`]).
fn add_whole_object(
    jit: LLVMOrcLLJITRef,
    dylib: LLVMOrcJITDylibRef,
    bytes: &[u8],
    name: &CStr,
) -> std::result::Result<(), String> {
    check_object_file(bytes, name)?;
    // SAFETY: the caller passes a live JIT and a JITDylib of it; ownership of
    // the buffer, a copy of the bytes, passes to ORC.
    check(unsafe { LLVMOrcLLJITAddObjectFile(jit, dylib, copy_to_buffer(bytes, name)) })
}

/// A copy of `bytes` in a memory buffer of LLVM's, called `name`.
fn copy_to_buffer(bytes: &[u8], name: &CStr) -> LLVMMemoryBufferRef {
    // SAFETY: `bytes` is valid for its length and the name NUL-terminated;
    // LLVM copies both into a buffer of its own.
    unsafe {
        LLVMCreateMemoryBufferWithMemoryRangeCopy(bytes.as_ptr().cast(), bytes.len(), name.as_ptr())
    }
}

/// The generator of a split object's JITDylib: for each name a lookup did
/// not find there, adds the piece of the object that defines it, or the
/// whole object (nothing when the object does not define it), which the
/// lookup then links.
extern "C" fn link_piece(
    _generator: LLVMOrcDefinitionGeneratorRef,
    context: *mut c_void,
    _state: *mut LLVMOrcLookupStateRef,
    _kind: LLVMOrcLookupKind,
    _dylib: LLVMOrcJITDylibRef,
    _flags: LLVMOrcJITDylibLookupFlags,
    names: LLVMOrcCLookupSet,
    count: usize,
) -> LLVMErrorRef {
    // SAFETY: ORC passes the context it was given, a SplitSource that
    // outlives the JIT's generators (see `Jit::add_object`).
    let source = unsafe { &*context.cast::<SplitSource>() };
    let names = if count == 0 {
        &[][..]
    } else {
        // SAFETY: ORC passes `count` elements at `names`, live for the call.
        unsafe { std::slice::from_raw_parts(names, count) }
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for element in names {
            // SAFETY: the name is a live entry of the session's string pool.
            let name = unsafe { CStr::from_ptr(LLVMOrcSymbolStringPoolEntryStr(element.Name)) };
            let Ok(name) = name.to_str() else {
                continue;
            };
            let mut object = source.object.lock().unwrap_or_else(PoisonError::into_inner);
            let in_object = |reason: String| format!("{}: {reason}", source.name);
            match object.link_defining(name).map_err(in_object)? {
                None => {}
                Some(Link::Piece(piece)) => {
                    tracing::debug!(object = %source.name, symbol = name, bytes = piece.len(), "linking a piece of the object");
                    let piece_name =
                        CString::new(format!("{} (the sections of {name})", source.name))
                            .map_err(|_| "the object's name holds a NUL byte".to_owned())?;
                    // SAFETY: the JIT and the JITDylib are live (the JIT is
                    // running this lookup); ownership of the buffer passes to
                    // ORC.
                    let error = unsafe {
                        LLVMOrcLLJITAddObjectFile(
                            source.jit,
                            source.dylib,
                            copy_to_buffer(&piece, &piece_name),
                        )
                    };
                    check(error)?;
                }
                Some(Link::Whole) => {
                    tracing::debug!(object = %source.name, symbol = name, "linking the object whole");
                    let whole_name = CString::new(source.name.as_str())
                        .map_err(|_| "the object's name holds a NUL byte".to_owned())?;
                    let bytes = object.bytes().map_err(in_object)?;
                    add_whole_object(source.jit, source.dylib, bytes, &whole_name)
                        .map_err(in_object)?;
                    object.linked_whole();
                }
            }
        }
        Ok::<(), String>(())
    }));
    let message = match outcome {
        Ok(Ok(())) => return ptr::null_mut(),
        Ok(Err(message)) => message,
        Err(_) => format!("linking a piece of '{}' panicked", source.name),
    };
    let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
    // SAFETY: LLVM copies the message into the error it returns.
    unsafe { LLVMCreateStringError(message.as_ptr()) }
}

/// The generator's disposer: the source belongs to the [`Jit`], which frees
/// it after ORC is done with it.
extern "C" fn keep_split_source(_context: *mut c_void) {}

/// ORC's error reporter: keeps the message for the lookup that is waiting
/// (instead of ORC's default, printing it to stderr apart from the error it
/// explains), and logs it at debug level, since an error reported outside a
/// lookup has no one waiting for it.
extern "C" fn collect_session_error(context: *mut c_void, error: LLVMErrorRef) {
    // SAFETY: ORC passes the context it was given, the JIT's list of session
    // errors, which outlives the JIT, and hands over an unconsumed error.
    let (session_errors, message) = unsafe {
        (
            &*context.cast::<Mutex<Vec<String>>>(),
            take_error_message(error),
        )
    };
    tracing::debug!(%message, "JIT session error");
    session_errors
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(message);
}

impl Drop for Jit {
    fn drop(&mut self) {
        // The objects' destructors run while their code is still mapped, as
        // `dlclose` runs a library's, if nothing ran them before; none is
        // left to run at exit.
        self.run_destructors(&mut |_| {});
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

/// Whether LLVM's object reader takes `bytes` for a relocatable object file of
/// this host's kind. What it accepts may still be malformed in ways only the
/// linker meets (docs/runtime-abi.md says what `local` does then).
fn check_object_file(bytes: &[u8], name: &CStr) -> std::result::Result<(), String> {
    // SAFETY: the buffer refers to `bytes` without copying and is released
    // below, after the binary that reads it.
    let buffer = unsafe {
        LLVMCreateMemoryBufferWithMemoryRange(bytes.as_ptr().cast(), bytes.len(), name.as_ptr(), 0)
    };
    let mut message = ptr::null_mut();
    // SAFETY: the buffer is live; a null context asks for a binary without
    // one; on failure `message` receives a string to dispose of.
    let binary = unsafe { LLVMCreateBinary(buffer, ptr::null_mut(), &mut message) };
    let verdict = if binary.is_null() {
        // SAFETY: LLVM set the message on failure.
        let text = unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: released once, with its own deallocator.
        unsafe { LLVMDisposeMessage(message) };
        Err(format!("not an object file: {text}"))
    } else {
        // SAFETY: the binary is live.
        let kind = unsafe { LLVMBinaryGetType(binary) };
        // SAFETY: released once.
        unsafe { LLVMDisposeBinary(binary) };
        // This host links 64-bit little-endian ELF objects.
        if matches!(kind, LLVMBinaryType::LLVMBinaryTypeELF64L) {
            Ok(())
        } else {
            Err("not a 64-bit little-endian ELF object file, which this host links".to_owned())
        }
    };
    // SAFETY: nothing refers to the buffer any more.
    unsafe { LLVMDisposeMemoryBuffer(buffer) };
    verdict
}

/// The message of a failed call into ORC.
fn check(error: LLVMErrorRef) -> std::result::Result<(), String> {
    if error.is_null() {
        return Ok(());
    }
    // SAFETY: a non-null error is consumed exactly once.
    Err(unsafe { take_error_message(error) })
}

/// # Safety
/// `error` must be a live, unconsumed LLVM error.
unsafe fn take_error_message(error: LLVMErrorRef) -> String {
    // SAFETY: consumes the error; the message is ours, to free once.
    let message = unsafe { LLVMGetErrorMessage(error) };
    if message.is_null() {
        return "unknown LLVM error".to_owned();
    }
    // SAFETY: a NUL-terminated string owned by the caller.
    let text = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: released once, with its own deallocator.
    unsafe { LLVMDisposeErrorMessage(message) };
    text
}
