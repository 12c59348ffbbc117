//! `executor-optimize`: rewrites executor ops using the facts of the session
//! analysis (`session_analysis`). Each rule and the precondition under which
//! it fires are stated in td/ExecutorPasses.td; the functions below check
//! exactly those.
//!
//! A round analyses the module, decides every rewrite from that one analysis
//! (they compose: none changes what the runtime holds at an op that stays),
//! then applies them. Rounds repeat while ops are hoisted out of loops, since
//! an op hoisted out of an inner loop may then leave the outer one.

use std::collections::{BTreeMap, HashMap, HashSet};

use executor_abi::EntryConvention;
use melior::{
    Context,
    dialect::{
        arith::{self, CmpiPredicate},
        scf,
    },
    ir::{
        Block, BlockLike, BlockRef, OperationRef, Region, RegionLike, Type, Value, ValueLike,
        attribute::StringAttribute,
        operation::{OperationLike, OperationResult},
    },
};

use super::{
    executor_ops::{ExecutorKind, ExecutorOp},
    ir,
    session_analysis::{self, Fact, Kind, OpId, SessionFacts, session_status::OPEN},
};
use crate::{dialect::executor, ffi};

pub const ARGUMENT: &str = "executor-optimize";

/// Rounds after which the pass stops even if ops were hoisted: one per level
/// of loop nesting an op can leave, more than host code has.
const MAX_ROUNDS: usize = 8;

/// Runs the pass on `module`; false once errors have been reported.
pub fn run(module: OperationRef<'_, '_>, reuse_sessions: bool, entry_convention: u32) -> bool {
    ir::with_context(module, |context| {
        super::run_guarded(ARGUMENT, module, || {
            let convention =
                EntryConvention::from_discriminant(entry_convention).ok_or_else(|| {
                    ir::emit_error(
                        module.location(),
                        &format!(
                            "{ARGUMENT}: no entry convention has the value {entry_convention}"
                        ),
                    );
                })?;
            for _ in 0..MAX_ROUNDS {
                let facts = session_analysis::analyze(module);
                if !facts.has_executor_ops() {
                    break;
                }
                if reuse_sessions && keep_sessions_across_iterations(context, &facts) {
                    continue;
                }
                if !rewrite(context, module, &facts, convention) {
                    break;
                }
            }
            Ok::<(), ()>(())
        })
    })
}

/// The rewrites of one round, decided before any is applied.
#[derive(Default)]
struct Plan<'c, 'a> {
    /// Redundant sends, and opens replaced by an earlier one.
    erase: HashSet<OpId>,
    /// Opens and the earlier open whose session they give.
    reuse: Vec<(OpId, OpId)>,
    /// Ops to move right before a loop, in order.
    hoist: Vec<(OperationRef<'c, 'a>, OperationRef<'c, 'a>)>,
    /// launch_async + await pairs.
    make_synchronous: Vec<AwaitedAtOnce<'c, 'a>>,
}

/// One round of the default rules; returns whether an op was hoisted.
fn rewrite<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    facts: &SessionFacts<'c, 'a>,
    convention: EntryConvention,
) -> bool {
    let mut plan = Plan::default();
    if convention == EntryConvention::MlirCInterface {
        // Room for a pair per launch_async at once: the pairs of a large
        // module were copied each time the vector grew, an old copy freed
        // out of the cache each time.
        plan.make_synchronous
            .reserve_exact(facts.count(Kind::Executor(ExecutorKind::LaunchAsync)));
    }
    let dominance = ffi::Dominance::new(module);
    for (id, op, kind, fact) in facts.ops() {
        if let Some(send) = fact.and_then(Fact::send)
            && send.redundant
        {
            plan.erase.insert(id);
        }
        if let Some(open) = fact.and_then(Fact::open)
            && let Some(earlier) = open
                .same_session
                .ids()
                .iter()
                .find(|earlier| dominance.properly_dominates(facts.op(**earlier), op))
        {
            plan.erase.insert(id);
            plan.reuse.push((id, *earlier));
        }
        if convention == EntryConvention::MlirCInterface
            && kind == Kind::Executor(ExecutorKind::LaunchAsync)
            && let Some(ExecutorOp::LaunchAsync(launch)) = ExecutorOp::of(op)
            && let Some(pair) = awaited_at_once(&launch)
        {
            plan.make_synchronous.push(pair);
        }
    }
    drop(dominance);
    for (id, op, _, _) in facts.ops() {
        if let Some(back_edge) = facts.back_edge(id) {
            hoist_from_loop(facts, op, back_edge, &mut plan);
        }
    }

    // Apply. Replaced opens first: an open they are replaced by may be
    // hoisted, which keeps it dominating them.
    let mut replaced: HashMap<OpId, OpId> = HashMap::new();
    for (open, earlier) in &plan.reuse {
        let mut target = *earlier;
        while let Some(next) = replaced.get(&target) {
            target = *next;
        }
        replaced.insert(*open, target);
        if let (Ok(old), Ok(new)) = (facts.op(*open).result(0), facts.op(target).result(0)) {
            ir::replace_all_uses(old.into(), new.into());
        }
    }
    let mut launches = SynchronousLaunches::new(context);
    for pair in &plan.make_synchronous {
        launches.replace(pair);
    }
    for (op, loop_op) in &plan.hoist {
        ir::move_before(*op, *loop_op);
    }
    for id in &plan.erase {
        ir::erase(facts.op(*id));
    }
    !plan.hoist.is_empty()
}

