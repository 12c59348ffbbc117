//! split_object on objects compiled by LLVM's llc.

use super::{
    LOCAL_ALIAS_PREFIX, ObjectBytes, SplitObject,
    elf::{SECTION_HEADER_SIZE, Table, string_at, u16_at, u32_at, u64_at},
};
use crate::local::jit::{Jit, Missing};
use std::{path::Path, process::Command};

/// Two functions share an internal helper and an internal global; a
/// third uses a constant from a constant pool.
const SHARED_STATE: &str = r#"
@calls = internal global i64 0
define internal i64 @bump(i64 %by) {
  %before = load i64, ptr @calls
  %after = add i64 %before, %by
  store i64 %after, ptr @calls
  ret i64 %after
}
define i64 @tens() {
  %r = call i64 @bump(i64 10)
  ret i64 %r
}
define i64 @hundreds() {
  %r = call i64 @bump(i64 100)
  ret i64 %r
}
define double @constant() {
  ret double 1.5
}
"#;

/// Two functions that use an internal global directly (32-bit PC-relative,
/// as code of one object may).
const SHARED_GLOBAL: &str = r#"
@total = internal global i64 0
define i64 @tens() {
  %before = load i64, ptr @total
  %after = add i64 %before, 10
  store i64 %after, ptr @total
  ret i64 %after
}
define i64 @hundreds() {
  %before = load i64, ptr @total
  %after = add i64 %before, 100
  store i64 %after, ptr @total
  ret i64 %after
}
"#;

/// An initializer, which runs when the object is loaded.
const WITH_INITIALIZER: &str = r#"
@llvm.global_ctors = appending global [1 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 65535, ptr @init, ptr null }]
define internal void @init() {
  ret void
}
define void @first() {
  ret void
}
define void @second() {
  ret void
}
"#;

/// `ir` compiled by LLVM's llc to an x86-64 object file.
fn compile(ir: &str, function_sections: bool) -> Vec<u8> {
    let directory = tempfile::tempdir().expect("a scratch directory");
    let source = directory.path().join("input.ll");
    let object = directory.path().join("output.o");
    std::fs::write(&source, ir).expect("the IR is written");
    let llc = Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin/llc");
    let mut command = Command::new(llc);
    command.args([
        "-filetype=obj",
        "-relocation-model=pic",
        "-mtriple=x86_64-unknown-linux-gnu",
    ]);
    if function_sections {
        command.arg("--function-sections");
    }
    let status = command
        .arg("-o")
        .arg(&object)
        .arg(&source)
        .status()
        .expect("llc runs");
    assert!(status.success(), "llc failed");
    std::fs::read(object).expect("llc wrote the object")
}

/// The names in an ELF object's section header table.
fn section_names(object: &[u8]) -> Vec<String> {
    let table = u64_at(object, 40).unwrap() as usize;
    let count = usize::from(u16_at(object, 60).unwrap());
    let names_header = table + usize::from(u16_at(object, 62).unwrap()) * SECTION_HEADER_SIZE;
    let names = Table {
        offset: u64_at(object, names_header + 24).unwrap() as usize,
        size: u64_at(object, names_header + 32).unwrap() as usize,
    };
    (0..count)
        .map(|index| {
            let name = u32_at(object, table + index * SECTION_HEADER_SIZE).unwrap();
            String::from_utf8(string_at(object, names, name).unwrap().to_vec()).unwrap()
        })
        .collect()
}

/// Whether the object's string tables hold `name`.
fn mentions(object: &[u8], name: &str) -> bool {
    let needle = [b"\0", name.as_bytes(), b"\0"].concat();
    object.windows(needle.len()).any(|window| window == needle)
}

/// SHARED_STATE compiled with function sections, split.
fn split_shared_state() -> SplitObject {
    let Ok(object) = SplitObject::new(ObjectBytes::Owned(compile(SHARED_STATE, true))) else {
        panic!("an object with function sections is split");
    };
    object
}

#[test]
fn an_object_without_function_sections_is_linked_whole() {
    assert!(SplitObject::new(ObjectBytes::Owned(compile(SHARED_STATE, false))).is_err());
}

#[test]
fn an_object_with_an_initializer_is_linked_whole() {
    assert!(SplitObject::new(ObjectBytes::Owned(compile(WITH_INITIALIZER, true))).is_err());
}

