//! Polling for a moment before blocking. On a virtual machine, waking a thread
//! blocked on another CPU costs tens of microseconds, more than most of what
//! the runtime waits for: the end of a short entry, the next job of a
//! background thread, the next request of a client that launches in a loop.
//! So whoever waits for these first polls for [`POLL`], yielding the CPU
//! between attempts (so that on a single CPU the awaited side still runs),
//! and blocks only after that.
//!
//! A process that may run on one CPU only (`taskset -c 0`, say) does not
//! poll a TCP socket ([`worth_polling`]): when its peer shares that CPU, each
//! attempt is a system call and each yield a context switch that blocking
//! makes anyway. It still polls a Unix socket, whose sleeping reader Linux
//! wakes (for nothing) when the peer reads what was sent to it.

use std::{
    sync::OnceLock,
    time::{Duration, Instant},
};

use executor_protocol::Transport;

/// How long a waiter polls before it blocks.
pub const POLL: Duration = Duration::from_micros(50);

/// Calls `attempt` until it gives a value or [`POLL`] has passed, yielding the
/// CPU between calls; `None` if it gave nothing in that time.
pub fn poll_briefly<T>(attempt: impl FnMut() -> Option<T>) -> Option<T> {
    poll_for(POLL, attempt)
}

/// What a read that does not wait gave: `None` when it found nothing yet (it
/// would block, or a signal interrupted it), else its result.
pub fn unless_not_ready<T>(result: std::io::Result<T>) -> Option<std::io::Result<T>> {
    match result {
        Err(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
            ) =>
        {
            None
        }
        other => Some(other),
    }
}

/// Whether waiting for the peer of a socket of `transport` is worth a poll
/// before blocking: always, except on TCP in a process that may run on one
/// CPU only.
pub fn worth_polling(transport: Transport) -> bool {
    transport == Transport::Unix || !on_one_cpu()
}

/// Whether this process may run on more than one CPU: work it does while a
/// peer works too can then take no time from the peer.
pub fn more_than_one_cpu() -> bool {
    !on_one_cpu()
}

/// Whether this process may run on one CPU only, as its CPU affinity said
/// when it first polled (read once: a system call per wait would cost what
/// the poll saves).
fn on_one_cpu() -> bool {
    static ONE_CPU: OnceLock<bool> = OnceLock::new();
    *ONE_CPU.get_or_init(|| allowed_cpus() == Some(1))
}

/// How many CPUs this thread may run on, if the system says.
fn allowed_cpus() -> Option<u32> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set, which
    // sched_getaffinity fills for the calling thread (pid 0) within the size
    // given; CPU_COUNT only reads it.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        (libc::sched_getaffinity(0, size_of::<libc::cpu_set_t>(), &mut set) == 0)
            .then(|| libc::CPU_COUNT(&set) as u32)
    }
}

/// Calls `attempt` until it gives a value or `window` has passed.
fn poll_for<T>(window: Duration, mut attempt: impl FnMut() -> Option<T>) -> Option<T> {
    let polling_until = Instant::now() + window;
    loop {
        if let Some(value) = attempt() {
            return Some(value);
        }
        if Instant::now() >= polling_until {
            return None;
        }
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With a window no scheduler delay can use up: on a loaded machine a
    /// yield alone may take longer than [`POLL`].
    #[test]
    fn gives_the_first_value_attempt_gives() {
        let mut calls = 0;
        let value = poll_for(Duration::from_secs(600), || {
            calls += 1;
            (calls == 3).then_some(calls)
        });
        assert_eq!(value, Some(3));
    }

    /// A thread pinned to one CPU counts one; the count is the affinity's,
    /// not the machine's.
    #[test]
    fn counts_the_cpus_a_pinned_thread_may_use() {
        let allowed = std::thread::spawn(|| {
            // SAFETY: a zeroed set with CPU 0 added, applied to the calling
            // thread (pid 0) only; this test's own thread ends right after.
            let pinned = unsafe {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(0, &mut set);
                libc::sched_setaffinity(0, size_of::<libc::cpu_set_t>(), &set) == 0
            };
            assert!(pinned, "cannot pin the thread to CPU 0");
            allowed_cpus()
        })
        .join()
        .unwrap();
        assert_eq!(allowed, Some(1));
    }

    #[test]
    fn a_unix_socket_is_always_worth_polling() {
        assert!(worth_polling(Transport::Unix));
    }

    #[test]
    fn gives_up_after_the_poll_window() {
        let started = Instant::now();
        let mut calls = 0u64;
        let value: Option<()> = poll_briefly(|| {
            calls += 1;
            None
        });
        assert_eq!(value, None);
        assert!(calls >= 1);
        assert!(started.elapsed() >= POLL);
    }
}
