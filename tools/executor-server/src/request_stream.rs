//! The session socket as a worker reads requests from it: a blocking reader
//! that can be told not to wait, so that the worker polls for the next
//! request by reading it (one system call when it has arrived) rather than
//! by peeking at it and then reading it (two).

use std::{
    io::{self, Read},
    os::fd::AsFd,
};

use executor_protocol::{Stream, unix_socket};

pub struct RequestStream {
    stream: Stream,
    /// While set, a read that finds no data fails at once with
    /// `io::ErrorKind::WouldBlock` instead of blocking.
    dont_wait: bool,
}

impl RequestStream {
    pub fn new(stream: Stream) -> Self {
        Self {
            stream,
            dont_wait: false,
        }
    }

    pub fn set_dont_wait(&mut self, dont_wait: bool) {
        self.dont_wait = dont_wait;
    }
}

impl Read for RequestStream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        receive(&self.stream, buffer, self.dont_wait)
    }
}

/// One `recv` into `buffer`. With `dont_wait`, a read that finds no data
/// fails at once with `io::ErrorKind::WouldBlock`; without, it is what
/// reading the stream does (the socket's read timeout included). Other
/// threads reading the same socket are not affected, as they would be by
/// switching the socket to non-blocking mode.
pub(crate) fn receive(stream: &Stream, buffer: &mut [u8], dont_wait: bool) -> io::Result<usize> {
    let flags = if dont_wait { libc::MSG_DONTWAIT } else { 0 };
    unix_socket::receive(stream.as_fd(), buffer, flags)
}

#[cfg(test)]
mod tests {
    use std::{
        io::Write,
        net::{TcpListener, TcpStream},
    };

    use super::*;

    fn connected_pair() -> (TcpStream, RequestStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("address")).expect("connect");
        let (served, _) = listener.accept().expect("accept");
        (client, RequestStream::new(Stream::Tcp(served)))
    }

    #[test]
    fn a_read_that_must_not_wait_finds_nothing_then_takes_what_arrived() {
        let (mut client, mut stream) = connected_pair();
        let mut buffer = [0u8; 8];
        stream.set_dont_wait(true);
        let nothing = stream.read(&mut buffer).expect_err("nothing was sent");
        assert_eq!(nothing.kind(), io::ErrorKind::WouldBlock);
        client.write_all(b"abc").expect("send");
        stream.set_dont_wait(false);
        assert_eq!(stream.read(&mut buffer).expect("read"), 3);
        assert_eq!(&buffer[..3], b"abc");
    }

    #[test]
    fn the_end_of_the_stream_reads_as_zero_bytes() {
        let (client, mut stream) = connected_pair();
        drop(client);
        let mut buffer = [0u8; 8];
        assert_eq!(stream.read(&mut buffer).expect("read"), 0);
    }
}
