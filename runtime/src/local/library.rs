//! Shared libraries opened with `dlopen` (format 1 and `--preload`).

use std::path::Path;

use libloading::Library;

use crate::error::{Result, RuntimeError};

pub struct SharedLibrary {
    path: String,
    library: Library,
}

impl SharedLibrary {
    pub fn open(path: &Path) -> Result<Self> {
        // SAFETY: opening a library runs its initializers; loading code the
        // user shipped to the executor is what send_binary is for.
        let library = unsafe { Library::new(path) }.map_err(|error| RuntimeError::LoadFailed {
            path: path.display().to_string(),
            reason: error.to_string(),
        })?;
        Ok(Self {
            path: path.display().to_string(),
            library,
        })
    }

    pub fn path(&self) -> &str {
        &self.path
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
