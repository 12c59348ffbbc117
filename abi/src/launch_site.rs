//! The cache of a launch site ([`crate::functions::LAUNCH_SITE`]): a private,
//! writable, zero-initialized global of [`WORDS`] 8-byte words per kernel and
//! object of a module, shared by their `executor.launch` ops, which the
//! lowering emits and only the runtime reads and writes. All zeros is an empty cache. What the words hold is the runtime's
//! business (the entry resolved for a session, and when that holds); the
//! lowered code only passes the global's address.

/// The size of a launch site's cache in 8-byte words.
pub const WORDS: usize = 8;

/// Its alignment in bytes: the runtime reads and writes its words atomically.
pub const ALIGNMENT: usize = 8;
