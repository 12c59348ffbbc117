//! [`TlsRecords`]: a TLS 1.3 session continued on a raw stream, after rustls
//! ran its handshake (in another process, for the server's worker; in the
//! same one, for the client). Application data is read and written as TLS 1.3
//! records protected by rustls's own record encrypter and decrypter (the ring
//! provider's AEADs): this file frames records and counts sequence numbers,
//! nothing more; `opener` opens what it receives.
//!
//! What a continued session cannot do: key updates and other post-handshake
//! messages (rustls's key schedule stays behind), which end it with an error
//! saying so; and so it sends no more records than its suite allows under one
//! key.

use std::{
    io::{self, IoSlice, Read, Write},
    ops::Range,
};

use rustls::crypto::cipher::{MessageEncrypter, OutboundChunks, OutboundPlainMessage};
use rustls::{AlertDescription, ContentType, ProtocolVersion};

use super::error::TlsSessionError;
use super::opener::{Opened, RecordOpener, Stop, open_records_in_place, whole_record};
use super::record::{MAX_CIPHERTEXT_LEN, MAX_PLAINTEXT_LEN, RECORD_HEADER_LEN, RecordHeader};
use super::secrets::TlsSessionSecrets;
use crate::stream::write_all_vectored;

/// How much plaintext one `write` call protects and sends, in one system call:
/// enough records to amortize the call and the peer's wake-up (which, on one
/// CPU, takes it from the sender), few enough that a large buffer is sent
/// while the rest is encrypted (the peer decrypts the first records
/// meanwhile), not after all of it.
const MAX_WRITE_PLAINTEXT: usize = 16 * MAX_PLAINTEXT_LEN;

/// How much ciphertext one read of the transport into the session's own
/// buffer takes at most: four of the longest records, so that a small
/// request is one system call.
const INBOUND_CAPACITY: usize = 4 * (RECORD_HEADER_LEN + MAX_CIPHERTEXT_LEN);

/// The smallest caller's buffer that ciphertext is received into directly:
/// one that holds the longest record, so that a record buffered in part can
/// be completed there.
const DIRECT_READ_MIN: usize = RECORD_HEADER_LEN + MAX_CIPHERTEXT_LEN;

/// How much ciphertext one read into a caller's buffer takes at most: few
/// system calls for a large payload, few enough bytes that they are still
/// in cache when they are opened and moved together.
const DIRECT_READ_MAX: usize = 16 * (RECORD_HEADER_LEN + MAX_CIPHERTEXT_LEN);

/// The alert level rustls and others send close_notify with (TLS 1.3 ignores
/// it).
const ALERT_LEVEL_WARNING: u8 = 1;

/// Where one direction of the session is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Open,
    /// close_notify was received (reading: every read is the end of the
    /// stream) or sent (writing: every write is an error).
    Closed,
    /// A record was refused, or a write was cut short part way through a
    /// record: nothing after it can be trusted or read, so that direction
    /// cannot go on.
    Failed,
}

/// A TLS 1.3 session continued over `transport` (a `TcpStream` in practice):
/// `Read` and `Write` of application data.
///
/// Reads take as much ciphertext as the transport has and return the
/// plaintext of the records it completes. Into a caller's buffer that holds a
/// whole record, the ciphertext is received directly (up to
/// [`DIRECT_READ_MAX`]) and the records are opened there, their plaintext
/// moved together at its start: the payload is copied once, by the kernel.
/// A smaller buffer is served from the session's own (up to
/// [`INBOUND_CAPACITY`]), what the caller did not take kept for the next
/// read. Either way the ciphertext of records not yet whole is kept. This
/// side is the session's last reader, so nothing needs to stay in the
/// transport for another. A transport
/// that has no data yet (`WouldBlock`: a read that must not wait, or a read
/// timeout) loses nothing: the read can be tried again. Writes send records of
/// at most 2^14 bytes of plaintext. Nothing is buffered on the way out:
/// `flush` only flushes the transport.
pub struct TlsRecords<S> {
    transport: S,
    encrypter: Box<dyn MessageEncrypter>,
    opener: RecordOpener,
    /// The sequence number of the next record sent.
    tx_sequence: u64,
    /// The suite's confidentiality limit: the first sequence number that may
    /// not be sent (the keys are never updated).
    tx_limit: u64,
    /// Plaintext received and not yet read: `inbound[plaintext]`, a record
    /// opened in place (or the plaintext handed over, at first).
    plaintext: Range<usize>,
    /// Ciphertext read from the transport and not yet opened:
    /// `inbound[inbound_start..inbound_end]` (allocated in full at the first
    /// read: a session's sending side never reads).
    inbound: Vec<u8>,
    inbound_start: usize,
    inbound_end: usize,
    /// The records of the write being sent, each as rustls encrypted it
    /// (sent from there by one vectored write, not copied together first).
    outgoing: Vec<Vec<u8>>,
    reading: Direction,
    writing: Direction,
    /// What refused a record after others whose plaintext a read returned:
    /// the next read's error (boxed: it is rare, the session is not).
    deferred: Option<Box<TlsSessionError>>,
}

