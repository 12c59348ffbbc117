//! The wire protocol between a [`RemoteExecutor`](crate::remote::RemoteExecutor)
//! and `executor-server` (docs/protocol.md has the full description).
//!
//! Every message is a frame: a `u32` big-endian length, then that many bytes of
//! a postcard-encoded message. The length is checked against a limit before
//! anything is allocated for the payload, and decoding never panics: a short,
//! oversized or malformed frame is a [`ProtocolError`].
//!
//! A connection starts with a handshake ([`Hello`], answered by a
//! [`HelloReply`]), then carries [`Request`]s, each answered by exactly one
//! [`Response`], mirroring the [`Executor`](crate::executor::Executor) trait.

use std::{
    io::{self, IoSlice, Read, Write},
    path::Path,
};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use thiserror::Error;

use crate::{
    error::RuntimeError,
    executor::BinaryFormat,
    memref::{DenseBuffer, DenseView},
};

/// The version this build speaks. Bump it on any change to [`Request`] or
/// [`Response`]; [`Hello`] and [`HelloReply`] never change, so that peers of
/// different versions can always tell each other so.
pub const PROTOCOL_VERSION: u32 = 1;

/// The default limit on one message's payload: 256 MiB.
pub const DEFAULT_MAX_MESSAGE_SIZE: u32 = 256 * 1024 * 1024;

/// The limit on handshake messages, which carry nothing bigger than a token.
pub const HANDSHAKE_MAX_MESSAGE_SIZE: u32 = 64 * 1024;

const LENGTH_PREFIX_SIZE: usize = 4;

/// How much of a payload is allocated as soon as its length is known (and
/// accepted); a longer one grows as its bytes arrive. Reserving is cheap, as
/// pages are only touched as bytes are written, and saves the reallocations
/// of a growing buffer; the bound keeps a length prefix alone from reserving
/// the whole limit.
const INITIAL_PAYLOAD_CAPACITY: u32 = 64 * 1024 * 1024;

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
        #[serde(with = "raw_bytes")]
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
    /// Calls `symbol` with `arguments` in the layout of `crate::packed`.
    /// Answered by [`Response::CallResult`].
    Call {
        symbol: String,
        #[serde(with = "raw_bytes")]
        arguments: Vec<u8>,
    },
    /// Waits for outstanding async launches and ends the session. Answered by
    /// [`Response::Done`], after which the server closes the connection.
    Close,
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
    CallResult(#[serde(with = "raw_bytes")] Vec<u8>),
    /// The request failed; the session goes on.
    Failed {
        message: String,
    },
    /// The session's worker died by `signal` while running `symbol`; the
    /// server closes the connection after this.
    Crashed {
        symbol: String,
        signal: i32,
    },
}

#[derive(Debug, Error)]
pub enum ProtocolError {
    #[error("the connection was closed")]
    Closed,
    #[error(
        "the connection was closed in the middle of a message ({received} of {expected} bytes)"
    )]
    Truncated { received: usize, expected: usize },
    #[error("a {size}-byte message exceeds the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u32 },
    #[error("malformed message: {0}")]
    Malformed(String),
    #[error(transparent)]
    Io(#[from] io::Error),
}

impl From<ProtocolError> for RuntimeError {
    fn from(error: ProtocolError) -> Self {
        RuntimeError::Protocol(error.to_string())
    }
}

/// The read buffer of a connection: room for every small frame, so reading one
/// takes one system call.
pub const READ_BUFFER_SIZE: usize = 64 * 1024;

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
    let size = read_length_prefix(reader, max_size)?;
    let mut payload = Vec::with_capacity(size.min(INITIAL_PAYLOAD_CAPACITY) as usize);
    reader.take(size.into()).read_to_end(&mut payload)?;
    if payload.len() < size as usize {
        return Err(ProtocolError::Truncated {
            received: LENGTH_PREFIX_SIZE + payload.len(),
            expected: LENGTH_PREFIX_SIZE + size as usize,
        });
    }
    Ok(payload)
}

