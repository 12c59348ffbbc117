//! `call_wrapper`'s `args_buf` and `out_buf`, encoded and decoded at the
//! offsets `executor_abi::call_buffer` defines (docs/runtime-abi.md,
//! "call_wrapper buffers"): native-endian `u64` header fields, then one record
//! per buffer, each padded to the layout's alignment.

use executor_abi::call_buffer::{
    self, ARGS_MAGIC, ARGS_NUM_BUFFERS, ARGS_NUM_INPUTS, ARGS_RECORDS, MAGIC, OUT_NUM_OUTPUTS,
    OUT_RECORDS, RECORD_ELEMENT_SIZE, RECORD_RANK, WORD,
};

use thiserror::Error;

use crate::memref::DenseBuffer;

/// A call buffer whose bytes do not hold what its header says.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("malformed call buffer: {0}")]
pub struct MalformedCallBuffer(String);

type Result<T> = std::result::Result<T, MalformedCallBuffer>;

/// The buffers of one `executor.call`: inputs first, then output buffers.
#[derive(Debug, PartialEq, Eq)]
pub struct CallArguments {
    pub buffers: Vec<DenseBuffer>,
    pub num_inputs: usize,
}

/// Decodes `args_buf`; every count and size is checked against the bytes there.
pub fn decode_arguments(bytes: &[u8]) -> Result<CallArguments> {
    let reader = Reader { bytes };
    let magic = reader.u64(ARGS_MAGIC, "the magic word")?;
    if magic != MAGIC {
        return Err(bad(format!(
            "it starts with {magic:#018x}, not {MAGIC:#018x} (\"EXCALL\", layout version {}); the program was lowered for another version of the runtime",
            call_buffer::LAYOUT_VERSION
        )));
    }
    let count = reader.count(ARGS_NUM_BUFFERS, "the buffer count")?;
    let num_inputs = reader.count(ARGS_NUM_INPUTS, "the input count")?;
    if num_inputs > count {
        return Err(bad(format!("{num_inputs} inputs among {count} buffers")));
    }
    let buffers = reader.records(ARGS_RECORDS, count)?;
    Ok(CallArguments {
        buffers,
        num_inputs,
    })
}

/// Encodes `out_buf` for the given output buffers.
pub fn encode_outputs(outputs: &[DenseBuffer]) -> Vec<u8> {
    let mut bytes = vec![0; OUT_RECORDS as usize];
    put_u64(&mut bytes, OUT_NUM_OUTPUTS, outputs.len() as u64);
    for output in outputs {
        push_record(&mut bytes, output);
    }
    bytes
}

/// Encodes `args_buf` (what the lowered code writes; used by tests and tools).
pub fn encode_arguments(arguments: &CallArguments) -> Vec<u8> {
    let mut bytes = vec![0; ARGS_RECORDS as usize];
    put_u64(&mut bytes, ARGS_MAGIC, MAGIC);
    put_u64(&mut bytes, ARGS_NUM_BUFFERS, arguments.buffers.len() as u64);
    put_u64(&mut bytes, ARGS_NUM_INPUTS, arguments.num_inputs as u64);
    for buffer in &arguments.buffers {
        push_record(&mut bytes, buffer);
    }
    bytes
}

/// Decodes `out_buf`.
pub fn decode_outputs(bytes: &[u8]) -> Result<Vec<DenseBuffer>> {
    let reader = Reader { bytes };
    let count = reader.count(OUT_NUM_OUTPUTS, "the output count")?;
    reader.records(OUT_RECORDS, count)
}

/// Checks that `out_buf` is what a call with `args_buf` must return: one
/// record per output buffer sent, each of the same element size and sizes,
/// and nothing else. Says what differs otherwise.
pub fn check_outputs(args_buf: &[u8], out_buf: &[u8]) -> std::result::Result<(), String> {
    let arguments = decode_arguments(args_buf).map_err(|error| error.to_string())?;
    let sent = &arguments.buffers[arguments.num_inputs..];
    let returned = decode_outputs(out_buf).map_err(|error| error.to_string())?;
    if returned.len() != sent.len() {
        return Err(format!(
            "{} output buffers for the {} sent",
            returned.len(),
            sent.len()
        ));
    }
    let mut expected_len = OUT_RECORDS;
    for (index, (returned, sent)) in returned.iter().zip(sent).enumerate() {
        if (returned.element_size, &returned.sizes) != (sent.element_size, &sent.sizes) {
            return Err(format!(
                "output {index} has sizes {:?} of {}-byte elements, where sizes {:?} of {}-byte \
                 elements were sent",
                returned.sizes, returned.element_size, sent.sizes, sent.element_size
            ));
        }
        expected_len += call_buffer::record_len(sent.sizes.len() as u64, sent.data.len() as u64);
    }
    if out_buf.len() as u64 != expected_len {
        return Err(format!(
            "{} bytes where the outputs take {expected_len}",
            out_buf.len()
        ));
    }
    Ok(())
}

