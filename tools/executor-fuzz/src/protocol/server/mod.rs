//! The executor-server fuzzer: a real `executor-server` on 127.0.0.1 (and
//! nowhere else), with a token file, gets connections that send mutated
//! Hellos, garbage, and sessions of mutated requests (made from valid frames
//! of the runtime's own encoder), a bounded number of them; every so often a
//! legitimate client must still be served.
//!
//! Oracles: every reply decodes (a `HelloReply` in the handshake, then a
//! `Response`); every complete frame gets exactly one answer, in time; a
//! `Crashed` answer (no client code runs: no valid object is ever sent) is a
//! worker crash; the server stays up and serves a legitimate client; its
//! log has no panic; session directories are gone after the sessions end.
//! The server runs under an address-space limit (`ulimit -v`), so that a
//! decoder that reserves far more than a frame holds makes its worker fail
//! visibly instead of on some other machine.

mod chunks;
mod conversation;
mod process;
mod scenarios;

use std::{
    collections::BTreeMap,
    fs, io,
    path::{Path, PathBuf},
    thread::sleep,
    time::{Duration, Instant},
};

use executor_protocol::{DEFAULT_MAX_MESSAGE_SIZE, LaunchFrame};

use crate::{
    protocol::decoder::{self, Decoder},
    shared::{
        findings::{Finding, Findings, excerpt},
        minimize::{self, Budget},
        rng::Rng,
        signature::Signature,
    },
};
pub use chunks::{decode_chunks, encode_chunks};
use conversation::{Conversation, Found, converse, found, legitimate_client};
use process::Server;
use scenarios::connection;

/// The token of the server under fuzz.
pub const TOKEN: &str = "executor-fuzz-token";

#[derive(Clone, Debug)]
pub struct Options {
    /// target/release/executor-server
    pub server: PathBuf,
    pub seed: u64,
    pub connections: usize,
    pub time: Option<Duration>,
    /// The token file, the sessions' directory and the server's log go here.
    pub work_dir: PathBuf,
    /// A legitimate client checks the server after this many connections.
    pub check_every: usize,
    /// The server's address-space limit, in bytes (`ulimit -v`).
    pub address_space: Option<u64>,
    /// Request frames sent first, one per session (the decoder's findings).
    pub replay_first: Vec<Vec<u8>>,
    pub minimize: Budget,
}

/// What a server fuzzing run did.
#[derive(Debug, Default)]
pub struct Report {
    pub connections: usize,
    pub frames: usize,
    pub by_scenario: BTreeMap<&'static str, usize>,
    pub replies: BTreeMap<&'static str, usize>,
    pub legitimate_checks: usize,
    pub restarts: usize,
    pub findings: Findings,
    pub elapsed: Duration,
}

