//! What can go wrong in continuing a TLS session: one line each, naming what
//! failed, and an `io::ErrorKind` for the `Read`/`Write` boundary.

use std::io;

use rustls::{AlertDescription, ContentType, HandshakeType};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum TlsSessionError {
    /// A header whose content type is none of TLS's: typically a plaintext
    /// client talking to a TLS server.
    #[error("not a TLS record (content type {content_type}): the peer is not speaking TLS")]
    NotTls { content_type: u8 },
    #[error("a TLS record of {length} bytes exceeds the limit of {limit} bytes")]
    RecordTooLong { length: usize, limit: usize },
    /// After the handshake, TLS 1.3 sends every record as `application_data`
    /// on the outside.
    #[error("a TLS record of outer content type {0:?} after the handshake")]
    UnexpectedOuterType(ContentType),
    #[error(
        "a TLS record failed to decrypt: it was altered on the way or is not from this session"
    )]
    Decrypt,
    #[error("a TLS record's content is malformed: {0}")]
    Malformed(String),
    #[error("the peer ended the TLS session with the alert {0:?}")]
    Alert(AlertDescription),
    #[error("the peer sent a TLS {0:?} message after the handover: key updates are not supported")]
    PostHandshakeMessage(HandshakeType),
    #[error("unexpected TLS content type {0:?} after the handshake")]
    UnexpectedContentType(ContentType),
    #[error("the peer closed the connection without a TLS close_notify")]
    Truncated,
    #[error("the connection was closed in the middle of a TLS record")]
    TruncatedRecord,
    #[error("the TLS session failed earlier and cannot go on")]
    Failed,
    #[error("this side closed the TLS session (close_notify sent)")]
    Closed,
    #[error("the TLS record sequence numbers are used up")]
    SequenceExhausted,
    #[error(
        "the TLS session has sent the {limit} records its cipher suite allows under one key, \
         and cannot update its keys: open a new session"
    )]
    RecordLimit { limit: u64 },
    #[error("{0} is not a TLS 1.3 cipher suite of the ring provider")]
    UnsupportedSuite(String),
    #[error("a {suite} key is {expected} bytes, not {actual}")]
    KeyLength {
        suite: &'static str,
        expected: usize,
        actual: usize,
    },
    #[error("the client closed the TLS session before the handover")]
    ClosedBeforeHandover,
    #[error("TLS: {0}")]
    Rustls(#[from] rustls::Error),
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl TlsSessionError {
    /// The kind a reader or writer of the session sees this error as.
    fn io_kind(&self) -> io::ErrorKind {
        match self {
            TlsSessionError::Io(error) => error.kind(),
            TlsSessionError::PostHandshakeMessage(_) => io::ErrorKind::Unsupported,
            TlsSessionError::Truncated | TlsSessionError::TruncatedRecord => {
                io::ErrorKind::UnexpectedEof
            }
            TlsSessionError::Alert(_) => io::ErrorKind::ConnectionAborted,
            TlsSessionError::Closed => io::ErrorKind::BrokenPipe,
            _ => io::ErrorKind::InvalidData,
        }
    }
}

impl From<TlsSessionError> for io::Error {
    fn from(error: TlsSessionError) -> Self {
        match error {
            TlsSessionError::Io(inner) => inner,
            other => io::Error::new(other.io_kind(), other),
        }
    }
}