#[test]
fn a_piece_holds_what_its_symbol_reaches_and_nothing_linked_before() {
    let mut object = split_shared_state();
    let tens = object
        .piece_defining("tens")
        .unwrap()
        .expect("tens is defined");
    let sections = section_names(&tens);
    for expected in [
        ".text.tens",
        ".text.bump",
        ".bss",
        ".eh_frame",
        ".rela.text.tens",
    ] {
        assert!(
            sections.iter().any(|name| name == expected),
            "{expected} not in {sections:?}"
        );
    }
    assert!(
        !sections.iter().any(|name| name == ".text.hundreds"),
        "{sections:?}"
    );
    // `tens` is linked now, and `bump` with it.
    assert!(object.piece_defining("tens").unwrap().is_none());
    let hundreds = object
        .piece_defining("hundreds")
        .unwrap()
        .expect("hundreds is defined");
    let sections = section_names(&hundreds);
    assert!(
        sections.iter().any(|name| name == ".text.hundreds"),
        "{sections:?}"
    );
    assert!(
        !sections
            .iter()
            .any(|name| name == ".text.bump" || name == ".bss"),
        "the helper and the global were linked with tens: {sections:?}"
    );
    // It calls the helper through the alias the first piece defined.
    assert!(
        tens.windows(LOCAL_ALIAS_PREFIX.len())
            .any(|w| w == LOCAL_ALIAS_PREFIX.as_bytes())
    );
    assert!(
        hundreds
            .windows(LOCAL_ALIAS_PREFIX.len())
            .any(|w| w == LOCAL_ALIAS_PREFIX.as_bytes())
    );
    let constant = object
        .piece_defining("constant")
        .unwrap()
        .expect("constant is defined");
    assert!(
        section_names(&constant)
            .iter()
            .any(|name| name.starts_with(".rodata.cst8"))
    );
    assert!(!mentions(&constant, "tens"));
    assert!(object.piece_defining("undefined_here").unwrap().is_none());
}

#[test]
fn damaged_objects_are_refused_or_split_without_panicking() {
    let object = compile(SHARED_STATE, true);
    let mut damaged = Vec::new();
    for length in (0..object.len()).step_by(97) {
        damaged.push(object[..length].to_vec());
    }
    for at in (0..object.len()).step_by(13) {
        for value in [0x00, 0xff, 0x7f] {
            let mut bytes = object.clone();
            bytes[at] = value;
            damaged.push(bytes);
        }
    }
    for bytes in damaged {
        if let Ok(mut split) = SplitObject::new(ObjectBytes::Owned(bytes)) {
            for name in ["tens", "hundreds", "constant", "bump"] {
                let _ = split.piece_defining(name);
            }
        }
    }
}

/// The file offset of the contents of the section called `name`.
fn section_offset(object: &[u8], name: &str) -> usize {
    let table = u64_at(object, 40).unwrap() as usize;
    let index = section_names(object)
        .iter()
        .position(|found| found == name)
        .unwrap_or_else(|| panic!("no section {name}"));
    u64_at(object, table + index * SECTION_HEADER_SIZE + 24).unwrap() as usize
}

#[test]
fn a_relocation_outside_its_section_is_an_error_not_a_piece() {
    let mut object = compile(SHARED_STATE, true);
    // The first relocation of `tens` patches 64 KiB past its code: LLVM's
    // linker would write there, outside the piece's memory.
    let relocations = section_offset(&object, ".rela.text.tens");
    object[relocations..relocations + 8].copy_from_slice(&0x10000u64.to_le_bytes());
    let Ok(mut split) = SplitObject::new(ObjectBytes::Owned(object)) else {
        panic!("the damage is in a relocation, which only a piece reads");
    };
    let error = split
        .piece_defining("tens")
        .expect_err("the relocation is refused");
    assert!(error.contains("outside the section"), "{error}");
}

