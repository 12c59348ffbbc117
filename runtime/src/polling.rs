//! Polling for a moment before blocking. On a virtual machine, waking a thread
//! blocked on another CPU costs tens of microseconds, more than most of what
//! the runtime waits for: the end of a short entry, the next job of a
//! background thread, the next request of a client that launches in a loop.
//! So whoever waits for these first polls for [`POLL`], yielding the CPU
//! between attempts (so that on a single CPU the awaited side still runs),
//! and blocks only after that.

use std::time::{Duration, Instant};

/// How long a waiter polls before it blocks.
pub const POLL: Duration = Duration::from_micros(50);

/// Calls `attempt` until it gives a value or [`POLL`] has passed, yielding the
/// CPU between calls; `None` if it gave nothing in that time.
pub fn poll_briefly<T>(attempt: impl FnMut() -> Option<T>) -> Option<T> {
    poll_for(POLL, attempt)
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
