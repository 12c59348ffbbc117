//! Builders of the LLVM-dialect ops the lowering emits: [`Emitter`] right
//! before the op being lowered, [`Prologue`] at the top of the allocation
//! scope around it. Ops come from melior's LLVM builders (`melior::dialect::llvm`
//! and the ODS-generated `melior::dialect::ods::llvm`); `llvm.call` alone is
//! built by hand, because melior's generated builder does not set its
//! `operandSegmentSizes`.

use std::collections::HashMap;

use executor_abi::{descriptor, functions::LlvmType, launch_site};
use melior::{
    Context,
    dialect::{
        llvm::{self, AllocaOptions, LoadStoreOptions},
        ods,
    },
    ir::{
        BlockLike, BlockRef, Identifier, Location, Operation, OperationRef, Type, Value,
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
    pub i1: Type<'c>,
    pub i8: Type<'c>,
    pub i32: Type<'c>,
    pub i64: Type<'c>,
    pub ptr: Type<'c>,
}

impl<'c> LlvmTypes<'c> {
    pub fn new(context: &'c Context) -> Self {
        Self {
            i1: IntegerType::new(context, 1).into(),
            i8: IntegerType::new(context, 8).into(),
            i32: IntegerType::new(context, 32).into(),
            i64: IntegerType::new(context, 64).into(),
            ptr: llvm::r#type::pointer(context, 0),
        }
    }

    /// The type of a parameter or result of the runtime ABI.
    pub fn of(&self, abi: LlvmType) -> Type<'c> {
        match abi {
            LlvmType::I32 => self.i32,
            LlvmType::I64 => self.i64,
            LlvmType::Ptr => self.ptr,
        }
    }

    /// The LLVM struct of a memref descriptor of `rank`
    /// (`executor_abi::descriptor`).
    pub fn descriptor(&self, context: &'c Context, rank: usize) -> Type<'c> {
        let mut fields = vec![self.ptr; descriptor::OFFSET];
        fields.push(self.i64);
        if rank > 0 {
            let array = llvm::r#type::array(self.i64, rank as u32);
            fields.extend([array, array]);
        }
        debug_assert_eq!(
            fields.len(),
            if rank == 0 {
                3
            } else {
                descriptor::STRIDES + 1
            }
        );
        llvm::r#type::r#struct(context, &fields, false)
    }

    /// The LLVM struct of a launch site (`executor_abi::launch_site`): the
    /// runtime's cache words, then one field per entry of the description.
    pub fn launch_site(&self, context: &'c Context) -> Type<'c> {
        let cache = llvm::r#type::array(self.i64, launch_site::CACHE_WORDS as u32);
        let fields: Vec<Type> = std::iter::once(cache)
            .chain(
                launch_site::DESCRIPTION
                    .iter()
                    .map(|(c_type, _)| self.of(LlvmType::of_c_type(c_type))),
            )
            .collect();
        llvm::r#type::r#struct(context, &fields, false)
    }
}

/// Builds LLVM-dialect ops right before one operation.
pub struct Emitter<'c, 'a> {
    context: &'c Context,
    types: LlvmTypes<'c>,
    /// Where the prologue that the anchor's lowering uses goes.
    pub prologue: PrologueSite<'c, 'a>,
    block: BlockRef<'c, 'a>,
    anchor: OperationRef<'c, 'a>,
    location: Location<'c>,
}

impl<'c, 'a> Emitter<'c, 'a> {
    /// Builds right before `anchor`, whose lowering uses the prologue at
    /// `prologue`.
    pub fn before(
        context: &'c Context,
        types: LlvmTypes<'c>,
        anchor: OperationRef<'c, 'a>,
        prologue: PrologueSite<'c, 'a>,
    ) -> Self {
        let block = anchor
            .block()
            .expect("an op with an allocation scope sits in a block");
        Self {
            context,
            types,
            prologue,
            block,
            anchor,
            location: anchor.location(),
        }
    }

    fn emit(&self, operation: Operation<'c>) -> OperationRef<'c, 'a> {
        self.block.insert_operation_before(self.anchor, operation)
    }

    fn emit_value(&self, operation: Operation<'c>) -> Value<'c, 'a> {
        self.emit(operation)
            .result(0)
            .expect("the emitted op has a result")
            .into()
    }

    pub fn undef(&self, value_type: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(llvm::undef(value_type, self.location))
    }

    /// `builtin.unrealized_conversion_cast`, which `reconcile-unrealized-casts`
    /// folds against the casts of the other conversions.
    pub fn cast(&self, value: Value<'c, 'a>, to: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(
            ods::builtin::unrealized_conversion_cast(self.context, &[to], &[value], self.location)
                .into(),
        )
    }

    pub fn store(&self, value: Value<'c, 'a>, address: Value<'c, 'a>) {
        self.emit(llvm::store(
            self.context,
            value,
            address,
            self.location,
            LoadStoreOptions::default(),
        ));
    }

    pub fn load(&self, address: Value<'c, 'a>, value_type: Type<'c>) -> Value<'c, 'a> {
        self.emit_value(llvm::load(
            self.context,
            address,
            value_type,
            self.location,
            LoadStoreOptions::default(),
        ))
    }

    pub fn add(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        self.emit_value(llvm::add(lhs, rhs, self.location))
    }

    pub fn mul(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        self.emit_value(llvm::mul(lhs, rhs, self.location))
    }

    pub fn and(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        self.emit_value(llvm::and(lhs, rhs, self.location))
    }

    pub fn or(&self, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
        self.emit_value(llvm::or(lhs, rhs, self.location))
    }

    pub fn extract(
        &self,
        aggregate: Value<'c, 'a>,
        position: &[i64],
        value_type: Type<'c>,
    ) -> Value<'c, 'a> {
        self.emit_value(llvm::extract_value(
            self.context,
            aggregate,
            DenseI64ArrayAttribute::new(self.context, position),
            value_type,
            self.location,
        ))
    }

    pub fn insert(
        &self,
        aggregate: Value<'c, 'a>,
        value: Value<'c, 'a>,
        position: &[i64],
    ) -> Value<'c, 'a> {
        self.emit_value(llvm::insert_value(
            self.context,
            aggregate,
            DenseI64ArrayAttribute::new(self.context, position),
            value,
            self.location,
        ))
    }

    /// `base + bytes`, as an `i8` GEP.
    pub fn gep_bytes(&self, base: Value<'c, 'a>, bytes: Value<'c, 'a>) -> Value<'c, 'a> {
        self.emit_value(llvm::get_element_ptr_dynamic(
            self.context,
            base,
            &[bytes],
            self.types.i8,
            self.types.ptr,
            self.location,
        ))
    }

    pub fn memcpy(&self, destination: Value<'c, 'a>, source: Value<'c, 'a>, bytes: Value<'c, 'a>) {
        let not_volatile = IntegerAttribute::new(self.types.i1, 0);
        self.emit(
            ods::llvm::intr_memcpy(
                self.context,
                destination,
                source,
                bytes,
                not_volatile,
                self.location,
            )
            .into(),
        );
    }

    /// `llvm.call @callee(operands)`, with a result of `result` if any.
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
        let call = self.emit(
            builder
                .build()
                .expect("an llvm.call with its segment sizes is well formed"),
        );
        result.map(|_| call.result(0).expect("the call has a result").into())
    }
}

/// `llvm.mlir.constant(value : value_type)`.
pub fn constant_op<'c>(
    context: &'c Context,
    value_type: Type<'c>,
    value: i64,
    location: Location<'c>,
) -> Operation<'c> {
    ods::llvm::mlir_constant(
        context,
        value_type,
        IntegerAttribute::new(value_type, value).into(),
        location,
    )
    .into()
}

