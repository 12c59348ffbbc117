//! The oracle: one input (or a batch as one input) through one target, as a
//! user would run it, and whether what the tools did is a finding (a crash,
//! an error with success, a verifier error of a lowered op, output that does
//! not parse again, a translate failure that is the pipeline's fault, the
//! plugin disagreeing with executor-opt).

use std::{
    collections::BTreeSet,
    ffi::OsString,
    fs, io,
    path::{Path, PathBuf},
    time::Duration,
};

use super::{
    mlir::{self, TokenKind},
    run::{self, Run, classify},
    tools::{LOWERING, PASS, PASS_PYFACE, Target, Tools, pipeline_arg, split_args},
};
use crate::shared::{
    findings::excerpt,
    signature::{Kind, Signature, normalize},
};

/// Whether a diagnostic is an op's verifier rejecting it (`'llvm.call' op ...`).
pub(super) fn is_verifier_error(message: &str) -> bool {
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
pub(super) fn out_of_scope(input: &[u8]) -> bool {
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

/// Op names of an input's statements (`executor.launch`, `scf.for`, `return`).
pub(super) fn op_names(text: &str) -> BTreeSet<String> {
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

    pub(super) fn opt(
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

    pub(super) fn translate(
        &self,
        input: &Path,
        split: bool,
        timeout: Duration,
    ) -> io::Result<Run> {
        let mut args: Vec<OsString> = vec!["--mlir-to-llvmir".into(), input.into()];
        args.extend(split_args(split));
        run::run(&self.tools.mlir_translate, &args, timeout, &self.scratch)
    }

    pub(super) fn plugin(&self, input: &Path, split: bool, timeout: Duration) -> io::Result<Run> {
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
        let input = self.input_file("input.mlir", text)?;
        match target {
            Target::Parse => self.check_parse(&input, split),
            Target::Pass | Target::PassPyface => self.check_pass(target, &input, split),
            Target::Pipeline => self.check_pipeline(&input, split),
            Target::Translate => self.check_translate(text, &input, split),
            Target::Plugin => self.check_plugin(&input, split),
        }
    }

    fn check_parse(&self, input: &Path, split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let run = self.opt(input, None, split, timeout)?;
        Ok(classify(&run).map_or_else(|| plain(&run), |s| found(s, &run)))
    }

    /// The pass: a crash, an error with success, a verifier error of a
    /// lowered op; for the default convention, output that does not parse
    /// again.
    fn check_pass(&self, target: Target, input: &Path, split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let pipeline = if target == Target::Pass {
            PASS
        } else {
            PASS_PYFACE
        };
        let run = self.opt(input, Some(pipeline), split, timeout)?;
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
                let parsed = self.opt(input, None, split, timeout)?;
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
                        run::errors(&reparsed.stderr)
                            .first()
                            .map_or_else(|| normalize(&reparsed.stderr), |(_, m)| normalize(m))
                    })
                });
            if let Some(text) = problem
                && self.printable(input, split)?
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

    fn check_pipeline(&self, input: &Path, split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let run = self.opt(input, Some(LOWERING), split, timeout)?;
        Ok(classify(&run)
            .or_else(|| error_but_success(&run))
            .map_or_else(|| plain(&run), |s| found(s, &run)))
    }

    /// mlir-translate on what the pipeline lowered: a crash, or a failure
    /// that is the pipeline's fault.
    fn check_translate(&self, text: &[u8], input: &Path, split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let lowered = self.opt(input, Some(LOWERING), split, timeout)?;
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
                || !self.printable(input, split)?
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

    /// Upstream mlir-opt with the plugin: a crash, or a disagreement with
    /// executor-opt.
    fn check_plugin(&self, input: &Path, split: bool) -> io::Result<Checked> {
        let timeout = self.timeout;
        let run = self.plugin(input, split, timeout)?;
        if let Some(signature) = classify(&run) {
            return Ok(found(signature, &run));
        }
        let ours = self.opt(input, Some(LOWERING), split, timeout)?;
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

/// A finding on `run`, its stderr the detail.
fn found(signature: Signature, run: &Run) -> Checked {
    Checked {
        finding: Some((signature, excerpt(&run.stderr, 40))),
        success: false,
    }
}

/// No finding: whether `run` succeeded.
fn plain(run: &Run) -> Checked {
    Checked {
        finding: None,
        success: run.success(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
