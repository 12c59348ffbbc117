//! [`RecordOpener`]: the receiving direction of a continued TLS 1.3 session.
//! It opens one record at a time, in place, with rustls's record decrypter
//! (the ring provider's AEADs), counts sequence numbers, and says what the
//! record was: application data, the peer's close_notify, or an error.
//!
//! [`open_records_in_place`] opens every whole record of a buffer and moves
//! their plaintext together at its start, for a reader that receives
//! ciphertext straight into the buffer the plaintext is wanted in.

use std::ops::Range;

use rustls::crypto::cipher::{InboundOpaqueMessage, MessageDecrypter};
use rustls::{AlertDescription, ContentType, HandshakeType, ProtocolVersion};

use super::error::TlsSessionError;
use super::record::{RECORD_HEADER_LEN, RecordHeader};

/// What an authenticated record carried.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Opened {
    /// Application data: where its plaintext lies within the record's body
    /// (it may be empty).
    Data(Range<usize>),
    /// The peer's close_notify: nothing follows.
    CloseNotify,
}

pub(super) struct RecordOpener {
    decrypter: Box<dyn MessageDecrypter>,
    /// The sequence number of the next record received.
    sequence: u64,
}

impl RecordOpener {
    pub(super) fn new(decrypter: Box<dyn MessageDecrypter>, sequence: u64) -> Self {
        Self {
            decrypter,
            sequence,
        }
    }

    pub(super) fn sequence(&self) -> u64 {
        self.sequence
    }

    /// Authenticates and decrypts the record of `header` whose body is
    /// `body`, in place. Nothing of the body is plaintext unless this
    /// returns [`Opened::Data`].
    pub(super) fn open(
        &mut self,
        header: &RecordHeader,
        body: &mut [u8],
    ) -> Result<Opened, TlsSessionError> {
        if header.content_type != ContentType::ApplicationData {
            return Err(TlsSessionError::UnexpectedOuterType(header.content_type));
        }
        let sequence = self.sequence;
        self.sequence = sequence
            .checked_add(1)
            .ok_or(TlsSessionError::SequenceExhausted)?;
        let base = body.as_ptr() as usize;
        let record =
            InboundOpaqueMessage::new(ContentType::ApplicationData, ProtocolVersion::TLSv1_2, body);
        let message = self
            .decrypter
            .decrypt(record, sequence)
            .map_err(|error| match error {
                rustls::Error::DecryptError => TlsSessionError::Decrypt,
                other => TlsSessionError::Rustls(other),
            })?;
        match message.typ {
            ContentType::ApplicationData => {
                // Opened in place: the payload lies within the body.
                let start = message.payload.as_ptr() as usize - base;
                Ok(Opened::Data(start..start + message.payload.len()))
            }
            ContentType::Alert => match message.payload {
                [_level, description] => match AlertDescription::from(*description) {
                    AlertDescription::CloseNotify => Ok(Opened::CloseNotify),
                    other => Err(TlsSessionError::Alert(other)),
                },
                _ => Err(TlsSessionError::Malformed(format!(
                    "an alert of {} bytes",
                    message.payload.len()
                ))),
            },
            ContentType::Handshake => Err(TlsSessionError::PostHandshakeMessage(
                message
                    .payload
                    .first()
                    .map_or(HandshakeType::Unknown(0), |&kind| HandshakeType::from(kind)),
            )),
            other => Err(TlsSessionError::UnexpectedContentType(other)),
        }
    }
}

/// The first whole record of `ciphertext`: its header and the range of its
/// body. `None` while the record is not all there; its header is checked as
/// soon as it is.
pub(super) fn whole_record(
    ciphertext: &[u8],
) -> Result<Option<(RecordHeader, Range<usize>)>, TlsSessionError> {
    let Some(header) = ciphertext.first_chunk::<RECORD_HEADER_LEN>() else {
        return Ok(None);
    };
    let header = RecordHeader::parse(*header)?;
    let body = RECORD_HEADER_LEN..RECORD_HEADER_LEN + header.length;
    Ok((body.end <= ciphertext.len()).then_some((header, body)))
}

/// How reading stopped in [`open_records_in_place`], when not at a record
/// that is not all there yet.
#[derive(Debug)]
pub(super) enum Stop {
    CloseNotify,
    Failed(TlsSessionError),
}

/// What [`open_records_in_place`] did.
#[derive(Debug)]
pub(super) struct InPlace {
    /// The plaintext now at the start of the buffer.
    pub(super) plaintext: usize,
    /// The bytes of whole records taken: the rest of the ciphertext, from
    /// there on, is a record not all received yet.
    pub(super) consumed: usize,
    pub(super) stop: Option<Stop>,
}

/// Opens the whole records at the start of `buffer`, one after the other,
/// and moves the plaintext of each down to follow the previous one's, from
/// the start of `buffer` (each plaintext is shorter than its record, so it
/// never overtakes what is still to be opened; a record's body is still in
/// cache when it moves). Stops at a record not all there, at close_notify or
/// at an error; the plaintext before it is good.
pub(super) fn open_records_in_place(opener: &mut RecordOpener, buffer: &mut [u8]) -> InPlace {
    let mut done = InPlace {
        plaintext: 0,
        consumed: 0,
        stop: None,
    };
    loop {
        let (header, body) = match whole_record(&buffer[done.consumed..]) {
            Ok(Some(record)) => record,
            Ok(None) => return done,
            Err(error) => {
                done.stop = Some(Stop::Failed(error));
                return done;
            }
        };
        let body = done.consumed + body.start..done.consumed + body.end;
        done.consumed = body.end;
        match opener.open(&header, &mut buffer[body.clone()]) {
            Ok(Opened::Data(payload)) => {
                let payload = body.start + payload.start..body.start + payload.end;
                let length = payload.len();
                buffer.copy_within(payload, done.plaintext);
                done.plaintext += length;
            }
            Ok(Opened::CloseNotify) => {
                done.stop = Some(Stop::CloseNotify);
                return done;
            }
            Err(error) => {
                done.stop = Some(Stop::Failed(error));
                return done;
            }
        }
    }
}
