//! MLIR's strided memref descriptor, as its LLVM lowering lays it out and as
//! kernels and the runtime read it: an LLVM struct `{ptr, ptr, i64,
//! array<rank x i64>, array<rank x i64>}` (rank 0 stops after the offset), in
//! memory `3 + 2 * rank` words of 8 bytes without padding.

/// The C view of a descriptor, as `docs/runtime-abi.md` shows it.
pub const C_STRUCT: &str = "struct { T *allocated; T *aligned; int64_t offset; int64_t sizes[rank]; int64_t strides[rank]; }";

/// Struct positions (and, for the first three, word indices).
pub const ALLOCATED: usize = 0;
pub const ALIGNED: usize = 1;
pub const OFFSET: usize = 2;
/// The struct position of the `sizes` array; in memory the sizes are words
/// `SIZES..SIZES + rank`.
pub const SIZES: usize = 3;
/// The struct position of the `strides` array; in memory the strides follow
/// the sizes.
pub const STRIDES: usize = 4;

/// The `allocated` pointer MLIR's LLVM lowering gives the descriptor of a
/// global (`memref.get_global`): a buffer nobody may free.
pub const GLOBAL_BUFFER: usize = 0xdead_beef;

/// Every field is one word of this many bytes.
pub const WORD_BYTES: usize = 8;

/// The number of words of a descriptor of `rank`.
pub const fn words(rank: usize) -> usize {
    SIZES + 2 * rank
}

/// The word that holds size `dim`.
pub const fn size_word(dim: usize) -> usize {
    SIZES + dim
}

/// The word that holds stride `dim` of a descriptor of `rank`.
pub const fn stride_word(rank: usize, dim: usize) -> usize {
    SIZES + rank + dim
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_the_struct() {
        assert_eq!(words(0), 3);
        assert_eq!(words(2), 7);
        assert_eq!(size_word(1), 4);
        assert_eq!(stride_word(2, 0), 5);
        assert_eq!(stride_word(2, 1), words(2) - 1);
    }
}
