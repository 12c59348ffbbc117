//! The runtime's errors. At the C ABI each one becomes a single line naming the
//! function, the address and the symbol or path, and the program exits non-zero.
//!
//! An error's message is that whole line, its cause included: the C ABI
//! prints the message alone. A cause is still kept typed in its variant
//! (`cause`, an `io::Error` or a `ProtocolError`, so its kind can be matched),
//! but not as `Error::source`, so that a printer of error chains (anyhow's
//! `{:#}`) does not print it twice.

use std::{io, sync::Arc};

use thiserror::Error;

use executor_abi::{BinaryFormat, address::ADDRESS_FORMS};

#[derive(Debug, Error)]
pub enum RuntimeError {
    #[error("invalid executor address '{0}': expected {forms}", forms = ADDRESS_FORMS)]
    InvalidAddress(String),
    #[error("no open session with handle {0}")]
    BadSession(i64),
    #[error("no launch in flight with token {0} (already awaited, or never issued)")]
    BadToken(i64),
    #[error(
        "unknown binary format {0}: 0 is a relocatable object file, 1 an asset, 2 a shared library"
    )]
    UnknownFormat(u32),
    #[error("cannot read '{path}': {cause}")]
    Unreadable { path: String, cause: io::Error },
    /// `path` is the binary's name in the program (`executor.send_binary`'s
    /// path), wherever an executor stored its bytes.
    #[error("cannot load {format} '{path}': {reason}")]
    LoadFailed {
        format: BinaryFormat,
        path: String,
        reason: String,
    },
    /// The binary's ELF header names another machine than the executor's
    /// triple (`runtime/src/machine.rs`).
    #[error("the {format} is for {binary}, the executor runs {executor}")]
    WrongMachine {
        format: BinaryFormat,
        binary: String,
        executor: String,
    },
    #[error("cannot start the JIT: {0}")]
    JitUnavailable(String),
    #[error(
        "'{spelling}' is the file '{canonical}', whose path is not UTF-8: sessions name each \
         file by its path, and that one cannot be told from others"
    )]
    NonUtf8Path { spelling: String, canonical: String },
    /// The session was used by code it was running for it: a binary's
    /// constructor or destructor, while the session loads or closes it.
    #[error(
        "the session is busy running its binaries' constructors or destructors, which \
         called it: load-time code and destructors cannot use their own session"
    )]
    SessionBusy,
    #[error("object '{0}' was not sent to this session (executor.send_binary)")]
    ObjectNotLoaded(String),
    #[error(
        "'{0}' was sent as an asset (format 1), which is stored, not loaded: it has no code to launch"
    )]
    NotCode(String),
    #[error("no symbol '{symbol}' in {place}")]
    SymbolNotFound { symbol: String, place: String },
    /// The entry is the C-interface wrapper of a function that is there, but
    /// was compiled without the attribute that generates the wrapper.
    #[error(
        "no symbol '{symbol}' in {place}, though '{kernel}' is there: the kernel lacks the \
         llvm.emit_c_interface attribute, which generates the '{symbol}' wrapper that launches call"
    )]
    MissingCInterface {
        symbol: String,
        kernel: String,
        place: String,
    },
    #[error("cannot link '{symbol}': {reason}")]
    LinkFailed { symbol: String, reason: String },
    #[error("{0}")]
    BadArguments(String),
    /// A thread the runtime needs (`purpose` says for what) cannot be
    /// started: the process is out of threads or memory.
    #[error("cannot start {purpose}: {cause}")]
    NoThread {
        purpose: String,
        cause: Arc<io::Error>,
    },
    #[error("out of memory for {bytes} result bytes")]
    OutOfMemory { bytes: usize },
    #[error(transparent)]
    MalformedCallBuffer(#[from] executor_buffers::packed::MalformedCallBuffer),
    /// A wrapper function (Catalyst's layout) returned an error message.
    #[error("the called function reported: {0}")]
    CallFailed(String),
    /// An environment variable the runtime reads has a value it cannot use.
    #[error("invalid {variable} '{value}': expected {expected}")]
    InvalidSetting {
        variable: &'static str,
        value: String,
        expected: &'static str,
    },
    /// The configuration file (`EXECUTOR_CONFIG`) or a file it names cannot
    /// be used; the message names the file and the line.
    #[error("{0}")]
    Config(String),
    #[error("kernel '{symbol}' crashed with signal {signal} ({name})")]
    KernelCrashed {
        symbol: String,
        signal: i32,
        name: String,
    },
    /// A server's worker died of a signal while loading the file at `path`
    /// (its constructors, or the linker).
    #[error("loading '{path}' crashed with signal {signal} ({name})")]
    LoadCrashed {
        path: String,
        signal: i32,
        name: String,
    },
    /// A server's worker died of a signal as the session closed, in the
    /// destructors of the binary `object` (as it told its server:
    /// [`destructors_of`]).
    #[error("the destructors of '{object}' crashed with signal {signal} ({name})")]
    DestructorsCrashed {
        object: String,
        signal: i32,
        name: String,
    },
    /// The worker process of a server's session was killed (by a signal no
    /// kernel raised: the OOM killer, an operator), while `running` ran, if
    /// anything did.
    #[error("the executor's worker at {address} was killed by signal {signal} ({name}){}",
        running.as_ref().map(|symbol| format!(" while running '{symbol}'")).unwrap_or_default())]
    WorkerKilled {
        address: String,
        signal: i32,
        name: String,
        running: Option<String>,
    },
    #[error("the async launch of '{0}' panicked (its message is on the executor's stderr)")]
    AsyncLaunchPanicked(String),
    #[error(
        "cannot start '{entry}': {limit} async launches of this session are running, the most \
         an executor runs at once (each takes a thread); await some first"
    )]
    TooManyAsyncLaunches { entry: String, limit: usize },
    #[error("cannot reach executor at {address}: {reason}")]
    Unreachable { address: String, reason: String },
    /// The executor broke the protocol: a reply of the wrong kind or
    /// version.
    #[error("executor protocol error: {0}")]
    Protocol(String),
    /// A frame could not be read or written.
    #[error("executor protocol error: {0}")]
    Frame(executor_protocol::ProtocolError),
    /// A reply that does not fit the request it answers (`what` says how),
    /// refused before any of it is used.
    #[error(
        "executor protocol error: the executor at {address} sent a reply that does not fit the \
         request: {what}"
    )]
    UnfitReply { address: String, what: String },
    #[error("the executor reported: {0}")]
    Remote(String),
}

