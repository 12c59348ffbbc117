//! A launch site of lowered code (`__executor__launch_at_site`,
//! `executor_abi::launch_site`): a global of the host program, one per kernel,
//! object and argument signature of a module, that holds what its launches
//! pass unchanged (the description, which the lowering fills) and a cache that
//! the general path fills with the entry it resolved on the embedded executor
//! and the next launches of the site read, so that they call the entry
//! directly: no session table, no names compared, no thread-local cache.
//!
//! Several threads may run one site at once (a launch in a parallel loop), so
//! the cache is a sequence lock: a filler makes its counter odd, writes, and
//! makes it even again; a reader that sees the same even counter before and
//! after reading the other words read one fill's words. A fill that finds
//! another under way gives up: the next launch fills the site again.
//!
//! An entry cached under an older generation ([`sessions::generation`],
//! which every session close bumps) is stale: session handles are never
//! reused, and an object's code stays where it is while its session is open.

use std::{
    ffi::c_char,
    mem::offset_of,
    sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering, fence},
};

use executor_abi::{
    descriptor::WORD_BYTES,
    launch_site::{self, field},
};

use crate::sessions;

/// A launch site, as `executor_abi::launch_site` lays it out.
#[repr(C)]
pub struct LaunchSite {
    cache: Cache,
    pub description: Description,
}

/// The runtime's words at the start of a site.
#[repr(C)]
struct Cache {
    /// Odd while a thread fills the site.
    sequence: AtomicU64,
    /// The generation the entry was resolved in; 0 (never current) when empty.
    generation: AtomicU64,
    session: AtomicI64,
    /// The entry's address, and its symbol's length (the crash report names it).
    address: AtomicUsize,
    entry_len: AtomicUsize,
}

/// What the launches of a site pass unchanged (`executor_abi::launch_site::DESCRIPTION`),
/// and the same arguments of a launch without a site.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Description {
    pub entry_symbol: *const c_char,
    pub object: *const c_char,
    pub num_inputs: usize,
    pub input_ranks: *const usize,
    pub input_elem_sizes: *const usize,
    pub num_outputs: usize,
    pub output_ranks: *const usize,
    pub output_elem_sizes: *const usize,
    /// The results' static sizes (`executor_abi::launch_site::DYNAMIC_SIZE`
    /// where dynamic), or null: a launch without a site has none.
    pub output_sizes: *const i64,
}

// The layout the lowering emits: the cache's words, then one word per field
// of the description, in `executor_abi::launch_site::DESCRIPTION`'s order.
const _: () = assert!(size_of::<Cache>() == launch_site::CACHE_WORDS * WORD_BYTES);
const _: () = assert!(offset_of!(LaunchSite, description) == size_of::<Cache>());
const _: () = assert!(size_of::<Description>() == launch_site::DESCRIPTION.len() * WORD_BYTES);
const _: () = assert!(align_of::<LaunchSite>() <= launch_site::ALIGNMENT);
const _: () = {
    let fields = [
        (field::ENTRY_SYMBOL, offset_of!(Description, entry_symbol)),
        (field::OBJECT, offset_of!(Description, object)),
        (field::NUM_INPUTS, offset_of!(Description, num_inputs)),
        (field::INPUT_RANKS, offset_of!(Description, input_ranks)),
        (
            field::INPUT_ELEM_SIZES,
            offset_of!(Description, input_elem_sizes),
        ),
        (field::NUM_OUTPUTS, offset_of!(Description, num_outputs)),
        (field::OUTPUT_RANKS, offset_of!(Description, output_ranks)),
        (
            field::OUTPUT_ELEM_SIZES,
            offset_of!(Description, output_elem_sizes),
        ),
        (field::OUTPUT_SIZES, offset_of!(Description, output_sizes)),
    ];
    let mut index = 0;
    while index < fields.len() {
        assert!(fields[index].1 == fields[index].0 * WORD_BYTES);
        index += 1;
    }
};

/// An entry a site holds for a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub address: usize,
    /// The length of the entry symbol (without its NUL).
    pub entry_len: usize,
}

/// What a launch that fills a site ran: on which session, what it resolved,
/// and the generation it was resolved in (read before its session was looked
/// up).
pub struct Fill {
    pub generation: u64,
    pub session: i64,
    pub resolved: Resolved,
}

