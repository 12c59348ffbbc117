//! Workers started before their sessions (`--warm-workers N`): each has
//! loaded LLVM, created its JIT and loaded the `--preload`ed libraries, and
//! waits on its control channel, so that a new session skips the worker's
//! start-up. Taking one starts its replacement in the background, after
//! [`REFILL_DELAY`], and on a server confined to one CPU only once its
//! workers leave that CPU idle (`busy_workers.rs`), for at most
//! [`REFILL_PATIENCE`]. A worker still serves one session only: it is taken
//! out of the pool for good.
//!
//! The workers are started by a thread of their own that lives as long as
//! the server: a worker's parent-death signal fires when the *thread* that
//! started it ends, so they must not be started by a session's thread.

use std::{
    collections::VecDeque,
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
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
    /// Signalled when a worker is taken.
    taken: Condvar,
}

impl WarmPool {
    /// A pool of `size` workers, started at once in the background (none for
    /// a size of 0: every session then starts its own).
    pub(crate) fn start(size: usize, settings: Arc<Settings>) -> std::io::Result<Arc<Self>> {
        let pool = Arc::new(Self {
            size,
            waiting: Mutex::new(VecDeque::with_capacity(size)),
            taken: Condvar::new(),
        });
        if size > 0 {
            let filling = Arc::clone(&pool);
            std::thread::Builder::new()
                .name("warm-workers".to_owned())
                .spawn(move || filling.keep_filled(&settings))?;
        }
        Ok(pool)
    }

    /// A waiting worker that is still alive, if there is one; its
    /// replacement is started in the background once the [`Taken`] is
    /// dropped.
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
        loop {
            let mut waiting = self.waiting();
            if waiting.len() >= self.size {
                while waiting.len() >= self.size {
                    waiting = self
                        .taken
                        .wait(waiting)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                drop(waiting);
                std::thread::sleep(REFILL_DELAY);
                busy_workers::wait_until_idle(REFILL_PATIENCE);
            } else {
                drop(waiting);
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
/// alive): the thread that starts the replacements is woken when it is
/// dropped, once the session has been handed over. Woken as the worker is
/// taken, that thread (asleep for long, so first in the scheduler's line)
/// would run before the hand-over finishes, taking its CPU for a moment
/// while the client waits.
pub(crate) struct Taken<'a> {
    pool: &'a WarmPool,
    pub worker: Option<SpawnedWorker>,
}

impl Drop for Taken<'_> {
    fn drop(&mut self) {
        self.pool.taken.notify_one();
    }
}
