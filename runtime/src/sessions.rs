//! The process-wide table of open sessions and of async launches in flight,
//! behind the integer handles the C ABI hands out, and its generation: the
//! epoch under which launch sites cache what they resolved.
//!
//! Session handles are never reused, and an object's code stays where it is
//! while its session is open: so a cached entry is good until a session
//! closes.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex, MutexGuard, Once, OnceLock, PoisonError,
        atomic::{AtomicBool, AtomicU64, Ordering},
        mpsc,
    },
    time::Duration,
};

use crate::{
    address::Address,
    config::{self, LaunchTimeout},
    error::{Result, RuntimeError},
    executor::Executor,
    local::LocalExecutor,
    remote::RemoteExecutor,
};

/// An open session: where it goes, what runs it, and how long its kernels
/// may take. Shared: a call holds on to its session for its report line.
pub struct Session {
    pub address: Address,
    pub executor: Arc<dyn Executor>,
    pub launch_timeout: Option<LaunchTimeout>,
}

impl Session {
    /// The embedded executor behind this session, if it is one (whose
    /// launches may take the fast path of the C entry points).
    pub fn local(&self) -> Option<&LocalExecutor> {
        let executor: &dyn std::any::Any = self.executor.as_ref();
        executor.downcast_ref()
    }
}

/// An async launch in flight.
struct AsyncLaunch {
    session: i64,
    /// The executor's own token for it.
    executor_token: u64,
    entry: String,
}

#[derive(Default)]
struct Table {
    sessions: HashMap<i64, Arc<Session>>,
    /// The session `open` returns for each address: the latest one opened
    /// there (an ended one stays in `sessions` until it is closed).
    by_address: HashMap<Address, i64>,
    /// Async launches in flight, by token.
    launches: HashMap<i64, AsyncLaunch>,
    last_handle: i64,
}

static TABLE: Mutex<Option<Table>> = Mutex::new(None);

/// The generation of the session table, the epoch of every cached launch
/// site: bumped whenever a session leaves the table, so that a site cached
/// under an older value is stale. It starts at 1, so that an empty launch site (all zeros) is stale.
static GENERATION: AtomicU64 = AtomicU64::new(1);

/// Makes every cached site, of every thread and every launch site, stale.
pub fn invalidate_cached_sites() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// The current generation. A launch reads it before it looks its session up,
/// and caches what it resolves under that value: a session closed after that
/// makes the entry stale at once.
#[inline]
pub fn generation() -> u64 {
    GENERATION.load(Ordering::Acquire)
}

/// Serializes the unit tests that bump the generation or depend on it not
/// moving.
#[cfg(test)]
pub fn generation_test_lock() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn table() -> MutexGuard<'static, Option<Table>> {
    TABLE.lock().unwrap_or_else(PoisonError::into_inner)
}

fn with_table<T>(body: impl FnOnce(&mut Table) -> T) -> T {
    body(table().get_or_insert_with(Table::default))
}

impl Table {
    fn next_handle(&mut self) -> i64 {
        self.last_handle += 1;
        self.last_handle
    }
}

/// Opens a session with the executor at `address`, or returns the one already
/// open there: `open` is idempotent per address, unless that session has
/// ended (its server restarted, say), when a new one is opened.
pub fn open(address: &str) -> Result<i64> {
    let address = config::parse_address(address)?;
    close_all_at_exit()?;
    let current = with_table(|table| {
        let handle = *table.by_address.get(&address)?;
        Some((handle, Arc::clone(&table.sessions.get(&handle)?.executor)))
    });
    let ended = match current {
        // Asked outside the table's lock: it may look at the connection.
        Some((handle, executor)) if !executor.has_ended() => return Ok(handle),
        Some((handle, _)) => Some(handle),
        None => None,
    };
    if let Some(handle) = ended {
        tracing::info!(%address, handle, "the session there has ended: opening a new one");
    }
    let settings = config::settings_for(&address)?;
    // Connecting may take a while: not under the lock.
    let executor: Arc<dyn Executor> = match &settings.target {
        Address::Local { .. } => {
            // Kernels run in this process from now on: one that crashes is
            // reported in one line.
            crate::local::report_kernel_crashes();
            Arc::new(LocalExecutor::new()?)
        }
        target => Arc::new(RemoteExecutor::connect_with(
            &target.to_string(),
            &settings.connect,
        )?),
    };
    Ok(with_table(|table| {
        // Another thread may have opened one meanwhile.
        if let Some(handle) = table.by_address.get(&address)
            && Some(*handle) != ended
        {
            return *handle;
        }
        let handle = table.next_handle();
        table.by_address.insert(address.clone(), handle);
        let session = Session {
            address,
            executor,
            launch_timeout: settings.launch_timeout,
        };
        table.sessions.insert(handle, Arc::new(session));
        handle
    }))
}

pub fn get(handle: i64) -> Result<Arc<Session>> {
    with_table(|table| table.sessions.get(&handle).cloned()).ok_or(RuntimeError::BadSession(handle))
}

