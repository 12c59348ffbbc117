//! Ops the analysis does not model, and code it does not see (a callee
//! outside the module, a recursive call): what they may do to the sessions
//! and tokens they can reach.

use melior::ir::{OperationRef, operation::OperationLike};

use super::{
    contexts::{Analyzer, Run},
    lattice::{
        AddressId, Origin, State,
        status::{OPEN, UNKNOWN},
        token,
    },
    op_key,
};
use crate::ffi;

impl<'c, 'a> Analyzer<'_, 'c, 'a> {
    /// An op the analysis does not model. It may do anything with the
    /// sessions and tokens it is given (they escape), and code that runs
    /// later may use escaped handles; an op with regions that hold executor
    /// ops, calls or handles is not analysed inside, so anything may happen.
    pub(super) fn transfer_unmodeled(
        &mut self,
        run: &mut Run,
        op: OperationRef<'c, 'a>,
        state: &mut State,
    ) {
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
    pub(super) fn escape(&self, state: &mut State, origin: &Origin) {
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

/// Unknown code may have closed any session (see `havoc_session`).
pub(super) fn havoc_all(state: &mut State) {
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
