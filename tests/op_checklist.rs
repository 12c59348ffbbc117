//! The checklist of `docs/contributing.md` ("Adding an op"), checked: every
//! op that `td/ExecutorOps.td` defines and every runtime function that
//! `executor_abi::functions::RUNTIME` lists is in each place the checklist
//! names. A failure names each place that is missing. A scratch op,
//! `executor.ping` calling `__executor__ping`, is in none of them, and the
//! last tests make sure each place says so.

use std::{fs, path::Path};

use executor_abi::functions::{self, RuntimeFunction};

/// A place in the tree that an op, or a runtime function, must be in.
struct Place<T: ?Sized> {
    /// A file, or a folder whose files are searched together.
    path: &'static str,
    /// What must be there, as the checklist says it.
    what: &'static str,
    /// Whether `text` (the file's, or the folder's files') holds it.
    holds: fn(text: &str, of: &T) -> bool,
}

/// An op of the dialect, by its name without the dialect's prefix.
struct Op {
    name: String,
}

impl Op {
    fn mnemonic(&self) -> String {
        format!("executor.{}", self.name)
    }

    /// The name of the wrapper melior generates: `send_binary` gives
    /// `SendBinaryOperation`.
    fn wrapper(&self) -> String {
        let mut wrapper = String::new();
        for word in self.name.split('_') {
            let mut letters = word.chars();
            wrapper.extend(letters.next().map(|first| first.to_ascii_uppercase()));
            wrapper.push_str(letters.as_str());
        }
        wrapper + "Operation"
    }
}

const OP_PLACES: &[Place<Op>] = &[
    Place {
        path: "td/ExecutorOps.td",
        what: "its definition, `Executor_Op<\"NAME\", ...>`",
        holds: |text, op| text.contains(&format!("Executor_Op<\"{}\"", op.name)),
    },
    Place {
        path: "test/Dialect/ops.mlir",
        what: "its round-trip cases",
        holds: |text, op| mentions(text, &op.mnemonic()),
    },
    Place {
        path: "test/Dialect/invalid.mlir",
        what: "an `expected-error` case per rule of its verifier",
        holds: |text, op| mentions(text, &op.mnemonic()),
    },
    Place {
        path: "docs/dialect/executor.md",
        what: "its generated reference (`make docs`)",
        holds: |text, op| mentions(text, &op.mnemonic()),
    },
    Place {
        path: "src/passes/executor_ops.rs",
        what: "its line in `executor_ops!`, `Name(NameOperation): Effect(operand)`",
        holds: |text, op| text.contains(&format!("({}):", op.wrapper())),
    },
    Place {
        path: "src/passes/convert_executor_to_llvm",
        what: "its lowering, under a banner `// executor.NAME -> <runtime function>`",
        holds: |text, op| text.contains(&format!("// {} -> ", op.mnemonic())),
    },
    Place {
        path: "test/Conversion/ExecutorToLLVM",
        what: "a test of its lowering",
        holds: |text, op| mentions(text, &op.mnemonic()),
    },
    Place {
        path: "test/Runtime",
        what: "a test that runs it, on `local` and with `%with_server`",
        holds: |text, op| mentions(text, &op.mnemonic()),
    },
];

const FUNCTION_PLACES: &[Place<str>] = &[
    Place {
        path: "abi/src/functions.rs",
        what: "its `RuntimeFunction`, listed in `RUNTIME`",
        holds: |text, name| text.contains(&format!("name: \"{name}\"")),
    },
    Place {
        path: "include/executor_runtime.h",
        what: "its C declaration",
        holds: |text, name| text.contains(&format!("{name}(")),
    },
    Place {
        path: "docs/runtime-abi.md",
        what: "its row in the table of runtime functions",
        holds: |text, name| text.contains(&format!("{name}(")),
    },
    Place {
        path: "runtime/src/c_api",
        what: "its C entry point, `extern \"C\" fn NAME`",
        holds: |text, name| text.contains(&format!("extern \"C\" fn {name}(")),
    },
    Place {
        path: "tools/executor-run/src/ffi.rs",
        what: "its entry in executor-run's symbol table",
        holds: |text, name| text.contains(&format!("c_api::{name} ")),
    },
    Place {
        path: "test/Conversion/ExecutorToLLVM/Inputs/use-runtime-abi.c",
        what: "its address taken, so that the C compiler checks its declaration",
        holds: |text, name| text.contains(&format!("(void *){name},")),
    },
    Place {
        path: "src/passes/convert_executor_to_llvm",
        what: "the banner of the lowering that calls it",
        holds: |text, name| {
            text.lines()
                .any(|line| line.trim_start().starts_with("//") && mentions(line, name))
        },
    },
];

