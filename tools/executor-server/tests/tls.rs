//! executor-server over TLS 1.3, end to end on loopback: sessions with a
//! pinned certificate, what an on-path relay sees of them (and what altering
//! one byte does), an impostor with another identity, clients and servers
//! that disagree about TLS, a crash report through TLS, and the start-up
//! rule for plaintext off loopback.

use std::{
    io::{Read, Write},
    net::{Shutdown, TcpListener, TcpStream, UdpSocket},
    path::PathBuf,
    process::Command,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    thread::{self, JoinHandle},
};

use executor_runtime::{
    error::RuntimeError,
    executor::{BinaryFormat, Executor},
    protocol::Fingerprint,
    remote::{ConnectOptions, RemoteExecutor, TlsTrust},
};

mod common;

use common::{
    Identity, SERVER, Server, burst_of_clients, call_twice, compile_kernels, floats, gen_identity,
    launch_1d, token_file,
};

const TOKEN: &str = "tls-test-token-7f3a9c2e";

/// A directory with an identity and a token file.
struct Secrets {
    dir: tempfile::TempDir,
    identity: Identity,
    token_file: PathBuf,
}

fn secrets() -> Secrets {
    let dir = tempfile::tempdir().unwrap();
    let identity = gen_identity(&dir.path().join("identity"));
    let token_file = token_file(dir.path(), &format!("{TOKEN}\n"));
    Secrets {
        dir,
        identity,
        token_file,
    }
}

fn tls_server(secrets: &Secrets, extra: &[&str]) -> Server {
    let mut args = vec![
        "--tls-cert",
        secrets.identity.cert.to_str().unwrap(),
        "--tls-key",
        secrets.identity.key.to_str().unwrap(),
        "--token-file",
        secrets.token_file.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    Server::start(&args)
}

fn pinned(fingerprint: Fingerprint) -> ConnectOptions {
    ConnectOptions {
        token: Some(TOKEN.to_owned()),
        tls: Some(TlsTrust::Fingerprint(fingerprint)),
        ..ConnectOptions::default()
    }
}

/// Input values whose bytes are not likely anywhere else.
const DISTINCT: [f32; 4] = [1234.5677, -9876.543, 31415.926, 27182.818];

fn distinct_bytes() -> Vec<u8> {
    floats(&DISTINCT).data
}

/// A session's worth of work: a library, launches with data, an async
/// launch, a call.
fn run_kernels(session: &RemoteExecutor, object: &str) {
    session
        .send_binary(object, BinaryFormat::SharedLibrary)
        .unwrap();
    let sum = launch_1d(session, "_mlir_ciface_add", object, &[&DISTINCT, &[1.; 4]]).unwrap();
    assert_eq!(sum, floats(&DISTINCT.map(|value| value + 1.)));
    let token = session.launch_async("warm_up", object).unwrap();
    session.await_launch(token).unwrap();
    assert_eq!(call_twice(session), [floats(&[2., 5.])]);
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// A relay between clients and `target` on loopback that records every byte
/// each way, and can flip one byte of what passes.
struct Relay {
    address: String,
    /// What clients sent, and what the server sent.
    upstream: Arc<Mutex<Vec<u8>>>,
    downstream: Arc<Mutex<Vec<u8>>>,
    /// Once set, the 6th byte that passes in the direction given (past a
    /// record's 5-byte header, when the bytes start at one) is flipped.
    flip_upstream: Arc<AtomicBool>,
    flip_downstream: Arc<AtomicBool>,
}

impl Relay {
    fn start(target: &str) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = Self {
            address: listener.local_addr().unwrap().to_string(),
            upstream: Arc::default(),
            downstream: Arc::default(),
            flip_upstream: Arc::default(),
            flip_downstream: Arc::default(),
        };
        let target = target.to_owned();
        let (upstream, downstream) = (relay.upstream.clone(), relay.downstream.clone());
        let (flip_up, flip_down) = (relay.flip_upstream.clone(), relay.flip_downstream.clone());
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let server = TcpStream::connect(&target).unwrap();
                pump(
                    client.try_clone().unwrap(),
                    server.try_clone().unwrap(),
                    upstream.clone(),
                    flip_up.clone(),
                );
                pump(server, client, downstream.clone(), flip_down.clone());
            }
        });
        relay
    }

    fn recorded(&self) -> Vec<u8> {
        let mut all = self.upstream.lock().unwrap().clone();
        all.extend_from_slice(&self.downstream.lock().unwrap());
        all
    }
}

