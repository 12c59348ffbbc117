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
//! - [`dataflow`]: the transfer of each op and the fixpoints over regions and
//!   loops.
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

mod chunked;
mod dataflow;
mod facts;
mod fast_hash;
mod lattice;
mod origins;
mod sorted_map;

use std::{
    collections::{BTreeMap, BTreeSet},
    rc::Rc,
};

use melior::{
    Context,
    ir::{
        BlockLike, Identifier, OperationRef, RegionLike, RegionRef, Type, Value, ValueLike,
        attribute::{IntegerAttribute, StringAttribute},
        operation::{OperationLike, OperationResult},
    },
};

use chunked::Chunked;
pub use facts::Fact;
use facts::FactTable;
use fast_hash::{FastMap, FastSet};
use lattice::{AddressId, Origin, State};
pub use lattice::{OpId, status as session_status, token as token_status};

use super::{
    executor_ops::{ExecutorKind, SessionEffect},
    ir::{self, with_context},
};
use crate::{dialect, ffi};

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

/// The module as the analysis sees it: the tracked ops, the functions and
/// their calls, and the tables of addresses and paths.
struct Program<'c, 'a> {
    session_type: Type<'c>,
    token_type: Type<'c>,
    kinds: Kinds,
    has_executor_ops: bool,
    /// The tracked ops, by id, in the order of the module.
    tracked: Chunked<Tracked<'c, 'a>>,
    /// Functions by their `func.func`'s address.
    function_ids: FastMap<usize, FuncId>,
    functions: Chunked<Function<'c, 'a>>,
    /// The callee of each `func.call` with a body in the module, by call id.
    callees: FastMap<OpId, FuncId>,
    /// The address of each `executor.open`, by its id.
    open_addresses: FastMap<OpId, AddressId>,
    /// Ops with regions holding what the analysis must see but does not
    /// analyse inside such an op: an executor op, a call, a use of a handle.
    busy: FastSet<usize>,
}

/// A tracked op, and what the analysis asks of it by its id: one record
/// (16 bytes), one push per op.
struct Tracked<'c, 'a> {
    op: OperationRef<'c, 'a>,
    /// The function it belongs to, or [`OUTSIDE`].
    function: FuncId,
    kind: Kind,
}

/// The function of a tracked op outside every function.
const OUTSIDE: FuncId = FuncId::MAX;

// The size the comment of `Tracked` gives.
const _: () = assert!(std::mem::size_of::<Tracked<'static, 'static>>() == 16);

/// The ops the analysis tells apart.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// An op of the executor dialect (read through `ExecutorOp`).
    Executor(ExecutorKind),
    FuncFunc,
    FuncCall,
    FuncReturn,
    ScfFor,
    ScfWhile,
    /// `scf.if`, `scf.index_switch`, `scf.execute_region`: one of their
    /// regions runs, once.
    ScfAlternatives,
    /// `scf.yield`, `scf.condition`: they only pass values on.
    Forward,
    Select,
    Other,
}

/// The kind of an op, told by its name's interned identifier (a pointer
/// comparison, not a string one: the analysis asks for every op).
struct Kinds {
    by_name: FastMap<usize, Kind>,
}

impl Kinds {
    fn new(context: &Context) -> Self {
        // The names melior generates from each dialect's ODS definition.
        use melior::dialect::ods::{arith, func, scf};

        let executor_ops = ExecutorKind::ALL
            .iter()
            .map(|kind| (kind.name(), Kind::Executor(*kind)));
        let named = [
            (func::FuncOperation::name(), Kind::FuncFunc),
            (func::CallOperation::name(), Kind::FuncCall),
            (func::ReturnOperation::name(), Kind::FuncReturn),
            (scf::ForOperation::name(), Kind::ScfFor),
            (scf::WhileOperation::name(), Kind::ScfWhile),
            (scf::IfOperation::name(), Kind::ScfAlternatives),
            (scf::IndexSwitchOperation::name(), Kind::ScfAlternatives),
            (scf::ExecuteRegionOperation::name(), Kind::ScfAlternatives),
            (scf::YieldOperation::name(), Kind::Forward),
            (scf::ConditionOperation::name(), Kind::Forward),
            (arith::SelectOperation::name(), Kind::Select),
        ];
        Self {
            by_name: executor_ops
                .chain(named)
                .map(|(name, kind)| (identifier_key(Identifier::new(context, name)), kind))
                .collect(),
        }
    }

