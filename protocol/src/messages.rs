//! The messages of the protocol, and so its schema: what each one holds, in
//! the order postcard encodes it (field order and variant order are the wire
//! format).

use serde::{Deserialize, Serialize};

use executor_abi::call_buffer::Layout;

use executor_abi::BinaryFormat;
use executor_buffers::memref::DenseBuffer;

/// The version this build speaks. Bump it on any change to [`Request`],
/// [`Response`] or what the handshake tells. [`Hello`] and the variants of
/// [`HelloReply`] never change, so that peers of different versions can
/// always tell each other so; a version that tells more in the handshake
/// adds a variant, which the server sends only to clients of that version
/// or later.
pub const PROTOCOL_VERSION: u32 = 4;

/// The oldest version a server of this build serves. 3 differs from 4 in
/// its welcome, [`HelloReply::Welcome`], which states no triple, and in
/// lacking [`Request::Trace`], which a version-3 client never sends (so it
/// never gets [`Response::Steps`]).
pub const OLDEST_PROTOCOL_VERSION: u32 = 3;

/// How the reason of a refusal for want of room starts: the server has too
/// many connections in, or waiting for, their handshake. A server sends the
/// refusals its accept loop makes in plaintext, before any TLS; a TLS client
/// tells such a refusal from the answer of a server that does not speak TLS
/// by this.
pub const BUSY_REFUSAL: &str = "too many connections";

/// The first message on a connection, from the client.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hello {
    pub protocol_version: u32,
    /// The shared secret of a server started with `--token-file`.
    pub token: Option<String>,
}

impl std::fmt::Debug for Hello {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never log the secret.
        formatter
            .debug_struct("Hello")
            .field("protocol_version", &self.protocol_version)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// The server's answer to [`Hello`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HelloReply {
    /// The session is open; `max_message_size` is the server's limit on every
    /// later message, in either direction.
    Welcome {
        protocol_version: u32,
        max_message_size: u32,
    },
    /// The server closes the connection after this.
    Refused { reason: String },
    /// [`HelloReply::Welcome`] to a client of version 4 or later, with the
    /// LLVM triple of the machine the server's workers run (what objects sent
    /// to it must be compiled for).
    WelcomeWithTriple {
        protocol_version: u32,
        max_message_size: u32,
        triple: String,
    },
}

/// The rank and element size of one output descriptor of a launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputShape {
    pub rank: u64,
    pub element_size: u64,
}

/// What a client asks of its session, after the handshake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// Loads `bytes` as the object `name` (the client's path string, which
    /// launches give as their object). Answered by [`Response::Done`].
    SendBinary {
        name: String,
        format: BinaryFormat,
        #[serde(with = "executor_buffers::raw_bytes")]
        bytes: Vec<u8>,
    },
    /// Runs `entry` of `object` on copies of `inputs`. Answered by
    /// [`Response::Launched`] with one buffer per output shape.
    Launch {
        entry: String,
        object: String,
        inputs: Vec<DenseBuffer>,
        outputs: Vec<OutputShape>,
    },
    /// Starts the `void(void)` function `entry` of `object`. Answered by
    /// [`Response::Token`].
    LaunchAsync { entry: String, object: String },
    /// Waits for the launch behind a token. Answered by [`Response::Done`].
    Await(u64),
    /// Calls `symbol` with `arguments` in `layout`. Answered by
    /// [`Response::CallResult`].
    Call {
        symbol: String,
        layout: Layout,
        #[serde(with = "executor_buffers::raw_bytes")]
        arguments: Vec<u8>,
    },
    /// Waits for outstanding async launches and ends the session. Answered by
    /// [`Response::Done`], after which the server closes the connection.
    Close,
    /// Asks how the server is doing. Answered by [`Response::Pong`], by the
    /// server process itself: a session's worker is started at its first
    /// other request, so a connection that only pings costs no process. A
    /// `Ping` after that is answered by [`Response::Failed`].
    Ping,
    /// Asks for the server's steps: answered by [`Response::Clock`], and from
    /// then on every response (this one's included) is followed by a
    /// [`Response::Steps`] frame with what the server measured for it.
    Trace,
}

/// A step the server measured for a request (or, in the first
/// [`Response::Steps`], the handshake and the worker's start): microseconds
/// on the server's clock, since the Unix epoch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    pub start_us: u64,
    pub duration_us: u64,
}

