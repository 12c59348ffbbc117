//! Shared libraries opened with `dlopen` (format 2, `--preload`, and the
//! libraries object files were linked into: object_library.rs).

use std::{error::Error, path::Path};

use libloading::{
    Library,
    os::unix::{Library as UnixLibrary, RTLD_GLOBAL, RTLD_LAZY, RTLD_LOCAL, RTLD_NOW},
};

use crate::{
    error::{Result, RuntimeError},
    executor::BinaryFormat,
};

pub struct SharedLibrary {
    /// What messages call the library: the path the program sent, wherever
    /// the bytes were stored.
    name: String,
    library: Library,
    /// `dlopen`'s handle of it.
    handle: *mut std::ffi::c_void,
}

// SAFETY: a dlopen handle may be used from any thread; the library is only
// closed by dropping this value.
unsafe impl Send for SharedLibrary {}
// SAFETY: as above; lookups (dlsym) are thread-safe.
unsafe impl Sync for SharedLibrary {}

impl SharedLibrary {
    /// Opens the library at `file` under the name `name`, its symbols
    /// visible to it alone.
    pub fn open(file: &Path, name: &str) -> Result<Self> {
        Self::open_with(file, name, RTLD_LAZY | RTLD_LOCAL)
    }

    /// Opens the library at `file` with its symbols global: they resolve the
    /// references of objects linked later and the process's own lookups.
    pub fn open_global(file: &Path) -> Result<Self> {
        Self::open_with(file, &file.display().to_string(), RTLD_NOW | RTLD_GLOBAL)
    }

    /// Opens the library at `file`, linked from the object file the program
    /// calls `name`, as that object would be linked: every reference
    /// resolved now (an error instead of a failure when a kernel runs), its
    /// symbols visible to it alone.
    pub fn open_linked_object(file: &Path, name: &str) -> Result<Self> {
        Self::open_with(file, name, RTLD_NOW | RTLD_LOCAL)
    }

    /// Whether the library at `file` is open in this process already (the
    /// loader knows a file by its path, or else by its device and inode).
    pub fn is_open(file: &Path) -> bool {
        let Ok(path) = std::ffi::CString::new(file.as_os_str().as_encoded_bytes()) else {
            return false;
        };
        // SAFETY: with RTLD_NOLOAD, dlopen loads nothing and runs no code: it
        // returns the library if it is loaded, with one more reference, which
        // is dropped at once.
        unsafe {
            let handle = libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
            if handle.is_null() {
                return false;
            }
            libc::dlclose(handle);
        }
        true
    }

    /// `dlopen`'s handle of the library, valid as long as this value.
    pub fn handle(&self) -> *mut std::ffi::c_void {
        self.handle
    }

    fn open_with(file: &Path, name: &str, flags: i32) -> Result<Self> {
        // SAFETY: opening a library runs its initializers; loading code the
        // user shipped to the executor is what send_binary is for.
        let library = unsafe { UnixLibrary::open(Some(file), flags) }.map_err(|error| {
            RuntimeError::LoadFailed {
                format: BinaryFormat::SharedLibrary,
                path: name.to_owned(),
                reason: dlopen_reason(&error, file),
            }
        })?;
        let handle = library.into_raw();
        Ok(Self {
            name: name.to_owned(),
            // SAFETY: the handle dlopen just returned, owned by this value
            // from now on.
            library: unsafe { UnixLibrary::from_raw(handle) }.into(),
            handle,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The address of `symbol` in this library, if it defines it.
    pub fn lookup(&self, symbol: &str) -> Option<usize> {
        // SAFETY: the address is only used as a function of the signature the
        // ABI documents; the library outlives every use (the session owns it).
        unsafe { self.library.get::<*const ()>(symbol.as_bytes()) }
            .ok()
            .map(|address| *address as usize)
    }
}

/// The address of `symbol` among the executor process's own symbols (its
/// executable and the libraries loaded with global symbols, such as an
/// executor-server's `--plugin` libraries), if any defines it.
pub fn process_symbol(symbol: &str) -> Option<usize> {
    let name = std::ffi::CString::new(symbol).ok()?;
    // SAFETY: dlsym only reads the NUL-terminated name; RTLD_DEFAULT searches
    // the global scope of the process.
    let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!address.is_null()).then_some(address as usize)
}

/// Why `dlopen` failed: the `dlerror` text libloading keeps as the error's
/// source (its own message is just "dlopen failed"), without the file it
/// starts with, which may be where an executor stored the bytes rather than
/// what the program calls the library.
fn dlopen_reason(error: &libloading::Error, file: &Path) -> String {
    let reason = error.source().unwrap_or(error).to_string();
    match reason.strip_prefix(&format!("{}: ", file.display())) {
        Some(rest) => rest.to_owned(),
        None => reason,
    }
}
