//! The hand-written codec of [`Request::Launch`], the request a client sends
//! most and with the most data: it writes and reads a launch's inputs where
//! they are, without the copies postcard's encoder and decoder make. Its bytes
//! are exactly postcard's, which the tests check.

use std::io::{self, BufRead, IoSlice, Read, Write};

use super::{
    OutputShape, ProtocolError, Request,
    framing::{
        INITIAL_PAYLOAD_CAPACITY, LENGTH_PREFIX_SIZE, decode_payload, read_length_prefix,
        read_up_to,
    },
    stream::write_all_vectored,
    varint::{decode_varint, over_long_varint, push_varint, unzigzag, zigzag},
};
use executor_buffers::memref::{DenseBuffer, DenseView};

/// The variant index of [`Request::Launch`] on the wire.
const LAUNCH_VARIANT: u32 = 1;

/// The most dimensions one buffer (input or output) of a launch may have.
pub const MAX_LAUNCH_RANK: u64 = 1024;

/// The most buffers, inputs and outputs together, one launch may have.
pub const MAX_LAUNCH_BUFFERS: usize = 4096;

/// The most dimensions the buffers of one launch may have in all.
pub const MAX_LAUNCH_DIMENSIONS: u64 = 65_536;

/// What a launch may still declare of buffers and dimensions. The memory a
/// worker needs for a launch's descriptors grows with these, not with the
/// frame (an output shape is 2 or 3 bytes on the wire, its descriptor up to
/// 16 KiB), so they are checked as they are read, before anything is
/// allocated for them: whatever its frame, a launch's shapes and descriptors
/// take a few MiB at most.
struct ShapeBudget {
    buffers: usize,
    dimensions: u64,
}

impl ShapeBudget {
    fn new() -> Self {
        Self {
            buffers: MAX_LAUNCH_BUFFERS,
            dimensions: MAX_LAUNCH_DIMENSIONS,
        }
    }

    /// Takes `count` buffers (`kind`: "inputs" or "outputs") from the budget.
    fn take_buffers(&mut self, count: usize, kind: &str) -> Result<(), ProtocolError> {
        let earlier = MAX_LAUNCH_BUFFERS - self.buffers;
        self.buffers = self.buffers.checked_sub(count).ok_or_else(|| {
            ProtocolError::OverLimit(format!(
                "a launch of {count} {kind} after {earlier} other buffers: a launch has at most \
                 {MAX_LAUNCH_BUFFERS} buffers (inputs and outputs together)"
            ))
        })?;
        Ok(())
    }

    /// Takes the dimensions of one buffer of `rank` from the budget.
    fn take_rank(&mut self, rank: u64) -> Result<(), ProtocolError> {
        if rank > MAX_LAUNCH_RANK {
            return Err(ProtocolError::OverLimit(format!(
                "a launch buffer of rank {rank}: the rank is at most {MAX_LAUNCH_RANK}"
            )));
        }
        self.dimensions = self.dimensions.checked_sub(rank).ok_or_else(|| {
            ProtocolError::OverLimit(format!(
                "a launch whose buffers have more than {MAX_LAUNCH_DIMENSIONS} dimensions in all"
            ))
        })?;
        Ok(())
    }
}

/// A [`Request::Launch`] as one frame, written without copying its inputs'
/// bytes: the bytes postcard encodes around the inputs' data, and the data
/// itself, sent with vectored writes from where it is (a memref's own buffer,
/// see `Descriptor::dense_view` (executor_buffers)). On the wire it is exactly
/// the frame [`encode_frame`](super::encode_frame) makes of the same request.
pub struct LaunchFrame<'a> {
    /// The length prefix and every byte of the payload but the inputs' data.
    encoded: Vec<u8>,
    /// Each input's data, after how many bytes of `encoded` it goes.
    inputs: Vec<(usize, &'a [u8])>,
}

