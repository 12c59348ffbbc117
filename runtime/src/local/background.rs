//! The threads `launch_async` entries run on. Every entry starts at once on a
//! thread of its own, never behind another entry (an entry may block), but a
//! thread that finished an entry stays for the next one instead of exiting,
//! so a launch/await loop reuses one thread rather than starting one per
//! launch (a thread start costs about 20 us here, a handoff a few).
//!
//! Both sides poll briefly before they block (`crate::polling`): a short entry
//! is usually done, or the next one there, within the poll.

use std::{
    sync::{
        Arc, Condvar, Mutex, PoisonError,
        atomic::{AtomicU8, AtomicU64, AtomicUsize, Ordering},
        mpsc::{self, Receiver, Sender, TryRecvError},
    },
    time::Duration,
};

use crate::{
    error::{Result, RuntimeError},
    polling::poll_briefly,
};

/// How long an idle thread waits for another entry before it exits.
const IDLE_TIMEOUT: Duration = Duration::from_secs(10);

type Job = Box<dyn FnOnce() + Send>;

/// Idle threads, each waiting on its own channel, by id.
static IDLE: Mutex<Vec<(u64, Sender<Job>)>> = Mutex::new(Vec::new());
static NEXT_THREAD: AtomicU64 = AtomicU64::new(0);

/// The states of a [`Completion`].
const RUNNING: u8 = 0;
const RETURNED: u8 = 1;
const PANICKED: u8 = 2;

/// How far an entry got, for its waiter.
struct Completion {
    state: AtomicU8,
    lock: Mutex<()>,
    finished: Condvar,
}

impl Completion {
    fn end(&self, state: u8) {
        let _guard = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        self.state.store(state, Ordering::Release);
        self.finished.notify_all();
    }
}

/// Ends its entry's completion when dropped, so also when the entry panics:
/// otherwise its waiter would wait forever.
struct CompletionGuard(Arc<Completion>);

impl Drop for CompletionGuard {
    fn drop(&mut self) {
        let state = if std::thread::panicking() {
            PANICKED
        } else {
            RETURNED
        };
        self.0.end(state);
    }
}

/// A started entry, to wait for.
pub struct Pending {
    completion: Arc<Completion>,
    /// The entry's name, for the error of one that panicked.
    name: String,
}

impl Pending {
    /// Blocks until the entry has returned; an error if it panicked instead.
    pub fn wait(self) -> Result<()> {
        let completion = &*self.completion;
        let state = || completion.state.load(Ordering::Acquire);
        let ended = match poll_briefly(|| Some(state()).filter(|state| *state != RUNNING)) {
            Some(ended) => ended,
            None => {
                let mut guard = completion
                    .lock
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner);
                while state() == RUNNING {
                    guard = completion
                        .finished
                        .wait(guard)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                state()
            }
        };
        match ended {
            PANICKED => Err(RuntimeError::AsyncLaunchPanicked(self.name)),
            _ => Ok(()),
        }
    }
}

/// Runs `entry` on a background thread; returns at once.
pub fn start(name: &str, entry: impl FnOnce() + Send + 'static) -> std::io::Result<Pending> {
    let completion = Arc::new(Completion {
        state: AtomicU8::new(RUNNING),
        lock: Mutex::new(()),
        finished: Condvar::new(),
    });
    let signal = Arc::clone(&completion);
    let mut job: Job = Box::new(move || {
        let _ends_the_completion = CompletionGuard(signal);
        entry();
    });
    let pending = Pending {
        completion,
        name: name.to_owned(),
    };
    loop {
        let idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner).pop();
        match idle {
            // A thread that exited after its timeout hands the job back.
            Some((_, sender)) => match sender.send(job) {
                Ok(()) => return Ok(pending),
                Err(returned) => job = returned.0,
            },
            None => {
                let (sender, receiver) = mpsc::channel();
                sender.send(job).expect("the receiver is alive");
                let id = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
                std::thread::Builder::new()
                    .name(format!("executor:{name}"))
                    .spawn(move || serve(id, sender, receiver))?;
                return Ok(pending);
            }
        }
    }
}

/// The most async launches one executor runs at once (each takes a thread).
pub const MAX_RUNNING: usize = 512;

/// Counts the entries of one executor that are running, so that a program
/// cannot make it start threads without end.
pub struct RunningLimit {
    running: Arc<AtomicUsize>,
    limit: usize,
}

impl Default for RunningLimit {
    fn default() -> Self {
        Self::new(MAX_RUNNING)
    }
}

