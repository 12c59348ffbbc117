//! Mutations of types: shapes (dimensions, ranks, layouts) and whole
//! types replaced by edge cases.

use super::{
    shapes::{DIMENSIONS, shaped_types},
    text::{choose, pick_token, replace, tokens_where},
    values::replace_type_everywhere,
};
use crate::{
    compiler::mlir::{self, Token, TokenKind},
    shared::rng::Rng,
};

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

pub(super) fn mutate_type(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

pub(super) fn mutate_shape(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

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
