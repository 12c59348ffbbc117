//! A TLS 1.3 session handed over after the handshake: a real rustls client in
//! a thread, the supervisor's record-exact stream for the handshake and the
//! first request, then the secrets through postcard and the session continued
//! by `TlsRecords`, as a worker would.

use std::io::{self, Cursor, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Arc, mpsc};
use std::thread::{self, JoinHandle};

use executor_protocol::tls::{
    Handover, MAX_CIPHERTEXT_LEN, RecordExactStream, TlsRecords, TlsSessionError,
    TlsSessionSecrets, TlsSuite, TrafficKeys,
};
use rustls::crypto::{CryptoProvider, ring};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, ServerConfig, ServerConnection};

type ClientStream = rustls::StreamOwned<ClientConnection, UnixStream>;

/// What the client sends first, in one record: the supervisor reads the
/// request and leaves the rest, which travels with the handover.
const FIRST_RECORD: &[u8] = b"HELLOEXTRA";
const REQUEST: &[u8] = b"HELLO";
const LEFT_UNREAD: &[u8] = b"EXTRA";
/// The client's second record, sent before the supervisor reads anything:
/// it must still be in the socket at the handover.
const SECOND_RECORD: &[u8] = b"SECOND";
/// The supervisor's answer to the request, before the handover.
const WELCOME: &[u8] = b"WELCOME";

/// A server and a client configuration offering only `suite`, with a
/// self-signed certificate made for the test.
fn configs(suite: TlsSuite) -> (Arc<ServerConfig>, Arc<ClientConfig>) {
    let certified = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
    let certificate = certified.cert.der().clone();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.key_pair.serialize_der()));
    let provider = Arc::new(CryptoProvider {
        cipher_suites: vec![suite.to_rustls()],
        ..ring::default_provider()
    });
    let mut server = ServerConfig::builder_with_provider(provider.clone())
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certificate.clone()], key)
        .unwrap();
    server.enable_secret_extraction = true;
    server.send_tls13_tickets = 0;
    let mut roots = RootCertStore::empty();
    roots.add(certificate).unwrap();
    let client = ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    (Arc::new(server), Arc::new(client))
}

fn read_exactly(reader: &mut impl Read, length: usize) -> Vec<u8> {
    let mut bytes = vec![0; length];
    reader.read_exact(&mut bytes).unwrap();
    bytes
}

/// A client and a supervisor over a socket pair, up to the handover: the
/// client sends [`FIRST_RECORD`] and [`SECOND_RECORD`] and reads
/// [`WELCOME`], then runs `client` (in its thread); the supervisor runs the
/// handshake, reads [`REQUEST`], answers and hands over. The secrets come
/// back through postcard, as the worker would receive them.
fn handed_over<T: Send + 'static>(
    suite: TlsSuite,
    client: impl FnOnce(&mut ClientStream) -> T + Send + 'static,
) -> (Handover<UnixStream>, TlsSessionSecrets, JoinHandle<T>) {
    let (server_config, client_config) = configs(suite);
    let (client_socket, server_socket) = UnixStream::pair().unwrap();
    let (both_sent, wait_for_both) = mpsc::channel();
    let client = thread::spawn(move || {
        let name = ServerName::try_from("localhost").unwrap();
        let connection = ClientConnection::new(client_config, name).unwrap();
        let mut stream = rustls::StreamOwned::new(connection, client_socket);
        stream.write_all(FIRST_RECORD).unwrap();
        stream.flush().unwrap();
        stream.write_all(SECOND_RECORD).unwrap();
        stream.flush().unwrap();
        both_sent.send(()).unwrap();
        assert_eq!(read_exactly(&mut stream, WELCOME.len()), WELCOME);
        client(&mut stream)
    });

    let connection = ServerConnection::new(server_config).unwrap();
    let mut supervisor = RecordExactStream::new(connection, server_socket);
    supervisor.complete_handshake().unwrap();
    // Both records are in the socket before the supervisor reads either: a
    // reader that took more than one record would take the second too.
    wait_for_both.recv().unwrap();
    assert_eq!(read_exactly(&mut supervisor, REQUEST.len()), REQUEST);
    supervisor.write_all(WELCOME).unwrap();
    let handover = supervisor.hand_over().unwrap();
    assert_eq!(handover.secrets.suite(), suite);
    let encoded = postcard::to_stdvec(&handover.secrets).unwrap();
    let secrets: TlsSessionSecrets = postcard::from_bytes(&encoded).unwrap();
    (handover, secrets, client)
}

