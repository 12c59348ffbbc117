//! Socket activation: the listening sockets systemd (or systemd-socket-activate,
//! or any program that follows sd_listen_fds(3)) passes, as descriptors 3, 4,
//! ... with `LISTEN_PID` set to this process's id and `LISTEN_FDS` to their
//! number: TCP sockets (`ListenStream=127.0.0.1:9000`) or Unix ones
//! (`ListenStream=/run/executor/server.sock`, whose file systemd made and
//! keeps). The server serves them as it serves the addresses it binds
//! itself, under the same rules (a non-loopback TCP one needs a token; on a
//! Unix one the peer's uid is checked).

use std::{
    net::TcpListener,
    os::{
        fd::{BorrowedFd, FromRawFd, OwnedFd, RawFd},
        unix::net::UnixListener,
    },
    sync::atomic::{AtomicBool, Ordering},
};

use executor_protocol::{Transport, stream::transport_of, unix_socket::socket_option};

use crate::{ServerError, listener::Listener};

/// The first descriptor passed (SD_LISTEN_FDS_START).
const FIRST_FD: RawFd = 3;
/// More is surely not a list of sockets meant for this server.
const MAX_FDS: usize = 64;

/// Set once the passed descriptors are owned by listeners, so that a second
/// call cannot own (and close) them twice.
static TAKEN: AtomicBool = AtomicBool::new(false);

/// Whether sockets were passed to this process (`LISTEN_PID` is its id).
pub fn sockets_passed() -> bool {
    std::env::var("LISTEN_PID").is_ok_and(|pid| pid.trim() == std::process::id().to_string())
}

/// Owns the passed sockets (see the module's description); each must be a
/// listening TCP or Unix stream socket. They are made close-on-exec, so that
/// workers do not inherit them.
pub(crate) fn take_passed_sockets() -> Result<Vec<Listener>, ServerError> {
    let bad = |reason: String| ServerError::Activation(reason);
    if !sockets_passed() {
        return Err(bad(
            "no sockets were passed to this process (LISTEN_PID is not its id)".to_owned(),
        ));
    }
    let count = std::env::var("LISTEN_FDS").unwrap_or_default();
    let count: usize = count
        .trim()
        .parse()
        .ok()
        .filter(|count| (1..=MAX_FDS).contains(count))
        .ok_or_else(|| {
            bad(format!(
                "LISTEN_FDS is '{count}', not a number of sockets from 1 to {MAX_FDS}"
            ))
        })?;
    if TAKEN.swap(true, Ordering::SeqCst) {
        return Err(bad("the passed sockets were taken already".to_owned()));
    }
    (FIRST_FD..)
        .take(count)
        .map(|fd| {
            let transport = check_listening_stream(fd).and_then(|transport| set_close_on_exec(fd).map(|()| transport)).map_err(|reason| {
                bad(format!(
                    "descriptor {fd} (of LISTEN_FDS={count}) {reason}: a ListenStream= of an IP address and port, or of a socket file's path, is served"
                ))
            })?;
            // SAFETY: the descriptor is open (checked above) and was passed
            // for this process to own; `TAKEN` makes this the only owner.
            let owned = unsafe { OwnedFd::from_raw_fd(fd) };
            Ok(match transport {
                Transport::Tcp => Listener::Tcp(TcpListener::from(owned)),
                Transport::Unix => Listener::Unix(UnixListener::from(owned)),
            })
        })
        .collect()
}

/// Checks that `fd` is an open, listening IPv4, IPv6 or Unix stream socket,
/// and says which; the error says what it is not.
fn check_listening_stream(fd: RawFd) -> Result<Transport, String> {
    if fd < 0 {
        return Err("is not a socket".to_owned());
    }
    // SAFETY: only borrowed for the checks below, while the descriptor stays
    // open; one that is not open makes them fail.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let kind = socket_option(borrowed, libc::SO_TYPE).map_err(|_| "is not a socket".to_owned())?;
    let transport = transport_of(borrowed)
        .ok()
        .filter(|_| kind == libc::SOCK_STREAM)
        .ok_or_else(|| "is neither a TCP nor a Unix stream socket".to_owned())?;
    if socket_option(borrowed, libc::SO_ACCEPTCONN).ok() != Some(1) {
        return Err("is not listening".to_owned());
    }
    Ok(transport)
}

/// Workers must not inherit the listening sockets.
fn set_close_on_exec(fd: RawFd) -> Result<(), String> {
    // SAFETY: F_GETFD and F_SETFD only query and set a descriptor's flags;
    // a descriptor that is not open makes them fail.
    let set = unsafe {
        let flags = libc::fcntl(fd, libc::F_GETFD);
        flags != -1 && libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC) != -1
    };
    if set {
        Ok(())
    } else {
        Err(format!(
            "cannot be made close-on-exec: {}",
            std::io::Error::last_os_error()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn only_a_listening_tcp_or_unix_socket_is_served() {
        let listening = TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(
            check_listening_stream(listening.as_raw_fd()),
            Ok(Transport::Tcp)
        );
        let directory = tempfile::tempdir().unwrap();
        let unix = UnixListener::bind(directory.path().join("s.sock")).unwrap();
        assert_eq!(
            check_listening_stream(unix.as_raw_fd()),
            Ok(Transport::Unix)
        );

        let connected = std::net::TcpStream::connect(listening.local_addr().unwrap()).unwrap();
        assert_eq!(
            check_listening_stream(connected.as_raw_fd()),
            Err("is not listening".to_owned())
        );
        let datagram = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert_eq!(
            check_listening_stream(datagram.as_raw_fd()),
            Err("is neither a TCP nor a Unix stream socket".to_owned())
        );
        let file = tempfile::tempfile().unwrap();
        assert_eq!(
            check_listening_stream(file.as_raw_fd()),
            Err("is not a socket".to_owned())
        );
        assert_eq!(
            check_listening_stream(-1),
            Err("is not a socket".to_owned())
        );
    }

    #[test]
    fn sockets_meant_for_another_process_are_not_taken() {
        // The test process was not started with LISTEN_PID set to its id.
        assert!(!sockets_passed());
        let error = take_passed_sockets().unwrap_err().to_string();
        assert!(error.contains("LISTEN_PID"), "{error}");
    }
}
