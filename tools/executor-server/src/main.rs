//! executor-server: the remote executor. Serves sessions of the protocol in
//! docs/protocol.md, each in a worker process of its own.

use std::{
    io::{IsTerminal, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result, bail};
use clap::{Args, CommandFactory, FromArgMatches, Parser, parser::ValueSource};
use executor_protocol::dead_peer::{MAX_DEAD_PEER_TIMEOUT, MIN_DEAD_PEER_TIMEOUT};
use executor_runtime::{address::Address, config, protocol::DEFAULT_MAX_MESSAGE_SIZE, remote};
use executor_server::{
    DEFAULT_DEAD_LINK_TIMEOUT, DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_LISTEN_ADDRESS,
    DEFAULT_MAX_PENDING, DEFAULT_MAX_PENDING_PER_PEER, DEFAULT_MAX_SESSIONS, DEFAULT_WARM_WORKERS,
    HandshakeLimits, Listen, MAX_HANDSHAKE_TIMEOUT, Server, ServerConfig, TlsFiles, WorkerConfig,
    identity, run_worker, sockets_passed,
};
use tracing_subscriber::EnvFilter;

/// Runs kernels for remote clients (executor.open("HOST:PORT") or
/// executor.open("unix:PATH")): each connection is a session served by a
/// worker process of its own.
#[derive(Parser, Debug)]
#[command(name = "executor-server", version)]
struct Cli {
    /// An address to listen on (repeatable; --bind is Catalyst's name for
    /// it): HOST:PORT, or unix:PATH for a Unix socket at the absolute PATH.
    /// Port 0 picks a free port; once all are bound, each address is printed
    /// to stdout as "Listening on ADDRESS", in the order given. A port in use
    /// is one line on stderr saying "Address already in use", and exit 1.
    /// A non-loopback HOST:PORT requires --token-file, and --tls-cert with
    /// --tls-key unless --insecure-plaintext. A unix:PATH socket file is made mode 0600 (see
    /// --socket-group), replaces a stale one, is removed when the server
    /// stops, and admits the processes of --allow-uid only, without a token.
    /// Started by systemd with sockets (socket activation: LISTEN_PID and
    /// LISTEN_FDS), it serves those instead, under the same rules, and takes
    /// no --listen.
    #[arg(
        long,
        visible_alias = "bind",
        value_name = "ADDRESS",
        default_value = DEFAULT_LISTEN_ADDRESS
    )]
    listen: Vec<String>,

    /// A user whose processes may connect to the server's Unix sockets, by
    /// uid (repeatable) [default: the server's own uid]. Anyone else is
    /// refused in the handshake, in one line naming their uid.
    #[arg(long, value_name = "UID")]
    allow_uid: Vec<u32>,

    /// Makes the socket files of unix:PATH listen addresses mode 0660 and
    /// owned by GROUP (a name or a gid), not 0600: the group's members may
    /// then reach the socket, and --allow-uid still decides who is served.
    #[arg(long, value_name = "GROUP")]
    socket_group: Option<String>,

    /// A file holding the token every client must present in the handshake
    /// (clients set EXECUTOR_TOKEN or EXECUTOR_TOKEN_FILE).
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,

    /// The PEM certificate (chain) to serve TLS 1.3 with on every TCP
    /// listener (Unix sockets stay plaintext: the kernel vouches for their
    /// peer). Clients pin its fingerprint (tls_fingerprint) or name its CA
    /// (tls_ca); a plaintext client is refused. --gen-identity makes one.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,

    /// The PEM private key of --tls-cert.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,

    /// Serves a non-loopback TCP address without TLS (with a warning): the
    /// token and every session cross the network in clear.
    #[arg(long)]
    insecure_plaintext: bool,

    /// A shared library loaded into every session's worker with its symbols
    /// global (RTLD_GLOBAL): they serve executor.call in both layouts and
    /// resolve the references of objects sent later (repeatable). --plugin
    /// is Catalyst's name for it.
    #[arg(long, visible_alias = "plugin", value_name = "LIB.so")]
    preload: Vec<PathBuf>,

    /// The largest message accepted or sent after the handshake, in bytes.
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = DEFAULT_MAX_MESSAGE_SIZE,
        value_parser = clap::value_parser!(u32).range(1024..)
    )]
    max_message_size: u32,

    /// Where each session's private directory is created [default: the
    /// system's temporary directory].
    #[arg(long, value_name = "DIR")]
    work_dir: Option<PathBuf>,

    /// Writes a trace of each session (its handshake, its worker's start,
    /// and the steps of each request) to DIR/session-<worker pid>.json, in
    /// the Trace Event Format
    #[arg(long, value_name = "DIR")]
    trace_dir: Option<PathBuf>,

    /// The most sessions served at once; a connection past it is refused
    /// in the handshake.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_MAX_SESSIONS,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_sessions: u32,

    /// How long a client's host may stay silent (TCP keepalive probes
    /// unanswered) before its session is ended, idle or not; its worker is
    /// killed at most 2 s later. From 2 s to a day (86400).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = DEFAULT_DEAD_LINK_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64)
            .range(MIN_DEAD_PEER_TIMEOUT.as_secs()..=MAX_DEAD_PEER_TIMEOUT.as_secs())
    )]
    dead_link_timeout: u64,

    /// Instead of serving, checks the server at ADDRESS (HOST:PORT,
    /// unix:PATH, or slurm:INDEX, which EXECUTOR_CONFIG resolves): connects, authenticates (with the client's token for that
    /// address: EXECUTOR_CONFIG, EXECUTOR_TOKEN, EXECUTOR_TOKEN_FILE; on a
    /// Unix socket, as this user) and pings it, without starting a worker
    /// there. Prints one line; exits with 0 when the server answered, 1
    /// otherwise.
    #[arg(long, value_name = "ADDRESS")]
    check: Option<String>,

    /// How many workers to keep started and initialised (LLVM loaded, the
    /// JIT created, --preload libraries loaded) for the next sessions, so
    /// that a session's first send_binary does not wait 10-15 ms for its
    /// worker to start. Each is an idle process that serves the one session
    /// that takes it; its replacement starts 50 ms later. A waiting worker
    /// holds about 5 MiB of memory of its own (about 70 MiB resident, nearly
    /// all libLLVM's pages, shared with the server and the other workers;
    /// docs/protocol.md, "Warm workers"). 0: each session starts its worker
    /// at its first request.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_WARM_WORKERS)]
    warm_workers: usize,

    /// Instead of serving, makes a TLS identity in DIR (created, private, if
    /// missing): a self-signed certificate for this host's name, localhost,
    /// 127.0.0.1 and ::1 in DIR/cert.pem, and its key in DIR/key.pem (mode
    /// 0600). Prints the certificate's fingerprint, sha256: and 64 hex
    /// digits, which clients pin (tls_fingerprint in their config file).
    /// Never replaces an identity already there.
    #[arg(long, value_name = "DIR")]
    gen_identity: Option<PathBuf>,

    #[command(flatten)]
    handshake: HandshakeArgs,

    #[command(flatten)]
    worker: WorkerArgs,
}

