//! Runs a session's worker process and watches it: it notices when the client
//! disconnects, and when the worker dies by a signal tells the client which
//! kernel crashed, from the status table the worker keeps in memory shared
//! with this process (`status.rs`).
//!
//! The worker (`spawn.rs`) is started before its session, as a warm one
//! (`warm_pool.rs`), or for it when none is waiting; the session goes to it at its first request
//! that is not a `Ping` (the supervisor answers those itself, `ping.rs`). The
//! supervisor sleeps in `poll` on a pidfd of the worker (readable when it
//! exits) and on the connection (for the client hanging up): nothing wakes it
//! while the session runs.
//!
//! Over TLS, the supervisor hands the worker the session's secrets with the
//! connection and keeps them: the worker notes in the status table the
//! sequence number of its next record after each write, and that it is
//! writing while it writes, so that a crash report can be sent as the record
//! after its last. A worker that died while writing leaves the session
//! unreported: the client sees the connection end.

use std::{
    io::{self, Write},
    os::{
        fd::{AsRawFd, FromRawFd, OwnedFd, RawFd},
        unix::process::ExitStatusExt,
    },
    path::Path,
    process::{Child, ExitStatus},
    time::{Duration, Instant},
};

use crate::{
    Accepting, Settings, catalyst_assets,
    handover::SessionTls,
    linger::close_gracefully,
    link::Link,
    ping,
    shutdown::kill_process_group,
    spawn::SpawnedWorker,
    status::{RecordsSent, RunningSymbols, StatusTable},
    steps,
    warm_pool::WarmPool,
};
use executor_protocol::{
    self as protocol, Response, Step, Stream, signal_name,
    tls::{TlsRecords, TlsSessionSecrets},
};

/// How long a worker may go on after its client disconnected (it notices on
/// its next read, unless a kernel keeps it busy) before it is killed.
const DISCONNECT_GRACE: Duration = Duration::from_secs(2);

/// How long reporting a crash may block on a client that does not read.
const REPORT_TIMEOUT: Duration = Duration::from_secs(5);

/// How often the worker is checked for having exited where there is no pidfd
/// to wait on (Linux before 5.3).
const EXIT_CHECK_INTERVAL: Duration = Duration::from_millis(50);

/// Serves the session `id` on `stream` in a worker process, a warm one of
/// the server's pool if one is waiting, and returns once the worker and
/// every process its kernels started have ended and the connection is
/// closed. `handshake` is the step the session's handshake took.
pub(crate) fn run(
    id: u64,
    stream: &Stream,
    link: Link<'_>,
    directory: &Path,
    server: &Accepting,
    handshake: Step,
) {
    let (settings, live_sessions, pool) = (
        &*server.settings,
        &*server.live_sessions,
        &*server.warm_workers,
    );
    let pong = || Response::Pong {
        sessions: u32::try_from(live_sessions.count().saturating_sub(1)).unwrap_or(u32::MAX),
        max_sessions: settings.max_sessions,
    };
    let (request_head, tls) = match link {
        Link::Plain(_) => {
            ping::poll_for_bytes(stream);
            let Some(request_head) = ping::answer_pings(&mut &*stream, pong) else {
                return;
            };
            (request_head, None)
        }
        Link::Tls(mut session) => {
            let Some(request_head) = ping::answer_pings(&mut *session, pong) else {
                return;
            };
            match session.hand_over() {
                Ok(handover) => (
                    request_head,
                    Some(SessionTls {
                        secrets: handover.secrets,
                        unread_plaintext: handover.unread_plaintext,
                    }),
                ),
                Err(error) => {
                    tracing::info!(%error, "cannot hand the TLS session over");
                    return;
                }
            }
        }
    };
    let started = start_session(
        stream,
        directory,
        &request_head,
        tls.as_ref(),
        settings,
        pool,
        handshake,
    );
    let (mut child, status) = match started {
        Ok(started) => started,
        Err(error) => {
            tracing::error!(%error, program = %settings.worker_program.display(), "cannot start a worker");
            let secrets = tls.as_ref().map(|tls| &tls.secrets);
            report(
                stream,
                secrets.map(|secrets| (secrets, secrets.tx().sequence())),
                &Response::Failed {
                    message: format!("the server cannot start a worker: {error}"),
                },
            );
            return;
        }
    };
    tracing::debug!(pid = child.id(), "worker serving the session");
    live_sessions.set_worker(id, Some(child.id()));
    let client_gone = watch(&mut child, &status, stream);
    // Before the worker is reaped, while its pid still names its group:
    // processes its kernels started end with the session.
    live_sessions.set_worker(id, None);
    kill_process_group(child.id());
    // A killed worker leaves its link to Catalyst's asset path behind:
    // removed before it is reaped, while its pid names no other process.
    catalyst_assets::remove_link_of(child.id());
    let exit = match child.wait() {
        Ok(exit) => exit,
        Err(error) => {
            tracing::error!(%error, "cannot wait for the worker");
            return;
        }
    };
    // The worker is gone: what the table says now is what it was running,
    // and, over TLS, where its records stopped. The report goes on as its
    // next record, unless it died while sending: which numbers it used is
    // then unknown, and a number used twice reuses an AES-GCM nonce.
    let next_record = tls.as_ref().map(|tls| match status.records_sent() {
        RecordsSent::NoneRecorded => Some(tls.secrets.tx().sequence()),
        RecordsSent::UpTo(next) => Some(next),
        RecordsSent::Writing => None,
    });
    let reportable = !matches!(next_record, Some(None));
    if !reportable {
        tracing::warn!("the worker died while sending a TLS record: the session ends unreported");
    }
    let position = tls
        .as_ref()
        .zip(next_record.flatten())
        .map(|(tls, next)| (&tls.secrets, next));
    conclude(
        stream,
        position,
        exit,
        &status.running_symbols(),
        client_gone || !reportable,
    );
}

