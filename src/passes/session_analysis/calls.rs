//! A `func.call` of a function of the module: the callee is analysed in
//! the part of the caller's state it can reach or change, and its state at
//! exit takes that part's place. Recursion, and calls beyond the limit of
//! contexts, count as unknown code.

use std::collections::BTreeSet;

use melior::ir::{OperationRef, ValueLike, operation::OperationLike};

use super::{
    CONTEXT_LIMIT,
    contexts::{Analyzer, ContextKey, Reach, Run},
    facts::Fact,
    lattice::{AddressId, OpId, Origin, State, token},
    unknown_code::havoc_all,
};

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
    /// `func.call`: a function of the module is analysed in the caller's
    /// context; any other callee is code the analysis does not see.
    pub(super) fn transfer_call(
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
