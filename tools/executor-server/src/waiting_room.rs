//! Connections that wait for room among their own peer's connections in
//! their handshake (`pending.rs`): a queue per peer, in the order its
//! connections came, and the peers served in turn, so that the accept loop
//! goes on accepting and one peer's waiting connections never hold up
//! another's. The room holds a descriptor per connection and no thread, up
//! to a bound per peer and one in all. A connection over its peer's bound is
//! refused at once; one that finds the room full takes the place of the
//! newest connection of the peer with the most waiting, if that peer has
//! more than it would, so that peers that fill the room cannot keep others
//! out of it.

use std::{collections::VecDeque, sync::Arc, time::Instant};

use executor_protocol::Stream;

use crate::{listener::Peer, peer_key::PeerKey};

/// How many connections may wait per connection the total cap lets into
/// its handshake, from one peer ([`PER_PEER`]) and in all ([`IN_ALL`]): a
/// burst of prompt clients from one host waits its turn here.
pub(crate) const PER_PEER: usize = 2;
pub(crate) const IN_ALL: usize = 4;

/// A connection just accepted, before it counts as pending: it waits in
/// the room if it is over its peer's cap.
pub(crate) struct Accepted {
    pub id: u64,
    pub stream: Arc<Stream>,
    pub peer: Peer,
    pub accepted: Instant,
}

/// What entering the room did to a connection.
pub(crate) enum Entered {
    /// It waits; `turned_out` is the connection whose place it took.
    Waits { turned_out: Option<Accepted> },
    /// It is refused: its peer's share is full, or the room is, with no
    /// peer that has more waiting than it would.
    Refused(Accepted),
}

pub(crate) struct WaitingRoom {
    /// A queue per peer that has connections waiting, the next peer to serve
    /// first.
    queues: VecDeque<(PeerKey, VecDeque<Accepted>)>,
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

    /// Queues `waiting`, of `peer`, behind that peer's.
    pub(crate) fn enter(&mut self, peer: PeerKey, waiting: Accepted) -> Entered {
        let own = self
            .queue_of(peer)
            .map_or(0, |index| self.queues[index].1.len());
        if own >= self.max_per_peer {
            return Entered::Refused(waiting);
        }
        let mut turned_out = None;
        if self.waiting >= self.max {
            let most = (0..self.queues.len()).max_by_key(|&index| self.queues[index].1.len());
            match most {
                Some(most) if self.queues[most].1.len() > own + 1 => {
                    turned_out = self.queues[most].1.pop_back();
                    self.waiting -= 1;
                }
                _ => return Entered::Refused(waiting),
            }
        }
        match self.queue_of(peer) {
            Some(index) => self.queues[index].1.push_back(waiting),
            None => self.queues.push_back((peer, VecDeque::from([waiting]))),
        }
        self.waiting += 1;
        Entered::Waits { turned_out }
    }

    fn queue_of(&self, peer: PeerKey) -> Option<usize> {
        self.queues.iter().position(|(key, _)| *key == peer)
    }

    /// How many peers have connections waiting.
    pub(crate) fn peers(&self) -> usize {
        self.queues.len()
    }

    /// The next peer in turn and its first waiting connection, that peer
    /// moved behind the others.
    pub(crate) fn next_in_turn(&mut self) -> Option<(PeerKey, &Accepted)> {
        self.queues.rotate_left(1.min(self.queues.len()));
        let (peer, queue) = self.queues.back()?;
        Some((*peer, queue.front()?))
    }

    /// Takes the first waiting connection of `peer` out of the room.
    pub(crate) fn take_first(&mut self, peer: PeerKey) -> Option<Accepted> {
        let index = self.queue_of(peer)?;
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

    fn waiting(id: u64, listener: &TcpListener) -> (Accepted, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let stream = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
        let peer = Peer::Ip(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0));
        let accepted = Instant::now();
        let waiting = Accepted {
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
            assert!(matches!(
                room.enter(key(peer), connection),
                Entered::Waits { turned_out: None }
            ));
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

    /// Entering as `id` from peer `peer`: Ok with the id of the connection
    /// turned out for it, if any; Err with its own id if refused.
    fn enter(
        room: &mut WaitingRoom,
        listener: &TcpListener,
        clients: &mut Vec<TcpStream>,
        id: u64,
        peer: u8,
    ) -> Result<Option<u64>, u64> {
        let (connection, client) = waiting(id, listener);
        clients.push(client);
        match room.enter(key(peer), connection) {
            Entered::Waits { turned_out } => Ok(turned_out.map(|turned_out| turned_out.id)),
            Entered::Refused(refused) => Err(refused.id),
        }
    }

    #[test]
    fn a_full_share_refuses() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let (mut room, mut clients) = (WaitingRoom::new(2, 8), Vec::new());
        let mut enter = |id, peer| enter(&mut room, &listener, &mut clients, id, peer);
        assert_eq!(enter(0, 1), Ok(None));
        assert_eq!(enter(1, 1), Ok(None));
        assert_eq!(enter(2, 1), Err(2), "peer 1's share is full");
        assert_eq!(enter(3, 2), Ok(None), "other peers still get in");
    }

    /// Two peers that fill the room make room for a third, each giving up
    /// its newest, until the third has as many waiting as they have.
    #[test]
    fn a_full_room_takes_a_place_of_the_peer_with_the_most() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let (mut room, mut clients) = (WaitingRoom::new(4, 6), Vec::new());
        let mut enter = |id, peer| enter(&mut room, &listener, &mut clients, id, peer);
        for (id, peer) in [(0, 1), (1, 1), (2, 1), (3, 2), (4, 2), (5, 2)] {
            assert_eq!(enter(id, peer), Ok(None));
        }
        assert_eq!(enter(6, 3), Ok(Some(5)), "peer 2's newest");
        assert_eq!(enter(7, 3), Ok(Some(2)), "then peer 1's, who has more now");
        assert_eq!(enter(8, 3), Err(8), "none has more than peer 3 would");
        assert_eq!(enter(9, 1), Err(9), "nor does a peer take another's place");
    }
}