/// Hands the session to a warm worker, or to one started for it when none is
/// waiting (or the one taken is gone), with the steps measured so far: the
/// `handshake`, and this.
fn start_session(
    stream: &Stream,
    directory: &Path,
    request_head: &[u8],
    tls: Option<&SessionTls>,
    settings: &Settings,
    pool: &WarmPool,
    handshake: Step,
) -> io::Result<(Child, StatusTable)> {
    let begun = Instant::now();
    let mut taken = pool.take();
    if let Some(warm) = taken.worker.take() {
        let steps = [
            handshake.clone(),
            steps::since(steps::WARM_HAND_OVER, begun),
        ];
        match warm.hand_over(stream, directory, request_head, tls, &steps) {
            Ok(started) => return Ok(started),
            Err(error) => tracing::warn!(%error, "a warm worker could not take the session"),
        }
    }
    // Nothing is handed over from the pool: its replacement may start
    // (after its delay) while a worker is started for this session.
    drop(taken);
    let worker = SpawnedWorker::spawn(settings)?;
    let steps = [handshake, steps::since(steps::WORKER_START, begun)];
    worker.hand_over(stream, directory, request_head, tls, &steps)
}

/// Waits until the worker exits. A client that disconnects gets its worker
/// killed after [`DISCONNECT_GRACE`], so a kernel that never returns cannot
/// keep an abandoned session alive. Returns whether the client disconnected.
fn watch(child: &mut Child, status: &StatusTable, stream: &Stream) -> bool {
    let exited = match pidfd_open(child.id()) {
        Ok(pidfd) => Some(pidfd),
        Err(error) => {
            tracing::debug!(%error, "no pidfd: checking the worker every {EXIT_CHECK_INTERVAL:?}");
            None
        }
    };
    watch_with(child, status, stream, exited)
}

/// [`watch`], given the worker's pidfd if there is one.
fn watch_with(
    child: &mut Child,
    status: &StatusTable,
    stream: &Stream,
    exited: Option<OwnedFd>,
) -> bool {
    let mut client_gone = false;
    let mut kill_at = None;
    loop {
        let mut timeout = kill_at.map(|at: Instant| at.saturating_duration_since(Instant::now()));
        if exited.is_none() {
            timeout =
                Some(timeout.map_or(EXIT_CHECK_INTERVAL, |left| left.min(EXIT_CHECK_INTERVAL)));
        }
        let timeout_ms = timeout.map_or(-1, |left| {
            i32::try_from(left.as_millis() + 1).unwrap_or(i32::MAX)
        });
        let (worker_exited, disconnected) = match poll(
            exited.as_ref(),
            (!client_gone).then_some(stream),
            timeout_ms,
        ) {
            Ok(ready) => ready,
            Err(error) => {
                tracing::error!(%error, "cannot watch the worker");
                break;
            }
        };
        // Without a pidfd, `try_wait` reaps an exited worker; `wait` then
        // returns the status it saved.
        if worker_exited || (exited.is_none() && !matches!(child.try_wait(), Ok(None))) {
            break;
        }
        if disconnected {
            tracing::info!("the client disconnected");
            client_gone = true;
            kill_at = Some(Instant::now() + DISCONNECT_GRACE);
        }
        if kill_at.is_some_and(|at| Instant::now() >= at) {
            kill_at = None;
            if let Ok(None) = child.try_wait() {
                let running = status.running_symbols();
                tracing::warn!(running = %running.describe(), "killing the worker of a disconnected client");
                let _ = child.kill();
            }
        }
    }
    client_gone
}

