//! What links a split object whole, and what refuses a piece of it; which
//! objects linked whole are linked ahead of their first lookup.

use super::{Jit, Link, Missing, ObjectBytes, SplitObject, assemble, linked, piece_defining};

/// `first` reads a local absolute symbol through the GOT: the relocation
/// names the symbol itself.
const LOCAL_ABSOLUTE: &str = r#"
  .set local_absolute, 0x1234
  .section .text.first,"ax",@progbits
  .globl first
first:
  movq local_absolute@GOTPCREL(%rip), %rax
  ret
  .section .text.second,"ax",@progbits
  .globl second
second:
  ret
"#;

#[test]
fn a_local_a_piece_cannot_carry_links_the_object_whole_at_its_first_lookup() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(assemble(LOCAL_ABSOLUTE))) else {
        panic!("an object of two sections of code is split");
    };
    assert!(matches!(
        object.link_defining("first"),
        Ok(Some(Link::Whole))
    ));
    // Until LLVM has taken it, a lookup links it whole again, so that each
    // gets LLVM's reason when it refuses the object.
    assert!(matches!(
        object.link_defining("first"),
        Ok(Some(Link::Whole))
    ));
    object.linked_whole();
    assert!(object.link_defining("second").unwrap().is_none(), "linked");

    // JITLink links no local absolute symbol either: the whole object fails
    // to link, `second` with it, as an object without function sections.
    let mut jit = Jit::new().unwrap();
    let whole = jit
        .add_object("absolute.o", ObjectBytes::Owned(assemble(LOCAL_ABSOLUTE)))
        .unwrap();
    match jit.lookup(whole, "first") {
        Err(Missing::Unlinkable(reason)) => assert!(!reason.contains("cannot carry"), "{reason}"),
        _ => panic!("JITLink links a local absolute symbol: use one it does not here"),
    }
    assert!(matches!(
        jit.lookup(whole, "second"),
        Err(Missing::Unlinkable(_))
    ));
}

#[test]
fn a_local_a_piece_cannot_carry_is_an_error_once_pieces_are_linked() {
    let Ok(mut object) = SplitObject::new(ObjectBytes::Owned(assemble(LOCAL_ABSOLUTE))) else {
        panic!("an object of two sections of code is split");
    };
    assert!(piece_defining(&mut object, "second").unwrap().is_some());
    let error = piece_defining(&mut object, "first").expect_err("the absolute symbol is refused");
    assert!(error.contains("'local_absolute' is absolute"), "{error}");

    let mut jit = Jit::new().unwrap();
    let split = jit
        .add_object("absolute.o", ObjectBytes::Owned(assemble(LOCAL_ABSOLUTE)))
        .unwrap();
    linked(&jit, split, "second");
    match jit.lookup(split, "first") {
        Err(Missing::Unlinkable(reason)) => {
            assert!(
                reason.contains("absolute.o: symbol 'local_absolute' is absolute"),
                "{reason}"
            );
        }
        _ => panic!("first links"),
    }
}

/// Two functions with unwind entries; `{extra}` is replaced by CFI
/// directives of `first`'s.
const UNWIND_DIRECTIVES: &str = r#"
  .section .text.first,"ax",@progbits
  .globl first
first:
  .cfi_startproc
  {extra}
  ret
  .cfi_endproc
  .section .text.second,"ax",@progbits
  .globl second
second:
  .cfi_startproc
  ret
  .cfi_endproc
  .section .rodata.table,"a",@progbits
table:
  .long 0
"#;

#[test]
fn unwind_entries_with_a_personality_or_an_lsda_link_the_object_whole() {
    let with = |extra: &str| {
        let source = UNWIND_DIRECTIVES.replace("{extra}", extra);
        SplitObject::new(ObjectBytes::Owned(assemble(&source))).is_ok()
    };
    assert!(with(""), "plain unwind entries are split");
    // A personality is a relocation in a CIE; an LSDA a second one in the
    // function's FDE.
    assert!(!with(".cfi_personality 0x1b, second"));
    assert!(!with(".cfi_lsda 0x1b, table"));
}

