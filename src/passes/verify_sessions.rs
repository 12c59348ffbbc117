//! `executor-verify-sessions`: reports, from the facts of the session
//! analysis (`session_analysis`), ops on closed sessions, tokens awaited
//! twice or after their session closed, launches nobody awaits, objects
//! launched but not sent and redundant sends. The rules, their severities
//! and what the analysis cannot know are in td/ExecutorPasses.td.

use std::collections::BTreeMap;

use melior::ir::{OperationRef, operation::OperationLike};

use super::{
    executor_ops::{ExecutorKind, ExecutorOp},
    ir,
    session_analysis::{self, Fact, Kind, OpId, SessionFacts},
};
use crate::ffi::{self, Severity};

pub const ARGUMENT: &str = "executor-verify-sessions";

/// Runs the pass on `module`; false once errors have been reported
/// (warnings and remarks do not fail it).
pub fn run(module: OperationRef<'_, '_>) -> bool {
    super::run_guarded(ARGUMENT, module, || {
        let facts = session_analysis::analyze(module);
        let reports = reports(&facts);
        let failed = reports
            .iter()
            .any(|report| report.severity == Severity::Error);
        for report in reports {
            let notes: Vec<_> = report
                .notes
                .iter()
                .map(|(op, note)| (op.location(), note.clone()))
                .collect();
            ffi::emit_diagnostic(
                report.at.location(),
                report.severity,
                &report.message,
                &notes,
            );
        }
        if failed { Err(()) } else { Ok(()) }
    })
}

/// One diagnostic, at an op, with notes at the ops that explain it.
struct Report<'c, 'a> {
    at: OperationRef<'c, 'a>,
    severity: Severity,
    message: String,
    notes: Vec<(OperationRef<'c, 'a>, String)>,
}

mod bits {
    pub use crate::passes::session_analysis::{
        session_status::{CLOSED, OPEN},
        token_status::{AWAITED, ENDED},
    };
}

/// "every path" or "some path": whether `bits`, the statuses of every path
/// reaching an op, are all `bad`. None when no path has `bad`.
fn how_often(bits: u8, bad: u8) -> Option<(Severity, &'static str)> {
    if bits & bad == 0 {
        None
    } else if bits == bad {
        Some((Severity::Error, "every"))
    } else {
        Some((Severity::Warning, "some"))
    }
}

fn reports<'c, 'a>(facts: &SessionFacts<'c, 'a>) -> Vec<Report<'c, 'a>> {
    let mut reports = Vec::new();
    // The ops where each lost launch's token is dropped, by launch, in the
    // order of the module (the notes' order).
    let mut lost: BTreeMap<OpId, Vec<(OpId, Kind)>> = BTreeMap::new();
    for (drop, launch) in facts.lost() {
        lost.entry(launch)
            .or_default()
            .push((drop, facts.kind(drop)));
    }
    for drops in lost.values_mut() {
        drops.sort_unstable_by_key(|(drop, _)| *drop);
    }
    // Each check looks at the facts first: the op is read (through its
    // generated wrapper) only for a report.
    for (id, op, kind, fact) in facts.ops() {
        let (Kind::Executor(executor_kind), Some(fact)) = (kind, fact) else {
            continue;
        };
        closed_session(facts, op, executor_kind, fact, &mut reports);
        match executor_kind {
            ExecutorKind::Launch | ExecutorKind::LaunchAsync => {
                object_not_sent(facts, op, fact, &mut reports)
            }
            ExecutorKind::SendBinary => redundant_send(facts, op, fact, &mut reports),
            ExecutorKind::Await => awaited_badly(facts, op, fact, &mut reports),
            _ => {}
        }
        if let Some(drops) = lost.get(&id) {
            let notes = drops
                .iter()
                .map(|(drop, drop_kind)| {
                    let why = match drop_kind {
                        Kind::FuncReturn => "the function returns here without awaiting it",
                        Kind::Executor(ExecutorKind::Close) => "its session is closed here",
                        _ => "it is launched again here",
                    };
                    (facts.op(*drop), why.to_owned())
                })
                .collect();
            reports.push(Report {
                at: op,
                severity: Severity::Warning,
                message: "the token of this executor.launch_async is not awaited on some path: the launch is lost".to_owned(),
                notes,
            });
        }
    }
    reports
}