/// What a connection may take of the server before it has authenticated
/// (docs/protocol.md, "Handshake").
#[derive(Args, Debug)]
struct HandshakeArgs {
    /// How long a new connection has to complete its whole handshake, at
    /// most an hour (3600).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = DEFAULT_HANDSHAKE_TIMEOUT.as_secs(),
        value_parser = clap::value_parser!(u64).range(1..=MAX_HANDSHAKE_TIMEOUT.as_secs())
    )]
    handshake_timeout: u64,

    /// The most connections in their handshake at once. One more waits until
    /// the oldest of them completes its Hello, or closes it once it waits for
    /// the rest of a Hello (or of a TLS record), or has been silent for a
    /// second since it connected or the server last answered it.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_MAX_PENDING as u32,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_handshakes: u32,

    /// The most connections in their handshake at once from one address (one
    /// /64 for IPv6). One more waits for, or sheds, that address's oldest, as
    /// with --max-handshakes, but apart, so that other addresses' connections
    /// are still accepted: up to twice --max-handshakes per address wait so
    /// (four times in all), and one more is refused at once. Keep it below
    /// --max-handshakes: at or above it, one address's silent connections
    /// can fill that cap, where every address waits.
    #[arg(
        long,
        value_name = "N",
        default_value_t = DEFAULT_MAX_PENDING_PER_PEER as u32,
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    max_handshakes_per_peer: u32,
}

impl HandshakeArgs {
    fn limits(&self) -> HandshakeLimits {
        HandshakeLimits {
            timeout: Duration::from_secs(self.handshake_timeout),
            max_pending: self.max_handshakes as usize,
            max_pending_per_peer: self.max_handshakes_per_peer as usize,
            ..HandshakeLimits::default()
        }
    }
}

