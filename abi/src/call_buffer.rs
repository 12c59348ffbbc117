//! The byte layout of `call_wrapper`'s buffers: `args_buf`, which the lowered
//! code packs, and `out_buf`, which the runtime returns. Every header field is
//! a native-endian `u64` ([`WORD`] bytes) and every record starts at a
//! multiple of [`ALIGNMENT`].
//!
//! Version [`LAYOUT_VERSION`] of the layout is [`GRAMMAR`]; the offsets below
//! are in bytes.

/// The version of the layout that [`GRAMMAR`] describes. A change to any
/// offset below is a new version, and `docs/runtime-abi.md` says which.
pub const LAYOUT_VERSION: u32 = 1;

/// The layout in the grammar `docs/runtime-abi.md` shows (a test keeps the two
/// equal).
pub const GRAMMAR: &str = "\
args_buf := num_buffers, num_inputs, record[num_buffers]
out_buf  := num_outputs, record[num_outputs]
record   := rank, elem_size, sizes[rank], data[elem_size * product(sizes)], padding to a multiple of 8";

/// The size of a header field.
pub const WORD: u64 = 8;
/// Records start at multiples of this many bytes; each is padded to it.
pub const ALIGNMENT: u64 = 8;

/// `args_buf`: the number of records (inputs and output buffers).
pub const ARGS_NUM_BUFFERS: u64 = 0;
/// `args_buf`: how many of the records are inputs; they come first.
pub const ARGS_NUM_INPUTS: u64 = ARGS_NUM_BUFFERS + WORD;
/// `args_buf`: where the first record starts.
pub const ARGS_RECORDS: u64 = ARGS_NUM_INPUTS + WORD;

/// `out_buf`: the number of records, one per output buffer.
pub const OUT_NUM_OUTPUTS: u64 = 0;
/// `out_buf`: where the first record starts.
pub const OUT_RECORDS: u64 = OUT_NUM_OUTPUTS + WORD;

/// A record: the buffer's rank.
pub const RECORD_RANK: u64 = 0;
/// A record: the size of one element in bytes.
pub const RECORD_ELEMENT_SIZE: u64 = RECORD_RANK + WORD;
/// A record: where its `rank` sizes start.
pub const RECORD_SIZES: u64 = RECORD_ELEMENT_SIZE + WORD;

/// The offset of size `dim` in a record.
pub const fn record_size(dim: u64) -> u64 {
    RECORD_SIZES + WORD * dim
}

/// The offset of the data in a record of `rank`: the record's header size.
pub const fn record_data(rank: u64) -> u64 {
    record_size(rank)
}

/// `len` rounded up to the next record boundary.
pub const fn padded(len: u64) -> u64 {
    len.next_multiple_of(ALIGNMENT)
}

/// The size of a whole record of `rank` holding `data_len` bytes of data.
pub const fn record_len(rank: u64, data_len: u64) -> u64 {
    record_data(rank) + padded(data_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_follow_the_grammar() {
        assert_eq!(
            (ARGS_NUM_BUFFERS, ARGS_NUM_INPUTS, ARGS_RECORDS),
            (0, 8, 16)
        );
        assert_eq!((OUT_NUM_OUTPUTS, OUT_RECORDS), (0, 8));
        assert_eq!(
            (RECORD_RANK, RECORD_ELEMENT_SIZE, record_size(0)),
            (0, 8, 16)
        );
        assert_eq!(record_data(2), 32);
        assert_eq!(record_len(1, 3), 24 + 8);
        assert_eq!(record_len(0, 16), 16 + 16);
    }
}
