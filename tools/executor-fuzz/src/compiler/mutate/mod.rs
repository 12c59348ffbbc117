//! MLIR-aware mutations of textual IR: ops and lines deleted, duplicated,
//! swapped or moved; string attributes, symbols, integers, shapes and types
//! replaced by edge cases; fragments spliced from other inputs; ops wrapped in
//! regions (scf, async, omp, gpu, cf blocks) and functions in nested modules.
//!
//! Most mutants should still parse and verify, so that they reach the pass:
//! duplicated and spliced ops get fresh result names, wrappers define the
//! values they use, and spliced functions are renamed when their names clash.

mod literals;
mod ops;
mod shapes;
mod splice;
mod text;
mod tokens;
mod types;
mod values;
mod wrap;

use crate::shared::rng::Rng;
use literals::{mutate_integer, mutate_string, mutate_symbol};
use ops::{
    delete_op, delete_region_op, duplicate_op, line_chaos, move_op, swap_ops, unwrap_region,
};
use splice::{append_donor, rename_value, splice};
use tokens::{inject_attribute, token_chaos};
use types::{mutate_shape, mutate_type};
use wrap::{wrap_ops, wrap_top_level};

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

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) const HOST: &str = "func.func @f(%s: !executor.session, %m: memref<4xf32>) {\n  %t = executor.launch_async %s(\"k\", \"k.o\")\n      : !executor.session -> !executor.token\n  executor.await %t : !executor.token\n  executor.launch %s(\"k\", \"k.o\")(%m) : !executor.session, (memref<4xf32>) -> ()\n  return\n}\n";

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
}
