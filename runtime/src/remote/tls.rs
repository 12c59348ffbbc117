//! The client's side of TLS: whom it trusts at an address (a pinned
//! certificate fingerprint, or the CA certificates of a file), the rustls
//! configuration that trusts exactly that (TLS 1.3 only, the ring provider),
//! and the handshake, whose every failure is one line saying what failed.
//! After the handshake the session goes on in the protocol crate's record
//! layer ([`TlsRecords`], as the server's worker does): rustls's buffered
//! connection would copy every request and reply through buffers of its own.
//!
//! A pinned fingerprint is checked by [`PinnedCertificate`]: the server's
//! certificate must be the one whose SHA-256 is pinned (so names and dates do
//! not matter: it is the key that is trusted, as with SSH's known_hosts), and
//! the handshake's signatures are still verified against it, which proves the
//! server holds its key.

use std::{
    io::{self, Read, Write},
    path::{Path, PathBuf},
    sync::Arc,
    time::{Duration, Instant},
};

use executor_protocol::{
    BUSY_REFUSAL, Fingerprint, HelloReply, PollableStream, Stream,
    tls::{TlsRecords, TlsSessionSecrets},
};
use rustls::{
    CertificateError, ClientConfig, ClientConnection, DigitallySignedStruct, OtherError,
    RootCertStore, SignatureScheme,
    client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier},
    crypto::{CryptoProvider, ring},
    pki_types::{CertificateDer, ServerName, UnixTime, pem::PemObject},
};

/// Which servers a client trusts at an address: what makes it TLS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TlsTrust {
    /// The server's certificate is the one with this SHA-256 fingerprint
    /// (`tls_fingerprint`).
    Fingerprint(Fingerprint),
    /// The server's certificate is issued by a CA of this PEM file for the
    /// address's host name or IP address (`tls_ca`).
    CaFile(PathBuf),
}

/// A session's TLS stream over its socket.
pub(super) type TlsStream = TlsRecords<PollableStream>;

/// Runs the TLS handshake with the server at `address` over `stream`, all of
/// it within `timeout`; returns the session and the fingerprint of the
/// certificate the server presented. The error is the reason, one line.
pub(super) fn handshake(
    address: &str,
    stream: Stream,
    trust: &TlsTrust,
    timeout: Duration,
) -> Result<(TlsStream, Fingerprint), String> {
    let config = client_config(address, trust)?;
    let name = server_name(address, trust)?;
    let mut connection = ClientConnection::new(config, name)
        .map_err(|error| format!("cannot start a TLS session: {error}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|error| error.to_string())?;
    let mut observed = ObservedSocket {
        stream: &stream,
        first: None,
        plaintext: Vec::new(),
        deadline: Instant::now() + timeout,
    };
    while connection.is_handshaking() {
        if let Err(error) = connection.complete_io(&mut observed) {
            return Err(explain(&error, &observed, trust, timeout));
        }
    }
    // The client's Finished, which complete_io leaves queued.
    while connection.wants_write() {
        if let Err(error) = connection.write_tls(&mut observed) {
            return Err(explain(&error, &observed, trust, timeout));
        }
    }
    let presented = connection
        .peer_certificates()
        .and_then(|chain| chain.first())
        .map(|certificate| Fingerprint::of_certificate(certificate))
        .ok_or_else(|| "the server presented no certificate".to_owned())?;
    Ok((continue_session(connection, stream)?, presented))
}

/// The session `connection` finished the handshake of, continued over
/// `stream` by the record layer. Nothing of the server's is left in
/// rustls's buffers: the server sends no session tickets, and nothing else
/// until the client's first request.
fn continue_session(connection: ClientConnection, stream: Stream) -> Result<TlsStream, String> {
    let cannot =
        |error: &dyn std::fmt::Display| format!("cannot continue the TLS session: {error}");
    let suite = connection
        .negotiated_cipher_suite()
        .ok_or_else(|| cannot(&rustls::Error::HandshakeNotComplete))?;
    let secrets = connection
        .dangerous_extract_secrets()
        .map_err(|error| cannot(&error))?;
    let secrets =
        TlsSessionSecrets::from_extracted(suite, secrets).map_err(|error| cannot(&error))?;
    TlsRecords::resume(PollableStream::new(stream), &secrets, Vec::new())
        .map_err(|error| cannot(&error))
}

/// The one line a failed handshake is reported as.
fn explain(
    error: &io::Error,
    observed: &ObservedSocket<'_>,
    trust: &TlsTrust,
    timeout: Duration,
) -> String {
    let first = observed.first;
    if first.is_some_and(|first| !starts_tls_record(first)) {
        if let Some(reason) = busy_refusal(&observed.plaintext) {
            // A plaintext server refuses so too: this says nothing of TLS.
            return format!(
                "the server is too busy for another connection; it said, in plaintext: {reason}"
            );
        }
        return "the server does not speak TLS (it answered in plaintext): remove tls_fingerprint \
                and tls_ca from its section, or start it with --tls-cert and --tls-key"
            .to_owned();
    }
    if matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    ) {
        return format!(
            "no TLS handshake reply within {timeout:?}: is an executor-server listening there?"
        );
    }
    match error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<rustls::Error>())
    {
        Some(rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(inner))))
            if inner.downcast_ref::<Mismatch>().is_some() =>
        {
            inner.to_string()
        }
        Some(rustls::Error::InvalidCertificate(reason)) => match trust {
            TlsTrust::CaFile(path) => format!(
                "the server's certificate is not trusted by tls_ca '{}': {}",
                path.display(),
                rustls::Error::InvalidCertificate(reason.clone())
            ),
            TlsTrust::Fingerprint(_) => {
                format!("TLS: {}", rustls::Error::InvalidCertificate(reason.clone()))
            }
        },
        Some(other) => format!("the TLS handshake failed: {other}"),
        None if first.is_none() && error.kind() == io::ErrorKind::UnexpectedEof => {
            "the server closed the connection in the TLS handshake".to_owned()
        }
        None => format!("the TLS handshake failed: {error}"),
    }
}

