//! Which `executor.open` each session value, and which
//! `executor.launch_async` each token value, may come from, in one function
//! for given origins of its arguments. Values flow through block arguments
//! (`cf` branches, `scf` regions), `scf` results, `arith.select` and calls of
//! functions of the module; any other op that produces a session or token
//! produces one of unknown origin.
//!
//! This does not depend on what happens to sessions, only on where values go,
//! so it is computed once per function and argument origins, before the
//! dataflow, by iterating over the function's ops until nothing changes.

use std::rc::Rc;

use melior::ir::{
    BlockLike, BlockRef, OperationRef, RegionLike, RegionRef, Value, ValueLike,
    operation::OperationLike,
};

use super::{
    Analyzer, FuncId, Kind, Origin,
    fast_hash::{FastMap, FastSet},
    lattice::OpId,
    value_key,
};
use crate::ffi;

/// The origins of the session and token values of one function.
#[derive(Default)]
pub struct OriginMap {
    values: FastMap<usize, Origin>,
    /// The origin of each result of the function (None for results that are
    /// not sessions or tokens, or that no return gives).
    pub results: Vec<Option<Origin>>,
    /// Tokens whose value is carried to a later iteration of a loop (through a
    /// loop's block arguments or a branch): launching again does not lose the
    /// previous launch, whose token is still held.
    pub carried: FastSet<OpId>,
}

impl OriginMap {
    /// The origin of a session or token value; unknown when nothing gives
    /// it one (it is only reachable through paths the analysis cannot see).
    pub fn of(&self, value: Value<'_, '_>) -> Origin {
        self.values
            .get(&value_key(value))
            .cloned()
            .unwrap_or(Origin::UNKNOWN)
    }

    /// Whether `value` is a session or token with an origin: every handle
    /// that something defines or forwards has one. Asked instead of the
    /// value's type, which is stored with the op that defines it, elsewhere
    /// in memory.
    pub fn is_handle(&self, value: Value<'_, '_>) -> bool {
        self.values.contains_key(&value_key(value))
    }
}

/// Builds an [`OriginMap`], joining into a value what each place that
/// defines or forwards it gives.
struct Builder<'m, 'p, 'c, 'a> {
    analyzer: &'m mut Analyzer<'p, 'c, 'a>,
    function: FuncId,
    map: OriginMap,
    changed: bool,
    /// In this pass, a value was read before it had its origin, or its
    /// origin grew after it was made: another pass is needed. (Without
    /// either, which is the case of code whose handles do not go around
    /// loops, one pass is enough.)
    unsettled: bool,
}

impl<'c, 'a> Builder<'_, '_, 'c, 'a> {
    fn get(&self, value: Value<'c, 'a>) -> Option<Origin> {
        self.map.values.get(&value_key(value)).cloned()
    }

    /// Joins `origin` into a session or token `value`; other values are
    /// ignored.
    fn give(&mut self, value: Value<'c, 'a>, origin: &Origin) {
        if !self.analyzer.program.is_handle(value.r#type()) {
            return;
        }
        let key = value_key(value);
        let joined = match self.map.values.get(&key) {
            Some(current) if current == origin => return,
            Some(current) => {
                self.unsettled = true;
                current.join(origin)
            }
            None => *origin,
        };
        if self.map.values.get(&key) != Some(&joined) {
            self.map.values.insert(key, joined);
            self.changed = true;
        }
    }

    /// Gives `to` the origin of `from`, if it has one yet.
    fn forward(&mut self, from: Value<'c, 'a>, to: Value<'c, 'a>) {
        match self.get(from) {
            Some(origin) => self.give(to, &origin),
            None => self.unsettled |= self.analyzer.program.is_handle(to.r#type()),
        }
    }

    fn mark_carried(&mut self, value: Value<'c, 'a>) {
        if value.r#type() != self.analyzer.program.token_type {
            return;
        }
        if let Some(origin) = self.get(value) {
            self.map
                .carried
                .extend(origin.candidates().unwrap_or_default());
        }
    }