/// Writes `value` at `offset`, inside `bytes`.
fn put_u64(bytes: &mut [u8], offset: u64, value: u64) {
    let offset = offset as usize;
    bytes[offset..offset + WORD as usize].copy_from_slice(&value.to_ne_bytes());
}

/// Appends one record, padded.
fn push_record(bytes: &mut Vec<u8>, buffer: &DenseBuffer) {
    let start = bytes.len() as u64;
    let rank = buffer.sizes.len() as u64;
    bytes.resize((start + call_buffer::record_data(rank)) as usize, 0);
    put_u64(bytes, start + RECORD_RANK, rank);
    put_u64(bytes, start + RECORD_ELEMENT_SIZE, buffer.element_size);
    for (dim, size) in buffer.sizes.iter().enumerate() {
        put_u64(
            bytes,
            start + call_buffer::record_size(dim as u64),
            *size as u64,
        );
    }
    bytes.extend_from_slice(&buffer.data);
    let end = start + call_buffer::record_len(rank, buffer.data.len() as u64);
    bytes.resize(end as usize, 0);
}

fn bad(message: String) -> MalformedCallBuffer {
    MalformedCallBuffer(message)
}

struct Reader<'b> {
    bytes: &'b [u8],
}

impl Reader<'_> {
    /// The `len` bytes at `offset`, if they are all there.
    fn slice(&self, offset: u64, len: u64, what: &str) -> Result<&[u8]> {
        offset
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len() as u64)
            .map(|end| &self.bytes[offset as usize..end as usize])
            .ok_or_else(|| {
                bad(format!(
                    "{what} runs past the end ({} bytes)",
                    self.bytes.len()
                ))
            })
    }

    fn u64(&self, offset: u64, what: &str) -> Result<u64> {
        let bytes = self.slice(offset, WORD, what)?;
        Ok(u64::from_ne_bytes(bytes.try_into().expect("took one word")))
    }

    /// A count at `offset` of things that each take at least a word after
    /// it, so never more than the bytes left can hold.
    fn count(&self, offset: u64, what: &str) -> Result<usize> {
        let count = self.u64(offset, what)?;
        let left = (self.bytes.len() as u64).saturating_sub(offset + WORD);
        if count > left / WORD + 1 {
            return Err(bad(format!(
                "{what} {count} is more than {left} bytes can hold"
            )));
        }
        Ok(count as usize)
    }

    /// `count` records, the first at `offset`.
    fn records(&self, mut offset: u64, count: usize) -> Result<Vec<DenseBuffer>> {
        (0..count)
            .map(|_| {
                let (record, next) = self.record(offset)?;
                offset = next;
                Ok(record)
            })
            .collect()
    }

    /// The record at `start`, and where the next one starts.
    fn record(&self, start: u64) -> Result<(DenseBuffer, u64)> {
        let rank = self.count(start + RECORD_RANK, "a rank")? as u64;
        let element_size = self.u64(start + RECORD_ELEMENT_SIZE, "an element size")?;
        let sizes: Vec<i64> = (0..rank)
            .map(|dim| {
                self.u64(start + call_buffer::record_size(dim), "a size")
                    .map(|size| size as i64)
            })
            .collect::<Result<_>>()?;
        let len = DenseBuffer::expected_len(element_size, &sizes).ok_or_else(|| {
            bad(format!(
                "sizes {sizes:?} of {element_size}-byte elements overflow"
            ))
        })?;
        let data_start = start + call_buffer::record_data(rank);
        let data = self
            .slice(data_start, len as u64, "a buffer's data")?
            .to_vec();
        // The last record's padding may be cut off.
        let next = (start + call_buffer::record_len(rank, len as u64)).min(self.bytes.len() as u64);
        Ok((
            DenseBuffer {
                element_size,
                sizes,
                data,
            },
            next,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(sizes: Vec<i64>, element_size: u64) -> DenseBuffer {
        let len = DenseBuffer::expected_len(element_size, &sizes).unwrap();
        DenseBuffer {
            element_size,
            sizes,
            data: (0..len).map(|i| i as u8).collect(),
        }
    }

    #[test]
    fn arguments_round_trip_with_padding_and_rank_zero() {
        let arguments = CallArguments {
            buffers: vec![buffer(vec![3], 1), buffer(vec![], 8), buffer(vec![2, 2], 4)],
            num_inputs: 2,
        };
        let bytes = encode_arguments(&arguments);
        assert_eq!(bytes.len() % 8, 0);
        // The header (magic, 3 buffers, 2 inputs), then a rank-1 record of 3
        // bytes padded to 8.
        assert_eq!(&bytes[..8], &MAGIC.to_ne_bytes());
        assert_eq!(&bytes[8..16], &3u64.to_ne_bytes());
        assert_eq!(&bytes[24..32], &1u64.to_ne_bytes());
        assert_eq!(decode_arguments(&bytes).unwrap(), arguments);
    }

    #[test]
    fn outputs_round_trip() {
        let outputs = vec![buffer(vec![5], 2)];
        assert_eq!(decode_outputs(&encode_outputs(&outputs)).unwrap(), outputs);
    }

    #[test]
    fn truncated_and_absurd_buffers_are_errors_not_panics() {
        let bytes = encode_arguments(&CallArguments {
            buffers: vec![buffer(vec![4], 4)],
            num_inputs: 1,
        });
        for len in 0..bytes.len() {
            assert!(
                decode_arguments(&bytes[..len]).is_err(),
                "a {len}-byte prefix must not decode"
            );
        }
        let mut huge = Vec::new();
        for value in [MAGIC, 1, 1, 1, 8, u64::MAX / 2] {
            huge.extend_from_slice(&value.to_ne_bytes());
        }
        assert!(decode_arguments(&huge).is_err());
        let too_many_inputs: Vec<u8> = [MAGIC, 0, 1].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert!(decode_arguments(&too_many_inputs).is_err());
    }

    #[test]
    fn another_layout_version_is_named_in_the_error() {
        let mut bytes = encode_arguments(&CallArguments {
            buffers: vec![],
            num_inputs: 0,
        });
        bytes[..8].copy_from_slice(&(MAGIC - 1).to_ne_bytes());
        let error = decode_arguments(&bytes).unwrap_err().to_string();
        assert!(error.contains("layout version 2"), "{error}");
    }

    fn call_with_outputs(outputs: Vec<DenseBuffer>) -> Vec<u8> {
        let mut buffers = vec![buffer(vec![2], 4)];
        buffers.extend(outputs);
        encode_arguments(&CallArguments {
            buffers,
            num_inputs: 1,
        })
    }

    #[test]
    fn outputs_of_the_shapes_sent_pass_the_check() {
        let outputs = vec![buffer(vec![3], 1), buffer(vec![], 8), buffer(vec![2, 2], 4)];
        let args = call_with_outputs(outputs.clone());
        assert_eq!(check_outputs(&args, &encode_outputs(&outputs)), Ok(()));
        let none = call_with_outputs(Vec::new());
        assert_eq!(check_outputs(&none, &encode_outputs(&[])), Ok(()));
    }

    #[test]
    fn outputs_that_differ_from_those_sent_are_named() {
        let sent = vec![buffer(vec![64], 4)];
        let args = call_with_outputs(sent.clone());
        let cases = [
            (
                encode_outputs(&[buffer(vec![39], 4)]),
                "output 0 has sizes [39] of 4-byte elements, where sizes [64] of 4-byte elements were sent",
            ),
            (
                encode_outputs(&[buffer(vec![64], 8)]),
                "output 0 has sizes [64] of 8-byte elements",
            ),
            (
                encode_outputs(&[buffer(vec![8, 8], 4)]),
                "output 0 has sizes [8, 8]",
            ),
            (encode_outputs(&[]), "0 output buffers for the 1 sent"),
            (
                encode_outputs(&[sent[0].clone(), sent[0].clone()]),
                "2 output buffers for the 1 sent",
            ),
        ];
        for (out_buf, expected) in cases {
            let error = check_outputs(&args, &out_buf).unwrap_err();
            assert!(error.contains(expected), "{error}");
        }
        let whole = encode_outputs(&sent);
        let short = check_outputs(&args, &whole[..whole.len() - 100]).unwrap_err();
        assert!(short.contains("runs past the end"), "{short}");
        let mut long = whole.clone();
        long.extend_from_slice(&[0; 8]);
        let long = check_outputs(&args, &long).unwrap_err();
        assert!(long.contains("bytes where the outputs take"), "{long}");
    }
}
