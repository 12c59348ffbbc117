//! The transfer of each op over the abstract state, and the fixpoints over
//! regions (a worklist over a region's blocks), loops (`scf.for`,
//! `scf.while`: iterate the body until the state at its start stops growing)
//! and calls (analyse the callee in the caller's context).

use std::{
    collections::{BTreeMap, BTreeSet},
    rc::Rc,
};

use melior::ir::{
    BlockLike, BlockRef, OperationRef, RegionLike, RegionRef, Value, ValueLike,
    operation::OperationLike,
};

use super::{
    Analyzer, CONTEXT_LIMIT, ContextKey, ContextResult, FuncId, Kind, Reach,
    facts::{AwaitUse, Detail, Fact, FactTable, ObjectUse, OpenUse, SendUse, SessionUse},
    fast_hash::FastMap,
    lattice::{
        AddressId, Handle, OpId, Ops, Origin, PathId, Sent, Session, State, Token, join_all,
        status::{CLOSED, OPEN, UNKNOWN},
        token,
    },
    op_key,
    origins::OriginMap,
    runs_at_least_once,
};
use crate::{
    ffi,
    passes::{
        executor_ops::{ExecutorOp, SessionEffect},
        ir,
    },
};

/// One analysis of a function in one calling context.
struct Run {
    function: FuncId,
    origins: Rc<OriginMap>,
    /// The facts of this context: each op's last visit.
    facts: FactTable,
    /// The launches the op being transferred drops while they may be
    /// pending, recorded with its fact.
    lost: BTreeSet<OpId>,
    /// A session of unknown origin was closed (here or in a callee).
    closes_unknown: bool,
}

impl Run {
    fn origin(&self, value: Result<Value<'_, '_>, melior::Error>) -> Origin {
        value.map_or(Origin::UNKNOWN, |value| self.origins.of(value))
    }

    /// Records `fact`, and the launches gathered in `lost`, as what holds
    /// at `op` (its latest visit).
    fn record(&mut self, op: OpId, fact: Fact) {
        let lost = std::mem::take(&mut self.lost);
        self.facts.record(op, fact, lost);
    }
}

/// Which part of a caller's state a callee can reach or change: the
/// sessions of some addresses and their handles that may be open, the stale
/// handles and the tokens it is passed, and the pending tokens of those
/// sessions; or all of it. A stale handle or a settled token (awaited, or
/// ended by a close) is only reachable as a value, and nothing changes it.
enum Relevance {
    Some {
        addresses: BTreeSet<AddressId>,
        params: BTreeSet<OpId>,
        tokens: BTreeSet<OpId>,
    },
    All,
}

impl Relevance {
    fn address(&self, address: &AddressId) -> bool {
        match self {
            Self::Some { addresses, .. } => addresses.contains(address),
            Self::All => true,
        }
    }

    fn param(&self, op: &OpId) -> bool {
        match self {
            Self::Some { params, .. } => params.contains(op),
            Self::All => true,
        }
    }

    fn token(&self, token: &OpId) -> bool {
        match self {
            Self::Some { tokens, .. } => tokens.contains(token),
            Self::All => true,
        }
    }
}