/// How the server starts a session's worker: this executable again.
#[derive(Args, Debug)]
struct WorkerArgs {
    #[arg(long, hide = true, requires_all = ["control_fd", "status_fd"])]
    worker: bool,
    #[arg(long, hide = true, requires = "worker")]
    control_fd: Option<i32>,
    #[arg(long, hide = true, requires = "worker")]
    status_fd: Option<i32>,
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    // Sockets passed by systemd replace the default address, not one given.
    let listen_given = matches.value_source("listen") == Some(ValueSource::CommandLine);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    init_logging();
    match run(cli, listen_given) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("executor-server: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr, filtered by EXECUTOR_LOG (`info` when unset). A log
/// line that cannot be written is dropped: by default the subscriber reports
/// that with `eprintln!`, which panics when stderr is gone (a closed pipe: the
/// ssh session the server was started from dropped), and would end the
/// thread that logged, the one that stops the server on SIGTERM among them.
fn init_logging() {
    let filter = EnvFilter::try_from_env("EXECUTOR_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .log_internal_errors(false)
        .init();
}

/// This very executable. On Linux that is `/proc/self/exe`, which in the
/// forked child still names the server's own image: a worker always matches
/// its server even if the file was rebuilt or removed since the server started.
fn worker_program() -> Result<PathBuf> {
    let own_image = PathBuf::from("/proc/self/exe");
    if cfg!(target_os = "linux") && own_image.exists() {
        return Ok(own_image);
    }
    std::env::current_exe().context("cannot find this executable to run workers")
}

/// `--check ADDRESS`: one line saying how the server there is doing.
fn check(address: &str) -> Result<()> {
    let parsed = config::parse_address(address)?;
    if matches!(parsed, Address::Local { .. }) {
        bail!("--check takes a HOST:PORT, unix:PATH or slurm:INDEX address, not '{address}'");
    }
    let settings = config::settings_for(&parsed)?;
    let health = remote::check(&settings.target.to_string(), &settings.connect)?;
    let admission = match settings.target {
        // The server checked this process's uid; a token is not looked at.
        Address::Unix { .. } => "admitted as this user",
        _ if health.authenticated => "authenticated",
        _ => "admitted without a token",
    };
    let tls = health
        .tls_fingerprint
        .map_or_else(String::new, |fingerprint| format!(", TLS {fingerprint}"));
    let named = match parsed {
        Address::Slurm { .. } => format!("{parsed} ({})", settings.target),
        _ => parsed.to_string(),
    };
    println!(
        "{named}: reachable, {admission}, protocol version {}, triple {}, {} of {} sessions in \
         use{tls}",
        health.protocol_version, health.triple, health.sessions, health.max_sessions
    );
    Ok(())
}

/// `--gen-identity DIR`: a new identity, and its fingerprint on stdout.
fn gen_identity(dir: &Path) -> Result<()> {
    let mut names = vec![
        "localhost".to_owned(),
        "127.0.0.1".to_owned(),
        "::1".to_owned(),
    ];
    names.extend(host_name());
    let fingerprint = identity::generate(dir, names)?;
    println!("{fingerprint}");
    Ok(())
}

/// This host's name, if it has one that is not localhost.
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").ok()?;
    let name = name.trim();
    (!name.is_empty() && name != "localhost").then(|| name.to_owned())
}

fn run(cli: Cli, listen_given: bool) -> Result<()> {
    if let Some(address) = &cli.check {
        return check(address).with_context(|| format!("--check {address}"));
    }
    if let Some(dir) = &cli.gen_identity {
        return gen_identity(dir).with_context(|| format!("--gen-identity {}", dir.display()));
    }
    if cli.worker.worker {
        let WorkerArgs {
            control_fd: Some(control_fd),
            status_fd: Some(status_fd),
            ..
        } = cli.worker
        else {
            bail!("--worker needs --control-fd and --status-fd");
        };
        run_worker(WorkerConfig {
            control_fd,
            status_fd,
            preload: cli.preload,
            max_message_size: cli.max_message_size,
            trace_dir: cli.trace_dir,
        })?;
        return Ok(());
    }
    let listen = match (sockets_passed(), listen_given) {
        (true, false) => Listen::PassedSockets,
        (true, true) => {
            bail!("--listen cannot be given when systemd passes the sockets (LISTEN_FDS)")
        }
        (false, _) => Listen::Addresses(cli.listen),
    };
    let config = ServerConfig {
        listen,
        token_file: cli.token_file,
        tls: cli
            .tls_cert
            .zip(cli.tls_key)
            .map(|(cert, key)| TlsFiles { cert, key }),
        insecure_plaintext: cli.insecure_plaintext,
        preload: cli.preload,
        max_message_size: cli.max_message_size,
        work_dir: cli.work_dir.unwrap_or_else(std::env::temp_dir),
        worker_program: worker_program()?,
        handshake: cli.handshake.limits(),
        max_sessions: cli.max_sessions,
        dead_link_timeout: Duration::from_secs(cli.dead_link_timeout),
        warm_workers: cli.warm_workers,
        allow_uids: cli.allow_uid,
        socket_group: cli.socket_group,
        trace_dir: cli.trace_dir,
    };
    let server = Server::bind(config)?;
    let addresses = server.addresses()?;
    // Before any thread starts: the signal mask set here is inherited by all.
    server
        .remove_sessions_on_termination()
        .context("cannot set up signal handling")?;
    // Tests, scripts and Catalyst's deployment manager read these lines to
    // learn the ports and that the server is ready: one line per address,
    // flushed at once. The manager waits for `Listening on \S+:\d+`, the
    // spelling of Catalyst's own server, capital L included.
    let mut stdout = std::io::stdout().lock();
    for address in addresses {
        writeln!(stdout, "Listening on {address}")?;
    }
    stdout.flush()?;
    drop(stdout);
    server.serve()?;
    Ok(())
}
