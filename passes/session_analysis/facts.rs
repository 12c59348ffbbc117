//! What the analysis learns at each op, over every path and every calling
//! context that reaches it: the reports and the rewrites are decided from
//! these alone.

use std::collections::{BTreeMap, BTreeSet};

use super::lattice::{OpId, Ops, status, token};

/// The facts of one op. Within one calling context an op's facts are those
/// of its last visit (the analysis visits ops in loops until nothing
/// changes, and states only grow); across contexts they are merged.
#[derive(Clone, Debug, Default)]
pub struct Fact {
    /// The session an op uses.
    pub session: Option<SessionUse>,
    /// The object an `executor.launch` or `executor.launch_async` runs.
    pub object: Option<ObjectUse>,
    /// The path an `executor.send_binary` sends.
    pub send: Option<SendUse>,
    /// An `executor.open`.
    pub open: Option<OpenUse>,
    /// The token an `executor.await` waits for.
    pub wait: Option<AwaitUse>,
    /// Tokens (their `executor.launch_async`) that are still pending on some
    /// path where this op drops them: a `func.return` that does not return
    /// them, the `executor.close` of their session, or the launch itself
    /// running again.
    pub lost: BTreeSet<OpId>,
    /// At an `executor.close`: a launch_async on its session may still be
    /// running (not awaited, or unknown).
    pub outstanding: bool,
    /// At an `scf.for` or `scf.while`: the status of each handle at the end
    /// of an iteration (where the loop goes back to its start).
    pub back_edge: Option<BTreeMap<OpId, u8>>,
}

/// The session an op uses.
#[derive(Clone, Debug)]
pub struct SessionUse {
    /// [`status`] bits of the handle over every path (UNKNOWN for a session
    /// of unknown origin).
    pub status: u8,
    pub closed_by: Ops,
    /// The `executor.open`s it may come from; None when unknown.
    pub opens: Option<BTreeSet<OpId>>,
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
    /// reaching this one: the runtime returns their session here.
    pub same_session: BTreeSet<OpId>,
}

#[derive(Clone, Debug)]
pub struct AwaitUse {
    /// [`token`] bits over every path.
    pub status: u8,
    pub awaited_by: Ops,
    pub ended_by: Ops,
}

impl Fact {
    /// Merges the facts of the same op from another calling context.
    pub fn merge(&mut self, other: &Fact) {
        merge_option(&mut self.session, &other.session, |mine, theirs| {
            mine.status |= theirs.status;
            mine.closed_by.union(&theirs.closed_by);
            mine.opens = match (mine.opens.take(), &theirs.opens) {
                (Some(mut opens), Some(more)) => {
                    opens.extend(more);
                    Some(opens)
                }
                _ => None,
            };
        });
        merge_option(&mut self.object, &other.object, |mine, theirs| {
            mine.every &= theirs.every;
            mine.some |= theirs.some;
            mine.unknown |= theirs.unknown;
        });
        merge_option(&mut self.send, &other.send, |mine, theirs| {
            mine.redundant &= theirs.redundant;
            mine.sent_by.union(&theirs.sent_by);
        });
        merge_option(&mut self.open, &other.open, |mine, theirs| {
            mine.same_session
                .retain(|op| theirs.same_session.contains(op));
        });
        merge_option(&mut self.wait, &other.wait, |mine, theirs| {
            mine.status |= theirs.status;
            mine.awaited_by.union(&theirs.awaited_by);
            mine.ended_by.union(&theirs.ended_by);
        });
        self.lost.extend(&other.lost);
        self.outstanding |= other.outstanding;
        merge_option(&mut self.back_edge, &other.back_edge, |mine, theirs| {
            for (op, bits) in mine.iter_mut() {
                *bits |= theirs.get(op).copied().unwrap_or(status::UNKNOWN);
            }
            for (op, bits) in theirs {
                mine.entry(*op).or_insert(bits | status::UNKNOWN);
            }
        });
    }

    /// Adds what an unanalysed calling context may bring: anything. Reports
    /// then only say "on some path", and no rewrite relies on the op.
    pub fn degrade(&mut self) {
        if let Some(session) = &mut self.session {
            session.status |= status::UNKNOWN;
            session.opens = None;
        }
        if let Some(object) = &mut self.object {
            object.every = false;
            object.unknown = true;
        }
        if let Some(send) = &mut self.send {
            send.redundant = false;
        }
        if let Some(open) = &mut self.open {
            open.same_session.clear();
        }
        if let Some(wait) = &mut self.wait {
            wait.status |= token::UNKNOWN;
        }
        self.outstanding = true;
        if let Some(back_edge) = &mut self.back_edge {
            back_edge
                .values_mut()
                .for_each(|bits| *bits |= status::UNKNOWN);
        }
    }
}

/// Merges two optional facts: one context may not have reached the part of
/// the op the other did (a fact is filled as far as the op's transfer got).
fn merge_option<T: Clone>(mine: &mut Option<T>, theirs: &Option<T>, merge: impl Fn(&mut T, &T)) {
    match (mine.as_mut(), theirs) {
        (Some(mine), Some(theirs)) => merge(mine, theirs),
        (None, Some(theirs)) => *mine = Some(theirs.clone()),
        _ => {}
    }
}
