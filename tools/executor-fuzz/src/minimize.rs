//! Delta debugging (Zeller and Hildebrandt's ddmin, complement-first) of an
//! input by lines and then by tokens, keeping whatever makes the same finding.

use std::time::{Duration, Instant};

use crate::mlir::{self, TokenKind};

/// Limits of one minimization: each test runs tools, so they cost.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub tests: usize,
    pub time: Duration,
}

struct Tester<'a, T> {
    still_fails: &'a mut dyn FnMut(&T) -> bool,
    tests: usize,
    budget: Budget,
    started: Instant,
}

impl<'a, T> Tester<'a, T> {
    /// A tester that has run nothing yet, its budget starting now.
    fn new(still_fails: &'a mut dyn FnMut(&T) -> bool, budget: Budget) -> Self {
        Self {
            still_fails,
            tests: 0,
            budget,
            started: Instant::now(),
        }
    }

    fn exhausted(&self) -> bool {
        self.tests >= self.budget.tests || self.started.elapsed() >= self.budget.time
    }

    fn test(&mut self, candidate: &T) -> bool {
        if self.exhausted() {
            return false;
        }
        self.tests += 1;
        (self.still_fails)(candidate)
    }
}

/// ddmin over `units`, which `join` makes an input of: the smallest subset
/// found, in order, that still fails.
fn ddmin<U: Clone, T>(units: Vec<U>, join: impl Fn(&[U]) -> T, tester: &mut Tester<T>) -> Vec<U> {
    let mut units = units;
    let mut granularity = 2;
    while units.len() >= 2 && !tester.exhausted() {
        let chunk = units.len().div_ceil(granularity);
        let mut reduced = false;
        // Complements first: removing one chunk at a time.
        let mut start = 0;
        while start < units.len() {
            let end = (start + chunk).min(units.len());
            let complement: Vec<U> = units[..start]
                .iter()
                .chain(&units[end..])
                .cloned()
                .collect();
            if !complement.is_empty() && tester.test(&join(&complement)) {
                units = complement;
                granularity = (granularity - 1).max(2);
                reduced = true;
                break;
            }
            start = end;
        }
        if !reduced {
            if granularity >= units.len() {
                break;
            }
            granularity = (granularity * 2).min(units.len());
        }
    }
    units
}

fn concat(units: &[String]) -> String {
    units.concat()
}

fn lines_of(text: &str) -> Vec<String> {
    text.split_inclusive('\n').map(str::to_owned).collect()
}

/// Tokens with the whitespace before them (so that removing one keeps the
/// rest readable); a string literal is one token.
fn tokens_of(text: &str) -> Vec<String> {
    let mut units: Vec<String> = Vec::new();
    let mut pending = String::new();
    for token in mlir::lex(text) {
        let piece = token.text(text);
        if matches!(token.kind, TokenKind::Space | TokenKind::Newline) {
            pending.push_str(piece);
        } else {
            pending.push_str(piece);
            units.push(std::mem::take(&mut pending));
        }
    }
    if !pending.is_empty() {
        match units.last_mut() {
            Some(last) => last.push_str(&pending),
            None => units.push(pending),
        }
    }
    units
}

/// The outcome of a minimization.
#[derive(Clone, Debug)]
pub struct Minimized {
    pub text: String,
    pub tests: usize,
    /// Whether the original input still failed when tested first; when not,
    /// `text` is the original (a flaky finding).
    pub reproduced: bool,
}

/// Minimizes `input` by lines, then by tokens: `still_fails` says whether a
/// candidate makes the same finding.
pub fn minimize(
    input: &str,
    budget: Budget,
    still_fails: &mut dyn FnMut(&str) -> bool,
) -> Minimized {
    let mut adapter = |candidate: &String| still_fails(candidate);
    let mut tester = Tester::new(&mut adapter, budget);
    if !tester.test(&input.to_owned()) {
        return Minimized {
            text: input.to_owned(),
            tests: tester.tests,
            reproduced: false,
        };
    }
    let by_lines = ddmin(lines_of(input), concat, &mut tester).concat();
    let by_tokens = ddmin(tokens_of(&by_lines), concat, &mut tester).concat();
    // Blank lines left by removed tokens.
    let tidy: String = by_tokens
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| format!("{}\n", line.trim_end()))
        .collect();
    let text = if tidy != by_tokens && tester.test(&tidy) {
        tidy
    } else {
        by_tokens
    };
    Minimized {
        text,
        tests: tester.tests,
        reproduced: true,
    }
}