/// A descriptor that becomes readable when the process `pid` (a child not yet
/// waited for, so the number cannot have been reused) exits.
fn pidfd_open(pid: u32) -> io::Result<OwnedFd> {
    let pid = libc::pid_t::try_from(pid).map_err(io::Error::other)?;
    // SAFETY: pidfd_open takes a pid and flags and returns a new descriptor
    // or -1; no memory is involved.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    let fd = RawFd::try_from(fd).map_err(io::Error::other)?;
    // SAFETY: pidfd_open returned a new descriptor (close-on-exec, as every
    // pidfd is) that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Waits until the worker has exited (when `exited`, its pidfd, is given) or,
/// when `stream` is given, the client has hung up; returns which of the two
/// happened.
fn poll(
    exited: Option<&OwnedFd>,
    stream: Option<&Stream>,
    timeout_ms: i32,
) -> io::Result<(bool, bool)> {
    let mut fds = [
        libc::pollfd {
            // A negative descriptor is ignored by poll.
            fd: exited.map_or(-1, AsRawFd::as_raw_fd),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: stream.map_or(-1, AsRawFd::as_raw_fd),
            events: libc::POLLRDHUP,
            revents: 0,
        },
    ];
    loop {
        // SAFETY: `fds` is an array of initialized pollfd of the given length.
        let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout_ms) };
        if ready >= 0 {
            break;
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
    let hung_up = libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR;
    Ok((fds[0].revents != 0, fds[1].revents & hung_up != 0))
}

/// Over TLS: the session's secrets and the sequence number of the next
/// record to the client.
type TlsPosition<'a> = Option<(&'a TlsSessionSecrets, u64)>;

/// Tells a client that is still there how its session ended, if the worker
/// could not: it died by a signal, or exited in the middle of a request.
fn conclude(
    stream: &Stream,
    tls: TlsPosition<'_>,
    exit: ExitStatus,
    running: &RunningSymbols,
    client_gone: bool,
) {
    let symbol = running.describe();
    let response = match exit.signal() {
        Some(signal) => {
            tracing::warn!(%symbol, signal = signal_name(signal), "the worker died by a signal");
            // An empty symbol tells the client no kernel ran: it was killed.
            Response::Crashed {
                symbol: if running.is_empty() {
                    String::new()
                } else {
                    symbol
                },
                signal,
            }
        }
        None if !running.is_empty() => {
            tracing::warn!(%symbol, %exit, "the worker exited in the middle of a request");
            Response::Failed {
                message: format!("the executor's worker exited ({exit}) while running {symbol}"),
            }
        }
        None => {
            tracing::debug!(%exit, "worker exited");
            return;
        }
    };
    if !client_gone {
        report(stream, tls, &response);
    }
}

/// Sends a last message and closes the connection (over TLS, as the record
/// numbered as `tls` says, then close_notify).
fn report(stream: &Stream, tls: TlsPosition<'_>, response: &Response) {
    let _ = stream.set_write_timeout(Some(REPORT_TIMEOUT));
    let sent = match tls {
        None => protocol::write_message(&mut &*stream, response, u32::MAX),
        Some((secrets, next)) => {
            TlsRecords::resume(stream, &secrets.with_tx_sequence(next), Vec::new())
                .map_err(io::Error::from)
                .and_then(|mut records| {
                    let frame =
                        protocol::encode_frame(response, u32::MAX).map_err(io::Error::other)?;
                    records.write_all(&frame)?;
                    records.close()
                })
                .map_err(protocol::ProtocolError::Io)
        }
    };
    if let Err(error) = sent {
        tracing::info!(%error, "cannot report to the client");
    }
    close_gracefully(stream);
}

#[cfg(test)]
mod tests {
    use std::{
        net::{TcpListener, TcpStream},
        process::Command,
    };

    use super::*;

    fn connection() -> (Stream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (Stream::Tcp(listener.accept().unwrap().0), client)
    }

    #[test]
    fn the_exit_of_the_worker_is_seen_with_and_without_a_pidfd() {
        for with_pidfd in [true, false] {
            let (stream, _client) = connection();
            let (status, _file) = StatusTable::create().unwrap();
            let mut child = Command::new("sleep").arg("0.1").spawn().unwrap();
            let exited = with_pidfd.then(|| pidfd_open(child.id()).unwrap());
            let started = Instant::now();
            assert!(!watch_with(&mut child, &status, &stream, exited));
            assert!(child.wait().unwrap().success(), "the status is still there");
            assert!(started.elapsed() < Duration::from_secs(5));
        }
    }
}
