//! Findings: deduplicated by target and signature, written under
//! `target/fuzz/findings/<target>-<kind>-<hash>/` with the input that found
//! it, its minimized form and a report; and the list of known findings
//! (`tools/executor-fuzz/known-findings.txt`), bugs already reported and
//! not yet fixed, which do not fail a run.

use std::{
    collections::BTreeMap,
    fmt::Write as _,
    fs, io,
    path::{Path, PathBuf},
};

use crate::shared::signature::{Kind, Signature};

#[derive(Clone, Debug)]
pub struct Finding {
    /// What was fuzzed: `pass`, `pipeline`, `decoder`, `server`, ...
    pub target: String,
    pub signature: Signature,
    /// The input that found it (MLIR text or frame bytes).
    pub input: Vec<u8>,
    /// The file extension of inputs: `mlir` or `bin`.
    pub extension: &'static str,
    /// How to reproduce it: a command line with `INPUT` for the input's path.
    pub reproduce: String,
    /// What the tool said (stderr, or the panic message), shortened.
    pub detail: String,
    /// Where the input came from: its seed and mutations.
    pub origin: String,
    pub minimized: Option<Vec<u8>>,
    /// How many inputs made this same finding.
    pub count: usize,
    /// The note of the known-findings entry it matches.
    pub known: Option<String>,
}

impl Finding {
    pub fn key(&self) -> (String, Signature) {
        (self.target.clone(), self.signature.clone())
    }

    /// `target-kind-hash`, the name of its directory.
    pub fn name(&self) -> String {
        // FNV-1a of the signature: stable across runs and builds.
        let mut hash: u32 = 0x811c_9dc5;
        for byte in self.signature.text.bytes() {
            hash ^= u32::from(byte);
            hash = hash.wrapping_mul(0x0100_0193);
        }
        format!("{}-{}-{hash:08x}", self.target, self.signature.kind.name())
    }

    /// One line: `[new] pass llvm-error "message" (3 inputs)`.
    pub fn summary(&self) -> String {
        format!(
            "[{}] {} {} \"{}\" ({} input{})",
            if self.known.is_some() { "known" } else { "new" },
            self.target,
            self.signature.kind.name(),
            self.signature.text,
            self.count,
            if self.count == 1 { "" } else { "s" }
        )
    }
}

/// Shortens a tool's stderr for a report: its first lines, and not the
/// stack dump's addresses past the first frames.
pub fn excerpt(text: &str, max_lines: usize) -> String {
    let mut out = String::new();
    for line in text.lines().take(max_lines) {
        out.push_str(line.get(..300).unwrap_or(line));
        out.push('\n');
    }
    if text.lines().count() > max_lines {
        out.push_str("...\n");
    }
    out
}

/// Every finding of a run, each once.
#[derive(Debug, Default)]
pub struct Findings {
    by_key: BTreeMap<(String, Signature), Finding>,
}

impl Findings {
    /// Records `finding`; true when it is the first with its key.
    pub fn add(&mut self, finding: Finding) -> bool {
        match self.by_key.get_mut(&finding.key()) {
            Some(existing) => {
                existing.count += finding.count;
                // Keep the smallest input: it minimizes fastest.
                if finding.input.len() < existing.input.len() {
                    existing.input = finding.input;
                    existing.origin = finding.origin;
                    existing.detail = finding.detail;
                }
                false
            }
            None => {
                self.by_key.insert(finding.key(), finding);
                true
            }
        }
    }

