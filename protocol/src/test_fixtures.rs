//! What the protocol's tests share: sample messages and frames, and a reader
//! that catches reading past a length prefix.

use std::io::{self, BufRead, Read};

use executor_abi::call_buffer::Layout;

use super::{OutputShape, Request};
use executor_abi::BinaryFormat;
use executor_buffers::memref::DenseBuffer;

/// A buffer of `sizes` with `element_size`-byte elements, its bytes counting up.
pub fn dense(sizes: Vec<i64>, element_size: u64) -> DenseBuffer {
    let len = DenseBuffer::expected_len(element_size, &sizes).unwrap();
    DenseBuffer {
        element_size,
        sizes,
        data: (0..len).map(|index| index as u8).collect(),
    }
}

/// One request of every kind.
pub fn sample_requests() -> Vec<Request> {
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
            layout: Layout::ThisProject,
            arguments: vec![1, 2, 3, 4, 5, 6, 7, 8],
        },
        Request::Call {
            symbol: "wrapper".into(),
            layout: Layout::Catalyst,
            arguments: vec![9, 10],
        },
        Request::Close,
    ]
}

/// A reader that fails the test if anything past the length prefix is read.
pub struct PrefixOnly {
    prefix: [u8; 4],
    position: usize,
}

impl PrefixOnly {
    /// A stream that starts with the length prefix of a `size`-byte payload.
    pub fn new(size: u32) -> Self {
        Self {
            prefix: size.to_be_bytes(),
            position: 0,
        }
    }
}

impl Read for PrefixOnly {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let count = buffer.len().min(self.fill_buf()?.len());
        buffer[..count].copy_from_slice(&self.prefix[self.position..self.position + count]);
        self.consume(count);
        Ok(count)
    }
}

impl BufRead for PrefixOnly {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        assert!(
            self.position < 4,
            "the payload of an oversized frame was read"
        );
        Ok(&self.prefix[self.position..])
    }

    fn consume(&mut self, count: usize) {
        self.position += count;
    }
}

/// `payload` behind its length prefix.
pub fn frame_of(payload: &[u8]) -> Vec<u8> {
    let mut frame = (payload.len() as u32).to_be_bytes().to_vec();
    frame.extend_from_slice(payload);
    frame
}
