//! Connections that wait for room among their own peer's connections in
//! their handshake (`pending.rs`). They wait here, in the order they came,
//! on one thread of the waiting room's, so that the accept loop goes on
//! accepting other peers' connections: a peer that opens connections and
//! says nothing holds up only its own. The room holds
//! [`WAITING_PER_PENDING`] times the total cap of pending connections, a
//! descriptor each and no thread; a connection that finds it full is refused
//! at once.

use std::{
    io,
    sync::{
        Arc,
        mpsc::{self, Receiver, SyncSender, TrySendError},
    },
    time::Instant,
};

use executor_protocol::Stream;

use crate::listener::Peer;

/// How many connections may wait for room per connection the total cap lets
/// into its handshake: a burst of prompt clients from one host waits its
/// turn here, up to this many times the cap.
pub(crate) const WAITING_PER_PENDING: usize = 4;

/// A connection waiting for room.
pub(crate) struct Waiting {
    pub id: u64,
    pub stream: Arc<Stream>,
    pub peer: Peer,
    pub accepted: Instant,
}

/// Where the accept loop leaves the connections that must wait.
pub(crate) struct WaitingRoom {
    entrance: SyncSender<Waiting>,
}

/// The other side of the room: the connections in the order they came.
pub(crate) struct WaitingLine {
    line: Receiver<Waiting>,
}

/// A room for `capacity` connections.
pub(crate) fn open(capacity: usize) -> (WaitingRoom, WaitingLine) {
    let (entrance, line) = mpsc::sync_channel(capacity);
    (WaitingRoom { entrance }, WaitingLine { line })
}

impl WaitingRoom {
    /// Leaves `waiting` in the room; gives it back if the room is full (or
    /// its thread is gone).
    pub(crate) fn enter(&self, waiting: Waiting) -> Result<(), Waiting> {
        self.entrance
            .try_send(waiting)
            .map_err(|error| match error {
                TrySendError::Full(waiting) | TrySendError::Disconnected(waiting) => waiting,
            })
    }
}

impl WaitingLine {
    /// Calls `admit` on each connection in turn, on a thread of its own,
    /// for as long as the room is open.
    pub(crate) fn serve(self, mut admit: impl FnMut(Waiting) + Send + 'static) -> io::Result<()> {
        std::thread::Builder::new()
            .name("waiting-room".to_owned())
            .spawn(move || {
                for waiting in self.line {
                    admit(waiting);
                }
            })
            .map(drop)
    }
}

#[cfg(test)]
mod tests {
    use std::{
        net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream},
        sync::mpsc::channel,
        time::Duration,
    };

    use super::*;

    fn waiting(id: u64, listener: &TcpListener) -> (Waiting, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let stream = Arc::new(Stream::Tcp(listener.accept().unwrap().0));
        let peer = Peer::Ip(SocketAddr::new(Ipv4Addr::LOCALHOST.into(), 0));
        let accepted = Instant::now();
        (
            Waiting {
                id,
                stream,
                peer,
                accepted,
            },
            client,
        )
    }

    #[test]
    fn connections_are_admitted_in_the_order_they_came_and_a_full_room_refuses() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let (room, line) = open(2);
        let mut clients = Vec::new();
        for id in 0..2 {
            let (connection, client) = waiting(id, &listener);
            clients.push(client);
            assert!(room.enter(connection).is_ok());
        }
        let (third, _client) = waiting(2, &listener);
        let Err(refused) = room.enter(third) else {
            panic!("the room is full");
        };
        assert_eq!(refused.id, 2);

        let (admitted, order) = channel();
        line.serve(move |connection| admitted.send(connection.id).unwrap())
            .unwrap();
        let order: Vec<u64> = (0..2)
            .map(|_| order.recv_timeout(Duration::from_secs(10)).unwrap())
            .collect();
        assert_eq!(order, [0, 1]);
    }
}
