//! executor-server: accepts connections, authenticates each in the handshake,
//! and serves each session in a worker process of its own (the same
//! executable, re-run with `--worker`), so that a kernel that crashes ends only
//! its own session. docs/protocol.md describes the protocol and the security
//! model.
//!
//! The server process never runs client code: per connection, one thread (one
//! that waited for it, `session_threads.rs`) does the handshake, takes the
//! session's private directory (made before, `session_dirs.rs`), hands the
//! session to a worker (a warm one, started before, `warm_pool.rs`) and
//! supervises it (`supervisor.rs`); the worker serves the requests with a
//! [`executor_runtime::local::LocalExecutor`] (`worker.rs`).

mod activation;
mod busy_workers;
mod catalyst_assets;
mod code_pages;
mod handover;
mod handshake;
mod handshake_socket;
pub mod identity;
mod linger;
mod link;
mod listen;
mod listener;
mod peer_key;
mod pending;
mod ping;
mod proc_stat;
mod record_boundary;
mod session;
mod session_dirs;
mod session_io;
mod session_threads;
mod shutdown;
mod socket_file;
mod spawn;
mod status;
mod steps;
mod supervisor;
mod tls;
mod token;
mod waiting_room;
mod warm_pool;
mod work_dir;
mod worker;

use std::{
    io,
    net::{SocketAddr, TcpListener},
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use thiserror::Error;

use executor_abi::address::Address;
use executor_protocol::{BUSY_REFUSAL, Stream, unix_socket};

pub use activation::sockets_passed;
pub use listen::is_loopback_only;
pub use pending::{
    DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_PENDING, DEFAULT_MAX_PENDING_PER_PEER, HandshakeLimits,
    MAX_HANDSHAKE_TIMEOUT,
};
pub use worker::{WorkerConfig, run_worker};

use listener::{Listener, Peer};
use pending::{Admission, Pending, PendingHandshakes};
use session_dirs::SessionDirectories;
use session_threads::SessionThreads;
use shutdown::LiveSessions;
use socket_file::SocketFile;
use tls::ServerTls;
use waiting_room::Accepted;
use warm_pool::WarmPool;
use work_dir::WorkDirClaim;

/// The address served when none is given.
pub const DEFAULT_LISTEN_ADDRESS: &str = "127.0.0.1:9000";
/// How many sessions a server serves at once unless told otherwise.
pub const DEFAULT_MAX_SESSIONS: u32 = 256;
/// How long a client's host may stay silent before its session is ended,
/// unless told otherwise.
pub const DEFAULT_DEAD_LINK_TIMEOUT: Duration = Duration::from_secs(30);
/// How long the accept loop gives a refusal it writes itself (into an empty
/// send buffer, so only a peer that sent a lot and reads nothing waits).
const REFUSAL_WRITE_TIMEOUT: Duration = Duration::from_millis(100);

/// Where a server's connections come from.
#[derive(Clone, Debug)]
pub enum Listen {
    /// The `host:port`s and `unix:<path>`s to bind (at least one); port 0
    /// picks a free port.
    Addresses(Vec<String>),
    /// The listening sockets passed by systemd (socket activation,
    /// [`sockets_passed`]).
    PassedSockets,
}

/// How many workers wait, started and initialised, for the next sessions
/// when none is given.
pub const DEFAULT_WARM_WORKERS: usize = 1;

/// The PEM files of the server's TLS identity (`--tls-cert`, `--tls-key`).
#[derive(Clone, Debug)]
pub struct TlsFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub listen: Listen,
    /// The file holding the token every client must present; required for a
    /// non-loopback `listen` address.
    pub token_file: Option<PathBuf>,
    /// The identity every TCP listener serves TLS 1.3 with; required for a
    /// non-loopback `listen` address unless `insecure_plaintext`.
    pub tls: Option<TlsFiles>,
    /// Serves a non-loopback TCP address in plaintext (with a warning).
    pub insecure_plaintext: bool,
    /// Shared libraries whose symbols `call` can use, loaded into every worker.
    pub preload: Vec<PathBuf>,
    /// The limit on every message after the handshake, in bytes.
    pub max_message_size: u32,
    /// Where the private session directories are created.
    pub work_dir: PathBuf,
    /// The executable run (with `--worker`) for each session: normally this
    /// executor-server itself.
    pub worker_program: PathBuf,
    /// The deadline and the caps of connections that have not authenticated.
    pub handshake: HandshakeLimits,
    /// The most sessions served at once; a connection past it is refused.
    pub max_sessions: u32,
    /// Where each session's worker writes a trace of the steps it served.
    pub trace_dir: Option<PathBuf>,
    /// How long a client's host may stay silent (keepalive unanswered)
    /// before its session ends (whole seconds, at least 2).
    pub dead_link_timeout: Duration,
    /// How many workers are kept started and initialised for the next
    /// sessions (0: each session starts its own).
    pub warm_workers: usize,
    /// The uids whose processes may connect to a Unix socket of the server;
    /// empty: the server's own uid only.
    pub allow_uids: Vec<u32>,
    /// The group (a name or a number) given the Unix sockets the server
    /// binds, which are then mode 0660, not 0600.
    pub socket_group: Option<String>,
}

