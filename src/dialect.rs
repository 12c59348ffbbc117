//! The executor dialect on the Rust side: typed builders and accessors that
//! melior generates from the same `td/` files the C++ is generated from.

melior::dialect! {
    name: "executor",
    files: ["ExecutorOps.td"],
    include_directories: ["./td"],
}

use melior::{Context, ir::Type};

/// `!executor.session`.
pub fn session_type(context: &Context) -> Type<'_> {
    crate::ffi::parse_type(context, "!executor.session").expect("the executor dialect is loaded")
}

/// `!executor.token`.
pub fn token_type(context: &Context) -> Type<'_> {
    crate::ffi::parse_type(context, "!executor.token").expect("the executor dialect is loaded")
}
