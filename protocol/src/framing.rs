//! Frames: a `u32` big-endian length, then that many bytes of a
//! postcard-encoded message. Lengths are checked against a limit before
//! anything is allocated for the payload.

use std::io::{self, Read, Write};

use serde::{Serialize, de::DeserializeOwned};

use super::ProtocolError;

/// The default limit on one message's payload: 256 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: u32 = 256 * 1024 * 1024;

/// The limit on handshake messages, which carry nothing bigger than a token.
pub const HANDSHAKE_MAX_MESSAGE_SIZE: u32 = 64 * 1024;

/// The bytes of a frame's length prefix (a big-endian `u32`).
pub const LENGTH_PREFIX_SIZE: usize = 4;

/// How much of a payload is allocated as soon as its length is known (and
/// accepted); a longer one grows as its bytes arrive. Reserving is cheap, as
/// pages are only touched as bytes are written, and saves the reallocations
/// of a growing buffer; the bound keeps a length prefix alone from reserving
/// the whole limit.
pub(super) const INITIAL_PAYLOAD_CAPACITY: u32 = 64 * 1024 * 1024;

/// The read buffer of a connection: room for every small frame, so reading one
/// takes one system call.
pub(crate) const READ_BUFFER_SIZE: usize = 64 * 1024;

/// Encodes `message` as one frame (length prefix included), refusing a payload
/// over `max_size` bytes.
pub fn encode_frame<M: Serialize>(message: &M, max_size: u32) -> Result<Vec<u8>, ProtocolError> {
    let frame = postcard::to_extend(message, vec![0u8; LENGTH_PREFIX_SIZE])
        .map_err(|error| ProtocolError::Malformed(error.to_string()))?;
    let size = frame.len() - LENGTH_PREFIX_SIZE;
    let too_large = || ProtocolError::TooLarge {
        size: size as u64,
        limit: max_size,
    };
    let length = u32::try_from(size).map_err(|_| too_large())?;
    if length > max_size {
        return Err(too_large());
    }
    let mut frame = frame;
    frame[..LENGTH_PREFIX_SIZE].copy_from_slice(&length.to_be_bytes());
    Ok(frame)
}

/// Writes `message` as one frame and flushes it.
pub fn write_message<M: Serialize>(
    writer: &mut impl Write,
    message: &M,
    max_size: u32,
) -> Result<(), ProtocolError> {
    let frame = encode_frame(message, max_size)?;
    writer.write_all(&frame)?;
    writer.flush()?;
    Ok(())
}

/// Reads one frame and decodes its payload. A connection closed before the
/// first byte of the frame is [`ProtocolError::Closed`].
pub fn read_message<M: DeserializeOwned>(
    reader: &mut impl Read,
    max_size: u32,
) -> Result<M, ProtocolError> {
    decode_payload(&read_frame(reader, max_size)?)
}

/// Reads one frame's payload, checking its length against `max_size` before
/// reading (or allocating for) any of it.
pub fn read_frame(reader: &mut impl Read, max_size: u32) -> Result<Vec<u8>, ProtocolError> {
    let mut payload = Vec::new();
    read_frame_into(reader, max_size, &mut payload)?;
    Ok(payload)
}

/// [`read_frame`] into `payload`, replacing what it held (its capacity is
/// reused: a client reads every reply into one buffer).
pub fn read_frame_into(
    reader: &mut impl Read,
    max_size: u32,
    payload: &mut Vec<u8>,
) -> Result<(), ProtocolError> {
    payload.clear();
    let size = read_length_prefix(reader, max_size)?;
    payload.reserve(size.min(INITIAL_PAYLOAD_CAPACITY) as usize);
    reader.take(size.into()).read_to_end(payload)?;
    if payload.len() < size as usize {
        return Err(ProtocolError::Truncated {
            received: LENGTH_PREFIX_SIZE + payload.len(),
            expected: LENGTH_PREFIX_SIZE + size as usize,
        });
    }
    Ok(())
}

/// Reads a frame's length prefix and checks it against `max_size`.
pub(super) fn read_length_prefix(
    reader: &mut impl Read,
    max_size: u32,
) -> Result<u32, ProtocolError> {
    let mut prefix = [0u8; LENGTH_PREFIX_SIZE];
    match read_up_to(reader, &mut prefix)? {
        0 => return Err(ProtocolError::Closed),
        LENGTH_PREFIX_SIZE => {}
        received => {
            return Err(ProtocolError::Truncated {
                received,
                expected: LENGTH_PREFIX_SIZE,
            });
        }
    }
    let size = u32::from_be_bytes(prefix);
    if size > max_size {
        return Err(ProtocolError::TooLarge {
            size: size.into(),
            limit: max_size,
        });
    }
    Ok(size)
}

/// Decodes a whole payload: bytes left over after the message are an error,
/// since they mean the peer encoded something else.
pub fn decode_payload<M: DeserializeOwned>(payload: &[u8]) -> Result<M, ProtocolError> {
    let (message, rest) = postcard::take_from_bytes(payload)
        .map_err(|error| ProtocolError::Malformed(error.to_string()))?;
    if !rest.is_empty() {
        return Err(ProtocolError::Malformed(format!(
            "{} bytes after the end of the message",
            rest.len()
        )));
    }
    Ok(message)
}

