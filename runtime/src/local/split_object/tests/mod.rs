//! split_object on objects compiled by LLVM's llc.

use super::{
    Link, ObjectBytes, SECTION_ALIAS_PREFIX, SplitObject,
    elf::{SECTION_HEADER_SIZE, Table, string_at, u16_at, u32_at, u64_at},
};
use crate::local::jit::{Jit, Missing, ObjectIndex};
use std::{path::Path, process::Command};

mod saved;
mod whole;

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

/// Statics and constants shared by many functions, each at an offset in a
/// section of many (`.bss`, `.data` and `.rodata.cst8` without data
/// sections): `bump` increments a counter that `count` reads, `scaled`
/// reads a state object's field that `scale` wrote, and each of `one`,
/// `two` and `three` returns its own constant of the pool.
const SHARED_STATICS: &str = r#"
@padding = internal global [4 x i64] zeroinitializer
@counter = internal global i64 0
@state = internal global { i64, ptr, double } { i64 1, ptr @padding, double 2.0 }
define i64 @bump() {
  %before = load i64, ptr @counter
  %after = add i64 %before, 1
  store i64 %after, ptr @counter
  %unused = load i64, ptr @padding
  ret i64 %after
}
define i64 @count() {
  %value = load i64, ptr @counter
  ret i64 %value
}
define void @scale(double %by) {
  %field = getelementptr { i64, ptr, double }, ptr @state, i32 0, i32 2
  store double %by, ptr %field
  ret void
}
define double @scaled() {
  %field = getelementptr { i64, ptr, double }, ptr @state, i32 0, i32 2
  %value = load double, ptr %field
  ret double %value
}
define double @one() {
  ret double 1.25
}
define double @two() {
  ret double 2.5
}
define double @three() {
  ret double 3.75
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
    let tens = piece_defining(&mut object, "tens")
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
    assert!(piece_defining(&mut object, "tens").unwrap().is_none());
    let hundreds = piece_defining(&mut object, "hundreds")
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
        tens.windows(SECTION_ALIAS_PREFIX.len())
            .any(|w| w == SECTION_ALIAS_PREFIX.as_bytes())
    );
    assert!(
        hundreds
            .windows(SECTION_ALIAS_PREFIX.len())
            .any(|w| w == SECTION_ALIAS_PREFIX.as_bytes())
    );
    let constant = piece_defining(&mut object, "constant")
        .unwrap()
        .expect("constant is defined");
    assert!(
        section_names(&constant)
            .iter()
            .any(|name| name.starts_with(".rodata.cst8"))
    );
    assert!(!mentions(&constant, "tens"));
    assert!(
        piece_defining(&mut object, "undefined_here")
            .unwrap()
            .is_none()
    );
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
                let _ = split.link_defining(name);
            }
        }
    }
}

/// The piece `link_defining` writes for `name`.
fn piece_defining(object: &mut SplitObject, name: &str) -> Result<Option<Vec<u8>>, String> {
    match object.link_defining(name)? {
        None => Ok(None),
        Some(Link::Piece(piece)) => Ok(Some(piece)),
        Some(Link::Whole) => panic!("{name} links the object whole"),
    }
}

/// Where the header of the section called `name` is in the object.
fn section_header(object: &[u8], name: &str) -> usize {
    let table = u64_at(object, 40).unwrap() as usize;
    let index = section_names(object)
        .iter()
        .position(|found| found == name)
        .unwrap_or_else(|| panic!("no section {name}"));
    table + index * SECTION_HEADER_SIZE
}

/// The file offset of the contents of the section called `name`.
fn section_offset(object: &[u8], name: &str) -> usize {
    u64_at(object, section_header(object, name) + 24).unwrap() as usize
}

