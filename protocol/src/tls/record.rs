//! TLS records on the wire (RFC 8446, section 5.1): a 5-byte header (content
//! type, legacy version, length), then exactly `length` bytes of body.
//!
//! The supervisor reads a socket one whole record at a time with
//! [`read_record`]: the header, then exactly its body, never a byte more. That
//! is what lets a session change hands between two reads: whatever the peer
//! sent after the last record read is still in the socket, whole, for the next
//! reader (the worker's [`TlsRecords`](super::TlsRecords), which reads ahead,
//! since no one reads after it).

use std::io::{self, Read};

use rustls::ContentType;

use super::error::TlsSessionError;

/// The bytes of a record header.
pub const RECORD_HEADER_LEN: usize = 5;

/// The most plaintext one record carries (2^14, RFC 8446 section 5.1).
pub const MAX_PLAINTEXT_LEN: usize = 1 << 14;

/// The longest record body accepted: 2^14 + 256 (RFC 8446 section 5.2), the
/// plaintext plus room for the inner content type, padding and the AEAD tag.
pub const MAX_CIPHERTEXT_LEN: usize = MAX_PLAINTEXT_LEN + 256;

/// A record header as read, checked against the limit.
#[derive(Clone, Copy, Debug)]
pub(super) struct RecordHeader {
    /// The header's bytes as they came, for a reader that passes the whole
    /// record on (to rustls, during the handshake).
    pub(super) bytes: [u8; RECORD_HEADER_LEN],
    pub(super) content_type: ContentType,
    pub(super) length: usize,
}

impl RecordHeader {
    /// Checks a header: its content type is one of TLS's (change_cipher_spec,
    /// alert, handshake, application_data), its length within the limit. The
    /// legacy version is ignored, as RFC 8446 says.
    pub(super) fn parse(bytes: [u8; RECORD_HEADER_LEN]) -> Result<Self, TlsSessionError> {
        if !(20..=23).contains(&bytes[0]) {
            return Err(TlsSessionError::NotTls {
                content_type: bytes[0],
            });
        }
        let length = usize::from(u16::from_be_bytes([bytes[3], bytes[4]]));
        if length > MAX_CIPHERTEXT_LEN {
            return Err(TlsSessionError::RecordTooLong {
                length,
                limit: MAX_CIPHERTEXT_LEN,
            });
        }
        Ok(Self {
            bytes,
            content_type: ContentType::from(bytes[0]),
            length,
        })
    }
}

/// Reads one whole record from `reader`: its header, then exactly its body
/// into `body` (replacing what it held; its capacity is reused). The length is
/// checked before anything is allocated for the body. `None` is the peer's
/// end of stream before the first byte of a header.
pub(super) fn read_record(
    reader: &mut impl Read,
    body: &mut Vec<u8>,
) -> Result<Option<RecordHeader>, TlsSessionError> {
    let mut bytes = [0u8; RECORD_HEADER_LEN];
    let mut filled = 0;
    while filled < RECORD_HEADER_LEN {
        match reader.read(&mut bytes[filled..]) {
            Ok(0) if filled == 0 => return Ok(None),
            Ok(0) => return Err(TlsSessionError::TruncatedRecord),
            Ok(read) => filled += read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error.into()),
        }
    }
    let header = RecordHeader::parse(bytes)?;
    body.clear();
    body.resize(header.length, 0);
    reader
        .read_exact(body)
        .map_err(|error| match error.kind() {
            io::ErrorKind::UnexpectedEof => TlsSessionError::TruncatedRecord,
            _ => error.into(),
        })?;
    Ok(Some(header))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A length over the limit is refused from the header alone: nothing is
    /// allocated for the body, nothing of it is read.
    #[test]
    fn refuses_an_oversized_length_before_reading_the_body() {
        let mut wire: &[u8] = &[23, 3, 3, 0xff, 0xff, 1, 2, 3];
        let mut body = Vec::new();
        let error = read_record(&mut wire, &mut body).unwrap_err();
        assert!(
            matches!(error, TlsSessionError::RecordTooLong { length: 65535, .. }),
            "{error}"
        );
        assert_eq!(body.capacity(), 0, "nothing allocated for the body");
        assert_eq!(wire, [1, 2, 3], "nothing read past the header");
    }

    #[test]
    fn accepts_the_longest_allowed_record_and_reads_no_further() {
        let length = MAX_CIPHERTEXT_LEN as u16;
        let mut wire = vec![23, 3, 3];
        wire.extend(length.to_be_bytes());
        wire.extend(vec![7u8; MAX_CIPHERTEXT_LEN]);
        wire.extend([23, 3, 3, 0, 1, 9]);
        let mut reader = &wire[..];
        let mut body = Vec::new();
        let header = read_record(&mut reader, &mut body).unwrap().unwrap();
        assert_eq!(header.length, MAX_CIPHERTEXT_LEN);
        assert_eq!(body.len(), MAX_CIPHERTEXT_LEN);
        assert_eq!(reader, [23, 3, 3, 0, 1, 9], "the next record is untouched");
        let next = read_record(&mut reader, &mut body).unwrap().unwrap();
        assert_eq!((next.length, &body[..]), (1, &[9u8][..]));
        assert!(read_record(&mut reader, &mut body).unwrap().is_none());
    }

    #[test]
    fn one_byte_over_the_limit_is_refused() {
        let length = (MAX_CIPHERTEXT_LEN + 1) as u16;
        let mut wire = vec![23, 3, 3];
        wire.extend(length.to_be_bytes());
        let error = read_record(&mut &wire[..], &mut Vec::new()).unwrap_err();
        assert!(
            matches!(error, TlsSessionError::RecordTooLong { .. }),
            "{error}"
        );
    }

    #[test]
    fn a_plaintext_frame_is_not_tls() {
        // A length-prefixed frame of the plaintext protocol starts with 0.
        let error = read_record(&mut &[0u8, 0, 0, 12, 1][..], &mut Vec::new()).unwrap_err();
        assert!(
            matches!(error, TlsSessionError::NotTls { content_type: 0 }),
            "{error}"
        );
    }

    #[test]
    fn a_record_cut_short_is_truncated() {
        let error = read_record(&mut &[23u8, 3, 3, 0, 4, 1, 2][..], &mut Vec::new()).unwrap_err();
        assert!(matches!(error, TlsSessionError::TruncatedRecord), "{error}");
        let error = read_record(&mut &[23u8, 3][..], &mut Vec::new()).unwrap_err();
        assert!(matches!(error, TlsSessionError::TruncatedRecord), "{error}");
    }
}
