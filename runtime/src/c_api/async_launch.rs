//! The entry points of asynchronous launches: start one, await its token.

use std::ffi::c_char;

use super::{arguments::text, report::Call};
use crate::sessions;

/// What `executor.launch_async` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `entry_symbol` and `object` must each be null (reported as an error) or
/// point at a NUL-terminated string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__launch_async(
    session: i64,
    entry_symbol: *const c_char,
    object: *const c_char,
) -> i64 {
    Call::new("__catalyst__executor__launch_async").run(|call| {
        let handle = session;
        let session = call.session(handle)?;
        // SAFETY: both are null or NUL-terminated strings (the contract).
        let (entry, object) = unsafe {
            (
                text(entry_symbol, "the entry symbol")?,
                text(object, "the object")?,
            )
        };
        call.symbol = Some(entry.into());
        let executor_token = session.executor.launch_async(entry, object)?;
        let token = sessions::add_launch(handle, executor_token, entry);
        call.token = Some(token);
        Ok(token)
    })
}

/// What `executor.await` lowers to; see include/executor_runtime.h.
#[unsafe(no_mangle)]
pub extern "C" fn __catalyst__executor__await(token: i64) {
    Call::new("__catalyst__executor__await").run(|call| {
        let (handle, executor_token, entry) = sessions::take_launch(token)?;
        call.token = Some(token);
        let session = call.session(handle)?;
        call.symbol = Some(entry.into());
        let _deadline = call.deadline(&session)?;
        session.executor.await_launch(executor_token)
    })
}
