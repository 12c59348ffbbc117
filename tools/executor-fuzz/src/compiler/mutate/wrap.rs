//! Mutations that wrap: ops in new regions (scf, async, omp, gpu, cf
//! blocks) that define the values they use, and functions in nested
//! modules.

use super::{
    text::{indent, join_lines, leading_space, structure, suffix},
    values::definitions,
};
use crate::{
    compiler::mlir::{self, StmtKind, TokenKind},
    shared::rng::Rng,
};

/// Wraps a run of sibling ops of a block in a region op (defining what the
/// wrapper needs right before it), or splits the block with cf branches.
pub(super) fn wrap_ops(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (lines, stmts) = structure(text);
    // Sibling items in blocks: ops (not terminators) and whole region ops.
    let mut items: Vec<(usize, usize, usize)> = Vec::new(); // (first stmt, last stmt, depth)
    let mut index = 0;
    while index < stmts.len() {
        let stmt = &stmts[index];
        match stmt.kind {
            StmtKind::Op if stmt.depth >= 1 && !mlir::is_terminator(&lines[stmt.first]) => {
                items.push((index, index, stmt.depth));
            }
            StmtKind::Open if stmt.depth >= 1 => {
                if let Some(close) = mlir::matching_close(&stmts, index) {
                    items.push((index, close, stmt.depth));
                    index = close;
                }
            }
            _ => {}
        }
        index += 1;
    }
    if items.is_empty() {
        return None;
    }
    // A run of sibling items, mostly one whose values are not used after it
    // (a region would hide them).
    let mut start = 0;
    let mut end = 0;
    for attempt in 0..6 {
        start = rng.below(items.len());
        end = start;
        let extra = rng.weighted(&[6, 3, 2, 1]);
        while end + 1 < items.len()
            && end - start < extra
            && items[end + 1].2 == items[start].2
            && items[end + 1].0 == items[end].1 + 1
        {
            end += 1;
        }
        let first_line = stmts[items[start].0].first;
        let last_line = stmts[items[end].1].last;
        let defined = definitions(&join_lines(&lines[first_line..=last_line]));
        let after = join_lines(&lines[last_line + 1..]);
        let used_after = mlir::lex(&after)
            .iter()
            .any(|t| t.kind == TokenKind::Value && defined.contains(t.text(&after)));
        if !used_after || attempt == 5 {
            break;
        }
    }
    let first_line = stmts[items[start].0].first;
    let last_line = stmts[items[end].1].last;
    let here = leading_space(&lines[first_line]);
    let tag = suffix(rng);
    let body = indent(&lines[first_line..=last_line], "  ");
    let (before, header, footer): (Vec<String>, Vec<String>, Vec<String>) = match rng.below(13) {
        0 => (
            vec![format!("%{tag}_c = arith.constant true")],
            vec![format!("scf.if %{tag}_c {{")],
            vec!["}".into()],
        ),
        1 => (
            vec![format!("%{tag}_c = arith.constant false")],
            vec![format!("scf.if %{tag}_c {{"), "} else {".into()],
            vec!["}".into()],
        ),
        2 => (
            index_constants(&tag),
            vec![format!(
                "scf.for %{tag}_i = %{tag}_lb to %{tag}_ub step %{tag}_st {{"
            )],
            vec!["}".into()],
        ),
        3 => (
            vec![],
            vec!["scf.execute_region {".into()],
            vec!["  scf.yield".into(), "}".into()],
        ),
        4 => (
            index_constants(&tag),
            vec![format!(
                "scf.parallel (%{tag}_i) = (%{tag}_lb) to (%{tag}_ub) step (%{tag}_st) {{"
            )],
            vec!["}".into()],
        ),
        5 => (
            vec![],
            vec![format!("scf.forall (%{tag}_i) in (2) {{")],
            vec!["}".into()],
        ),
        6 => (
            vec![],
            vec![
                "scf.while : () -> () {".into(),
                format!("  %{tag}_w = arith.constant false"),
                format!("  scf.condition(%{tag}_w)"),
                "} do {".into(),
            ],
            vec!["  scf.yield".into(), "}".into()],
        ),
        7 => (
            vec![],
            vec!["memref.alloca_scope {".into()],
            vec!["}".into()],
        ),
        8 => (
            vec![],
            vec![format!("%{tag}_t = async.execute {{")],
            vec!["  async.yield".into(), "}".into()],
        ),
        9 => (
            vec![],
            vec!["omp.parallel {".into()],
            vec!["  omp.terminator".into(), "}".into()],
        ),
        10 => (
            vec![],
            vec![format!("affine.for %{tag}_i = 0 to 2 {{")],
            vec!["}".into()],
        ),
        11 => (
            vec![format!("%{tag}_one = arith.constant 1 : index")],
            vec![format!(
                "gpu.launch blocks(%{tag}_bx, %{tag}_by, %{tag}_bz) in (%{tag}_gx = %{tag}_one, %{tag}_gy = %{tag}_one, %{tag}_gz = %{tag}_one) threads(%{tag}_tx, %{tag}_ty, %{tag}_tz) in (%{tag}_sx = %{tag}_one, %{tag}_sy = %{tag}_one, %{tag}_sz = %{tag}_one) {{"
            )],
            vec!["  gpu.terminator".into(), "}".into()],
        ),
        _ => {
            // Split the block: a diamond of cf branches around the ops.
            let mut out = lines[..first_line].to_vec();
            out.push(format!("{here}%{tag}_c = arith.constant true"));
            out.push(format!("{here}cf.cond_br %{tag}_c, ^{tag}_a, ^{tag}_b"));
            out.push(format!("^{tag}_a:"));
            out.extend_from_slice(&lines[first_line..=last_line]);
            out.push(format!("{here}cf.br ^{tag}_b"));
            out.push(format!("^{tag}_b:"));
            out.extend_from_slice(&lines[last_line + 1..]);
            return Some(join_lines(&out));
        }
    };
    let mut out = lines[..first_line].to_vec();
    out.extend(before.iter().map(|l| format!("{here}{l}")));
    out.extend(header.iter().map(|l| format!("{here}{l}")));
    out.extend(body);
    out.extend(footer.iter().map(|l| format!("{here}{l}")));
    out.extend_from_slice(&lines[last_line + 1..]);
    Some(join_lines(&out))
}

