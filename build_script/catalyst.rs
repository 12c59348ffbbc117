//! What the build of the Catalyst plugin (`EXECUTOR_MLIR_HOST=catalyst`) adds to
//! the root build script: copies of the headers whose classes the `catalyst`
//! binary's LLVM (22.0.0git 8f264586) lays out differently from the 22.1.8
//! headers this project builds with, and the C++ that only the Catalyst plugin
//! compiles. docs/catalyst.md has the evidence.

use std::{error::Error, fs, path::Path};

/// C++ compiled into the Catalyst plugin only: the passes that run
/// executor-opt in a child process.
pub const CPP_SOURCES: &[&str] = &["cpp/catalyst/OutOfProcessPasses.cpp"];

/// One textual change to a header: `from`, which must occur exactly once,
/// becomes `to`.
struct Edit {
    from: &'static str,
    to: &'static str,
}

/// `OpAsmPrinter`'s virtual table as in the binary: there `printNewline`,
/// `increaseIndent` and `decreaseIndent` are pure virtual functions of
/// `OpAsmPrinter` after `printOptionalLocationSpecifier`, while 22.1.8 has them
/// in `AsmPrinter` before `printFloat`. Against the 22.1.8 layout every virtual
/// call of the generated op printers landed three entries off in the binary's
/// table (printType on printNamedAttribute) and crashed it.
const OP_ASM_PRINTER: &[Edit] = &[
    Edit {
        from: "  virtual void printNewline();\n",
        to: "",
    },
    Edit {
        from: "  virtual void increaseIndent();\n",
        to: "",
    },
    Edit {
        from: "  virtual void decreaseIndent();\n",
        to: "",
    },
    Edit {
        from: "  virtual void printOptionalLocationSpecifier(Location loc) = 0;\n",
        to: "  virtual void printOptionalLocationSpecifier(Location loc) = 0;\n\n  \
             // As in Catalyst's LLVM (build_script/catalyst.rs moved them here from AsmPrinter).\n  \
             virtual void printNewline() = 0;\n  \
             virtual void increaseIndent() = 0;\n  \
             virtual void decreaseIndent() = 0;\n",
    },
];

/// `cl::SubCommand::OptionsMap`, the option table of every pass
/// (`PassOptions` derives from `SubCommand`), is a `StringMap` in the binary
/// (its exported CommandLine.cpp functions take
/// `StringMap<cl::Option *, MallocAllocator>`) and a `DenseMap` in 22.1.8. Against
/// the 22.1.8 layout a pass with an option crashed the binary when the pass was
/// destroyed; with this one a probe pass with a string and a bool option parses,
/// prints and runs in it (docs/catalyst.md).
const SUBCOMMAND: &[Edit] = &[
    Edit {
        from: "#include \"llvm/ADT/StringRef.h\"\n",
        to: "#include \"llvm/ADT/StringMap.h\"\n#include \"llvm/ADT/StringRef.h\"\n",
    },
    Edit {
        from: "  DenseMap<StringRef, Option *> OptionsMap;\n",
        to: "  StringMap<Option *> OptionsMap; // As in Catalyst's LLVM (build_script/catalyst.rs).\n",
    },
];

/// Writes into `include` (searched before LLVM's own headers) the copies of
/// `mlir/IR/OpImplementation.h` and `llvm/Support/CommandLine.h` with the
/// binary's layout. The two tables above are every difference between the two
/// LLVMs found in the classes the plugin uses: the virtual tables were read from
/// both binaries and compared class by class, and `OptionsMap` from the
/// binary's symbols (docs/catalyst.md).
///
/// Fails when a header no longer has the text to change, so a new LLVM is
/// noticed here and not by a crash in Catalyst.
pub fn headers_as_in_catalyst(prefix: &Path, include: &Path) -> Result<(), Box<dyn Error>> {
    adjusted_copy(
        prefix,
        include,
        "mlir/IR/OpImplementation.h",
        OP_ASM_PRINTER,
    )?;
    adjusted_copy(prefix, include, "llvm/Support/CommandLine.h", SUBCOMMAND)
}

fn adjusted_copy(
    prefix: &Path,
    include: &Path,
    header: &str,
    edits: &[Edit],
) -> Result<(), Box<dyn Error>> {
    let original = prefix.join("include").join(header);
    println!("cargo:rerun-if-changed={}", original.display());
    let mut text = fs::read_to_string(&original)?;
    for edit in edits {
        if text.matches(edit.from).count() != 1 {
            return Err(format!(
                "{} does not have `{}` exactly once: its Catalyst copy (build_script/catalyst.rs) \
                 needs to be redone for this LLVM",
                original.display(),
                edit.from.trim()
            )
            .into());
        }
        text = text.replacen(edit.from, edit.to, 1);
    }
    let target = include.join(header);
    fs::create_dir_all(target.parent().expect("a header path has a directory"))?;
    fs::write(target, text)?;
    Ok(())
}
