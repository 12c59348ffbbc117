//! The [`Response::Launched`](super::Response) frame, written by a worker
//! straight from the output descriptors its kernel filled in, and read by a
//! client straight into the output descriptors of its launch: each result's
//! elements are copied once on each side (into the frame, which the worker
//! reuses from one launch to the next; out of the payload, into the buffer
//! the client's descriptor gets), instead of going through a
//! [`DenseBuffer`](executor_buffers::memref::DenseBuffer) that postcard copies again.
//! The bytes are exactly what [`encode_frame`](super::encode_frame) makes of
//! the same response and [`decode_payload`](super::decode_payload) reads,
//! which the tests check.

use super::{
    ProtocolError,
    framing::LENGTH_PREFIX_SIZE,
    varint::{push_varint, take_varint, unzigzag, varint_len, zigzag},
};
use executor_buffers::memref::{Descriptor, dense_len};

/// The variant index of `Response::Launched` on the wire.
const LAUNCHED_VARIANT: u64 = 1;

/// Replaces what `frame` holds with the frame of `Response::Launched` whose
/// outputs are the elements of `outputs`, densely packed. A payload over
/// `max_size` bytes is refused before any element is copied.
pub fn write_launched_frame(
    frame: &mut Vec<u8>,
    outputs: &[Descriptor],
    max_size: u32,
) -> Result<(), ProtocolError> {
    let size = payload_size(outputs);
    let length = size
        .and_then(|size| u32::try_from(size).ok())
        .filter(|length| *length <= max_size)
        .ok_or(ProtocolError::TooLarge {
            size: size.unwrap_or(u64::MAX),
            limit: max_size,
        })?;
    frame.clear();
    frame.reserve(LENGTH_PREFIX_SIZE + length as usize);
    frame.extend_from_slice(&length.to_be_bytes());
    push_varint(frame, LAUNCHED_VARIANT);
    push_varint(frame, outputs.len() as u64);
    for output in outputs {
        push_varint(frame, output.element_size() as u64);
        push_varint(frame, output.rank() as u64);
        for dim in 0..output.rank() {
            push_varint(frame, zigzag(output.size(dim)));
        }
        push_varint(frame, output.packed_len());
        output.append_dense(frame);
    }
    debug_assert_eq!(frame.len(), LENGTH_PREFIX_SIZE + length as usize);
    Ok(())
}

/// The payload's size, or None past `u64`.
fn payload_size(outputs: &[Descriptor]) -> Option<u64> {
    let header = varint_len(LAUNCHED_VARIANT) + varint_len(outputs.len() as u64);
    outputs.iter().try_fold(header as u64, |size, output| {
        let sizes: usize = (0..output.rank())
            .map(|dim| varint_len(zigzag(output.size(dim))))
            .sum();
        let data = output.packed_len();
        let fields = varint_len(output.element_size() as u64)
            + varint_len(output.rank() as u64)
            + sizes
            + varint_len(data);
        size.checked_add(fields as u64)?.checked_add(data)
    })
}

/// Fills `outputs` from `payload` if it is the payload of a
/// `Response::Launched` (`Ok(true)`; `Ok(false)`: another response, for
/// [`decode_payload`](super::decode_payload)). Each output's descriptor gets
/// its result's sizes and a new `malloc`ed buffer of its elements, which its
/// owner releases with `free`. The results must be one per output, of its
/// rank and element size, each with the bytes its sizes call for: otherwise
/// no output keeps a buffer (those filled before a bad result are freed and
/// point at none again) and the payload is refused as malformed.
pub fn fill_from_launched(payload: &[u8], outputs: &[Descriptor]) -> Result<bool, ProtocolError> {
    let mut payload = payload;
    if take_varint(&mut payload)? != LAUNCHED_VARIANT {
        return Ok(false);
    }
    let count = take_varint(&mut payload)?;
    if count != outputs.len() as u64 {
        return Err(ProtocolError::Malformed(format!(
            "the executor returned {count} results for {} outputs",
            outputs.len()
        )));
    }
    for (index, output) in outputs.iter().enumerate() {
        if let Err(error) = fill_result(&mut payload, index, output) {
            release(&outputs[..index]);
            return Err(error);
        }
    }
    if !payload.is_empty() {
        release(outputs);
        return Err(ProtocolError::Malformed(format!(
            "{} bytes after the end of the message",
            payload.len()
        )));
    }
    Ok(true)
}