/// Copies `from` to `to`, recording into `record`.
fn pump(
    mut from: TcpStream,
    mut to: TcpStream,
    record: Arc<Mutex<Vec<u8>>>,
    flip: Arc<AtomicBool>,
) -> JoinHandle<()> {
    thread::spawn(move || {
        let mut buffer = [0u8; 64 * 1024];
        let mut since_armed: Option<usize> = None;
        loop {
            let read = match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(read) => read,
            };
            let chunk = &mut buffer[..read];
            if since_armed.is_none() && flip.load(Ordering::SeqCst) {
                since_armed = Some(0);
            }
            if let Some(passed) = since_armed.as_mut() {
                if *passed <= 5 && *passed + chunk.len() > 5 {
                    chunk[5 - *passed] ^= 0x01;
                }
                *passed += chunk.len();
            }
            record.lock().unwrap().extend_from_slice(chunk);
            if to.write_all(chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    })
}

fn is_one_line(text: &str) -> bool {
    !text.is_empty() && !text.contains('\n')
}

#[test]
fn a_session_with_a_pinned_certificate_runs_kernels_and_check_shows_the_fingerprint() {
    let secrets = secrets();
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let server = tls_server(&secrets, &[]);

    let session =
        RemoteExecutor::connect_with(&server.address, &pinned(secrets.identity.fingerprint))
            .unwrap();
    run_kernels(&session, object);
    session.close().unwrap();

    // A second session after the first, from a warm worker.
    let again =
        RemoteExecutor::connect_with(&server.address, &pinned(secrets.identity.fingerprint))
            .unwrap();
    run_kernels(&again, object);
    again.close().unwrap();
    server.assert_sessions_cleaned_up();

    // --check with the configuration file's tls_fingerprint and token_file.
    let config = secrets.dir.path().join("executors.conf");
    std::fs::write(
        &config,
        format!(
            "[{}]\ntls_fingerprint = {}\ntoken_file = token\n",
            server.address, secrets.identity.fingerprint
        ),
    )
    .unwrap();
    let output = Command::new(SERVER)
        .args(["--check", &server.address])
        .env("EXECUTOR_CONFIG", &config)
        .env_remove("EXECUTOR_TOKEN")
        .env_remove("EXECUTOR_TOKEN_FILE")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{output:?}");
    assert!(
        stdout
            .trim_end()
            .ends_with(&format!(", TLS {}", secrets.identity.fingerprint)),
        "{stdout}"
    );
    assert!(stdout.contains("authenticated"), "{stdout}");
}

#[test]
fn an_on_path_relay_sees_neither_the_token_nor_the_object_nor_the_data() {
    let secrets = secrets();
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let object_bytes = std::fs::read(&library).unwrap();
    // Strings of the object a relay would see if it were sent in clear.
    let symbol = b"_mlir_ciface_identity";
    assert!(contains(&object_bytes, symbol));

    // The same session in plaintext, through the same kind of relay: what
    // the recording is searched for is there (the search can find it).
    let plain = Server::start(&["--token-file", secrets.token_file.to_str().unwrap()]);
    let relay = Relay::start(&plain.address);
    let options = ConnectOptions {
        token: Some(TOKEN.to_owned()),
        ..ConnectOptions::default()
    };
    let session = RemoteExecutor::connect_with(&relay.address, &options).unwrap();
    run_kernels(&session, object);
    session.close().unwrap();
    let recorded = relay.recorded();
    assert!(contains(&recorded, TOKEN.as_bytes()));
    assert!(contains(&recorded, symbol));
    assert!(contains(&recorded, &distinct_bytes()));

    let server = tls_server(&secrets, &[]);
    let relay = Relay::start(&server.address);
    let session =
        RemoteExecutor::connect_with(&relay.address, &pinned(secrets.identity.fingerprint))
            .unwrap();
    run_kernels(&session, object);
    session.close().unwrap();
    let recorded = relay.recorded();
    assert!(
        recorded.len() > object_bytes.len(),
        "the session went through the relay"
    );
    assert!(!contains(&recorded, TOKEN.as_bytes()), "the token");
    assert!(!contains(&recorded, symbol), "a symbol of the object");
    assert!(
        !contains(&recorded, &object_bytes[..64]),
        "the object's head"
    );
    assert!(!contains(&recorded, &distinct_bytes()), "the launch's data");
    assert!(
        !contains(&recorded, &distinct_bytes()[..8]),
        "its first 8 bytes"
    );
}

#[test]
fn a_byte_altered_on_the_way_ends_the_session_in_one_line() {
    let secrets = secrets();
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    let server = tls_server(&secrets, &[]);
    for downstream in [true, false] {
        let relay = Relay::start(&server.address);
        let session =
            RemoteExecutor::connect_with(&relay.address, &pinned(secrets.identity.fingerprint))
                .unwrap();
        session
            .send_binary(object, BinaryFormat::SharedLibrary)
            .unwrap();
        let flip = if downstream {
            &relay.flip_downstream
        } else {
            &relay.flip_upstream
        };
        flip.store(true, Ordering::SeqCst);
        let error = launch_1d(&session, "_mlir_ciface_add", object, &[&[1.], &[2.]])
            .expect_err("an altered record is never a result")
            .to_string();
        assert!(is_one_line(&error), "{error}");
        assert!(error.contains(&relay.address), "{error}");
        // The session is over, and says so.
        let after = session.launch_async("warm_up", object).unwrap_err();
        assert!(after.to_string().contains("ended"), "{after}");
    }
    server.assert_sessions_cleaned_up();
}

/// An impostor at an address: a TLS server with another identity, which
/// records the plaintext any client sends it.
fn impostor(identity: &Identity) -> (String, JoinHandle<Vec<u8>>) {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject};
    let chain = vec![CertificateDer::from_pem_file(&identity.cert).unwrap()];
    let key = PrivateKeyDer::from_pem_file(&identity.key).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let received = thread::spawn(move || {
        let (socket, _) = listener.accept().unwrap();
        let connection = rustls::ServerConnection::new(Arc::new(config)).unwrap();
        let mut stream = rustls::StreamOwned::new(connection, socket);
        let mut plaintext = Vec::new();
        let mut buffer = [0u8; 4096];
        while let Ok(read @ 1..) = stream.read(&mut buffer) {
            plaintext.extend_from_slice(&buffer[..read]);
        }
        plaintext
    });
    (address, received)
}