impl<S> TlsRecords<S> {
    /// Continues the session `secrets` describes over `transport`, whose next
    /// byte is the start of a record. `unread_plaintext` is what the previous
    /// holder of the session decrypted and did not consume: the first reads
    /// return it, before any new record.
    pub fn resume(
        transport: S,
        secrets: &TlsSessionSecrets,
        unread_plaintext: Vec<u8>,
    ) -> Result<Self, TlsSessionError> {
        let (encrypter, tx_sequence) = secrets.encrypter()?;
        let (decrypter, rx_sequence) = secrets.decrypter()?;
        Ok(Self {
            transport,
            encrypter,
            opener: RecordOpener::new(decrypter, rx_sequence),
            tx_sequence,
            tx_limit: secrets.suite().confidentiality_limit(),
            plaintext: 0..unread_plaintext.len(),
            inbound_start: unread_plaintext.len(),
            inbound_end: unread_plaintext.len(),
            inbound: unread_plaintext,
            outgoing: Vec::new(),
            reading: Direction::Open,
            writing: Direction::Open,
            deferred: None,
        })
    }

    /// The transport, to set timeouts or shut it down.
    pub fn get_ref(&self) -> &S {
        &self.transport
    }

    pub fn get_mut(&mut self) -> &mut S {
        &mut self.transport
    }

    /// The sequence numbers of the next record sent and received.
    pub fn sequences(&self) -> (u64, u64) {
        (self.tx_sequence, self.opener.sequence())
    }

    /// Protects `plaintext` as one record of `content_type`, appended to
    /// `outgoing`.
    fn seal(
        &mut self,
        content_type: ContentType,
        plaintext: OutboundChunks<'_>,
    ) -> Result<(), TlsSessionError> {
        let sequence = self.tx_sequence;
        if sequence >= self.tx_limit {
            return Err(TlsSessionError::RecordLimit {
                limit: self.tx_limit,
            });
        }
        self.tx_sequence = sequence + 1;
        let message = OutboundPlainMessage {
            typ: content_type,
            version: ProtocolVersion::TLSv1_2,
            payload: plaintext,
        };
        let record = self.encrypter.encrypt(message, sequence)?;
        self.outgoing.push(record.encode());
        Ok(())
    }
}

impl<S: Write> TlsRecords<S> {
    /// Ends the sending side cleanly: sends close_notify and flushes. Reading
    /// goes on until the peer's close_notify.
    pub fn close(&mut self) -> io::Result<()> {
        match self.writing {
            Direction::Open => {}
            Direction::Closed => return Ok(()),
            Direction::Failed => return Err(TlsSessionError::Failed.into()),
        }
        self.outgoing.clear();
        let alert = [ALERT_LEVEL_WARNING, u8::from(AlertDescription::CloseNotify)];
        self.seal(ContentType::Alert, OutboundChunks::Single(&alert))?;
        self.send()?;
        self.writing = Direction::Closed;
        self.transport.flush()
    }

