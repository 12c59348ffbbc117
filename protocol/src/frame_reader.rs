//! The read buffer of a connection. It does what std's `BufReader` does, but
//! zeroes its buffer only as reads need it. `BufReader` zeroes all of its
//! capacity at its first read (safe Rust reads into initialized memory
//! only): 64 KiB, on the way to a session's first reply, on both ends. This
//! buffer starts at [`FIRST_SIZE`] and doubles, up to its capacity, each
//! time a read fills all of it.
//!
//! Over TLS it starts whole ([`FrameReader::for_session`]): the record layer
//! reads straight into a buffer that holds whole records (docs/protocol.md),
//! so what came with a reply (a crash report) lands in this buffer, where
//! [`FrameReader::buffer`] shows it, not in the record layer's.

use std::io::{self, BufRead, Read};

use crate::framing::READ_BUFFER_SIZE;

/// How much of the buffer the first read may fill: room for a small frame.
const FIRST_SIZE: usize = 4096;

pub struct FrameReader<R> {
    inner: R,
    /// Zeroed up to its length, which grows up to `capacity`.
    buffer: Vec<u8>,
    capacity: usize,
    /// How much of it the first read may fill.
    first: usize,
    /// What was read and not consumed yet: `buffer[position..filled]`.
    position: usize,
    filled: usize,
}

impl<R: Read> FrameReader<R> {
    /// The reader of a session's `inner` end, of 64 KiB (`READ_BUFFER_SIZE`):
    /// whole from the first read over TLS, else growing to it.
    pub fn for_session(over_tls: bool, inner: R) -> Self {
        if over_tls {
            Self::whole(READ_BUFFER_SIZE, inner)
        } else {
            Self::with_capacity(READ_BUFFER_SIZE, inner)
        }
    }

    /// A reader of `inner` whose buffer grows up to `capacity` bytes.
    fn with_capacity(capacity: usize, inner: R) -> Self {
        Self::growing_from(FIRST_SIZE, capacity, inner)
    }

    /// A reader of `inner` whose buffer of `capacity` bytes is zeroed whole
    /// for the first read, as `BufReader`'s.
    fn whole(capacity: usize, inner: R) -> Self {
        Self::growing_from(capacity, capacity, inner)
    }

    fn growing_from(first: usize, capacity: usize, inner: R) -> Self {
        let capacity = capacity.max(1);
        Self {
            inner,
            buffer: Vec::new(),
            capacity,
            first: first.clamp(1, capacity),
            position: 0,
            filled: 0,
        }
    }

    /// What was read and not consumed yet.
    pub fn buffer(&self) -> &[u8] {
        &self.buffer[self.position..self.filled]
    }

    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// How large a read the buffer can take now, once grown as the next
    /// fill would grow it.
    fn room(&self) -> usize {
        if self.filled == self.buffer.len() && self.buffer.len() < self.capacity {
            (self.buffer.len() * 2).clamp(self.first, self.capacity)
        } else {
            self.buffer.len()
        }
    }
}

impl<R: Read> BufRead for FrameReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.position >= self.filled {
            // The last read filled all that was zeroed (or nothing was yet):
            // the next may need more.
            let room = self.room();
            self.buffer.resize(room, 0);
            self.position = 0;
            self.filled = 0;
            self.filled = self.inner.read(&mut self.buffer)?;
        }
        Ok(self.buffer())
    }

    fn consume(&mut self, amount: usize) {
        self.position = (self.position + amount).min(self.filled);
    }
}