#[test]
fn an_impostor_with_another_identity_is_named_by_both_fingerprints_before_anything_is_sent() {
    let secrets = secrets();
    let other = tempfile::tempdir().unwrap();
    let impostor_identity = gen_identity(other.path());
    let expected = secrets.identity.fingerprint;
    let presented = impostor_identity.fingerprint;
    assert_ne!(expected, presented);

    let (address, received) = impostor(&impostor_identity);
    let error = RemoteExecutor::connect_with(&address, &pinned(expected))
        .err()
        .expect("an impostor is not trusted")
        .to_string();
    assert!(is_one_line(&error), "{error}");
    assert!(error.contains(&address), "{error}");
    assert!(
        error.contains(&expected.to_string()) && error.contains(&presented.to_string()),
        "{error}"
    );
    assert!(error.contains("tls_fingerprint"), "{error}");
    assert_eq!(
        received.join().unwrap(),
        b"",
        "the impostor got application data"
    );

    // A real executor-server with the other identity: the same line.
    let impostor_server = tls_server(
        &Secrets {
            identity: impostor_identity,
            ..secrets
        },
        &[],
    );
    let error = RemoteExecutor::connect_with(&impostor_server.address, &pinned(expected))
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains(&expected.to_string()) && error.contains(&presented.to_string()),
        "{error}"
    );
}

#[test]
fn clients_and_servers_that_disagree_about_tls_say_so_in_one_line() {
    let secrets = secrets();
    let tls = tls_server(&secrets, &[]);
    let plaintext_client = ConnectOptions {
        token: Some(TOKEN.to_owned()),
        ..ConnectOptions::default()
    };
    let error = RemoteExecutor::connect_with(&tls.address, &plaintext_client)
        .err()
        .unwrap()
        .to_string();
    assert!(is_one_line(&error), "{error}");
    assert!(
        error.contains(&tls.address) && error.contains("this server speaks TLS"),
        "{error}"
    );

    let plain = Server::start(&[]);
    let error = RemoteExecutor::connect_with(&plain.address, &pinned(secrets.identity.fingerprint))
        .err()
        .unwrap()
        .to_string();
    assert!(is_one_line(&error), "{error}");
    assert!(
        error.contains(&plain.address) && error.contains("does not speak TLS"),
        "{error}"
    );
    // Both servers go on serving.
    RemoteExecutor::connect_with(&tls.address, &pinned(secrets.identity.fingerprint))
        .unwrap()
        .close()
        .unwrap();
    plain.connect().unwrap().close().unwrap();
}