    /// Protects up to [`MAX_WRITE_PLAINTEXT`] of `plaintext` as records of
    /// at most 2^14 bytes and sends them in one write; how much was taken.
    fn send_application_data(&mut self, plaintext: OutboundChunks<'_>) -> io::Result<usize> {
        match self.writing {
            Direction::Open => {}
            Direction::Closed => return Err(TlsSessionError::Closed.into()),
            Direction::Failed => return Err(TlsSessionError::Failed.into()),
        }
        let (mut rest, _) = plaintext.split_at(MAX_WRITE_PLAINTEXT);
        let taken = rest.len();
        self.outgoing.clear();
        while !rest.is_empty() {
            let (record, after) = rest.split_at(MAX_PLAINTEXT_LEN);
            self.seal(ContentType::ApplicationData, record)?;
            rest = after;
        }
        self.send()?;
        Ok(taken)
    }

    /// Writes `outgoing` to the transport. A write cut short leaves part of a
    /// record on the wire, after which the peer can read nothing: the sending
    /// side has failed.
    fn send(&mut self) -> io::Result<()> {
        let mut slices: Vec<IoSlice<'_>> = self
            .outgoing
            .iter()
            .map(|record| IoSlice::new(record))
            .collect();
        let sent = write_all_vectored(&mut self.transport, &mut slices);
        if sent.is_err() {
            self.writing = Direction::Failed;
        }
        sent
    }
}

impl<S: Read> TlsRecords<S> {
    /// Makes plaintext available: opens the next record, or receives more.
    /// Receives straight into `buffer` (the caller's) when it is large and
    /// no whole record is buffered; the plaintext then lies at its start,
    /// and how much of it is returned. A transport without data yet is no
    /// failure: its error is returned, and what was read stays.
    fn receive(&mut self, buffer: &mut [u8]) -> Result<usize, TlsSessionError> {
        let buffered = &self.inbound[self.inbound_start..self.inbound_end];
        if buffer.len() >= DIRECT_READ_MIN && whole_record(buffered)?.is_none() {
            self.receive_directly(buffer)
        } else {
            self.receive_record().map(|()| 0)
        }
    }

    /// Receives ciphertext into `buffer`, after the part of a record already
    /// buffered, and opens the whole records there in place
    /// ([`open_records_in_place`]); what follows them is kept for the next
    /// read. An error after some plaintext is returned at the next read.
    fn receive_directly(&mut self, buffer: &mut [u8]) -> Result<usize, TlsSessionError> {
        let buffered = self.inbound_start..self.inbound_end;
        let partial = buffered.len();
        buffer[..partial].copy_from_slice(&self.inbound[buffered]);
        let limit = buffer.len().min(DIRECT_READ_MAX);
        let read = read_some(
            &mut self.transport,
            &mut buffer[partial..limit],
            partial > 0,
        )?;
        let received = &mut buffer[..partial + read];
        let opened = open_records_in_place(&mut self.opener, received);
        // Only a record not all received yet is kept, which `inbound` holds;
        // after close_notify or an error nothing more is read, however much
        // came with it.
        let rest = match opened.stop {
            None => &received[opened.consumed..],
            Some(_) => &[],
        };
        self.reserve_inbound();
        self.inbound[..rest.len()].copy_from_slice(rest);
        self.inbound_start = 0;
        self.inbound_end = rest.len();
        match opened.stop {
            None => {}
            Some(Stop::CloseNotify) => self.reading = Direction::Closed,
            Some(Stop::Failed(error)) if opened.plaintext == 0 => return Err(error),
            Some(Stop::Failed(error)) => self.deferred = Some(Box::new(error)),
        }
        Ok(opened.plaintext)
    }

    /// The next whole record in `inbound`, read from the transport as far as
    /// needed: its header and where its body is. The length is checked as
    /// soon as the header is in, before waiting for a body.
    fn next_record(&mut self) -> Result<(RecordHeader, Range<usize>), TlsSessionError> {
        loop {
            let buffered = &self.inbound[self.inbound_start..self.inbound_end];
            if let Some((header, body)) = whole_record(buffered)? {
                let body = self.inbound_start + body.start..self.inbound_start + body.end;
                self.inbound_start = body.end;
                return Ok((header, body));
            }
            self.fill_inbound()?;
        }
    }

    /// Allocates `inbound` in full, at the first read.
    fn reserve_inbound(&mut self) {
        if self.inbound.len() < INBOUND_CAPACITY {
            self.inbound.resize(INBOUND_CAPACITY, 0);
        }
    }

