//! This project's passes, written in Rust with melior.

use crate::ffi::PassFactory;

/// One factory per pass, in the order `--help` lists them.
pub const FACTORIES: &[PassFactory] = &[];
