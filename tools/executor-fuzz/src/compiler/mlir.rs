//! Just enough of MLIR's textual syntax for the mutators: a lexer that keeps
//! every byte (tokens cover the text exactly, so text can be rebuilt from
//! them) and a line-based view of statements and regions.

/// What a token is, as far as the mutators care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// `"..."` with its quotes (also an unterminated one, up to the line's end).
    Str,
    /// Decimal or `0x` hexadecimal digits; also a dimension of a shape (`4` in `4x8xf32`).
    Int,
    /// `1.5`, `2.0e3`.
    Float,
    /// A bare identifier or keyword: `func.func`, `f32`, `memref`, `to`.
    Ident,
    /// `%name`
    Value,
    /// `@name` or `@"name"`
    Symbol,
    /// `!dialect.type`
    TypeAlias,
    /// `#attr`
    AttrAlias,
    /// `^bb0`
    Block,
    /// One punctuation character, or `->`.
    Punct,
    /// Spaces and tabs.
    Space,
    Newline,
    /// `// ...` up to the end of the line.
    Comment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub start: usize,
    pub end: usize,
}

impl Token {
    pub fn text<'a>(&self, source: &'a str) -> &'a str {
        &source[self.start..self.end]
    }
}

fn is_ident_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'_' | b'.' | b'$')
}

/// The characters of the name after `%`, `@`, `!`, `#` and `^` (MLIR's suffix-id also takes `-`).
fn is_suffix_char(bytes: &[u8], at: usize) -> bool {
    is_ident_char(bytes[at]) || (bytes[at] == b'-' && bytes.get(at + 1) != Some(&b'>'))
}

fn is_ident_start(byte: u8) -> bool {
    byte.is_ascii_alphabetic() || byte == b'_'
}

/// The end of a string literal that starts at `start` (a `"`): after the
/// closing quote, or at the end of the line when it is not closed.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut at = start + 1;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            b'\n' => return at,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// Splits `source` into tokens that cover it exactly.
pub fn lex(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    let mut previous_int = false;
    while at < bytes.len() {
        let start = at;
        let byte = bytes[at];
        let kind = match byte {
            b'\n' => {
                at += 1;
                TokenKind::Newline
            }
            b' ' | b'\t' | b'\r' => {
                while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\r') {
                    at += 1;
                }
                TokenKind::Space
            }
            b'/' if bytes.get(at + 1) == Some(&b'/') => {
                while at < bytes.len() && bytes[at] != b'\n' {
                    at += 1;
                }
                TokenKind::Comment
            }
            b'"' => {
                at = string_end(bytes, at);
                TokenKind::Str
            }
            b'%' | b'@' | b'!' | b'#' | b'^' => {
                at += 1;
                if byte == b'@' && bytes.get(at) == Some(&b'"') {
                    at = string_end(bytes, at);
                } else {
                    while at < bytes.len() && is_suffix_char(bytes, at) {
                        at += 1;
                    }
                }
                match byte {
                    b'%' => TokenKind::Value,
                    b'@' => TokenKind::Symbol,
                    b'!' => TokenKind::TypeAlias,
                    b'#' => TokenKind::AttrAlias,
                    _ => TokenKind::Block,
                }
            }
            b'0'..=b'9' => {
                if byte == b'0'
                    && bytes.get(at + 1) == Some(&b'x')
                    && bytes.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
                    // `0x4xf32` is a shape, not a hexadecimal number.
                    && !bytes[at + 2..]
                        .iter()
                        .take_while(|b| b.is_ascii_alphanumeric())
                        .any(|&b| b == b'x')
                {
                    at += 2;
                    while at < bytes.len() && bytes[at].is_ascii_hexdigit() {
                        at += 1;
                    }
                    TokenKind::Int
                } else {
                    while at < bytes.len() && bytes[at].is_ascii_digit() {
                        at += 1;
                    }
                    let fraction = bytes.get(at) == Some(&b'.')
                        && bytes.get(at + 1).is_some_and(u8::is_ascii_digit);
                    if fraction {
                        at += 1;
                        while at < bytes.len() && bytes[at].is_ascii_digit() {
                            at += 1;
                        }
                        if matches!(bytes.get(at), Some(b'e' | b'E')) {
                            let mut exponent = at + 1;
                            if matches!(bytes.get(exponent), Some(b'+' | b'-')) {
                                exponent += 1;
                            }
                            if bytes.get(exponent).is_some_and(u8::is_ascii_digit) {
                                at = exponent;
                                while at < bytes.len() && bytes[at].is_ascii_digit() {
                                    at += 1;
                                }
                            }
                        }
                        TokenKind::Float
                    } else {
                        TokenKind::Int
                    }
                }
            }
            // The `x` of a shape after a dimension: `4x`, `?x`, `]x`.
            b'x' if previous_int => {
                at += 1;
                TokenKind::Punct
            }
            _ if is_ident_start(byte) => {
                while at < bytes.len() && is_ident_char(bytes[at]) {
                    at += 1;
                }
                TokenKind::Ident
            }
            b'-' if bytes.get(at + 1) == Some(&b'>') => {
                at += 2;
                TokenKind::Punct
            }
            _ => {
                // One character, whole (never split a UTF-8 sequence).
                at += source[at..].chars().next().map_or(1, char::len_utf8);
                TokenKind::Punct
            }
        };
        // A dimension, `?` or `]` right before an `x`: that `x` separates dimensions.
        previous_int = (kind == TokenKind::Int
            || (kind == TokenKind::Punct && matches!(&source[start..at], "?" | "]")))
            && bytes.get(at) == Some(&b'x');
        tokens.push(Token {
            kind,
            start,
            end: at,
        });
    }
    tokens
}

