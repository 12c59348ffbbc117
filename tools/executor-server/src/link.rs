//! What the supervisor talks to its client through, from the handshake to
//! the handover: the socket itself, or on a TLS listener the TLS session
//! over it (`executor_protocol::tls::RecordExactStream`, which reads whole
//! records only, so that the session can be handed to the worker).

use std::io::{self, Read, Write};

use executor_protocol::tls::RecordExactStream;

use crate::{handshake_socket::HandshakeSocket, linger::close_gracefully};

pub(crate) enum Link<'s> {
    Plain(HandshakeSocket<'s>),
    Tls(Box<RecordExactStream<HandshakeSocket<'s>>>),
}

impl<'s> Link<'s> {
    pub fn socket_mut(&mut self) -> &mut HandshakeSocket<'s> {
        match self {
            Self::Plain(socket) => socket,
            Self::Tls(session) => session.socket_mut(),
        }
    }

    /// Closes the connection so that what was sent last reaches the client
    /// (over TLS, after close_notify).
    pub fn close(mut self) {
        if let Self::Tls(session) = &mut self {
            let _ = session.send_close_notify();
        }
        close_gracefully(self.socket_mut().stream());
    }
}

impl Read for Link<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.read(buffer),
            Self::Tls(session) => session.read(buffer),
        }
    }
}

impl Write for Link<'_> {
    fn write(&mut self, buffer: &[u8]) -> io::Result<usize> {
        match self {
            Self::Plain(socket) => socket.write(buffer),
            Self::Tls(session) => session.write(buffer),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Self::Plain(socket) => socket.flush(),
            Self::Tls(session) => session.flush(),
        }
    }
}
