//! Where the bytes a TLS client has sent stand in its records: a client
//! sends each record whole, so bytes that end inside one are part of a
//! message and more is owed, while bytes that end on a record's end are
//! whole messages (a ChangeCipherSpec record and the Finished after it come
//! apart, say).

use executor_protocol::tls::RECORD_HEADER_LEN;

#[derive(Debug, Default)]
pub(crate) struct RecordBoundary {
    header: [u8; RECORD_HEADER_LEN],
    header_filled: usize,
    body_left: usize,
}

impl RecordBoundary {
    /// Takes in `bytes`, the next the client sent.
    pub fn advance(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            if self.body_left > 0 {
                let taken = self.body_left.min(bytes.len());
                self.body_left -= taken;
                bytes = &bytes[taken..];
                continue;
            }
            let taken = (RECORD_HEADER_LEN - self.header_filled).min(bytes.len());
            self.header[self.header_filled..][..taken].copy_from_slice(&bytes[..taken]);
            self.header_filled += taken;
            bytes = &bytes[taken..];
            if self.header_filled == RECORD_HEADER_LEN {
                // The length is the header's last two bytes.
                self.body_left = usize::from(u16::from_be_bytes([self.header[3], self.header[4]]));
                self.header_filled = 0;
            }
        }
    }

    /// Whether the bytes taken in so far end inside a record.
    pub fn inside_a_record(&self) -> bool {
        self.header_filled > 0 || self.body_left > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of content type `kind` carrying `body`.
    fn record(kind: u8, body: &[u8]) -> Vec<u8> {
        let length = u16::try_from(body.len()).unwrap().to_be_bytes();
        [&[kind, 3, 3, length[0], length[1]], body].concat()
    }

    #[test]
    fn bytes_that_end_a_record_end_a_message() {
        let mut boundary = RecordBoundary::default();
        // A ChangeCipherSpec record alone, then a Finished one.
        boundary.advance(&record(0x14, &[1]));
        assert!(!boundary.inside_a_record());
        boundary.advance(&record(0x17, &[7; 53]));
        assert!(!boundary.inside_a_record());
        // Two records in one read, and an empty one.
        boundary.advance(&[record(0x17, &[1; 9]), record(0x17, &[])].concat());
        assert!(!boundary.inside_a_record());
    }

    #[test]
    fn bytes_that_stop_inside_a_header_or_a_body_are_part_of_a_message() {
        let whole = record(0x17, &[5; 40]);
        for split in 1..whole.len() {
            let mut boundary = RecordBoundary::default();
            boundary.advance(&whole[..split]);
            assert!(boundary.inside_a_record(), "split at {split}");
            boundary.advance(&whole[split..]);
            assert!(!boundary.inside_a_record(), "split at {split}");
        }
    }
}