impl Report {
    pub fn summary(&self) -> String {
        let join = |map: &BTreeMap<&str, usize>| {
            map.iter()
                .map(|(name, count)| format!("{name} {count}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{} connections ({}), {} frames sent; replies: {}; {} legitimate clients served; {} restarts",
            self.connections,
            join(&self.by_scenario),
            self.frames,
            join(&self.replies),
            self.legitimate_checks,
            self.restarts
        )
    }
}

fn finding(chunks: &[Vec<u8>], (signature, detail): Found, origin: String) -> Finding {
    let reproduce = if chunks.is_empty() {
        "(seen in the server's log or at the end of the run, not on one connection: see the other server findings)"
    } else {
        "target/release/executor-fuzz replay-server INPUT"
    };
    Finding {
        target: "server".into(),
        signature,
        input: encode_chunks(chunks),
        extension: "bin",
        reproduce: reproduce.into(),
        detail: excerpt(&detail, 40),
        origin,
        minimized: None,
        count: 1,
        known: None,
    }
}

/// Runs `chunks` on `server` (restarted first if it died); the finding they
/// make, a dead server included.
fn attempt(
    server: &mut Server,
    options: &Options,
    chunks: &[Vec<u8>],
    log: &mut Conversation,
    restarts: &mut usize,
) -> io::Result<Option<Found>> {
    if server.exited().is_some() {
        *server = Server::start(options)?;
        *restarts += 1;
    }
    let result = converse(server.address, chunks, log);
    // A crash of the server itself may take a moment to show.
    if let Some(status) = server.exited().or_else(|| {
        sleep(Duration::from_millis(5));
        server.exited()
    }) {
        return Ok(Some(found("the server exited", status)));
    }
    Ok(result.err())
}

/// Fuzzes a server: `options.connections` connections, or until the time
/// runs out; then checks the sessions' directories and the server's log,
/// and minimizes each finding by frames.
pub fn fuzz(options: &Options) -> io::Result<Report> {
    let started = Instant::now();
    fs::create_dir_all(&options.work_dir)?;
    let _ = fs::remove_file(options.work_dir.join("server.log"));
    let mut server = Server::start(options)?;
    let mut report = Report::default();
    let seeds = decoder::seeds();
    let donors: Vec<&[u8]> = seeds.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    let mut request_seeds: Vec<Vec<u8>> = seeds
        .iter()
        .filter(|(d, _)| *d == Decoder::Request)
        .map(|(_, bytes)| bytes.clone())
        .collect();
    // A launch without inputs or outputs, as LaunchFrame writes it.
    request_seeds.push(
        LaunchFrame::new("k", "none.o", &[], &[], DEFAULT_MAX_MESSAGE_SIZE)
            .expect("small")
            .to_vec(),
    );
    for index in 0..options.connections {
        if options.time.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
        let mut rng = Rng::derive(options.seed, index as u64);
        let (scenario, chunks) = connection(
            &mut rng,
            &request_seeds,
            &donors,
            options.replay_first.get(index),
        );
        *report.by_scenario.entry(scenario).or_default() += 1;
        let mut log = Conversation::default();
        let result = attempt(
            &mut server,
            options,
            &chunks,
            &mut log,
            &mut report.restarts,
        )?;
        report.connections += 1;
        report.frames += log.frames;
        for reply in log.replies {
            *report.replies.entry(reply).or_default() += 1;
        }
        if let Some(found) = result {
            report.findings.add(finding(
                &chunks,
                found,
                format!("seed {}, connection {index} ({scenario})", options.seed),
            ));
        }
        if (index + 1) % options.check_every.max(1) == 0 {
            check_legitimate(&mut server, options, &mut report)?;
        }
    }
    check_legitimate(&mut server, options, &mut report)?;
    check_sessions_ended(options, &mut report)?;
    check_no_strays(options, &mut report)?;
    // Minimize while the server runs, then stop it and read its log.
    minimize_all(&mut server, options, &mut report)?;
    server.stop();
    check_server_log(options, &mut report);
    report.elapsed = started.elapsed();
    Ok(report)
}

/// Every session has ended: their directories must go, and only the one
/// spare the server makes for the next session may be there, empty but for
/// its empty `assets` directory.
fn check_sessions_ended(options: &Options, report: &mut Report) -> io::Result<()> {
    let sessions = options.work_dir.join("sessions");
    let deadline = Instant::now() + Duration::from_secs(10);
    let left = loop {
        // Directories: the server keeps a lock file there while it runs.
        let mut left: Vec<String> = fs::read_dir(&sessions)?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        if let [only] = left.as_slice()
            && is_spare(&sessions.join(only))
        {
            left.clear();
        }
        if left.is_empty() || Instant::now() >= deadline {
            break left;
        }
        sleep(Duration::from_millis(50));
    };
    if !left.is_empty() {
        report.findings.add(finding(
            &[],
            found(
                "session directories are left behind after their sessions ended",
                format!("{left:?}"),
            ),
            "the end of the run".into(),
        ));
    }
    Ok(())
}

/// Whether the session directory `path` holds nothing but an empty
/// `assets` directory, as the spare the server makes for the next session
/// does.
fn is_spare(path: &Path) -> bool {
    let names = |path: &Path| -> Vec<std::ffi::OsString> {
        fs::read_dir(path)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .map(|entry| entry.file_name())
                    .collect()
            })
            .unwrap_or_default()
    };
    names(path) == ["assets"] && names(&path.join("assets")).is_empty()
}

