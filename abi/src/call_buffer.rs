//! The byte layouts of `call_wrapper`'s buffers: `args_buf`, which the
//! lowered code packs, and `out_buf`, which the runtime returns.
//!
//! Two layouts exist, and the runtime tells them apart by `args_size` alone:
//!
//! - This project's (version [`LAYOUT_VERSION`], [`GRAMMAR`]): every header
//!   field a native-endian `u64` ([`WORD`] bytes), `args_buf` starting with
//!   [`MAGIC`], every record at a multiple of [`ALIGNMENT`], ranks and sizes
//!   carried so dynamic shapes work. Its `args_size` has [`THIS_LAYOUT`] (bit
//!   63) set.
//! - Catalyst's ([`CATALYST_GRAMMAR`]): the inputs' bytes one after the other,
//!   static shapes only, the callee an ORC wrapper function. Its `args_size` is
//!   the size of a real buffer in memory, which never reaches 2^63 bytes on a
//!   64-bit host, so bit 63 is clear: the two cannot be confused, whatever the
//!   bytes. [`MAGIC`] then catches a mismatch of layout versions.
//!
//! The offsets below are in bytes.

/// The version of this project's layout that [`GRAMMAR`] describes. A change
/// to any offset below is a new version, and `docs/runtime-abi.md` says which.
pub const LAYOUT_VERSION: u32 = 2;

/// This project's layout in the grammar `docs/runtime-abi.md` shows (a test
/// keeps the two equal).
pub const GRAMMAR: &str = "\
args_buf := magic, num_buffers, num_inputs, record[num_buffers]
out_buf  := num_outputs, record[num_outputs]
record   := rank, elem_size, sizes[rank], data[elem_size * product(sizes)], padding to a multiple of 8";

/// Catalyst's layout, as its lowering emits it.
pub const CATALYST_GRAMMAR: &str = "\
args_buf := data[input 0], data[input 1], ...   (no header, no padding)
out_buf  := data[output 0], data[output 1], ...";

/// Set in `args_size` by this project's lowering; the size is the rest.
pub const THIS_LAYOUT: u64 = 1 << 63;

/// The first word of this project's `args_buf`: `EXCALL` and the version.
pub const MAGIC: u64 = 0x4558_4341_4c4c_0000 | LAYOUT_VERSION as u64;

/// Which layout an `args_size` announces, and the buffer's real size.
pub fn decode_args_size(args_size: u64) -> (Layout, u64) {
    if args_size & THIS_LAYOUT != 0 {
        (Layout::ThisProject, args_size & !THIS_LAYOUT)
    } else {
        (Layout::Catalyst, args_size)
    }
}

/// The two layouts of `call_wrapper`'s buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Layout {
    /// [`GRAMMAR`]; the callee is `void symbol(descriptor *buffer...)`.
    ThisProject,
    /// [`CATALYST_GRAMMAR`]; the callee is an ORC wrapper function
    /// `CWrapperFunctionResult symbol(const char *args, size_t size)` that
    /// returns `out_buf`.
    Catalyst,
}

/// The size of a header field.
pub const WORD: u64 = 8;
/// Records start at multiples of this many bytes; each is padded to it.
pub const ALIGNMENT: u64 = 8;

/// `args_buf`: [`MAGIC`].
pub const ARGS_MAGIC: u64 = 0;
/// `args_buf`: the number of records (inputs and output buffers).
pub const ARGS_NUM_BUFFERS: u64 = ARGS_MAGIC + WORD;
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
    fn args_size_tells_the_layouts_apart() {
        assert_eq!(decode_args_size(40), (Layout::Catalyst, 40));
        assert_eq!(
            decode_args_size(40 | THIS_LAYOUT),
            (Layout::ThisProject, 40)
        );
        assert_eq!(MAGIC.to_be_bytes()[..6], *b"EXCALL");
    }

    #[test]
    fn offsets_follow_the_grammar() {
        assert_eq!(
            (ARGS_MAGIC, ARGS_NUM_BUFFERS, ARGS_NUM_INPUTS, ARGS_RECORDS),
            (0, 8, 16, 24)
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