/// A launch_async awaited at once, with what its synchronous launch needs.
struct AwaitedAtOnce<'c, 'a> {
    launch: OperationRef<'c, 'a>,
    wait: OperationRef<'c, 'a>,
    session: Value<'c, 'a>,
    object: StringAttribute<'c>,
    /// `K` of `_mlir_ciface_K`, in the launch's kernel attribute (which its
    /// context owns): a module launches few kernels many times, and a copy
    /// of the name per launch was a heap allocation each.
    kernel: &'c [u8],
}

/// Rule 4's precondition: `launch` runs `_mlir_ciface_K` and its token's
/// only use is an `executor.await` later in the same block with only ops
/// without memory effects between.
fn awaited_at_once<'c, 'a>(
    launch: &super::executor_ops::Borrowed<'c, 'a, executor::LaunchAsyncOperation<'c>>,
) -> Option<AwaitedAtOnce<'c, 'a>> {
    let op = launch.operation();
    let callee = ir::string_bytes(launch.kernel_callee().ok()?);
    let kernel = callee.strip_prefix(EntryConvention::MlirCInterface.prefix().as_bytes())?;
    if kernel.is_empty() {
        return None;
    }
    let token = op.result(0).ok()?;
    let [wait] = ir::users(token.into())[..] else {
        return None;
    };
    if !matches!(ExecutorOp::of(wait), Some(ExecutorOp::Await(_))) || wait.block() != op.block() {
        return None;
    }
    let mut between = op.next_in_block();
    while let Some(current) = between {
        if current == wait {
            return Some(AwaitedAtOnce {
                launch: op,
                wait,
                session: launch.anchor(launch.session().ok()?),
                object: launch.object().ok()?,
                kernel,
            });
        }
        if !ffi::is_memory_effect_free(current) {
            return None;
        }
        between = current.next_in_block();
    }
    None
}

/// Builds the `executor.launch`es that replace awaited-at-once
/// launch_asyncs, with the op's C++ builder (`ffi::create_launch_before`),
/// and each kernel name's attribute made once: a module launches few kernels
/// many times, and making one is a uniquing lookup in the context.
struct SynchronousLaunches<'c> {
    context: &'c Context,
    kernels: HashMap<&'c [u8], StringAttribute<'c>>,
}

impl<'c> SynchronousLaunches<'c> {
    fn new(context: &'c Context) -> Self {
        Self {
            context,
            kernels: HashMap::new(),
        }
    }

    /// Replaces `launch` (a launch_async of `_mlir_ciface_K`) and its `wait`
    /// by `executor.launch %s("K", object)()`, which runs the same symbol the
    /// same way, at the launch's place.
    fn replace(&mut self, launch: &AwaitedAtOnce<'c, '_>) {
        if launch.launch.block().is_none() {
            return;
        }
        let kernel = match self.kernels.get(launch.kernel) {
            Some(kernel) => *kernel,
            None => {
                let Ok(kernel) =
                    StringAttribute::try_from(ir::string_attribute(self.context, launch.kernel))
                else {
                    return;
                };
                self.kernels.insert(launch.kernel, kernel);
                kernel
            }
        };
        ffi::create_launch_before(launch.launch, launch.session, kernel, launch.object);
        ir::erase(launch.wait);
        ir::erase(launch.launch);
    }
}

