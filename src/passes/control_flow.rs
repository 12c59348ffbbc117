//! Questions about the order in which operations run, answered from the IR's
//! structure (nesting and block successors), without a dominance analysis,
//! which MLIR's C API does not offer.

use std::collections::HashSet;

use melior::ir::{BlockLike, BlockRef, OperationRef, RegionRef, operation::OperationLike};

/// Whether `later` may run after `earlier` has run: it follows it in a block,
/// or sits in a block reachable from `earlier`'s, at the innermost region
/// that holds both. Conservative for loops: a use in a block that loops back
/// counts as after.
pub fn may_run_after(earlier: OperationRef<'_, '_>, later: OperationRef<'_, '_>) -> bool {
    let mut anchor = earlier;
    loop {
        let Some(block) = anchor.block() else {
            return false;
        };
        let region = block.parent_region();
        if let Some(region) = region
            && let Some(other) = ancestor_in_region(later, region)
        {
            let other_block = other
                .block()
                .expect("an op found in a region sits in a block");
            return (other_block == block && anchor.is_before_in_block(other))
                || successors_reach(block, other_block);
        }
        match block.parent_operation() {
            Some(parent) => anchor = parent,
            None => return false,
        }
    }
}

/// `operation` or the ancestor of it whose block belongs to `region`.
fn ancestor_in_region<'c, 'a>(
    operation: OperationRef<'c, 'a>,
    region: RegionRef<'c, 'a>,
) -> Option<OperationRef<'c, 'a>> {
    let mut current = operation;
    loop {
        if current.block()?.parent_region()? == region {
            return Some(current);
        }
        current = current.parent_operation()?;
    }
}

/// Whether `to` can be reached from `from` by following one or more successor edges.
fn successors_reach(from: BlockRef<'_, '_>, to: BlockRef<'_, '_>) -> bool {
    let mut pending = vec![from];
    let mut seen = HashSet::new();
    while let Some(block) = pending.pop() {
        for index in 0..block.successor_count() {
            let Ok(successor) = block.successor(index) else {
                continue;
            };
            if successor == to {
                return true;
            }
            if seen.insert(successor.to_raw().ptr) {
                pending.push(successor);
            }
        }
    }
    false
}
