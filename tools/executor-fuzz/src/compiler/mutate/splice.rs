//! Mutations across values and inputs: a use renamed to another value of
//! its type, ops of other inputs spliced in (their values renamed, their
//! uses bound to ours), other inputs appended.

use super::{
    text::{
        choose, join_lines, leading_space, replace, split_lines, structure, suffix, tokens_where,
    },
    values::{defined_symbols, definitions, rename_definitions, value_types},
};
use crate::{
    compiler::mlir::{self, StmtKind, TokenKind},
    shared::rng::Rng,
};

/// Replaces a use of a value by another value, of the same type when the
/// syntax tells types.
pub(super) fn rename_value(rng: &mut Rng, text: &str, _: &[&str]) -> Option<String> {
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
pub(super) fn splice(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
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
pub(super) fn append_donor(rng: &mut Rng, text: &str, donors: &[&str]) -> Option<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    use crate::compiler::mutate::tests::HOST;

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
}