/// Rule 3: the opens and sends at the start of `loop_op`'s body (of an
/// `scf.for` that runs at least once, or the `before` region of an
/// `scf.while`) that may move before it.
fn hoist_from_loop<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    loop_op: OperationRef<'c, 'a>,
    back_edge: &BTreeMap<OpId, u8>,
    plan: &mut Plan<'c, 'a>,
) {
    let runs_once_at_least = match ir::operation_name(loop_op) {
        "scf.for" => session_analysis::runs_at_least_once(loop_op) == Some(true),
        "scf.while" => true,
        _ => false,
    };
    // Region 0: the body of scf.for, the `before` region of scf.while.
    let Some(block) = loop_op
        .region(0)
        .ok()
        .and_then(|body| body.first_block())
        .filter(|_| runs_once_at_least)
    else {
        return;
    };
    // Stays open at the end of every iteration, in every context.
    let stays_open = |open: &OpId| back_edge.get(open) == Some(&OPEN);
    let mut hoisted: HashSet<OpId> = HashSet::new();
    let mut next = block.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if next.is_none() {
            break; // The terminator.
        }
        let id = facts.id(op);
        if id.is_some_and(|id| plan.erase.contains(&id)) || !ffi::may_use_sessions(op) {
            continue;
        }
        let (Some(id), Some(fact)) = (id, facts.fact(op)) else {
            break;
        };
        match ExecutorOp::of(op) {
            Some(ExecutorOp::Open(_)) if stays_open(&id) => {}
            Some(ExecutorOp::SendBinary(send)) => {
                let Ok(session) = send.session() else {
                    break;
                };
                let available = defined_outside(send.anchor(session), loop_op)
                    || defining_op(send.anchor(session))
                        .and_then(|definer| facts.id(definer))
                        .is_some_and(|definer| hoisted.contains(&definer));
                let opens = fact.session().and_then(|use_| use_.opens.candidates());
                if !available || !opens.is_some_and(|opens| opens.iter().all(stays_open)) {
                    break;
                }
            }
            _ => break,
        }
        hoisted.insert(id);
        plan.hoist.push((op, loop_op));
    }
}

/// The op that defines `value`, if it is an op's result.
fn defining_op<'c, 'a>(value: Value<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    OperationResult::try_from(value)
        .ok()
        .map(|result| result.owner())
}

/// Whether `value` is defined outside `loop_op` (not in its regions).
fn defined_outside(value: Value<'_, '_>, loop_op: OperationRef<'_, '_>) -> bool {
    let mut parent = ir::scope_of_value(value);
    while let Some(op) = parent {
        if op == loop_op {
            return false;
        }
        parent = op.parent_operation();
    }
    true
}

/// The `reuse-sessions` rewrite, on every `scf.for` it applies to; returns
/// whether it changed anything.
fn keep_sessions_across_iterations<'c>(context: &'c Context, facts: &SessionFacts<'c, '_>) -> bool {
    let mut changed = false;
    for (id, op, kind, _) in facts.ops() {
        if kind == Kind::ScfFor
            && facts.back_edge(id).is_some()
            && let Some(pattern) = session_per_iteration(facts, op)
        {
            keep_session(context, op, &pattern);
            changed = true;
        }
    }
    changed
}

/// An `scf.for` body that opens a session first, sends binaries on it, uses
/// it and closes it last.
struct SessionPerIteration<'c, 'a> {
    open: OperationRef<'c, 'a>,
    sends: Vec<OperationRef<'c, 'a>>,
    close: OperationRef<'c, 'a>,
}