/// The kind of a statement: one line, or several when an op continues on the
/// next lines (open parentheses, or a line starting with `:` or `->`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtKind {
    /// An op without regions: `%x = arith.constant 1 : i32`, `return`.
    Op,
    /// A line that opens a region: `func.func @f() {`, `scf.for ... {`.
    Open,
    /// `}` (possibly with more after it, like `} : (i32) -> ()`).
    Close,
    /// `} else {`, `} combiner {`: closes a region and opens the next one.
    CloseOpen,
    /// `^bb1(%a: i32):`
    Label,
    Blank,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// First and last line (inclusive).
    pub first: usize,
    pub last: usize,
    /// Regions open around it.
    pub depth: usize,
}

/// Counts of `(`+`[` minus `)`+`]` and of `{` minus `}` in a line, outside strings and comments.
fn balance(line: &str) -> (i64, i64) {
    let mut parens = 0;
    let mut braces = 0;
    for token in lex(line) {
        if token.kind == TokenKind::Punct {
            match token.text(line) {
                "(" | "[" => parens += 1,
                ")" | "]" => parens -= 1,
                "{" => braces += 1,
                "}" => braces -= 1,
                _ => {}
            }
        }
    }
    (parens, braces)
}

fn continues(line: &str) -> bool {
    let trimmed = line.trim_start();
    trimmed.starts_with(':') || trimmed.starts_with("->")
}

/// Groups `lines` into statements.
pub fn statements(lines: &[&str]) -> Vec<Stmt> {
    let mut stmts = Vec::new();
    let mut depth: usize = 0;
    let mut line = 0;
    while line < lines.len() {
        let first = line;
        let (mut parens, mut braces) = balance(lines[line]);
        while line + 1 < lines.len()
            && (parens > 0 || continues(lines[line + 1]))
            && !lines[line].trim_end().ends_with('{')
        {
            line += 1;
            let (p, b) = balance(lines[line]);
            parens += p;
            braces += b;
        }
        let trimmed_first = lines[first].trim();
        let trimmed_last = lines[line].trim_end();
        let kind = if trimmed_first.is_empty() {
            StmtKind::Blank
        } else if trimmed_first.starts_with('}') {
            if trimmed_last.ends_with('{') {
                StmtKind::CloseOpen
            } else {
                StmtKind::Close
            }
        } else if trimmed_last.ends_with('{') && braces > 0 {
            StmtKind::Open
        } else if trimmed_first.starts_with('^') {
            StmtKind::Label
        } else {
            StmtKind::Op
        };
        let stmt_depth = match kind {
            StmtKind::Close | StmtKind::CloseOpen => depth.saturating_sub(1),
            _ => depth,
        };
        match kind {
            StmtKind::Open => depth += 1,
            StmtKind::Close => depth = depth.saturating_sub(1),
            _ => {}
        }
        stmts.push(Stmt {
            kind,
            first,
            last: line,
            depth: stmt_depth,
        });
        line += 1;
    }
    stmts
}

/// For each `Open` statement, the index of the statement that closes its last
/// region (following `CloseOpen`s); None when unbalanced.
pub fn matching_close(stmts: &[Stmt], open: usize) -> Option<usize> {
    let depth = stmts[open].depth;
    stmts
        .iter()
        .enumerate()
        .skip(open + 1)
        .find(|(_, stmt)| stmt.depth == depth && stmt.kind == StmtKind::Close)
        .map(|(index, _)| index)
        .filter(|&close| {
            stmts[open + 1..close]
                .iter()
                .all(|stmt| stmt.depth > depth || stmt.kind == StmtKind::CloseOpen)
        })
}

