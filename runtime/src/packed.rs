//! The byte layout of `call_wrapper`'s `args_buf` and `out_buf`
//! (docs/runtime-abi.md, "call_wrapper buffers"): native-endian `u64` header
//! fields, then one record per buffer, each padded to 8 bytes.
//!
//! ```text
//! args_buf := num_buffers, num_inputs, record[num_buffers]
//! out_buf  := num_outputs, record[num_outputs]
//! record   := rank, elem_size, sizes[rank], data, padding
//! ```

use crate::{
    error::{Result, RuntimeError},
    memref::DenseBuffer,
};

/// The buffers of one `executor.call`: inputs first, then output buffers.
#[derive(Debug, PartialEq, Eq)]
pub struct CallArguments {
    pub buffers: Vec<DenseBuffer>,
    pub num_inputs: usize,
}

/// Decodes `args_buf`; every count and size is checked against the bytes there.
pub fn decode_arguments(bytes: &[u8]) -> Result<CallArguments> {
    let mut reader = Reader { bytes, position: 0 };
    let count = reader.count("the buffer count")?;
    let num_inputs = reader.count("the input count")?;
    if num_inputs > count {
        return Err(bad(format!("{num_inputs} inputs among {count} buffers")));
    }
    let buffers = (0..count).map(|_| reader.record()).collect::<Result<_>>()?;
    Ok(CallArguments {
        buffers,
        num_inputs,
    })
}

/// Encodes `out_buf` for the given output buffers.
pub fn encode_outputs(outputs: &[DenseBuffer]) -> Vec<u8> {
    let mut bytes = Vec::new();
    push_u64(&mut bytes, outputs.len() as u64);
    for output in outputs {
        push_record(&mut bytes, output);
    }
    bytes
}

/// Encodes `args_buf` (what the lowered code writes; used by tests and tools).
pub fn encode_arguments(arguments: &CallArguments) -> Vec<u8> {
    let mut bytes = Vec::new();
    push_u64(&mut bytes, arguments.buffers.len() as u64);
    push_u64(&mut bytes, arguments.num_inputs as u64);
    for buffer in &arguments.buffers {
        push_record(&mut bytes, buffer);
    }
    bytes
}

/// Decodes `out_buf`.
pub fn decode_outputs(bytes: &[u8]) -> Result<Vec<DenseBuffer>> {
    let mut reader = Reader { bytes, position: 0 };
    let count = reader.count("the output count")?;
    (0..count).map(|_| reader.record()).collect()
}

fn push_u64(bytes: &mut Vec<u8>, value: u64) {
    bytes.extend_from_slice(&value.to_ne_bytes());
}

fn push_record(bytes: &mut Vec<u8>, buffer: &DenseBuffer) {
    push_u64(bytes, buffer.sizes.len() as u64);
    push_u64(bytes, buffer.element_size);
    for size in &buffer.sizes {
        push_u64(bytes, *size as u64);
    }
    bytes.extend_from_slice(&buffer.data);
    bytes.resize(bytes.len().next_multiple_of(8), 0);
}

fn bad(message: String) -> RuntimeError {
    RuntimeError::BadArguments(format!("malformed call buffer: {message}"))
}

struct Reader<'b> {
    bytes: &'b [u8],
    position: usize,
}

impl Reader<'_> {
    fn take(&mut self, len: usize, what: &str) -> Result<&[u8]> {
        let end = self
            .position
            .checked_add(len)
            .filter(|end| *end <= self.bytes.len());
        let end = end.ok_or_else(|| {
            bad(format!(
                "{what} runs past the end ({} bytes)",
                self.bytes.len()
            ))
        })?;
        let slice = &self.bytes[self.position..end];
        self.position = end;
        Ok(slice)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let bytes = self.take(8, what)?;
        Ok(u64::from_ne_bytes(bytes.try_into().expect("took 8 bytes")))
    }

    /// A count of things that each take at least 8 bytes, so never more than
    /// the bytes left can hold.
    fn count(&mut self, what: &str) -> Result<usize> {
        let count = self.u64(what)?;
        let left = (self.bytes.len() - self.position) as u64;
        if count > left / 8 + 1 {
            return Err(bad(format!(
                "{what} {count} is more than {} bytes can hold",
                left
            )));
        }
        Ok(count as usize)
    }

    fn record(&mut self) -> Result<DenseBuffer> {
        let rank = self.count("a rank")?;
        let element_size = self.u64("an element size")?;
        let sizes: Vec<i64> = (0..rank)
            .map(|_| self.u64("a size").map(|size| size as i64))
            .collect::<Result<_>>()?;
        let len = DenseBuffer::expected_len(element_size, &sizes).ok_or_else(|| {
            bad(format!(
                "sizes {sizes:?} of {element_size}-byte elements overflow"
            ))
        })?;
        let data = self.take(len, "a buffer's data")?.to_vec();
        let padding = len.next_multiple_of(8) - len;
        self.take(padding.min(self.bytes.len() - self.position), "padding")?;
        Ok(DenseBuffer {
            element_size,
            sizes,
            data,
        })
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
        // Header, then a rank-1 record of 3 bytes padded to 8.
        assert_eq!(&bytes[16..24], &1u64.to_ne_bytes());
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
        for value in [1u64, 1, 1, 8, u64::MAX / 2] {
            huge.extend_from_slice(&value.to_ne_bytes());
        }
        assert!(decode_arguments(&huge).is_err());
        let too_many_inputs: Vec<u8> = [0u64, 1].iter().flat_map(|v| v.to_ne_bytes()).collect();
        assert!(decode_arguments(&too_many_inputs).is_err());
    }
}
