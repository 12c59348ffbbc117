//! A batch's inputs in one file, separated by the marker of
//! `--split-input-file`, with the line each starts at (to tell whose a
//! diagnostic is); and a batch run's output split back into one per input.

use std::{fs, io, path::PathBuf};

use super::{oracle::is_verifier_error, run, stats::Stats, tools::MARKER};
use crate::shared::findings::Findings;

/// An input of a batch.
#[derive(Clone, Debug)]
pub struct Input {
    pub text: String,
    pub origin: String,
    pub mutations: Vec<&'static str>,
}

/// What one batch did.
#[derive(Debug, Default)]
pub(super) struct BatchOutcome {
    pub(super) stats: Stats,
    pub(super) findings: Findings,
    /// For each valid input: what it showed (error messages, op names).
    pub(super) features: Vec<(usize, Vec<String>)>,
}

/// A batch's inputs in one file: their first lines, to attribute diagnostics.
pub(super) struct BatchFile {
    pub(super) path: PathBuf,
    /// The 1-based line each input starts at.
    starts: Vec<usize>,
    pub(super) text: Vec<u8>,
}

pub(super) fn write_batch(path: PathBuf, inputs: &[&[u8]]) -> io::Result<BatchFile> {
    let mut text = Vec::new();
    let mut starts = Vec::with_capacity(inputs.len());
    let mut line = 1;
    for (index, input) in inputs.iter().enumerate() {
        if index > 0 {
            text.extend_from_slice(MARKER.as_bytes());
            text.push(b'\n');
            line += 1;
        }
        starts.push(line);
        text.extend_from_slice(input);
        if !input.ends_with(b"\n") {
            text.push(b'\n');
        }
        line +=
            input.iter().filter(|&&b| b == b'\n').count() + usize::from(!input.ends_with(b"\n"));
    }
    fs::write(&path, &text)?;
    Ok(BatchFile { path, starts, text })
}

impl BatchFile {
    fn input_at(&self, line: usize) -> usize {
        self.starts
            .partition_point(|&start| start <= line)
            .saturating_sub(1)
    }

    /// Each input's first error message.
    pub(super) fn first_errors(&self, stderr: &str) -> Vec<Option<String>> {
        let mut first = vec![None; self.starts.len()];
        for (line, message) in run::errors(stderr) {
            let slot = &mut first[self.input_at(line)];
            if slot.is_none() {
                *slot = Some(message.to_owned());
            }
        }
        first
    }

    /// Each input's verifier errors (see `is_verifier_error`).
    pub(super) fn has_verifier_error(&self, stderr: &str) -> Vec<bool> {
        let mut found = vec![false; self.starts.len()];
        for (line, message) in run::errors(stderr) {
            if is_verifier_error(message) {
                found[self.input_at(line)] = true;
            }
        }
        found
    }
}

/// The outputs of a `--split-input-file` run, one per input (empty where
/// the input failed); None when they do not split into `count`.
pub(super) fn split_output(stdout: &[u8], count: usize) -> Option<Vec<Vec<u8>>> {
    let mut chunks = vec![Vec::new()];
    for line in stdout.split_inclusive(|&b| b == b'\n') {
        if line.strip_suffix(b"\n").unwrap_or(line) == MARKER.as_bytes() {
            chunks.push(Vec::new());
        } else {
            chunks
                .last_mut()
                .expect("never empty")
                .extend_from_slice(line);
        }
    }
    for chunk in &mut chunks {
        while chunk.last().is_some_and(u8::is_ascii_whitespace) {
            chunk.pop();
        }
        let leading = chunk.iter().take_while(|b| b.is_ascii_whitespace()).count();
        chunk.drain(..leading);
    }
    (chunks.len() == count).then_some(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_attribute_lines_to_inputs() {
        let dir = std::env::temp_dir().join(format!("executor-fuzz-batch-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = write_batch(dir.join("b.mlir"), &[b"a\nb\n", b"c\n", b"d\ne\nf"]).unwrap();
        assert_eq!(file.starts, vec![1, 4, 6]);
        let text = String::from_utf8(file.text.clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[file.starts[1] - 1], "c");
        assert_eq!(lines[file.starts[2] - 1], "d");
        assert_eq!(file.input_at(2), 0);
        assert_eq!(file.input_at(5), 1);
        assert_eq!(file.input_at(8), 2);
        let stderr = format!(
            "{}:5:1: error: x\n{}:7:2: error: 'llvm.call' op y\n",
            file.path.display(),
            file.path.display()
        );
        assert_eq!(
            file.first_errors(&stderr),
            vec![None, Some("x".into()), Some("'llvm.call' op y".into())]
        );
        assert_eq!(file.has_verifier_error(&stderr), vec![false, false, true]);
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn outputs_split_at_the_marker() {
        let out = format!("module {{\n}}\n\n{MARKER}\n{MARKER}\nmodule {{\n}}\n");
        let chunks = split_output(out.as_bytes(), 3).unwrap();
        assert_eq!(
            chunks,
            vec![b"module {\n}".to_vec(), vec![], b"module {\n}".to_vec()]
        );
        assert!(split_output(out.as_bytes(), 2).is_none());
    }
}
