//! Entries of known-findings.txt checked against the upstream tool itself:
//! the entry's upstream-only reproducer still fails the way the fuzzer saw
//! it, the entry matches that finding, and it matches nothing near it (the
//! same exception thrown elsewhere, another exception in the same place).
//! Once upstream fixes the bug, the test fails: remove the entry then.

use std::{
    ffi::OsStr,
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use executor_fuzz::{
    compiler::Target,
    findings::{Finding, Known},
    run::{self, Kind, Signature},
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn known() -> Known {
    Known::load(&root().join("tools/executor-fuzz/known-findings.txt")).unwrap()
}

fn mlir_translate() -> PathBuf {
    Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin/mlir-translate")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("executor-fuzz-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn finding(target: Target, kind: Kind, text: &str) -> Finding {
    Finding {
        target: target.name().to_owned(),
        signature: Signature {
            kind,
            text: text.to_owned(),
        },
        input: Vec::new(),
        extension: "mlir",
        reproduce: String::new(),
        detail: String::new(),
        origin: String::new(),
        minimized: None,
        count: 1,
        known: None,
    }
}

#[test]
fn mlir_translate_aborting_on_a_float_splat_global_of_2_pow_62_elements_is_known() {
    let dir = scratch("known-splat");
    let input = dir.join("splat.mlir");
    fs::write(
        &input,
        "llvm.mlir.global internal @g(dense<0.0> : tensor<4611686018427387904xf32>) : !llvm.array<4611686018427387904 x f32>\n",
    )
    .unwrap();
    let ran = run::run(
        &mlir_translate(),
        &[OsStr::new("--mlir-to-llvmir"), input.as_os_str()],
        Duration::from_secs(60),
        &dir.join("run"),
    )
    .unwrap();
    let signature = run::classify(&ran).unwrap_or_else(|| {
        panic!(
            "mlir-translate no longer fails on the reproducer ({:?}): remove its entry\n{}",
            ran.exit, ran.stderr
        )
    });
    let found = finding(Target::Translate, signature.kind, &signature.text);
    let known = known();
    let note = known.matching(&found);
    assert!(
        note.is_some_and(|note| note.contains("float splat global")),
        "{signature:?} matches {note:?}\n{}",
        ran.stderr
    );

    for near in [
        "SIGABRT std::length_error mlir::LLVM::ModuleTranslation::convertOperation(mlir::Operation&, llvm::IRBuilderBase&, bool)",
        "SIGABRT std::bad_alloc mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute, mlir::Location, mlir::LLVM::ModuleTranslation const&)",
        "SIGABRT mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute, mlir::Location, mlir::LLVM::ModuleTranslation const&)",
    ] {
        let other = finding(Target::Translate, Kind::Crash, near);
        assert_eq!(known.matching(&other), None, "{near}");
    }
    let elsewhere = finding(Target::Pipeline, signature.kind, &signature.text);
    assert_eq!(known.matching(&elsewhere), None);
    fs::remove_dir_all(dir).unwrap();
}
