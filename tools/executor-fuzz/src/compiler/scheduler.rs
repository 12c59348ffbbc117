//! The batch scheduler: a batch of inputs through every target, one
//! process per tool; the inputs that make a batch's run a finding isolated
//! by halves and checked alone, and the inputs that look like a finding
//! (see the oracle) checked alone too.

use std::{collections::BTreeMap, io, path::Path};

use super::{
    batch::{BatchFile, BatchOutcome, Input, split_output, write_batch},
    fuzzer::Fuzzer,
    oracle::{Checker, op_names, out_of_scope},
    run::{self, Run, classify},
    tools::{LOWERING, PASS, PASS_PYFACE, Target, reproduce_command},
};
use crate::shared::{
    findings::{Finding, excerpt},
    signature::{Signature, normalize},
};

/// One batch on its way through the targets: its inputs, the checkers of
/// single inputs and of the batch, and what it did so far.
struct Batch<'a> {
    inputs: &'a [Input],
    scratch: &'a Path,
    checker: Checker<'a>,
    batch_checker: Checker<'a>,
    outcome: BatchOutcome,
    /// For each valid input: what it showed (error messages, op names).
    features: BTreeMap<usize, Vec<String>>,
}

/// A batch that ran clean: the members left in it, its file, the run and
/// each member's output.
type BatchRun = (Vec<usize>, BatchFile, Run, Vec<Vec<u8>>);

/// The members of a batch run that may have printed an error and still
/// produced output: those with an error at their lines, and every one with
/// output when an error has no line.
fn errors_but_success(
    run: &Run,
    first_errors: &[Option<String>],
    outputs: &[Vec<u8>],
    members: &[usize],
) -> Vec<usize> {
    let unattributed = !run::unattributed_errors(&run.stderr).is_empty();
    outputs
        .iter()
        .zip(first_errors)
        .zip(members)
        .filter(|((output, error), _)| !output.is_empty() && (unattributed || error.is_some()))
        .map(|(_, &member)| member)
        .collect()
}

