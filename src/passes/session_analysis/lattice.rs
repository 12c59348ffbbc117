//! The abstract state the session analysis carries from op to op, and its
//! join (what holds after two paths meet). Every component is a "may" set of
//! what is possible on some path, except the sent binaries, which also record
//! whether they were sent on every path.

use super::sorted_map::SortedMap;

/// An op of the module the analysis tracks (an index into its op table).
pub type OpId = u32;
/// An address as the runtime parses it (an index into the analysis's table).
pub type AddressId = u32;
/// A binary path (an index into the analysis's table).
pub type PathId = u32;

/// Status bits of a session handle (the value an `executor.open` returned)
/// or of the session at an address.
pub mod status {
    /// Open (a handle is live; a session is open at the address).
    pub const OPEN: u8 = 1;
    /// Closed (a handle is stale; no session is open at the address).
    pub const CLOSED: u8 = 2;
    /// Maybe changed by code the analysis does not see.
    pub const UNKNOWN: u8 = 4;
}

/// Status bits of a token (the value an `executor.launch_async` returned).
pub mod token {
    /// Its launch may be running and nobody has awaited it.
    pub const PENDING: u8 = 1;
    /// Awaited.
    pub const AWAITED: u8 = 2;
    /// Its session was closed before it was awaited: the runtime forgot it.
    pub const ENDED: u8 = 4;
    /// Passed to code the analysis does not see.
    pub const UNKNOWN: u8 = 8;
}

/// How many ops a set of ops holds: the notes of a diagnostic (enough to
/// point at the culprits) and the ops a value may come from (beyond that it
/// counts as unknown). Small enough to live inline, so that states and facts
/// are copied and compared without allocating.
const OPS_LIMIT: usize = 4;

/// What fills the slots of [`Ops`] after its ops: no op has this id (it
/// would take a module of 2^32 ops), and it sorts after every op, so the
/// slots stay sorted and the count needs no field of its own (a fact holds
/// several sets: 16 bytes each rather than 20).
const NO_OP: OpId = OpId::MAX;

/// A few ops, sorted, at most [`OPS_LIMIT`], held inline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ops {
    /// The ops, then [`NO_OP`] (so that equal sets compare and hash equal).
    ops: [OpId; OPS_LIMIT],
}

impl Default for Ops {
    fn default() -> Self {
        Self {
            ops: [NO_OP; OPS_LIMIT],
        }
    }
}

impl Ops {
    pub fn one(op: OpId) -> Self {
        let mut ops = Self::default();
        ops.ops[0] = op;
        ops
    }

    pub fn ids(&self) -> &[OpId] {
        &self.ops[..self.ops.partition_point(|op| *op != NO_OP)]
    }

    fn is_empty(&self) -> bool {
        self.ops[0] == NO_OP
    }

    /// The sorted union of both, however many ops that is.
    fn merged(&self, other: &Self) -> ([OpId; 2 * OPS_LIMIT], usize) {
        let mut all = [0; 2 * OPS_LIMIT];
        let (mut mine, mut theirs, mut len) = (self.ids().iter(), other.ids().iter(), 0);
        let (mut a, mut b) = (mine.next(), theirs.next());
        while a.is_some() || b.is_some() {
            let next = match (a, b) {
                (Some(x), Some(y)) if x == y => {
                    (a, b) = (mine.next(), theirs.next());
                    *x
                }
                (Some(x), Some(y)) if x < y => {
                    a = mine.next();
                    *x
                }
                (Some(x), None) => {
                    a = mine.next();
                    *x
                }
                (_, Some(y)) => {
                    b = theirs.next();
                    *y
                }
                (None, None) => unreachable!("the loop runs while one is left"),
            };
            all[len] = next;
            len += 1;
        }
        (all, len)
    }

    fn from_sorted(ops: &[OpId]) -> Self {
        let mut set = Self::default();
        set.ops[..ops.len()].copy_from_slice(ops);
        set
    }

    /// Adds `other`'s ops, keeping the first [`OPS_LIMIT`] (notes need not
    /// name every culprit).
    pub fn union(&mut self, other: &Self) {
        let (all, len) = self.merged(other);
        *self = Self::from_sorted(&all[..len.min(OPS_LIMIT)]);
    }

    pub fn with(mut self, op: OpId) -> Self {
        self.union(&Self::one(op));
        self
    }

    /// Keeps the ops `other` has too.
    pub fn intersect(&mut self, other: &Self) {
        let mut kept = [0; OPS_LIMIT];
        let mut len = 0;
        for op in self.ids() {
            if other.ids().binary_search(op).is_ok() {
                kept[len] = *op;
                len += 1;
            }
        }
        *self = Self::from_sorted(&kept[..len]);
    }

    /// The first [`OPS_LIMIT`] of `ops`, which are sorted.
    pub fn first_of(ops: impl Iterator<Item = OpId>) -> Self {
        let mut first = [0; OPS_LIMIT];
        let mut len = 0;
        for op in ops.take(OPS_LIMIT) {
            first[len] = op;
            len += 1;
        }
        Self::from_sorted(&first[..len])
    }
}

