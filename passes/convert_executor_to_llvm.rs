//! `convert-executor-to-llvm`: rewrites every executor op into LLVM-dialect
//! calls to the executor runtime ABI (`passes/runtime_abi.rs`), and every
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

use std::collections::HashMap;

use melior::{
    Context,
    ir::{
        BlockLike, BlockRef, OperationRef, RegionLike, Type, Value, ValueLike,
        attribute::{IntegerAttribute, StringAttribute},
        operation::OperationLike,
        r#type::MemRefType,
    },
};

use crate::ffi::parse_type;

use super::{
    control_flow,
    handle_types::HandleTypes,
    ir,
    llvm_builder::{Emitter, LlvmTypes, Prologue},
    module_symbols::ModuleSymbols,
    runtime_abi::{self, RuntimeFunction},
};

pub const ARGUMENT: &str = "convert-executor-to-llvm";

/// Which symbol `executor.launch` runs for a kernel (the pass option
/// `entry-convention`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryConvention {
    /// `_mlir_ciface_<callee>(results..., inputs...)`, made by `llvm.emit_c_interface`.
    MlirCInterface,
    /// Catalyst's `_catalyst_pyface_<callee>(results*, args*)`.
    CatalystPyface,
}

impl EntryConvention {
    fn parse(option: &str) -> Option<Self> {
        match option {
            "mlir-ciface" => Some(Self::MlirCInterface),
            "catalyst-pyface" => Some(Self::CatalystPyface),
            _ => None,
        }
    }

    fn entry_symbol(self, callee: &str) -> String {
        let prefix = match self {
            Self::MlirCInterface => runtime_abi::MLIR_CIFACE_PREFIX,
            Self::CatalystPyface => runtime_abi::CATALYST_PYFACE_PREFIX,
        };
        format!("{prefix}{callee}")
    }
}

