//! Checks that the manual (README.md and docs/) says what the tree does:
//!
//! - the dialect and pass reference in `docs/dialect/` is what `make docs`
//!   generates from `td/` now;
//! - every relative link resolves, to a file and, with a `#fragment`, to a
//!   heading of that file;
//! - every `make <target>` in code names a target of the Makefile;
//! - in fenced `sh` blocks, every repository path exists and every `--flag`
//!   given to executor-opt, executor-run, executor-server or executor-ssh is
//!   in that tool's `--help` (`cargo build --release` first, as for
//!   tests/lit.rs).

use std::{
    collections::BTreeSet,
    fs,
    path::{Path, PathBuf},
    process::Command,
};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The directory of this build's binaries (target/release).
fn project_bin() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_executor-opt"))
        .parent()
        .expect("the executor-opt binary lives in a directory")
}

/// README.md and every markdown page under docs/, relative to the root.
fn manual_pages() -> Vec<PathBuf> {
    let mut pages = vec![PathBuf::from("README.md")];
    let mut pending = vec![PathBuf::from("docs")];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(root().join(&dir)).expect("docs/ is readable") {
            let name = entry.expect("a docs/ entry").file_name();
            let path = dir.join(name);
            if root().join(&path).is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "md") {
                pages.push(path);
            }
        }
    }
    pages.sort();
    pages
}

fn read(page: &Path) -> String {
    fs::read_to_string(root().join(page))
        .unwrap_or_else(|error| panic!("cannot read {}: {error}", page.display()))
}

/// A page's lines outside fenced code blocks, and its fenced blocks with their
/// info strings (`sh`, `mlir`, ...).
struct Page {
    prose: Vec<String>,
    blocks: Vec<(String, String)>,
}

fn split_fences(text: &str) -> Page {
    let mut page = Page {
        prose: Vec::new(),
        blocks: Vec::new(),
    };
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => open = Some((info.trim().to_string(), String::new())),
            (Some(_), Some(_)) => page.blocks.push(open.take().expect("a block is open")),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => page.prose.push(line.to_string()),
        }
    }
    page
}

/// The line without its inline code spans, whose brackets are no links.
fn without_code_spans(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The inline code spans of the line.
fn code_spans(line: &str) -> impl Iterator<Item = &str> {
    line.split('`').skip(1).step_by(2)
}

/// The targets of the `[text](target)` links of a line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let Some(end) = after.find(')') else { break };
        targets.push(after[..end].to_string());
        rest = &after[end..];
    }
    targets
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces to
/// hyphens.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(page: &Path) -> BTreeSet<String> {
    split_fences(&read(page))
        .prose
        .iter()
        .filter_map(|line| line.strip_prefix('#'))
        .map(|heading| anchor(heading.trim_start_matches('#')))
        .collect()
}

#[test]
fn generated_reference_is_current() {
    let generated = project_bin().join("docs-check");
    fs::create_dir_all(&generated).expect("cannot create the docs-check directory");
    let status = Command::new("make")
        .current_dir(root())
        .args(["--no-print-directory", "docs"])
        .arg(format!("DIALECT_DOCS={}", generated.display()))
        .status()
        .expect("cannot run make");
    assert!(status.success(), "`make docs` failed (see above)");
    for entry in fs::read_dir(&generated).expect("the generated pages") {
        let name = entry.expect("a generated page").file_name();
        let fresh = fs::read_to_string(generated.join(&name)).expect("a generated page");
        let committed_path = Path::new("docs/dialect").join(&name);
        let committed = fs::read_to_string(root().join(&committed_path)).unwrap_or_default();
        assert!(
            fresh == committed,
            "{} differs from what td/ generates: run `make docs` and commit it",
            committed_path.display()
        );
    }
}

