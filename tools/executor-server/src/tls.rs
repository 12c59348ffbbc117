//! The server's TLS: the rustls configuration it serves its TCP listeners
//! with (`--tls-cert`, `--tls-key`), and how a connection on them starts.
//!
//! TLS 1.3 only, the ring provider's suites (the ones a session can be handed
//! to a worker in, `executor_protocol::tls`), no client certificates: the
//! server proves who it is with its certificate, which clients pin or check
//! against a CA, and the client proves who it is with its token, sent inside
//! the TLS session and checked as on plaintext connections. No session
//! tickets (`send_tls13_tickets = 0`): nothing follows the handshake unasked,
//! and the supervisor hands the session over record-exact.
//!
//! Unix-socket listeners are not TLS: the kernel names their peer (its uid),
//! and nothing between the two processes can read or alter their bytes.

use std::{path::Path, sync::Arc};

use executor_protocol::Fingerprint;
#[cfg(test)]
use rustls::crypto::CryptoProvider;
use rustls::{ServerConfig, ServerConnection, crypto::ring};

use crate::{
    ServerError,
    identity::{self, Identity},
};

/// The first byte of a TLS client's first record (a handshake record).
pub(crate) const HANDSHAKE_RECORD: u8 = 0x16;

/// What a client that did not start with TLS is told, in plaintext.
pub(crate) const PLAINTEXT_REFUSED: &str = "this server speaks TLS: set tls_fingerprint or tls_ca for its address in the client's \
     configuration file (EXECUTOR_CONFIG)";

/// The server's TLS configuration and its certificate's fingerprint.
pub(crate) struct ServerTls {
    config: Arc<ServerConfig>,
    pub fingerprint: Fingerprint,
}

impl ServerTls {
    /// Loads the identity in the PEM files `cert` and `key`.
    pub fn load(cert: &Path, key: &Path) -> Result<Self, ServerError> {
        let identity = identity::load(cert, key)?;
        Self::new(identity).map_err(|error| ServerError::Tls {
            cert: cert.display().to_string(),
            key: key.display().to_string(),
            reason: error.to_string(),
        })
    }

    fn new(identity: Identity) -> Result<Self, rustls::Error> {
        let mut provider = ring::default_provider();
        provider
            .cipher_suites
            .retain(|suite| suite.version() == &rustls::version::TLS13);
        let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
            .with_protocol_versions(&[&rustls::version::TLS13])?
            .with_no_client_auth()
            .with_single_cert(identity.chain, identity.key)?;
        config.enable_secret_extraction = true;
        config.send_tls13_tickets = 0;
        Ok(Self {
            config: Arc::new(config),
            fingerprint: identity.fingerprint,
        })
    }

    /// A new server-side session.
    pub fn accept(&self) -> Result<ServerConnection, rustls::Error> {
        ServerConnection::new(Arc::clone(&self.config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls13_suites(provider: &CryptoProvider) -> usize {
        provider
            .cipher_suites
            .iter()
            .filter(|suite| suite.version() == &rustls::version::TLS13)
            .count()
    }

    #[test]
    fn a_generated_identity_serves_tls_13_only() {
        let dir = tempfile::tempdir().unwrap();
        let fingerprint = identity::generate(dir.path(), vec!["localhost".to_owned()]).unwrap();
        let tls = ServerTls::load(
            &dir.path().join(identity::CERT_FILE),
            &dir.path().join(identity::KEY_FILE),
        )
        .unwrap();
        assert_eq!(tls.fingerprint, fingerprint);
        let provider = tls.config.crypto_provider();
        assert_eq!(provider.cipher_suites.len(), 3);
        assert_eq!(tls13_suites(provider), 3);
        assert!(tls.config.enable_secret_extraction);
        assert_eq!(tls.config.send_tls13_tickets, 0);
    }

    #[test]
    fn a_key_that_is_not_the_certificates_is_refused_naming_both_files() {
        let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        identity::generate(one.path(), vec!["localhost".to_owned()]).unwrap();
        identity::generate(two.path(), vec!["localhost".to_owned()]).unwrap();
        let error = ServerTls::load(
            &one.path().join(identity::CERT_FILE),
            &two.path().join(identity::KEY_FILE),
        )
        .err()
        .unwrap()
        .to_string();
        assert!(
            error.contains("cert.pem") && error.contains("key.pem"),
            "{error}"
        );
    }
}
