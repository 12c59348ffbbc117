//! The oracles of one input: the two readers of a request agree, what
//! decodes encodes again to itself (and a launch to the bytes `LaunchFrame`
//! writes), the stream reads right after a whole frame, and call buffers
//! decode to buffers whose data match their sizes.

use executor_buffers::{memref::DenseView, packed};
use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, Hello, HelloReply, LaunchFrame, ProtocolError, Request, Response,
    encode_frame, read_message, read_request,
};
use serde::{Serialize, de::DeserializeOwned};

use super::{
    Decoder,
    guard::{Found, found, guarded},
    seeds::view,
};
use crate::shared::{
    findings::hex,
    signature::{Kind, Signature},
};

fn category(error: &ProtocolError) -> &'static str {
    match error {
        ProtocolError::Closed => "closed",
        ProtocolError::Truncated { .. } => "truncated",
        ProtocolError::TooLarge { .. } => "too-large",
        ProtocolError::Malformed(_) => "malformed",
        ProtocolError::OverLimit(_) => "over-limit",
        ProtocolError::Io(_) => "io",
    }
}

/// Decodes a message, encodes it again, and decodes that.
fn round_trip<M>(what: &str, message: &M, limit: u32) -> Result<Vec<u8>, Found>
where
    M: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let encoded = encode_frame(message, limit).map_err(|error| {
        found(
            Kind::RoundTrip,
            format!(
                "{what}: a decoded message does not encode: {}",
                category(&error)
            ),
            format!("{error}"),
        )
    })?;
    let again: Result<M, _> = guarded(what, encoded.len(), || {
        read_message(&mut &encoded[..], limit)
    })?;
    match again {
        Ok(again) if again == *message => Ok(encoded),
        other => Err(found(
            Kind::RoundTrip,
            format!("{what}: a decoded message, encoded again, does not decode to itself"),
            format!("first {message:?}\nthen {other:?}"),
        )),
    }
}

/// Reads a frame then a `Close` after it, as both readers of requests.
fn check_resync(bytes: &[u8], limit: u32) -> Result<(), Found> {
    let close = encode_frame(&Request::Close, limit).expect("small");
    let mut stream = bytes.to_vec();
    stream.extend_from_slice(&close);
    let mut reader = &stream[..];
    let first: Result<Request, _> = guarded("read_message", stream.len(), || {
        read_message(&mut reader, limit)
    })?;
    if first.is_ok() || matches!(first, Err(ProtocolError::Malformed(_))) {
        let next: Result<Request, _> = guarded("read_message", stream.len(), || {
            read_message(&mut reader, limit)
        })?;
        if !matches!(next, Ok(Request::Close)) {
            return Err(found(
                Kind::Resync,
                "read_message: the frame after a whole frame is not read right",
                format!("first {first:?}, then {next:?}"),
            ));
        }
    }
    let mut reader = &stream[..];
    let mut spare = Vec::new();
    let first = guarded("read_request", stream.len(), || {
        read_request(&mut reader, limit, &mut spare)
    })?;
    if first.is_ok() || matches!(first, Err(ProtocolError::Malformed(_))) {
        let next = guarded("read_request", stream.len(), || {
            read_request(&mut reader, limit, &mut spare)
        })?;
        if !matches!(next, Ok(Request::Close)) {
            return Err(found(
                Kind::Resync,
                "read_request: the frame after a whole frame is not read right",
                format!("first {first:?}, then {next:?}"),
            ));
        }
    }
    Ok(())
}

