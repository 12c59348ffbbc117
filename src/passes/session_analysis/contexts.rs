//! Each function analysed once per calling context: the contexts analysed
//! so far with their results, what each function may open, the facts
//! merged over its contexts, and its tables freed once nothing asks for
//! them again.

use std::{collections::BTreeSet, rc::Rc};

use melior::ir::{Value, ValueLike, operation::OperationLike};

use super::{
    FuncId, FunctionFacts,
    facts::{Fact, FactTable},
    fast_hash::{FastMap, FastSet},
    lattice::{AddressId, OpId, Origin, State},
    origins::{self, OriginMap},
    program::{Interner, Kind, Program},
};

/// A calling context: what a function is analysed for.
#[derive(PartialEq, Eq)]
pub(super) struct ContextKey {
    pub(super) function: FuncId,
    /// The origin of each session or token argument (None for the others).
    pub(super) params: Vec<Option<Origin>>,
    /// The part of the caller's state the function can reach.
    pub(super) entry: State,
}

/// What a function does in one calling context.
pub(super) struct ContextResult {
    /// The state after it returns, over every return; None when it never
    /// returns.
    pub(super) exit: Option<State>,
    /// It closed a session of unknown origin, which may be any session of
    /// its callers: they must forget what they know of theirs.
    pub(super) closes_unknown: bool,
}

/// The addresses a function may open, itself or through its callees: a set,
/// or any (through recursion, where the walk gives up).
#[derive(Clone)]
pub(super) enum Reach {
    Addresses(BTreeSet<AddressId>),
    Any,
}

/// Runs the analysis: the contexts analysed so far and their results, and
/// the facts merged over them.
///
/// What it keeps per calling context is kept by function (vectors indexed
/// by [`FuncId`]) rather than in tables of the whole module: a module-wide
/// table outgrows the cache on a large module, is copied as it grows, and
/// scatters one function's entries over it, so that looking them up and
/// freeing them at the end each miss the cache.
pub(super) struct Analyzer<'p, 'c, 'a> {
    pub(super) program: &'p Program<'c, 'a>,
    /// The contexts of each function analysed so far, with their results:
    /// at most [`CONTEXT_LIMIT`](super::CONTEXT_LIMIT) and the outside
    /// caller's, searched in turn.
    memo: Vec<Vec<(ContextKey, Rc<ContextResult>)>>,
    /// The origins of each function's values, by the origins of its
    /// arguments (as many as the distinct arguments its calls pass: a map).
    pub(super) origin_memo: Vec<FastMap<Vec<Option<Origin>>, Rc<origins::OriginMap>>>,
    pub(super) origins_in_progress: FastSet<(FuncId, Vec<Option<Origin>>)>,
    /// What each function may open, once asked ([`Analyzer::reach`]).
    reach: Vec<Option<Reach>>,
    /// Per function, what may still ask for its contexts, origins or reach:
    /// each call of it (one from outside every function for good) and, until
    /// its turn is over, the loop of [`analyze`](super::analyze) over the
    /// functions.
    pub(super) users: Vec<u32>,
    pub(super) contexts: Vec<u32>,
    pub(super) on_stack: Vec<u32>,
    /// Functions called in a context the analysis did not analyse.
    pub(super) unanalysed: FastSet<FuncId>,
    /// Merged over the contexts analysed so far.
    facts: FunctionFacts,
    pub(super) paths: Interner,
}

impl<'p, 'c, 'a> Analyzer<'p, 'c, 'a> {
    pub(super) fn new(program: &'p Program<'c, 'a>) -> Self {
        Self {
            program,
            memo: program.functions.iter().map(|_| Vec::new()).collect(),
            origin_memo: program
                .functions
                .iter()
                .map(|_| FastMap::default())
                .collect(),
            origins_in_progress: FastSet::default(),
            reach: vec![None; program.functions.len()],
            users: {
                let mut users = vec![1; program.functions.len()];
                for callee in program.callees.values() {
                    users[*callee as usize] += 1;
                }
                users
            },
            contexts: vec![0; program.functions.len()],
            on_stack: vec![0; program.functions.len()],
            unanalysed: FastSet::default(),
            facts: program.functions.iter().map(|_| None).collect(),
            paths: Interner::default(),
        }
    }

