//! The C functions that lowered executor ops call, with their C signatures.
//! Their LLVM-dialect types follow from the C types on the 64-bit hosts this
//! project targets: `size_t` and `int64_t` are `i64`, `int32_t` and
//! `uint32_t` are `i32`, every pointer is `ptr`.

/// The LLVM-dialect type of a C parameter or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LlvmType {
    I32,
    I64,
    Ptr,
}

impl LlvmType {
    /// The LLVM type of the C type `c_type`.
    ///
    /// # Panics
    ///
    /// On a C type that no function of the ABI uses; the tests call every
    /// function's types.
    pub const fn of_c_type(c_type: &str) -> Self {
        let bytes = c_type.as_bytes();
        if !bytes.is_empty() && bytes[bytes.len() - 1] == b'*' {
            return Self::Ptr;
        }
        match bytes {
            b"int64_t" | b"size_t" => Self::I64,
            b"int32_t" | b"uint32_t" => Self::I32,
            _ => panic!("a C type the executor ABI does not use"),
        }
    }

    /// Its spelling in MLIR's LLVM dialect.
    pub const fn mlir(self) -> &'static str {
        match self {
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::Ptr => "ptr",
        }
    }
}

/// One C function: its symbol, result and parameters.
#[derive(Debug)]
pub struct RuntimeFunction {
    pub name: &'static str,
    /// The C result type; None for `void`.
    pub result: Option<&'static str>,
    /// `(C type, name)` of each parameter. Pointer types end with `*`.
    pub parameters: &'static [(&'static str, &'static str)],
}

impl RuntimeFunction {
    pub fn result_type(&self) -> Option<LlvmType> {
        self.result.map(LlvmType::of_c_type)
    }

    pub fn parameter_types(&self) -> impl ExactSizeIterator<Item = LlvmType> + '_ {
        self.parameters
            .iter()
            .map(|(c_type, _)| LlvmType::of_c_type(c_type))
    }

    /// The C declaration, e.g. `int64_t __catalyst__executor__open(const char *addr);`.
    pub fn c_declaration(&self) -> String {
        let parameters: Vec<String> = self
            .parameters
            .iter()
            .map(|(c_type, name)| {
                if c_type.ends_with('*') {
                    format!("{c_type}{name}")
                } else {
                    format!("{c_type} {name}")
                }
            })
            .collect();
        format!(
            "{} {}({});",
            self.result.unwrap_or("void"),
            self.name,
            parameters.join(", ")
        )
    }

    /// The LLVM function type, e.g. `i64 (ptr)`.
    pub fn llvm_signature(&self) -> String {
        let parameters: Vec<&str> = self.parameter_types().map(LlvmType::mlir).collect();
        format!(
            "{} ({})",
            self.result_type().map_or("void", LlvmType::mlir),
            parameters.join(", ")
        )
    }
}

/// `executor.open`: opens (or returns the already open) session with the
/// executor at `addr`.
pub const OPEN: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__open",
    result: Some("int64_t"),
    parameters: &[("const char *", "addr")],
};

/// `executor.send_binary`: loads the file at `path` into the session.
pub const SEND_BINARY: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__send_binary",
    result: Some("int64_t"),
    parameters: &[
        ("int64_t", "session"),
        ("const char *", "path"),
        ("uint32_t", "format"),
    ],
};

/// `executor.launch`: runs a kernel with memref descriptors and waits for it.
pub const LAUNCH: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__launch",
    result: None,
    parameters: &[
        ("int64_t", "session"),
        ("const char *", "entry_symbol"),
        ("const char *", "object"),
        ("size_t", "num_inputs"),
        ("void *const *", "input_descs"),
        ("const size_t *", "input_ranks"),
        ("const size_t *", "input_elem_sizes"),
        ("size_t", "num_outputs"),
        ("void *const *", "output_descs"),
        ("const size_t *", "output_ranks"),
        ("const size_t *", "output_elem_sizes"),
    ],
};

/// `executor.launch` under the default entry convention: [`LAUNCH`] with the
/// arguments a launch op fixes in its launch site ([`crate::launch_site`]),
/// whose cache resolves the entry on the site's first launch and calls it
/// directly on the next ones. This project's own: Catalyst's runtime has no
/// such function, so code lowered for Catalyst's convention calls [`LAUNCH`].
pub const LAUNCH_AT_SITE: RuntimeFunction = RuntimeFunction {
    name: "__executor__launch_at_site",
    result: None,
    parameters: &[
        ("struct executor_launch_site *", "site"),
        ("int64_t", "session"),
        ("void *const *", "input_descs"),
        ("void *const *", "output_descs"),
    ],
};

