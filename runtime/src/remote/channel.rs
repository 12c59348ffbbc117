//! What a session's requests and replies go through: the socket itself, or a
//! TLS session over it (`tls.rs`). One owned value reads and writes both
//! ways (a TLS session cannot be split into a reading and a writing half);
//! the socket under it is there for timeouts, peeking and shutting down.

use std::{
    io::{self, IoSlice, Read, Write},
    net::Shutdown,
    time::Duration,
};

use executor_protocol::Stream;

use super::tls::TlsStream;

/// The most plaintext one vectored write over TLS takes: four records.
const TLS_WRITE_CHUNK: usize = 64 * 1024;

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
            Self::Tls(tls) => &tls.sock,
        }
    }

    /// Ends the session: over TLS, says so (close_notify) first, so that the
    /// server tells an end from a cut; then shuts the socket down.
    pub fn close(&mut self) {
        if let Self::Tls(tls) = self {
            // A server that reads nothing more must not hold this up.
            let _ = tls.sock.set_write_timeout(Some(CLOSE_NOTIFY_TIMEOUT));
            tls.conn.send_close_notify();
            let _ = tls.flush();
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

    /// Plaintext: one system call for the slices (a launch's inputs are
    /// written from the caller's buffers). TLS: the connection encrypts all
    /// of them it takes into its records, sent in one go. (rustls's
    /// `StreamOwned` takes only the first slice of a vectored write, so each
    /// slice would be a record and a send of its own, and the server would
    /// wake up for each.)
    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.write_vectored(buffers),
            Self::Tls(tls) => {
                // At most TLS_WRITE_CHUNK at a time, so that a large input is
                // sent while the rest is encrypted, not after all of it.
                let mut chunk = Vec::with_capacity(buffers.len());
                let mut room = TLS_WRITE_CHUNK;
                for buffer in buffers {
                    if room == 0 {
                        break;
                    }
                    let part = &buffer[..buffer.len().min(room)];
                    room -= part.len();
                    chunk.push(IoSlice::new(part));
                }
                let taken = tls.conn.writer().write_vectored(&chunk)?;
                while tls.conn.wants_write() {
                    tls.conn.write_tls(&mut tls.sock)?;
                }
                Ok(taken)
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(_) => Ok(()),
            Self::Tls(tls) => tls.flush(),
        }
    }
}
