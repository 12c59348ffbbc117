//! The events of the trace: which track each call goes on, and its JSON.
//!
//! A process track per executor address (`pid`, in the order addresses are
//! first used), and in it a thread track per session (`tid` = the session's
//! handle), one for the spans the server measured for the session
//! ([`SERVER_TRACKS`] + handle), and one per async launch in flight
//! ([`LAUNCH_TRACKS`] + a lane, reused once its launch is awaited). Events
//! of one track are written in the order of their timestamps.

use std::{
    collections::{HashMap, HashSet},
    fmt::Write,
};

/// The first thread id of the tracks of the spans servers measured.
const SERVER_TRACKS: i64 = 1_000_000;
/// The first thread id of the tracks of async launches.
const LAUNCH_TRACKS: i64 = 2_000_000;

/// Which entry point a call is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Open,
    SendBinary,
    Launch,
    LaunchAsync,
    Await,
    Call,
    Close,
}

impl OpKind {
    fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::SendBinary => "send_binary",
            Self::Launch => "launch",
            Self::LaunchAsync => "launch_async",
            Self::Await => "await",
            Self::Call => "call",
            Self::Close => "close",
        }
    }
}

/// One call of an entry point, as the trace records it when it ends.
pub struct Op<'a> {
    pub kind: OpKind,
    /// The executor's address, as the process track names it.
    pub address: String,
    /// The session's handle; none when the call failed before it had one.
    pub session: Option<i64>,
    /// The entry or symbol it runs, or the binary it loads.
    pub symbol: Option<&'a str>,
    pub path: Option<&'a str>,
    /// The bytes it sent and received (a binary's size, a launch's inputs
    /// and results).
    pub bytes: Option<(u64, u64)>,
    /// The token `launch_async` returned, or the one `await` waits for.
    pub token: Option<i64>,
    /// When it started, on the trace's clock ([`super::now`]).
    pub started: f64,
    /// Its one-line failure message.
    pub failure: Option<&'a str>,
}

#[cfg(test)]
impl Op<'static> {
    /// A launch-like call of `_mlir_ciface_k` in `local`'s session 1, of 8
    /// bytes in and 4 out, for the tests of what records ops.
    pub fn for_test(kind: OpKind, token: Option<i64>, started: f64) -> Self {
        Self {
            kind,
            address: "local".into(),
            session: Some(1),
            symbol: Some("_mlir_ciface_k"),
            path: None,
            bytes: Some((8, 4)),
            token,
            started,
            failure: None,
        }
    }
}

/// A step a server measured, on this trace's clock.
#[derive(Clone, Debug, PartialEq)]
pub struct ServerSpan {
    pub name: String,
    pub started: f64,
    pub duration: f64,
    /// The most its place can be off by: the error of the estimate of the
    /// server's clock (`super::clock`).
    pub clock_error: f64,
}

/// An async launch between its start and its await.
struct InFlight {
    pid: u32,
    session: i64,
    lane: usize,
    started: f64,
    kernel: String,
}

#[derive(Default)]
pub struct Timeline {
    processes: HashMap<String, u32>,
    named_threads: HashSet<(u32, i64)>,
    /// Per process, which launch tracks are taken.
    lanes: HashMap<u32, Vec<bool>>,
    in_flight: HashMap<i64, InFlight>,
}

/// A kernel's name: its entry symbol without the C interface's prefix.
pub fn kernel_name(symbol: &str) -> &str {
    symbol.strip_prefix("_mlir_ciface_").unwrap_or(symbol)
}

