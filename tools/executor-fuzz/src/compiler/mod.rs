//! The compiler fuzzer: mutants of the corpus through `executor-opt` (parse
//! and verify), `convert-executor-to-llvm` (both entry conventions, its
//! output parsed again), the lowering pipeline and `mlir-translate` on its
//! output, and upstream `mlir-opt` with the plugin (compared with
//! `executor-opt`).
//!
//! Inputs run in batches: one process per tool and batch, with
//! `--split-input-file` (each input in its own context, diagnostics at their
//! own line). A batch whose run is a finding, or whose outputs do not split
//! into one per input, is run again one input at a time; so are the inputs
//! of a batch that look like a finding (a translate failure, a verifier error
//! of a lowered op, an output that does not parse, the plugin disagreeing).
//! Only findings confirmed on a single input are reported (or, when none
//! reproduces alone, the whole batch).

pub mod corpus;
pub mod minimize;
pub mod mlir;
pub mod mutate;
pub mod run;

use std::{
    collections::{BTreeMap, BTreeSet, HashSet},
    ffi::OsString,
    fs, io,
    path::{Path, PathBuf},
    thread,
    time::{Duration, Instant},
};

use crate::shared::{
    findings::{Finding, Findings, excerpt},
    minimize::Budget,
    rng::Rng,
    signature::{Kind, Signature, normalize},
};
use corpus::Seed;
use mlir::TokenKind;
use mutate::Mutant;
use run::{Run, classify};

/// The pass alone.
pub const PASS: &str = "builtin.module(convert-executor-to-llvm)";
/// The pass with Catalyst's entry convention.
pub const PASS_PYFACE: &str =
    "builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})";
/// Catalyst's bufferization, then the named pipeline (the README's lowering).
pub const LOWERING: &str = "builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},executor-llvm-lowering-stage)";
/// What separates inputs of a batch (no mutant contains it: the corpus has
/// no comments left and no mutation writes one).
pub const MARKER: &str = "// ===== executor-fuzz: next input =====";

/// The tools under test.
#[derive(Clone, Debug)]
pub struct Tools {
    pub executor_opt: PathBuf,
    pub mlir_opt: PathBuf,
    pub mlir_translate: PathBuf,
    /// `libexecutor_plugin.so`; None leaves the plugin target out.
    pub plugin: Option<PathBuf>,
}

impl Tools {
    /// The release build's tools in `project_bin` and LLVM's in `llvm_bin`.
    pub fn new(project_bin: &Path, llvm_bin: &Path, with_plugin: bool) -> io::Result<Self> {
        let tools = Self {
            executor_opt: project_bin.join("executor-opt"),
            mlir_opt: llvm_bin.join("mlir-opt"),
            mlir_translate: llvm_bin.join("mlir-translate"),
            plugin: with_plugin.then(|| project_bin.join("libexecutor_plugin.so")),
        };
        for path in [&tools.executor_opt, &tools.mlir_opt, &tools.mlir_translate]
            .into_iter()
            .chain(tools.plugin.as_ref())
        {
            if !path.exists() {
                return Err(io::Error::new(
                    io::ErrorKind::NotFound,
                    format!("{} is missing (run cargo build --release)", path.display()),
                ));
            }
        }
        Ok(tools)
    }
}

/// What an input goes through.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// `executor-opt`: parse and verify.
    Parse,
    /// `convert-executor-to-llvm`, its output parsed again.
    Pass,
    /// `convert-executor-to-llvm{entry-convention=catalyst-pyface}`.
    PassPyface,
    /// The lowering pipeline in `executor-opt`.
    Pipeline,
    /// `mlir-translate --mlir-to-llvmir` on what the pipeline lowered.
    Translate,
    /// The lowering pipeline in upstream `mlir-opt` with the plugin.
    Plugin,
}

impl Target {
    pub const ALL: [Target; 6] = [
        Target::Parse,
        Target::Pass,
        Target::PassPyface,
        Target::Pipeline,
        Target::Translate,
        Target::Plugin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Target::Parse => "parse",
            Target::Pass => "pass",
            Target::PassPyface => "pass-pyface",
            Target::Pipeline => "pipeline",
            Target::Translate => "translate",
            Target::Plugin => "plugin",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }
}

fn split_args(split: bool) -> Vec<OsString> {
    if split {
        vec![
            format!("--split-input-file={MARKER}").into(),
            format!("--output-split-marker={MARKER}").into(),
        ]
    } else {
        Vec::new()
    }
}

fn pipeline_arg(pipeline: &str) -> OsString {
    format!("--pass-pipeline={pipeline}").into()
}

/// A shell command line that reproduces a finding on `INPUT`.
pub fn reproduce_command(tools: &Tools, target: Target, kind: Kind, split: bool) -> String {
    let split = if split {
        format!(" '--split-input-file={MARKER}' '--output-split-marker={MARKER}'")
    } else {
        String::new()
    };
    let opt = tools.executor_opt.display();
    let translate = tools.mlir_translate.display();
    match (target, kind) {
        (Target::Parse, _) => format!("{opt} INPUT{split}"),
        (Target::Pass, Kind::Reparse) => {
            format!("{opt} INPUT{split} --pass-pipeline='{PASS}' | {opt}{split}")
        }
        (Target::Pass, _) => format!("{opt} INPUT{split} --pass-pipeline='{PASS}'"),
        (Target::PassPyface, _) => format!("{opt} INPUT{split} --pass-pipeline='{PASS_PYFACE}'"),
        (Target::Pipeline, _) => format!("{opt} INPUT{split} --pass-pipeline='{LOWERING}'"),
        (Target::Translate, _) => format!(
            "{opt} INPUT{split} --pass-pipeline='{LOWERING}' | {translate} --mlir-to-llvmir{split}"
        ),
        (Target::Plugin, _) => {
            let plugin = tools
                .plugin
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            let mlir_opt = format!(
                "{} --load-dialect-plugin={plugin} --load-pass-plugin={plugin} INPUT{split} --pass-pipeline='{LOWERING}'",
                tools.mlir_opt.display()
            );
            if kind == Kind::PluginMismatch {
                format!("diff <({mlir_opt}) <({opt} INPUT{split} --pass-pipeline='{LOWERING}')")
            } else {
                mlir_opt
            }
        }
    }
}

