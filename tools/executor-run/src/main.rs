//! executor-run: runs a program written in the dispatch form (a host module
//! whose kernels live in nested `executor.target` modules) in one command.
//! `executor-dispatch` compiles the kernels to object files, the host is
//! lowered as `make demo` lowers it (`one-shot-bufferize`, then
//! `executor-llvm-lowering-stage`), and MLIR's execution engine JIT-compiles
//! it into this process, where this project's runtime is linked in; the
//! entry runs and what it prints is the program's output.
//!
//! The flags follow mlir-runner's where they overlap (`-e`,
//! `--entry-point-result`, `--shared-libs`, `-O0`..`-O3`), single-dash long
//! spellings included; MLIR's runner utilities (`printMemrefF32`, ...) are
//! always loaded.

mod ffi;

use std::{
    ffi::OsString,
    io::Read,
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::{Context as _, Result, bail};
use clap::{CommandFactory, Parser, ValueEnum};
use executor_mlir::registration;
use melior::{
    Context,
    diagnostic::{Diagnostic, DiagnosticSeverity},
    dialect::DialectRegistry,
    ir::{
        BlockLike, Module, RegionLike, Type,
        attribute::{StringAttribute, TypeAttribute},
        operation::OperationLike,
    },
    pass::PassManager,
};

/// The host lowering after dispatch, as the Makefile's LOWERING.
const HOST_LOWERING: &str = "one-shot-bufferize{bufferize-function-boundaries \
     function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage";

/// MLIR's runner utilities, which programs print with.
const RUNNER_UTILS: [&str; 2] = ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"];

#[derive(Parser)]
#[command(
    name = "executor-run",
    version,
    about = "Compile the kernels of a host module in the dispatch form, lower the host and run it with the executor runtime in this process",
    after_help = "Flags follow mlir-runner's where they overlap; -entry-point-result=void and \
                  -shared-libs=... (one dash) work too."
)]
struct Arguments {
    /// The program: an MLIR file in the dispatch form, `-` for standard input
    #[arg(default_value = "-")]
    input: PathBuf,

    /// The function to run
    #[arg(short = 'e', value_name = "function name", default_value = "main")]
    entry: String,

    /// What the entry returns (it takes no arguments); a value is printed
    /// after it returns
    #[arg(long, value_enum, default_value_t = EntryResult::Void)]
    entry_point_result: EntryResult,

    /// More libraries whose symbols the program may call, comma-separated
    /// (MLIR's runner utilities are always loaded)
    #[arg(long, value_delimiter = ',', value_name = "paths")]
    shared_libs: Vec<PathBuf>,

    /// The optimization level of the host's code generation (the kernels are
    /// compiled by executor-dispatch, as llc -O2)
    #[arg(short = 'O', value_name = "0-3", default_value_t = 2, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,

    /// Where the kernels' object files go and stay (by default a temporary
    /// directory, removed when the program ends)
    #[arg(long, value_name = "directory")]
    object_dir: Option<PathBuf>,

    /// executor-dispatch's kernel-lowering: the pipeline that takes a target
    /// module to the LLVM dialect
    #[arg(long, value_name = "pipeline")]
    kernel_lowering: Option<String>,

    /// Print a table of the launches on stderr at exit, per address and
    /// kernel (as EXECUTOR_STATS=1 does)
    #[arg(long)]
    stats: bool,
}

/// mlir-runner's `--entry-point-result` values.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum EntryResult {
    Void,
    I32,
    I64,
    F32,
}

impl EntryResult {
    /// The LLVM function type of an entry returning this, as the lowering
    /// makes it.
    fn function_type(self) -> &'static str {
        match self {
            Self::Void => "!llvm.func<void ()>",
            Self::I32 => "!llvm.func<i32 ()>",
            Self::I64 => "!llvm.func<i64 ()>",
            Self::F32 => "!llvm.func<f32 ()>",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Void => "void",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::F32 => "f32",
        }
    }
}

