//! What every lowering builds with: runtime calls declared in the current
//! symbol table, and the constants, globals and descriptor types that the
//! prologue of an allocation scope holds once for all its ops.

use executor_abi::functions::RuntimeFunction;
use melior::ir::{BlockLike, OperationRef, Type, Value, attribute::StringAttribute};

use super::{lowering::Lowering, memrefs::memref_rank, scopes::enclosing_symbol_table};
use crate::passes::{
    ir,
    llvm_builder::{Emitter, Prologue},
    module_symbols::{self, ModuleSymbols},
};

impl<'c, 'a> Lowering<'c, 'a> {
    /// `base + bytes`; `base` itself for a field at offset 0.
    pub(super) fn offset(
        &mut self,
        at: &Emitter<'c, 'a>,
        base: Value<'c, 'a>,
        bytes: u64,
    ) -> Value<'c, 'a> {
        if bytes == 0 {
            return base;
        }
        at.gep_bytes(base, self.constant(at, self.types.i64, bytes as i64))
    }

    /// The LLVM struct of MLIR's strided memref descriptor of `memref`'s rank.
    pub(super) fn descriptor_type(&mut self, memref: Type<'c>) -> Type<'c> {
        let rank = memref_rank(memref);
        let (context, types) = (self.context, self.types);
        *self
            .descriptors
            .entry(rank)
            .or_insert_with(|| types.descriptor(context, rank))
    }

    /// The prologue of the allocation scope of `at` that `at` uses.
    pub(super) fn prologue(&mut self, at: &Emitter<'c, 'a>) -> &mut Prologue<'c, 'a> {
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

    pub(super) fn constant(
        &mut self,
        at: &Emitter<'c, 'a>,
        value_type: Type<'c>,
        value: i64,
    ) -> Value<'c, 'a> {
        self.prologue(at).constant(value_type, value)
    }

    /// Makes the symbol table around `operation` the current one, creating
    /// its symbols on first use.
    pub(super) fn enter_symbol_table(
        &mut self,
        operation: OperationRef<'c, 'a>,
    ) -> Result<(), String> {
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
    pub(super) fn symbols(&mut self) -> &mut ModuleSymbols<'c, 'a> {
        &mut self.symbol_tables[self.current_symbols].1
    }

    pub(super) fn i64_array(&mut self, at: &Emitter<'c, 'a>, values: &[i64]) -> Value<'c, 'a> {
        if values.is_empty() {
            return self.prologue(at).null();
        }
        let name = self.symbols().i64_array(values);
        self.prologue(at).address_of(&name)
    }

    /// The address of a NUL-terminated global holding `text`.
    pub(super) fn string(&mut self, at: &Emitter<'c, 'a>, text: &[u8]) -> Value<'c, 'a> {
        let name = self.symbols().string(text);
        self.prologue(at).address_of(&name)
    }

    pub(super) fn string_of(
        &mut self,
        at: &Emitter<'c, 'a>,
        attribute: StringAttribute<'c>,
    ) -> Value<'c, 'a> {
        self.string(at, ir::string_bytes(attribute))
    }

    /// Calls `function`, declaring it first in the current symbol table.
    pub(super) fn call(
        &mut self,
        at: &Emitter<'c, 'a>,
        function: &'static RuntimeFunction,
        operands: &[Value<'c, 'a>],
    ) -> Result<Option<Value<'c, 'a>>, String> {
        self.symbols().declare(function)?;
        let result = function.result_type().map(|result| self.types.of(result));
        Ok(at.call(function.name, operands, result))
    }

    pub(super) fn call_with_result(
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