/// The outcome of minimizing bytes.
#[derive(Clone, Debug)]
pub struct MinimizedBytes {
    pub bytes: Vec<u8>,
    pub tests: usize,
    pub reproduced: bool,
}

/// Minimizes `input` byte by byte (ddmin), then tries each byte as 0.
pub fn minimize_bytes(
    input: &[u8],
    budget: Budget,
    still_fails: &mut dyn FnMut(&[u8]) -> bool,
) -> MinimizedBytes {
    let mut adapter = |candidate: &Vec<u8>| still_fails(candidate);
    let mut tester = Tester::new(&mut adapter, budget);
    if !tester.test(&input.to_vec()) {
        return MinimizedBytes {
            bytes: input.to_vec(),
            tests: tester.tests,
            reproduced: false,
        };
    }
    let mut bytes = ddmin(input.to_vec(), <[u8]>::to_vec, &mut tester);
    for at in 0..bytes.len() {
        if bytes[at] != 0 {
            let mut zeroed = bytes.clone();
            zeroed[at] = 0;
            if tester.test(&zeroed) {
                bytes = zeroed;
            }
        }
    }
    MinimizedBytes {
        bytes,
        tests: tester.tests,
        reproduced: true,
    }
}

/// The outcome of minimizing a list of chunks.
#[derive(Clone, Debug)]
pub struct MinimizedChunks {
    pub chunks: Vec<Vec<u8>>,
    pub tests: usize,
    pub reproduced: bool,
}

/// Minimizes a list of chunks (the frames of a connection) by removing
/// whole chunks; the first stays first.
pub fn minimize_chunks(
    input: &[Vec<u8>],
    budget: Budget,
    still_fails: &mut dyn FnMut(&[Vec<u8>]) -> bool,
) -> MinimizedChunks {
    let mut adapter = |candidate: &Vec<Vec<u8>>| still_fails(candidate);
    let mut tester = Tester::new(&mut adapter, budget);
    if !tester.test(&input.to_vec()) {
        return MinimizedChunks {
            chunks: input.to_vec(),
            tests: tester.tests,
            reproduced: false,
        };
    }
    let chunks = ddmin(input.to_vec(), <[Vec<u8>]>::to_vec, &mut tester);
    MinimizedChunks {
        chunks,
        tests: tester.tests,
        reproduced: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget() -> Budget {
        Budget {
            tests: 10_000,
            time: Duration::from_secs(60),
        }
    }

    #[test]
    fn keeps_only_what_the_failure_needs() {
        let input = "func.func @f() {\n  %a = executor.open(\"\\ff\") : !executor.session\n  %b = arith.constant 1 : i32\n  return\n}\n";
        let result = minimize(input, budget(), &mut |text: &str| {
            text.contains("executor.open") && text.contains("\"\\ff\"")
        });
        assert!(result.reproduced);
        // The parentheses go too: the predicate does not need them.
        assert_eq!(
            result.text.trim(),
            "executor.open\"\\ff\"",
            "{}",
            result.text
        );
    }

    #[test]
    fn an_input_that_no_longer_fails_is_left_alone() {
        let result = minimize("a\nb\n", budget(), &mut |_| false);
        assert!(!result.reproduced);
        assert_eq!(result.text, "a\nb\n");
        assert_eq!(result.tests, 1);
    }

    #[test]
    fn bytes_minimize_to_what_matters() {
        let input: Vec<u8> = (0..100).collect();
        let result = minimize_bytes(&input, budget(), &mut |bytes| {
            bytes.contains(&42) && bytes.contains(&7)
        });
        assert!(result.reproduced);
        assert_eq!(result.bytes, vec![7, 42]);
    }

    #[test]
    fn the_budget_bounds_the_tests() {
        let input: String = (0..200).map(|i| format!("line{i}\n")).collect();
        let mut calls = 0;
        let result = minimize(
            &input,
            Budget {
                tests: 7,
                time: Duration::from_secs(60),
            },
            &mut |text: &str| {
                calls += 1;
                text.contains("line150")
            },
        );
        assert!(calls <= 7);
        assert!(result.text.contains("line150"));
    }
}