fn main() -> ExitCode {
    let arguments = Arguments::parse_from(mlir_runner_spellings(std::env::args_os()));
    match run(&arguments) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("executor-run: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(arguments: &Arguments) -> Result<()> {
    if arguments.stats {
        executor_runtime::trace::enable_stats();
    }
    let registry = DialectRegistry::new();
    registration::register_all_dialects(&registry);
    melior::utility::register_all_passes();
    registration::register_passes();
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.attach_diagnostic_handler(|diagnostic| {
        print_diagnostic(&diagnostic);
        true
    });
    melior::utility::register_all_llvm_translations(&context);

    let mut module = parse(&context, &arguments.input)?;
    let temporary;
    let object_dir = match &arguments.object_dir {
        Some(directory) => directory.as_path(),
        None => {
            temporary = tempfile::Builder::new()
                .prefix("executor-run-")
                .tempdir()
                .context("cannot make a directory for the object files")?;
            temporary.path()
        }
    };
    let pipeline = pipeline(object_dir, arguments.kernel_lowering.as_deref())?;
    let passes = PassManager::new(&context);
    melior::utility::parse_pass_pipeline(passes.as_operation_pass_manager(), &pipeline)
        .with_context(|| format!("cannot build the pipeline {pipeline}"))?;
    if passes.run(&mut module).is_err() {
        bail!(
            "compiling {} failed (the errors above say why)",
            arguments.input.display()
        );
    }
    check_entry(
        &context,
        &module,
        &arguments.entry,
        arguments.entry_point_result,
    )?;

    let libraries = shared_libraries(&arguments.shared_libs)?;
    let libraries: Vec<&Path> = libraries.iter().map(PathBuf::as_path).collect();
    let jit = ffi::Jit::new(&module, arguments.opt_level, &libraries)
        .context("MLIR's execution engine rejected the lowered program")?;
    jit.register_runtime();
    let entry = &arguments.entry;
    let printed = match arguments.entry_point_result {
        EntryResult::Void => jit.run_void(entry).then(String::new),
        EntryResult::I32 => jit
            .run_returning::<i32>(entry)
            .map(|value| value.to_string()),
        EntryResult::I64 => jit
            .run_returning::<i64>(entry)
            .map(|value| value.to_string()),
        EntryResult::F32 => jit
            .run_returning::<f32>(entry)
            .map(|value| exponent_form(f64::from(value))),
    };
    ffi::flush_c_stdio();
    match printed {
        Some(value) if value.is_empty() => Ok(()),
        Some(value) => {
            println!("{value}");
            Ok(())
        }
        None => bail!("the execution engine cannot link @{entry} (the JIT's errors above say why)"),
    }
}

/// A diagnostic and its notes on standard error, as mlir-opt prints them
/// (`file:line:col: error: message`).
fn print_diagnostic(diagnostic: &Diagnostic) {
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
    };
    eprintln!(
        "{}: {severity}: {diagnostic}",
        ffi::describe_location(diagnostic.location())
    );
    for note in (0..diagnostic.note_count()).filter_map(|index| diagnostic.note(index).ok()) {
        print_diagnostic(&note);
    }
}

/// The program in `input` (`-`: standard input).
fn parse<'c>(context: &'c Context, input: &Path) -> Result<Module<'c>> {
    if input == Path::new("-") {
        let mut source = String::new();
        std::io::stdin()
            .read_to_string(&mut source)
            .context("cannot read the program from standard input")?;
        return Module::parse(context, &source)
            .context("the program on standard input does not parse (the errors above say why)");
    }
    if !input.is_file() {
        bail!("no file {}", input.display());
    }
    ffi::parse_file(context, input).with_context(|| {
        format!(
            "{} does not parse (the errors above say why)",
            input.display()
        )
    })
}

/// executor-dispatch, then the host lowering.
fn pipeline(object_dir: &Path, kernel_lowering: Option<&str>) -> Result<String> {
    let object_dir = object_dir
        .to_str()
        .context("the object directory is not UTF-8")?;
    if object_dir.contains('"') {
        bail!("the object directory {object_dir} holds a '\"', which a pass option cannot");
    }
    let kernel_lowering = kernel_lowering
        .map(|pipeline| format!(" kernel-lowering={{{pipeline}}}"))
        .unwrap_or_default();
    Ok(format!(
        "builtin.module(executor-dispatch{{object-dir=\"{object_dir}\"{kernel_lowering}}},{HOST_LOWERING})"
    ))
}

/// Checks that the lowered program defines `entry` with the type
/// `--entry-point-result` says, as mlir-runner does.
fn check_entry(context: &Context, module: &Module, entry: &str, result: EntryResult) -> Result<()> {
    let mut next = module.body().first_operation();
    while let Some(operation) = next {
        next = operation.next_in_block();
        let name = operation
            .attribute("sym_name")
            .ok()
            .and_then(|name| StringAttribute::try_from(name).ok());
        if name.is_none_or(|name| name.value() != entry) {
            continue;
        }
        if operation.name().as_string_ref().as_str() != Ok("llvm.func")
            || operation
                .region(0)
                .is_ok_and(|body| body.first_block().is_none())
        {
            bail!("@{entry} is not a function with a body");
        }
        let found = operation
            .attribute("function_type")
            .ok()
            .and_then(|found| TypeAttribute::try_from(found).ok())
            .map(|found| found.value());
        let expected = Type::parse(context, result.function_type());
        if found.is_none() || found != expected {
            let found = found.map_or_else(|| "no type".to_owned(), |found| found.to_string());
            bail!(
                "@{entry} has type {found} once lowered, but --entry-point-result={} runs a function \
                 of type {} (no arguments)",
                result.name(),
                result.function_type()
            );
        }
        return Ok(());
    }
    bail!("the program has no function @{entry} (-e names the entry)")
}