/// The worker's side of [`handed_over`]: the session continued on the
/// socket, having read what the supervisor left and the second record.
fn continued<T: Send + 'static>(
    suite: TlsSuite,
    client: impl FnOnce(&mut ClientStream) -> T + Send + 'static,
) -> (TlsRecords<UnixStream>, JoinHandle<T>) {
    let (handover, secrets, client) = handed_over(suite, client);
    let mut worker =
        TlsRecords::resume(handover.socket, &secrets, handover.unread_plaintext).unwrap();
    assert_eq!(read_exactly(&mut worker, LEFT_UNREAD.len()), LEFT_UNREAD);
    assert_eq!(
        read_exactly(&mut worker, SECOND_RECORD.len()),
        SECOND_RECORD
    );
    (worker, client)
}

/// `length` bytes that differ from any shift of themselves by a few bytes.
fn pattern(length: usize, seed: u8) -> Vec<u8> {
    (0..length)
        .map(|index| (index as u8).wrapping_mul(31).wrapping_add(seed) ^ (index >> 8) as u8)
        .collect()
}

const MIB: usize = 1 << 20;

/// Small messages and a MiB each way after the handover, then close_notify
/// from the worker, then from the client, each a clean end of stream.
fn session_continues_in_both_directions(suite: TlsSuite) {
    let (mut worker, client) = continued(suite, |stream| {
        for message in [&b"one"[..], b"two", b"three"] {
            stream.write_all(message).unwrap();
            stream.flush().unwrap();
            assert_eq!(
                read_exactly(stream, message.len()),
                message.to_ascii_uppercase()
            );
        }
        stream.write_all(&pattern(MIB, 1)).unwrap();
        stream.flush().unwrap();
        assert!(
            read_exactly(stream, MIB) == pattern(MIB, 2),
            "the MiB came back altered"
        );
        // The worker's close_notify: a clean end of stream, not an error.
        let mut rest = Vec::new();
        assert_eq!(stream.read_to_end(&mut rest).unwrap(), 0);
        stream.conn.send_close_notify();
        stream.flush().unwrap();
    });
    for message in [&b"one"[..], b"two", b"three"] {
        let received = read_exactly(&mut worker, message.len());
        assert_eq!(received, message);
        worker.write_all(&received.to_ascii_uppercase()).unwrap();
    }
    assert!(
        read_exactly(&mut worker, MIB) == pattern(MIB, 1),
        "the MiB arrived altered"
    );
    worker.write_all(&pattern(MIB, 2)).unwrap();
    worker.close().unwrap();
    client.join().unwrap();
    let mut rest = Vec::new();
    assert_eq!(worker.read_to_end(&mut rest).unwrap(), 0);
    assert_eq!(worker.read(&mut [0; 8]).unwrap(), 0, "still the end");
    let error = worker.write(b"late").unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::BrokenPipe, "{error}");
}

#[test]
fn aes_128_gcm_session_continues_after_the_handover() {
    session_continues_in_both_directions(TlsSuite::Aes128GcmSha256);
}

#[test]
fn aes_256_gcm_session_continues_after_the_handover() {
    session_continues_in_both_directions(TlsSuite::Aes256GcmSha384);
}

#[test]
fn chacha20_poly1305_session_continues_after_the_handover() {
    session_continues_in_both_directions(TlsSuite::Chacha20Poly1305Sha256);
}

/// The supervisor took exactly one application record: the handed-over
/// sequence numbers say so, and the second record was still in the socket
/// (read by the worker in `continued`, not part of the unread plaintext).
#[test]
fn the_supervisor_reads_no_record_past_the_request() {
    let (handover, secrets, client) = handed_over(TlsSuite::Aes128GcmSha256, |_| ());
    client.join().unwrap();
    assert_eq!(handover.unread_plaintext, LEFT_UNREAD);
    assert_eq!(secrets.rx().sequence(), 1, "one record received");
    assert_eq!(secrets.tx().sequence(), 1, "one record sent");
    let printed = format!("{handover:?}");
    assert!(printed.contains("<secret>"), "{printed}");
    assert!(
        !printed.contains("69, 88"),
        "no plaintext (EXTRA) in {printed}"
    );
}

#[test]
fn client_close_notify_is_a_clean_end_of_stream() {
    let (mut worker, client) = continued(TlsSuite::Chacha20Poly1305Sha256, |stream| {
        stream.conn.send_close_notify();
        stream.flush().unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).unwrap();
        answer
    });
    assert_eq!(worker.read(&mut [0; 16]).unwrap(), 0);
    assert_eq!(worker.read(&mut [0; 16]).unwrap(), 0, "still the end");
    // This side can still answer, and close in turn.
    worker.write_all(b"bye").unwrap();
    worker.close().unwrap();
    assert_eq!(client.join().unwrap(), b"bye");
}

