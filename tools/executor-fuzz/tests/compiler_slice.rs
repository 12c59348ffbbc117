//! `make test`'s slice of the compiler fuzzer: a fixed seed and a fixed
//! number of inputs through every target (a few seconds), failing on any
//! finding that is not in known-findings.txt; and the fuzzer catching,
//! isolating and minimizing a crash planted in a fake executor-opt.
//!
//! Needs the release build (`make test` builds it first).

use std::{
    fs,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    time::Duration,
};

use executor_fuzz::{
    compiler::{Fuzzer, Options, Target, Tools, corpus},
    shared::{findings::Known, minimize::Budget, signature::Kind},
};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// target/release (or wherever this build's binaries are).
fn project_bin() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_executor-fuzz"))
        .parent()
        .expect("binaries live in a directory")
        .to_owned()
}

fn llvm_bin() -> PathBuf {
    Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("executor-fuzz-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn options(work_dir: PathBuf, inputs: usize, minimize: usize) -> Options {
    Options {
        seed: 1,
        time: None,
        inputs: Some(inputs),
        jobs: 2,
        batch: 16,
        timeout: Duration::from_secs(20),
        minimize: Budget {
            tests: minimize,
            time: Duration::from_secs(120),
        },
        work_dir,
    }
}

#[test]
fn a_fixed_slice_of_the_compiler_fuzzer_finds_nothing_new() {
    let tools = Tools::new(&project_bin(), &llvm_bin(), true)
        .expect("the release build is there (make test builds it first)");
    let seeds = corpus::load(&root()).unwrap();
    let work = scratch("compiler-slice");
    let fuzzer = Fuzzer {
        tools: &tools,
        options: options(work.clone(), 96, 0),
    };
    let mut log = |line: &str| eprintln!("{line}");
    let mut report = fuzzer.run(&seeds, &mut log).unwrap();
    let known = Known::load(&root().join("tools/executor-fuzz/known-findings.txt")).unwrap();
    report.findings.mark_known(&known);
    eprintln!("{}", report.stats.per_target());
    assert_eq!(report.stats.inputs, 96);
    // Enough of the slice reaches the pass and the pipeline to mean something.
    assert!(
        report.stats.accepted["parse"] >= 15,
        "{}",
        report.stats.per_target()
    );
    assert!(
        report.stats.accepted["pass"] >= 10,
        "{}",
        report.stats.per_target()
    );
    assert!(
        report.stats.ran["translate"] >= 10,
        "{}",
        report.stats.per_target()
    );
    let new: Vec<String> = report
        .findings
        .new_ones()
        .iter()
        .map(|f| {
            format!(
                "{}\n  reproduce: {}\n  input ({}):\n{}\n{}",
                f.summary(),
                f.reproduce,
                f.origin,
                String::from_utf8_lossy(&f.input),
                f.detail
            )
        })
        .collect();
    assert!(new.is_empty(), "new findings:\n{}", new.join("\n"));
    fs::remove_dir_all(work).unwrap();
}

/// A fake executor-opt that dies of SIGSEGV on any input holding
/// `executor.launch`, and is the real one otherwise.
fn planted_executor_opt(dir: &Path) -> PathBuf {
    let script = dir.join("executor-opt");
    let real = project_bin().join("executor-opt");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do\n  case \"$a\" in\n    -*) ;;\n    *) if [ -f \"$a\" ] && grep -q 'executor.launch' \"$a\"; then kill -SEGV $$; fi ;;\n  esac\ndone\nexec '{}' \"$@\"\n",
            real.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[test]
fn a_planted_crash_is_found_isolated_and_minimized() {
    let work = scratch("planted");
    let mut tools = Tools::new(&project_bin(), &llvm_bin(), false).unwrap();
    tools.executor_opt = planted_executor_opt(&work);
    let seeds = corpus::load(&root()).unwrap();
    let fuzzer = Fuzzer {
        tools: &tools,
        options: options(work.join("work"), 32, 300),
    };
    let report = fuzzer.run(&seeds, &mut |_| {}).unwrap();
    let crash = report
        .findings
        .iter()
        .find(|f| f.target == Target::Parse.name() && f.signature.kind == Kind::Crash)
        .unwrap_or_else(|| {
            let all: Vec<String> = report.findings.iter().map(|f| f.summary()).collect();
            panic!("the planted crash was not found; findings: {all:?}")
        });
    assert!(
        crash.signature.text.starts_with("SIGSEGV"),
        "{}",
        crash.signature.text
    );
    // Found on single inputs (isolated from their batch), not as a whole batch.
    assert!(
        !crash.reproduce.contains("--split-input-file"),
        "{}",
        crash.reproduce
    );
    let minimized = String::from_utf8(crash.minimized.clone().expect("minimized")).unwrap();
    assert!(minimized.contains("executor.launch"), "{minimized}");
    assert!(
        minimized.trim().len() <= "executor.launch_async".len() + 2,
        "{minimized:?}"
    );
    fs::remove_dir_all(work).unwrap();
}
