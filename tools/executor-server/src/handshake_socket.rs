//! A connection's socket as its handshake reads and writes it: every read
//! and write by the handshake's deadline, and while a read waits for bytes
//! the client has not sent, its pending entry says so, and whether part of
//! the message the client owes has come (so that it can be shed to make
//! room, `pending.rs`). The client owes its `Hello`, or on TLS first its
//! part of the TLS handshake; each answer of the server's starts a new
//! message, and so does the TLS handshake's end. On TLS, a message is a
//! record (`record_boundary.rs`). The TLS handshake and the `Hello` both go
//! through it; once the client is welcomed, it reads and writes without
//! deadline. Bytes that have not come yet are polled for briefly before the
//! read blocks (`executor_runtime::polling`): a client sends its `Hello`
//! right after connecting, usually within the poll.

use std::{
    io::{self, Read, Write},
    os::fd::AsFd,
    time::{Duration, Instant},
};

use executor_protocol::{Stream, unix_socket};
use executor_runtime::polling::poll_briefly;

use crate::{
    pending::{Pending, Progress},
    record_boundary::RecordBoundary,
};

pub(crate) struct HandshakeSocket<'s> {
    stream: &'s Stream,
    /// Until the client is welcomed.
    deadline: Option<Instant>,
    /// Until the handshake's outcome is known.
    pending: Option<Pending>,
    /// What of the message the client owes has come.
    received: Received,
    /// When the server last answered (None: not yet), since when the client
    /// owes its next message.
    answered_at: Option<Instant>,
    /// Whether a read or a write waited with a timeout, which ending the
    /// deadline clears.
    read_timeout_set: bool,
    write_timeout_set: bool,
}

/// What of the message the client owes has come: a count of bytes, or on
/// TLS where they stand in the client's records (a whole record is a whole
/// message).
enum Received {
    Plain(usize),
    Tls(RecordBoundary),
}

impl<'s> HandshakeSocket<'s> {
    pub fn new(stream: &'s Stream, deadline: Instant, pending: Pending) -> Self {
        Self {
            stream,
            deadline: Some(deadline),
            pending: Some(pending),
            received: Received::Plain(0),
            answered_at: None,
            read_timeout_set: false,
            write_timeout_set: false,
        }
    }

    pub fn stream(&self) -> &'s Stream {
        self.stream
    }

    /// Reads TLS records from here on: a record read whole is a message.
    pub fn speak_tls(&mut self) {
        self.received = Received::Tls(RecordBoundary::default());
    }

    /// Whether part of the message the client owes has come.
    fn received_part(&self) -> bool {
        match &self.received {
            Received::Plain(bytes) => *bytes > 0,
            Received::Tls(records) => records.inside_a_record(),
        }
    }

    /// The client owes a new message from now: what it sent so far was
    /// whole (the server answers it, or the TLS handshake is over).
    pub fn expect_new_message(&mut self) {
        if let Received::Plain(bytes) = &mut self.received {
            *bytes = 0;
        }
        self.answered_at = Some(Instant::now());
    }

    /// Stops counting the connection as pending; false if it was shed
    /// meanwhile (`Pending::finish`).
    pub fn finish_pending(&mut self) -> bool {
        self.pending.take().is_none_or(Pending::finish)
    }

    /// Ends the deadline: from here on, reads and writes wait as long as
    /// they need (requests come at any pace; only a dead link ends them).
    pub fn end_deadline(&mut self) -> io::Result<()> {
        self.deadline = None;
        if std::mem::take(&mut self.read_timeout_set) {
            self.stream.set_read_timeout(None)?;
        }
        if std::mem::take(&mut self.write_timeout_set) {
            self.stream.set_write_timeout(None)?;
        }
        Ok(())
    }

    /// The first byte the client sends, without taking it; None if it
    /// closes first.
    pub fn peek_first_byte(&mut self) -> io::Result<Option<u8>> {
        let mut first = [0u8];
        let peek = |stream: &Stream, first: &mut [u8], flags| {
            unix_socket::receive(stream.as_fd(), first, libc::MSG_PEEK | flags)
        };
        let peeked = match self.poll(|stream| peek(stream, &mut first, libc::MSG_DONTWAIT)) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                self.wait_for_client(|stream| peek(stream, &mut first, 0))
            }
            peeked => peeked,
        }?;
        Ok((peeked == 1).then_some(first[0]))
    }

    /// Calls `attempt`, a read that does not wait, until it finds bytes (or
    /// the end, or an error) or the poll is over; its last result.
    fn poll(&self, mut attempt: impl FnMut(&Stream) -> io::Result<usize>) -> io::Result<usize> {
        let mut last = Err(io::ErrorKind::WouldBlock.into());
        poll_briefly(|| {
            last = attempt(self.stream);
            match &last {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => None,
                _ => Some(()),
            }
        });
        last
    }

    /// Runs `read` at once if the client sent something, else once it does,
    /// by the deadline.
    fn wait_for_client(
        &mut self,
        mut read: impl FnMut(&Stream) -> io::Result<usize>,
    ) -> io::Result<usize> {
        let Some(deadline) = self.deadline else {
            return read(self.stream);
        };
        let timed_out =
            || io::Error::new(io::ErrorKind::TimedOut, "the handshake's deadline passed");
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.read_timeout_set = true;
        self.set_progress(Progress::WaitingForClient {
            received_part: self.received_part(),
            owed_since: self.answered_at,
        });
        let result = read(self.stream);
        self.set_progress(Progress::Reading);
        match result {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => Err(timed_out()),
            result => result,
        }
    }

    fn set_progress(&self, progress: Progress) {
        if let Some(pending) = &self.pending {
            pending.set_progress(progress);
        }
    }
}

