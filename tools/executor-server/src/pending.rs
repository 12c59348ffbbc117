//! Connections that have not completed their handshake. Anyone who can reach
//! the port (or socket file) can open them, without a token, and each costs the server a
//! thread and a file descriptor until its handshake ends; so they are capped,
//! per peer (an IP address, or a uid on a Unix socket) and in all.
//!
//! At a cap, a new connection is let in only by shedding the *oldest* pending
//! connection in the cap's scope (of that peer, or of all), and only once that
//! one has shown that it is not a prompt client: its handshake has read all
//! the client sent and waits for more, after part of the message the client
//! owes (its `Hello`, or on TLS a record: a client sends each whole) or after
//! [`HandshakeLimits::silence_allowed`] of silence since the connection
//! started or the server last answered (a client writes each as soon as it
//! can). A connection whose `Hello` has arrived, even if its thread has not
//! read it yet, is never shed; the new connection waits instead. At the total
//! cap it waits in the accept loop, which accepts nothing more meanwhile. At
//! its peer's cap it waits in the waiting room (`waiting_room.rs`), served by
//! a thread of its own ([`PendingHandshakes::serve_waiting`]), so that one
//! peer's connections never hold up another's. So a burst of real clients
//! far beyond the caps is served in turn; connections that trickle or say
//! nothing cannot keep a prompt client out for long; and the threads of
//! pending connections never exceed the caps, nor their descriptors the caps
//! and the waiting room, whatever is left for the sessions.

use std::{
    collections::VecDeque,
    net::Shutdown,
    sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError},
    time::{Duration, Instant},
};

use executor_protocol::Stream;

use crate::{
    peer_key::PeerKey,
    waiting_room::{self, Accepted, Entered, WaitingRoom},
};

/// How long a new connection has to complete its whole handshake.
pub const DEFAULT_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest handshake timeout that may be set, an hour: deadlines are
/// counted from now, and no client needs longer to say Hello.
pub const MAX_HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(60 * 60);
/// The most connections in their handshake at once.
pub const DEFAULT_MAX_PENDING: usize = 64;
/// The most connections in their handshake at once from one peer.
pub const DEFAULT_MAX_PENDING_PER_PEER: usize = 8;
/// How long a connection that has sent nothing is safe from being shed.
pub const DEFAULT_SILENCE_ALLOWED: Duration = Duration::from_secs(1);

/// What a connection may take of the server before it has authenticated.
#[derive(Clone, Copy, Debug)]
pub struct HandshakeLimits {
    /// From accept to the reply to `Hello`, however the bytes trickle in;
    /// also the longest a new connection waits for room under the caps.
    pub timeout: Duration,
    /// Connections in their handshake at once, in all.
    pub max_pending: usize,
    /// Connections in their handshake at once from one peer: one IPv4
    /// address, or one IPv6 /64 (what a single host is usually given), or
    /// one uid on a Unix socket.
    pub max_pending_per_peer: usize,
    /// How long after its handshake starts a connection that has sent
    /// nothing is still taken for a prompt client that the scheduler has
    /// not run yet, and so is not shed.
    pub silence_allowed: Duration,
}

impl Default for HandshakeLimits {
    fn default() -> Self {
        Self {
            timeout: DEFAULT_HANDSHAKE_TIMEOUT,
            max_pending: DEFAULT_MAX_PENDING,
            max_pending_per_peer: DEFAULT_MAX_PENDING_PER_PEER,
            silence_allowed: DEFAULT_SILENCE_ALLOWED,
        }
    }
}

/// What [`PendingHandshakes::admit`] made of a new connection.
pub(crate) enum Admission {
    /// It counts as pending: its handshake may start.
    Admitted(Accepted, Pending),
    /// Its peer is at its cap and none of its connections may be shed yet:
    /// it waits in the waiting room, in the place of `turned_out` if the
    /// room was full.
    Waits { turned_out: Option<Accepted> },
    /// Its peer is at its cap, and the peer's share of the waiting room, or
    /// the room, is full.
    RoomFull(Accepted),
    /// No room was made within the handshake timeout.
    NoRoom(Accepted),
}

