//! The compiler fuzzer's minimization: ddmin of an input by lines and then
//! by tokens, keeping whatever makes the same finding.

use crate::{
    compiler::mlir::{self, TokenKind},
    shared::minimize::{Budget, Tester, ddmin},
};

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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::shared::minimize::tests::budget;

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