/// Forgets the session; the caller then closes its executor. Also returns
/// the entries of its async launches never awaited, in the order they
/// started: closing waits for them.
pub fn remove(handle: i64) -> Result<(Arc<Session>, Vec<String>)> {
    with_table(|table| {
        let session = table
            .sessions
            .remove(&handle)
            .ok_or(RuntimeError::BadSession(handle))?;
        if table.by_address.get(&session.address) == Some(&handle) {
            table.by_address.remove(&session.address);
        }
        let mut unawaited: Vec<(i64, String)> = Vec::new();
        table.launches.retain(|token, launch| {
            let of_session = launch.session == handle;
            if of_session {
                unawaited.push((*token, std::mem::take(&mut launch.entry)));
            }
            !of_session
        });
        unawaited.sort_unstable();
        invalidate_cached_sites();
        Ok((
            session,
            unawaited.into_iter().map(|(_, entry)| entry).collect(),
        ))
    })
}

/// Records an async launch of `entry` on `session`; returns its token.
pub fn add_launch(session: i64, executor_token: u64, entry: &str) -> i64 {
    with_table(|table| {
        let token = table.next_handle();
        let launch = AsyncLaunch {
            session,
            executor_token,
            entry: entry.to_owned(),
        };
        table.launches.insert(token, launch);
        token
    })
}

/// Takes the launch behind `token` (a token is awaited once): its session's
/// handle, the executor's token and its entry.
pub fn take_launch(token: i64) -> Result<(i64, u64, String)> {
    let launch =
        with_table(|table| table.launches.remove(&token)).ok_or(RuntimeError::BadToken(token))?;
    Ok((launch.session, launch.executor_token, launch.entry))
}

/// Set once the program is ending on a failure it has reported.
static FAILURE_REPORTED: AtomicBool = AtomicBool::new(false);

/// The program ends on a failure whose line is printed: a session that failed
/// with it fails to close as well, which says nothing new.
pub fn failure_reported() {
    FAILURE_REPORTED.store(true, Ordering::Relaxed);
}

/// How long the process waits at exit for one session's outstanding launches,
/// unless `EXECUTOR_EXIT_TIMEOUT_MS` says otherwise.
const EXIT_TIMEOUT: Duration = Duration::from_secs(30);

/// The exit timeout, read with the first `open` (which fails on a value that
/// is not one, rather than the exit ignoring it).
static EXIT_TIMEOUT_SET: OnceLock<std::result::Result<Duration, String>> = OnceLock::new();

/// Arranges, once per process, that the sessions still open when the program
/// exits are closed as Catalyst's runtime closes them: each waits for its
/// outstanding async launches (for at most the exit timeout), then ends.
fn close_all_at_exit() -> Result<()> {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // SAFETY: registers a function without arguments that lives as long
        // as the process (the runtime is never unloaded before exit).
        if unsafe { libc::atexit(close_open_sessions) } != 0 {
            tracing::warn!("cannot register the closing of sessions at exit");
        }
    });
    exit_timeout().map(drop)
}

extern "C" fn close_open_sessions() {
    // An exit from a binary's load-time code (a constructor), or from a
    // call it made: its session is in the middle of loading it and cannot
    // be closed. A load that linked another object ran that object's
    // constructors inside it: the innermost load is the one whose code
    // exited.
    if let Some(file) = crate::local::crash::files_being_loaded().last() {
        // Unless the exit is the runtime's own, on a failure of a call that
        // code made, which its line reported.
        if !FAILURE_REPORTED.load(Ordering::Relaxed) {
            eprintln!(
                "executor runtime: loading '{file}' ended the program: its load-time code (a \
                 constructor) called exit"
            );
        }
        // SAFETY: _exit ends the process at once, which is what is wanted:
        // not the other exit handlers, which could wait on the load as well.
        unsafe { libc::_exit(1) };
    }
    // A panic must not unwind into libc's exit.
    let _ = std::panic::catch_unwind(|| {
        let open: Vec<Arc<Session>> = with_table(|table| {
            invalidate_cached_sites();
            table.launches.clear();
            table.by_address.clear();
            table.sessions.drain().map(|(_, session)| session).collect()
        });
        let timeout = exit_timeout().unwrap_or(EXIT_TIMEOUT);
        for session in open {
            close_within(session, timeout);
        }
        crate::trace::at_exit();
    });
}

fn exit_timeout() -> Result<Duration> {
    EXIT_TIMEOUT_SET
        .get_or_init(|| {
            config::exit_timeout_from_env()
                .map(|set| set.unwrap_or(EXIT_TIMEOUT))
                .map_err(|error| error.to_string())
        })
        .clone()
        .map_err(RuntimeError::Config)
}

/// Closes `session`, waiting at most `timeout`; says so in one line when it
/// does not finish in time or fails.
fn close_within(session: Arc<Session>, timeout: Duration) {
    let (done, finished) = mpsc::channel();
    let executor = Arc::clone(&session.executor);
    let closing = std::thread::Builder::new()
        .name("executor-exit".into())
        .spawn(move || {
            let _ = done.send(executor.close());
        });
    let outcome = match closing {
        Ok(_) => finished.recv_timeout(timeout),
        Err(error) => Ok(Err(RuntimeError::NoThread {
            purpose: "a thread to close it".to_owned(),
            cause: Arc::new(error),
        })),
    };
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(_)) if FAILURE_REPORTED.load(Ordering::Relaxed) => {}
        Ok(Err(error)) => eprintln!(
            "executor runtime: at exit, closing the session with {}: {error}",
            session.address
        ),
        Err(_) => eprintln!(
            "executor runtime: at exit, the session with {} still had launches running after {} ms (EXECUTOR_EXIT_TIMEOUT_MS); exiting without them",
            session.address,
            timeout.as_millis()
        ),
    }
}
