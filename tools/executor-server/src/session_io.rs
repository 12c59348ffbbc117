//! A worker's two ends of its session: requests read from the socket, replies
//! written to it, each through the session's TLS records when it is TLS.
//! Over TLS, both halves continue the session from the secrets the
//! supervisor handed over: the reader, on a clone of the socket, receives
//! (starting with the plaintext the supervisor left unread), the writer
//! sends; each direction numbers its records on its own.

use std::{
    io::{self, Read, Write},
    os::fd::AsFd,
};

use executor_protocol::{Stream, tls::TlsRecords, unix_socket};
use executor_runtime::polling::poll_briefly;

use crate::{
    handover::SessionTls, linger::close_gracefully, request_stream::RequestStream,
    status::RecordLog,
};

pub(crate) enum RequestReader {
    Plain(RequestStream),
    Tls(TlsRecords<Stream>),
}

pub(crate) enum ReplyWriter {
    Plain(Stream),
    /// Each write is noted in the status table (`log`), so that the
    /// supervisor knows which record may follow them if the worker dies.
    Tls {
        records: TlsRecords<Stream>,
        log: RecordLog,
    },
}

/// The reader and the writer of the session on `stream`; over TLS, the
/// writer notes its records in `log`.
pub(crate) fn split(
    stream: Stream,
    tls: Option<SessionTls>,
    log: RecordLog,
) -> io::Result<(RequestReader, ReplyWriter)> {
    let clone = stream.try_clone()?;
    Ok(match tls {
        None => (
            RequestReader::Plain(RequestStream::new(clone)),
            ReplyWriter::Plain(stream),
        ),
        Some(SessionTls {
            secrets,
            unread_plaintext,
        }) => (
            RequestReader::Tls(TlsRecords::resume(clone, &secrets, unread_plaintext)?),
            ReplyWriter::Tls {
                records: TlsRecords::resume(stream, &secrets, Vec::new())?,
                log,
            },
        ),
    })
}

impl RequestReader {
    /// Whether a read can be told not to wait: not over TLS, where a read
    /// that stops inside a record would lose it.
    pub fn can_poll(&self) -> bool {
        matches!(self, Self::Plain(_))
    }

    pub fn set_dont_wait(&mut self, dont_wait: bool) {
        if let Self::Plain(stream) = self {
            stream.set_dont_wait(dont_wait);
        }
    }

    /// Over TLS, waits for [`executor_runtime::polling::POLL`] at most until
    /// the next request's first bytes have arrived, peeking at the socket
    /// without taking them (a read that stopped inside a record would lose
    /// it), unless a request is decrypted already. Keeps the worker on its
    /// CPU for a client that launches in a loop, as a plaintext session's
    /// read that does not wait does.
    pub fn poll_tls_briefly(&self) {
        let Self::Tls(records) = self else {
            return;
        };
        if records.has_unread_plaintext() {
            return;
        }
        let socket = records.get_ref().as_fd();
        poll_briefly(|| {
            match unix_socket::receive(socket, &mut [0u8; 1], libc::MSG_PEEK | libc::MSG_DONTWAIT) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => None,
                // Bytes, the end or an error: the read that follows takes it.
                _ => Some(()),
            }
        });
    }
}

impl Read for RequestReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.read(buffer),
            Self::Tls(records) => records.read(buffer),
        }
    }
}

impl ReplyWriter {
    /// Ends the session so that the last reply reaches the client: over
    /// TLS with close_notify first.
    pub fn close(&mut self) {
        let stream = match self {
            Self::Plain(stream) => stream,
            Self::Tls { records, log } => {
                log.writing();
                let _ = records.close();
                log.sent_up_to(records.sequences().0);
                records.get_ref()
            }
        };
        close_gracefully(stream);
    }
}

impl Write for ReplyWriter {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(stream) => stream.write(buffer),
            Self::Tls { records, log } => {
                log.writing();
                let written = records.write(buffer);
                log.sent_up_to(records.sequences().0);
                written
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(stream) => stream.flush(),
            Self::Tls { records, .. } => records.flush(),
        }
    }
}
