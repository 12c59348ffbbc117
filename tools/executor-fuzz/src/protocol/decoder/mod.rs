//! The in-process protocol fuzzer: frames mutated from valid ones (made by
//! the runtime's own encoders) fed to the runtime's decoders, panics caught.
//!
//! Oracles, per input: no decoder panics; the two readers of a request
//! (`read_message`, postcard's, and `read_request`, the hand-written launch
//! codec) accept the same frames and decode them to the same request; what
//! decodes, encoded again (by `encode_frame`, and for a launch by
//! `LaunchFrame`, which must give the same bytes), decodes to itself; after
//! a frame that was read whole (decoded or malformed), the next frame of the
//! stream reads right; and no decoder asks for more memory at once than the
//! frame's bytes justify (`alloc`; docs/protocol.md: the reader reserves at
//! most 64 MiB ahead of the bytes). The call buffers of `executor.call`
//! (`packed`), which the server decodes from a `Call` request, are fuzzed
//! the same way.

pub mod alloc;

use std::{
    borrow::Cow,
    cell::{Cell, RefCell},
    panic::{self, AssertUnwindSafe},
    sync::Once,
    time::{Duration, Instant},
};

use executor_abi::BinaryFormat;
use executor_abi::call_buffer::Layout;
use executor_buffers::{
    memref::{DenseBuffer, DenseView},
    packed::{self, CallArguments},
};
use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, LaunchFrame,
    OutputShape, PROTOCOL_VERSION, ProtocolError, Request, Response, encode_frame, read_message,
    read_request,
};
use serde::{Serialize, de::DeserializeOwned};

use crate::{
    shared::findings::{Finding, Findings, excerpt, hex},
    shared::minimize::{self, Budget},
    shared::rng::Rng,
    shared::signature::{Kind, Signature, normalize},
};

/// What a frame is decoded as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Decoder {
    Hello,
    HelloReply,
    Request,
    Response,
    CallArguments,
    CallOutputs,
}

impl Decoder {
    pub const ALL: [Decoder; 6] = [
        Decoder::Hello,
        Decoder::HelloReply,
        Decoder::Request,
        Decoder::Response,
        Decoder::CallArguments,
        Decoder::CallOutputs,
    ];

    /// The finding target's name: `decoder-request`, ...
    pub fn target(self) -> &'static str {
        match self {
            Decoder::Hello => "decoder-hello",
            Decoder::HelloReply => "decoder-hello-reply",
            Decoder::Request => "decoder-request",
            Decoder::Response => "decoder-response",
            Decoder::CallArguments => "decoder-call-arguments",
            Decoder::CallOutputs => "decoder-call-outputs",
        }
    }

    pub fn from_target(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.target() == name)
    }

    /// Whether its inputs are frames (a length prefix and a payload).
    fn framed(self) -> bool {
        !matches!(self, Decoder::CallArguments | Decoder::CallOutputs)
    }

    fn limit(self) -> u32 {
        match self {
            Decoder::Hello | Decoder::HelloReply => HANDSHAKE_MAX_MESSAGE_SIZE,
            _ => DEFAULT_MAX_MESSAGE_SIZE,
        }
    }
}

/// A buffer of `sizes`, its bytes counting up.
fn dense(sizes: Vec<i64>, element_size: u64) -> DenseBuffer {
    let len = DenseBuffer::expected_len(element_size, &sizes).expect("small sizes");
    DenseBuffer {
        element_size,
        sizes,
        data: (0..len).map(|index| index as u8).collect(),
    }
}

fn frame<M: Serialize>(message: &M, limit: u32) -> Vec<u8> {
    encode_frame(message, limit).expect("the seeds are small")
}