fn redundant_send<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    op: OperationRef<'c, 'a>,
    fact: &Fact,
    reports: &mut Vec<Report<'c, 'a>>,
) {
    let Some(send_use) = fact.send().filter(|send| send.redundant) else {
        return;
    };
    let Some(ExecutorOp::SendBinary(send)) = ExecutorOp::of(op) else {
        return;
    };
    let path = send.binary_path().map(|path| text(ir::string_bytes(path)));
    reports.push(Report {
        at: op,
        severity: Severity::Remark,
        message: format!(
            "executor.send_binary of \"{}\" is redundant: it is sent on this session on every path reaching here",
            path.unwrap_or_default()
        ),
        notes: notes(facts, send_use.sent_by.ids(), "it is sent here"),
    });
}

fn closed_session<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    op: OperationRef<'c, 'a>,
    kind: ExecutorKind,
    fact: &Fact,
    reports: &mut Vec<Report<'c, 'a>>,
) {
    let Some(session) = fact.session() else {
        return;
    };
    let Some((severity, paths)) = how_often(session.status, bits::CLOSED) else {
        return;
    };
    let message = if kind == ExecutorKind::Close {
        format!("executor.close of a session that is already closed on {paths} path reaching it")
    } else {
        format!(
            "{} on a session that is closed on {paths} path reaching it",
            ir::operation_name(op)
        )
    };
    reports.push(Report {
        at: op,
        severity,
        message,
        notes: notes(facts, session.closed_by.ids(), "the session is closed here"),
    });
}

fn object_not_sent<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    op: OperationRef<'c, 'a>,
    fact: &Fact,
    reports: &mut Vec<Report<'c, 'a>>,
) {
    let (Some(session), Some(object)) = (fact.session(), fact.object()) else {
        return;
    };
    // Only about sessions known to be open: a closed one is reported as such,
    // and an unknown one may hold anything.
    if session.status != bits::OPEN || object.unknown || object.every {
        return;
    }
    let (kernel, object_path) = match ExecutorOp::of(op) {
        Some(ExecutorOp::Launch(launch)) => (launch.kernel_callee(), launch.object()),
        Some(ExecutorOp::LaunchAsync(launch)) => (launch.kernel_callee(), launch.object()),
        _ => return,
    };
    let (Ok(kernel), Ok(object_path)) = (kernel, object_path) else {
        return;
    };
    let paths = if object.some { "every" } else { "any" };
    let opens = session.opens.candidates().unwrap_or_default();
    reports.push(Report {
        at: op,
        severity: Severity::Warning,
        message: format!(
            "{} of \"{}\" from \"{}\", which is not sent on its session on {paths} path reaching it",
            ir::operation_name(op),
            text(ir::string_bytes(kernel)),
            text(ir::string_bytes(object_path)),
        ),
        notes: notes(facts, opens, "the session is opened here"),
    });
}

fn awaited_badly<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    op: OperationRef<'c, 'a>,
    fact: &Fact,
    reports: &mut Vec<Report<'c, 'a>>,
) {
    let Some(wait) = fact.wait() else {
        return;
    };
    if let Some((severity, paths)) = how_often(wait.status, bits::AWAITED) {
        reports.push(Report {
            at: op,
            severity,
            message: format!(
                "executor.await of a token that is already awaited on {paths} path reaching it"
            ),
            notes: notes_where(
                facts,
                wait.by.ids(),
                ExecutorKind::Await,
                "the token is awaited here",
            ),
        });
    }
    if let Some((severity, paths)) = how_often(wait.status, bits::ENDED) {
        reports.push(Report {
            at: op,
            severity,
            message: format!(
                "executor.await of a token whose session is closed on {paths} path reaching it: the runtime has forgotten its launch"
            ),
            notes: notes_where(facts, wait.by.ids(), ExecutorKind::Close, "the session is closed here"),
        });
    }
}

fn notes<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    ops: &[OpId],
    note: &str,
) -> Vec<(OperationRef<'c, 'a>, String)> {
    ops.iter()
        .map(|op| (facts.op(*op), note.to_owned()))
        .collect()
}

/// [`notes`] at those of `ops` that are `kind` ops.
fn notes_where<'c, 'a>(
    facts: &SessionFacts<'c, 'a>,
    ops: &[OpId],
    kind: ExecutorKind,
    note: &str,
) -> Vec<(OperationRef<'c, 'a>, String)> {
    let of_kind: Vec<OpId> = ops
        .iter()
        .copied()
        .filter(|op| facts.kind(*op) == Kind::Executor(kind))
        .collect();
    notes(facts, &of_kind, note)
}

/// A string attribute's bytes for a message (they need not be UTF-8).
fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
