//! The seeds of the compiler fuzzer: the project's own `.mlir` files
//! (`test/**/*.mlir` split at `// -----`, `examples/*.mlir`), without their
//! comments (RUN and CHECK lines, expected-error annotations).

use std::{
    fs, io,
    path::{Path, PathBuf},
};

/// One input of the corpus: a chunk of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seed {
    /// `path` relative to the project, and `#n` for the n-th chunk of a split file.
    pub origin: String,
    pub text: String,
}

fn mlir_files(dir: &Path, recursive: bool, files: &mut Vec<PathBuf>) -> io::Result<()> {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)?
        .map(|entry| entry.map(|entry| entry.path()))
        .collect::<io::Result<_>>()?;
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if recursive && path.file_name().is_some_and(|name| name != "Output") {
                mlir_files(&path, recursive, files)?;
            }
        } else if path.extension().is_some_and(|ext| ext == "mlir") {
            files.push(path);
        }
    }
    Ok(())
}

/// Whether a line is the `// -----` that separates lit's split inputs.
pub fn is_split_marker(line: &str) -> bool {
    line.trim_start()
        .strip_prefix("//")
        .is_some_and(|rest| rest.trim_start().starts_with("-----"))
}

/// The chunks of one file, without comment lines, blank runs squeezed; empty
/// chunks dropped.
pub fn split_chunks(text: &str) -> Vec<String> {
    let mut chunks = vec![String::new()];
    for line in text.lines() {
        if is_split_marker(line) {
            chunks.push(String::new());
            continue;
        }
        if line.trim_start().starts_with("//") {
            continue;
        }
        let chunk = chunks.last_mut().expect("never empty");
        if line.trim().is_empty() && (chunk.is_empty() || chunk.ends_with("\n\n")) {
            continue;
        }
        chunk.push_str(line.trim_end());
        chunk.push('\n');
    }
    chunks
        .into_iter()
        .map(|chunk| chunk.trim_end().to_owned() + "\n")
        .filter(|chunk| !chunk.trim().is_empty())
        .collect()
}

/// Every seed under `root/test` and `root/examples`, in a fixed order.
pub fn load(root: &Path) -> io::Result<Vec<Seed>> {
    let mut files = Vec::new();
    mlir_files(&root.join("test"), true, &mut files)?;
    mlir_files(&root.join("examples"), false, &mut files)?;
    let mut seeds = Vec::new();
    for path in files {
        let bytes = fs::read(&path)?;
        let text = String::from_utf8_lossy(&bytes);
        let relative = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let chunks = split_chunks(&text);
        let split = chunks.len() > 1;
        for (index, text) in chunks.into_iter().enumerate() {
            let origin = if split {
                format!("{relative}#{index}")
            } else {
                relative.clone()
            };
            seeds.push(Seed { origin, text });
        }
    }
    Ok(seeds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_lose_comments_and_split_markers() {
        let text = "// RUN: x\nfunc.func @a() {\n  // CHECK: y\n  return\n}\n\n\n// -----\n\n// -----\nfunc.func @b()\n";
        assert_eq!(
            split_chunks(text),
            vec![
                "func.func @a() {\n  return\n}\n".to_owned(),
                "func.func @b()\n".to_owned()
            ]
        );
        assert!(is_split_marker("  //   -----  "));
        assert!(!is_split_marker("%x = \"// -----\""));
    }

    #[test]
    fn the_project_corpus_loads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let seeds = load(&root).unwrap();
        assert!(seeds.len() > 50, "{} seeds", seeds.len());
        assert!(seeds.iter().any(|s| s.origin == "examples/host.mlir"));
        assert!(seeds.iter().any(|s| s.text.contains("executor.launch")));
        assert!(seeds.iter().all(|s| !s.text.contains("// CHECK")));
    }
}
