//! The runtime links LLVM's shared libLLVM (for ORC); its library, tests,
//! benches and examples find it in LLVM 22's lib directory.

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
