//! Mutations of ops and lines: deleted, duplicated, swapped, moved, region
//! ops deleted or unwrapped, lines shuffled.

use super::{
    text::{choose, join_lines, op_stmts, split_lines, stmt_lines, structure, suffix},
    values::{definitions, rename_definitions},
};
use crate::{
    compiler::mlir::{self, StmtKind, TokenKind},
    shared::rng::Rng,
};

pub(super) fn delete_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (mut lines, stmts) = structure(text);
    let ops = op_stmts(&lines, &stmts, rng.chance(1, 8));
    let stmt = &stmts[choose(rng, &ops)?];
    lines.drain(stmt.first..=stmt.last);
    Some(join_lines(&lines))
}

pub(super) fn duplicate_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (mut lines, stmts) = structure(text);
    let ops = op_stmts(&lines, &stmts, false);
    if ops.is_empty() {
        return None;
    }
    let stmt = &stmts[*rng.pick(&ops)];
    let copy = join_lines(&stmt_lines(&lines, stmt));
    let copy = if rng.chance(7, 8) {
        rename_definitions(&copy, &suffix(rng))
    } else {
        copy
    };
    let at = if rng.chance(3, 4) {
        stmt.last + 1
    } else {
        stmt.first
    };
    lines.splice(at..at, split_lines(&copy));
    Some(join_lines(&lines))
}

pub(super) fn swap_ops(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (lines, stmts) = structure(text);
    let ops = op_stmts(&lines, &stmts, rng.chance(1, 8));
    if ops.len() < 2 {
        return None;
    }
    let a = *rng.pick(&ops);
    // Mostly the next op of the same block, when it does not use what the
    // first defines: the swap then keeps the input valid.
    let b = if rng.chance(3, 4) {
        let next = a + 1;
        if !ops.contains(&next) || stmts[next].depth != stmts[a].depth {
            return None;
        }
        let defined = definitions(&join_lines(&stmt_lines(&lines, &stmts[a])));
        let second = join_lines(&stmt_lines(&lines, &stmts[next]));
        let independent = !mlir::lex(&second)
            .iter()
            .any(|t| t.kind == TokenKind::Value && defined.contains(t.text(&second)));
        if !independent {
            return None;
        }
        next
    } else {
        *rng.pick(&ops)
    };
    if a == b {
        return None;
    }
    let (first, second) = (stmts[a.min(b)].clone(), stmts[a.max(b)].clone());
    let mut out = lines[..first.first].to_vec();
    out.extend(stmt_lines(&lines, &second));
    out.extend_from_slice(&lines[first.last + 1..second.first]);
    out.extend(stmt_lines(&lines, &first));
    out.extend_from_slice(&lines[second.last + 1..]);
    Some(join_lines(&out))
}

/// Moves an op, mostly a few ops up or down in its block.
pub(super) fn move_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (lines, stmts) = structure(text);
    let ops = op_stmts(&lines, &stmts, false);
    if ops.is_empty() {
        return None;
    }
    let from = *rng.pick(&ops);
    let stmt = stmts[from].clone();
    let destinations: Vec<usize> = stmts
        .iter()
        .enumerate()
        .filter(|(i, s)| {
            *i != from
                && s.depth == stmt.depth
                && matches!(s.kind, StmtKind::Op | StmtKind::Open)
                && (i.abs_diff(from) <= 6 || rng.chance(1, 8))
        })
        .map(|(_, s)| s.first)
        .collect();
    let to = choose(rng, &destinations)?;
    let moved = stmt_lines(&lines, &stmt);
    let mut out = Vec::with_capacity(lines.len());
    for (index, line) in lines.iter().enumerate() {
        if index == to {
            out.extend(moved.iter().cloned());
        }
        if index < stmt.first || index > stmt.last {
            out.push(line.clone());
        }
    }
    Some(join_lines(&out))
}

pub(super) fn delete_region_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (mut lines, stmts) = structure(text);
    let opens: Vec<(usize, usize)> = stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == StmtKind::Open)
        .filter_map(|(i, _)| mlir::matching_close(&stmts, i).map(|close| (i, close)))
        .collect();
    let (open, close) = choose(rng, &opens)?;
    lines.drain(stmts[open].first..=stmts[close].last);
    Some(join_lines(&lines))
}

/// Removes a region op's header and closing line, keeping its body in the
/// parent block (without the body's terminators).
pub(super) fn unwrap_region(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (lines, stmts) = structure(text);
    let opens: Vec<(usize, usize)> = stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| s.kind == StmtKind::Open && s.depth >= 1)
        .filter_map(|(i, _)| mlir::matching_close(&stmts, i).map(|close| (i, close)))
        .filter(|&(open, close)| {
            stmts[open + 1..close]
                .iter()
                .all(|s| s.kind != StmtKind::CloseOpen || s.depth > stmts[open].depth)
        })
        .collect();
    let (open, close) = choose(rng, &opens)?;
    let body_depth = stmts[open].depth + 1;
    let mut out = lines[..stmts[open].first].to_vec();
    for stmt in &stmts[open + 1..close] {
        let drop = stmt.depth == body_depth
            && ((stmt.kind == StmtKind::Op && mlir::is_terminator(&lines[stmt.first]))
                || stmt.kind == StmtKind::Label);
        if !drop {
            for line in &lines[stmt.first..=stmt.last] {
                out.push(line.strip_prefix("  ").unwrap_or(line).to_owned());
            }
        }
    }
    out.extend_from_slice(&lines[stmts[close].last + 1..]);
    Some(join_lines(&out))
}

pub(super) fn line_chaos(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let mut lines = split_lines(text);
    if lines.is_empty() {
        return None;
    }
    let a = rng.below(lines.len());
    match rng.below(3) {
        0 => {
            lines.remove(a);
        }
        1 => {
            let line = lines[a].clone();
            lines.insert(a, line);
        }
        _ => {
            let b = rng.below(lines.len());
            lines.swap(a, b);
        }
    }
    Some(join_lines(&lines))
}
