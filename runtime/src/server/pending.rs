//! Connections that have not completed their handshake. Anyone who can reach
//! the port can open them, without a token, and each costs the server a
//! thread and a file descriptor until its handshake ends; so they are capped,
//! per peer and in all, and a connection over a cap closes the *oldest*
//! pending one (of that peer, or of all) rather than being turned away
//! itself. A client that completes its handshake at once, as real clients do,
//! therefore always gets in, however many connections others keep open
//! (which the handshake deadline bounds in time as well); and the descriptors
//! and threads of pending connections never exceed the caps, whatever is left
//! for the sessions.

use std::{
    collections::VecDeque,
    net::{IpAddr, Shutdown, TcpStream},
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    time::Duration,
};

/// How long a new connection has to complete its whole handshake.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The most connections in their handshake at once.
pub const DEFAULT_MAX_PENDING: usize = 64;
/// The most connections in their handshake at once from one peer.
pub const DEFAULT_MAX_PENDING_PER_PEER: usize = 8;

/// What a connection may take of the server before it has authenticated.
#[derive(Clone, Copy, Debug)]
pub struct HandshakeLimits {
    /// From accept to the reply to `Hello`, however the bytes trickle in.
    pub timeout: Duration,
    /// Connections in their handshake at once, in all.
    pub max_pending: usize,
    /// Connections in their handshake at once from one peer: one IPv4
    /// address, or one IPv6 /64 (what a single host is usually given).
    pub max_pending_per_peer: usize,
}

impl Default for HandshakeLimits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_pending: DEFAULT_MAX_PENDING,
            max_pending_per_peer: DEFAULT_MAX_PENDING_PER_PEER,
        }
    }
}

/// The connections in their handshake, oldest first.
pub(super) struct PendingHandshakes {
    limits: HandshakeLimits,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    connections: VecDeque<PendingConnection>,
    next_id: u64,
}

struct PendingConnection {
    id: u64,
    peer: IpAddr,
    stream: Arc<TcpStream>,
}

