//! The session analysis that `executor-verify-sessions` reports from and
//! `executor-optimize` rewrites with: a forward dataflow over every
//! `func.func` of a module that follows what happens to each session and
//! token, through `scf` and `cf` control flow and through `func.call`s to
//! functions of the module.
//!
//! - [`lattice`]: the abstract state, per address (the runtime keeps one
//!   session per address), per handle (each `executor.open`'s result) and per
//!   token (each `executor.launch_async`'s result).
//! - [`origins`]: which `executor.open`/`launch_async` each session and token
//!   value comes from, following block arguments, `scf` results, selects and
//!   calls.
//! - [`program`]: the module as the analysis sees it (tracked ops,
//!   functions, calls), from one walk over it.
//! - [`contexts`]: each function analysed once per calling context.
//! - [`fixpoint`]: the fixpoints over regions and loops, and the dispatch of
//!   each op to its transfer.
//! - [`transfer`]: what each executor op does to the state, by its effect on
//!   sessions and tokens.
//! - [`calls`]: a `func.call`, the callee analysed in the caller's context.
//! - [`unknown_code`]: what ops and code the analysis does not see may do.
//! - [`facts`]: what holds at each op over every path and calling context.
//! - [`fast_hash`]: the hash maps all of these look ops and values up in.
//! - [`chunked`]: the tables by op and by function.
//! - [`sorted_map`]: the maps of the abstract state.
//!
//! Calls: a callee is analysed once per calling context, a context being the
//! origins of its session and token arguments and the part of the caller's
//! state it can reach or change (the sessions of the addresses it or its
//! callees open or is passed, their handles that may be open and pending
//! tokens, and the handles and tokens it is passed). At most [`CONTEXT_LIMIT`] contexts
//! are analysed per function; a call beyond that, or a recursive call, is
//! treated as unknown code (its effects on the caller's sessions become
//! unknown) and the callee's facts admit that unanalysed context. A function
//! that may be called from outside the module (public, referenced other than
//! by `func.call`, or never called) is also analysed in the context of an
//! outside caller: no session open, its session and token arguments unknown.

mod calls;
mod chunked;
mod contexts;
mod facts;
mod fast_hash;
mod fixpoint;
mod lattice;
mod origins;
mod program;
mod sorted_map;
mod transfer;
mod unknown_code;

use std::collections::BTreeMap;

use melior::ir::{
    OperationRef, Value, ValueLike,
    attribute::IntegerAttribute,
    operation::{OperationLike, OperationResult},
};

use contexts::{Analyzer, ContextKey};
pub use facts::Fact;
use facts::FactTable;
pub use lattice::{OpId, status as session_status, token as token_status};
use lattice::{Origin, State};
pub use program::Kind;
use program::Program;

use super::ir::{self, with_context};

/// How many calling contexts of one function are analysed before further
/// calls of it count as unknown code: enough for a helper called from a few
/// places and in a loop, and a bound on the analysis's cost.
pub const CONTEXT_LIMIT: u32 = 16;

/// The facts of the analysis of one module, and the ops they are about.
pub struct SessionFacts<'c, 'a> {
    program: Program<'c, 'a>,
    facts: FunctionFacts,
}

/// Facts by function (None for one never analysed). A function's first
/// context leaves its table here as it is, with no copy: most functions
/// have one context.
type FunctionFacts = Vec<Option<FactTable>>;

