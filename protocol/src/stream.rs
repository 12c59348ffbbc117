//! A session's connection, whatever carries it: TCP, or a Unix-domain socket
//! on the same host. Both ends read, write, time out and shut it down the
//! same way; what only TCP has (Nagle's algorithm, keepalive, a peer's IP
//! address) is asked of it by kind. Another transport is another variant.
//!
//! Writes on a Unix socket go through `send` with `MSG_NOSIGNAL`, as std's
//! TCP writes do: a peer that is gone is an `EPIPE` error, never a `SIGPIPE`
//! that would kill the host program (which may not ignore it).
//!
//! [`PollableStream`] is a stream whose reads can be told not to wait, so
//! that a side waiting for the next message polls for it by reading it (one
//! system call when it has arrived) rather than by peeking at it and then
//! reading it (two).

use std::{
    io::{self, IoSlice, Read, Write},
    net::{Shutdown, TcpListener, TcpStream},
    os::{
        fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd},
        unix::net::UnixStream,
    },
    path::Path,
    time::Duration,
};

use crate::{dead_peer, unix_socket};

/// Which kind of socket a connection is, by its address family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp,
    Unix,
}

#[derive(Debug)]
pub enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    /// Connects to the Unix socket at `path`, waiting at most `timeout` for
    /// room in its listen queue.
    pub fn connect_unix(path: &Path, timeout: Duration) -> io::Result<Self> {
        unix_socket::connect(path, timeout).map(Self::Unix)
    }

    /// The connected socket `fd` (one handed over by another process), as
    /// the kind its address family says it is.
    pub fn from_fd(fd: OwnedFd) -> io::Result<Self> {
        match transport_of(fd.as_fd())? {
            Transport::Tcp => Ok(Self::Tcp(TcpStream::from(fd))),
            Transport::Unix => Ok(Self::Unix(UnixStream::from(fd))),
        }
    }

    pub fn transport(&self) -> Transport {
        match self {
            Self::Tcp(_) => Transport::Tcp,
            Self::Unix(_) => Transport::Unix,
        }
    }

    pub fn try_clone(&self) -> io::Result<Self> {
        match self {
            Self::Tcp(stream) => stream.try_clone().map(Self::Tcp),
            Self::Unix(stream) => stream.try_clone().map(Self::Unix),
        }
    }

    pub fn set_read_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Self::Tcp(stream) => stream.set_read_timeout(timeout),
            Self::Unix(stream) => stream.set_read_timeout(timeout),
        }
    }

    pub fn set_write_timeout(&self, timeout: Option<Duration>) -> io::Result<()> {
        match self {
            Self::Tcp(stream) => stream.set_write_timeout(timeout),
            Self::Unix(stream) => stream.set_write_timeout(timeout),
        }
    }

    pub fn set_nonblocking(&self, nonblocking: bool) -> io::Result<()> {
        match self {
            Self::Tcp(stream) => stream.set_nonblocking(nonblocking),
            Self::Unix(stream) => stream.set_nonblocking(nonblocking),
        }
    }

    pub fn shutdown(&self, how: Shutdown) -> io::Result<()> {
        match self {
            Self::Tcp(stream) => stream.shutdown(how),
            Self::Unix(stream) => stream.shutdown(how),
        }
    }

    /// Reads into `buffer` without taking what is read from the socket.
    pub fn peek(&self, buffer: &mut [u8]) -> io::Result<usize> {
        unix_socket::receive(self.as_fd(), buffer, libc::MSG_PEEK)
    }

    /// One `recv` into `buffer`. With `dont_wait`, a read that finds no data
    /// fails at once with `io::ErrorKind::WouldBlock`; without, it is what
    /// reading the stream does (the socket's read timeout included). Other
    /// threads reading the same socket are not affected, as they would be by
    /// switching the socket to non-blocking mode.
    pub fn receive(&self, buffer: &mut [u8], dont_wait: bool) -> io::Result<usize> {
        let flags = if dont_wait { libc::MSG_DONTWAIT } else { 0 };
        unix_socket::receive(self.as_fd(), buffer, flags)
    }

    /// One send of what fits of `buffer` in the socket's send buffer, now:
    /// fails with `io::ErrorKind::WouldBlock` when nothing does, whatever the
    /// socket's send timeout.
    pub fn send_now(&self, buffer: &[u8]) -> io::Result<usize> {
        unix_socket::send_with(self.as_fd(), &[IoSlice::new(buffer)], libc::MSG_DONTWAIT)
    }

    /// [`Stream::prepare`], unless the connection is prepared already (it
    /// came from a prepared listener: [`prepare_listener`]): one system call
    /// to tell.
    pub fn prepare_unless_prepared(&self, dead_link_timeout: Duration) -> io::Result<()> {
        match self {
            Self::Tcp(stream)
                if unix_socket::socket_option(stream.as_fd(), libc::SO_KEEPALIVE)? == 0 =>
            {
                self.prepare(dead_link_timeout)
            }
            _ => Ok(()),
        }
    }

    /// Prepares a TCP connection for the protocol's traffic: no Nagle delay
    /// (requests and replies are small messages answered one at a time),
    /// and reads and writes that fail once the peer's host has been silent
    /// for `dead_link_timeout` (`dead_peer`). A Unix socket needs neither:
    /// it has no Nagle, and the kernel ends it when its peer's process ends.
    pub fn prepare(&self, dead_link_timeout: Duration) -> io::Result<()> {
        match self {
            Self::Tcp(stream) => {
                stream.set_nodelay(true)?;
                dead_peer::give_up_on_silent_peer(stream, dead_link_timeout)
            }
            Self::Unix(_) => Ok(()),
        }
    }
}

