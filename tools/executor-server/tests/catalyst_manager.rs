//! The command line Catalyst's deployment manager (`catalyst.executor`) uses
//! for its `catalyst-executor`: `--bind=HOST:PORT` and `--plugin=LIB`, a
//! readiness line per address matching `Listening on \S+:\d+` (its stdout and
//! stderr are read merged, line by line), and on a port in use a line with
//! "Address already in use", on which it tries another port.
//! test/Deploy/catalyst-manager*.test run the manager itself.

mod common;

use std::{
    io::{BufRead, BufReader},
    net::TcpListener,
    process::{Command, Output, Stdio},
};

use common::{SERVER, Server};

/// Whether `line` holds a match of Catalyst's `Listening on \S+:\d+` (a
/// search, case-sensitive): after "Listening on ", a run of non-blank
/// characters with a ':' that is not its first and is followed by a digit.
fn catalyst_sees_ready(line: &str) -> bool {
    line.match_indices("Listening on ").any(|(at, prefix)| {
        let word = line[at + prefix.len()..]
            .split(char::is_whitespace)
            .next()
            .unwrap_or("");
        word.char_indices().skip(1).any(|(colon, c)| {
            c == ':' && word[colon + 1..].starts_with(|d: char| d.is_ascii_digit())
        })
    })
}

#[test]
fn the_readiness_check_is_catalysts_pattern() {
    assert!(catalyst_sees_ready("Listening on 127.0.0.1:9000"));
    assert!(catalyst_sees_ready("Listening on [::1]:9000\r"));
    assert!(catalyst_sees_ready("[executor] Listening on h:1 x"));
    assert!(!catalyst_sees_ready("listening on 127.0.0.1:9000"));
    assert!(!catalyst_sees_ready("Listening on :9000"));
    assert!(!catalyst_sees_ready("Listening on unix:/tmp/s.sock"));
    assert!(!catalyst_sees_ready("Listening on 127.0.0.1:"));
}

/// Runs the server with `args` until it exits (it is expected to fail).
fn run_to_exit(args: &[&str]) -> Output {
    Command::new(SERVER)
        .args(args)
        .env("EXECUTOR_LOG", "error")
        .stdin(Stdio::null())
        .output()
        .expect("executor-server runs")
}

#[test]
fn bind_is_listen_in_both_spellings_and_every_address_is_announced() {
    let work_dir = tempfile::tempdir().unwrap();
    let mut command = Command::new(SERVER);
    command.args(["--bind=127.0.0.1:0", "--bind", "127.0.0.2:0"]);
    let mut server = Server::spawn(command, work_dir.path());
    let mut lines = vec![format!("Listening on {}", server.address)];
    let mut second = String::new();
    server.stdout.read_line(&mut second).unwrap();
    lines.push(second.trim_end().to_owned());
    for (line, host) in lines.iter().zip(["127.0.0.1:", "127.0.0.2:"]) {
        assert!(catalyst_sees_ready(line), "{line:?}");
        assert!(
            line.starts_with(&format!("Listening on {host}")),
            "{line:?}"
        );
        let address = line.strip_prefix("Listening on ").unwrap();
        server_answers(address);
    }
}

fn server_answers(address: &str) {
    let output = Command::new(SERVER)
        .args(["--check", address])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{address}: {}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn plugin_is_preload_in_both_spellings() {
    let missing = "/nonexistent/plugin.so";
    for args in [
        vec!["--listen=127.0.0.1:0", "--plugin=/nonexistent/plugin.so"],
        vec!["--listen=127.0.0.1:0", "--plugin", missing],
    ] {
        let output = run_to_exit(&args);
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with(&format!("executor-server: cannot preload '{missing}'")),
            "{args:?}: {stderr}"
        );
    }

    let libraries = tempfile::tempdir().unwrap();
    let plugin = common::compile_kernels(libraries.path());
    let plugin = plugin.to_str().unwrap();
    for args in [
        vec![format!("--plugin={plugin}")],
        vec!["--plugin".to_owned(), plugin.to_owned()],
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let server = Server::start(&args);
        server_answers(&server.address);
    }
}

#[test]
fn a_port_in_use_is_the_line_catalyst_retries_on_and_exit_1() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = run_to_exit(&[&format!("--bind={address}")]);
    assert_eq!(output.status.code(), Some(1));
    // Nothing on stdout: no readiness line for an address not bound.
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("Address already in use"), "{stderr}");
    assert!(stderr.contains(&address), "{stderr}");
}

/// With two addresses, the second of them taken: the first is not announced
/// either, since the manager would take it for a server that is ready.
#[test]
fn no_address_is_announced_unless_all_are_bound() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let mut server = Command::new(SERVER)
        .args(["--bind=127.0.0.2:0", &format!("--bind={address}")])
        .env("EXECUTOR_LOG", "error")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    BufReader::new(server.stdout.take().unwrap())
        .read_line(&mut stdout)
        .unwrap();
    let status = server.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    assert_eq!(stdout, "");
}