impl Description {
    /// The description of a launch of `entry` in `object` with `num_inputs`
    /// inputs and no result (the fast path reads no ranks or sizes of
    /// inputs), for tests.
    #[cfg(test)]
    pub fn without_results(entry: *const c_char, object: *const c_char, num_inputs: usize) -> Self {
        Self {
            entry_symbol: entry,
            object,
            num_inputs,
            input_ranks: std::ptr::null(),
            input_elem_sizes: std::ptr::null(),
            num_outputs: 0,
            output_ranks: std::ptr::null(),
            output_elem_sizes: std::ptr::null(),
            output_sizes: std::ptr::null(),
        }
    }

    /// The results' static sizes, `output_ranks[i]` of them for output `i`
    /// ([`launch_site::DYNAMIC_SIZE`] where dynamic); None without them.
    ///
    /// # Safety
    ///
    /// `output_sizes` is null or holds as many sizes as the `num_outputs`
    /// entries of `output_ranks` add up to, and `ranks` are those entries.
    pub unsafe fn static_output_sizes(&self, ranks: &[usize]) -> Option<&[i64]> {
        if self.output_sizes.is_null() {
            return None;
        }
        let count = ranks.iter().sum();
        // SAFETY: the caller's contract.
        Some(unsafe { std::slice::from_raw_parts(self.output_sizes, count) })
    }
}

/// Checks each result's sizes, `sizes[i]`, against its type's static sizes
/// (`static_sizes`, one run of `sizes[i].len()` per result); says which
/// result differs otherwise.
pub fn check_static_sizes(static_sizes: &[i64], sizes: &[Vec<i64>]) -> Result<(), String> {
    let mut rest = static_sizes;
    for (index, sizes) in sizes.iter().enumerate() {
        let (expected, after) = rest.split_at(sizes.len().min(rest.len()));
        rest = after;
        let fits = expected.len() == sizes.len()
            && expected
                .iter()
                .zip(sizes)
                .all(|(expected, size)| *expected == launch_site::DYNAMIC_SIZE || expected == size);
        if !fits {
            let shown: Vec<String> = expected
                .iter()
                .map(|size| match *size {
                    launch_site::DYNAMIC_SIZE => "?".to_owned(),
                    size => size.to_string(),
                })
                .collect();
            return Err(format!(
                "result {index} has sizes {sizes:?}, where its type's are [{}]",
                shown.join(", ")
            ));
        }
    }
    Ok(())
}

impl LaunchSite {
    /// A site of `description` with an empty cache, as the lowering emits
    /// one (tests build sites by hand).
    #[cfg(test)]
    pub fn unfilled(description: Description) -> Self {
        Self {
            cache: Cache {
                sequence: AtomicU64::new(0),
                generation: AtomicU64::new(0),
                session: AtomicI64::new(0),
                address: AtomicUsize::new(0),
                entry_len: AtomicUsize::new(0),
            },
            description,
        }
    }

    /// The site at `site`; None for a null pointer.
    ///
    /// # Safety
    ///
    /// `site` must be null or point at a launch site
    /// (`executor_abi::launch_site`: writable, aligned, its cache zeroed
    /// before first use), whose cache only this type reads and writes, whose
    /// description nothing changes, and which outlives `'a`.
    pub unsafe fn from_ptr<'a>(site: *mut Self) -> Option<&'a Self> {
        // SAFETY: a launch site's words are a valid `LaunchSite` (all zeros
        // included: every field is an integer or a pointer), per the contract.
        unsafe { site.as_ref() }
    }

    /// The entry this site holds for a launch on `session`, if it is current.
    #[inline]
    pub fn lookup(&self, session: i64) -> Option<Resolved> {
        let cache = &self.cache;
        let before = cache.sequence.load(Ordering::Acquire);
        if before & 1 != 0 {
            return None;
        }
        let matches = cache.generation.load(Ordering::Relaxed) == sessions::generation()
            && cache.session.load(Ordering::Relaxed) == session;
        let resolved = Resolved {
            address: cache.address.load(Ordering::Relaxed),
            entry_len: cache.entry_len.load(Ordering::Relaxed),
        };
        // The words above were read before the counter is read again.
        fence(Ordering::Acquire);
        (matches && cache.sequence.load(Ordering::Relaxed) == before).then_some(resolved)
    }