    fn of(&self, op: OperationRef<'_, '_>) -> Kind {
        self.by_name
            .get(&identifier_key(op.name()))
            .copied()
            .unwrap_or(Kind::Other)
    }
}

fn identifier_key(identifier: Identifier<'_>) -> usize {
    identifier.to_raw().ptr as usize
}

struct Function<'c, 'a> {
    body: Option<RegionRef<'c, 'a>>,
    /// The ids of its tracked ops (consecutive: ops are numbered in order).
    ops: std::ops::Range<OpId>,
    /// Its tracked ops' addresses with their ids, sorted: a lookup searches
    /// a function's few ops rather than a map of the module's, and reads no
    /// table by op on the way.
    ids_by_address: Vec<(usize, OpId)>,
    /// Which arguments are sessions or tokens.
    handle_params: Vec<bool>,
    callable_from_outside: bool,
    /// Ops whose results, block arguments or successors may carry handles,
    /// in pre-order: what the origin analysis visits.
    origin_ops: Vec<OperationRef<'c, 'a>>,
    returns: Vec<OperationRef<'c, 'a>>,
    /// The addresses its own `executor.open`s open.
    opens: BTreeSet<AddressId>,
    /// The functions it calls, once per call.
    calls: Vec<FuncId>,
}

/// Byte strings (addresses, paths) by small integer ids.
#[derive(Default)]
struct Interner {
    ids: FastMap<Vec<u8>, u32>,
}

impl Interner {
    fn id(&mut self, bytes: &[u8]) -> u32 {
        if let Some(id) = self.ids.get(bytes) {
            return *id;
        }
        let id = self.ids.len() as u32;
        self.ids.insert(bytes.to_vec(), id);
        id
    }
}

/// The key the runtime keeps a session under: the parsed address, so that
/// `local` and `local:` are one. An address the runtime rejects keeps its
/// spelling (its open fails, so it aliases nothing).
fn address_key(bytes: &[u8]) -> Vec<u8> {
    std::str::from_utf8(bytes)
        .ok()
        .and_then(executor_abi::address::Address::parse)
        .map_or_else(
            || bytes.to_vec(),
            |address| address.to_string().into_bytes(),
        )
}

impl<'c, 'a> Program<'c, 'a> {
    fn new(module: OperationRef<'c, 'a>, context: &'c Context) -> Self {
        let mut program = Self {
            session_type: dialect::session_type(context),
            token_type: dialect::token_type(context),
            kinds: Kinds::new(context),
            has_executor_ops: false,
            tracked: Chunked::default(),
            function_ids: FastMap::default(),
            functions: Chunked::default(),
            callees: FastMap::default(),
            open_addresses: FastMap::default(),
            busy: FastSet::default(),
        };
        let mut walk = Walk {
            addresses: Interner::default(),
            referenced: FastSet::default(),
            function_names: FastMap::default(),
            calls: Vec::new(),
            ancestors: Vec::new(),
        };
        program.visit(&mut walk, module, None, None);
        if !program.has_executor_ops {
            return program;
        }
        let mut called = vec![false; program.functions.len()];
        program.callees.reserve(walk.calls.len());
        for (call, table, name) in walk.calls {
            let Some(callee) = walk.function_names.get(&(table, name)).copied() else {
                continue;
            };
            if program.functions[callee as usize].body.is_none() {
                continue;
            }
            called[callee as usize] = true;
            program.callees.insert(call, callee);
            if let Some(caller) = program.function_of(call) {
                program.functions[caller as usize].calls.push(callee);
            }
        }
        for ((_, name), function) in &walk.function_names {
            let info = &mut program.functions[*function as usize];
            info.callable_from_outside |=
                walk.referenced.contains(*name) || !called[*function as usize];
        }
        program
    }

    fn is_handle(&self, value_type: Type<'c>) -> bool {
        value_type == self.session_type || value_type == self.token_type
    }

    fn track(&mut self, op: OperationRef<'c, 'a>, kind: Kind, function: Option<FuncId>) -> OpId {
        let id = self.tracked.len() as OpId;
        self.tracked.push(Tracked {
            op,
            function: function.unwrap_or(OUTSIDE),
            kind,
        });
        id
    }

    /// The function the tracked op `id` belongs to (None outside functions).
    fn function_of(&self, id: OpId) -> Option<FuncId> {
        let function = self.tracked.get(id as usize)?.function;
        (function != OUTSIDE).then_some(function)
    }

