//! The embedded executor's launch fast path: a launch whose entry is already
//! resolved runs it straight away ([`run_resolved`]): no session table, no
//! hashing of names, no allocation, no clock read. The entry comes from the
//! launch site's own cache (`launch_site`, what lowered code passes) or,
//! for a caller of the classic `__catalyst__executor__launch`, from a small
//! per-thread cache of the sites this thread ran before (the same session,
//! entry and object, as pointers and as text). Everything else (the first
//! launch of a site, logging, Catalyst's entries, several results, a launch
//! deadline) takes the general path, which fills the caches when it may.
//!
//! A session that closes makes every cached site stale ([`invalidate`]);
//! session handles are never reused, and an object's code stays where it is
//! while its session is open.

use std::{
    cell::RefCell,
    ffi::{CStr, c_char, c_void},
    sync::atomic::{AtomicU64, Ordering},
};

use executor_abi::{EntryConvention, descriptor};

use super::{
    crash,
    invoke::{MAX_ARGUMENTS, call_with_few_pointers},
    launch_site::Description,
};
use crate::{abi::CALL_LOG_TARGET, memref::Descriptor};

/// Bumped whenever a session closes; a site cached under an older value is
/// stale. It starts at 1, so that an empty launch site (all zeros) is stale.
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// Makes every cached site, of every thread and every launch site, stale.
pub fn invalidate() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// The current generation. A launch reads it before it looks its session up,
/// and caches what it resolves under that value: a session closed after that
/// makes the entry stale at once.
#[inline]
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// Serializes the unit tests that bump the generation or depend on it not
/// moving.
#[cfg(test)]
pub fn generation_test_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

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

/// Whether a launch of `entry` with `num_inputs` arguments and
/// `num_outputs` results may take the fast path at all: the C-interface
/// convention with at most one result, whose descriptor the kernel fills in
/// place, no more pointers than [`call_with_few_pointers`] passes, and
/// nothing to log (the target each call is logged under,
/// [`CALL_LOG_TARGET`], has its debug lines off, whatever the filter says of
/// this module). (A session with a launch deadline to arm never takes it:
/// its caller checks, since the deadline is fixed per session.)
pub fn qualifies(entry: &str, num_inputs: usize, num_outputs: usize) -> bool {
    has_fast_shape(num_inputs, num_outputs)
        && EntryConvention::of_entry_symbol(entry) != Some(EntryConvention::CatalystPyface)
        && !tracing::enabled!(target: CALL_LOG_TARGET, tracing::Level::DEBUG)
}

/// Whether the fast path passes this many arguments and results.
#[inline]
fn has_fast_shape(num_inputs: usize, num_outputs: usize) -> bool {
    num_outputs <= 1 && num_inputs <= MAX_ARGUMENTS - num_outputs
}

/// Whether the NUL-terminated `text` is `expected` (NUL included).
///
/// # Safety
///
/// `text` must point at a NUL-terminated string.
unsafe fn same_text(text: *const c_char, expected: &[u8]) -> bool {
    // Byte by byte up to the first difference: never past `text`'s NUL.
    expected
        .iter()
        .enumerate()
        // SAFETY: every byte read is at or before the NUL (the loop stops at
        // the first byte that differs, and `expected` ends with a NUL).
        .all(|(index, byte)| unsafe { *text.add(index).cast::<u8>() } == *byte)
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
        let current = site.generation == generation()
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
    unsafe { run_resolved(address, entry_len, description, input_descs, output_descs) }
}

/// Runs a launch of the C-interface entry at `address`, whose symbol is the
/// first `entry_len` bytes of the description's entry; false, having run
/// nothing, if the general path must run it (logging is on, the launch has
/// more results or arguments than this path passes, or a null array or
/// descriptor, which the general path reports).
///
/// # Safety
///
/// `address` must be the entry that the general path resolved for this
/// launch's session, entry and object, in a generation that is still
/// current; the entry's first `entry_len` bytes must be UTF-8 and stay
/// there for the whole call. The rest is as `__catalyst__executor__launch`'s
/// contract: each array is null or holds `num_inputs`/`num_outputs`
/// entries, and each descriptor is null or live, of the given rank and
/// element size.
#[inline]
pub unsafe fn run_resolved(
    address: usize,
    entry_len: usize,
    description: &Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) -> bool {
    // SAFETY: the shape was just checked; the rest is the contract.
    has_fast_shape(description.num_inputs, description.num_outputs)
        && unsafe { run_qualified(address, entry_len, description, input_descs, output_descs) }
}

/// [`run_resolved`] for a launch whose shape [`qualifies`] said yes to when
/// its entry was resolved: a launch site's, whose description never changes.
/// Inlined into the launch site's hit path, which is then one function up to
/// the kernel's call, reading each word of the description where it needs it.
///
/// # Safety
///
/// As [`run_resolved`], and at most one result and `MAX_ARGUMENTS` pointers
/// in all.
#[inline(always)]
pub unsafe fn run_qualified(
    address: usize,
    entry_len: usize,
    description: &Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) -> bool {
    if tracing::enabled!(target: CALL_LOG_TARGET, tracing::Level::DEBUG) {
        return false;
    }
    let num_inputs = description.num_inputs;
    // The C-interface wrapper takes one pointer per input descriptor: the
    // caller's array as it is, nothing to copy. A null array or descriptor
    // is the general path's to report.
    let inputs: &[*mut u8] = if num_inputs == 0 {
        &[]
    } else if input_descs.is_null() {
        return false;
    } else {
        // SAFETY: a non-null array of `num_inputs` input descriptors (the
        // contract).
        unsafe { std::slice::from_raw_parts(input_descs.cast(), num_inputs) }
    };
    if inputs.iter().any(|input| input.is_null()) {
        return false;
    }
    // SAFETY: UTF-8 bytes that stay for the call (the contract).
    let symbol = unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(
            description.entry_symbol.cast(),
            entry_len,
        ))
    };
    if description.num_outputs == 0 {
        // SAFETY: the kernel takes exactly these pointers (the convention),
        // at most MAX_ARGUMENTS (the contract).
        crash::guard(symbol, || unsafe {
            call_with_few_pointers(address, inputs)
        });
        return true;
    }
    let (ranks, elem_sizes) = (description.output_ranks, description.output_elem_sizes);
    if output_descs.is_null() || ranks.is_null() || elem_sizes.is_null() {
        return false;
    }
    // SAFETY: non-null arrays of one entry each (the contract).
    let (output, rank, elem_size) = unsafe { (*output_descs, *ranks, *elem_sizes) };
    if output.is_null() {
        return false;
    }
    // SAFETY: a live output descriptor of that rank and element size, and at
    // most MAX_ARGUMENTS - 1 live input descriptors (the contract).
    unsafe { run_with_result(address, symbol, inputs, output, rank, elem_size) };
    true
}

