//! Connections that wait for room among their own peer's connections in
//! their handshake (`pending.rs`): a queue per peer, in the order its
//! connections came, and the peers served in turn, so that the accept loop
//! goes on accepting and one peer's waiting connections never hold up
//! another's. The room holds a descriptor per connection and no thread, up
//! to a bound per peer and one in all; a connection over either is refused
//! at once.

use std::{collections::VecDeque, sync::Arc, time::Instant};

use executor_protocol::Stream;

use crate::{listener::Peer, pending::PeerKey};

/// How many connections may wait per connection the total cap lets into
/// its handshake, from one peer ([`PER_PEER`]) and in all ([`IN_ALL`]): a
/// burst of prompt clients from one host waits its turn here, and a peer
/// that fills its share leaves as much to the others.
pub(crate) const PER_PEER: usize = 2;
pub(crate) const IN_ALL: usize = 4;

/// A connection accepted over its peer's cap.
pub(crate) struct Waiting {
    pub id: u64,
    pub stream: Arc<Stream>,
    pub peer: Peer,
    pub accepted: Instant,
}

pub(crate) struct WaitingRoom {
    /// A queue per peer that has connections waiting, the next peer to serve
    /// first.
    queues: VecDeque<(PeerKey, VecDeque<Waiting>)>,
    waiting: usize,
    max_per_peer: usize,
    max: usize,
}

impl WaitingRoom {
    pub(crate) fn new(max_per_peer: usize, max: usize) -> Self {
        Self {
            queues: VecDeque::new(),
            waiting: 0,
            max_per_peer,
            max,
        }
    }

    /// Whether connections of `peer` wait: a new one waits behind them.
    pub(crate) fn has_waiting(&self, peer: PeerKey) -> bool {
        self.queues.iter().any(|(key, _)| *key == peer)
    }

    /// Queues `waiting`, of `peer`, behind that peer's; gives it back if the
    /// peer's share or the room is full.
    pub(crate) fn enter(&mut self, peer: PeerKey, waiting: Waiting) -> Result<(), Waiting> {
        if self.waiting >= self.max {
            return Err(waiting);
        }
        match self.queues.iter_mut().find(|(key, _)| *key == peer) {
            Some((_, queue)) if queue.len() >= self.max_per_peer => return Err(waiting),
            Some((_, queue)) => queue.push_back(waiting),
            None => self.queues.push_back((peer, VecDeque::from([waiting]))),
        }
        self.waiting += 1;
        Ok(())
    }

    /// How many peers have connections waiting.
    pub(crate) fn peers(&self) -> usize {
        self.queues.len()
    }

    /// The next peer in turn and its first waiting connection, that peer
    /// moved behind the others.
    pub(crate) fn next_in_turn(&mut self) -> Option<(PeerKey, &Waiting)> {
        self.queues.rotate_left(1.min(self.queues.len()));
        let (peer, queue) = self.queues.back()?;
        Some((*peer, queue.front()?))
    }

    /// Takes the first waiting connection of `peer` out of the room.
    pub(crate) fn take_first(&mut self, peer: PeerKey) -> Option<Waiting> {
        let index = self.queues.iter().position(|(key, _)| *key == peer)?;
        let waiting = self.queues[index].1.pop_front();
        if self.queues[index].1.is_empty() {
            self.queues.remove(index);
        }
        self.waiting -= usize::from(waiting.is_some());
        waiting
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};

    use super::*;

    fn waiting(id: u64, listener: &TcpListener) -> (Waiting, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let stream = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
        let peer = Peer::Ip(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0));
        let accepted = Instant::now();
        let waiting = Waiting {
            id,
            stream,
            peer,
            accepted,
        };
        (waiting, client)
    }

    fn key(last: u8) -> PeerKey {
        PeerKey::Ip(Ipv4Addr::new(10, 0, 0, last).into())
    }

    #[test]
    fn peers_are_served_in_turn_each_in_the_order_its_connections_came() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut room = WaitingRoom::new(8, 8);
        let mut clients = Vec::new();
        for (id, peer) in [(0, 1), (1, 1), (2, 1), (3, 2)] {
            let (connection, client) = waiting(id, &listener);
            clients.push(client);
            assert!(room.enter(key(peer), connection).is_ok());
        }
        assert!(room.has_waiting(key(2)) && !room.has_waiting(key(3)));
        let mut order = Vec::new();
        while let Some((peer, _)) = room.next_in_turn() {
            order.push(room.take_first(peer).unwrap().id);
        }
        assert_eq!(
            order,
            [0, 3, 1, 2],
            "peer 2's one waits for one of peer 1's"
        );
        assert_eq!(room.peers(), 0);
    }

    #[test]
    fn a_full_share_or_a_full_room_refuses() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut room = WaitingRoom::new(2, 3);
        let mut clients = Vec::new();
        let mut enter = |room: &mut WaitingRoom, id, peer| {
            let (connection, client) = waiting(id, &listener);
            clients.push(client);
            room.enter(key(peer), connection)
                .map_err(|turned| turned.id)
        };
        assert_eq!(enter(&mut room, 0, 1), Ok(()));
        assert_eq!(enter(&mut room, 1, 1), Ok(()));
        assert_eq!(enter(&mut room, 2, 1), Err(2), "peer 1's share is full");
        assert_eq!(enter(&mut room, 3, 2), Ok(()), "other peers still get in");
        assert_eq!(enter(&mut room, 4, 3), Err(4), "the room is full");
        room.take_first(key(1));
        assert_eq!(enter(&mut room, 5, 3), Ok(()));
    }
}
