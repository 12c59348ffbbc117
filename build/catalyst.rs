//! What the build of the Catalyst plugin (`EXECUTOR_MLIR_HOST=catalyst`) adds to
//! the root build script: the header the `catalyst` binary's LLVM lays out
//! differently from the 22.1.8 headers this project builds with, and the C++
//! that only the Catalyst plugin compiles. docs/catalyst.md has the evidence.

use std::{error::Error, fs, path::Path};

/// C++ compiled into the Catalyst plugin only: the passes that run
/// executor-opt in a child process.
pub const CPP_SOURCES: &[&str] = &["cpp/catalyst/OutOfProcessPasses.cpp"];

/// The three declarations that sit in a different class in the two LLVMs.
const MOVED: [&str; 3] = [
    "  virtual void printNewline();\n",
    "  virtual void increaseIndent();\n",
    "  virtual void decreaseIndent();\n",
];

/// The declaration in `OpAsmPrinter` after which Catalyst's LLVM has them.
const ANCHOR: &str = "  virtual void printOptionalLocationSpecifier(Location loc) = 0;\n";

/// Writes into `include` (searched before LLVM's own headers) a copy of
/// `mlir/IR/OpImplementation.h` whose `OpAsmPrinter` has the virtual table of
/// the `catalyst` binary (LLVM 22.0.0git 8f264586): there, `printNewline`,
/// `increaseIndent` and `decreaseIndent` are pure virtual functions of
/// `OpAsmPrinter` after `printOptionalLocationSpecifier`, while 22.1.8 has them
/// in `AsmPrinter` before `printFloat`. Compiled against the 22.1.8 layout, every
/// virtual call of the generated op printers lands three entries off in the
/// binary's table (printType on printNamedAttribute). The two tables were read
/// from the binaries' vtables (docs/catalyst.md lists them); no other class the
/// plugin uses has a different virtual table.
///
/// Fails when the header no longer has the declarations where expected, so a
/// new LLVM is noticed here and not by a crash in Catalyst.
pub fn op_asm_printer_as_in_catalyst(prefix: &Path, include: &Path) -> Result<(), Box<dyn Error>> {
    let original = prefix.join("include/mlir/IR/OpImplementation.h");
    println!("cargo:rerun-if-changed={}", original.display());
    let mut text = fs::read_to_string(&original)?;
    for declaration in MOVED {
        if text.matches(declaration).count() != 1 {
            return Err(format!(
                "{} does not declare `{}` once in AsmPrinter: the Catalyst copy of it \
                 (build/catalyst.rs) needs to be redone for this LLVM",
                original.display(),
                declaration.trim()
            )
            .into());
        }
        text = text.replacen(declaration, "", 1);
    }
    if text.matches(ANCHOR).count() != 1 {
        return Err(format!(
            "{} has no `{}` to put OpAsmPrinter's printNewline after",
            original.display(),
            ANCHOR.trim()
        )
        .into());
    }
    let catalyst_layout = format!(
        "{ANCHOR}\n  // As in Catalyst's LLVM (build/catalyst.rs moved them here from AsmPrinter).\n  \
         virtual void printNewline() = 0;\n  virtual void increaseIndent() = 0;\n  \
         virtual void decreaseIndent() = 0;\n"
    );
    let text = text.replacen(ANCHOR, &catalyst_layout, 1);
    let target = include.join("mlir/IR");
    fs::create_dir_all(&target)?;
    fs::write(target.join("OpImplementation.h"), text)?;
    Ok(())
}
