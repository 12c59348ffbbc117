//! The server's half of the handshake: nothing but a `Hello` with this
//! server's protocol version (and its token, if it has one) is accepted, and
//! all of it must arrive by one deadline.

use std::{
    io::{Read, Write},
    time::{Duration, Instant},
};

use crate::token::tokens_match;
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

/// Reads the client's `Hello` from `reader` (which bounds the wait: the
/// handshake's deadline) and checks it against `expected_token`.
pub(crate) fn read_hello(reader: &mut impl Read, expected_token: Option<&str>) -> Admission {
    let hello = match protocol::read_message::<Hello>(reader, HANDSHAKE_MAX_MESSAGE_SIZE) {
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

/// Welcomes the client through `writer` (which bounds the wait).
pub(crate) fn welcome(writer: &mut impl Write, max_message_size: u32) -> Result<(), ProtocolError> {
    let reply = HelloReply::Welcome {
        protocol_version: PROTOCOL_VERSION,
        max_message_size,
    };
    write_reply(writer, &reply)
}

/// Refuses the client through `writer`. Best effort: the connection is
/// closed right after, whether or not the client reads this.
pub(crate) fn refuse_through(writer: &mut impl Write, reason: String) {
    let _ = write_reply(writer, &HelloReply::Refused { reason });
}

/// Refuses the client on `stream` in plaintext, by `deadline` (a reply is
/// small enough for an empty send buffer, so it only waits on a client that
/// sent a lot and reads nothing).
pub(crate) fn refuse(stream: &Stream, reason: String, deadline: Instant) {
    // A zero timeout is not allowed: it would mean none.
    let left = deadline.saturating_duration_since(Instant::now());
    if stream
        .set_write_timeout(Some(left.max(Duration::from_millis(1))))
        .is_ok()
    {
        refuse_through(&mut &*stream, reason);
    }
}

fn write_reply(writer: &mut impl Write, reply: &HelloReply) -> Result<(), ProtocolError> {
    protocol::write_message(writer, reply, HANDSHAKE_MAX_MESSAGE_SIZE)?;
    writer.flush()?;
    Ok(())
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
