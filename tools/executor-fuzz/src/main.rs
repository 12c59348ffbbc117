//! executor-fuzz: `make fuzz`'s driver (docs/fuzzing.md).
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
    compiler::{self, Tools, corpus},
    protocol::{
        decoder::{self, alloc::TrackingAllocator},
        libfuzzer, server,
    },
    shared::{
        findings::{self, Findings, Known, hex},
        minimize::Budget,
    },
};

// The decoder fuzzer's allocation oracle (src/protocol/decoder/alloc.rs).
#[global_allocator]
static ALLOCATOR: TrackingAllocator = TrackingAllocator;

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
    /// The in-process protocol decoder fuzzer alone.
    Decoder(Common),
    /// The executor-server fuzzer alone.
    Server(Common),
    /// Runs one finding's input again (decoder targets: `decoder-request`, ...).
    Replay { target: String, input: PathBuf },
    /// Writes the libFuzzer target's seed inputs to a directory.
    LibfuzzerSeeds { dir: PathBuf },
    /// Runs a server finding's connection again, on a fresh executor-server.
    ReplayServer {
        input: PathBuf,
        #[arg(long)]
        project: Option<PathBuf>,
    },
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
    #[arg(long, default_value_t = 45)]
    minimize_seconds: u64,
    /// Inputs of the decoder fuzzer at most (it also stops at its time share).
    #[arg(long, default_value_t = 100_000_000)]
    decoder_inputs: usize,
    /// Connections of the server fuzzer at most (it also stops at its time share).
    #[arg(long, default_value_t = 1_000_000)]
    connections: usize,
    /// The executor-server's address-space limit in MiB (ulimit -v; 0: none).
    #[arg(long, default_value_t = 4096)]
    server_address_space_mib: u64,
    /// The coverage-guided decoder fuzzer (libFuzzer, built by `make fuzz`);
    /// without it the seeded decoder fuzzer gets its time.
    #[arg(long)]
    libfuzzer: Option<PathBuf>,
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

fn run_decoder(common: &Common, seconds: u64) -> (Findings, String) {
    let budget = Budget {
        tests: if common.minimize_seconds == 0 {
            0
        } else {
            20_000
        },
        time: Duration::from_secs(common.minimize_seconds),
    };
    let report = decoder::fuzz(
        common.seed,
        common.decoder_inputs,
        Some(Duration::from_secs(seconds)),
        budget,
    );
    let summary = format!(
        "decoder: {} inputs in {:.0} s ({:.0}/s), seed {}: {}; allocation oracle {}; {} findings",
        report.inputs,
        report.elapsed.as_secs_f64(),
        report.inputs as f64 / report.elapsed.as_secs_f64().max(0.001),
        common.seed,
        report.per_decoder(),
        if report.allocation_oracle {
            "on"
        } else {
            "off"
        },
        report.findings.len()
    );
    (report.findings, summary)
}

fn server_options(
    common: &Common,
    root: &Path,
    out: &Path,
    seconds: u64,
    replay_first: Vec<Vec<u8>>,
) -> server::Options {
    server::Options {
        server: root.join("target/release/executor-server"),
        seed: common.seed,
        connections: common.connections,
        time: Some(Duration::from_secs(seconds)),
        work_dir: out.join("work/server"),
        check_every: 25,
        address_space: (common.server_address_space_mib > 0)
            .then_some(common.server_address_space_mib << 20),
        replay_first,
        minimize: Budget {
            tests: if common.minimize_seconds == 0 { 0 } else { 200 },
            time: Duration::from_secs(common.minimize_seconds),
        },
    }
}

fn run_server(options: &server::Options) -> Result<(Findings, String)> {
    let report = server::fuzz(options).context("fuzzing executor-server")?;
    let summary = format!(
        "server: {} in {:.0} s, seed {}; {} findings",
        report.summary(),
        report.elapsed.as_secs_f64(),
        options.seed,
        report.findings.len()
    );
    Ok((report.findings, summary))
}

fn replay_server(input: &Path, project: Option<&Path>) -> Result<ExitCode> {
    let bytes = fs::read(input).with_context(|| format!("reading {}", input.display()))?;
    let chunks = server::decode_chunks(&bytes).context("not a server finding's input")?;
    let root = project_root(project);
    let work = std::env::temp_dir().join(format!("executor-fuzz-replay-{}", std::process::id()));
    let options = server::Options {
        server: root.join("target/release/executor-server"),
        seed: 0,
        connections: 0,
        time: None,
        work_dir: work.clone(),
        check_every: 1,
        address_space: Some(4096 << 20),
        replay_first: Vec::new(),
        minimize: Budget {
            tests: 0,
            time: Duration::ZERO,
        },
    };
    for (index, chunk) in chunks.iter().enumerate() {
        println!("frame {index}: {}", hex(chunk));
    }
    let result = server::replay(&options, &chunks)?;
    let _ = fs::remove_dir_all(&work);
    Ok(match result {
        None => {
            println!("no finding");
            ExitCode::SUCCESS
        }
        Some((signature, detail)) => {
            println!("{} {}\n{detail}", signature.kind.name(), signature.text);
            ExitCode::FAILURE
        }
    })
}