    fn unknown_results(&mut self, op: OperationRef<'c, 'a>) {
        for result in op.results() {
            self.give(result.into(), &Origin::UNKNOWN);
        }
    }

    fn visit(&mut self, op: OperationRef<'c, 'a>) {
        let program = self.analyzer.program;
        match program.kinds.of(op) {
            // executor.open and executor.launch_async: their handle.
            Kind::Executor(_) => {
                if let (Some(id), Ok(result)) = (program.id_in(self.function, op), op.result(0)) {
                    self.give(result.into(), &Origin::op(id));
                }
            }
            Kind::Select => {
                if let (Ok(result), Ok(on_true), Ok(on_false)) =
                    (op.result(0), op.operand(1), op.operand(2))
                {
                    self.forward(on_true, result.into());
                    self.forward(on_false, result.into());
                }
            }
            Kind::FuncCall => self.visit_call(op),
            Kind::ScfFor => self.visit_for(op),
            Kind::ScfWhile => self.visit_while(op),
            Kind::ScfAlternatives => {
                for region in op.regions() {
                    for terminator in self.yields(region) {
                        for (operand, result) in terminator.operands().zip(op.results()) {
                            self.forward(operand, result.into());
                        }
                    }
                }
            }
            _ => {
                self.unknown_results(op);
                for region in op.regions() {
                    for_each_block(region, |block| {
                        for index in 0..block.argument_count() {
                            if let Ok(argument) = block.argument(index) {
                                self.give(argument.into(), &Origin::UNKNOWN);
                            }
                        }
                    });
                }
                for successor in 0..op.successor_count() {
                    self.visit_successor(op, successor);
                }
            }
        }
    }

    /// The `scf.yield`s that end a region's blocks.
    fn yields(&self, region: RegionRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
        let kinds = &self.analyzer.program.kinds;
        let mut found = Vec::new();
        for_each_block(region, |block| {
            if let Some(terminator) = block.terminator()
                && kinds.of(terminator) == Kind::Forward
            {
                found.push(terminator);
            }
        });
        found
    }

    fn visit_successor(&mut self, op: OperationRef<'c, 'a>, successor: usize) {
        let Ok(block) = op.successor(successor) else {
            return;
        };
        let forwarded = ffi::successor_operands(op, successor);
        for index in 0..block.argument_count() {
            let Ok(argument) = block.argument(index) else {
                continue;
            };
            let operand = forwarded
                .as_ref()
                .filter(|range| index < range.len())
                .and_then(|range| op.operand(range.start + index).ok());
            match operand {
                Some(operand) => {
                    self.mark_carried(operand);
                    self.forward(operand, argument.into());
                }
                None => self.give(argument.into(), &Origin::UNKNOWN),
            }
        }
    }