/// Whether `byte` may start a TLS server's first record: a handshake one
/// (or an alert).
fn starts_tls_record(byte: u8) -> bool {
    const HANDSHAKE: u8 = 0x16;
    const ALERT: u8 = 0x15;
    byte == HANDSHAKE || byte == ALERT
}

/// The reason of `reply`, if it is the refusal a server sends in plaintext
/// when it has no room for another connection's handshake (docs/protocol.md,
/// "Caps"), whether it speaks TLS or not. It is unauthenticated: it is only
/// reported.
fn busy_refusal(reply: &[u8]) -> Option<String> {
    match executor_protocol::read_message(&mut &*reply, PLAINTEXT_REPLY_MAX as u32) {
        Ok(HelloReply::Refused { reason }) if reason.starts_with(BUSY_REFUSAL) => Some(reason),
        _ => None,
    }
}

/// The client configuration trusting `trust`, TLS 1.3 only.
fn client_config(address: &str, trust: &TlsTrust) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .map_err(|error| format!("cannot configure TLS: {error}"))?;
    let mut config = match trust {
        TlsTrust::Fingerprint(expected) => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(PinnedCertificate {
                address: address.to_owned(),
                expected: *expected,
                provider,
            }))
            .with_no_client_auth(),
        TlsTrust::CaFile(path) => builder
            .with_root_certificates(read_roots(path)?)
            .with_no_client_auth(),
    };
    // The session continues in the record layer after the handshake.
    config.enable_secret_extraction = true;
    Ok(Arc::new(config))
}

/// The CA certificates of the PEM file at `path`.
fn read_roots(path: &Path) -> Result<RootCertStore, String> {
    let unusable = |reason: String| format!("cannot use tls_ca '{}': {reason}", path.display());
    let certificates = CertificateDer::pem_file_iter(path)
        .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
        .map_err(|error| unusable(error.to_string()))?;
    if certificates.is_empty() {
        return Err(unusable("it holds no certificate".to_owned()));
    }
    let mut roots = RootCertStore::empty();
    for certificate in certificates {
        roots
            .add(certificate)
            .map_err(|error| unusable(error.to_string()))?;
    }
    Ok(roots)
}

/// The name the server's certificate must be valid for: the address's host
/// (a DNS name or an IP address). A pinned certificate is not checked for
/// names, so any host will do there.
fn server_name(address: &str, trust: &TlsTrust) -> Result<ServerName<'static>, String> {
    let host = address
        .rsplit_once(':')
        .map_or(address, |(host, _)| host)
        .trim_start_matches('[')
        .trim_end_matches(']');
    match (ServerName::try_from(host.to_owned()), trust) {
        (Ok(name), _) => Ok(name),
        (Err(_), TlsTrust::Fingerprint(_)) => Ok(ServerName::try_from("executor-server")
            .map_err(|error| error.to_string())?
            .to_owned()),
        (Err(error), TlsTrust::CaFile(_)) => Err(format!(
            "'{host}' is neither a host name nor an IP address a certificate can name: {error}"
        )),
    }
}

/// A pinned fingerprint that the server's certificate does not have.
#[derive(Debug)]
struct Mismatch {
    address: String,
    expected: Fingerprint,
    presented: Fingerprint,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "the server's certificate is {}, not the pinned {} (tls_fingerprint): another \
             server answers at {}, or its identity changed",
            self.presented, self.expected, self.address
        )
    }
}

impl std::error::Error for Mismatch {}