/// Reads a frame's length prefix and checks it against `max_size`.
fn read_length_prefix(reader: &mut impl Read, max_size: u32) -> Result<u32, ProtocolError> {
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

/// The variant index of [`Request::Launch`] on the wire.
const LAUNCH_VARIANT: u32 = 1;

/// A [`Request::Launch`] as one frame, written without copying its inputs'
/// bytes: the bytes postcard encodes around the inputs' data, and the data
/// itself, sent with vectored writes from where it is (a memref's own buffer,
/// see [`crate::memref::Descriptor::dense_view`]). On the wire it is exactly
/// the frame [`encode_frame`] makes of the same request.
pub struct LaunchFrame<'a> {
    /// The length prefix and every byte of the payload but the inputs' data.
    encoded: Vec<u8>,
    /// Each input's data, after how many bytes of `encoded` it goes.
    inputs: Vec<(usize, &'a [u8])>,
}

impl<'a> LaunchFrame<'a> {
    /// Encodes the launch, refusing a payload over `max_size` bytes.
    pub fn new(
        entry: &str,
        object: &str,
        inputs: &'a [DenseView<'_>],
        outputs: &[OutputShape],
        max_size: u32,
    ) -> Result<Self, ProtocolError> {
        let mut encoded = vec![0u8; LENGTH_PREFIX_SIZE];
        let mut data = Vec::with_capacity(inputs.len());
        push_varint(&mut encoded, LAUNCH_VARIANT.into());
        push_bytes(&mut encoded, entry.as_bytes());
        push_bytes(&mut encoded, object.as_bytes());
        push_varint(&mut encoded, inputs.len() as u64);
        let mut size = 0u64;
        for input in inputs {
            push_varint(&mut encoded, input.element_size);
            push_varint(&mut encoded, input.sizes.len() as u64);
            for dimension in &input.sizes {
                push_varint(&mut encoded, zigzag(*dimension));
            }
            push_varint(&mut encoded, input.data.len() as u64);
            data.push((encoded.len(), &*input.data));
            size += input.data.len() as u64;
        }
        push_varint(&mut encoded, outputs.len() as u64);
        for output in outputs {
            push_varint(&mut encoded, output.rank);
            push_varint(&mut encoded, output.element_size);
        }
        size += (encoded.len() - LENGTH_PREFIX_SIZE) as u64;
        let length = u32::try_from(size)
            .ok()
            .filter(|length| *length <= max_size)
            .ok_or(ProtocolError::TooLarge {
                size,
                limit: max_size,
            })?;
        encoded[..LENGTH_PREFIX_SIZE].copy_from_slice(&length.to_be_bytes());
        Ok(Self {
            encoded,
            inputs: data,
        })
    }

    /// Writes the frame (it is not buffered, so there is nothing to flush).
    pub fn write_to(&self, writer: &mut impl Write) -> io::Result<()> {
        let mut slices = Vec::with_capacity(2 * self.inputs.len() + 1);
        let mut start = 0;
        for (end, data) in &self.inputs {
            slices.push(IoSlice::new(&self.encoded[start..*end]));
            slices.push(IoSlice::new(data));
            start = *end;
        }
        slices.push(IoSlice::new(&self.encoded[start..]));
        slices.retain(|slice| !slice.is_empty());
        let mut slices = &mut slices[..];
        while !slices.is_empty() {
            match writer.write_vectored(slices) {
                Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
                Ok(written) => IoSlice::advance_slices(&mut slices, written),
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(error),
            }
        }
        Ok(())
    }

    /// The whole frame in one buffer (for tests and tools).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut frame = Vec::new();
        self.write_to(&mut frame).expect("a Vec takes every byte");
        frame
    }
}

