//! Pings answered by the server process itself, before a session's worker is
//! started: the supervisor reads each request's length, and its one byte if
//! it is a Ping's, answers a `Ping` with a `Pong`, and hands what it read of
//! anything else (its head, five bytes at most) to the worker it then starts,
//! which reads them first. A connection that only pings
//! (`executor-server --check`) thus costs no process.
//!
//! The bytes are read, not peeked at: over TLS they are records, and on a
//! Unix socket a peek does not wait for the bytes of a request split across
//! writes (`MSG_WAITALL` is ignored there with `MSG_PEEK`).

use std::{
    io::{self, Read, Write},
    os::fd::AsFd,
};

use executor_protocol::unix_socket;
use executor_runtime::{
    polling::{poll_briefly, unless_not_ready, worth_polling},
    protocol::{self, LENGTH_PREFIX_SIZE, Response, Stream},
};

/// A `Ping` request's whole frame: a payload of one byte, its variant.
const PING_FRAME: [u8; 5] = [0, 0, 0, 1, 6];

/// The most of a request [`answer_pings`] reads: a Ping's frame.
pub(crate) const MAX_REQUEST_HEAD: usize = PING_FRAME.len();

/// Answers `Ping`s on `session` with `pong()` until the client sends
/// something else, and returns what was read of that request (its head: the
/// length, and the variant if the length is a Ping's); None if the client
/// left (or its link died) without asking for more.
pub(crate) fn answer_pings(
    session: &mut (impl Read + Write),
    pong: impl Fn() -> Response,
) -> Option<Vec<u8>> {
    loop {
        let mut head = [0; PING_FRAME.len()];
        // The length first: a whole frame may be shorter than a Ping's (an
        // empty payload, which the worker refuses), and waiting for a Ping's
        // five bytes would leave it unanswered.
        let read = session
            .read_exact(&mut head[..LENGTH_PREFIX_SIZE])
            .map(|()| LENGTH_PREFIX_SIZE)
            .and_then(|read| {
                if head[..LENGTH_PREFIX_SIZE] == PING_FRAME[..LENGTH_PREFIX_SIZE] {
                    session.read_exact(&mut head[read..]).map(|()| head.len())
                } else {
                    Ok(read)
                }
            });
        match read {
            Ok(read) if head != PING_FRAME => return Some(head[..read].to_vec()),
            Ok(_) => {}
            Err(error) => {
                tracing::info!(%error, "the client is gone");
                return None;
            }
        }
        let answered = protocol::encode_frame(&pong(), u32::MAX)
            .map_err(io::Error::other)
            .and_then(|frame| session.write_all(&frame))
            .and_then(|()| session.flush());
        if let Err(error) = answered {
            tracing::info!(%error, "cannot answer a ping");
            return None;
        }
        tracing::debug!("answered a ping");
    }
}

/// Polls for the client's next bytes for a moment
/// (`executor_runtime::polling`) before [`answer_pings`] blocks for them: a
/// client sends its first request right after the welcome, usually within
/// the poll, which then finds it without this thread sleeping and being
/// woken for it. Not where polling is not worth it (TCP in a server that
/// may run on one CPU only, [`worth_polling`]).
pub(crate) fn poll_for_bytes(stream: &Stream) {
    if !worth_polling(stream.transport()) {
        return;
    }
    let mut first = [0u8];
    poll_briefly(|| {
        let peeked = unix_socket::receive(
            stream.as_fd(),
            &mut first,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        );
        // Bytes, the end or an error: the read that follows sees it.
        unless_not_ready(peeked).map(|_| ())
    });
}

#[cfg(test)]
mod tests {
    use std::{
        net::{TcpListener, TcpStream},
        os::unix::net::UnixStream,
        thread,
        time::Duration,
    };

    use super::*;
    use executor_runtime::protocol::Request;

    fn pong() -> Response {
        Response::Pong {
            sessions: 1,
            max_sessions: 8,
        }
    }

