//! The pointer arguments of the C entry points, read and checked: a null or
//! malformed one is reported, never dereferenced.

use std::ffi::{CStr, c_char, c_void};

use crate::{
    error::{Result, RuntimeError},
    memref::Descriptor,
};

/// A NUL-terminated string argument.
///
/// # Safety
///
/// `text` must be null or point at a NUL-terminated string that outlives the call.
pub unsafe fn text<'a>(text: *const c_char, what: &str) -> Result<&'a str> {
    if text.is_null() {
        return Err(RuntimeError::BadArguments(format!(
            "{what} is a null pointer"
        )));
    }
    // SAFETY: per the contract.
    unsafe { CStr::from_ptr(text) }
        .to_str()
        .map_err(|_| RuntimeError::BadArguments(format!("{what} is not UTF-8")))
}

/// The descriptors of one side of a launch.
///
/// # Safety
///
/// With `count > 0`, the three arrays hold `count` entries each and every
/// descriptor pointer points at a descriptor of the given rank.
pub unsafe fn descriptors(
    count: usize,
    descriptors: *const *mut c_void,
    ranks: *const usize,
    sizes: *const usize,
) -> Result<Vec<Descriptor>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if descriptors.is_null() || ranks.is_null() || sizes.is_null() {
        return Err(RuntimeError::BadArguments(format!(
            "{count} descriptors but a null array"
        )));
    }
    (0..count)
        .map(|index| {
            // SAFETY: per the contract, index < count.
            let (descriptor, rank, size) = unsafe {
                (
                    *descriptors.add(index),
                    *ranks.add(index),
                    *sizes.add(index),
                )
            };
            if descriptor.is_null() {
                return Err(RuntimeError::BadArguments(format!(
                    "descriptor #{index} is a null pointer"
                )));
            }
            // SAFETY: per the contract.
            Ok(unsafe { Descriptor::from_raw(descriptor.cast(), rank, size) })
        })
        .collect()
}