/// `llvm.mlir.addressof @global`.
pub fn address_of_op<'c>(
    context: &'c Context,
    types: LlvmTypes<'c>,
    global: &str,
    location: Location<'c>,
) -> Operation<'c> {
    ods::llvm::mlir_addressof(
        context,
        types.ptr,
        FlatSymbolRefAttribute::new(context, global),
        location,
    )
    .into()
}

/// The op that begins the coroutine whose entry block is `block`, if it is
/// one: `async.coro.begin` before the async dialect's lowering to LLVM,
/// `llvm.intr.coro.begin` after it.
pub fn coroutine_begin<'c, 'a>(block: BlockRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let coroutine_begin = [
        ods::r#async::CoroBeginOperation::name(),
        ods::llvm::CoroBeginOperation::name(),
    ];
    let mut next = block.first_operation();
    while let Some(operation) = next {
        if coroutine_begin.contains(&super::ir::operation_name(operation)) {
            return Some(operation);
        }
        next = operation.next_in_block();
    }
    None
}

/// Whether `operation` runs before `begin`: it, or the op of `begin`'s block
/// that holds it, comes first in that block. An op in another block of the
/// region runs after it (the entry block dominates them).
fn runs_before<'c, 'a>(operation: OperationRef<'c, 'a>, begin: OperationRef<'c, 'a>) -> bool {
    let block = begin.block();
    let mut current = operation;
    loop {
        if current.block() == block {
            return current.is_before_in_block(begin);
        }
        match current.parent_operation() {
            Some(parent) => current = parent,
            None => return false,
        }
    }
}

