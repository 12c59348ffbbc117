//! The tools under test, the targets an input goes through, and the shell
//! command that reproduces a finding of each.

use std::{
    ffi::OsString,
    io,
    path::{Path, PathBuf},
};

use crate::shared::signature::Kind;

/// The pass alone.
pub const PASS: &str = "builtin.module(convert-executor-to-llvm)";
/// The pass with Catalyst's entry convention.
pub const PASS_PYFACE: &str =
    "builtin.module(convert-executor-to-llvm{entry-convention=catalyst-pyface})";
/// Catalyst's bufferization, then the named pipeline (docs/lowering.md).
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

pub(super) fn split_args(split: bool) -> Vec<OsString> {
    if split {
        vec![
            format!("--split-input-file={MARKER}").into(),
            format!("--output-split-marker={MARKER}").into(),
        ]
    } else {
        Vec::new()
    }
}

pub(super) fn pipeline_arg(pipeline: &str) -> OsString {
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
