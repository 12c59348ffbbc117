//! Phase 1 of the pass: what must hold of each executor op before anything
//! is changed. Every op is checked first, so that a module with an op that
//! cannot be lowered is left as it is, with a diagnostic at each such op.

use melior::ir::{OperationRef, Type, ValueLike, operation::OperationLike, r#type::MemRefType};

use super::{
    calls::num_call_inputs,
    memrefs::{dim_sizes, static_size_in_bytes},
    scopes::{allocation_scope_entry, enclosing_symbol_table},
};
use crate::{
    dialect::executor,
    passes::{
        control_flow,
        executor_ops::{Borrowed, ExecutorOp},
        ir::{self, ElementSizeError},
    },
};

pub(super) fn check(op: &ExecutorOp<'_, '_>) -> Result<(), String> {
    let operation = op.operation();
    allocation_scope_entry(operation)?;
    enclosing_symbol_table(operation)?;
    match op {
        ExecutorOp::Launch(launch) => {
            let values = launch.inputs().map(|value| value.r#type());
            let results = launch.results().map(|value| value.r#type());
            for (index, memref) in values.chain(results).enumerate() {
                check_memref(memref).map_err(|problem| {
                    format!("cannot lower value #{index} of executor.launch: {problem}")
                })?;
            }
            for result in launch.results() {
                check_dense_result(result.r#type()).map_err(|problem| {
                    format!(
                        "cannot lower result #{} of executor.launch: {problem}",
                        result.result_number()
                    )
                })?;
            }
            Ok(())
        }
        ExecutorOp::Call(call) => check_call(call),
        ExecutorOp::Await(_) => check_await(operation),
        _ => Ok(()),
    }
}

fn check_call(call: &Borrowed<'_, '_, executor::CallOperation<'_>>) -> Result<(), String> {
    let has_outputs = num_call_inputs(call) < call.inputs().count();
    let values = call.inputs().map(|value| value.r#type());
    let results = call.results().map(|value| value.r#type());
    for (index, value_type) in values.chain(results).enumerate() {
        if MemRefType::try_from(value_type).is_err() {
            return Err(format!(
                "executor.call on {value_type} must be bufferized before convert-executor-to-llvm (one-shot-bufferize)"
            ));
        }
        let problem =
            |problem: String| format!("cannot lower value #{index} of executor.call: {problem}");
        check_memref(value_type).map_err(problem)?;
        if !ir::has_identity_layout(value_type) {
            return Err(problem(format!(
                "{value_type} is not densely packed (identity layout); copy it into one first (memref.copy)"
            )));
        }
    }
    if !has_outputs {
        // The lowering allocates these results itself.
        for result in call.results() {
            static_size_in_bytes(result.r#type()).map_err(|problem| {
                format!(
                    "cannot lower result #{} of executor.call: {problem}",
                    result.result_number()
                )
            })?;
        }
    }
    Ok(())
}

fn check_memref(memref: Type<'_>) -> Result<(), String> {
    let memref =
        MemRefType::try_from(memref).map_err(|_| format!("{memref} is not a ranked memref"))?;
    let memref_type: Type = memref.into();
    let element = ir::element_type(memref_type);
    match ir::element_size_in_bytes(element) {
        Ok(_) => {}
        Err(ElementSizeError::Unsized) => {
            return Err(format!(
                "the element type {element} of {memref_type} has no known size in memory"
            ));
        }
        Err(ElementSizeError::TooLarge) => {
            return Err(format!(
                "the element type {element} of {memref_type} takes more than 2^63 - 1 bytes"
            ));
        }
    }
    if !ir::is_default_memory_space(ir::memref_memory_space(memref_type)) {
        return Err(format!("{memref_type} is not in the default memory space"));
    }
    Ok(())
}

/// A launch's result may come back as a dense copy (offset 0, row-major
/// strides): from an executor-server always, on `local` when the kernel
/// returns a buffer it does not hand over. The host code reads it with the
/// offset and strides its type fixes, so those must hold for a dense copy:
/// the identity layout, or a strided one whose static offset is 0 and whose
/// static strides are the row-major ones.
fn check_dense_result(memref: Type<'_>) -> Result<(), String> {
    if ir::has_identity_layout(memref) {
        return Ok(());
    }
    let fits_dense = ir::strides_and_offset(memref).is_some_and(|(strides, offset)| {
        let Some(shape) = dim_sizes(memref) else {
            return false;
        };
        // The row-major stride of each dimension, where the sizes after it
        // are all static.
        let mut dense_stride = Some(1i64);
        let mut dense = vec![None; shape.len()];
        for dim in (0..shape.len()).rev() {
            dense[dim] = dense_stride;
            dense_stride = dense_stride
                .zip(shape[dim])
                .and_then(|(a, b)| a.checked_mul(b));
        }
        offset.is_none_or(|offset| offset == 0)
            && strides
                .iter()
                .zip(&dense)
                .all(|(stride, dense)| stride.is_none() || stride == dense)
    });
    if fits_dense {
        return Ok(());
    }
    Err(format!(
        "the runtime may return it as a dense copy (offset 0, row-major strides), which the static layout of {memref} does not describe; give the result an identity layout or leave what differs dynamic (strided<[...], offset: ?>)"
    ))
}

/// A token is awaited once; after `executor.await` nothing may use it.
fn check_await(operation: OperationRef<'_, '_>) -> Result<(), String> {
    let token = operation.operand(0).map_err(|error| error.to_string())?;
    for user in ir::users(token) {
        if user == operation {
            continue;
        }
        if matches!(ExecutorOp::of(user), Some(ExecutorOp::Await(_))) {
            return Err("this token is awaited more than once; each executor.launch_async is awaited exactly once".to_owned());
        }
        if control_flow::may_run_after(operation, user) {
            return Err(format!(
                "the token is used by {} after this executor.await",
                ir::operation_name(user)
            ));
        }
    }
    Ok(())
}