/// Fills `buffer` unless the stream ends first; returns how many bytes it got.
pub(super) fn read_up_to(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(count) => filled += count,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use serde::Serialize;

    use super::*;
    use crate::{
        Hello, HelloReply, PROTOCOL_VERSION, Request, Response,
        test_fixtures::{PrefixOnly, dense, frame_of, sample_requests},
    };

    fn round_trip<M: Serialize + DeserializeOwned + PartialEq + Debug>(message: M) {
        let frame = encode_frame(&message, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
        let length = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
        assert_eq!(
            length,
            frame.len() - 4,
            "the prefix is the payload's length"
        );
        let decoded: M = read_message(&mut frame.as_slice(), DEFAULT_MAX_MESSAGE_SIZE).unwrap();
        assert_eq!(decoded, message);
    }

    #[test]
    fn every_message_round_trips() {
        round_trip(Hello {
            protocol_version: PROTOCOL_VERSION,
            token: None,
        });
        round_trip(Hello {
            protocol_version: 7,
            token: Some("secret".into()),
        });
        round_trip(HelloReply::Welcome {
            protocol_version: PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
        });
        round_trip(HelloReply::Refused {
            reason: "wrong token".into(),
        });
        round_trip(HelloReply::WelcomeWithTriple {
            protocol_version: PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            triple: "riscv64-unknown-linux-gnu".into(),
        });
        for request in sample_requests() {
            round_trip(request);
        }
        for response in [
            Response::Done,
            Response::Launched {
                outputs: vec![dense(vec![3, 2], 8)],
            },
            Response::Token(42),
            Response::CallResult(vec![0; 24]),
            Response::Failed {
                message: "no such symbol".into(),
            },
            Response::Crashed {
                symbol: "boom".into(),
                signal: 11,
            },
            Response::Pong {
                sessions: 2,
                max_sessions: 256,
            },
        ] {
            round_trip(response);
        }
    }

    #[test]
    fn truncated_frames_are_errors() {
        for request in sample_requests() {
            let frame = encode_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
            for len in 0..frame.len() {
                let result = read_message::<Request>(&mut &frame[..len], DEFAULT_MAX_MESSAGE_SIZE);
                match (len, result) {
                    (0, Err(ProtocolError::Closed)) => {}
                    (_, Err(ProtocolError::Truncated { received, .. })) => {
                        assert_eq!(received, len)
                    }
                    (_, other) => panic!("a {len}-byte prefix of {request:?} gave {other:?}"),
                }
            }
        }
    }

    #[test]
    fn an_oversized_length_prefix_is_rejected_before_reading_the_payload() {
        for (size, limit) in [(u32::MAX, DEFAULT_MAX_MESSAGE_SIZE), (1025, 1024)] {
            let mut reader = PrefixOnly::new(size);
            match read_frame(&mut reader, limit) {
                Err(ProtocolError::TooLarge {
                    size: got,
                    limit: got_limit,
                }) => {
                    assert_eq!((got, got_limit), (size.into(), limit));
                }
                other => panic!("expected TooLarge, got {other:?}"),
            }
        }
    }

    #[test]
    fn a_message_over_the_limit_is_not_sent() {
        let request = Request::Call {
            symbol: "f".into(),
            layout: executor_abi::call_buffer::Layout::ThisProject,
            arguments: vec![0; 2000],
        };
        assert!(matches!(
            encode_frame(&request, 1024),
            Err(ProtocolError::TooLarge { limit: 1024, .. })
        ));
        let mut sink = Vec::new();
        assert!(write_message(&mut sink, &request, 1024).is_err());
        assert!(sink.is_empty(), "nothing of a refused message is written");
    }

    #[test]
    fn malformed_payloads_are_errors() {
        let cases: &[(&str, &[u8])] = &[
            ("an empty payload", &[]),
            ("an unknown variant", &[200]),
            (
                "a string longer than the frame",
                &[2, 0xff, 0xff, 0x03, b'a'],
            ),
            ("invalid UTF-8", &[2, 2, 0xc3, 0x28, 0]),
            (
                "a byte vector longer than the frame",
                &[4, 1, b'f', 0xff, 0xff, 0xff, 0x0f],
            ),
            (
                "an over-long varint",
                &[
                    3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1,
                ],
            ),
            ("trailing bytes", &[5, 0]),
        ];
        for (what, payload) in cases {
            let result = read_message::<Request>(&mut frame_of(payload).as_slice(), 1024);
            assert!(
                matches!(result, Err(ProtocolError::Malformed(_))),
                "{what}: {result:?}"
            );
        }
    }

    #[test]
    fn garbage_never_panics() {
        // A fixed-seed xorshift generator: the same garbage on every run.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let len = (next() % 64) as usize;
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            // Both as a whole frame and as a raw stream with a random prefix.
            let _ = read_message::<Request>(&mut frame_of(&bytes).as_slice(), 1024);
            let _ = read_message::<Response>(&mut frame_of(&bytes).as_slice(), 1024);
            let _ = read_message::<Hello>(&mut bytes.as_slice(), 1024);
            let _ = read_message::<HelloReply>(&mut bytes.as_slice(), 1024);
        }
    }
}
