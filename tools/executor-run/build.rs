//! executor-run links libMLIR.so (through executor-mlir) and libLLVM (through
//! the runtime), which are not on the loader's default path: the binary finds
//! them in the LLVM installation's lib directory. (A dependency's link
//! arguments do not reach this binary, so their build scripts cannot do this
//! for it.)

fn main() {
    let prefix = std::env::var("EXECUTOR_LLVM_PREFIX").expect(".cargo/config.toml sets it");
    println!("cargo:rerun-if-env-changed=EXECUTOR_LLVM_PREFIX");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
