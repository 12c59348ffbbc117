//! Where an op's lowering puts what it needs: the allocation scope whose
//! entry block holds its stack slots and constants, and the symbol table
//! that holds its runtime declarations and globals.

use melior::ir::{BlockLike, BlockRef, OperationRef, RegionLike, operation::OperationLike};

use crate::{
    ffi,
    passes::{ir, module_symbols},
};

/// Ops that run their body concurrently or in a frame of its own, so that the
/// ops inside get their own prologue and never share a stack slot with code
/// running at the same time. (Not every `AutomaticAllocationScope`: `scf.for`
/// is one, and slots made in a loop body would grow the stack per iteration
/// once lowered.)
fn is_concurrent_scope(name: &str) -> bool {
    use melior::dialect::ods::{affine, r#async, memref, scf};
    // melior generates no OpenMP dialect: its ops are named here. Teams run
    // the region at once, as threads of a parallel region do.
    const OPENMP: [&str; 4] = ["omp.parallel", "omp.task", "omp.taskloop", "omp.teams"];
    [
        scf::ParallelOperation::name(),
        scf::ForallOperation::name(),
        affine::AffineParallelOperation::name(),
        r#async::ExecuteOperation::name(),
        memref::AllocaScopeOperation::name(),
    ]
    .contains(&name)
        || OPENMP.contains(&name)
}

/// The entry block of the allocation scope around `operation`: the region
/// holding it of the nearest enclosing op that is isolated from above (a
/// function, `omp.target`, ...), whose regions cannot use values from outside,
/// or of one of the ops [`is_concurrent_scope`] names.
pub(super) fn allocation_scope_entry<'c, 'a>(
    operation: OperationRef<'c, 'a>,
) -> Result<BlockRef<'c, 'a>, String> {
    let outside_function = || {
        format!(
            "{} must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots",
            ir::operation_name(operation)
        )
    };
    let mut inner = operation;
    while let Some(block) = inner.block() {
        let region = block.parent_region().ok_or_else(outside_function)?;
        let Some(candidate) = block.parent_operation() else {
            break;
        };
        if ffi::is_symbol_table(candidate) {
            return Err(outside_function());
        }
        if is_concurrent_scope(ir::operation_name(candidate))
            || ffi::is_isolated_from_above(candidate)
        {
            return region.first_block().ok_or_else(|| {
                format!(
                    "the enclosing {} has no body",
                    ir::operation_name(candidate)
                )
            });
        }
        inner = candidate;
    }
    Err(outside_function())
}

/// The innermost symbol table around `operation` (`builtin.module`,
/// `gpu.module`, ...), which gets the runtime declarations and globals the op
/// needs.
pub(super) fn enclosing_symbol_table<'c, 'a>(
    operation: OperationRef<'c, 'a>,
) -> Result<OperationRef<'c, 'a>, String> {
    let mut parent = operation.parent_operation();
    while let Some(candidate) = parent {
        if ffi::is_symbol_table(candidate) {
            return match module_symbols::table_body(candidate) {
                Some(_) => Ok(candidate),
                None => Err(format!(
                    "the enclosing {} has no body to hold the runtime declarations",
                    ir::operation_name(candidate)
                )),
            };
        }
        parent = candidate.parent_operation();
    }
    Err(format!(
        "{} is not inside a module (a symbol table) to hold the runtime declarations",
        ir::operation_name(operation)
    ))
}
