//! A host process that outlives its server: through the runtime's C ABI, as
//! lowered programs call it, `executor.open` of an address whose session
//! ended (the server restarted) starts a new session, which loads its
//! binaries again, and closing the ended one is no error. A failure here
//! ends this test process with the runtime's one line, as it would a host.

mod common;

use std::{
    ffi::{CString, c_char},
    process::Command,
};

use common::{SERVER, Server, compile_kernels};
use executor_runtime::c_api::{
    __catalyst__executor__await, __catalyst__executor__close, __catalyst__executor__launch_async,
    __catalyst__executor__open, __catalyst__executor__send_binary,
};

/// A shared library, as `executor.send_binary` formats it.
const SHARED_LIBRARY: u32 = 2;

fn open(address: &CString) -> i64 {
    // SAFETY: a NUL-terminated string that outlives the call.
    unsafe { __catalyst__executor__open(address.as_ptr()) }
}

/// Sends the library and runs its `warm_up` asynchronously, awaited.
fn use_session(session: i64, library: &CString) {
    let entry: *const c_char = c"warm_up".as_ptr();
    // SAFETY: NUL-terminated strings that outlive the calls.
    unsafe {
        __catalyst__executor__send_binary(session, library.as_ptr(), SHARED_LIBRARY);
        let token = __catalyst__executor__launch_async(session, entry, library.as_ptr());
        __catalyst__executor__await(token);
    }
}

#[test]
fn open_after_a_server_restart_starts_a_new_session() {
    let scratch = tempfile::tempdir().unwrap();
    let library = CString::new(compile_kernels(scratch.path()).to_str().unwrap()).unwrap();
    let first = Server::start(&[]);
    let address = CString::new(first.address.clone()).unwrap();

    let before = open(&address);
    use_session(before, &library);
    assert_eq!(
        open(&address),
        before,
        "open is idempotent per live address"
    );

    // The server restarts on the same port.
    let listen = first.address.clone();
    drop(first);
    let work_dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(SERVER);
    command.args(["--listen", &listen]);
    let second = Server::spawn(command, work_dir.path());

    let after = open(&address);
    assert_ne!(after, before, "the ended session is not returned");
    use_session(after, &library);
    let stored = std::fs::read_dir(&second.session_dirs()[0])
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().file_name() == "binary-0.so")
        .count();
    assert_eq!(stored, 1, "the library was sent to the new session");

    assert_eq!(__catalyst__executor__close(before), 0);
    assert_eq!(
        open(&address),
        after,
        "closing the old one left the new one"
    );
    assert_eq!(__catalyst__executor__close(after), 0);
    second.assert_sessions_cleaned_up();
}
