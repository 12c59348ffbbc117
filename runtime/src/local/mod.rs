//! The executor embedded in the calling process (address `local`): objects
//! JIT-linked with ORC, shared libraries opened with `dlopen`, kernels called
//! on the caller's thread and async entries on threads of their own.

mod background;
mod cache_directory;
pub(crate) mod crash;
pub(crate) mod direct_call;
mod invoke;
mod jit;
mod library;
mod object_bytes;
mod object_library;
mod split_object;
pub mod static_memory;

use std::{
    collections::HashMap,
    path::Path,
    sync::{
        Arc, Mutex, MutexGuard, PoisonError,
        atomic::{AtomicU64, AtomicUsize, Ordering},
    },
};

use executor_abi::{EntryConvention, call_buffer::Layout, descriptor};
use rustc_hash::FxHashMap;

pub use self::crash::report_in_this_process as report_kernel_crashes;
pub use self::jit::host_triple;
pub use self::object_bytes::ObjectBytes;
use self::{
    invoke::{call_with_pointers, call_wrapper_function},
    jit::{Jit, Missing, ObjectIndex},
    library::SharedLibrary,
    object_bytes::MappedFile,
};
use crate::{
    error::{Result, RuntimeError},
    executor::{BinaryFormat, Executor},
    machine,
    memref::{Descriptor, OwnedDescriptor},
    object_names::ObjectNames,
    packed,
};

#[derive(Default)]
pub struct LocalExecutor {
    loaded: Mutex<Loaded>,
    /// The thread holding `loaded` ([`this_thread`]), 0 for none: code the
    /// session runs while it holds it (a constructor, a destructor) that
    /// calls the session back is refused instead of waiting for itself.
    loaded_by: AtomicUsize,
    names: ObjectNames,
    launches: Mutex<HashMap<u64, background::Pending>>,
    running_launches: background::RunningLimit,
    next_token: AtomicU64,
}

/// What a session has loaded.
#[derive(Default)]
struct Loaded {
    /// Created with the first object file.
    jit: Option<Jit>,
    /// Each loaded binary by the name launches use, and where it went.
    /// (Fx hashing: every launch looks its names up, and the names come
    /// from the session's own program, which a hash flood would only slow.)
    objects: FxHashMap<String, Binary>,
    /// Shared libraries (format 2 and preloaded), in load order.
    libraries: Vec<SharedLibrary>,
    /// The shared library linked from the session's first object, opened
    /// instead of linking it (object_library.rs).
    object_library: Option<SharedLibrary>,
    /// Resolved entries: object name, then symbol.
    entries: FxHashMap<String, FxHashMap<String, usize>>,
}

impl Loaded {
    /// The session's JIT, created on first use: a session that loads no
    /// object file never pays for one.
    fn jit(&mut self) -> Result<&mut Jit> {
        if self.jit.is_none() {
            let mut jit = Jit::new()?;
            // The objects linked after it resolve against it.
            if let Some(library) = &self.object_library {
                jit.add_library(library.name(), library.handle());
            }
            self.jit = Some(jit);
        }
        Ok(self.jit.as_mut().expect("created above"))
    }
}

#[derive(Clone, Copy)]
enum Binary {
    Object(ObjectIndex),
    /// An object opened as the library linked from it.
    LinkedObject,
    Library(usize),
    Asset,
}

impl LocalExecutor {
    pub fn new() -> Result<Self> {
        Ok(Self::default())
    }