/// Where a prologue goes in the entry block of an allocation scope: at its
/// top, or right after the coroutine's `coro.begin` in a coroutine (an
/// `async.execute` body that `async-to-async-runtime` outlined). There a
/// stack slot becomes part of the coroutine's frame; an address of it
/// stored before `coro.begin` would be the old one, stale once the coroutine
/// resumes. What is defined after `coro.begin` does not dominate the ops
/// before it, so those get a prologue of their own at the top of the block:
/// they run on the caller's stack before the frame exists, and nothing after
/// `coro.begin` uses their slots.
#[derive(Clone, Copy)]
pub struct PrologueSite<'c, 'a> {
    block: BlockRef<'c, 'a>,
    /// The `coro.begin` the prologue follows; none: the top of the block.
    after: Option<OperationRef<'c, 'a>>,
}

/// Identifies a prologue site for the lifetime of the pass run.
pub type PrologueKey = (usize, usize);

impl<'c, 'a> PrologueSite<'c, 'a> {
    /// The site of the prologue for the op `anchor` in the allocation scope
    /// whose entry block is `block`, where [`coroutine_begin`] found `begin`.
    pub fn of(
        block: BlockRef<'c, 'a>,
        begin: Option<OperationRef<'c, 'a>>,
        anchor: OperationRef<'c, 'a>,
    ) -> Self {
        let after = begin.filter(|begin| !runs_before(anchor, *begin));
        Self { block, after }
    }

    /// The entry block the prologue is in.
    pub fn block(&self) -> BlockRef<'c, 'a> {
        self.block
    }

    pub fn key(&self) -> PrologueKey {
        (
            self.block.to_raw().ptr as usize,
            self.after.map_or(0, |begin| begin.to_raw().ptr as usize),
        )
    }
}

/// The prologue of an allocation scope (a function, or an op whose body runs
/// in a frame of its own): the ops at the top of its entry block that every
/// lowered op of the scope shares. Stack slots live here, so a launch in a loop
/// does not grow the stack; so do the constants and global addresses, made
/// once per scope rather than once per op. A coroutine's entry block has two
/// ([`PrologueSite`]).
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
    /// The prologue at `site`, in the entry block of the scope op `scope`.
    pub fn new(
        context: &'c Context,
        types: LlvmTypes<'c>,
        scope: OperationRef<'c, 'a>,
        site: PrologueSite<'c, 'a>,
    ) -> Self {
        Self {
            context,
            types,
            block: site.block,
            location: scope.location(),
            end: site.after,
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
            self.append_value(constant_op(self.context, value_type, value, self.location));
        self.constants.insert((value_type, value), constant);
        constant
    }

    /// `llvm.mlir.addressof @global`.
    pub fn address_of(&mut self, global: &str) -> Value<'c, 'a> {
        if let Some(address) = self.addresses.get(global) {
            return *address;
        }
        let address = self.append_value(address_of_op(
            self.context,
            self.types,
            global,
            self.location,
        ));
        self.addresses.insert(global.to_owned(), address);
        address
    }

    /// A null pointer.
    pub fn null(&mut self) -> Value<'c, 'a> {
        if let Some(null) = self.null {
            return null;
        }
        let null = self.append_value(llvm::zero(self.types.ptr, self.location));
        self.null = Some(null);
        null
    }

    /// Allocates one `element` on the stack.
    pub fn alloca(&mut self, element: Type<'c>) -> Value<'c, 'a> {
        let count = self.constant(self.types.i64, 1);
        self.append_value(llvm::alloca(
            self.context,
            count,
            self.types.ptr,
            self.location,
            AllocaOptions::new().elem_type(Some(TypeAttribute::new(element))),
        ))
    }

    /// Allocates an array of pointers and stores `slots` into it, once: the
    /// slots never move.
    pub fn pointer_array(&mut self, slots: &[Value<'c, 'a>]) -> Value<'c, 'a> {
        let array_type = llvm::r#type::array(self.types.ptr, slots.len() as u32);
        let array = self.alloca(array_type);
        let mut value = self.append_value(llvm::undef(array_type, self.location));
        for (index, slot) in slots.iter().enumerate() {
            value = self.append_value(llvm::insert_value(
                self.context,
                value,
                DenseI64ArrayAttribute::new(self.context, &[index as i64]),
                *slot,
                self.location,
            ));
        }
        self.append(llvm::store(
            self.context,
            value,
            array,
            self.location,
            LoadStoreOptions::default(),
        ));
        array
    }
}