/// Reads one [`Request`] frame, as [`read_message`] does, except that a
/// `Launch`'s input bytes are read straight from `reader` into buffers taken
/// from `spare` (which the caller fills with the buffers of earlier launches,
/// so that a launch like the last one reads into memory that is already
/// there) or else new ones. The limits and errors are those of
/// [`read_message`]; a malformed frame is read to its end before the error is
/// returned, so the next frame can be read. `reader` should be buffered: the
/// fields around the data are read a few bytes at a time.
pub fn read_request(
    reader: &mut impl Read,
    max_size: u32,
    spare: &mut Vec<Vec<u8>>,
) -> Result<Request, ProtocolError> {
    let size = read_length_prefix(reader, max_size)?;
    let mut body = FrameBody {
        reader,
        size: size as usize,
        consumed: 0,
    };
    let request = body.request(spare);
    if let Err(ProtocolError::Malformed(_)) = request {
        body.skip_rest()?;
    }
    request
}

/// The payload of one frame, read field by field.
struct FrameBody<'r, R> {
    reader: &'r mut R,
    size: usize,
    consumed: usize,
}

fn past_the_end() -> ProtocolError {
    ProtocolError::Malformed("the message runs past the end of its frame".to_owned())
}

impl<R: Read> FrameBody<'_, R> {
    fn left(&self) -> usize {
        self.size - self.consumed
    }

    fn truncated(&self, partial: usize) -> ProtocolError {
        ProtocolError::Truncated {
            received: LENGTH_PREFIX_SIZE + self.consumed + partial,
            expected: LENGTH_PREFIX_SIZE + self.size,
        }
    }

    fn request(&mut self, spare: &mut Vec<Vec<u8>>) -> Result<Request, ProtocolError> {
        let variant = self.varint(5, 0x0f)?;
        if variant != u64::from(LAUNCH_VARIANT) {
            // Everything but a launch is small, or a single byte vector
            // decoded in one copy: read it whole, as read_message does.
            let mut payload = Vec::with_capacity(self.size.min(INITIAL_PAYLOAD_CAPACITY as usize));
            push_varint(&mut payload, variant);
            let expected = self.left();
            let received = (&mut *self.reader)
                .take(expected as u64)
                .read_to_end(&mut payload)?;
            if received < expected {
                return Err(self.truncated(received));
            }
            self.consumed += received;
            return decode_payload(&payload);
        }
        let entry = self.string()?;
        let object = self.string()?;
        // Each input takes at least 3 bytes: no more can be in the frame.
        let count = self.length()?;
        let mut inputs = Vec::with_capacity(count.min(self.left() / 3));
        for _ in 0..count {
            let element_size = self.varint(10, 0x01)?;
            let rank = self.length()?;
            let mut sizes = Vec::with_capacity(rank.min(self.left()));
            for _ in 0..rank {
                let encoded = self.varint(10, 0x01)?;
                sizes.push((encoded >> 1) as i64 ^ -((encoded & 1) as i64));
            }
            let len = self.length()?;
            let mut data = take_spare(spare, len);
            self.bytes_into(&mut data, len)?;
            inputs.push(DenseBuffer {
                element_size,
                sizes,
                data,
            });
        }
        // Each output takes 2 bytes.
        let count = self.length()?;
        let mut outputs = Vec::with_capacity(count.min(self.left() / 2));
        for _ in 0..count {
            outputs.push(OutputShape {
                rank: self.varint(10, 0x01)?,
                element_size: self.varint(10, 0x01)?,
            });
        }
        if self.left() > 0 {
            return Err(ProtocolError::Malformed(format!(
                "{} bytes after the end of the message",
                self.left()
            )));
        }
        Ok(Request::Launch {
            entry,
            object,
            inputs,
            outputs,
        })
    }

    /// Fills `buffer` from the frame.
    fn exact(&mut self, buffer: &mut [u8]) -> Result<(), ProtocolError> {
        if buffer.len() > self.left() {
            return Err(past_the_end());
        }
        let received = read_up_to(self.reader, buffer)?;
        if received < buffer.len() {
            return Err(self.truncated(received));
        }
        self.consumed += received;
        Ok(())
    }

    /// A postcard varint of at most `max_bytes` bytes, the last of them at
    /// most `max_last` (so that it fits its type).
    fn varint(&mut self, max_bytes: usize, max_last: u8) -> Result<u64, ProtocolError> {
        let mut value = 0u64;
        for index in 0..max_bytes {
            let mut byte = [0u8];
            self.exact(&mut byte)?;
            let byte = byte[0];
            value |= u64::from(byte & 0x7f) << (7 * index);
            if byte & 0x80 == 0 {
                if index == max_bytes - 1 && byte > max_last {
                    break;
                }
                return Ok(value);
            }
        }
        Err(ProtocolError::Malformed("an over-long varint".to_owned()))
    }

    /// A length (of a string, a sequence or bytes), as a `usize`.
    fn length(&mut self) -> Result<usize, ProtocolError> {
        let length = self.varint(10, 0x01)?;
        usize::try_from(length).map_err(|_| past_the_end())
    }

    fn string(&mut self) -> Result<String, ProtocolError> {
        let len = self.length()?;
        if len > self.left() {
            return Err(past_the_end());
        }
        let mut bytes = vec![0u8; len];
        self.exact(&mut bytes)?;
        String::from_utf8(bytes).map_err(|error| {
            ProtocolError::Malformed(format!("a string that is not UTF-8: {error}"))
        })
    }

    /// Reads `len` bytes into `buffer`, replacing what it held: into the
    /// bytes it already has as far as they go, then into new capacity, which
    /// grows as the bytes arrive (at most 64 MiB is reserved ahead of them).
    fn bytes_into(&mut self, buffer: &mut Vec<u8>, len: usize) -> Result<(), ProtocolError> {
        if len > self.left() {
            return Err(past_the_end());
        }
        let reused = buffer.len().min(len);
        buffer.truncate(reused);
        self.exact(buffer)?;
        let rest = len - reused;
        if rest > 0 {
            buffer.reserve_exact(rest.min(INITIAL_PAYLOAD_CAPACITY as usize));
            let received = (&mut *self.reader).take(rest as u64).read_to_end(buffer)?;
            if received < rest {
                return Err(self.truncated(received));
            }
            self.consumed += received;
        }
        Ok(())
    }

    /// Reads and drops what is left of the frame.
    fn skip_rest(&mut self) -> Result<(), ProtocolError> {
        let expected = self.left();
        let skipped = io::copy(
            &mut (&mut *self.reader).take(expected as u64),
            &mut io::sink(),
        )? as usize;
        if skipped < expected {
            return Err(self.truncated(skipped));
        }
        self.consumed += skipped;
        Ok(())
    }
}

