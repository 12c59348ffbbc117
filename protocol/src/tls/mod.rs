//! TLS 1.3 sessions that change process after the handshake.
//!
//! The supervisor runs the handshake with rustls and serves the first request
//! through a [`RecordExactStream`], which reads its socket one whole record at
//! a time; it then [hands the session over](RecordExactStream::hand_over):
//! the traffic keys and sequence numbers ([`TlsSessionSecrets`], sent over
//! the control channel with postcard) and the plaintext nobody read yet. The
//! worker, given the socket, continues the session with [`TlsRecords`], a
//! record layer on rustls's own record protection (the ring provider's
//! AEADs). The kernel has no kTLS here, so the worker does this itself.
//!
//! - `record`: records on the wire, read one whole record at a time for the
//!   handover;
//! - `secrets`: the session's keys, as they cross to the worker;
//! - `records`: the record layer of the worker and the client, which reads
//!   ahead;
//! - `opener`: opening received records in place;
//! - `handover`: the supervisor's record-exact stream and the handover;
//! - `error`: what can go wrong, one line each.

mod error;
mod handover;
mod opener;
mod record;
mod records;
mod secrets;

pub use error::TlsSessionError;
pub use handover::{Handover, RecordExactStream};
pub use record::{MAX_CIPHERTEXT_LEN, MAX_PLAINTEXT_LEN, RECORD_HEADER_LEN};
pub use records::TlsRecords;
pub use secrets::{TlsSessionSecrets, TlsSuite, TrafficKeys};
