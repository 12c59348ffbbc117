//! executor-fuzz: `make fuzz`'s driver (README, "Fuzzing").
//!
//! `executor-fuzz all --seconds N --seed S` splits the budget between the
//! compiler fuzzer and the protocol fuzzers; `compiler` and `protocol` run
//! one of them. Findings go to `target/fuzz/findings/`, the summary to
//! `target/fuzz/summary.txt`. The exit code is 1 when a finding is new
//! (not in tools/executor-fuzz/known-findings.txt).

use std::{
    fs,
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use executor_fuzz::{
    compiler::{self, Tools},
    corpus,
    findings::{self, Findings, Known},
    minimize::Budget,
};

#[derive(Parser)]
#[command(
    version,
    about = "Seeded mutation fuzzers of executor-mlir (make fuzz)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every fuzzer, the budget split between them.
    All(Common),
    /// The compiler fuzzer alone.
    Compiler(Common),
}

#[derive(Args, Clone)]
struct Common {
    /// Time budget in seconds.
    #[arg(long, default_value_t = 600)]
    seconds: u64,
    /// Stop after this many inputs (the compiler's; the protocol fuzzers
    /// scale theirs from it), whatever the time.
    #[arg(long)]
    inputs: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Batches run at once (this machine has 2 cores).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Inputs a tool gets in one process.
    #[arg(long, default_value_t = 16)]
    batch: usize,
    /// Time limit of one tool on one input, in seconds: beyond it, a hang.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// Time limit of minimizing one finding, in seconds (0: no minimization).
    #[arg(long, default_value_t = 90)]
    minimize_seconds: u64,
    /// Leave upstream mlir-opt with the plugin out.
    #[arg(long)]
    no_plugin: bool,
    /// The project (its test/, examples/ and target/release/).
    #[arg(long)]
    project: Option<PathBuf>,
    /// Where LLVM's tools are.
    #[arg(long, default_value = concat!(env!("EXECUTOR_LLVM_PREFIX"), "/bin"))]
    llvm_bin: PathBuf,
    /// Where findings, the summary and scratch files go (default: <project>/target/fuzz).
    #[arg(long)]
    out: Option<PathBuf>,
}

fn project_root(given: Option<&Path>) -> PathBuf {
    if let Some(path) = given {
        return path.to_owned();
    }
    let here = PathBuf::from(".");
    if here.join("test").is_dir() && here.join("examples").is_dir() {
        return here;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn log(line: &str) {
    eprintln!("{line}");
}

fn run_compiler(
    common: &Common,
    root: &Path,
    out: &Path,
    seconds: u64,
) -> Result<(Findings, String)> {
    let tools = Tools::new(
        &root.join("target/release"),
        &common.llvm_bin,
        !common.no_plugin,
    )
    .context("the compiler fuzzer needs the release build")?;
    let seeds = corpus::load(root).context("loading the corpus")?;
    let fuzzer = compiler::Fuzzer {
        tools: &tools,
        options: compiler::Options {
            seed: common.seed,
            time: Some(Duration::from_secs(seconds)),
            inputs: common.inputs,
            jobs: common.jobs,
            batch: common.batch,
            timeout: Duration::from_secs(common.timeout),
            minimize: Budget {
                tests: if common.minimize_seconds == 0 {
                    0
                } else {
                    2000
                },
                time: Duration::from_secs(common.minimize_seconds),
            },
            work_dir: out.join("work/compiler"),
        },
    };
    let report = fuzzer.run(&seeds, &mut log)?;
    let stats = &report.stats;
    let summary = format!(
        "compiler: {} inputs in {:.0} s ({:.1}/s), seed {}: {}; {} rechecked alone; pool {}; {} findings",
        stats.inputs,
        report.elapsed.as_secs_f64(),
        stats.inputs as f64 / report.elapsed.as_secs_f64().max(0.001),
        common.seed,
        stats.per_target(),
        stats.rechecked,
        stats.pool,
        report.findings.len()
    );
    log(&format!(
        "compiler: inputs that verified, by mutation: {}",
        stats.per_mutation()
    ));
    Ok((report.findings, summary))
}

fn main() -> Result<ExitCode> {
    let cli = Cli::parse();
    let (common, compiler_share) = match &cli.command {
        Command::All(common) => (common, 1.0),
        Command::Compiler(common) => (common, 1.0),
    };
    let root = project_root(common.project.as_deref());
    let out = common
        .out
        .clone()
        .unwrap_or_else(|| root.join("target/fuzz"));
    let findings_dir = out.join("findings");
    if findings_dir.exists() {
        fs::remove_dir_all(&findings_dir)
            .with_context(|| format!("clearing {}", findings_dir.display()))?;
    }
    fs::create_dir_all(&findings_dir)?;
    let known = Known::load(&root.join("tools/executor-fuzz/known-findings.txt"))
        .map_err(anyhow::Error::msg)?;

    let mut all = Findings::default();
    let mut summaries = Vec::new();
    let seconds = (common.seconds as f64 * compiler_share) as u64;
    let (findings, summary) = run_compiler(common, &root, &out, seconds)?;
    all.merge(findings);
    summaries.push(summary);

    all.mark_known(&known);
    let mut lines = summaries;
    for finding in all.iter() {
        let path = findings::write(&findings_dir, finding)?;
        lines.push(format!("{} -> {}", finding.summary(), path.display()));
    }
    let new = all.new_ones().len();
    lines.push(format!(
        "findings: {} new, {} known (see {})",
        new,
        all.len() - new,
        findings_dir.display()
    ));
    let text = lines.join("\n") + "\n";
    fs::write(out.join("summary.txt"), &text)?;
    print!("{text}");
    Ok(if new == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
