//! The executor runtime: the C ABI that code lowered by
//! `convert-executor-to-llvm` calls (`include/executor_runtime.h`,
//! `docs/runtime-abi.md`), an executor embedded in the calling process
//! (`local`), and the client of a remote executor (whose server is the
//! `executor-server` package).

pub mod c_api;
pub mod config;
mod deadline;
pub mod error;
pub mod executor;
pub mod local;
pub mod machine;
mod object_names;
pub mod polling;
pub mod remote;
mod sessions;
pub mod trace;

// Executor addresses, the buffers a launch or call moves and the wire
// protocol (crates of their own, which the runtime builds on), as the
// runtime's own modules too.
pub use executor_abi::address;
pub use executor_buffers::{memref, packed};
pub use executor_protocol as protocol;
