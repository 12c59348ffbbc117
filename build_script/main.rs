//! Generates the dialect's C++ from `td/` with mlir-tblgen, compiles it with the
//! hand-written bridge in `cpp/`, and sets up linking against the one shared
//! `libMLIR.so` of the LLVM 22 installation.
//!
//! With `EXECUTOR_MLIR_HOST=catalyst` it builds for a host process that has
//! MLIR linked in statically and exports its C++ symbols (the `catalyst` CLI of
//! pennylane-catalyst, `make catalyst`): nothing of MLIR or LLVM is linked and
//! the C++ is compiled with that binary's settings (ABI-breaking checks on, no
//! RTTI). That binary has no MLIR C API; what works there is in docs/catalyst.md.

mod catalyst;

use std::{
    env,
    error::Error,
    fs,
    path::{Path, PathBuf},
    process::Command,
};

/// mlir-tblgen generators and the file each one writes, per `.td` file.
#[rustfmt::skip]
const GENERATED: &[(&str, &str, &[&str])] = &[
    ("ExecutorOps.td", "ExecutorDialect.h.inc", &["-gen-dialect-decls", "-dialect=executor"]),
    ("ExecutorOps.td", "ExecutorDialect.cpp.inc", &["-gen-dialect-defs", "-dialect=executor"]),
    ("ExecutorTypes.td", "ExecutorTypes.h.inc", &["-gen-typedef-decls", "-typedefs-dialect=executor"]),
    ("ExecutorTypes.td", "ExecutorTypes.cpp.inc", &["-gen-typedef-defs", "-typedefs-dialect=executor"]),
    ("ExecutorOps.td", "ExecutorOps.h.inc", &["-gen-op-decls", "-dialect=executor"]),
    ("ExecutorOps.td", "ExecutorOps.cpp.inc", &["-gen-op-defs", "-dialect=executor"]),
    ("ExecutorPasses.td", "ExecutorPasses.h.inc", &["-gen-pass-decls", "-name=Executor"]),
];

const CPP_SOURCES: &[&str] = &[
    "cpp/ExecutorDialect.cpp",
    "cpp/BufferizableOpInterfaceImpl.cpp",
    "cpp/Passes.cpp",
    "cpp/DispatchPass.cpp",
    "cpp/Bridge.cpp",
];

/// The process the compiled code will live in.
#[derive(Clone, Copy, PartialEq)]
enum Host {
    /// Debian's LLVM 22 tools and this project's own: one shared `libMLIR.so`.
    SharedLibMlir,
    /// A binary with MLIR inside, exporting its C++ symbols, built with
    /// assertions (`LLVM_ENABLE_ABI_BREAKING_CHECKS=1`): Catalyst's CLI.
    Catalyst,
}

fn main() -> Result<(), Box<dyn Error>> {
    let prefix = llvm_prefix()?;
    let out_dir = PathBuf::from(env::var("OUT_DIR")?);
    println!("cargo:rerun-if-env-changed=EXECUTOR_MLIR_HOST");
    println!("cargo:rerun-if-changed=td");
    println!("cargo:rerun-if-changed=cpp");
    let host = match env::var("EXECUTOR_MLIR_HOST").as_deref() {
        Err(_) | Ok("") | Ok("mlir") => Host::SharedLibMlir,
        Ok("catalyst") => Host::Catalyst,
        Ok(other) => {
            return Err(
                format!("EXECUTOR_MLIR_HOST={other}: expected `mlir` or `catalyst`").into(),
            );
        }
    };

    generate_cpp(&prefix, &out_dir)?;
    generate_entry_conventions(&out_dir)?;
    compile_cpp(&prefix, &out_dir, host)?;
    merge_capi_archives(&prefix, &out_dir)?;

    let lib_dir = prefix.join("lib");
    println!("cargo:rustc-link-search=native={}", out_dir.display());
    match host {
        Host::SharedLibMlir => {
            println!("cargo:rustc-link-search=native={}", lib_dir.display());
            // After the bridge archive, so its references to MLIR's C++ resolve here.
            println!("cargo:rustc-link-lib=dylib=MLIR");
            println!("cargo:rustc-link-arg=-Wl,-rpath,{}", lib_dir.display());
        }
        Host::Catalyst => link_nothing_of_llvm(&out_dir)?,
    }
    Ok(())
}