/// Valid inputs of each decoder, made by the runtime's own encoders.
pub fn seeds() -> Vec<(Decoder, Vec<u8>)> {
    let mut seeds = Vec::new();
    for hello in [
        Hello {
            protocol_version: PROTOCOL_VERSION,
            token: None,
        },
        Hello {
            protocol_version: PROTOCOL_VERSION,
            token: Some("executor-fuzz-token".into()),
        },
        Hello {
            protocol_version: 2,
            token: Some(String::new()),
        },
    ] {
        seeds.push((Decoder::Hello, frame(&hello, HANDSHAKE_MAX_MESSAGE_SIZE)));
    }
    for reply in [
        HelloReply::Welcome {
            protocol_version: PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
        },
        HelloReply::Refused {
            reason: "wrong token".into(),
        },
    ] {
        seeds.push((
            Decoder::HelloReply,
            frame(&reply, HANDSHAKE_MAX_MESSAGE_SIZE),
        ));
    }
    for request in requests() {
        seeds.push((Decoder::Request, frame(&request, DEFAULT_MAX_MESSAGE_SIZE)));
    }
    // Launches as the client writes them, through LaunchFrame.
    let inputs = [dense(vec![3], 4), dense(vec![], 8), dense(vec![2, 0, 5], 2)];
    let views: Vec<DenseView> = inputs.iter().map(view).collect();
    for count in 0..=views.len() {
        let outputs = [
            OutputShape {
                rank: 2,
                element_size: 8,
            },
            OutputShape {
                rank: 0,
                element_size: 300,
            },
        ];
        let launch = LaunchFrame::new(
            "add",
            "kernels.o",
            &views[..count],
            &outputs[..count.min(2)],
            DEFAULT_MAX_MESSAGE_SIZE,
        )
        .expect("small");
        seeds.push((Decoder::Request, launch.to_vec()));
    }
    for response in [
        Response::Done,
        Response::Launched {
            outputs: vec![dense(vec![2, 2], 4), dense(vec![], 1)],
        },
        Response::Token(7),
        Response::CallResult(vec![1, 2, 3]),
        Response::Failed {
            message: "symbol 'x' not found".into(),
        },
        Response::Crashed {
            symbol: "segv".into(),
            signal: 11,
        },
        Response::Pong {
            sessions: 3,
            max_sessions: 256,
        },
    ] {
        seeds.push((
            Decoder::Response,
            frame(&response, DEFAULT_MAX_MESSAGE_SIZE),
        ));
    }
    for arguments in [
        CallArguments {
            buffers: vec![dense(vec![3], 1), dense(vec![], 8), dense(vec![2, 2], 4)],
            num_inputs: 2,
        },
        CallArguments {
            buffers: Vec::new(),
            num_inputs: 0,
        },
    ] {
        seeds.push((Decoder::CallArguments, packed::encode_arguments(&arguments)));
    }
    seeds.push((
        Decoder::CallOutputs,
        packed::encode_outputs(&[dense(vec![2, 3], 8), dense(vec![0], 4)]),
    ));
    seeds
}

/// One request of every kind.
pub fn requests() -> Vec<Request> {
    vec![
        Request::SendBinary {
            name: "kernels.o".into(),
            format: BinaryFormat::RelocatableObject,
            bytes: b"\x7fELF, or not quite".to_vec(),
        },
        Request::SendBinary {
            name: "libnative.so".into(),
            format: BinaryFormat::SharedLibrary,
            bytes: Vec::new(),
        },
        Request::Launch {
            entry: "_mlir_ciface_add".into(),
            object: "kernels.o".into(),
            inputs: vec![dense(vec![4], 4), dense(vec![], 8)],
            outputs: vec![OutputShape {
                rank: 1,
                element_size: 4,
            }],
        },
        Request::LaunchAsync {
            entry: "warm_up".into(),
            object: "kernels.o".into(),
        },
        Request::Await(3),
        Request::Await(u64::MAX),
        Request::Call {
            symbol: "normalize".into(),
            layout: Layout::ThisProject,
            arguments: packed::encode_arguments(&CallArguments {
                buffers: vec![dense(vec![2], 4), dense(vec![2], 4)],
                num_inputs: 1,
            }),
        },
        Request::Call {
            symbol: "wrapper".into(),
            layout: Layout::Catalyst,
            arguments: vec![1, 2, 3, 4],
        },
        // Assets are stored under their base name: names with nothing or
        // nowhere to take a base name from.
        Request::SendBinary {
            name: "../../asset.bin".into(),
            format: BinaryFormat::Asset,
            bytes: b"data".to_vec(),
        },
        Request::SendBinary {
            name: "..".into(),
            format: BinaryFormat::Asset,
            bytes: b"data".to_vec(),
        },
        Request::SendBinary {
            name: "/".into(),
            format: BinaryFormat::Asset,
            bytes: Vec::new(),
        },
        Request::SendBinary {
            name: String::new(),
            format: BinaryFormat::Asset,
            bytes: b"x".to_vec(),
        },
        Request::Close,
        Request::Ping,
    ]
}