    /// Loads `file` under the object name `name`, once. Errors name the
    /// binary `name`, which is what the program called it: a server stores
    /// the bytes it received in a file of its own choosing.
    pub fn load_as(&self, name: &str, file: &Path, format: BinaryFormat) -> Result<()> {
        let mut loaded = self.loaded()?;
        if loaded.objects.contains_key(name) {
            return Ok(());
        }
        let binary = match format {
            BinaryFormat::RelocatableObject => {
                let bytes = MappedFile::open(file).map_err(|error| RuntimeError::Unreadable {
                    path: name.to_owned(),
                    cause: error,
                })?;
                machine::check(bytes.as_slice(), format, host_triple())?;
                // Later objects resolve against the objects before them,
                // which a library cannot: only the first may be one.
                let first = !loaded
                    .objects
                    .values()
                    .any(|binary| matches!(binary, Binary::Object(_) | Binary::LinkedObject));
                let linked = first
                    .then(|| split_object::saved_fingerprint(&bytes))
                    .flatten()
                    .and_then(|fingerprint| {
                        let identity = bytes.identity()?;
                        object_library::open_cached(name, identity, fingerprint)
                    });
                match linked {
                    Some(library) => {
                        if let Some(jit) = &mut loaded.jit {
                            jit.add_library(library.name(), library.handle());
                        }
                        loaded.object_library = Some(library);
                        Binary::LinkedObject
                    }
                    None => {
                        drop(loaded);
                        return self.load_object(name, bytes);
                    }
                }
            }
            BinaryFormat::SharedLibrary => {
                machine::check(&machine::read_header(file), format, host_triple())?;
                let library = crash::guard_load(name, || SharedLibrary::open(file, name))?;
                loaded.libraries.push(library);
                Binary::Library(loaded.libraries.len() - 1)
            }
            // Not loaded: the embedded executor shares the host's file system,
            // so a kernel reads the asset where the host has it.
            BinaryFormat::Asset => Binary::Asset,
        };
        loaded.objects.insert(name.to_owned(), binary);
        Ok(())
    }

    /// Links the object file `bytes` under the object name `name`, once, as
    /// [`LocalExecutor::load_as`] does a file's (an executor-server links what
    /// it received without storing it).
    pub fn load_object(&self, name: &str, bytes: ObjectBytes) -> Result<()> {
        let mut loaded = self.loaded()?;
        if !loaded.objects.contains_key(name) {
            let format = BinaryFormat::RelocatableObject;
            machine::check(bytes.as_slice(), format, host_triple())?;
            let index = loaded.jit()?.add_object(name, bytes)?;
            loaded
                .objects
                .insert(name.to_owned(), Binary::Object(index));
        }
        Ok(())
    }

    /// Whether the object file `name` waits for its first launch to be
    /// linked whole, which [`LocalExecutor::link_ahead`] can do sooner.
    pub fn waits_for_link(&self, name: &str) -> bool {
        let Ok(loaded) = self.loaded() else {
            return false;
        };
        match (loaded.objects.get(name), &loaded.jit) {
            (Some(Binary::Object(index)), Some(jit)) => jit.waits_for_link(*index),
            _ => false,
        }
    }

    /// Links the object file `name` now if it waits for its first launch to
    /// be linked whole ([`Jit::link_ahead`]); what fails is reported by its
    /// launches, as the first would have. A crash of the linker is the
    /// load's of `name`.
    pub fn link_ahead(&self, name: &str) -> Result<()> {
        let mut loaded = self.loaded()?;
        if let Some(Binary::Object(index)) = loaded.objects.get(name).copied() {
            let jit = loaded.jit()?;
            crash::guard_load(name, || jit.link_ahead(index));
        }
        Ok(())
    }

    /// Creates the JIT now instead of with the first object file, and pays
    /// for its first link with a throwaway one, and for the host's triple,
    /// which every binary sent is checked against (an executor-server's
    /// worker does this before its session starts).
    pub fn prepare_jit(&self) -> Result<()> {
        host_triple();
        self.loaded()?.jit()?.warm_up()
    }

    /// Makes a shared library's symbols available to `call`, and global in
    /// the process (an executor-server's `--preload`/`--plugin`).
    pub fn preload_library(&self, path: &Path) -> Result<()> {
        let library = SharedLibrary::open_global(path)?;
        self.loaded()?.libraries.push(library);
        Ok(())
    }