/// [`run_resolved`] for a launch with one result, whose descriptor (of rank
/// `output_rank` and element size `output_elem_size`) the kernel fills.
/// Not inlined: the launches without results stay short.
///
/// # Safety
///
/// As [`run_resolved`]: `inputs` and `output_desc` live descriptors, at most
/// `MAX_ARGUMENTS - 1` inputs.
#[inline(never)]
unsafe fn run_with_result(
    address: usize,
    symbol: &str,
    inputs: &[*mut u8],
    output_desc: *mut c_void,
    output_rank: usize,
    output_elem_size: usize,
) {
    // The C-interface wrapper: the result's descriptor first (the kernel
    // fills it), then one pointer per input descriptor.
    let mut pointers = [std::ptr::null_mut::<u8>(); MAX_ARGUMENTS];
    pointers[0] = output_desc.cast();
    pointers[1..=inputs.len()].copy_from_slice(inputs);
    // SAFETY: the kernel takes exactly these pointers (the convention), at
    // most MAX_ARGUMENTS (the contract).
    crash::guard(symbol, || unsafe {
        call_with_few_pointers(address, &pointers[..=inputs.len()])
    });
    // SAFETY: the output descriptor the kernel filled, of its rank and
    // element size; the inputs' first words are their `allocated` pointers.
    unsafe {
        let output = Descriptor::from_raw(output_desc.cast(), output_rank, output_elem_size);
        let allocated = output.allocated();
        let shared = allocated as usize == descriptor::GLOBAL_BUFFER
            || inputs
                .iter()
                .any(|input| *input.cast::<*mut u8>() == allocated);
        if shared {
            // A buffer the kernel does not hand over: the host gets a copy.
            output.take_own_copy();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    /// The description of a launch of `entry` in `object` with `num_inputs`
    /// inputs and no result (the fast path reads no ranks or sizes of inputs).
    fn description(entry: *const c_char, object: *const c_char, num_inputs: usize) -> Description {
        Description {
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

    extern "C" fn count_call() {
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    /// Runs a launch without inputs or results of the site at `entry`.
    fn launch(session: i64, entry: &[u8], object: &[u8]) -> bool {
        // SAFETY: both are NUL-terminated; no descriptors.
        unsafe {
            run(
                session,
                &description(entry.as_ptr().cast(), object.as_ptr().cast(), 0),
                std::ptr::null(),
                std::ptr::null(),
            )
        }
    }

    static INPUT_CALLS: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn count_input_call(_input: *mut u8) {
        INPUT_CALLS.fetch_add(1, Ordering::SeqCst);
    }

    /// Runs the resolved entry `count_input_call` with `num_inputs` inputs
    /// from `inputs` and no result.
    fn run_with_inputs(num_inputs: usize, inputs: *const *mut c_void) -> bool {
        let entry = b"count_input_call";
        // SAFETY: the entry takes one pointer, which it does not read; the
        // symbol is ASCII; `inputs` is null or holds `num_inputs` pointers.
        unsafe {
            run_resolved(
                count_input_call as *const () as usize,
                entry.len(),
                &description(entry.as_ptr().cast(), c"k.o".as_ptr(), num_inputs),
                inputs,
                std::ptr::null(),
            )
        }
    }

    #[test]
    fn a_null_input_array_or_descriptor_is_left_to_the_general_path() {
        let before = INPUT_CALLS.load(Ordering::SeqCst);
        assert!(!run_with_inputs(1, std::ptr::null()), "a null array");
        let null_descriptor = [std::ptr::null_mut::<c_void>()];
        assert!(
            !run_with_inputs(1, null_descriptor.as_ptr()),
            "a null descriptor"
        );
        assert_eq!(INPUT_CALLS.load(Ordering::SeqCst), before, "nothing ran");
        let mut descriptor = [0u64; 5];
        let live = [descriptor.as_mut_ptr().cast::<c_void>()];
        assert!(run_with_inputs(1, live.as_ptr()));
        assert_eq!(INPUT_CALLS.load(Ordering::SeqCst), before + 1);
    }

    #[test]
    fn a_cached_site_runs_until_its_text_changes_or_a_session_closes() {
        let _generation = generation_test_lock();
        let mut entry = *b"_mlir_ciface_count\0";
        let object = *b"k.o\0";
        assert!(!launch(7, &entry, &object), "nothing cached yet");
        // SAFETY: NUL-terminated ASCII.
        unsafe {
            remember(
                generation(),
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
        invalidate();
        assert!(!launch(7, &entry, &object), "a session closed");
        assert_eq!(CALLS.load(Ordering::SeqCst), before + 2);
    }
}