/// A relay in the worker's read path that flips one byte of what passes,
/// the `position`-th byte from the handover on.
struct FlippingRelay {
    inner: UnixStream,
    position: usize,
    passed: usize,
}

impl Read for FlippingRelay {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buffer)?;
        if (self.passed..self.passed + read).contains(&self.position) {
            buffer[self.position - self.passed] ^= 0x01;
        }
        self.passed += read;
        Ok(read)
    }
}

impl Write for FlippingRelay {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        self.inner.write(buffer)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn a_byte_altered_on_the_wire_is_a_decryption_error_not_data() {
    let (handover, secrets, client) = handed_over(TlsSuite::Aes256GcmSha384, |_| ());
    client.join().unwrap();
    // The first record after the handover is SECOND_RECORD's: flip a byte of
    // its body (past the 5-byte header).
    let relay = FlippingRelay {
        inner: handover.socket,
        position: 8,
        passed: 0,
    };
    let mut worker = TlsRecords::resume(relay, &secrets, handover.unread_plaintext).unwrap();
    assert_eq!(read_exactly(&mut worker, LEFT_UNREAD.len()), LEFT_UNREAD);
    let mut buffer = [0u8; 64];
    let error = worker.read(&mut buffer).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::InvalidData, "{error}");
    assert!(error.to_string().contains("failed to decrypt"), "{error}");
    assert_eq!(buffer, [0u8; 64], "nothing of the altered record returned");
    let again = worker.read(&mut buffer).unwrap_err();
    assert!(again.to_string().contains("failed earlier"), "{again}");
}

#[test]
fn a_client_key_update_is_refused_as_not_supported() {
    let (mut worker, client) = continued(TlsSuite::Aes128GcmSha256, |stream| {
        stream.conn.refresh_traffic_keys().unwrap();
        stream.write_all(b"under new keys").unwrap();
        stream.flush().unwrap();
    });
    client.join().unwrap();
    let error = worker.read(&mut [0; 64]).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::Unsupported, "{error}");
    assert_eq!(
        error.to_string(),
        "the peer sent a TLS KeyUpdate message after the handover: key updates are not supported"
    );
}

/// A byte stream in, whatever is written dropped: a peer that sends
/// `incoming` and nothing more.
struct ScriptedPeer {
    incoming: Cursor<Vec<u8>>,
}

impl Read for ScriptedPeer {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.incoming.read(buffer)
    }
}

impl Write for ScriptedPeer {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        Ok(buffer.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn scripted(incoming: &[u8]) -> ScriptedPeer {
    ScriptedPeer {
        incoming: Cursor::new(incoming.to_vec()),
    }
}

#[test]
fn a_record_header_over_the_limit_is_refused_before_its_body() {
    let secrets = TlsSessionSecrets::new(
        TlsSuite::Aes128GcmSha256,
        TrafficKeys::new(0, vec![1; 16], [2; 12]),
        TrafficKeys::new(0, vec![3; 16], [4; 12]),
    );
    let over = (MAX_CIPHERTEXT_LEN + 1) as u16;
    let mut wire = vec![23, 3, 3];
    wire.extend(over.to_be_bytes());
    // The worker reads what the socket has: a header alone is refused, not
    // waited on for a body.
    let mut worker = TlsRecords::resume(scripted(&wire), &secrets, Vec::new()).unwrap();
    let error = worker.read(&mut [0; 64]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "a TLS record of 16641 bytes exceeds the limit of 16640 bytes"
    );
    wire.extend([0xee; 32]);

    // The supervisor's stream refuses it the same way, during the handshake.
    let (server_config, _) = configs(TlsSuite::Aes128GcmSha256);
    let connection = ServerConnection::new(server_config).unwrap();
    let mut supervisor = RecordExactStream::new(connection, scripted(&wire));
    let error = supervisor.complete_handshake().unwrap_err();
    assert!(
        matches!(error, TlsSessionError::RecordTooLong { .. }),
        "{error}"
    );
}

#[test]
fn a_plaintext_client_is_told_apart_by_the_supervisor() {
    let (server_config, _) = configs(TlsSuite::Aes128GcmSha256);
    let connection = ServerConnection::new(server_config).unwrap();
    // A plaintext frame of the protocol: a big-endian length, then postcard.
    let mut supervisor = RecordExactStream::new(connection, scripted(&[0, 0, 0, 9, 1, 2]));
    let error = supervisor.complete_handshake().unwrap_err();
    assert_eq!(
        error.to_string(),
        "not a TLS record (content type 0): the peer is not speaking TLS"
    );
}
