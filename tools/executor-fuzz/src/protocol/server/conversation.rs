//! One connection's conversation with a server, and its oracles: every
//! reply decodes (a `HelloReply` in the handshake, then a `Response`),
//! every whole frame gets exactly one answer in time, no worker crashes;
//! and a legitimate client, which must be served.

use std::{
    io::{ErrorKind, Read, Write},
    net::{Shutdown, SocketAddr, TcpStream},
    time::Duration,
};

use executor_abi::call_buffer::Layout;
use executor_buffers::packed::{self, CallArguments};
use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, PROTOCOL_VERSION,
    Request, Response, decode_payload, encode_frame,
};

use super::TOKEN;
use crate::shared::signature::{Kind, Signature, normalize};

/// How long a complete frame may wait for its answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long to watch for a crash after a partial frame.
const PARTIAL_FRAME_WAIT: Duration = Duration::from_millis(150);

/// What came back for a frame.
#[derive(Debug)]
enum Reply {
    Frame(Vec<u8>),
    Closed,
    Timeout,
    Failed(String),
}

fn read_reply(stream: &mut TcpStream, limit: u32, timeout: Duration) -> Reply {
    let _ = stream.set_read_timeout(Some(timeout));
    let mut prefix = [0u8; 4];
    let mut filled = 0;
    while filled < 4 {
        match stream.read(&mut prefix[filled..]) {
            Ok(0) if filled == 0 => return Reply::Closed,
            Ok(0) => return Reply::Failed("the reply's length prefix is cut off".into()),
            Ok(count) => filled += count,
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Reply::Timeout;
            }
            Err(error) if error.kind() == ErrorKind::Interrupted => {}
            Err(error) if error.kind() == ErrorKind::ConnectionReset => return Reply::Closed,
            Err(error) => return Reply::Failed(error.to_string()),
        }
    }
    let size = u32::from_be_bytes(prefix);
    if size > limit {
        return Reply::Failed(format!("a {size}-byte reply over the limit of {limit}"));
    }
    let mut payload = vec![0u8; size as usize];
    match stream.read_exact(&mut payload) {
        Ok(()) => Reply::Frame(payload),
        Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
            Reply::Timeout
        }
        Err(error) => Reply::Failed(format!("the reply is cut off: {error}")),
    }
}

/// Whether `chunk` is one whole frame (its prefix says its length), and
/// whether its prefix is over `limit`.
fn frame_shape(chunk: &[u8], limit: u32) -> (bool, bool) {
    if chunk.len() < 4 {
        return (false, false);
    }
    let size = u32::from_be_bytes(chunk[..4].try_into().expect("4 bytes"));
    (
        size as usize == chunk.len() - 4 && size <= limit,
        size > limit,
    )
}

pub(super) type Found = (Signature, String);

pub(super) fn found(text: impl AsRef<str>, detail: impl Into<String>) -> Found {
    (
        Signature {
            kind: Kind::Server,
            text: normalize(text.as_ref()),
        },
        detail.into(),
    )
}

/// What one conversation did.
#[derive(Debug, Default)]
pub(super) struct Conversation {
    pub(super) frames: usize,
    pub(super) replies: Vec<&'static str>,
}

fn response_name(response: &Response) -> &'static str {
    match response {
        Response::Done => "Done",
        Response::Launched { .. } => "Launched",
        Response::Token(_) => "Token",
        Response::CallResult(_) => "CallResult",
        Response::Failed { .. } => "Failed",
        Response::Crashed { .. } => "Crashed",
        Response::Pong { .. } => "Pong",
        Response::Clock { .. } => "Clock",
        Response::Steps(_) => "Steps",
    }
}

