//! The cache of one launch site of lowered code (`__executor__launch_site`,
//! `executor_abi::launch_site`): a global of the host program, one per kernel
//! and object of a module, that the general path fills with the entry it resolved
//! on the embedded executor and the next launches of the site read, so that
//! they call the entry directly: no session table, no names compared, no
//! thread-local cache.
//!
//! Several threads may run one site at once (a launch in a parallel loop), so
//! the site is a sequence lock: a filler makes its counter odd, writes, and
//! makes it even again; a reader that sees the same even counter before and
//! after reading the other words read one fill's words. A fill that finds
//! another under way gives up: the next launch fills the site again.
//!
//! An entry cached under an older generation (`fast_launch::generation`,
//! which every session close bumps) is stale: session handles are never
//! reused, and an object's code stays where it is while its session is open.

use std::{
    ffi::{c_char, c_void},
    sync::atomic::{AtomicI64, AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence},
};

use executor_abi::{descriptor::WORD_BYTES, launch_site};

use super::fast_launch;

/// A launch site's words, as this runtime uses them.
#[repr(C)]
pub struct LaunchSite {
    /// Odd while a thread fills the site.
    sequence: AtomicU64,
    /// The generation the entry was resolved in; 0 (never current) when empty.
    generation: AtomicU64,
    session: AtomicI64,
    /// The entry and object strings the site was filled for.
    entry: AtomicPtr<c_char>,
    object: AtomicPtr<c_char>,
    /// The entry's address, and its symbol's length (the crash report names it).
    address: AtomicUsize,
    entry_len: AtomicUsize,
}

// The lowering reserves this much, aligned so, for each site.
const _: () = assert!(size_of::<LaunchSite>() <= launch_site::WORDS * WORD_BYTES);
const _: () = assert!(align_of::<LaunchSite>() <= launch_site::ALIGNMENT);

/// An entry a site holds for a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub address: usize,
    /// The length of the entry symbol (without its NUL).
    pub entry_len: usize,
}

/// What a launch that fills a site ran: where, what, and the generation it
/// was resolved in (read before its session was looked up).
pub struct Fill {
    pub generation: u64,
    pub session: i64,
    pub entry: *const c_char,
    pub object: *const c_char,
    pub resolved: Resolved,
}

impl LaunchSite {
    /// The site at `site`; None for a null pointer.
    ///
    /// # Safety
    ///
    /// `site` must be null or point at a launch site's words
    /// (`executor_abi::launch_site`: writable, aligned, zeroed before first
    /// use), which only this type reads and writes and which outlive `'a`.
    pub unsafe fn from_ptr<'a>(site: *mut c_void) -> Option<&'a Self> {
        // SAFETY: a launch site's words are a valid `LaunchSite` (all zeros
        // included: every field is an integer or a pointer), per the contract.
        unsafe { site.cast::<Self>().as_ref() }
    }

    /// The entry this site holds for a launch of `entry` from `object` on
    /// `session`, if it is current.
    #[inline]
    pub fn lookup(
        &self,
        session: i64,
        entry: *const c_char,
        object: *const c_char,
    ) -> Option<Resolved> {
        let before = self.sequence.load(Ordering::Acquire);
        if before & 1 != 0 {
            return None;
        }
        let matches = self.generation.load(Ordering::Relaxed) == fast_launch::generation()
            && self.session.load(Ordering::Relaxed) == session
            && self.entry.load(Ordering::Relaxed).cast_const() == entry
            && self.object.load(Ordering::Relaxed).cast_const() == object;
        let resolved = Resolved {
            address: self.address.load(Ordering::Relaxed),
            entry_len: self.entry_len.load(Ordering::Relaxed),
        };
        // The words above were read before the counter is read again.
        fence(Ordering::Acquire);
        (matches && self.sequence.load(Ordering::Relaxed) == before).then_some(resolved)
    }

