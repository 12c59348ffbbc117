//! executor-server on a Unix-domain socket (`--listen unix:PATH`): sessions
//! as on TCP, the socket file's mode and life, and the peer's uid checked
//! against `--allow-uid`. Each test makes its socket file in a directory of
//! its own.

use std::{
    os::unix::{
        fs::{FileTypeExt, PermissionsExt},
        net::UnixListener,
    },
    path::{Path, PathBuf},
    process::{Command, Output, Stdio},
    time::{Duration, Instant},
};

use executor_runtime::{
    error::RuntimeError,
    executor::{BinaryFormat, Executor},
    memref::{DenseBuffer, OwnedDescriptor},
    remote::{ConnectOptions, RemoteExecutor},
};

mod common;

use common::{SERVER, Server, check, compile_kernels, floats, token_file};

/// A server listening on `socket` only, with `args` besides.
fn start_on(socket: &Path, work_dir: &Path, args: &[&str]) -> Server {
    let mut command = Command::new(SERVER);
    command
        .arg("--listen")
        .arg(format!("unix:{}", socket.display()))
        .args(args);
    let server = Server::spawn(command, work_dir);
    assert_eq!(server.address, format!("unix:{}", socket.display()));
    server
}

/// What a server that must refuse to start said, after checking it failed.
fn refusal(output: Output) -> String {
    assert!(!output.status.success(), "the server started");
    String::from_utf8_lossy(&output.stderr).trim().to_owned()
}

fn own_uid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// Launches `_mlir_ciface_add` on `a` and `b` and reads the sum back.
fn add(session: &RemoteExecutor, object: &str, a: &[f32], b: &[f32]) -> DenseBuffer {
    let mut inputs = [
        OwnedDescriptor::from_dense(floats(a)),
        OwnedDescriptor::from_dense(floats(b)),
    ];
    let inputs: Vec<_> = inputs.iter_mut().map(OwnedDescriptor::descriptor).collect();
    let mut output = OwnedDescriptor::empty(1, 4);
    let output = output.descriptor();
    session
        .launch("_mlir_ciface_add", object, &inputs, &[output])
        .unwrap();
    let result = output.to_dense();
    // SAFETY: the client filled the output with a malloc'ed buffer it hands over.
    unsafe { libc::free(output.allocated().cast()) };
    result
}

#[test]
fn a_session_over_a_unix_socket_runs_kernels_and_a_crash_ends_only_it() {
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let socket = scratch.path().join("executor.sock");
    let server = start_on(&socket, scratch.path(), &[]);

    let session = server.connect().unwrap();
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    assert_eq!(
        add(&session, object, &[1.0, 2.0], &[10.0, 20.0]),
        floats(&[11.0, 22.0])
    );
    let crashed = session
        .launch("_mlir_ciface_segv", object, &[], &[])
        .unwrap_err();
    assert!(
        matches!(
            crashed,
            RuntimeError::KernelCrashed {
                signal: libc::SIGSEGV,
                ..
            }
        ),
        "{crashed}"
    );
    // The server goes on: the next session works.
    let next = server.connect().unwrap();
    next.send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    assert_eq!(add(&next, object, &[1.0], &[1.0]), floats(&[2.0]));
    next.close().unwrap();
    server.assert_sessions_cleaned_up();
}

#[test]
fn the_socket_file_is_private_and_removed_when_the_server_stops() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    let mut server = start_on(&socket, scratch.path(), &[]);
    let metadata = std::fs::metadata(&socket).unwrap();
    assert!(metadata.file_type().is_socket());
    assert_eq!(metadata.permissions().mode() & 0o777, 0o600);

    // SAFETY: kill sends a signal to the server this test started.
    unsafe { libc::kill(server.process.id() as i32, libc::SIGTERM) };
    assert!(server.process.wait().unwrap().success());
    assert!(!socket.exists(), "the socket file is left behind");
}

#[test]
fn a_uid_not_allowed_is_refused_in_one_line_naming_it() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    // 4242: not this test's uid, so this test's process is not allowed.
    assert_ne!(own_uid(), 4242);
    let server = start_on(&socket, scratch.path(), &["--allow-uid", "4242"]);
    let spare = server.session_dirs();
    let refused = server.connect().err().unwrap().to_string();
    assert_eq!(
        refused,
        format!(
            "the executor reported: the executor at {} refused the session: uid {} is not \
             allowed on this server's socket (executor-server --allow-uid)",
            server.address,
            own_uid()
        )
    );
    assert_eq!(server.session_dirs(), spare, "no directory is taken");
}

