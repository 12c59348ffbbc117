//! Mutations of tokens: attributes injected into ops, and tokens replaced
//! by punctuation.

use super::text::{choose, pick_token, replace, tokens_where};
use crate::{
    compiler::mlir::{self, TokenKind},
    shared::rng::Rng,
};

const ATTRIBUTES: &[&str] = &[
    "format = 0 : i32",
    "format = 1 : i32",
    "format = 2 : i32",
    "format = -1 : i32",
    "format = 1 : i64",
    "format = \"so\"",
    "num_input_args = 0 : i32",
    "num_input_args = 1 : i32",
    "num_input_args = 2 : i32",
    "num_input_args = 99 : i32",
    "num_input_args = -1 : i32",
    "num_input_args = 2147483647 : i32",
    "num_input_args = 1 : i8",
    "fz.unknown = unit",
    "kernel_callee = \"x\"",
    "address = \"\"",
];

/// Adds an attribute dictionary to an executor op (before its `:`), or
/// replaces the one it has.
pub(super) fn inject_attribute(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let tokens = mlir::lex(text);
    let ops: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == TokenKind::Ident && t.text(text).starts_with("executor."))
        .map(|(i, _)| i)
        .collect();
    let op = choose(rng, &ops)?;
    // The first `{` or `:` after the op name at parenthesis depth 0.
    let mut depth = 0i32;
    for token in &tokens[op + 1..] {
        match token.text(text) {
            "(" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "{" if depth == 0 => {
                let close = tokens
                    .iter()
                    .find(|t| t.start > token.start && t.text(text) == "}")?;
                return Some(replace(
                    text,
                    token.start,
                    close.end,
                    &format!("{{{}}}", rng.pick(ATTRIBUTES)),
                ));
            }
            ":" if depth == 0 => {
                return Some(replace(
                    text,
                    token.start,
                    token.start,
                    &format!("{{{}}} ", rng.pick(ATTRIBUTES)),
                ));
            }
            "\n" if depth == 0 => return None,
            _ => {}
        }
    }
    None
}

/// What a token may be replaced by.
const PUNCTUATION: &[&str] = &[
    "(", ")", "{", "}", "<", ">", ",", ":", "=", "->", "?", "*", "[", "]",
];

pub(super) fn token_chaos(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let tokens = tokens_where(text, |t| {
        !matches!(
            t.kind,
            TokenKind::Space | TokenKind::Newline | TokenKind::Comment
        )
    });
    let a = pick_token(rng, &tokens)?;
    match rng.below(4) {
        0 => Some(replace(text, a.start, a.end, "")),
        1 => Some(replace(
            text,
            a.start,
            a.start,
            &format!("{} ", a.text(text)),
        )),
        2 => {
            let b = *rng.pick(&tokens);
            if a == b {
                return None;
            }
            let (first, second) = if a.start < b.start { (a, b) } else { (b, a) };
            Some(format!(
                "{}{}{}{}{}",
                &text[..first.start],
                second.text(text),
                &text[first.end..second.start],
                first.text(text),
                &text[second.end..]
            ))
        }
        _ => {
            let punctuation = *rng.pick(PUNCTUATION);
            Some(replace(text, a.start, a.end, punctuation))
        }
    }
}
