//! Delta debugging (Zeller and Hildebrandt's ddmin, complement-first):
//! the tester that spends a budget, and ddmin over any list of units, with
//! its uses on bytes and on the chunks of a connection. The compiler's text,
//! by lines and tokens, is `compiler::minimize`.

use std::time::{Duration, Instant};

/// Limits of one minimization: each test runs tools, so they cost.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub tests: usize,
    pub time: Duration,
}

pub(crate) struct Tester<'a, T> {
    still_fails: &'a mut dyn FnMut(&T) -> bool,
    pub(crate) tests: usize,
    budget: Budget,
    started: Instant,
}

impl<'a, T> Tester<'a, T> {
    /// A tester that has run nothing yet, its budget starting now.
    pub(crate) fn new(still_fails: &'a mut dyn FnMut(&T) -> bool, budget: Budget) -> Self {
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

    pub(crate) fn test(&mut self, candidate: &T) -> bool {
        if self.exhausted() {
            return false;
        }
        self.tests += 1;
        (self.still_fails)(candidate)
    }
}

/// ddmin over `units`, which `join` makes an input of: the smallest subset
/// found, in order, that still fails.
pub(crate) fn ddmin<U: Clone, T>(
    units: Vec<U>,
    join: impl Fn(&[U]) -> T,
    tester: &mut Tester<T>,
) -> Vec<U> {
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
pub(crate) mod tests {
    use super::*;

    pub(crate) fn budget() -> Budget {
        Budget {
            tests: 10_000,
            time: Duration::from_secs(60),
        }
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
}
