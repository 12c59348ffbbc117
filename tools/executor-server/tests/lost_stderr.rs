//! A server whose stderr is gone (a closed pipe: the ssh session it was
//! started from dropped, as scripts/executor-ssh starts it) still stops on
//! SIGTERM, removing what it made: logging must not end the thread that
//! handles the signal.

use std::{
    io::{BufRead, BufReader},
    process::{Command, Stdio},
    thread::sleep,
    time::{Duration, Instant},
};

#[test]
fn a_server_whose_stderr_is_closed_still_stops_on_sigterm() {
    let work_dir = tempfile::tempdir().unwrap();
    let mut server = Command::new(env!("CARGO_BIN_EXE_executor-server"))
        .args(["--listen", "127.0.0.1:0", "--work-dir"])
        .arg(work_dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.starts_with("Listening on "), "{line:?}");
    drop(server.stderr.take());

    // SAFETY: kill takes a process id and a signal number.
    let signalled = unsafe { libc::kill(server.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(signalled, 0);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = server.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            server.kill().unwrap();
            server.wait().unwrap();
            break None;
        }
        sleep(Duration::from_millis(20));
    };
    assert!(
        status.is_some_and(|status| status.success()),
        "the server did not stop cleanly within 10 s of SIGTERM: {status:?}"
    );
    let left: Vec<_> = std::fs::read_dir(work_dir.path()).unwrap().collect();
    assert!(left.is_empty(), "left in the work directory: {left:?}");
}
