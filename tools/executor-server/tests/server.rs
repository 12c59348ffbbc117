//! executor-server end to end, on loopback only: each test starts its own
//! server on a free port (`--listen 127.0.0.1:0`) with its own `--work-dir`,
//! so it can see the sessions' private directories come and go.

use std::{
    io::{BufRead, Write},
    net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream},
    os::{
        fd::{AsRawFd, FromRawFd},
        unix::{fs::PermissionsExt, process::CommandExt},
    },
    path::PathBuf,
    process::{Command, Stdio},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    thread::sleep,
    time::{Duration, Instant},
};

use executor_abi::call_buffer::Layout;
use executor_runtime::{
    error::RuntimeError,
    executor::{BinaryFormat, Executor},
    protocol::{
        self, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, OutputShape, PROTOCOL_VERSION,
        ProtocolError, Request, Response,
    },
    remote::{ConnectOptions, RemoteExecutor},
};

mod common;

use common::{
    Server, burst_of_clients, call_twice, children_of, compile_kernels, compile_kernels_to, floats,
    launch_1d, log_once_it_holds, process_state, token_file,
};

#[test]
fn a_session_has_a_private_directory_until_it_closes() {
    let server = Server::start(&[]);
    let spare = server.spare_dirs();
    assert_eq!(spare.len(), 1, "made before the server listens: {spare:?}");
    let session = server.connect().unwrap();
    let dirs = server.session_dirs();
    assert_eq!(dirs, spare, "the session takes the spare");
    assert!(server.spare_dirs().is_empty());
    let mode = std::fs::metadata(&dirs[0]).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    session.close().unwrap();
    server.assert_sessions_cleaned_up();
    // Closing a session that has ended is no error; using it is.
    session.close().unwrap();
    let error = session.launch_async("k", "o").unwrap_err().to_string();
    assert!(error.contains("ended"), "{error}");
}

#[test]
fn a_worker_killed_from_outside_is_reported_as_killed_not_as_a_crash() {
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let server = Server::start(&[]);
    let session = server.connect().unwrap();
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    let worker = server.worker_of(&server.session_dirs()[0]);
    // SAFETY: sends a signal to a process of this test's own server.
    assert_eq!(unsafe { libc::kill(worker as i32, libc::SIGKILL) }, 0);
    let error = session.launch_async("warm_up", object).unwrap_err();
    assert!(
        matches!(error, RuntimeError::WorkerKilled { running: None, .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        format!(
            "the executor's worker at {} was killed by signal 9 (SIGKILL)",
            server.address
        )
    );
    // The session has ended: closing it is no error.
    session.close().unwrap();
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_ping_is_answered_without_starting_a_worker() {
    // No warm workers: every worker counted below serves a session.
    let server = Server::start(&["--max-sessions", "5", "--warm-workers", "0"]);
    let busy = server.connect().unwrap();
    busy.launch_async("k", "o").unwrap_err();
    let (mut stream, max_message_size) = server.raw_session();
    for _ in 0..3 {
        protocol::write_message(&mut stream, &Request::Ping, max_message_size).unwrap();
        assert_eq!(
            protocol::read_message::<Response>(&mut stream, max_message_size).unwrap(),
            Response::Pong {
                sessions: 1,
                max_sessions: 5
            }
        );
    }
    assert_eq!(
        children_of(server.process.id()).len(),
        1,
        "only the busy session has a worker"
    );
    // Once the session has a worker, a ping is refused and the session goes on.
    protocol::write_message(&mut stream, &Request::Await(7), max_message_size).unwrap();
    let reply: Response = protocol::read_message(&mut stream, max_message_size).unwrap();
    assert!(matches!(reply, Response::Failed { .. }), "{reply:?}");
    protocol::write_message(&mut stream, &Request::Ping, max_message_size).unwrap();
    let reply: Response = protocol::read_message(&mut stream, max_message_size).unwrap();
    assert!(
        matches!(&reply, Response::Failed { message } if message.contains("only before")),
        "{reply:?}"
    );
    busy.close().unwrap();
}

#[test]
fn sessions_past_the_limit_are_refused_until_one_ends() {
    let server = Server::start(&["--max-sessions", "1"]);
    let first = server.connect().unwrap();
    let refused = server.connect().err().unwrap().to_string();
    assert!(
        refused.contains("limit of 1 sessions (executor-server --max-sessions)"),
        "{refused}"
    );
    first.close().unwrap();
    server.assert_sessions_cleaned_up();
    server.connect().unwrap().close().unwrap();
}

#[test]
fn a_connection_refused_at_the_session_limit_holds_no_session_directory() {
    let server = Server::start(&["--max-sessions", "1"]);
    let first = server.connect().unwrap();
    let sessions_directories = || {
        let spares = server.spare_dirs();
        let mut held = server.session_dirs();
        held.retain(|directory| !spares.contains(directory));
        held
    };
    assert_eq!(sessions_directories().len(), 1);
    // The server lingers on a refused connection until its client closes it
    // (or for a second); a server stopped meanwhile would leave behind
    // whatever the connection still held.
    let mut refused = TcpStream::connect(&server.address).unwrap();
    let reply = say_hello(&mut refused);
    assert!(
        matches!(&reply, Ok(HelloReply::Refused { reason }) if reason.contains("limit of 1 sessions")),
        "{reply:?}"
    );
    assert_eq!(sessions_directories().len(), 1);
    drop(refused);
    first.close().unwrap();
    server.assert_sessions_cleaned_up();
}

/// Runs `executor-server --check address` with `token` in the environment.
fn check(address: &str, token: Option<&str>) -> (bool, String) {
    let mut command = Command::new(common::SERVER);
    command
        .args(["--check", address])
        .env_remove("EXECUTOR_TOKEN")
        .env_remove("EXECUTOR_TOKEN_FILE")
        .env_remove("EXECUTOR_CONFIG");
    if let Some(token) = token {
        command.env("EXECUTOR_TOKEN", token);
    }
    let output = command.output().expect("executor-server --check runs");
    let text = String::from_utf8_lossy(if output.status.success() {
        &output.stdout
    } else {
        &output.stderr
    })
    .into_owned();
    (output.status.success(), text)
}

#[test]
fn check_says_in_one_line_whether_a_server_answers() {
    let secrets = tempfile::tempdir().unwrap();
    let token_file = token_file(secrets.path(), "correct horse\n");
    // No warm workers: a worker counted below would serve a session.
    let server = Server::start(&[
        "--token-file",
        token_file.to_str().unwrap(),
        "--warm-workers",
        "0",
    ]);
    let options = ConnectOptions {
        token: Some("correct horse".into()),
        ..ConnectOptions::default()
    };
    let busy = RemoteExecutor::connect_with(&server.address, &options).unwrap();

    let (healthy, line) = check(&server.address, Some("correct horse"));
    assert!(healthy, "{line}");
    assert_eq!(
        line,
        format!(
            "{}: reachable, authenticated, protocol version {PROTOCOL_VERSION}, triple {}, 1 of 256 sessions in use\n",
            server.address,
            executor_runtime::local::host_triple()
        )
    );
    let (healthy, line) = check(&server.address, Some("battery staple"));
    assert!(!healthy);
    assert!(
        line.starts_with(&format!("executor-server: --check {}: ", server.address))
            && line.ends_with("wrong token\n")
            && line.lines().count() == 1,
        "{line}"
    );
    busy.close().unwrap();
    server.assert_sessions_cleaned_up();
    assert!(children_of(server.process.id()).is_empty());

    let gone = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    let (healthy, line) = check(&gone, None);
    assert!(!healthy);
    assert!(line.contains("cannot reach executor at"), "{line}");
    let (healthy, line) = check("local", None);
    assert!(!healthy);
    assert!(line.contains("HOST:PORT"), "{line}");
}

#[test]
fn workers_do_not_inherit_a_token_from_the_servers_environment() {
    let server = Server::start_with(&[], |command| {
        command.env("EXECUTOR_TOKEN", "not for kernels");
    });
    let session = server.connect().unwrap();
    let environment = |pid: u32| std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let has_token = |pid: u32| {
        environment(pid)
            .split(|byte| *byte == 0)
            .any(|variable| variable.starts_with(b"EXECUTOR_TOKEN="))
    };
    assert!(has_token(server.process.id()), "the server has it");
    // The warm worker, which the session takes at its first request.
    for worker in server.wait_for_workers(1) {
        assert!(!has_token(worker), "worker {worker} has it");
    }
    session.close().unwrap();
}

/// The processes started by the kernels of `server`'s workers that run
/// `sleep`, waited for (a bounded time) until there is one.
fn sleepers_started_by_kernels(server: &Server) -> Vec<u32> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sleepers: Vec<u32> = server
            .workers()
            .into_iter()
            .flat_map(children_of)
            .filter(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/comm"))
                    .is_ok_and(|name| name.trim_end() == "sleep")
            })
            .collect();
        if !sleepers.is_empty() {
            return sleepers;
        }
        assert!(Instant::now() < deadline, "the kernel's sleeper never ran");
        sleep(Duration::from_millis(20));
    }
}

