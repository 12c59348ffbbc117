//! Sessions and tokens become `i64` wherever they appear: op results, block
//! arguments (function entries, `scf` regions, `cf` successors) and function
//! types, also nested ones (`func.constant`, `func.call_indirect`). Values are
//! retyped in place, so every op that carries a handle (`func.call`,
//! `scf.yield`, `cf.br`, ...) stays consistent without being rewritten.

use melior::{
    Context,
    ir::{
        BlockLike, OperationRef, RegionLike, Type, ValueLike,
        attribute::TypeAttribute,
        operation::OperationLike,
        r#type::{FunctionType, IntegerType},
    },
};

use super::ir;
use crate::dialect;

pub struct HandleTypes<'c> {
    context: &'c Context,
    pub session: Type<'c>,
    pub token: Type<'c>,
    i64: Type<'c>,
}

impl<'c> HandleTypes<'c> {
    pub fn new(context: &'c Context) -> Self {
        Self {
            context,
            session: dialect::session_type(context),
            token: dialect::token_type(context),
            i64: IntegerType::new(context, 64).into(),
        }
    }

    /// `value_type` with every session and token replaced by `i64`, also
    /// inside function types.
    pub fn lower(&self, value_type: Type<'c>) -> Type<'c> {
        if value_type == self.session || value_type == self.token {
            return self.i64;
        }
        let Ok(function) = FunctionType::try_from(value_type) else {
            return value_type;
        };
        let lower_all = |types: Vec<Type<'c>>| -> Vec<Type<'c>> {
            types.into_iter().map(|t| self.lower(t)).collect()
        };
        let inputs = lower_all(
            (0..function.input_count())
                .filter_map(|i| function.input(i).ok())
                .collect(),
        );
        let results = lower_all(
            (0..function.result_count())
                .filter_map(|i| function.result(i).ok())
                .collect(),
        );
        // Types are uniqued: an unchanged signature gives back the same type.
        FunctionType::new(self.context, &inputs, &results).into()
    }

    /// Retypes every value and function signature under `root`.
    pub fn retype(&self, root: OperationRef<'c, '_>) {
        for operation in ir::collect_operations(root, |_| true) {
            for result in operation.results() {
                let lowered = self.lower(result.r#type());
                if lowered != result.r#type() {
                    result.set_type(lowered);
                }
            }
            for region in operation.regions() {
                let mut block = region.first_block();
                while let Some(current) = block {
                    for index in 0..current.argument_count() {
                        let argument = current.argument(index).expect("index below argument_count");
                        let lowered = self.lower(argument.r#type());
                        if lowered != argument.r#type() {
                            argument.set_type(lowered);
                        }
                    }
                    block = current.next_in_region();
                }
            }
            self.retype_signature(operation);
        }
    }

    /// `func.func` and its kin keep their signature in a `function_type`
    /// attribute, which must follow their entry block's argument types.
    fn retype_signature(&self, operation: OperationRef<'c, '_>) {
        let Some(signature) = operation
            .attribute("function_type")
            .ok()
            .and_then(|attribute| TypeAttribute::try_from(attribute).ok())
            .map(|attribute| attribute.value())
        else {
            return;
        };
        let lowered = self.lower(signature);
        if lowered != signature {
            ir::set_attribute(
                operation,
                "function_type",
                TypeAttribute::new(lowered).into(),
            );
        }
    }
}