    /// The server's end of a new TCP connection, and the client's.
    fn tcp_pair() -> (Stream, TcpStream) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (Stream::Tcp(listener.accept().unwrap().0), client)
    }

    #[test]
    fn the_ping_frame_is_what_the_client_sends() {
        assert_eq!(
            protocol::encode_frame(&Request::Ping, 1024).unwrap(),
            PING_FRAME
        );
    }

    /// A ping, then a Close, each split across two writes: the ping is
    /// answered and the Close's head returned, on TCP and on a Unix socket
    /// (where a peek would not have waited for the second write).
    #[test]
    fn requests_split_across_writes_are_read_whole_on_tcp_and_unix_sockets() {
        let (tcp_server, tcp_client) = tcp_pair();
        let (unix_server, unix_client) = UnixStream::pair().unwrap();
        let pairs: [(Stream, Box<dyn ReadWrite>); 2] = [
            (tcp_server, Box::new(tcp_client)),
            (Stream::Unix(unix_server), Box::new(unix_client)),
        ];
        let close = protocol::encode_frame(&Request::Close, 1024).unwrap();
        for (server, mut client) in pairs {
            let serving = thread::spawn(move || answer_pings(&mut &server, pong));
            for frame in [&PING_FRAME[..], &close[..]] {
                client.write_all(&frame[..2]).unwrap();
                thread::sleep(Duration::from_millis(50));
                client.write_all(&frame[2..]).unwrap();
                if frame == PING_FRAME {
                    assert_eq!(
                        protocol::read_message::<Response>(&mut client, 1024).unwrap(),
                        pong()
                    );
                }
            }
            assert_eq!(serving.join().unwrap().as_deref(), Some(&close[..]));
        }
    }

    trait ReadWrite: Read + Write + Send {}
    impl<T: Read + Write + Send> ReadWrite for T {}

    /// An empty frame is shorter than a Ping's: its head is returned at
    /// once, not waited on for a fifth byte (found by make fuzz, seed 12: the
    /// server never answered it).
    #[test]
    fn a_frame_shorter_than_a_ping_is_returned_at_once() {
        let (server, mut client) = tcp_pair();
        // Waiting for a fifth byte would end in this timeout: the client gone.
        server
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        client.write_all(&[0, 0, 0, 0]).unwrap();
        assert_eq!(
            answer_pings(&mut &server, pong).as_deref(),
            Some(&[0, 0, 0, 0][..])
        );
    }

    /// A byte stream in (`incoming`), what is written kept.
    struct Scripted {
        incoming: io::Cursor<Vec<u8>>,
        written: Vec<u8>,
    }

    impl Read for Scripted {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            self.incoming.read(buffer)
        }
    }

    impl Write for Scripted {
        fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
            self.written.write(buffer)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn pings_are_answered_and_no_more_of_a_request_is_read_than_its_head() {
        let close = protocol::encode_frame(&Request::Close, 1024).unwrap();
        let big = [0, 0, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        for (next, head) in [
            (&close[..], &close[..]),
            (&big[..], &big[..4]),
            (&[0, 0, 0, 0][..], &[0, 0, 0, 0][..]),
        ] {
            let mut incoming = [&PING_FRAME[..], &PING_FRAME[..]].concat();
            incoming.extend_from_slice(next);
            let mut session = Scripted {
                incoming: io::Cursor::new(incoming),
                written: Vec::new(),
            };
            assert_eq!(answer_pings(&mut session, pong).as_deref(), Some(head));
            let pong_frame = protocol::encode_frame(&pong(), 1024).unwrap();
            assert_eq!(session.written, [&pong_frame[..], &pong_frame[..]].concat());
        }
    }

    #[test]
    fn a_client_that_leaves_after_pinging_is_gone() {
        let (server, mut client) = tcp_pair();
        client.write_all(&PING_FRAME).unwrap();
        client.write_all(&PING_FRAME[..3]).unwrap();
        client.shutdown(std::net::Shutdown::Write).unwrap();
        assert_eq!(answer_pings(&mut &server, pong), None);
    }
}
