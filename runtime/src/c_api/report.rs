//! How a C entry point fails: one line naming the function, the address and
//! the symbol or path, then exit code 1. Also what every entry point does
//! first (logging, crash reports) and the debug line it logs per call.

use std::{
    borrow::Cow,
    fmt,
    panic::{AssertUnwindSafe, catch_unwind},
    sync::{Arc, Once},
    time::{Duration, Instant},
};

use crate::{
    deadline::{self, ArmedDeadline},
    error::Result,
    sessions::{self, Session},
    trace::{self, OpKind},
};

/// The target of the line `EXECUTOR_LOG=debug` logs for each call. The launch
/// fast path, which logs nothing, runs only while this target's debug lines are
/// off: a filter that names this target (`executor_runtime::calls=debug`) then
/// logs every launch, as `debug` does.
pub const CALL_LOG_TARGET: &str = "executor_runtime::calls";

/// Where a failing call came from, for its one-line message.
pub struct Call<'a> {
    function: &'static str,
    /// The session the call uses, whose address its report line names.
    pub session: Option<Arc<Session>>,
    /// The address as the program spelled it, for a call without a session.
    pub address: Option<&'a str>,
    /// The entry or symbol the call runs.
    pub symbol: Option<Cow<'a, str>>,
    /// The binary the call loads.
    pub path: Option<&'a str>,
    /// The session's handle, for the trace.
    pub handle: Option<i64>,
    /// The bytes the call sent and received, for the trace (set only while
    /// `trace::active()`).
    pub bytes: Option<(u64, u64)>,
    /// The async launch's token, for the trace.
    pub token: Option<i64>,
}

impl<'a> Call<'a> {
    pub fn new(function: &'static str) -> Self {
        init_host_process();
        Self {
            function,
            session: None,
            address: None,
            symbol: None,
            path: None,
            handle: None,
            bytes: None,
            token: None,
        }
    }

    pub fn session(&mut self, handle: i64) -> Result<Arc<Session>> {
        self.handle = Some(handle);
        let session = sessions::get(handle)?;
        self.session = Some(Arc::clone(&session));
        Ok(session)
    }

    /// The address the call goes to, if it has one yet.
    fn address(&self) -> Option<String> {
        match (&self.session, self.address) {
            (Some(session), _) => Some(session.address.to_string()),
            (None, address) => address.map(str::to_owned),
        }
    }

    /// Runs `body`; on failure reports and exits.
    pub fn run<T>(mut self, body: impl FnOnce(&mut Self) -> Result<T>) -> T {
        // The clock is read (and the address written out) only for the log.
        let started =
            tracing::enabled!(target: CALL_LOG_TARGET, tracing::Level::DEBUG).then(Instant::now);
        let traced = trace::active().then(trace::now);
        let outcome = catch_unwind(AssertUnwindSafe(|| body(&mut self)));
        if let Some(started) = started {
            tracing::debug!(
                target: CALL_LOG_TARGET,
                function = self.function,
                address = self.address().unwrap_or_default(),
                symbol = self.symbol.as_deref().unwrap_or(""),
                path = self.path.unwrap_or(""),
                elapsed_us = %Microseconds(started.elapsed()),
                "executor call"
            );
        }
        let message = match &outcome {
            Ok(Ok(_)) => None,
            Ok(Err(error)) => Some(error.to_string()),
            Err(panic) => {
                let message = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown panic");
                Some(format!("internal error: {message}"))
            }
        };
        if let Some(started) = traced {
            self.record(started, message.as_deref());
        }
        match (outcome, message) {
            (Ok(Ok(value)), _) => value,
            (_, message) => self.fail(&message.unwrap_or_default()),
        }
    }

    /// Records this call, which started at `started`, in the trace and the
    /// summary.
    fn record(&self, started: f64, failure: Option<&str>) {
        let kind = match self.function {
            "__catalyst__executor__open" => OpKind::Open,
            "__catalyst__executor__send_binary" => OpKind::SendBinary,
            "__catalyst__executor__launch_async" => OpKind::LaunchAsync,
            "__catalyst__executor__await" => OpKind::Await,
            "__catalyst__executor__call_wrapper" => OpKind::Call,
            "__catalyst__executor__close" => OpKind::Close,
            _ => OpKind::Launch,
        };
        let line = failure.map(|message| self.line(message));
        trace::record(&trace::Op {
            kind,
            address: self.address().unwrap_or_else(|| "unknown".to_owned()),
            session: self.handle,
            symbol: self.symbol.as_deref(),
            path: self.path,
            bytes: self.bytes,
            token: self.token,
            started,
            failure: line.as_deref(),
        });
    }

    fn fail(&self, message: &str) -> ! {
        eprintln!("{}", self.line(message));
        // The fault has its line: closing the sessions at exit adds none.
        sessions::failure_reported();
        std::process::exit(1)
    }

    /// The one line that reports `message` about this call.
    fn line(&self, message: &str) -> String {
        let mut context = Vec::new();
        if let Some(address) = self.address() {
            context.push(format!("address {address}"));
        }
        if let Some(symbol) = &self.symbol {
            context.push(format!("symbol {symbol}"));
        }
        if let Some(path) = self.path {
            context.push(format!("path {path}"));
        }
        format!(
            "executor runtime: {}({}): {message}",
            self.function,
            context.join(", ")
        )
    }

    /// With a launch timeout for `session`'s address, ends the program with
    /// this call's line unless the returned guard is dropped within that
    /// time: taken just before the call waits for its kernel.
    pub fn deadline(&self, session: &Session) -> Result<Option<ArmedDeadline>> {
        self.deadline_saying(session, |limit| {
            format!("the kernel did not finish within {limit}")
        })
    }

    /// [`Call::deadline`], whose line is `describe`d given the limit ("300
    /// ms (EXECUTOR_LAUNCH_TIMEOUT_MS)").
    pub fn deadline_saying(
        &self,
        session: &Session,
        describe: impl FnOnce(&str) -> String,
    ) -> Result<Option<ArmedDeadline>> {
        let Some(timeout) = &session.launch_timeout else {
            return Ok(None);
        };
        let limit = format!("{} ms ({})", timeout.duration.as_millis(), timeout.origin);
        let message = self.line(&describe(&limit));
        deadline::arm(timeout.duration, message).map(Some)
    }
}

/// A duration as the debug log shows it: microseconds with one decimal, as
/// precise as a timing that includes the logging itself can be.
struct Microseconds(Duration);

impl fmt::Display for Microseconds {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{:.1}", self.0.as_secs_f64() * 1e6)
    }
}

/// Sets up the host process on the first call: logging and tracing. (The
/// handlers that report kernels crashing the embedded executor come with the
/// first `local` session, `sessions::open`: a program that runs its kernels
/// on servers does without them.)
fn init_host_process() {
    static LOGGING: Once = Once::new();
    LOGGING.call_once(|| {
        trace::init_from_env();
        super::logging::init();
    });
}
