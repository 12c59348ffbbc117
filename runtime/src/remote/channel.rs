//! What a session's requests and replies go through: the socket itself, or a
//! TLS session over it (`tls.rs`). One owned value reads and writes both
//! ways; the socket under it is there for timeouts, peeking and shutting
//! down.

use std::{
    io::{self, IoSlice, Read, Write},
    net::Shutdown,
    time::Duration,
};

use executor_protocol::Stream;

use super::tls::TlsStream;

/// How long sending close_notify may wait on a full send buffer.
const CLOSE_NOTIFY_TIMEOUT: Duration = Duration::from_secs(1);

pub(super) enum Channel {
    Plain(Stream),
    Tls(Box<TlsStream>),
}

impl Channel {
    /// The socket the session runs over.
    pub fn socket(&self) -> &Stream {
        match self {
            Self::Plain(stream) => stream,
            Self::Tls(tls) => tls.get_ref(),
        }
    }

    /// Ends the session: over TLS, says so (close_notify) first, so that the
    /// server tells an end from a cut; then shuts the socket down.
    pub fn close(&mut self) {
        if let Self::Tls(tls) = self {
            // A server that reads nothing more must not hold this up.
            let _ = tls.get_ref().set_write_timeout(Some(CLOSE_NOTIFY_TIMEOUT));
            let _ = tls.close();
        }
        let _ = self.socket().shutdown(Shutdown::Both);
    }
}

impl Read for Channel {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.read(buffer),
            Self::Tls(tls) => tls.read(buffer),
        }
    }
}

impl Write for Channel {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.write(buffer),
            Self::Tls(tls) => tls.write(buffer),
        }
    }

    /// One system call for the slices (a launch's inputs are written from
    /// the caller's buffers); over TLS, for the records they make.
    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.write_vectored(buffers),
            Self::Tls(tls) => tls.write_vectored(buffers),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(_) => Ok(()),
            Self::Tls(tls) => tls.flush(),
        }
    }
}
