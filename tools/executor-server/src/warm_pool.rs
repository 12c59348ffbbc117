//! Workers started before their sessions (`--warm-workers N`): each has
//! loaded LLVM, created its JIT and loaded the `--preload`ed libraries, and
//! waits on its control channel, so that a new session skips the worker's
//! start-up. Taking one starts its replacement in the background, after
//! [`REFILL_DELAY`], and on a server confined to one CPU only once its
//! workers leave that CPU idle (`busy_workers.rs`), for at most
//! [`REFILL_PATIENCE`]. A worker still serves one session only: it is taken
//! out of the pool for good.
//!
//! The delay is a timer the taking arms ([`RefillTimer`]): the thread that
//! starts the replacements is woken once, when it runs out, not at the take,
//! where waking it would cost the hand-over a context switch or two on a
//! server confined to one CPU.
//!
//! The workers are started by a thread of their own that lives as long as
//! the server: a worker's parent-death signal fires when the *thread* that
//! started it ends, so they must not be started by a session's thread.

use std::{
    collections::VecDeque,
    io,
    os::fd::{AsRawFd, FromRawFd, OwnedFd},
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::Duration,
};

use crate::{Settings, busy_workers, catalyst_assets, spawn::SpawnedWorker};

/// How long after a worker is taken its replacement starts. A worker's
/// start-up takes tens of milliseconds of CPU time; started at once, it would
/// compete for the CPU with the session that just began, whose first
/// requests (send_binary, the first launch) take about a millisecond. A
/// session that opens within this time after another finds no warm worker
/// (unless `--warm-workers` is above 1) and starts its own.
const REFILL_DELAY: Duration = Duration::from_millis(50);

/// The longest a replacement waits for busy workers to leave a server's one
/// CPU idle: a session that runs a loop of launches for longer pays for the
/// start-up after all.
const REFILL_PATIENCE: Duration = Duration::from_secs(1);

/// How long the pool waits before trying again after a worker could not be
/// started (out of processes or memory, say), instead of trying in a loop.
const RETRY_AFTER: Duration = Duration::from_secs(1);

pub(crate) struct WarmPool {
    /// How many workers to keep waiting.
    size: usize,
    waiting: Mutex<VecDeque<SpawnedWorker>>,
    /// Armed when a worker is taken; runs out [`REFILL_DELAY`] later. None
    /// for a pool of size 0, which has nothing to replace.
    refill: Option<RefillTimer>,
}

impl WarmPool {
    /// A pool of `size` workers, started at once in the background (none for
    /// a size of 0: every session then starts its own).
    pub(crate) fn start(size: usize, settings: Arc<Settings>) -> io::Result<Arc<Self>> {
        let refill = (size > 0)
            .then(RefillTimer::new)
            .transpose()
            .map_err(|error| io::Error::other(format!("cannot create their timer: {error}")))?;
        let pool = Arc::new(Self {
            size,
            waiting: Mutex::new(VecDeque::with_capacity(size)),
            refill,
        });
        if pool.refill.is_some() {
            let filling = Arc::clone(&pool);
            std::thread::Builder::new()
                .name("warm-workers".to_owned())
                .spawn(move || filling.keep_filled(&settings))
                .map_err(|error| io::Error::other(format!("cannot start their thread: {error}")))?;
        }
        Ok(pool)
    }

