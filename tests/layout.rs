//! The shape of the Rust sources, checked: no source file runs over
//! [`MAX_LINES`] lines before its tests, and no two files of a crate import
//! each other, directly or around a loop (each file's `crate::`, `super::`
//! and `self::` paths name the files it depends on).

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// The most lines a source file has before its `#[cfg(test)]` module.
const MAX_LINES: usize = 800;

/// The folders whose Rust files are sources (not tests or benchmarks): each
/// crate's `src/`.
fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("src")];
    for parent in ["", "tools"] {
        for entry in fs::read_dir(root.join(parent)).unwrap() {
            let source = entry.unwrap().path().join("src");
            let is_crate = source.parent().unwrap().join("Cargo.toml").is_file();
            if is_crate && source.is_dir() && source != root.join("src") {
                folders.push(source);
            }
        }
    }
    folders.sort();
    folders
}

fn rust_files(folder: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            files.push(path);
        }
    }
}

/// The lines of a file before its test module (a `#[cfg(test)]` module at
/// the top level; a `#[cfg(test)]` helper function is not its tests).
fn lines_before_tests(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&index| {
            lines[index] == "#[cfg(test)]"
                && lines[index + 1..]
                    .iter()
                    .find(|line| !line.starts_with("#["))
                    .is_some_and(|line| line.split_whitespace().any(|word| word == "mod"))
        })
        .unwrap_or(lines.len());
    lines[..end].to_vec()
}

