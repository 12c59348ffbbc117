//! The module as the analysis sees it, built by one walk over it: the ops
//! the analysis tracks (numbered in the order of the module), the functions
//! with their calls and the addresses they open, and the ops with regions
//! it does not look inside.

use std::collections::BTreeSet;

use melior::{
    Context,
    ir::{
        BlockLike, Identifier, OperationRef, RegionLike, RegionRef, Type, ValueLike,
        attribute::StringAttribute, operation::OperationLike,
    },
};

use super::{
    FuncId,
    chunked::Chunked,
    fast_hash::{FastMap, FastSet},
    lattice::{AddressId, OpId},
    op_key,
};
use crate::{
    dialect, ffi,
    passes::{
        executor_ops::{ExecutorKind, SessionEffect},
        ir,
    },
};

/// The module as the analysis sees it: the tracked ops, the functions and
/// their calls, and the tables of addresses and paths.
pub(super) struct Program<'c, 'a> {
    pub(super) session_type: Type<'c>,
    pub(super) token_type: Type<'c>,
    pub(super) kinds: Kinds,
    pub(super) has_executor_ops: bool,
    /// The tracked ops, by id, in the order of the module.
    pub(super) tracked: Chunked<Tracked<'c, 'a>>,
    /// Functions by their `func.func`'s address.
    pub(super) function_ids: FastMap<usize, FuncId>,
    pub(super) functions: Chunked<Function<'c, 'a>>,
    /// The callee of each `func.call` with a body in the module, by call id.
    pub(super) callees: FastMap<OpId, FuncId>,
    /// The address of each `executor.open`, by its id.
    pub(super) open_addresses: FastMap<OpId, AddressId>,
    /// Ops with regions holding what the analysis must see but does not
    /// analyse inside such an op: an executor op, a call, a use of a handle.
    pub(super) busy: FastSet<usize>,
}

/// A tracked op, and what the analysis asks of it by its id: one record
/// (16 bytes), one push per op.
pub(super) struct Tracked<'c, 'a> {
    pub(super) op: OperationRef<'c, 'a>,
    /// The function it belongs to, or [`OUTSIDE`].
    pub(super) function: FuncId,
    pub(super) kind: Kind,
}

/// The function of a tracked op outside every function.
pub(super) const OUTSIDE: FuncId = FuncId::MAX;

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
pub(super) struct Kinds {
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

    pub(super) fn of(&self, op: OperationRef<'_, '_>) -> Kind {
        self.by_name
            .get(&identifier_key(op.name()))
            .copied()
            .unwrap_or(Kind::Other)
    }
}

fn identifier_key(identifier: Identifier<'_>) -> usize {
    identifier.to_raw().ptr as usize
}

pub(super) struct Function<'c, 'a> {
    pub(super) body: Option<RegionRef<'c, 'a>>,
    /// The ids of its tracked ops (consecutive: ops are numbered in order).
    pub(super) ops: std::ops::Range<OpId>,
    /// Its tracked ops' addresses with their ids, sorted: a lookup searches
    /// a function's few ops rather than a map of the module's, and reads no
    /// table by op on the way.
    ids_by_address: Vec<(usize, OpId)>,
    /// Which arguments are sessions or tokens.
    pub(super) handle_params: Vec<bool>,
    pub(super) callable_from_outside: bool,
    /// Ops whose results, block arguments or successors may carry handles,
    /// in pre-order: what the origin analysis visits.
    pub(super) origin_ops: Vec<OperationRef<'c, 'a>>,
    pub(super) returns: Vec<OperationRef<'c, 'a>>,
    /// The addresses its own `executor.open`s open.
    pub(super) opens: BTreeSet<AddressId>,
    /// The functions it calls, once per call.
    pub(super) calls: Vec<FuncId>,
}

/// Byte strings (addresses, paths) by small integer ids.
#[derive(Default)]
pub(super) struct Interner {
    ids: FastMap<Vec<u8>, u32>,
}

impl Interner {
    pub(super) fn id(&mut self, bytes: &[u8]) -> u32 {
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
    pub(super) fn new(module: OperationRef<'c, 'a>, context: &'c Context) -> Self {
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

    pub(super) fn is_handle(&self, value_type: Type<'c>) -> bool {
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
    pub(super) fn function_of(&self, id: OpId) -> Option<FuncId> {
        let function = self.tracked.get(id as usize)?.function;
        (function != OUTSIDE).then_some(function)
    }

    /// The id of `op`, a tracked op of `function`.
    pub(super) fn id_in(&self, function: FuncId, op: OperationRef<'_, '_>) -> Option<OpId> {
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
            Kind::FuncFunc => function = Some(self.enter_function(walk, op, table)),
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
                uses_handles = true;
                produces_handle = self.visit_executor(walk, op, executor_kind, function);
            }
            Kind::ScfAlternatives | Kind::Forward | Kind::Select | Kind::Other => {}
        }
        if let Some(function) = function
            && kind != Kind::FuncFunc
        {
            self.note_handles(walk, op, kind, function, uses_handles, produces_handle);
        }

        if op.region_count() == 0 {
            return;
        }
        self.visit_regions(walk, op, kind, table, function);
        if kind == Kind::FuncFunc
            && let Some(function) = function
        {
            self.leave_function(function);
        }
    }

    /// A `func.func`: a new function, whose ops are visited next. Returns
    /// its id.
    fn enter_function(
        &mut self,
        walk: &mut Walk<'c>,
        op: OperationRef<'c, 'a>,
        table: Option<usize>,
    ) -> FuncId {
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
        walk.ancestors.clear();
        id
    }

    /// An executor op: tracked, and the address of an open recorded.
    /// Returns whether its result is a session or a token.
    fn visit_executor(
        &mut self,
        walk: &mut Walk<'c>,
        op: OperationRef<'c, 'a>,
        kind: ExecutorKind,
        function: Option<FuncId>,
    ) -> bool {
        self.has_executor_ops = true;
        let effect = kind.session_effect();
        let id = self.track(op, Kind::Executor(kind), function);
        if effect == SessionEffect::Opens
            && let Some(address) = ffi::executor_path(op)
        {
            let address = walk.addresses.id(&address_key(ir::string_bytes(address)));
            self.open_addresses.insert(id, address);
            if let Some(function) = function {
                self.functions[function as usize].opens.insert(address);
            }
        }
        effect.produces_handle()
    }

    /// Records `op`, an op of `function`, among the ops the origin analysis
    /// visits when it may carry handles, and marks the ops with regions
    /// around it busy when it uses handles.
    fn note_handles(
        &mut self,
        walk: &Walk<'c>,
        op: OperationRef<'c, 'a>,
        kind: Kind,
        function: FuncId,
        uses_handles: bool,
        produces_handle: bool,
    ) {
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

    /// Visits the ops in the regions of `op`.
    fn visit_regions(
        &mut self,
        walk: &mut Walk<'c>,
        op: OperationRef<'c, 'a>,
        kind: Kind,
        table: Option<usize>,
        function: Option<FuncId>,
    ) {
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
    }

    /// The end of the function `function`: its ops are known, and sorted by
    /// address for [`Program::id_in`].
    fn leave_function(&mut self, function: FuncId) {
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
