//! The ABI's written copies, `include/executor_runtime.h` and
//! `docs/runtime-abi.md`, say what this crate defines.

use executor_abi::{
    BinaryFormat, EntryConvention, call_buffer, descriptor, functions, launch_site,
};

fn read(path: &str) -> String {
    let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"))
}

/// C source without comments, every run of white space one space.
fn c_tokens(source: &str) -> String {
    let mut text = String::new();
    let mut rest = source;
    while let Some(start) = rest.find("/*") {
        text.push_str(&rest[..start]);
        let end = rest[start..].find("*/").expect("comments are closed");
        rest = &rest[start + end + 2..];
    }
    text.push_str(rest);
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// C source, comments included, every run of white space and comment
/// leaders (` * `) one space.
fn c_tokens_and_comments(source: &str) -> String {
    source
        .split_whitespace()
        .filter(|word| *word != "*")
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn the_header_declares_exactly_the_runtime_functions() {
    let header = c_tokens(&read("include/executor_runtime.h"));
    for function in functions::RUNTIME {
        let declaration = function.c_declaration();
        assert!(
            header.contains(&declaration),
            "include/executor_runtime.h does not declare `{declaration}`"
        );
    }
    // `__catalyst__executor__open` and `__executor__launch_at_site` alike.
    let declared = header.matches("__executor__").count();
    assert_eq!(
        declared,
        functions::RUNTIME.len(),
        "include/executor_runtime.h declares other __executor__ functions"
    );
}

#[test]
fn the_documented_function_table_matches() {
    let doc = read("docs/runtime-abi.md");
    for function in functions::RUNTIME {
        let declaration = function.c_declaration();
        let row = format!(
            "| `{}` | `{}` |",
            declaration.trim_end_matches(';'),
            function.llvm_signature()
        );
        assert!(
            doc.contains(&row),
            "docs/runtime-abi.md lacks the row {row}"
        );
    }
}

#[test]
fn the_documented_layouts_match() {
    let doc = read("docs/runtime-abi.md");
    assert!(
        doc.contains(call_buffer::GRAMMAR),
        "docs/runtime-abi.md does not show the call-buffer grammar:\n{}",
        call_buffer::GRAMMAR
    );
    assert!(
        doc.contains(call_buffer::CATALYST_GRAMMAR),
        "docs/runtime-abi.md does not show Catalyst's call-buffer layout:\n{}",
        call_buffer::CATALYST_GRAMMAR
    );
    let magic = format!("0x{:016X}", call_buffer::MAGIC);
    assert!(
        doc.contains(&magic),
        "docs/runtime-abi.md does not give the magic {magic}"
    );
    let version = format!("version {}", call_buffer::LAYOUT_VERSION);
    assert!(
        doc.contains(&version),
        "docs/runtime-abi.md does not name {version}"
    );
    let cache = format!(
        "{} words of {} bytes (`executor_abi::launch_site::CACHE_WORDS`)",
        launch_site::CACHE_WORDS,
        descriptor::WORD_BYTES
    );
    assert!(
        doc.contains(&cache),
        "docs/runtime-abi.md does not give a launch site's cache size: {cache}"
    );
    let header = c_tokens_and_comments(&read("include/executor_runtime.h"));
    let block = format!(
        "{}-byte aligned {}-byte block",
        launch_site::ALIGNMENT,
        launch_site::CACHE_WORDS * descriptor::WORD_BYTES
    );
    assert!(
        header.contains(&block),
        "include/executor_runtime.h does not give a launch site's cache size: {block}"
    );
    let site_struct = launch_site_c_struct();
    assert!(
        c_tokens(&read("include/executor_runtime.h")).contains(&site_struct),
        "include/executor_runtime.h does not declare `{site_struct}`"
    );
    assert!(
        c_tokens(&doc).contains(&site_struct),
        "docs/runtime-abi.md does not show `{site_struct}`"
    );
    assert!(
        doc.contains(descriptor::C_STRUCT),
        "docs/runtime-abi.md does not show the descriptor {}",
        descriptor::C_STRUCT
    );
    for convention in EntryConvention::ALL {
        assert!(
            doc.contains(&format!("entry-convention={}", convention.option_value()))
                || convention == EntryConvention::MlirCInterface,
            "docs/runtime-abi.md does not document entry-convention={}",
            convention.option_value()
        );
        assert!(
            doc.contains(convention.prefix()),
            "docs/runtime-abi.md does not name the prefix {}",
            convention.prefix()
        );
    }
}

/// `struct executor_launch_site { ... };` as `executor_abi::launch_site`
/// defines it, in the spelling of [`c_tokens`].
fn launch_site_c_struct() -> String {
    let mut fields = vec![format!("uint64_t cache[{}];", launch_site::CACHE_WORDS)];
    fields.extend(launch_site::DESCRIPTION.iter().map(|(c_type, name)| {
        if c_type.ends_with('*') {
            format!("{c_type}{name};")
        } else {
            format!("{c_type} {name};")
        }
    }));
    c_tokens(&format!(
        "struct {} {{ {} }};",
        launch_site::C_STRUCT_NAME,
        fields.join(" ")
    ))
}

#[test]
fn the_verifier_accepts_exactly_the_binary_formats() {
    let ops = read("td/ExecutorOps.td");
    let values: Vec<String> = BinaryFormat::ALL
        .iter()
        .map(|format| (*format as u32).to_string())
        .collect();
    let predicate = format!("::llvm::is_contained({{{}}}, ", values.join(", "));
    assert!(
        ops.contains(&predicate),
        "td/ExecutorOps.td lacks `{predicate}`"
    );
    let named: Vec<String> = BinaryFormat::ALL
        .iter()
        .map(|format| format!("{} ({})", *format as u32, format.description()))
        .collect();
    let (last, rest) = named.split_last().expect("formats exist");
    let text = format!("whose value is {} or {last}", rest.join(", "));
    assert!(ops.contains(&text), "td/ExecutorOps.td lacks \"{text}\"");
}

#[test]
fn the_header_and_the_protocol_page_give_every_binary_format_its_value() {
    let header = c_tokens_and_comments(&read("include/executor_runtime.h"));
    for format in BinaryFormat::ALL {
        let text = format!("{} ({}:", format as u32, format.description());
        assert!(
            header.contains(&text),
            "include/executor_runtime.h lacks \"{text}\""
        );
    }
    let protocol = read("docs/protocol.md");
    let variants: Vec<String> = BinaryFormat::ALL
        .iter()
        .map(|format| format!("{format:?} /* {} */", *format as u32))
        .collect();
    let declaration = format!("enum BinaryFormat {{ {} }}", variants.join(", "));
    assert!(
        protocol.contains(&declaration),
        "docs/protocol.md lacks `{declaration}`"
    );
}
