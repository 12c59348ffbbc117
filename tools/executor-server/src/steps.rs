//! The steps a server measures for each request of a session: what a client
//! that sent `Request::Trace` gets after each response (`Response::Steps`),
//! and what `--trace-dir` writes, a trace file per session.
//!
//! The supervisor measures the handshake and the worker's start or
//! hand-over, and hands them to the worker with the session; the worker
//! measures the rest: each request from when it was read to when its reply
//! was written, and in it the link of an object, the kernel's run and the
//! packing of its results. Times are microseconds on this host's clock,
//! since the Unix epoch.

use std::{
    collections::HashMap,
    path::Path,
    time::{Instant, SystemTime, UNIX_EPOCH},
};

use executor_protocol::{Response, Step};
use executor_runtime::trace::{TraceFile, complete_event, kernel_name, name_event};

/// Now, in microseconds since the Unix epoch.
pub(crate) fn clock_us() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_micros() as u64)
}

/// The step `name` from `started` (an instant of this process) to now.
pub(crate) fn since(name: &str, started: Instant) -> Step {
    let duration_us = started.elapsed().as_micros() as u64;
    Step {
        name: name.to_owned(),
        start_us: clock_us().saturating_sub(duration_us),
        duration_us,
    }
}

/// The supervisor's step of a session given to a worker started for it
/// (up to its hand-over; the worker's own start follows as
/// [`EXECUTOR_START`]).
pub(crate) const WORKER_START: &str = "worker start";
/// The supervisor's step of a session given to a warm worker.
pub(crate) const WARM_HAND_OVER: &str = "hand-over to a warm worker";
/// The worker's step from its start to its executor's being ready.
pub(crate) const EXECUTOR_START: &str = "executor start";

/// The thread of a session's trace file that the supervisor's steps go on,
/// and that of the requests.
const SUPERVISOR_TRACK: i64 = 1;
const REQUEST_TRACK: i64 = 2;
/// The first thread of the tracks of async launches (plus their token).
const ASYNC_TRACKS: i64 = 1000;

/// A worker's steps.
pub(crate) struct Steps {
    /// Whether the client asked for them.
    asked: bool,
    /// The session's trace file, under `--trace-dir`.
    file: Option<TraceFile>,
    /// What the supervisor measured, sent with the first steps.
    handed: Vec<Step>,
    /// Measured for the request being served.
    pending: Vec<Step>,
    /// When the request being served was read.
    request_read: u64,
    /// When each async launch in flight started, and its kernel.
    launched: HashMap<u64, (u64, String)>,
    /// The async launches awaited by the request being served, by token.
    awaited: Vec<(u64, Step)>,
}

impl Steps {
    /// The steps of a session whose supervisor measured `handed`, given to
    /// this worker, whose executor started in `executor_start`; with
    /// `trace_dir`, written to a file there named after this process.
    pub fn new(mut handed: Vec<Step>, executor_start: Step, trace_dir: Option<&Path>) -> Self {
        // A warm worker started long before its session: its start is not
        // the session's.
        if handed.iter().any(|step| step.name == WORKER_START) {
            handed.push(executor_start);
        }
        let file = trace_dir.and_then(|directory| {
            let path = directory.join(format!("session-{}.json", std::process::id()));
            TraceFile::create(&path)
                .inspect_err(|error| {
                    tracing::warn!(path = %path.display(), %error, "cannot write the session's trace");
                })
                .ok()
        });
        let mut steps = Self {
            asked: false,
            file,
            handed: Vec::new(),
            pending: Vec::new(),
            request_read: 0,
            launched: HashMap::new(),
            awaited: Vec::new(),
        };
        // Without a file, what the trace would say is not even formatted:
        // this runs as the session's first request waits.
        if steps.file.is_none() {
            steps.handed = handed;
            return steps;
        }
        let pid = std::process::id();
        steps.write(&[
            name_event(
                "process_name",
                pid,
                0,
                &format!("executor-server worker {pid}"),
            ),
            name_event(
                "thread_name",
                pid,
                SUPERVISOR_TRACK,
                "handshake and hand-over",
            ),
            name_event("thread_name", pid, REQUEST_TRACK, "requests"),
        ]);
        steps.write_steps(&handed, SUPERVISOR_TRACK);
        steps.handed = handed;
        steps
    }

    fn recording(&self) -> bool {
        self.asked || self.file.is_some()
    }

    /// A request was read.
    pub fn request_read(&mut self) {
        if self.recording() {
            self.request_read = clock_us();
        }
    }

    /// Runs `body` as the step `name`.
    pub fn measure<T>(&mut self, name: impl FnOnce() -> String, body: impl FnOnce() -> T) -> T {
        if !self.recording() {
            return body();
        }
        let started = Instant::now();
        let value = body();
        self.pending.push(since(&name(), started));
        value
    }

    /// The async launch `token` of `entry` started now.
    pub fn launched(&mut self, token: u64, entry: &str) {
        if self.recording() {
            let kernel = kernel_name(entry).to_owned();
            self.launched.insert(token, (clock_us(), kernel));
        }
    }

    /// The async launch `token` was awaited: its step, from its start.
    pub fn awaited(&mut self, token: u64) {
        if let Some((start_us, kernel)) = self.launched.remove(&token) {
            let step = Step {
                name: format!("on the server: {kernel}"),
                start_us,
                duration_us: clock_us().saturating_sub(start_us),
            };
            self.awaited.push((token, step));
        }
    }

    /// Answers `Request::Trace`: steps are sent from now on.
    pub fn ask(&mut self) -> Response {
        self.asked = true;
        if self.request_read == 0 {
            self.request_read = clock_us();
        }
        Response::Clock {
            received_us: self.request_read,
            sent_us: clock_us(),
        }
    }

    /// The reply to the request `kind` was written: its steps, as the
    /// message that follows the reply when the client asked for them.
    pub fn served(&mut self, kind: &str) -> Option<Response> {
        if !self.recording() {
            return None;
        }
        let read = std::mem::take(&mut self.request_read);
        let mut steps = vec![Step {
            name: format!("serve {kind}"),
            start_us: read,
            duration_us: clock_us().saturating_sub(read),
        }];
        steps.append(&mut self.pending);
        steps.sort_by_key(|step| step.start_us);
        self.write_steps(&steps, REQUEST_TRACK);
        // An async launch started before the requests since: on a track of
        // its own.
        let pid = std::process::id();
        for (token, step) in std::mem::take(&mut self.awaited) {
            let track = ASYNC_TRACKS + token as i64;
            let name = name_event("thread_name", pid, track, &format!("async launch {token}"));
            self.write(&[name]);
            self.write_steps(std::slice::from_ref(&step), track);
            steps.push(step);
        }
        if !self.asked {
            return None;
        }
        let mut sent = std::mem::take(&mut self.handed);
        sent.append(&mut steps);
        Some(Response::Steps(sent))
    }

    fn write_steps(&mut self, steps: &[Step], tid: i64) {
        let pid = std::process::id();
        let events: Vec<String> = steps
            .iter()
            .map(|step| {
                let start = step.start_us as f64;
                let end = start + step.duration_us as f64;
                complete_event(&step.name, "server", (pid, tid), start, end)
            })
            .collect();
        self.write(&events);
    }

    fn write(&mut self, events: &[String]) {
        if let Some(file) = &mut self.file
            && let Err(error) = file.append(events)
        {
            tracing::warn!(path = %file.path.display(), %error, "cannot write the session's trace: it stops");
            self.file = None;
        }
    }
}
