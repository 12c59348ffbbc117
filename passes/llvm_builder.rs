//! Builders of the LLVM-dialect ops the lowering emits: [`Emitter`] right
//! before the op being lowered, [`Prologue`] at the top of the allocation
//! scope around it.

use std::collections::HashMap;

use crate::ffi::parse_type;
use melior::{
    Context,
    ir::{
        BlockLike, BlockRef, Identifier, Location, Operation, OperationRef, Type, Value, ValueLike,
        attribute::{
            DenseI32ArrayAttribute, DenseI64ArrayAttribute, FlatSymbolRefAttribute,
            IntegerAttribute, TypeAttribute,
        },
        operation::{OperationBuilder, OperationLike},
        r#type::IntegerType,
    },
};

/// The LLVM types the lowering uses over and over, created once per run.
#[derive(Clone, Copy)]
pub struct LlvmTypes<'c> {
    pub i32: Type<'c>,
    pub i64: Type<'c>,
    pub ptr: Type<'c>,
}

impl<'c> LlvmTypes<'c> {
    pub fn new(context: &'c Context) -> Self {
        Self {
            i32: IntegerType::new(context, 32).into(),
            i64: IntegerType::new(context, 64).into(),
            ptr: parse_type(context, "!llvm.ptr").expect("the LLVM dialect is loaded"),
        }
    }
}

/// Builds LLVM-dialect ops right before one operation.
pub struct Emitter<'c, 'a> {
    context: &'c Context,
    /// The entry block of the allocation scope around the anchor.
    pub scope: BlockRef<'c, 'a>,
    block: BlockRef<'c, 'a>,
    pub anchor: OperationRef<'c, 'a>,
    pub location: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    /// Builds right before `anchor`, whose allocation scope has the entry
    /// block `scope`.
    pub fn before(
        context: &'c Context,
        anchor: OperationRef<'c, 'a>,
        scope: BlockRef<'c, 'a>,
    ) -> Self {
        let block = anchor
            .block()
            .expect("an op with an allocation scope sits in a block");
        Self {
            context,
            scope,
            block,
            anchor,
            location: anchor.location(),
        }
    }

    pub fn emit(&self, operation: Operation<'c>) -> OperationRef<'c, 'a> {
        self.block.insert_operation_before(self.anchor, operation)
    }

    pub fn emit_value(&self, operation: Operation<'c>) -> Value<'c, 'a> {
        let emitted = self.emit(operation);
        emitted
            .result(0)
            .expect("the emitted op has a result")
            .into()
    }

    pub fn undef(&self, value_type: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(build(
            OperationBuilder::new("llvm.mlir.undef", self.location).add_results(&[value_type]),
        ))
    }

    pub fn cast(&self, value: Value<'c, 'a>, to: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(build(
            OperationBuilder::new("builtin.unrealized_conversion_cast", self.location)
                .add_operands(&[value])
                .add_results(&[to]),
        ))
    }

    pub fn store(&self, value: Value<'c, 'a>, address: Value<'c, 'a>) {
        self.emit(store_op(self.location, value, address));
    }

    pub fn load(&self, address: Value<'c, 'a>, value_type: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(build(
            OperationBuilder::new("llvm.load", self.location)
                .add_operands(&[address])
                .add_results(&[value_type]),
        ))
    }

    pub fn binary(
        &self,
        value_type: Type<'c>,
        name: &str,
        lhs: Value<'c, 'a>,
        rhs: Value<'c, 'a>,
    ) -> Value<'c, 'a> {
        self.emit_value(build(
            OperationBuilder::new(name, self.location)
                .add_operands(&[lhs, rhs])
                .add_results(&[value_type]),
        ))
    }

    pub fn extract(
        &self,
        aggregate: Value<'c, 'a>,
        position: &[i64],
        value_type: Type<'c>,
    ) -> Value<'c, 'a> {
        let context = self.context;
        self.emit_value(build(
            OperationBuilder::new("llvm.extractvalue", self.location)
                .add_operands(&[aggregate])
                .add_attributes(&[(
                    Identifier::new(context, "position"),
                    DenseI64ArrayAttribute::new(context, position).into(),
                )])
                .add_results(&[value_type]),
        ))
    }

