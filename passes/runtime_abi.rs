//! The C functions that lowered executor ops call: Catalyst's executor runtime
//! ABI, as written down in `include/executor_runtime.h` and `docs/runtime-abi.md`.
//! `size_t` is `i64` and `uint32_t`/`int32_t` are `i32` on the 64-bit hosts
//! this targets.

/// One runtime function: its symbol and its LLVM-dialect signature.
pub struct RuntimeFunction {
    pub name: &'static str,
    pub parameters: &'static str,
    pub result: Option<&'static str>,
}

impl RuntimeFunction {
    /// The `llvm.func` declaration of the function, in MLIR's textual form.
    pub fn declaration(&self) -> String {
        let result = self
            .result
            .map(|result| format!(" -> {result}"))
            .unwrap_or_default();
        format!("llvm.func @{}({}){result}", self.name, self.parameters)
    }
}

pub const OPEN: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__open",
    parameters: "!llvm.ptr",
    result: Some("i64"),
};

pub const SEND_BINARY: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__send_binary",
    parameters: "i64, !llvm.ptr, i32",
    result: Some("i64"),
};

/// `(session, entry_symbol, object, num_inputs, input_descs, input_ranks,
/// input_elem_sizes, num_outputs, output_descs, output_ranks, output_elem_sizes)`.
pub const LAUNCH: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__launch",
    parameters: "i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr",
    result: None,
};

pub const LAUNCH_ASYNC: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__launch_async",
    parameters: "i64, !llvm.ptr, !llvm.ptr",
    result: Some("i64"),
};

pub const AWAIT: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__await",
    parameters: "i64",
    result: None,
};

/// `(session, symbol, args_buf, args_size, out_buf*, out_size*) -> status`.
pub const CALL_WRAPPER: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__call_wrapper",
    parameters: "i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr",
    result: Some("i32"),
};

pub const FREE_RESULT: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__free_result",
    parameters: "!llvm.ptr",
    result: None,
};

pub const CLOSE: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__close",
    parameters: "i64",
    result: Some("i64"),
};

/// libc's allocator: the packed `call_wrapper` arguments and the results of a
/// call without output buffers live on the heap.
pub const MALLOC: RuntimeFunction = RuntimeFunction {
    name: "malloc",
    parameters: "i64",
    result: Some("!llvm.ptr"),
};

pub const FREE: RuntimeFunction = RuntimeFunction {
    name: "free",
    parameters: "!llvm.ptr",
    result: None,
};

/// The prefix of the symbol `executor.launch` runs by default: the C-interface
/// wrapper `llvm.emit_c_interface` makes, taking result descriptors first and
/// then one pointer per input descriptor.
pub const MLIR_CIFACE_PREFIX: &str = "_mlir_ciface_";

/// The prefix of the entry Catalyst generates for a kernel:
/// `void _catalyst_pyface_<callee>(results *, args *)`.
pub const CATALYST_PYFACE_PREFIX: &str = "_catalyst_pyface_";
