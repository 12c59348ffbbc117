//! The plugin finds the libMLIR.so it shares with mlir-opt in LLVM 22's lib
//! directory (already loaded by mlir-opt; the rpath serves other hosts). Built
//! for a Catalyst host (`EXECUTOR_MLIR_HOST=catalyst`, see build_script/main.rs)
//! it links no libMLIR and registers the out-of-process passes
//! (`cfg(catalyst_host)`).

fn main() {
    let prefix = std::env::var("EXECUTOR_LLVM_PREFIX").expect(".cargo/config.toml sets it");
    println!("cargo:rerun-if-env-changed=EXECUTOR_LLVM_PREFIX");
    println!("cargo:rerun-if-env-changed=EXECUTOR_MLIR_HOST");
    println!("cargo::rustc-check-cfg=cfg(catalyst_host)");
    if std::env::var("EXECUTOR_MLIR_HOST").as_deref() == Ok("catalyst") {
        println!("cargo:rustc-cfg=catalyst_host");
    } else {
        println!("cargo:rustc-link-arg-cdylib=-Wl,-rpath,{prefix}/lib");
    }
}