impl Read for HandshakeSocket<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = match self.poll(|stream| stream.receive(buffer, true)) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                self.wait_for_client(|stream| stream.receive(buffer, false))
            }
            read => read,
        }?;
        match &mut self.received {
            Received::Plain(bytes) => *bytes += read,
            Received::Tls(records) => records.advance(&buffer[..read]),
        }
        Ok(read)
    }
}

impl Write for HandshakeSocket<'_> {
    /// By the deadline (a reply is small enough for an empty send buffer,
    /// so it only waits on a client that sent a lot and reads nothing: only
    /// then is the socket given a send timeout).
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        let Some(deadline) = self.deadline else {
            return (&*self.stream).write(buffer);
        };
        let sent = match self.stream.send_now(buffer) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                // A zero timeout is not allowed: it would mean none.
                let left = deadline.saturating_duration_since(Instant::now());
                self.stream
                    .set_write_timeout(Some(left.max(Duration::from_millis(1))))?;
                self.write_timeout_set = true;
                (&*self.stream).write(buffer)
            }
            sent => sent,
        }?;
        self.expect_new_message();
        Ok(sent)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::{
        net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream},
        sync::Arc,
    };

    use super::*;
    use crate::{
        listener::Peer,
        pending::{HandshakeLimits, PendingHandshakes},
    };

    /// The server's side of a new connection, pending, and its client.
    fn connection() -> (Arc<Stream>, Pending, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let served = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
        let peer = Peer::Ip(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0));
        let pending = PendingHandshakes::new(HandshakeLimits::default())
            .add(peer, Arc::clone(&served), Instant::now())
            .unwrap();
        (served, pending, client)
    }

    fn write_timeout(stream: &Stream) -> Option<Duration> {
        let Stream::Tcp(stream) = stream else {
            panic!("a TCP connection")
        };
        stream.write_timeout().unwrap()
    }

    #[test]
    fn a_reply_that_fits_goes_out_with_no_timeout_set() {
        let (served, pending, mut client) = connection();
        let mut socket =
            HandshakeSocket::new(&served, Instant::now() + Duration::from_secs(10), pending);
        socket.write_all(b"welcome").unwrap();
        assert_eq!(write_timeout(&served), None);
        let mut received = [0u8; 7];
        client.read_exact(&mut received).unwrap();
        assert_eq!(&received, b"welcome");
    }

    #[test]
    fn a_client_that_reads_nothing_holds_a_write_only_until_the_deadline() {
        let (served, pending, _client) = connection();
        let deadline = Instant::now() + Duration::from_millis(300);
        let mut socket = HandshakeSocket::new(&served, deadline, pending);
        let chunk = vec![0u8; 1 << 16];
        let error = loop {
            // Bounded: the buffers of a loopback connection hold a few MiB.
            if let Err(error) = socket.write(&chunk) {
                break error;
            }
        };
        assert!(
            matches!(
                error.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ),
            "{error}"
        );
        assert!(write_timeout(&served).is_some());
        socket.end_deadline().unwrap();
        assert_eq!(write_timeout(&served), None);
    }

    /// Whether a TLS client that has sent `sent` and waits is shed for a new
    /// connection under caps of one (it would be only after 30 s of silence).
    fn shed_after_sending_on_tls(sent: &[u8]) -> bool {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let peer = Peer::Ip(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0));
        let registry = PendingHandshakes::new(HandshakeLimits {
            timeout: Duration::from_millis(300),
            max_pending: 1,
            max_pending_per_peer: 1,
            silence_allowed: Duration::from_secs(30),
        });
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let served = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
        let pending = registry
            .add(peer, Arc::clone(&served), Instant::now())
            .unwrap();
        let mut socket =
            HandshakeSocket::new(&served, Instant::now() + Duration::from_secs(30), pending);
        socket.speak_tls();
        client.write_all(sent).unwrap();
        socket.read_exact(&mut vec![0; sent.len()]).unwrap();
        std::thread::scope(|scope| {
            // Waits for the client's next bytes until shed or closed.
            scope.spawn(|| socket.read(&mut [0u8; 1]));
            std::thread::sleep(Duration::from_millis(100));
            let _second_client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
            let second = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
            let shed = registry.add(peer, second, Instant::now()).is_some();
            drop(client);
            shed
        })
    }

    #[test]
    fn on_tls_a_client_that_sent_whole_records_is_not_shed_but_one_inside_a_record_is() {
        // A ChangeCipherSpec record, which a client may send apart from the
        // Finished after it.
        let change_cipher_spec = [0x14, 3, 3, 0, 1, 1];
        assert!(!shed_after_sending_on_tls(&change_cipher_spec));
        assert!(shed_after_sending_on_tls(&change_cipher_spec[..4]));
    }
}