/// Sends `chunks` on a new connection, the first as the handshake, each
/// next one once the previous got its answer; stops at a chunk that is not a
/// whole frame, or when the server ends the session. The finding, if any.
pub(super) fn converse(
    address: SocketAddr,
    chunks: &[Vec<u8>],
    log: &mut Conversation,
) -> Result<(), Found> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5))
        .map_err(|error| found("cannot connect", error.to_string()))?;
    let _ = stream.set_write_timeout(Some(Duration::from_secs(5)));
    let _ = stream.set_nodelay(true);
    let legit_hello = encode_frame(
        &Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Some(TOKEN.into()),
        },
        HANDSHAKE_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let mut limit: Option<u32> = None; // Some after Welcome: the session's limit.
    for (index, chunk) in chunks.iter().enumerate() {
        if stream.write_all(chunk).is_err() {
            // The server may close a session it refused or ended.
            return Ok(());
        }
        log.frames += 1;
        let frame_limit = limit.unwrap_or(HANDSHAKE_MAX_MESSAGE_SIZE);
        let (whole, oversized) = frame_shape(chunk, frame_limit);
        if !whole && !oversized {
            // Mid-frame: the server waits for the rest, so nothing is
            // expected; but a worker that dies on what it has read so far
            // says so at once.
            if limit.is_some()
                && let Reply::Frame(reply) = read_reply(&mut stream, u32::MAX, PARTIAL_FRAME_WAIT)
                && let Ok(Response::Crashed { symbol, signal }) = decode_payload::<Response>(&reply)
            {
                return Err(found(
                    format!(
                        "a worker died by signal {signal} (running {symbol:?}) on part of a frame"
                    ),
                    format!(
                        "Crashed {{ symbol: {symbol:?}, signal: {signal} }} (the server's log in the work directory says more)"
                    ),
                ));
            }
            return Ok(());
        }
        let what = if limit.is_none() { "Hello" } else { "request" };
        let reply = match read_reply(&mut stream, u32::MAX, ANSWER_TIMEOUT) {
            Reply::Frame(payload) => payload,
            Reply::Closed => {
                return Err(found(
                    format!("the connection was closed without an answer to a whole {what} frame"),
                    format!("frame {index} of {}", chunks.len()),
                ));
            }
            Reply::Timeout => {
                return Err(found(
                    format!(
                        "no answer to a whole {what} frame in {} s",
                        ANSWER_TIMEOUT.as_secs()
                    ),
                    format!("frame {index} of {}", chunks.len()),
                ));
            }
            Reply::Failed(error) => {
                return Err(found(format!("a broken reply to a {what} frame"), error));
            }
        };
        match limit {
            None => match decode_payload::<HelloReply>(&reply) {
                Ok(
                    HelloReply::Welcome {
                        max_message_size, ..
                    }
                    | HelloReply::WelcomeWithTriple {
                        max_message_size, ..
                    },
                ) => {
                    log.replies.push("Welcome");
                    limit = Some(max_message_size);
                }
                Ok(HelloReply::Refused { reason }) => {
                    log.replies.push("Refused");
                    if *chunk == legit_hello {
                        return Err(found("the token's Hello is refused", reason));
                    }
                    return Ok(());
                }
                Err(error) => {
                    return Err(found(
                        "the reply to a Hello is not a HelloReply",
                        format!("{error}: {}", crate::shared::findings::hex(&reply)),
                    ));
                }
            },
            Some(_) => match decode_payload::<Response>(&reply) {
                Ok(Response::Crashed { symbol, signal }) => {
                    let log_hint = "(the server's log in the work directory says more)";
                    return Err(found(
                        format!(
                            "a worker died by signal {signal} (running {symbol:?}) though no client code ran"
                        ),
                        format!("Crashed {{ symbol: {symbol:?}, signal: {signal} }} {log_hint}"),
                    ));
                }
                Ok(response) => {
                    log.replies.push(response_name(&response));
                    let closing = oversized
                        || (response == Response::Done
                            && decode_payload::<Request>(&chunk[4..])
                                .is_ok_and(|r| r == Request::Close));
                    if closing {
                        return Ok(());
                    }
                }
                Err(error) => {
                    return Err(found(
                        "the reply to a request is not a Response",
                        format!("{error}: {}", crate::shared::findings::hex(&reply)),
                    ));
                }
            },
        }
    }
    // Done: hang up (half the time the client says Close first, as chunks do).
    let _ = stream.shutdown(Shutdown::Both);
    Ok(())
}