fn view(buffer: &DenseBuffer) -> DenseView<'_> {
    DenseView {
        element_size: buffer.element_size,
        sizes: buffer.sizes.clone(),
        data: Cow::Borrowed(&buffer.data),
    }
}

/// The seeds as inputs of the libFuzzer target (libfuzzer/decode.rs): a
/// byte that picks the decoder, then the input.
pub fn libfuzzer_seeds() -> Vec<Vec<u8>> {
    seeds()
        .into_iter()
        .map(|(decoder, bytes)| {
            let selector = Decoder::ALL
                .iter()
                .position(|d| *d == decoder)
                .expect("listed") as u8;
            let mut input = vec![selector];
            input.extend(bytes);
            input
        })
        .collect()
}

// ---------------------------------------------------------------------------
// Mutations

const VARINTS: &[&[u8]] = &[
    &[0x80, 0x00],
    &[0x80, 0x80, 0x80, 0x80, 0x00],
    &[0xff, 0xff, 0xff, 0xff, 0x0f],
    &[0xff, 0xff, 0xff, 0xff, 0x1f],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
    &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
    &[
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ],
    &[
        0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00,
    ],
    &[0x80, 0x80, 0x80, 0x80, 0x01],
    &[0x80, 0x80, 0x80, 0x40],
    &[0x7f],
    &[0x00],
    &[0xff, 0x7f],
];

fn payload_start(framed: bool) -> usize {
    if framed { 4 } else { 0 }
}

/// A mutant of `seed` (`donors`: other valid inputs of any decoder).
pub fn mutate(rng: &mut Rng, decoder: Decoder, seed: &[u8], donors: &[&[u8]]) -> Vec<u8> {
    if rng.chance(1, 32) {
        let len = rng.below(64);
        return rng.bytes(len);
    }
    let framed = decoder.framed();
    let start = payload_start(framed).min(seed.len());
    let mut bytes = seed.to_vec();
    let count = 1 + rng.weighted(&[45, 25, 15, 10, 5]);
    for _ in 0..count {
        let len = bytes.len();
        let at = if len > start {
            rng.range(start, len - 1)
        } else {
            len
        };
        match rng.below(11) {
            0 if at < len => bytes[at] ^= 1 << rng.below(8),
            1 if at < len => {
                bytes[at] = *rng.pick(&[0x00, 0x01, 0x02, 0x0f, 0x10, 0x7f, 0x80, 0xfe, 0xff])
            }
            2 => {
                let extra = rng.range(1, 8);
                let inserted = rng.bytes(extra);
                bytes.splice(at..at, inserted);
            }
            3 if at < len => {
                let end = (at + rng.range(1, 8)).min(len);
                bytes.drain(at..end);
            }
            4 if at < len => {
                let end = (at + rng.range(1, 16)).min(len);
                let copy = bytes[at..end].to_vec();
                bytes.splice(at..at, copy);
            }
            5 => {
                // A varint at an edge: over-long, at a type's limit, past it.
                let varint = *rng.pick(VARINTS);
                let replace = if at < len && rng.chance(1, 2) {
                    at + 1
                } else {
                    at
                };
                bytes.splice(at..replace, varint.iter().copied());
            }
            6 if len > start => bytes.truncate(rng.range(start, len - 1)),
            7 if !donors.is_empty() => {
                let donor = *rng.pick(donors);
                let from = payload_start(framed).min(donor.len());
                let piece = &donor[from..];
                if !piece.is_empty() {
                    let a = rng.below(piece.len());
                    let b = rng.range(a, piece.len());
                    bytes.splice(at..at, piece[a..b].iter().copied());
                }
            }
            8 if framed && len >= 4 => {
                // The length prefix: off by one, at the limit, past it, anything.
                let payload = (len - 4) as u32;
                let limit = decoder.limit();
                let random = rng.next_u64() as u32;
                let value = *rng.pick(&[
                    payload,
                    payload.wrapping_add(1),
                    payload.wrapping_sub(1),
                    0,
                    limit,
                    limit.wrapping_add(1),
                    u32::MAX,
                    random,
                    random % (1 << 20),
                ]);
                bytes[..4].copy_from_slice(&value.to_be_bytes());
                continue;
            }
            9 if !framed && len >= 8 => {
                // A word of the call buffer's header or records.
                let word = rng.below(len / 8) * 8;
                let random = rng.next_u64();
                let value: u64 = *rng.pick(&[
                    0,
                    1,
                    2,
                    7,
                    8,
                    u64::MAX,
                    u64::MAX / 8,
                    1 << 32,
                    1 << 61,
                    (1 << 63) - 1,
                    1 << 63,
                    random,
                ]);
                bytes[word..word + 8].copy_from_slice(&value.to_ne_bytes());
            }
            _ => {
                let extra = rng.range(1, 32);
                bytes.extend(rng.bytes(extra));
            }
        }
    }
    // Mostly, a prefix that matches the payload: the payload then reaches
    // the decoder instead of failing on its length.
    if framed && bytes.len() >= 4 && rng.chance(2, 3) {
        let payload = (bytes.len() - 4) as u32;
        bytes[..4].copy_from_slice(&payload.to_be_bytes());
    }
    bytes
}