impl<'c, 'a> SessionFacts<'c, 'a> {
    /// The tracked ops (executor ops, calls, returns and loops) with their
    /// facts, in the order they appear in the module; ops no analysis
    /// reached have none.
    pub fn ops(
        &self,
    ) -> impl Iterator<Item = (OpId, OperationRef<'c, 'a>, Kind, Option<&Fact>)> + '_ {
        self.program
            .tracked
            .iter()
            .enumerate()
            .map(|(id, tracked)| {
                let id = id as OpId;
                (id, tracked.op, tracked.kind, self.fact_of(id))
            })
    }

    fn fact_of(&self, id: OpId) -> Option<&Fact> {
        self.table_of(id)?.fact(id)
    }

    /// The facts of the function of the tracked op `id`.
    fn table_of(&self, id: OpId) -> Option<&FactTable> {
        let function = self.program.function_of(id)?;
        self.facts.get(function as usize)?.as_ref()
    }

    /// Each tracked op that drops the tokens of launches while they may be
    /// pending (a `func.return` that does not return them, the
    /// `executor.close` of their session, or the launch itself running
    /// again), with each such launch: `(op, launch)`, function by function.
    /// Read from the few ops that drop any, not asked of every op.
    pub fn lost(&self) -> impl Iterator<Item = (OpId, OpId)> + '_ {
        self.facts.iter().flatten().flat_map(FactTable::lost)
    }

    /// At the `scf.for` or `scf.while` `id`: the status of each handle at
    /// the end of an iteration, over every context.
    pub fn back_edge(&self, id: OpId) -> Option<&BTreeMap<OpId, u8>> {
        self.table_of(id)?.back_edge(id)
    }

    pub fn op(&self, id: OpId) -> OperationRef<'c, 'a> {
        self.program.tracked[id as usize].op
    }

    pub fn kind(&self, id: OpId) -> Kind {
        self.program.tracked[id as usize].kind
    }

    /// The id of a tracked op (one inside a function).
    pub fn id(&self, op: OperationRef<'_, '_>) -> Option<OpId> {
        let mut function = op.parent_operation();
        while let Some(candidate) = function {
            if let Some(id) = self.program.function_ids.get(&op_key(candidate)) {
                return self.program.id_in(*id, op);
            }
            function = candidate.parent_operation();
        }
        None
    }

    pub fn fact(&self, op: OperationRef<'_, '_>) -> Option<&Fact> {
        self.fact_of(self.id(op)?)
    }

    /// How many tracked ops are `kind` ops.
    pub fn count(&self, kind: Kind) -> usize {
        self.program
            .tracked
            .iter()
            .filter(|tracked| tracked.kind == kind)
            .count()
    }

    /// Whether the module holds an executor op at all.
    pub fn has_executor_ops(&self) -> bool {
        self.program.has_executor_ops
    }
}

/// Analyses every function of `module`.
pub fn analyze<'c, 'a>(module: OperationRef<'c, 'a>) -> SessionFacts<'c, 'a> {
    let program = with_context(module, |context| Program::new(module, context));
    if !program.has_executor_ops {
        return SessionFacts {
            program,
            facts: FunctionFacts::new(),
        };
    }
    let mut analyzer = Analyzer::new(&program);
    for function in 0..program.functions.len() as FuncId {
        let info = &program.functions[function as usize];
        if info.callable_from_outside && info.body.is_some() {
            let params = info
                .handle_params
                .iter()
                .map(|is_handle| is_handle.then_some(Origin::UNKNOWN))
                .collect();
            analyzer.context(ContextKey {
                function,
                params,
                entry: State::default(),
            });
        }
        analyzer.done_with(function);
    }
    let facts = analyzer.finish();
    SessionFacts { program, facts }
}

/// Whether an `scf.for` runs at least once: Some(true) for constant bounds
/// `lb < ub`, Some(false) for constant bounds that give no iteration, None
/// when the bounds are not constants.
pub fn runs_at_least_once(for_op: OperationRef<'_, '_>) -> Option<bool> {
    let bound = |index| constant_integer(for_op.operand(index).ok()?);
    let (lower, upper) = (bound(0)?, bound(1)?);
    // scf.for compares its bounds as unsigned numbers with `unsignedCmp`.
    Some(if for_op.has_attribute("unsignedCmp") {
        (lower as u64) < (upper as u64)
    } else {
        lower < upper
    })
}

/// The value of an `arith.constant` of an integer or index type.
pub fn constant_integer(value: Value<'_, '_>) -> Option<i64> {
    let result = OperationResult::try_from(value).ok()?;
    let owner = result.owner();
    if ir::operation_name(owner) != melior::dialect::ods::arith::ConstantOperation::name() {
        return None;
    }
    Some(
        IntegerAttribute::try_from(owner.attribute("value").ok()?)
            .ok()?
            .value(),
    )
}

pub type FuncId = u32;

/// Identifies an op, a value or a block for the duration of an analysis.
fn op_key(op: OperationRef<'_, '_>) -> usize {
    op.to_raw().ptr as usize
}

fn value_key(value: Value<'_, '_>) -> usize {
    value.to_raw().ptr as usize
}