#[test]
fn allowed_uids_need_no_token_and_one_sent_is_ignored() {
    let scratch = tempfile::tempdir().unwrap();
    let token = token_file(scratch.path(), "correct horse\n");
    let socket = scratch.path().join("executor.sock");
    let uid = own_uid().to_string();
    let server = start_on(
        &socket,
        scratch.path(),
        &[
            "--token-file",
            token.to_str().unwrap(),
            "--allow-uid",
            "4242",
            "--allow-uid",
            &uid,
        ],
    );
    server.connect().unwrap().close().unwrap();
    let with_a_wrong_token = ConnectOptions {
        token: Some("battery staple".to_owned()),
        ..ConnectOptions::default()
    };
    RemoteExecutor::connect_with(&server.address, &with_a_wrong_token)
        .unwrap()
        .close()
        .unwrap();
}

#[test]
fn a_stale_socket_file_is_replaced_at_start_up() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    // A socket file nothing listens on, as a server killed by SIGKILL leaves.
    drop(UnixListener::bind(&socket).unwrap());
    let server = start_on(&socket, scratch.path(), &[]);
    server.connect().unwrap().close().unwrap();
}

#[test]
fn a_live_socket_or_a_path_that_is_no_socket_is_refused_in_one_line() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    let server = start_on(&socket, scratch.path(), &[]);
    let run = |path: &Path| {
        Command::new(SERVER)
            .arg("--listen")
            .arg(format!("unix:{}", path.display()))
            .arg("--work-dir")
            .arg(scratch.path())
            .env("EXECUTOR_LOG", "error")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    assert_eq!(
        refusal(run(&socket)),
        format!(
            "executor-server: cannot listen on '{}': a server is listening on it already",
            server.address
        )
    );
    // The first server still serves.
    server.connect().unwrap().close().unwrap();

    let file = scratch.path().join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    assert_eq!(
        refusal(run(&file)),
        format!(
            "executor-server: cannot listen on 'unix:{0}': '{0}' exists and is not a socket: \
             remove it or choose another path",
            file.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
}

#[test]
fn check_reaches_a_unix_socket_and_names_what_failed() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    let server = start_on(&socket, scratch.path(), &[]);
    assert_eq!(
        check(&server.address, None),
        (
            true,
            format!(
                "{}: reachable, admitted as this user, protocol version {}, triple {}, 0 of 256 sessions in use\n",
                server.address,
                executor_runtime::protocol::PROTOCOL_VERSION,
                executor_runtime::local::host_triple()
            )
        )
    );
    let missing = format!("unix:{}", scratch.path().join("missing.sock").display());
    assert_eq!(
        check(&missing, None),
        (
            false,
            format!(
                "executor-server: --check {missing}: cannot reach executor at {missing}: no such \
                 socket file: is the server running?\n"
            )
        )
    );
}

#[test]
fn a_client_that_leaves_mid_session_leaves_nothing_behind() {
    let scratch = tempfile::tempdir().unwrap();
    let socket = scratch.path().join("executor.sock");
    let server = start_on(&socket, scratch.path(), &["--warm-workers", "0"]);
    let session = server.connect().unwrap();
    // A request that starts the worker, then the client is gone.
    session.launch_async("k", "o").unwrap_err();
    assert_eq!(server.session_dirs().len(), 1);
    drop(session);
    server.assert_sessions_cleaned_up();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !server.workers().is_empty() {
        assert!(Instant::now() < deadline, "the worker outlived its client");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The socket file's directory is the test's own; a path too long for a
/// socket is refused in one line, before anything is made.
#[test]
fn a_socket_path_too_long_is_refused_in_one_line() {
    let scratch = tempfile::tempdir().unwrap();
    let long: PathBuf = scratch.path().join("x".repeat(120));
    let output = Command::new(SERVER)
        .arg("--listen")
        .arg(format!("unix:{}", long.display()))
        .arg("--work-dir")
        .arg(scratch.path())
        .output()
        .unwrap();
    let error = refusal(output);
    assert!(
        error.starts_with(&format!(
            "executor-server: cannot listen on 'unix:{}': the path is",
            long.display()
        )),
        "{error}"
    );
    assert_eq!(error.lines().count(), 1, "{error}");
}