/// Whether a diagnostic is an op's verifier rejecting it (`'llvm.call' op ...`).
fn is_verifier_error(message: &str) -> bool {
    message.starts_with('\'') && message.contains("' op ")
}

/// The dialects whose ops the lowering pipeline is meant to leave none of.
const LOWERED_DIALECTS: &[&str] = &[
    "builtin",
    "llvm",
    "executor",
    "func",
    "arith",
    "cf",
    "scf",
    "memref",
    "index",
    "tensor",
    "bufferization",
];

/// Whether an input has ops, types or attributes of dialects the pipeline
/// does not lower (`async.execute`, `!async.token`, `#gpu.address_space`):
/// mlir-translate failing on what the pipeline left of it is then no finding.
fn out_of_scope(input: &[u8]) -> bool {
    let text = String::from_utf8_lossy(input);
    let foreign = |dialect: &str| !dialect.is_empty() && !LOWERED_DIALECTS.contains(&dialect);
    op_names(&text)
        .iter()
        .filter_map(|name| name.split_once('.').map(|(dialect, _)| dialect))
        .any(foreign)
        || mlir::lex(&text).iter().any(|token| {
            matches!(token.kind, TokenKind::TypeAlias | TokenKind::AttrAlias)
                && token.text(&text)[1..]
                    .split_once('.')
                    .is_some_and(|(dialect, _)| foreign(dialect))
        })
}

/// Whether mlir-translate's complaint is about the input itself rather than
/// what the pipeline made of it: an op of the input that LLVM IR has no
/// translation for (`LLVM Translation failed for operation: X` with X in the
/// input), or ops the input put straight into the module body (translated
/// outside any function: "parentless instruction").
fn the_inputs_own_fault(message: &str, input: &[u8]) -> bool {
    let text = String::from_utf8_lossy(input);
    if message.contains("parentless instruction") {
        return true;
    }
    message
        .strip_prefix("LLVM Translation failed for operation: ")
        .map(str::trim)
        .is_some_and(|op| !op.is_empty() && text.contains(op))
}

/// A run that succeeded although it printed an error.
fn error_but_success(run: &Run) -> Option<Signature> {
    if !run.success() {
        return None;
    }
    run::first_error(&run.stderr).map(|message| Signature {
        kind: Kind::ErrorButSuccess,
        text: normalize(message),
    })
}

/// The members of a batch run that may have printed an error and still
/// produced output: those with an error at their lines, and every one with
/// output when an error has no line.
fn errors_but_success(
    run: &Run,
    first_errors: &[Option<String>],
    outputs: &[Vec<u8>],
    members: &[usize],
) -> Vec<usize> {
    let unattributed = !run::unattributed_errors(&run.stderr).is_empty();
    outputs
        .iter()
        .zip(first_errors)
        .zip(members)
        .filter(|((output, error), _)| !output.is_empty() && (unattributed || error.is_some()))
        .map(|(_, &member)| member)
        .collect()
}

/// What a single input did on a target.
#[derive(Clone, Debug)]
pub struct Checked {
    pub finding: Option<(Signature, String)>,
    /// Whether the target succeeded (for parse: the input is valid).
    pub success: bool,
}

/// Runs single inputs (or a batch as one input, `split`) through a target.
pub struct Checker<'a> {
    pub tools: &'a Tools,
    pub scratch: PathBuf,
    pub timeout: Duration,
}

