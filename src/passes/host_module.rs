//! What the dispatch passes (`executor-dispatch`, `dispatch-executor-targets`)
//! read of a host module: its top-level ops, its functions, their blocks and
//! returns.

use melior::{
    dialect::ods::func,
    ir::{
        BlockLike, BlockRef, Operation, OperationRef, RegionLike, Type, Value,
        attribute::TypeAttribute, operation::OperationLike,
    },
};

use super::ir;
use crate::ffi;

/// The ops of `block`, in order.
pub fn block_operations<'c, 'a>(block: BlockRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut operations = Vec::new();
    let mut next = block.first_operation();
    while let Some(operation) = next {
        operations.push(operation);
        next = operation.next_in_block();
    }
    operations
}

pub fn is_function(operation: OperationRef<'_, '_>) -> bool {
    ir::operation_name(operation) == func::FuncOperation::name()
}

/// The ops a dispatch pass puts at the start of a function, in the order
/// they are appended.
pub struct Prologue<'c, 'a> {
    entry: BlockRef<'c, 'a>,
    last: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> Prologue<'c, 'a> {
    /// The start of the block `entry`, before any op.
    pub fn of(entry: BlockRef<'c, 'a>) -> Self {
        Self { entry, last: None }
    }

    /// Inserts `operation` after the ops appended so far (at the very start
    /// for the first); returns it.
    pub fn append(&mut self, operation: Operation<'c>) -> OperationRef<'c, 'a> {
        let inserted = match self.last {
            Some(previous) => self.entry.insert_operation_after(previous, operation),
            None => self.entry.insert_operation(0, operation),
        };
        self.last = Some(inserted);
        inserted
    }
}

/// The entry block of a function with a body.
pub fn entry_block<'c, 'a>(function: OperationRef<'c, 'a>) -> Option<BlockRef<'c, 'a>> {
    function.region(0).ok()?.first_block()
}

pub fn is_public(function: OperationRef<'_, '_>) -> bool {
    function
        .attribute("sym_visibility")
        .ok()
        .and_then(|visibility| melior::ir::attribute::StringAttribute::try_from(visibility).ok())
        .is_none_or(|visibility| ir::string_bytes(visibility) == b"public")
}

pub fn function_type<'c>(function: OperationRef<'c, '_>) -> Option<Type<'c>> {
    let attribute = function.attribute("function_type").ok()?;
    TypeAttribute::try_from(attribute)
        .ok()
        .map(|attribute| attribute.value())
}

/// The `func.return`s of a function: the terminators of its body's blocks.
pub fn returns<'c, 'a>(function: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut returns = Vec::new();
    let mut block = entry_block(function);
    while let Some(current) = block {
        if let Some(terminator) = current.terminator()
            && ir::operation_name(terminator) == func::ReturnOperation::name()
        {
            returns.push(terminator);
        }
        block = current.next_in_region();
    }
    returns
}

/// The closest ancestor of `operation` that is isolated from above.
pub fn nearest_isolated_ancestor<'c, 'a>(
    operation: OperationRef<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut ancestor = operation.parent_operation();
    while let Some(current) = ancestor {
        if ffi::is_isolated_from_above(current) {
            return Some(current);
        }
        ancestor = current.parent_operation();
    }
    None
}

pub fn first_result<'c, 'a>(operation: OperationRef<'c, 'a>) -> Value<'c, 'a> {
    operation
        .result(0)
        .expect("executor.open and executor.launch_async have one result")
        .into()
}

pub fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
