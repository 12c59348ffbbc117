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

use std::{
    collections::BTreeMap,
    fs,
    io::{self, BufRead, BufReader, ErrorKind, Read, Write},
    net::{Shutdown, SocketAddr, TcpStream},
    os::unix::fs::PermissionsExt,
    path::PathBuf,
    process::{Child, ChildStdout, Command, Stdio},
    thread::sleep,
    time::{Duration, Instant},
};

use executor_abi::call_buffer::Layout;
use executor_buffers::packed::{self, CallArguments};
use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, LaunchFrame,
    PROTOCOL_VERSION, Request, Response, decode_payload, encode_frame,
};

use crate::{
    protocol::decoder::{self, Decoder},
    shared::findings::{Finding, Findings, excerpt},
    shared::minimize::{self, Budget},
    shared::rng::Rng,
    shared::signature::{Kind, Signature, normalize},
};

/// The token of the server under fuzz.
pub const TOKEN: &str = "executor-fuzz-token";

/// How long a complete frame may wait for its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to watch for a crash after a partial frame.
const PARTIAL_FRAME_WAIT: Duration = Duration::from_millis(150);

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

/// A running executor-server of the fuzzer, stopped when dropped.
struct Server {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    address: SocketAddr,
}

impl Server {
    fn start(options: &Options) -> io::Result<Self> {
        let token_file = options.work_dir.join("token");
        fs::write(&token_file, TOKEN)?;
        fs::set_permissions(&token_file, fs::Permissions::from_mode(0o600))?;
        let sessions = options.work_dir.join("sessions");
        fs::create_dir_all(&sessions)?;
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(options.work_dir.join("server.log"))?;
        let mut command = match options.address_space {
            Some(bytes) => {
                let mut sh = Command::new("/bin/sh");
                sh.args(["-c", "ulimit -v \"$0\" && exec \"$@\""])
                    .arg((bytes / 1024).to_string())
                    .arg(&options.server);
                sh
            }
            None => Command::new(&options.server),
        };
        // Loopback only, a free port.
        command
            .args(["--listen", "127.0.0.1:0", "--work-dir"])
            .arg(&sessions)
            .arg("--token-file")
            .arg(&token_file)
            .env("EXECUTOR_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log);
        let mut child = command.spawn()?;
        let mut stdout = BufReader::new(child.stdout.take().expect("piped"));
        let mut line = String::new();
        stdout.read_line(&mut line)?;
        let address = line
            .trim_end()
            .strip_prefix("listening on ")
            .and_then(|address| address.parse::<SocketAddr>().ok())
            .filter(|address| address.ip().is_loopback())
            .ok_or_else(|| {
                let _ = child.kill();
                let _ = child.wait();
                io::Error::other(format!("executor-server did not start: {line:?}"))
            })?;
        Ok(Self {
            child,
            _stdout: stdout,
            address,
        })
    }

    /// None while it runs, else how it ended.
    fn exited(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(None) => None,
            Ok(Some(status)) => Some(status.to_string()),
            Err(error) => Some(error.to_string()),
        }
    }

