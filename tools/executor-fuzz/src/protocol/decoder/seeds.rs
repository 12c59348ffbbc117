//! Valid inputs of each decoder, made by the runtime's own encoders: the
//! seeds of the decoder fuzzer, of the server fuzzer's requests and of the
//! libFuzzer target.

use std::borrow::Cow;

use executor_abi::BinaryFormat;
use executor_abi::call_buffer::Layout;
use executor_buffers::{
    memref::{DenseBuffer, DenseView},
    packed::{self, CallArguments},
};
use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, HelloReply, LaunchFrame,
    OLDEST_PROTOCOL_VERSION, OutputShape, PROTOCOL_VERSION, Request, Response, encode_frame,
};
use serde::Serialize;

use super::Decoder;

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
            protocol_version: OLDEST_PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
        },
        HelloReply::WelcomeWithTriple {
            protocol_version: PROTOCOL_VERSION,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            triple: "aarch64-unknown-linux-gnu".into(),
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
        Request::Trace,
    ]
}

pub(super) fn view(buffer: &DenseBuffer) -> DenseView<'_> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{protocol::decoder::check, shared::findings::hex};

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
}