/// The LLVM/MLIR installation: `EXECUTOR_LLVM_PREFIX`, which
/// `.cargo/config.toml` sets. The variables that point the sys crates at LLVM
/// repeat it there (cargo's `[env]` cannot refer to another variable), so a
/// prefix changed in one line but not the others stops the build here rather
/// than linking two LLVM installations together.
fn llvm_prefix() -> Result<PathBuf, Box<dyn Error>> {
    const PREFIX: &str = "EXECUTOR_LLVM_PREFIX";
    println!("cargo:rerun-if-env-changed={PREFIX}");
    let prefix = PathBuf::from(
        env::var_os(PREFIX)
            .ok_or_else(|| format!("{PREFIX} is not set (.cargo/config.toml sets it)"))?,
    );
    let lib_dir = prefix.join("lib");
    for (variable, expected) in [
        ("MLIR_SYS_220_PREFIX", &prefix),
        ("TABLEGEN_220_PREFIX", &prefix),
        ("LLVM_SYS_221_PREFIX", &prefix),
        ("LIBCLANG_PATH", &lib_dir),
    ] {
        println!("cargo:rerun-if-env-changed={variable}");
        let value = env::var_os(variable).map(PathBuf::from);
        if value.as_ref() != Some(expected) {
            return Err(format!(
                "{variable} is {}, but {PREFIX}={} asks for {}: set both to the same \
                 installation (.cargo/config.toml names it)",
                value.map_or("not set".into(), |value| format!("{}", value.display())),
                prefix.display(),
                expected.display(),
            )
            .into());
        }
    }
    Ok(prefix)
}

fn generate_cpp(prefix: &Path, out_dir: &Path) -> Result<(), Box<dyn Error>> {
    let tblgen = prefix.join("bin/mlir-tblgen");
    for (td, output, flags) in GENERATED {
        let status = Command::new(&tblgen)
            .args(*flags)
            .arg(format!("-I{}", prefix.join("include").display()))
            .arg("-Itd")
            .arg(Path::new("td").join(td))
            .arg("-o")
            .arg(out_dir.join(output))
            .status()
            .map_err(|error| {
                format!(
                    "cannot run {}: {error} (run scripts/deps.sh)",
                    tblgen.display()
                )
            })?;
        if !status.success() {
            return Err(format!(
                "mlir-tblgen {} on td/{td} failed: {status}",
                flags.join(" ")
            )
            .into());
        }
    }
    Ok(())
}

/// `EntryConventions.h.inc`: the C++ enum of the pass option
/// `entry-convention` and its `llvm::cl` values, from the one definition in
/// `executor_abi`, so the option is checked when a pipeline is parsed and its
/// values cannot drift from what the Rust pass understands.
fn generate_entry_conventions(out_dir: &Path) -> Result<(), Box<dyn Error>> {
    use executor_abi::EntryConvention;
    let enumerators: String = EntryConvention::ALL
        .iter()
        .map(|convention| format!("  {} = {},\n", convention.cpp_name(), *convention as u32))
        .collect();
    let values: Vec<String> = EntryConvention::ALL
        .iter()
        .map(|convention| {
            format!(
                "  clEnumValN(::catalyst::executor::EntryConvention::{}, \"{}\", \"{}\")",
                convention.cpp_name(),
                convention.option_value(),
                convention.description()
            )
        })
        .collect();
    let text = format!(
        "// Generated by build_script/main.rs from executor_abi::EntryConvention. Do not edit.\n\
         #include <cstdint>\n\
         namespace catalyst::executor {{\n\
         enum class EntryConvention : std::uint32_t {{\n{enumerators}}};\n\
         }} // namespace catalyst::executor\n\
         #define EXECUTOR_ENTRY_CONVENTION_DEFAULT \
         ::catalyst::executor::EntryConvention::{}\n\
         #define EXECUTOR_ENTRY_CONVENTION_VALUES \\\n{}\n",
        EntryConvention::default().cpp_name(),
        values.join(", \\\n")
    );
    fs::write(out_dir.join("EntryConventions.h.inc"), text)?;
    Ok(())
}

fn compile_cpp(prefix: &Path, out_dir: &Path, host: Host) -> Result<(), Box<dyn Error>> {
    let cxxflags = llvm_config(prefix, "--cxxflags")?;
    let mut build = cc::Build::new();
    if host == Host::Catalyst {
        // Searched before LLVM's own headers (an -I, which comes before every
        // -isystem directory).
        let include = abi_breaking_checks_on(prefix, out_dir)?;
        catalyst::headers_as_in_catalyst(prefix, &include)?;
        build.include(include);
        build.files(catalyst::CPP_SOURCES);
        // Catalyst's LLVM is built without RTTI, so it exports no typeinfo
        // for the MLIR classes ours derive from.
        build.flag("-fno-rtti");
    }
    // The LLVM 22 clang, as Debian's libMLIR is built with: MLIR identifies
    // traits and other classes without an explicit TypeID by their type name
    // as the compiler spells it, so another compiler would give them other ids.
    build.compiler(prefix.join("bin/clang++"));
    // -Wall -Wextra for the hand-written C++ in cpp/. The code mlir-tblgen
    // generates into OUT_DIR and the headers of MLIR and LLVM (llvm-config's
    // -I) are included from -isystem directories instead, as system headers,
    // whose warnings (mostly unused parameters) are not ours to fix.
    build
        .cpp(true)
        .files(CPP_SOURCES)
        .include("cpp")
        .warnings(true)
        .extra_warnings(true)
        .flag("-isystem")
        .flag(out_dir);
    for flag in cxxflags.split_whitespace() {
        match flag.strip_prefix("-I") {
            Some(dir) => build.flag("-isystem").flag(dir),
            None => build.flag(flag),
        };
    }
    build.try_compile("executor_cpp")?;
    Ok(())
}

