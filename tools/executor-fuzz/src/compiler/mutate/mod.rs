//! MLIR-aware mutations of textual IR: ops and lines deleted, duplicated,
//! swapped or moved; string attributes, symbols, integers, shapes and types
//! replaced by edge cases; fragments spliced from other inputs; ops wrapped in
//! regions (scf, async, omp, gpu, cf blocks) and functions in nested modules.
//!
//! Most mutants should still parse and verify, so that they reach the pass:
//! duplicated and spliced ops get fresh result names, wrappers define the
//! values they use, and spliced functions are renamed when their names clash.

use std::collections::{HashMap, HashSet};

use crate::{
    compiler::mlir::{self, StmtKind, Token, TokenKind},
    shared::rng::Rng,
};

/// A mutant and the names of the mutations that made it.
#[derive(Clone, Debug)]
pub struct Mutant {
    pub text: String,
    pub mutations: Vec<&'static str>,
}

/// Mutants larger than this are not kept (a long string attribute repeated).
pub const MAX_MUTANT_BYTES: usize = 256 * 1024;

type Mutation = fn(&mut Rng, &str, &[&str]) -> Option<String>;

/// Every mutation, its name and its weight.
const MUTATIONS: &[(&str, usize, Mutation)] = &[
    ("delete-op", 6, delete_op),
    ("duplicate-op", 6, duplicate_op),
    ("swap-ops", 4, swap_ops),
    ("move-op", 4, move_op),
    ("delete-region-op", 2, delete_region_op),
    ("unwrap-region", 2, unwrap_region),
    ("line", 2, line_chaos),
    ("string", 10, mutate_string),
    ("symbol", 4, mutate_symbol),
    ("integer", 8, mutate_integer),
    ("shape", 8, mutate_shape),
    ("type", 8, mutate_type),
    ("rename-value", 3, rename_value),
    ("splice", 8, splice),
    ("append-donor", 3, append_donor),
    ("wrap-ops", 10, wrap_ops),
    ("wrap-top-level", 4, wrap_top_level),
    ("attribute", 5, inject_attribute),
    ("token", 2, token_chaos),
];

/// Applies 1 to 4 mutations to `base` (`donors` are other inputs to splice
/// from). Returns None when nothing applied or the result grew too large.
pub fn mutate(rng: &mut Rng, base: &str, donors: &[&str]) -> Option<Mutant> {
    let count = 1 + rng.weighted(&[50, 25, 15, 10]);
    let weights: Vec<usize> = MUTATIONS.iter().map(|(_, weight, _)| *weight).collect();
    let mut text = base.to_owned();
    let mut applied = Vec::new();
    for _ in 0..count {
        for _attempt in 0..8 {
            let (name, _, mutation) = MUTATIONS[rng.weighted(&weights)];
            if let Some(mutated) = mutation(rng, &text, donors)
                && mutated != text
            {
                text = mutated;
                applied.push(name);
                break;
            }
        }
    }
    (!applied.is_empty() && text.len() <= MAX_MUTANT_BYTES).then_some(Mutant {
        text,
        mutations: applied,
    })
}

// ---------------------------------------------------------------------------
// Helpers

fn split_lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

fn join_lines(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn replace(text: &str, start: usize, end: usize, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..start]);
    out.push_str(with);
    out.push_str(&text[end..]);
    out
}

fn tokens_where(text: &str, keep: impl Fn(&Token) -> bool) -> Vec<Token> {
    mlir::lex(text).into_iter().filter(|t| keep(t)).collect()
}

fn pick_token(rng: &mut Rng, tokens: &[Token]) -> Option<Token> {
    choose(rng, tokens)
}

/// One of `items`, None when there is none.
fn choose<T: Copy>(rng: &mut Rng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| *rng.pick(items))
}

/// The text's statements and its lines.
fn structure(text: &str) -> (Vec<String>, Vec<mlir::Stmt>) {
    let lines = split_lines(text);
    let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
    let stmts = mlir::statements(&refs);
    (lines, stmts)
}

fn op_stmts(lines: &[String], stmts: &[mlir::Stmt], terminators: bool) -> Vec<usize> {
    stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.kind == StmtKind::Op && (terminators || !mlir::is_terminator(&lines[s.first]))
        })
        .map(|(i, _)| i)
        .collect()
}

fn stmt_lines(lines: &[String], stmt: &mlir::Stmt) -> Vec<String> {
    lines[stmt.first..=stmt.last].to_vec()
}

