//! The server's half of the handshake: nothing but a `Hello` with this
//! server's protocol version (and its token, if it has one) is accepted, and
//! all of it must arrive by one deadline.

use std::{
    io::{self, Read},
    time::{Duration, Instant},
};

use crate::{
    pending::{Pending, Progress},
    request_stream::receive,
    token::tokens_match,
};
use executor_runtime::protocol::{
    self, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, PROTOCOL_VERSION, ProtocolError, Stream,
};

/// What to do with a new connection.
pub(crate) enum Admission {
    Admit,
    /// Answer `Refused` with this reason, then close.
    Refuse(String),
    /// The client went away or timed out: just close.
    Drop(ProtocolError),
}

/// Reads the client's `Hello`, which must have arrived whole by `deadline`,
/// and checks it against `expected_token`. While the read waits for bytes
/// the client has not sent, `pending` says so.
pub(crate) fn read_hello(
    stream: &Stream,
    expected_token: Option<&str>,
    deadline: Instant,
    pending: &Pending,
) -> Admission {
    let mut reader = UntilDeadline {
        stream,
        deadline,
        pending,
        received: 0,
    };
    let hello = match protocol::read_message::<Hello>(&mut reader, HANDSHAKE_MAX_MESSAGE_SIZE) {
        Ok(hello) => hello,
        Err(error @ (ProtocolError::Malformed(_) | ProtocolError::TooLarge { .. })) => {
            return Admission::Refuse(format!("expected a Hello message: {error}"));
        }
        Err(error) => return Admission::Drop(error),
    };
    match check(&hello, expected_token) {
        Ok(()) => Admission::Admit,
        Err(reason) => Admission::Refuse(reason),
    }
}

fn check(hello: &Hello, expected_token: Option<&str>) -> Result<(), String> {
    if hello.protocol_version != PROTOCOL_VERSION {
        return Err(format!(
            "protocol version {} is not supported: this server speaks version {PROTOCOL_VERSION}",
            hello.protocol_version
        ));
    }
    match (expected_token, &hello.token) {
        (None, _) => Ok(()),
        (Some(_), None) => Err(
            "this server requires a token (set EXECUTOR_TOKEN or EXECUTOR_TOKEN_FILE)".to_owned(),
        ),
        (Some(expected), Some(given)) if tokens_match(given.as_bytes(), expected.as_bytes()) => {
            Ok(())
        }
        (Some(_), Some(_)) => Err("wrong token".to_owned()),
    }
}

/// A stream read by a deadline: each read waits at most until then, so a
/// client that sends its `Hello` a byte at a time must still be done by then.
/// While a read waits for bytes the client has not sent, `pending` says so.
struct UntilDeadline<'s> {
    stream: &'s Stream,
    deadline: Instant,
    pending: &'s Pending,
    /// Bytes read so far.
    received: usize,
}

impl Read for UntilDeadline<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let read = match receive(self.stream, buffer, true) {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => self.wait_and_read(buffer),
            read => read,
        }?;
        self.received += read;
        Ok(read)
    }
}

impl UntilDeadline<'_> {
    /// Reads once the client sends more, by the deadline.
    fn wait_and_read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let timed_out =
            || io::Error::new(io::ErrorKind::TimedOut, "the handshake's deadline passed");
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(timed_out());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.pending.set_progress(Progress::WaitingForClient {
            received_part: self.received > 0,
        });
        let read = receive(self.stream, buffer, false);
        self.pending.set_progress(Progress::Reading);
        match read {
            Err(error) if error.kind() == io::ErrorKind::WouldBlock => Err(timed_out()),
            read => read,
        }
    }
}

pub(crate) fn welcome(
    stream: &Stream,
    max_message_size: u32,
    deadline: Instant,
) -> Result<(), ProtocolError> {
    let reply = HelloReply::Welcome {
        protocol_version: PROTOCOL_VERSION,
        max_message_size,
    };
    write_reply(stream, &reply, deadline)
}

/// Best effort: the connection is closed right after, whether or not the
/// client reads this.
pub(crate) fn refuse(stream: &Stream, reason: String, deadline: Instant) {
    let _ = write_reply(stream, &HelloReply::Refused { reason }, deadline);
}

/// Writes the reply to `Hello`, by `deadline` (a reply is small enough for an
/// empty send buffer, so it only waits on a client that sent a lot and reads
/// nothing).
fn write_reply(
    stream: &Stream,
    reply: &HelloReply,
    deadline: Instant,
) -> Result<(), ProtocolError> {
    // A zero timeout is not allowed: it would mean none.
    let left = deadline.saturating_duration_since(Instant::now());
    stream.set_write_timeout(Some(left.max(Duration::from_millis(1))))?;
    protocol::write_message(&mut &*stream, reply, HANDSHAKE_MAX_MESSAGE_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hello(protocol_version: u32, token: Option<&str>) -> Hello {
        Hello {
            protocol_version,
            token: token.map(str::to_owned),
        }
    }

    #[test]
    fn version_and_token_are_checked() {
        assert!(check(&hello(PROTOCOL_VERSION, None), None).is_ok());
        assert!(check(&hello(PROTOCOL_VERSION, Some("extra")), None).is_ok());
        assert!(check(&hello(PROTOCOL_VERSION, Some("t")), Some("t")).is_ok());
        let wrong_version = check(&hello(PROTOCOL_VERSION + 1, Some("t")), Some("t")).unwrap_err();
        assert!(wrong_version.contains("version"), "{wrong_version}");
        assert!(
            check(&hello(PROTOCOL_VERSION, None), Some("t"))
                .unwrap_err()
                .contains("requires a token")
        );
        assert_eq!(
            check(&hello(PROTOCOL_VERSION, Some("u")), Some("t")).unwrap_err(),
            "wrong token"
        );
    }
}
