//! Runs the lit/FileCheck suite under `test/` against the release build in
//! `target/release` (`cargo build --release` first: `cargo test` does not build
//! the plugin and runtime cdylibs; `make test` does both), so that the suite
//! is part of `cargo test`.

use std::{path::Path, process::Command};

#[test]
fn lit_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let llvm_prefix = env!("EXECUTOR_LLVM_PREFIX");
    let project_bin = Path::new(env!("CARGO_BIN_EXE_executor-opt"))
        .parent()
        .expect("the executor-opt binary lives in a directory");
    let lit = Path::new(llvm_prefix).join("bin/lit");

    let status = Command::new(&lit)
        .current_dir(root)
        .arg("-v")
        .arg(format!("--param=llvm_prefix={llvm_prefix}"))
        .arg(format!("--param=project_bin={}", project_bin.display()))
        .arg("test")
        .status()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run {}: {error} (run scripts/deps.sh)",
                lit.display()
            )
        });
    assert!(
        status.success(),
        "lit reported failing tests (see its report above)"
    );
}
