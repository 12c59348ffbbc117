//! `convert-executor-to-llvm`: rewrites every executor op into LLVM-dialect
//! calls to the executor runtime ABI (defined in `executor_abi`), and every
//! `!executor.session` / `!executor.token` into `i64`.
//!
//! MLIR's C API has no dialect-conversion framework, so the pass works in three
//! phases over the whole module: check every op (nothing is changed when one
//! cannot be lowered), retype every session and token value to `i64` in place
//! (block arguments, op results and function signatures alike, which is what
//! makes sessions cross `func.call`, `scf` and `cf` boundaries), then replace
//! each executor op by its calls. Memref operands become descriptors through
//! `builtin.unrealized_conversion_cast`, which `reconcile-unrealized-casts`
//! folds against `finalize-memref-to-llvm`'s casts whichever runs first.
//!
//! This module holds the pass and the driver that walks the ops; the phases
//! and the lowerings, one function per op under a banner naming the runtime
//! call it becomes, are in:
//!
//! - [`lowering`]: the state the lowerings share, on which they are methods.
//! - [`checks`]: what must hold of an op before anything is changed.
//! - [`sessions`]: `executor.open`, `executor.send_binary`, `executor.close`.
//! - [`launches`]: `executor.launch`, `executor.launch_async`, `executor.await`.
//! - [`calls`]: `executor.call` and the packing of its buffers.
//! - [`emit`]: runtime calls, constants and globals, shared by the lowerings.
//! - [`scopes`]: the allocation scope and symbol table around an op.
//! - [`memrefs`]: ranks, shapes and sizes of memref types.

mod calls;
mod checks;
mod emit;
mod launches;
mod lowering;
mod memrefs;
mod scopes;
mod sessions;

use std::collections::HashMap;

use executor_abi::EntryConvention;
use melior::{
    Context,
    ir::{OperationRef, operation::OperationLike},
};

pub use self::lowering::ARGUMENT;
use self::{checks::check, lowering::Lowering, scopes::allocation_scope_entry};
use super::{
    executor_ops::ExecutorOp,
    handle_types::HandleTypes,
    ir,
    llvm_builder::{self, Emitter, LlvmTypes, PrologueSite},
};

/// Runs the pass on `module` with the entry convention whose discriminant is
/// `entry_convention`; false once errors have been reported.
pub fn run(module: OperationRef<'_, '_>, entry_convention: u32) -> bool {
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
                    Failed
                })?;
            lower_module(context, module, convention)
        })
    })
}

/// Diagnostics were emitted at the ops that could not be lowered.
pub struct Failed;

fn lower_module<'c>(
    context: &'c Context,
    module: OperationRef<'c, '_>,
    convention: EntryConvention,
) -> Result<(), Failed> {
    let executor_ops: Vec<ExecutorOp> = ir::collect_operations(module, |_| true)
        .into_iter()
        .filter_map(ExecutorOp::of)
        .collect();
    let mut handles = HandleTypes::new(context);
    let mut errors = handles.unsupported(module);
    for op in &executor_ops {
        if let Err(message) = check(op) {
            errors.push((op.operation().location(), message));
        }
    }
    if !errors.is_empty() {
        for (location, message) in errors {
            ir::emit_error(location, &message);
        }
        return Err(Failed);
    }

    handles.retype(module);

    let mut lowering = Lowering {
        context,
        convention,
        types: LlvmTypes::new(context),
        symbol_tables: Vec::new(),
        current_symbols: 0,
        descriptors: HashMap::new(),
        coroutine_begins: HashMap::new(),
        prologues: HashMap::new(),
        launch_frames: HashMap::new(),
        call_frames: HashMap::new(),
    };
    for op in executor_ops {
        let operation = op.operation();
        if let Err(message) = lowering.lower(op) {
            ir::emit_error(operation.location(), &message);
            return Err(Failed);
        }
    }
    Ok(())
}

//===----------------------------------------------------------------------===//
// Phase 3: each executor op becomes runtime calls
//===----------------------------------------------------------------------===//

impl<'c, 'a> Lowering<'c, 'a> {
    /// Replaces `op` by its runtime calls.
    fn lower(&mut self, op: ExecutorOp<'c, 'a>) -> Result<(), String> {
        let operation = op.operation();
        let scope = allocation_scope_entry(operation)?;
        let begin = *self
            .coroutine_begins
            .entry(scope.to_raw().ptr as usize)
            .or_insert_with(|| llvm_builder::coroutine_begin(scope));
        let at = Emitter::before(
            self.context,
            self.types,
            operation,
            PrologueSite::of(scope, begin, operation),
        );
        self.enter_symbol_table(operation)?;
        let results = match op {
            ExecutorOp::Open(open) => vec![self.lower_open(&at, &open)?],
            ExecutorOp::SendBinary(send) => self.lower_send_binary(&at, &send).map(|()| vec![])?,
            ExecutorOp::Launch(launch) => self.lower_launch(&at, &launch)?,
            ExecutorOp::LaunchAsync(launch) => vec![self.lower_launch_async(&at, &launch)?],
            ExecutorOp::Await(wait) => self.lower_await(&at, &wait).map(|()| vec![])?,
            ExecutorOp::Call(call) => self.lower_call(&at, &call)?,
            ExecutorOp::Close(close) => self.lower_close(&at, &close).map(|()| vec![])?,
        };
        for (old, new) in operation.results().zip(results) {
            ir::replace_all_uses(old.into(), new);
        }
        ir::erase(operation);
        Ok(())
    }
}
