//! Whether a result's buffer is static memory: a linked object's code or
//! data, or a loaded library's. A kernel may fill a result descriptor over
//! such memory (a C kernel returning a static array, say), but it cannot hand
//! that buffer over: `free` on it aborts the process. Whoever would free a
//! result's buffer asks [`holds`] first.

use std::{
    ffi::{c_int, c_void},
    sync::{Mutex, PoisonError},
};

unsafe extern "C" {
    /// In cpp/ObjectDylibs.cpp: whether a JIT of this process reserved
    /// `address` for linked code and data.
    fn executorJitMemoryHolds(address: *const c_void) -> bool;
}

/// Whether `address` is in static memory: an object the JIT linked, or a
/// segment of a loaded ELF module (the program, a shared library).
pub fn holds(address: *const u8) -> bool {
    if address.is_null() {
        return false;
    }
    // SAFETY: the C++ side compares the address with its ranges; it never
    // dereferences it.
    let linked = unsafe { executorJitMemoryHolds(address.cast()) };
    linked || LOADED_MODULES.hold(address as usize)
}

/// The address ranges of the loaded modules' segments, read again whenever
/// the dynamic loader's counts of loaded and unloaded modules change.
struct LoadedModules {
    known: Mutex<Option<Segments>>,
}

struct Segments {
    /// The loader's (adds, subs) when the ranges were read.
    generation: (u64, u64),
    ranges: Vec<(usize, usize)>,
}

static LOADED_MODULES: LoadedModules = LoadedModules {
    known: Mutex::new(None),
};

impl LoadedModules {
    fn hold(&self, address: usize) -> bool {
        let generation = loader_generation();
        let mut known = self.known.lock().unwrap_or_else(PoisonError::into_inner);
        if known
            .as_ref()
            .is_none_or(|segments| segments.generation != generation)
        {
            *known = Some(Segments {
                generation,
                ranges: loaded_segments(),
            });
        }
        known.as_ref().is_some_and(|segments| {
            segments
                .ranges
                .iter()
                .any(|&(start, end)| start <= address && address < end)
        })
    }
}

/// The loader's counts of modules loaded and unloaded so far: equal counts,
/// the same modules.
fn loader_generation() -> (u64, u64) {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid entry, and `data` is the tuple
        // below, borrowed for the call.
        unsafe {
            *data.cast::<(u64, u64)>() = ((*info).dlpi_adds, (*info).dlpi_subs);
        }
        1
    }
    let mut generation = (0u64, 0u64);
    // SAFETY: the callback only writes `generation`, alive for the call; it
    // stops the walk at the first module.
    unsafe { libc::dl_iterate_phdr(Some(first), (&raw mut generation).cast()) };
    generation
}

/// The address range of every loadable segment of every loaded module.
fn loaded_segments() -> Vec<(usize, usize)> {
    unsafe extern "C" fn collect(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut c_void,
    ) -> c_int {
        // SAFETY: the loader passes a valid entry whose dlpi_phdr has
        // dlpi_phnum headers, and `data` is the vector below, borrowed for
        // the walk.
        unsafe {
            let info = &*info;
            let ranges = &mut *data.cast::<Vec<(usize, usize)>>();
            let headers = std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum));
            for header in headers
                .iter()
                .filter(|header| header.p_type == libc::PT_LOAD)
            {
                let start = (info.dlpi_addr as usize).wrapping_add(header.p_vaddr as usize);
                ranges.push((start, start.saturating_add(header.p_memsz as usize)));
            }
        }
        0
    }
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    // SAFETY: the callback only pushes to `ranges`, alive for the walk.
    unsafe { libc::dl_iterate_phdr(Some(collect), (&raw mut ranges).cast()) };
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    static TABLE: [f32; 4] = [1., 2., 3., 4.];

    #[test]
    fn a_static_array_is_static_and_a_heap_buffer_is_not() {
        assert!(holds(TABLE.as_ptr().cast()));
        let heap = Box::new([0u8; 64]);
        assert!(!holds(heap.as_ptr()));
        let large = vec![0u8; 1 << 20];
        assert!(!holds(large.as_ptr()));
        assert!(!holds(std::ptr::null()));
    }
}
