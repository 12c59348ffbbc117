//! The supervisor's side of the handover: a rustls `ServerConnection` driven
//! over its socket one whole TLS record at a time, then its session handed
//! over as [`TlsSessionSecrets`] plus the plaintext it decrypted and nobody
//! read.
//!
//! The invariant: every byte this stream takes from the socket belongs to a
//! record it takes whole (the header, then exactly the body the header
//! announces) and gives to rustls, which processes it before the next read.
//! So when the secrets are extracted, rustls holds no ciphertext: whatever
//! the client sent after the last record read is still in the socket, from a
//! record boundary on, for the worker's [`TlsRecords`](super::TlsRecords).
//! rustls's own `read_tls` reads as much as the socket has, and a record
//! caught in part in its buffer would be lost to the worker; this is why the
//! handshake and the first request go through this stream only.
//!
//! A deadline on the handshake is the socket's (its read timeout).

use std::fmt;
use std::io::{self, Read, Write};

use rustls::ServerConnection;

use super::error::TlsSessionError;
use super::record::read_record;
use super::secrets::TlsSessionSecrets;

/// What the worker needs to continue the session: the secrets, the plaintext
/// already decrypted and not read (its first reads return it), and the
/// socket. `Debug` shows neither keys nor plaintext (which may hold the
/// client's token).
pub struct Handover<S> {
    pub secrets: TlsSessionSecrets,
    pub unread_plaintext: Vec<u8>,
    pub socket: S,
}

/// A server-side TLS session read record by record (see the module's
/// invariant): `Read` and `Write` of application data for the requests the
/// supervisor serves itself, then [`hand_over`](Self::hand_over).
pub struct RecordExactStream<S> {
    connection: ServerConnection,
    socket: S,
    /// The body of the record being read (reused).
    body: Vec<u8>,
}

impl<S: Read + Write> RecordExactStream<S> {
    /// `connection` is a new rustls server connection whose configuration
    /// has `enable_secret_extraction` (and `send_tls13_tickets = 0`, so that
    /// nothing follows the handshake unasked); `socket` is its transport.
    pub fn new(connection: ServerConnection, socket: S) -> Self {
        Self {
            connection,
            socket,
            body: Vec::new(),
        }
    }

    /// Runs the handshake to its end, reading one record at a time.
    pub fn complete_handshake(&mut self) -> Result<(), TlsSessionError> {
        while self.connection.is_handshaking() {
            self.write_pending()?;
            if self.connection.is_handshaking() {
                self.read_one_record()?;
            }
        }
        self.write_pending()?;
        Ok(())
    }

    /// The connection, for what the handshake settled: the client's
    /// certificate, the negotiated suite, the server name.
    pub fn connection(&self) -> &ServerConnection {
        &self.connection
    }

    /// The transport, to set its timeouts. Reading from it directly would
    /// break the record-exact invariant: only this stream reads it.
    pub fn socket_mut(&mut self) -> &mut S {
        &mut self.socket
    }

    /// Ends the session from this side (close_notify), as when the client
    /// is refused after the TLS handshake.
    pub fn send_close_notify(&mut self) -> io::Result<()> {
        self.connection.send_close_notify();
        self.write_pending()
    }

    /// Ends this stream's part: everything rustls was to send is sent, what
    /// it decrypted and nobody read is taken out, and the session's secrets
    /// are extracted for the worker.
    pub fn hand_over(mut self) -> Result<Handover<S>, TlsSessionError> {
        self.write_pending()?;
        let unread_plaintext = self.take_unread_plaintext()?;
        let suite = self
            .connection
            .negotiated_cipher_suite()
            .ok_or(rustls::Error::HandshakeNotComplete)?;
        let extracted = self.connection.dangerous_extract_secrets()?;
        Ok(Handover {
            secrets: TlsSessionSecrets::from_extracted(suite, extracted)?,
            unread_plaintext,
            socket: self.socket,
        })
    }

    /// The plaintext rustls decrypted and nobody read.
    fn take_unread_plaintext(&mut self) -> Result<Vec<u8>, TlsSessionError> {
        let mut unread = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            match self.connection.reader().read(&mut chunk) {
                Ok(0) => return Err(TlsSessionError::ClosedBeforeHandover),
                Ok(read) => unread.extend_from_slice(&chunk[..read]),
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => return Ok(unread),
                Err(error) => return Err(error.into()),
            }
        }
    }

    /// Reads one whole record from the socket, gives it to rustls and lets
    /// rustls process it (sending whatever it answers).
    fn read_one_record(&mut self) -> Result<(), TlsSessionError> {
        let header =
            read_record(&mut self.socket, &mut self.body)?.ok_or(TlsSessionError::Truncated)?;
        let mut record = (&header.bytes[..]).chain(&self.body[..]);
        let mut fed = 0;
        while fed < header.bytes.len() + self.body.len() {
            match self.connection.read_tls(&mut record)? {
                0 => {
                    return Err(TlsSessionError::Malformed(format!(
                        "rustls took {fed} of the record's {} bytes",
                        header.bytes.len() + self.body.len()
                    )));
                }
                read => fed += read,
            }
        }
        if let Err(error) = self.connection.process_new_packets() {
            // rustls queued an alert saying why; the peer gets it if it can.
            let _ = self.write_pending();
            return Err(error.into());
        }
        self.write_pending()?;
        Ok(())
    }

    /// Sends what rustls has to send.
    fn write_pending(&mut self) -> io::Result<()> {
        while self.connection.wants_write() {
            self.connection.write_tls(&mut self.socket)?;
        }
        self.socket.flush()
    }
}

impl<S: fmt::Debug> fmt::Debug for Handover<S> {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Handover")
            .field("secrets", &self.secrets)
            .field("unread_plaintext_len", &self.unread_plaintext.len())
            .field("socket", &self.socket)
            .finish()
    }
}

impl<S: Read + Write> Read for RecordExactStream<S> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.connection.reader().read(buffer) {
                Err(error) if error.kind() == io::ErrorKind::WouldBlock => {
                    self.read_one_record()?
                }
                result => return result,
            }
        }
    }
}

impl<S: Read + Write> Write for RecordExactStream<S> {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        let written = self.connection.writer().write(buffer)?;
        self.write_pending()?;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_pending()
    }
}
