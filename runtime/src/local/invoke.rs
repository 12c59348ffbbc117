//! Calling compiled entry points: a C function that takes only pointers, as
//! many as the launch has descriptors. Every call through a raw address lives
//! here.

use crate::error::{Result, RuntimeError};

/// The most pointer arguments an entry can take.
pub const MAX_ARGUMENTS: usize = 16;

type P = *mut u8;

/// Calls the `void` function at `address` with `arguments`.
///
/// # Safety
///
/// `address` must be a function `void(T0 *, ..., Tn-1 *)` taking exactly
/// `arguments.len()` pointers, each valid for what the function does with it.
pub unsafe fn call_with_pointers(address: usize, arguments: &[P]) -> Result<()> {
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
        0 => call!(),
        1 => call!(0),
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
        count => {
            return Err(RuntimeError::BadArguments(format!(
                "an entry taking {count} pointers; at most {MAX_ARGUMENTS} are supported"
            )));
        }
    }
    Ok(())
}
