//! Calling compiled entry points: a C function that takes only pointers, as
//! many as the launch has descriptors, or an ORC wrapper function (Catalyst's
//! `executor.call` callees). Every call through a raw address lives here.

use std::ffi::{CStr, c_char};

use crate::error::{Result, RuntimeError};

/// The most pointer arguments an entry can take.
pub const MAX_ARGUMENTS: usize = 16;

type P = *mut u8;

/// Calls the `void` function at `address` with `arguments`; an error if
/// there are more than [`MAX_ARGUMENTS`].
///
/// # Safety
///
/// `address` must be a function `void(T0 *, ..., Tn-1 *)` taking exactly
/// `arguments.len()` pointers, each valid for what the function does with it.
pub unsafe fn call_with_pointers(address: usize, arguments: &[P]) -> Result<()> {
    if arguments.len() > MAX_ARGUMENTS {
        return Err(RuntimeError::BadArguments(format!(
            "an entry taking {} pointers; at most {MAX_ARGUMENTS} are supported",
            arguments.len()
        )));
    }
    // SAFETY: at most MAX_ARGUMENTS pointers (checked); the rest is the
    // caller's contract.
    unsafe { call_with_few_pointers(address, arguments) };
    Ok(())
}

/// [`call_with_pointers`] for a caller that has checked the count (the
/// launch fast path, which has no error to report). Inlined: a launch of
/// an entry of none or one pointer calls it straight from there.
///
/// # Safety
///
/// As [`call_with_pointers`], and `arguments` holds at most
/// [`MAX_ARGUMENTS`] pointers.
#[inline(always)]
pub unsafe fn call_with_few_pointers(address: usize, arguments: &[P]) {
    match *arguments {
        [] => {
            // SAFETY: the caller guarantees the signature.
            let function: extern "C" fn() = unsafe { std::mem::transmute(address) };
            function()
        }
        [only] => {
            // SAFETY: the caller guarantees the signature.
            let function: extern "C" fn(P) = unsafe { std::mem::transmute(address) };
            function(only)
        }
        // SAFETY: the caller's contract.
        _ => unsafe { call_with_several_pointers(address, arguments) },
    }
}

/// [`call_with_few_pointers`] of an entry taking two pointers or more.
///
/// # Safety
///
/// As [`call_with_few_pointers`].
#[inline(never)]
unsafe fn call_with_several_pointers(address: usize, arguments: &[P]) {
    macro_rules! call {
        ($($index:literal)*) => {{
            // SAFETY: the caller guarantees the signature; all pointers are
            // passed in order, as the C calling convention expects.
            let function: extern "C" fn($(call!(@ty $index)),*) = unsafe { std::mem::transmute(address) };
            function($(arguments[$index]),*)
        }};
        (@ty $index:literal) => { P };
    }
    match arguments.len() {
        2 => call!(0 1),
        3 => call!(0 1 2),
        4 => call!(0 1 2 3),
        5 => call!(0 1 2 3 4),
        6 => call!(0 1 2 3 4 5),
        7 => call!(0 1 2 3 4 5 6),
        8 => call!(0 1 2 3 4 5 6 7),
        9 => call!(0 1 2 3 4 5 6 7 8),
        10 => call!(0 1 2 3 4 5 6 7 8 9),
        11 => call!(0 1 2 3 4 5 6 7 8 9 10),
        12 => call!(0 1 2 3 4 5 6 7 8 9 10 11),
        13 => call!(0 1 2 3 4 5 6 7 8 9 10 11 12),
        14 => call!(0 1 2 3 4 5 6 7 8 9 10 11 12 13),
        15 => call!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14),
        16 => call!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15),
        count => unreachable!("{count} pointers, not 2 to MAX_ARGUMENTS (the contract)"),
    }
}

/// What an ORC wrapper function returns (LLVM's `CWrapperFunctionResult`,
/// `CWrapperFunctionBuffer` since LLVM 22.1): its bytes inline when they fit
/// in a pointer, else in a `malloc`ed buffer the caller frees; a size of 0
/// with a non-null pointer is a `malloc`ed, NUL-terminated error message.
#[repr(C)]
struct WrapperFunctionBuffer {
    data: WrapperFunctionData,
    size: usize,
}

#[repr(C)]
union WrapperFunctionData {
    pointer: *mut c_char,
    inline: [u8; size_of::<*mut c_char>()],
}

/// Calls the ORC wrapper function at `address` with `arguments`; returns the
/// bytes it produced, or the error message it returned.
///
/// # Safety
///
/// `address` must be a function
/// `CWrapperFunctionBuffer(const char *data, size_t size)`.
pub unsafe fn call_wrapper_function(address: usize, arguments: &[u8]) -> Result<Vec<u8>> {
    // SAFETY: the caller guarantees the signature; the struct is returned by
    // value as the C calling convention returns a two-word struct.
    let function: extern "C" fn(*const c_char, usize) -> WrapperFunctionBuffer =
        unsafe { std::mem::transmute(address) };
    let result = function(arguments.as_ptr().cast(), arguments.len());
    // SAFETY: the fields are read as the wrapper-function ABI defines them:
    // the size says which member of the union is live, and a heap pointer is
    // the caller's to free, once.
    unsafe {
        if result.size <= size_of::<*mut c_char>() {
            if result.size == 0 && !result.data.pointer.is_null() {
                let message = CStr::from_ptr(result.data.pointer)
                    .to_string_lossy()
                    .into_owned();
                libc::free(result.data.pointer.cast());
                return Err(RuntimeError::CallFailed(message));
            }
            return Ok(result.data.inline[..result.size].to_vec());
        }
        let bytes = std::slice::from_raw_parts(result.data.pointer.cast::<u8>(), result.size);
        let owned = bytes.to_vec();
        libc::free(result.data.pointer.cast());
        Ok(owned)
    }
}
