//! `convert-executor-to-llvm`: rewrites every executor op into LLVM-dialect
//! calls to the executor runtime ABI (defined in `executor_abi`), and every
//! `!executor.session` / `!executor.token` into `i64`.
//!
//! MLIR's C API has no dialect-conversion framework, so the pass works in three
//! phases over the whole module: check every op (nothing is changed when one
//! cannot be lowered), retype every session and token value to `i64` in place
//! (block arguments, op results and function signatures alike, which is what
//! makes sessions cross `func.call`, `scf` and `cf` boundaries), then replace
//! each executor op by its calls, one lowering function per op below. Memref
//! operands become descriptors through `builtin.unrealized_conversion_cast`,
//! which `reconcile-unrealized-casts` folds against `finalize-memref-to-llvm`'s
//! casts whichever runs first.

use std::collections::HashMap;

use executor_abi::{
    EntryConvention, call_buffer, descriptor,
    functions::{self, RuntimeFunction},
    launch_site,
};
use melior::{
    Context,
    ir::{
        BlockLike, BlockRef, OperationRef, RegionLike, Type, Value, ValueLike,
        attribute::StringAttribute,
        operation::OperationLike,
        r#type::{MemRefType, ShapedTypeLike},
    },
};

use super::{
    control_flow,
    executor_ops::{Borrowed, ExecutorOp},
    handle_types::HandleTypes,
    ir::{self, ElementSizeError},
    llvm_builder::{self, Emitter, LlvmTypes, Prologue, PrologueKey, PrologueSite},
    module_symbols::{self, ModuleSymbols, SiteDescription, SiteDescriptors},
};
use crate::{dialect::executor, ffi};

pub const ARGUMENT: &str = "convert-executor-to-llvm";

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
// Phase 1: check that every executor op can be lowered
//===----------------------------------------------------------------------===//

