//! The entry points that open a session, load a binary into it and close
//! it.

use std::ffi::c_char;

use super::{arguments::text, report::Call};
use crate::{executor, sessions, trace};

/// What `executor.open` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `addr` must be null (reported as an error) or point at a NUL-terminated
/// string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__open(addr: *const c_char) -> i64 {
    Call::new("__catalyst__executor__open").run(|call| {
        // SAFETY: `addr` is null or a NUL-terminated string (the contract).
        let address = unsafe { text(addr, "the address") }?;
        call.address = Some(address);
        let handle = sessions::open(address)?;
        call.handle = Some(handle);
        Ok(handle)
    })
}

/// What `executor.send_binary` lowers to; see include/executor_runtime.h.
///
/// # Safety
///
/// `path` must be null (reported as an error) or point at a NUL-terminated
/// string that stays valid for the whole call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __catalyst__executor__send_binary(
    session: i64,
    path: *const c_char,
    format: u32,
) -> i64 {
    Call::new("__catalyst__executor__send_binary").run(|call| {
        let session = call.session(session)?;
        // SAFETY: `path` is null or a NUL-terminated string (the contract).
        let path = unsafe { text(path, "the binary path") }?;
        call.path = Some(path);
        if trace::active() {
            let size = std::fs::metadata(path).map_or(0, |metadata| metadata.len());
            call.bytes = Some((size, 0));
        }
        session
            .executor
            .send_binary(path, executor::binary_format(format)?)?;
        Ok(0)
    })
}

/// What `executor.close` lowers to; see include/executor_runtime.h.
#[unsafe(no_mangle)]
pub extern "C" fn __catalyst__executor__close(session: i64) -> i64 {
    Call::new("__catalyst__executor__close").run(|call| {
        call.session(session)?;
        let (session, unawaited) = sessions::remove(session)?;
        // Closing waits for the launches never awaited, within the same
        // deadline as an await of them.
        let _deadline = match unawaited.as_slice() {
            [] => None,
            entries => call.deadline_saying(&session, |limit| {
                format!(
                    "async launches never awaited did not finish within {limit}; abandoned: {}",
                    entries.join(", ")
                )
            })?,
        };
        session.executor.close()?;
        Ok(0)
    })
}