/// One try at counting a connection, having shed what may be shed now.
enum Attempt {
    Counted(Pending),
    /// Over `scope`'s cap: room may come when a connection stops counting or
    /// starts waiting for its client, or at `until`, when the oldest in the
    /// way may be shed (None while that one is being read).
    Over {
        scope: CapScope,
        until: Option<Instant>,
    },
}

/// How far a pending connection's handshake has got.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Progress {
    /// Reading, or about to read, what the client has sent.
    Reading,
    /// Everything the client sent is read, and the message it owes (its
    /// part of the TLS handshake, or its `Hello`) is incomplete.
    WaitingForClient {
        /// Whether part of that message arrived: a client sends each whole.
        received_part: bool,
        /// Since when the client owes it: the server's last answer (its part
        /// of the TLS handshake, or the handshake's end); None for since the
        /// connection's handshake started.
        owed_since: Option<Instant>,
    },
}

/// The cap a new connection is over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CapScope {
    Peer,
    All,
}

/// The connections in their handshake, oldest first.
pub(crate) struct PendingHandshakes {
    limits: HandshakeLimits,
    state: Mutex<State>,
    /// Signalled when a connection stops counting or starts waiting for its
    /// client, either of which may make room for a waiting connection, and
    /// when one enters the waiting room.
    changed: Condvar,
    /// Signalled when a connection enters the waiting room. The room's
    /// thread waits on this one while the room is empty: on `changed`, every
    /// handshake would wake it for nothing, a wake-up on another CPU each.
    entered: Condvar,
}

struct State {
    connections: VecDeque<PendingConnection>,
    next_id: u64,
    waiting_room: WaitingRoom,
}

struct PendingConnection {
    id: u64,
    peer: PeerKey,
    stream: Arc<Stream>,
    started: Instant,
    progress: Progress,
}

impl PendingConnection {
    /// When this connection may be shed: now, later, or (None) not until it
    /// makes progress.
    fn sheddable_from(&self, silence_allowed: Duration) -> Option<Instant> {
        match self.progress {
            Progress::Reading => None,
            Progress::WaitingForClient {
                received_part: true,
                ..
            } => Some(self.started),
            Progress::WaitingForClient {
                received_part: false,
                owed_since,
            } => Some(owed_since.unwrap_or(self.started) + silence_allowed),
        }
    }
}

impl PendingHandshakes {
    pub fn new(limits: HandshakeLimits) -> Arc<Self> {
        let waiting_room = WaitingRoom::new(
            limits.max_pending * waiting_room::PER_PEER,
            limits.max_pending * waiting_room::IN_ALL,
        );
        Arc::new(Self {
            limits,
            state: Mutex::new(State {
                connections: VecDeque::new(),
                next_id: 0,
                waiting_room,
            }),
            changed: Condvar::new(),
            entered: Condvar::new(),
        })
    }

    /// Counts a new connection from `peer`, accepted at `accepted`, as
    /// pending until its handshake ends ([`Pending::finish`]). At the peer's
    /// cap, or else at the total cap, the oldest pending connection in that
    /// scope is closed once it may be shed; until then this waits, at most
    /// until the handshake timeout after `accepted`. None if no room was made
    /// by then.
    #[cfg(test)]
    pub fn add(
        self: &Arc<Self>,
        peer: crate::listener::Peer,
        stream: Arc<Stream>,
        accepted: Instant,
    ) -> Option<Pending> {
        let state = self.state();
        self.wait_to_count(state, PeerKey::of(peer), &stream, accepted, true)
            .1
            .ok()
    }