/// Debian ships MLIR's C API only as static `libMLIRCAPI*.a` archives, while
/// mlir-sys links `-lMLIR-C` in shared mode: merge them into `libMLIR-C.a`.
/// The archives are position independent, so the merged one also links into
/// shared objects (the mlir-opt plugin), resolving the C++ against libMLIR.so.
fn merge_capi_archives(prefix: &Path, out_dir: &Path) -> Result<(), Box<dyn Error>> {
    let lib_dir = prefix.join("lib");
    let mut archives: Vec<PathBuf> = fs::read_dir(&lib_dir)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| {
            path.file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with("libMLIRCAPI") && name.ends_with(".a"))
        })
        .collect();
    archives.sort();
    if archives.is_empty() {
        return Err(format!(
            "no libMLIRCAPI*.a in {} (run scripts/deps.sh)",
            lib_dir.display()
        )
        .into());
    }

    let merged = out_dir.join("libMLIR-C.a");
    let _ = fs::remove_file(&merged);
    let mut script = format!("CREATE {}\n", merged.display());
    for archive in &archives {
        script += &format!("ADDLIB {}\n", archive.display());
    }
    script += "SAVE\nEND\n";
    let script_path = out_dir.join("merge-capi.mri");
    fs::write(&script_path, script)?;

    let ar = prefix.join("bin/llvm-ar");
    let status = Command::new(&ar)
        .arg("-M")
        .stdin(fs::File::open(&script_path)?)
        .status()
        .map_err(|error| format!("cannot run {}: {error}", ar.display()))?;
    if !status.success() {
        return Err(format!(
            "merging the MLIR C API archives into {} failed: {status}",
            merged.display()
        )
        .into());
    }
    Ok(())
}

/// A copy of `llvm/Config/abi-breaking.h` that turns LLVM's ABI-breaking
/// checks on, as in an LLVM built with assertions: they change the layout of
/// containers (DenseMap's epoch, ilist sentinels) shared with the host.
fn abi_breaking_checks_on(prefix: &Path, out_dir: &Path) -> Result<PathBuf, Box<dyn Error>> {
    const SETTING: &str = "#define LLVM_ENABLE_ABI_BREAKING_CHECKS ";
    let original = prefix.join("include/llvm/Config/abi-breaking.h");
    let text = fs::read_to_string(&original)?;
    let setting = text
        .lines()
        .find(|line| line.starts_with(SETTING))
        .ok_or_else(|| format!("no `{SETTING}` line in {}", original.display()))?;
    let include = out_dir.join("abi-breaking-checks-on");
    fs::create_dir_all(include.join("llvm/Config"))?;
    fs::write(
        include.join("llvm/Config/abi-breaking.h"),
        text.replace(setting, &format!("{SETTING}1")),
    )?;
    Ok(include)
}

/// mlir-sys asks the linker for `-lMLIR -lMLIR-C -lLLVM-22`. The host already
/// holds MLIR and LLVM, so `libMLIR` and `libLLVM-22` are empty linker scripts
/// found first in OUT_DIR. `libMLIR-C` is the merged static C API there, of
/// which a Catalyst plugin must pull nothing in: its objects are built for
/// another ABI (docs/catalyst.md), and one pulled in would make Catalyst refuse
/// the plugin (undefined `llvm::DisableABIBreakingChecks`), which the tests in
/// test/Plugin/Catalyst would show.
fn link_nothing_of_llvm(out_dir: &Path) -> Result<(), Box<dyn Error>> {
    for library in ["libMLIR.so", "libLLVM-22.so"] {
        fs::write(
            out_dir.join(library),
            "/* Resolved from the host process that loads this code. */\n",
        )?;
    }
    Ok(())
}

fn llvm_config(prefix: &Path, argument: &str) -> Result<String, Box<dyn Error>> {
    let output = Command::new(prefix.join("bin/llvm-config"))
        .arg(argument)
        .output()?;
    if !output.status.success() {
        return Err(format!("llvm-config {argument} failed: {}", output.status).into());
    }
    Ok(String::from_utf8(output.stdout)?.trim().to_owned())
}