/// Whether `text` names `word` as a whole: `executor.launch` is not named by
/// `executor.launch_async`.
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(start, _)| {
        let continues = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let before = text[..start].chars().next_back();
        let after = text[start + word.len()..].chars().next();
        !before.is_some_and(continues) && !after.is_some_and(continues)
    })
}

/// The text of the file at `path` (from the repository's root), or of every
/// file under the folder at `path`, or of `path.rs` if the folder is a
/// module file.
fn text_of(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let full = root.join(path);
    if full.is_dir() {
        let mut text = String::new();
        append_folder(&full, &mut text);
        return text;
    }
    let file = if full.is_file() {
        full
    } else {
        root.join(format!("{path}.rs"))
    };
    fs::read_to_string(&file).unwrap_or_else(|error| panic!("{}: {error}", file.display()))
}

fn append_folder(folder: &Path, text: &mut String) {
    let mut entries: Vec<_> = fs::read_dir(folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            append_folder(&path, text);
        } else if let Ok(contents) = fs::read_to_string(&path) {
            text.push_str(&contents);
            text.push('\n');
        }
    }
}

/// The places `places` where `of` (called `label`) is missing, one line each.
fn missing<T: ?Sized>(places: &[Place<T>], of: &T, label: &str) -> Vec<String> {
    places
        .iter()
        .filter(|place| !(place.holds)(&text_of(place.path), of))
        .map(|place| format!("{label} is missing from {}: {}", place.path, place.what))
        .collect()
}

/// The ops `td/ExecutorOps.td` defines.
fn defined_ops() -> Vec<Op> {
    let td = text_of("td/ExecutorOps.td");
    td.split("Executor_Op<\"")
        .skip(1)
        .map(|rest| Op {
            name: rest[..rest.find('"').unwrap()].to_owned(),
        })
        .collect()
}

fn runtime_functions() -> impl Iterator<Item = &'static RuntimeFunction> {
    functions::RUNTIME.iter().copied()
}

#[test]
fn every_op_is_in_every_place() {
    let ops = defined_ops();
    assert!(
        ops.len() >= 7,
        "the ops of td/ExecutorOps.td were not found"
    );
    let missing: Vec<String> = ops
        .iter()
        .flat_map(|op| missing(OP_PLACES, op, &op.mnemonic()))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn every_runtime_function_is_in_every_place() {
    let missing: Vec<String> = runtime_functions()
        .flat_map(|function| missing(FUNCTION_PLACES, function.name, function.name))
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_checklist_names_every_place() {
    let checklist = text_of("docs/contributing.md");
    let paths = OP_PLACES
        .iter()
        .map(|place| place.path)
        .chain(FUNCTION_PLACES.iter().map(|place| place.path));
    let unnamed: Vec<&str> = paths
        .filter(|path| !checklist.contains(&format!("`{path}")))
        .collect();
    assert!(
        unnamed.is_empty(),
        "docs/contributing.md does not name {unnamed:?}"
    );
}

#[test]
fn a_scratch_op_is_missing_from_every_place_by_name() {
    let ping = Op {
        name: "ping".to_owned(),
    };
    let missing = missing(OP_PLACES, &ping, "executor.ping");
    assert_eq!(missing.len(), OP_PLACES.len(), "{missing:#?}");
    for (line, place) in missing.iter().zip(OP_PLACES) {
        assert!(line.starts_with("executor.ping is missing from "), "{line}");
        assert!(line.contains(place.path), "{line}");
    }
}

#[test]
fn a_scratch_runtime_function_is_missing_from_every_place_by_name() {
    let missing = missing(FUNCTION_PLACES, "__executor__ping", "__executor__ping");
    assert_eq!(missing.len(), FUNCTION_PLACES.len(), "{missing:#?}");
    for (line, place) in missing.iter().zip(FUNCTION_PLACES) {
        assert!(line.contains(place.path), "{line}");
    }
}

#[test]
fn a_name_is_mentioned_only_as_a_whole() {
    assert!(mentions("%0 = executor.launch %s", "executor.launch"));
    assert!(!mentions("executor.launch_async %s", "executor.launch"));
    assert!(!mentions("xexecutor.call", "executor.call"));
}