/// The `reuse-sessions` precondition (td/ExecutorPasses.td) for `for_op`.
fn session_per_iteration<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    for_op: OperationRef<'c, 'a>,
) -> Option<SessionPerIteration<'c, 'a>> {
    if session_analysis::runs_at_least_once(for_op) == Some(false) {
        return None;
    }
    let block = for_op.region(0).ok()?.first_block()?;
    // The ops that touch sessions; the others commute with them.
    let session_ops: Vec<OperationRef> = {
        let mut ops = Vec::new();
        let mut next = block.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if next.is_some() && ffi::may_use_sessions(op) {
                ops.push(op);
            }
        }
        ops
    };
    let (&open, rest) = session_ops.split_first()?;
    let (&close, middle) = rest.split_last()?;
    if !matches!(ExecutorOp::of(open), Some(ExecutorOp::Open(_)))
        || !matches!(ExecutorOp::of(close), Some(ExecutorOp::Close(_)))
    {
        return None;
    }
    let session: Value = open.result(0).ok()?.into();
    if close.operand(0).ok()? != session {
        return None;
    }
    let sends: Vec<OperationRef> = middle
        .iter()
        .copied()
        .take_while(|op| {
            matches!(ExecutorOp::of(*op), Some(ExecutorOp::SendBinary(_)))
                && op.operand(0).is_ok_and(|operand| operand == session)
        })
        .collect();
    // Only executor ops use the session, as their session operand.
    let only_executor_users = ir::users(session).into_iter().all(|user| {
        ExecutorOp::of(user).is_some() && user.operand(0).is_ok_and(|operand| operand == session)
    });
    let open_id = facts.id(open)?;
    let close_fact = facts.fact(close)?;
    let closes_it_alone = close_fact
        .session()
        .is_some_and(|use_| use_.status == OPEN && use_.opens.candidates() == Some(&[open_id][..]));
    (only_executor_users && closes_it_alone && !close_fact.outstanding)
        .then_some(SessionPerIteration { open, sends, close })
}

/// Moves the open and sends of `pattern` before `for_op` and its close after
/// it; a loop that may run zero times goes into `scf.if lb < ub` first.
fn keep_session<'c>(
    context: &'c Context,
    for_op: OperationRef<'c, '_>,
    pattern: &SessionPerIteration<'c, '_>,
) {
    if session_analysis::runs_at_least_once(for_op) != Some(true) {
        guard_nonempty(context, for_op);
    }
    ir::move_before(pattern.open, for_op);
    for send in &pattern.sends {
        ir::move_before(*send, for_op);
    }
    ir::move_after(pattern.close, for_op);
}

/// Puts `for_op` into `scf.if %lb < %ub`, whose `else` yields the loop's
/// initial values (what a loop that does not run gives).
fn guard_nonempty<'c>(context: &'c Context, for_op: OperationRef<'c, '_>) {
    let (Some(block), Ok(lower), Ok(upper)) =
        (for_op.block(), for_op.operand(0), for_op.operand(1))
    else {
        return;
    };
    let location = for_op.location();
    let predicate = if for_op.has_attribute("unsignedCmp") {
        CmpiPredicate::Ult
    } else {
        CmpiPredicate::Slt
    };
    let runs = block.insert_operation_before(
        for_op,
        arith::cmpi(context, predicate, lower, upper, location),
    );
    let Ok(runs) = runs.result(0) else {
        return;
    };
    let result_types: Vec<Type> = for_op.results().map(|result| result.r#type()).collect();
    let initial: Vec<Value> = for_op.operands().skip(3).collect();
    let then_region = Region::new();
    then_region.append_block(Block::new(&[]));
    // Without results the `else` may be left empty.
    let else_region = Region::new();
    if !result_types.is_empty() {
        let else_block = Block::new(&[]);
        else_block.append_operation(scf::r#yield(&initial, location));
        else_region.append_block(else_block);
    }
    let guard = block.insert_operation_before(
        for_op,
        scf::r#if(
            runs.into(),
            &result_types,
            then_region,
            else_region,
            location,
        ),
    );
    for (old, new) in for_op.results().zip(guard.results()) {
        ir::replace_all_uses(old.into(), new.into());
    }
    let Some(then_block): Option<BlockRef> =
        guard.region(0).ok().and_then(|region| region.first_block())
    else {
        return;
    };
    ir::move_to_end(for_op, then_block);
    let results: Vec<Value> = for_op.results().map(Into::into).collect();
    then_block.append_operation(scf::r#yield(&results, location));
}
