//! Layouts saved between runs (saved_layout.rs) give the pieces the object
//! read anew gives, and are used for nothing but the file they were saved
//! for.

use super::{
    SHARED_STATICS, compile, many_functions, piece_defining, section_header, section_names,
};
use crate::local::{
    object_bytes::{FileIdentity, MappedFile},
    split_object::{Layout, ObjectBytes, SplitObject, saved_layout},
};
use std::path::Path;

/// SHARED_STATICS and `many_functions`, compiled with function sections.
fn statics_and_functions() -> Vec<u8> {
    compile(&format!("{SHARED_STATICS}\n{}", many_functions()), true)
}

/// What the pieces of `saved` need from the object.
const NAMES: &[&str] = &[
    "bump", "count", "scale", "scaled", "one", "two", "three", "fn_00", "fn_02", "alias_02",
    "fn_10", "alias_10", "fn_11", "counter", "missing",
];

/// `object` written to a file and mapped, as `local` maps what it is sent.
fn mapped(directory: &Path, object: &[u8]) -> ObjectBytes {
    let path = directory.join("kernels.o");
    std::fs::write(&path, object).unwrap();
    MappedFile::open(&path).unwrap()
}

fn identity(bytes: &ObjectBytes) -> FileIdentity {
    bytes.identity().expect("a mapped file").clone()
}

/// The layout of `bytes` saved, and read back from what was saved.
fn saved_and_read(bytes: &ObjectBytes) -> Option<Layout> {
    let (object, identity) = (bytes.as_slice(), identity(bytes));
    let fingerprint = saved_layout::fingerprint(object);
    let contents = Layout::read(object)?.save(object, &identity, fingerprint)?;
    let saved =
        saved_layout::SavedLayout::read(ObjectBytes::Owned(contents), &identity, fingerprint)?;
    Layout::from_saved(object, saved)
}

/// `object` written to a file, and what its saved layout names it by and
/// holds.
fn saved(directory: &Path, object: &[u8]) -> (FileIdentity, u64, Vec<u8>) {
    let (identity, fingerprint) = (
        identity(&mapped(directory, object)),
        saved_layout::fingerprint(object),
    );
    let contents = Layout::read(object)
        .unwrap()
        .save(object, &identity, fingerprint)
        .unwrap();
    (identity, fingerprint, contents)
}

fn split(bytes: ObjectBytes, layout: Layout) -> SplitObject {
    SplitObject {
        linked: vec![false; layout.section_count()],
        layout,
        bytes,
        saved_in: None,
    }
}

/// Checks that `split` links, for each of NAMES, the piece `object` read
/// anew links.
fn assert_links_as_read_anew(split: &mut SplitObject, object: Vec<u8>) {
    let Ok(mut read_anew) = SplitObject::new(ObjectBytes::Owned(object)) else {
        panic!("an object with function sections is split");
    };
    for name in NAMES {
        assert_eq!(
            piece_defining(split, name),
            piece_defining(&mut read_anew, name),
            "{name}"
        );
    }
}

#[test]
fn a_saved_layout_links_the_pieces_the_object_read_anew_links() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    let from_saved = mapped(directory.path(), &object);
    let layout = saved_and_read(&from_saved).expect("the saved layout is read back");
    let mut from_saved = split(from_saved, layout);
    assert_links_as_read_anew(&mut from_saved, object);
}

#[test]
fn a_saved_layout_is_read_only_for_the_file_and_contents_it_was_saved_for() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    let bytes = mapped(directory.path(), &object);
    let fingerprint = saved_layout::fingerprint(&object);
    let contents = Layout::read(&object)
        .unwrap()
        .save(&object, &identity(&bytes), fingerprint)
        .unwrap();
    let read = |identity: &FileIdentity, fingerprint| {
        saved_layout::SavedLayout::read(ObjectBytes::Owned(contents.clone()), identity, fingerprint)
            .is_some()
    };
    assert!(read(&identity(&bytes), fingerprint));
    assert!(!read(&identity(&bytes), fingerprint ^ 1), "other contents");
    // The same bytes written again: another modification time.
    std::thread::sleep(std::time::Duration::from_millis(20));
    let rewritten = mapped(directory.path(), &object);
    assert!(
        !read(&identity(&rewritten), fingerprint),
        "another version of the file"
    );
    // The same identity and other bytes at either end (as a file system
    // that keeps no change times could give).
    let mut start_changed = object.clone();
    start_changed[20] ^= 0xff;
    assert_ne!(saved_layout::fingerprint(&start_changed), fingerprint);
    let mut end_changed = object.clone();
    *end_changed.last_mut().unwrap() ^= 0xff;
    assert_ne!(saved_layout::fingerprint(&end_changed), fingerprint);
}