/// A legitimate client: handshake with the token, a call of a symbol no
/// library has (answered Failed), Close (answered Done).
pub(super) fn legitimate_client(address: SocketAddr) -> Result<(), Found> {
    let hello = encode_frame(
        &Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Some(TOKEN.into()),
        },
        HANDSHAKE_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let call = encode_frame(
        &Request::Call {
            symbol: "executor_fuzz_no_such_symbol".into(),
            layout: Layout::ThisProject,
            arguments: packed::encode_arguments(&CallArguments {
                buffers: Vec::new(),
                num_inputs: 0,
            }),
        },
        DEFAULT_MAX_MESSAGE_SIZE,
    )
    .expect("small");
    let close = encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small");
    let mut log = Conversation::default();
    converse(address, &[hello, call, close], &mut log)?;
    if log.replies != ["Welcome", "Failed", "Done"] {
        return Err(found(
            "a legitimate client is not served",
            format!("replies {:?}", log.replies),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake server on loopback that answers every connection with `reply`
    /// (None: closes without a word) after reading what the client sent.
    fn fake_server(reply: Option<Vec<u8>>) -> SocketAddr {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            if let Ok((mut stream, _)) = listener.accept() {
                let mut buffer = [0u8; 256];
                let _ = stream.read(&mut buffer);
                if let Some(reply) = reply {
                    let _ = stream.write_all(&reply);
                }
            }
        });
        address
    }

    fn legit_hello() -> Vec<u8> {
        encode_frame(
            &Hello {
                protocol_version: PROTOCOL_VERSION,
                token: Some(TOKEN.into()),
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .unwrap()
    }

    #[test]
    fn a_server_that_answers_garbage_is_a_finding() {
        let address = fake_server(Some(vec![0, 0, 0, 2, 7, 7]));
        let (signature, _) =
            converse(address, &[legit_hello()], &mut Conversation::default()).unwrap_err();
        assert_eq!(signature.kind, Kind::Server);
        assert_eq!(signature.text, "the reply to a Hello is not a HelloReply");
    }

    #[test]
    fn a_server_that_hangs_up_on_a_whole_frame_is_a_finding() {
        let address = fake_server(None);
        let (signature, _) =
            converse(address, &[legit_hello()], &mut Conversation::default()).unwrap_err();
        assert_eq!(
            signature.text,
            "the connection was closed without an answer to a whole Hello frame"
        );
    }

    #[test]
    fn a_crashed_worker_is_a_finding() {
        let welcome = encode_frame(
            &HelloReply::WelcomeWithTriple {
                protocol_version: PROTOCOL_VERSION,
                max_message_size: 1 << 20,
                triple: "x86_64-pc-linux-gnu".into(),
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .unwrap();
        let crashed = encode_frame(
            &Response::Crashed {
                symbol: String::new(),
                signal: 11,
            },
            1 << 20,
        )
        .unwrap();
        let mut reply = welcome;
        reply.extend(crashed);
        let address = fake_server(Some(reply));
        let close = encode_frame(&Request::Close, 1 << 20).unwrap();
        let (signature, _) = converse(
            address,
            &[legit_hello(), close],
            &mut Conversation::default(),
        )
        .unwrap_err();
        assert!(
            signature.text.starts_with("a worker died by signal N"),
            "{}",
            signature.text
        );
    }

    #[test]
    fn frame_shapes() {
        assert_eq!(frame_shape(&[0, 0, 0, 1, 7], 10), (true, false));
        assert_eq!(frame_shape(&[0, 0, 0, 2, 7], 10), (false, false));
        assert_eq!(frame_shape(&[0, 0, 0, 20, 7], 10), (false, true));
        assert_eq!(frame_shape(&[0, 0], 10), (false, false));
    }
}