/// The code of a file before its tests, without comments.
fn code_before_tests(text: &str) -> String {
    lines_before_tests(text)
        .into_iter()
        .map(|line| match line.find("//") {
            Some(start) => &line[..start],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The module path of `file` in the crate whose sources are in `source`:
/// `local/mod.rs` and `local.rs` are both `["local"]`, `lib.rs` is `[]`.
fn module_of(source: &Path, file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(source).unwrap().with_extension("");
    let mut path: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        path.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        path.pop();
    }
    path
}

/// Every path a `use` declaration names: `use a::{b, c::{d}}` names `a::b`
/// and `a::c::d`.
fn use_paths(tree: &str, prefix: &[String], paths: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut start = 0;
    let mut parts = Vec::new();
    for (index, character) in tree.char_indices() {
        match character {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&tree[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&tree[start..]);
    for part in parts
        .into_iter()
        .map(str::trim)
        .filter(|part| !part.is_empty())
    {
        let split = |text: &str| -> Vec<String> {
            let mut path = prefix.to_vec();
            path.extend(
                text.split("::")
                    .map(str::trim)
                    .filter(|segment| !segment.is_empty())
                    .map(str::to_owned),
            );
            path
        };
        match (part.find('{'), part.rfind('}')) {
            (Some(open), Some(close)) if open < close => {
                use_paths(&part[open + 1..close], &split(&part[..open]), paths)
            }
            _ => paths.push(split(part.split(" as ").next().unwrap())),
        }
    }
}

/// The paths `code` names that start at `crate`, `super` or `self`.
fn relative_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let mut rest = code;
    // A declaration starts a line: `use`, `pub use`, `pub(crate) use`.
    while let Some(start) = rest.find("use ") {
        let line_start = rest[..start].rfind('\n').map_or(0, |newline| newline + 1);
        let before = rest[line_start..start].trim();
        let declaration = &rest[start + 4..];
        let end = declaration.find(';').unwrap_or(declaration.len());
        if before.is_empty() || before.starts_with("pub") {
            use_paths(&declaration[..end], &[], &mut paths);
        }
        rest = &declaration[end..];
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .collect();
    for word in words {
        // `super::{a, b}` ends with `::`: a `use` tree, read above.
        let is_path = ["crate::", "super::", "self::"]
            .iter()
            .any(|start| word.starts_with(start));
        if is_path && !word.ends_with("::") {
            paths.push(word.split("::").map(str::to_owned).collect());
        }
    }
    paths
        .into_iter()
        .filter(|path| {
            matches!(
                path.first().map(String::as_str),
                Some("crate" | "super" | "self")
            )
        })
        .collect()
}

/// The file each path names, from the file whose module is `module`: the
/// longest prefix of the path that is a module of the crate.
fn target_module(
    path: &[String],
    module: &[String],
    modules: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut base = module.to_vec();
    let mut segments = path;
    if segments.first().map(String::as_str) == Some("crate") {
        base.clear();
        segments = &segments[1..];
    }
    while let Some(first) = segments.first() {
        match first.as_str() {
            "super" => {
                base.pop();
            }
            "self" => {}
            _ => break,
        }
        segments = &segments[1..];
    }
    base.extend(segments.iter().cloned());
    (0..=base.len())
        .rev()
        .map(|length| base[..length].to_vec())
        .find(|prefix| modules.contains_key(prefix))
}

/// The groups of files of the crate in `source` that import each other
/// around a loop (Tarjan's strongly connected components of more than one).
fn import_cycles(source: &Path) -> Vec<Vec<PathBuf>> {
    let mut files = Vec::new();
    rust_files(source, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|file| (module_of(source, file), file.clone()))
        .collect();
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for file in &files {
        let module = module_of(source, file);
        let code = code_before_tests(&fs::read_to_string(file).unwrap());
        let targets = relative_paths(&code)
            .iter()
            .filter_map(|path| target_module(path, &module, &modules))
            .map(|target| modules[&target].clone())
            .filter(|target| target != file)
            .collect();
        edges.insert(file.clone(), targets);
    }
    strongly_connected(&edges)
        .into_iter()
        .filter(|component| component.len() > 1)
        .collect()
}

fn strongly_connected(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    struct Search<'a> {
        edges: &'a BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        index: BTreeMap<&'a PathBuf, usize>,
        low: BTreeMap<&'a PathBuf, usize>,
        stack: Vec<&'a PathBuf>,
        components: Vec<Vec<PathBuf>>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, node: &'a PathBuf) {
            let order = self.index.len();
            self.index.insert(node, order);
            self.low.insert(node, order);
            self.stack.push(node);
            for next in &self.edges[node] {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.stack.contains(&next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    component.push(member.clone());
                    if member == node {
                        break;
                    }
                }
                self.components.push(component);
            }
        }
    }
    let mut search = Search {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for node in edges.keys() {
        if !search.index.contains_key(node) {
            search.visit(node);
        }
    }
    search.components
}

#[test]
fn no_source_file_is_over_the_limit_before_its_tests() {
    let mut over = Vec::new();
    for source in crate_sources() {
        let mut files = Vec::new();
        rust_files(&source, &mut files);
        for file in files {
            let text = fs::read_to_string(&file).unwrap();
            let lines = lines_before_tests(&text).len();
            if lines > MAX_LINES {
                over.push(format!("{}: {lines} lines", file.display()));
            }
        }
    }
    assert!(
        over.is_empty(),
        "over {MAX_LINES} lines before the tests (split the file by job):\n{}",
        over.join("\n")
    );
}

#[test]
fn no_two_files_of_a_crate_import_each_other() {
    let cycles: Vec<String> = crate_sources()
        .iter()
        .flat_map(|source| import_cycles(source))
        .map(|cycle| {
            let names: Vec<String> = cycle
                .iter()
                .map(|file| file.display().to_string())
                .collect();
            names.join(" <-> ")
        })
        .collect();
    assert!(
        cycles.is_empty(),
        "files that import each other:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn a_cycle_between_two_files_is_found() {
    let folder = std::env::temp_dir().join(format!("layout-test-{}", std::process::id()));
    let _ = fs::remove_dir_all(&folder);
    fs::create_dir_all(folder.join("local")).unwrap();
    fs::write(folder.join("lib.rs"), "mod local;\nmod sessions;\n").unwrap();
    fs::write(
        folder.join("sessions.rs"),
        "use crate::local::{fast::run, Other};\n",
    )
    .unwrap();
    fs::write(
        folder.join("local/mod.rs"),
        "pub mod fast;\npub struct Other;\n",
    )
    .unwrap();
    fs::write(
        folder.join("local/fast.rs"),
        "fn f() { crate::sessions::g() }\n",
    )
    .unwrap();
    let cycles = import_cycles(&folder);
    fs::remove_dir_all(&folder).unwrap();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    let mut names: Vec<String> = cycles[0]
        .iter()
        .map(|file| file.strip_prefix(&folder).unwrap().display().to_string())
        .collect();
    names.sort();
    assert_eq!(names, ["local/fast.rs", "sessions.rs"]);
}
