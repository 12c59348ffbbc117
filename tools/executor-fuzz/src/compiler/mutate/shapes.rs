//! Shaped types in MLIR text, which the literal and the type mutations both
//! change: where each `memref<...>`, `tensor<...>` and `vector<...>` is, and
//! the dimensions worth putting in one.

use crate::compiler::mlir::{Token, TokenKind};

/// Dimensions at the edges of what the passes handle: zero, small, and
/// around the powers of two where sizes in bytes overflow.
pub(super) const DIMENSIONS: &[&str] = &[
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

/// `memref<...>`, `tensor<...>` and `vector<...>`: the index of the type's
/// name token and of its closing `>`.
pub(super) fn shaped_types(tokens: &[Token], text: &str) -> Vec<(usize, usize)> {
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