    pub fn insert(
        &self,
        aggregate: Value<'c, 'a>,
        value: Value<'c, 'a>,
        position: &[i64],
    ) -> Value<'c, 'a> {
        let context = self.context;
        self.emit_value(build(
            OperationBuilder::new("llvm.insertvalue", self.location)
                .add_operands(&[aggregate, value])
                .add_attributes(&[(
                    Identifier::new(context, "position"),
                    DenseI64ArrayAttribute::new(context, position).into(),
                )])
                .add_results(&[aggregate.r#type()]),
        ))
    }

    /// `base + bytes`, as an `i8` GEP.
    pub fn gep_bytes(&self, base: Value<'c, 'a>, bytes: Value<'c, 'a>) -> Value<'c, 'a> {
        let context = self.context;
        let i8_type: Type = IntegerType::new(context, 8).into();
        let raw_indices = DenseI32ArrayAttribute::new(context, &[i32::MIN]);
        let operation = OperationBuilder::new("llvm.getelementptr", self.location)
            .add_operands(&[base, bytes])
            .add_attributes(&[
                (
                    Identifier::new(context, "elem_type"),
                    TypeAttribute::new(i8_type).into(),
                ),
                (
                    Identifier::new(context, "rawConstantIndices"),
                    raw_indices.into(),
                ),
            ])
            .add_results(&[base.r#type()])
            .build()
            .expect("the lowering builds well-formed LLVM-dialect ops");
        self.emit_value(operation)
    }

    pub fn memcpy(&self, destination: Value<'c, 'a>, source: Value<'c, 'a>, bytes: Value<'c, 'a>) {
        let context = self.context;
        self.emit(build(
            OperationBuilder::new("llvm.intr.memcpy", self.location)
                .add_operands(&[destination, source, bytes])
                .add_attributes(&[(
                    Identifier::new(context, "isVolatile"),
                    IntegerAttribute::new(IntegerType::new(context, 1).into(), 0).into(),
                )]),
        ));
    }

    pub fn call(
        &self,
        callee: &str,
        operands: &[Value<'c, 'a>],
        result: Option<Type<'c>>,
    ) -> Option<Value<'c, 'a>> {
        let context = self.context;
        let segment_sizes = [
            i32::try_from(operands.len()).expect("fewer than 2^31 operands"),
            0,
        ];
        let builder = OperationBuilder::new("llvm.call", self.location)
            .add_operands(operands)
            .add_attributes(&[
                (
                    Identifier::new(context, "callee"),
                    FlatSymbolRefAttribute::new(context, callee).into(),
                ),
                (
                    Identifier::new(context, "operandSegmentSizes"),
                    DenseI32ArrayAttribute::new(context, &segment_sizes).into(),
                ),
                (
                    Identifier::new(context, "op_bundle_sizes"),
                    DenseI32ArrayAttribute::new(context, &[]).into(),
                ),
            ]);
        let builder = match result {
            Some(result) => builder.add_results(&[result]),
            None => builder,
        };
        let call = self.emit(build(builder));
        result.map(|_| call.result(0).expect("the call has a result").into())
    }
}

/// The prologue of an allocation scope (a function, or an op whose body runs
/// in a frame of its own): the ops at the top of its entry block that every
/// lowered op of the scope shares. Stack slots live here, so a launch in a loop
/// does not grow the stack; so do the constants and global addresses, made
/// once per scope rather than once per op.
pub struct Prologue<'c, 'a> {
    context: &'c Context,
    types: LlvmTypes<'c>,
    block: BlockRef<'c, 'a>,
    location: Location<'c>,
    end: Option<OperationRef<'c, 'a>>,
    constants: HashMap<(Type<'c>, i64), Value<'c, 'a>>,
    addresses: HashMap<String, Value<'c, 'a>>,
    null: Option<Value<'c, 'a>>,
}

impl<'c, 'a> Prologue<'c, 'a> {
    /// The prologue of the entry block `block` of the scope op `scope`.
    pub fn new(
        context: &'c Context,
        types: LlvmTypes<'c>,
        scope: OperationRef<'c, 'a>,
        block: BlockRef<'c, 'a>,
    ) -> Self {
        Self {
            context,
            types,
            block,
            location: scope.location(),
            end: None,
            constants: HashMap::new(),
            addresses: HashMap::new(),
            null: None,
        }
    }

    fn append(&mut self, operation: Operation<'c>) -> OperationRef<'c, 'a> {
        let inserted = match self.end {
            Some(last) => self.block.insert_operation_after(last, operation),
            None => self.block.insert_operation(0, operation),
        };
        self.end = Some(inserted);
        inserted
    }

    fn append_value(&mut self, operation: Operation<'c>) -> Value<'c, 'a> {
        self.append(operation)
            .result(0)
            .expect("the appended op has a result")
            .into()
    }

    /// `llvm.mlir.constant(value : value_type)`.
    pub fn constant(&mut self, value_type: Type<'c>, value: i64) -> Value<'c, 'a> {
        if let Some(constant) = self.constants.get(&(value_type, value)) {
            return *constant;
        }
        let constant =
            self.append_value(constant_op(self.context, self.location, value_type, value));
        self.constants.insert((value_type, value), constant);
        constant
    }

    /// `llvm.mlir.addressof @global`.
    pub fn address_of(&mut self, global: &str) -> Value<'c, 'a> {
        if let Some(address) = self.addresses.get(global) {
            return *address;
        }
        let context = self.context;
        let address = self.append_value(build(
            OperationBuilder::new("llvm.mlir.addressof", self.location)
                .add_attributes(&[(
                    Identifier::new(context, "global_name"),
                    FlatSymbolRefAttribute::new(context, global).into(),
                )])
                .add_results(&[self.types.ptr]),
        ));
        self.addresses.insert(global.to_owned(), address);
        address
    }

    /// A null pointer.
    pub fn null(&mut self) -> Value<'c, 'a> {
        if let Some(null) = self.null {
            return null;
        }
        let null = self.constant_like("llvm.mlir.zero", self.types.ptr);
        self.null = Some(null);
        null
    }

    /// Allocates one `element` on the stack.
    pub fn alloca(&mut self, element: Type<'c>) -> Value<'c, 'a> {
        let context = self.context;
        let count = self.constant(self.types.i64, 1);
        self.append_value(build(
            OperationBuilder::new("llvm.alloca", self.location)
                .add_operands(&[count])
                .add_attributes(&[(
                    Identifier::new(context, "elem_type"),
                    TypeAttribute::new(element).into(),
                )])
                .add_results(&[self.types.ptr]),
        ))
    }

    /// Allocates an array of pointers and stores `slots` into it, once: the
    /// slots never move.
    pub fn pointer_array(
        &mut self,
        array_type: Type<'c>,
        slots: &[Value<'c, 'a>],
    ) -> Value<'c, 'a> {
        let context = self.context;
        let array = self.alloca(array_type);
        let mut value = self.constant_like("llvm.mlir.undef", array_type);
        for (index, slot) in slots.iter().enumerate() {
            let position = DenseI64ArrayAttribute::new(context, &[index as i64]);
            value = self.append_value(build(
                OperationBuilder::new("llvm.insertvalue", self.location)
                    .add_operands(&[value, *slot])
                    .add_attributes(&[(Identifier::new(context, "position"), position.into())])
                    .add_results(&[array_type]),
            ));
        }
        self.append(store_op(self.location, value, array));
        array
    }

    fn constant_like(&mut self, name: &str, value_type: Type<'c>) -> Value<'c, 'a> {
        self.append_value(build(
            OperationBuilder::new(name, self.location).add_results(&[value_type]),
        ))
    }
}

fn constant_op<'c>(
    context: &'c Context,
    location: Location<'c>,
    value_type: Type<'c>,
    value: i64,
) -> Operation<'c> {
    build(
        OperationBuilder::new("llvm.mlir.constant", location)
            .add_attributes(&[(
                Identifier::new(context, "value"),
                IntegerAttribute::new(value_type, value).into(),
            )])
            .add_results(&[value_type]),
    )
}

fn store_op<'c>(
    location: Location<'c>,
    value: Value<'c, '_>,
    address: Value<'c, '_>,
) -> Operation<'c> {
    build(OperationBuilder::new("llvm.store", location).add_operands(&[value, address]))
}

pub fn build(builder: OperationBuilder<'_>) -> Operation<'_> {
    builder
        .build()
        .expect("the lowering builds well-formed LLVM-dialect ops")
}
