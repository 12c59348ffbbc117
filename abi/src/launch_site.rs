//! A launch site ([`crate::functions::LAUNCH_AT_SITE`]): a private, writable
//! global of the host module, one per kernel, object and argument signature of
//! its `executor.launch` ops (default entry convention), which the lowering
//! emits and initializes and whose address is all a launch passes besides the
//! session and the descriptor arrays. Everything a launch of that site passes
//! unchanged from one launch to the next lives in the site, so that the call
//! site passes only what changes, in four arguments that travel in registers
//! (the eleven of `__catalyst__executor__launch` put some on the stack).
//!
//! In memory: [`CACHE_WORDS`] 8-byte words of the runtime's cache
//! (zero-initialized; what they hold is the runtime's business: the entry
//! resolved for a session, and when that holds), then the fields of
//! [`DESCRIPTION`], one 8-byte word each, which the lowering fills and
//! nothing changes.

/// The size of the runtime's cache at the start of a site, in 8-byte words.
pub const CACHE_WORDS: usize = 5;

/// A site's alignment in bytes: the runtime reads and writes its cache words
/// atomically.
pub const ALIGNMENT: usize = 8;

/// `(C type, name)` of the fields after the cache, in order: the arguments of
/// `__catalyst__executor__launch` that a launch op fixes, then the static
/// sizes of its results, which the runtime holds a server's reply to.
pub const DESCRIPTION: &[(&str, &str)] = &[
    ("const char *", "entry_symbol"),
    ("const char *", "object"),
    ("size_t", "num_inputs"),
    ("const size_t *", "input_ranks"),
    ("const size_t *", "input_elem_sizes"),
    ("size_t", "num_outputs"),
    ("const size_t *", "output_ranks"),
    ("const size_t *", "output_elem_sizes"),
    ("const int64_t *", "output_sizes"),
];

/// What [`DESCRIPTION`]'s `output_sizes` holds for a dimension whose size the
/// result type leaves dynamic. (The array holds each output's static sizes
/// in order, `output_ranks[i]` of them for output `i`; null when the outputs
/// have no dimensions.)
pub const DYNAMIC_SIZE: i64 = -1;

/// The index of each field of [`DESCRIPTION`], and its position in the
/// site's LLVM struct (position 0 is the cache array).
pub mod field {
    pub const ENTRY_SYMBOL: usize = 0;
    pub const OBJECT: usize = 1;
    pub const NUM_INPUTS: usize = 2;
    pub const INPUT_RANKS: usize = 3;
    pub const INPUT_ELEM_SIZES: usize = 4;
    pub const NUM_OUTPUTS: usize = 5;
    pub const OUTPUT_RANKS: usize = 6;
    pub const OUTPUT_ELEM_SIZES: usize = 7;
    pub const OUTPUT_SIZES: usize = 8;

    /// The struct position of field `index` (after the cache array).
    pub const fn position(index: usize) -> usize {
        index + 1
    }
}

/// The C struct's name in `include/executor_runtime.h`.
pub const C_STRUCT_NAME: &str = "executor_launch_site";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_field_indices_name_the_description_in_order() {
        let names: Vec<&str> = DESCRIPTION.iter().map(|(_, name)| *name).collect();
        assert_eq!(names[field::ENTRY_SYMBOL], "entry_symbol");
        assert_eq!(names[field::OBJECT], "object");
        assert_eq!(names[field::NUM_INPUTS], "num_inputs");
        assert_eq!(names[field::INPUT_RANKS], "input_ranks");
        assert_eq!(names[field::INPUT_ELEM_SIZES], "input_elem_sizes");
        assert_eq!(names[field::NUM_OUTPUTS], "num_outputs");
        assert_eq!(names[field::OUTPUT_RANKS], "output_ranks");
        assert_eq!(names[field::OUTPUT_ELEM_SIZES], "output_elem_sizes");
        assert_eq!(names[field::OUTPUT_SIZES], "output_sizes");
        assert_eq!(names.len(), field::OUTPUT_SIZES + 1);
    }
}
