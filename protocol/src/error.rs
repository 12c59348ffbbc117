//! What can go wrong in reading or writing a frame.

use std::io;

use thiserror::Error;

#[derive(Debug, Error)]
pub enum ProtocolError {
    #[error("the connection was closed")]
    Closed,
    #[error(
        "the connection was closed in the middle of a message ({received} of {expected} bytes)"
    )]
    Truncated { received: usize, expected: usize },
    #[error("a {size}-byte message exceeds the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u32 },
    #[error("malformed message: {0}")]
    Malformed(String),
    /// A well-formed request over one of the protocol's limits on counts
    /// (docs/protocol.md, "Limits"), refused before it is allocated.
    #[error("{0}")]
    OverLimit(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}
