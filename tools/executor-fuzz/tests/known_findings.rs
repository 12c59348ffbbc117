//! Entries of known-findings.txt checked against the upstream tool itself:
//! the entry's upstream-only reproducer still fails the way the fuzzer saw
//! it, the entry matches that finding, and it matches nothing near it (the
//! same failure in another place or another target). Once upstream fixes
//! the bug, its test fails: remove the entry then.

use std::{
    ffi::OsStr,
    fs,
    path::{Path, PathBuf},
    time::Duration,
};

use executor_fuzz::{
    compiler::{Target, run},
    shared::{
        findings::{Finding, Known},
        signature::{Kind, Signature},
    },
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn known() -> Known {
    Known::load(&root().join("tools/executor-fuzz/known-findings.txt")).unwrap()
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

/// What `mlir-translate --mlir-to-llvmir` does to `input`, as the fuzzer
/// classifies it; panics when it is no finding (the bug is fixed).
fn translate(name: &str, input: &str) -> Signature {
    let dir = std::env::temp_dir().join(format!("executor-fuzz-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input.mlir");
    fs::write(&file, input).unwrap();
    let mlir_translate = Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin/mlir-translate");
    let ran = run::run(
        &mlir_translate,
        &[OsStr::new("--mlir-to-llvmir"), file.as_os_str()],
        Duration::from_secs(60),
        &dir.join("run"),
    )
    .unwrap();
    fs::remove_dir_all(&dir).unwrap();
    run::classify(&ran).unwrap_or_else(|| {
        panic!(
            "mlir-translate no longer fails on the reproducer ({:?}): remove its entry\n{}",
            ran.exit, ran.stderr
        )
    })
}

/// `signature` of a translate finding matches the entry whose note says
/// `note`; the same signature of another target, and each of `near`, match
/// no entry.
fn assert_known_and_narrow(signature: &Signature, note: &str, near: &[&str]) {
    let known = known();
    let matched = known.matching(&finding(Target::Translate, signature.kind, &signature.text));
    assert!(
        matched.is_some_and(|matched| matched.contains(note)),
        "{signature:?} matches {matched:?}"
    );
    let elsewhere = finding(Target::Pipeline, signature.kind, &signature.text);
    assert_eq!(known.matching(&elsewhere), None);
    for text in near {
        let other = finding(Target::Translate, signature.kind, text);
        assert_eq!(known.matching(&other), None, "{text}");
    }
}

#[test]
fn mlir_translate_aborting_on_a_float_splat_global_of_2_pow_62_elements_is_known() {
    let signature = translate(
        "known-splat",
        "llvm.mlir.global internal @g(dense<0.0> : tensor<4611686018427387904xf32>) : !llvm.array<4611686018427387904 x f32>\n",
    );
    assert_known_and_narrow(
        &signature,
        "float splat global",
        &[
            "SIGABRT std::length_error mlir::LLVM::ModuleTranslation::convertOperation(mlir::Operation&, llvm::IRBuilderBase&, bool)",
            "SIGABRT std::bad_alloc mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute, mlir::Location, mlir::LLVM::ModuleTranslation const&)",
            "SIGABRT mlir::LLVM::detail::getLLVMConstant(llvm::Type*, mlir::Attribute, mlir::Location, mlir::LLVM::ModuleTranslation const&)",
        ],
    );
}

#[test]
fn mlir_translate_crashing_on_an_array_of_f8e4m3fn_is_known() {
    let signature = translate(
        "known-f8-array",
        "llvm.func @f() {\n  %one = llvm.mlir.constant(1 : i64) : i64\n  %p = llvm.alloca %one x !llvm.array<1 x f8E4M3FN> : (i64) -> !llvm.ptr\n  llvm.return\n}\n",
    );
    assert_known_and_narrow(
        &signature,
        "array of f8E4M3FN",
        &[
            "SIGSEGV llvm::VectorType::get(llvm::Type*, llvm::ElementCount)",
            "SIGABRT llvm::ArrayType::get(llvm::Type*, unsigned long)",
        ],
    );
}