// ---------------------------------------------------------------------------
// Checking one input

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

static HOOK: Once = Once::new();

/// A panic hook that, on threads that are catching decoder panics, keeps the
/// message instead of printing it (other threads keep the previous hook).
fn install_panic_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if CAPTURING.with(Cell::get) {
                let message = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let location = info
                    .location()
                    .map(|l| format!("{}:{}", l.file(), l.line()))
                    .unwrap_or_default();
                LAST_PANIC
                    .with(|last| *last.borrow_mut() = Some(format!("{message} at {location}")));
            } else {
                previous(info);
            }
        }));
    });
}

/// A finding of one input.
type Found = (Signature, String);

fn found(kind: Kind, text: impl AsRef<str>, detail: impl Into<String>) -> Found {
    (
        Signature {
            kind,
            text: normalize(text.as_ref()),
        },
        detail.into(),
    )
}

/// The most memory a decoder may ask for at once on an input of `len`
/// bytes: the 64 MiB it may reserve ahead of a payload, plus a few times
/// what is there.
fn allowed_allocation(len: usize) -> usize {
    (64 << 20) + 16 * len + (1 << 20)
}

/// An allocation's size in words.
fn magnitude(bytes: usize) -> &'static str {
    match bytes {
        0..0x4000_0000 => "hundreds of MiB",
        0x4000_0000..0x1_0000_0000 => "GiBs",
        _ => "more than four GiB",
    }
}

/// Runs a decoder: its result, or the finding it is (a panic, or an
/// allocation larger than its input justifies).
fn guarded<T>(what: &str, len: usize, f: impl FnOnce() -> T) -> Result<T, Found> {
    install_panic_hook();
    CAPTURING.with(|c| c.set(true));
    let (result, largest) =
        alloc::largest_allocation_during(|| panic::catch_unwind(AssertUnwindSafe(f)));
    CAPTURING.with(|c| c.set(false));
    match result {
        Ok(value) if largest <= allowed_allocation(len) => Ok(value),
        Ok(_) => Err(found(
            Kind::Allocation,
            // In words: one finding per order of magnitude (digits would be
            // normalized away).
            format!("{what} reserves {} ahead of the bytes", magnitude(largest)),
            format!("{what} asked for {largest} bytes at once on a {len}-byte input"),
        )),
        Err(_) => {
            let message = LAST_PANIC
                .with(|last| last.borrow_mut().take())
                .unwrap_or_default();
            Err(found(
                Kind::DecoderPanic,
                format!("{what}: {message}"),
                format!("{what} panicked: {message}"),
            ))
        }
    }
}

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

// ---------------------------------------------------------------------------
// The fuzzing loop

/// What a decoder fuzzing run did.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run, and how many decoded, per decoder.
    pub ran: std::collections::BTreeMap<&'static str, (usize, usize)>,
    pub inputs: usize,
    pub findings: Findings,
    pub elapsed: Duration,
    /// Whether the allocation oracle was on (the binary's global allocator
    /// is `alloc::TrackingAllocator`).
    pub allocation_oracle: bool,
}