/// As over plaintext: while its TLS handshake waits for the client's reply,
/// or for its Hello after the handshake, a connection is not taken for one
/// that sent part of a Hello and stopped.
#[test]
fn a_burst_of_tls_clients_beyond_the_handshake_caps_is_never_refused() {
    // Every client is 127.0.0.1, one peer: with the default caps (8 per
    // peer), 30 at once are almost four times its cap.
    const CLIENTS: usize = 30;
    let secrets = secrets();
    let server = tls_server(&secrets, &[]);
    let failed = burst_of_clients(
        &server.address,
        &pinned(secrets.identity.fingerprint),
        CLIENTS,
    );
    assert!(
        failed.is_empty(),
        "{} of {CLIENTS} failed, first: {}",
        failed.len(),
        failed[0]
    );
    server.assert_sessions_cleaned_up();
}

#[test]
fn a_kernel_crash_is_reported_through_tls() {
    let secrets = secrets();
    let scratch = tempfile::tempdir().unwrap();
    let library = compile_kernels(scratch.path());
    let object = library.to_str().unwrap();
    for warm_workers in ["1", "0"] {
        let server = tls_server(&secrets, &["--warm-workers", warm_workers]);
        let session =
            RemoteExecutor::connect_with(&server.address, &pinned(secrets.identity.fingerprint))
                .unwrap();
        // Replies first, so that the report is not the session's first record.
        run_kernels(&session, object);
        let crashed = session
            .launch("_mlir_ciface_segv", object, &[], &[])
            .unwrap_err();
        match &crashed {
            RuntimeError::KernelCrashed { symbol, signal, .. } => {
                assert_eq!(
                    (symbol.as_str(), *signal),
                    ("_mlir_ciface_segv", libc::SIGSEGV)
                );
            }
            other => panic!("expected a crash report, got {other}"),
        }
        server.assert_sessions_cleaned_up();
    }
}

/// An address of this host that is not loopback, if it has one.
fn host_address() -> Option<String> {
    let socket = UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let address = socket.local_addr().ok()?.ip();
    (!address.is_loopback() && !address.is_unspecified()).then(|| format!("{address}:0"))
}

#[test]
fn plaintext_off_loopback_is_refused_unless_asked_for() {
    let secrets = secrets();
    let token = secrets.token_file.to_str().unwrap();
    // Refused before anything is bound.
    let output = Command::new(SERVER)
        .args(["--listen", "0.0.0.0:0", "--token-file", token])
        .arg("--work-dir")
        .arg(secrets.dir.path())
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("refusing to listen on '0.0.0.0:0' in plaintext")
            && stderr.contains("--tls-cert")
            && stderr.contains("--insecure-plaintext"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");

    let Some(address) = host_address() else {
        eprintln!("skipped the rest: this host has no non-loopback address to listen on");
        return;
    };
    let start = |extra: &[&str]| {
        let mut command = Command::new(SERVER);
        command
            .args(["--listen", &address, "--token-file", token])
            .args(extra);
        Server::spawn(command, secrets.dir.path())
    };
    let tls = start(&[
        "--tls-cert",
        secrets.identity.cert.to_str().unwrap(),
        "--tls-key",
        secrets.identity.key.to_str().unwrap(),
    ]);
    RemoteExecutor::connect_with(&tls.address, &pinned(secrets.identity.fingerprint))
        .unwrap()
        .close()
        .unwrap();
    drop(tls);
    let insecure = start(&["--insecure-plaintext"]);
    // The client refuses, too, before it connects: without a pin it would
    // send its token to whatever answers there.
    let plaintext = ConnectOptions {
        token: Some(TOKEN.to_owned()),
        ..ConnectOptions::default()
    };
    let refused = RemoteExecutor::connect_with(&insecure.address, &plaintext)
        .err()
        .expect("a plaintext session off loopback was opened")
        .to_string();
    let host = insecure.address.rsplit_once(':').unwrap().0;
    assert!(
        refused.contains(&format!(
            "refusing plaintext to {host}, which is not loopback"
        )) && refused.contains("insecure_plaintext = true")
            && !refused.contains('\n'),
        "{refused}"
    );
    let trusted_network = ConnectOptions {
        insecure_plaintext: true,
        ..plaintext
    };
    RemoteExecutor::connect_with(&insecure.address, &trusted_network)
        .unwrap()
        .close()
        .unwrap();
}