    /// Where `executor.call`'s `symbol` is: in the session's shared libraries
    /// (in load order), else among the executor process's own symbols.
    fn callee_address(&self, symbol: &str) -> Result<usize> {
        let loaded = self.loaded()?;
        loaded
            .libraries
            .iter()
            .find_map(|library| library.lookup(symbol))
            .or_else(|| library::process_symbol(symbol))
            .ok_or_else(|| {
                let places: Vec<&str> = loaded.libraries.iter().map(SharedLibrary::name).collect();
                RuntimeError::SymbolNotFound {
                    symbol: symbol.to_owned(),
                    place: format!(
                        "the session's shared libraries [{}] or the executor process",
                        places.join(", ")
                    ),
                }
            })
    }

    /// An error if this thread holds what the session loaded: it runs code
    /// of the session's binaries, which called the session back.
    fn refuse_reentry(&self) -> Result<()> {
        // Relaxed is enough: the value can be this thread's only if this
        // thread stored it, and another thread's stores never make it so.
        if self.loaded_by.load(Ordering::Relaxed) == this_thread() {
            return Err(RuntimeError::SessionBusy);
        }
        Ok(())
    }

    /// What the session loaded, for this thread alone; an error if this
    /// thread has it already (see [`LocalExecutor::loaded_by`]).
    fn loaded(&self) -> Result<LoadedGuard<'_>> {
        self.refuse_reentry()?;
        let guard = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        self.loaded_by.store(this_thread(), Ordering::Relaxed);
        Ok(LoadedGuard {
            guard,
            by: &self.loaded_by,
        })
    }

    /// The address of `entry` in the loaded `object`, as launches resolve it
    /// (once, then from a cache).
    pub fn entry_address(&self, entry: &str, object: &str) -> Result<usize> {
        let mut loaded = self.loaded()?;
        if let Some(address) = loaded
            .entries
            .get(object)
            .and_then(|entries| entries.get(entry))
        {
            return Ok(*address);
        }
        let binary = match loaded.objects.get(object) {
            Some(binary) => *binary,
            None => *loaded
                .objects
                .get(&*self.names.canonical(object)?)
                .ok_or_else(|| RuntimeError::ObjectNotLoaded(object.to_owned()))?,
        };
        let address = match binary {
            Binary::Object(index) => {
                let jit = loaded.jit.as_ref().expect("an object was added to the JIT");
                // The first lookup of an entry links its piece of the object.
                crash::guard_load(object, || jit.lookup(index, entry)).map_err(|missing| {
                    match missing {
                        Missing::Undefined => {
                            missing_entry(entry, &format!("'{object}'"), |kernel| {
                                crash::guard_load(object, || jit.lookup(index, kernel)).is_ok()
                            })
                        }
                        Missing::Unlinkable(reason) => RuntimeError::LinkFailed {
                            symbol: entry.to_owned(),
                            reason,
                        },
                    }
                })?
            }
            Binary::Library(_) | Binary::LinkedObject => {
                let library = match binary {
                    Binary::Library(index) => &loaded.libraries[index],
                    _ => loaded
                        .object_library
                        .as_ref()
                        .expect("the object's library is open"),
                };
                library.lookup(entry).ok_or_else(|| {
                    missing_entry(entry, &format!("'{object}'"), |kernel| {
                        library.lookup(kernel).is_some()
                    })
                })?
            }
            Binary::Asset => return Err(RuntimeError::NotCode(object.to_owned())),
        };
        loaded
            .entries
            .entry(object.to_owned())
            .or_default()
            .insert(entry.to_owned(), address);
        Ok(address)
    }

    /// [`Executor::launch`], except that the outputs are left as the kernel
    /// filled them in: one may share a buffer with an input, a global or
    /// another output. For a caller that copies the results out at once (a
    /// server's worker) instead of handing them on.
    pub fn launch_in_place(
        &self,
        entry: &str,
        object: &str,
        inputs: &[Descriptor],
        outputs: &[Descriptor],
    ) -> Result<()> {
        let address = self.entry_address(entry, object)?;
        call_entry(entry, address, inputs, outputs)
    }
}