    pub fn merge(&mut self, other: Findings) {
        for finding in other.by_key.into_values() {
            self.add(finding);
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Finding> {
        self.by_key.values()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Finding> {
        self.by_key.values_mut()
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Findings that match no known-findings entry.
    pub fn new_ones(&self) -> Vec<&Finding> {
        self.iter().filter(|f| f.known.is_none()).collect()
    }

    pub fn mark_known(&mut self, known: &Known) {
        for finding in self.by_key.values_mut() {
            finding.known = known.matching(finding).map(str::to_owned);
        }
    }
}

/// An entry of the known-findings list.
#[derive(Clone, Debug, PartialEq, Eq)]
struct KnownEntry {
    /// A target name, or `*` for any.
    target: String,
    kind: Kind,
    /// Part of the signature's text.
    contains: String,
    note: String,
}

/// The known-findings list: one entry a line,
/// `<target or *> <kind> <text the signature contains> # why`, `#` comments.
#[derive(Clone, Debug, Default)]
pub struct Known {
    entries: Vec<KnownEntry>,
}

impl Known {
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut entries = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let (content, note) = match line.find(" # ") {
                Some(at) => (&line[..at], line[at + 3..].trim()),
                None => (line, ""),
            };
            let content = content.trim();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let mut parts = content.splitn(3, ' ');
            let (Some(target), Some(kind), Some(contains)) =
                (parts.next(), parts.next(), parts.next())
            else {
                return Err(format!(
                    "line {}: expected `<target> <kind> <text>`",
                    number + 1
                ));
            };
            let kind = Kind::from_name(kind)
                .ok_or_else(|| format!("line {}: unknown kind {kind}", number + 1))?;
            entries.push(KnownEntry {
                target: target.to_owned(),
                kind,
                contains: contains.trim().to_owned(),
                note: note.to_owned(),
            });
        }
        Ok(Self { entries })
    }

    pub fn load(path: &Path) -> Result<Self, String> {
        match fs::read_to_string(path) {
            Ok(text) => Self::parse(&text).map_err(|e| format!("{}: {e}", path.display())),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(Self::default()),
            Err(error) => Err(format!("{}: {error}", path.display())),
        }
    }

    /// The note of the first entry `finding` matches.
    pub fn matching(&self, finding: &Finding) -> Option<&str> {
        self.entries
            .iter()
            .find(|entry| {
                (entry.target == "*" || entry.target == finding.target)
                    && entry.kind == finding.signature.kind
                    && finding.signature.text.contains(&entry.contains)
            })
            .map(|entry| entry.note.as_str())
    }
}

/// Writes a finding's directory under `dir`: `input.<ext>`, `minimized.<ext>`
/// (when minimized) and `report.txt`. Returns the directory.
pub fn write(dir: &Path, finding: &Finding) -> io::Result<PathBuf> {
    let path = dir.join(finding.name());
    fs::create_dir_all(&path)?;
    let input = path.join(format!("input.{}", finding.extension));
    fs::write(&input, &finding.input)?;
    let mut report = String::new();
    let _ = writeln!(report, "target:    {}", finding.target);
    let _ = writeln!(report, "kind:      {}", finding.signature.kind.name());
    let _ = writeln!(report, "signature: {}", finding.signature.text);
    let _ = writeln!(report, "inputs:    {}", finding.count);
    if let Some(note) = &finding.known {
        let _ = writeln!(report, "known:     {note}");
    }
    let _ = writeln!(report, "origin:    {}", finding.origin);
    let reproducer = match &finding.minimized {
        Some(minimized) => {
            let file = path.join(format!("minimized.{}", finding.extension));
            fs::write(&file, minimized)?;
            file
        }
        None => input.clone(),
    };
    let _ = writeln!(
        report,
        "reproduce: {}",
        finding
            .reproduce
            .replace("INPUT", &reproducer.display().to_string())
    );
    let _ = writeln!(report, "\n{}", finding.detail.trim_end());
    if let Some(minimized) = &finding.minimized {
        if finding.extension == "mlir" {
            let _ = writeln!(
                report,
                "\nminimized input:\n{}",
                String::from_utf8_lossy(minimized)
            );
        } else {
            let _ = writeln!(
                report,
                "\nminimized input ({} bytes): {}",
                minimized.len(),
                hex(minimized)
            );
        }
    }
    fs::write(path.join("report.txt"), report)?;
    Ok(path)
}

pub fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 3);
    for (index, byte) in bytes.iter().enumerate() {
        if index > 0 {
            out.push(' ');
        }
        let _ = write!(out, "{byte:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(target: &str, kind: Kind, text: &str) -> Finding {
        Finding {
            target: target.into(),
            signature: Signature {
                kind,
                text: text.into(),
            },
            input: b"x".to_vec(),
            extension: "mlir",
            reproduce: "tool INPUT".into(),
            detail: String::new(),
            origin: String::new(),
            minimized: None,
            count: 1,
            known: None,
        }
    }

    #[test]
    fn findings_are_counted_once_per_target_and_signature() {
        let mut findings = Findings::default();
        assert!(findings.add(finding("pass", Kind::Crash, "SIGSEGV f")));
        assert!(!findings.add(finding("pass", Kind::Crash, "SIGSEGV f")));
        assert!(findings.add(finding("pipeline", Kind::Crash, "SIGSEGV f")));
        assert_eq!(findings.len(), 2);
        assert_eq!(findings.iter().next().unwrap().count, 2);
    }

    #[test]
    fn known_entries_match_by_target_kind_and_text() {
        let known = Known::parse("# comment\n* llvm-error storage uniquer isn't initialized # issue: the dialect\npass crash SIGSEGV\n").unwrap();
        let mut findings = Findings::default();
        findings.add(finding(
            "pipeline",
            Kind::LlvmError,
            "can't create type: storage uniquer isn't initialized",
        ));
        findings.add(finding("pass", Kind::Crash, "SIGSEGV lower"));
        findings.add(finding("pipeline", Kind::Crash, "SIGSEGV lower"));
        findings.mark_known(&known);
        let new: Vec<String> = findings
            .new_ones()
            .iter()
            .map(|f| f.target.clone())
            .collect();
        assert_eq!(new, vec!["pipeline".to_owned()]);
        assert!(Known::parse("pass nonsense x").is_err());
        assert!(Known::parse("pass crash").is_err());
    }

    #[test]
    fn a_finding_is_written_with_its_reproducer() {
        let dir =
            std::env::temp_dir().join(format!("executor-fuzz-findings-{}", std::process::id()));
        let mut f = finding("pass", Kind::Panic, "boom");
        f.minimized = Some(b"y".to_vec());
        let path = write(&dir, &f).unwrap();
        assert_eq!(fs::read(path.join("minimized.mlir")).unwrap(), b"y");
        let report = fs::read_to_string(path.join("report.txt")).unwrap();
        assert!(
            report.contains("reproduce: tool ") && report.contains("minimized.mlir"),
            "{report}"
        );
        fs::remove_dir_all(dir).unwrap();
    }
}