impl RunningLimit {
    pub fn new(limit: usize) -> Self {
        Self {
            running: Arc::new(AtomicUsize::new(0)),
            limit,
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// [`start`], unless `limit` entries started here are still running
    /// (then None).
    pub fn start(
        &self,
        name: &str,
        entry: impl FnOnce() + Send + 'static,
    ) -> Option<std::io::Result<Pending>> {
        let limit = self.limit;
        self.running
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |running| {
                (running < limit).then_some(running + 1)
            })
            .ok()?;
        let running = RunningGuard(Arc::clone(&self.running));
        Some(start(name, move || {
            let _counted_until_it_returns = running;
            entry();
        }))
    }
}

/// Stops counting an entry when dropped: when it returns or panics, or when
/// it could not be started.
struct RunningGuard(Arc<AtomicUsize>);

impl Drop for RunningGuard {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn serve(id: u64, sender: Sender<Job>, receiver: Receiver<Job>) {
    let mut next = receiver.recv().ok();
    while let Some(job) = next.take() {
        job();
        IDLE.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, sender.clone()));
        next = next_job(&receiver).or_else(|| leave_or_wait(id, &receiver));
    }
}

/// The next job, polled for a moment, then waited for until the idle timeout.
fn next_job(receiver: &Receiver<Job>) -> Option<Job> {
    let polled = poll_briefly(|| match receiver.try_recv() {
        Ok(job) => Some(Some(job)),
        Err(TryRecvError::Empty) => None,
        Err(TryRecvError::Disconnected) => Some(None),
    });
    match polled {
        Some(job) => job,
        None => receiver.recv_timeout(IDLE_TIMEOUT).ok(),
    }
}

/// After the idle timeout: leaves the idle list and exits (None), unless a
/// starter has already taken this thread off it, in which case its job is on
/// the way.
fn leave_or_wait(id: u64, receiver: &Receiver<Job>) -> Option<Job> {
    let mut idle = IDLE.lock().unwrap_or_else(PoisonError::into_inner);
    match idle.iter().position(|(idle_id, _)| *idle_id == id) {
        Some(index) => {
            idle.remove(index);
            None
        }
        None => {
            drop(idle);
            receiver.recv().ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{sync::atomic::AtomicUsize, time::Instant};

    #[test]
    fn blocking_entries_run_at_the_same_time() {
        static SPANS: Mutex<Vec<(Instant, Instant)>> = Mutex::new(Vec::new());
        let pending: Vec<Pending> = (0..4)
            .map(|_| {
                start("sleeper", || {
                    let begin = Instant::now();
                    std::thread::sleep(Duration::from_millis(200));
                    SPANS.lock().unwrap().push((begin, Instant::now()));
                })
                .unwrap()
            })
            .collect();
        for pending in pending {
            pending.wait().unwrap();
        }
        // Every entry started before any ended: none waited behind another.
        let spans = SPANS.lock().unwrap();
        let latest_start = spans.iter().map(|span| span.0).max().unwrap();
        let earliest_end = spans.iter().map(|span| span.1).min().unwrap();
        assert_eq!(spans.len(), 4);
        assert!(latest_start < earliest_end);
    }

    #[test]
    fn every_entry_runs_once_and_is_waited_for() {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        for _ in 0..1000 {
            start("counter", || {
                RUNS.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap()
            .wait()
            .unwrap();
        }
        assert_eq!(RUNS.load(Ordering::SeqCst), 1000);
    }

    #[test]
    fn a_panicking_entry_is_reported_to_its_waiter() {
        let pending = start("panics", || panic!("a test entry panics")).unwrap();
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || sender.send(pending.wait()));
        let waited = receiver
            .recv_timeout(Duration::from_secs(10))
            .expect("the wait ends instead of hanging");
        let error = waited.expect_err("a panic is an error").to_string();
        assert!(error.contains("'panics'"), "{error}");
        // The threads still serve the next entry.
        start("returns", || {}).unwrap().wait().unwrap();
    }

    #[test]
    fn entries_past_the_limit_are_refused_until_one_returns() {
        let limit = RunningLimit::new(2);
        let (release, released) = mpsc::channel::<()>();
        let released = Arc::new(Mutex::new(released));
        let blocking = || {
            let released = Arc::clone(&released);
            move || {
                let _ = released.lock().unwrap().recv();
            }
        };
        let first = limit.start("first", blocking()).unwrap().unwrap();
        let second = limit.start("second", blocking()).unwrap().unwrap();
        assert!(limit.start("third", || {}).is_none(), "two are running");
        release.send(()).unwrap();
        release.send(()).unwrap();
        first.wait().unwrap();
        second.wait().unwrap();
        limit
            .start("third", || {})
            .unwrap()
            .unwrap()
            .wait()
            .unwrap();
        // A panicking entry stops counting too.
        let panics = limit.start("panics", || panic!("a test entry panics"));
        assert!(panics.unwrap().unwrap().wait().is_err());
        let both = [
            limit.start("a", || {}).unwrap().unwrap(),
            limit.start("b", || {}).unwrap().unwrap(),
        ];
        for pending in both {
            pending.wait().unwrap();
        }
    }
}