    /// SIGTERM (it removes its sessions' directories), then SIGKILL after 5 s.
    fn stop(&mut self) {
        if self.exited().is_some() {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while self.exited().is_none() && Instant::now() < deadline {
            sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// What came back for a frame.
#[derive(Debug)]
enum Reply {
    Frame(Vec<u8>),
    Closed,
    Timeout,
    Failed(String),
}

fn read_reply(stream: &mut TcpStream, limit: u32, timeout: Duration) -> Reply {
    let _ = stream.set_read_timeout(Some(timeout));
    let mut prefix = [0u8; 4];
    let mut filled = 0;
    while filled < 4 {
        match stream.read(&mut prefix[filled..]) {
            Ok(0) if filled == 0 => return Reply::Closed,
            Ok(0) => return Reply::Failed("the reply's length prefix is cut off".into()),
            Ok(count) => filled += count,
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Reply::Timeout;
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if error.kind() == ErrorKind::ConnectionReset => return Reply::Closed,
            Err(error) => return Reply::Failed(error.to_string()),
        }
    }
    let size = u32::from_be_bytes(prefix);
    if size > limit {
        return Reply::Failed(format!("a {size}-byte reply over the limit of {limit}"));
    }
    let mut payload = vec![0u8; size as usize];
    match stream.read_exact(&mut payload) {
        Ok(()) => Reply::Frame(payload),
        Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            Reply::Timeout
        }
        Err(error) => Reply::Failed(format!("the reply is cut off: {error}")),
    }
}

/// Whether `chunk` is one whole frame (its prefix says its length), and
/// whether its prefix is over `limit`.
fn frame_shape(chunk: &[u8], limit: u32) -> (bool, bool) {
    if chunk.len() < 4 {
        return (false, false);
    }
    let size = u32::from_be_bytes(chunk[..4].try_into().expect("4 bytes"));
    (
        size as usize == chunk.len() - 4 && size <= limit,
        size > limit,
    )
}

type Found = (Signature, String);

fn found(text: impl AsRef<str>, detail: impl Into<String>) -> Found {
    (
        Signature {
            kind: Kind::Server,
            text: normalize(text.as_ref()),
        },
        detail.into(),
    )
}

/// What one conversation did.
#[derive(Debug, Default)]
struct Conversation {
    frames: usize,
    replies: Vec<&'static str>,
}

fn response_name(response: &Response) -> &'static str {
    match response {
        Response::Done => "Done",
        Response::Launched { .. } => "Launched",
        Response::Token(_) => "Token",
        Response::CallResult(_) => "CallResult",
        Response::Failed { .. } => "Failed",
        Response::Crashed { .. } => "Crashed",
        Response::Pong { .. } => "Pong",
    }
}

/// Sends `chunks` on a new connection, the first as the handshake, each
/// next one once the previous got its answer; stops at a chunk that is not a
/// whole frame, or when the server ends the session. The finding, if any.
fn converse(address: SocketAddr, chunks: &[Vec<u8>], log: &mut Conversation) -> Result<(), Found> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))
        .map_err(|error| found("cannot connect", error.to_string()))?;
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_nodelay(true);
    let legit_hello = encode_frame(
        &Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Some(TOKEN.into()),
        },
        HANDSHAKE_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let mut limit: Option<u32> = None; // Some after Welcome: the session's limit.
    for (index, chunk) in chunks.iter().enumerate() {
        if stream.write_all(chunk).is_err() {
            // The server may close a session it refused or ended.
            return Ok(());
        }
        log.frames += 1;
        let frame_limit = limit.unwrap_or(HANDSHAKE_MAX_MESSAGE_SIZE);
        let (whole, oversized) = frame_shape(chunk, frame_limit);
        if !whole && !oversized {
            // Mid-frame: the server waits for the rest, so nothing is
            // expected; but a worker that dies on what it has read so far
            // says so at once.
            if limit.is_some()
                && let Reply::Frame(reply) = read_reply(&mut stream, u32::MAX, PARTIAL_FRAME_WAIT)
                && let Ok(Response::Crashed { symbol, signal }) = decode_payload::<Response>(&reply)
            {
                return Err(found(
                    format!(
                        "a worker died by signal {signal} (running {symbol:?}) on part of a frame"
                    ),
                    format!(
                        "Crashed {{ symbol: {symbol:?}, signal: {signal} }} (the server's log in the work directory says more)"
                    ),
                ));
            }
            return Ok(());
        }
        let what = if limit.is_none() { "Hello" } else { "request" };
        let reply = match read_reply(&mut stream, u32::MAX, ANSWER_TIMEOUT) {
            Reply::Frame(payload) => payload,
            Reply::Closed => {
                return Err(found(
                    format!("the connection was closed without an answer to a whole {what} frame"),
                    format!("frame {index} of {}", chunks.len()),
                ));
            }
            Reply::Timeout => {
                return Err(found(
                    format!(
                        "no answer to a whole {what} frame in {} s",
                        ANSWER_TIMEOUT.as_secs()
                    ),
                    format!("frame {index} of {}", chunks.len()),
                ));
            }
            Reply::Failed(error) => {
                return Err(found(format!("a broken reply to a {what} frame"), error));
            }
        };
        match limit {
            None => match decode_payload::<HelloReply>(&reply) {
                Ok(HelloReply::Welcome {
                    max_message_size, ..
                }) => {
                    log.replies.push("Welcome");
                    limit = Some(max_message_size);
                }
                Ok(HelloReply::Refused { reason }) => {
                    log.replies.push("Refused");
                    if *chunk == legit_hello {
                        return Err(found("the token's Hello is refused", reason));
                    }
                    return Ok(());
                }
                Err(error) => {
                    return Err(found(
                        "the reply to a Hello is not a HelloReply",
                        format!("{error}: {}", crate::shared::findings::hex(&reply)),
                    ));
                }
            },
            Some(_) => match decode_payload::<Response>(&reply) {
                Ok(Response::Crashed { symbol, signal }) => {
                    let log_hint = "(the server's log in the work directory says more)";
                    return Err(found(
                        format!(
                            "a worker died by signal {signal} (running {symbol:?}) though no client code ran"
                        ),
                        format!("Crashed {{ symbol: {symbol:?}, signal: {signal} }} {log_hint}"),
                    ));
                }
                Ok(response) => {
                    log.replies.push(response_name(&response));
                    let closing = oversized
                        || (response == Response::Done
                            && decode_payload::<Request>(&chunk[4..])
                                .is_ok_and(|r| r == Request::Close));
                    if closing {
                        return Ok(());
                    }
                }
                Err(error) => {
                    return Err(found(
                        "the reply to a request is not a Response",
                        format!("{error}: {}", crate::shared::findings::hex(&reply)),
                    ));
                }
            },
        }
    }
    // Done: hang up (half the time the client says Close first, as chunks do).
    let _ = stream.shutdown(Shutdown::Both);
    Ok(())
}