impl Timeline {
    /// The events of `op`, which ended at `ended`, with the spans its
    /// servers measured.
    pub fn events(&mut self, op: &Op, ended: f64, mut server: Vec<ServerSpan>) -> Vec<String> {
        let mut events = Vec::new();
        let pid = self.process(&op.address, &mut events);
        let tid = op.session.unwrap_or(0);
        let thread_name = match op.session {
            Some(handle) => format!("session {handle}"),
            None => "no session".to_owned(),
        };
        self.thread(pid, tid, &thread_name, &mut events);
        let kernel = op.symbol.map(kernel_name);
        let name = match (op.kind, kernel) {
            (OpKind::Launch | OpKind::LaunchAsync | OpKind::Await, Some(kernel)) => {
                format!("{} {kernel}", op.kind.name())
            }
            _ => op.kind.name().to_owned(),
        };
        let mut args = Vec::new();
        if let Some(symbol) = op.symbol {
            args.push(("symbol", string(symbol)));
        }
        if let Some(path) = op.path {
            args.push(("path", string(path)));
        }
        if let Some((bytes_in, bytes_out)) = op.bytes {
            args.push(("bytes_in", bytes_in.to_string()));
            args.push(("bytes_out", bytes_out.to_string()));
        }
        events.push(complete(
            &name,
            op.kind.name(),
            (pid, tid),
            op.started,
            ended,
            &args,
        ));
        server.sort_by(|a, b| a.started.total_cmp(&b.started));
        match (op.kind, op.token) {
            (OpKind::LaunchAsync, Some(token)) if op.failure.is_none() => {
                events.push(flow("s", token, (pid, tid), op.started));
                let lane = self.take_lane(pid);
                self.in_flight.insert(
                    token,
                    InFlight {
                        pid,
                        session: tid,
                        lane,
                        started: op.started,
                        kernel: kernel.unwrap_or_default().to_owned(),
                    },
                );
                self.server_track(pid, tid, server, &mut events);
            }
            (OpKind::Await, Some(token)) => {
                events.push(flow("f", token, (pid, tid), op.started));
                if let Some(launch) = self.in_flight.remove(&token) {
                    self.finish(launch, ended, server, &mut events);
                }
            }
            (OpKind::Close, _) if op.failure.is_none() => {
                // Close waited for the launches never awaited: they end
                // here, and flow to the close.
                let closed: Vec<i64> = self
                    .in_flight
                    .iter()
                    .filter(|(_, launch)| launch.pid == pid && launch.session == tid)
                    .map(|(token, _)| *token)
                    .collect();
                for token in closed {
                    events.push(flow("f", token, (pid, tid), op.started));
                    let launch = self.in_flight.remove(&token).expect("listed above");
                    self.finish(launch, ended, Vec::new(), &mut events);
                }
                self.server_track(pid, tid, server, &mut events);
            }
            _ => self.server_track(pid, tid, server, &mut events),
        }
        if let Some(message) = op.failure {
            events.push(format!(
                "{{\"ph\":\"i\",\"s\":\"t\",\"name\":\"failure\",\"cat\":\"failure\",\"pid\":{pid},\
                 \"tid\":{tid},\"ts\":{ended:.3},\"args\":{{\"message\":{}}}}}",
                string(message)
            ));
        }
        events
    }

    /// The span of an async launch from its start to `ended`, on its own
    /// track with the steps its server measured; its track is free again.
    fn finish(
        &mut self,
        launch: InFlight,
        ended: f64,
        server: Vec<ServerSpan>,
        events: &mut Vec<String>,
    ) {
        let track = (launch.pid, LAUNCH_TRACKS + launch.lane as i64);
        self.thread(
            track.0,
            track.1,
            &format!("async launch {}", launch.lane),
            events,
        );
        let span = format!("in flight: {}", launch.kernel);
        let mut spans = vec![(
            launch.started,
            complete(&span, "async", track, launch.started, ended, &[]),
        )];
        // The server's steps are placed within their clock's error: one may
        // start a little before the launch's span as this trace sees it.
        spans.extend(
            server
                .iter()
                .map(|step| (step.started, server_complete(step, track))),
        );
        spans.sort_by(|a, b| a.0.total_cmp(&b.0));
        events.extend(spans.into_iter().map(|(_, event)| event));
        self.lanes.entry(launch.pid).or_default()[launch.lane] = false;
    }

    /// At exit: the launches still in flight end now, each flowing to the
    /// end of its own span.
    pub fn unfinished(&mut self, ended: f64) -> Vec<String> {
        let mut events = Vec::new();
        let mut tokens: Vec<i64> = self.in_flight.keys().copied().collect();
        tokens.sort_unstable();
        for token in tokens {
            let launch = self.in_flight.remove(&token).expect("listed above");
            let track = (launch.pid, LAUNCH_TRACKS + launch.lane as i64);
            self.finish(launch, ended, Vec::new(), &mut events);
            events.push(flow("f", token, track, ended));
        }
        events
    }

    /// The spans a server measured for a call of session `tid`, on the
    /// session's server track.
    fn server_track(
        &mut self,
        pid: u32,
        tid: i64,
        server: Vec<ServerSpan>,
        events: &mut Vec<String>,
    ) {
        if server.is_empty() {
            return;
        }
        let track = (pid, SERVER_TRACKS + tid);
        self.thread(
            pid,
            track.1,
            &format!("session {tid} on the server"),
            events,
        );
        for step in server {
            events.push(server_complete(&step, track));
        }
    }

    fn process(&mut self, address: &str, events: &mut Vec<String>) -> u32 {
        if let Some(pid) = self.processes.get(address) {
            return *pid;
        }
        let pid = self.processes.len() as u32 + 1;
        self.processes.insert(address.to_owned(), pid);
        events.push(metadata("process_name", (pid, 0), address));
        events.push(format!(
            "{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{pid},\"tid\":0,\
             \"args\":{{\"sort_index\":{pid}}}}}"
        ));
        pid
    }

    fn thread(&mut self, pid: u32, tid: i64, name: &str, events: &mut Vec<String>) {
        if self.named_threads.insert((pid, tid)) {
            events.push(metadata("thread_name", (pid, tid), name));
        }
    }

