//! Runs the lit/FileCheck suite under `test/` against the release build in
//! `target/release` (`cargo build --release` first: `cargo test` does not build
//! the plugin and runtime cdylibs; `make test` does both), so that the suite
//! is part of `cargo test`.
//!
//! As MLIR's out-of-tree `standalone` example lays it out, `test/lit.cfg.py`
//! holds the configuration and a generated site configuration carries what
//! belongs to one build: this test writes `lit/lit.site.cfg.py` beside the
//! executor-opt under test (`target/release/lit/`) and runs lit on that
//! directory, which is also where the tests run.

use std::{fs, path::Path, process::Command};

#[test]
fn lit_suite_passes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let llvm_prefix = Path::new(env!("EXECUTOR_LLVM_PREFIX"));
    let project_bin = Path::new(env!("CARGO_BIN_EXE_executor-opt"))
        .parent()
        .expect("the executor-opt binary lives in a directory");
    let lit = llvm_prefix.join("bin/lit");

    let site_dir = project_bin.join("lit");
    fs::create_dir_all(&site_dir).expect("cannot create the lit site directory");
    let site_config = site_config(root, llvm_prefix, project_bin, &site_dir);
    fs::write(site_dir.join("lit.site.cfg.py"), site_config).expect("cannot write lit.site.cfg.py");

    let status = Command::new(&lit)
        .current_dir(root)
        .arg("-v")
        .arg(&site_dir)
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

/// The site configuration: the paths of this build, then test/lit.cfg.py.
fn site_config(root: &Path, llvm_prefix: &Path, project_bin: &Path, site_dir: &Path) -> String {
    let path = |path: &Path| python_string(&path.display().to_string());
    let lit_exe = llvm_prefix.join("bin/lit");
    format!(
        "# Written by tests/lit.rs (`cargo test --release --test lit`) for the build in\n\
         # {bin}: the paths test/lit.cfg.py uses, then that file.\n\
         # By hand, the whole suite or the tests under one path of test/:\n\
         #   {lit_exe} -sv {site_dir}\n\
         #   {lit_exe} -sv {site_dir}/Dialect/ops.mlir\n\
         config.llvm_prefix = {llvm_prefix}\n\
         config.llvm_tools_dir = {llvm_tools_dir}\n\
         config.llvm_lib_dir = {llvm_lib_dir}\n\
         config.executor_tools_dir = {project_bin}\n\
         config.executor_exec_root = {exec_root}\n\
         config.executor_catalyst_root = {catalyst_root}\n\
         \n\
         import lit.llvm\n\
         \n\
         lit.llvm.initialize(lit_config, config)\n\
         lit_config.load_config(config, {lit_cfg})\n",
        bin = project_bin.display(),
        lit_exe = lit_exe.display(),
        site_dir = site_dir.display(),
        llvm_prefix = path(llvm_prefix),
        llvm_tools_dir = path(&llvm_prefix.join("bin")),
        llvm_lib_dir = path(&llvm_prefix.join("lib")),
        project_bin = path(project_bin),
        exec_root = path(site_dir),
        catalyst_root = path(&root.join("target/catalyst")),
        lit_cfg = path(&root.join("test/lit.cfg.py")),
    )
}

/// `text` as a Python string literal.
fn python_string(text: &str) -> String {
    let mut literal = String::from("\"");
    for character in text.chars() {
        match character {
            '\\' | '"' => {
                literal.push('\\');
                literal.push(character);
            }
            '\n' => literal.push_str("\\n"),
            _ => literal.push(character),
        }
    }
    literal.push('"');
    literal
}
