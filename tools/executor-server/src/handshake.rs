//! The server's half of the handshake: nothing but a `Hello` with a protocol
//! version this server speaks (and its token, if it has one) is accepted, and
//! all of it must arrive by one deadline. The welcome is the client's
//! version's: from version 4 on it states the host's triple.

use std::{
    io::{Read, Write},
    time::{Duration, Instant},
};

use crate::token::tokens_match;
use executor_runtime::{
    local::host_triple,
    protocol::{
        self, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, OLDEST_PROTOCOL_VERSION,
        PROTOCOL_VERSION, ProtocolError, Stream,
    },
};

/// What to do with a new connection.
pub(crate) enum Admission {
    /// Welcome the client, in its protocol version.
    Admit { protocol_version: u32 },
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
        Ok(()) => Admission::Admit {
            protocol_version: hello.protocol_version,
        },
        Err(reason) => Admission::Refuse(reason),
    }
}

fn check(hello: &Hello, expected_token: Option<&str>) -> Result<(), String> {
    if !(OLDEST_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&hello.protocol_version) {
        return Err(format!(
            "protocol version {} is not supported: this server speaks versions \
             {OLDEST_PROTOCOL_VERSION} to {PROTOCOL_VERSION}",
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

/// Welcomes a client of `protocol_version` through `writer` (which bounds
/// the wait).
pub(crate) fn welcome(
    writer: &mut impl Write,
    protocol_version: u32,
    max_message_size: u32,
) -> Result<(), ProtocolError> {
    write_reply(writer, &welcome_of(protocol_version, max_message_size))
}

/// The welcome a client of `protocol_version` reads.
fn welcome_of(protocol_version: u32, max_message_size: u32) -> HelloReply {
    if protocol_version < 4 {
        HelloReply::Welcome {
            protocol_version,
            max_message_size,
        }
    } else {
        HelloReply::WelcomeWithTriple {
            protocol_version,
            max_message_size,
            triple: host_triple().to_owned(),
        }
    }
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

    #[test]
    fn each_version_is_welcomed_as_it_reads_and_version_4_learns_the_triple() {
        assert_eq!(
            welcome_of(3, 1024),
            HelloReply::Welcome {
                protocol_version: 3,
                max_message_size: 1024
            }
        );
        let HelloReply::WelcomeWithTriple {
            protocol_version: 4,
            max_message_size: 1024,
            triple,
        } = welcome_of(4, 1024)
        else {
            panic!("version 4 is welcomed with the triple");
        };
        assert_eq!(triple, host_triple());
        assert!(
            triple.starts_with(std::env::consts::ARCH),
            "{triple} is this machine's"
        );
    }

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
        assert!(check(&hello(OLDEST_PROTOCOL_VERSION, None), None).is_ok());
        for unsupported in [OLDEST_PROTOCOL_VERSION - 1, PROTOCOL_VERSION + 1] {
            let wrong_version = check(&hello(unsupported, Some("t")), Some("t")).unwrap_err();
            assert_eq!(
                wrong_version,
                format!(
                    "protocol version {unsupported} is not supported: this server speaks \
                     versions {OLDEST_PROTOCOL_VERSION} to {PROTOCOL_VERSION}"
                )
            );
        }
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