/// Whether an op statement is a terminator (the last op of its block).
pub fn is_terminator(first_line: &str) -> bool {
    let mut op = first_line.trim_start();
    // `%r = "scf.yield"(%x)`: results before, quotes around the generic form's name.
    if op.starts_with('%')
        && let Some((_, rest)) = op.split_once(" = ")
    {
        op = rest;
    }
    let name = op
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("")
        .trim_matches('"');
    matches!(
        name,
        "return"
            | "func.return"
            | "llvm.return"
            | "scf.yield"
            | "scf.condition"
            | "scf.reduce"
            | "scf.reduce.return"
            | "cf.br"
            | "cf.cond_br"
            | "cf.switch"
            | "llvm.br"
            | "llvm.cond_br"
            | "omp.yield"
            | "omp.terminator"
            | "async.yield"
            | "gpu.return"
            | "gpu.terminator"
            | "gpu.yield"
            | "ml_program.return"
            | "affine.yield"
            | "memref.alloca_scope.return"
            | "tensor.yield"
            | "linalg.yield"
            | "llvm.unreachable"
    )
}

/// Whether a string literal or symbol is what the mutators may touch: a
/// token's text with its quotes.
pub fn string_contents(token_text: &str) -> &str {
    let inner = token_text.strip_prefix('"').unwrap_or(token_text);
    inner.strip_suffix('"').unwrap_or(inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(source: &str) -> Vec<(TokenKind, &str)> {
        lex(source)
            .into_iter()
            .filter(|t| t.kind != TokenKind::Space)
            .map(|t| (t.kind, t.text(source)))
            .collect()
    }

    #[test]
    fn tokens_cover_the_text() {
        let source = "%s = executor.open(\"a\\\"b\") : !executor.session // c\n^bb0: é 0x1F 1.5e3 -> @\"\\ff\"";
        let tokens = lex(source);
        let rebuilt: String = tokens.iter().map(|t| t.text(source)).collect();
        assert_eq!(rebuilt, source);
        assert!(kinds(source).contains(&(TokenKind::Str, "\"a\\\"b\"")));
        assert!(kinds(source).contains(&(TokenKind::Symbol, "@\"\\ff\"")));
        assert!(kinds(source).contains(&(TokenKind::Int, "0x1F")));
        assert!(kinds(source).contains(&(TokenKind::Float, "1.5e3")));
        assert!(kinds(source).contains(&(TokenKind::Punct, "->")));
    }

    #[test]
    fn shapes_lex_into_dimensions() {
        assert_eq!(
            kinds("memref<4x?x0x8xf32>"),
            vec![
                (TokenKind::Ident, "memref"),
                (TokenKind::Punct, "<"),
                (TokenKind::Int, "4"),
                (TokenKind::Punct, "x"),
                (TokenKind::Punct, "?"),
                (TokenKind::Punct, "x"),
                (TokenKind::Int, "0"),
                (TokenKind::Punct, "x"),
                (TokenKind::Int, "8"),
                (TokenKind::Punct, "x"),
                (TokenKind::Ident, "f32"),
                (TokenKind::Punct, ">"),
            ]
        );
        assert_eq!(kinds("%c0_i32 i32")[0], (TokenKind::Value, "%c0_i32"));
    }

    #[test]
    fn statements_follow_continuations_and_regions() {
        let text = "func.func @f(%s: !executor.session) {\n  %a = executor.launch %s(\"k\", \"k.o\")()\n      : !executor.session, () -> ()\n  scf.if %c {\n    x.y\n  } else {\n    x.z\n  }\n  return\n}";
        let lines: Vec<&str> = text.lines().collect();
        let stmts = statements(&lines);
        let summary: Vec<(StmtKind, usize, usize, usize)> = stmts
            .iter()
            .map(|s| (s.kind, s.first, s.last, s.depth))
            .collect();
        assert_eq!(
            summary,
            vec![
                (StmtKind::Open, 0, 0, 0),
                (StmtKind::Op, 1, 2, 1),
                (StmtKind::Open, 3, 3, 1),
                (StmtKind::Op, 4, 4, 2),
                (StmtKind::CloseOpen, 5, 5, 1),
                (StmtKind::Op, 6, 6, 2),
                (StmtKind::Close, 7, 7, 1),
                (StmtKind::Op, 8, 8, 1),
                (StmtKind::Close, 9, 9, 0),
            ]
        );
        assert_eq!(matching_close(&stmts, 0), Some(8));
        assert_eq!(matching_close(&stmts, 2), Some(6));
        assert!(is_terminator(lines[8]));
        assert!(is_terminator("    \"func.return\"() : () -> ()"));
        assert!(is_terminator("  \"scf.yield\"(%0) : (i32) -> ()"));
        assert!(!is_terminator(lines[1]));
    }
}