impl<'c, 'a> Analyzer<'_, 'c, 'a> {
    /// The result of `key`'s function in `key`'s context, analysed once.
    pub(super) fn context(&mut self, key: ContextKey) -> Rc<ContextResult> {
        if let Some(result) = self.memoized(&key) {
            return result.clone();
        }
        let program = self.program;
        let function = key.function as usize;
        debug_assert!(self.users[function] > 0, "a function done with is analysed");
        let Some(body) = program.functions[function].body else {
            return Rc::new(ContextResult {
                exit: Some(key.entry.clone()),
                closes_unknown: false,
            });
        };
        self.contexts[function] += 1;
        self.on_stack[function] += 1;
        let ops = program.functions[function].ops.clone();
        let mut run = Run {
            function: key.function,
            origins: self.origins(key.function, key.params.clone()),
            facts: FactTable::new(ops.start, ops.len()),
            lost: BTreeSet::new(),
            closes_unknown: false,
        };
        let exits = self.solve_region(&mut run, body, key.entry.clone());
        let mut exit: Option<State> = None;
        for (terminator, mut state) in exits {
            if program.kinds.of(terminator) != Kind::FuncReturn {
                continue;
            }
            let returned: BTreeSet<OpId> = terminator
                .operands()
                .filter(|value| program.is_handle(value.r#type()))
                .filter_map(|value| run.origins.of(value).candidates().map(<[_]>::to_vec))
                .flatten()
                .collect();
            // What this activation made and does not hand back is gone: a
            // pending token among it is a launch nobody waits for.
            let made_here = |op: &OpId| {
                !returned.contains(op)
                    && !key.entry.tokens.contains_key(op)
                    && key.entry.handle(*op).is_none()
            };
            let lost: BTreeSet<OpId> = state
                .tokens
                .iter()
                .filter(|(op, token)| made_here(op) && is_lost(token))
                .map(|(op, _)| *op)
                .collect();
            if let Some(id) = program.id_in(key.function, terminator) {
                run.facts.record(id, Fact::default(), lost);
            }
            state.tokens.retain(|op, _| !made_here(op));
            state.handles.retain(|op, _| !made_here(op));
            state.stale.retain(|op, _| !made_here(op));
            match &mut exit {
                Some(joined) => joined.join(&state),
                None => exit = Some(state),
            }
        }
        if let Some(exit) = &mut exit {
            exit.shrink_to_fit();
        }
        self.on_stack[function] -= 1;
        match &mut self.facts[function] {
            Some(merged) => merged.merge(run.facts),
            slot @ None => *slot = Some(run.facts),
        }
        let result = Rc::new(ContextResult {
            exit,
            closes_unknown: run.closes_unknown,
        });
        self.memo[function].push((key, result.clone()));
        result
    }

    /// Runs `region` from `entry`; returns the state at each op that ends a
    /// block without a successor (a return, a yield), with that op.
    fn solve_region(
        &mut self,
        run: &mut Run,
        region: RegionRef<'c, 'a>,
        entry: State,
    ) -> Vec<(OperationRef<'c, 'a>, State)> {
        let Some(first) = region.first_block() else {
            return Vec::new();
        };
        // The common case: one block that ends the region.
        let branches_back = |block: BlockRef| {
            block
                .terminator()
                .is_some_and(|terminator| terminator.successor_count() > 0)
        };
        if first.next_in_region().is_none() && !branches_back(first) {
            let mut state = entry;
            return match self.run_block(run, first, &mut state) {
                Some(last) => vec![(last, state)],
                None => Vec::new(),
            };
        }
        let mut blocks = Vec::new();
        let mut indices = FastMap::default();
        let mut block = Some(first);
        while let Some(current) = block {
            indices.insert(current.to_raw().ptr as usize, blocks.len());
            blocks.push(current);
            block = current.next_in_region();
        }
        let mut inputs: Vec<Option<State>> = vec![None; blocks.len()];
        inputs[0] = Some(entry);
        let mut exits: Vec<Option<(OperationRef<'c, 'a>, State)>> = vec![None; blocks.len()];
        // Lowest index first: blocks mostly come in an order where a block's
        // predecessors precede it, so few blocks are visited twice.
        let mut pending = BTreeSet::from([0]);
        while let Some(index) = pending.pop_first() {
            let Some(mut state) = inputs[index].clone() else {
                continue;
            };
            let Some(last) = self.run_block(run, blocks[index], &mut state) else {
                continue;
            };
            if last.successor_count() == 0 {
                exits[index] = Some((last, state));
                continue;
            }
            for successor in last.successors() {
                let Some(&target) = indices.get(&(successor.to_raw().ptr as usize)) else {
                    continue;
                };
                let changed = match &mut inputs[target] {
                    Some(input) => {
                        let before = input.clone();
                        input.join(&state);
                        *input != before
                    }
                    slot @ None => {
                        *slot = Some(state.clone());
                        true
                    }
                };
                if changed {
                    pending.insert(target);
                }
            }
        }
        exits.into_iter().flatten().collect()
    }

    /// Runs the ops of `block`; returns its last op, or None when the block
    /// is empty or does not reach its end (a callee that never returns).
    fn run_block(
        &mut self,
        run: &mut Run,
        block: BlockRef<'c, 'a>,
        state: &mut State,
    ) -> Option<OperationRef<'c, 'a>> {
        let mut last = None;
        let mut next = block.first_operation();
        while let Some(op) = next {
            if !self.transfer(run, op, state) {
                return None;
            }
            last = Some(op);
            next = op.next_in_block();
        }
        last
    }

    /// Updates `state` for `op`; false when execution does not continue
    /// after it.
    fn transfer(&mut self, run: &mut Run, op: OperationRef<'c, 'a>, state: &mut State) -> bool {
        match self.program.kinds.of(op) {
            Kind::Executor(kind) => {
                if let Some(executor_op) = ExecutorOp::of(op) {
                    self.transfer_executor(run, &executor_op, kind.session_effect(), state);
                }
                true
            }
            Kind::FuncCall => self.transfer_call(run, op, state),
            Kind::ScfFor => self.transfer_for(run, op, state),
            Kind::ScfWhile => self.transfer_while(run, op, state),
            Kind::ScfAlternatives => self.transfer_alternatives(run, op, state),
            // They only pass values on, which the origins account for.
            Kind::FuncReturn | Kind::Forward | Kind::Select => true,
            Kind::FuncFunc | Kind::Other => {
                self.transfer_unmodeled(run, op, state);
                true
            }
        }
    }

    /// An executor op, by its effect on sessions and tokens: what it does
    /// to the session it uses (or opens) and to the token it makes or
    /// awaits.
    fn transfer_executor(
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

    fn address_of(&self, handle: OpId) -> Option<AddressId> {
        self.program.open_addresses.get(&handle).copied()
    }

    /// The addresses of the sessions a token may have been launched on;
    /// None when unknown.
    fn token_addresses(&self, token: &Token) -> Option<BTreeSet<AddressId>> {
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
                if is_lost(token) {
                    lost.insert(op);
                }
                token.status = (token.status & !token::PENDING) | token::ENDED;
                token.ended_by.union(&Ops::one(id));
            } else {
                token.status |= token::UNKNOWN;
            }
        }
    }

    /// `func.call`: a function of the module is analysed in the caller's
    /// context; any other callee is code the analysis does not see.
    fn transfer_call(
        &mut self,
        run: &mut Run,
        op: OperationRef<'c, 'a>,
        state: &mut State,
    ) -> bool {
        let program = self.program;
        let Some(id) = program.id_in(run.function, op) else {
            self.transfer_unmodeled(run, op, state);
            return true;
        };
        // Marks the call as reached.
        run.record(id, Fact::default());
        let Some(&callee) = program.callees.get(&id) else {
            self.transfer_unmodeled(run, op, state);
            return true;
        };
        let params: Vec<Option<Origin>> = op
            .operands()
            .map(|operand| {
                program
                    .is_handle(operand.r#type())
                    .then(|| run.origins.of(operand))
            })
            .collect();
        let reach = self.reach(callee);
        let relevance = self.relevance(state, &reach, &params);
        let key = ContextKey {
            function: callee,
            entry: project(state, &relevance),
            params,
        };
        let callee_index = callee as usize;
        if self.memoized(&key).is_none()
            && (self.on_stack[callee_index] > 0 || self.contexts[callee_index] >= CONTEXT_LIMIT)
        {
            // Recursion, or too many contexts: unknown code.
            self.unanalysed.insert(callee);
            havoc_all(state);
            run.closes_unknown = true;
            for param in key.params.iter().flatten() {
                self.escape(state, param);
            }
            return true;
        }
        let result = self.context(key);
        let Some(exit) = &result.exit else {
            return false;
        };
        merge_back(state, &relevance, exit);
        if result.closes_unknown {
            havoc_all(state);
            run.closes_unknown = true;
        }
        true
    }

    /// The part of `state` a callee that may open `reach` and gets `params`
    /// can see or change.
    fn relevance(&self, state: &State, reach: &Reach, params: &[Option<Origin>]) -> Relevance {
        let Reach::Addresses(reached) = reach else {
            return Relevance::All;
        };
        let mut addresses = reached.clone();
        let mut tokens = BTreeSet::new();
        let mut passed = BTreeSet::new();
        for param in params.iter().flatten() {
            for op in param.candidates().unwrap_or_default() {
                passed.insert(*op);
                if let Some(address) = self.address_of(*op) {
                    addresses.insert(address);
                } else if let Some(token) = state.tokens.get(op) {
                    tokens.insert(*op);
                    addresses.extend(self.token_addresses(token).unwrap_or_default());
                }
            }
        }
        addresses.extend(
            state
                .sessions
                .iter()
                .filter(|(_, session)| session.escaped)
                .map(|(address, _)| *address),
        );
        for (op, token) in &state.tokens {
            if token.status & (token::PENDING | token::UNKNOWN) != 0
                && self
                    .token_addresses(token)
                    .is_some_and(|on| !on.is_disjoint(&addresses))
            {
                tokens.insert(*op);
            }
        }
        Relevance::Some {
            addresses,
            params: passed,
            tokens,
        }
    }

    fn transfer_for(&mut self, run: &mut Run, op: OperationRef<'c, 'a>, state: &mut State) -> bool {
        let runs = runs_at_least_once(op);
        let Ok(body) = op.region(0) else {
            return true;
        };
        if runs == Some(false) {
            return true;
        }
        let (head, back, ()) = self.iterate(run, op, state, |analyzer, run, head| {
            let back = join_all(
                analyzer
                    .solve_region(run, body, head.clone())
                    .into_iter()
                    .map(|(_, state)| state),
            );
            (back, ())
        });
        match (runs, back) {
            (Some(true), Some(back)) => {
                *state = back;
                true
            }
            (Some(true), None) => false,
            _ => {
                *state = head;
                true
            }
        }
    }

    fn transfer_while(
        &mut self,
        run: &mut Run,
        op: OperationRef<'c, 'a>,
        state: &mut State,
    ) -> bool {
        let (Ok(before), Ok(after)) = (op.region(0), op.region(1)) else {
            return true;
        };
        let (_, _, condition) = self.iterate(run, op, state, |analyzer, run, head| {
            let condition = join_all(
                analyzer
                    .solve_region(run, before, head.clone())
                    .into_iter()
                    .map(|(_, state)| state),
            );
            let back = condition.clone().and_then(|condition| {
                join_all(
                    analyzer
                        .solve_region(run, after, condition)
                        .into_iter()
                        .map(|(_, state)| state),
                )
            });
            (back, condition)
        });
        match condition {
            Some(condition) => {
                *state = condition;
                true
            }
            None => false,
        }
    }

    /// Iterates a loop from `state` until the state at its start (`head`)
    /// stops growing. `iteration` runs one iteration from `head` and returns
    /// the state at the end of the iteration (the back edge) and what the
    /// loop's exit sees. Returns the final head, back edge and exit, and
    /// records the back edge's handle statuses at the loop.
    fn iterate<T>(
        &mut self,
        run: &mut Run,
        op: OperationRef<'c, 'a>,
        state: &State,
        mut iteration: impl FnMut(&mut Self, &mut Run, &State) -> (Option<State>, T),
    ) -> (State, Option<State>, T) {
        let mut head = state.clone();
        // The head joined with the back edge, in the buffers of the head
        // before (a loop's state is copied at every iteration).
        let mut next = State::default();
        loop {
            let (back, exit) = iteration(self, run, &head);
            next.clone_from(&head);
            if let Some(back) = &back {
                next.join(back);
            }
            if next == head {
                if let Some(id) = self.program.id_in(run.function, op) {
                    let mut statuses = BTreeMap::new();
                    if let Some(back) = &back {
                        statuses.extend(back.handles.iter().map(|(op, h)| (*op, h.status)));
                        statuses.extend(back.stale.keys().map(|op| (*op, CLOSED)));
                    }
                    run.facts.record_back_edge(id, statuses);
                }
                return (head, back, exit);
            }
            std::mem::swap(&mut head, &mut next);
        }
    }

    fn transfer_alternatives(
        &mut self,
        run: &mut Run,
        op: OperationRef<'c, 'a>,
        state: &mut State,
    ) -> bool {
        let mut after: Option<State> = None;
        for region in op.regions() {
            if region.first_block().is_none() {
                // An empty `else`: the state goes on unchanged (joined as it
                // is, without a copy, when a region came before).
                match &mut after {
                    Some(joined) => joined.join(state),
                    None => after = Some(state.clone()),
                }
                continue;
            }
            for (_, exit) in self.solve_region(run, region, state.clone()) {
                match &mut after {
                    Some(joined) => joined.join(&exit),
                    None => after = Some(exit),
                }
            }
        }
        match after {
            Some(after) => {
                *state = after;
                true
            }
            None => false,
        }
    }

    /// An op the analysis does not model. It may do anything with the
    /// sessions and tokens it is given (they escape), and code that runs
    /// later may use escaped handles; an op with regions that hold executor
    /// ops, calls or handles is not analysed inside, so anything may happen.
    fn transfer_unmodeled(&mut self, run: &mut Run, op: OperationRef<'c, 'a>, state: &mut State) {
        let program = self.program;
        if op.region_count() > 0 && program.busy.contains(&op_key(op)) {
            havoc_all(state);
            run.closes_unknown = true;
            return;
        }
        // A branch forwards its handles to block arguments (see origins).
        if op.successor_count() == 0 {
            for operand in op.operands() {
                if run.origins.is_handle(operand) {
                    self.escape(state, &run.origins.of(operand));
                }
            }
        }
        if !ffi::is_memory_effect_free(op) {
            let escaped: Vec<AddressId> = state
                .sessions
                .iter()
                .filter(|(_, session)| session.escaped)
                .map(|(address, _)| *address)
                .collect();
            for address in escaped {
                self.havoc_session(state, address);
            }
        }
    }

    /// The handles and tokens among `origin`'s candidates are given to
    /// unknown code, which may use them now and whenever it runs again.
    fn escape(&self, state: &mut State, origin: &Origin) {
        for op in origin.candidates().unwrap_or_default() {
            if let Some(token) = state.tokens.get_mut(op) {
                token.status |= token::UNKNOWN;
            } else if let Some(address) = self.address_of(*op) {
                self.havoc_session(state, address);
                if let Some(session) = state.sessions.get_mut(&address) {
                    session.escaped = true;
                }
            }
        }
    }

    /// Unknown code may have closed the session at `address` (and opened a
    /// new one, with other binaries) and awaited its launches.
    fn havoc_session(&self, state: &mut State, address: AddressId) {
        for handle in state.handles.values_mut() {
            if handle.address == address && handle.status & OPEN != 0 {
                handle.status |= UNKNOWN;
            }
        }
        if let Some(session) = state.sessions.get_mut(&address) {
            session.status |= UNKNOWN;
            session.sent_unknown = true;
            session.forget_certainties();
        }
        for token in state.tokens.values_mut() {
            let on_it = self
                .token_addresses(token)
                .is_none_or(|on| on.contains(&address));
            if on_it && token.status & token::PENDING != 0 {
                token.status |= token::UNKNOWN;
            }
        }
    }
}

/// `executor.launch_async` `id` on `session`: its token is pending.
fn launch_async(run: &mut Run, id: OpId, session: Origin, state: &mut State) {
    // Launching again while the previous launch's token is still pending
    // drops it, unless a loop carries it on.
    if state.tokens.get(&id).is_some_and(is_lost) && !run.origins.carried.contains(&id) {
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

/// A pending token nothing else may await: if dropped, its launch is lost.
fn is_lost(token: &Token) -> bool {
    token.status & token::PENDING != 0 && token.status & token::UNKNOWN == 0
}

/// Unknown code may have closed any session (see `havoc_session`).
fn havoc_all(state: &mut State) {
    for handle in state.handles.values_mut() {
        if handle.status & OPEN != 0 {
            handle.status |= UNKNOWN;
        }
    }
    for session in state.sessions.values_mut() {
        session.status |= UNKNOWN;
        session.sent_unknown = true;
        session.forget_certainties();
    }
    for token in state.tokens.values_mut() {
        if token.status & token::PENDING != 0 {
            token.status |= token::UNKNOWN;
        }
    }
}

/// What a callee sees of `state`.
fn project(state: &State, relevance: &Relevance) -> State {
    if let Relevance::All = relevance {
        return state.clone();
    }
    State {
        handles: state
            .handles
            .iter()
            .filter(|(_, handle)| relevance.address(&handle.address))
            .map(|(op, handle)| (*op, handle.clone()))
            .collect(),
        stale: state
            .stale
            .iter()
            .filter(|(op, _)| relevance.param(op))
            .map(|(op, stale)| (*op, *stale))
            .collect(),
        sessions: state
            .sessions
            .iter()
            .filter(|(address, _)| relevance.address(address))
            .map(|(address, session)| (*address, session.clone()))
            .collect(),
        tokens: state
            .tokens
            .iter()
            .filter(|(op, _)| relevance.token(op))
            .map(|(op, token)| (*op, token.clone()))
            .collect(),
    }
}

/// `state` after a call whose callee saw `relevance` of it and left `exit`.
fn merge_back(state: &mut State, relevance: &Relevance, exit: &State) {
    if let Relevance::All = relevance {
        *state = exit.clone();
        return;
    }
    state
        .handles
        .retain(|_, handle| !relevance.address(&handle.address));
    state.stale.retain(|op, _| !relevance.param(op));
    state
        .sessions
        .retain(|address, _| !relevance.address(address));
    state.tokens.retain(|op, _| !relevance.token(op));
    state.handles.extend(
        exit.handles
            .iter()
            .map(|(op, handle)| (*op, handle.clone())),
    );
    state
        .stale
        .extend(exit.stale.iter().map(|(op, stale)| (*op, *stale)));
    state.sessions.extend(
        exit.sessions
            .iter()
            .map(|(address, s)| (*address, s.clone())),
    );
    state
        .tokens
        .extend(exit.tokens.iter().map(|(op, token)| (*op, token.clone())));
}