impl<'a> LaunchFrame<'a> {
    /// Encodes the launch, refusing a payload over `max_size` bytes and a
    /// launch over the limits on buffers and ranks (which a server refuses).
    pub fn new(
        entry: &str,
        object: &str,
        inputs: &'a [DenseView<'_>],
        outputs: &[OutputShape],
        max_size: u32,
    ) -> Result<Self, ProtocolError> {
        let mut budget = ShapeBudget::new();
        budget.take_buffers(inputs.len(), "inputs")?;
        budget.take_buffers(outputs.len(), "outputs")?;
        let ranks = inputs.iter().map(|input| input.sizes.len() as u64);
        for rank in ranks.chain(outputs.iter().map(|output| output.rank)) {
            budget.take_rank(rank)?;
        }
        // Room for every field but the data, so that it never grows: the
        // names, and at most 10 bytes a varint.
        let dimensions: usize = inputs.iter().map(|input| input.sizes.len()).sum();
        let capacity = LENGTH_PREFIX_SIZE
            + entry.len()
            + object.len()
            + 10 * (5 + 4 * inputs.len() + dimensions + 2 * outputs.len());
        let mut encoded = Vec::with_capacity(capacity);
        encoded.extend_from_slice(&[0; LENGTH_PREFIX_SIZE]);
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
        write_all_vectored(writer, &mut slices)
    }

    /// The whole frame in one buffer (for tests and tools).
    pub fn to_vec(&self) -> Vec<u8> {
        let mut frame = Vec::new();
        self.write_to(&mut frame).expect("a Vec takes every byte");
        frame
    }
}

