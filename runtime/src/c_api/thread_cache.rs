//! The per-thread cache of launch sites, for callers of the classic
//! `__catalyst__executor__launch`, which passes no site of its own: the sites
//! this thread ran before (the same session, entry and object, as pointers and
//! as text), direct-mapped by the entry's address. A hit runs the cached
//! entry on the fast path; a miss takes the general path, which fills the
//! cache when it may. An entry cached in an older generation of the session
//! table ([`sessions::generation`]) is stale.

use std::{
    cell::RefCell,
    ffi::{CStr, c_char, c_void},
};

use super::{fast_path, site_cache::Description};
use crate::sessions;

/// How many sites each thread keeps (direct-mapped by the entry's address).
const SITES: usize = 32;

/// One resolved launch site.
struct Site {
    generation: u64,
    session: i64,
    entry: *const c_char,
    object: *const c_char,
    /// The texts the pointers held, NUL included: a caller may reuse a
    /// buffer for another name. The entry's is UTF-8 (checked on the general
    /// path).
    entry_text: Box<[u8]>,
    object_text: Box<[u8]>,
    address: usize,
}

impl Site {
    /// The length of the entry's symbol, without its NUL.
    fn entry_len(&self) -> usize {
        self.entry_text.len() - 1
    }
}

thread_local! {
    static CACHE: RefCell<[Option<Site>; SITES]> = const { RefCell::new([const { None }; SITES]) };
}

fn slot(entry: *const c_char) -> usize {
    // Globals are at least 8-byte aligned apart; mix in higher bits.
    let address = entry as usize;
    ((address >> 3) ^ (address >> 11)) % SITES
}

/// Whether the NUL-terminated `text` is `expected` (NUL included).
///
/// # Safety
///
/// `text` must point at a NUL-terminated string.
unsafe fn same_text(text: *const c_char, expected: &[u8]) -> bool {
    // strncmp reads neither string past its NUL (nor past the first
    // difference), and `expected` ends with its NUL: equal up to `expected`'s
    // length is equal texts. A libc's strncmp compares a word or more at a
    // time, where a loop over bytes took most of a launch.
    // SAFETY: both are NUL-terminated (the contract; `expected` by its
    // construction from a CStr).
    unsafe { libc::strncmp(text, expected.as_ptr().cast(), expected.len()) == 0 }
}

/// Records a site the general path has just run, resolved to `address` in
/// `generation`.
///
/// # Safety
///
/// `entry` and `object` must point at NUL-terminated strings, the entry's UTF-8.
pub unsafe fn remember(
    generation: u64,
    session: i64,
    entry: *const c_char,
    object: *const c_char,
    address: usize,
) {
    // SAFETY: NUL-terminated strings (the contract).
    let (entry_text, object_text) = unsafe {
        (
            CStr::from_ptr(entry).to_bytes_with_nul().into(),
            CStr::from_ptr(object).to_bytes_with_nul().into(),
        )
    };
    let site = Site {
        generation,
        session,
        entry,
        object,
        entry_text,
        object_text,
        address,
    };
    CACHE.with(|cache| cache.borrow_mut()[slot(entry)] = Some(site));
}

/// Runs the launch if this thread has its site cached; false if the general
/// path must run it.
///
/// # Safety
///
/// As `__catalyst__executor__launch`'s contract: the strings are NUL-terminated,
/// the arrays hold `num_inputs`/`num_outputs` entries and the descriptors are
/// live, of the given ranks and element sizes.
pub unsafe fn run(
    session: i64,
    description: &Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) -> bool {
    let (entry, object) = (description.entry_symbol, description.object);
    if entry.is_null() || object.is_null() {
        return false;
    }
    let Some((address, entry_len)) = CACHE.with(|cache| {
        let cache = cache.borrow();
        let site = cache[slot(entry)].as_ref()?;
        let current = site.generation == sessions::generation()
            && site.session == session
            && site.entry == entry
            && site.object == object
            // SAFETY: a NUL-terminated string is readable up to its NUL, and
            // a differing byte stops the comparison at or before it.
            && unsafe { same_text(entry, &site.entry_text) && same_text(object, &site.object_text) };
        current.then(|| (site.address, site.entry_len()))
    }) else {
        return false;
    };
    // SAFETY: the caller's entry holds the text the site was cached with
    // (compared above): UTF-8 (checked when it was cached), and it stays
    // for the call; the rest is the caller's contract.
    unsafe { fast_path::run_resolved(address, entry_len, description, input_descs, output_descs) }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn count_call() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    /// Runs a launch without inputs or results of the site at `entry`.
    fn launch(session: i64, entry: &[u8], object: &[u8]) -> bool {
        // SAFETY: both are NUL-terminated; no descriptors.
        unsafe {
            run(
                session,
                &Description::without_results(entry.as_ptr().cast(), object.as_ptr().cast(), 0),
                std::ptr::null(),
                std::ptr::null(),
            )
        }
    }

    #[test]
    fn a_cached_site_runs_until_its_text_changes_or_a_session_closes() {
        let _generation = sessions::generation_test_lock();
        let mut entry = *b"_mlir_ciface_count\0";
        let object = *b"k.o\0";
        assert!(!launch(7, &entry, &object), "nothing cached yet");
        // SAFETY: NUL-terminated ASCII.
        unsafe {
            remember(
                sessions::generation(),
                7,
                entry.as_ptr().cast(),
                object.as_ptr().cast(),
                count_call as *const () as usize,
            )
        };
        let before = CALLS.load(Ordering::SeqCst);
        assert!(launch(7, &entry, &object));
        assert_eq!(
            CALLS.load(Ordering::SeqCst),
            before + 1,
            "the kernel ran once"
        );
        assert!(!launch(8, &entry, &object), "another session");
        // The same buffer now holds another name.
        entry[13] = b'C';
        assert!(!launch(7, &entry, &object), "the text changed");
        entry[13] = b'c';
        assert!(launch(7, &entry, &object));
        sessions::invalidate_cached_sites();
        assert!(!launch(7, &entry, &object), "a session closed");
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 2);
    }
}
