//! Calls of an entry the general path has already resolved on the embedded
//! executor, under the crash guard: what the launch fast path ends in.

use std::ffi::c_void;

use executor_abi::descriptor;

use super::{crash, invoke::call_with_few_pointers};
use crate::memref::Descriptor;

pub use super::invoke::MAX_ARGUMENTS;

/// Calls the C-interface entry at `address`, whose symbol is the
/// `symbol_len` bytes at `symbol`, with the `num_inputs` pointers at
/// `inputs` (one per input descriptor), under the crash guard. Not inlined,
/// and `extern "C"` (it cannot unwind), so that a launch site's hit path
/// ends in a jump here: only this function keeps a frame across the kernel
/// (the crash record to restore after it).
///
/// # Safety
///
/// `address` must be an entry of the embedded executor that takes exactly
/// these pointers, at most [`MAX_ARGUMENTS`], each a live descriptor; the
/// symbol's bytes must be UTF-8; all of it must stay for the call.
#[inline(never)]
pub unsafe extern "C" fn call_entry(
    address: usize,
    symbol: *const u8,
    symbol_len: usize,
    inputs: *const *mut u8,
    num_inputs: usize,
) {
    // SAFETY: UTF-8 bytes and `num_inputs` pointers that stay for the call
    // (the contract); a dangling `inputs` is fine for none.
    let (symbol, inputs) = unsafe {
        (
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(symbol, symbol_len)),
            std::slice::from_raw_parts(inputs, num_inputs),
        )
    };
    let Some(record) = crash::recent_record() else {
        // SAFETY: the contract.
        return unsafe { call_entry_set_up(address, symbol, inputs) };
    };
    // SAFETY: the kernel takes exactly these pointers, at most MAX_ARGUMENTS
    // (the contract).
    crash::guard_with(record, symbol, || unsafe {
        call_with_few_pointers(address, inputs)
    });
}

/// [`call_entry`] when this thread's crash record is not found by its thread
/// pointer (its first kernel, or crashes not reported): out of line, so
/// that the launches of a thread set up save few registers.
///
/// # Safety
///
/// As [`call_entry`].
#[cold]
#[inline(never)]
unsafe fn call_entry_set_up(address: usize, symbol: &str, inputs: &[*mut u8]) {
    // SAFETY: the kernel takes exactly these pointers, at most MAX_ARGUMENTS
    // (the contract).
    crash::guard(symbol, || unsafe {
        call_with_few_pointers(address, inputs)
    });
}

/// [`call_entry`] of an entry with one result, whose descriptor (of rank
/// `output_rank` and element size `output_elem_size`) the kernel fills.
/// Not inlined: the launches without results stay short.
///
/// # Safety
///
/// As [`call_entry`], for an entry that takes the result's descriptor first:
/// `inputs` and `output_desc` live descriptors, at most `MAX_ARGUMENTS - 1`
/// inputs.
#[inline(never)]
pub unsafe fn call_entry_with_result(
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
                .any(|input| *input.cast::<*mut u8>() == allocated)
            || super::static_memory::holds(allocated);
        if shared {
            // A buffer the kernel does not hand over: the host gets a copy.
            output.take_own_copy();
        }
    }
}
