//! What the syntax says of a text's values and symbols: the values a
//! fragment defines (and renaming them), the types of values, the symbols
//! defined at the top.

use std::collections::{HashMap, HashSet};

use crate::compiler::mlir::{self, Token, TokenKind};

/// The values a fragment defines (`%x = `, `%x, %y = `, `%i = %lb to`,
/// block arguments `%a: i32`).
pub(super) fn definitions(fragment: &str) -> HashSet<String> {
    let tokens = mlir::lex(fragment);
    let significant: Vec<&Token> = tokens
        .iter()
        .filter(|t| !matches!(t.kind, TokenKind::Space | TokenKind::Newline))
        .collect();
    let mut defined = HashSet::new();
    for (index, token) in significant.iter().enumerate() {
        if token.kind != TokenKind::Value {
            continue;
        }
        // `%a, %b = op`: every value before an `=` on the same statement start.
        let mut next = index + 1;
        while next + 1 < significant.len()
            && significant[next].text(fragment) == ","
            && significant[next + 1].kind == TokenKind::Value
        {
            next += 2;
        }
        let follower = significant.get(next).map(|t| t.text(fragment));
        let label_argument = follower == Some(":")
            && significant[..index]
                .iter()
                .rev()
                .find(|t| t.kind == TokenKind::Block || t.text(fragment) == "{")
                .is_some_and(|t| t.kind == TokenKind::Block);
        if follower == Some("=") || label_argument {
            defined.insert(token.text(fragment).to_owned());
        }
    }
    defined
}

/// Renames the values a fragment defines so that they cannot clash with the
/// code around it.
pub(super) fn rename_definitions(fragment: &str, tag: &str) -> String {
    let defined = definitions(fragment);
    let mut out = String::with_capacity(fragment.len() + 16);
    for token in &mlir::lex(fragment) {
        let text = token.text(fragment);
        if token.kind == TokenKind::Value && defined.contains(text) {
            out.push_str(text);
            out.push('_');
            out.push_str(tag);
        } else {
            out.push_str(text);
        }
    }
    out
}

/// The types of a text's values, where the syntax says them: `%v: T`
/// (arguments, and operands in `op %v : T`), `%x = op ... -> T`, and the
/// ops whose trailing type is their result's (`arith.*`, `memref.alloc`,
/// `tensor.empty`, `executor.open`). A guess, good enough to pick a value
/// of the right type more often than not.
pub(super) fn value_types(text: &str) -> HashMap<String, String> {
    let mut types = HashMap::new();
    let tokens: Vec<Token> = mlir::lex(text)
        .into_iter()
        .filter(|t| t.kind != TokenKind::Space)
        .collect();
    let type_after = |start: usize| -> Option<String> {
        let mut depth = 0i32;
        let mut end = start;
        while end < tokens.len() {
            let word = tokens[end].text(text);
            match word {
                "<" | "(" | "[" => depth += 1,
                ">" | ")" | "]" if depth > 0 => depth -= 1,
                ">" | ")" | "]" | "," | "{" | "=" | "\n" if depth == 0 => break,
                _ => {}
            }
            end += 1;
        }
        (end > start && start < tokens.len()).then(|| {
            text[tokens[start].start..tokens[end - 1].end]
                .trim()
                .to_owned()
        })
    };
    for (index, token) in tokens.iter().enumerate() {
        if token.kind == TokenKind::Value
            && tokens.get(index + 1).map(|t| t.text(text)) == Some(":")
            && let Some(found) = type_after(index + 2)
        {
            types.entry(token.text(text).to_owned()).or_insert(found);
        }
    }
    for line in text.lines() {
        let trimmed = line.trim();
        let Some((result, rest)) = trimmed.split_once(" = ") else {
            continue;
        };
        if !result.starts_with('%') || result.contains(',') || result.contains(':') {
            continue;
        }
        let op = rest
            .split(|c: char| c.is_whitespace() || c == '(')
            .next()
            .unwrap_or("");
        let found = if let Some((_, after)) = rest.rsplit_once(" -> ") {
            (!after.starts_with('(')).then(|| after.trim().to_owned())
        } else if (op.starts_with("arith.") && !op.starts_with("arith.cmp"))
            || matches!(
                op,
                "memref.alloc" | "memref.alloca" | "tensor.empty" | "executor.open"
            )
        {
            rest.rsplit_once(" : ").map(|(_, t)| t.trim().to_owned())
        } else {
            None
        };
        if let Some(found) = found {
            types.entry(result.to_owned()).or_insert(found);
        }
    }
    types
}

/// Replaces every occurrence of the type `old` (whole tokens) by `new`.
pub(super) fn replace_type_everywhere(text: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(old) {
        let before_ok = rest[..at]
            .chars()
            .last()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'));
        let after_ok = rest[at + old.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_ascii_alphanumeric() || c == '_'));
        out.push_str(&rest[..at]);
        out.push_str(if before_ok && after_ok { new } else { old });
        rest = &rest[at + old.len()..];
    }
    out.push_str(rest);
    out
}

/// Symbols a text defines at its top (`func.func @f`, `memref.global ... @g`, `module @m`).
pub(super) fn defined_symbols(text: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('%') || trimmed.starts_with("//") {
            continue;
        }
        if let Some(token) = mlir::lex(line)
            .into_iter()
            .find(|t| t.kind == TokenKind::Symbol)
        {
            names.insert(token.text(line).to_owned());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::compiler::mutate::tests::HOST;

    #[test]
    fn renamed_definitions_leave_uses_of_outer_values_alone() {
        let fragment = "%t = executor.launch_async %s(\"k\", \"k.o\") : !executor.session -> !executor.token\nexecutor.await %t : !executor.token\n";
        let renamed = rename_definitions(fragment, "q");
        assert!(
            renamed.starts_with("%t_q = executor.launch_async %s("),
            "{renamed}"
        );
        assert!(renamed.contains("executor.await %t_q :"), "{renamed}");
        let block = "^bb1(%a: i32, %b: i64):\n  foo(%a, %c)\n";
        let renamed = rename_definitions(block, "q");
        assert!(renamed.contains("%a_q: i32, %b_q: i64") && renamed.contains("foo(%a_q, %c)"));
    }

    #[test]
    fn value_types_from_the_syntax() {
        let types = value_types(HOST);
        assert_eq!(
            types.get("%s").map(String::as_str),
            Some("!executor.session")
        );
        assert_eq!(types.get("%m").map(String::as_str), Some("memref<4xf32>"));
        assert_eq!(types.get("%t").map(String::as_str), Some("!executor.token"));
        let more =
            value_types("%c = arith.constant 1 : i32\n%x = memref.load %m[%i] : memref<4xf32>\n");
        assert_eq!(more.get("%c").map(String::as_str), Some("i32"));
        assert_eq!(more.get("%x"), None);
        assert_eq!(
            replace_type_everywhere("memref<4xf32>, memref<4xf32>x", "memref<4xf32>", "T"),
            "T, memref<4xf32>x"
        );
    }
}
