//! The executor runtime: the C ABI that code lowered by
//! `convert-executor-to-llvm` calls (`include/executor_runtime.h`,
//! `docs/runtime-abi.md`), an executor embedded in the calling process
//! (`local`), and the client of a remote executor (whose server is the
//! `executor-server` package).

pub mod abi;
pub mod address;
pub mod config;
pub mod dead_peer;
mod deadline;
pub mod error;
pub mod executor;
pub mod local;
pub mod memref;
mod object_names;
pub mod packed;
pub mod polling;
pub mod protocol;
pub mod remote;
mod sessions;