impl Fuzzer<'_> {
    fn finding(
        &self,
        target: Target,
        input: &Input,
        signature: Signature,
        detail: String,
        split: bool,
    ) -> Finding {
        Finding {
            target: target.name().to_owned(),
            reproduce: reproduce_command(self.tools, target, signature.kind, split),
            signature,
            input: input.text.as_bytes().to_vec(),
            extension: "mlir",
            detail,
            origin: input.origin.clone(),
            minimized: None,
            count: 1,
            known: None,
        }
    }

    /// Checks `members` one by one on `target`, recording their findings;
    /// returns the members that are findings.
    fn recheck(
        &self,
        batch: &mut Batch,
        target: Target,
        members: &[usize],
    ) -> io::Result<Vec<usize>> {
        let inputs = batch.inputs;
        let mut found = Vec::new();
        for &member in members {
            batch.outcome.stats.rechecked += 1;
            let checked = batch
                .checker
                .check(target, inputs[member].text.as_bytes(), false)?;
            if let Some((signature, detail)) = checked.finding {
                found.push(member);
                batch.outcome.findings.add(self.finding(
                    target,
                    &inputs[member],
                    signature,
                    detail,
                    false,
                ));
            }
        }
        Ok(found)
    }

    /// The members of a batch that make `run` a finding (or break its
    /// output's split), found by halves: a half whose batch runs clean is
    /// left alone, one that does not is split again, down to single inputs,
    /// which are checked alone.
    fn isolate(
        &self,
        batch: &mut Batch,
        target: Target,
        command: &dyn Fn(&Checker, &Path) -> io::Result<Run>,
        members: &[usize],
    ) -> io::Result<Vec<usize>> {
        if members.len() <= 2 {
            return self.recheck(batch, target, members);
        }
        let inputs = batch.inputs;
        let mut found = Vec::new();
        for half in members.chunks(members.len().div_ceil(2)) {
            let texts: Vec<&[u8]> = half.iter().map(|&m| inputs[m].text.as_bytes()).collect();
            let file = write_batch(batch.batch_checker.scratch.join("half.mlir"), &texts)?;
            let run = command(&batch.batch_checker, &file.path)?;
            if classify(&run).is_some() || split_output(&run.stdout, half.len()).is_none() {
                found.extend(self.isolate(batch, target, command, half)?);
            }
        }
        Ok(found)
    }

    /// Runs `members` through `target`'s `command` as one batch; the inputs
    /// that make it a finding are isolated, recorded and left out, and the
    /// rest run again. Returns the members left, the run and their outputs;
    /// None when the batch is a finding that no input makes alone (then
    /// recorded with the whole batch as its input).
    fn batch_run(
        &self,
        batch: &mut Batch,
        target: Target,
        command: &dyn Fn(&Checker, &Path) -> io::Result<Run>,
        members: &[usize],
    ) -> io::Result<Option<BatchRun>> {
        let inputs = batch.inputs;
        let mut current = members.to_vec();
        loop {
            let texts: Vec<&[u8]> = current.iter().map(|&m| inputs[m].text.as_bytes()).collect();
            let file = write_batch(
                batch
                    .batch_checker
                    .scratch
                    .join(format!("{}.mlir", target.name())),
                &texts,
            )?;
            let run = command(&batch.batch_checker, &file.path)?;
            let signature = classify(&run);
            if signature.is_none()
                && let Some(outputs) = split_output(&run.stdout, current.len())
            {
                return Ok(Some((current, file, run, outputs)));
            }
            let found = self.isolate(batch, target, command, &current)?;
            if found.is_empty() {
                if let Some(signature) = signature {
                    let input = Input {
                        text: String::from_utf8_lossy(&file.text).into_owned(),
                        origin: format!(
                            "a batch of {} inputs; none alone makes the finding",
                            current.len()
                        ),
                        mutations: Vec::new(),
                    };
                    batch.outcome.findings.add(self.finding(
                        target,
                        &input,
                        signature,
                        excerpt(&run.stderr, 40),
                        true,
                    ));
                }
                return Ok(None);
            }
            current.retain(|m| !found.contains(m));
            if current.is_empty() {
                return Ok(None);
            }
        }
    }

    /// Runs one batch through every target.
    pub(super) fn run_batch(&self, inputs: &[Input], scratch: &Path) -> io::Result<BatchOutcome> {
        let mut batch = Batch {
            inputs,
            scratch,
            checker: self.checker(scratch.join("single")),
            batch_checker: Checker {
                tools: self.tools,
                scratch: scratch.to_owned(),
                timeout: self.batch_timeout(inputs.len()),
            },
            outcome: BatchOutcome::default(),
            features: BTreeMap::new(),
        };
        batch.outcome.stats.inputs = inputs.len();
        let members = self.parse(&mut batch)?;
        for target in [Target::Pass, Target::PassPyface] {
            self.pass(&mut batch, target, &members)?;
        }
        let lowered_by_us = self.pipeline(&mut batch, &members)?;
        self.translate(&mut batch, &lowered_by_us)?;
        if self.tools.plugin.is_some() {
            self.plugin(&mut batch, &members, &lowered_by_us)?;
        }
        batch.outcome.features = batch.features.into_iter().collect();
        Ok(batch.outcome)
    }

    /// Parse and verify: the members that are valid, which the other
    /// targets get.
    fn parse(&self, batch: &mut Batch) -> io::Result<Vec<usize>> {
        let inputs = batch.inputs;
        let count = inputs.len();
        let everyone: Vec<usize> = (0..count).collect();
        let parse = |c: &Checker, path: &Path| c.opt(path, None, true, c.timeout);
        let members: Vec<usize> = match self.batch_run(batch, Target::Parse, &parse, &everyone)? {
            Some((left, _, _, outputs)) => left
                .into_iter()
                .zip(&outputs)
                .filter(|(_, output)| !output.is_empty())
                .map(|(m, _)| m)
                .collect(),
            None => Vec::new(),
        };
        batch
            .outcome
            .stats
            .count(Target::Parse, count, members.len());
        for (index, input) in inputs.iter().enumerate() {
            if let [name] = input.mutations[..] {
                let entry = batch.outcome.stats.by_mutation.entry(name).or_default();
                entry.0 += 1;
                entry.1 += usize::from(members.contains(&index));
            }
        }
        batch.features = members
            .iter()
            .map(|&m| (m, vec![format!("ops:{:?}", op_names(&inputs[m].text))]))
            .collect();
        Ok(members)
    }

    /// The pass, with either convention; the default one's output parsed
    /// again.
    fn pass(&self, batch: &mut Batch, target: Target, members: &[usize]) -> io::Result<()> {
        let pipeline = if target == Target::Pass {
            PASS
        } else {
            PASS_PYFACE
        };
        let command = |c: &Checker, path: &Path| c.opt(path, Some(pipeline), true, c.timeout);
        let Some((left, file, run, outputs)) = self.batch_run(batch, target, &command, members)?
        else {
            batch.outcome.stats.count(target, members.len(), 0);
            return Ok(());
        };
        let first_errors = file.first_errors(&run.stderr);
        let verifier = file.has_verifier_error(&run.stderr);
        let mut suspects = errors_but_success(&run, &first_errors, &outputs, &left);
        let mut passed = Vec::new();
        for (k, output) in outputs.iter().enumerate() {
            let member = left[k];
            let feature = if output.is_empty() {
                if verifier[k] {
                    suspects.push(member);
                }
                let message = first_errors[k]
                    .as_deref()
                    .map_or_else(String::new, normalize);
                format!("{}:error:{message}", target.name())
            } else {
                passed.push(k);
                format!("{}:ok", target.name())
            };
            batch.features.entry(member).or_default().push(feature);
        }
        batch
            .outcome
            .stats
            .count(target, members.len(), passed.len());
        if target == Target::Pass && !passed.is_empty() {
            let lowered: Vec<&[u8]> = passed.iter().map(|&k| outputs[k].as_slice()).collect();
            let lowered_file = write_batch(batch.scratch.join("lowered.mlir"), &lowered)?;
            let reparsed = batch.batch_checker.opt(
                &lowered_file.path,
                None,
                true,
                batch.batch_checker.timeout,
            )?;
            match (
                classify(&reparsed),
                split_output(&reparsed.stdout, passed.len()),
            ) {
                (None, Some(again)) => suspects.extend(
                    passed
                        .iter()
                        .zip(&again)
                        .filter(|(_, output)| output.is_empty())
                        .map(|(&k, _)| left[k]),
                ),
                _ => suspects.extend(passed.iter().map(|&k| left[k])),
            }
        }
        suspects.sort_unstable();
        suspects.dedup();
        if !suspects.is_empty() {
            self.recheck(batch, target, &suspects)?;
        }
        Ok(())
    }

    /// The lowering pipeline: what it lowered of each member (empty where it
    /// failed), those that are a finding left out.
    fn pipeline(
        &self,
        batch: &mut Batch,
        members: &[usize],
    ) -> io::Result<BTreeMap<usize, Vec<u8>>> {
        let lowering = |c: &Checker, path: &Path| c.opt(path, Some(LOWERING), true, c.timeout);
        let pipeline = self.batch_run(batch, Target::Pipeline, &lowering, members)?;
        let mut lowered_by_us: BTreeMap<usize, Vec<u8>> = BTreeMap::new();
        match &pipeline {
            Some((left, file, run, outputs)) => {
                let first_errors = file.first_errors(&run.stderr);
                for (k, output) in outputs.iter().enumerate() {
                    batch
                        .features
                        .entry(left[k])
                        .or_default()
                        .push(if output.is_empty() {
                            let message = first_errors[k]
                                .as_deref()
                                .map_or_else(String::new, normalize);
                            format!("pipeline:error:{message}")
                        } else {
                            "pipeline:ok".to_owned()
                        });
                    lowered_by_us.insert(left[k], output.clone());
                }
                batch.outcome.stats.count(
                    Target::Pipeline,
                    members.len(),
                    outputs.iter().filter(|o| !o.is_empty()).count(),
                );
                let suspects = errors_but_success(run, &first_errors, outputs, left);
                if !suspects.is_empty() {
                    for member in self.recheck(batch, Target::Pipeline, &suspects)? {
                        lowered_by_us.remove(&member);
                    }
                }
            }
            None => batch
                .outcome
                .stats
                .count(Target::Pipeline, members.len(), 0),
        }
        Ok(lowered_by_us)
    }

    /// mlir-translate on what the pipeline lowered.
    fn translate(
        &self,
        batch: &mut Batch,
        lowered_by_us: &BTreeMap<usize, Vec<u8>>,
    ) -> io::Result<()> {
        let lowered: Vec<(usize, &Vec<u8>)> = lowered_by_us
            .iter()
            .filter(|(_, output)| !output.is_empty())
            .map(|(&m, output)| (m, output))
            .collect();
        if lowered.is_empty() {
            return Ok(());
        }
        let inputs = batch.inputs;
        let texts: Vec<&[u8]> = lowered
            .iter()
            .map(|(_, output)| output.as_slice())
            .collect();
        let lowered_file = write_batch(batch.scratch.join("llvm.mlir"), &texts)?;
        let batch_checker = &batch.batch_checker;
        let run = batch_checker.translate(&lowered_file.path, true, batch_checker.timeout)?;
        let suspects: Vec<usize> = match (classify(&run), split_output(&run.stdout, lowered.len()))
        {
            (None, Some(translated)) => lowered
                .iter()
                .zip(&translated)
                .filter(|((m, _), ir)| ir.is_empty() && !out_of_scope(inputs[*m].text.as_bytes()))
                .map(|((m, _), _)| *m)
                .collect(),
            _ => lowered.iter().map(|(m, _)| *m).collect(),
        };
        let found = if suspects.is_empty() {
            0
        } else {
            self.recheck(batch, Target::Translate, &suspects)?.len()
        };
        batch
            .outcome
            .stats
            .count(Target::Translate, lowered.len(), lowered.len() - found);
        Ok(())
    }

    /// The lowering pipeline in upstream mlir-opt with the plugin, compared
    /// with what executor-opt lowered.
    fn plugin(
        &self,
        batch: &mut Batch,
        members: &[usize],
        lowered_by_us: &BTreeMap<usize, Vec<u8>>,
    ) -> io::Result<()> {
        let plugin = |c: &Checker, path: &Path| c.plugin(path, true, c.timeout);
        match self.batch_run(batch, Target::Plugin, &plugin, members)? {
            Some((left, _, _, outputs)) => {
                batch.outcome.stats.count(
                    Target::Plugin,
                    members.len(),
                    outputs.iter().filter(|o| !o.is_empty()).count(),
                );
                let suspects: Vec<usize> = left
                    .iter()
                    .zip(&outputs)
                    .filter(|(m, output)| lowered_by_us.get(m).is_some_and(|ours| ours != *output))
                    .map(|(&m, _)| m)
                    .collect();
                if !suspects.is_empty() {
                    self.recheck(batch, Target::Plugin, &suspects)?;
                }
            }
            None => batch.outcome.stats.count(Target::Plugin, members.len(), 0),
        }
        Ok(())
    }
}