impl Checker<'_> {
    fn input_file(&self, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.scratch)?;
        let path = self.scratch.join(name);
        fs::write(&path, bytes)?;
        Ok(path)
    }

    fn opt(
        &self,
        input: &Path,
        pipeline: Option<&str>,
        split: bool,
        timeout: Duration,
    ) -> io::Result<Run> {
        let mut args: Vec<OsString> = vec![input.into()];
        args.extend(split_args(split));
        args.extend(pipeline.map(pipeline_arg));
        run::run(&self.tools.executor_opt, &args, timeout, &self.scratch)
    }

    fn translate(&self, input: &Path, split: bool, timeout: Duration) -> io::Result<Run> {
        let mut args: Vec<OsString> = vec!["--mlir-to-llvmir".into(), input.into()];
        args.extend(split_args(split));
        run::run(&self.tools.mlir_translate, &args, timeout, &self.scratch)
    }

    fn plugin(&self, input: &Path, split: bool, timeout: Duration) -> io::Result<Run> {
        let plugin = self.tools.plugin.as_ref().ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "the plugin target is off")
        })?;
        let mut args: Vec<OsString> = vec![
            format!("--load-dialect-plugin={}", plugin.display()).into(),
            format!("--load-pass-plugin={}", plugin.display()).into(),
            input.into(),
        ];
        args.extend(split_args(split));
        args.push(pipeline_arg(LOWERING));
        run::run(&self.tools.mlir_opt, &args, timeout, &self.scratch)
    }

    /// Whether the input, printed as it is, parses again: MLIR itself prints
    /// some things it cannot parse (`@""` as `@<<INVALID EMPTY SYMBOL>>`),
    /// and what a tool prints of such an input is no finding when it does not
    /// parse either.
    fn printable(&self, input: &Path, split: bool) -> io::Result<bool> {
        let printed = self.opt(input, None, split, self.timeout)?;
        let printed = self.input_file("printed.mlir", &printed.stdout)?;
        Ok(self.opt(&printed, None, split, self.timeout)?.success())
    }

    /// `text` through `target` alone, as a user would run it.
    pub fn check(&self, target: Target, text: &[u8], split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let input = self.input_file("input.mlir", text)?;
        let found = |signature: Signature, run: &Run| Checked {
            finding: Some((signature, excerpt(&run.stderr, 40))),
            success: false,
        };
        let plain = |run: &Run| Checked {
            finding: None,
            success: run.success(),
        };
        match target {
            Target::Parse => {
                let run = self.opt(&input, None, split, timeout)?;
                Ok(classify(&run).map_or_else(|| plain(&run), |s| found(s, &run)))
            }
            Target::Pass | Target::PassPyface => {
                let pipeline = if target == Target::Pass {
                    PASS
                } else {
                    PASS_PYFACE
                };
                let run = self.opt(&input, Some(pipeline), split, timeout)?;
                if let Some(signature) = classify(&run) {
                    return Ok(found(signature, &run));
                }
                if let Some(signature) = error_but_success(&run) {
                    return Ok(found(signature, &run));
                }
                if !run.success() {
                    // A verifier error of a lowered op, on an input that verified.
                    let verifier = run::errors(&run.stderr)
                        .into_iter()
                        .find(|(_, message)| is_verifier_error(message));
                    if let Some((_, message)) = verifier {
                        let parsed = self.opt(&input, None, split, timeout)?;
                        if parsed.success() {
                            let signature = Signature {
                                kind: Kind::InvalidIr,
                                text: normalize(message),
                            };
                            return Ok(found(signature, &run));
                        }
                    }
                    return Ok(plain(&run));
                }
                if target == Target::Pass {
                    let output = self.input_file("output.mlir", &run.stdout)?;
                    let reparsed = self.opt(&output, None, split, timeout)?;
                    let problem = classify(&reparsed)
                        .map(|s| format!("{} {}", s.kind.name(), s.text))
                        .or_else(|| {
                            (!reparsed.success()).then(|| {
                                run::errors(&reparsed.stderr).first().map_or_else(
                                    || normalize(&reparsed.stderr),
                                    |(_, m)| normalize(m),
                                )
                            })
                        });
                    if let Some(text) = problem
                        && self.printable(&input, split)?
                    {
                        let signature = Signature {
                            kind: Kind::Reparse,
                            text,
                        };
                        return Ok(found(signature, &reparsed));
                    }
                }
                Ok(plain(&run))
            }
            Target::Pipeline => {
                let run = self.opt(&input, Some(LOWERING), split, timeout)?;
                Ok(classify(&run)
                    .or_else(|| error_but_success(&run))
                    .map_or_else(|| plain(&run), |s| found(s, &run)))
            }
            Target::Translate => {
                let lowered = self.opt(&input, Some(LOWERING), split, timeout)?;
                // What the pipeline target reports (a crash, an error with
                // success) is not reported again here.
                if classify(&lowered).is_some()
                    || !lowered.success()
                    || error_but_success(&lowered).is_some()
                {
                    return Ok(Checked {
                        finding: None,
                        success: false,
                    });
                }
                let output = self.input_file("lowered.mlir", &lowered.stdout)?;
                let run = self.translate(&output, split, timeout)?;
                if let Some(signature) = classify(&run) {
                    return Ok(found(signature, &run));
                }
                if !run.success() {
                    let message = run::errors(&run.stderr)
                        .first()
                        .map_or_else(|| run.stderr.clone(), |(_, m)| (*m).to_owned());
                    if out_of_scope(text)
                        || the_inputs_own_fault(&message, text)
                        || !self.printable(&input, split)?
                    {
                        return Ok(plain(&run));
                    }
                    let text = normalize(&message);
                    let signature = Signature {
                        kind: Kind::TranslateFailure,
                        text,
                    };
                    return Ok(found(signature, &run));
                }
                Ok(plain(&run))
            }
            Target::Plugin => {
                let run = self.plugin(&input, split, timeout)?;
                if let Some(signature) = classify(&run) {
                    return Ok(found(signature, &run));
                }
                let ours = self.opt(&input, Some(LOWERING), split, timeout)?;
                if classify(&ours).is_some() {
                    return Ok(plain(&run));
                }
                let text = match (run.success(), ours.success()) {
                    (true, false) => Some("mlir-opt succeeded, executor-opt failed"),
                    (false, true) => Some("mlir-opt failed, executor-opt succeeded"),
                    (true, true) if run.stdout != ours.stdout => Some("outputs differ"),
                    _ => None,
                };
                Ok(match text {
                    Some(text) => {
                        let signature = Signature {
                            kind: Kind::PluginMismatch,
                            text: text.into(),
                        };
                        let detail = format!(
                            "mlir-opt:\n{}\nexecutor-opt:\n{}",
                            excerpt(&run.stderr, 15),
                            excerpt(&ours.stderr, 15)
                        );
                        Checked {
                            finding: Some((signature, detail)),
                            success: false,
                        }
                    }
                    None => plain(&run),
                })
            }
        }
    }
}

/// A batch's inputs in one file: their first lines, to attribute diagnostics.
struct BatchFile {
    path: PathBuf,
    /// The 1-based line each input starts at.
    starts: Vec<usize>,
    text: Vec<u8>,
}

fn write_batch(path: PathBuf, inputs: &[&[u8]]) -> io::Result<BatchFile> {
    let mut text = Vec::new();
    let mut starts = Vec::with_capacity(inputs.len());
    let mut line = 1;
    for (index, input) in inputs.iter().enumerate() {
        if index > 0 {
            text.extend_from_slice(MARKER.as_bytes());
            text.push(b'\n');
            line += 1;
        }
        starts.push(line);
        text.extend_from_slice(input);
        if !input.ends_with(b"\n") {
            text.push(b'\n');
        }
        line +=
            input.iter().filter(|&&b| b == b'\n').count() + usize::from(!input.ends_with(b"\n"));
    }
    fs::write(&path, &text)?;
    Ok(BatchFile { path, starts, text })
}

