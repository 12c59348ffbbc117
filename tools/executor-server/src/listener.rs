//! Where connections come from: a TCP listener, or a Unix socket's (bound
//! here, `socket_file.rs`, or passed by systemd), and who is at the other end
//! of each connection accepted: an IP address, or on a Unix socket the uid
//! the kernel recorded for the process that connected (`SO_PEERCRED`).

use std::{
    fmt, io,
    net::{SocketAddr, TcpListener},
    os::{fd::AsFd, unix::net::UnixListener},
    time::Duration,
};

use executor_protocol::{Stream, stream::prepare_listener, unix_socket};

#[derive(Debug)]
pub(crate) enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// Who connected.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Peer {
    /// A TCP peer's address.
    Ip(SocketAddr),
    /// The uid of the process that connected to a Unix socket.
    Uid(u32),
}

impl fmt::Display for Peer {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Ip(address) => write!(formatter, "{address}"),
            Self::Uid(uid) => write!(formatter, "uid {uid}"),
        }
    }
}

impl Listener {
    /// Makes every connection it accepts ready for the protocol's traffic
    /// (`Stream::prepare`): a TCP listener's options are its connections'.
    pub fn prepare_connections(&self, dead_link_timeout: Duration) -> io::Result<()> {
        match self {
            Self::Tcp(listener) => prepare_listener(listener, dead_link_timeout),
            Self::Unix(_) => Ok(()),
        }
    }

    /// The next connection and its peer, ready for the protocol's traffic
    /// ([`Listener::prepare_connections`]).
    pub fn accept(&self) -> io::Result<(Stream, Peer)> {
        match self {
            Self::Tcp(listener) => {
                let (stream, peer) = listener.accept()?;
                Ok((Stream::Tcp(stream), Peer::Ip(peer)))
            }
            Self::Unix(listener) => {
                let (stream, _) = listener.accept()?;
                let uid = unix_socket::peer_uid(stream.as_fd())?;
                Ok((Stream::Unix(stream), Peer::Uid(uid)))
            }
        }
    }

    /// The address clients open: `host:port`, or `unix:<path>`.
    pub fn address(&self) -> io::Result<String> {
        match self {
            Self::Tcp(listener) => Ok(listener.local_addr()?.to_string()),
            Self::Unix(listener) => {
                let address = listener.local_addr()?;
                let path = address.as_pathname().ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidInput,
                        "a Unix socket without a path (unnamed or abstract)",
                    )
                })?;
                Ok(format!("unix:{}", path.display()))
            }
        }
    }
}