fn replay(target: &str, input: &Path) -> Result<ExitCode> {
    let bytes = fs::read(input).with_context(|| format!("reading {}", input.display()))?;
    let Some(decoder) = decoder::Decoder::from_target(target) else {
        anyhow::bail!("no decoder target {target} (decoder-request, decoder-response, ...)");
    };
    println!("{} bytes: {}", bytes.len(), hex(&bytes));
    Ok(match decoder::check(decoder, &bytes) {
        Ok(decoded) => {
            println!(
                "no finding ({})",
                if decoded { "decoded" } else { "rejected" }
            );
            ExitCode::SUCCESS
        }
        Err((signature, detail)) => {
            println!("{} {}\n{detail}", signature.kind.name(), signature.text);
            ExitCode::FAILURE
        }
    })
}

fn main() -> Result<ExitCode> {
    let cli = Cli::parse();
    // Shares of the time budget: the compiler, the seeded decoder fuzzer,
    // the server, libFuzzer's decoder fuzzer (when there is one).
    let (common, shares) = match &cli.command {
        Command::All(common) if common.libfuzzer.is_some() => (common, [0.65, 0.05, 0.2, 0.1]),
        Command::All(common) => (common, [0.65, 0.15, 0.2, 0.0]),
        Command::Compiler(common) => (common, [1.0, 0.0, 0.0, 0.0]),
        Command::Decoder(common) if common.libfuzzer.is_some() => (common, [0.0, 0.5, 0.0, 0.5]),
        Command::Decoder(common) => (common, [0.0, 1.0, 0.0, 0.0]),
        Command::Server(common) => (common, [0.0, 0.0, 1.0, 0.0]),
        Command::Replay { target, input } => return replay(target, input),
        Command::ReplayServer { input, project } => {
            return replay_server(input, project.as_deref());
        }
        Command::LibfuzzerSeeds { dir } => {
            fs::create_dir_all(dir)?;
            for (index, input) in decoder::libfuzzer_seeds().iter().enumerate() {
                fs::write(dir.join(format!("seed-{index:02}")), input)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
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
    let share = |index: usize| (common.seconds as f64 * shares[index]) as u64;
    if shares[0] > 0.0 {
        let (findings, summary) = run_compiler(common, &root, &out, share(0))?;
        log(&summary);
        all.merge(findings);
        summaries.push(summary);
    }
    // The decoder's findings about requests are sent to the server first.
    let mut replay_first = Vec::new();
    if shares[1] > 0.0 {
        let (findings, summary) = run_decoder(common, share(1));
        log(&summary);
        replay_first.extend(
            findings
                .iter()
                .filter(|f| f.target == decoder::Decoder::Request.target())
                .map(|f| f.minimized.clone().unwrap_or_else(|| f.input.clone())),
        );
        all.merge(findings);
        summaries.push(summary);
    }
    if let (true, Some(binary)) = (shares[3] > 0.0, &common.libfuzzer) {
        let mut report = libfuzzer::fuzz(binary, &out, common.seed, Duration::from_secs(share(3)))
            .with_context(|| format!("running {}", binary.display()))?;
        decoder::minimize_all(
            &mut report.findings,
            Budget {
                tests: 20_000,
                time: Duration::from_secs(common.minimize_seconds),
            },
        );
        let summary = format!(
            "libfuzzer: {} in {:.0} s; {} findings",
            report.summary(),
            report.elapsed.as_secs_f64(),
            report.findings.len()
        );
        log(&summary);
        replay_first.extend(
            report
                .findings
                .iter()
                .filter(|f| f.target == decoder::Decoder::Request.target())
                .map(|f| f.minimized.clone().unwrap_or_else(|| f.input.clone())),
        );
        all.merge(report.findings);
        summaries.push(summary);
    }
    if shares[2] > 0.0 {
        let options = server_options(common, &root, &out, share(2), replay_first);
        let (findings, summary) = run_server(&options)?;
        log(&summary);
        all.merge(findings);
        summaries.push(summary);
    }

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
