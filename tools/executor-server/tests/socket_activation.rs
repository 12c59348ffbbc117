//! executor-server started with its listening socket passed as systemd passes
//! it (socket activation: descriptor 3, LISTEN_PID and LISTEN_FDS), on
//! loopback or a Unix socket only. The socket is bound here, so no port is
//! guessed.

use std::{
    io::{BufRead, BufReader},
    net::{TcpListener, UdpSocket},
    os::{
        fd::{AsRawFd, RawFd},
        unix::{net::UnixListener, process::CommandExt},
    },
    process::{Child, Command, Output, Stdio},
};

use executor_runtime::{
    executor::Executor,
    remote::{ConnectOptions, RemoteExecutor, TlsTrust},
};

mod common;

use common::{gen_identity, token_file};

/// executor-server with `passed` as its descriptor 3 and the variables that
/// say so: `sh` sets LISTEN_PID to its own id, which `exec` keeps.
fn server_with_passed_socket(passed: RawFd, args: &[&str]) -> Command {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(r#"export LISTEN_PID=$$ LISTEN_FDS=1; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_executor-server"))
        .args(args)
        .env("EXECUTOR_LOG", "error")
        .stdin(Stdio::null());
    let move_to_3 = move || {
        // SAFETY: dup2 and fcntl take descriptors and flags only, and are
        // async-signal-safe, as the child between fork and exec requires.
        let moved = unsafe {
            if passed == 3 {
                libc::fcntl(3, libc::F_SETFD, 0)
            } else {
                libc::dup2(passed, 3)
            }
        };
        if moved == -1 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    };
    // SAFETY: the closure only makes async-signal-safe calls.
    unsafe { command.pre_exec(move_to_3) };
    command
}

/// A server given `passed`, a listening socket at `address`, and `args`,
/// once it has said it listens there.
fn serve_passed_socket(passed: RawFd, address: &str, args: &[&str]) -> Running {
    let mut server = server_with_passed_socket(passed, args);
    let mut server = Running(server.stdout(Stdio::piped()).spawn().unwrap());
    let mut line = String::new();
    BufReader::new(server.0.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim_end(), format!("Listening on {address}"));
    server
}

/// [`serve_passed_socket`] of a socket of 127.0.0.1 bound here; and its
/// address.
fn serve_passed_loopback_socket(args: &[&str]) -> (Running, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    (
        serve_passed_socket(listener.as_raw_fd(), &address, args),
        address,
    )
}

/// What a server that must refuse to start said, after checking it failed.
fn refusal(output: Output) -> String {
    assert!(!output.status.success(), "the server started");
    String::from_utf8_lossy(&output.stderr).trim().to_owned()
}

/// Whether descriptor `fd` of process `pid` is close-on-exec (O_CLOEXEC in
/// the octal flags of /proc/PID/fdinfo/FD).
fn close_on_exec(pid: u32, fd: RawFd) -> bool {
    let info = std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}")).unwrap();
    let flags = info
        .lines()
        .find_map(|line| line.strip_prefix("flags:"))
        .and_then(|flags| i32::from_str_radix(flags.trim(), 8).ok())
        .unwrap_or_else(|| panic!("no flags in /proc/{pid}/fdinfo/{fd}: {info}"));
    flags & libc::O_CLOEXEC != 0
}

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_passed_socket_is_served_with_the_token_and_is_close_on_exec() {
    let scratch = tempfile::tempdir().unwrap();
    let token = token_file(scratch.path(), "correct horse\n");
    let (server, address) = serve_passed_loopback_socket(&[
        "--token-file",
        token.to_str().unwrap(),
        "--work-dir",
        scratch.path().to_str().unwrap(),
    ]);
    // Workers, which the server starts for sessions, must not get it.
    assert!(close_on_exec(server.0.id(), 3));

    let connect = |token: &str| {
        let options = ConnectOptions {
            token: Some(token.to_owned()),
            ..ConnectOptions::default()
        };
        RemoteExecutor::connect_with(&address, &options)
    };
    let wrong = connect("battery staple").err().unwrap().to_string();
    assert!(wrong.contains("wrong token"), "{wrong}");
    connect("correct horse").unwrap().close().unwrap();
}

