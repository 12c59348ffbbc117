//! The timeline trace and the summary at exit.
//!
//! `EXECUTOR_TRACE=FILE` writes every call of the C entry points to `FILE` in
//! the Trace Event Format (the JSON that Perfetto and `chrome://tracing`
//! open): a process track per executor address, a thread track per session
//! and per async launch in flight, a complete event per call, an instant
//! event per failure, and a flow from each `launch_async` to its `await`.
//! Spans a server measured come with its replies (`crate::remote`) and go on
//! a track of their own, or on their async launch's. `EXECUTOR_STATS=1`
//! prints a table of the launches at exit ([`stats`]).
//!
//! Either one sets [`active`], which the launch fast path checks: a traced
//! launch takes the general path.

mod clock;
mod file;
mod stats;
mod timeline;

use std::{
    cell::RefCell,
    path::Path,
    sync::{
        Mutex, MutexGuard, OnceLock, PoisonError,
        atomic::{AtomicBool, Ordering},
    },
    time::Instant,
};

pub use clock::ServerClock;
pub use file::TraceFile;
use stats::Stats;
use timeline::Timeline;
pub use timeline::{Op, OpKind, ServerSpan, complete_event, kernel_name, name_event};

/// The environment variable naming the trace file.
pub const TRACE_ENV: &str = "EXECUTOR_TRACE";
/// The environment variable that, set to `1`, prints the summary at exit.
pub const STATS_ENV: &str = "EXECUTOR_STATS";

static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Whether calls are traced or counted: one load, for the launch fast path.
#[inline(always)]
pub fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// Whether the trace file is written (servers' spans are asked for then).
pub fn tracing_to_file() -> bool {
    active()
        && recorder()
            .as_ref()
            .is_some_and(|recorder| recorder.file.is_some())
}

struct Recorder {
    file: Option<TraceFile>,
    timeline: Timeline,
    stats: Option<Stats>,
}

static RECORDER: Mutex<Option<Recorder>> = Mutex::new(None);
static EPOCH: OnceLock<Instant> = OnceLock::new();

fn recorder() -> MutexGuard<'static, Option<Recorder>> {
    RECORDER.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Microseconds since the trace began: its timestamps.
pub fn now() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e6
}

/// Starts the trace and the summary the environment asks for; called once,
/// at the first call of the runtime. An unwritable trace file is reported
/// on one line, and the program runs on untraced.
pub fn init_from_env() {
    let path = std::env::var_os(TRACE_ENV).filter(|path| !path.is_empty());
    let stats = std::env::var_os(STATS_ENV).is_some_and(|value| value == "1");
    if let Some(path) = path {
        start_trace(Path::new(&path));
    }
    if stats {
        enable_stats();
    }
}

fn start_trace(path: &Path) {
    match TraceFile::create(path) {
        Ok(file) => {
            now();
            with_recorder(|recorder| recorder.file = Some(file));
        }
        Err(error) => eprintln!(
            "executor runtime: cannot write the trace file {} ({TRACE_ENV}): {error}; running \
             untraced",
            path.display()
        ),
    }
}

/// Prints the summary of the launches at exit (`executor-run --stats`).
pub fn enable_stats() {
    now();
    with_recorder(|recorder| {
        recorder.stats.get_or_insert_with(Stats::default);
    });
}

fn with_recorder(body: impl FnOnce(&mut Recorder)) {
    let mut recorder = recorder();
    body(recorder.get_or_insert_with(|| Recorder {
        file: None,
        timeline: Timeline::default(),
        stats: None,
    }));
    ACTIVE.store(true, Ordering::Relaxed);
}

thread_local! {
    /// What the servers this thread's call talked to measured, already on
    /// this trace's clock: taken by the call's [`record`].
    static SERVER_SPANS: RefCell<Vec<ServerSpan>> = const { RefCell::new(Vec::new()) };
}

/// Adds spans a server measured for the call this thread is in.
pub fn add_server_spans(spans: impl IntoIterator<Item = ServerSpan>) {
    SERVER_SPANS.with_borrow_mut(|pending| pending.extend(spans));
}

/// Records one call that ends now: its span, its failure if it failed, and
/// for a launch its row in the summary.
pub fn record(op: &Op) {
    let ended = now();
    let server_spans = SERVER_SPANS.with_borrow_mut(std::mem::take);
    let mut recorder = recorder();
    let Some(recorder) = recorder.as_mut() else {
        return;
    };
    if let Some(stats) = &mut recorder.stats
        && op.failure.is_none()
    {
        stats.record(op, ended);
    }
    let Some(file) = &mut recorder.file else {
        return;
    };
    let events = recorder.timeline.events(op, ended, server_spans);
    if let Err(error) = file.append(&events) {
        eprintln!(
            "executor runtime: cannot write the trace file {} ({TRACE_ENV}): {error}; tracing \
             stops",
            file.path.display()
        );
        recorder.file = None;
    }
}

/// At exit, after the sessions closed: ends the spans of the launches
/// still in flight, and prints the summary if asked for.
pub fn at_exit() {
    let ended = now();
    let mut recorder = recorder();
    let Some(recorder) = recorder.as_mut() else {
        return;
    };
    if let Some(file) = &mut recorder.file {
        let events = recorder.timeline.unfinished(ended);
        // Nothing to say about a failure now: the program is ending.
        let _ = file.append(&events);
    }
    if let Some(stats) = &mut recorder.stats {
        stats.unfinished(ended);
        eprint!("executor launches:\n{}", stats.table());
    }
}