#[derive(Debug, Error)]
pub enum ServerError {
    #[error("cannot use listen address '{address}': {reason}")]
    BadListenAddress { address: String, reason: String },
    #[error(
        "refusing to listen on '{address}' without --token-file: it is not a loopback address, so anyone \
         who can reach it could run code on this machine"
    )]
    TokenRequired { address: String },
    #[error(
        "refusing to listen on '{address}' in plaintext: it is not a loopback address, so the \
         token and every kernel and its data would cross the network readable and alterable by \
         anyone on the way; give --tls-cert and --tls-key (executor-server --gen-identity DIR \
         makes them), or --insecure-plaintext if the network is trusted"
    )]
    PlaintextRefused { address: String },
    #[error(transparent)]
    Identity(#[from] identity::IdentityError),
    #[error("cannot serve TLS with the certificate '{cert}' and the key '{key}': {reason}")]
    Tls {
        cert: String,
        key: String,
        reason: String,
    },
    #[error("cannot serve the sockets passed by systemd: {0}")]
    Activation(String),
    #[error("cannot use token file '{path}': {reason}")]
    TokenFile { path: String, reason: String },
    #[error("cannot preload '{path}': {reason}")]
    Preload { path: String, reason: String },
    #[error("cannot use work directory '{path}': {reason}")]
    WorkDir { path: String, reason: String },
    #[error("cannot use trace directory '{path}' (--trace-dir): {reason}")]
    TraceDir { path: String, reason: String },
    /// The reason is part of the message and deliberately not the error's
    /// `source()`: whoever prints the chain of sources would print it twice.
    #[error("cannot listen on '{address}': {reason}")]
    Bind { address: String, reason: io::Error },
    #[error("cannot listen on '{address}': {reason}")]
    SocketFile { address: String, reason: String },
    #[error("--socket-group {group}: {reason}")]
    SocketGroup { group: String, reason: String },
    #[error("worker: {0}")]
    Worker(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

/// What every session of a server shares.
struct Settings {
    token: Option<String>,
    /// What TCP connections are served with, if TLS.
    tls: Option<ServerTls>,
    preload: Vec<PathBuf>,
    max_message_size: u32,
    work_dir: PathBuf,
    worker_program: PathBuf,
    handshake: HandshakeLimits,
    max_sessions: u32,
    dead_link_timeout: Duration,
    warm_workers: usize,
    /// Who may connect to a Unix socket (never empty).
    allowed_uids: Vec<u32>,
    /// Where each session's worker writes its trace.
    trace_dir: Option<PathBuf>,
}

pub struct Server {
    /// One per listen address, in the order given.
    listeners: Vec<Listener>,
    /// The socket files this server made, removed when it stops.
    socket_files: Arc<Vec<SocketFile>>,
    settings: Arc<Settings>,
    live_sessions: Arc<LiveSessions>,
    pending: Arc<PendingHandshakes>,
    claim: Arc<WorkDirClaim>,
    directories: Arc<SessionDirectories>,
}

impl Server {
    /// Checks the configuration, binds the listening sockets (or takes
    /// those passed) and makes the first session's directory: a non-loopback
    /// address without a token file is refused before anything is bound or
    /// accepted.
    pub fn bind(config: ServerConfig) -> Result<Self, ServerError> {
        let token = config.token_file.as_deref().map(token::load).transpose()?;
        for library in &config.preload {
            check_preload(library)?;
        }
        check_work_dir(&config.work_dir)?;
        if let Some(trace_dir) = &config.trace_dir {
            check_trace_dir(trace_dir)?;
        }
        let socket_group = config
            .socket_group
            .as_deref()
            .map(|group| {
                socket_file::group_id(group).map_err(|reason| ServerError::SocketGroup {
                    group: group.to_owned(),
                    reason,
                })
            })
            .transpose()?;
        let tls = config
            .tls
            .as_ref()
            .map(|files| ServerTls::load(&files.cert, &files.key))
            .transpose()?;
        let rules = ExposureRules {
            has_token: token.is_some(),
            has_tls: tls.is_some(),
            insecure_plaintext: config.insecure_plaintext,
        };
        let (listeners, socket_files) = match &config.listen {
            Listen::Addresses(listen) => bind_addresses(listen, rules, socket_group)?,
            Listen::PassedSockets => (passed_sockets(rules)?, Vec::new()),
        };
        for listener in &listeners {
            listener
                .prepare_connections(config.dead_link_timeout)
                .map_err(|reason| ServerError::Bind {
                    address: listener.address().unwrap_or_else(|error| error.to_string()),
                    reason,
                })?;
        }
        if let Some(tls) = &tls {
            tracing::info!(fingerprint = %tls.fingerprint, "serving TLS 1.3 on TCP listeners");
        }
        if let Some(group) = &config.socket_group
            && socket_files.is_empty()
        {
            return Err(ServerError::SocketGroup {
                group: group.clone(),
                reason: "it applies to the socket files of --listen unix:<path> only, and none \
                         is given"
                    .to_owned(),
            });
        }
        let allowed_uids = if config.allow_uids.is_empty() {
            vec![unix_socket::own_uid()]
        } else {
            config.allow_uids
        };
        let claim = claim_work_dir(&config.work_dir)?;
        let directories = SessionDirectories::new(
            config.work_dir.clone(),
            claim.session_dir_prefix().to_owned(),
        );
        // The first session's directory, before the server says it listens.
        directories.make_spare();
        Ok(Self {
            listeners,
            socket_files: Arc::new(socket_files),
            settings: Arc::new(Settings {
                token,
                tls,
                preload: config.preload,
                max_message_size: config.max_message_size,
                work_dir: config.work_dir,
                worker_program: config.worker_program,
                handshake: config.handshake,
                max_sessions: config.max_sessions,
                dead_link_timeout: config.dead_link_timeout,
                warm_workers: config.warm_workers,
                allowed_uids,
                trace_dir: config.trace_dir,
            }),
            live_sessions: Arc::new(LiveSessions::default()),
            pending: PendingHandshakes::new(config.handshake),
            claim: Arc::new(claim),
            directories: Arc::new(directories),
        })
    }

    /// The address clients open for each listener (`host:port`, or
    /// `unix:<path>`), in the order of the listen addresses.
    pub fn addresses(&self) -> io::Result<Vec<String>> {
        self.listeners.iter().map(Listener::address).collect()
    }

    /// On SIGINT, SIGTERM or SIGHUP, removes the live sessions' private
    /// directories, the socket files it made and the server's lock file and
    /// exits (the workers die
    /// with the server). Must be called before the process starts any
    /// thread, since it blocks those signals in the calling thread and every
    /// thread started after.
    pub fn remove_sessions_on_termination(&self) -> io::Result<()> {
        shutdown::exit_cleanly_on_termination(
            Arc::clone(&self.live_sessions),
            Arc::clone(&self.socket_files),
            Arc::clone(&self.claim),
            Arc::clone(&self.directories),
        )
    }

    /// Starts the warm workers and the thread for the first connection,
    /// then accepts connections
    /// on every listener until the process ends, each connection on a
    /// thread of its own.
    pub fn serve(self) -> Result<(), ServerError> {
        let warm_workers = WarmPool::start(self.settings.warm_workers, Arc::clone(&self.settings))
            .map_err(|error| {
                ServerError::Worker(format!("cannot start the warm workers: {error}"))
            })?;
        let next_session_id = Arc::new(AtomicU64::new(1));
        let threads = Arc::new(SessionThreads::default());
        threads
            .start_waiting()
            .map_err(|error| ServerError::Worker(format!("cannot start a thread: {error}")))?;
        let mut listeners = self.listeners;
        let last = listeners.pop().expect("at least one listen address");
        let shared = Arc::new(Accepting {
            settings: self.settings,
            live_sessions: self.live_sessions,
            pending: self.pending,
            directories: self.directories,
            warm_workers,
            next_session_id,
            threads,
        });
        let admitting = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("waiting-room".to_owned())
            .spawn(move || {
                admitting.pending.serve_waiting(
                    |waiting, pending| admitting.serve(waiting, pending),
                    |waiting| refuse_for_room(&waiting.stream, waiting.peer),
                )
            })
            .map_err(|error| ServerError::Worker(format!("cannot start a thread: {error}")))?;
        for listener in listeners {
            let accepting = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("accept".to_owned())
                .spawn(move || Accepting::accept_forever(&accepting, &listener))
                .map_err(|error| ServerError::Worker(format!("cannot start a thread: {error}")))?;
        }
        Accepting::accept_forever(&shared, &last);
        Ok(())
    }
}

/// What a TCP listener that is not on loopback needs: a token (which
/// authenticates the client), and TLS (which authenticates the server and
/// protects the session) unless plaintext is asked for.
#[derive(Clone, Copy)]
struct ExposureRules {
    has_token: bool,
    has_tls: bool,
    insecure_plaintext: bool,
}

impl ExposureRules {
    /// Whether `addresses`, which `address` names, may be listened on.
    fn check(self, address: &str, addresses: &[SocketAddr]) -> Result<(), ServerError> {
        if is_loopback_only(addresses) {
            return Ok(());
        }
        if !self.has_token {
            return Err(ServerError::TokenRequired {
                address: address.to_owned(),
            });
        }
        if !self.has_tls {
            if !self.insecure_plaintext {
                return Err(ServerError::PlaintextRefused {
                    address: address.to_owned(),
                });
            }
            tracing::warn!(
                address,
                "listening in plaintext on a non-loopback address (--insecure-plaintext): \
                 the token and every session can be read and altered on the network"
            );
        }
        Ok(())
    }
}

/// Binds each `host:port` and `unix:<path>`, once all are known to be
/// allowed (`ExposureRules`). Returns the listeners and the socket files
/// made for the `unix:` ones.
fn bind_addresses(
    listen: &[String],
    rules: ExposureRules,
    socket_group: Option<u32>,
) -> Result<(Vec<Listener>, Vec<SocketFile>), ServerError> {
    let resolved = listen
        .iter()
        .map(|listen| Ok((listen, listen::resolve(listen)?)))
        .collect::<Result<Vec<_>, ServerError>>()?;
    for (listen, resolved) in &resolved {
        if let listen::Resolved::Tcp(addresses) = resolved {
            rules.check(listen, addresses)?;
        }
    }
    let mut listeners = Vec::new();
    let mut socket_files = Vec::new();
    for (listen, resolved) in resolved {
        match resolved {
            listen::Resolved::Tcp(addresses) => {
                let listener =
                    TcpListener::bind(&addresses[..]).map_err(|reason| ServerError::Bind {
                        address: listen.clone(),
                        reason,
                    })?;
                listeners.push(Listener::Tcp(listener));
            }
            listen::Resolved::Unix(path) => {
                let (listener, file) =
                    socket_file::bind(&path, socket_group).map_err(|reason| {
                        ServerError::SocketFile {
                            address: Address::Unix { path }.to_string(),
                            reason,
                        }
                    })?;
                listeners.push(Listener::Unix(listener));
                socket_files.push(file);
            }
        }
    }
    Ok((listeners, socket_files))
}

/// Takes the sockets passed by systemd, each allowed as a `--listen` address
/// would be (`ExposureRules`).
fn passed_sockets(rules: ExposureRules) -> Result<Vec<Listener>, ServerError> {
    let listeners = activation::take_passed_sockets()?;
    for listener in &listeners {
        let Listener::Tcp(listener) = listener else {
            continue;
        };
        let address = listener.local_addr()?;
        rules.check(&format!("{address} (passed by systemd)"), &[address])?;
    }
    Ok(listeners)
}

/// What every listener's accept loop, and every session, shares.
struct Accepting {
    settings: Arc<Settings>,
    live_sessions: Arc<LiveSessions>,
    pending: Arc<PendingHandshakes>,
    directories: Arc<SessionDirectories>,
    warm_workers: Arc<WarmPool>,
    next_session_id: Arc<AtomicU64>,
    threads: Arc<SessionThreads>,
}

impl Accepting {
    fn accept_forever(self: &Arc<Self>, listener: &Listener) {
        if let Ok(address) = listener.address() {
            tracing::info!(%address, "serving");
        }
        loop {
            let (stream, peer) = match listener.accept() {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors, a connection reset before it
                    // was accepted...: none of them is a reason to stop.
                    tracing::warn!(%error, "accept failed");
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                }
            };
            let accepted = Instant::now();
            let id = self.next_session_id.fetch_add(1, Ordering::Relaxed);
            let connection = Accepted {
                id,
                stream: Arc::new(stream),
                peer,
                accepted,
            };
            match self.pending.admit(connection) {
                Admission::Admitted(connection, pending) => self.serve(connection, pending),
                Admission::Waits { turned_out: None } => {}
                Admission::NoRoom(connection) => refuse_for_room(&connection.stream, peer),
                Admission::Waits {
                    turned_out: Some(connection),
                }
                | Admission::RoomFull(connection) => {
                    tracing::warn!(peer = %connection.peer, "refused: no place in the waiting room for connections over their peer's cap");
                    handshake::refuse(
                        &connection.stream,
                        format!("{BUSY_REFUSAL} are waiting for their handshake with this server"),
                        Instant::now() + REFUSAL_WRITE_TIMEOUT,
                    );
                }
            }
        }
    }

    /// Serves a connection counted as `pending` on a session thread.
    fn serve(self: &Arc<Self>, connection: Accepted, pending: Pending) {
        let Accepted {
            id,
            stream,
            peer,
            accepted,
        } = connection;
        let server = Arc::clone(self);
        let served = self.threads.serve(Box::new(move || {
            session::serve(id, &stream, peer, accepted, pending, &server);
        }));
        if let Err(error) = served {
            tracing::error!(session = id, %error, "cannot start a thread for the session");
        }
    }
}

/// Refuses a connection for which no room was made within the handshake
/// timeout.
fn refuse_for_room(stream: &Stream, peer: Peer) {
    tracing::warn!(%peer, "refused: no room among the connections in their handshake within the handshake timeout");
    handshake::refuse(
        stream,
        format!("{BUSY_REFUSAL} are in their handshake with this server"),
        Instant::now() + REFUSAL_WRITE_TIMEOUT,
    );
}

/// Fails at startup rather than in every session.
fn check_work_dir(work_dir: &std::path::Path) -> Result<(), ServerError> {
    match directory_problem(work_dir) {
        None => Ok(()),
        Some(reason) => Err(ServerError::WorkDir {
            path: work_dir.display().to_string(),
            reason,
        }),
    }
}

fn check_trace_dir(trace_dir: &std::path::Path) -> Result<(), ServerError> {
    match directory_problem(trace_dir) {
        None => Ok(()),
        Some(reason) => Err(ServerError::TraceDir {
            path: trace_dir.display().to_string(),
            reason,
        }),
    }
}

/// Why `path` is not a directory, if it is not.
fn directory_problem(path: &std::path::Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_dir() => None,
        Ok(_) => Some("not a directory".to_owned()),
        Err(error) => Some(error.to_string()),
    }
}