    /// Counts the new connection `waiting` as [`Self::add`] does, in the
    /// accept loop: at the total cap it waits there, but at its peer's cap,
    /// once the peer's oldest connection waits for its client (or behind its
    /// peer's connections in the waiting room), it enters the waiting room,
    /// which [`Self::serve_waiting`] serves.
    pub fn admit(self: &Arc<Self>, waiting: Accepted) -> Admission {
        let peer = PeerKey::of(waiting.peer);
        let mut state = self.state();
        if !state.waiting_room.has_waiting(peer) {
            let (guard, counted) =
                self.wait_to_count(state, peer, &waiting.stream, waiting.accepted, false);
            state = guard;
            match counted {
                Ok(pending) => return Admission::Admitted(waiting, pending),
                Err(CapScope::All) => return Admission::NoRoom(waiting),
                Err(CapScope::Peer) => {}
            }
        }
        match state.waiting_room.enter(peer, waiting) {
            Entered::Waits { turned_out } => {
                self.entered.notify_one();
                self.changed.notify_all();
                Admission::Waits { turned_out }
            }
            Entered::Refused(waiting) => Admission::RoomFull(waiting),
        }
    }

    /// Counts the connections of the waiting room as room is made for them,
    /// each peer's in the order they came and the peers in turn, and starts
    /// each one counted (`start`); one whose handshake timeout passes first
    /// is turned away (`turn_away`). Never returns.
    pub fn serve_waiting(
        self: &Arc<Self>,
        mut start: impl FnMut(Accepted, Pending),
        mut turn_away: impl FnMut(Accepted),
    ) -> ! {
        let mut state = self.state();
        loop {
            let mut counted = Vec::new();
            let mut expired = Vec::new();
            let mut wake: Option<Instant> = None;
            for _ in 0..state.waiting_room.peers() {
                let Some((peer, first)) = state.waiting_room.next_in_turn() else {
                    break;
                };
                let stream = Arc::clone(&first.stream);
                let give_up = first.accepted + self.limits.timeout;
                if Instant::now() >= give_up {
                    expired.extend(state.waiting_room.take_first(peer));
                    continue;
                }
                match self.attempt(&mut state, peer, &stream) {
                    // Kept until the lock is released, whatever happens to
                    // it: a `Pending` dropped here would take the lock again.
                    Attempt::Counted(pending) => {
                        counted.push((state.waiting_room.take_first(peer), pending));
                    }
                    Attempt::Over { until, .. } => {
                        let at = until.map_or(give_up, |until| until.min(give_up));
                        wake = Some(wake.map_or(at, |wake| wake.min(at)));
                    }
                }
            }
            if counted.is_empty() && expired.is_empty() {
                state = match wake {
                    // The room is empty.
                    None => self
                        .entered
                        .wait(state)
                        .unwrap_or_else(PoisonError::into_inner),
                    Some(at) => {
                        self.changed
                            .wait_timeout(state, at.saturating_duration_since(Instant::now()))
                            .unwrap_or_else(PoisonError::into_inner)
                            .0
                    }
                };
                continue;
            }
            // Started without the lock: starting takes a session thread.
            drop(state);
            for (waiting, pending) in counted {
                // The peer's first connection, which this lock held in place.
                if let Some(waiting) = waiting {
                    start(waiting, pending);
                }
            }
            for waiting in expired {
                turn_away(waiting);
            }
            state = self.state();
        }
    }