impl Read for &Stream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(stream) => (&*stream).read(buffer),
            Stream::Unix(stream) => (&*stream).read(buffer),
        }
    }
}

impl Write for &Stream {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(stream) => (&*stream).write(buffer),
            Stream::Unix(stream) => unix_socket::send(stream.as_fd(), &[IoSlice::new(buffer)]),
        }
    }

    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        match self {
            Stream::Tcp(stream) => (&*stream).write_vectored(buffers),
            Stream::Unix(stream) => unix_socket::send(stream.as_fd(), buffers),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Read for Stream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        (&*self).read(buffer)
    }
}

impl Write for Stream {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        (&*self).write(buffer)
    }

    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        (&*self).write_vectored(buffers)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A stream whose reads can be told not to wait ([`Stream::receive`]);
/// writes go to the stream as they are.
#[derive(Debug)]
pub struct PollableStream {
    stream: Stream,
    /// While set, a read that finds no data fails at once with
    /// `io::ErrorKind::WouldBlock` instead of blocking.
    dont_wait: bool,
}

impl PollableStream {
    pub fn new(stream: Stream) -> Self {
        Self {
            stream,
            dont_wait: false,
        }
    }

    pub fn set_dont_wait(&mut self, dont_wait: bool) {
        self.dont_wait = dont_wait;
    }

    pub fn get_ref(&self) -> &Stream {
        &self.stream
    }
}

impl Read for PollableStream {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        self.stream.receive(buffer, self.dont_wait)
    }
}

impl Write for PollableStream {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        (&self.stream).write(buffer)
    }

    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        (&self.stream).write_vectored(buffers)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl AsFd for Stream {
    fn as_fd(&self) -> BorrowedFd<'_> {
        match self {
            Self::Tcp(stream) => stream.as_fd(),
            Self::Unix(stream) => stream.as_fd(),
        }
    }
}

impl AsRawFd for Stream {
    fn as_raw_fd(&self) -> RawFd {
        self.as_fd().as_raw_fd()
    }
}

impl From<TcpStream> for Stream {
    fn from(stream: TcpStream) -> Self {
        Self::Tcp(stream)
    }
}

impl From<UnixStream> for Stream {
    fn from(stream: UnixStream) -> Self {
        Self::Unix(stream)
    }
}

/// Prepares every connection `listener` accepts from now on as
/// [`Stream::prepare`] prepares one: Linux starts a connection with its
/// listener's options, so a server sets them once here rather than with six
/// system calls on the way to each client's welcome. A connection that
/// arrived before (one that woke a socket-activated server) has not got
/// them: [`Stream::prepare_unless_prepared`].
pub fn prepare_listener(listener: &TcpListener, dead_link_timeout: Duration) -> io::Result<()> {
    dead_peer::set_option(listener.as_fd(), libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
    dead_peer::give_up_on_silent_peer(listener, dead_link_timeout)
}

/// The kind of the stream socket `fd`: an IPv4 or IPv6 one is TCP.
pub fn transport_of(fd: BorrowedFd<'_>) -> io::Result<Transport> {
    match unix_socket::socket_option(fd, libc::SO_DOMAIN)? {
        libc::AF_INET | libc::AF_INET6 => Ok(Transport::Tcp),
        libc::AF_UNIX => Ok(Transport::Unix),
        family => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("a socket of address family {family}, neither TCP nor Unix"),
        )),
    }
}