fn check(op: &ExecutorOp<'_, '_>) -> Result<(), String> {
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

/// The number of bytes of a statically shaped memref, at most `i64::MAX`.
fn static_size_in_bytes(memref: Type<'_>) -> Result<i64, String> {
    let shape =
        static_shape(memref).ok_or_else(|| format!("the result {memref} needs a static shape"))?;
    let element_size = memref_element_size(memref);
    shape
        .iter()
        .try_fold(element_size, |product, extent| product.checked_mul(*extent))
        .ok_or_else(|| format!("{memref} takes more than 2^63 - 1 bytes"))
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

//===----------------------------------------------------------------------===//
// Phase 3: each executor op becomes runtime calls
//===----------------------------------------------------------------------===//

struct Lowering<'c, 'a> {
    context: &'c Context,
    convention: EntryConvention,
    types: LlvmTypes<'c>,
    /// The symbols of each symbol table that holds executor ops, by table op.
    symbol_tables: Vec<(OperationRef<'c, 'a>, ModuleSymbols<'c, 'a>)>,
    /// The index in `symbol_tables` of the op being lowered.
    current_symbols: usize,
    /// The LLVM struct type of a memref descriptor, per rank.
    descriptors: HashMap<usize, Type<'c>>,
    /// The `coro.begin` of each allocation scope's entry block, if any, by
    /// the block's address: looked for once per scope, not once per op.
    coroutine_begins: HashMap<usize, Option<OperationRef<'c, 'a>>>,
    /// The prologue of each allocation scope, by its site (one per scope;
    /// two in a coroutine, [`PrologueSite`]).
    prologues: HashMap<PrologueKey, Prologue<'c, 'a>>,
    /// Stack slots of launches, shared by the launches of one prologue with
    /// the same descriptor types (a launch only uses them during its call).
    launch_frames: HashMap<(PrologueKey, Vec<Type<'c>>, Vec<Type<'c>>), LaunchFrame<'c, 'a>>,
    /// The two result slots of calls (`out_buf`, `out_size`), per prologue.
    call_frames: HashMap<PrologueKey, (Value<'c, 'a>, Value<'c, 'a>)>,
}

/// How a launch passes what its op fixes.
enum FixedArguments<'c, 'a> {
    /// In its launch site, at this address (`LAUNCH_AT_SITE`).
    Site(Value<'c, 'a>),
    /// As arguments (`LAUNCH`): the entry's and object's strings here, the
    /// counts and arrays made at the call.
    Strings {
        entry: Value<'c, 'a>,
        object: Value<'c, 'a>,
    },
}

/// The stack slots of a launch: one descriptor per input and per result, and
/// an array of pointers to each group (null for an empty group).
#[derive(Clone)]
struct LaunchFrame<'c, 'a> {
    input_slots: Vec<Value<'c, 'a>>,
    output_slots: Vec<Value<'c, 'a>>,
    input_array: Value<'c, 'a>,
    output_array: Value<'c, 'a>,
}

/// What a generated accessor reports for IR the verifier accepted is a bug of
/// this pass; it becomes an error at the op.
fn generated<T>(result: Result<T, melior::Error>) -> Result<T, String> {
    result.map_err(|error| format!("{ARGUMENT}: {error}"))
}

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

    //===------------------------------------------------------------------===//
    // executor.open -> __catalyst__executor__open
    //===------------------------------------------------------------------===//

    fn lower_open(
        &mut self,
        at: &Emitter<'c, 'a>,
        open: &Borrowed<'c, 'a, executor::OpenOperation<'c>>,
    ) -> Result<Value<'c, 'a>, String> {
        let address = self.string_of(at, generated(open.address())?);
        self.call_with_result(at, &functions::OPEN, &[address])
    }

    //===------------------------------------------------------------------===//
    // executor.send_binary -> __catalyst__executor__send_binary
    //===------------------------------------------------------------------===//

    fn lower_send_binary(
        &mut self,
        at: &Emitter<'c, 'a>,
        send: &Borrowed<'c, 'a, executor::SendBinaryOperation<'c>>,
    ) -> Result<(), String> {
        let session = send.anchor(generated(send.session())?);
        let path = self.string_of(at, generated(send.binary_path())?);
        // The attribute has a default value, so the accessor fails only when
        // it was never set: then the format is that default, 0.
        let format = send.format().map_or(0, |format| format.value());
        let format = self.constant(at, self.types.i32, format);
        self.call(at, &functions::SEND_BINARY, &[session, path, format])?;
        Ok(())
    }

    //===------------------------------------------------------------------===//
    // executor.launch -> __executor__launch_at_site (__catalyst__executor__launch
    //                   under Catalyst's entry convention)
    //===------------------------------------------------------------------===//

    /// Each input's descriptor is stored into its slot, the runtime gets the
    /// arrays of pointers to the input and result slots, and the results are
    /// read back from their filled slots. What else a launch passes (entry,
    /// object, counts, and constant arrays of ranks and element sizes) is
    /// fixed by the op: under the default entry convention it sits in the
    /// launch site (`executor_abi::launch_site`) that the launches of a
    /// kernel, object and signature share, and the call to `LAUNCH_AT_SITE`
    /// passes only the site, the session and the two arrays, so that every
    /// argument travels in a register; the site's cache lets the runtime call
    /// the resolved entry directly from the second launch on. Code lowered
    /// for Catalyst's convention calls Catalyst's `LAUNCH`, which Catalyst's
    /// runtime has too, with every argument.
    fn lower_launch(
        &mut self,
        at: &Emitter<'c, 'a>,
        launch: &Borrowed<'c, 'a, executor::LaunchOperation<'c>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = launch.anchor(generated(launch.session())?);
        let callee = ir::string_bytes(generated(launch.kernel_callee())?);
        let object = ir::string_bytes(generated(launch.object())?);

        let inputs: Vec<Value> = launch.inputs().map(|input| launch.anchor(input)).collect();
        let input_types: Vec<Type> = inputs.iter().map(|value| value.r#type()).collect();
        let result_types: Vec<Type> = launch.results().map(|result| result.r#type()).collect();
        let description = SiteDescription {
            entry_symbol: self.convention.entry_symbol(callee),
            object: object.to_vec(),
            inputs: site_descriptors(&input_types),
            outputs: site_descriptors(&result_types),
            output_sizes: result_types
                .iter()
                .filter_map(|result| dim_sizes(*result))
                .flatten()
                .map(|size| size.unwrap_or(launch_site::DYNAMIC_SIZE))
                .collect(),
        };
        // The addresses first, so that the prologue lists them before the frame.
        let fixed = match self.convention {
            EntryConvention::MlirCInterface => {
                let site = self.symbols().launch_site(callee, &description);
                FixedArguments::Site(self.prologue(at).address_of(&site))
            }
            EntryConvention::CatalystPyface => FixedArguments::Strings {
                entry: self.string(at, &description.entry_symbol),
                object: self.string(at, object),
            },
        };
        let frame = self.launch_frame(at, &input_types, &result_types);
        for ((input, input_type), slot) in inputs.iter().zip(&input_types).zip(&frame.input_slots) {
            let descriptor = at.cast(*input, self.descriptor_type(*input_type));
            at.store(descriptor, *slot);
        }
        match fixed {
            FixedArguments::Site(site) => {
                let operands = [site, session, frame.input_array, frame.output_array];
                self.call(at, &functions::LAUNCH_AT_SITE, &operands)?;
            }
            FixedArguments::Strings { entry, object } => {
                let mut operands = vec![session, entry, object];
                for (descriptors, array) in [
                    (&description.inputs, frame.input_array),
                    (&description.outputs, frame.output_array),
                ] {
                    operands.extend([
                        self.constant(at, self.types.i64, descriptors.ranks.len() as i64),
                        array,
                        self.i64_array(at, &descriptors.ranks),
                        self.i64_array(at, &descriptors.elem_sizes),
                    ]);
                }
                self.call(at, &functions::LAUNCH, &operands)?;
            }
        }

        Ok(result_types
            .iter()
            .zip(&frame.output_slots)
            .map(|(result_type, slot)| {
                let descriptor = at.load(*slot, self.descriptor_type(*result_type));
                at.cast(descriptor, *result_type)
            })
            .collect())
    }

    /// The slots of launches with these input and result types in the scope of `at`.
    fn launch_frame(
        &mut self,
        at: &Emitter<'c, 'a>,
        input_types: &[Type<'c>],
        result_types: &[Type<'c>],
    ) -> LaunchFrame<'c, 'a> {
        let inputs: Vec<Type> = input_types
            .iter()
            .map(|t| self.descriptor_type(*t))
            .collect();
        let outputs: Vec<Type> = result_types
            .iter()
            .map(|t| self.descriptor_type(*t))
            .collect();
        let key = (at.prologue.key(), inputs, outputs);
        if let Some(frame) = self.launch_frames.get(&key) {
            return frame.clone();
        }
        let prologue = self.prologue(at);
        let mut slots_and_array = |descriptors: &[Type<'c>]| {
            let slots: Vec<Value> = descriptors
                .iter()
                .map(|descriptor| prologue.alloca(*descriptor))
                .collect();
            let array = if slots.is_empty() {
                prologue.null()
            } else {
                prologue.pointer_array(&slots)
            };
            (slots, array)
        };
        let (input_slots, input_array) = slots_and_array(&key.1);
        let (output_slots, output_array) = slots_and_array(&key.2);
        let frame = LaunchFrame {
            input_slots,
            output_slots,
            input_array,
            output_array,
        };
        self.launch_frames.insert(key, frame.clone());
        frame
    }

    //===------------------------------------------------------------------===//
    // executor.launch_async -> __catalyst__executor__launch_async
    //===------------------------------------------------------------------===//

    fn lower_launch_async(
        &mut self,
        at: &Emitter<'c, 'a>,
        launch: &Borrowed<'c, 'a, executor::LaunchAsyncOperation<'c>>,
    ) -> Result<Value<'c, 'a>, String> {
        let session = launch.anchor(generated(launch.session())?);
        let callee = ir::string_bytes(generated(launch.kernel_callee())?);
        let entry = self.string(at, &self.convention.async_entry_symbol(callee));
        let object = self.string_of(at, generated(launch.object())?);
        self.call_with_result(at, &functions::LAUNCH_ASYNC, &[session, entry, object])
    }

    //===------------------------------------------------------------------===//
    // executor.await -> __catalyst__executor__await
    //===------------------------------------------------------------------===//

    fn lower_await(
        &mut self,
        at: &Emitter<'c, 'a>,
        wait: &Borrowed<'c, 'a, executor::AwaitOperation<'c>>,
    ) -> Result<(), String> {
        let token = wait.anchor(generated(wait.token())?);
        self.call(at, &functions::AWAIT, &[token])?;
        Ok(())
    }

    //===------------------------------------------------------------------===//
    // executor.call -> __catalyst__executor__call_wrapper and
    //                  __catalyst__executor__free_result
    //===------------------------------------------------------------------===//

    /// Every buffer operand is packed into one heap buffer, the runtime
    /// returns the filled output buffers packed the same way, and their data
    /// is copied into the output operands. The layout is this project's
    /// (`executor_abi::call_buffer::GRAMMAR`), or Catalyst's under Catalyst's
    /// entry convention when the call has only statically shaped operands
    /// and no results, as Catalyst's lowering emits it.
    fn lower_call(
        &mut self,
        at: &Emitter<'c, 'a>,
        call: &Borrowed<'c, 'a, executor::CallOperation<'c>>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = call.anchor(generated(call.session())?);
        let symbol = self.string_of(at, generated(call.symbol())?);
        let buffers: Vec<Value> = call.inputs().map(|buffer| call.anchor(buffer)).collect();
        let num_inputs = num_call_inputs(call);
        if self.convention == EntryConvention::CatalystPyface
            && call.results().next().is_none()
            && let Some(sizes) = static_sizes_in_bytes(&buffers)
        {
            let call_site = CallSite {
                session,
                symbol,
                buffers,
                num_inputs,
            };
            self.lower_call_in_catalyst_layout(at, &call_site, &sizes)?;
            return Ok(vec![]);
        }

        let mut packed: Vec<PackedBuffer> = buffers
            .iter()
            .map(|buffer| {
                let descriptor = at.cast(*buffer, self.descriptor_type(buffer.r#type()));
                self.packed_buffer(at, descriptor, buffer.r#type())
            })
            .collect();
        let mut results = Vec::new();
        for result in call.results() {
            let (buffer, descriptor) = self.allocate_static(at, result.r#type())?;
            packed.push(self.packed_buffer(at, descriptor, result.r#type()));
            results.push(buffer);
        }

        let header = self.constant(at, self.types.i64, call_buffer::ARGS_RECORDS as i64);
        let total = packed
            .iter()
            .fold(header, |sum, buffer| at.add(sum, buffer.record_size));
        let args = self.call_with_result(at, &functions::MALLOC, &[total])?;
        let magic = self.constant(at, self.types.i64, call_buffer::MAGIC as i64);
        at.store(magic, self.offset(at, args, call_buffer::ARGS_MAGIC));
        let count = self.constant(at, self.types.i64, packed.len() as i64);
        at.store(count, self.offset(at, args, call_buffer::ARGS_NUM_BUFFERS));
        let inputs = self.constant(at, self.types.i64, num_inputs as i64);
        at.store(inputs, self.offset(at, args, call_buffer::ARGS_NUM_INPUTS));
        let mut cursor = self.offset(at, args, call_buffer::ARGS_RECORDS);
        for buffer in &packed {
            cursor = self.pack_record(at, cursor, buffer);
        }

        // The flag in args_size tells the runtime the layout is this one.
        let flag = self.constant(at, self.types.i64, call_buffer::THIS_LAYOUT as i64);
        let args_size = at.or(total, flag);
        let out = self.call_and_free(at, session, symbol, args, args_size)?;
        let mut cursor = self.offset(at, out, call_buffer::OUT_RECORDS);
        for buffer in &packed[num_inputs..] {
            let data = at.gep_bytes(cursor, buffer.header_size);
            at.memcpy(buffer.data, data, buffer.data_size);
            cursor = at.gep_bytes(cursor, buffer.record_size);
        }
        self.call(at, &functions::FREE_RESULT, &[out])?;
        Ok(results)
    }

    /// Catalyst's layout (`executor_abi::call_buffer::CATALYST_GRAMMAR`): the
    /// inputs' bytes one after the other, `args_size` their total; the
    /// outputs' bytes come back one after the other. `sizes` holds each
    /// buffer's static size in bytes.
    fn lower_call_in_catalyst_layout(
        &mut self,
        at: &Emitter<'c, 'a>,
        call: &CallSite<'c, 'a>,
        sizes: &[i64],
    ) -> Result<(), String> {
        let i64_type = self.types.i64;
        let data: Vec<Value> = call
            .buffers
            .iter()
            .map(|buffer| {
                let descriptor = at.cast(*buffer, self.descriptor_type(buffer.r#type()));
                self.buffer_data(at, descriptor, buffer.r#type())
            })
            .collect();
        let (inputs, outputs) = data.split_at(call.num_inputs);
        let (input_sizes, output_sizes) = sizes.split_at(call.num_inputs);
        let input_total: i64 = input_sizes.iter().sum();
        // malloc(0) may return null; a one-byte buffer keeps the pointer valid.
        let allocation = self.constant(at, i64_type, input_total.max(1));
        let args = self.call_with_result(at, &functions::MALLOC, &[allocation])?;
        let mut offset = 0;
        for (input, size) in inputs.iter().zip(input_sizes) {
            let destination = self.offset(at, args, offset as u64);
            let bytes = self.constant(at, i64_type, *size);
            at.memcpy(destination, *input, bytes);
            offset += size;
        }
        let args_size = self.constant(at, i64_type, input_total);
        let out = self.call_and_free(at, call.session, call.symbol, args, args_size)?;
        let mut offset = 0;
        for (output, size) in outputs.iter().zip(output_sizes) {
            let source = self.offset(at, out, offset as u64);
            let bytes = self.constant(at, i64_type, *size);
            at.memcpy(*output, source, bytes);
            offset += size;
        }
        self.call(at, &functions::FREE_RESULT, &[out])?;
        Ok(())
    }

    /// Calls `call_wrapper` with `args` (then freed); returns `out_buf`.
    fn call_and_free(
        &mut self,
        at: &Emitter<'c, 'a>,
        session: Value<'c, 'a>,
        symbol: Value<'c, 'a>,
        args: Value<'c, 'a>,
        args_size: Value<'c, 'a>,
    ) -> Result<Value<'c, 'a>, String> {
        let (out_buffer_slot, out_size_slot) = self.call_frame(at);
        self.call(
            at,
            &functions::CALL_WRAPPER,
            &[
                session,
                symbol,
                args,
                args_size,
                out_buffer_slot,
                out_size_slot,
            ],
        )?;
        self.call(at, &functions::FREE, &[args])?;
        Ok(at.load(out_buffer_slot, self.types.ptr))
    }

    /// Sizes and addresses of one buffer operand, read from its descriptor.
    fn packed_buffer(
        &mut self,
        at: &Emitter<'c, 'a>,
        descriptor: Value<'c, 'a>,
        memref: Type<'c>,
    ) -> PackedBuffer<'c, 'a> {
        let i64_type = self.types.i64;
        let rank = memref_rank(memref);
        let element_size = memref_element_size(memref);
        let sizes: Vec<Value> = (0..rank)
            .map(|dim| {
                at.extract(
                    descriptor,
                    &[descriptor::SIZES as i64, dim as i64],
                    i64_type,
                )
            })
            .collect();
        let element_count = sizes
            .iter()
            .fold(self.constant(at, i64_type, 1), |product, size| {
                at.mul(product, *size)
            });
        let data_size = at.mul(element_count, self.constant(at, i64_type, element_size));
        // Padded to a record boundary: (size + alignment - 1) & -alignment.
        let alignment = call_buffer::ALIGNMENT as i64;
        let padded = at.add(data_size, self.constant(at, i64_type, alignment - 1));
        let padded = at.and(padded, self.constant(at, i64_type, -alignment));
        let header_size = self.constant(at, i64_type, call_buffer::record_data(rank as u64) as i64);
        let record_size = at.add(header_size, padded);
        PackedBuffer {
            rank,
            element_size,
            sizes,
            data: self.buffer_data(at, descriptor, memref),
            data_size,
            header_size,
            record_size,
        }
    }

    /// The address of the first element of the memref behind `descriptor`.
    fn buffer_data(
        &mut self,
        at: &Emitter<'c, 'a>,
        descriptor: Value<'c, 'a>,
        memref: Type<'c>,
    ) -> Value<'c, 'a> {
        let (i64_type, ptr) = (self.types.i64, self.types.ptr);
        let element_size = self.constant(at, i64_type, memref_element_size(memref));
        let aligned = at.extract(descriptor, &[descriptor::ALIGNED as i64], ptr);
        let offset = at.extract(descriptor, &[descriptor::OFFSET as i64], i64_type);
        let offset_bytes = at.mul(offset, element_size);
        at.gep_bytes(aligned, offset_bytes)
    }

    /// Writes one record at `cursor`; returns the address right after it.
    fn pack_record(
        &mut self,
        at: &Emitter<'c, 'a>,
        cursor: Value<'c, 'a>,
        buffer: &PackedBuffer<'c, 'a>,
    ) -> Value<'c, 'a> {
        let rank = self.constant(at, self.types.i64, buffer.rank as i64);
        at.store(rank, self.offset(at, cursor, call_buffer::RECORD_RANK));
        let element_size = self.constant(at, self.types.i64, buffer.element_size);
        at.store(
            element_size,
            self.offset(at, cursor, call_buffer::RECORD_ELEMENT_SIZE),
        );
        for (dim, size) in buffer.sizes.iter().enumerate() {
            at.store(
                *size,
                self.offset(at, cursor, call_buffer::record_size(dim as u64)),
            );
        }
        let data = at.gep_bytes(cursor, buffer.header_size);
        at.memcpy(data, buffer.data, buffer.data_size);
        at.gep_bytes(cursor, buffer.record_size)
    }

    /// A heap buffer for a statically shaped memref result, and its descriptor.
    fn allocate_static(
        &mut self,
        at: &Emitter<'c, 'a>,
        memref: Type<'c>,
    ) -> Result<(Value<'c, 'a>, Value<'c, 'a>), String> {
        let shape = static_shape(memref)
            .ok_or_else(|| format!("the result {memref} needs a static shape"))?;
        let bytes = static_size_in_bytes(memref)?;
        let size = self.constant(at, self.types.i64, bytes);
        let pointer = self.call_with_result(at, &functions::MALLOC, &[size])?;
        let descriptor_type = self.descriptor_type(memref);
        let mut descriptor = at.undef(descriptor_type);
        let zero = self.constant(at, self.types.i64, 0);
        descriptor = at.insert(descriptor, pointer, &[descriptor::ALLOCATED as i64]);
        descriptor = at.insert(descriptor, pointer, &[descriptor::ALIGNED as i64]);
        descriptor = at.insert(descriptor, zero, &[descriptor::OFFSET as i64]);
        // Row-major strides; their product is bounded by the checked size.
        let mut stride = 1;
        for (dim, extent) in shape.iter().enumerate().rev() {
            let size = self.constant(at, self.types.i64, *extent);
            descriptor = at.insert(descriptor, size, &[descriptor::SIZES as i64, dim as i64]);
            let stride_value = self.constant(at, self.types.i64, stride);
            descriptor = at.insert(
                descriptor,
                stride_value,
                &[descriptor::STRIDES as i64, dim as i64],
            );
            stride *= extent;
        }
        Ok((at.cast(descriptor, memref), descriptor))
    }

    //===------------------------------------------------------------------===//
    // executor.close -> __catalyst__executor__close
    //===------------------------------------------------------------------===//

    fn lower_close(
        &mut self,
        at: &Emitter<'c, 'a>,
        close: &Borrowed<'c, 'a, executor::CloseOperation<'c>>,
    ) -> Result<(), String> {
        let session = close.anchor(generated(close.session())?);
        self.call(at, &functions::CLOSE, &[session])?;
        Ok(())
    }

    //===------------------------------------------------------------------===//
    // Helpers shared by the lowerings
    //===------------------------------------------------------------------===//

    /// `base + bytes`; `base` itself for a field at offset 0.
    fn offset(&mut self, at: &Emitter<'c, 'a>, base: Value<'c, 'a>, bytes: u64) -> Value<'c, 'a> {
        if bytes == 0 {
            return base;
        }
        at.gep_bytes(base, self.constant(at, self.types.i64, bytes as i64))
    }

    /// The LLVM struct of MLIR's strided memref descriptor of `memref`'s rank.
    fn descriptor_type(&mut self, memref: Type<'c>) -> Type<'c> {
        let rank = memref_rank(memref);
        let (context, types) = (self.context, self.types);
        *self
            .descriptors
            .entry(rank)
            .or_insert_with(|| types.descriptor(context, rank))
    }

    /// The slots `call_wrapper` writes its result buffer and size to, in the
    /// scope of `at`.
    fn call_frame(&mut self, at: &Emitter<'c, 'a>) -> (Value<'c, 'a>, Value<'c, 'a>) {
        let key = at.prologue.key();
        if let Some(frame) = self.call_frames.get(&key) {
            return *frame;
        }
        let (ptr, i64_type) = (self.types.ptr, self.types.i64);
        let prologue = self.prologue(at);
        let frame = (prologue.alloca(ptr), prologue.alloca(i64_type));
        self.call_frames.insert(key, frame);
        frame
    }

    /// The prologue of the allocation scope of `at` that `at` uses.
    fn prologue(&mut self, at: &Emitter<'c, 'a>) -> &mut Prologue<'c, 'a> {
        let (context, types) = (self.context, self.types);
        self.prologues.entry(at.prologue.key()).or_insert_with(|| {
            let scope = at
                .prologue
                .block()
                .parent_operation()
                .expect("an allocation scope's block has an op");
            Prologue::new(context, types, scope, at.prologue)
        })
    }

    fn constant(
        &mut self,
        at: &Emitter<'c, 'a>,
        value_type: Type<'c>,
        value: i64,
    ) -> Value<'c, 'a> {
        self.prologue(at).constant(value_type, value)
    }

    /// Makes the symbol table around `operation` the current one, creating
    /// its symbols on first use.
    fn enter_symbol_table(&mut self, operation: OperationRef<'c, 'a>) -> Result<(), String> {
        let table = enclosing_symbol_table(operation)?;
        self.current_symbols = match self
            .symbol_tables
            .iter()
            .position(|(known, _)| *known == table)
        {
            Some(index) => index,
            None => {
                let body = module_symbols::table_body(table)
                    .expect("checked: the symbol table has a body");
                self.symbol_tables.push((
                    table,
                    ModuleSymbols::new(self.context, self.types, table, body),
                ));
                self.symbol_tables.len() - 1
            }
        };
        Ok(())
    }

    /// The symbols of the table the op being lowered belongs to.
    fn symbols(&mut self) -> &mut ModuleSymbols<'c, 'a> {
        &mut self.symbol_tables[self.current_symbols].1
    }

    fn i64_array(&mut self, at: &Emitter<'c, 'a>, values: &[i64]) -> Value<'c, 'a> {
        if values.is_empty() {
            return self.prologue(at).null();
        }
        let name = self.symbols().i64_array(values);
        self.prologue(at).address_of(&name)
    }

    /// The address of a NUL-terminated global holding `text`.
    fn string(&mut self, at: &Emitter<'c, 'a>, text: &[u8]) -> Value<'c, 'a> {
        let name = self.symbols().string(text);
        self.prologue(at).address_of(&name)
    }

    fn string_of(&mut self, at: &Emitter<'c, 'a>, attribute: StringAttribute<'c>) -> Value<'c, 'a> {
        self.string(at, ir::string_bytes(attribute))
    }

    /// Calls `function`, declaring it first in the current symbol table.
    fn call(
        &mut self,
        at: &Emitter<'c, 'a>,
        function: &'static RuntimeFunction,
        operands: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, String> {
        self.symbols().declare(function)?;
        let result = function.result_type().map(|result| self.types.of(result));
        Ok(at.call(function.name, operands, result))
    }

    fn call_with_result(
        &mut self,
        at: &Emitter<'c, 'a>,
        function: &'static RuntimeFunction,
        operands: &[Value<'c, 'a>],
    ) -> Result<Value<'c, 'a>, String> {
        Ok(self
            .call(at, function, operands)?
            .expect("the runtime function has a result"))
    }
}

/// One buffer of an `executor.call` as it is packed: values computed from its
/// descriptor before the call.
struct PackedBuffer<'c, 'a> {
    rank: usize,
    element_size: i64,
    sizes: Vec<Value<'c, 'a>>,
    /// The address of its first element.
    data: Value<'c, 'a>,
    /// `element_size * product(sizes)`.
    data_size: Value<'c, 'a>,
    /// `call_buffer::record_data(rank)`: rank, element size and sizes.
    header_size: Value<'c, 'a>,
    /// The header and the data padded to `call_buffer::ALIGNMENT`.
    record_size: Value<'c, 'a>,
}

/// The operands of an `executor.call` being lowered.
struct CallSite<'c, 'a> {
    session: Value<'c, 'a>,
    symbol: Value<'c, 'a>,
    buffers: Vec<Value<'c, 'a>>,
    num_inputs: usize,
}

/// The size in bytes of each buffer, when all are statically shaped and the
/// sizes add up within an `i64`.
fn static_sizes_in_bytes(buffers: &[Value<'_, '_>]) -> Option<Vec<i64>> {
    let sizes: Vec<i64> = buffers
        .iter()
        .map(|buffer| static_size_in_bytes(buffer.r#type()).ok())
        .collect::<Option<_>>()?;
    sizes
        .iter()
        .try_fold(0i64, |total, size| total.checked_add(*size))?;
    Some(sizes)
}

/// How many of the call's buffer operands are inputs (`num_input_args`,
/// all of them without it).
fn num_call_inputs(call: &Borrowed<'_, '_, executor::CallOperation<'_>>) -> usize {
    let operands = call.inputs().count();
    call.num_input_args()
        .map_or(operands, |count| count.value() as usize)
}

/// The ranks and element sizes of memrefs of `types`, as a launch passes them.
fn site_descriptors(types: &[Type<'_>]) -> SiteDescriptors {
    SiteDescriptors {
        ranks: types.iter().map(|t| memref_rank(*t) as i64).collect(),
        elem_sizes: types.iter().map(|t| memref_element_size(*t)).collect(),
    }
}

fn memref_rank(memref: Type<'_>) -> usize {
    MemRefType::try_from(memref).map_or(0, |memref| memref.rank())
}

/// The dimensions of a statically shaped memref.
fn static_shape(memref: Type<'_>) -> Option<Vec<i64>> {
    dim_sizes(memref)?.into_iter().collect()
}

/// The size of each dimension of a ranked memref, `None` where it is dynamic.
fn dim_sizes(memref: Type<'_>) -> Option<Vec<Option<i64>>> {
    let memref = MemRefType::try_from(memref).ok()?;
    Some(
        (0..memref.rank())
            .map(|dim| match memref.dim_size(dim).ok()? {
                melior::ir::r#type::DimSize::Static(extent) => i64::try_from(extent).ok(),
                melior::ir::r#type::DimSize::Dynamic => None,
            })
            .collect(),
    )
}

/// The element size of a memref the check phase accepted (at most `i64::MAX`).
fn memref_element_size(memref: Type<'_>) -> i64 {
    let size =
        ir::element_size_in_bytes(ir::element_type(memref)).expect("checked before lowering");
    size as i64
}

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
fn allocation_scope_entry<'c, 'a>(
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
fn enclosing_symbol_table<'c, 'a>(
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
