//! Dead peers detected by the kernel, for both ends of a session's
//! connection: TCP keepalive, and `TCP_USER_TIMEOUT` for data sent and never
//! acknowledged. A peer whose host still runs answers keepalive probes
//! however long its kernel or its client takes, so only a link or a host that
//! is gone trips them; then every read and write on the socket fails with
//! `ETIMEDOUT` (`io::ErrorKind::TimedOut`) and `poll` reports an error,
//! instead of blocking forever.

use std::{
    io,
    os::fd::{AsFd, AsRawFd, BorrowedFd},
    time::Duration,
};

/// The shortest deadline: keepalive counts whole seconds, and a probe needs
/// one of them after at least one second of silence.
pub const MIN_DEAD_PEER_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest deadline, a day: a longer one is taken as a day.
pub const MAX_DEAD_PEER_TIMEOUT: Duration = Duration::from_secs(24 * 60 * 60);

/// The most keepalive probes Linux sends before giving up
/// (`TCP_KEEPCNT`; more is refused with `EINVAL`).
const MAX_PROBES: u32 = 127;

/// How keepalive probes are spaced so that a silent peer is given up
/// `timeout` (rounded up to whole seconds, from 2 s to a day) after its last
/// sign of life: the first probe after about a third of it, then one every
/// `interval_seconds` (a second, or more where 127 probes a second apart
/// would not fill the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ProbeSchedule {
    idle_seconds: u32,
    interval_seconds: u32,
    probes: u32,
}

impl ProbeSchedule {
    fn within(timeout: Duration) -> Self {
        let total = timeout
            .clamp(MIN_DEAD_PEER_TIMEOUT, MAX_DEAD_PEER_TIMEOUT)
            .as_millis()
            .div_ceil(1000) as u32;
        let probing = total - (total / 3).max(1);
        let interval_seconds = probing.div_ceil(MAX_PROBES);
        let probes = probing / interval_seconds;
        Self {
            idle_seconds: total - interval_seconds * probes,
            interval_seconds,
            probes,
        }
    }

    fn total_seconds(self) -> u32 {
        self.idle_seconds + self.interval_seconds * self.probes
    }
}

/// How long a peer may be silent before it is given up on, for a `timeout`
/// asked for: rounded up to whole seconds, from [`MIN_DEAD_PEER_TIMEOUT`] to
/// [`MAX_DEAD_PEER_TIMEOUT`].
pub fn applied_timeout(timeout: Duration) -> Duration {
    Duration::from_secs(ProbeSchedule::within(timeout).total_seconds().into())
}

/// Makes reads and writes on the TCP socket `socket` fail once its peer has
/// been silent for `timeout` (its [`applied_timeout`]), whatever they wait
/// for. On a listening socket, every connection it accepts starts with these
/// options.
pub fn give_up_on_silent_peer(socket: impl AsFd, timeout: Duration) -> io::Result<()> {
    let stream = socket.as_fd();
    let schedule = ProbeSchedule::within(timeout);
    let user_timeout_ms = schedule.total_seconds().saturating_mul(1000);
    set_option(stream, libc::SOL_SOCKET, libc::SO_KEEPALIVE, 1)?;
    set_option(
        stream,
        libc::IPPROTO_TCP,
        libc::TCP_KEEPIDLE,
        schedule.idle_seconds,
    )?;
    set_option(
        stream,
        libc::IPPROTO_TCP,
        libc::TCP_KEEPINTVL,
        schedule.interval_seconds,
    )?;
    set_option(
        stream,
        libc::IPPROTO_TCP,
        libc::TCP_KEEPCNT,
        schedule.probes,
    )?;
    set_option(
        stream,
        libc::IPPROTO_TCP,
        libc::TCP_USER_TIMEOUT,
        user_timeout_ms,
    )
}

/// Sets the integer option `name` of `level` on `socket`.
pub(crate) fn set_option(
    socket: BorrowedFd<'_>,
    level: i32,
    name: i32,
    value: u32,
) -> io::Result<()> {
    let value = libc::c_int::try_from(value).unwrap_or(libc::c_int::MAX);
    // SAFETY: setsockopt reads an int of the given size from a valid pointer,
    // on a descriptor borrowed for the call.
    let result = unsafe {
        libc::setsockopt(
            socket.as_raw_fd(),
            level,
            name,
            std::ptr::from_ref(&value).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(test)]
mod tests {
    use std::net::{TcpListener, TcpStream};

    use super::*;

    #[test]
    fn the_probes_end_by_the_deadline_in_whole_seconds() {
        for (timeout_ms, idle, probes) in [(1, 1, 1), (2_000, 1, 1), (3_000, 1, 2), (2_500, 1, 2)] {
            let schedule = ProbeSchedule::within(Duration::from_millis(timeout_ms));
            assert_eq!((schedule.idle_seconds, schedule.probes), (idle, probes));
        }
        let schedule = ProbeSchedule::within(Duration::from_secs(30));
        assert_eq!(schedule.total_seconds(), 30);
        assert_eq!(schedule.idle_seconds, 10);
    }

    #[test]
    fn long_timeouts_space_the_probes_within_linuxs_limits() {
        for seconds in [128, 129, 300, 301, 3_600, 86_399, 86_400] {
            let schedule = ProbeSchedule::within(Duration::from_secs(seconds));
            assert_eq!(u64::from(schedule.total_seconds()), seconds, "{schedule:?}");
            assert!(schedule.probes <= MAX_PROBES, "{schedule:?}");
            // Linux's MAX_TCP_KEEPIDLE and MAX_TCP_KEEPINTVL.
            assert!(schedule.idle_seconds <= 32_767, "{schedule:?}");
            assert!(schedule.interval_seconds <= 32_767, "{schedule:?}");
        }
        assert_eq!(
            applied_timeout(Duration::from_secs(u64::MAX)),
            MAX_DEAD_PEER_TIMEOUT
        );
    }

    #[test]
    fn the_applied_timeout_is_the_probes_whole_seconds() {
        for (asked_ms, applied_s) in [(1, 2), (500, 2), (2_000, 2), (2_001, 3), (15_000, 15)] {
            assert_eq!(
                applied_timeout(Duration::from_millis(asked_ms)),
                Duration::from_secs(applied_s),
                "asked for {asked_ms} ms"
            );
        }
    }

    #[test]
    fn the_options_are_set_on_a_real_socket() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let stream = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        for long in [300, 86_400, u64::MAX] {
            give_up_on_silent_peer(&stream, Duration::from_secs(long))
                .unwrap_or_else(|error| panic!("{long} s: {error}"));
        }
        give_up_on_silent_peer(&stream, Duration::from_secs(9)).unwrap();
        let mut value: libc::c_int = 0;
        let mut length = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        // SAFETY: getsockopt writes an int to a valid pointer, its size given.
        let result = unsafe {
            libc::getsockopt(
                stream.as_raw_fd(),
                libc::IPPROTO_TCP,
                libc::TCP_USER_TIMEOUT,
                std::ptr::from_mut(&mut value).cast(),
                &mut length,
            )
        };
        assert_eq!((result, value), (0, 9_000));
    }
}