/// Reads one [`Request`] frame, as [`read_message`](super::read_message)
/// does, except that a `Launch`'s input bytes are read straight from `reader`
/// into buffers taken from `spare` (which the caller fills with the buffers
/// of earlier launches, so that a launch like the last one reads into memory
/// that is already there) or else new ones. The limits and errors are those
/// of `read_message`, and a launch over the limits on buffers and ranks is
/// refused as soon as its counts are read; a malformed or refused frame is
/// read to its end before the error is returned, so the next frame can be
/// read. What `reader` has buffered is decoded where it is.
pub fn read_request(
    reader: &mut impl BufRead,
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
    if let Err(ProtocolError::Malformed(_) | ProtocolError::OverLimit(_)) = request {
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

impl<R: BufRead> FrameBody<'_, R> {
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
        let mut budget = ShapeBudget::new();
        // Each input takes at least 3 bytes: no more can be in the frame.
        let count = self.length()?;
        budget.take_buffers(count, "inputs")?;
        let mut inputs = Vec::with_capacity(count.min(self.left() / 3));
        for _ in 0..count {
            let element_size = self.varint(10, 0x01)?;
            let rank = self.length()?;
            budget.take_rank(rank as u64)?;
            let mut sizes = Vec::with_capacity(rank.min(self.left()));
            for _ in 0..rank {
                let encoded = self.varint(10, 0x01)?;
                sizes.push(unzigzag(encoded));
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
        budget.take_buffers(count, "outputs")?;
        let mut outputs = Vec::with_capacity(count.min(self.left() / 2));
        for _ in 0..count {
            let rank = self.varint(10, 0x01)?;
            budget.take_rank(rank)?;
            outputs.push(OutputShape {
                rank,
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

    /// The bytes the reader has buffered, up to `len` and the frame's end
    /// (nothing is read past it: the next frame may not have been sent).
    fn buffered(&mut self, len: usize) -> &[u8] {
        let len = len.min(self.left());
        if len == 0 {
            return &[];
        }
        match self.reader.fill_buf() {
            Ok(buffered) => &buffered[..buffered.len().min(len)],
            // Left to the byte-by-byte reads that follow, which report it.
            Err(_) => &[],
        }
    }

    /// Takes `len` bytes of what [`Self::buffered`] gave.
    fn consume(&mut self, len: usize) {
        self.reader.consume(len);
        self.consumed += len;
    }

    /// A postcard varint of at most `max_bytes` (at most 10) bytes, the last
    /// of them at most `max_last` (so that it fits its type).
    fn varint(&mut self, max_bytes: usize, max_last: u8) -> Result<u64, ProtocolError> {
        // Usually the reader has all of it buffered: decoded there; most
        // are one byte (counts, ranks, element sizes, small sizes).
        let buffered = self.buffered(max_bytes);
        if let Some(&byte) = buffered.first()
            && byte < 0x80
        {
            self.consume(1);
            return Ok(byte.into());
        }
        if let Some(last) = buffered.iter().position(|byte| byte & 0x80 == 0) {
            let value = decode_varint(&buffered[..=last], max_bytes, max_last);
            self.consume(last + 1);
            return value;
        }
        let mut bytes = [0u8; 10];
        for index in 0..max_bytes {
            self.exact(&mut bytes[index..=index])?;
            if bytes[index] & 0x80 == 0 {
                return decode_varint(&bytes[..=index], max_bytes, max_last);
            }
        }
        Err(over_long_varint())
    }

    /// A length (of a string, a sequence or bytes), as a `usize`.
    fn length(&mut self) -> Result<usize, ProtocolError> {
        let length = self.varint(10, 0x01)?;
        usize::try_from(length).map_err(|_| past_the_end())
    }

    fn string(&mut self) -> Result<String, ProtocolError> {
        let len = self.length()?;
        // Grown as the bytes arrive, like a payload: a frame that claims a
        // long name and then stops costs no more than what it sent.
        let mut bytes = Vec::new();
        self.bytes_into(&mut bytes, len)?;
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
        let mut rest = len - reused;
        let buffered = self.buffered(rest);
        if !buffered.is_empty() && buffered.len() == rest {
            buffer.extend_from_slice(buffered);
            self.consume(rest);
            rest = 0;
        }
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

fn push_bytes(bytes: &mut Vec<u8>, data: &[u8]) {
    push_varint(bytes, data.len() as u64);
    bytes.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        DEFAULT_MAX_MESSAGE_SIZE, encode_frame, read_message,
        test_fixtures::{PrefixOnly, dense, frame_of, sample_requests},
    };

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
                vec![shape(2, 8), shape(0, 1), shape(MAX_LAUNCH_RANK, u64::MAX)],
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

    /// Launches of random shapes, with strings, counts, dimensions and data
    /// lengths on both sides of the values where postcard's varints grow by a
    /// byte, from a fixed-seed xorshift generator (the same ones every run).
    fn random_launches() -> Vec<Request> {
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let lengths = [0usize, 1, 127, 128, 16_383, 16_384];
        let dimensions = [0i64, 63, 64, -64, -65, 8191, 8192, i64::MIN, i64::MAX];
        let characters = ['a', 'é', '∑', '🦀'];
        let mut launches = Vec::new();
        for _ in 0..200 {
            let string = |next: &mut dyn FnMut() -> u64| -> String {
                let len = lengths[next() as usize % 4] + next() as usize % 3;
                (0..len)
                    .map(|_| characters[next() as usize % characters.len()])
                    .collect()
            };
            let entry = string(&mut next);
            let object = string(&mut next);
            let input_count = [0, 1, 3, 128][next() as usize % 4];
            let inputs = (0..input_count)
                .map(|_| {
                    let rank = next() as usize % 5;
                    let sizes = (0..rank)
                        .map(|_| match next() % 3 {
                            0 => dimensions[next() as usize % dimensions.len()],
                            _ => next() as i64 >> (next() % 64),
                        })
                        .collect();
                    // The codec carries whatever bytes it is given: they need
                    // not match the sizes.
                    let len = lengths[next() as usize % lengths.len()] + next() as usize % 2;
                    DenseBuffer {
                        element_size: next() >> (next() % 64),
                        sizes,
                        data: (0..len).map(|_| next() as u8).collect(),
                    }
                })
                .collect();
            let output_count = [0, 1, 2, 128][next() as usize % 4];
            // Ranks where the varint grows, within the limits: 128 outputs
            // of rank 128 and 128 inputs of rank 4 are 16,896 dimensions.
            let ranks = [0, 1, 127, 128];
            let outputs = (0..output_count)
                .map(|_| OutputShape {
                    rank: ranks[next() as usize % ranks.len()],
                    element_size: next() >> (next() % 64),
                })
                .collect();
            launches.push(Request::Launch {
                entry,
                object,
                inputs,
                outputs,
            });
        }
        launches
    }

    #[test]
    fn random_launches_are_encoded_and_decoded_as_postcard_does() {
        for request in random_launches() {
            let frame = encode_frame(&request, u32::MAX).unwrap();
            assert!(
                launch_frame(&request, u32::MAX).unwrap() == frame,
                "LaunchFrame differs from postcard for {request:?}"
            );
            let read = read_request(&mut frame.as_slice(), u32::MAX, &mut Vec::new()).unwrap();
            assert!(read == request, "read_request misread {request:?}");
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

    #[test]
    fn launches_over_the_limits_are_refused_by_both_ends_and_the_stream_stays_in_step() {
        let shape = |rank| OutputShape {
            rank,
            element_size: 4,
        };
        let input = |rank| dense(vec![1; rank], 4);
        let over_limits = [
            (
                launch_of(Vec::new(), vec![shape(0); MAX_LAUNCH_BUFFERS + 1]),
                "4097 outputs",
            ),
            (
                launch_of(vec![input(0); MAX_LAUNCH_BUFFERS + 1], Vec::new()),
                "4097 inputs",
            ),
            (
                launch_of(vec![input(0); 96], vec![shape(0); MAX_LAUNCH_BUFFERS - 95]),
                "4001 outputs after 96 other buffers",
            ),
            (
                launch_of(Vec::new(), vec![shape(MAX_LAUNCH_RANK + 1)]),
                "rank 1025",
            ),
            (
                launch_of(vec![input(MAX_LAUNCH_RANK as usize + 1)], Vec::new()),
                "rank 1025",
            ),
            (
                launch_of(vec![input(1)], vec![shape(MAX_LAUNCH_RANK); 64]),
                "more than 65536 dimensions",
            ),
        ];
        let valid = encode_frame(&Request::Await(7), 1024).unwrap();
        for (request, expected) in &over_limits {
            let refused = launch_frame(request, u32::MAX).unwrap_err().to_string();
            assert!(refused.contains(expected), "{refused}");

            let mut stream = encode_frame(request, u32::MAX).unwrap();
            stream.extend_from_slice(&valid);
            let mut reader = stream.as_slice();
            match read_request(&mut reader, u32::MAX, &mut Vec::new()) {
                Err(ProtocolError::OverLimit(message)) => {
                    assert_eq!(message, refused, "both ends give the same reason")
                }
                other => panic!("{expected}: {other:?}"),
            }
            assert_eq!(
                read_request(&mut reader, u32::MAX, &mut Vec::new()).unwrap(),
                Request::Await(7),
                "the frame after a refused launch is read"
            );
        }
        // A count is refused before anything is read or allocated for it.
        let mut huge_count = vec![1, 0, 0];
        push_varint(&mut huge_count, u64::MAX >> 1);
        assert!(matches!(
            read_request(&mut frame_of(&huge_count).as_slice(), 1024, &mut Vec::new()),
            Err(ProtocolError::OverLimit(_))
        ));
        // Right at the limits, a launch is read.
        let largest = launch_of(
            vec![input(16); 16],
            vec![shape(16); MAX_LAUNCH_BUFFERS - 16],
        );
        assert_eq!(
            MAX_LAUNCH_BUFFERS as u64 * 16,
            MAX_LAUNCH_DIMENSIONS,
            "the largest launch takes every dimension"
        );
        let frame = launch_frame(&largest, u32::MAX).unwrap();
        assert_eq!(
            read_request(&mut frame.as_slice(), u32::MAX, &mut Vec::new()).unwrap(),
            largest
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

    /// A stream of `bytes` that fails the test when read past its end, where
    /// a socket would wait for the peer's next frame.
    struct NothingMore<'a> {
        bytes: &'a [u8],
    }

    impl Read for NothingMore<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            assert!(!self.bytes.is_empty(), "read past the frame");
            self.bytes.read(buffer)
        }
    }

    #[test]
    fn read_request_reads_any_split_of_the_frame_and_nothing_past_it() {
        let mut requests = sample_requests();
        requests.extend(launch_requests());
        let mut frames: Vec<(Vec<u8>, Option<Request>)> = requests
            .into_iter()
            .map(|request| {
                (
                    encode_frame(&request, DEFAULT_MAX_MESSAGE_SIZE).unwrap(),
                    Some(request),
                )
            })
            .collect();
        // Frames that end inside a field: a varint, a string, an input's data.
        for payload in [&[1][..], &[1, 1, b'f'], &[1, 0, 0, 1, 4, 1, 8, 16, 0]] {
            frames.push((frame_of(payload), None));
        }
        for (frame, request) in &frames {
            for capacity in [1, 2, 3, 7, 64, 1 << 16] {
                let stream = NothingMore { bytes: frame };
                let mut reader = io::BufReader::with_capacity(capacity, stream);
                let read = read_request(&mut reader, DEFAULT_MAX_MESSAGE_SIZE, &mut Vec::new());
                match (read, request) {
                    (Ok(read), Some(request)) => assert_eq!(read, *request),
                    (Err(ProtocolError::Malformed(_)), None) => {}
                    (read, _) => panic!("{frame:?} through {capacity} bytes: {read:?}"),
                }
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
        let mut reader = PrefixOnly::new(1025);
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
}