#[test]
fn relative_links_resolve() {
    let mut broken = Vec::new();
    for page in manual_pages() {
        let dir = page.parent().expect("a page has a directory");
        for line in split_fences(&read(&page)).prose {
            for target in link_targets(&without_code_spans(&line)) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, fragment) = target.split_once('#').unwrap_or((&target, ""));
                let linked = if file.is_empty() {
                    page.clone()
                } else {
                    dir.join(file)
                };
                if !root().join(&linked).exists() {
                    broken.push(format!("{}: {target} (no such file)", page.display()));
                } else if !fragment.is_empty()
                    && linked.extension().is_some_and(|ext| ext == "md")
                    && !anchors(&linked).contains(fragment)
                {
                    broken.push(format!("{}: {target} (no such heading)", page.display()));
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn make_targets_exist() {
    let makefile = read(Path::new("Makefile"));
    let targets: BTreeSet<&str> = makefile
        .lines()
        .filter_map(|line| line.split_once(':').map(|(name, _)| name))
        .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .collect();
    let mut missing = Vec::new();
    for page in manual_pages() {
        let split = split_fences(&read(&page));
        let code = split
            .prose
            .iter()
            .flat_map(|line| code_spans(line).map(str::to_string).collect::<Vec<_>>())
            .chain(split.blocks.into_iter().map(|(_, body)| body));
        for text in code {
            let words: Vec<&str> = text.split_whitespace().collect();
            for pair in words.windows(2) {
                let target = pair[1].trim_end_matches([';', ')', ',']);
                if pair[0] == "make"
                    && !target.starts_with('-')
                    && !target.contains('=')
                    && !targets.contains(target)
                {
                    missing.push(format!("{}: make {target}", page.display()));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "make targets the Makefile does not have:\n{}",
        missing.join("\n")
    );
}

/// The tools whose flags the `sh` blocks are checked against, and where each is.
const TOOLS: [(&str, &str); 4] = [
    ("executor-opt", "target/release/executor-opt"),
    ("executor-run", "target/release/executor-run"),
    ("executor-server", "target/release/executor-server"),
    ("executor-ssh", "scripts/executor-ssh"),
];

fn help(tool: &str) -> String {
    // target/release is this build's, wherever CARGO_TARGET_DIR puts it.
    let binary = match tool.strip_prefix("target/release/") {
        Some(name) => project_bin().join(name),
        None => root().join(tool),
    };
    let output = Command::new(&binary)
        .arg("--help")
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "cannot run {}: {error} (cargo build --release first)",
                binary.display()
            )
        });
    String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr)
}

/// Whether `--flag` appears in the help text as a whole word (`--check`, not
/// the start of `--checked`).
fn offers_flag(help: &str, flag: &str) -> bool {
    let spelled = format!("--{flag}");
    help.match_indices(&spelled).any(|(at, _)| {
        help[at + spelled.len()..]
            .chars()
            .next()
            .is_none_or(|next| !(next.is_alphanumeric() || next == '-' || next == '_'))
    })
}

/// The commands of an `sh` block: its lines with their `\` continuations
/// joined, comments dropped, split at pipes and command separators.
fn commands(block: &str) -> Vec<String> {
    let joined = block.replace("\\\n", " ");
    joined
        .lines()
        .map(|line| line.split(" #").next().unwrap_or(""))
        .filter(|line| !line.trim_start().starts_with('#'))
        .flat_map(|line| {
            line.split(['|', ';', '&'])
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn sh_blocks_name_real_paths_and_flags() {
    let helps: Vec<(&str, String)> = TOOLS
        .iter()
        .map(|(name, path)| (*name, help(path)))
        .collect();
    let mut wrong = Vec::new();
    for page in manual_pages() {
        for (info, body) in split_fences(&read(&page)).blocks {
            if info != "sh" {
                continue;
            }
            for command in commands(&body) {
                let words: Vec<&str> = command
                    .split_whitespace()
                    .map(|word| word.trim_start_matches('$').trim_matches(['\'', '"']))
                    .collect();
                for word in &words {
                    let repository_path =
                        ["scripts/", "examples/", "td/", "docs/", "test/", "bench/"]
                            .iter()
                            .any(|prefix| word.starts_with(prefix));
                    if repository_path && !root().join(word).exists() {
                        wrong.push(format!("{}: {word} does not exist", page.display()));
                    }
                }
                // Each tool's flags run up to the next tool or a bare `--`
                // (after which executor-ssh's command begins).
                let mut tool = None;
                for word in &words {
                    if let Some((name, _)) = TOOLS
                        .iter()
                        .find(|(name, _)| word.ends_with(&format!("/{name}")))
                    {
                        tool = Some(*name);
                    } else if *word == "--" {
                        tool = None;
                    } else if let (Some(name), Some(flag)) = (tool, word.strip_prefix("--")) {
                        let flag = flag.split('=').next().expect("a flag name");
                        let help = &helps
                            .iter()
                            .find(|(tool, _)| *tool == name)
                            .expect("a tool")
                            .1;
                        if !offers_flag(help, flag) {
                            wrong.push(format!("{}: {name} has no --{flag}", page.display()));
                        }
                    }
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "sh blocks that do not run as written:\n{}",
        wrong.join("\n")
    );
}
