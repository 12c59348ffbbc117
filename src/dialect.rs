//! The executor dialect on the Rust side: typed builders and accessors that
//! melior generates from the same `td/` files the C++ is generated from.

melior::dialect! {
    name: "executor",
    files: ["ExecutorOps.td"],
    include_directories: ["./td"],
}

pub use crate::ffi::{session_type, token_type};
