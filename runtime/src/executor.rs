//! What a session does, whichever executor runs it: the one embedded in this
//! process (`local`) or an executor-server (`remote`).

use executor_abi::call_buffer::Layout;

use crate::{
    error::{Result, RuntimeError},
    memref::Descriptor,
};

pub use executor_abi::BinaryFormat;

/// The format whose ABI value is `format`.
pub fn binary_format(format: u32) -> Result<BinaryFormat> {
    BinaryFormat::from_abi(format).ok_or(RuntimeError::UnknownFormat(format))
}

/// One session's executor. Calls on one session come from one host thread at
/// a time, but async launches run on the executor's own threads. (`Any`, so
/// that the session table can tell the embedded one, whose launches may take
/// a shorter path: `sessions::Session::local`.)
pub trait Executor: Send + Sync + std::any::Any {
    /// Loads the binary at `path` into the session; a path already loaded is
    /// not loaded again.
    fn send_binary(&self, path: &str, format: BinaryFormat) -> Result<()>;

    /// Runs `entry` of the loaded `object` with the input descriptors and
    /// fills the output descriptors with buffers the caller frees with `free`.
    fn launch(
        &self,
        entry: &str,
        object: &str,
        inputs: &[Descriptor],
        outputs: &[Descriptor],
    ) -> Result<()>;

    /// Starts the `void(void)` function `entry` of `object` on a background
    /// thread; returns a token for [`Executor::await_launch`].
    fn launch_async(&self, entry: &str, object: &str) -> Result<u64>;

    /// Waits for the launch behind `token`, which is then spent.
    fn await_launch(&self, token: u64) -> Result<()>;

    /// Calls `symbol` of a loaded shared library (or of the executor process)
    /// with `args_buf` in `layout`; returns `out_buf` in the same layout.
    fn call(&self, symbol: &str, layout: Layout, arguments: &[u8]) -> Result<Vec<u8>>;

    /// Waits for the outstanding async launches, then releases everything the
    /// session loaded.
    fn close(&self) -> Result<()>;

    /// Whether the session can no longer be used (its server went away),
    /// known without waiting: `executor.open` of its address then starts a
    /// new session. A session in use on another thread has not ended.
    fn has_ended(&self) -> bool {
        false
    }
}
