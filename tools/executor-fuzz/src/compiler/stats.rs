//! The counts of a compiler fuzzing run: inputs per target and how many
//! each accepted, inputs rechecked alone, and how often each mutation's
//! inputs verified.

use std::collections::BTreeMap;

use super::tools::Target;

/// Counts of one run of the compiler fuzzer.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Mutants generated and run.
    pub inputs: usize,
    /// Inputs each target ran, and how many it accepted.
    pub ran: BTreeMap<&'static str, usize>,
    pub accepted: BTreeMap<&'static str, usize>,
    /// Inputs run again alone (a batch looked like a finding).
    pub rechecked: usize,
    pub pool: usize,
    /// For each mutation: inputs it made alone (not stacked on others), and
    /// how many of them verified.
    pub by_mutation: BTreeMap<&'static str, (usize, usize)>,
}

impl Stats {
    pub(super) fn count(&mut self, target: Target, ran: usize, accepted: usize) {
        *self.ran.entry(target.name()).or_default() += ran;
        *self.accepted.entry(target.name()).or_default() += accepted;
    }

    pub(super) fn merge(&mut self, other: &Stats) {
        self.inputs += other.inputs;
        self.rechecked += other.rechecked;
        for (name, (made, valid)) in &other.by_mutation {
            let entry = self.by_mutation.entry(name).or_default();
            entry.0 += made;
            entry.1 += valid;
        }
        for (name, count) in &other.ran {
            *self.ran.entry(name).or_default() += count;
        }
        for (name, count) in &other.accepted {
            *self.accepted.entry(name).or_default() += count;
        }
    }

    /// `parse 1200 (640 valid), pass 640 (512 ok), ...`
    pub fn per_target(&self) -> String {
        Target::ALL
            .iter()
            .filter_map(|target| {
                let ran = self.ran.get(target.name())?;
                let accepted = self.accepted.get(target.name()).copied().unwrap_or(0);
                Some(format!("{} {ran} ({accepted} ok)", target.name()))
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// `string 120/300, ...`: how often each mutation's inputs verified.
    pub fn per_mutation(&self) -> String {
        self.by_mutation
            .iter()
            .map(|(name, (made, valid))| format!("{name} {valid}/{made}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}