/// MLIR's runner utilities, then the libraries of `--shared-libs`, each of
/// which must exist.
fn shared_libraries(extra: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let lib_dir = Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("lib");
    let libraries: Vec<PathBuf> = RUNNER_UTILS
        .iter()
        .map(|name| lib_dir.join(name))
        .chain(extra.iter().cloned())
        .collect();
    for library in &libraries {
        if !library.is_file() {
            bail!("no library {}", library.display());
        }
    }
    Ok(libraries)
}

/// mlir-runner's spellings in clap's: a long flag written with one dash
/// (`-entry-point-result=void`, `-shared-libs=...`) gets two, and `--O2`
/// becomes `-O2`. Anything else is left as it is.
fn mlir_runner_spellings(arguments: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let command = Arguments::command();
    let long_flags: Vec<&str> = command
        .get_arguments()
        .filter_map(|flag| flag.get_long())
        .collect();
    arguments
        .into_iter()
        .map(|argument| {
            let Some(text) = argument.to_str() else {
                return argument;
            };
            if let Some(level) = text.strip_prefix("--O")
                && level.len() == 1
            {
                return format!("-O{level}").into();
            }
            let Some(flag) = text.strip_prefix('-').filter(|flag| !flag.starts_with('-')) else {
                return argument;
            };
            let name = flag.split_once('=').map_or(flag, |(name, _)| name);
            if long_flags.contains(&name) {
                format!("-{text}").into()
            } else {
                argument
            }
        })
        .collect()
}

/// A double as LLVM's `raw_ostream` prints it, which is how mlir-runner
/// prints an f32 result: `%e` (`1.500000e+00`), `INF`, `nan`.
fn exponent_form(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    if value.is_infinite() {
        return if value < 0.0 { "-INF" } else { "INF" }.to_owned();
    }
    let text = format!("{value:.6e}");
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return text;
    };
    let exponent: i32 = exponent.parse().unwrap_or_default();
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(arguments: &[&str]) -> Vec<String> {
        mlir_runner_spellings(arguments.iter().map(OsString::from))
            .into_iter()
            .map(|argument| argument.into_string().unwrap())
            .collect()
    }

    #[test]
    fn mlir_runner_spellings_become_clap_spellings() {
        assert_eq!(
            spelled(&[
                "executor-run",
                "p.mlir",
                "-e",
                "main",
                "-entry-point-result=void",
                "-shared-libs=a.so,b.so",
                "--O3"
            ]),
            [
                "executor-run",
                "p.mlir",
                "-e",
                "main",
                "--entry-point-result=void",
                "--shared-libs=a.so,b.so",
                "-O3"
            ]
        );
        // Short flags with their values and unknown spellings are left alone.
        assert_eq!(
            spelled(&["-emain", "-O1", "-unknown", "--object-dir=x"]),
            ["-emain", "-O1", "-unknown", "--object-dir=x"]
        );
    }

    #[test]
    fn the_arguments_of_the_readme_parse() {
        let arguments = Arguments::parse_from(mlir_runner_spellings(
            [
                "executor-run",
                "program.mlir",
                "-e",
                "start",
                "-entry-point-result=i32",
                "-shared-libs=a.so,b.so",
            ]
            .map(OsString::from),
        ));
        assert_eq!(arguments.entry, "start");
        assert!(arguments.entry_point_result == EntryResult::I32);
        assert_eq!(
            arguments.shared_libs,
            [PathBuf::from("a.so"), PathBuf::from("b.so")]
        );
        assert_eq!(arguments.opt_level, 2);
    }

    #[test]
    fn floats_print_as_llvm_prints_them() {
        assert_eq!(exponent_form(1.5), "1.500000e+00");
        assert_eq!(exponent_form(-0.00125), "-1.250000e-03");
        assert_eq!(exponent_form(1e100), "1.000000e+100");
        assert_eq!(exponent_form(0.0), "0.000000e+00");
        assert_eq!(exponent_form(f64::INFINITY), "INF");
        assert_eq!(exponent_form(f64::NAN), "nan");
    }

    #[test]
    fn the_pipeline_quotes_the_object_directory_and_braces_the_kernel_lowering() {
        assert_eq!(
            pipeline(Path::new("/tmp/a b"), Some("convert-func-to-llvm")).unwrap(),
            format!(
                "builtin.module(executor-dispatch{{object-dir=\"/tmp/a b\" kernel-lowering={{convert-func-to-llvm}}}},{HOST_LOWERING})"
            )
        );
        assert!(pipeline(Path::new("/tmp/a\"b"), None).is_err());
    }
}
