//! The C ABI of `include/executor_runtime.h`, what code lowered by
//! `convert-executor-to-llvm` calls. Each entry point runs its body behind
//! `catch_unwind`; any failure prints one line naming the function, the
//! address and the symbol or path, and ends the program with exit code 1
//! ([`report`]). So does a call that waits for a kernel past
//! `EXECUTOR_LAUNCH_TIMEOUT_MS` (`crate::deadline`).
//!
//! A launch reads top-down: [`launch`] (the entry point and its general
//! path) → the session table (`crate::sessions`) → the session's executor
//! (`crate::executor::Executor`) → the kernel's call. A launch whose entry
//! is already resolved skips to the call through [`fast_path`], from a launch
//! site's own cache ([`site_cache`]) or this thread's ([`thread_cache`]).

mod arguments;
mod async_launch;
mod call;
mod fast_path;
mod launch;
mod logging;
mod report;
mod session_calls;
mod site_cache;
mod thread_cache;

pub use self::{
    async_launch::{__catalyst__executor__await, __catalyst__executor__launch_async},
    call::{__catalyst__executor__call_wrapper, __catalyst__executor__free_result},
    launch::{__catalyst__executor__launch, __executor__launch_at_site},
    report::CALL_LOG_TARGET,
    session_calls::{
        __catalyst__executor__close, __catalyst__executor__open, __catalyst__executor__send_binary,
    },
};
