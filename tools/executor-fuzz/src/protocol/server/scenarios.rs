//! What a fuzzing connection sends: garbage, a mutated Hello, or a session
//! of requests mutated from valid frames (or a decoder finding, replayed).

use executor_protocol::{
    DEFAULT_MAX_MESSAGE_SIZE, HANDSHAKE_MAX_MESSAGE_SIZE, Hello, PROTOCOL_VERSION, Request,
    encode_frame,
};

use super::TOKEN;
use crate::{
    protocol::decoder::{self, Decoder},
    shared::rng::Rng,
};

/// The chunks of connection `index`.
pub(super) fn connection(
    rng: &mut Rng,
    request_seeds: &[Vec<u8>],
    donors: &[&[u8]],
    replay: Option<&Vec<u8>>,
) -> (&'static str, Vec<Vec<u8>>) {
    let hello = |token: Option<String>| {
        encode_frame(
            &Hello {
                protocol_version: PROTOCOL_VERSION,
                token,
            },
            HANDSHAKE_MAX_MESSAGE_SIZE,
        )
        .expect("small")
    };
    let legit = hello(Some(TOKEN.into()));
    if let Some(frame) = replay {
        return ("replay", vec![legit, frame.clone()]);
    }
    match rng.weighted(&[3, 12, 85]) {
        0 => {
            let len = rng.below(100);
            ("garbage", vec![rng.bytes(len)])
        }
        1 => {
            let base = match rng.below(3) {
                0 => hello(None),
                1 => hello(Some("not-the-token".into())),
                _ => legit,
            };
            let mutated = decoder::mutate(rng, Decoder::Hello, &base, donors);
            let mut chunks = vec![mutated];
            if rng.chance(1, 2) {
                chunks
                    .push(encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small"));
            }
            ("hello", chunks)
        }
        _ => {
            let mut chunks = vec![legit];
            for _ in 0..rng.range(1, 4) {
                let base = rng.pick(request_seeds);
                chunks.push(match rng.weighted(&[70, 20, 10]) {
                    0 => decoder::mutate(rng, Decoder::Request, base, donors),
                    1 => base.clone(),
                    _ => {
                        let len = rng.below(40);
                        rng.bytes(len)
                    }
                });
            }
            if rng.chance(1, 2) {
                chunks
                    .push(encode_frame(&Request::Close, DEFAULT_MAX_MESSAGE_SIZE).expect("small"));
            }
            ("session", chunks)
        }
    }
}