    /// A waiting worker that is still alive, if there is one; its
    /// replacement is started in the background, [`REFILL_DELAY`] after the
    /// [`Taken`] is dropped.
    pub(crate) fn take(&self) -> Taken<'_> {
        let mut waiting = self.waiting();
        let worker = std::iter::from_fn(|| waiting.pop_front()).find_map(|mut worker| {
            if worker.is_alive() {
                Some(worker)
            } else {
                tracing::warn!(pid = worker.pid(), "a warm worker died while it waited");
                // Its pid is free again, but no other worker has linked it:
                // a worker makes its link only once its executor has started.
                catalyst_assets::remove_link_of(worker.pid());
                None
            }
        });
        Taken { pool: self, worker }
    }

    /// Starts workers whenever fewer than `size` are waiting, forever.
    fn keep_filled(&self, settings: &Settings) {
        let Some(refill) = &self.refill else {
            return;
        };
        loop {
            if self.waiting().len() >= self.size {
                // Taking a worker arms the timer: this runs out REFILL_DELAY
                // after the last take (or at once, if it ran out meanwhile).
                if let Err(error) = refill.wait() {
                    tracing::error!(%error, "cannot wait for the warm-worker timer");
                    std::thread::sleep(RETRY_AFTER);
                }
                if self.waiting().len() >= self.size {
                    continue;
                }
                busy_workers::wait_until_idle(REFILL_PATIENCE);
            }
            // Started without the lock: a session never waits for a start.
            match SpawnedWorker::spawn(settings) {
                Ok(worker) => {
                    tracing::debug!(pid = worker.pid(), "warm worker started");
                    self.waiting().push_back(worker);
                }
                Err(error) => {
                    tracing::error!(%error, program = %settings.worker_program.display(), "cannot start a warm worker");
                    std::thread::sleep(RETRY_AFTER);
                }
            }
        }
    }

    fn waiting(&self) -> MutexGuard<'_, VecDeque<SpawnedWorker>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What [`WarmPool::take`] took (a worker, or none if none was waiting
/// alive): dropping it, once the session has been handed over, arms the
/// timer that starts the replacements.
pub(crate) struct Taken<'a> {
    pool: &'a WarmPool,
    pub worker: Option<SpawnedWorker>,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        if let Some(refill) = &self.pool.refill
            && let Err(error) = refill.arm(REFILL_DELAY)
        {
            tracing::error!(%error, "cannot arm the warm-worker timer; no replacement starts");
        }
    }
}

/// A one-shot timer (Linux's timerfd): [`RefillTimer::arm`] starts it, or
/// starts it again, and [`RefillTimer::wait`] blocks until it runs out.
struct RefillTimer(OwnedFd);

impl RefillTimer {
    fn new() -> io::Result<Self> {
        // SAFETY: timerfd_create takes a clock id and flags and returns a new
        // descriptor or -1; no memory is involved.
        let fd = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_CLOEXEC) };
        if fd == -1 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: timerfd_create returned a new descriptor nothing else owns.
        Ok(Self(unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Runs out `after` from now, whether it was running or not.
    fn arm(&self, after: Duration) -> io::Result<()> {
        let deadline = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: after.as_secs() as libc::time_t,
                // Never zero with a zero interval, which would disarm it.
                tv_nsec: libc::c_long::from(after.subsec_nanos().max(1)),
            },
        };
        // SAFETY: the descriptor is a timerfd this owns; `deadline` is a live
        // itimerspec and no old value is asked for.
        let set = unsafe {
            libc::timerfd_settime(self.0.as_raw_fd(), 0, &deadline, std::ptr::null_mut())
        };
        if set == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Blocks until the timer runs out (at once if it has since it was last
    /// waited for).
    fn wait(&self) -> io::Result<()> {
        let mut expirations = 0u64;
        loop {
            // SAFETY: reads a timerfd's 8-byte count into a live u64.
            let read = unsafe {
                libc::read(
                    self.0.as_raw_fd(),
                    (&raw mut expirations).cast(),
                    std::mem::size_of::<u64>(),
                )
            };
            if read >= 0 {
                return Ok(());
            }
            let error = io::Error::last_os_error();
            if error.kind() != io::ErrorKind::Interrupted {
                return Err(error);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether the timer has run out, waiting for it at most `timeout_ms`.
    fn ran_out(timer: &RefillTimer, timeout_ms: i32) -> bool {
        let mut ready = libc::pollfd {
            fd: timer.0.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polls one live pollfd.
        let polled = unsafe { libc::poll(&mut ready, 1, timeout_ms) };
        assert!(polled >= 0, "{}", io::Error::last_os_error());
        polled == 1
    }

    #[test]
    fn the_timer_runs_out_only_once_armed_and_again_each_time_it_is_armed() {
        let timer = RefillTimer::new().unwrap();
        assert!(!ran_out(&timer, 0), "ran out before it was armed");
        for _ in 0..2 {
            timer.arm(Duration::from_millis(1)).unwrap();
            assert!(ran_out(&timer, 10_000), "armed, it never ran out");
            timer.wait().unwrap();
            assert!(!ran_out(&timer, 0), "still out after it was waited for");
        }
    }
}