    /// The id of `op`, a tracked op of `function`.
    fn id_in(&self, function: FuncId, op: OperationRef<'_, '_>) -> Option<OpId> {
        let ids = &self.functions[function as usize].ids_by_address;
        ids.binary_search_by_key(&op_key(op), |(address, _)| *address)
            .ok()
            .map(|index| ids[index].1)
    }

    /// Visits `op` and everything nested in it, in pre-order. `table` is the
    /// innermost symbol table around it, `function` the function it is in.
    fn visit(
        &mut self,
        walk: &mut Walk<'c>,
        op: OperationRef<'c, 'a>,
        table: Option<usize>,
        function: Option<FuncId>,
    ) {
        let kind = self.kinds.of(op);
        ffi::non_call_symbol_references(op, |name| {
            if !walk.referenced.contains(name) {
                walk.referenced.insert(name.to_vec());
            }
        });
        let mut function = function;
        let mut uses_handles = false;
        let mut produces_handle = false;
        match kind {
            Kind::FuncFunc => {
                let id = self.functions.len() as FuncId;
                let body = op
                    .region(0)
                    .ok()
                    .filter(|body| body.first_block().is_some());
                let handle_params = body
                    .and_then(|body| body.first_block())
                    .map(|entry| {
                        (0..entry.argument_count())
                            .filter_map(|index| entry.argument(index).ok())
                            .map(|argument| self.is_handle(argument.r#type()))
                            .collect()
                    })
                    .unwrap_or_default();
                let public = op
                    .attribute("sym_visibility")
                    .ok()
                    .and_then(|visibility| StringAttribute::try_from(visibility).ok())
                    .is_none_or(|visibility| ir::string_bytes(visibility) == b"public");
                let first = self.tracked.len() as OpId;
                self.function_ids.insert(op_key(op), id);
                self.functions.push(Function {
                    body,
                    ops: first..first,
                    ids_by_address: Vec::new(),
                    handle_params,
                    callable_from_outside: public,
                    origin_ops: Vec::new(),
                    returns: Vec::new(),
                    opens: BTreeSet::new(),
                    calls: Vec::new(),
                });
                if let (Some(table), Some(symbol)) = (table, symbol_name(op)) {
                    walk.function_names.insert((table, symbol), id);
                }
                function = Some(id);
                walk.ancestors.clear();
            }
            Kind::FuncCall => {
                let id = self.track(op, kind, function);
                if let (Some(table), Some(callee)) = (
                    table,
                    op.attribute("callee").ok().and_then(ir::flat_symbol_bytes),
                ) {
                    walk.calls.push((id, table, callee));
                }
                uses_handles = true;
            }
            Kind::FuncReturn | Kind::ScfFor | Kind::ScfWhile => {
                self.track(op, kind, function);
                if kind == Kind::FuncReturn
                    && let Some(function) = function
                {
                    self.functions[function as usize].returns.push(op);
                }
            }
            Kind::Executor(executor_kind) => {
                self.has_executor_ops = true;
                uses_handles = true;
                let effect = executor_kind.session_effect();
                produces_handle = effect.produces_handle();
                let id = self.track(op, kind, function);
                if effect == SessionEffect::Opens
                    && let Some(address) = ffi::executor_path(op)
                {
                    let address = walk.addresses.id(&address_key(ir::string_bytes(address)));
                    self.open_addresses.insert(id, address);
                    if let Some(function) = function {
                        self.functions[function as usize].opens.insert(address);
                    }
                }
            }
            Kind::ScfAlternatives | Kind::Forward | Kind::Select | Kind::Other => {}
        }
        if let Some(function) = function
            && kind != Kind::FuncFunc
        {
            let makes_handles = match kind {
                // Of the executor ops, those whose effect says so.
                Kind::Executor(_) => produces_handle,
                _ => op.results().any(|result| self.is_handle(result.r#type())),
            };
            if makes_handles || op.successor_count() > 0 || op.region_count() > 0 {
                self.functions[function as usize].origin_ops.push(op);
            }
            // Only ops nested in another op of the function can make it busy.
            if !walk.ancestors.is_empty()
                && (uses_handles
                    || op
                        .operands()
                        .any(|operand| self.is_handle(operand.r#type())))
            {
                for ancestor in walk.ancestors.iter().rev() {
                    if !self.busy.insert(*ancestor) {
                        break;
                    }
                }
            }
        }

        if op.region_count() == 0 {
            return;
        }
        let table = if ffi::is_symbol_table(op) {
            Some(op_key(op))
        } else {
            table
        };
        let nested_in_function = function.is_some() && kind != Kind::FuncFunc;
        if nested_in_function {
            walk.ancestors.push(op_key(op));
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                let mut nested = current.first_operation();
                while let Some(inner) = nested {
                    self.visit(walk, inner, table, function);
                    nested = inner.next_in_block();
                }
                block = current.next_in_region();
            }
        }
        if nested_in_function {
            walk.ancestors.pop();
        }
        if kind == Kind::FuncFunc
            && let Some(function) = function
        {
            let end = self.tracked.len() as OpId;
            // Less those of functions nested in it, if any.
            let mut ids: Vec<(usize, OpId)> = (self.functions[function as usize].ops.start..end)
                .filter_map(|id| {
                    let tracked = &self.tracked[id as usize];
                    (tracked.function == function).then(|| (op_key(tracked.op), id))
                })
                .collect();
            ids.sort_unstable();
            let info = &mut self.functions[function as usize];
            info.ops.end = end;
            info.ids_by_address = ids;
        }
    }
}

/// What the walk that builds a [`Program`] collects on the way. The names
/// of functions and callees are borrowed from their attributes, which the
/// context owns: no copy per function and per call.
struct Walk<'c> {
    addresses: Interner,
    /// Names referenced other than as a `func.call`'s callee.
    referenced: FastSet<Vec<u8>>,
    /// Functions by symbol table and name.
    function_names: FastMap<(usize, &'c [u8]), FuncId>,
    /// Each `func.call` with its symbol table and callee name.
    calls: Vec<(OpId, usize, &'c [u8])>,
    /// The ops with regions around the op being visited, inside its function.
    ancestors: Vec<usize>,
}

fn symbol_name<'c>(op: OperationRef<'c, '_>) -> Option<&'c [u8]> {
    let name = StringAttribute::try_from(op.attribute("sym_name").ok()?).ok()?;
    Some(ir::string_bytes(name))
}

/// A calling context: what a function is analysed for.
#[derive(PartialEq, Eq)]
struct ContextKey {
    function: FuncId,
    /// The origin of each session or token argument (None for the others).
    params: Vec<Option<Origin>>,
    /// The part of the caller's state the function can reach.
    entry: State,
}

/// What a function does in one calling context.
struct ContextResult {
    /// The state after it returns, over every return; None when it never
    /// returns.
    exit: Option<State>,
    /// It closed a session of unknown origin, which may be any session of
    /// its callers: they must forget what they know of theirs.
    closes_unknown: bool,
}

/// The addresses a function may open, itself or through its callees: a set,
/// or any (through recursion, where the walk gives up).
#[derive(Clone)]
enum Reach {
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
struct Analyzer<'p, 'c, 'a> {
    program: &'p Program<'c, 'a>,
    /// The contexts of each function analysed so far, with their results: at
    /// most [`CONTEXT_LIMIT`] and the outside caller's, searched in turn.
    memo: Vec<Vec<(ContextKey, Rc<ContextResult>)>>,
    /// The origins of each function's values, by the origins of its
    /// arguments (as many as the distinct arguments its calls pass: a map).
    origin_memo: Vec<FastMap<Vec<Option<Origin>>, Rc<origins::OriginMap>>>,
    origins_in_progress: FastSet<(FuncId, Vec<Option<Origin>>)>,
    /// What each function may open, once asked ([`Analyzer::reach`]).
    reach: Vec<Option<Reach>>,
    /// Per function, what may still ask for its contexts, origins or reach:
    /// each call of it (one from outside every function for good) and, until
    /// its turn is over, the loop of [`analyze`] over the functions.
    users: Vec<u32>,
    contexts: Vec<u32>,
    on_stack: Vec<u32>,
    /// Functions called in a context the analysis did not analyse.
    unanalysed: FastSet<FuncId>,
    /// Merged over the contexts analysed so far.
    facts: FunctionFacts,
    paths: Interner,
}

impl<'p, 'c, 'a> Analyzer<'p, 'c, 'a> {
    fn new(program: &'p Program<'c, 'a>) -> Self {
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
    fn done_with(&mut self, function: FuncId) {
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
    fn memoized(&self, key: &ContextKey) -> Option<&Rc<ContextResult>> {
        self.memo[key.function as usize]
            .iter()
            .find(|(analysed, _)| analysed == key)
            .map(|(_, result)| result)
    }

    /// The addresses `function` and its callees may open.
    fn reach(&mut self, function: FuncId) -> Reach {
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
    fn finish(mut self) -> FunctionFacts {
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
