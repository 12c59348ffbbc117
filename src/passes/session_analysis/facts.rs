//! What the analysis learns at each op, over every path and every calling
//! context that reaches it: the reports and the rewrites are decided from
//! these alone.

use std::collections::{BTreeMap, BTreeSet};

use super::{
    lattice::{OpId, Ops, Origin, status, token},
    sorted_map::SortedMap,
};

/// The facts of one op. Within one calling context an op's facts are those
/// of its last visit (the analysis visits ops in loops until nothing
/// changes, and states only grow); across contexts they are merged. Kept
/// small (64 bytes) and plain data: they all stay until the analysis ends,
/// and a table of them is freed without a visit to each. What few ops have
/// is in their [`FactTable`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Fact {
    /// The session an op uses; its status is 0 when it uses none (a use has
    /// a bit: its handles' statuses or UNKNOWN), which spares an `Option`'s
    /// tag.
    session: SessionUse,
    /// What is particular to the kind of op.
    pub detail: Detail,
    /// At an `executor.close`: a launch_async on its session may still be
    /// running (not awaited, or unknown).
    pub outstanding: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Detail {
    #[default]
    None,
    /// The object an `executor.launch` or `executor.launch_async` runs.
    Object(ObjectUse),
    /// The path an `executor.send_binary` sends.
    Send(SendUse),
    /// An `executor.open`.
    Open(OpenUse),
    /// The token an `executor.await` waits for.
    Wait(AwaitUse),
}

/// The session an op uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SessionUse {
    /// [`status`] bits of the handle over every path (UNKNOWN for a session
    /// of unknown origin).
    pub status: u8,
    pub closed_by: Ops,
    /// The `executor.open`s it may come from.
    pub opens: Origin,
}

