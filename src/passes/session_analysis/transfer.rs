//! What each executor op does to the abstract state, and the fact recorded
//! at it, by its effect on sessions and tokens ([`SessionEffect`]): an op
//! is handled by its effect, not by its name.

use std::collections::BTreeSet;

use super::{
    contexts::{Analyzer, Run},
    facts::{AwaitUse, Detail, Fact, ObjectUse, OpenUse, SendUse, SessionUse},
    lattice::{
        AddressId, Handle, OpId, Ops, Origin, PathId, Sent, Session, State, Token,
        status::{CLOSED, OPEN, UNKNOWN},
        token,
    },
    unknown_code::havoc_all,
};
use crate::{
    ffi,
    passes::{
        executor_ops::{ExecutorOp, SessionEffect},
        ir,
    },
};

impl<'c, 'a> Analyzer<'_, 'c, 'a> {
    /// An executor op, by its effect on sessions and tokens: what it does
    /// to the session it uses (or opens) and to the token it makes or
    /// awaits.
    pub(super) fn transfer_executor(
        &mut self,
        run: &mut Run,
        op: &ExecutorOp<'c, 'a>,
        effect: SessionEffect,
        state: &mut State,
    ) {
        let program = self.program;
        let operation = op.operation();
        let Some(id) = program.id_in(run.function, operation) else {
            return;
        };
        // The session it uses, or the token it awaits.
        let handle = op
            .handle_operand()
            .map_or(Origin::UNKNOWN, |operand| run.origin(operand));
        let mut fact = Fact::default();
        if effect.uses_session() {
            fact.set_session(self.session_use(state, &handle));
        }
        match effect {
            SessionEffect::Opens => self.open(id, state, &mut fact),
            SessionEffect::Uses => {}
            SessionEffect::Loads => {
                if let Some(path) = ffi::executor_path(operation) {
                    let path = self.path_id(ir::string_bytes(path));
                    self.send(id, &handle, path, state, &mut fact);
                }
            }
            SessionEffect::Runs | SessionEffect::RunsAsync => {
                if let Some(object) = ffi::executor_path(operation) {
                    let object = self.path_id(ir::string_bytes(object));
                    fact.detail = Detail::Object(self.object_use(state, &handle, object));
                }
                if effect == SessionEffect::RunsAsync {
                    launch_async(run, id, handle, state);
                }
            }
            SessionEffect::Awaits => self.wait(id, &handle, state, &mut fact),
            SessionEffect::Closes => match handle.candidates() {
                None => {
                    // It may be any session, the callers' included.
                    havoc_all(state);
                    fact.outstanding = true;
                    run.closes_unknown = true;
                }
                Some(handles) => self.close(id, handles, state, &mut fact, &mut run.lost),
            },
        }
        run.record(id, fact);
    }

    fn path_id(&mut self, bytes: &[u8]) -> PathId {
        self.paths.id(bytes)
    }

    pub(super) fn address_of(&self, handle: OpId) -> Option<AddressId> {
        self.program.open_addresses.get(&handle).copied()
    }

    /// The addresses of the sessions a token may have been launched on;
    /// None when unknown.
    pub(super) fn token_addresses(&self, token: &Token) -> Option<BTreeSet<AddressId>> {
        token
            .session
            .candidates()?
            .iter()
            .map(|handle| self.address_of(*handle))
            .collect()
    }

    fn session_use(&self, state: &State, session: &Origin) -> SessionUse {
        let Some(handles) = session.candidates() else {
            return SessionUse {
                status: UNKNOWN,
                closed_by: Ops::default(),
                opens: Origin::UNKNOWN,
            };
        };
        let mut bits = 0;
        let mut closed_by = Ops::default();
        for handle in handles {
            match state.handle(*handle) {
                Some((handle_bits, closes)) => {
                    bits |= handle_bits;
                    closed_by.union(closes);
                }
                None => bits |= UNKNOWN,
            }
        }
        SessionUse {
            status: bits,
            closed_by,
            opens: *session,
        }
    }

    /// `executor.open`: the runtime returns the session already open at the
    /// address, or opens a new one, which holds no binaries.
    fn open(&self, id: OpId, state: &mut State, fact: &mut Fact) {
        let Some(address) = self.address_of(id) else {
            return;
        };
        fact.detail = Detail::Open(OpenUse {
            same_session: Ops::first_of(
                state
                    .handles
                    .iter()
                    .filter(|(op, handle)| {
                        **op != id && handle.address == address && handle.status == OPEN
                    })
                    .map(|(op, _)| *op),
            ),
        });
        let session = state.session_mut(address);
        if session.status == OPEN {
            // The same session: what was sent stays.
        } else if session.status & (OPEN | UNKNOWN) != 0 {
            session.forget_certainties();
            session.sent_unknown |= session.status & UNKNOWN != 0;
        } else {
            *session = Session::default();
        }
        session.status = OPEN;
        state.stale.remove(&id);
        state.handles.insert(
            id,
            Handle {
                address,
                status: OPEN,
                closed_by: Ops::default(),
            },
        );
    }

    fn send(&self, id: OpId, session: &Origin, path: PathId, state: &mut State, fact: &mut Fact) {
        let Some(handles) = session.candidates() else {
            fact.detail = Detail::Send(SendUse {
                redundant: false,
                sent_by: Ops::default(),
            });
            return;
        };
        let mut redundant = true;
        let mut sent_by = Ops::default();
        let addresses: Vec<AddressId> =
            handles.iter().filter_map(|h| self.address_of(*h)).collect();
        for (handle, address) in handles.iter().zip(&addresses) {
            let open = state.handles.get(handle).is_some_and(|h| h.status == OPEN);
            let sent = state
                .sessions
                .get(address)
                .filter(|session| session.status == OPEN)
                .and_then(|session| session.sent.get(&path));
            redundant &= open && sent.is_some_and(|sent| sent.every);
            if let Some(sent) = sent {
                sent_by.union(&sent.by);
            }
        }
        fact.detail = Detail::Send(SendUse {
            redundant: redundant && addresses.len() == handles.len(),
            sent_by,
        });
        let strong = handles.len() == 1;
        for address in addresses {
            let Some(target) = state.sessions.get_mut(&address) else {
                // No session there: the send fails, on a stale handle.
                continue;
            };
            if strong {
                target.sent.insert(
                    path,
                    Sent {
                        every: true,
                        by: Ops::one(id),
                    },
                );
            } else {
                let sent = target.sent.get_or_insert_with(path, || Sent {
                    every: false,
                    by: Ops::default(),
                });
                sent.by.union(&Ops::one(id));
            }
        }
    }

    fn object_use(&self, state: &State, session: &Origin, object: PathId) -> ObjectUse {
        let Some(handles) = session.candidates() else {
            return ObjectUse {
                every: false,
                some: false,
                unknown: true,
            };
        };
        let mut use_ = ObjectUse {
            every: true,
            some: false,
            unknown: false,
        };
        for handle in handles {
            let target = self
                .address_of(*handle)
                .and_then(|address| state.sessions.get(&address));
            let sent = target.and_then(|target| target.sent.get(&object));
            use_.every &= sent.is_some_and(|sent| sent.every);
            use_.some |= sent.is_some();
            use_.unknown |= target
                .is_none_or(|target| target.sent_unknown || target.status & UNKNOWN != 0)
                || state
                    .handle(*handle)
                    .is_none_or(|(bits, _)| bits & UNKNOWN != 0);
        }
        // With several sessions, which one the op uses depends on the path,
        // and so does what each holds (on a path where a session is not the
        // one used it may not even be open): only "on no path at all" holds
        // for the one used.
        if handles.len() > 1 && !use_.every && use_.some {
            use_.unknown = true;
        }
        use_
    }

    fn wait(&self, id: OpId, tokens: &Origin, state: &mut State, fact: &mut Fact) {
        let Some(launches) = tokens.candidates() else {
            fact.detail = Detail::Wait(AwaitUse {
                status: token::UNKNOWN,
                by: Ops::default(),
            });
            return;
        };
        let mut wait = AwaitUse {
            status: 0,
            by: Ops::default(),
        };
        for launch in launches {
            match state.tokens.get(launch) {
                Some(token) => {
                    wait.status |= token.status;
                    wait.by.union(&token.awaited_by);
                    wait.by.union(&token.ended_by);
                }
                None => wait.status |= token::UNKNOWN,
            }
        }
        fact.detail = Detail::Wait(wait);
        let strong = launches.len() == 1;
        for launch in launches {
            if let Some(token) = state.tokens.get_mut(launch) {
                if strong {
                    token.status = token::AWAITED;
                    token.awaited_by = Ops::one(id);
                    token.ended_by = Ops::default();
                } else {
                    // Which one is awaited depends on the path: each may
                    // or may not be, and a report about one of them could
                    // be about a path where it is not.
                    token.status |= token::UNKNOWN;
                }
            }
        }
    }

    /// `executor.close` of a handle that is one of `handles`: the session at
    /// its address ends, and with it every handle of that address (the
    /// runtime gave them all the same session) and the record of its
    /// launches in flight. The launches whose tokens it drops while pending
    /// go into `lost`.
    fn close(
        &self,
        id: OpId,
        handles: &[OpId],
        state: &mut State,
        fact: &mut Fact,
        lost: &mut BTreeSet<OpId>,
    ) {
        let addresses: BTreeSet<AddressId> =
            handles.iter().filter_map(|h| self.address_of(*h)).collect();
        fact.outstanding = state.tokens.values().any(|token| {
            token.status & (token::PENDING | token::UNKNOWN) != 0
                && self
                    .token_addresses(token)
                    .is_none_or(|on| !on.is_disjoint(&addresses))
        });
        let strong = handles.len() == 1;
        for address in &addresses {
            let closing: Vec<OpId> = state
                .handles
                .iter()
                .filter(|(_, handle)| handle.address == *address)
                .map(|(op, _)| *op)
                .collect();
            for op in closing {
                if strong {
                    let Some(handle) = state.handles.remove(&op) else {
                        continue;
                    };
                    let earlier = if handle.status & CLOSED != 0 {
                        handle.closed_by
                    } else {
                        Ops::default()
                    };
                    state.stale.insert(op, (*address, earlier.with(id)));
                } else if let Some(handle) = state.handles.get_mut(&op)
                    && handle.status & OPEN != 0
                {
                    // As for an await of one of several tokens.
                    handle.status |= UNKNOWN;
                }
            }
            if strong {
                state.sessions.remove(address);
            } else if let Some(session) = state.sessions.get_mut(address) {
                session.status |= UNKNOWN;
                session.forget_certainties();
            }
        }
        let token_sessions: Vec<(OpId, Option<BTreeSet<AddressId>>)> = state
            .tokens
            .iter()
            .filter(|(_, token)| token.status & token::PENDING != 0)
            .map(|(op, token)| (*op, self.token_addresses(token)))
            .collect();
        for (op, on) in token_sessions {
            let Some(on) = on else {
                continue;
            };
            if on.is_disjoint(&addresses) {
                continue;
            }
            let Some(token) = state.tokens.get_mut(&op) else {
                continue;
            };
            if strong && on.is_subset(&addresses) {
                if token.is_lost() {
                    lost.insert(op);
                }
                token.status = (token.status & !token::PENDING) | token::ENDED;
                token.ended_by.union(&Ops::one(id));
            } else {
                token.status |= token::UNKNOWN;
            }
        }
    }
}

/// `executor.launch_async` `id` on `session`: its token is pending.
fn launch_async(run: &mut Run, id: OpId, session: Origin, state: &mut State) {
    // Launching again while the previous launch's token is still pending
    // drops it, unless a loop carries it on.
    if state.tokens.get(&id).is_some_and(Token::is_lost) && !run.origins.carried.contains(&id) {
        run.lost.insert(id);
    }
    state.tokens.insert(
        id,
        Token {
            status: token::PENDING,
            session,
            awaited_by: Ops::default(),
            ended_by: Ops::default(),
        },
    );
}
