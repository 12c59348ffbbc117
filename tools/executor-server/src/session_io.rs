//! A worker's two ends of its session: requests read from the socket, after
//! the head of the next one that the supervisor read, and replies written to
//! it, each through the session's TLS records when it is TLS.
//! Over TLS, both halves continue the session from the secrets the
//! supervisor handed over: the reader, on a clone of the socket, receives
//! (starting with the plaintext the supervisor left unread), the writer
//! sends; each direction numbers its records on its own. Either way a read
//! can be told not to wait (the TLS records keep a record read in part for
//! the next read).

use std::io::{self, Read, Write};

use executor_protocol::{PollableStream, Stream, tls::TlsRecords};

use crate::{handover::SessionTls, linger::close_gracefully, status::RecordLog};

pub(crate) struct RequestReader {
    /// The head of the next request, read by the supervisor: read first.
    head: io::Cursor<Vec<u8>>,
    source: RequestSource,
}

enum RequestSource {
    Plain(PollableStream),
    Tls(TlsRecords<PollableStream>),
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

/// The reader and the writer of the session on `stream`, whose next request
/// starts with `request_head`; over TLS, the writer notes its records in
/// `log`.
pub(crate) fn split(
    stream: Stream,
    request_head: Vec<u8>,
    tls: Option<SessionTls>,
    log: RecordLog,
) -> io::Result<(RequestReader, ReplyWriter)> {
    let clone = stream.try_clone()?;
    let (source, writer) = match tls {
        None => (
            RequestSource::Plain(PollableStream::new(clone)),
            ReplyWriter::Plain(stream),
        ),
        Some(SessionTls {
            secrets,
            unread_plaintext,
        }) => (
            RequestSource::Tls(TlsRecords::resume(
                PollableStream::new(clone),
                &secrets,
                unread_plaintext,
            )?),
            ReplyWriter::Tls {
                records: TlsRecords::resume(stream, &secrets, Vec::new())?,
                log,
            },
        ),
    };
    let reader = RequestReader {
        head: io::Cursor::new(request_head),
        source,
    };
    Ok((reader, writer))
}

impl RequestReader {
    pub fn set_dont_wait(&mut self, dont_wait: bool) {
        match &mut self.source {
            RequestSource::Plain(stream) => stream.set_dont_wait(dont_wait),
            RequestSource::Tls(records) => records.get_mut().set_dont_wait(dont_wait),
        }
    }
}

impl Read for RequestReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let from_head = self.head.read(buffer)?;
        if from_head > 0 {
            return Ok(from_head);
        }
        match &mut self.source {
            RequestSource::Plain(stream) => stream.read(buffer),
            RequestSource::Tls(records) => records.read(buffer),
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
