//! The wire protocol between the runtime's remote executor and
//! `executor-server` (docs/protocol.md has the full description).
//!
//! Every message is a frame: a `u32` big-endian length, then that many bytes of
//! a postcard-encoded message. The length is checked against a limit before
//! anything is allocated for the payload, and decoding never panics: a short,
//! oversized or malformed frame is a [`ProtocolError`].
//!
//! A connection starts with a handshake ([`Hello`], answered by a
//! [`HelloReply`]), then carries [`Request`]s, each answered by exactly one
//! [`Response`], mirroring the runtime's `Executor` trait.
//!
//! - `messages`: the messages, which are the schema;
//! - `framing`: frames and their limits, for every message;
//! - `launch_codec`: the launch request written and read without copying its
//!   inputs, byte for byte what `framing` would make of it;
//! - `launched_frame`: the launch's response written straight from the
//!   kernel's output descriptors, byte for byte what `framing` would make of it;
//! - `varint`: postcard's integers, for those two;
//! - `token_file`: the shared secret's file, as both ends read it;
//! - `fingerprint`: the SHA-256 fingerprint of a server's certificate, which
//!   clients pin;
//! - `dead_peer`: TCP keepalive and user timeout, so that both ends see a
//!   peer whose link or host is gone;
//! - `stream`: the connection, over TCP or a Unix-domain socket, as both
//!   ends use it, and reads of it that can be told not to wait;
//!   `unix_socket`: the socket calls std does not offer;
//! - `signal`: the names of the signals a `Crashed` reply carries;
//! - `tls`: TLS 1.3 sessions handed from the supervisor, which ran the
//!   handshake with rustls, to a worker that continues them on the socket.

pub mod dead_peer;
mod error;
mod fingerprint;
mod frame_reader;
mod framing;
mod launch_codec;
mod launched_frame;
mod messages;
mod signal;
pub mod stream;
#[cfg(test)]
mod test_fixtures;
pub mod tls;
mod token_file;
pub mod unix_socket;
mod varint;

pub use error::ProtocolError;
pub use fingerprint::{Fingerprint, InvalidFingerprint};
pub use frame_reader::FrameReader;
pub use framing::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, LENGTH_PREFIX_SIZE, decode_payload,
    encode_frame, read_frame, read_frame_into, read_message, write_message,
};
pub use launch_codec::{
    LaunchFrame, MAX_LAUNCH_BUFFERS, MAX_LAUNCH_DIMENSIONS, MAX_LAUNCH_RANK, read_request,
};
pub use launched_frame::{fill_from_launched, write_launched_frame};
pub use messages::{
    BUSY_REFUSAL, Hello, HelloReply, OLDEST_PROTOCOL_VERSION, OutputShape, PROTOCOL_VERSION,
    Request, Response, Step,
};
pub use signal::signal_name;
pub use stream::{PollableStream, Stream, Transport};
pub use token_file::read_token_file;