/// The size of the section called `name`.
fn section_size(object: &[u8], name: &str) -> u64 {
    u64_at(object, section_header(object, name) + 32).unwrap()
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
    let error = piece_defining(&mut split, "tens").expect_err("the relocation is refused");
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
    let tens = piece_defining(&mut split, "tens")
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
    let mut jit = Jit::new().unwrap();
    let object = add_split(&mut jit, "shared.o", SHARED_GLOBAL);
    let call = |symbol: &str| {
        // SAFETY: the JIT-linked `i64 ()` function, live while `jit` is.
        let function: extern "C" fn() -> i64 =
            unsafe { std::mem::transmute(linked(&jit, object, symbol)) };
        function()
    };
    assert_eq!(call("tens"), 10);
    // A program's buffers (4 GiB here) mapped after the first piece: the
    // second piece reaches the first's helper and global as code linked
    // whole does, 32-bit PC-relative, so it must be mapped near it.
    let _buffers = AddressSpaceTaken::new(4);
    assert_eq!(call("hundreds"), 110);
}

/// Two functions that read a local symbol through the GOT, in assembly (a
/// compiler reaches its own locals PC-relative): the first piece carries the
/// symbol, and a later one cannot reach it.
const LOCAL_THROUGH_GOT: &str = r#"
  .section .text.first,"ax",@progbits
  .globl first
first:
  movq value@GOTPCREL(%rip), %rax
  movq (%rax), %rax
  ret
  .section .text.second,"ax",@progbits
  .globl second
second:
  movq value@GOTPCREL(%rip), %rax
  movq (%rax), %rax
  ret
  .data
value:
  .quad 42
"#;

/// A pool of 4-byte constants aligned to 16 bytes, as a linker places each
/// of its entries: `sum` adds the first and the last.
const ALIGNED_POOL: &str = r#"
  .section .text.sum,"ax",@progbits
  .globl sum
sum:
  movl first_constant(%rip), %eax
  addl last_constant(%rip), %eax
  ret
  .section .text.other,"ax",@progbits
  .globl other
other:
  ret
  .section .rodata.cst4,"aM",@progbits,4
  .p2align 4
first_constant:
  .long 40
  .p2align 4
middle_constant:
  .long 1
  .p2align 4
last_constant:
  .long 2
"#;

/// `source` assembled by LLVM's llvm-mc to an x86-64 object file.
fn assemble(source: &str) -> Vec<u8> {
    let directory = tempfile::tempdir().expect("a scratch directory");
    let input = directory.path().join("input.s");
    let object = directory.path().join("output.o");
    std::fs::write(&input, source).expect("the source is written");
    let status = Command::new(Path::new(env!("EXECUTOR_LLVM_PREFIX")).join("bin/llvm-mc"))
        .args(["-filetype=obj", "-triple=x86_64-unknown-linux-gnu", "-o"])
        .arg(&object)
        .arg(&input)
        .status()
        .expect("llvm-mc runs");
    assert!(status.success(), "llvm-mc failed");
    std::fs::read(object).expect("llvm-mc wrote the object")
}

/// `ir` compiled with function sections, added to `jit` as `name`.
fn add_split(jit: &mut Jit, name: &str, ir: &str) -> ObjectIndex {
    jit.add_object(name, ObjectBytes::Owned(compile(ir, true)))
        .unwrap()
}

/// The address of `symbol` in `object`, linked.
fn linked(jit: &Jit, object: ObjectIndex, symbol: &str) -> usize {
    match jit.lookup(object, symbol) {
        Ok(address) => address,
        Err(Missing::Unlinkable(reason)) => panic!("{symbol} does not link: {reason}"),
        Err(Missing::Undefined) => panic!("{symbol} is not defined"),
    }
}