/// The spare buffer that fits `len` bytes most tightly, else the largest
/// (which grows), else a new one.
fn take_spare(spare: &mut Vec<Vec<u8>>, len: usize) -> Vec<u8> {
    let fitting = spare
        .iter()
        .enumerate()
        .filter(|(_, buffer)| buffer.capacity() >= len)
        .min_by_key(|(_, buffer)| buffer.capacity())
        .map(|(index, _)| index);
    let chosen = fitting.or_else(|| {
        spare
            .iter()
            .enumerate()
            .max_by_key(|(_, buffer)| buffer.capacity())
            .map(|(index, _)| index)
    });
    chosen.map_or_else(Vec::new, |index| spare.swap_remove(index))
}

fn push_varint(bytes: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        bytes.push(value as u8 | 0x80);
        value >>= 7;
    }
    bytes.push(value as u8);
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn push_bytes(bytes: &mut Vec<u8>, data: &[u8]) {
    push_varint(bytes, data.len() as u64);
    bytes.extend_from_slice(data);
}

/// Fills `buffer` unless the stream ends first; returns how many bytes it got.
fn read_up_to(reader: &mut impl Read, buffer: &mut [u8]) -> io::Result<usize> {
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

/// Reads a token file as both ends do: surrounding whitespace (a trailing
/// newline, say) is not part of the token, and an empty token is an error.
pub fn read_token_file(path: &Path) -> io::Result<String> {
    let token = std::fs::read_to_string(path)?.trim().to_owned();
    if token.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "the token file is empty",
        ));
    }
    Ok(token)
}

