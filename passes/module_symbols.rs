//! The module-level symbols the lowering adds: runtime declarations (once per
//! module) and internal constant globals (once per distinct content), under
//! readable names that never collide with the module's own symbols.

use std::collections::{HashMap, HashSet};

use melior::{
    Context,
    ir::{BlockLike, BlockRef, OperationRef, attribute::StringAttribute, operation::OperationLike},
};

use super::runtime_abi::RuntimeFunction;

pub struct ModuleSymbols<'c, 'a> {
    context: &'c Context,
    body: BlockRef<'c, 'a>,
    taken: HashSet<String>,
    strings: HashMap<String, String>,
    i64_arrays: HashMap<Vec<i64>, String>,
    declared: HashSet<&'static str>,
    last_inserted: Option<OperationRef<'c, 'a>>,
}

impl<'c, 'a> ModuleSymbols<'c, 'a> {
    pub fn new(context: &'c Context, body: BlockRef<'c, 'a>) -> Self {
        let mut taken = HashSet::new();
        let mut next = body.first_operation();
        while let Some(operation) = next {
            if let Ok(name) = operation.attribute("sym_name")
                && let Ok(name) = StringAttribute::try_from(name)
            {
                taken.insert(name.value().to_owned());
            }
            next = operation.next_in_block();
        }
        Self {
            context,
            body,
            taken,
            strings: HashMap::new(),
            i64_arrays: HashMap::new(),
            declared: HashSet::new(),
            last_inserted: None,
        }
    }

    /// Declares `function` unless it is declared already. A symbol of that name
    /// with another type is an error, reported at `location`.
    pub fn declare(&mut self, function: &RuntimeFunction) -> Result<(), String> {
        if self.declared.contains(function.name) {
            return Ok(());
        }
        let declaration = self.parse(&function.declaration());
        if self.taken.contains(function.name) {
            let existing = self
                .find(function.name)
                .expect("a taken symbol names an operation of the module");
            let same = existing.name().as_string_ref().as_str() == Ok("llvm.func")
                && existing.attribute("function_type").ok()
                    == declaration.attribute("function_type").ok();
            if !same {
                return Err(format!(
                    "the module already defines the symbol '{}' of the executor runtime ABI with another type; expected `{}`",
                    function.name,
                    function.declaration()
                ));
            }
        } else {
            self.insert(declaration);
            self.taken.insert(function.name.to_owned());
        }
        self.declared.insert(function.name);
        Ok(())
    }

    /// The name of an internal constant global that holds `text` followed by a
    /// NUL byte.
    pub fn string(&mut self, text: &str) -> String {
        if let Some(name) = self.strings.get(text) {
            return name.clone();
        }
        let name = self.unique_name(&format!("__executor_str_{}", sanitize(text)));
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        self.insert_global(
            &name,
            &format!("\"{}\"", escape(&bytes)),
            &format!("!llvm.array<{} x i8>", bytes.len()),
        );
        self.strings.insert(text.to_owned(), name.clone());
        name
    }

    /// The name of an internal constant global that holds `values` as `i64`s.
    pub fn i64_array(&mut self, values: &[i64]) -> String {
        if let Some(name) = self.i64_arrays.get(values) {
            return name.clone();
        }
        let joined: Vec<String> = values.iter().map(i64::to_string).collect();
        let name = self.unique_name(&format!("__executor_i64s_{}", sanitize(&joined.join("_"))));
        let value = format!(
            "dense<[{}]> : tensor<{}xi64>",
            joined.join(", "),
            values.len()
        );
        self.insert_global(
            &name,
            &value,
            &format!("!llvm.array<{} x i64>", values.len()),
        );
        self.i64_arrays.insert(values.to_vec(), name.clone());
        name
    }

    fn insert_global(&mut self, name: &str, value: &str, global_type: &str) {
        let global = self.parse(&format!(
            "llvm.mlir.global internal constant @{name}({value}) {{addr_space = 0 : i32}} : {global_type}"
        ));
        self.insert(global);
    }

    fn unique_name(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut suffix = 0;
        while self.taken.contains(&name) {
            suffix += 1;
            name = format!("{base}_{suffix}");
        }
        self.taken.insert(name.clone());
        name
    }

    fn parse(&self, source: &str) -> melior::ir::Operation<'c> {
        crate::ffi::parse_operation(
            self.context,
            source,
            super::convert_executor_to_llvm::ARGUMENT,
        )
        .unwrap_or_else(|| panic!("the lowering's own declaration does not parse: {source}"))
    }

    /// Keeps the added symbols together at the top of the module, in the order
    /// they were added.
    fn insert(&mut self, operation: melior::ir::Operation<'c>) {
        let inserted = match self.last_inserted {
            Some(previous) => self.body.insert_operation_after(previous, operation),
            None => self.body.insert_operation(0, operation),
        };
        self.last_inserted = Some(inserted);
    }

    fn find(&self, name: &str) -> Option<OperationRef<'c, 'a>> {
        let mut next = self.body.first_operation();
        while let Some(operation) = next {
            if operation
                .attribute("sym_name")
                .ok()
                .and_then(|attribute| StringAttribute::try_from(attribute).ok())
                .is_some_and(|symbol| symbol.value() == name)
            {
                return Some(operation);
            }
            next = operation.next_in_block();
        }
        None
    }
}

/// A readable piece of a symbol name: letters, digits and `_`, at most 40 of them.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect()
}

/// MLIR string-literal escaping: printable ASCII as is, everything else as `\XX`.
fn escape(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&byte| match byte {
            b'"' | b'\\' => format!("\\{byte:02X}"),
            0x20..=0x7e => char::from(byte).to_string(),
            _ => format!("\\{byte:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_keeps_identifier_characters_only() {
        assert_eq!(sanitize("127.0.0.1:9000"), "127_0_0_1_9000");
        assert_eq!(sanitize("kernels.o"), "kernels_o");
        assert_eq!(sanitize(&"x".repeat(100)).len(), 40);
    }

    #[test]
    fn escape_hex_encodes_quotes_backslashes_and_control_bytes() {
        assert_eq!(escape(b"a\"b\\c\n\0"), "a\\22b\\5Cc\\0A\\00");
        assert_eq!(escape("é".as_bytes()), "\\C3\\A9");
    }
}
