//! Mutations of frames and call buffers: bytes flipped, inserted, removed
//! or spliced from other seeds, lengths and varints made edge cases, the
//! frame's length prefix kept right or not.

use super::Decoder;
use crate::shared::rng::Rng;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::decoder::seeds;

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