#[test]
fn statics_shared_by_pieces_are_one_object_in_memory() {
    let mut jit = Jit::new().unwrap();
    let object = add_split(&mut jit, "statics.o", SHARED_STATICS);
    let integer = |symbol: &str| {
        // SAFETY: the JIT-linked `i64 ()` function, live while `jit` is.
        let function: extern "C" fn() -> i64 =
            unsafe { std::mem::transmute(linked(&jit, object, symbol)) };
        function()
    };
    let real = |symbol: &str| {
        // SAFETY: the JIT-linked `double ()` function, live while `jit` is.
        let function: extern "C" fn() -> f64 =
            unsafe { std::mem::transmute(linked(&jit, object, symbol)) };
        function()
    };
    // Each launch links its own piece; the second reaches the counter and
    // the state object the first linked, at their offsets in their sections.
    assert_eq!(integer("bump"), 1);
    assert_eq!(integer("bump"), 2);
    assert_eq!(integer("count"), 2);
    // SAFETY: the JIT-linked `void (double)` function, live while `jit` is.
    let scale: extern "C" fn(f64) = unsafe { std::mem::transmute(linked(&jit, object, "scale")) };
    scale(7.5);
    assert_eq!(real("scaled"), 7.5);
    // Each piece's own copy of the pool's constant it returns.
    assert_eq!(real("two"), 2.5);
    assert_eq!(real("three"), 3.75);
    assert_eq!(real("one"), 1.25);
}

#[test]
fn a_piece_copies_the_constants_it_uses_of_a_pool_not_the_pool() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(compile(SHARED_STATICS, true))) else {
        panic!("an object with function sections is split");
    };
    // The pool holds the three functions' constants; each piece copies the
    // one of its function, also after another piece copied another.
    for symbol in ["two", "three", "one"] {
        let piece = piece_defining(&mut object, symbol)
            .unwrap()
            .unwrap_or_else(|| panic!("{symbol} is defined"));
        assert_eq!(
            section_size(&piece, ".rodata.cst8"),
            8,
            "{symbol}: {:?}",
            section_names(&piece)
        );
    }
}

#[test]
fn a_piece_places_each_constant_it_copies_at_its_pools_alignment() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(assemble(ALIGNED_POOL))) else {
        panic!("an object with function sections is split");
    };
    let piece = piece_defining(&mut object, "sum")
        .unwrap()
        .expect("sum is defined");
    // The first constant at 0, the last at 16 (not 4).
    assert_eq!(section_size(&piece, ".rodata.cst4"), 20);
    let mut jit = Jit::new().unwrap();
    let object = jit
        .add_object("pool.o", ObjectBytes::Owned(assemble(ALIGNED_POOL)))
        .unwrap();
    // SAFETY: the JIT-linked `i32 ()` function, live while `jit` is.
    let sum: extern "C" fn() -> i32 = unsafe { std::mem::transmute(linked(&jit, object, "sum")) };
    assert_eq!(sum(), 42);
}

#[test]
fn a_local_reached_through_the_got_links_with_its_piece_only() {
    let mut jit = Jit::new().unwrap();
    let object = jit
        .add_object("got.o", ObjectBytes::Owned(assemble(LOCAL_THROUGH_GOT)))
        .unwrap();
    // SAFETY: the JIT-linked `i64 ()` function, live while `jit` is.
    let first: extern "C" fn() -> i64 =
        unsafe { std::mem::transmute(linked(&jit, object, "first")) };
    assert_eq!(first(), 42);
    match jit.lookup(object, "second") {
        Err(Missing::Unlinkable(reason)) => assert!(
            reason.contains("reaches local symbol 'value' of a piece linked before"),
            "{reason}"
        ),
        Ok(_) => panic!("second linked"),
        Err(Missing::Undefined) => panic!("second is not defined"),
    }
}

#[test]
fn a_section_of_many_locals_adds_one_alias_not_one_per_local() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(compile(SHARED_STATICS, true))) else {
        panic!("an object with function sections is split");
    };
    let bump = piece_defining(&mut object, "bump")
        .unwrap()
        .expect("bump is defined");
    let aliases = bump
        .windows(SECTION_ALIAS_PREFIX.len())
        .filter(|window| *window == SECTION_ALIAS_PREFIX.as_bytes())
        .count();
    // One for `.bss` (`padding` and `counter`), one for `.text.bump`
    // (whose section symbol its unwind entry names).
    assert_eq!(aliases, 2, "{:?}", section_names(&bump));
    for local in ["counter", "padding"] {
        assert!(!mentions(&bump, local), "{local}: reached through .bss");
    }
}

