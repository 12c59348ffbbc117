//! The compiler fuzzer's driver: rounds of batches mutated from a pool of
//! seeds (inputs that showed something new join it), run at once, until the
//! time or the input count runs out; then each finding minimized.

use std::{
    collections::HashSet,
    ffi::OsString,
    fs, io,
    path::PathBuf,
    thread,
    time::{Duration, Instant},
};

use super::{
    batch::{BatchOutcome, Input, split_output, write_batch},
    corpus::Seed,
    minimize,
    mutate::{self, Mutant},
    oracle::Checker,
    run::{self, classify},
    stats::Stats,
    tools::{MARKER, Target, Tools, split_args},
};
use crate::shared::{findings::Findings, minimize::Budget, rng::Rng};

/// The options of a compiler fuzzing run.
#[derive(Clone, Debug)]
pub struct Options {
    pub seed: u64,
    /// Stop after this long (checked between rounds of batches).
    pub time: Option<Duration>,
    /// Stop after this many inputs.
    pub inputs: Option<usize>,
    /// Batches run at once.
    pub jobs: usize,
    pub batch: usize,
    /// For one tool on one input (a batch gets this plus a second per input).
    pub timeout: Duration,
    /// Limits of minimizing each finding (0 tests: no minimization).
    pub minimize: Budget,
    /// Scratch files go here.
    pub work_dir: PathBuf,
}

/// The compiler fuzzer.
pub struct Fuzzer<'a> {
    pub tools: &'a Tools,
    pub options: Options,
}

/// The outcome of a fuzzing run.
#[derive(Debug)]
pub struct Report {
    pub stats: Stats,
    pub findings: Findings,
    pub elapsed: Duration,
}

