//! Runs the coverage-guided decoder fuzzer (libfuzzer/decode.rs, libFuzzer
//! built on stable Rust with SanitizerCoverage) for a time budget, and turns
//! what it saves into findings. Its corpus stays in `<out>/libfuzzer/corpus`,
//! so coverage accumulates from run to run.

use std::{
    fs, io,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use crate::{
    protocol::decoder::{self, Decoder},
    shared::findings::{Finding, Findings, excerpt},
    shared::signature::{Kind, Signature, normalize},
};

#[derive(Debug, Default)]
pub struct Report {
    pub executions: u64,
    /// Coverage counters (libFuzzer's `cov:` and `ft:`) at the end.
    pub coverage: u64,
    pub features: u64,
    pub corpus: u64,
    pub runs: usize,
    pub findings: Findings,
    pub elapsed: Duration,
}

impl Report {
    pub fn summary(&self) -> String {
        format!(
            "{} executions in {} run{}, coverage {} edges ({} features), corpus {}",
            self.executions,
            self.runs,
            if self.runs == 1 { "" } else { "s" },
            self.coverage,
            self.features,
            self.corpus
        )
    }
}

/// The number after `key` in libFuzzer's status lines (`cov: 123`).
fn last_number(text: &str, key: &str) -> Option<u64> {
    text.rmatch_indices(key).next().and_then(|(at, _)| {
        text[at + key.len()..]
            .split_whitespace()
            .next()
            .and_then(|word| word.split('/').next())
            .and_then(|number| number.parse().ok())
    })
}

/// The finding an artifact is: the decoder's own when its oracles reproduce
/// it, else what libFuzzer said (a crash, a timeout, out of memory).
fn artifact_finding(path: &Path, stderr: &str) -> io::Result<Finding> {
    let data = fs::read(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some((&selector, bytes)) = data.split_first() {
        let decoder = Decoder::ALL[usize::from(selector) % Decoder::ALL.len()];
        if let Err((signature, detail)) = decoder::check(decoder, bytes) {
            return Ok(Finding {
                target: decoder.target().to_owned(),
                signature,
                input: bytes.to_vec(),
                extension: "bin",
                reproduce: format!(
                    "target/release/executor-fuzz replay {} INPUT",
                    decoder.target()
                ),
                detail: excerpt(&detail, 40),
                origin: format!("libFuzzer artifact {name}"),
                minimized: None,
                count: 1,
                known: None,
            });
        }
    }
    let kind = if name.starts_with("timeout") {
        Kind::Timeout
    } else {
        Kind::Crash
    };
    let message = stderr
        .lines()
        .find(|line| line.contains("ERROR: libFuzzer") || line.contains("panicked at"))
        .unwrap_or("libFuzzer saved an input that the decoder's checks do not fail");
    Ok(Finding {
        target: "libfuzzer-decode".into(),
        signature: Signature {
            kind,
            text: normalize(message),
        },
        input: data,
        extension: "bin",
        reproduce: "target/fuzz/libfuzzer-build/*/release/decode INPUT".into(),
        detail: excerpt(stderr, 40),
        origin: format!("libFuzzer artifact {name}"),
        minimized: None,
        count: 1,
        known: None,
    })
}

/// Runs `binary` for `time` (again after each crash, three runs at most).
pub fn fuzz(binary: &Path, out: &Path, seed: u64, time: Duration) -> io::Result<Report> {
    let started = Instant::now();
    let dir = out.join("libfuzzer");
    let corpus = dir.join("corpus");
    let seeds = dir.join("seeds");
    let artifacts = dir.join("artifacts");
    // The corpus stays; artifacts are this run's only (an earlier run's may
    // be about an oracle since changed).
    if artifacts.exists() {
        fs::remove_dir_all(&artifacts)?;
    }
    for path in [&corpus, &seeds, &artifacts] {
        fs::create_dir_all(path)?;
    }
    for (index, input) in decoder::libfuzzer_seeds().iter().enumerate() {
        fs::write(seeds.join(format!("seed-{index:02}")), input)?;
    }
    let mut report = Report::default();
    let mut seen: Vec<PathBuf> = Vec::new();
    while report.runs < 3 {
        let left = time.saturating_sub(started.elapsed());
        if left < Duration::from_secs(2) {
            break;
        }
        report.runs += 1;
        let output = Command::new(binary)
            .arg(format!("-seed={}", seed + report.runs as u64))
            .arg(format!("-max_total_time={}", left.as_secs()))
            .arg("-timeout=10")
            .arg("-rss_limit_mb=4096")
            .arg("-print_final_stats=1")
            .arg(format!("-artifact_prefix={}/", artifacts.display()))
            .arg(&corpus)
            .arg(&seeds)
            .stdin(Stdio::null())
            .output()?;
        let stderr = String::from_utf8_lossy(&output.stderr);
        report.executions += last_number(&stderr, "stat::number_of_executed_units:").unwrap_or(0);
        report.coverage = last_number(&stderr, "cov:").unwrap_or(report.coverage);
        report.features = last_number(&stderr, "ft:").unwrap_or(report.features);
        report.corpus = last_number(&stderr, "corp:").unwrap_or(report.corpus);
        fs::write(
            dir.join(format!("run-{}.log", report.runs)),
            stderr.as_bytes(),
        )?;
        let mut new_artifacts: Vec<PathBuf> = fs::read_dir(&artifacts)?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| !seen.contains(path))
            .collect();
        new_artifacts.sort();
        for path in &new_artifacts {
            report.findings.add(artifact_finding(path, &stderr)?);
        }
        seen.extend(new_artifacts);
        if output.status.success() {
            break;
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_status_lines() {
        let stderr = "#2\tINITED cov: 10 ft: 12 corp: 3/40b exec/s: 0\n#9000\tDONE   cov: 250 ft: 900 corp: 77/3kb\nstat::number_of_executed_units: 9001\n";
        assert_eq!(last_number(stderr, "cov:"), Some(250));
        assert_eq!(last_number(stderr, "ft:"), Some(900));
        assert_eq!(last_number(stderr, "corp:"), Some(77));
        assert_eq!(
            last_number(stderr, "stat::number_of_executed_units:"),
            Some(9001)
        );
        assert_eq!(last_number(stderr, "nope:"), None);
    }
}