impl BatchFile {
    fn input_at(&self, line: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= line)
            .saturating_sub(1)
    }

    /// Each input's first error message.
    fn first_errors(&self, stderr: &str) -> Vec<Option<String>> {
        let mut first = vec![None; self.starts.len()];
        for (line, message) in run::errors(stderr) {
            let slot = &mut first[self.input_at(line)];
            if slot.is_none() {
                *slot = Some(message.to_owned());
            }
        }
        first
    }

    /// Each input's verifier errors (see `is_verifier_error`).
    fn has_verifier_error(&self, stderr: &str) -> Vec<bool> {
        let mut found = vec![false; self.starts.len()];
        for (line, message) in run::errors(stderr) {
            if is_verifier_error(message) {
                found[self.input_at(line)] = true;
            }
        }
        found
    }
}

/// A batch that ran clean: the members left in it, its file, the run and
/// each member's output.
type BatchRun = (Vec<usize>, BatchFile, Run, Vec<Vec<u8>>);

/// The outputs of a `--split-input-file` run, one per input (empty where
/// the input failed); None when they do not split into `count`.
fn split_output(stdout: &[u8], count: usize) -> Option<Vec<Vec<u8>>> {
    let mut chunks = vec![Vec::new()];
    for line in stdout.split_inclusive(|&b| b == b'\n') {
        if line.strip_suffix(b"\n").unwrap_or(line) == MARKER.as_bytes() {
            chunks.push(Vec::new());
        } else {
            chunks
                .last_mut()
                .expect("never empty")
                .extend_from_slice(line);
        }
    }
    for chunk in &mut chunks {
        while chunk.last().is_some_and(u8::is_ascii_whitespace) {
            chunk.pop();
        }
        let leading = chunk.iter().take_while(|b| b.is_ascii_whitespace()).count();
        chunk.drain(..leading);
    }
    (chunks.len() == count).then_some(chunks)
}

/// Counts of one run of the compiler fuzzer.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Mutants generated and run.
    pub inputs: usize,
    /// Inputs each target ran, and how many it accepted.
    pub ran: BTreeMap<&'static str, usize>,
    pub accepted: BTreeMap<&'static str, usize>,
    /// Inputs run again alone (a batch looked like a finding).
    pub rechecked: usize,
    pub pool: usize,
    /// For each mutation: inputs it made alone (not stacked on others), and
    /// how many of them verified.
    pub by_mutation: BTreeMap<&'static str, (usize, usize)>,
}

impl Stats {
    fn count(&mut self, target: Target, ran: usize, accepted: usize) {
        *self.ran.entry(target.name()).or_default() += ran;
        *self.accepted.entry(target.name()).or_default() += accepted;
    }

    fn merge(&mut self, other: &Stats) {
        self.inputs += other.inputs;
        self.rechecked += other.rechecked;
        for (name, (made, valid)) in &other.by_mutation {
            let entry = self.by_mutation.entry(name).or_default();
            entry.0 += made;
            entry.1 += valid;
        }
        for (name, count) in &other.ran {
            *self.ran.entry(name).or_default() += count;
        }
        for (name, count) in &other.accepted {
            *self.accepted.entry(name).or_default() += count;
        }
    }