/// The error for an entry that `place` does not define; when the entry is the
/// C-interface wrapper of a function that `defines` says is there, the error
/// says that it is the wrapper that is missing.
fn missing_entry(entry: &str, place: &str, defines: impl Fn(&str) -> bool) -> RuntimeError {
    match entry.strip_prefix(EntryConvention::MlirCInterface.prefix()) {
        Some(kernel) if !kernel.is_empty() && defines(kernel) => RuntimeError::MissingCInterface {
            symbol: entry.to_owned(),
            kernel: kernel.to_owned(),
            place: place.to_owned(),
        },
        _ => RuntimeError::SymbolNotFound {
            symbol: entry.to_owned(),
            place: place.to_owned(),
        },
    }
}

impl Executor for LocalExecutor {
    fn send_binary(&self, path: &str, format: BinaryFormat) -> Result<()> {
        self.load_as(&self.names.canonical(path)?, Path::new(path), format)
    }

    fn launch(
        &self,
        entry: &str,
        object: &str,
        inputs: &[Descriptor],
        outputs: &[Descriptor],
    ) -> Result<()> {
        self.launch_in_place(entry, object, inputs, outputs)?;
        give_outputs_own_buffers(outputs, inputs);
        Ok(())
    }

    fn launch_async(&self, entry: &str, object: &str) -> Result<u64> {
        let address = self.entry_address(entry, object)?;
        let token = self.next_token.fetch_add(1, Ordering::Relaxed);
        let symbol = entry.to_owned();
        // Catalyst's entries take two pointers (results, arguments), null for
        // an entry without either; other entries are `void(void)`.
        let pointer_count =
            if EntryConvention::of_entry_symbol(entry) == Some(EntryConvention::CatalystPyface) {
                2
            } else {
                0
            };
        let started = self.running_launches.start(entry, move || {
            // SAFETY: the arguments match the entry's convention (above); the
            // session keeps the code loaded until it has waited for every launch.
            if let Err(error) = crash::guard(&symbol, || unsafe {
                call_with_pointers(address, &[std::ptr::null_mut(); 2][..pointer_count])
            }) {
                tracing::error!("{error}");
            }
        });
        let pending = started
            .ok_or(RuntimeError::TooManyAsyncLaunches {
                entry: entry.to_owned(),
                limit: self.running_launches.limit(),
            })?
            .map_err(|error| RuntimeError::NoThread {
                purpose: format!("a thread for '{entry}'"),
                cause: Arc::new(error),
            })?;
        self.launches().insert(token, pending);
        Ok(token)
    }

    fn await_launch(&self, token: u64) -> Result<()> {
        let pending = self
            .launches()
            .remove(&token)
            .ok_or(RuntimeError::BadToken(token as i64))?;
        pending.wait()
    }

    fn call(&self, symbol: &str, layout: Layout, arguments: &[u8]) -> Result<Vec<u8>> {
        let address = self.callee_address(symbol)?;
        match layout {
            // SAFETY: in Catalyst's layout the callee is an ORC wrapper
            // function (docs/runtime-abi.md).
            Layout::Catalyst => crash::guard(symbol, || unsafe {
                call_wrapper_function(address, arguments)
            }),
            Layout::ThisProject => call_with_descriptors(symbol, address, arguments),
        }
    }

    fn close(&self) -> Result<()> {
        self.close_announcing(&mut |_| {})
    }
}