#[test]
fn the_memory_of_a_jit_that_is_gone_is_no_longer_taken_for_linked_data() {
    let mut jit = Jit::new().unwrap();
    let object = add_split(&mut jit, "shared.o", SHARED_GLOBAL);
    let address = linked(&jit, object, "tens") as *const u8;
    assert!(crate::local::static_memory::holds(address));
    drop(jit);
    // Memory mapped where the JIT's was (unless a JIT of a test running
    // beside this one took the place first: then there is nothing to check).
    let page = (address as usize) & !4095;
    // SAFETY: a new anonymous mapping of one page, which never replaces one
    // (MAP_FIXED_NOREPLACE fails instead).
    let mapped = unsafe {
        libc::mmap(
            page as *mut libc::c_void,
            4096,
            libc::PROT_READ,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
            -1,
            0,
        )
    };
    if mapped as usize == page {
        assert!(!crate::local::static_memory::holds(page as *const u8));
        // SAFETY: unmaps the page mapped above, once.
        unsafe { libc::munmap(mapped, 4096) };
    }
}

#[test]
fn an_error_naming_a_local_alias_says_what_it_stands_for() {
    let mut object = split_shared_state();
    let tens = piece_defining(&mut object, "tens")
        .unwrap()
        .expect("tens is defined");
    // The alias by which later pieces reach a section of the first piece.
    let at = tens
        .windows(SECTION_ALIAS_PREFIX.len())
        .position(|window| window == SECTION_ALIAS_PREFIX.as_bytes())
        .expect("the piece defines an alias");
    let digits: String = tens[at + SECTION_ALIAS_PREFIX.len()..]
        .iter()
        .take_while(|byte| byte.is_ascii_digit())
        .map(|&byte| char::from(byte))
        .collect();
    let alias = format!("{SECTION_ALIAS_PREFIX}{digits}");
    let message = format!("Failed to materialize symbols: {{ (object 0: k, {{ {alias} }}) }}");
    let explained = object.explain_aliases(&message);
    assert!(explained.starts_with(&message), "{explained}");
    let described = [".text.tens'", ".text.bump'", ".bss'"];
    assert!(
        described
            .iter()
            .any(|name| explained.contains(&format!("{alias} is the object's section '{name}"))),
        "{explained}"
    );
    assert_eq!(object.explain_aliases("no alias here"), "no alias here");
}

/// How many unwind entries (FDEs, not CIEs) the `.eh_frame` of a piece holds.
fn unwind_entries(piece: &[u8]) -> usize {
    let start = section_offset(piece, ".eh_frame");
    let end = start + section_size(piece, ".eh_frame") as usize;
    let (mut at, mut entries) = (start, 0);
    while at + 8 <= end {
        let length = u32_at(piece, at).unwrap() as usize;
        if length == 0 {
            break;
        }
        entries += usize::from(u32_at(piece, at + 4).unwrap() != 0);
        at += 4 + length;
    }
    entries
}

/// Functions whose unwind entries are not in the order of their sections:
/// `hot_one` and `hot_two` share `.text.hot`, and `cold` between them has a
/// section of its own.
const SECTIONS_REVISITED: &str = r#"
  .section .text.hot,"ax",@progbits
  .globl hot_one
hot_one:
  .cfi_startproc
  ret
  .cfi_endproc
  .section .text.cold,"ax",@progbits
  .globl cold
cold:
  .cfi_startproc
  ret
  .cfi_endproc
  .section .text.hot,"ax",@progbits
  .globl hot_two