/// `executor.launch_async`: starts an entry without arguments; returns a token.
pub const LAUNCH_ASYNC: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__launch_async",
    result: Some("int64_t"),
    parameters: &[
        ("int64_t", "session"),
        ("const char *", "entry_symbol"),
        ("const char *", "object"),
    ],
};

/// `executor.await`: blocks until the launch behind a token has finished.
pub const AWAIT: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__await",
    result: None,
    parameters: &[("int64_t", "token")],
};

/// `executor.call`: calls a symbol with the buffers packed as
/// [`crate::call_buffer`] lays them out.
pub const CALL_WRAPPER: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__call_wrapper",
    result: Some("int32_t"),
    parameters: &[
        ("int64_t", "session"),
        ("const char *", "symbol"),
        ("const char *", "args_buf"),
        ("size_t", "args_size"),
        ("void **", "out_buf"),
        ("size_t *", "out_size"),
    ],
};

/// `executor.call`: releases the result buffer of [`CALL_WRAPPER`].
pub const FREE_RESULT: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__free_result",
    result: None,
    parameters: &[("void *", "buf")],
};

/// `executor.close`: waits for the session's launches and releases it.
pub const CLOSE: RuntimeFunction = RuntimeFunction {
    name: "__catalyst__executor__close",
    result: Some("int64_t"),
    parameters: &[("int64_t", "session")],
};

/// Every function of the runtime, in the order of `include/executor_runtime.h`.
pub const RUNTIME: [&RuntimeFunction; 9] = [
    &OPEN,
    &SEND_BINARY,
    &LAUNCH,
    &LAUNCH_AT_SITE,
    &LAUNCH_ASYNC,
    &AWAIT,
    &CALL_WRAPPER,
    &FREE_RESULT,
    &CLOSE,
];

/// libc's allocator, which the lowered code calls too: the packed
/// `call_wrapper` arguments and the results of a call without output buffers
/// live on the heap.
pub const MALLOC: RuntimeFunction = RuntimeFunction {
    name: "malloc",
    result: Some("void *"),
    parameters: &[("size_t", "size")],
};

pub const FREE: RuntimeFunction = RuntimeFunction {
    name: "free",
    result: None,
    parameters: &[("void *", "ptr")],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_launch_site_describes_launch_arguments_under_their_names_and_types() {
        use crate::launch_site::{DESCRIPTION, field::OUTPUT_SIZES};
        // The results' static sizes are the site's own: Catalyst's launch
        // passes none.
        let (_, own) = DESCRIPTION[OUTPUT_SIZES];
        assert!(LAUNCH.parameters.iter().all(|(_, name)| *name != own));
        for field in &DESCRIPTION[..OUTPUT_SIZES] {
            assert!(
                LAUNCH.parameters.contains(field),
                "{field:?} is not a parameter of {}",
                LAUNCH.name
            );
        }
        // What the site does not hold, the call passes.
        let passed: Vec<&str> = LAUNCH_AT_SITE
            .parameters
            .iter()
            .map(|(_, name)| *name)
            .collect();
        for (_, name) in LAUNCH.parameters {
            let in_site = crate::launch_site::DESCRIPTION
                .iter()
                .any(|(_, field)| field == name);
            assert!(
                in_site != passed.contains(name),
                "{name}: in the site and passed, or neither"
            );
        }
    }

    #[test]
    fn declarations_and_signatures_are_spelled_as_c_and_mlir_spell_them() {
        assert_eq!(
            OPEN.c_declaration(),
            "int64_t __catalyst__executor__open(const char *addr);"
        );
        assert_eq!(OPEN.llvm_signature(), "i64 (ptr)");
        assert_eq!(
            CALL_WRAPPER.llvm_signature(),
            "i32 (i64, ptr, ptr, i64, ptr, ptr)"
        );
        assert_eq!(FREE_RESULT.llvm_signature(), "void (ptr)");
        assert_eq!(LAUNCH_AT_SITE.llvm_signature(), "void (ptr, i64, ptr, ptr)");
        for function in RUNTIME.iter().copied().chain([&MALLOC, &FREE]) {
            // Every C type maps to an LLVM type (of_c_type panics otherwise).
            assert_eq!(function.parameter_types().len(), function.parameters.len());
            let _ = function.result_type();
        }
    }
}
