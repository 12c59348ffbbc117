//! What the analysis learns at each op, over every path and every calling
//! context that reaches it: the reports and the rewrites are decided from
//! these alone.

use std::collections::{BTreeMap, BTreeSet};

use super::lattice::{OpId, Ops, Origin, status, token};

/// The facts of one op. Within one calling context an op's facts are those
/// of its last visit (the analysis visits ops in loops until nothing
/// changes, and states only grow); across contexts they are merged. Kept
/// small (72 bytes): there is one per tracked op and calling context, and
/// they all stay until the analysis ends; what few ops have is boxed.
#[derive(Clone, Debug, Default)]
pub struct Fact {
    /// The session an op uses; its status is 0 when it uses none (a use has
    /// a bit: its handles' statuses or UNKNOWN), which spares an `Option`'s
    /// tag.
    session: SessionUse,
    /// What is particular to the kind of op.
    pub detail: Detail,
    /// Tokens (their `executor.launch_async`) that are still pending on some
    /// path where this op drops them: a `func.return` that does not return
    /// them, the `executor.close` of their session, or the launch itself
    /// running again. Sorted; behind one thin pointer, as there seldom are
    /// any (8 bytes in every fact, where a `Vec` would take 24 and a boxed
    /// slice 16).
    #[allow(clippy::box_collection)]
    lost: Option<Box<Vec<OpId>>>,
    /// At an `executor.close`: a launch_async on its session may still be
    /// running (not awaited, or unknown).
    pub outstanding: bool,
}

#[derive(Clone, Debug, Default)]
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
    /// At an `scf.for` or `scf.while`: the status of each handle at the end
    /// of an iteration (where the loop goes back to its start). Boxed: a
    /// loop's fact is one of many, and the map's 24 bytes inline would make
    /// every fact's detail 8 bytes larger.
    #[allow(clippy::box_collection)]
    BackEdge(Box<BTreeMap<OpId, u8>>),
}

/// The session an op uses.
#[derive(Clone, Copy, Debug)]
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

#[derive(Clone, Debug)]
pub struct ObjectUse {
    /// Sent on the session on every path.
    pub every: bool,
    /// Sent on the session on some path.
    pub some: bool,
    /// The session may hold binaries the analysis did not see sent.
    pub unknown: bool,
}

#[derive(Clone, Debug)]
pub struct SendUse {
    /// The path was sent on the session on every path, which is open.
    pub redundant: bool,
    /// The sends that sent it before.
    pub sent_by: Ops,
}

#[derive(Clone, Debug)]
pub struct OpenUse {
    /// Other opens of the same address whose handle is open on every path
    /// reaching this one (some of them): the runtime returns their session
    /// here.
    pub same_session: Ops,
}

#[derive(Clone, Debug)]
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

    /// The launches whose tokens this op drops while they may be pending.
    pub fn lost(&self) -> impl Iterator<Item = OpId> + '_ {
        self.lost.iter().flat_map(|lost| lost.iter().copied())
    }

    pub fn add_lost(&mut self, launch: OpId) {
        let lost = self.lost.get_or_insert_default();
        if let Err(at) = lost.binary_search(&launch) {
            lost.insert(at, launch);
        }
    }

    pub fn set_lost(&mut self, launches: BTreeSet<OpId>) {
        self.lost = (!launches.is_empty()).then(|| Box::new(launches.into_iter().collect()));
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

    pub fn back_edge(&self) -> Option<&BTreeMap<OpId, u8>> {
        match &self.detail {
            Detail::BackEdge(statuses) => Some(statuses),
            _ => None,
        }
    }

    /// Merges the facts of the same op from another calling context.
    pub fn merge(&mut self, other: &Fact) {
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
            (Detail::BackEdge(mine), Detail::BackEdge(theirs)) => {
                for (op, bits) in mine.iter_mut() {
                    *bits |= theirs.get(op).copied().unwrap_or(status::UNKNOWN);
                }
                for (op, bits) in theirs.iter() {
                    mine.entry(*op).or_insert(bits | status::UNKNOWN);
                }
            }
            // One context may not have got as far into the op as another.
            (mine @ Detail::None, theirs) => *mine = theirs.clone(),
            _ => {}
        }
        for launch in other.lost() {
            self.add_lost(launch);
        }
        self.outstanding |= other.outstanding;
    }

    /// Adds what an unanalysed calling context may bring: anything. Reports
    /// then only say "on some path", and no rewrite relies on the op.
    pub fn degrade(&mut self) {
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
            Detail::BackEdge(statuses) => {
                statuses
                    .values_mut()
                    .for_each(|bits| *bits |= status::UNKNOWN);
            }
        }
        self.outstanding = true;
    }
}

// The size the comment of `Fact` gives.
const _: () = assert!(std::mem::size_of::<Fact>() == 72);
