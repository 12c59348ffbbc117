//! Sessions and tokens become `i64` wherever they appear: op results, block
//! arguments (function entries, `scf` regions, `cf` successors) and function
//! types, also nested ones (`func.constant`, `func.call_indirect`). Values are
//! retyped in place, so every op that carries a handle (`func.call`,
//! `scf.yield`, `cf.br`, ...) stays consistent without being rewritten. So are
//! type attributes, which ops use to state the type their regions' arguments
//! must have (`function_type` of `func.func`, `type` of
//! `omp.declare_reduction`).
//! A handle inside any other type (`tuple<!executor.session>`,
//! `tensor<2x!executor.token>`) has no lowering and is reported first.

use std::collections::HashMap;

use melior::{
    Context,
    ir::{
        BlockLike, Identifier, Location, OperationRef, RegionLike, Type, ValueLike,
        attribute::TypeAttribute,
        block::BlockArgument,
        operation::OperationLike,
        operation::OperationResult,
        r#type::{FunctionType, IntegerType},
    },
};

use super::ir;
use crate::{dialect, ffi};

pub struct HandleTypes<'c> {
    context: &'c Context,
    session: Type<'c>,
    token: Type<'c>,
    i64: Type<'c>,
    /// Each type met so far, and its lowering (None: it cannot be lowered).
    lowered: HashMap<Type<'c>, Option<Type<'c>>>,
}

impl<'c> HandleTypes<'c> {
    pub fn new(context: &'c Context) -> Self {
        Self {
            context,
            session: dialect::session_type(context),
            token: dialect::token_type(context),
            i64: IntegerType::new(context, 64).into(),
            lowered: HashMap::new(),
        }
    }

    /// `value_type` with every session and token replaced by `i64`, also
    /// inside function types; None when a handle sits inside another type.
    fn lower(&mut self, value_type: Type<'c>) -> Option<Type<'c>> {
        if let Some(lowered) = self.lowered.get(&value_type) {
            return *lowered;
        }
        let lowered = self.lower_uncached(value_type);
        self.lowered.insert(value_type, lowered);
        lowered
    }

    fn lower_uncached(&mut self, value_type: Type<'c>) -> Option<Type<'c>> {
        if value_type == self.session || value_type == self.token {
            return Some(self.i64);
        }
        let Ok(function) = FunctionType::try_from(value_type) else {
            return (!ffi::type_nests_handle(value_type)).then_some(value_type);
        };
        let inputs = (0..function.input_count())
            .map(|i| self.lower(function.input(i).expect("index below input_count")))
            .collect::<Option<Vec<_>>>()?;
        let results = (0..function.result_count())
            .map(|i| self.lower(function.result(i).expect("index below result_count")))
            .collect::<Option<Vec<_>>>()?;
        // Types are uniqued: an unchanged signature gives back the same type.
        Some(FunctionType::new(self.context, &inputs, &results).into())
    }

    /// The places under `root` where a handle sits inside a type that has no
    /// lowering, each with its message.
    pub fn unsupported(&mut self, root: OperationRef<'c, '_>) -> Vec<(Location<'c>, String)> {
        let mut found = Vec::new();
        let mut last_reported = None;
        for_each_typed(root, |operation, typed| {
            let value_type = typed.r#type();
            // One error per op: a block argument and its function's signature
            // are one mistake.
            if last_reported != Some(operation) && self.lower(value_type).is_none() {
                last_reported = Some(operation);
                found.push((
                    operation.location(),
                    format!(
                        "cannot lower {value_type}: a session or token inside another type has no LLVM lowering; pass each handle as a value of its own"
                    ),
                ));
            }
        });
        found
    }

    /// Retypes every value and function signature under `root`; every type
    /// there must have a lowering ([`Self::unsupported`] found none).
    pub fn retype(&mut self, root: OperationRef<'c, '_>) {
        for_each_typed(root, |_, typed| {
            let value_type = typed.r#type();
            if let Some(lowered) = self.lower(value_type)
                && lowered != value_type
            {
                typed.set_type(lowered);
            }
        });
    }
}

/// Something under a root op that has a type of its own.
enum Typed<'c, 'a> {
    Result(OperationResult<'c, 'a>),
    Argument(BlockArgument<'c, 'a>),
    /// A type attribute of the op (a function's `function_type`, a
    /// reduction's `type`): its verifier checks it against the op's block
    /// arguments, which are retyped, so it must follow them.
    Attribute(OperationRef<'c, 'a>, Identifier<'c>, Type<'c>),
}

impl<'c> Typed<'c, '_> {
    fn r#type(&self) -> Type<'c> {
        match self {
            Self::Result(result) => result.r#type(),
            Self::Argument(argument) => argument.r#type(),
            Self::Attribute(_, _, attribute_type) => *attribute_type,
        }
    }

    fn set_type(&self, new: Type<'c>) {
        match self {
            Self::Result(result) => result.set_type(new),
            Self::Argument(argument) => argument.set_type(new),
            Self::Attribute(operation, name, _) => {
                ir::set_attribute_named(*operation, *name, TypeAttribute::new(new).into())
            }
        }
    }
}

/// Calls `visit` with every op under `root` (itself included) and each of
/// its results, block arguments and type attributes.
fn for_each_typed<'c, 'a>(
    root: OperationRef<'c, 'a>,
    mut visit: impl FnMut(OperationRef<'c, 'a>, Typed<'c, 'a>),
) {
    for operation in ir::collect_operations(root, |_| true) {
        for result in operation.results() {
            visit(operation, Typed::Result(result));
        }
        for region in operation.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    let argument = current.argument(index).expect("index below argument_count");
                    visit(operation, Typed::Argument(argument));
                }
                block = current.next_in_region();
            }
        }
        for index in 0..operation.attribute_count() {
            let (name, attribute) = operation
                .attribute_at(index)
                .expect("index below attribute_count");
            if let Ok(type_attribute) = TypeAttribute::try_from(attribute) {
                visit(
                    operation,
                    Typed::Attribute(operation, name, type_attribute.value()),
                );
            }
        }
    }
}