/// A function and an `.eh_frame` written by hand: a CIE, then an FDE whose
/// length is `{fde_length}` and whose initial location follows its CIE
/// pointer.
const HAND_WRITTEN_EH_FRAME: &str = r#"
  .section .text.first,"ax",@progbits
  .globl first
first:
  ret
  .section .eh_frame,"a",@unwind
cie:
  .long cie_end - cie - 4
  .long 0
  .byte 1
  .asciz "zR"
  .uleb128 1
  .sleb128 -8
  .uleb128 16
  .uleb128 1
  .byte 0x1b
  .p2align 2
cie_end:
fde:
  .long {fde_length}
  .long . - cie
  .long first - .
  .long 1
  .uleb128 0
  .p2align 2
fde_end:
"#;

#[test]
fn an_unwind_entry_whose_relocation_patches_past_its_end_links_the_object_whole() {
    let with_length = |length: &str| {
        let source = HAND_WRITTEN_EH_FRAME.replace("{fde_length}", length);
        SplitObject::new(ObjectBytes::Owned(assemble(&source))).is_ok()
    };
    assert!(with_length("fde_end - fde - 4"), "a whole entry is split");
    // Four bytes: the CIE pointer alone; the initial location's relocation
    // then patches the bytes after the entry.
    assert!(!with_length("4"));
}

/// [`LOCAL_ABSOLUTE`] in one section: an object linked whole, which refers
/// to nothing outside it, and which JITLink refuses.
const LOCAL_ABSOLUTE_WHOLE: &str = r#"
  .set local_absolute, 0x1234
  .text
  .globl first
first:
  movq local_absolute@GOTPCREL(%rip), %rax
  ret
  .globl second
second:
  ret
"#;

#[test]
fn a_link_that_fails_ahead_is_reported_by_each_lookup_as_the_first_would_have_been() {
    let bytes = assemble(LOCAL_ABSOLUTE_WHOLE);
    let mut lazy = Jit::new().unwrap();
    let object = lazy
        .add_object("absolute.o", ObjectBytes::Owned(bytes.clone()))
        .unwrap();
    let Err(Missing::Unlinkable(first_lookup)) = lazy.lookup(object, "first") else {
        panic!("JITLink links a local absolute symbol: use one it does not here");
    };

    let mut ahead = Jit::new().unwrap();
    let object = ahead
        .add_object("absolute.o", ObjectBytes::Owned(bytes))
        .unwrap();
    assert!(ahead.waits_for_link(object));
    ahead.link_ahead(object);
    assert!(!ahead.waits_for_link(object));
    for symbol in ["first", "second"] {
        match ahead.lookup(object, symbol) {
            Err(Missing::Unlinkable(reason)) => assert_eq!(reason, first_lookup, "{symbol}"),
            _ => panic!("{symbol} is linked"),
        }
    }
}

#[test]
fn only_a_small_object_whose_references_are_all_the_processs_waits_to_be_linked_ahead() {
    let calling = |callee: &str, padding: usize| {
        assemble(&format!(
            "  .text\n  .globl f\nf:\n  jmp {callee}@PLT\n  .zero {padding}\n"
        ))
    };
    let mut jit = Jit::new().unwrap();
    let mut add =
        |name: &str, bytes: Vec<u8>| jit.add_object(name, ObjectBytes::Owned(bytes)).unwrap();
    let process = add("process.o", calling("malloc", 0));
    let elsewhere = add("elsewhere.o", calling("no_such_function_anywhere", 0));
    let large = add("large.o", calling("malloc", 70_000));
    assert!(jit.waits_for_link(process));
    assert!(!jit.waits_for_link(elsewhere), "a symbol the process lacks");
    assert!(!jit.waits_for_link(large), "over 64 KiB");
}