    /// `parse 1200 (640 valid), pass 640 (512 ok), ...`
    pub fn per_target(&self) -> String {
        Target::ALL
            .iter()
            .filter_map(|target| {
                let ran = self.ran.get(target.name())?;
                let accepted = self.accepted.get(target.name()).copied().unwrap_or(0);
                Some(format!("{} {ran} ({accepted} ok)", target.name()))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `string 120/300, ...`: how often each mutation's inputs verified.
    pub fn per_mutation(&self) -> String {
        self.by_mutation
            .iter()
            .map(|(name, (made, valid))| format!("{name} {valid}/{made}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// An input of a batch.
#[derive(Clone, Debug)]
pub struct Input {
    pub text: String,
    pub origin: String,
    pub mutations: Vec<&'static str>,
}

/// What one batch did.
#[derive(Debug, Default)]
struct BatchOutcome {
    stats: Stats,
    findings: Findings,
    /// For each valid input: what it showed (error messages, op names).
    features: Vec<(usize, Vec<String>)>,
}

/// The options of a compiler fuzzing run.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Stop after this long (checked between rounds of batches).
    pub time: Option<Duration>,
    /// Stop after this many inputs.
    pub inputs: Option<usize>,
    /// Batches run at once.
    pub jobs: usize,
    pub batch: usize,
    /// For one tool on one input (a batch gets this plus a second per input).
    pub timeout: Duration,
    /// Limits of minimizing each finding (0 tests: no minimization).
    pub minimize: Budget,
    /// Scratch files go here.
    pub work_dir: PathBuf,
}

/// Op names of an input's statements (`executor.launch`, `scf.for`, `return`).
fn op_names(text: &str) -> BTreeSet<String> {
    text.lines()
        .filter_map(|line| {
            let mut rest = line.trim_start();
            if rest.starts_with('%') {
                rest = rest.split_once(" = ")?.1;
            }
            let name = rest
                .split(|c: char| c.is_whitespace() || c == '(' || c == '<')
                .next()?;
            (name.contains('.') || name == "return").then(|| name.trim_matches('"').to_owned())
        })
        .collect()
}

/// The compiler fuzzer.
pub struct Fuzzer<'a> {
    pub tools: &'a Tools,
    pub options: Options,
}

/// The outcome of a fuzzing run.
#[derive(Debug)]
pub struct Report {
    pub stats: Stats,
    pub findings: Findings,
    pub elapsed: Duration,
}

impl Fuzzer<'_> {
    fn checker(&self, scratch: PathBuf) -> Checker<'_> {
        Checker {
            tools: self.tools,
            scratch,
            timeout: self.options.timeout,
        }
    }

    fn batch_timeout(&self, count: usize) -> Duration {
        self.options.timeout + Duration::from_secs(count as u64)
    }

    fn finding(
        &self,
        target: Target,
        input: &Input,
        signature: Signature,
        detail: String,
        split: bool,
    ) -> Finding {
        Finding {
            target: target.name().to_owned(),
            reproduce: reproduce_command(self.tools, target, signature.kind, split),
            signature,
            input: input.text.as_bytes().to_vec(),
            extension: "mlir",
            detail,
            origin: input.origin.clone(),
            minimized: None,
            count: 1,
            known: None,
        }
    }

    /// Checks `members` one by one on `target`, recording their findings;
    /// returns the members that are findings.
    fn recheck(
        &self,
        checker: &Checker,
        target: Target,
        inputs: &[Input],
        members: &[usize],
        outcome: &mut BatchOutcome,
    ) -> io::Result<Vec<usize>> {
        let mut found = Vec::new();
        for &member in members {
            outcome.stats.rechecked += 1;
            let checked = checker.check(target, inputs[member].text.as_bytes(), false)?;
            if let Some((signature, detail)) = checked.finding {
                found.push(member);
                outcome.findings.add(self.finding(
                    target,
                    &inputs[member],
                    signature,
                    detail,
                    false,
                ));
            }
        }
        Ok(found)
    }

    /// The members of a batch that make `run` a finding (or break its
    /// output's split), found by halves: a half whose batch runs clean is
    /// left alone, one that does not is split again, down to single inputs,
    /// which are checked alone.
    #[allow(clippy::too_many_arguments)]
    fn isolate(
        &self,
        checker: &Checker,
        batch_checker: &Checker,
        target: Target,
        command: &dyn Fn(&Checker, &Path) -> io::Result<Run>,
        inputs: &[Input],
        members: &[usize],
        outcome: &mut BatchOutcome,
    ) -> io::Result<Vec<usize>> {
        if members.len() <= 2 {
            return self.recheck(checker, target, inputs, members, outcome);
        }
        let mut found = Vec::new();
        for half in members.chunks(members.len().div_ceil(2)) {
            let texts: Vec<&[u8]> = half.iter().map(|&m| inputs[m].text.as_bytes()).collect();
            let file = write_batch(batch_checker.scratch.join("half.mlir"), &texts)?;
            let run = command(batch_checker, &file.path)?;
            if classify(&run).is_some() || split_output(&run.stdout, half.len()).is_none() {
                found.extend(self.isolate(
                    checker,
                    batch_checker,
                    target,
                    command,
                    inputs,
                    half,
                    outcome,
                )?);
            }
        }
        Ok(found)
    }

    /// Runs `members` through `target`'s `command` as one batch; the inputs
    /// that make it a finding are isolated, recorded and left out, and the
    /// rest run again. Returns the members left, the run and their outputs;
    /// None when the batch is a finding that no input makes alone (then
    /// recorded with the whole batch as its input).
    #[allow(clippy::too_many_arguments)]
    fn batch_run(
        &self,
        checker: &Checker,
        batch_checker: &Checker,
        target: Target,
        command: &dyn Fn(&Checker, &Path) -> io::Result<Run>,
        inputs: &[Input],
        members: &[usize],
        outcome: &mut BatchOutcome,
    ) -> io::Result<Option<BatchRun>> {
        let mut current = members.to_vec();
        loop {
            let texts: Vec<&[u8]> = current.iter().map(|&m| inputs[m].text.as_bytes()).collect();
            let file = write_batch(
                batch_checker
                    .scratch
                    .join(format!("{}.mlir", target.name())),
                &texts,
            )?;
            let run = command(batch_checker, &file.path)?;
            let signature = classify(&run);
            if signature.is_none()
                && let Some(outputs) = split_output(&run.stdout, current.len())
            {
                return Ok(Some((current, file, run, outputs)));
            }
            let found = self.isolate(
                checker,
                batch_checker,
                target,
                command,
                inputs,
                &current,
                outcome,
            )?;
            if found.is_empty() {
                if let Some(signature) = signature {
                    let input = Input {
                        text: String::from_utf8_lossy(&file.text).into_owned(),
                        origin: format!(
                            "a batch of {} inputs; none alone makes the finding",
                            current.len()
                        ),
                        mutations: Vec::new(),
                    };
                    outcome.findings.add(self.finding(
                        target,
                        &input,
                        signature,
                        excerpt(&run.stderr, 40),
                        true,
                    ));
                }
                return Ok(None);
            }
            current.retain(|m| !found.contains(m));
            if current.is_empty() {
                return Ok(None);
            }
        }
    }

    /// Runs one batch through every target.
    fn run_batch(&self, inputs: &[Input], scratch: &Path) -> io::Result<BatchOutcome> {
        let checker = self.checker(scratch.join("single"));
        let batch_checker = Checker {
            tools: self.tools,
            scratch: scratch.to_owned(),
            timeout: self.batch_timeout(inputs.len()),
        };
        let mut outcome = BatchOutcome::default();
        outcome.stats.inputs = inputs.len();
        let count = inputs.len();
        let everyone: Vec<usize> = (0..count).collect();

        // Parse and verify.
        let parse = |c: &Checker, path: &Path| c.opt(path, None, true, c.timeout);
        let members: Vec<usize> = match self.batch_run(
            &checker,
            &batch_checker,
            Target::Parse,
            &parse,
            inputs,
            &everyone,
            &mut outcome,
        )? {
            Some((left, _, _, outputs)) => left
                .into_iter()
                .zip(&outputs)
                .filter(|(_, output)| !output.is_empty())
                .map(|(m, _)| m)
                .collect(),
            None => Vec::new(),
        };
        outcome.stats.count(Target::Parse, count, members.len());
        for (index, input) in inputs.iter().enumerate() {
            if let [name] = input.mutations[..] {
                let entry = outcome.stats.by_mutation.entry(name).or_default();
                entry.0 += 1;
                entry.1 += usize::from(members.contains(&index));
            }
        }
        let mut features: BTreeMap<usize, Vec<String>> = members
            .iter()
            .map(|&m| (m, vec![format!("ops:{:?}", op_names(&inputs[m].text))]))
            .collect();

        // The pass, both conventions; the default one's output parsed again.
        for target in [Target::Pass, Target::PassPyface] {
            let pipeline = if target == Target::Pass {
                PASS
            } else {
                PASS_PYFACE
            };
            let command = |c: &Checker, path: &Path| c.opt(path, Some(pipeline), true, c.timeout);
            let Some((left, file, run, outputs)) = self.batch_run(
                &checker,
                &batch_checker,
                target,
                &command,
                inputs,
                &members,
                &mut outcome,
            )?
            else {
                outcome.stats.count(target, members.len(), 0);
                continue;
            };
            let first_errors = file.first_errors(&run.stderr);
            let verifier = file.has_verifier_error(&run.stderr);
            let mut suspects = errors_but_success(&run, &first_errors, &outputs, &left);
            let mut passed = Vec::new();
            for (k, output) in outputs.iter().enumerate() {
                let member = left[k];
                let feature = if output.is_empty() {
                    if verifier[k] {
                        suspects.push(member);
                    }
                    let message = first_errors[k]
                        .as_deref()
                        .map_or_else(String::new, normalize);
                    format!("{}:error:{message}", target.name())
                } else {
                    passed.push(k);
                    format!("{}:ok", target.name())
                };
                features.entry(member).or_default().push(feature);
            }
            outcome.stats.count(target, members.len(), passed.len());
            if target == Target::Pass && !passed.is_empty() {
                let lowered: Vec<&[u8]> = passed.iter().map(|&k| outputs[k].as_slice()).collect();
                let lowered_file = write_batch(scratch.join("lowered.mlir"), &lowered)?;
                let reparsed =
                    batch_checker.opt(&lowered_file.path, None, true, batch_checker.timeout)?;
                match (
                    classify(&reparsed),
                    split_output(&reparsed.stdout, passed.len()),
                ) {
                    (None, Some(again)) => suspects.extend(
                        passed
                            .iter()
                            .zip(&again)
                            .filter(|(_, output)| output.is_empty())
                            .map(|(&k, _)| left[k]),
                    ),
                    _ => suspects.extend(passed.iter().map(|&k| left[k])),
                }
            }
            suspects.sort_unstable();
            suspects.dedup();
            if !suspects.is_empty() {
                self.recheck(&checker, target, inputs, &suspects, &mut outcome)?;
            }
        }

        // The pipeline, mlir-translate on what it lowered, and the plugin.
        let lowering = |c: &Checker, path: &Path| c.opt(path, Some(LOWERING), true, c.timeout);
        let pipeline = self.batch_run(
            &checker,
            &batch_checker,
            Target::Pipeline,
            &lowering,
            inputs,
            &members,
            &mut outcome,
        )?;
        let mut lowered_by_us: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
        match &pipeline {
            Some((left, file, run, outputs)) => {
                let first_errors = file.first_errors(&run.stderr);
                for (k, output) in outputs.iter().enumerate() {
                    features
                        .entry(left[k])
                        .or_default()
                        .push(if output.is_empty() {
                            let message = first_errors[k]
                                .as_deref()
                                .map_or_else(String::new, normalize);
                            format!("pipeline:error:{message}")
                        } else {
                            "pipeline:ok".to_owned()
                        });
                    lowered_by_us.insert(left[k], output.clone());
                }
                outcome.stats.count(
                    Target::Pipeline,
                    members.len(),
                    outputs.iter().filter(|o| !o.is_empty()).count(),
                );
                let suspects = errors_but_success(run, &first_errors, outputs, left);
                if !suspects.is_empty() {
                    for member in
                        self.recheck(&checker, Target::Pipeline, inputs, &suspects, &mut outcome)?
                    {
                        lowered_by_us.remove(&member);
                    }
                }
            }
            None => outcome.stats.count(Target::Pipeline, members.len(), 0),
        }
        let lowered: Vec<(usize, &Vec<u8>)> = lowered_by_us
            .iter()
            .filter(|(_, output)| !output.is_empty())
            .map(|(&m, output)| (m, output))
            .collect();
        if !lowered.is_empty() {
            let texts: Vec<&[u8]> = lowered
                .iter()
                .map(|(_, output)| output.as_slice())
                .collect();
            let lowered_file = write_batch(scratch.join("llvm.mlir"), &texts)?;
            let run = batch_checker.translate(&lowered_file.path, true, batch_checker.timeout)?;
            let suspects: Vec<usize> =
                match (classify(&run), split_output(&run.stdout, lowered.len())) {
                    (None, Some(translated)) => lowered
                        .iter()
                        .zip(&translated)
                        .filter(|((m, _), ir)| {
                            ir.is_empty() && !out_of_scope(inputs[*m].text.as_bytes())
                        })
                        .map(|((m, _), _)| *m)
                        .collect(),
                    _ => lowered.iter().map(|(m, _)| *m).collect(),
                };
            let found = if suspects.is_empty() {
                0
            } else {
                self.recheck(&checker, Target::Translate, inputs, &suspects, &mut outcome)?
                    .len()
            };
            outcome
                .stats
                .count(Target::Translate, lowered.len(), lowered.len() - found);
        }
        if self.tools.plugin.is_some() {
            let plugin = |c: &Checker, path: &Path| c.plugin(path, true, c.timeout);
            match self.batch_run(
                &checker,
                &batch_checker,
                Target::Plugin,
                &plugin,
                inputs,
                &members,
                &mut outcome,
            )? {
                Some((left, _, _, outputs)) => {
                    outcome.stats.count(
                        Target::Plugin,
                        members.len(),
                        outputs.iter().filter(|o| !o.is_empty()).count(),
                    );
                    let suspects: Vec<usize> = left
                        .iter()
                        .zip(&outputs)
                        .filter(|(m, output)| {
                            lowered_by_us.get(m).is_some_and(|ours| ours != *output)
                        })
                        .map(|(&m, _)| m)
                        .collect();
                    if !suspects.is_empty() {
                        self.recheck(&checker, Target::Plugin, inputs, &suspects, &mut outcome)?;
                    }
                }
                None => outcome.stats.count(Target::Plugin, members.len(), 0),
            }
        }
        outcome.features = features.into_iter().collect();
        Ok(outcome)
    }

    /// Which seeds parse and verify, and those in MLIR's generic form:
    /// properties and attributes spelled out are there for the mutators.
    fn generic_forms(&self, seeds: &[Seed]) -> io::Result<(Vec<bool>, Vec<Seed>)> {
        let texts: Vec<&[u8]> = seeds.iter().map(|s| s.text.as_bytes()).collect();
        let scratch = self.options.work_dir.join("generic");
        fs::create_dir_all(&scratch)?;
        let file = write_batch(scratch.join("seeds.mlir"), &texts)?;
        let mut args: Vec<OsString> =
            vec![file.path.clone().into(), "--mlir-print-op-generic".into()];
        args.extend(split_args(true));
        let run = run::run(
            &self.tools.executor_opt,
            &args,
            self.batch_timeout(seeds.len()),
            &scratch,
        )?;
        // When the seeds crash the parser (the fuzzer will find out why),
        // they are all taken as valid and there is no generic form.
        let Some(outputs) =
            split_output(&run.stdout, seeds.len()).filter(|_| classify(&run).is_none())
        else {
            return Ok((vec![true; seeds.len()], Vec::new()));
        };
        let valid = outputs.iter().map(|o| !o.is_empty()).collect();
        let generic = outputs
            .into_iter()
            .zip(seeds)
            .filter(|(output, _)| !output.is_empty())
            .map(|(output, seed)| Seed {
                origin: format!("{} (generic form)", seed.origin),
                text: String::from_utf8_lossy(&output).into_owned() + "\n",
            })
            .collect();
        Ok((valid, generic))
    }

    /// Fuzzes until the time or the input count runs out, then minimizes
    /// each finding. `log` gets progress lines.
    pub fn run(&self, seeds: &[Seed], log: &mut dyn FnMut(&str)) -> io::Result<Report> {
        let started = Instant::now();
        let options = &self.options;
        // Mutants of valid inputs; of the invalid ones (the corpus's
        // expected-error cases) now and then, for the parser and verifiers.
        let (valid, generic) = self.generic_forms(seeds)?;
        let (mut pool, invalid): (Vec<Seed>, Vec<Seed>) = {
            let (good, bad): (Vec<_>, Vec<_>) = seeds.iter().zip(&valid).partition(|(_, v)| **v);
            (
                good.into_iter().map(|(s, _)| s.clone()).collect(),
                bad.into_iter().map(|(s, _)| s.clone()).collect(),
            )
        };
        let valid_seeds = pool.len();
        pool.extend(generic);
        let initial = pool.len();
        log(&format!(
            "compiler: {} seeds ({} valid, {} of them in generic form too), seed {}, {} jobs x {} inputs a batch",
            seeds.len(),
            valid_seeds,
            initial - valid_seeds,
            options.seed,
            options.jobs,
            options.batch
        ));
        let mut stats = Stats::default();
        let mut findings = Findings::default();
        let mut seen_features: HashSet<String> = HashSet::new();
        let mut pool_rng = Rng::derive(options.seed, u64::MAX);
        let mut next_index: u64 = 0;
        let mut last_log = Instant::now();
        loop {
            if options.time.is_some_and(|limit| started.elapsed() >= limit) {
                break;
            }
            // One round: `jobs` batches generated from the pool as it is now,
            // so that a seed gives the same inputs whatever the timing.
            let mut batches: Vec<Vec<Input>> = Vec::new();
            for _ in 0..options.jobs.max(1) {
                let mut batch = Vec::new();
                while batch.len() < options.batch
                    && options
                        .inputs
                        .is_none_or(|limit| (next_index as usize) < limit)
                {
                    let mut rng = Rng::derive(options.seed, next_index);
                    next_index += 1;
                    let base = if !invalid.is_empty() && rng.chance(1, 16) {
                        &invalid[rng.below(invalid.len())]
                    } else {
                        &pool[rng.below(pool.len())]
                    };
                    let donors: Vec<&str> = (0..3)
                        .map(|_| pool[rng.below(pool.len())].text.as_str())
                        .collect();
                    let Some(Mutant { text, mutations }) =
                        mutate::mutate(&mut rng, &base.text, &donors)
                    else {
                        continue;
                    };
                    if text.contains(MARKER) {
                        continue;
                    }
                    batch.push(Input {
                        text,
                        origin: format!("{} + {}", base.origin, mutations.join(", ")),
                        mutations,
                    });
                }
                if !batch.is_empty() {
                    batches.push(batch);
                }
            }
            if batches.is_empty() {
                break;
            }
            let outcomes: Vec<io::Result<BatchOutcome>> = thread::scope(|scope| {
                let handles: Vec<_> = batches
                    .iter()
                    .enumerate()
                    .map(|(job, batch)| {
                        let scratch = options.work_dir.join(format!("job{job}"));
                        scope.spawn(move || {
                            fs::create_dir_all(&scratch)?;
                            self.run_batch(batch, &scratch)
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(io::Error::other("a fuzzing thread panicked")))
                    })
                    .collect()
            });
            for (batch, outcome) in batches.iter().zip(outcomes) {
                let outcome = outcome?;
                stats.merge(&outcome.stats);
                for finding in outcome.findings.iter() {
                    if !findings.iter().any(|f| f.key() == finding.key()) {
                        log(&format!("compiler: finding {}", finding.summary()));
                    }
                }
                findings.merge(outcome.findings);
                // Inputs that showed something new join the pool.
                for (member, features) in outcome.features {
                    let mut new = false;
                    for feature in features {
                        new |= seen_features.insert(feature);
                    }
                    if new {
                        let seed = Seed {
                            origin: batch[member].origin.clone(),
                            text: batch[member].text.clone(),
                        };
                        if pool.len() < initial + 4000 {
                            pool.push(seed);
                        } else {
                            let at = initial + pool_rng.below(pool.len() - initial);
                            pool[at] = seed;
                        }
                    }
                }
            }
            if last_log.elapsed() >= Duration::from_secs(30) {
                last_log = Instant::now();
                log(&format!(
                    "compiler: {} inputs in {:.0} s, pool {}, {} findings; {}",
                    stats.inputs,
                    started.elapsed().as_secs_f64(),
                    pool.len(),
                    findings.len(),
                    stats.per_target()
                ));
            }
        }
        stats.pool = pool.len();
        let elapsed = started.elapsed();
        self.minimize_all(&mut findings, log)?;
        Ok(Report {
            stats,
            findings,
            elapsed,
        })
    }

    /// Minimizes each finding's input, keeping its signature.
    pub fn minimize_all(
        &self,
        findings: &mut Findings,
        log: &mut dyn FnMut(&str),
    ) -> io::Result<()> {
        if self.options.minimize.tests == 0 {
            return Ok(());
        }
        let checker = self.checker(self.options.work_dir.join("minimize"));
        for finding in findings.iter_mut() {
            let Some(target) = Target::from_name(&finding.target) else {
                continue;
            };
            let split = finding.reproduce.contains("--split-input-file");
            let wanted = finding.signature.clone();
            let mut error = None;
            let input = String::from_utf8_lossy(&finding.input).into_owned();
            let result =
                minimize::minimize(&input, self.options.minimize, &mut |candidate: &str| {
                    match checker.check(target, candidate.as_bytes(), split) {
                        Ok(checked) => checked
                            .finding
                            .is_some_and(|(signature, _)| signature == wanted),
                        Err(e) => {
                            error.get_or_insert(e);
                            false
                        }
                    }
                });
            if let Some(error) = error {
                return Err(error);
            }
            log(&format!(
                "compiler: minimized {} from {} to {} bytes in {} tests{}",
                finding.name(),
                finding.input.len(),
                result.text.len(),
                result.tests,
                if result.reproduced {
                    ""
                } else {
                    " (did not reproduce alone)"
                }
            ));
            if result.reproduced {
                if let Ok(checked) = checker.check(target, result.text.as_bytes(), split)
                    && let Some((_, detail)) = checked.finding
                {
                    finding.detail = detail;
                }
                finding.minimized = Some(result.text.into_bytes());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_attribute_lines_to_inputs() {
        let dir = std::env::temp_dir().join(format!("executor-fuzz-batch-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = write_batch(dir.join("b.mlir"), &[b"a\nb\n", b"c\n", b"d\ne\nf"]).unwrap();
        assert_eq!(file.starts, vec![1, 4, 6]);
        let text = String::from_utf8(file.text.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[file.starts[1] - 1], "c");
        assert_eq!(lines[file.starts[2] - 1], "d");
        assert_eq!(file.input_at(2), 0);
        assert_eq!(file.input_at(5), 1);
        assert_eq!(file.input_at(8), 2);
        let stderr = format!(
            "{}:5:1: error: x\n{}:7:2: error: 'llvm.call' op y\n",
            file.path.display(),
            file.path.display()
        );
        assert_eq!(
            file.first_errors(&stderr),
            vec![None, Some("x".into()), Some("'llvm.call' op y".into())]
        );
        assert_eq!(file.has_verifier_error(&stderr), vec![false, false, true]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn outputs_split_at_the_marker() {
        let out = format!("module {{\n}}\n\n{MARKER}\n{MARKER}\nmodule {{\n}}\n");
        let chunks = split_output(out.as_bytes(), 3).unwrap();
        assert_eq!(
            chunks,
            vec![b"module {\n}".to_vec(), vec![], b"module {\n}".to_vec()]
        );
        assert!(split_output(out.as_bytes(), 2).is_none());
    }

    #[test]
    fn translate_failures_on_ops_the_pipeline_leaves_are_no_finding() {
        assert!(out_of_scope(b"%t = async.execute {\n  async.yield\n}\n"));
        assert!(out_of_scope(b"  \"gpu.launch\"(%a) ({\n"));
        assert!(out_of_scope(b"func.func private @f() -> !async.token\n"));
        assert!(out_of_scope(
            b"func.func @f(%m: memref<f32, #gpu.address_space<global>>)\n"
        ));
        assert!(!out_of_scope(
            b"func.func @f(%s: !executor.session, %p: !llvm.ptr)\n"
        ));
        assert!(the_inputs_own_fault(
            "LLVM Translation failed for operation: llvm.cnd_br",
            b"\"llvm.cnd_br\"(%0)"
        ));
        assert!(!the_inputs_own_fault(
            "LLVM Translation failed for operation: llvm.call",
            b"executor.open"
        ));
        assert!(the_inputs_own_fault(
            "Global is referenced by parentless instruction!",
            b""
        ));
        assert!(!out_of_scope(b"func.func @f() {\n  %s = executor.open(\"a\") : !executor.session\n  scf.for %i = %a to %b step %c {\n  }\n  return\n}\n"));
    }

    #[test]
    fn op_names_of_statements() {
        let names = op_names(
            "func.func @f() {\n  %a = executor.open(\"x\") : !executor.session\n  \"executor.close\"(%a) : (!executor.session) -> ()\n  return\n}\n",
        );
        let expected: BTreeSet<String> = ["func.func", "executor.open", "executor.close", "return"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(names, expected);
    }
}