hot_two:
  .cfi_startproc
  ret
  .cfi_endproc
"#;

#[test]
fn a_piece_carries_the_unwind_entries_of_its_sections_and_no_others() {
    let mut shared = split_shared_state();
    let tens = piece_defining(&mut shared, "tens").unwrap().unwrap();
    // `tens` and the helper `bump` it calls, in sections in ascending order.
    assert_eq!(unwind_entries(&tens), 2);
    let hundreds = piece_defining(&mut shared, "hundreds").unwrap().unwrap();
    assert_eq!(unwind_entries(&hundreds), 1);

    let Ok(mut revisited) = SplitObject::new(ObjectBytes::Owned(assemble(SECTIONS_REVISITED)))
    else {
        panic!("an object of two sections of code is split");
    };
    let cold = piece_defining(&mut revisited, "cold").unwrap().unwrap();
    assert_eq!(unwind_entries(&cold), 1);
    assert!(!mentions(&cold, "hot_one") && !mentions(&cold, "hot_two"));
    let hot = piece_defining(&mut revisited, "hot_two").unwrap().unwrap();
    assert_eq!(unwind_entries(&hot), 2, "both functions of .text.hot");
    assert!(mentions(&hot, "hot_one") && mentions(&hot, "hot_two"));
}

/// Twelve functions in sections of their own; `fn_02` and `fn_10` have a
/// second name (an alias, a global of the same section).
fn many_functions() -> String {
    let mut ir = String::new();
    for index in 0..12 {
        ir.push_str(&format!(
            "define i64 @fn_{index:02}() {{\n  ret i64 {index}\n}}\n"
        ));
    }
    ir.push_str("@alias_02 = alias i64 (), ptr @fn_02\n");
    ir.push_str("@alias_10 = alias i64 (), ptr @fn_10\n");
    ir
}

#[test]
fn each_piece_defines_the_globals_of_its_sections_before_and_after_they_are_indexed() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(compile(&many_functions(), true)))
    else {
        panic!("an object with function sections is split");
    };
    // The first pieces scan the symbol table for their globals, the later
    // ones read an index of them.
    for index in 0..12 {
        let name = format!("fn_{index:02}");
        let piece = piece_defining(&mut object, &name)
            .unwrap()
            .expect("defined");
        for other in 0..12 {
            let other_name = format!("fn_{other:02}");
            assert_eq!(
                mentions(&piece, &other_name),
                other == index,
                "{name}: {other_name}"
            );
        }
        let alias = format!("alias_{index:02}");
        assert_eq!(
            mentions(&piece, &alias),
            index == 2 || index == 10,
            "{name}: {alias}"
        );
    }
    assert!(
        piece_defining(&mut object, "alias_10").unwrap().is_none(),
        "linked with fn_10"
    );
}

/// Names that begin or end another: LLVM's string table stores `first` once,
/// at the end of `_mlir_ciface_first`, and `first_helper` comes before
/// `first` in the symbol table.
const NAMES_IN_NAMES: &str = r#"
define void @first_helper() {
  ret void
}
define void @first() {
  ret void
}
define void @_mlir_ciface_first() {
  ret void
}
"#;

#[test]
fn a_lookup_finds_the_symbol_of_its_whole_name() {
    let Ok(mut split) = SplitObject::new(ObjectBytes::Owned(compile(NAMES_IN_NAMES, true))) else {
        panic!("an object with function sections is split");
    };
    let first = piece_defining(&mut split, "first").unwrap().unwrap();
    assert!(mentions(&first, "first"));
    assert!(!mentions(&first, "first_helper") && !mentions(&first, "_mlir_ciface_first"));
    let ciface = piece_defining(&mut split, "_mlir_ciface_first")
        .unwrap()
        .unwrap();
    assert!(mentions(&ciface, "_mlir_ciface_first") && !mentions(&ciface, "first"));
    assert!(piece_defining(&mut split, "irst").unwrap().is_none());
}
