//! Mutations of literals: string attributes, symbols and integers replaced
//! by edge cases.

use super::{
    shapes::{DIMENSIONS, shaped_types},
    text::{choose, pick_token, replace, tokens_where},
    values::replace_type_everywhere,
};
use crate::{
    compiler::mlir::{self, TokenKind},
    shared::rng::Rng,
};

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

pub(super) fn mutate_string(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
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

pub(super) fn mutate_symbol(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

pub(super) fn mutate_integer(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
