//! The fixpoints of the dataflow: a worklist over the blocks of a region,
//! loops (`scf.for`, `scf.while`) iterated until the state at their start
//! stops growing, and ops of which one region runs (`scf.if`, ...); and the
//! dispatch of each op to its transfer.

use std::collections::{BTreeMap, BTreeSet};

use melior::ir::{
    BlockLike, BlockRef, OperationRef, RegionLike, RegionRef, operation::OperationLike,
};

use super::{
    contexts::{Analyzer, Run},
    fast_hash::FastMap,
    lattice::{State, join_all, status::CLOSED},
    program::Kind,
    runs_at_least_once,
};
use crate::passes::executor_ops::ExecutorOp;

impl<'c, 'a> Analyzer<'_, 'c, 'a> {
    /// Runs `region` from `entry`; returns the state at each op that ends a
    /// block without a successor (a return, a yield), with that op.
    pub(super) fn solve_region(
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
}