/// Takes the result at the front of `payload` into `output`.
fn fill_result(
    payload: &mut &[u8],
    index: usize,
    output: &Descriptor,
) -> Result<(), ProtocolError> {
    let element_size = take_varint(payload)?;
    let rank = take_varint(payload)?;
    // Each size is read twice: checked here, written below once it is
    // known to fit the descriptor.
    let encoded_sizes = *payload;
    for _ in 0..rank {
        take_varint(payload)?;
    }
    let encoded_sizes = &encoded_sizes[..encoded_sizes.len() - payload.len()];
    let len = usize::try_from(take_varint(payload)?).unwrap_or(usize::MAX);
    if len > payload.len() {
        return Err(ProtocolError::Malformed(
            "the message ends inside a result's elements".to_owned(),
        ));
    }
    let (data, rest) = payload.split_at(len);
    *payload = rest;
    let fits = rank == output.rank() as u64
        && element_size == output.element_size() as u64
        && dense_len(element_size, sizes(encoded_sizes)) == Some(len);
    if !fits {
        return Err(ProtocolError::Malformed(format!(
            "result {index} is {len} bytes of rank {rank} with {element_size}-byte elements; \
             expected rank {} with {}-byte elements",
            output.rank(),
            output.element_size()
        )));
    }
    output.fill_dense(sizes(encoded_sizes), data);
    Ok(())
}

/// The sizes in `encoded`, varints [`fill_result`] has read once already.
fn sizes(encoded: &[u8]) -> impl Iterator<Item = i64> + '_ {
    let mut encoded = encoded;
    std::iter::from_fn(move || take_varint(&mut encoded).ok().map(unzigzag))
}