    /// Records what a launch resolved, unless another thread is filling the
    /// site.
    pub fn fill(&self, fill: &Fill) {
        let cache = &self.cache;
        let before = cache.sequence.load(Ordering::Relaxed);
        if before & 1 != 0
            || cache
                .sequence
                .compare_exchange(before, before + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // The odd counter is seen before any of the words below change.
        fence(Ordering::Release);
        cache.generation.store(fill.generation, Ordering::Relaxed);
        cache.session.store(fill.session, Ordering::Relaxed);
        cache
            .address
            .store(fill.resolved.address, Ordering::Relaxed);
        cache
            .entry_len
            .store(fill.resolved.entry_len, Ordering::Relaxed);
        cache.sequence.store(before + 2, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use std::ptr::null;

    use super::*;

    #[test]
    fn results_are_held_to_their_types_static_sizes() {
        let dynamic = launch_site::DYNAMIC_SIZE;
        let static_sizes = [4, dynamic, 3, 7];
        let fits = [vec![4, 9, 3], vec![7]];
        assert_eq!(check_static_sizes(&static_sizes, &fits), Ok(()));
        let short = check_static_sizes(&static_sizes, &[vec![2, 9, 3], vec![7]]).unwrap_err();
        assert_eq!(
            short,
            "result 0 has sizes [2, 9, 3], where its type's are [4, ?, 3]"
        );
        let second = check_static_sizes(&static_sizes, &[vec![4, 1, 3], vec![6]]).unwrap_err();
        assert_eq!(second, "result 1 has sizes [6], where its type's are [7]");
        assert_eq!(check_static_sizes(&[], &[vec![], vec![]]), Ok(()));
    }

    /// A site with an empty cache and a description of a launch without
    /// arguments.
    fn empty_site() -> Box<LaunchSite> {
        Box::new(LaunchSite::unfilled(Description {
            entry_symbol: c"_mlir_ciface_k".as_ptr(),
            object: c"k.o".as_ptr(),
            num_inputs: 0,
            input_ranks: null(),
            input_elem_sizes: null(),
            num_outputs: 0,
            output_ranks: null(),
            output_elem_sizes: null(),
            output_sizes: null(),
        }))
    }

    fn resolved(address: usize) -> Resolved {
        Resolved {
            address,
            entry_len: 14,
        }
    }

    #[test]
    fn a_filled_site_holds_its_entry_for_its_session_until_a_session_closes() {
        let _generation = sessions::generation_test_lock();
        let site = empty_site();
        assert_eq!(site.lookup(0), None, "empty");
        site.fill(&Fill {
            generation: sessions::generation(),
            session: 3,
            resolved: resolved(0x1234),
        });
        assert_eq!(site.lookup(3), Some(resolved(0x1234)));
        assert_eq!(site.lookup(4), None, "another session");
        sessions::invalidate_cached_sites();
        assert_eq!(site.lookup(3), None, "a session closed");
    }

    #[test]
    fn a_fill_of_an_older_generation_is_never_current() {
        let _generation = sessions::generation_test_lock();
        let site = empty_site();
        // Resolved before a close that happened before the fill.
        let generation = sessions::generation();
        sessions::invalidate_cached_sites();
        site.fill(&Fill {
            generation,
            session: 3,
            resolved: resolved(1),
        });
        assert_eq!(site.lookup(3), None);
    }

    #[test]
    fn a_site_being_filled_is_neither_read_nor_filled_again() {
        let _generation = sessions::generation_test_lock();
        let site = empty_site();
        let fill = Fill {
            generation: sessions::generation(),
            session: 3,
            resolved: resolved(1),
        };
        site.fill(&fill);
        // Another thread is in the middle of a fill.
        site.cache.sequence.fetch_add(1, Ordering::SeqCst);
        assert_eq!(site.lookup(3), None);
        site.fill(&Fill { session: 4, ..fill });
        site.cache.sequence.fetch_add(1, Ordering::SeqCst);
        assert_eq!(site.lookup(3), Some(resolved(1)), "the second fill gave up");
    }
}