    /// Reads what the transport has into `inbound`, after moving the part of
    /// a record already there to its start.
    fn fill_inbound(&mut self) -> Result<(), TlsSessionError> {
        self.reserve_inbound();
        self.inbound
            .copy_within(self.inbound_start..self.inbound_end, 0);
        self.inbound_end -= self.inbound_start;
        self.inbound_start = 0;
        let partial = self.inbound_end > 0;
        let into = &mut self.inbound[self.inbound_end..];
        self.inbound_end += read_some(&mut self.transport, into, partial)?;
        Ok(())
    }

    /// Reads and opens one record in `inbound`, where its plaintext stays.
    fn receive_record(&mut self) -> Result<(), TlsSessionError> {
        let (header, body) = self.next_record()?;
        match self.opener.open(&header, &mut self.inbound[body.clone()])? {
            Opened::Data(payload) => {
                self.plaintext = body.start + payload.start..body.start + payload.end;
            }
            Opened::CloseNotify => self.reading = Direction::Closed,
        }
        Ok(())
    }
}

/// One read of `transport` into `into`, which takes at least a byte: the end
/// of the stream is an error, `Truncated` between records and
/// `TruncatedRecord` inside one (`partial`).
fn read_some(
    transport: &mut impl Read,
    into: &mut [u8],
    partial: bool,
) -> Result<usize, TlsSessionError> {
    loop {
        match transport.read(into) {
            Ok(0) if partial => return Err(TlsSessionError::TruncatedRecord),
            Ok(0) => return Err(TlsSessionError::Truncated),
            Ok(read) => return Ok(read),
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error.into()),
        }
    }
}

impl<S: Read> Read for TlsRecords<S> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        if buffer.is_empty() {
            return Ok(0);
        }
        while self.plaintext.is_empty() {
            match self.reading {
                Direction::Open => {}
                Direction::Closed => return Ok(0),
                Direction::Failed => return Err(TlsSessionError::Failed.into()),
            }
            let received = match self.deferred.take() {
                Some(error) => Err(*error),
                None => self.receive(buffer),
            };
            match received {
                Ok(0) => {}
                Ok(placed) => return Ok(placed),
                Err(TlsSessionError::Io(error)) if error.kind() == io::ErrorKind::WouldBlock => {
                    return Err(error);
                }
                Err(error) => {
                    self.reading = Direction::Failed;
                    return Err(error.into());
                }
            }
        }
        let unread = &self.inbound[self.plaintext.clone()];
        let taken = unread.len().min(buffer.len());
        buffer[..taken].copy_from_slice(&unread[..taken]);
        self.plaintext.start += taken;
        Ok(taken)
    }
}