/// Writes all of `slices` (std's `write_all_vectored` is not stable yet).
pub(crate) fn write_all_vectored(
    writer: &mut impl Write,
    mut slices: &mut [IoSlice<'_>],
) -> io::Result<()> {
    while !slices.is_empty() {
        match writer.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(written) => IoSlice::advance_slices(&mut slices, written),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::net::UnixListener;

    use super::*;

    /// The options `Stream::prepare` sets, by level and name.
    const PREPARED_OPTIONS: [(libc::c_int, libc::c_int); 6] = [
        (libc::IPPROTO_TCP, libc::TCP_NODELAY),
        (libc::SOL_SOCKET, libc::SO_KEEPALIVE),
        (libc::IPPROTO_TCP, libc::TCP_KEEPIDLE),
        (libc::IPPROTO_TCP, libc::TCP_KEEPINTVL),
        (libc::IPPROTO_TCP, libc::TCP_KEEPCNT),
        (libc::IPPROTO_TCP, libc::TCP_USER_TIMEOUT),
    ];

    fn prepared_options(socket: &TcpStream) -> Vec<libc::c_int> {
        PREPARED_OPTIONS
            .iter()
            .map(|&(level, name)| unix_socket::option_at(socket.as_fd(), level, name).unwrap())
            .collect()
    }

    #[test]
    fn a_prepared_listener_accepts_connections_prepared_as_a_prepared_stream_is() {
        let timeout = Duration::from_secs(21);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let _client = TcpStream::connect(address).unwrap();
        prepare_listener(&listener, timeout).unwrap();
        let (unprepared, _) = listener.accept().unwrap();
        let _client = TcpStream::connect(address).unwrap();
        let (accepted, _) = listener.accept().unwrap();
        let _client = TcpStream::connect(address).unwrap();
        let (prepared, _) = listener.accept().unwrap();
        Stream::Tcp(prepared.try_clone().unwrap())
            .prepare(timeout)
            .unwrap();

        let expected = prepared_options(&prepared);
        assert_eq!(prepared_options(&accepted), expected);
        // One that arrived before the listener was prepared has none of the
        // options (each differs from its default), until it is prepared by
        // itself.
        let defaults = prepared_options(&unprepared);
        for ((option, default), set) in PREPARED_OPTIONS.iter().zip(&defaults).zip(&expected) {
            assert_ne!(default, set, "option {option:?}");
        }
        let queued = Stream::Tcp(unprepared.try_clone().unwrap());
        queued.prepare_unless_prepared(timeout).unwrap();
        assert_eq!(prepared_options(&unprepared), expected);
    }

    fn connected_pair() -> (TcpStream, PollableStream) {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let client = TcpStream::connect(listener.local_addr().expect("address")).expect("connect");
        let (served, _) = listener.accept().expect("accept");
        (client, PollableStream::new(Stream::Tcp(served)))
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

    #[test]
    fn a_handed_over_descriptor_is_the_kind_it_was() {
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        let client = TcpStream::connect(tcp.local_addr().unwrap()).unwrap();
        let stream = Stream::from_fd(OwnedFd::from(client)).unwrap();
        assert_eq!(stream.transport(), Transport::Tcp);

        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("s.sock");
        let _unix = UnixListener::bind(&path).unwrap();
        let stream = Stream::connect_unix(&path, Duration::from_secs(5)).unwrap();
        let stream = Stream::from_fd(OwnedFd::from(match stream {
            Stream::Unix(stream) => stream,
            Stream::Tcp(_) => unreachable!(),
        }))
        .unwrap();
        assert_eq!(stream.transport(), Transport::Unix);

        let file = tempfile::tempfile().unwrap();
        assert!(Stream::from_fd(OwnedFd::from(file)).is_err());
    }

    /// Rust ignores SIGPIPE in its own programs, tests included, so the
    /// signal is blocked in this thread instead: one raised stays pending
    /// (Linux never discards a blocked signal), where it is looked for.
    #[test]
    fn writing_to_a_unix_peer_that_is_gone_is_an_error_not_a_signal() {
        // SAFETY: sigset_t is plain data, initialized by sigemptyset.
        let mut pipe: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: valid pointers to a signal set; a null old set is allowed.
        unsafe {
            libc::sigemptyset(&mut pipe);
            libc::sigaddset(&mut pipe, libc::SIGPIPE);
            libc::pthread_sigmask(libc::SIG_BLOCK, &pipe, std::ptr::null_mut());
        }
        let (ours, theirs) = UnixStream::pair().unwrap();
        drop(theirs);
        let stream = Stream::Unix(ours);
        let write = (&stream).write_all(b"hello");
        let vectored = (&stream).write_vectored(&[IoSlice::new(b"a"), IoSlice::new(b"b")]);
        let timeout = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: valid pointers; a null info pointer is allowed. Takes a
        // pending SIGPIPE, if any, so that none is left for the thread.
        let raised = unsafe { libc::sigtimedwait(&pipe, std::ptr::null_mut(), &timeout) };
        // SAFETY: as above.
        unsafe { libc::pthread_sigmask(libc::SIG_UNBLOCK, &pipe, std::ptr::null_mut()) };
        assert_eq!(raised, -1, "SIGPIPE was raised");
        assert_eq!(write.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(vectored.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        let mut peeked = [0; 1];
        assert_eq!(stream.peek(&mut peeked).unwrap(), 0);
    }
}