/// Trusts the one certificate whose fingerprint is pinned.
#[derive(Debug)]
struct PinnedCertificate {
    address: String,
    expected: Fingerprint,
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for PinnedCertificate {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let presented = Fingerprint::of_certificate(end_entity);
        if presented == self.expected {
            return Ok(ServerCertVerified::assertion());
        }
        Err(rustls::Error::InvalidCertificate(CertificateError::Other(
            OtherError(Arc::new(Mismatch {
                address: self.address.clone(),
                expected: self.expected,
                presented,
            })),
        )))
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _certificate: &CertificateDer<'_>,
        _signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        // The configuration offers TLS 1.3 only.
        Err(rustls::Error::PeerIncompatible(
            rustls::PeerIncompatible::Tls12NotOffered,
        ))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            certificate,
            signature,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// The most of a plaintext reply kept: a refusal is a sentence.
const PLAINTEXT_REPLY_MAX: usize = 4096;

/// The socket during the handshake, remembering the first byte the server
/// sent, by which a plaintext answer is told apart, and the start of such an
/// answer.
struct ObservedSocket<'s> {
    stream: &'s Stream,
    first: Option<u8>,
    /// What the server sent, if it was not TLS (up to
    /// [`PLAINTEXT_REPLY_MAX`] bytes).
    plaintext: Vec<u8>,
    /// When the whole handshake must be done: a server that sends a byte
    /// now and then cannot hold the client past it.
    deadline: Instant,
}

impl ObservedSocket<'_> {
    /// Bounds the next wait by the time left; TimedOut once there is none.
    fn bound_wait(&self) -> io::Result<()> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the handshake's deadline passed",
            ));
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.set_write_timeout(Some(left))
    }
}

impl Read for ObservedSocket<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.bound_wait()?;
        let read = (&*self.stream).read(buffer)?;
        if self.first.is_none() && read > 0 {
            self.first = Some(buffer[0]);
        }
        if self.first.is_some_and(|first| !starts_tls_record(first)) {
            let room = PLAINTEXT_REPLY_MAX - self.plaintext.len();
            self.plaintext.extend_from_slice(&buffer[..read.min(room)]);
        }
        Ok(read)
    }
}

impl Write for ObservedSocket<'_> {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        self.bound_wait()?;
        (&*self.stream).write(buffer)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_name_is_the_addresss_host() {
        let pinned = TlsTrust::Fingerprint(Fingerprint::of_certificate(b"x"));
        let ca = TlsTrust::CaFile(PathBuf::from("/ca.pem"));
        let name = |address: &str, trust: &TlsTrust| server_name(address, trust);
        let expected = |text: &str| ServerName::try_from(text.to_owned()).unwrap();
        assert_eq!(name("10.0.0.2:9000", &ca).unwrap(), expected("10.0.0.2"));
        assert_eq!(name("[::1]:9000", &ca).unwrap(), expected("::1"));
        assert_eq!(name("gpu-3.lab:9000", &ca).unwrap(), expected("gpu-3.lab"));
        assert!(
            name("bad_host!:9000", &ca)
                .unwrap_err()
                .contains("bad_host!")
        );
        assert_eq!(
            name("bad_host!:9000", &pinned).unwrap(),
            expected("executor-server")
        );
    }

    /// The line a handshake fails with against a server that answers its
    /// ClientHello with the plaintext `reply`.
    fn handshake_answered_in_plaintext(reply: HelloReply) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let server = std::thread::spawn(move || {
            let (mut connection, _) = listener.accept().unwrap();
            executor_protocol::write_message(&mut connection, &reply, 4096).unwrap();
            // Closed once the client has given up.
            let _ = connection.read(&mut [0u8; 4096]);
        });
        let stream = Stream::Tcp(std::net::TcpStream::connect(&address).unwrap());
        let trust = TlsTrust::Fingerprint(Fingerprint::of_certificate(b"x"));
        let error = handshake(&address, stream, &trust, Duration::from_secs(10))
            .err()
            .unwrap();
        server.join().unwrap();
        error
    }

    #[test]
    fn a_busy_servers_plaintext_refusal_is_reported_as_it_said() {
        let reason = format!("{BUSY_REFUSAL} are waiting for their handshake with this server");
        let error = handshake_answered_in_plaintext(HelloReply::Refused {
            reason: reason.clone(),
        });
        assert_eq!(
            error,
            format!(
                "the server is too busy for another connection; it said, in plaintext: {reason}"
            )
        );
    }

    #[test]
    fn any_other_plaintext_answer_is_a_server_that_does_not_speak_tls() {
        // What a plaintext server answers a ClientHello.
        let error = handshake_answered_in_plaintext(HelloReply::Refused {
            reason: "expected a Hello message: a 369295618-byte message exceeds the limit"
                .to_owned(),
        });
        assert!(
            error.starts_with("the server does not speak TLS (it answered in plaintext)"),
            "{error}"
        );
    }

    #[test]
    fn an_unusable_ca_file_is_named() {
        let directory = tempfile::tempdir().unwrap();
        let empty = directory.path().join("empty.pem");
        std::fs::write(&empty, "").unwrap();
        let error = read_roots(&empty).err().unwrap();
        assert!(
            error.contains("empty.pem") && error.contains("no certificate"),
            "{error}"
        );
        let missing = directory.path().join("missing.pem");
        let error = read_roots(&missing).err().unwrap();
        assert!(error.starts_with("cannot use tls_ca '"), "{error}");
    }
}
