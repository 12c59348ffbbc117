//! The runtime links LLVM's shared libLLVM (for ORC); its library, tests,
//! benches and examples find it in LLVM 22's lib directory. `cpp/` holds the
//! few ORC calls LLVM's C API lacks, compiled against the same LLVM.

use std::process::Command;

fn main() {
    let prefix = std::env::var("EXECUTOR_LLVM_PREFIX").expect(".cargo/config.toml sets it");
    println!("cargo:rerun-if-env-changed=EXECUTOR_LLVM_PREFIX");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
    // The library starts threads that outlive any call into it (the launch
    // deadlines' watchdog, async launches' threads) and installs signal
    // handlers. A host that unloads it at exit, as mlir-runner does (LLVM
    // closes the libraries it opened from its static destructors), would
    // unmap their code under them: a thread that happened to be running then
    // died of SIGSEGV (test/Runtime/launch-timeout.mlir, about 1 run in 100).
    // Marked NODELETE, it stays mapped until the process ends.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");

    let output = Command::new(format!("{prefix}/bin/llvm-config"))
        .arg("--cxxflags")
        .output()
        .expect("llvm-config runs (scripts/deps.sh installs it)");
    assert!(output.status.success(), "llvm-config --cxxflags failed");
    let cxxflags = String::from_utf8(output.stdout).expect("llvm-config prints UTF-8");
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .compiler(format!("{prefix}/bin/clang++"))
        .file("cpp/ObjectDylibs.cpp")
        .file("cpp/Initializers.cpp")
        .flag("-Wall")
        .flag("-Wextra");
    for flag in cxxflags.split_whitespace() {
        // LLVM's headers are system headers here: their warnings are not ours.
        match flag.strip_prefix("-I") {
            Some(include) => {
                build.flag("-isystem").flag(include);
            }
            None => {
                build.flag(flag);
            }
        }
    }
    build.compile("executor_runtime_cpp");
}