impl Default for SessionUse {
    /// No use (see [`Fact::session`]).
    fn default() -> Self {
        Self {
            status: 0,
            closed_by: Ops::default(),
            opens: Origin::UNKNOWN,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ObjectUse {
    /// Sent on the session on every path.
    pub every: bool,
    /// Sent on the session on some path.
    pub some: bool,
    /// The session may hold binaries the analysis did not see sent.
    pub unknown: bool,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SendUse {
    /// The path was sent on the session on every path, which is open.
    pub redundant: bool,
    /// The sends that sent it before.
    pub sent_by: Ops,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpenUse {
    /// Other opens of the same address whose handle is open on every path
    /// reaching this one (some of them): the runtime returns their session
    /// here.
    pub same_session: Ops,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AwaitUse {
    /// [`token`] bits over every path.
    pub status: u8,
    /// The awaits that awaited the token and the closes that ended it.
    pub by: Ops,
}

impl Fact {
    /// The session the op uses, if it uses one.
    pub fn session(&self) -> Option<&SessionUse> {
        (self.session.status != 0).then_some(&self.session)
    }

    pub fn set_session(&mut self, session: SessionUse) {
        self.session = session;
    }

    pub fn object(&self) -> Option<&ObjectUse> {
        match &self.detail {
            Detail::Object(object) => Some(object),
            _ => None,
        }
    }

    pub fn send(&self) -> Option<&SendUse> {
        match &self.detail {
            Detail::Send(send) => Some(send),
            _ => None,
        }
    }

    pub fn open(&self) -> Option<&OpenUse> {
        match &self.detail {
            Detail::Open(open) => Some(open),
            _ => None,
        }
    }

    pub fn wait(&self) -> Option<&AwaitUse> {
        match &self.detail {
            Detail::Wait(wait) => Some(wait),
            _ => None,
        }
    }

    /// Merges the facts of the same op from another calling context.
    fn merge(&mut self, other: &Fact) {
        let (mine, theirs) = (&mut self.session, &other.session);
        if mine.status == 0 {
            *mine = *theirs;
        } else if theirs.status != 0 {
            mine.status |= theirs.status;
            mine.closed_by.union(&theirs.closed_by);
            mine.opens = mine.opens.join(&theirs.opens);
        }
        match (&mut self.detail, &other.detail) {
            (Detail::Object(mine), Detail::Object(theirs)) => {
                mine.every &= theirs.every;
                mine.some |= theirs.some;
                mine.unknown |= theirs.unknown;
            }
            (Detail::Send(mine), Detail::Send(theirs)) => {
                mine.redundant &= theirs.redundant;
                mine.sent_by.union(&theirs.sent_by);
            }
            (Detail::Open(mine), Detail::Open(theirs)) => {
                mine.same_session.intersect(&theirs.same_session);
            }
            (Detail::Wait(mine), Detail::Wait(theirs)) => {
                mine.status |= theirs.status;
                mine.by.union(&theirs.by);
            }
            // One context may not have got as far into the op as another.
            (mine @ Detail::None, theirs) => *mine = *theirs,
            _ => {}
        }
        self.outstanding |= other.outstanding;
    }

    /// Adds what an unanalysed calling context may bring: anything. Reports
    /// then only say "on some path", and no rewrite relies on the op.
    fn degrade(&mut self) {
        if self.session.status != 0 {
            self.session.status |= status::UNKNOWN;
            self.session.opens = Origin::UNKNOWN;
        }
        match &mut self.detail {
            Detail::None => {}
            Detail::Object(object) => {
                object.every = false;
                object.unknown = true;
            }
            Detail::Send(send) => send.redundant = false,
            Detail::Open(open) => open.same_session = Ops::default(),
            Detail::Wait(wait) => wait.status |= token::UNKNOWN,
        }
        self.outstanding = true;
    }
}

/// The facts of one function's ops, in one calling context or merged over
/// several.
pub struct FactTable {
    /// The id of the function's first tracked op: its ops are numbered
    /// consecutively.
    first: OpId,
    /// By op id from `first`: the index of its fact in `distinct`, or
    /// [`UNREACHED`] for an op no visit reached.
    facts: Vec<u32>,
    /// The facts the ops have, each once among the [`RECENT`] latest: the
    /// ops of a function mostly share a few (every launch in straight-line
    /// code on one session has the same), and a fact of its own per op was
    /// most of the memory the analysis of a large module takes, each new page
    /// of it a page fault. It may hold facts a later visit replaced.
    distinct: Vec<Fact>,
    /// Tokens (their `executor.launch_async`) that are still pending on some
    /// path where an op drops them: a `func.return` that does not return
    /// them, the `executor.close` of their session, or the launch itself
    /// running again. By op, for the few ops that drop any.
    lost: SortedMap<OpId, BTreeSet<OpId>>,
    /// At each `scf.for` and `scf.while`: the status of each handle at the
    /// end of an iteration (where the loop goes back to its start).
    back_edges: SortedMap<OpId, BTreeMap<OpId, u8>>,
}

/// The index of no fact: a table would need 2^32 of them.
const UNREACHED: u32 = u32::MAX;

/// How many of the latest distinct facts a fact is looked for among before
/// it is added: ops with the same fact mostly come one after another (in
/// turn with a few others), and the bound keeps recording a fact at a
/// constant cost.
const RECENT: usize = 4;

impl FactTable {
    /// No facts yet for the `len` ops from `first`.
    pub fn new(first: OpId, len: usize) -> Self {
        Self {
            first,
            facts: vec![UNREACHED; len],
            distinct: Vec::new(),
            lost: SortedMap::default(),
            back_edges: SortedMap::default(),
        }
    }

    pub fn fact(&self, op: OpId) -> Option<&Fact> {
        self.distinct
            .get(self.facts[(op - self.first) as usize] as usize)
    }

    /// The index of `fact` in `distinct`, added if it is not among the
    /// latest.
    fn intern(&mut self, fact: Fact) -> u32 {
        let recent = self.distinct.len().saturating_sub(RECENT);
        let index = match self.distinct[recent..]
            .iter()
            .rposition(|known| *known == fact)
        {
            Some(index) => recent + index,
            None => {
                self.distinct.push(fact);
                self.distinct.len() - 1
            }
        };
        index as u32
    }

    /// Each op that drops tokens while they may be pending, with each of
    /// their launches: `(op, launch)`.
    pub fn lost(&self) -> impl Iterator<Item = (OpId, OpId)> + '_ {
        self.lost
            .iter()
            .flat_map(|(op, launches)| launches.iter().map(move |launch| (*op, *launch)))
    }

    /// The statuses of the handles at the end of an iteration of the loop
    /// `op`.
    pub fn back_edge(&self, op: OpId) -> Option<&BTreeMap<OpId, u8>> {
        self.back_edges.get(&op)
    }

    /// Records what holds at `op`, and the launches it drops, on its latest
    /// visit: they replace those of the visits before.
    pub fn record(&mut self, op: OpId, fact: Fact, lost: BTreeSet<OpId>) {
        self.facts[(op - self.first) as usize] = self.intern(fact);
        if lost.is_empty() {
            self.lost.remove(&op);
        } else {
            self.lost.insert(op, lost);
        }
    }

    /// Records the back edge of the loop `op` on its latest visit.
    pub fn record_back_edge(&mut self, op: OpId, statuses: BTreeMap<OpId, u8>) {
        self.record(op, Fact::default(), BTreeSet::new());
        self.back_edges.insert(op, statuses);
    }

    /// Merges the facts of the same function from another calling context.
    pub fn merge(&mut self, other: Self) {
        for (index, theirs) in other.facts.iter().enumerate() {
            let Some(theirs) = other.distinct.get(*theirs as usize) else {
                continue;
            };
            let merged = match self.distinct.get(self.facts[index] as usize) {
                Some(mine) => {
                    let mut merged = *mine;
                    merged.merge(theirs);
                    merged
                }
                None => *theirs,
            };
            self.facts[index] = self.intern(merged);
        }
        for (op, launches) in other.lost.iter() {
            self.lost
                .get_or_insert_with(*op, BTreeSet::new)
                .extend(launches.iter().copied());
        }
        for (op, theirs) in other.back_edges.iter() {
            let Some(mine) = self.back_edges.get_mut(op) else {
                self.back_edges.insert(*op, theirs.clone());
                continue;
            };
            for (handle, bits) in mine.iter_mut() {
                *bits |= theirs.get(handle).copied().unwrap_or(status::UNKNOWN);
            }
            for (handle, bits) in theirs {
                mine.entry(*handle).or_insert(bits | status::UNKNOWN);
            }
        }
    }

    /// Adds to every fact what an unanalysed calling context may bring (see
    /// [`Fact::degrade`]).
    pub fn degrade(&mut self) {
        self.distinct.iter_mut().for_each(Fact::degrade);
        for statuses in self.back_edges.values_mut() {
            statuses
                .values_mut()
                .for_each(|bits| *bits |= status::UNKNOWN);
        }
    }
}

// The size the comment of `Fact` gives.
const _: () = assert!(std::mem::size_of::<Fact>() == 64);
