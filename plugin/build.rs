//! The plugin finds the libMLIR.so it shares with mlir-opt in LLVM 22's lib
//! directory (already loaded by mlir-opt; the rpath serves other hosts).

fn main() {
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,{prefix}/lib");
}