impl<S: Write> Write for TlsRecords<S> {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        self.send_application_data(OutboundChunks::Single(buffer))
    }

    /// The slices' bytes as one stream: records that span slices, sent in
    /// one system call (a launch's frame header and its inputs together).
    fn write_vectored(&mut self, buffers: &[IoSlice<'_>]) -> io::Result<usize> {
        let slices: Vec<&[u8]> = buffers.iter().map(|buffer| &**buffer).collect();
        self.send_application_data(OutboundChunks::new(&slices))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.transport.flush()
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::super::record::{MAX_CIPHERTEXT_LEN, RECORD_HEADER_LEN};
    use super::super::secrets::{TlsSuite, TrafficKeys};
    use super::*;

    /// Two ends of one session's keys: what one sends, the other receives.
    fn mirrored(suite: TlsSuite) -> (TlsSessionSecrets, TlsSessionSecrets) {
        let key_len = match suite {
            TlsSuite::Aes128GcmSha256 => 16,
            _ => 32,
        };
        let keys = |seed: u8| TrafficKeys::new(5, vec![seed; key_len], [seed ^ 0xff; 12]);
        (
            TlsSessionSecrets::new(suite, keys(1), keys(2)),
            TlsSessionSecrets::new(suite, keys(2), keys(1)),
        )
    }

    /// A writer that keeps what it is given, and a reader of it.
    #[derive(Default)]
    struct Wire(Cursor<Vec<u8>>);

    impl Read for Wire {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            self.0.read(buffer)
        }
    }

    impl Write for Wire {
        fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
            self.0.get_mut().extend_from_slice(buffer);
            Ok(buffer.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// What `sender` wrote, read by a receiver of the mirrored keys.
    fn receiver_of(sender: TlsRecords<Wire>, secrets: &TlsSessionSecrets) -> TlsRecords<Wire> {
        let wire = Wire(Cursor::new(sender.transport.0.into_inner()));
        TlsRecords::resume(wire, secrets, Vec::new()).unwrap()
    }

    /// The lengths of the records on `wire`, from their headers.
    fn record_lengths(mut wire: &[u8]) -> Vec<usize> {
        let mut lengths = Vec::new();
        while !wire.is_empty() {
            let length = usize::from(u16::from_be_bytes([wire[3], wire[4]]));
            assert_eq!(wire[..3], [23, 3, 3], "an application_data record");
            lengths.push(length);
            wire = &wire[RECORD_HEADER_LEN + length..];
        }
        lengths
    }

    #[test]
    fn writes_records_of_at_most_2_14_bytes_of_plaintext() {
        for suite in TlsSuite::ALL {
            let (one, other) = mirrored(suite);
            let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
            let message: Vec<u8> = (0..40_000u32).map(|index| index as u8).collect();
            sender.write_all(&message).unwrap();
            assert_eq!(sender.sequences(), (8, 5), "three records sent from 5");
            let tag_and_type = 16 + 1;
            assert_eq!(
                record_lengths(sender.transport.0.get_ref()),
                [
                    16384 + tag_and_type,
                    16384 + tag_and_type,
                    7232 + tag_and_type
                ]
            );
            let mut receiver = receiver_of(sender, &other);
            let mut received = Vec::new();
            let error = receiver.read_to_end(&mut received).unwrap_err();
            assert_eq!(received, message, "{suite:?}");
            assert_eq!(
                error.kind(),
                io::ErrorKind::UnexpectedEof,
                "no close_notify"
            );
        }
    }

    /// A transport that gives what was sent in the parts it is cut into,
    /// one part per read (as much of it as the read takes, the rest at the
    /// next), a part of no bytes being a read that finds no data
    /// (`WouldBlock`); it counts the reads.
    struct Parts {
        parts: std::collections::VecDeque<Vec<u8>>,
        reads: usize,
    }

    impl Parts {
        fn of(wire: &[u8], cuts: &[usize]) -> Self {
            let mut parts = std::collections::VecDeque::new();
            let mut start = 0;
            for &cut in cuts {
                parts.push_back(wire[start..cut].to_vec());
                start = cut;
            }
            parts.push_back(wire[start..].to_vec());
            Self { parts, reads: 0 }
        }
    }

    impl Read for Parts {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            let Some(mut part) = self.parts.pop_front() else {
                return Ok(0);
            };
            if part.is_empty() {
                return Err(io::ErrorKind::WouldBlock.into());
            }
            if part.len() > buffer.len() {
                self.parts.push_front(part.split_off(buffer.len()));
            }
            buffer[..part.len()].copy_from_slice(&part);
            Ok(part.len())
        }
    }

    /// The wire of `messages`, each written as its own records.
    fn written(secrets: &TlsSessionSecrets, messages: &[&[u8]]) -> Vec<u8> {
        let mut sender = TlsRecords::resume(Wire::default(), secrets, Vec::new()).unwrap();
        for message in messages {
            sender.write_all(message).unwrap();
        }
        sender.transport.0.into_inner()
    }

    #[test]
    fn records_that_arrived_together_are_read_in_one_call() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let wire = written(&one, &[&[1; 1024], &[2; 100]]);
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = [0u8; 2048];
        assert_eq!(receiver.read(&mut buffer).unwrap(), 1024);
        assert_eq!(receiver.read(&mut buffer).unwrap(), 100);
        assert_eq!(buffer[..100], [2; 100]);
        assert_eq!(receiver.transport.reads, 1);
    }

    /// A read that finds no data, in a header or in a body, is returned as
    /// such, and the session goes on from where it was.
    #[test]
    fn a_read_that_finds_no_data_inside_a_record_loses_nothing() {
        let (one, other) = mirrored(TlsSuite::Chacha20Poly1305Sha256);
        let wire = written(&one, &[b"first", b"second"]);
        let cuts = [2, 2, 9, 9];
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &cuts), &other, Vec::new()).unwrap();
        let mut buffer = [0u8; 16];
        for _ in 0..2 {
            let error = receiver.read(&mut buffer).unwrap_err();
            assert_eq!(error.kind(), io::ErrorKind::WouldBlock);
        }
        assert_eq!(receiver.read(&mut buffer).unwrap(), 5);
        assert_eq!(&buffer[..5], b"first");
        assert_eq!(receiver.read(&mut buffer).unwrap(), 6);
        assert_eq!(&buffer[..6], b"second");
        let end = receiver.read(&mut buffer).unwrap_err();
        assert_eq!(end.kind(), io::ErrorKind::UnexpectedEof, "no close_notify");
    }

    #[test]
    fn a_stream_that_ends_inside_a_record_is_truncated() {
        let (one, other) = mirrored(TlsSuite::Aes256GcmSha384);
        let wire = written(&one, &[b"cut short"]);
        let cut = Parts::of(&wire[..wire.len() - 1], &[]);
        let mut receiver = TlsRecords::resume(cut, &other, Vec::new()).unwrap();
        let error = receiver.read(&mut [0; 16]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the connection was closed in the middle of a TLS record"
        );
    }

    #[test]
    fn a_vectored_write_is_records_that_span_its_slices() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        let (head, body, tail) = (b"abc".to_vec(), vec![7u8; 20_000], b"tail!".to_vec());
        let slices = [
            IoSlice::new(&head),
            IoSlice::new(&body),
            IoSlice::new(&tail),
        ];
        assert_eq!(sender.write_vectored(&slices).unwrap(), 20_008);
        let tag_and_type = 16 + 1;
        assert_eq!(
            record_lengths(sender.transport.0.get_ref()),
            [16384 + tag_and_type, 3624 + tag_and_type]
        );
        let mut receiver = receiver_of(sender, &other);
        let mut received = Vec::new();
        let _ = receiver.read_to_end(&mut received);
        assert_eq!(received, [head, body, tail].concat());
    }

    /// The keys are never updated, so no more records are sent under them
    /// than the suite allows.
    #[test]
    fn no_record_is_sent_past_the_suites_confidentiality_limit() {
        for suite in TlsSuite::ALL {
            let (one, _) = mirrored(suite);
            let limit = suite.confidentiality_limit();
            let last = one.with_tx_sequence(limit - 1);
            let mut sender = TlsRecords::resume(Wire::default(), &last, Vec::new()).unwrap();
            sender.write_all(b"the last record").unwrap();
            let error = sender.write(b"one too many").unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "the TLS session has sent the {limit} records its cipher suite allows under \
                     one key, and cannot update its keys: open a new session"
                ),
                "{suite:?}"
            );
        }
        assert_eq!(TlsSuite::Aes128GcmSha256.confidentiality_limit(), 1 << 24);
    }

    #[test]
    fn a_large_write_is_taken_in_bounded_parts() {
        let (one, _) = mirrored(TlsSuite::Aes128GcmSha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        let taken = sender.write(&vec![0; 3 * MAX_WRITE_PLAINTEXT]).unwrap();
        assert_eq!(taken, MAX_WRITE_PLAINTEXT);
        assert_eq!(sender.write(&[]).unwrap(), 0);
    }

    #[test]
    fn unread_plaintext_comes_first_and_in_parts() {
        let (one, other) = mirrored(TlsSuite::Chacha20Poly1305Sha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        sender.write_all(b"from the wire").unwrap();
        sender.close().unwrap();
        let wire = Wire(Cursor::new(sender.transport.0.into_inner()));
        let mut receiver = TlsRecords::resume(wire, &other, b"left over ".to_vec()).unwrap();
        let mut part = [0u8; 4];
        assert_eq!(receiver.read(&mut part).unwrap(), 4);
        assert_eq!(&part, b"left");
        let mut rest = Vec::new();
        receiver.read_to_end(&mut rest).unwrap();
        assert_eq!(rest, b" over from the wire");
    }

    #[test]
    fn empty_records_are_skipped_not_an_end_of_stream() {
        let (one, other) = mirrored(TlsSuite::Aes256GcmSha384);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        sender
            .seal(ContentType::ApplicationData, OutboundChunks::Single(&[]))
            .unwrap();
        sender
            .seal(
                ContentType::ApplicationData,
                OutboundChunks::Single(b"after"),
            )
            .unwrap();
        sender.send().unwrap();
        let mut receiver = receiver_of(sender, &other);
        let mut buffer = [0u8; 16];
        assert_eq!(receiver.read(&mut buffer).unwrap(), 5);
        assert_eq!(&buffer[..5], b"after");
    }

    #[test]
    fn an_alert_other_than_close_notify_is_an_error_naming_it() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        let fatal = 2;
        sender
            .seal(
                ContentType::Alert,
                OutboundChunks::Single(&[fatal, u8::from(AlertDescription::HandshakeFailure)]),
            )
            .unwrap();
        sender.send().unwrap();
        let mut receiver = receiver_of(sender, &other);
        let error = receiver.read(&mut [0; 16]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::ConnectionAborted);
        assert_eq!(
            error.to_string(),
            "the peer ended the TLS session with the alert HandshakeFailure"
        );
    }

    #[test]
    fn records_out_of_sequence_do_not_decrypt() {
        let (one, other) = mirrored(TlsSuite::Chacha20Poly1305Sha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        sender.write_all(b"first").unwrap();
        sender.write_all(b"second").unwrap();
        let wire = sender.transport.0.into_inner();
        let first_length = RECORD_HEADER_LEN + record_lengths(&wire)[0];
        // The second record alone, where the first is expected: a replay or a
        // drop is refused like an alteration.
        let skipped = Wire(Cursor::new(wire[first_length..].to_vec()));
        let mut receiver = TlsRecords::resume(skipped, &other, Vec::new()).unwrap();
        let error = receiver.read(&mut [0; 16]).unwrap_err();
        assert!(error.to_string().contains("failed to decrypt"), "{error}");
    }

    /// A message of `records` full records and a short one, and its wire.
    fn long_message(secrets: &TlsSessionSecrets, records: usize) -> (Vec<u8>, Vec<u8>) {
        let message: Vec<u8> = (0..records * MAX_PLAINTEXT_LEN + 1000)
            .map(|index| (index % 251) as u8)
            .collect();
        let wire = written(secrets, &[&message]);
        (message, wire)
    }

    /// Reads with `buffer` until the end of the stream (no close_notify).
    fn read_all(receiver: &mut TlsRecords<Parts>, buffer: &mut [u8]) -> Vec<u8> {
        let mut received = Vec::new();
        loop {
            match receiver.read(buffer) {
                Ok(read) => received.extend_from_slice(&buffer[..read]),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {}
                Err(error) => {
                    assert_eq!(error.kind(), io::ErrorKind::UnexpectedEof, "{error}");
                    return received;
                }
            }
        }
    }

    #[test]
    fn many_records_are_received_into_a_large_buffer_in_one_read() {
        let (one, other) = mirrored(TlsSuite::Aes256GcmSha384);
        let (message, wire) = long_message(&one, 5);
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MAX];
        assert_eq!(receiver.read(&mut buffer).unwrap(), message.len());
        assert_eq!(buffer[..message.len()], message);
        assert_eq!(receiver.transport.reads, 1);
    }

    /// Records cut anywhere (in a header, in a body, with reads that find
    /// no data between) are completed in the caller's buffer, and a read
    /// takes no more ciphertext than the buffer holds.
    #[test]
    fn records_cut_across_large_reads_lose_and_repeat_nothing() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let (message, wire) = long_message(&one, 6);
        let record = RECORD_HEADER_LEN + MAX_PLAINTEXT_LEN + 17;
        let cuts = [
            2,
            record + 3,
            record + 3,
            2 * record + 100,
            4 * record - 1,
            wire.len() - 10,
        ];
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &cuts), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; 3 * record];
        assert_eq!(read_all(&mut receiver, &mut buffer), message);
    }

    #[test]
    fn a_large_buffer_that_cannot_hold_all_the_records_gets_them_in_turn() {
        let (one, other) = mirrored(TlsSuite::Chacha20Poly1305Sha256);
        let (message, wire) = long_message(&one, 40);
        let cuts: Vec<usize> = (DIRECT_READ_MIN..wire.len())
            .step_by(DIRECT_READ_MIN)
            .collect();
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &cuts), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MIN];
        assert_eq!(read_all(&mut receiver, &mut buffer), message);
    }

    /// The plaintext of the records before a refused one is returned; the
    /// refusal is the next read's error, then the session has failed.
    #[test]
    fn an_altered_record_after_good_ones_in_a_large_read_fails_the_next_read() {
        let (one, other) = mirrored(TlsSuite::Aes256GcmSha384);
        let (message, mut wire) = long_message(&one, 3);
        let record = RECORD_HEADER_LEN + MAX_PLAINTEXT_LEN + 17;
        wire[2 * record + 40] ^= 1;
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MAX];
        assert_eq!(receiver.read(&mut buffer).unwrap(), 2 * MAX_PLAINTEXT_LEN);
        assert_eq!(
            buffer[..2 * MAX_PLAINTEXT_LEN],
            message[..2 * MAX_PLAINTEXT_LEN]
        );
        let error = receiver.read(&mut buffer).unwrap_err();
        assert!(error.to_string().contains("failed to decrypt"), "{error}");
        let error = receiver.read(&mut buffer).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the TLS session failed earlier and cannot go on"
        );
    }

    /// Records after the one that failed are dropped, however many arrived
    /// with it: the session keeps at most a record's worth of ciphertext.
    #[test]
    fn an_altered_record_followed_by_many_in_a_large_read_is_an_error_not_a_panic() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let (_, mut wire) = long_message(&one, 12);
        wire[RECORD_HEADER_LEN + 40] ^= 1;
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MAX];
        let error = receiver.read(&mut buffer).unwrap_err();
        assert!(error.to_string().contains("failed to decrypt"), "{error}");
    }

    /// What follows close_notify in the same read is never plaintext, and
    /// is not kept, however much of it there is.
    #[test]
    fn records_after_close_notify_in_a_large_read_are_dropped() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        sender.close().unwrap();
        let mut wire = sender.transport.0.into_inner();
        let (_, more) = long_message(&one, 10);
        wire.extend_from_slice(&more);
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MAX];
        assert_eq!(
            receiver.read(&mut buffer).unwrap(),
            0,
            "the end of the stream"
        );
        assert_eq!(
            receiver.read(&mut buffer).unwrap(),
            0,
            "and nothing after it"
        );
    }

    #[test]
    fn close_notify_after_data_in_a_large_read_ends_the_stream_after_it() {
        let (one, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let mut sender = TlsRecords::resume(Wire::default(), &one, Vec::new()).unwrap();
        sender.write_all(b"the last words").unwrap();
        sender.close().unwrap();
        let wire = sender.transport.0.into_inner();
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let mut buffer = vec![0u8; DIRECT_READ_MIN];
        assert_eq!(receiver.read(&mut buffer).unwrap(), 14);
        assert_eq!(&buffer[..14], b"the last words");
        assert_eq!(receiver.read(&mut buffer).unwrap(), 0);
        assert_eq!(receiver.transport.reads, 1);
    }

    #[test]
    fn an_oversized_header_in_a_large_read_is_refused() {
        let (_, other) = mirrored(TlsSuite::Aes128GcmSha256);
        let wire = [23, 3, 3, 0xff, 0xff, 1, 2, 3];
        let mut receiver = TlsRecords::resume(Parts::of(&wire, &[]), &other, Vec::new()).unwrap();
        let error = receiver.read(&mut vec![0u8; DIRECT_READ_MIN]).unwrap_err();
        assert!(error.to_string().contains("exceeds the limit"), "{error}");
    }

    #[test]
    fn the_longest_record_a_sender_makes_is_within_the_read_limit() {
        let (one, _) = mirrored(TlsSuite::Aes256GcmSha384);
        let (encrypter, _) = one.encrypter().unwrap();
        assert!(encrypter.encrypted_payload_len(MAX_PLAINTEXT_LEN) <= MAX_CIPHERTEXT_LEN);
    }
}