/// Byte vectors as serde "bytes": on the wire exactly what a sequence of `u8`
/// is in postcard (a varint length, then the bytes), but encoded and decoded
/// in one copy instead of byte by byte.
pub(crate) mod raw_bytes {
    use serde::{Deserializer, Serializer, de};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_byte_buf(BytesVisitor)
    }

    struct BytesVisitor;

    impl<'de> de::Visitor<'de> for BytesVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
            formatter.write_str("bytes")
        }

        fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
            Ok(bytes.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(bytes)
        }

        fn visit_seq<A: de::SeqAccess<'de>>(self, mut sequence: A) -> Result<Vec<u8>, A::Error> {
            // Formats without a bytes type hand the bytes over one by one.
            let mut bytes = Vec::with_capacity(sequence.size_hint().unwrap_or(0).min(4096));
            while let Some(byte) = sequence.next_element()? {
                bytes.push(byte);
            }
            Ok(bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::fmt::Debug;

    use super::*;

    fn dense(sizes: Vec<i64>, element_size: u64) -> DenseBuffer {
        let len = DenseBuffer::expected_len(element_size, &sizes).unwrap();
        DenseBuffer {
            element_size,
            sizes,
            data: (0..len).map(|index| index as u8).collect(),
        }
    }

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

    fn sample_requests() -> Vec<Request> {
        vec![
            Request::SendBinary {
                name: "/tmp/kernel.o".into(),
                format: BinaryFormat::RelocatableObject,
                bytes: b"\x7fELF and the rest".to_vec(),
            },
            Request::SendBinary {
                name: "lib.so".into(),
                format: BinaryFormat::SharedLibrary,
                bytes: Vec::new(),
            },
            Request::Launch {
                entry: "add".into(),
                object: "kernel.o".into(),
                inputs: vec![dense(vec![4], 4), dense(vec![], 8), dense(vec![2, 0], 2)],
                outputs: vec![OutputShape {
                    rank: 1,
                    element_size: 4,
                }],
            },
            Request::LaunchAsync {
                entry: "warm_up".into(),
                object: "kernel.o".into(),
            },
            Request::Await(u64::MAX),
            Request::Call {
                symbol: "scale".into(),
                arguments: vec![1, 2, 3, 4, 5, 6, 7, 8],
            },
            Request::Close,
        ]
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
        ] {
            round_trip(response);
        }
    }

    #[test]
    fn raw_bytes_are_encoded_like_a_sequence_of_u8() {
        // The bytes helper is an optimization, not a format change.
        #[derive(Serialize)]
        struct AsSequence(Vec<u8>);
        let bytes = vec![9u8; 300];
        let as_bytes = postcard::to_stdvec(&Response::CallResult(bytes.clone())).unwrap();
        let mut as_sequence = postcard::to_stdvec(&3u32).unwrap();
        as_sequence.extend(postcard::to_stdvec(&AsSequence(bytes)).unwrap());
        assert_eq!(as_bytes, as_sequence);
    }

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

    /// A reader that fails the test if anything past the length prefix is read.
    struct PrefixOnly {
        prefix: [u8; 4],
        position: usize,
    }

    impl Read for PrefixOnly {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            assert!(
                self.position < 4,
                "the payload of an oversized frame was read"
            );
            let count = buffer.len().min(4 - self.position);
            buffer[..count].copy_from_slice(&self.prefix[self.position..self.position + count]);
            self.position += count;
            Ok(count)
        }
    }

    #[test]
    fn an_oversized_length_prefix_is_rejected_before_reading_the_payload() {
        for (size, limit) in [(u32::MAX, DEFAULT_MAX_MESSAGE_SIZE), (1025, 1024)] {
            let mut reader = PrefixOnly {
                prefix: size.to_be_bytes(),
                position: 0,
            };
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

    fn frame_of(payload: &[u8]) -> Vec<u8> {
        let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
        frame.extend_from_slice(payload);
        frame
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

    fn launch_of(inputs: Vec<DenseBuffer>, outputs: Vec<OutputShape>) -> Request {
        Request::Launch {
            entry: "_mlir_ciface_é".into(),
            object: "/tmp/kernels.o".into(),
            inputs,
            outputs,
        }
    }

    fn launch_requests() -> Vec<Request> {
        let shape = |rank, element_size| OutputShape { rank, element_size };
        vec![
            launch_of(Vec::new(), Vec::new()),
            launch_of(vec![dense(vec![256], 4)], vec![shape(1, 4)]),
            launch_of(
                vec![
                    dense(vec![3, 70], 8),
                    dense(vec![], 2),
                    dense(vec![0, 5], 4),
                ],
                vec![shape(2, 8), shape(0, 1), shape(u64::MAX, u64::MAX)],
            ),
            launch_of(
                vec![DenseBuffer {
                    element_size: u64::MAX,
                    sizes: vec![i64::MIN, -1, i64::MAX],
                    data: vec![1, 2, 3],
                }],
                Vec::new(),
            ),
        ]
    }

    fn views(request: &Request) -> Vec<DenseView<'_>> {
        let Request::Launch { inputs, .. } = request else {
            unreachable!()
        };
        inputs
            .iter()
            .map(|input| DenseView {
                element_size: input.element_size,
                sizes: input.sizes.clone(),
                data: std::borrow::Cow::Borrowed(&input.data),
            })
            .collect()
    }

    fn launch_frame(request: &Request, max_size: u32) -> Result<Vec<u8>, ProtocolError> {
        let Request::Launch {
            entry,
            object,
            outputs,
            ..
        } = request
        else {
            unreachable!()
        };
        let views = views(request);
        LaunchFrame::new(entry, object, &views, outputs, max_size).map(|frame| frame.to_vec())
    }

    #[test]
    fn a_launch_frame_is_the_frame_of_the_same_request() {
        for request in launch_requests() {
            assert_eq!(
                launch_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap(),
                encode_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap(),
                "{request:?}"
            );
        }
    }

    #[test]
    fn a_launch_frame_over_the_limit_is_refused() {
        let request = launch_of(vec![dense(vec![1024], 2)], Vec::new());
        let views = views(&request);
        let refused = LaunchFrame::new("f", "o", &views, &[], 1024);
        assert!(
            matches!(refused, Err(ProtocolError::TooLarge { limit: 1024, .. })),
            "the request is refused before anything is written"
        );
    }

    /// A writer that takes at most 7 bytes per call, as a full socket might.
    struct Trickle(Vec<u8>);

    impl Write for Trickle {
        fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
            let count = buffer.len().min(7);
            self.0.extend_from_slice(&buffer[..count]);
            Ok(count)
        }

        fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
            let first = buffers.iter().find(|buffer| !buffer.is_empty());
            first.map_or(Ok(0), |buffer| self.write(buffer))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_launch_frame_survives_short_writes() {
        for request in launch_requests() {
            let views = views(&request);
            let Request::Launch {
                entry,
                object,
                outputs,
                ..
            } = &request
            else {
                unreachable!()
            };
            let frame = LaunchFrame::new(entry, object, &views, outputs, u32::MAX).unwrap();
            let mut trickle = Trickle(Vec::new());
            frame.write_to(&mut trickle).unwrap();
            assert_eq!(trickle.0, frame.to_vec());
        }
    }

    #[test]
    fn read_request_reads_what_read_message_reads() {
        let mut requests = sample_requests();
        requests.extend(launch_requests());
        // No spare buffers, too small ones, larger ones, and several.
        let spares: Vec<Vec<Vec<u8>>> = vec![
            Vec::new(),
            vec![vec![9; 3]],
            vec![Vec::with_capacity(10_000), vec![9; 5000]],
            vec![vec![1; 100], vec![2; 2000], vec![3; 1]],
        ];
        for request in &requests {
            let frame = encode_frame(request, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
            for spare in &spares {
                let mut spare = spare.clone();
                let read =
                    read_request(&mut frame.as_slice(), DEFAULT_MAX_MESSAGE_SIZE, &mut spare);
                assert_eq!(read.unwrap(), *request);
            }
        }
    }

    #[test]
    fn read_request_reports_truncation_like_read_message() {
        let mut requests = sample_requests();
        requests.extend(launch_requests());
        for request in requests {
            let frame = encode_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap();
            for len in 0..frame.len() {
                let mut spare = vec![vec![5u8; 40]];
                let result = read_request(&mut &frame[..len], DEFAULT_MAX_MESSAGE_SIZE, &mut spare);
                match (len, result) {
                    (0, Err(ProtocolError::Closed)) => {}
                    (_, Err(ProtocolError::Truncated { received, expected })) => {
                        assert_eq!(
                            (received, expected.max(len)),
                            (len, expected),
                            "{request:?}"
                        )
                    }
                    (_, other) => panic!("a {len}-byte prefix of {request:?} gave {other:?}"),
                }
            }
        }
    }

    #[test]
    fn read_request_rejects_what_read_message_rejects_and_stays_in_step() {
        let mut cases: Vec<Vec<u8>> = vec![
            vec![],
            vec![200],
            vec![2, 0xff, 0xff, 0x03, b'a'],
            vec![2, 2, 0xc3, 0x28, 0],
            vec![4, 1, b'f', 0xff, 0xff, 0xff, 0x0f],
            vec![
                3, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1,
            ],
            vec![5, 0],
            // Launches: a bad UTF-8 entry, a data length past the frame, an
            // over-long varint in the sizes, trailing bytes, a too-large variant.
            vec![1, 2, 0xc3, 0x28, 0, 0, 0],
            vec![1, 1, b'f', 1, b'o', 1, 4, 1, 2, 0x7f, 1, 2, 3],
            vec![
                1, 0, 0, 1, 4, 1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
            ],
            vec![1, 0, 0, 0, 0, 9, 9],
            vec![0x81, 0x80, 0x80, 0x80, 0x10],
        ];
        let valid = encode_frame(&Request::Await(7), 1024).unwrap();
        for payload in cases.drain(..) {
            assert!(
                matches!(
                    read_message::<Request>(&mut frame_of(&payload).as_slice(), 1024),
                    Err(ProtocolError::Malformed(_))
                ),
                "read_message accepts {payload:?}"
            );
            let mut stream = frame_of(&payload);
            stream.extend_from_slice(&valid);
            let mut reader = stream.as_slice();
            let result = read_request(&mut reader, 1024, &mut Vec::new());
            assert!(
                matches!(result, Err(ProtocolError::Malformed(_))),
                "{payload:?}: {result:?}"
            );
            assert_eq!(
                read_request(&mut reader, 1024, &mut Vec::new()).unwrap(),
                Request::Await(7),
                "the frame after {payload:?} is read"
            );
        }
    }

    #[test]
    fn read_request_rejects_an_oversized_length_before_reading_the_payload() {
        let mut reader = PrefixOnly {
            prefix: 1025u32.to_be_bytes(),
            position: 0,
        };
        assert!(matches!(
            read_request(&mut reader, 1024, &mut Vec::new()),
            Err(ProtocolError::TooLarge {
                size: 1025,
                limit: 1024
            })
        ));
    }

    #[test]
    fn read_request_never_panics_on_garbage() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut spare = Vec::new();
        for _ in 0..20_000 {
            let len = (next() % 64) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            if let Some(first) = bytes.first_mut() {
                // Mostly launches, the variant with a decoder of its own.
                if next() % 4 != 0 {
                    *first = 1;
                }
            }
            let _ = read_request(&mut frame_of(&bytes).as_slice(), 1024, &mut spare);
            let _ = read_request(&mut bytes.as_slice(), 1024, &mut spare);
        }
    }

    #[test]
    fn token_files_are_trimmed_and_must_not_be_empty() {
        let directory = tempfile::tempdir().unwrap();
        let path = directory.path().join("token");
        std::fs::write(&path, "  s3cret\n").unwrap();
        assert_eq!(read_token_file(&path).unwrap(), "s3cret");
        std::fs::write(&path, "\n").unwrap();
        assert!(read_token_file(&path).is_err());
    }
}