/// The answer to one [`Request`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Response {
    /// SendBinary, Await and Close succeeded.
    Done,
    Launched {
        outputs: Vec<DenseBuffer>,
    },
    Token(u64),
    CallResult(#[serde(with = "executor_buffers::raw_bytes")] Vec<u8>),
    /// The request failed; the session goes on.
    Failed {
        message: String,
    },
    /// The session's worker died by `signal` while running `symbol` (empty
    /// when it ran no client code: it was killed); the server closes the
    /// connection after this.
    Crashed {
        symbol: String,
        signal: i32,
    },
    /// The answer to [`Request::Ping`]: the server's sessions other than
    /// this one, and its `--max-sessions`.
    Pong {
        sessions: u32,
        max_sessions: u32,
    },
    /// The answer to [`Request::Trace`]: when the server read it and when it
    /// answered, on its clock (microseconds since the Unix epoch), from
    /// which the client estimates the offset of the server's clock.
    Clock {
        received_us: u64,
        sent_us: u64,
    },
    /// What follows each response once [`Request::Trace`] asked for it.
    Steps(Vec<Step>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_fixtures::sample_requests;

    #[test]
    fn the_handshake_encoding_is_frozen() {
        // Peers of every version must read each other's Hello and HelloReply.
        let hello = Hello {
            protocol_version: 1,
            token: Some("ab".into()),
        };
        assert_eq!(postcard::to_stdvec(&hello).unwrap(), [1, 1, 2, b'a', b'b']);
        let refused = HelloReply::Refused {
            reason: "no".into(),
        };
        assert_eq!(postcard::to_stdvec(&refused).unwrap(), [1, 2, b'n', b'o']);
        let welcome = HelloReply::Welcome {
            protocol_version: 3,
            max_message_size: 300,
        };
        assert_eq!(postcard::to_stdvec(&welcome).unwrap(), [0, 3, 0xac, 0x02]);
    }

    #[test]
    fn the_welcome_of_version_4_states_the_triple_after_the_frozen_variants() {
        // Variant 2, so that a version 3 peer's variants keep their indices.
        let welcome = HelloReply::WelcomeWithTriple {
            protocol_version: 4,
            max_message_size: 300,
            triple: "aarch64-unknown-linux-gnu".into(),
        };
        let encoded = postcard::to_stdvec(&welcome).unwrap();
        let mut expected = vec![2, 4, 0xac, 0x02, 25];
        expected.extend_from_slice(b"aarch64-unknown-linux-gnu");
        assert_eq!(encoded, expected);
        assert_eq!(
            postcard::from_bytes::<HelloReply>(&encoded).unwrap(),
            welcome
        );
    }

    #[test]
    fn the_variant_indices_are_frozen() {
        // Postcard encodes a variant as its index in the declaration, so the
        // order of the variants is part of the wire format.
        let requests: Vec<u8> = sample_requests()
            .iter()
            .map(|request| postcard::to_stdvec(request).unwrap()[0])
            .collect();
        assert_eq!(requests, [0, 0, 1, 2, 3, 4, 4, 5]);
        assert_eq!(postcard::to_stdvec(&Request::Ping).unwrap(), [6]);
        assert_eq!(postcard::to_stdvec(&Request::Trace).unwrap(), [7]);
        let responses = [
            Response::Done,
            Response::Launched {
                outputs: Vec::new(),
            },
            Response::Token(0),
            Response::CallResult(Vec::new()),
            Response::Failed {
                message: String::new(),
            },
            Response::Crashed {
                symbol: String::new(),
                signal: 0,
            },
            Response::Pong {
                sessions: 0,
                max_sessions: 0,
            },
            Response::Clock {
                received_us: 0,
                sent_us: 0,
            },
            Response::Steps(Vec::new()),
        ];
        let responses: Vec<u8> = responses
            .iter()
            .map(|response| postcard::to_stdvec(response).unwrap()[0])
            .collect();
        assert_eq!(responses, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn the_launch_encoding_is_frozen() {
        // The layout launch_codec writes and reads by hand: the variant, the
        // two strings, each input (element size, sizes zigzag-encoded, data),
        // each output shape; every integer a varint.
        let launch = Request::Launch {
            entry: "k".into(),
            object: "o".into(),
            inputs: vec![DenseBuffer {
                element_size: 4,
                sizes: vec![2, -1],
                data: vec![7, 8],
            }],
            outputs: vec![OutputShape {
                rank: 1,
                element_size: 300,
            }],
        };
        assert_eq!(
            postcard::to_stdvec(&launch).unwrap(),
            [
                1, 1, b'k', 1, b'o', 1, 4, 2, 4, 1, 2, 7, 8, 1, 1, 0xac, 0x02
            ]
        );
    }
}