#[test]
fn processes_a_kernel_starts_end_with_its_session_however_it_ends() {
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    for ending in ["close", "disconnect", "SIGTERM"] {
        let server = Server::start(&[]);
        let session = server.connect().unwrap();
        session
            .send_binary(object, BinaryFormat::SharedLibrary)
            .unwrap();
        let token = session.launch_async("spawn_sleeper", object).unwrap();
        session.await_launch(token).unwrap();
        let sleepers = sleepers_started_by_kernels(&server);
        match ending {
            "close" => session.close().unwrap(),
            "disconnect" => drop(session),
            _ => {
                // SAFETY: kill sends a signal to the test's own child.
                let sent = unsafe { libc::kill(server.process.id() as i32, libc::SIGTERM) };
                assert_eq!(sent, 0);
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for sleeper in sleepers {
            // Gone, or dead and waiting for a parent to reap it.
            while !matches!(process_state(sleeper), None | Some('Z')) {
                assert!(
                    Instant::now() < deadline,
                    "after {ending}, the kernel's process {sleeper} still runs"
                );
                sleep(Duration::from_millis(20));
            }
        }
    }
}

#[test]
fn a_wrong_or_missing_token_is_refused() {
    let secrets = tempfile::tempdir().unwrap();
    let token_file = token_file(secrets.path(), "correct horse\n");
    let server = Server::start(&["--token-file", token_file.to_str().unwrap()]);
    let connect = |token: Option<&str>| {
        let options = ConnectOptions {
            token: token.map(str::to_owned),
            ..ConnectOptions::default()
        };
        RemoteExecutor::connect_with(&server.address, &options)
    };
    let wrong = connect(Some("battery staple")).err().unwrap().to_string();
    assert!(
        wrong.contains("refused") && wrong.contains("wrong token"),
        "{wrong}"
    );
    let missing = connect(None).err().unwrap().to_string();
    assert!(missing.contains("requires a token"), "{missing}");
    connect(Some("correct horse")).unwrap().close().unwrap();
    server.assert_sessions_cleaned_up();
}

#[test]
fn an_oversized_frame_is_refused_and_the_server_goes_on() {
    let server = Server::start(&["--max-message-size", "4096"]);

    // Before the handshake: the limit there is much smaller.
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(&u32::MAX.to_be_bytes()).unwrap();
    match protocol::read_message(&mut stream, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap() {
        HelloReply::Refused { reason } => assert!(reason.contains("exceeds"), "{reason}"),
        welcome => panic!("{welcome:?}"),
    }

    // In a session: a Failed reply, then the session ends.
    let (mut stream, max_message_size) = server.raw_session();
    assert_eq!(max_message_size, 4096);
    stream.write_all(&4097u32.to_be_bytes()).unwrap();
    stream.write_all(&[0; 4097]).unwrap();
    match protocol::read_message(&mut stream, max_message_size).unwrap() {
        Response::Failed { message } => {
            assert!(message.contains("exceeds the limit of 4096"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        protocol::read_message::<Response>(&mut stream, max_message_size),
        Err(ProtocolError::Closed)
    ));

    // A malformed request that fits is answered, and the session goes on.
    let (mut stream, max_message_size) = server.raw_session();
    stream.write_all(&[0, 0, 0, 1, 200]).unwrap();
    let reply: Response = protocol::read_message(&mut stream, max_message_size).unwrap();
    assert!(
        matches!(&reply, Response::Failed { message } if message.contains("malformed")),
        "{reply:?}"
    );
    protocol::write_message(&mut stream, &Request::Close, max_message_size).unwrap();
    assert_eq!(
        protocol::read_message::<Response>(&mut stream, max_message_size).unwrap(),
        Response::Done
    );

    // The client refuses to send what the server would refuse.
    let session = server.connect().unwrap();
    let error = session
        .call("f", Layout::ThisProject, &[0; 8192])
        .unwrap_err()
        .to_string();
    assert!(error.contains("over the executor's limit"), "{error}");
    session.close().unwrap();
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_client_that_disconnects_mid_session_leaves_no_directory() {
    let server = Server::start(&[]);
    let (mut stream, max_message_size) = server.raw_session();
    let request = Request::SendBinary {
        name: "/client/side/kernel.so".into(),
        format: BinaryFormat::SharedLibrary,
        bytes: b"not really a library".to_vec(),
    };
    protocol::write_message(&mut stream, &request, max_message_size).unwrap();
    assert_eq!(server.session_dirs().len(), 1);
    // Gone without reading the reply or closing the session.
    drop(stream);
    server.assert_sessions_cleaned_up();
    // And the server still serves.
    server.connect().unwrap().close().unwrap();
}

#[test]
fn an_unreachable_address_is_named() {
    let address = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().to_string()
    };
    match RemoteExecutor::connect_with(&address, &ConnectOptions::default()) {
        Err(error @ RuntimeError::Unreachable { .. }) => {
            assert!(error.to_string().contains(&address), "{error}");
        }
        other => panic!("{:?}", other.err()),
    }
}

#[test]
fn a_port_in_use_is_reported_once() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_executor-server"))
        .args(["--listen", &address])
        .env("EXECUTOR_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .expect("executor-server runs");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let reason = std::io::Error::from_raw_os_error(libc::EADDRINUSE);
    assert_eq!(
        stderr,
        format!("executor-server: cannot listen on '{address}': {reason}\n")
    );
}

#[test]
fn a_dead_link_timeout_of_minutes_is_applied() {
    // Past 128 s, a probe a second would be more than Linux sends.
    let server = Server::start(&["--dead-link-timeout", "300"]);
    server.connect().unwrap().close().unwrap();
}

#[test]
fn a_timeout_past_its_bound_is_refused_before_the_server_starts() {
    for (flag, value, bound) in [
        ("--handshake-timeout", "3601", "1..=3600"),
        ("--dead-link-timeout", "86401", "2..=86400"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_executor-server"))
            .args(["--listen", "127.0.0.1:0", flag, value])
            .stdin(Stdio::null())
            .output()
            .expect("executor-server runs");
        assert!(!output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(&format!("'{value}' for '{flag}")) && stderr.contains(bound),
            "{stderr}"
        );
    }
}

#[test]
fn kernels_run_remotely_and_a_crash_ends_only_its_session() {
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let server = Server::start(&[]);

    let session = server.connect().unwrap();
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    // The same path again is not shipped again.
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    let mut stored: Vec<_> = std::fs::read_dir(&server.session_dirs()[0])
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    stored.sort();
    assert_eq!(
        stored,
        ["assets", "binary-0.so"],
        "the server names received binaries, next to the (empty) asset directory"
    );

    let sum = launch_1d(
        &session,
        "_mlir_ciface_add",
        object,
        &[&[1., 2., 3.], &[10., 20., 30.]],
    )
    .unwrap();
    assert_eq!(sum, floats(&[11., 22., 33.]));
    let same = launch_1d(&session, "_mlir_ciface_identity", object, &[&[4., 5.]]).unwrap();
    assert_eq!(same, floats(&[4., 5.]));

    let token = session.launch_async("warm_up", object).unwrap();
    session.await_launch(token).unwrap();
    assert!(
        session.await_launch(token).is_err(),
        "a token is awaited once"
    );

    assert_eq!(call_twice(&session), [floats(&[2., 5.])]);

    let error = launch_1d(&session, "_mlir_ciface_nonexistent", object, &[]).unwrap_err();
    assert!(matches!(error, RuntimeError::Remote(_)), "{error}");

    // A crash is reported with the kernel and the signal...
    let crashed = session
        .launch("_mlir_ciface_segv", object, &[], &[])
        .unwrap_err();
    match &crashed {
        RuntimeError::KernelCrashed {
            symbol,
            signal,
            name,
        } => {
            assert_eq!(
                (symbol.as_str(), *signal, name.as_str()),
                ("_mlir_ciface_segv", libc::SIGSEGV, "SIGSEGV")
            );
        }
        other => panic!("expected a crash report, got {other}"),
    }
    // ...ends that session, and leaves it nothing on disk...
    let after = session
        .launch_async("warm_up", object)
        .unwrap_err()
        .to_string();
    assert!(
        after.contains("session has ended") && after.contains("segv"),
        "{after}"
    );
    server.assert_sessions_cleaned_up();

    // ...while the server serves the next one.
    let next = server.connect().unwrap();
    next.send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    assert_eq!(
        launch_1d(&next, "_mlir_ciface_add", object, &[&[1.], &[2.]]).unwrap(),
        floats(&[3.])
    );
    next.close().unwrap();
    server.assert_sessions_cleaned_up();

    // A crash on an async launch's thread names that launch's entry.
    let third = server.connect().unwrap();
    third
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    let token = third.launch_async("crash_later", object).unwrap();
    match third.await_launch(token).unwrap_err() {
        RuntimeError::KernelCrashed { symbol, signal, .. } => {
            assert_eq!((symbol.as_str(), signal), ("crash_later", libc::SIGSEGV));
        }
        other => panic!("expected a crash report, got {other}"),
    }
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_kernel_that_never_returns_does_not_outlive_its_client() {
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let server = Server::start(&[]);
    let (mut stream, max_message_size) = server.raw_session();
    let object = library.to_str().unwrap().to_owned();
    let send = Request::SendBinary {
        name: object.clone(),
        format: BinaryFormat::SharedLibrary,
        bytes: std::fs::read(&library).unwrap(),
    };
    protocol::write_message(&mut stream, &send, max_message_size).unwrap();
    assert_eq!(
        protocol::read_message::<Response>(&mut stream, max_message_size).unwrap(),
        Response::Done
    );
    let hang = Request::Launch {
        entry: "_mlir_ciface_hang".into(),
        object,
        inputs: Vec::new(),
        outputs: Vec::new(),
    };
    protocol::write_message(&mut stream, &hang, max_message_size).unwrap();
    sleep(Duration::from_millis(100));
    drop(stream);
    // The worker is killed a grace period after the client left.
    server.assert_sessions_cleaned_up();
    server.connect().unwrap().close().unwrap();
}

/// The peak resident memory of process `pid` (`VmHWM`), in KiB.
fn peak_memory_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in /proc/{pid}/status"))
}

#[test]
fn a_launch_frame_that_would_need_far_more_memory_than_its_size_is_refused() {
    let server = Server::start(&[]);
    let (mut stream, max_message_size) = server.raw_session();
    // A round trip first, so that the worker has started and settled.
    protocol::write_message(&mut stream, &Request::Await(1), max_message_size).unwrap();
    let reply: Response = protocol::read_message(&mut stream, max_message_size).unwrap();
    assert!(matches!(reply, Response::Failed { .. }), "{reply:?}");
    let worker = server.worker_of(&server.session_dirs()[0]);
    let before = peak_memory_kib(worker);

    // 60 KB: 20,000 outputs of rank 1024, 3 bytes each on the wire, each of
    // which would be a 16 KiB descriptor in the worker.
    let outputs = vec![
        OutputShape {
            rank: 1024,
            element_size: 4,
        };
        20_000
    ];
    let launch = Request::Launch {
        entry: "_mlir_ciface_f".into(),
        object: "kernels.o".into(),
        inputs: Vec::new(),
        outputs,
    };
    protocol::write_message(&mut stream, &launch, max_message_size).unwrap();
    match protocol::read_message(&mut stream, max_message_size).unwrap() {
        Response::Failed { message } => assert!(
            message.contains("20000 outputs") && message.contains("at most 4096"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    let grown_kib = peak_memory_kib(worker).saturating_sub(before);
    assert!(
        grown_kib < 16 * 1024,
        "the worker grew by {grown_kib} KiB for a 60 KB frame"
    );
    // The session goes on.
    protocol::write_message(&mut stream, &Request::Close, max_message_size).unwrap();
    assert_eq!(
        protocol::read_message::<Response>(&mut stream, max_message_size).unwrap(),
        Response::Done
    );
}

#[test]
fn the_sessions_of_a_killed_server_are_removed_when_the_next_starts_but_a_live_ones_are_kept() {
    let work_dir = tempfile::tempdir().unwrap();
    let live = Server::start_in(work_dir.path(), &[], |_| {});
    let live_session = live.connect().unwrap();
    let live_dirs = live.session_dirs();
    assert_eq!(live_dirs.len(), 1);

    let mut killed = Server::start_in(work_dir.path(), &[], |_| {});
    let orphaned = killed.connect().unwrap();
    let killed_dirs: Vec<PathBuf> = killed
        .session_dirs()
        .into_iter()
        .filter(|directory| !live_dirs.contains(directory))
        .collect();
    assert_eq!(killed_dirs.len(), 1, "the killed server's session's");
    // SIGKILL: no chance to clean up. Its session's directory stays behind.
    killed.process.kill().unwrap();
    killed.process.wait().unwrap();
    drop(orphaned);
    assert_eq!(live.session_dirs().len(), 2);
    assert_eq!(live.lock_files(), 2);

    // The next server removes it (before it says it listens), and nothing of
    // the live server's; it makes a spare of its own.
    let mut next = Server::start_in(work_dir.path(), &[], |_| {});
    let next_dirs = next.session_dirs();
    assert!(!next_dirs.contains(&killed_dirs[0]), "{next_dirs:?}");
    assert!(next_dirs.contains(&live_dirs[0]), "{next_dirs:?}");
    assert_eq!(
        next_dirs.len(),
        2,
        "the live session's and the next's spare"
    );
    assert_eq!(next.lock_files(), 2, "the live server's and the next's");
    live_session.close().unwrap();
    next.connect().unwrap().close().unwrap();
    next.assert_sessions_cleaned_up();

    // A server stopped by a signal it can catch removes its lock file itself.
    // SAFETY: kill takes a process id and a signal number.
    let signalled = unsafe { libc::kill(next.process.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(signalled, 0);
    assert!(next.process.wait().unwrap().success());
    assert_eq!(live.lock_files(), 1);
}

/// A connection to `address` from `source`, one of this machine's loopback
/// addresses (127.0.0.0/8): how a test plays several peers.
fn connect_from(source: Ipv4Addr, address: &str) -> TcpStream {
    let to_sockaddr = |address: SocketAddrV4| libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: address.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from(*address.ip()).to_be(),
        },
        sin_zero: [0; 8],
    };
    let local = to_sockaddr(SocketAddrV4::new(source, 0));
    let remote = to_sockaddr(address.parse().unwrap());
    let length = std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t;
    // SAFETY: socket takes no pointers; the descriptor it returns is new, and
    // the stream owns it from here on.
    let stream = unsafe {
        let fd = libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0);
        assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
        TcpStream::from_raw_fd(fd)
    };
    // SAFETY: both addresses are initialized sockaddr_in of `length` bytes.
    unsafe {
        let local: *const libc::sockaddr = (&raw const local).cast();
        let remote: *const libc::sockaddr = (&raw const remote).cast();
        assert_eq!(
            libc::bind(stream.as_raw_fd(), local, length),
            0,
            "bind to {source}: {}",
            std::io::Error::last_os_error()
        );
        assert_eq!(
            libc::connect(stream.as_raw_fd(), remote, length),
            0,
            "connect to {address}: {}",
            std::io::Error::last_os_error()
        );
    }
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    stream
}

/// Sends `Hello` and reads the server's reply.
fn say_hello(stream: &mut TcpStream) -> Result<HelloReply, ProtocolError> {
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        token: None,
    };
    protocol::write_message(stream, &hello, HANDSHAKE_MAX_MESSAGE_SIZE)?;
    protocol::read_message(stream, HANDSHAKE_MAX_MESSAGE_SIZE)
}

/// Reads the reply to a `Hello` the client never finished sending.
fn unsolicited_reply(stream: &mut TcpStream) -> Result<HelloReply, ProtocolError> {
    protocol::read_message(stream, HANDSHAKE_MAX_MESSAGE_SIZE)
}

#[test]
fn a_hello_sent_a_byte_at_a_time_must_still_arrive_by_the_handshake_deadline() {
    let server = Server::start(&["--handshake-timeout", "1"]);
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    // 27 bytes, one every 100 ms: each wait is far shorter than the deadline,
    // all of them together far longer.
    let hello = Hello {
        protocol_version: PROTOCOL_VERSION,
        token: Some("x".repeat(20)),
    };
    let frame = protocol::encode_frame(&hello, HANDSHAKE_MAX_MESSAGE_SIZE).unwrap();
    for byte in &frame {
        if stream.write_all(std::slice::from_ref(byte)).is_err() {
            break; // The server has closed the connection.
        }
        sleep(Duration::from_millis(100));
    }
    let reply = unsolicited_reply(&mut stream);
    assert!(reply.is_err(), "closed, never welcomed: {reply:?}");
    // Prompt clients are still served.
    server.connect().unwrap().close().unwrap();
}

#[test]
fn connections_in_their_handshake_are_capped_per_peer_and_in_all_by_shedding_the_oldest_silent_one()
{
    let server = Server::start(&[
        "--handshake-timeout",
        "600",
        "--max-handshakes",
        "6",
        "--max-handshakes-per-peer",
        "3",
    ]);
    let refused_for_room = |stream: &mut TcpStream| match unsolicited_reply(stream) {
        Ok(HelloReply::Refused { reason }) => {
            assert!(reason.contains("too many connections"), "{reason}")
        }
        other => panic!("expected a refusal, got {other:?}"),
    };
    let welcomed = |stream: &mut TcpStream| {
        let reply = say_hello(stream);
        assert!(
            matches!(reply, Ok(HelloReply::WelcomeWithTriple { .. })),
            "{reply:?}"
        );
    };

    // A quiet peer's connection, then twenty of a noisy peer, none of which
    // says anything. The first three count; the next twelve wait (the
    // peer's share of the waiting room, twice --max-handshakes) and the last
    // five are refused at once. The waiting ones take the places of the
    // oldest silent ones, each closed with the reason...
    let mut quiet = connect_from(Ipv4Addr::new(127, 0, 0, 2), &server.address);
    let mut noisy: Vec<TcpStream> = (0..20)
        .map(|_| connect_from(Ipv4Addr::new(127, 0, 0, 3), &server.address))
        .collect();
    let (shed, rest) = noisy.split_at_mut(12);
    for stream in shed.iter_mut().chain(&mut rest[3..]) {
        refused_for_room(stream);
    }
    // ...and the quiet peer's connection, older than all of them, is still
    // open: it completes its handshake, as do the last three that waited.
    welcomed(&mut quiet);
    for stream in &mut noisy[12..15] {
        welcomed(stream);
    }

    // Six pending connections of two peers, then one of a third: the oldest
    // of all makes room.
    let mut full: Vec<TcpStream> = [4, 4, 4, 5, 5, 5, 6]
        .into_iter()
        .map(|host| connect_from(Ipv4Addr::new(127, 0, 0, host), &server.address))
        .collect();
    refused_for_room(&mut full[0]);
    for stream in &mut full[1..] {
        welcomed(stream);
    }
}

#[test]
fn a_burst_of_clients_far_beyond_the_handshake_caps_waits_and_is_never_refused() {
    // The default caps (8 per peer, 64 in all); every client is 127.0.0.1,
    // one peer, so 100 at once are twelve times its cap.
    const CLIENTS: usize = 100;
    const ROUNDS: usize = 5;
    let server = Server::start(&[]);
    for round in 0..ROUNDS {
        let refused = burst_of_clients(&server.address, &ConnectOptions::default(), CLIENTS);
        assert!(
            refused.is_empty(),
            "round {round}: {} of {CLIENTS} clients failed, first: {}",
            refused.len(),
            refused[0]
        );
    }
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_hundred_clients_started_at_once_each_launch_a_thousand_times_and_lose_nothing() {
    const CLIENTS: usize = 100;
    const LAUNCHES: usize = 1000;
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let server = Server::start(&[]);
    let start = Arc::new(std::sync::Barrier::new(CLIENTS));
    let clients: Vec<_> = (0..CLIENTS)
        .map(|client| {
            let (start, address) = (Arc::clone(&start), server.address.clone());
            let object = library.to_str().unwrap().to_owned();
            std::thread::spawn(move || -> Result<usize, RuntimeError> {
                start.wait();
                let session = RemoteExecutor::connect_with(&address, &ConnectOptions::default())?;
                session.send_binary(&object, BinaryFormat::SharedLibrary)?;
                let mut right = 0;
                for launch in 0..LAUNCHES {
                    let value = (client * LAUNCHES + launch) as f32;
                    let sum = launch_1d(&session, "_mlir_ciface_add", &object, &[&[value], &[1.]])?;
                    right += usize::from(sum == floats(&[value + 1.]));
                }
                session.close()?;
                Ok(right)
            })
        })
        .collect();
    let mut right = 0;
    let mut failed = Vec::new();
    for client in clients {
        match client.join().unwrap() {
            Ok(count) => right += count,
            Err(error) => failed.push(error.to_string()),
        }
    }
    assert!(
        failed.is_empty(),
        "{} clients failed, first: {}",
        failed.len(),
        failed[0]
    );
    assert_eq!(right, CLIENTS * LAUNCHES);
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_peer_whose_connections_say_nothing_holds_up_no_other_peer() {
    let server = Server::start(&[]);
    // Far over its cap of 8 and its share of the waiting room (128): each
    // connection beyond the cap waits for one of the peer's to be shed, a
    // second after it came, or is refused. Had they waited in turn, in the
    // accept loop or in one queue, the clients below would have waited about
    // 24 s, or found the room full.
    let silent: Vec<TcpStream> = (0..300)
        .map(|_| connect_from(Ipv4Addr::new(127, 0, 0, 3), &server.address))
        .collect();
    // A burst of real clients from 127.0.0.1, over that address's own cap,
    // with their default handshake timeout (10 s).
    const CLIENTS: usize = 30;
    let failed = burst_of_clients(&server.address, &ConnectOptions::default(), CLIENTS);
    assert!(
        failed.is_empty(),
        "{} of {CLIENTS} failed, first: {}",
        failed.len(),
        failed[0]
    );
    drop(silent);
    server.assert_sessions_cleaned_up();
}

#[test]
fn connections_stuck_in_their_handshake_cannot_keep_a_client_out() {
    // As in the report, but with 48 descriptors: 100 connections that never
    // finish their Hello would take all of them.
    let server = Server::start_with(
        &["--max-handshakes", "8", "--max-handshakes-per-peer", "8"],
        |command| {
            let pre_exec = || {
                let limit = libc::rlimit {
                    rlim_cur: 48,
                    rlim_max: 48,
                };
                // SAFETY: setrlimit reads the initialized `limit` and changes
                // only this (forked) process's own limit.
                if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) } != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            };
            // SAFETY: the hook only makes a system call, which is allowed
            // between fork and exec.
            unsafe { command.pre_exec(pre_exec) };
        },
    );
    // Each announces a 60,000-byte Hello, then sends it a byte every 200 ms,
    // so that no read of the server ever waits long.
    let stuck: Vec<TcpStream> = (0..100)
        .map(|_| {
            let mut stream = TcpStream::connect(&server.address).unwrap();
            stream.write_all(&60_000u32.to_be_bytes()).unwrap();
            stream
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let dripping = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                for mut stream in &stuck {
                    // A connection the server closed fails: no matter.
                    let _ = stream.write_all(&[0]);
                }
                sleep(Duration::from_millis(200));
            }
        })
    };
    let served = server.connect().and_then(|session| session.close());
    stop.store(true, Ordering::Relaxed);
    dripping.join().unwrap();
    served.unwrap();
}

#[test]
fn a_server_listens_on_every_listen_address_given() {
    let work_dir = tempfile::tempdir().unwrap();
    // The harness's own --listen comes first; a second one is added.
    let mut server = Server::start_in(work_dir.path(), &["--listen", "127.0.0.2:0"], |_| {});
    let mut line = String::new();
    server.stdout.read_line(&mut line).unwrap();
    let second = line
        .trim_end()
        .strip_prefix("Listening on ")
        .unwrap_or_else(|| panic!("unexpected second line {line:?}"))
        .to_owned();
    assert!(second.starts_with("127.0.0.2:"), "{second}");
    for address in [server.address.clone(), second] {
        let session = RemoteExecutor::connect_with(&address, &ConnectOptions::default())
            .unwrap_or_else(|error| panic!("{address}: {error}"));
        session.close().unwrap();
    }
}

/// A request that a worker answers without loading anything.
fn round_trip(stream: &mut TcpStream, max_message_size: u32) {
    protocol::write_message(stream, &Request::Await(1), max_message_size).unwrap();
    let reply: Response = protocol::read_message(stream, max_message_size).unwrap();
    assert!(matches!(reply, Response::Failed { .. }), "{reply:?}");
}

#[test]
fn sessions_are_served_by_warm_workers_each_by_its_own() {
    let server = Server::start(&["--warm-workers", "2"]);
    let warm = server.wait_for_workers(2);

    let (mut first, max_message_size) = server.raw_session();
    round_trip(&mut first, max_message_size);
    let first_worker = server.worker_of(&server.session_dirs()[0]);
    assert!(
        warm.contains(&first_worker),
        "{first_worker} not in {warm:?}"
    );
    // The one taken is replaced: two wait again beside the one serving.
    let before_second = server.wait_for_workers(3);

    let (mut second, max_message_size) = server.raw_session();
    round_trip(&mut second, max_message_size);
    let directories = server.session_dirs();
    assert_eq!(directories.len(), 2);
    let second_worker = directories
        .iter()
        .map(|directory| server.worker_of(directory))
        .find(|pid| *pid != first_worker)
        .expect("the second session has a worker of its own");
    assert!(before_second.contains(&second_worker));

    // A worker serves one session only: after its session it is gone, and
    // two wait beside the second session's.
    drop(first);
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.workers().contains(&first_worker) {
        assert!(
            Instant::now() < deadline,
            "{first_worker} outlives its session"
        );
        sleep(Duration::from_millis(20));
    }
    server.wait_for_workers(3);
    round_trip(&mut second, max_message_size);
}

#[test]
fn without_warm_workers_each_session_starts_its_own() {
    let server = Server::start(&["--warm-workers", "0"]);
    sleep(Duration::from_millis(300));
    assert_eq!(server.workers(), Vec::<u32>::new());
    let (mut stream, max_message_size) = server.raw_session();
    round_trip(&mut stream, max_message_size);
    server.worker_of(&server.session_dirs()[0]);
    drop(stream);
    server.assert_sessions_cleaned_up();
    server.wait_for_workers(0);
}

#[test]
fn a_warm_worker_that_died_while_waiting_is_not_given_a_session() {
    let tmpdir = tempfile::tempdir().unwrap();
    let server = Server::start_with(&["--warm-workers", "1"], |command| {
        command.env("TMPDIR", tmpdir.path());
    });
    let warm = server.wait_for_workers(1);
    // Killed once it has linked Catalyst's asset path, which the server
    // removes when it finds the worker dead.
    let link = tmpdir
        .path()
        .join("catalyst-assets")
        .join(warm[0].to_string());
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::symlink_metadata(&link).is_err() {
        assert!(Instant::now() < deadline, "no link {link:?}");
        sleep(Duration::from_millis(10));
    }
    // SAFETY: kill takes a process id and a signal number.
    let killed = unsafe { libc::kill(warm[0] as libc::pid_t, libc::SIGKILL) };
    assert_eq!(killed, 0);
    // Dead (a zombie, not reaped yet) before the session comes: a worker
    // that dies during the handover itself is reported as a crash instead.
    let deadline = Instant::now() + Duration::from_secs(10);
    while process_state(warm[0]) != Some('Z') {
        assert!(Instant::now() < deadline, "{} does not die", warm[0]);
        sleep(Duration::from_millis(10));
    }
    let (mut stream, max_message_size) = server.raw_session();
    round_trip(&mut stream, max_message_size);
    assert_ne!(server.worker_of(&server.session_dirs()[0]), warm[0]);
    assert!(
        std::fs::symlink_metadata(&link).is_err(),
        "{link:?} outlives its dead warm worker"
    );
}

/// A session's lines are logged in its span (`session{id=.. peer=..}`),
/// which the server makes at the session's first line: a refusal in the
/// handshake is, and so are the lines of a session that was welcomed.
#[test]
fn a_sessions_lines_name_it_whether_it_was_refused_or_welcomed() {
    let scratch = tempfile::tempdir().unwrap();
    let token_file = token_file(scratch.path(), "correct horse\n");
    let log_path = scratch.path().join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let server = Server::start_with(&["--token-file", token_file.to_str().unwrap()], |command| {
        command.env("EXECUTOR_LOG", "info").stderr(log);
    });
    let connect = |token: &str| {
        let options = ConnectOptions {
            token: Some(token.to_owned()),
            ..ConnectOptions::default()
        };
        RemoteExecutor::connect_with(&server.address, &options)
    };
    assert!(connect("battery staple").is_err());
    connect("correct horse").unwrap().close().unwrap();
    server.assert_sessions_cleaned_up();
    let logged = log_once_it_holds(&log_path, "session ended");
    let line_of = |what: &str| {
        logged
            .lines()
            .find(|line| line.contains(what))
            .unwrap_or_else(|| panic!("no line with {what:?} in the log:\n{logged}"))
            .to_owned()
    };
    assert!(
        line_of("refused").contains("session{id=1 peer=127.0.0.1:"),
        "{logged}"
    );
    for welcomed in ["session started", "session ended"] {
        assert!(
            line_of(welcomed).contains("session{id=2 peer=127.0.0.1:"),
            "{logged}"
        );
    }
}

#[test]
fn a_result_buffer_free_refuses_is_the_kernels_crash_on_both_sides() {
    let scratch = tempfile::tempdir().unwrap();
    let object = compile_kernels(scratch.path());
    let object = object.to_str().unwrap();
    let log_path = scratch.path().join("server.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let server = Server::start_with(&[], |command| {
        command.env("EXECUTOR_LOG", "warn").stderr(log);
    });
    let session = server.connect().unwrap();
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    match launch_1d(&session, "_mlir_ciface_unfreeable", object, &[]).unwrap_err() {
        RuntimeError::KernelCrashed { symbol, signal, .. } => {
            assert_eq!(
                (symbol.as_str(), signal),
                ("_mlir_ciface_unfreeable", libc::SIGABRT)
            );
        }
        other => panic!("expected a crash report naming the kernel, got {other}"),
    }
    server.assert_sessions_cleaned_up();
    // The server's log blames the kernel too, not the executor.
    let logged = log_once_it_holds(&log_path, "the worker died by a signal");
    let line = logged
        .lines()
        .find(|line| line.contains("the worker died by a signal"))
        .unwrap_or_else(|| panic!("no crash line in the log:\n{logged}"));
    assert!(
        line.contains("_mlir_ciface_unfreeable") && !line.contains("no kernel"),
        "{line}"
    );
}

#[test]
fn a_kernel_finds_its_asset_under_catalysts_path_while_its_session_lasts() {
    let scratch = tempfile::tempdir().unwrap();
    let object = compile_kernels(scratch.path());
    let object = object.to_str().unwrap();
    let asset = scratch.path().join("numbers.bin");
    std::fs::write(&asset, floats(&[5., 6.]).data).unwrap();
    let asset = asset.to_str().unwrap();
    let tmpdir = scratch.path().join("tmp");
    std::fs::create_dir(&tmpdir).unwrap();
    let mut server = Server::start_with(&[], |command| {
        command.env("TMPDIR", &tmpdir);
    });
    let links = tmpdir.join("catalyst-assets");
    // The warm worker links Catalyst's path before its session comes.
    let warm = server.wait_for_workers(1)[0];
    let warm_link = links.join(warm.to_string());
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::symlink_metadata(&warm_link).is_err() {
        assert!(Instant::now() < deadline, "no link {warm_link:?}");
        sleep(Duration::from_millis(20));
    }
    let open = || {
        let session = server.connect().unwrap();
        session
            .send_binary(object, BinaryFormat::SharedLibrary)
            .unwrap();
        session.send_binary(asset, BinaryFormat::Asset).unwrap();
        let worker = server.worker_of(server.session_dirs().last().unwrap());
        (session, links.join(worker.to_string()))
    };

    let (session, link) = open();
    assert_eq!(link, warm_link, "the session is not the warm worker's");
    let read = launch_1d(&session, "_mlir_ciface_read_catalyst_asset", object, &[]).unwrap();
    assert_eq!(read, floats(&[5., 6.]));
    session.close().unwrap();
    server.assert_sessions_cleaned_up();
    assert!(!link.exists(), "{link:?} outlives its session");

    // A worker that dies leaves no link either: the server removes it.
    let (crashing, link) = open();
    assert!(std::fs::symlink_metadata(&link).is_ok(), "no link {link:?}");
    crashing
        .launch("_mlir_ciface_segv", object, &[], &[])
        .unwrap_err();
    server.assert_sessions_cleaned_up();
    assert!(
        std::fs::symlink_metadata(&link).is_err(),
        "{link:?} outlives its killed worker"
    );
    // A server that stops removes its warm workers' links, and the
    // directory with the last.
    let waiting = server.wait_for_workers(1)[0];
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::fs::symlink_metadata(links.join(waiting.to_string())).is_err() {
        assert!(
            Instant::now() < deadline,
            "no link for the warm worker {waiting}"
        );
        sleep(Duration::from_millis(20));
    }
    // SAFETY: kill takes a process id and a signal number.
    let signalled = unsafe { libc::kill(server.process.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(signalled, 0);
    assert!(server.process.wait().unwrap().success());
    assert!(!links.exists(), "{links:?} outlives the server");
}

#[test]
fn an_object_file_is_linked_from_the_bytes_received_without_a_file() {
    let scratch = tempfile::tempdir().unwrap();
    let object = compile_kernels_to(&scratch.path().join("kernels.o"), &["-c"]);
    let object = object.to_str().unwrap();
    let server = Server::start(&[]);
    let session = server.connect().unwrap();
    session
        .send_binary(object, BinaryFormat::RelocatableObject)
        .unwrap();
    let stored: Vec<_> = std::fs::read_dir(&server.session_dirs()[0])
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(stored, ["assets"]);
    let sum = launch_1d(
        &session,
        "_mlir_ciface_add",
        object,
        &[&[1., 2.], &[3., 4.]],
    )
    .unwrap();
    assert_eq!(sum, floats(&[4., 6.]));
    session.close().unwrap();
}
