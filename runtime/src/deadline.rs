//! The optional deadline of the C ABI's calls that wait for a kernel
//! (`launch`, `await`, `call_wrapper`): the session's launch timeout
//! (`crate::config`: `EXECUTOR_LAUNCH_TIMEOUT_MS`, or `launch_timeout_ms` of
//! its address).
//!
//! A kernel that never returns cannot be stopped: on `local` it runs on the
//! caller's thread (or an async launch's), and no thread can be killed; on a
//! server the caller's thread waits in a read. Nor can the lowered code take
//! an error (the ABI's calls succeed or end the program). So a watchdog
//! thread watches the deadlines of the calls under way; when one passes it
//! prints that call's one line and ends the program with exit code 1,
//! whatever the kernel is doing. A server's worker then sees its client gone
//! and is killed (docs/protocol.md).

use std::{
    io,
    sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError},
    time::{Duration, Instant},
};

use crate::error::{Result, RuntimeError};

/// A deadline being watched: until it is dropped, the program ends with its
/// message once its time has passed.
pub struct ArmedDeadline {
    id: u64,
}

/// Watches a deadline `timeout` from now, after which the program prints
/// `message` to stderr and exits with code 1, unless the returned guard has
/// been dropped by then.
pub fn arm(timeout: Duration, message: String) -> Result<ArmedDeadline> {
    start_watchdog()?;
    let mut watched = WATCHED.deadlines();
    let id = watched.next_id;
    watched.next_id += 1;
    let at = Instant::now() + timeout;
    watched.deadlines.push(Deadline { id, at, message });
    // The watchdog only needs waking when it would otherwise sleep past this
    // one: with one timeout for every call, rarely.
    if watched.sleeping_until.is_none_or(|until| at < until) {
        WATCHED.changed.notify_one();
    }
    Ok(ArmedDeadline { id })
}

impl Drop for ArmedDeadline {
    fn drop(&mut self) {
        let mut watched = WATCHED.deadlines();
        watched.deadlines.retain(|deadline| deadline.id != self.id);
    }
}

struct Deadline {
    id: u64,
    at: Instant,
    message: String,
}

struct Watched {
    deadlines: Mutex<Deadlines>,
    changed: Condvar,
}

struct Deadlines {
    deadlines: Vec<Deadline>,
    next_id: u64,
    /// When the watchdog wakes up next by itself; None while it waits for a
    /// deadline to be armed.
    sleeping_until: Option<Instant>,
}

static WATCHED: Watched = Watched {
    deadlines: Mutex::new(Deadlines {
        deadlines: Vec::new(),
        next_id: 0,
        sleeping_until: None,
    }),
    changed: Condvar::new(),
};

impl Watched {
    fn deadlines(&self) -> MutexGuard<'_, Deadlines> {
        // The list stays consistent whatever panicked while holding the lock.
        self.deadlines
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// Starts the watchdog thread the first time; its error every time, if it
/// could not be started.
fn start_watchdog() -> Result<()> {
    static STARTED: OnceLock<std::result::Result<(), Arc<io::Error>>> = OnceLock::new();
    STARTED
        .get_or_init(|| {
            std::thread::Builder::new()
                .name("executor:deadlines".to_owned())
                .spawn(watch)
                .map(drop)
                .map_err(Arc::new)
        })
        .clone()
        .map_err(|cause| RuntimeError::NoThread {
            purpose: "the thread that watches launch deadlines".to_owned(),
            cause,
        })
}

/// The watchdog: sleeps until the earliest deadline, and ends the program if
/// it is still armed then.
fn watch() {
    let mut watched = WATCHED.deadlines();
    loop {
        let now = Instant::now();
        let earliest = watched.deadlines.iter().min_by_key(|deadline| deadline.at);
        if let Some(passed) = earliest.filter(|deadline| deadline.at <= now) {
            end_program(&passed.message);
        }
        let wake_at = earliest.map(|deadline| deadline.at);
        watched.sleeping_until = wake_at;
        watched = match wake_at {
            Some(at) => {
                WATCHED
                    .changed
                    .wait_timeout(watched, at - now)
                    .unwrap_or_else(PoisonError::into_inner)
                    .0
            }
            None => WATCHED
                .changed
                .wait(watched)
                .unwrap_or_else(PoisonError::into_inner),
        };
    }
}

// glibc's (POSIX), which the libc crate does not declare.
unsafe extern "C" {
    static stdout: *mut libc::FILE;
    fn ftrylockfile(stream: *mut libc::FILE) -> libc::c_int;
    fn funlockfile(stream: *mut libc::FILE);
}

/// Prints `message` and exits at once, with code 1: not through `exit`, whose
/// handlers would run beside a kernel that still runs, and could wait on it.
fn end_program(message: &str) -> ! {
    eprintln!("{message}");
    // SAFETY: `stdout` is the C library's stream, which lives as long as the
    // process; it is flushed only if no other thread holds it (the kernel
    // might, in a write that never ends), and unlocked after.
    unsafe {
        let stream = stdout;
        if ftrylockfile(stream) == 0 {
            libc::fflush(stream);
            funlockfile(stream);
        }
        libc::_exit(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_disarmed_deadline_does_not_end_the_program() {
        for _ in 0..100 {
            drop(arm(Duration::from_millis(1), "not printed".to_owned()).unwrap());
        }
        // Had one stayed armed, the watchdog would have ended the tests here.
        std::thread::sleep(Duration::from_millis(50));
        assert!(WATCHED.deadlines().deadlines.is_empty());
    }
}
