//! Socket activation: the listening sockets systemd (or systemd-socket-activate,
//! or any program that follows sd_listen_fds(3)) passes, as descriptors 3, 4,
//! ... with `LISTEN_PID` set to this process's id and `LISTEN_FDS` to their
//! number. The server serves them as it serves the addresses it binds itself,
//! under the same rules (a non-loopback one needs a token).

use std::{
    net::TcpListener,
    os::fd::{FromRawFd, RawFd},
    sync::atomic::{AtomicBool, Ordering},
};

use crate::ServerError;

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
/// listening TCP socket. They are made close-on-exec, so that workers do not
/// inherit them.
pub(crate) fn take_passed_sockets() -> Result<Vec<TcpListener>, ServerError> {
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
            check_listening_tcp(fd).and_then(|()| set_close_on_exec(fd)).map_err(|reason| {
                bad(format!(
                    "descriptor {fd} (of LISTEN_FDS={count}) {reason}: a ListenStream= of an IP address and port is served"
                ))
            })?;
            // SAFETY: the descriptor is open (checked above) and was passed
            // for this process to own; `TAKEN` makes this the only owner.
            Ok(unsafe { TcpListener::from_raw_fd(fd) })
        })
        .collect()
}

/// Checks that `fd` is an open, listening IPv4 or IPv6 stream socket; the
/// error says what it is not.
fn check_listening_tcp(fd: RawFd) -> Result<(), String> {
    let not_socket = "is not a socket".to_owned();
    let domain = socket_option(fd, libc::SO_DOMAIN).ok_or_else(|| not_socket.clone())?;
    let kind = socket_option(fd, libc::SO_TYPE).ok_or(not_socket)?;
    if !matches!(domain, libc::AF_INET | libc::AF_INET6) || kind != libc::SOCK_STREAM {
        return Err("is not a TCP socket".to_owned());
    }
    if socket_option(fd, libc::SO_ACCEPTCONN) != Some(1) {
        return Err("is not listening".to_owned());
    }
    Ok(())
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

/// An integer option of the SOL_SOCKET level, or None if `fd` is no socket.
fn socket_option(fd: RawFd, option: libc::c_int) -> Option<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut size = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` and `size` are valid for writes, and `size` is the size
    // of `value`.
    let result = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            option,
            (&raw mut value).cast(),
            &mut size,
        )
    };
    (result == 0).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    #[test]
    fn only_a_listening_tcp_socket_is_served() {
        let listening = TcpListener::bind("127.0.0.1:0").unwrap();
        assert_eq!(check_listening_tcp(listening.as_raw_fd()), Ok(()));

        let connected = std::net::TcpStream::connect(listening.local_addr().unwrap()).unwrap();
        assert_eq!(
            check_listening_tcp(connected.as_raw_fd()),
            Err("is not listening".to_owned())
        );
        let datagram = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        assert_eq!(
            check_listening_tcp(datagram.as_raw_fd()),
            Err("is not a TCP socket".to_owned())
        );
        let file = tempfile::tempfile().unwrap();
        assert_eq!(
            check_listening_tcp(file.as_raw_fd()),
            Err("is not a socket".to_owned())
        );
        assert_eq!(check_listening_tcp(-1), Err("is not a socket".to_owned()));
    }

    #[test]
    fn sockets_meant_for_another_process_are_not_taken() {
        // The test process was not started with LISTEN_PID set to its id.
        assert!(!sockets_passed());
        let error = take_passed_sockets().unwrap_err().to_string();
        assert!(error.contains("LISTEN_PID"), "{error}");
    }
}