fn check_request(bytes: &[u8]) -> Result<bool, Found> {
    let limit = DEFAULT_MAX_MESSAGE_SIZE;
    let len = bytes.len();
    let message: Result<Request, _> =
        guarded("read_message", len, || read_message(&mut &bytes[..], limit))?;
    // Spare buffers as a worker has them after earlier launches: one holding
    // old bytes, so that stale data would show.
    let mut spare = vec![Vec::new(), Vec::with_capacity(16), vec![0xa5; 64]];
    let streamed = guarded("read_request", len, || {
        read_request(&mut &bytes[..], limit, &mut spare)
    })?;
    match (&message, &streamed) {
        // read_request enforces the protocol's limits on counts and ranks
        // (docs/protocol.md, "Limits") before it reads what they count;
        // read_message, postcard's, has none.
        (_, Err(ProtocolError::OverLimit(_))) => {}
        (Ok(a), Ok(b)) if a != b => {
            return Err(found(
                Kind::Differential,
                "read_request and read_message decode different requests",
                format!("read_message: {a:?}\nread_request: {b:?}"),
            ));
        }
        (Ok(_), Err(error)) => {
            return Err(found(
                Kind::Differential,
                format!(
                    "read_request rejects what read_message accepts ({})",
                    category(error)
                ),
                format!("read_request: {error}\nread_message: {message:?}"),
            ));
        }
        (Err(error), Ok(_)) => {
            return Err(found(
                Kind::Differential,
                format!(
                    "read_request accepts what read_message rejects ({})",
                    category(error)
                ),
                format!("read_message: {error}\nread_request: {streamed:?}"),
            ));
        }
        (Err(a), Err(b)) if category(a) != category(b) => {
            return Err(found(
                Kind::Differential,
                format!(
                    "read_message fails as {}, read_request as {}",
                    category(a),
                    category(b)
                ),
                format!("read_message: {a}\nread_request: {b}"),
            ));
        }
        _ => {}
    }
    let consistent =
        len >= 4 && u32::from_be_bytes(bytes[..4].try_into().expect("4 bytes")) as usize == len - 4;
    if consistent {
        check_resync(bytes, limit)?;
    }
    let Ok(request) = message else {
        return Ok(false);
    };
    let encoded = round_trip("read_message", &request, limit)?;
    if let Request::Launch {
        entry,
        object,
        inputs,
        outputs,
    } = &request
    {
        let views: Vec<DenseView> = inputs.iter().map(view).collect();
        let frame = LaunchFrame::new(entry, object, &views, outputs, limit).map(|f| f.to_vec());
        // The client refuses a launch over the protocol's limits, which
        // read_message (postcard's) does not know.
        let over_limit = matches!(frame, Err(ProtocolError::OverLimit(_)));
        if !over_limit && frame.as_ref().ok() != Some(&encoded) {
            return Err(found(
                Kind::RoundTrip,
                "LaunchFrame does not write the bytes encode_frame does",
                format!(
                    "encode_frame: {}\nLaunchFrame: {:?}",
                    hex(&encoded),
                    frame.map(|f| hex(&f))
                ),
            ));
        }
    }
    Ok(true)
}

fn check_message<M>(what: &str, bytes: &[u8], limit: u32) -> Result<bool, Found>
where
    M: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let message: Result<M, _> =
        guarded(what, bytes.len(), || read_message(&mut &bytes[..], limit))?;
    match message {
        Ok(message) => round_trip(what, &message, limit).map(|_| true),
        Err(_) => Ok(false),
    }
}

fn check_call_buffer(decoder: Decoder, bytes: &[u8]) -> Result<bool, Found> {
    let len = bytes.len();
    let (what, buffers, encoded) = if decoder == Decoder::CallArguments {
        let Ok(arguments) = guarded("decode_arguments", len, || packed::decode_arguments(bytes))?
        else {
            return Ok(false);
        };
        let encoded = packed::encode_arguments(&arguments);
        let again = guarded("decode_arguments", encoded.len(), || {
            packed::decode_arguments(&encoded)
        })?;
        if again.as_ref().ok() != Some(&arguments) {
            return Err(found(
                Kind::RoundTrip,
                "decode_arguments: decoded, encoded again, does not decode to itself",
                format!("first {arguments:?}\nthen {again:?}"),
            ));
        }
        ("decode_arguments", arguments.buffers, encoded)
    } else {
        let Ok(outputs) = guarded("decode_outputs", len, || packed::decode_outputs(bytes))? else {
            return Ok(false);
        };
        let encoded = packed::encode_outputs(&outputs);
        let again = guarded("decode_outputs", encoded.len(), || {
            packed::decode_outputs(&encoded)
        })?;
        if again.as_ref().ok() != Some(&outputs) {
            return Err(found(
                Kind::RoundTrip,
                "decode_outputs: decoded, encoded again, does not decode to itself",
                format!("first {outputs:?}\nthen {again:?}"),
            ));
        }
        ("decode_outputs", outputs, encoded)
    };
    let _ = encoded;
    if let Some(buffer) = buffers.iter().find(|b| !b.is_consistent()) {
        return Err(found(
            Kind::RoundTrip,
            format!("{what} returns a buffer whose data does not match its sizes"),
            format!("{buffer:?}"),
        ));
    }
    Ok(true)
}

/// Runs `bytes` through `decoder` and its oracles: the finding it is, or
/// whether it decoded.
pub fn check(decoder: Decoder, bytes: &[u8]) -> Result<bool, (Signature, String)> {
    match decoder {
        Decoder::Hello => check_message::<Hello>("Hello", bytes, decoder.limit()),
        Decoder::HelloReply => check_message::<HelloReply>("HelloReply", bytes, decoder.limit()),
        Decoder::Request => check_request(bytes),
        Decoder::Response => check_message::<Response>("Response", bytes, decoder.limit()),
        Decoder::CallArguments | Decoder::CallOutputs => check_call_buffer(decoder, bytes),
    }
}
