//! The launch fast path: a launch whose entry is already resolved on the
//! embedded executor (by a launch site's cache or this thread's) runs it
//! straight away: no session table, no hashing of names, no allocation, no
//! clock read. Everything else (the first launch of a site, logging,
//! Catalyst's entries, several results, a launch deadline) takes the general
//! path, which fills the caches when it may.

use std::ffi::c_void;

use executor_abi::EntryConvention;

use super::{report::CALL_LOG_TARGET, site_cache::Description};
use crate::local::direct_call::{self, MAX_ARGUMENTS};

/// Whether a launch of `entry` with `num_inputs` arguments and
/// `num_outputs` results may take the fast path at all: the C-interface
/// convention with at most one result, whose descriptor the kernel fills in
/// place, at most [`MAX_ARGUMENTS`] pointers in all, and
/// nothing to log (the target each call is logged under,
/// [`CALL_LOG_TARGET`], has its debug lines off, whatever the filter says of
/// this module), nothing to trace (`crate::trace`). (A session with a launch
/// deadline to arm never takes it:
/// its caller checks, since the deadline is fixed per session.)
pub fn qualifies(entry: &str, num_inputs: usize, num_outputs: usize) -> bool {
    has_fast_shape(num_inputs, num_outputs)
        && EntryConvention::of_entry_symbol(entry) != Some(EntryConvention::CatalystPyface)
        && !logging()
        // Traced launches are recorded by the general path: no cache is
        // filled while tracing is on (it is from the first call on), so no
        // launch takes this path then.
        && !crate::trace::active()
}

/// Whether the fast path passes this many arguments and results.
#[inline]
fn has_fast_shape(num_inputs: usize, num_outputs: usize) -> bool {
    num_outputs <= 1 && num_inputs <= MAX_ARGUMENTS - num_outputs
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
    // SAFETY: the shape was just checked, nothing is logged; the rest is
    // the contract.
    has_fast_shape(description.num_inputs, description.num_outputs)
        && !logging()
        && unsafe { run_unlogged(address, entry_len, description, input_descs, output_descs) }
}

/// [`run_resolved`] of a launch that is not logged, whose shape
/// [`qualifies`] said yes to when its entry was resolved (a cached one,
/// whose description is the same).
///
/// # Safety
///
/// As [`run_resolved`], and at most one result and `MAX_ARGUMENTS` pointers
/// in all.
#[inline(always)]
pub unsafe fn run_unlogged(
    address: usize,
    entry_len: usize,
    description: &Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) -> bool {
    if description.num_outputs != 0 {
        // SAFETY: the contract.
        return unsafe {
            run_with_result(address, entry_len, description, input_descs, output_descs)
        };
    }
    // SAFETY: the contract.
    let Some(inputs) = (unsafe { input_pointers(description.num_inputs, input_descs) }) else {
        return false;
    };
    // SAFETY: the resolved entry takes exactly these pointers, at most
    // MAX_ARGUMENTS; its symbol is UTF-8 and stays for the call (the
    // contract).
    unsafe {
        direct_call::call_entry(
            address,
            description.entry_symbol.cast(),
            entry_len,
            inputs.as_ptr(),
            inputs.len(),
        )
    };
    true
}

/// Whether launches are logged now ([`CALL_LOG_TARGET`]'s debug lines are
/// on): they take the general path, which logs them. Checked on every
/// launch, not only when a cache is filled: a thread may set a dispatcher of
/// its own later.
#[inline(always)]
pub fn logging() -> bool {
    debug_lines_possible() && logging_here()
}

/// Whether some dispatcher may enable debug lines: otherwise no launch is
/// logged ([`logging`]), which one load and a compare tell.
#[inline(always)]
pub fn debug_lines_possible() -> bool {
    tracing::level_filters::LevelFilter::current() >= tracing::Level::DEBUG
}

/// [`logging`] once some dispatcher may enable debug lines: whether this
/// thread's enables those of [`CALL_LOG_TARGET`].
#[cold]
#[inline(never)]
fn logging_here() -> bool {
    tracing::enabled!(target: CALL_LOG_TARGET, tracing::Level::DEBUG)
}

/// The pointers a C-interface entry takes for the inputs: the caller's array
/// as it is, nothing to copy; None (the general path reports it) for a null
/// array or descriptor.
///
/// # Safety
///
/// `input_descs` is null or holds `num_inputs` pointers, which stay for
/// `'a`.
#[inline(always)]
unsafe fn input_pointers<'a>(
    num_inputs: usize,
    input_descs: *const *mut c_void,
) -> Option<&'a [*mut u8]> {
    let inputs: &[*mut u8] = if num_inputs == 0 {
        &[]
    } else if input_descs.is_null() {
        return None;
    } else {
        // SAFETY: a non-null array of `num_inputs` input descriptors (the
        // contract).
        unsafe { std::slice::from_raw_parts(input_descs.cast(), num_inputs) }
    };
    (!inputs.iter().any(|input| input.is_null())).then_some(inputs)
}

/// The entry's symbol, the first `entry_len` bytes of the description's.
///
/// # Safety
///
/// Those bytes are UTF-8 and stay for `'a`.
#[inline(always)]
unsafe fn symbol<'a>(description: &Description, entry_len: usize) -> &'a str {
    // SAFETY: the contract.
    unsafe {
        std::str::from_utf8_unchecked(std::slice::from_raw_parts(
            description.entry_symbol.cast(),
            entry_len,
        ))
    }
}

/// [`run_unlogged`] of a launch with one result.
///
/// # Safety
///
/// As [`run_unlogged`], for a description of one result.
unsafe fn run_with_result(
    address: usize,
    entry_len: usize,
    description: &Description,
    input_descs: *const *mut c_void,
    output_descs: *const *mut c_void,
) -> bool {
    // SAFETY: the contract.
    let Some(inputs) = (unsafe { input_pointers(description.num_inputs, input_descs) }) else {
        return false;
    };
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
    // most MAX_ARGUMENTS - 1 live input descriptors; the symbol is UTF-8
    // and stays for the call (the contract).
    unsafe {
        direct_call::call_entry_with_result(
            address,
            symbol(description, entry_len),
            inputs,
            output,
            rank,
            elem_size,
        )
    };
    true
}

#[cfg(test)]
mod tests {
    use std::{
        ffi::c_void,
        sync::atomic::{AtomicUsize, Ordering},
    };

    use super::*;

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
                &Description::without_results(entry.as_ptr().cast(), c"k.o".as_ptr(), num_inputs),
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
}