/// Nothing may be written beside the sessions' directory (an asset's name
/// that climbs out of it, say).
fn check_no_strays(options: &Options, report: &mut Report) -> io::Result<()> {
    let strays: Vec<String> = fs::read_dir(&options.work_dir)?
        .filter_map(|entry| {
            entry
                .ok()
                .map(|e| e.file_name().to_string_lossy().into_owned())
        })
        .filter(|name| !matches!(name.as_str(), "token" | "server.log" | "sessions"))
        .collect();
    if !strays.is_empty() {
        report.findings.add(finding(
            &[],
            found(
                "files appear beside the sessions' directory",
                format!("{strays:?}"),
            ),
            "the end of the run".into(),
        ));
    }
    Ok(())
}

/// The server's log, once it stopped: no panic, no worker killed by a
/// signal, no failed allocation.
fn check_server_log(options: &Options, report: &mut Report) {
    let server_log = fs::read_to_string(options.work_dir.join("server.log")).unwrap_or_default();
    for (marker, what) in [
        ("panicked at", "the server or a worker panicked"),
        ("died by a signal", "the log says a worker died by a signal"),
        ("memory allocation of", "the log says an allocation failed"),
    ] {
        if let Some(line) = server_log.lines().find(|line| line.contains(marker)) {
            // Without the timestamp, so that the same line is the same finding.
            let message = line
                .split_once(' ')
                .filter(|(time, _)| time.ends_with('Z'))
                .map_or(line, |(_, rest)| rest);
            report.findings.add(finding(
                &[],
                found(format!("{what}: {message}"), line),
                format!("its log, {}", options.work_dir.join("server.log").display()),
            ));
        }
    }
}

fn check_legitimate(server: &mut Server, options: &Options, report: &mut Report) -> io::Result<()> {
    if server.exited().is_some() {
        *server = Server::start(options)?;
        report.restarts += 1;
    }
    match legitimate_client(server.address) {
        Ok(()) => report.legitimate_checks += 1,
        Err(found) => {
            report.findings.add(finding(
                &[],
                found,
                format!(
                    "a legitimate client after {} connections",
                    report.connections
                ),
            ));
        }
    }
    Ok(())
}

fn minimize_all(server: &mut Server, options: &Options, report: &mut Report) -> io::Result<()> {
    if options.minimize.tests == 0 {
        return Ok(());
    }
    let mut restarts = 0;
    for finding in report.findings.iter_mut() {
        let Some(chunks) = decode_chunks(&finding.input).filter(|c| !c.is_empty()) else {
            continue;
        };
        let wanted = finding.signature.clone();
        let mut error = None;
        let result =
            minimize::minimize_chunks(&chunks, options.minimize, &mut |candidate: &[Vec<u8>]| {
                let mut log = Conversation::default();
                match attempt(server, options, candidate, &mut log, &mut restarts) {
                    Ok(found) => found.is_some_and(|(signature, _)| signature == wanted),
                    Err(e) => {
                        error.get_or_insert(e);
                        false
                    }
                }
            });
        if let Some(error) = error {
            return Err(error);
        }
        if result.reproduced {
            finding.minimized = Some(encode_chunks(&result.chunks));
        }
    }
    report.restarts += restarts;
    Ok(())
}

/// Replays a finding's chunks on a fresh server: the finding they make.
pub fn replay(options: &Options, chunks: &[Vec<u8>]) -> io::Result<Option<(Signature, String)>> {
    fs::create_dir_all(&options.work_dir)?;
    let mut server = Server::start(options)?;
    let mut log = Conversation::default();
    let mut restarts = 0;
    let result = attempt(&mut server, options, chunks, &mut log, &mut restarts)?;
    eprintln!("replies: {:?}", log.replies);
    Ok(result)
}
