//! How a client connects: timeouts, and the token it authenticates with, taken
//! from the environment.

use std::{fmt, path::Path, time::Duration};

use crate::{
    error::{Result, RuntimeError},
    protocol,
};

/// The token itself, for a server started with `--token-file`.
pub const TOKEN_ENV: &str = "EXECUTOR_TOKEN";
/// A file holding the token (surrounding whitespace ignored), when
/// `EXECUTOR_TOKEN` is not set.
pub const TOKEN_FILE_ENV: &str = "EXECUTOR_TOKEN_FILE";

pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Clone)]
pub struct ConnectOptions {
    pub token: Option<String>,
    /// How long to wait for the TCP connection.
    pub connect_timeout: Duration,
    /// How long to wait for the server's answer to the handshake, so that a
    /// port where something else listens fails instead of hanging. Later
    /// replies have no timeout: kernels may run for as long as they need.
    pub handshake_timeout: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            token: None,
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            handshake_timeout: DEFAULT_HANDSHAKE_TIMEOUT,
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
            .finish()
    }
}

impl ConnectOptions {
    /// The default timeouts and the token from `EXECUTOR_TOKEN`, or else from
    /// the file `EXECUTOR_TOKEN_FILE` names; no token if neither is set.
    pub fn from_env() -> Result<Self> {
        let token = match (std::env::var(TOKEN_ENV), std::env::var_os(TOKEN_FILE_ENV)) {
            (Ok(token), _) => Some(token),
            (Err(_), Some(path)) => Some(token_from_file(Path::new(&path))?),
            (Err(_), None) => None,
        };
        Ok(Self {
            token,
            ..Self::default()
        })
    }
}

fn token_from_file(path: &Path) -> Result<String> {
    protocol::read_token_file(path).map_err(|error| RuntimeError::Unreadable {
        path: path.display().to_string(),
        reason: format!("{error} (the token file named by {TOKEN_FILE_ENV})"),
    })
}
