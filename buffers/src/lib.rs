//! The buffers a launch or a call moves between a host program and an
//! executor, whichever side of a connection it is on:
//!
//! - `memref`: views of MLIR's strided memref descriptors, dense copies of
//!   their elements, and descriptors over buffers of this crate's own;
//! - `packed`: `executor.call`'s `args_buf` and `out_buf`, encoded and
//!   decoded at the offsets `executor_abi::call_buffer` defines;
//! - `raw_bytes`: byte vectors serialized as serde bytes, in one copy.

pub mod memref;
pub mod packed;
pub mod raw_bytes;