pub type Result<T> = std::result::Result<T, RuntimeError>;

impl From<executor_protocol::ProtocolError> for RuntimeError {
    fn from(cause: executor_protocol::ProtocolError) -> Self {
        Self::Frame(cause)
    }
}

/// How an executor-server's worker says, while a binary's destructors run,
/// what it runs: the name of the binary, as the client sent it, quoted.
pub fn destructors_of(object: &str) -> String {
    format!("{DESTRUCTORS_OF}{object}'")
}

/// The binary whose destructors `running` ([`destructors_of`]) names, if it
/// names destructors (a long name is cut short, without its closing quote).
pub fn object_of_destructors(running: &str) -> Option<&str> {
    quoted_after(DESTRUCTORS_OF, running)
}

/// How an executor-server's worker says, while it loads a binary (runs its
/// constructors, or links it), what it runs: as [`destructors_of`].
pub fn load_time_code_of(object: &str) -> String {
    format!("{LOAD_TIME_CODE_OF}{object}'")
}

/// The binary whose load `running` ([`load_time_code_of`]) names, if it
/// names a load.
pub fn object_of_load_time_code(running: &str) -> Option<&str> {
    quoted_after(LOAD_TIME_CODE_OF, running)
}

/// What `running` quotes after `prefix`, if it starts so (without the
/// closing quote, which a name cut short lacks).
fn quoted_after<'a>(prefix: &str, running: &'a str) -> Option<&'a str> {
    let quoted = running.strip_prefix(prefix)?;
    Some(quoted.strip_suffix('\'').unwrap_or(quoted))
}

const DESTRUCTORS_OF: &str = "the destructors of '";
const LOAD_TIME_CODE_OF: &str = "the load-time code of '";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_object_whose_destructors_run_is_read_back_from_what_the_worker_says() {
        let said = destructors_of("/tmp/it's.o");
        assert_eq!(object_of_destructors(&said), Some("/tmp/it's.o"));
        // Cut short by the status table, without the closing quote.
        assert_eq!(
            object_of_destructors(&said[..said.len() - 3]),
            Some("/tmp/it's")
        );
        assert_eq!(object_of_destructors("_mlir_ciface_k"), None);
        let loading = load_time_code_of("/tmp/it's.o");
        assert_eq!(object_of_load_time_code(&loading), Some("/tmp/it's.o"));
        assert_eq!(object_of_load_time_code(&said), None);
    }
}