/// Runs the pass on `module`; false once errors have been reported.
pub fn run(module: OperationRef<'_, '_>, entry_convention: &str) -> bool {
    ir::with_context(module, |context| {
        super::run_guarded(ARGUMENT, module, || {
            let convention = EntryConvention::parse(entry_convention).ok_or_else(|| {
                ir::emit_error(
                    module.location(),
                    &format!("{ARGUMENT}: unknown entry-convention '{entry_convention}'; expected 'mlir-ciface' or 'catalyst-pyface'"),
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
    let types = LlvmTypes::new(context);

    let executor_ops = ir::collect_operations(module, |operation| {
        operation
            .name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|name| name.starts_with("executor."))
    });
    let mut errors = 0;
    for operation in &executor_ops {
        if let Err(message) = check(*operation) {
            ir::emit_error(operation.location(), &message);
            errors += 1;
        }
    }
    if errors > 0 {
        return Err(Failed);
    }

    HandleTypes::new(context).retype(module);

    let mut lowering = Lowering {
        context,
        convention,
        types,
        symbol_tables: Vec::new(),
        current_symbols: 0,
        descriptors: HashMap::new(),
        prologues: HashMap::new(),
        launch_frames: HashMap::new(),
        call_frames: HashMap::new(),
    };
    for operation in executor_ops {
        if let Err(message) = lowering.lower(operation) {
            ir::emit_error(operation.location(), &message);
            return Err(Failed);
        }
    }
    Ok(())
}

//===----------------------------------------------------------------------===//
// Phase 1: check that every executor op can be lowered
//===----------------------------------------------------------------------===//

fn check(operation: OperationRef<'_, '_>) -> Result<(), String> {
    allocation_scope_entry(operation)?;
    match op_name(operation) {
        "executor.launch" => {
            let values = operation.operands().skip(1).map(|value| value.r#type());
            let results = operation.results().map(|value| value.r#type());
            for (index, memref) in values.chain(results).enumerate() {
                check_memref(memref).map_err(|problem| {
                    format!("cannot lower value #{index} of executor.launch: {problem}")
                })?;
            }
            Ok(())
        }
        "executor.call" => {
            let values = operation.operands().skip(1).map(|value| value.r#type());
            let results = operation.results().map(|value| value.r#type());
            for (index, value_type) in values.chain(results).enumerate() {
                if MemRefType::try_from(value_type).is_err() {
                    return Err(format!(
                        "executor.call on {value_type} must be bufferized before convert-executor-to-llvm (one-shot-bufferize)"
                    ));
                }
                check_memref(value_type).map_err(|problem| {
                    format!("cannot lower value #{index} of executor.call: {problem}")
                })?;
                if !ir::has_identity_layout(value_type) {
                    return Err(format!(
                        "cannot lower value #{index} of executor.call: {value_type} is not densely packed (identity layout); copy it into one first (memref.copy)"
                    ));
                }
            }
            Ok(())
        }
        "executor.await" => check_await(operation),
        _ => Ok(()),
    }
}

fn check_memref(memref: Type<'_>) -> Result<(), String> {
    let memref =
        MemRefType::try_from(memref).map_err(|_| format!("{memref} is not a ranked memref"))?;
    let memref_type: Type = memref.into();
    let element = ir::element_type(memref_type);
    if ir::element_size_in_bytes(element).is_none() {
        return Err(format!(
            "the element type {element} of {memref_type} has no known size in memory"
        ));
    }
    if !ir::is_default_memory_space(ir::memref_memory_space(memref_type)) {
        return Err(format!("{memref_type} is not in the default memory space"));
    }
    Ok(())
}

/// A token is awaited once; after `executor.await` nothing may use it.
fn check_await(operation: OperationRef<'_, '_>) -> Result<(), String> {
    let token = operation.operand(0).map_err(|error| error.to_string())?;
    for user in ir::users(token) {
        if user == operation {
            continue;
        }
        if op_name(user) == "executor.await" {
            return Err("this token is awaited more than once; each executor.launch_async is awaited exactly once".to_owned());
        }
        if control_flow::may_run_after(operation, user) {
            return Err(format!(
                "the token is used by {} after this executor.await",
                op_name(user)
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
    /// The symbol table of each module that holds executor ops, by module.
    symbol_tables: Vec<(OperationRef<'c, 'a>, ModuleSymbols<'c, 'a>)>,
    /// The index in `symbol_tables` of the op being lowered.
    current_symbols: usize,
    /// The LLVM struct type of a memref descriptor, per rank.
    descriptors: HashMap<usize, Type<'c>>,
    /// The prologue of each allocation scope, by its entry block.
    prologues: HashMap<BlockKey, Prologue<'c, 'a>>,
    /// Stack slots of launches, shared by the launches of one scope with the
    /// same descriptor types (a launch only uses them during its call).
    launch_frames: HashMap<(BlockKey, Vec<Type<'c>>, Vec<Type<'c>>), LaunchFrame<'c, 'a>>,
    /// The two result slots of calls (`out_buf`, `out_size`), per scope.
    call_frames: HashMap<BlockKey, (Value<'c, 'a>, Value<'c, 'a>)>,
}

/// Identifies a block (its address) for the lifetime of the pass run.
type BlockKey = usize;

fn block_key(block: BlockRef<'_, '_>) -> BlockKey {
    block.to_raw().ptr as BlockKey
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

impl<'c, 'a> Lowering<'c, 'a> {
    fn lower(&mut self, operation: OperationRef<'c, 'a>) -> Result<(), String> {
        let at = Emitter::before(self.context, operation, allocation_scope_entry(operation)?);
        self.enter_module(operation);
        let name = op_name(operation);
        let results: Vec<Value<'c, 'a>> = match name {
            "executor.open" => {
                let address = self.string_attribute(&at, operation, "address")?;
                vec![
                    self.call(&at, &runtime_abi::OPEN, &[address])?
                        .expect("open returns a session"),
                ]
            }
            "executor.send_binary" => {
                let session = operation.operand(0).map_err(|e| e.to_string())?;
                let path = self.string_attribute(&at, operation, "binary_path")?;
                let format = operation
                    .attribute("format")
                    .ok()
                    .and_then(|attribute| IntegerAttribute::try_from(attribute).ok())
                    .map_or(0, |attribute| attribute.value());
                let format = self.constant(&at, self.types.i32, format);
                self.call(&at, &runtime_abi::SEND_BINARY, &[session, path, format])?;
                vec![]
            }
            "executor.launch" => self.lower_launch(&at, operation)?,
            "executor.call" => self.lower_call(&at, operation)?,
            "executor.launch_async" => {
                let session = operation.operand(0).map_err(|e| e.to_string())?;
                let callee = self.attribute_text(operation, "kernel_callee")?;
                let entry = self.string(&at, &callee);
                let object = self.string_attribute(&at, operation, "object")?;
                vec![
                    self.call(&at, &runtime_abi::LAUNCH_ASYNC, &[session, entry, object])?
                        .expect("launch_async returns a token"),
                ]
            }
            "executor.await" => {
                let token = operation.operand(0).map_err(|e| e.to_string())?;
                self.call(&at, &runtime_abi::AWAIT, &[token])?;
                vec![]
            }
            "executor.close" => {
                let session = operation.operand(0).map_err(|e| e.to_string())?;
                self.call(&at, &runtime_abi::CLOSE, &[session])?;
                vec![]
            }
            other => return Err(format!("no lowering for {other}")),
        };
        for (old, new) in operation.results().zip(results) {
            ir::replace_all_uses(old.into(), new);
        }
        ir::erase(operation);
        Ok(())
    }

    /// `executor.launch`: each input's descriptor is stored into its slot, the
    /// runtime gets the arrays of pointers to the input and result slots and
    /// constant arrays of ranks and element sizes, and the results are read
    /// back from their filled slots.
    fn lower_launch(
        &mut self,
        at: &Emitter<'c, 'a>,
        operation: OperationRef<'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = operation.operand(0).map_err(|e| e.to_string())?;
        let callee = self.attribute_text(operation, "kernel_callee")?;
        let entry_symbol = self.string(at, &self.convention.entry_symbol(&callee));
        let object = self.string_attribute(at, operation, "object")?;

        let inputs: Vec<Value> = operation.operands().skip(1).collect();
        let input_types: Vec<Type> = inputs.iter().map(|value| value.r#type()).collect();
        let result_types: Vec<Type> = operation.results().map(|result| result.r#type()).collect();
        let frame = self.launch_frame(at, &input_types, &result_types);

        for ((input, input_type), slot) in inputs.iter().zip(&input_types).zip(&frame.input_slots) {
            let descriptor = at.cast(*input, self.descriptor_type(*input_type));
            at.store(descriptor, *slot);
        }
        let mut operands = vec![session, entry_symbol, object];
        for (types, array) in [
            (&input_types, frame.input_array),
            (&result_types, frame.output_array),
        ] {
            operands.push(self.constant(at, self.types.i64, types.len() as i64));
            operands.push(array);
            let ranks: Vec<i64> = types.iter().map(|t| memref_rank(*t) as i64).collect();
            let sizes: Vec<i64> = types
                .iter()
                .map(|t| memref_element_size(*t) as i64)
                .collect();
            operands.push(self.i64_array(at, &ranks));
            operands.push(self.i64_array(at, &sizes));
        }
        self.call(at, &runtime_abi::LAUNCH, &operands)?;

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
        let key = (block_key(at.scope), inputs, outputs);
        if let Some(frame) = self.launch_frames.get(&key) {
            return frame.clone();
        }
        let context = self.context;
        let prologue = self.prologue(at);
        let mut slots_and_array = |descriptors: &[Type<'c>]| {
            let slots: Vec<Value> = descriptors
                .iter()
                .map(|descriptor| prologue.alloca(*descriptor))
                .collect();
            let array = if slots.is_empty() {
                prologue.null()
            } else {
                let array_type =
                    parse_type(context, &format!("!llvm.array<{} x ptr>", slots.len()))
                        .expect("an array type parses");
                prologue.pointer_array(array_type, &slots)
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

    /// `executor.call`: every buffer operand is packed into one heap buffer
    /// (docs/runtime-abi.md, "call_wrapper buffers"), the runtime returns the
    /// filled output buffers packed the same way, and their data is copied into
    /// the output operands. Static memref results without output operands are
    /// allocated here with `malloc` and filled like output operands.
    fn lower_call(
        &mut self,
        at: &Emitter<'c, 'a>,
        operation: OperationRef<'c, 'a>,
    ) -> Result<Vec<Value<'c, 'a>>, String> {
        let session = operation.operand(0).map_err(|e| e.to_string())?;
        let symbol = self.string_attribute(at, operation, "symbol")?;
        let buffers: Vec<Value> = operation.operands().skip(1).collect();
        let num_inputs = operation
            .attribute("num_input_args")
            .ok()
            .and_then(|attribute| IntegerAttribute::try_from(attribute).ok())
            .map_or(buffers.len(), |attribute| attribute.value() as usize);

        let mut packed: Vec<PackedBuffer> = buffers
            .iter()
            .map(|buffer| {
                let descriptor = at.cast(*buffer, self.descriptor_type(buffer.r#type()));
                self.packed_buffer(at, descriptor, buffer.r#type())
            })
            .collect();
        let mut results = Vec::new();
        for result in operation.results() {
            let (buffer, descriptor) = self.allocate_static(at, result.r#type())?;
            packed.push(self.packed_buffer(at, descriptor, result.r#type()));
            results.push(buffer);
        }

        // args_buf: the operand count, the input count, then one record per buffer.
        let header = self.constant(at, self.types.i64, 16);
        let total = packed.iter().fold(header, |sum, buffer| {
            at.binary(self.types.i64, "llvm.add", sum, buffer.record_size)
        });
        let args = self
            .call(at, &runtime_abi::MALLOC, &[total])?
            .expect("malloc returns a pointer");
        let count = self.constant(at, self.types.i64, packed.len() as i64);
        at.store(count, args);
        let inputs = self.constant(at, self.types.i64, num_inputs as i64);
        at.store(inputs, self.offset(at, args, 8));
        let mut cursor = self.offset(at, args, 16);
        for buffer in &packed {
            cursor = self.pack_record(at, cursor, buffer);
        }

        let (out_buffer_slot, out_size_slot) = self.call_frame(at);
        self.call(
            at,
            &runtime_abi::CALL_WRAPPER,
            &[session, symbol, args, total, out_buffer_slot, out_size_slot],
        )?;
        self.call(at, &runtime_abi::FREE, &[args])?;

        // out_buf: the output count, then one record per output buffer, in order.
        let out = at.load(out_buffer_slot, self.types.ptr);
        let mut cursor = self.offset(at, out, 8);
        for buffer in &packed[num_inputs..] {
            let data = at.gep_bytes(cursor, buffer.header_size);
            at.memcpy(buffer.data, data, buffer.data_size);
            cursor = at.gep_bytes(cursor, buffer.record_size);
        }
        self.call(at, &runtime_abi::FREE_RESULT, &[out])?;
        Ok(results)
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
        let element_size = memref_element_size(memref) as i64;
        let sizes: Vec<Value> = (0..rank)
            .map(|dim| at.extract(descriptor, &[3, dim as i64], i64_type))
            .collect();
        let element_count = sizes
            .iter()
            .fold(self.constant(at, i64_type, 1), |product, size| {
                at.binary(i64_type, "llvm.mul", product, *size)
            });
        let data_size = at.binary(
            i64_type,
            "llvm.mul",
            element_count,
            self.constant(at, i64_type, element_size),
        );
        let padded = at.binary(
            i64_type,
            "llvm.add",
            data_size,
            self.constant(at, i64_type, 7),
        );
        let padded = at.binary(
            i64_type,
            "llvm.and",
            padded,
            self.constant(at, i64_type, -8),
        );
        let header_size = self.constant(at, i64_type, 16 + 8 * rank as i64);
        let record_size = at.binary(i64_type, "llvm.add", header_size, padded);
        let aligned = at.extract(descriptor, &[1], self.types.ptr);
        let offset = at.extract(descriptor, &[2], i64_type);
        let offset_bytes = at.binary(
            i64_type,
            "llvm.mul",
            offset,
            self.constant(at, i64_type, element_size),
        );
        PackedBuffer {
            rank,
            element_size,
            sizes,
            data: at.gep_bytes(aligned, offset_bytes),
            data_size,
            header_size,
            record_size,
        }
    }

    /// Writes one record at `cursor`; returns the address right after it.
    fn pack_record(
        &mut self,
        at: &Emitter<'c, 'a>,
        cursor: Value<'c, 'a>,
        buffer: &PackedBuffer<'c, 'a>,
    ) -> Value<'c, 'a> {
        let rank = self.constant(at, self.types.i64, buffer.rank as i64);
        at.store(rank, cursor);
        let element_size = self.constant(at, self.types.i64, buffer.element_size);
        at.store(element_size, self.offset(at, cursor, 8));
        for (dim, size) in buffer.sizes.iter().enumerate() {
            at.store(*size, self.offset(at, cursor, 16 + 8 * dim as i64));
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
        let bytes: i64 = shape.iter().product::<i64>() * memref_element_size(memref) as i64;
        let size = self.constant(at, self.types.i64, bytes);
        let pointer = self
            .call(at, &runtime_abi::MALLOC, &[size])?
            .expect("malloc returns a pointer");
        let descriptor_type = self.descriptor_type(memref);
        let mut descriptor = at.undef(descriptor_type);
        let zero = self.constant(at, self.types.i64, 0);
        descriptor = at.insert(descriptor, pointer, &[0]);
        descriptor = at.insert(descriptor, pointer, &[1]);
        descriptor = at.insert(descriptor, zero, &[2]);
        let mut stride = 1;
        for (dim, extent) in shape.iter().enumerate().rev() {
            let size = self.constant(at, self.types.i64, *extent);
            descriptor = at.insert(descriptor, size, &[3, dim as i64]);
            let stride_value = self.constant(at, self.types.i64, stride);
            descriptor = at.insert(descriptor, stride_value, &[4, dim as i64]);
            stride *= extent;
        }
        Ok((at.cast(descriptor, memref), descriptor))
    }

    fn offset(&mut self, at: &Emitter<'c, 'a>, base: Value<'c, 'a>, bytes: i64) -> Value<'c, 'a> {
        at.gep_bytes(base, self.constant(at, self.types.i64, bytes))
    }

    /// The LLVM struct of MLIR's strided memref descriptor:
    /// `{T *allocated, T *aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}`.
    fn descriptor_type(&mut self, memref: Type<'c>) -> Type<'c> {
        let rank = memref_rank(memref);
        let context = self.context;
        *self.descriptors.entry(rank).or_insert_with(|| {
            let source = if rank == 0 {
                "!llvm.struct<(ptr, ptr, i64)>".to_owned()
            } else {
                format!("!llvm.struct<(ptr, ptr, i64, array<{rank} x i64>, array<{rank} x i64>)>")
            };
            parse_type(context, &source).expect("a descriptor type parses")
        })
    }

    /// The slots `call_wrapper` writes its result buffer and size to, in the
    /// scope of `at`.
    fn call_frame(&mut self, at: &Emitter<'c, 'a>) -> (Value<'c, 'a>, Value<'c, 'a>) {
        let key = block_key(at.scope);
        if let Some(frame) = self.call_frames.get(&key) {
            return *frame;
        }
        let (ptr, i64_type) = (self.types.ptr, self.types.i64);
        let prologue = self.prologue(at);
        let frame = (prologue.alloca(ptr), prologue.alloca(i64_type));
        self.call_frames.insert(key, frame);
        frame
    }

    /// The prologue of the allocation scope of `at`.
    fn prologue(&mut self, at: &Emitter<'c, 'a>) -> &mut Prologue<'c, 'a> {
        let (context, types) = (self.context, self.types);
        self.prologues
            .entry(block_key(at.scope))
            .or_insert_with(|| {
                let scope = at
                    .scope
                    .parent_operation()
                    .expect("an allocation scope's block has an op");
                Prologue::new(context, types, scope, at.scope)
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

    /// Makes the symbol table of the module around `operation` the current
    /// one, creating it on first use.
    fn enter_module(&mut self, operation: OperationRef<'c, 'a>) {
        let module = enclosing_module(operation).expect("the pass runs on a builtin.module");
        self.current_symbols = match self
            .symbol_tables
            .iter()
            .position(|(known, _)| *known == module)
        {
            Some(index) => index,
            None => {
                let body = module
                    .region(0)
                    .ok()
                    .and_then(|region| region.first_block())
                    .expect("builtin.module has a body block");
                self.symbol_tables
                    .push((module, ModuleSymbols::new(self.context, body)));
                self.symbol_tables.len() - 1
            }
        };
    }

    /// The symbol table of the module the op being lowered belongs to.
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

    fn string(&mut self, at: &Emitter<'c, 'a>, text: &str) -> Value<'c, 'a> {
        let name = self.symbols().string(text);
        self.prologue(at).address_of(&name)
    }

    fn attribute_text(
        &self,
        operation: OperationRef<'c, 'a>,
        name: &str,
    ) -> Result<String, String> {
        operation
            .attribute(name)
            .ok()
            .and_then(|attribute| StringAttribute::try_from(attribute).ok())
            .map(|attribute| attribute.value().to_owned())
            .ok_or_else(|| format!("{} has no string attribute '{name}'", op_name(operation)))
    }

    fn string_attribute(
        &mut self,
        at: &Emitter<'c, 'a>,
        operation: OperationRef<'c, 'a>,
        name: &str,
    ) -> Result<Value<'c, 'a>, String> {
        let text = self.attribute_text(operation, name)?;
        Ok(self.string(at, &text))
    }

    fn call(
        &mut self,
        at: &Emitter<'c, 'a>,
        function: &RuntimeFunction,
        operands: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, String> {
        self.symbols().declare(function)?;
        let result = function.result.map(|result| match result {
            "i32" => self.types.i32,
            "i64" => self.types.i64,
            "!llvm.ptr" => self.types.ptr,
            other => unreachable!("no runtime function returns {other}"),
        });
        Ok(at.call(function.name, operands, result))
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
    /// `16 + 8 * rank`: rank, element size and sizes.
    header_size: Value<'c, 'a>,
    /// The header and the data padded to a multiple of 8 bytes.
    record_size: Value<'c, 'a>,
}

fn op_name<'c>(operation: OperationRef<'c, '_>) -> &'c str {
    ir::operation_name(operation)
}

fn memref_rank(memref: Type<'_>) -> usize {
    MemRefType::try_from(memref).map_or(0, |memref| {
        use melior::ir::r#type::ShapedTypeLike;
        memref.rank()
    })
}

/// The dimensions of a statically shaped memref.
fn static_shape(memref: Type<'_>) -> Option<Vec<i64>> {
    use melior::ir::r#type::ShapedTypeLike;
    let memref = MemRefType::try_from(memref).ok()?;
    (0..memref.rank())
        .map(|dim| match memref.dim_size(dim).ok()? {
            melior::ir::r#type::DimSize::Static(extent) => i64::try_from(extent).ok(),
            melior::ir::r#type::DimSize::Dynamic => None,
        })
        .collect()
}

fn memref_element_size(memref: Type<'_>) -> u64 {
    ir::element_size_in_bytes(ir::element_type(memref)).expect("checked before lowering")
}

/// Ops that run their body concurrently or in a frame of its own, so that the
/// ops inside get their own prologue and never share a stack slot with code
/// running at the same time. (Not every `AutomaticAllocationScope`: `scf.for`
/// is one, and slots made in a loop body would grow the stack per iteration
/// once lowered.)
const CONCURRENT_SCOPES: &[&str] = &[
    "scf.parallel",
    "scf.forall",
    "async.execute",
    "omp.parallel",
    "omp.task",
    "omp.taskloop",
    "memref.alloca_scope",
];

/// The entry block of the allocation scope around `operation`: the nearest
/// enclosing op that is isolated from above (a function, `omp.target`, ...),
/// whose regions cannot use values from outside, or one of [`CONCURRENT_SCOPES`].
fn allocation_scope_entry<'c, 'a>(
    operation: OperationRef<'c, 'a>,
) -> Result<BlockRef<'c, 'a>, String> {
    let outside_function = || {
        format!(
            "{} must be inside a function (func.func, llvm.func, ...), whose entry block holds its stack slots",
            op_name(operation)
        )
    };
    let mut parent = operation.parent_operation();
    while let Some(candidate) = parent {
        if op_name(candidate) == "builtin.module" {
            return Err(outside_function());
        }
        if CONCURRENT_SCOPES.contains(&op_name(candidate))
            || crate::ffi::is_isolated_from_above(candidate)
        {
            return candidate
                .region(0)
                .ok()
                .and_then(|region| region.first_block())
                .ok_or_else(|| format!("the enclosing {} has no body", op_name(candidate)));
        }
        parent = candidate.parent_operation();
    }
    Err(outside_function())
}

/// The innermost `builtin.module` around `operation`, whose symbol table gets
/// the runtime declarations and globals the op needs.
fn enclosing_module<'c, 'a>(operation: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut parent = operation.parent_operation();
    while let Some(candidate) = parent {
        if op_name(candidate) == "builtin.module" {
            return Some(candidate);
        }
        parent = candidate.parent_operation();
    }
    None
}
