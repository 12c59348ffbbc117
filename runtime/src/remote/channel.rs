//! What a session's requests and replies go through: the socket itself, or a
//! TLS session over it (`tls.rs`). One owned value reads and writes both
//! ways, and its reads can be told not to wait (to poll for a reply); the
//! socket under it is there for timeouts, peeking and shutting down.

use std::{
    io::{self, IoSlice, Read, Write},
    net::Shutdown,
    time::Duration,
};

use executor_protocol::{PollableStream, Stream};

use super::tls::TlsStream;

/// How long sending close_notify may wait on a full send buffer.
const CLOSE_NOTIFY_TIMEOUT: Duration = Duration::from_secs(1);

pub(super) enum Channel {
    Plain(PollableStream),
    Tls(Box<TlsStream>),
}

impl Channel {
    /// The socket the session runs over.
    pub fn socket(&self) -> &Stream {
        match self {
            Self::Plain(stream) => stream.get_ref(),
            Self::Tls(tls) => tls.get_ref().get_ref(),
        }
    }

    /// While set, a read that finds nothing to read fails at once with
    /// `io::ErrorKind::WouldBlock` instead of waiting (over TLS, a record
    /// that came in part is kept for the next read).
    pub fn set_dont_wait(&mut self, dont_wait: bool) {
        match self {
            Self::Plain(stream) => stream.set_dont_wait(dont_wait),
            Self::Tls(tls) => tls.get_mut().set_dont_wait(dont_wait),
        }
    }

    /// Ends the session: over TLS, says so (close_notify) first, so that the
    /// server tells an end from a cut; then shuts the socket down.
    pub fn close(&mut self) {
        if let Self::Tls(tls) = self {
            // A server that reads nothing more must not hold this up.
            let _ = tls
                .get_ref()
                .get_ref()
                .set_write_timeout(Some(CLOSE_NOTIFY_TIMEOUT));
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