    fn take_lane(&mut self, pid: u32) -> usize {
        let lanes = self.lanes.entry(pid).or_default();
        match lanes.iter().position(|taken| !taken) {
            Some(lane) => {
                lanes[lane] = true;
                lane
            }
            None => {
                lanes.push(true);
                lanes.len() - 1
            }
        }
    }
}

/// A metadata event that names a process or thread (`kind`:
/// `process_name`, `thread_name`).
pub fn name_event(kind: &str, pid: u32, tid: i64, value: &str) -> String {
    metadata(kind, (pid, tid), value)
}

/// A complete event (a span) of category `category` on the track `(pid,
/// tid)`, from `started` to `ended` (microseconds).
pub fn complete_event(
    name: &str,
    category: &str,
    track: (u32, i64),
    started: f64,
    ended: f64,
) -> String {
    complete(name, category, track, started, ended, &[])
}

fn metadata(name: &str, (pid, tid): (u32, i64), value: &str) -> String {
    format!(
        "{{\"ph\":\"M\",\"name\":\"{name}\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":{}}}}}",
        string(value)
    )
}

fn complete(
    name: &str,
    category: &str,
    (pid, tid): (u32, i64),
    started: f64,
    ended: f64,
    args: &[(&str, String)],
) -> String {
    let mut event = format!(
        "{{\"ph\":\"X\",\"name\":{},\"cat\":\"{category}\",\"pid\":{pid},\"tid\":{tid},\
         \"ts\":{started:.3},\"dur\":{:.3}",
        string(name),
        (ended - started).max(0.0)
    );
    if !args.is_empty() {
        let fields: Vec<String> = args
            .iter()
            .map(|(key, value)| format!("\"{key}\":{value}"))
            .collect();
        let _ = write!(event, ",\"args\":{{{}}}", fields.join(","));
    }
    event.push('}');
    event
}

fn server_complete(step: &ServerSpan, track: (u32, i64)) -> String {
    complete(
        &step.name,
        "server",
        track,
        step.started,
        step.started + step.duration,
        &[("clock_error_us", format!("{:.3}", step.clock_error))],
    )
}

fn flow(phase: &str, id: i64, (pid, tid): (u32, i64), ts: f64) -> String {
    let binding = if phase == "f" { ",\"bp\":\"e\"" } else { "" };
    format!(
        "{{\"ph\":\"{phase}\",\"name\":\"launch_async\",\"cat\":\"async\",\"id\":{id},\
         \"pid\":{pid},\"tid\":{tid},\"ts\":{ts:.3}{binding}}}"
    )
}

/// `text` as a JSON string.
fn string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    if !text
        .bytes()
        .any(|byte| byte < 0x20 || byte == b'"' || byte == b'\\')
    {
        quoted.push_str(text);
        quoted.push('"');
        return quoted;
    }
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            character if u32::from(character) < 0x20 => {
                let _ = write!(quoted, "\\u{:04x}", u32::from(character));
            }
            character => quoted.push(character),
        }
    }
    quoted.push('"');
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\u0001\"");
    }

    #[test]
    fn async_launches_take_a_free_lane_and_flow_to_their_await() {
        let mut timeline = Timeline::default();
        let first = timeline.events(
            &Op::for_test(OpKind::LaunchAsync, Some(7), 1.0),
            2.0,
            Vec::new(),
        );
        assert!(
            first
                .iter()
                .any(|event| event.contains("\"ph\":\"s\",") && event.contains("\"id\":7"))
        );
        timeline.events(
            &Op::for_test(OpKind::LaunchAsync, Some(8), 3.0),
            4.0,
            Vec::new(),
        );
        let server = vec![ServerSpan {
            name: "run".into(),
            started: 5.0,
            duration: 1.0,
            clock_error: 0.5,
        }];
        let awaited = timeline.events(&Op::for_test(OpKind::Await, Some(8), 9.0), 10.0, server);
        let on_lane_1 = format!("\"tid\":{}", LAUNCH_TRACKS + 1);
        let lane_events: Vec<&String> = awaited.iter().filter(|e| e.contains(&on_lane_1)).collect();
        // Its name, its span from start to await, and the server's step.
        assert_eq!(lane_events.len(), 3, "{awaited:?}");
        assert!(
            lane_events[1].contains("\"ts\":3.000,\"dur\":7.000"),
            "{awaited:?}"
        );
        assert!(
            awaited
                .iter()
                .any(|e| e.contains("\"ph\":\"f\"") && e.contains("\"id\":8"))
        );
        // Lane 1 is free again; lane 0 is still taken.
        let next = timeline.events(
            &Op::for_test(OpKind::LaunchAsync, Some(9), 11.0),
            12.0,
            Vec::new(),
        );
        assert!(next.iter().all(|e| !e.contains("\"tid\":2000000")));
        assert_eq!(timeline.in_flight[&9].lane, 1);
    }
}