/// Removes what servers that are gone left in `work_dir` (a server killed
/// with SIGKILL cannot clean up), then claims it for this server's sessions.
fn claim_work_dir(work_dir: &std::path::Path) -> Result<WorkDirClaim, ServerError> {
    let unusable = |error: io::Error| ServerError::WorkDir {
        path: work_dir.display().to_string(),
        reason: error.to_string(),
    };
    let removed = work_dir::remove_stale_sessions(work_dir).map_err(unusable)?;
    if removed > 0 {
        tracing::info!(
            removed,
            "removed session directories left by servers that are gone"
        );
    }
    WorkDirClaim::take(work_dir).map_err(unusable)
}

/// Fails at startup rather than in every session. A bare library name
/// (`libm.so.6`) is left to the dynamic loader's search path.
fn check_preload(library: &std::path::Path) -> Result<(), ServerError> {
    if library.components().count() > 1 {
        std::fs::File::open(library).map_err(|error| ServerError::Preload {
            path: library.display().to_string(),
            reason: error.to_string(),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_non_loopback_address_needs_a_token_file() {
        // Refused before any socket is created: nothing is ever bound here.
        let config = ServerConfig {
            listen: Listen::Addresses(vec!["0.0.0.0:0".to_owned()]),
            token_file: None,
            tls: None,
            insecure_plaintext: false,
            preload: Vec::new(),
            max_message_size: executor_runtime::protocol::DEFAULT_MAX_MESSAGE_SIZE,
            work_dir: std::env::temp_dir(),
            worker_program: PathBuf::from("/nonexistent"),
            handshake: HandshakeLimits::default(),
            max_sessions: DEFAULT_MAX_SESSIONS,
            dead_link_timeout: DEFAULT_DEAD_LINK_TIMEOUT,
            warm_workers: 0,
            allow_uids: Vec::new(),
            socket_group: None,
            trace_dir: None,
        };
        let error = Server::bind(config).err().expect("refused");
        assert!(
            matches!(error, ServerError::TokenRequired { .. }),
            "{error}"
        );
        assert!(error.to_string().contains("--token-file"), "{error}");
    }

    #[test]
    fn a_non_loopback_address_needs_tls_unless_plaintext_is_asked_for() {
        let rules = |has_tls, insecure_plaintext| ExposureRules {
            has_token: true,
            has_tls,
            insecure_plaintext,
        };
        let everywhere: Vec<SocketAddr> = vec!["0.0.0.0:9000".parse().unwrap()];
        let loopback: Vec<SocketAddr> = vec!["127.0.0.1:9000".parse().unwrap()];
        let error = rules(false, false)
            .check("0.0.0.0:9000", &everywhere)
            .unwrap_err();
        assert!(
            matches!(error, ServerError::PlaintextRefused { .. }),
            "{error}"
        );
        let message = error.to_string();
        assert!(
            message.contains("--tls-cert") && message.contains("--insecure-plaintext"),
            "{message}"
        );
        assert!(
            rules(true, false)
                .check("0.0.0.0:9000", &everywhere)
                .is_ok()
        );
        assert!(
            rules(false, true)
                .check("0.0.0.0:9000", &everywhere)
                .is_ok()
        );
        assert!(
            rules(false, false)
                .check("127.0.0.1:9000", &loopback)
                .is_ok()
        );
    }
}