    fn visit_call(&mut self, op: OperationRef<'c, 'a>) {
        let program = self.analyzer.program;
        let callee = program
            .id_in(self.function, op)
            .and_then(|id| program.callees.get(&id))
            .copied();
        let Some(callee) = callee else {
            self.unknown_results(op);
            return;
        };
        let params: Vec<Option<Origin>> = op
            .operands()
            .map(|operand| {
                program.is_handle(operand.r#type()).then(|| {
                    self.get(operand).unwrap_or_else(|| {
                        self.unsettled = true;
                        Origin::UNKNOWN
                    })
                })
            })
            .collect();
        let callee_map = self.analyzer.origins(callee, params);
        for (index, result) in op.results().enumerate() {
            let origin = callee_map
                .results
                .get(index)
                .cloned()
                .flatten()
                .unwrap_or(Origin::UNKNOWN);
            self.give(result.into(), &origin);
        }
    }

    /// `scf.for %i = ... iter_args(%arg = %init)`: the body's arguments after
    /// the induction variable and the results take the initial values and
    /// what the body yields.
    fn visit_for(&mut self, op: OperationRef<'c, 'a>) {
        let Some(body) = op.region(0).ok().and_then(|region| region.first_block()) else {
            return;
        };
        let inits: Vec<Value> = op.operands().skip(3).collect();
        let yielded: Vec<Value> = body
            .terminator()
            .map(|terminator| terminator.operands().collect())
            .unwrap_or_default();
        for (index, result) in op.results().enumerate() {
            let Ok(argument) = body.argument(index + 1) else {
                continue;
            };
            for source in [inits.get(index), yielded.get(index)].into_iter().flatten() {
                self.forward(*source, argument.into());
                self.forward(*source, result.into());
            }
            if let Some(value) = yielded.get(index) {
                self.mark_carried(*value);
            }
        }
    }

    /// `scf.while`: the `before` region starts with the initial values or
    /// what `after` yields; `after` and the results take what
    /// `scf.condition` forwards.
    fn visit_while(&mut self, op: OperationRef<'c, 'a>) {
        let (Some(before), Some(after)) = (
            op.region(0).ok().and_then(|region| region.first_block()),
            op.region(1).ok().and_then(|region| region.first_block()),
        ) else {
            return;
        };
        let again: Vec<Value> = after
            .terminator()
            .map(|terminator| terminator.operands().collect())
            .unwrap_or_default();
        for index in 0..before.argument_count() {
            let Ok(argument) = before.argument(index) else {
                continue;
            };
            for source in [op.operand(index).ok(), again.get(index).copied()]
                .into_iter()
                .flatten()
            {
                self.forward(source, argument.into());
            }
            if let Some(value) = again.get(index) {
                self.mark_carried(*value);
            }
        }
        let forwarded: Vec<Value> = before
            .terminator()
            .map(|condition| condition.operands().skip(1).collect())
            .unwrap_or_default();
        for (index, value) in forwarded.iter().enumerate() {
            self.mark_carried(*value);
            if let Ok(argument) = after.argument(index) {
                self.forward(*value, argument.into());
            }
            if let Ok(result) = op.result(index) {
                self.forward(*value, result.into());
            }
        }
    }
}

fn for_each_block<'c, 'a>(region: RegionRef<'c, 'a>, mut visit: impl FnMut(BlockRef<'c, 'a>)) {
    let mut block = region.first_block();
    while let Some(current) = block {
        visit(current);
        block = current.next_in_region();
    }
}

impl<'c, 'a> Analyzer<'_, 'c, 'a> {
    /// The origins of `function`'s values when its arguments come from
    /// `params`. A call back into a computation in progress (recursion)
    /// gives results of unknown origin.
    pub(super) fn origins(
        &mut self,
        function: FuncId,
        params: Vec<Option<Origin>>,
    ) -> Rc<OriginMap> {
        debug_assert!(
            self.users[function as usize] > 0,
            "a function done with is analysed"
        );
        if let Some(map) = self.origin_memo[function as usize].get(&params) {
            return map.clone();
        }
        let key = (function, params);
        if !self.origins_in_progress.insert(key.clone()) {
            return Rc::new(OriginMap::default());
        }
        let program = self.program;
        let info = &program.functions[function as usize];
        let mut builder = Builder {
            analyzer: self,
            function,
            map: OriginMap::default(),
            changed: true,
            unsettled: true,
        };
        if let Some(entry) = info.body.and_then(|body| body.first_block()) {
            for (index, origin) in key.1.iter().enumerate() {
                if let (Some(origin), Ok(argument)) = (origin, entry.argument(index)) {
                    builder.give(argument.into(), origin);
                }
            }
        }
        while builder.changed && builder.unsettled {
            builder.changed = false;
            builder.unsettled = false;
            for op in &info.origin_ops {
                builder.visit(*op);
            }
        }
        let mut results: Vec<Option<Origin>> = Vec::new();
        for terminator in &info.returns {
            for (index, operand) in terminator.operands().enumerate() {
                if results.len() <= index {
                    results.resize(index + 1, None);
                }
                if let Some(origin) = builder.get(operand) {
                    results[index] = Some(match &results[index] {
                        Some(current) => current.join(&origin),
                        None => origin,
                    });
                }
            }
        }
        let mut map = builder.map;
        map.results = results;
        let map = Rc::new(map);
        self.origins_in_progress.remove(&key);
        self.origin_memo[function as usize].insert(key.1, map.clone());
        map
    }
}
