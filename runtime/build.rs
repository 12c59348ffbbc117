//! The runtime links LLVM's shared libLLVM (for ORC); its library, tests,
//! benches and examples find it in LLVM 22's lib directory.

fn main() {
    let prefix = std::env::var("EXECUTOR_LLVM_PREFIX").expect(".cargo/config.toml sets it");
    println!("cargo:rerun-if-env-changed=EXECUTOR_LLVM_PREFIX");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
