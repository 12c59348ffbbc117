//! executor-server links the runtime, and through it LLVM's shared libLLVM
//! (for ORC), which is not on the loader's default path: the binary finds it
//! in LLVM 22's lib directory. (A dependency's link arguments do not reach
//! this binary, so the runtime's build script cannot do this for it.)

fn main() {
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{prefix}/lib");
}