fn index_constants(tag: &str) -> Vec<String> {
    vec![
        format!("%{tag}_lb = arith.constant 0 : index"),
        format!("%{tag}_ub = arith.constant 2 : index"),
        format!("%{tag}_st = arith.constant 1 : index"),
    ]
}

/// Wraps a top-level op (a function, usually) or the whole input in a nested
/// module, a gpu.module, or both.
pub(super) fn wrap_top_level(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (lines, stmts) = structure(text);
    let tops: Vec<(usize, usize)> = stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| s.depth == 0)
        .filter_map(|(i, s)| match s.kind {
            StmtKind::Op => Some((s.first, s.last)),
            StmtKind::Open => {
                mlir::matching_close(&stmts, i).map(|close| (s.first, stmts[close].last))
            }
            _ => None,
        })
        .collect();
    let (first, last) = if tops.is_empty() || rng.chance(1, 3) {
        (0, lines.len().checked_sub(1)?)
    } else {
        *rng.pick(&tops)
    };
    let tag = suffix(rng);
    let (header, footer): (Vec<String>, Vec<String>) = match rng.below(5) {
        0 => (vec![format!("module @{tag} {{")], vec!["}".into()]),
        1 => (vec!["module {".into()], vec!["}".into()]),
        2 => (vec![format!("gpu.module @{tag} {{")], vec!["}".into()]),
        3 => (
            vec![
                "module attributes {gpu.container_module} {".into(),
                format!("  gpu.module @{tag} {{"),
            ],
            vec!["  }".into(), "}".into()],
        ),
        _ => (
            vec![
                format!("module @{tag}_a {{"),
                format!("  module @{tag}_b {{"),
            ],
            vec!["  }".into(), "}".into()],
        ),
    };
    let mut out = lines[..first].to_vec();
    out.extend(header);
    out.extend(indent(&lines[first..=last], "  "));
    out.extend(footer);
    out.extend_from_slice(&lines[last + 1..]);
    Some(join_lines(&out))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::compiler::mutate::tests::HOST;

    #[test]
    fn wrapping_keeps_the_ops_inside_the_new_region() {
        for seed in 0..200 {
            let Some(wrapped) = wrap_ops(&mut Rng::new(seed), HOST, &[]) else {
                continue;
            };
            let lines: Vec<&str> = wrapped.lines().collect();
            let stmts = mlir::statements(&lines);
            // Balanced: every region opened is closed.
            assert_eq!(
                stmts.last().map(|s| (s.kind, s.depth)),
                Some((StmtKind::Close, 0)),
                "{wrapped}"
            );
            assert!(wrapped.contains("executor.launch"), "{wrapped}");
        }
    }
}
