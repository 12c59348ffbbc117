//! How a client connects: its token, its deadlines and its TLS trust. `crate::config` fills
//! them in for each address, from the configuration file and the environment.

use std::{fmt, time::Duration};

use super::tls::TlsTrust;

/// The token itself, for a server started with `--token-file`.
pub const TOKEN_ENV: &str = "EXECUTOR_TOKEN";
/// A file holding the token (surrounding whitespace ignored), when
/// `EXECUTOR_TOKEN` is not set.
pub const TOKEN_FILE_ENV: &str = "EXECUTOR_TOKEN_FILE";

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_DEAD_LINK_TIMEOUT: Duration = Duration::from_secs(15);

#[derive(Clone)]
pub struct ConnectOptions {
    pub token: Option<String>,
    /// How long to wait for the connection (on a Unix socket: for room in
    /// its listen queue).
    pub connect_timeout: Duration,
    /// How long to wait for the server's answer to the handshake (and to a
    /// ping), so that a port where something else listens fails instead of
    /// hanging.
    pub handshake_timeout: Duration,
    /// How long the server's host may stay silent before the connection is
    /// given up (`executor_protocol::dead_peer`): a reply may take as long as its kernel
    /// runs, but a link or host that is gone fails every wait by then.
    pub dead_link_timeout: Duration,
    /// Whom to trust at a TCP address, which makes its session TLS; none:
    /// plaintext.
    pub tls: Option<TlsTrust>,
    /// Whether a plaintext session may go to an address off loopback
    /// (`insecure_plaintext = true`): without it, the client refuses to
    /// send its token, objects and data where the network can read them.
    pub insecure_plaintext: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            token: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            dead_link_timeout: DEFAULT_DEAD_LINK_TIMEOUT,
            tls: None,
            insecure_plaintext: false,
        }
    }
}

impl fmt::Debug for ConnectOptions {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ConnectOptions")
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .field("connect_timeout", &self.connect_timeout)
            .field("handshake_timeout", &self.handshake_timeout)
            .field("dead_link_timeout", &self.dead_link_timeout)
            .field("tls", &self.tls)
            .field("insecure_plaintext", &self.insecure_plaintext)
            .finish()
    }
}