impl LocalExecutor {
    /// Closes the session: waits for its async launches, then runs the
    /// destructors of its objects and shared libraries, calling `announce`
    /// with each binary's name before its own run (an executor-server's
    /// worker tells its supervisor).
    pub fn close_announcing(&self, announce: &mut dyn FnMut(&str)) -> Result<()> {
        self.refuse_reentry()?;
        let launches: Vec<background::Pending> = self
            .launches()
            .drain()
            .map(|(_, pending)| pending)
            .collect();
        for pending in launches {
            // Nobody awaits these launches to be told.
            if let Err(error) = pending.wait() {
                tracing::warn!("{error}");
            }
        }
        let mut loaded = self.loaded()?;
        // A crash in a destructor is reported as that binary's.
        crash::guard_unload(|unloading| {
            let mut announce = |name: &str| {
                unloading.object(name);
                announce(name);
            };
            if let Some(jit) = &loaded.jit {
                jit.run_destructors(&mut announce);
            }
            // The session's first object, if it was opened as a library.
            if let Some(library) = loaded.object_library.take() {
                announce(library.name());
                drop(library);
            }
            // The libraries after the objects, which may use them; the last
            // loaded first, as the objects. Closing one runs its destructors.
            while let Some(library) = loaded.libraries.pop() {
                announce(library.name());
                drop(library);
            }
        });
        *loaded = Loaded::default();
        Ok(())
    }

    fn launches(&self) -> MutexGuard<'_, HashMap<u64, background::Pending>> {
        self.launches.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// [`LocalExecutor::loaded`]'s lock, which records its thread while held.
struct LoadedGuard<'a> {
    guard: MutexGuard<'a, Loaded>,
    by: &'a AtomicUsize,
}

impl std::ops::Deref for LoadedGuard<'_> {
    type Target = Loaded;

    fn deref(&self) -> &Loaded {
        &self.guard
    }
}

impl std::ops::DerefMut for LoadedGuard<'_> {
    fn deref_mut(&mut self) -> &mut Loaded {
        &mut self.guard
    }
}

impl Drop for LoadedGuard<'_> {
    fn drop(&mut self) {
        // Before the lock is released: the next holder records itself.
        self.by.store(0, Ordering::Relaxed);
    }
}

/// A number no other live thread has: the address of this thread's own
/// thread-local (never 0).
fn this_thread() -> usize {
    thread_local!(static MARK: u8 = const { 0 });
    MARK.with(|mark| std::ptr::from_ref(mark) as usize)
}

/// Calls the launch entry at `address` in the convention its name says.
fn call_entry(
    entry: &str,
    address: usize,
    inputs: &[Descriptor],
    outputs: &[Descriptor],
) -> Result<()> {
    let input_pointers = inputs.iter().map(Descriptor::as_ptr);
    if EntryConvention::of_entry_symbol(entry) == Some(EntryConvention::CatalystPyface) {
        // void(results *, args *): the result descriptors one after the other,
        // and an array of pointers to the input descriptors; null for an
        // empty group, as Catalyst's runtime passes them.
        let mut results = ResultStruct::new(outputs);
        let mut arguments: Vec<*mut u8> = input_pointers.collect();
        let results_pointer = if outputs.is_empty() {
            std::ptr::null_mut()
        } else {
            results.as_ptr()
        };
        let arguments_pointer = if arguments.is_empty() {
            std::ptr::null_mut()
        } else {
            arguments.as_mut_ptr().cast()
        };
        // SAFETY: Catalyst's entries take exactly these two pointers.
        crash::guard(entry, || unsafe {
            call_with_pointers(address, &[results_pointer, arguments_pointer])
        })?;
        results.copy_into(outputs);
        return Ok(());
    }
    // The C-interface wrapper: one pointer for the results (the descriptor
    // itself for one result, a struct of them for several), then one per input.
    match outputs {
        [] => {
            let arguments: Vec<*mut u8> = input_pointers.collect();
            // SAFETY: a kernel without results takes one pointer per input.
            crash::guard(entry, || unsafe { call_with_pointers(address, &arguments) })
        }
        [output] => {
            let arguments: Vec<*mut u8> = std::iter::once(output.as_ptr())
                .chain(input_pointers)
                .collect();
            // SAFETY: the wrapper writes its one result through the first pointer.
            crash::guard(entry, || unsafe { call_with_pointers(address, &arguments) })
        }
        _ => {
            let mut results = ResultStruct::new(outputs);
            let arguments: Vec<*mut u8> = std::iter::once(results.as_ptr())
                .chain(input_pointers)
                .collect();
            // SAFETY: the wrapper writes its results through the first pointer.
            crash::guard(entry, || unsafe { call_with_pointers(address, &arguments) })?;
            results.copy_into(outputs);
            Ok(())
        }
    }
}