#[test]
fn a_damaged_saved_layout_is_refused_or_fails_lookups_without_panicking() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    let (identity, fingerprint, contents) = saved(directory.path(), &object);
    for length in (0..contents.len()).step_by(8) {
        let cut = ObjectBytes::Owned(contents[..length].to_vec());
        assert!(
            saved_layout::SavedLayout::read(cut, &identity, fingerprint).is_none(),
            "{length} bytes"
        );
    }
    for at in (0..contents.len()).step_by(5) {
        for value in [0x00, 0xff, 0x7f] {
            let mut damaged = contents.clone();
            damaged[at] = value;
            let Some(saved) = saved_layout::SavedLayout::read(
                ObjectBytes::Owned(damaged),
                &identity,
                fingerprint,
            ) else {
                continue;
            };
            let Some(layout) = Layout::from_saved(&object, saved) else {
                continue;
            };
            let mut split = split(ObjectBytes::Owned(object.clone()), layout);
            for name in NAMES {
                let _ = split.link_defining(name);
            }
        }
    }
}

#[test]
fn a_saved_layout_that_does_not_fit_the_object_is_read_anew() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    let (identity, fingerprint, contents) = saved(directory.path(), &object);
    // The same object with two relocation sections' headers swapped: it
    // means the same, and each section's relocations are elsewhere than the
    // saved layout says.
    let mut changed = object.clone();
    let (first, second) = (
        section_header(&object, ".rela.text.bump"),
        section_header(&object, ".rela.text.count"),
    );
    changed[first..first + 64].copy_from_slice(&object[second..second + 64]);
    changed[second..second + 64].copy_from_slice(&object[first..first + 64]);
    let saved =
        saved_layout::SavedLayout::read(ObjectBytes::Owned(contents), &identity, fingerprint)
            .unwrap();
    let layout = Layout::from_saved(&changed, saved).expect("its tables are where they were");
    let mut from_saved = split(ObjectBytes::Owned(changed.clone()), layout);
    assert_links_as_read_anew(&mut from_saved, changed);
    assert!(!from_saved.layout.is_saved(), "read anew");
}

/// The saved layout of `saved_from`, as read back for `object` (of the same
/// file, changed in place with neither its size nor its times).
fn saved_for(directory: &Path, saved_from: &[u8], object: &[u8]) -> Layout {
    let (identity, fingerprint, contents) = saved(directory, saved_from);
    let saved =
        saved_layout::SavedLayout::read(ObjectBytes::Owned(contents), &identity, fingerprint)
            .unwrap();
    Layout::from_saved(object, saved).expect("its tables are where they were")
}

#[test]
fn a_section_whose_relocations_a_saved_layout_misses_is_read_anew() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    // Saved when `count`'s relocation section named another section.
    let mut other = object.clone();
    let header = section_header(&object, ".rela.text.count");
    let fn_00 = section_names(&object)
        .iter()
        .position(|name| name == ".text.fn_00")
        .unwrap() as u32;
    other[header + 44..header + 48].copy_from_slice(&fn_00.to_le_bytes());
    let layout = saved_for(directory.path(), &other, &object);
    let mut from_saved = split(ObjectBytes::Owned(object.clone()), layout);
    assert_links_as_read_anew(&mut from_saved, object);
    assert!(!from_saved.layout.is_saved(), "read anew");
}

#[test]
fn a_global_a_saved_layout_does_not_name_is_found_once_the_object_is_read_anew() {
    let directory = tempfile::tempdir().unwrap();
    let object = statics_and_functions();
    // Saved when `count` was called `cXunt` (its name is the end of its
    // section's in the one string table LLVM writes for both).
    let mut other = object.clone();
    let at = (0..object.len() - 12)
        .find(|&at| &object[at..at + 12] == b".text.count\0")
        .unwrap();
    other[at + 7] = b'X';
    let layout = saved_for(directory.path(), &other, &object);
    let mut from_saved = split(ObjectBytes::Owned(object), layout);
    assert_eq!(piece_defining(&mut from_saved, "count"), Ok(None));
    assert_eq!(from_saved.read_anew(), Ok(true));
    assert!(piece_defining(&mut from_saved, "count").unwrap().is_some());
    assert_eq!(from_saved.read_anew(), Ok(false), "read anew already");
}