impl<R: Read> Read for FrameReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        // Nothing buffered, and no less asked for than the buffer would
        // take: read straight into `out`, as `BufReader` does.
        if self.position >= self.filled && out.len() >= self.room() {
            return self.inner.read(out);
        }
        let available = self.fill_buf()?;
        let taken = available.len().min(out.len());
        out[..taken].copy_from_slice(&available[..taken]);
        self.consume(taken);
        Ok(taken)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives its bytes at most `chunk` at a time, and counts its reads.
    struct Chunked {
        bytes: Vec<u8>,
        chunk: usize,
        reads: usize,
    }

    impl Read for Chunked {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            let taken = self.chunk.min(out.len()).min(self.bytes.len());
            out[..taken].copy_from_slice(&self.bytes[..taken]);
            self.bytes.drain(..taken);
            Ok(taken)
        }
    }

    fn source(length: usize, chunk: usize) -> (Vec<u8>, Chunked) {
        let bytes: Vec<u8> = (0..length).map(|index| (index % 251) as u8).collect();
        let reader = Chunked {
            bytes: bytes.clone(),
            chunk,
            reads: 0,
        };
        (bytes, reader)
    }

    #[test]
    fn reads_every_byte_in_order_whatever_the_read_sizes() {
        for (length, chunk, capacity, piece) in [
            (100_000, 70_000, 65_536, 3),
            (100_000, 1_000, 65_536, 5_000),
            (10_000, 10_000, 10, 7),
            (50_000, 50_000, 65_536, 100_000),
        ] {
            let (bytes, source) = source(length, chunk);
            let mut reader = FrameReader::with_capacity(capacity, source);
            let mut read = Vec::new();
            let mut out = vec![0; piece];
            loop {
                let taken = reader.read(&mut out).unwrap();
                if taken == 0 {
                    break;
                }
                read.extend_from_slice(&out[..taken]);
            }
            assert_eq!(
                read, bytes,
                "{length} bytes, {chunk} per read, {piece} asked"
            );
        }
    }

    #[test]
    fn zeroes_no_more_than_a_small_frame_needs() {
        let (_, source) = source(100, 100);
        let mut reader = FrameReader::with_capacity(65_536, source);
        assert_eq!(reader.fill_buf().unwrap().len(), 100);
        assert_eq!(reader.buffer.len(), FIRST_SIZE);
    }

    #[test]
    fn grows_to_its_capacity_while_reads_fill_it_then_takes_a_frame_in_one_read() {
        let (_, source) = source(200_000, 200_000);
        let mut reader = FrameReader::with_capacity(65_536, source);
        let mut sizes = Vec::new();
        for _ in 0..6 {
            let filled = reader.fill_buf().unwrap().len();
            sizes.push(filled);
            reader.consume(filled);
        }
        assert_eq!(sizes, [4_096, 8_192, 16_384, 32_768, 65_536, 65_536]);
    }

    #[test]
    fn a_read_as_large_as_the_buffer_bypasses_it() {
        let (bytes, source) = source(10_000, 10_000);
        let mut reader = FrameReader::with_capacity(65_536, source);
        let mut out = vec![0; 10_000];
        assert_eq!(reader.read(&mut out).unwrap(), 10_000);
        assert_eq!(out, bytes);
        assert!(reader.buffer.is_empty(), "nothing was zeroed for it");
        assert_eq!(reader.get_ref().reads, 1);
    }

    #[test]
    fn a_whole_buffer_takes_all_there_is_at_the_first_read() {
        let (bytes, source) = source(50_000, 50_000);
        let mut reader = FrameReader::whole(65_536, source);
        assert_eq!(reader.fill_buf().unwrap(), &bytes[..]);
    }

    /// Has nothing to give (WouldBlock) every other read.
    struct NotReadyAtTimes {
        bytes: Vec<u8>,
        ready: bool,
    }

    impl Read for NotReadyAtTimes {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.ready = !self.ready;
            if !self.ready {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            let taken = out.len().min(self.bytes.len()).min(3000);
            out[..taken].copy_from_slice(&self.bytes[..taken]);
            self.bytes.drain(..taken);
            Ok(taken)
        }
    }

    #[test]
    fn a_read_that_finds_nothing_ready_loses_nothing_and_grows_nothing() {
        let bytes: Vec<u8> = (0..10_000).map(|index| (index % 7) as u8).collect();
        let mut reader = FrameReader::with_capacity(
            65_536,
            NotReadyAtTimes {
                bytes: bytes.clone(),
                ready: true,
            },
        );
        let mut read = Vec::new();
        while read.len() < bytes.len() {
            match reader.fill_buf() {
                Ok(available) => {
                    let taken = available.len();
                    read.extend_from_slice(available);
                    reader.consume(taken);
                }
                Err(error) => {
                    assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
                    assert!(reader.buffer().is_empty());
                }
            }
        }
        assert_eq!(read, bytes);
        assert_eq!(
            reader.buffer.len(),
            FIRST_SIZE,
            "reads of 3000 bytes never filled it"
        );
    }

    #[test]
    fn keeps_what_was_not_consumed() {
        let (bytes, source) = source(10, 10);
        let mut reader = FrameReader::with_capacity(65_536, source);
        reader.fill_buf().unwrap();
        reader.consume(4);
        assert_eq!(reader.buffer(), &bytes[4..]);
        assert_eq!(reader.fill_buf().unwrap(), &bytes[4..]);
        assert_eq!(
            reader.get_ref().reads,
            1,
            "no read while bytes are buffered"
        );
    }
}
