//! Editing textual IR by lines and tokens: the statements of a text, the
//! ops among them, a token picked, fresh suffixes and indentation.

use crate::{
    compiler::mlir::{self, StmtKind, Token},
    shared::rng::Rng,
};

pub(super) fn split_lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

pub(super) fn join_lines(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

pub(super) fn replace(text: &str, start: usize, end: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..start]);
    out.push_str(with);
    out.push_str(&text[end..]);
    out
}

pub(super) fn tokens_where(text: &str, keep: impl Fn(&Token) -> bool) -> Vec<Token> {
    mlir::lex(text).into_iter().filter(|t| keep(t)).collect()
}

pub(super) fn pick_token(rng: &mut Rng, tokens: &[Token]) -> Option<Token> {
    choose(rng, tokens)
}

/// One of `items`, None when there is none.
pub(super) fn choose<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| *rng.pick(items))
}

/// The text's statements and its lines.
pub(super) fn structure(text: &str) -> (Vec<String>, Vec<mlir::Stmt>) {
    let lines = split_lines(text);
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let stmts = mlir::statements(&refs);
    (lines, stmts)
}

pub(super) fn op_stmts(lines: &[String], stmts: &[mlir::Stmt], terminators: bool) -> Vec<usize> {
    stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.kind == StmtKind::Op && (terminators || !mlir::is_terminator(&lines[s.first]))
        })
        .map(|(i, _)| i)
        .collect()
}

pub(super) fn stmt_lines(lines: &[String], stmt: &mlir::Stmt) -> Vec<String> {
    lines[stmt.first..=stmt.last].to_vec()
}

/// A fresh suffix for names this mutation adds.
pub(super) fn suffix(rng: &mut Rng) -> String {
    format!("fz{}", rng.below(100_000))
}

pub(super) fn indent(lines: &[String], by: &str) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                line.clone()
            } else {
                format!("{by}{line}")
            }
        })
        .collect()
}

pub(super) fn leading_space(line: &str) -> String {
    line.chars().take_while(|c| c.is_whitespace()).collect()
}