    /// Records what a launch resolved, unless another thread is filling the
    /// site.
    pub fn fill(&self, fill: &Fill) {
        let before = self.sequence.load(Ordering::Relaxed);
        if before & 1 != 0
            || self
                .sequence
                .compare_exchange(before, before + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // The odd counter is seen before any of the words below change.
        fence(Ordering::Release);
        self.generation.store(fill.generation, Ordering::Relaxed);
        self.session.store(fill.session, Ordering::Relaxed);
        self.entry.store(fill.entry.cast_mut(), Ordering::Relaxed);
        self.object.store(fill.object.cast_mut(), Ordering::Relaxed);
        self.address.store(fill.resolved.address, Ordering::Relaxed);
        self.entry_len
            .store(fill.resolved.entry_len, Ordering::Relaxed);
        self.sequence.store(before + 2, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_site() -> Box<[u64; launch_site::WORDS]> {
        Box::new([0; launch_site::WORDS])
    }

    #[test]
    fn a_filled_site_holds_its_entry_for_its_session_entry_and_object_until_a_session_closes() {
        let _generation = fast_launch::generation_test_lock();
        let mut words = empty_site();
        // SAFETY: zeroed words of a launch site's size, used only through it.
        let site = unsafe { LaunchSite::from_ptr(words.as_mut_ptr().cast()) }.expect("not null");
        let (entry, object) = (c"_mlir_ciface_k".as_ptr(), c"k.o".as_ptr());
        let other = c"_mlir_ciface_other".as_ptr();
        assert_eq!(
            site.lookup(0, std::ptr::null(), std::ptr::null()),
            None,
            "empty"
        );
        let resolved = Resolved {
            address: 0x1234,
            entry_len: 14,
        };
        site.fill(&Fill {
            generation: fast_launch::generation(),
            session: 3,
            entry,
            object,
            resolved,
        });
        assert_eq!(site.lookup(3, entry, object), Some(resolved));
        assert_eq!(site.lookup(4, entry, object), None, "another session");
        assert_eq!(site.lookup(3, other, object), None, "another entry");
        assert_eq!(site.lookup(3, entry, other), None, "another object");
        fast_launch::invalidate();
        assert_eq!(site.lookup(3, entry, object), None, "a session closed");
    }

    #[test]
    fn a_fill_of_an_older_generation_is_never_current() {
        let _generation = fast_launch::generation_test_lock();
        let mut words = empty_site();
        // SAFETY: as above.
        let site = unsafe { LaunchSite::from_ptr(words.as_mut_ptr().cast()) }.expect("not null");
        let (entry, object) = (c"_mlir_ciface_k".as_ptr(), c"k.o".as_ptr());
        // Resolved before a close that happened before the fill.
        let generation = fast_launch::generation();
        fast_launch::invalidate();
        site.fill(&Fill {
            generation,
            session: 3,
            entry,
            object,
            resolved: Resolved {
                address: 1,
                entry_len: 14,
            },
        });
        assert_eq!(site.lookup(3, entry, object), None);
    }

    #[test]
    fn a_site_being_filled_is_neither_read_nor_filled_again() {
        let _generation = fast_launch::generation_test_lock();
        let mut words = empty_site();
        // SAFETY: as above.
        let site = unsafe { LaunchSite::from_ptr(words.as_mut_ptr().cast()) }.expect("not null");
        let (entry, object) = (c"_mlir_ciface_k".as_ptr(), c"k.o".as_ptr());
        let fill = Fill {
            generation: fast_launch::generation(),
            session: 3,
            entry,
            object,
            resolved: Resolved {
                address: 1,
                entry_len: 14,
            },
        };
        site.fill(&fill);
        // Another thread is in the middle of a fill.
        site.sequence.fetch_add(1, Ordering::SeqCst);
        assert_eq!(site.lookup(3, entry, object), None);
        site.fill(&Fill { session: 4, ..fill });
        site.sequence.fetch_add(1, Ordering::SeqCst);
        assert_eq!(
            site.lookup(3, entry, object)
                .map(|resolved| resolved.address),
            Some(1),
            "the second fill gave up"
        );
    }
}