#[test]
fn a_piece_carries_the_unwind_entries_of_an_eh_frame_written_as_data() {
    let mut object = compile(SHARED_STATE, true);
    // GNU as (gcc's objects) writes `.eh_frame` as SHT_PROGBITS.
    let table = u64_at(&object, 40).unwrap() as usize;
    let index = section_names(&object)
        .iter()
        .position(|name| name == ".eh_frame")
        .expect("llc writes unwind entries");
    let kind = table + index * SECTION_HEADER_SIZE + 4;
    object[kind..kind + 4].copy_from_slice(&1u32.to_le_bytes());
    let Ok(mut split) = SplitObject::new(ObjectBytes::Owned(object)) else {
        panic!("an object with function sections is split");
    };
    let tens = split
        .piece_defining("tens")
        .unwrap()
        .expect("tens is defined");
    let sections = section_names(&tens);
    assert!(
        sections.iter().any(|name| name == ".eh_frame"),
        "{sections:?}"
    );
}

/// Address space taken between two links: `gibibytes` reserved, and every
/// hole above it filled with pages, so that the next mapping comes below
/// it. Released when dropped.
struct AddressSpaceTaken(Vec<(usize, usize)>);

impl AddressSpaceTaken {
    fn new(gibibytes: usize) -> Self {
        let map = |length: usize| {
            // SAFETY: a fresh inaccessible anonymous mapping, released by Drop.
            let address = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    length,
                    libc::PROT_NONE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                    -1,
                    0,
                )
            };
            assert_ne!(address, libc::MAP_FAILED, "mmap");
            (address as usize, length)
        };
        let big = map(gibibytes << 30);
        let mut taken = vec![big];
        loop {
            let page = map(4096);
            taken.push(page);
            if page.0 < big.0 {
                return Self(taken);
            }
        }
    }
}

impl Drop for AddressSpaceTaken {
    fn drop(&mut self) {
        for &(address, length) in &self.0 {
            // SAFETY: unmaps a mapping made by `new`, once.
            unsafe { libc::munmap(address as *mut libc::c_void, length) };
        }
    }
}

#[test]
fn pieces_linked_with_gibibytes_mapped_between_them_reach_each_other() {
    let directory = tempfile::tempdir().unwrap();
    let path = directory.path().join("shared.o");
    std::fs::write(&path, compile(SHARED_GLOBAL, true)).unwrap();
    let mut jit = Jit::new().unwrap();
    let object = jit
        .add_object(
            "shared.o",
            ObjectBytes::Owned(std::fs::read(&path).unwrap()),
        )
        .unwrap();
    let call = |symbol: &str| {
        let address = match jit.lookup(object, symbol) {
            Ok(address) => address,
            Err(Missing::Unlinkable(reason)) => panic!("{symbol} does not link: {reason}"),
            Err(Missing::Undefined) => panic!("{symbol} is not defined"),
        };
        // SAFETY: the JIT-linked `i64 ()` function, live while `jit` is.
        let function: extern "C" fn() -> i64 = unsafe { std::mem::transmute(address) };
        function()
    };
    assert_eq!(call("tens"), 10);
    // A program's buffers (4 GiB here) mapped after the first piece: the
    // second piece reaches the first's helper and global as code linked
    // whole does, 32-bit PC-relative, so it must be mapped near it.
    let _buffers = AddressSpaceTaken::new(4);
    assert_eq!(call("hundreds"), 110);
}

#[test]
fn an_error_naming_a_local_alias_says_what_it_stands_for() {
    let mut object = split_shared_state();
    let tens = object
        .piece_defining("tens")
        .unwrap()
        .expect("tens is defined");
    // The alias by which later pieces call the internal helper `bump`.
    let at = tens
        .windows(LOCAL_ALIAS_PREFIX.len())
        .position(|window| window == LOCAL_ALIAS_PREFIX.as_bytes())
        .expect("the piece defines an alias");
    let digits: String = tens[at + LOCAL_ALIAS_PREFIX.len()..]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .map(|&byte| char::from(byte))
        .collect();
    let alias = format!("{LOCAL_ALIAS_PREFIX}{digits}");
    let message = format!("Failed to materialize symbols: {{ (object 0: k, {{ {alias} }}) }}");
    let explained = object.explain_aliases(&message);
    assert!(explained.starts_with(&message), "{explained}");
    let described = [".text.tens'", ".text.bump'", ".bss'", "'calls'"];
    assert!(
        described.iter().any(
            |name| explained.contains(&format!("{alias} is the object's "))
                && explained.contains(name)
        ),
        "{explained}"
    );
    assert_eq!(object.explain_aliases("no alias here"), "no alias here");
}