    /// Counts a connection of `peer` once there is room for it, waiting at
    /// most until the handshake timeout after `accepted`; at the peer's cap,
    /// unless `wait_at_peer_cap`, only while the peer's oldest connection is
    /// being read (which takes no longer than its thread takes), not while it
    /// waits for its client. Else says which cap it stayed over.
    fn wait_to_count<'s>(
        self: &'s Arc<Self>,
        mut state: MutexGuard<'s, State>,
        peer: PeerKey,
        stream: &Arc<Stream>,
        accepted: Instant,
        wait_at_peer_cap: bool,
    ) -> (MutexGuard<'s, State>, Result<Pending, CapScope>) {
        let give_up = accepted + self.limits.timeout;
        loop {
            let (scope, until) = match self.attempt(&mut state, peer, stream) {
                Attempt::Counted(pending) => return (state, Ok(pending)),
                Attempt::Over { scope, until } => (scope, until),
            };
            let now = Instant::now();
            let waits_for_its_client = until.is_some();
            if (scope == CapScope::Peer && !wait_at_peer_cap && waits_for_its_client)
                || now >= give_up
            {
                return (state, Err(scope));
            }
            let wake = until.map_or(give_up, |until| until.min(give_up));
            state = self
                .changed
                .wait_timeout(state, wake - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Counts a connection of `peer` if there is room, or once the oldest
    /// connection in the way has been shed, if it may be now.
    fn attempt(
        self: &Arc<Self>,
        state: &mut State,
        peer: PeerKey,
        stream: &Arc<Stream>,
    ) -> Attempt {
        while let Some((oldest, scope)) = self.oldest_over_cap(state, peer) {
            let sheddable_from =
                state.connections[oldest].sheddable_from(self.limits.silence_allowed);
            if sheddable_from.is_none_or(|from| from > Instant::now()) {
                return Attempt::Over {
                    scope,
                    until: sheddable_from,
                };
            }
            if let Some(shed) = state.connections.remove(oldest) {
                tracing::debug!(peer = ?shed.peer, progress = ?shed.progress, "too many connections in their handshake: closing the oldest, which waits for its client");
                // Its thread's read ends at once; the thread then tells the
                // client why (`Pending::finish` says it was shed) and closes.
                let _ = shed.stream.shutdown(Shutdown::Read);
            }
        }
        let id = state.next_id;
        state.next_id += 1;
        state.connections.push_back(PendingConnection {
            id,
            peer,
            stream: Arc::clone(stream),
            started: Instant::now(),
            progress: Progress::Reading,
        });
        Attempt::Counted(Pending {
            registry: Arc::clone(self),
            id,
        })
    }

    /// The index of the connection that must go before one more from `peer`
    /// can count, and the cap it is over: the peer's oldest if it is at its
    /// cap, else the oldest of all if the total is; None if there is room.
    fn oldest_over_cap(&self, state: &State, peer: PeerKey) -> Option<(usize, CapScope)> {
        let from_peer = state.connections.iter().filter(|c| c.peer == peer).count();
        if from_peer >= self.limits.max_pending_per_peer {
            return state
                .connections
                .iter()
                .position(|c| c.peer == peer)
                .map(|oldest| (oldest, CapScope::Peer));
        }
        (state.connections.len() >= self.limits.max_pending).then_some((0, CapScope::All))
    }

    /// Stops counting connection `id`; false if it was no longer counted.
    fn remove(&self, id: u64) -> bool {
        let mut state = self.state();
        let Some(index) = state.connections.iter().position(|c| c.id == id) else {
            return false;
        };
        state.connections.remove(index);
        self.changed.notify_all();
        true
    }

    fn set_progress(&self, id: u64, progress: Progress) {
        let mut state = self.state();
        if let Some(connection) = state.connections.iter_mut().find(|c| c.id == id) {
            connection.progress = progress;
            if progress != Progress::Reading {
                self.changed.notify_all();
            }
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // The list stays consistent whatever panicked while holding the lock.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One connection counted as pending; it stops being counted when dropped.
pub(crate) struct Pending {
    registry: Arc<PendingHandshakes>,
    id: u64,
}

impl Pending {
    /// Says how far the handshake has got: while it waits for its client,
    /// the connection may be shed to make room.
    pub fn set_progress(&self, progress: Progress) {
        self.registry.set_progress(self.id, progress);
    }

    /// Ends the pending state once the handshake's outcome is known. False
    /// if the connection was shed meanwhile to make room for a newer one:
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

#[cfg(test)]
mod tests {
    use std::{
        io::Read,
        net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream},
    };

    use super::*;
    use crate::listener::Peer;

    /// A server-side stream and its client end.
    fn connection(listener: &TcpListener) -> (Arc<Stream>, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (Arc::new(Stream::Tcp(listener.accept().unwrap().0)), client)
    }

    /// The peer at `address` (whatever its port: only the address counts).
    fn at(address: Ipv4Addr) -> Peer {
        Peer::Ip(SocketAddr::new(address.into(), 0))
    }

    /// Whether the server side of `stream` was shut down for reading.
    fn evicted(stream: &Stream) -> bool {
        stream.set_nonblocking(true).unwrap();
        // A shut-down socket reads its end at once; an open one would block.
        matches!((&*stream).read(&mut [0u8; 1]), Ok(0))
    }

    const PART_OF_A_HELLO: Progress = Progress::WaitingForClient {
        received_part: true,
        owed_since: None,
    };

    /// Silent since the handshake started.
    const SILENT: Progress = Progress::WaitingForClient {
        received_part: false,
        owed_since: None,
    };

    fn limits(max_pending: usize, max_pending_per_peer: usize) -> HandshakeLimits {
        HandshakeLimits {
            timeout: Duration::from_secs(30),
            max_pending,
            max_pending_per_peer,
            silence_allowed: Duration::from_secs(30),
        }
    }

    #[test]
    fn the_oldest_connection_of_a_peer_at_its_cap_makes_room_once_it_waits_for_its_client() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(limits(4, 2));
        let a = at(Ipv4Addr::new(10, 0, 0, 1));
        let b = at(Ipv4Addr::new(10, 0, 0, 2));
        let c = at(Ipv4Addr::new(10, 0, 0, 3));
        let mut streams = Vec::new();
        let mut pending: Vec<Pending> = Vec::new();
        for peer in [b, a, a, a, c, c] {
            // Every earlier connection has read part of a Hello and waits
            // for the rest.
            for earlier in &pending {
                earlier.set_progress(PART_OF_A_HELLO);
            }
            let (stream, client) = connection(&listener);
            pending.push(
                registry
                    .add(peer, Arc::clone(&stream), Instant::now())
                    .expect("room made"),
            );
            streams.push((stream, client));
        }
        // a's third connection shed a's first (#1); c's second found four
        // pending (b, a, a, c) and shed the oldest of all, b's (#0).
        let shed: Vec<bool> = streams.iter().map(|(s, _)| evicted(s)).collect();
        assert_eq!(shed, [true, true, false, false, false, false]);
        let finished: Vec<bool> = pending.into_iter().map(Pending::finish).collect();
        assert_eq!(finished, [false, false, true, true, true, true]);
        assert!(registry.state().connections.is_empty());
    }

    /// A connection pending under caps of one, and a second one of the same
    /// peer being added on another thread (its result: whether it got room).
    struct SecondAtACapOfOne {
        first: Arc<Stream>,
        first_pending: Pending,
        adding: std::thread::JoinHandle<bool>,
        _clients: [TcpStream; 2],
    }

    fn second_at_a_cap_of_one(limits: HandshakeLimits) -> SecondAtACapOfOne {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(limits);
        let peer = at(Ipv4Addr::LOCALHOST);
        let (first, first_client) = connection(&listener);
        let first_pending = registry
            .add(peer, Arc::clone(&first), Instant::now())
            .unwrap();
        let (second, second_client) = connection(&listener);
        let adding =
            std::thread::spawn(move || registry.add(peer, second, Instant::now()).is_some());
        SecondAtACapOfOne {
            first,
            first_pending,
            adding,
            _clients: [first_client, second_client],
        }
    }

    #[test]
    fn a_connection_at_a_cap_waits_for_one_that_has_not_read_all_its_client_sent() {
        let cap = second_at_a_cap_of_one(limits(1, 1));
        std::thread::sleep(Duration::from_millis(200));
        assert!(!cap.adding.is_finished(), "the second waits for room");
        // The first completes its handshake: the second gets its place, and
        // the first was never shed.
        assert!(cap.first_pending.finish());
        assert!(cap.adding.join().unwrap());
        assert!(!evicted(&cap.first));
    }

    #[test]
    fn a_connection_at_a_cap_is_let_in_as_soon_as_the_oldest_waits_for_the_rest_of_its_hello() {
        let cap = second_at_a_cap_of_one(limits(1, 1));
        cap.first_pending.set_progress(PART_OF_A_HELLO);
        assert!(cap.adding.join().unwrap());
        assert!(evicted(&cap.first));
        assert!(!cap.first_pending.finish(), "the first was shed");
    }

    #[test]
    fn a_silent_connection_is_shed_only_once_its_silence_has_lasted() {
        let cap = second_at_a_cap_of_one(HandshakeLimits {
            silence_allowed: Duration::from_millis(300),
            ..limits(1, 1)
        });
        cap.first_pending.set_progress(SILENT);
        std::thread::sleep(Duration::from_millis(100));
        assert!(!evicted(&cap.first), "silent for less than allowed");
        assert!(cap.adding.join().unwrap());
        assert!(evicted(&cap.first), "silent for longer than allowed");
        assert!(!cap.first_pending.finish());
    }

    /// A client the server has answered (its part of the TLS handshake, say)
    /// owes its next message only from then: its silence before does not
    /// count.
    #[test]
    fn a_silence_counts_from_the_servers_last_answer() {
        let cap = second_at_a_cap_of_one(HandshakeLimits {
            silence_allowed: Duration::from_millis(500),
            ..limits(1, 1)
        });
        // Read, and answered, for longer than the silence allowed.
        std::thread::sleep(Duration::from_millis(600));
        cap.first_pending.set_progress(Progress::WaitingForClient {
            received_part: false,
            owed_since: Some(Instant::now()),
        });
        std::thread::sleep(Duration::from_millis(100));
        assert!(!evicted(&cap.first), "silent for less than allowed");
        assert!(cap.adding.join().unwrap());
        assert!(evicted(&cap.first), "silent for longer than allowed");
    }

    /// A registry with these caps in which nothing times out, nor may be
    /// shed, within a test.
    fn patient(max_pending: usize, max_pending_per_peer: usize) -> Arc<PendingHandshakes> {
        PendingHandshakes::new(HandshakeLimits {
            timeout: Duration::from_secs(600),
            silence_allowed: Duration::from_secs(600),
            ..limits(max_pending, max_pending_per_peer)
        })
    }

    /// A new connection `id` from 10.0.0.`last`, its client's end kept in
    /// `clients`.
    fn waiting_from(
        listener: &TcpListener,
        clients: &mut Vec<TcpStream>,
        id: u64,
        last: u8,
    ) -> Accepted {
        let (stream, client) = connection(listener);
        clients.push(client);
        Accepted {
            id,
            stream,
            peer: at(Ipv4Addr::new(10, 0, 0, last)),
            accepted: Instant::now(),
        }
    }

    /// The accept loop's admission: at the peer's cap, with nothing that
    /// may be shed for as long as the test could wait, the connection enters
    /// the waiting room at once, and so does the peer's next one (behind
    /// it); another peer's is let in; at the total cap admission waits.
    #[test]
    fn admission_waits_at_the_total_cap_only() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = patient(2, 1);
        let mut clients = Vec::new();
        let mut connection_from = |last| waiting_from(&listener, &mut clients, 0, last);
        let Admission::Admitted(_, first) = registry.admit(connection_from(1)) else {
            panic!("room for the first");
        };
        first.set_progress(SILENT);
        assert!(matches!(
            registry.admit(connection_from(1)),
            Admission::Waits { turned_out: None }
        ));
        drop(first);
        assert!(
            matches!(registry.admit(connection_from(1)), Admission::Waits { .. }),
            "behind the peer's waiting one, though there is room now"
        );
        let Admission::Admitted(_, _second) = registry.admit(connection_from(2)) else {
            panic!("another peer's connection is let in");
        };
        let Admission::Admitted(_, _third) = registry.admit(connection_from(3)) else {
            panic!("room for a third peer's");
        };
        // Both caps reached: a fourth peer's connection waits for room.
        let fourth = connection_from(4);
        let admitting = std::thread::spawn({
            let registry = Arc::clone(&registry);
            move || matches!(registry.admit(fourth), Admission::Admitted(..))
        });
        std::thread::sleep(Duration::from_millis(200));
        assert!(!admitting.is_finished(), "it waits at the total cap");
        drop(_third);
        assert!(admitting.join().unwrap(), "let in once there is room");
    }

    /// The waiting room's thread counts each peer's first connection as soon
    /// as that peer has room, whatever another peer's wait.
    #[test]
    fn the_waiting_room_lets_a_peer_in_as_its_own_room_is_made() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = patient(8, 1);
        let mut clients = Vec::new();
        let mut connection_from = |id, last| waiting_from(&listener, &mut clients, id, last);
        // Peer 1: one silent connection and one waiting behind it, first in
        // the room; peer 2: one connection and one waiting.
        let mut held = Vec::new();
        for (id, peer) in [(0, 1), (1, 1), (2, 2), (3, 2)] {
            if let Admission::Admitted(_, pending) = registry.admit(connection_from(id, peer)) {
                pending.set_progress(SILENT);
                held.push(pending);
            }
        }
        let (started, order) = std::sync::mpsc::channel();
        std::thread::spawn({
            let registry = Arc::clone(&registry);
            move || {
                registry.serve_waiting(
                    |waiting, pending| started.send((waiting.id, pending)).unwrap(),
                    |_| panic!("no one is turned away"),
                )
            }
        });
        // Peer 2's pending connection ends: its waiting one gets in, while
        // peer 1's, ahead of it in the room, still waits.
        drop(held.pop());
        let (id, _pending) = order.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(id, 3);
    }

    #[test]
    fn a_connection_finds_no_room_within_the_handshake_timeout() {
        let cap = second_at_a_cap_of_one(HandshakeLimits {
            timeout: Duration::from_millis(50),
            ..limits(1, 1)
        });
        assert!(!cap.adding.join().unwrap());
        assert!(!evicted(&cap.first));
    }

    #[test]
    fn on_unix_sockets_each_uid_is_a_peer_of_its_own() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(limits(4, 1));
        let (first, _first_client) = connection(&listener);
        let _first = registry
            .add(Peer::Uid(1000), Arc::clone(&first), Instant::now())
            .unwrap();
        // Another uid is not held back by the first uid's cap.
        let (second, _second_client) = connection(&listener);
        let _second = registry
            .add(Peer::Uid(1001), second, Instant::now())
            .unwrap();
        // The same uid is: its oldest, waiting for the rest of its Hello,
        // is shed.
        _first.set_progress(PART_OF_A_HELLO);
        let (third, _third_client) = connection(&listener);
        let _third = registry
            .add(Peer::Uid(1000), third, Instant::now())
            .unwrap();
        assert!(evicted(&first));
    }

    #[test]
    fn a_dropped_connection_no_longer_counts() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let registry = PendingHandshakes::new(limits(1, 1));
        let peer = at(Ipv4Addr::LOCALHOST);
        let (first, _first_client) = connection(&listener);
        drop(registry.add(peer, Arc::clone(&first), Instant::now()));
        let (second, _second_client) = connection(&listener);
        let _second = registry
            .add(peer, Arc::clone(&second), Instant::now())
            .expect("room");
        assert!(!evicted(&first), "nothing was evicted for the second");
    }
}