#[test]
fn a_passed_socket_serves_tls_as_the_system_unit_starts_it() {
    let scratch = tempfile::tempdir().unwrap();
    let token = token_file(scratch.path(), "correct horse\n");
    let identity = gen_identity(&scratch.path().join("identity"));
    // The flags of dist/systemd/executor-server.service.in's ExecStart=.
    let (_server, address) = serve_passed_loopback_socket(&[
        "--token-file",
        token.to_str().unwrap(),
        "--tls-cert",
        identity.cert.to_str().unwrap(),
        "--tls-key",
        identity.key.to_str().unwrap(),
        "--work-dir",
        scratch.path().to_str().unwrap(),
    ]);

    let connect = |tls: Option<TlsTrust>| {
        let options = ConnectOptions {
            token: Some("correct horse".to_owned()),
            tls,
            ..ConnectOptions::default()
        };
        RemoteExecutor::connect_with(&address, &options)
    };
    let plaintext = connect(None).err().unwrap().to_string();
    assert!(plaintext.contains("this server speaks TLS"), "{plaintext}");
    connect(Some(TlsTrust::Fingerprint(identity.fingerprint)))
        .unwrap()
        .close()
        .unwrap();
}

#[test]
fn a_passed_unix_socket_is_served_to_allowed_uids_and_its_file_is_left_to_systemd() {
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("executor.sock");
    let listener = UnixListener::bind(&path).unwrap();
    let address = format!("unix:{}", path.display());
    let start = |args: &[&str]| serve_passed_socket(listener.as_raw_fd(), &address, args);
    let work_dir = ["--work-dir", scratch.path().to_str().unwrap()];
    let server = start(&work_dir);
    RemoteExecutor::connect_with(&address, &ConnectOptions::default())
        .unwrap()
        .close()
        .unwrap();
    drop(server);
    // Systemd made the file and keeps it for the next start.
    assert!(path.exists());

    let _server = start(&[work_dir[0], work_dir[1], "--allow-uid", "4242"]);
    let refused = RemoteExecutor::connect_with(&address, &ConnectOptions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(
        refused.contains("is not allowed on this server's socket"),
        "{refused}"
    );
}

#[test]
fn a_passed_socket_that_is_not_loopback_needs_a_token_file() {
    // Nothing accepts on it: the server refuses to start.
    let listener = TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let error = refusal(
        server_with_passed_socket(listener.as_raw_fd(), &[])
            .output()
            .unwrap(),
    );
    assert_eq!(
        error,
        format!(
            "executor-server: refusing to listen on '0.0.0.0:{port} (passed by systemd)' without \
             --token-file: it is not a loopback address, so anyone who can reach it could run code \
             on this machine"
        )
    );
}

#[test]
fn a_passed_descriptor_that_is_no_listening_tcp_socket_is_refused() {
    let datagram = UdpSocket::bind("127.0.0.1:0").unwrap();
    let error = refusal(
        server_with_passed_socket(datagram.as_raw_fd(), &[])
            .output()
            .unwrap(),
    );
    assert_eq!(
        error,
        "executor-server: cannot serve the sockets passed by systemd: descriptor 3 (of \
         LISTEN_FDS=1) is neither a TCP nor a Unix stream socket: a ListenStream= of an IP \
         address and port, or of a socket file's path, is served"
    );
}

#[test]
fn listen_addresses_cannot_be_given_with_passed_sockets() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let output = server_with_passed_socket(listener.as_raw_fd(), &["--listen", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(
        refusal(output),
        "executor-server: --listen cannot be given when systemd passes the sockets (LISTEN_FDS)"
    );
}