impl PendingHandshakes {
    pub fn new(limits: HandshakeLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            state: Mutex::default(),
        })
    }

    /// Counts a new connection from `peer` as pending until its handshake
    /// ends ([`Pending::finish`]), first closing the oldest pending
    /// connection of the same peer if that peer is at its cap, or else the
    /// oldest of all if the total is.
    pub fn add(self: &Arc<Self>, peer: IpAddr, stream: Arc<TcpStream>) -> Pending {
        let peer = peer_of(peer);
        let mut state = self.state();
        let from_peer = state.connections.iter().filter(|c| c.peer == peer).count();
        let oldest = if from_peer >= self.limits.max_pending_per_peer {
            state.connections.iter().position(|c| c.peer == peer)
        } else if state.connections.len() >= self.limits.max_pending {
            Some(0)
        } else {
            None
        };
        if let Some(evicted) = oldest.and_then(|index| state.connections.remove(index)) {
            tracing::debug!(peer = %evicted.peer, "too many connections in their handshake: closing the oldest");
            // Its thread's read ends at once; the thread then tells the
            // client why (`Pending::finish` says it was evicted) and closes.
            let _ = evicted.stream.shutdown(Shutdown::Read);
        }
        let id = state.next_id;
        state.next_id += 1;
        state
            .connections
            .push_back(PendingConnection { id, peer, stream });
        Pending {
            registry: Arc::clone(self),
            id,
        }
    }

    /// Stops counting connection `id`; false if it was no longer counted.
    fn remove(&self, id: u64) -> bool {
        let mut state = self.state();
        match state.connections.iter().position(|c| c.id == id) {
            Some(index) => {
                state.connections.remove(index);
                true
            }
            None => false,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The list stays consistent whatever panicked while holding the lock.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One connection counted as pending; it stops being counted when dropped.
pub(super) struct Pending {
    registry: Arc<PendingHandshakes>,
    id: u64,
}

impl Pending {
    /// Ends the pending state once the handshake's outcome is known. False
    /// if the connection was closed meanwhile to make room for a newer one:
    /// its socket no longer reads, so the session cannot go on.
    pub fn finish(self) -> bool {
        self.registry.remove(self.id)
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        // After `finish`, or when the thread ended early: either way the
        // connection no longer counts.
        self.registry.remove(self.id);
    }
}

/// The peer a connection counts against: its IPv4 address (also when it
/// arrives as an IPv4-mapped IPv6 address), or its IPv6 /64.
fn peer_of(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V4(_) => address,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::{
        io::Read,
        net::{Ipv4Addr, Ipv6Addr, TcpListener},
    };

    use super::*;

    /// A server-side stream and its client end.
    fn connection(listener: &TcpListener) -> (Arc<TcpStream>, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (Arc::new(listener.accept().unwrap().0), client)
    }

    /// Whether the server side of `stream` was shut down for reading.
    fn evicted(stream: &TcpStream) -> bool {
        stream.set_nonblocking(true).unwrap();
        // A shut-down socket reads its end at once; an open one would block.
        matches!((&*stream).read(&mut [0u8; 1]), Ok(0))
    }

    #[test]
    fn the_oldest_connection_of_a_peer_at_its_cap_makes_room() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(HandshakeLimits {
            max_pending: 4,
            max_pending_per_peer: 2,
            ..HandshakeLimits::default()
        });
        let a: IpAddr = Ipv4Addr::new(10, 0, 0, 1).into();
        let b: IpAddr = Ipv4Addr::new(10, 0, 0, 2).into();
        let c: IpAddr = Ipv4Addr::new(10, 0, 0, 3).into();
        let mut streams = Vec::new();
        let mut pending = Vec::new();
        for peer in [b, a, a, a, c, c] {
            let (stream, client) = connection(&listener);
            pending.push(registry.add(peer, Arc::clone(&stream)));
            streams.push((stream, client));
        }
        // a's third connection closed a's first (#1); c's second found four
        // pending (b, a, a, c) and closed the oldest of all, b's (#0).
        let closed: Vec<bool> = streams.iter().map(|(s, _)| evicted(s)).collect();
        assert_eq!(closed, [true, true, false, false, false, false]);
        let finished: Vec<bool> = pending.into_iter().map(Pending::finish).collect();
        assert_eq!(finished, [false, false, true, true, true, true]);
        assert!(registry.state().connections.is_empty());
    }

    #[test]
    fn a_dropped_connection_no_longer_counts() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(HandshakeLimits {
            max_pending: 1,
            max_pending_per_peer: 1,
            ..HandshakeLimits::default()
        });
        let peer: IpAddr = Ipv4Addr::LOCALHOST.into();
        let (first, _first_client) = connection(&listener);
        drop(registry.add(peer, Arc::clone(&first)));
        let (second, _second_client) = connection(&listener);
        let _second = registry.add(peer, Arc::clone(&second));
        assert!(!evicted(&first), "nothing was evicted for the second");
    }

    #[test]
    fn peers_are_addresses_and_ipv6_slash_64s() {
        let v4: IpAddr = Ipv4Addr::new(192, 0, 2, 7).into();
        assert_eq!(peer_of(v4), v4);
        let mapped: IpAddr = Ipv4Addr::new(192, 0, 2, 7).to_ipv6_mapped().into();
        assert_eq!(peer_of(mapped), v4);
        let host: Ipv6Addr = "2001:db8:1:2:aaaa:bbbb:cccc:dddd".parse().unwrap();
        let neighbour: Ipv6Addr = "2001:db8:1:2::1".parse().unwrap();
        let elsewhere: Ipv6Addr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(peer_of(host.into()), peer_of(neighbour.into()));
        assert_ne!(peer_of(host.into()), peer_of(elsewhere.into()));
    }
}