/// Frees the buffers [`fill_result`] gave `outputs`, leaving them pointing
/// at none (not at the freed buffers).
fn release(outputs: &[Descriptor]) {
    for output in outputs {
        // SAFETY: `fill_dense` malloc'ed it, and nothing else has it yet.
        unsafe { output.free_filled() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use executor_buffers::memref::{DenseBuffer, OwnedDescriptor};

    use crate::{Response, encode_frame, test_fixtures::dense};

    fn owned(buffers: &[DenseBuffer]) -> Vec<OwnedDescriptor> {
        buffers
            .iter()
            .cloned()
            .map(OwnedDescriptor::from_dense)
            .collect()
    }

    /// The results of launches with no output, one, and several of every
    /// rank up to 2, one of them empty.
    fn result_sets() -> Vec<Vec<DenseBuffer>> {
        vec![
            vec![],
            vec![dense(vec![256], 4)],
            vec![
                dense(vec![], 8),
                dense(vec![2, 0], 2),
                dense(vec![3, 70], 1),
            ],
            vec![dense(vec![200, 3], 4)],
        ]
    }

    #[test]
    fn the_frame_is_the_frame_of_the_same_response() {
        let mut frame = vec![9; 3];
        for buffers in result_sets() {
            let mut outputs = owned(&buffers);
            let descriptors: Vec<Descriptor> = outputs
                .iter_mut()
                .map(OwnedDescriptor::descriptor)
                .collect();
            write_launched_frame(&mut frame, &descriptors, u32::MAX).unwrap();
            let expected = encode_frame(&Response::Launched { outputs: buffers }, u32::MAX);
            assert_eq!(frame, expected.unwrap());
        }
    }

    #[test]
    fn a_strided_result_is_packed_as_its_dense_copy() {
        // A 2x2 view with offset 1 and strides [3, 1] of a 3x3 buffer 0..9.
        let data: Vec<u8> = (0..9).collect();
        let mut words = vec![data.as_ptr() as i64, data.as_ptr() as i64, 1, 2, 2, 3, 1];
        // SAFETY: the words describe a rank-2 view inside `data`.
        let view = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 1) };
        let mut frame = Vec::new();
        write_launched_frame(&mut frame, &[view], u32::MAX).unwrap();
        let expected = Response::Launched {
            outputs: vec![DenseBuffer {
                element_size: 1,
                sizes: vec![2, 2],
                data: vec![1, 2, 4, 5],
            }],
        };
        assert_eq!(frame, encode_frame(&expected, u32::MAX).unwrap());
    }

    #[test]
    fn a_frame_over_the_limit_is_refused_as_encode_frame_refuses_it() {
        let buffers = [dense(vec![64], 4), dense(vec![64], 4)];
        let mut outputs = owned(&buffers);
        let descriptors: Vec<Descriptor> = outputs
            .iter_mut()
            .map(OwnedDescriptor::descriptor)
            .collect();
        let response = Response::Launched {
            outputs: buffers.to_vec(),
        };
        let size = encode_frame(&response, u32::MAX).unwrap().len() - LENGTH_PREFIX_SIZE;
        let mut frame = Vec::new();
        write_launched_frame(&mut frame, &descriptors, size as u32).unwrap();
        let refused = write_launched_frame(&mut frame, &descriptors, size as u32 - 1);
        let expected = encode_frame(&response, size as u32 - 1).unwrap_err();
        assert_eq!(refused.unwrap_err().to_string(), expected.to_string());
    }

    /// Descriptors for results of the shapes of `buffers`, to be filled.
    fn empty_like(buffers: &[DenseBuffer]) -> Vec<OwnedDescriptor> {
        buffers
            .iter()
            .map(|buffer| OwnedDescriptor::empty(buffer.sizes.len(), buffer.element_size as usize))
            .collect()
    }

    fn payload_of(response: &Response) -> Vec<u8> {
        encode_frame(response, u32::MAX).unwrap()[LENGTH_PREFIX_SIZE..].to_vec()
    }

    #[test]
    fn fill_from_launched_reads_what_decode_payload_reads() {
        for buffers in result_sets() {
            let payload = payload_of(&Response::Launched {
                outputs: buffers.clone(),
            });
            let mut outputs = empty_like(&buffers);
            let descriptors: Vec<Descriptor> = outputs
                .iter_mut()
                .map(OwnedDescriptor::descriptor)
                .collect();
            assert!(fill_from_launched(&payload, &descriptors).unwrap());
            for (descriptor, buffer) in descriptors.iter().zip(&buffers) {
                assert_eq!(descriptor.to_dense(), *buffer);
            }
            release(&descriptors);
        }
    }

    #[test]
    fn another_response_is_left_to_decode_payload() {
        let payload = payload_of(&Response::Failed {
            message: "no".into(),
        });
        assert!(!fill_from_launched(&payload, &[]).unwrap());
    }

    #[test]
    fn results_that_do_not_fit_the_outputs_are_refused() {
        let expected = [dense(vec![2, 3], 4)];
        let wrong = [
            ("count", vec![dense(vec![2, 3], 4), dense(vec![1], 4)]),
            ("rank", vec![dense(vec![6], 4)]),
            ("element size", vec![dense(vec![2, 3], 8)]),
            (
                "bytes",
                vec![DenseBuffer {
                    element_size: 4,
                    sizes: vec![2, 3],
                    data: vec![0; 20],
                }],
            ),
        ];
        for (what, results) in wrong {
            let payload = payload_of(&Response::Launched { outputs: results });
            assert_refused_leaving_no_buffer(&payload, &expected, what);
        }
    }

    /// Fills outputs for results like `expected` from `payload`, which must
    /// be refused: afterwards no output points at a buffer, freed or not,
    /// that its owner would free again.
    fn assert_refused_leaving_no_buffer(payload: &[u8], expected: &[DenseBuffer], what: &str) {
        let mut outputs = empty_like(expected);
        let descriptors: Vec<Descriptor> = outputs
            .iter_mut()
            .map(OwnedDescriptor::descriptor)
            .collect();
        let refused = fill_from_launched(payload, &descriptors);
        assert!(
            matches!(refused, Err(ProtocolError::Malformed(_))),
            "{what}: {refused:?}"
        );
        for (index, descriptor) in descriptors.iter().enumerate() {
            assert!(
                descriptor.allocated().is_null(),
                "{what}: output {index} points at a buffer"
            );
        }
    }

    #[test]
    fn a_later_bad_result_leaves_no_pointer_to_an_earlier_freed_one() {
        // The first result fits and is filled (and then freed); the second
        // does not, or bytes follow it.
        let expected = [dense(vec![3], 4), dense(vec![2], 4)];
        for results in [
            vec![dense(vec![3], 4), dense(vec![2], 8)],
            vec![dense(vec![3], 4), dense(vec![2], 4), dense(vec![1], 4)],
        ] {
            let mut payload = payload_of(&Response::Launched { outputs: results });
            if payload[1] == 3 {
                // Two results announced, a third one's bytes after them.
                payload[1] = 2;
            }
            assert_refused_leaving_no_buffer(&payload, &expected, "a later result");
        }
    }

    #[test]
    fn a_cut_or_padded_payload_is_refused() {
        let buffers = [dense(vec![2], 8), dense(vec![3, 1], 2)];
        let payload = payload_of(&Response::Launched {
            outputs: buffers.to_vec(),
        });
        let mut outputs = empty_like(&buffers);
        let descriptors: Vec<Descriptor> = outputs
            .iter_mut()
            .map(OwnedDescriptor::descriptor)
            .collect();
        for len in 0..payload.len() {
            let refused = fill_from_launched(&payload[..len], &descriptors);
            assert!(refused.is_err(), "{len} bytes: {refused:?}");
        }
        let mut padded = payload.clone();
        padded.push(0);
        assert!(fill_from_launched(&padded, &descriptors).is_err());
    }

    #[test]
    fn sizes_whose_elements_overflow_are_refused_without_reading_them() {
        let mut words = vec![0, 0, 0, i64::MAX, i64::MAX, 1, 1];
        // SAFETY: the descriptor's sizes are never followed: it is refused first.
        let huge = unsafe { Descriptor::from_raw(words.as_mut_ptr().cast(), 2, 8) };
        let mut frame = Vec::new();
        let refused = write_launched_frame(&mut frame, &[huge], u32::MAX);
        assert!(matches!(refused, Err(ProtocolError::TooLarge { .. })));
    }
}
