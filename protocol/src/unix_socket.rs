//! The system calls on sockets that std does not offer, for both ends: a
//! Unix socket's address, connecting with a bounded wait, sending without
//! `SIGPIPE`, peeking, the peer's uid (`SO_PEERCRED`) and integer socket
//! options. Every `unsafe` call of the transport is here.

use std::{
    io::{self, IoSlice},
    mem::{size_of, zeroed},
    os::{
        fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd},
        unix::{ffi::OsStrExt, net::UnixStream},
    },
    path::Path,
    time::Duration,
};

/// The address of the Unix socket at `path`, and its length. A path too long
/// for `sun_path` (108 bytes with its NUL on Linux) is an error saying so.
pub fn socket_address(path: &Path) -> io::Result<(libc::sockaddr_un, libc::socklen_t)> {
    // SAFETY: an all-zero sockaddr_un is a valid, empty address.
    let mut address: libc::sockaddr_un = unsafe { zeroed() };
    address.sun_family = libc::AF_UNIX as libc::sa_family_t;
    let bytes = path.as_os_str().as_bytes();
    if bytes.len() >= address.sun_path.len() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "the path is {} bytes long, and a socket's path must be shorter than {}",
                bytes.len(),
                address.sun_path.len()
            ),
        ));
    }
    if bytes.contains(&0) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a socket's path cannot hold a NUL byte",
        ));
    }
    for (slot, byte) in address.sun_path.iter_mut().zip(bytes) {
        *slot = *byte as libc::c_char;
    }
    let length = std::mem::offset_of!(libc::sockaddr_un, sun_path) + bytes.len() + 1;
    Ok((address, length as libc::socklen_t))
}

/// A new close-on-exec Unix stream socket, neither bound nor connected.
pub fn new_socket() -> io::Result<OwnedFd> {
    // SAFETY: socket takes flags only and returns a new descriptor or -1.
    let fd = unsafe { libc::socket(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: socket returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Connects to the Unix socket at `path`. A listener whose queue is full
/// makes `connect` wait; the socket's send timeout, set to `timeout` first,
/// bounds that wait (Linux waits for room that long, then fails with
/// `EAGAIN`, reported as a timeout).
pub fn connect(path: &Path, timeout: Duration) -> io::Result<UnixStream> {
    let (address, length) = socket_address(path)?;
    let socket = UnixStream::from(new_socket()?);
    // A zero timeout would mean none.
    socket.set_write_timeout(Some(timeout.max(Duration::from_millis(1))))?;
    loop {
        // SAFETY: `address` is a valid sockaddr_un of `length` bytes, live
        // for the call.
        let connected =
            unsafe { libc::connect(socket.as_raw_fd(), (&raw const address).cast(), length) };
        if connected == 0 {
            socket.set_write_timeout(None)?;
            return Ok(socket);
        }
        let error = io::Error::last_os_error();
        match error.kind() {
            io::ErrorKind::Interrupted => {}
            io::ErrorKind::WouldBlock => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("no room in the server's listen queue within {timeout:?}"),
                ));
            }
            _ => return Err(error),
        }
    }
}

/// One `sendmsg` of `buffers`, with `MSG_NOSIGNAL`: a peer that is gone is
/// `EPIPE`, not a `SIGPIPE`. Honours the socket's send timeout.
pub fn send(fd: BorrowedFd<'_>, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
    send_with(fd, buffers, 0)
}

/// [`send`] with more `flags` (`MSG_DONTWAIT`...).
pub fn send_with(
    fd: BorrowedFd<'_>,
    buffers: &[IoSlice<'_>],
    flags: libc::c_int,
) -> io::Result<usize> {
    // SAFETY: an all-zero msghdr is a valid empty header, filled in below.
    let mut message: libc::msghdr = unsafe { zeroed() };
    // IoSlice is ABI-compatible with iovec on Unix; sendmsg only reads them.
    message.msg_iov = buffers.as_ptr().cast_mut().cast();
    message.msg_iovlen = buffers.len().min(libc::UIO_MAXIOV as usize) as _;
    // SAFETY: the header points at `buffers`, live and unchanged for the call.
    let sent = unsafe { libc::sendmsg(fd.as_raw_fd(), &message, libc::MSG_NOSIGNAL | flags) };
    usize::try_from(sent).map_err(|_| io::Error::last_os_error())
}

/// One `recv` into `buffer` with `flags` (`MSG_PEEK`, `MSG_DONTWAIT`...).
pub fn receive(fd: BorrowedFd<'_>, buffer: &mut [u8], flags: libc::c_int) -> io::Result<usize> {
    // SAFETY: `recv` writes at most `buffer.len()` bytes into `buffer`, on a
    // descriptor borrowed for the call.
    let received = unsafe {
        libc::recv(
            fd.as_raw_fd(),
            buffer.as_mut_ptr().cast(),
            buffer.len(),
            flags,
        )
    };
    usize::try_from(received).map_err(|_| io::Error::last_os_error())
}

/// The effective uid of this process.
pub fn own_uid() -> libc::uid_t {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// The uid of the process at the other end of the connected Unix socket
/// `fd`, as the kernel recorded it when it connected.
pub fn peer_uid(fd: BorrowedFd<'_>) -> io::Result<libc::uid_t> {
    // SAFETY: ucred is plain data; all-zero is a valid value.
    let mut credentials: libc::ucred = unsafe { zeroed() };
    let mut size = size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `credentials` and `size` are valid for writes, and `size` is
    // the size of `credentials`.
    let result = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut credentials).cast(),
            &mut size,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(credentials.uid)
}

/// An integer option of the SOL_SOCKET level of `fd`; an error if `fd` is
/// no socket.
pub fn socket_option(fd: BorrowedFd<'_>, option: libc::c_int) -> io::Result<libc::c_int> {
    option_at(fd, libc::SOL_SOCKET, option)
}

/// The integer option `option` of `level` (`IPPROTO_TCP`, ...) of the socket
/// `fd`.
pub fn option_at(
    fd: BorrowedFd<'_>,
    level: libc::c_int,
    option: libc::c_int,
) -> io::Result<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut size = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` and `size` are valid for writes, and `size` is the size
    // of `value`.
    let result = unsafe {
        libc::getsockopt(
            fd.as_raw_fd(),
            level,
            option,
            (&raw mut value).cast(),
            &mut size,
        )
    };
    if result != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use std::os::{fd::AsFd, unix::net::UnixListener};

    use super::*;

    #[test]
    fn the_peer_is_this_process_s_user() {
        let (ours, _theirs) = UnixStream::pair().unwrap();
        assert_eq!(peer_uid(ours.as_fd()).unwrap(), own_uid());
    }

    #[test]
    fn a_path_too_long_for_a_socket_is_named_as_such() {
        let long = Path::new("/tmp").join("x".repeat(200));
        let error = connect(&long, Duration::from_secs(1)).unwrap_err();
        assert!(
            error.to_string().contains("must be shorter than"),
            "{error}"
        );
    }

    #[test]
    fn connecting_reaches_a_listener_and_nothing_else() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("s.sock");
        let missing = connect(&path, Duration::from_secs(1)).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let listener = UnixListener::bind(&path).unwrap();
        let client = connect(&path, Duration::from_secs(1)).unwrap();
        let (server, _) = listener.accept().unwrap();
        send(client.as_fd(), &[IoSlice::new(b"ab"), IoSlice::new(b"c")]).unwrap();
        let mut buffer = [0; 3];
        assert_eq!(
            receive(server.as_fd(), &mut buffer, libc::MSG_WAITALL).unwrap(),
            3
        );
        assert_eq!(&buffer, b"abc");
    }
}
