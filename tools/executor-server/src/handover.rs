//! How a worker that is already running gets its session: the server sends
//! the connection's descriptor (`SCM_RIGHTS`) with the session's directory,
//! the first bytes of the next request, which the supervisor read looking
//! for a Ping, and, for a TLS session, its secrets and the plaintext the
//! supervisor decrypted and did not read ([`SessionTls`]), as one message (postcard) on
//! a Unix `SOCK_SEQPACKET` pair it created with the worker (the worker's
//! *control channel*). A message is received whole or not at all, and the
//! channel reads as ended once the server's end is closed. The buffers that
//! held the secrets are cleared once sent or read. Every `unsafe` call of
//! the exchange is here.

use std::{
    ffi::OsString,
    io,
    mem::size_of,
    os::{
        fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd, RawFd},
        unix::ffi::{OsStrExt, OsStringExt},
    },
    path::{Path, PathBuf},
    ptr,
};

use executor_protocol::{
    Step,
    tls::{MAX_PLAINTEXT_LEN, TlsSessionSecrets},
};
use serde::{Deserialize, Serialize};

use crate::ping::MAX_REQUEST_HEAD;
use zeroize::{Zeroize, Zeroizing};

/// The longest session directory a handover carries (Linux's `PATH_MAX`).
const MAX_DIRECTORY_LEN: usize = 4096;

/// The most unread plaintext a TLS handover carries: what rustls decrypted
/// of one record.
const MAX_UNREAD_PLAINTEXT: usize = MAX_PLAINTEXT_LEN + 64;

/// The longest handover message: the directory, the request's head, the
/// unread plaintext, and room for the secrets and postcard's lengths.
const MAX_MESSAGE_LEN: usize =
    MAX_DIRECTORY_LEN + MAX_REQUEST_HEAD + MAX_UNREAD_PLAINTEXT + 1024 + MAX_STEPS_LEN;

/// Room for the steps the supervisor measured (two short names and their
/// times).
const MAX_STEPS_LEN: usize = 256;

/// A TLS session as the supervisor hands it to the worker.
#[derive(Serialize, Deserialize)]
pub(crate) struct SessionTls {
    pub secrets: TlsSessionSecrets,
    /// What rustls decrypted and nobody read, which the worker reads after
    /// the request's head.
    pub unread_plaintext: Vec<u8>,
}

/// A session as the worker receives it.
pub(crate) struct ReceivedSession {
    pub connection: OwnedFd,
    pub directory: PathBuf,
    /// The first bytes of the next request, which the supervisor read (looking
    /// for a Ping): the worker reads them first.
    pub request_head: Vec<u8>,
    pub tls: Option<SessionTls>,
    /// What the supervisor measured of the session (`steps.rs`).
    pub steps: Vec<Step>,
}

impl std::fmt::Debug for ReceivedSession {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ReceivedSession")
            .field("connection", &self.connection)
            .field("directory", &self.directory)
            .field("tls", &self.tls.is_some())
            .finish()
    }
}

/// The handover message as sent.
#[derive(Serialize)]
struct Outgoing<'a> {
    directory: &'a [u8],
    request_head: &'a [u8],
    tls: Option<&'a SessionTls>,
    steps: &'a [Step],
}

/// The handover message as received.
#[derive(Deserialize)]
struct Incoming {
    directory: Vec<u8>,
    request_head: Vec<u8>,
    tls: Option<SessionTls>,
    steps: Vec<Step>,
}

/// Room for the control message of one descriptor, aligned as `cmsghdr`
/// needs (64 bytes hold `CMSG_SPACE(sizeof(int))` on every Linux ABI).
#[repr(C, align(8))]
struct OneDescriptor([u8; 64]);

/// The server's end and the worker's end of a new control channel, both
/// close-on-exec.
pub(crate) fn channel() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut ends: [RawFd; 2] = [-1; 2];
    // SAFETY: socketpair writes two new descriptors into the array it is given.
    let made = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            ends.as_mut_ptr(),
        )
    };
    if made == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socketpair succeeded: both descriptors are new and owned here.
    Ok(unsafe { (OwnedFd::from_raw_fd(ends[0]), OwnedFd::from_raw_fd(ends[1])) })
}

