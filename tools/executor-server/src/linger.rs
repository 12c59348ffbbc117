//! Closing a connection so that the last message reaches the client: closing
//! a socket with unread input makes the kernel reset the connection, and a
//! reset can discard the reply before the client reads it.

use std::{
    io::Read,
    net::Shutdown,
    time::{Duration, Instant},
};

use executor_protocol::Stream;

const LINGER_TIME: Duration = Duration::from_secs(1);
const LINGER_BYTES: usize = 16 * 1024 * 1024;

/// Ends our side of the connection, then reads and discards what the client
/// still sends, for a bounded time and amount, until it closes too.
pub(crate) fn close_gracefully(stream: &Stream) {
    let _ = stream.shutdown(Shutdown::Write);
    let deadline = Instant::now() + LINGER_TIME;
    let mut discarded = 0;
    let mut buffer = [0u8; 64 * 1024];
    while discarded < LINGER_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match (&*stream).read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(count) => discarded += count,
        }
    }
    let _ = stream.shutdown(Shutdown::Read);
}
