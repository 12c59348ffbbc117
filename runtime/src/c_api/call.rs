//! The entry points of `executor.call`: call a symbol of a loaded library
//! with a packed argument buffer, and release the result buffer.

use std::ffi::{c_char, c_void};

use executor_abi::call_buffer;

use super::{arguments::text, report::Call};
use crate::error::RuntimeError;

/// What `executor.call` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// - `symbol` must be null (reported as an error) or point at a
///   NUL-terminated string.
/// - `args_buf` must be null (reported) or point at `args_size` readable
///   bytes, not counting bit 63 of `args_size`, which says the layout is this
///   project's; the contents of this project's layout are checked
///   (docs/runtime-abi.md), Catalyst's are the callee's to read.
/// - `out_buf` and `out_size` must each be null (reported) or point at a
///   writable `void *` and `size_t`. On success they receive a buffer that
///   the caller releases with `__catalyst__executor__free_result`, once.
/// - All of it must stay valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__call_wrapper(
    session: i64,
    symbol: *const c_char,
    args_buf: *const c_char,
    args_size: usize,
    out_buf: *mut *mut c_void,
    out_size: *mut usize,
) -> i32 {
    Call::new("__catalyst__executor__call_wrapper").run(|call| {
        let session = call.session(session)?;
        // SAFETY: `symbol` is null or a NUL-terminated string (the contract).
        let symbol = unsafe { text(symbol, "the symbol") }?;
        call.symbol = Some(symbol.into());
        if args_buf.is_null() || out_buf.is_null() || out_size.is_null() {
            return Err(RuntimeError::BadArguments("a null buffer pointer".into()));
        }
        // Bit 63 of the size tells this project's layout from Catalyst's.
        let (layout, args_len) = call_buffer::decode_args_size(args_size as u64);
        // SAFETY: `args_buf`, not null, points at `args_len` bytes (the contract).
        let arguments =
            unsafe { std::slice::from_raw_parts(args_buf.cast::<u8>(), args_len as usize) };
        let _deadline = call.deadline(&session)?;
        let outputs = session.executor.call(symbol, layout, arguments)?;
        // SAFETY: malloc of at least one byte, checked; the caller releases it
        // with __catalyst__executor__free_result.
        let buffer = unsafe { libc::malloc(outputs.len().max(1)) }.cast::<u8>();
        if buffer.is_null() {
            return Err(RuntimeError::OutOfMemory {
                bytes: outputs.len(),
            });
        }
        // SAFETY: the buffer has room for the outputs; the out-pointers, not
        // null, are writable (the contract).
        unsafe {
            std::ptr::copy_nonoverlapping(outputs.as_ptr(), buffer, outputs.len());
            *out_buf = buffer.cast();
            *out_size = outputs.len();
        }
        Ok(0)
    })
}

/// What the lowering of `executor.call` calls to release `call_wrapper`'s
/// result buffer; see include/executor_runtime.h.
///
/// # Safety
///
/// `buf` must be null (then nothing happens) or a buffer that
/// `__catalyst__executor__call_wrapper` stored in `*out_buf` and that has not
/// been released yet; it must not be used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__free_result(buf: *mut c_void) {
    // SAFETY: `buf` is null or call_wrapper's `malloc`ed buffer, released
    // once (the contract).
    unsafe { libc::free(buf) }
}