/// A fresh suffix for names this mutation adds.
fn suffix(rng: &mut Rng) -> String {
    format!("fz{}", rng.below(100_000))
}

/// The values a fragment defines (`%x = `, `%x, %y = `, `%i = %lb to`,
/// block arguments `%a: i32`).
fn definitions(fragment: &str) -> HashSet<String> {
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
fn rename_definitions(fragment: &str, tag: &str) -> String {
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
fn value_types(text: &str) -> HashMap<String, String> {
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
fn replace_type_everywhere(text: &str, old: &str, new: &str) -> String {
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
fn defined_symbols(text: &str) -> HashSet<String> {
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

fn indent(lines: &[String], by: &str) -> Vec<String> {
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

fn leading_space(line: &str) -> String {
    line.chars().take_while(|c| c.is_whitespace()).collect()
}

// ---------------------------------------------------------------------------
// Ops and lines

fn delete_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let (mut lines, stmts) = structure(text);
    let ops = op_stmts(&lines, &stmts, rng.chance(1, 8));
    let stmt = &stmts[choose(rng, &ops)?];
    lines.drain(stmt.first..=stmt.last);
    Some(join_lines(&lines))
}

fn duplicate_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

fn swap_ops(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
fn move_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

fn delete_region_op(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
fn unwrap_region(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

fn line_chaos(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

// ---------------------------------------------------------------------------
// Strings, symbols, integers

/// Contents for string attributes (in MLIR's escaping: `\ff` is the byte 0xFF).
const STRINGS: &[&str] = &[
    "",
    "\\ff",
    "\\fe\\ff",
    "\\00",
    "a\\00b",
    "\\22",
    "\\5C",
    "\\0A",
    "\\e2\\82",
    "\\c3\\a9",
    "é",
    " ",
    "a b",
    "%s",
    "local",
    "local:",
    "local:x",
    "127.0.0.1:0",
    "[::1]:1",
    "host:99999999",
    "kernels.o",
    "libnative.so",
    "lib.so",
    "_mlir_ciface_k",
    "_catalyst_pyface_k",
    "__executor_str_a",
    "__executor_str_",
    "__catalyst__executor__open",
    "__catalyst__executor__launch",
    "__executor__launch_at_site",
    "__executor_site_k",
    "malloc",
    "free",
    "main",
    "llvm.memcpy",
    "$",
    ".",
    "-",
];

fn interesting_string(rng: &mut Rng, old: &str) -> String {
    match rng.below(8) {
        0 => "x".repeat(*rng.pick(&[64, 255, 256, 4095, 4096, 4097, 70_000])),
        1 => "\\ff".repeat(rng.range(1, 300)),
        2 => {
            // Random bytes, escaped.
            let len = rng.range(1, 16);
            rng.bytes(len)
                .iter()
                .map(|b| format!("\\{b:02x}"))
                .collect()
        }
        3 if !old.is_empty() => {
            // The old content with something inserted, or a character removed
            // (never inside an escape: split at characters that are not `\`).
            let chars: Vec<char> = old.chars().collect();
            let at = rng.below(chars.len());
            if chars[at] == '\\' || (at > 0 && chars[at - 1] == '\\') {
                return old.to_owned() + "\\ff";
            }
            let head: String = chars[..at].iter().collect();
            let tail: String = chars[at + 1..].iter().collect();
            if rng.chance(1, 2) {
                format!("{head}{tail}")
            } else {
                let insert = *rng.pick(&["\\ff", "\\00", "\\22", "\\5C", "\u{e9}", " ", "\\n"]);
                format!("{head}{insert}{}{tail}", chars[at])
            }
        }
        4 if !old.is_empty() => format!("{old}{old}"),
        _ => (*rng.pick(STRINGS)).to_owned(),
    }
}

fn mutate_string(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
    let strings = tokens_where(text, |t| t.kind == TokenKind::Str);
    let token = pick_token(rng, &strings)?;
    let old = mlir::string_contents(token.text(text));
    let new = if rng.chance(1, 6) && !donors.is_empty() {
        // A string of another input (a kernel name of one, an address of another).
        let donor = *rng.pick(donors);
        let theirs = tokens_where(donor, |t| t.kind == TokenKind::Str);
        match pick_token(rng, &theirs) {
            Some(t) => mlir::string_contents(t.text(donor)).to_owned(),
            None => interesting_string(rng, old),
        }
    } else {
        interesting_string(rng, old)
    };
    Some(replace(text, token.start, token.end, &format!("\"{new}\"")))
}

const SYMBOLS: &[&str] = &[
    "@\"\"",
    "@\"\\ff\"",
    "@\"\\00\"",
    "@\"a b\"",
    "@main",
    "@malloc",
    "@free",
    "@__catalyst__executor__open",
    "@__catalyst__executor__close",
    "@__catalyst__executor__launch",
    "@__executor__launch_at_site",
    "@__catalyst__executor__call_wrapper",
    "@__executor_site_k",
    "@__executor_str_a",
    "@__executor_str_kernels_o",
    "@_mlir_ciface_k",
    "@x.y",
    "@x$1",
];

fn mutate_symbol(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let symbols = tokens_where(text, |t| t.kind == TokenKind::Symbol);
    let token = pick_token(rng, &symbols)?;
    let old = token.text(text).to_owned();
    let new = if rng.chance(1, 3) {
        // Another symbol of the same input: two definitions, or a call to
        // something of another kind.
        pick_token(rng, &symbols)?.text(text).to_owned()
    } else {
        (*rng.pick(SYMBOLS)).to_owned()
    };
    if rng.chance(1, 2) {
        // Every occurrence, so that definitions and uses still agree.
        let tokens = mlir::lex(text);
        Some(
            tokens
                .iter()
                .map(|t| {
                    if t.kind == TokenKind::Symbol && t.text(text) == old {
                        new.as_str()
                    } else {
                        t.text(text)
                    }
                })
                .collect(),
        )
    } else {
        Some(replace(text, token.start, token.end, &new))
    }
}

const INTEGERS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "7",
    "8",
    "16",
    "255",
    "256",
    "1023",
    "1024",
    "1025",
    "65535",
    "65536",
    "2147483647",
    "2147483648",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999999999",
    "0x7FFFFFFFFFFFFFFF",
    "0xFFFFFFFFFFFFFFFF",
];

const DIMENSIONS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "1024",
    "65536",
    "2147483648",
    "4294967296",
    "1152921504606846976",
    "2305843009213693952",
    "4611686018427387904",
    "9223372036854775807",
    "9223372036854775808",
];

fn mutate_integer(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let tokens = mlir::lex(text);
    let ints: Vec<usize> = tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| t.kind == TokenKind::Int)
        .map(|(i, _)| i)
        .collect();
    let index = choose(rng, &ints)?;
    let token = tokens[index];
    let dimension = tokens
        .get(index + 1)
        .is_some_and(|t| t.kind == TokenKind::Punct && t.text(text) == "x");
    let new = if dimension {
        match rng.below(6) {
            0 => "?".to_owned(),
            1 => format!("[{}]", token.text(text)),
            _ => (*rng.pick(DIMENSIONS)).to_owned(),
        }
    } else {
        let negative = token.start > 0 && text.as_bytes()[token.start - 1] == b'-';
        match rng.below(5) {
            0 if !negative => format!("-{}", rng.pick(INTEGERS)),
            1 => {
                let old: i128 = token.text(text).parse().unwrap_or(0);
                let delta = rng.range(1, 3) as i128;
                (if rng.chance(1, 2) {
                    old + delta
                } else {
                    old - delta
                })
                .to_string()
            }
            _ => (*rng.pick(INTEGERS)).to_owned(),
        }
    };
    // A dimension changes its type everywhere it is written, mostly: the
    // signatures and the ops then still agree.
    if dimension && rng.chance(3, 4) {
        let enclosing = shaped_types(&tokens, text)
            .into_iter()
            .filter(|&(name, close)| name < index && index < close)
            .min_by_key(|&(name, close)| close - name);
        if let Some((name, close)) = enclosing {
            let old_type = &text[tokens[name].start..tokens[close].end];
            let new_type = format!(
                "{}{new}{}",
                &text[tokens[name].start..token.start],
                &text[token.end..tokens[close].end]
            );
            return Some(replace_type_everywhere(text, old_type, &new_type));
        }
    }
    Some(replace(text, token.start, token.end, &new))
}

// ---------------------------------------------------------------------------
// Shapes and types

const TYPES: &[&str] = &[
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "i1024",
    "i0",
    "si32",
    "ui8",
    "index",
    "f16",
    "bf16",
    "f32",
    "f64",
    "f80",
    "f128",
    "tf32",
    "f8E4M3FN",
    "complex<f32>",
    "complex<f64>",
    "vector<4xf32>",
    "vector<[4]xf32>",
    "vector<2x3xi8>",
    "vector<1xindex>",
    "vector<3xi1>",
    "!executor.session",
    "!executor.token",
    "tuple<!executor.session>",
    "tuple<i32, !executor.token>",
    "tuple<>",
    "none",
    "!llvm.ptr",
    "!llvm.ptr<1>",
    "!llvm.struct<(i32, f64)>",
    "!llvm.array<4 x i8>",
    "memref<2xf32>",
    "memref<?xf32>",
    "memref<*xf32>",
    "memref<2x!executor.session>",
    "tensor<2xf32>",
    "tensor<?x!executor.token>",
    "(!executor.session) -> !executor.token",
    "!async.token",
    "!gpu.async.token",
];

const ELEMENT_TYPES: &[&str] = &[
    "i1", "i8", "i16", "i32", "i64", "i128", "index", "f16", "bf16", "f32", "f64", "f80", "f128",
];

fn is_type_token(token: &Token, text: &str) -> bool {
    match token.kind {
        TokenKind::TypeAlias => true,
        TokenKind::Ident => {
            let word = token.text(text);
            ELEMENT_TYPES.contains(&word)
                || word == "none"
                || (word.len() > 1
                    && (word.starts_with('i') || word.starts_with('f'))
                    && word[1..].bytes().all(|b| b.is_ascii_digit()))
        }
        _ => false,
    }
}

fn mutate_type(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let types = tokens_where(text, |t| is_type_token(t, text));
    let token = pick_token(rng, &types)?;
    let old = token.text(text).to_owned();
    let new = if old == "!executor.session" && rng.chance(1, 3) {
        "!executor.token"
    } else if old == "!executor.token" && rng.chance(1, 3) {
        "!executor.session"
    } else {
        rng.pick(TYPES)
    };
    if rng.chance(2, 3) {
        // Every occurrence: signatures and uses stay consistent.
        let tokens = mlir::lex(text);
        Some(
            tokens
                .iter()
                .map(|t| {
                    if is_type_token(t, text) && t.text(text) == old {
                        new
                    } else {
                        t.text(text)
                    }
                })
                .collect(),
        )
    } else {
        Some(replace(text, token.start, token.end, new))
    }
}

/// `memref<...>`, `tensor<...>` and `vector<...>`: the index of the type's
/// name token and of its closing `>`.
fn shaped_types(tokens: &[Token], text: &str) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (index, token) in tokens.iter().enumerate() {
        if token.kind != TokenKind::Ident
            || !matches!(token.text(text), "memref" | "tensor" | "vector")
            || tokens.get(index + 1).map(|t| t.text(text)) != Some("<")
        {
            continue;
        }
        let mut depth = 0i32;
        for (close, t) in tokens.iter().enumerate().skip(index + 1) {
            match t.text(text) {
                "<" => depth += 1,
                ">" => {
                    depth -= 1;
                    if depth == 0 {
                        found.push((index, close));
                        break;
                    }
                }
                "->" => {}
                "\n" => break,
                _ => {}
            }
        }
    }
    found
}

fn mutate_shape(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let tokens = mlir::lex(text);
    let shaped = shaped_types(&tokens, text);
    let (name, close) = choose(rng, &shaped)?;
    let kind = tokens[name].text(text);
    let open = &tokens[name + 1];
    let body_start = open.end;
    let body_end = tokens[close].start;
    let body = &text[body_start..body_end];
    let new_body = match rng.below(9) {
        // A dimension more in front.
        0 => format!("{}x{body}", rng.pick(DIMENSIONS)),
        // A dimension less (rank 0 once none are left).
        1 => {
            let first_x = tokens[name + 2..close]
                .iter()
                .find(|t| t.kind == TokenKind::Punct && t.text(text) == "x")?;
            text[first_x.end..body_end].to_owned()
        }
        // Unranked.
        2 if kind != "vector" => {
            let element = body.rsplit('x').next().unwrap_or(body);
            format!("*x{element}")
        }
        // Another memory space.
        3 if kind == "memref" => format!(
            "{body}, {}",
            rng.pick(&[
                "1",
                "0",
                "\"gpu\"",
                "#gpu.address_space<workgroup>",
                "4294967295"
            ])
        ),
        // A layout.
        4 if kind == "memref" => format!(
            "{body}, {}",
            rng.pick(&[
                "strided<[?], offset: ?>",
                "strided<[1]>",
                "strided<[2], offset: 3>",
                "affine_map<(d0) -> (d0 + 1)>",
                "affine_map<(d0, d1) -> (d1, d0)>",
            ])
        ),
        // Another element type.
        5 => {
            let element_start = tokens[name + 2..close]
                .iter()
                .rev()
                .find(|t| t.kind == TokenKind::Punct && t.text(text) == "x")
                .map_or(body_start, |t| t.end);
            let element_end = tokens[name + 2..close]
                .iter()
                .find(|t| t.start >= element_start && t.text(text) == ",")
                .map_or(body_end, |t| t.start);
            format!(
                "{}{}{}",
                &text[body_start..element_start],
                rng.pick(TYPES),
                &text[element_end..body_end]
            )
        }
        // A scalable or dynamic dimension.
        6 => format!("{}x{body}", rng.pick(&["?", "[4]", "0"])),
        _ => {
            // memref <-> tensor <-> vector.
            let other = *rng.pick(&["memref", "tensor", "vector"]);
            let old_type = &text[tokens[name].start..tokens[close].end];
            let new_type = format!("{other}{}", &text[tokens[name].end..tokens[close].end]);
            return Some(if rng.chance(3, 4) {
                replace_type_everywhere(text, old_type, &new_type)
            } else {
                replace(text, tokens[name].start, tokens[name].end, other)
            });
        }
    };
    if rng.chance(3, 4) {
        let old_type = &text[tokens[name].start..tokens[close].end];
        let new_type = format!("{kind}<{new_body}>");
        return Some(replace_type_everywhere(text, old_type, &new_type));
    }
    Some(replace(text, body_start, body_end, &new_body))
}

// ---------------------------------------------------------------------------
// Values, splices, wrappers

/// Replaces a use of a value by another value, of the same type when the
/// syntax tells types.
fn rename_value(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
    let values = tokens_where(text, |t| t.kind == TokenKind::Value);
    if values.len() < 2 {
        return None;
    }
    let target = *rng.pick(&values);
    let types = value_types(text);
    let wanted = types.get(target.text(text));
    let same: Vec<&str> = types
        .iter()
        .filter(|(name, t)| Some(*t) == wanted && name.as_str() != target.text(text))
        .map(|(name, _)| name.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let source = if !same.is_empty() && rng.chance(7, 8) {
        *rng.pick(&same)
    } else {
        rng.pick(&values).text(text)
    };
    Some(replace(text, target.start, target.end, source))
}

/// An op or a whole region op of `donor`, its values renamed.
fn donor_fragment(rng: &mut Rng, donor: &str) -> Option<String> {
    let (lines, stmts) = structure(donor);
    let candidates: Vec<(usize, usize)> = stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| s.depth >= 1)
        .filter_map(|(i, s)| match s.kind {
            StmtKind::Op if !mlir::is_terminator(&lines[s.first]) => Some((i, i)),
            StmtKind::Open => mlir::matching_close(&stmts, i).map(|close| (i, close)),
            _ => None,
        })
        .collect();
    let (first, last) = choose(rng, &candidates)?;
    let fragment = join_lines(&lines[stmts[first].first..=stmts[last].last]);
    Some(rename_definitions(&fragment, &suffix(rng)))
}

/// Inserts an op (or region op) of another input before an op of this one.
fn splice(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
    if donors.is_empty() {
        return None;
    }
    let donor = *rng.pick(donors);
    let fragment = donor_fragment(rng, donor)?;
    let (mut lines, stmts) = structure(text);
    let places: Vec<usize> = stmts
        .iter()
        .filter(|s| s.depth >= 1 && matches!(s.kind, StmtKind::Op | StmtKind::Open))
        .map(|s| s.first)
        .collect();
    let at = choose(rng, &places)?;
    let fragment_lines = split_lines(&fragment);
    let here = leading_space(&lines[at]);
    let there = fragment_lines
        .first()
        .map_or(String::new(), |l| leading_space(l));
    let reindented: Vec<String> = fragment_lines
        .iter()
        .map(|line| {
            format!(
                "{here}{}",
                line.strip_prefix(there.as_str()).unwrap_or(line)
            )
        })
        .collect();
    // Values the fragment uses but does not define: one of ours of the same type.
    let fragment = join_lines(&reindented);
    let defined = definitions(&fragment);
    let theirs = value_types(donor);
    let ours = value_types(&lines[..at].join("\n"));
    let mut by_type: std::collections::BTreeMap<&str, Vec<&str>> =
        std::collections::BTreeMap::new();
    for (name, value_type) in &ours {
        by_type
            .entry(value_type.as_str())
            .or_default()
            .push(name.as_str());
    }
    for names in by_type.values_mut() {
        names.sort_unstable();
    }
    let fragment: String = mlir::lex(&fragment)
        .iter()
        .map(|t| {
            let word = t.text(&fragment);
            if t.kind == TokenKind::Value
                && !defined.contains(word)
                && !ours.contains_key(word)
                && let Some(candidates) = theirs.get(word).and_then(|ty| by_type.get(ty.as_str()))
            {
                return (*rng.pick(candidates)).to_owned();
            }
            word.to_owned()
        })
        .collect();
    lines.splice(at..at, split_lines(&fragment));
    Some(join_lines(&lines))
}

/// Appends another input, its clashing symbols renamed.
fn append_donor(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
    if donors.is_empty() {
        return None;
    }
    let donor = *rng.pick(donors);
    let ours = defined_symbols(text);
    let tag = suffix(rng);
    let renamed: String = mlir::lex(donor)
        .iter()
        .map(|t| {
            let word = t.text(donor);
            if t.kind == TokenKind::Symbol && ours.contains(word) && !word.starts_with("@\"") {
                format!("{word}_{tag}")
            } else {
                word.to_owned()
            }
        })
        .collect();
    Some(format!("{text}\n{renamed}"))
}

/// Wraps a run of sibling ops of a block in a region op (defining what the
/// wrapper needs right before it), or splits the block with cf branches.
fn wrap_ops(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
fn wrap_top_level(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
fn inject_attribute(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

fn token_chaos(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: &str = "func.func @f(%s: !executor.session, %m: memref<4xf32>) {\n  %t = executor.launch_async %s(\"k\", \"k.o\")\n      : !executor.session -> !executor.token\n  executor.await %t : !executor.token\n  executor.launch %s(\"k\", \"k.o\")(%m) : !executor.session, (memref<4xf32>) -> ()\n  return\n}\n";

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

    #[test]
    fn spliced_ops_use_our_values_of_their_type() {
        let donor = "func.func @g(%session: !executor.session) {\n  executor.close %session : !executor.session\n  return\n}\n";
        let spliced: Vec<String> = (0..50)
            .filter_map(|seed| splice(&mut Rng::new(seed), HOST, &[donor]))
            .collect();
        assert!(
            spliced
                .iter()
                .any(|m| m.contains("executor.close %s : !executor.session")),
            "{spliced:?}"
        );
        assert!(
            spliced
                .iter()
                .all(|m| !m.contains("executor.close %session")),
            "{spliced:?}"
        );
    }

    #[test]
    fn every_mutation_applies_to_a_host_function() {
        let donors = [HOST];
        let nested = HOST.replace("  return\n", "  %c = arith.constant true\n  scf.if %c {\n    executor.launch %s(\"k\", \"k.o\")() : !executor.session, () -> ()\n  }\n  return\n");
        for (name, _, mutation) in MUTATIONS {
            let changed = (0..64).any(|seed| {
                mutation(&mut Rng::new(seed), &nested, &donors).is_some_and(|m| m != nested)
            });
            assert!(changed, "{name} never changed the host function");
        }
    }

    #[test]
    fn mutants_are_deterministic() {
        let donors = [HOST];
        let a: Vec<String> = (0..50)
            .filter_map(|i| mutate(&mut Rng::derive(3, i), HOST, &donors).map(|m| m.text))
            .collect();
        let b: Vec<String> = (0..50)
            .filter_map(|i| mutate(&mut Rng::derive(3, i), HOST, &donors).map(|m| m.text))
            .collect();
        assert_eq!(a, b);
        assert!(a.len() > 40);
    }

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

    #[test]
    fn shapes_change_where_they_are() {
        let text = "%a = memref.alloc() : memref<4x?xf32>\n";
        let mut seen = HashSet::new();
        for seed in 0..200 {
            if let Some(m) = mutate_shape(&mut Rng::new(seed), text, &[]) {
                seen.insert(m);
            }
        }
        assert!(
            seen.contains("%a = memref.alloc() : memref<?xf32>\n"),
            "{seen:?}"
        );
        assert!(
            seen.contains("%a = memref.alloc() : memref<*xf32>\n"),
            "{seen:?}"
        );
        assert!(seen.iter().any(|m| m.contains("strided<")), "{seen:?}");
    }
}