/// Where a session or token value comes from: one of a few
/// `executor.open`s (`executor.launch_async`s), or unknown (an argument from
/// outside the module, the result of an op the analysis does not model).
/// Unknown is the empty set: a known origin has at least one op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Origin(Ops);

impl Origin {
    pub const UNKNOWN: Self = Self(Ops {
        ops: [NO_OP; OPS_LIMIT],
    });

    pub fn op(op: OpId) -> Self {
        Self(Ops::one(op))
    }

    /// Either's ops; unknown beyond [`OPS_LIMIT`] of them.
    pub fn join(&self, other: &Self) -> Self {
        if self.0.is_empty() || other.0.is_empty() {
            return Self::UNKNOWN;
        }
        let (all, len) = self.0.merged(&other.0);
        if len > OPS_LIMIT {
            Self::UNKNOWN
        } else {
            Self(Ops::from_sorted(&all[..len]))
        }
    }

    /// The ops it may come from; None when unknown.
    pub fn candidates(&self) -> Option<&[OpId]> {
        (!self.0.is_empty()).then(|| self.0.ids())
    }
}

/// A session handle that may still be open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handle {
    pub address: AddressId,
    /// [`status`] bits.
    pub status: u8,
    /// The closes that may have made it stale.
    pub closed_by: Ops,
}

/// A binary path sent on a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// Sent on every path (otherwise on some).
    pub every: bool,
    /// The sends that sent it.
    pub by: Ops,
}

/// The runtime's session at one address. The runtime keeps one per address:
/// every open handle of an address is this session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Session {
    /// [`status`] bits.
    pub status: u8,
    pub sent: SortedMap<PathId, Sent>,
    /// Binaries may have been sent that the analysis did not see.
    pub sent_unknown: bool,
    /// A handle of it was passed to code the analysis does not see, which
    /// may use it whenever it runs again.
    pub escaped: bool,
}

impl Default for Session {
    /// What an address without an entry has: no session.
    fn default() -> Self {
        Self {
            status: status::CLOSED,
            sent: SortedMap::default(),
            sent_unknown: false,
            escaped: false,
        }
    }
}

impl Session {
    fn join(&mut self, other: &Self) {
        self.status |= other.status;
        self.sent_unknown |= other.sent_unknown;
        self.escaped |= other.escaped;
        for (path, sent) in &mut self.sent {
            match other.sent.get(path) {
                Some(theirs) => {
                    sent.every &= theirs.every;
                    sent.by.union(&theirs.by);
                }
                None => sent.every = false,
            }
        }
        for (path, theirs) in &other.sent {
            self.sent.get_or_insert_with(*path, || Sent {
                every: false,
                by: theirs.by,
            });
        }
    }

    /// Forgets what was sent on every path: a session that may have been
    /// closed and opened again may have none of it.
    pub fn forget_certainties(&mut self) {
        for sent in self.sent.values_mut() {
            sent.every = false;
        }
    }
}

/// An `executor.launch_async`'s token.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// [`token`] bits.
    pub status: u8,
    /// The session it was launched on.
    pub session: Origin,
    pub awaited_by: Ops,
    pub ended_by: Ops,
}

impl Token {
    /// Pending, and nothing else may await it: if dropped, its launch is
    /// lost.
    pub fn is_lost(&self) -> bool {
        self.status & token::PENDING != 0 && self.status & token::UNKNOWN == 0
    }

    fn join(&mut self, other: &Self) {
        self.status |= other.status;
        if self.session != other.session {
            self.session = self.session.join(&other.session);
        }
        self.awaited_by.union(&other.awaited_by);
        self.ended_by.union(&other.ended_by);
    }
}

/// What holds at a point of the program, over every path reaching it.
/// Handles and tokens not in the maps were not created on any path (SSA
/// dominance keeps them from being used there); addresses not in `sessions`
/// have none open.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct State {
    /// Handles that may be open, by their `executor.open`.
    pub handles: SortedMap<OpId, Handle>,
    /// Handles closed on every path, with their address and closes: kept
    /// apart so that closing an address only visits the handles that may be
    /// open.
    pub stale: SortedMap<OpId, (AddressId, Ops)>,
    /// Sessions by address; an address without an entry has none.
    pub sessions: SortedMap<AddressId, Session>,
    /// Tokens by their `executor.launch_async`.
    pub tokens: SortedMap<OpId, Token>,
}

impl Clone for State {
    fn clone(&self) -> Self {
        Self {
            handles: self.handles.clone(),
            stale: self.stale.clone(),
            sessions: self.sessions.clone(),
            tokens: self.tokens.clone(),
        }
    }

    /// Copies into `self`'s buffers (the derived one would drop them).
    fn clone_from(&mut self, source: &Self) {
        self.handles.clone_from(&source.handles);
        self.stale.clone_from(&source.stale);
        self.sessions.clone_from(&source.sessions);
        self.tokens.clone_from(&source.tokens);
    }
}