    /// One user of `function` (see `users`) is done with it. Once none is
    /// left, nothing asks for its contexts, origins or reach again: they are
    /// freed then, likely still in the cache and their memory reused by the
    /// functions analysed next, rather than all at the end, long after they
    /// were made (which on a large module missed the cache at each free).
    /// Its callees lose a user in turn.
    pub(super) fn done_with(&mut self, function: FuncId) {
        let mut done = vec![function];
        while let Some(function) = done.pop() {
            let index = function as usize;
            self.users[index] -= 1;
            if self.users[index] > 0 {
                continue;
            }
            self.memo[index] = Vec::new();
            self.origin_memo[index] = FastMap::default();
            self.reach[index] = None;
            done.extend(&self.program.functions[index].calls);
        }
    }

    /// The result of `key`'s context if it was analysed.
    pub(super) fn memoized(&self, key: &ContextKey) -> Option<&Rc<ContextResult>> {
        self.memo[key.function as usize]
            .iter()
            .find(|(analysed, _)| analysed == key)
            .map(|(_, result)| result)
    }

    /// The addresses `function` and its callees may open.
    pub(super) fn reach(&mut self, function: FuncId) -> Reach {
        if let Some(reach) = &self.reach[function as usize] {
            return reach.clone();
        }
        // Marks the function as in progress: a recursive call reaches "any".
        self.reach[function as usize] = Some(Reach::Any);
        let info = &self.program.functions[function as usize];
        let mut addresses = info.opens.clone();
        let mut reach = None;
        for callee in info.calls.clone() {
            match self.reach(callee) {
                Reach::Addresses(more) => addresses.extend(more),
                Reach::Any => {
                    reach = Some(Reach::Any);
                    break;
                }
            }
        }
        let reach = reach.unwrap_or(Reach::Addresses(addresses));
        self.reach[function as usize] = Some(reach.clone());
        reach
    }

    /// The facts, merged over every context, with those of functions called
    /// in unanalysed contexts (and of everything they call) degraded.
    pub(super) fn finish(mut self) -> FunctionFacts {
        let program = self.program;
        // A call the analysis never reached (inside an op it does not model,
        // or unreachable) calls its callee in a context it did not analyse.
        for (call, callee) in &program.callees {
            let reached = program.function_of(*call).is_some_and(|caller| {
                self.facts[caller as usize]
                    .as_ref()
                    .is_some_and(|facts| facts.fact(*call).is_some())
            });
            if !reached {
                self.unanalysed.insert(*callee);
            }
        }
        if self.unanalysed.is_empty() {
            return self.facts;
        }
        let mut pending: Vec<FuncId> = self.unanalysed.iter().copied().collect();
        while let Some(function) = pending.pop() {
            for callee in &program.functions[function as usize].calls {
                if self.unanalysed.insert(*callee) {
                    pending.push(*callee);
                }
            }
        }
        for function in &self.unanalysed {
            if let Some(facts) = &mut self.facts[*function as usize] {
                facts.degrade();
            }
        }
        self.facts
    }
}

/// One analysis of a function in one calling context.
pub(super) struct Run {
    pub(super) function: FuncId,
    pub(super) origins: Rc<OriginMap>,
    /// The facts of this context: each op's last visit.
    pub(super) facts: FactTable,
    /// The launches the op being transferred drops while they may be
    /// pending, recorded with its fact.
    pub(super) lost: BTreeSet<OpId>,
    /// A session of unknown origin was closed (here or in a callee).
    pub(super) closes_unknown: bool,
}

impl Run {
    pub(super) fn origin(&self, value: Result<Value<'_, '_>, melior::Error>) -> Origin {
        value.map_or(Origin::UNKNOWN, |value| self.origins.of(value))
    }

    /// Records `fact`, and the launches gathered in `lost`, as what holds
    /// at `op` (its latest visit).
    pub(super) fn record(&mut self, op: OpId, fact: Fact) {
        let lost = std::mem::take(&mut self.lost);
        self.facts.record(op, fact, lost);
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
                .filter(|(op, token)| made_here(op) && token.is_lost())
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
}