/// Sends the session on `connection`, whose private directory is
/// `directory`, whose next request starts with `request_head` (read already)
/// and, over TLS, whose session is `tls`, to the worker at the other end of
/// `control`.
pub(crate) fn send_session(
    control: BorrowedFd<'_>,
    connection: BorrowedFd<'_>,
    directory: &Path,
    request_head: &[u8],
    tls: Option<&SessionTls>,
    steps: &[Step],
) -> io::Result<()> {
    let directory = directory.as_os_str().as_bytes();
    let invalid = |what: String| io::Error::new(io::ErrorKind::InvalidInput, what);
    if directory.is_empty() || directory.len() > MAX_DIRECTORY_LEN {
        return Err(invalid(format!(
            "a session directory of {} bytes",
            directory.len()
        )));
    }
    if request_head.len() > MAX_REQUEST_HEAD {
        return Err(invalid(format!(
            "{} bytes of a request's head",
            request_head.len()
        )));
    }
    if let Some(tls) = tls
        && tls.unread_plaintext.len() > MAX_UNREAD_PLAINTEXT
    {
        return Err(invalid(format!(
            "{} bytes of unread plaintext",
            tls.unread_plaintext.len()
        )));
    }
    let encoded = Zeroizing::new(
        postcard::to_stdvec(&Outgoing {
            directory,
            request_head,
            tls,
            steps,
        })
        .map_err(io::Error::other)?,
    );
    let mut space = OneDescriptor([0; 64]);
    let mut payload = libc::iovec {
        iov_base: encoded.as_ptr().cast_mut().cast(),
        iov_len: encoded.len(),
    };
    // SAFETY: an all-zero msghdr is a valid empty header, filled in below.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut payload;
    message.msg_iovlen = 1;
    message.msg_control = space.0.as_mut_ptr().cast();
    // SAFETY: CMSG_SPACE only computes a size.
    message.msg_controllen = unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as _;
    // SAFETY: the control buffer is aligned and large enough for one
    // header and one descriptor, so the first header and its data are in it.
    unsafe {
        let header = libc::CMSG_FIRSTHDR(&message);
        (*header).cmsg_level = libc::SOL_SOCKET;
        (*header).cmsg_type = libc::SCM_RIGHTS;
        (*header).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as _;
        ptr::write_unaligned(
            libc::CMSG_DATA(header).cast::<RawFd>(),
            connection.as_raw_fd(),
        );
    }
    loop {
        // SAFETY: the header points at the payload and the control buffer,
        // both live for the call; MSG_NOSIGNAL turns a gone worker into EPIPE.
        let sent = unsafe { libc::sendmsg(control.as_raw_fd(), &message, libc::MSG_NOSIGNAL) };
        if sent >= 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Whether the server has sent this worker its session (or closed the
/// channel) already: a worker started for a waiting session, not ahead of
/// one. Does not wait.
pub(crate) fn session_waiting(control: BorrowedFd<'_>) -> bool {
    let mut ready = libc::pollfd {
        fd: control.as_raw_fd(),
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one pollfd, live for the call; a timeout of 0 does not wait.
    let polled = unsafe { libc::poll(&mut ready, 1, 0) };
    polled > 0
}

/// Waits for the server to send this worker its session. `None` when the
/// server closed the channel without sending one.
pub(crate) fn receive_session(control: BorrowedFd<'_>) -> io::Result<Option<ReceivedSession>> {
    // Only what the message filled holds secrets: that much is wiped
    // (`ReceivedBytes`), not the whole buffer, which a session's first
    // request would wait for.
    let mut encoded = ReceivedBytes {
        buffer: vec![0u8; MAX_MESSAGE_LEN],
        filled: 0,
    };
    let mut space = OneDescriptor([0; 64]);
    let mut payload = libc::iovec {
        iov_base: encoded.buffer.as_mut_ptr().cast(),
        iov_len: encoded.buffer.len(),
    };
    // SAFETY: an all-zero msghdr is a valid empty header, filled in below.
    let mut message: libc::msghdr = unsafe { std::mem::zeroed() };
    message.msg_iov = &mut payload;
    message.msg_iovlen = 1;
    message.msg_control = space.0.as_mut_ptr().cast();
    message.msg_controllen = space.0.len() as _;
    let received = loop {
        // SAFETY: the header points at buffers that are live and as large as
        // it says; received descriptors are made close-on-exec.
        let received =
            unsafe { libc::recvmsg(control.as_raw_fd(), &mut message, libc::MSG_CMSG_CLOEXEC) };
        if received >= 0 {
            break (received as usize).min(encoded.buffer.len());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    };
    encoded.filled = received;
    let connection = received_descriptor(&message);
    if received == 0 && connection.is_none() {
        return Ok(None);
    }
    let malformed = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_owned());
    if message.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0 {
        return Err(malformed("a truncated session handover"));
    }
    let connection =
        connection.ok_or_else(|| malformed("a session handover without its connection"))?;
    let Incoming {
        directory,
        request_head,
        tls,
        steps,
    }: Incoming = postcard::from_bytes(encoded.filled())
        .map_err(|error| malformed(&format!("a malformed session handover: {error}")))?;
    if directory.is_empty() {
        return Err(malformed("a session handover without its directory"));
    }
    Ok(Some(ReceivedSession {
        connection,
        directory: PathBuf::from(OsString::from_vec(directory)),
        request_head,
        tls,
        steps,
    }))
}

/// A handover's receive buffer, whose filled part is wiped when dropped.
struct ReceivedBytes {
    buffer: Vec<u8>,
    filled: usize,
}

impl ReceivedBytes {
    fn filled(&self) -> &[u8] {
        &self.buffer[..self.filled]
    }
}

impl Drop for ReceivedBytes {
    fn drop(&mut self) {
        self.buffer[..self.filled].zeroize();
    }
}

/// The descriptor that came with `message`, now owned here; any other
/// control data is ignored.
fn received_descriptor(message: &libc::msghdr) -> Option<OwnedFd> {
    // SAFETY: `message` was filled by recvmsg, whose control buffer is live;
    // the CMSG macros walk only within msg_controllen.
    let mut header = unsafe { libc::CMSG_FIRSTHDR(message) };
    while !header.is_null() {
        // SAFETY: a header CMSG_FIRSTHDR/CMSG_NXTHDR returned is within the buffer.
        let (level, kind, len) = unsafe {
            (
                (*header).cmsg_level,
                (*header).cmsg_type,
                (*header).cmsg_len,
            )
        };
        // SAFETY: CMSG_LEN only computes a size.
        let one_descriptor = unsafe { libc::CMSG_LEN(size_of::<RawFd>() as u32) };
        if level == libc::SOL_SOCKET && kind == libc::SCM_RIGHTS && len == one_descriptor as _ {
            // SAFETY: an SCM_RIGHTS header of one descriptor's length holds
            // one descriptor, which the kernel installed in this process for
            // it alone to own.
            return Some(unsafe {
                OwnedFd::from_raw_fd(ptr::read_unaligned(libc::CMSG_DATA(header).cast::<RawFd>()))
            });
        }
        // SAFETY: as for CMSG_FIRSTHDR above.
        header = unsafe { libc::CMSG_NXTHDR(message, header) };
    }
    None
}

#[cfg(test)]
mod tests {
    use std::{
        io::{Read, Write},
        net::{TcpListener, TcpStream},
        os::fd::AsFd,
    };

    use super::*;

    #[test]
    fn a_session_arrives_with_its_connection_directory_request_head_and_steps() {
        let (server_end, worker_end) = channel().unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let accepted = listener.accept().unwrap().0;
        let steps = [
            Step {
                name: "handshake".into(),
                start_us: 1_700_000_000_000_000,
                duration_us: 250,
            },
            Step {
                name: "hand-over to a warm worker".into(),
                start_us: 1_700_000_000_000_300,
                duration_us: 40,
            },
        ];
        send_session(
            server_end.as_fd(),
            accepted.as_fd(),
            Path::new("/tmp/session-x"),
            &[0, 0, 0, 1, 5],
            None,
            &steps,
        )
        .unwrap();
        drop(accepted);

        let received = receive_session(worker_end.as_fd()).unwrap().unwrap();
        assert_eq!(received.directory, Path::new("/tmp/session-x"));
        assert_eq!(received.request_head, [0, 0, 0, 1, 5]);
        assert!(received.tls.is_none());
        assert_eq!(received.steps, steps);
        let connection = received.connection;
        // The descriptor received is the connection itself.
        let mut received = TcpStream::from(connection);
        received.write_all(b"hi").unwrap();
        let mut greeting = [0u8; 2];
        client.read_exact(&mut greeting).unwrap();
        assert_eq!(&greeting, b"hi");
    }

    #[test]
    fn a_session_waits_once_sent_not_before() {
        let (server_end, worker_end) = channel().unwrap();
        assert!(!session_waiting(worker_end.as_fd()));
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let _client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let accepted = listener.accept().unwrap().0;
        send_session(
            server_end.as_fd(),
            accepted.as_fd(),
            Path::new("/tmp/session-x"),
            &[],
            None,
            &[],
        )
        .unwrap();
        assert!(session_waiting(worker_end.as_fd()));
    }

    #[test]
    fn a_tls_session_arrives_with_its_secrets_and_unread_plaintext() {
        use executor_protocol::tls::{TlsSuite, TrafficKeys};
        let (server_end, worker_end) = channel().unwrap();
        let (connection, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        let tls = SessionTls {
            secrets: TlsSessionSecrets::new(
                TlsSuite::Chacha20Poly1305Sha256,
                TrafficKeys::new(3, vec![1; 32], [2; 12]),
                TrafficKeys::new(5, vec![3; 32], [4; 12]),
            ),
            unread_plaintext: vec![7; MAX_UNREAD_PLAINTEXT],
        };
        let directory = "/tmp/".to_owned() + &"d".repeat(MAX_DIRECTORY_LEN - 5);
        send_session(
            server_end.as_fd(),
            connection.as_fd(),
            Path::new(&directory),
            &[9; MAX_REQUEST_HEAD],
            Some(&tls),
            &[],
        )
        .unwrap();
        let received = receive_session(worker_end.as_fd()).unwrap().unwrap();
        assert_eq!(received.directory, Path::new(&directory));
        assert_eq!(received.request_head, [9; MAX_REQUEST_HEAD]);
        let received = received.tls.unwrap();
        assert_eq!(received.unread_plaintext, tls.unread_plaintext);
        assert_eq!(received.secrets.tx().sequence(), 3);
        assert_eq!(received.secrets.rx().sequence(), 5);
        assert_eq!(received.secrets.suite(), TlsSuite::Chacha20Poly1305Sha256);
    }

    #[test]
    fn a_closed_channel_means_no_session() {
        let (server_end, worker_end) = channel().unwrap();
        drop(server_end);
        assert!(receive_session(worker_end.as_fd()).unwrap().is_none());
    }

    #[test]
    fn a_message_without_a_connection_is_refused() {
        let (server_end, worker_end) = channel().unwrap();
        // SAFETY: sends two bytes from a live buffer on an open socket.
        let sent = unsafe { libc::send(server_end.as_raw_fd(), b"/x".as_ptr().cast(), 2, 0) };
        assert_eq!(sent, 2);
        let error = receive_session(worker_end.as_fd()).unwrap_err();
        assert!(
            error.to_string().contains("without its connection"),
            "{error}"
        );
    }
}