/// A legitimate client: handshake with the token, a call of a symbol no
/// library has (answered Failed), Close (answered Done).
fn legitimate_client(address: SocketAddr) -> Result<(), Found> {
    let hello = encode_frame(
        &Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Some(TOKEN.into()),
        },
        HANDSHAKE_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let call = encode_frame(
        &Request::Call {
            symbol: "executor_fuzz_no_such_symbol".into(),
            layout: Layout::ThisProject,
            arguments: packed::encode_arguments(&CallArguments {
                buffers: Vec::new(),
                num_inputs: 0,
            }),
        },
        DEFAULT_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let close = encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small");
    let mut log = Conversation::default();
    converse(address, &[hello, call, close], &mut log)?;
    if log.replies != ["Welcome", "Failed", "Done"] {
        return Err(found(
            "a legitimate client is not served",
            format!("replies {:?}", log.replies),
        ));
    }
    Ok(())
}

/// The chunks of connection `index`.
fn connection(
    rng: &mut Rng,
    request_seeds: &[Vec<u8>],
    donors: &[&[u8]],
    replay: Option<&Vec<u8>>,
) -> (&'static str, Vec<Vec<u8>>) {
    let hello = |token: Option<String>| {
        encode_frame(
            &Hello {
                protocol_version: PROTOCOL_VERSION,
                token,
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .expect("small")
    };
    let legit = hello(Some(TOKEN.into()));
    if let Some(frame) = replay {
        return ("replay", vec![legit, frame.clone()]);
    }
    match rng.weighted(&[3, 12, 85]) {
        0 => {
            let len = rng.below(100);
            ("garbage", vec![rng.bytes(len)])
        }
        1 => {
            let base = match rng.below(3) {
                0 => hello(None),
                1 => hello(Some("not-the-token".into())),
                _ => legit,
            };
            let mutated = decoder::mutate(rng, Decoder::Hello, &base, donors);
            let mut chunks = vec![mutated];
            if rng.chance(1, 2) {
                chunks
                    .push(encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small"));
            }
            ("hello", chunks)
        }
        _ => {
            let mut chunks = vec![legit];
            for _ in 0..rng.range(1, 4) {
                let base = rng.pick(request_seeds);
                chunks.push(match rng.weighted(&[70, 20, 10]) {
                    0 => decoder::mutate(rng, Decoder::Request, base, donors),
                    1 => base.clone(),
                    _ => {
                        let len = rng.below(40);
                        rng.bytes(len)
                    }
                });
            }
            if rng.chance(1, 2) {
                chunks
                    .push(encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small"));
            }
            ("session", chunks)
        }
    }
}

/// The chunks of a finding's input: each as a little-endian u32 length and
/// its bytes.
pub fn encode_chunks(chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in chunks {
        out.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out
}

pub fn decode_chunks(mut bytes: &[u8]) -> Option<Vec<Vec<u8>>> {
    let mut chunks = Vec::new();
    while !bytes.is_empty() {
        let len = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?) as usize;
        chunks.push(bytes.get(4..4 + len)?.to_vec());
        bytes = &bytes[4 + len..];
    }
    Some(chunks)
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
    // Every session has ended: their directories must go.
    let sessions = options.work_dir.join("sessions");
    let deadline = Instant::now() + Duration::from_secs(10);
    let left = loop {
        // Directories: the server keeps a lock file there while it runs.
        let left: Vec<String> = fs::read_dir(&sessions)?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
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
    // Nothing may be written beside the sessions' directory (an asset's
    // name that climbs out of it, say).
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
    // Minimize while the server runs, then stop it and read its log.
    minimize_all(&mut server, options, &mut report)?;
    server.stop();
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
    report.elapsed = started.elapsed();
    Ok(report)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_round_trip() {
        let chunks = vec![vec![1, 2, 3], vec![], vec![9; 300]];
        assert_eq!(decode_chunks(&encode_chunks(&chunks)), Some(chunks));
        assert_eq!(decode_chunks(&[5, 0, 0, 0, 1]), None);
    }

    /// A fake server on loopback that answers every connection with `reply`
    /// (None: closes without a word) after reading what the client sent.
    fn fake_server(reply: Option<Vec<u8>>) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut buffer = [0u8; 256];
                let _ = stream.read(&mut buffer);
                if let Some(reply) = reply {
                    let _ = stream.write_all(&reply);
                }
            }
        });
        address
    }

    fn legit_hello() -> Vec<u8> {
        encode_frame(
            &Hello {
                protocol_version: PROTOCOL_VERSION,
                token: Some(TOKEN.into()),
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .unwrap()
    }

    #[test]
    fn a_server_that_answers_garbage_is_a_finding() {
        let address = fake_server(Some(vec![0, 0, 0, 2, 7, 7]));
        let (signature, _) =
            converse(address, &[legit_hello()], &mut Conversation::default()).unwrap_err();
        assert_eq!(signature.kind, Kind::Server);
        assert_eq!(signature.text, "the reply to a Hello is not a HelloReply");
    }

    #[test]
    fn a_server_that_hangs_up_on_a_whole_frame_is_a_finding() {
        let address = fake_server(None);
        let (signature, _) =
            converse(address, &[legit_hello()], &mut Conversation::default()).unwrap_err();
        assert_eq!(
            signature.text,
            "the connection was closed without an answer to a whole Hello frame"
        );
    }

    #[test]
    fn a_crashed_worker_is_a_finding() {
        let welcome = encode_frame(
            &HelloReply::Welcome {
                protocol_version: PROTOCOL_VERSION,
                max_message_size: 1 << 20,
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .unwrap();
        let crashed = encode_frame(
            &Response::Crashed {
                symbol: String::new(),
                signal: 11,
            },
            1 << 20,
        )
        .unwrap();
        let mut reply = welcome;
        reply.extend(crashed);
        let address = fake_server(Some(reply));
        let close = encode_frame(&Request::Close, 1 << 20).unwrap();
        let (signature, _) = converse(
            address,
            &[legit_hello(), close],
            &mut Conversation::default(),
        )
        .unwrap_err();
        assert!(
            signature.text.starts_with("a worker died by signal N"),
            "{}",
            signature.text
        );
    }

    #[test]
    fn frame_shapes() {
        assert_eq!(frame_shape(&[0, 0, 0, 1, 7], 10), (true, false));
        assert_eq!(frame_shape(&[0, 0, 0, 2, 7], 10), (false, false));
        assert_eq!(frame_shape(&[0, 0, 0, 20, 7], 10), (false, true));
        assert_eq!(frame_shape(&[0, 0], 10), (false, false));
    }
}