impl Report {
    pub fn per_decoder(&self) -> String {
        self.ran
            .iter()
            .map(|(name, (ran, decoded))| format!("{name} {ran} ({decoded} decoded)"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn finding(decoder: Decoder, input: &[u8], (signature, detail): Found, origin: String) -> Finding {
    Finding {
        target: decoder.target().to_owned(),
        signature,
        input: input.to_vec(),
        extension: "bin",
        reproduce: format!(
            "target/release/executor-fuzz replay {} INPUT",
            decoder.target()
        ),
        detail: excerpt(&detail, 40),
        origin,
        minimized: None,
        count: 1,
        known: None,
    }
}

/// Fuzzes the decoders with `inputs` inputs (or until `time` runs out),
/// then minimizes each finding.
pub fn fuzz(seed: u64, inputs: usize, time: Option<Duration>, minimize_budget: Budget) -> Report {
    let started = Instant::now();
    let seeds = seeds();
    let donors: Vec<&[u8]> = seeds.iter().map(|(_, bytes)| bytes.as_slice()).collect();
    let mut report = Report {
        allocation_oracle: alloc::tracking(),
        ..Report::default()
    };
    for index in 0..inputs as u64 {
        if index % 1024 == 0 && time.is_some_and(|limit| started.elapsed() >= limit) {
            break;
        }
        let mut rng = Rng::derive(seed, index);
        let decoder = Decoder::ALL[rng.weighted(&[8, 4, 50, 18, 15, 5])];
        let of_kind: Vec<&[u8]> = seeds
            .iter()
            .filter(|(d, _)| *d == decoder)
            .map(|(_, bytes)| bytes.as_slice())
            .collect();
        let base = *rng.pick(&of_kind);
        let input = mutate(&mut rng, decoder, base, &donors);
        report.inputs += 1;
        let entry = report.ran.entry(decoder.target()).or_default();
        entry.0 += 1;
        match check(decoder, &input) {
            Ok(decoded) => entry.1 += usize::from(decoded),
            Err(found) => {
                report.findings.add(finding(
                    decoder,
                    &input,
                    found,
                    format!("seed {seed}, input {index}"),
                ));
            }
        }
    }
    report.elapsed = started.elapsed();
    minimize_all(&mut report.findings, minimize_budget);
    report
}

/// Minimizes each finding's bytes, keeping its signature.
pub fn minimize_all(findings: &mut Findings, budget: Budget) {
    if budget.tests == 0 {
        return;
    }
    for finding in findings.iter_mut() {
        let Some(decoder) = Decoder::from_target(&finding.target) else {
            continue;
        };
        let wanted = finding.signature.clone();
        let result = minimize::minimize_bytes(&finding.input, budget, &mut |candidate| {
            check(decoder, candidate)
                .err()
                .is_some_and(|(signature, _)| signature == wanted)
        });
        if result.reproduced {
            if let Err((_, detail)) = check(decoder, &result.bytes) {
                finding.detail = excerpt(&detail, 40);
            }
            finding.minimized = Some(result.bytes);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_decode_and_pass_every_oracle() {
        for (decoder, bytes) in seeds() {
            assert_eq!(
                check(decoder, &bytes),
                Ok(true),
                "{decoder:?} {}",
                hex(&bytes)
            );
        }
    }

    #[test]
    fn a_panicking_decoder_is_a_finding_and_the_hook_stays_quiet() {
        let caught = guarded("test", 0, || panic!("planted {}", 42));
        let (signature, detail) = caught.unwrap_err();
        assert_eq!(signature.kind, Kind::DecoderPanic);
        assert!(
            signature.text.starts_with("test: planted N at "),
            "{}",
            signature.text
        );
        assert!(detail.contains("planted 42"), "{detail}");
        assert_eq!(guarded("test", 0, || 5), Ok(5));
    }

    #[test]
    fn mutants_differ_and_are_deterministic() {
        let seeds = seeds();
        let donors: Vec<&[u8]> = seeds.iter().map(|(_, b)| b.as_slice()).collect();
        let (decoder, base) = &seeds[5];
        let a: Vec<Vec<u8>> = (0..100)
            .map(|i| mutate(&mut Rng::derive(9, i), *decoder, base, &donors))
            .collect();
        let b: Vec<Vec<u8>> = (0..100)
            .map(|i| mutate(&mut Rng::derive(9, i), *decoder, base, &donors))
            .collect();
        assert_eq!(a, b);
        assert!(a.iter().filter(|m| *m != base).count() > 90);
    }
}
