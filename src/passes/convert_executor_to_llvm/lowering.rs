//! The state the lowering of every op shares (phase 3 of the pass): the
//! types, symbol tables, prologues and stack slots of the module being
//! lowered. The lowerings (`sessions.rs`, `launches.rs`, `calls.rs`) are
//! methods on it.

use std::collections::HashMap;

use executor_abi::EntryConvention;
use melior::{
    Context,
    ir::{OperationRef, Type, Value},
};

use crate::passes::{
    llvm_builder::{LlvmTypes, Prologue, PrologueKey},
    module_symbols::ModuleSymbols,
};

/// The pass's name, which its diagnostics start with.
pub const ARGUMENT: &str = "convert-executor-to-llvm";

pub(super) struct Lowering<'c, 'a> {
    pub(super) context: &'c Context,
    pub(super) convention: EntryConvention,
    pub(super) types: LlvmTypes<'c>,
    /// The symbols of each symbol table that holds executor ops, by table op.
    pub(super) symbol_tables: Vec<(OperationRef<'c, 'a>, ModuleSymbols<'c, 'a>)>,
    /// The index in `symbol_tables` of the op being lowered.
    pub(super) current_symbols: usize,
    /// The LLVM struct type of a memref descriptor, per rank.
    pub(super) descriptors: HashMap<usize, Type<'c>>,
    /// The `coro.begin` of each allocation scope's entry block, if any, by
    /// the block's address: looked for once per scope, not once per op.
    pub(super) coroutine_begins: HashMap<usize, Option<OperationRef<'c, 'a>>>,
    /// The prologue of each allocation scope, by its site (one per scope;
    /// two in a coroutine, [`crate::passes::llvm_builder::PrologueSite`]).
    pub(super) prologues: HashMap<PrologueKey, Prologue<'c, 'a>>,
    /// Stack slots of launches, shared by the launches of one prologue with
    /// the same descriptor types (a launch only uses them during its call).
    pub(super) launch_frames:
        HashMap<(PrologueKey, Vec<Type<'c>>, Vec<Type<'c>>), LaunchFrame<'c, 'a>>,
    /// The two result slots of calls (`out_buf`, `out_size`), per prologue.
    pub(super) call_frames: HashMap<PrologueKey, (Value<'c, 'a>, Value<'c, 'a>)>,
}

/// What a generated accessor reports for IR the verifier accepted is a bug of
/// this pass; it becomes an error at the op.
pub(super) fn generated<T>(result: Result<T, melior::Error>) -> Result<T, String> {
    result.map_err(|error| format!("{ARGUMENT}: {error}"))
}

/// The stack slots of a launch: one descriptor per input and per result, and
/// an array of pointers to each group (null for an empty group).
#[derive(Clone)]
pub(super) struct LaunchFrame<'c, 'a> {
    pub(super) input_slots: Vec<Value<'c, 'a>>,
    pub(super) output_slots: Vec<Value<'c, 'a>>,
    pub(super) input_array: Value<'c, 'a>,
    pub(super) output_array: Value<'c, 'a>,
}