impl Fuzzer<'_> {
    pub(super) fn checker(&self, scratch: PathBuf) -> Checker<'_> {
        Checker {
            tools: self.tools,
            scratch,
            timeout: self.options.timeout,
        }
    }

    pub(super) fn batch_timeout(&self, count: usize) -> Duration {
        self.options.timeout + Duration::from_secs(count as u64)
    }

    /// Which seeds parse and verify, and those in MLIR's generic form:
    /// properties and attributes spelled out are there for the mutators.
    fn generic_forms(&self, seeds: &[Seed]) -> io::Result<(Vec<bool>, Vec<Seed>)> {
        let texts: Vec<&[u8]> = seeds.iter().map(|s| s.text.as_bytes()).collect();
        let scratch = self.options.work_dir.join("generic");
        fs::create_dir_all(&scratch)?;
        let file = write_batch(scratch.join("seeds.mlir"), &texts)?;
        let mut args: Vec<OsString> =
            vec![file.path.clone().into(), "--mlir-print-op-generic".into()];
        args.extend(split_args(true));
        let run = run::run(
            &self.tools.executor_opt,
            &args,
            self.batch_timeout(seeds.len()),
            &scratch,
        )?;
        // When the seeds crash the parser (the fuzzer will find out why),
        // they are all taken as valid and there is no generic form.
        let Some(outputs) =
            split_output(&run.stdout, seeds.len()).filter(|_| classify(&run).is_none())
        else {
            return Ok((vec![true; seeds.len()], Vec::new()));
        };
        let valid = outputs.iter().map(|o| !o.is_empty()).collect();
        let generic = outputs
            .into_iter()
            .zip(seeds)
            .filter(|(output, _)| !output.is_empty())
            .map(|(output, seed)| Seed {
                origin: format!("{} (generic form)", seed.origin),
                text: String::from_utf8_lossy(&output).into_owned() + "\n",
            })
            .collect();
        Ok((valid, generic))
    }

    /// Fuzzes until the time or the input count runs out, then minimizes
    /// each finding. `log` gets progress lines.
    pub fn run(&self, seeds: &[Seed], log: &mut dyn FnMut(&str)) -> io::Result<Report> {
        let started = Instant::now();
        let options = &self.options;
        // Mutants of valid inputs; of the invalid ones (the corpus's
        // expected-error cases) now and then, for the parser and verifiers.
        let (valid, generic) = self.generic_forms(seeds)?;
        let (mut pool, invalid): (Vec<Seed>, Vec<Seed>) = {
            let (good, bad): (Vec<_>, Vec<_>) = seeds.iter().zip(&valid).partition(|(_, v)| **v);
            (
                good.into_iter().map(|(s, _)| s.clone()).collect(),
                bad.into_iter().map(|(s, _)| s.clone()).collect(),
            )
        };
        let valid_seeds = pool.len();
        pool.extend(generic);
        let initial = pool.len();
        log(&format!(
            "compiler: {} seeds ({} valid, {} of them in generic form too), seed {}, {} jobs x {} inputs a batch",
            seeds.len(),
            valid_seeds,
            initial - valid_seeds,
            options.seed,
            options.jobs,
            options.batch
        ));
        let mut stats = Stats::default();
        let mut findings = Findings::default();
        let mut seen_features: HashSet<String> = HashSet::new();
        let mut pool_rng = Rng::derive(options.seed, u64::MAX);
        let mut next_index: u64 = 0;
        let mut last_log = Instant::now();
        loop {
            if options.time.is_some_and(|limit| started.elapsed() >= limit) {
                break;
            }
            let batches = self.round(&pool, &invalid, &mut next_index);
            if batches.is_empty() {
                break;
            }
            let outcomes = self.run_round(&batches);
            for (batch, outcome) in batches.iter().zip(outcomes) {
                let outcome = outcome?;
                stats.merge(&outcome.stats);
                for finding in outcome.findings.iter() {
                    if !findings.iter().any(|f| f.key() == finding.key()) {
                        log(&format!("compiler: finding {}", finding.summary()));
                    }
                }
                findings.merge(outcome.findings);
                // Inputs that showed something new join the pool.
                for (member, features) in outcome.features {
                    let mut new = false;
                    for feature in features {
                        new |= seen_features.insert(feature);
                    }
                    if new {
                        let seed = Seed {
                            origin: batch[member].origin.clone(),
                            text: batch[member].text.clone(),
                        };
                        if pool.len() < initial + 4000 {
                            pool.push(seed);
                        } else {
                            let at = initial + pool_rng.below(pool.len() - initial);
                            pool[at] = seed;
                        }
                    }
                }
            }
            if last_log.elapsed() >= Duration::from_secs(30) {
                last_log = Instant::now();
                log(&format!(
                    "compiler: {} inputs in {:.0} s, pool {}, {} findings; {}",
                    stats.inputs,
                    started.elapsed().as_secs_f64(),
                    pool.len(),
                    findings.len(),
                    stats.per_target()
                ));
            }
        }
        stats.pool = pool.len();
        let elapsed = started.elapsed();
        self.minimize_all(&mut findings, log)?;
        Ok(Report {
            stats,
            findings,
            elapsed,
        })
    }

    /// One round: `jobs` batches generated from the pool as it is now, so
    /// that a seed gives the same inputs whatever the timing. Each input's
    /// generator derives from the seed and its index, `next_index` on.
    fn round(&self, pool: &[Seed], invalid: &[Seed], next_index: &mut u64) -> Vec<Vec<Input>> {
        let mut batches: Vec<Vec<Input>> = Vec::new();
        for _ in 0..self.options.jobs.max(1) {
            let mut batch = Vec::new();
            while batch.len() < self.options.batch
                && self
                    .options
                    .inputs
                    .is_none_or(|limit| (*next_index as usize) < limit)
            {
                let mut rng = Rng::derive(self.options.seed, *next_index);
                *next_index += 1;
                let base = if !invalid.is_empty() && rng.chance(1, 16) {
                    &invalid[rng.below(invalid.len())]
                } else {
                    &pool[rng.below(pool.len())]
                };
                let donors: Vec<&str> = (0..3)
                    .map(|_| pool[rng.below(pool.len())].text.as_str())
                    .collect();
                let Some(Mutant { text, mutations }) =
                    mutate::mutate(&mut rng, &base.text, &donors)
                else {
                    continue;
                };
                if text.contains(MARKER) {
                    continue;
                }
                batch.push(Input {
                    text,
                    origin: format!("{} + {}", base.origin, mutations.join(", ")),
                    mutations,
                });
            }
            if !batch.is_empty() {
                batches.push(batch);
            }
        }
        batches
    }

    /// Runs a round's batches at once, each in its own scratch directory.
    fn run_round(&self, batches: &[Vec<Input>]) -> Vec<io::Result<BatchOutcome>> {
        thread::scope(|scope| {
            let handles: Vec<_> = batches
                .iter()
                .enumerate()
                .map(|(job, batch)| {
                    let scratch = self.options.work_dir.join(format!("job{job}"));
                    scope.spawn(move || {
                        fs::create_dir_all(&scratch)?;
                        self.run_batch(batch, &scratch)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(io::Error::other("a fuzzing thread panicked")))
                })
                .collect()
        })
    }

    /// Minimizes each finding's input, keeping its signature.
    pub fn minimize_all(
        &self,
        findings: &mut Findings,
        log: &mut dyn FnMut(&str),
    ) -> io::Result<()> {
        if self.options.minimize.tests == 0 {
            return Ok(());
        }
        let checker = self.checker(self.options.work_dir.join("minimize"));
        for finding in findings.iter_mut() {
            let Some(target) = Target::from_name(&finding.target) else {
                continue;
            };
            let split = finding.reproduce.contains("--split-input-file");
            let wanted = finding.signature.clone();
            let mut error = None;
            let input = String::from_utf8_lossy(&finding.input).into_owned();
            let result =
                minimize::minimize(&input, self.options.minimize, &mut |candidate: &str| {
                    match checker.check(target, candidate.as_bytes(), split) {
                        Ok(checked) => checked
                            .finding
                            .is_some_and(|(signature, _)| signature == wanted),
                        Err(e) => {
                            error.get_or_insert(e);
                            false
                        }
                    }
                });
            if let Some(error) = error {
                return Err(error);
            }
            log(&format!(
                "compiler: minimized {} from {} to {} bytes in {} tests{}",
                finding.name(),
                finding.input.len(),
                result.text.len(),
                result.tests,
                if result.reproduced {
                    ""
                } else {
                    " (did not reproduce alone)"
                }
            ));
            if result.reproduced {
                if let Ok(checked) = checker.check(target, result.text.as_bytes(), split)
                    && let Some((_, detail)) = checked.finding
                {
                    finding.detail = detail;
                }
                finding.minimized = Some(result.text.into_bytes());
            }
        }
        Ok(())
    }
}