/// The host owns every output buffer and frees it (`memref.dealloc`). A kernel
/// may return a buffer it does not hand over: a global's (MLIR's marker for
/// it), static memory (a C kernel's static array), an input's (the argument
/// itself or a view of it) or one it returns twice. Such an output gets a
/// dense copy in a buffer of its own; the others are the kernel's `malloc`ed
/// buffers, passed on as they are.
fn give_outputs_own_buffers(outputs: &[Descriptor], inputs: &[Descriptor]) {
    for (index, output) in outputs.iter().enumerate() {
        let buffer = output.allocated();
        let shared = buffer as usize == descriptor::GLOBAL_BUFFER
            || inputs.iter().any(|input| input.allocated() == buffer)
            || outputs[..index]
                .iter()
                .any(|earlier| earlier.allocated() == buffer)
            || static_memory::holds(buffer);
        if shared {
            output.take_own_copy();
        }
    }
}

/// Runs `symbol` at `address` on the buffers of `arguments` (this project's
/// layout): one descriptor pointer per buffer, the outputs filled in place;
/// returns the outputs packed.
fn call_with_descriptors(symbol: &str, address: usize, arguments: &[u8]) -> Result<Vec<u8>> {
    let decoded = packed::decode_arguments(arguments)?;
    let mut buffers: Vec<OwnedDescriptor> = decoded
        .buffers
        .into_iter()
        .map(OwnedDescriptor::from_dense)
        .collect();
    let pointers: Vec<*mut u8> = buffers
        .iter_mut()
        .map(|buffer| buffer.descriptor().as_ptr())
        .collect();
    // SAFETY: a called symbol takes one descriptor pointer per buffer
    // (docs/runtime-abi.md) and fills the outputs in place.
    crash::guard(symbol, || unsafe { call_with_pointers(address, &pointers) })?;
    let outputs: Vec<_> = buffers[decoded.num_inputs..]
        .iter_mut()
        .map(OwnedDescriptor::to_dense)
        .collect();
    Ok(packed::encode_outputs(&outputs))
}

/// Result descriptors laid out one after the other, as an LLVM struct of them
/// is: every field is 8 bytes, so there is no padding.
struct ResultStruct {
    words: Vec<i64>,
    ranks: Vec<usize>,
}

impl ResultStruct {
    fn new(outputs: &[Descriptor]) -> Self {
        let ranks: Vec<usize> = outputs.iter().map(Descriptor::rank).collect();
        let words = vec![0; ranks.iter().map(|rank| descriptor::words(*rank)).sum()];
        Self { words, ranks }
    }

    fn as_ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr().cast()
    }

    fn copy_into(&mut self, outputs: &[Descriptor]) {
        let mut start = 0;
        for (output, rank) in outputs.iter().zip(&self.ranks) {
            // SAFETY: the words from `start` hold a descriptor of `rank`, which
            // the kernel filled.
            let filled = unsafe {
                Descriptor::from_raw(
                    self.words[start..].as_mut_ptr().cast(),
                    *rank,
                    output.element_size(),
                )
            };
            output.copy_from(&filled);
            start += descriptor::words(*rank);
        }
    }
}