impl State {
    /// The status of a handle and the closes that may have closed it; None
    /// when it was created on no path.
    pub fn handle(&self, op: OpId) -> Option<(u8, &Ops)> {
        if let Some(handle) = self.handles.get(&op) {
            return Some((handle.status, &handle.closed_by));
        }
        self.stale
            .get(&op)
            .map(|(_, closed_by)| (status::CLOSED, closed_by))
    }

    /// The session at `address`, made if there was none.
    pub fn session_mut(&mut self, address: AddressId) -> &mut Session {
        self.sessions.get_or_insert_with(address, Session::default)
    }

    /// Gives back the room of entries removed: for a state the memo of
    /// calling contexts keeps.
    pub fn shrink_to_fit(&mut self) {
        self.handles.shrink_to_fit();
        self.stale.shrink_to_fit();
        self.sessions.shrink_to_fit();
        self.tokens.shrink_to_fit();
    }

    /// Makes `self` what holds after `self`'s paths and `other`'s meet.
    pub fn join(&mut self, other: &Self) {
        for (op, (address, closed_by)) in &other.stale {
            if let Some(handle) = self.handles.get_mut(op) {
                handle.status |= status::CLOSED;
                handle.closed_by.union(closed_by);
            } else if let Some((_, mine)) = self.stale.get_mut(op) {
                mine.union(closed_by);
            } else {
                self.stale.insert(*op, (*address, *closed_by));
            }
        }
        for (op, theirs) in &other.handles {
            if let Some(handle) = self.handles.get_mut(op) {
                handle.status |= theirs.status;
                handle.closed_by.union(&theirs.closed_by);
            } else if let Some((_, closed_by)) = self.stale.remove(op) {
                let mut handle = theirs.clone();
                handle.status |= status::CLOSED;
                handle.closed_by.union(&closed_by);
                self.handles.insert(*op, handle);
            } else {
                self.handles.insert(*op, theirs.clone());
            }
        }
        let absent = Session::default();
        for (address, session) in &mut self.sessions {
            session.join(other.sessions.get(address).unwrap_or(&absent));
        }
        for (address, theirs) in &other.sessions {
            if !self.sessions.contains_key(address) {
                let mut session = Session::default();
                session.join(theirs);
                self.sessions.insert(*address, session);
            }
        }
        self.sessions.retain(|_, session| *session != absent);
        for (op, theirs) in &other.tokens {
            match self.tokens.get_mut(op) {
                Some(token) => token.join(theirs),
                None => {
                    self.tokens.insert(*op, theirs.clone());
                }
            }
        }
    }
}

/// The join of the states of several paths; None when there are none.
pub fn join_all(states: impl IntoIterator<Item = State>) -> Option<State> {
    let mut states = states.into_iter();
    let mut joined = states.next()?;
    for state in states {
        joined.join(&state);
    }
    Some(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_handle(address: AddressId) -> Handle {
        Handle {
            address,
            status: status::OPEN,
            closed_by: Ops::default(),
        }
    }

    #[test]
    fn a_handle_closed_on_one_path_may_be_closed_after_the_join() {
        let mut open = State::default();
        open.handles.insert(1, open_handle(7));
        let mut closed = State::default();
        closed.stale.insert(1, (7, Ops::one(9)));
        open.join(&closed);
        let (bits, closed_by) = open.handle(1).expect("the handle exists");
        assert_eq!(bits, status::OPEN | status::CLOSED);
        assert_eq!(closed_by.ids(), &[9]);
        assert!(open.stale.is_empty());
    }

    #[test]
    fn a_binary_sent_on_one_path_only_is_sent_on_some() {
        let sent_everywhere = |path| {
            let mut state = State::default();
            let session = state.session_mut(3);
            session.status = status::OPEN;
            session.sent.insert(
                path,
                Sent {
                    every: true,
                    by: Ops::one(path),
                },
            );
            state
        };
        let mut joined = sent_everywhere(10);
        joined.join(&sent_everywhere(10));
        assert!(joined.sessions[&3].sent[&10].every);
        joined.join(&sent_everywhere(11));
        assert!(!joined.sessions[&3].sent[&10].every);
        assert!(!joined.sessions[&3].sent[&11].every);
        // A path on which no session is open loses every certainty too.
        let mut with_none = sent_everywhere(10);
        with_none.join(&State::default());
        assert_eq!(with_none.sessions[&3].status, status::OPEN | status::CLOSED);
        assert!(!with_none.sessions[&3].sent[&10].every);
    }

    #[test]
    fn origins_of_too_many_ops_are_unknown() {
        let mut origin = Origin::op(0);
        for op in 1..OPS_LIMIT as OpId {
            origin = origin.join(&Origin::op(op));
        }
        assert_eq!(origin.candidates().map(<[_]>::len), Some(OPS_LIMIT));
        assert_eq!(origin.join(&Origin::op(99)), Origin::UNKNOWN);
        assert_eq!(Origin::op(5).join(&Origin::op(5)), Origin::op(5));
    }

    #[test]
    fn note_sets_stay_small_and_sorted() {
        let mut notes = Ops::one(9);
        for op in (0..8).rev() {
            notes.union(&Ops::one(op));
        }
        assert_eq!(notes.ids(), &[0, 1, 2, 3]);
    }
}
