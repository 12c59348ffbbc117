//! Relocatable objects linked a piece at a time. An object compiled with
//! function sections (`llc --function-sections`, `-ffunction-sections`) is
//! not handed to ORC whole: the first lookup of one of its symbols links the
//! sections that symbol needs (its own and whatever their relocations reach
//! that is not linked yet), written out as a small object file of their own.
//! A program that launches one kernel of 10,000 then links one kernel, as
//! `dlopen` touches only the code that runs, instead of every function,
//! relocation and unwind entry of the object.
//!
//! The pieces of one object go to one JITDylib (jit.rs), so they find each
//! other by name: a global symbol keeps its name, and each section of a
//! linked piece that defines local symbols gets one hidden global alias
//! (`__executor.section.N`, N its index in the object) by which later pieces
//! reach its locals, at their offsets: a `.bss` shared by many functions
//! adds one name to the JITDylib, not one per label. A global variable, or a
//! static, is therefore linked once, with the first piece that reaches it,
//! and every kernel sees the same one, as in an object linked whole. A pool
//! of constants (`.rodata.cst8`, ...) is the exception: each piece carries a
//! copy of the entries it uses, since the first of 10,000 kernels would
//! otherwise link the constants of all of them.
//!
//! What this does not take apart (no function sections, initializers, TLS,
//! COMDAT groups, unwind entries with personalities, ...) is linked whole;
//! [`SplitObject::new`] decides, or the first lookup, when the sections it
//! reaches have a local symbol a piece cannot carry. Nothing here is `unsafe`: it reads
//! bytes and writes bytes, and every read is bounds-checked, so a malformed
//! object is refused or left to LLVM's object reader, never a panic.

mod eh_frame_check;
mod elf;
mod layout;
mod layout_cache;
mod piece;
mod saved_layout;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashSet;

use self::layout_cache::LayoutCache;
use self::{
    layout::Layout,
    piece::{Contents, Piece},
};
use super::{
    object_bytes::{FileIdentity, ObjectBytes},
    object_library::LibraryCache,
};

/// The name by which pieces linked later reach the local symbols of a
/// section linked before (followed by the section's index in the object).
const SECTION_ALIAS_PREFIX: &str = "__executor.section.";

/// How many sections an object has at least for its layout to be saved
/// between runs (layout_cache.rs): reading the tables of fewer costs less
/// than looking for a saved layout.
const SAVED_SECTIONS: usize = 1024;

/// A relocatable object and what of it is linked so far.
pub struct SplitObject {
    bytes: ObjectBytes,
    layout: Layout,
    linked: Vec<bool>,
    /// Where the object's layout is saved between runs, if it is.
    saved_in: Option<SavedIn>,
}

/// Where an object's layout is saved, and what names the object there.
struct SavedIn {
    cache: LayoutCache,
    identity: FileIdentity,
    fingerprint: u64,
}

impl SavedIn {
    /// Saves `layout`, read from `bytes`, unless the file changed since it
    /// was mapped (the layout could then be of neither version). Once saved,
    /// the file is also linked into a shared library for later runs
    /// (object_library.rs), if that library would behave as the object.
    fn save(&self, layout: &Layout, bytes: &ObjectBytes) {
        if bytes.stale().is_some() {
            return;
        }
        let saved = self.cache.store(&self.identity, || {
            layout.save(bytes.as_slice(), &self.identity, self.fingerprint)
        });
        if let Some(file) = bytes.file()
            && saved
            && layout.links_as_library(bytes.as_slice())
            && let Some(libraries) = LibraryCache::of_user()
        {
            libraries.link_later(file, &self.identity, self.fingerprint);
        }
    }
}

/// The fingerprint of a mapped object file of at least [`SAVED_SECTIONS`]
/// sections, whose layout is saved between runs (and which a library is
/// linked from: object_library.rs); `None` for any other.
pub fn saved_fingerprint(bytes: &ObjectBytes) -> Option<u64> {
    let object = bytes.as_slice();
    let many_sections =
        elf::u16_at(object, 60).is_some_and(|count| usize::from(count) >= SAVED_SECTIONS);
    (many_sections && bytes.identity().is_some()).then(|| saved_layout::fingerprint(object))
}

/// What a lookup made of a split object, with its layout.
enum Attempt {
    Linked(Option<Link>),
    /// What the saved layout gave does not fit the object.
    Misfit,
}

impl SplitObject {
    /// The object, to be linked a piece at a time; or its bytes back when it
    /// is to be linked whole (see [`Layout::read`]). A mapped object file of
    /// many sections gets the layout an earlier run saved, or its layout is
    /// saved for later runs.
    pub fn new(bytes: ObjectBytes) -> Result<Self, ObjectBytes> {
        let object = bytes.as_slice();
        let saved_in = saved_fingerprint(&bytes).and_then(|fingerprint| {
            Some(SavedIn {
                cache: LayoutCache::of_user()?,
                identity: bytes.identity()?.clone(),
                fingerprint,
            })
        });
        let saved = saved_in
            .as_ref()
            .and_then(|saved_in| {
                saved_in
                    .cache
                    .load(&saved_in.identity, saved_in.fingerprint)
            })
            .and_then(|saved| Layout::from_saved(object, saved));
        let layout = match saved {
            Some(layout) => {
                // Only what the pieces need is read now, a page here and there.
                bytes.expect_random_reads();
                layout
            }
            None => {
                let Some(layout) = Layout::read(object) else {
                    return Err(bytes);
                };
                if let Some(saved_in) = &saved_in {
                    saved_in.save(&layout, &bytes);
                }
                layout
            }
        };
        Ok(Self {
            linked: vec![false; layout.section_count()],
            layout,
            bytes,
            saved_in,
        })
    }

    /// What linking `name` takes, and marks it linked (the caller adds it
    /// to the object's JITDylib); `None` when the object does not define
    /// `name` or it is linked already. An error names what in the object is
    /// malformed, or the local symbol a piece cannot carry that `name`
    /// reaches once some of the object is linked.
    pub fn link_defining(&mut self, name: &str) -> Result<Option<Link>, String> {
        if let Some(reason) = self.bytes.stale() {
            return Err(reason);
        }
        match self.attempt(name) {
            Ok(Attempt::Linked(link)) => return Ok(link),
            Err(reason) if !self.layout.is_saved() => return Err(reason),
            // A saved layout that does not fit, or that led to an error, is
            // not trusted: the object is read anew.
            Ok(Attempt::Misfit) | Err(_) => {}
        }
        self.read_anew()?;
        match self.attempt(name)? {
            Attempt::Linked(link) => Ok(link),
            // Only a saved layout is checked: not this one.
            Attempt::Misfit => Err("the object's layout does not fit it".to_owned()),
        }
    }

    /// Sets a saved layout aside, and removes it from the cache, for the
    /// object's own, read anew (and saved in its place); `Ok(false)` when
    /// the layout was not a saved one. A lookup that found nothing calls
    /// this before it says so: a saved layout's tables of globals are not
    /// checked to be whole.
    pub fn read_anew(&mut self) -> Result<bool, String> {
        if !self.layout.is_saved() {
            return Ok(false);
        }
        if let Some(saved_in) = &self.saved_in {
            saved_in.cache.remove(&saved_in.identity);
        }
        let layout = Layout::read(self.bytes.as_slice()).ok_or_else(|| {
            "the object file changed since its layout was saved, and can no longer be linked a \
             piece at a time (send it again in a new session)"
                .to_owned()
        })?;
        tracing::debug!("the object's saved layout does not fit it: it is read anew");
        if let Some(saved_in) = &self.saved_in {
            saved_in.save(&layout, &self.bytes);
        }
        self.layout = layout;
        Ok(true)
    }

    /// [`SplitObject::link_defining`] with the object's layout as it is.
    fn attempt(&mut self, name: &str) -> Result<Attempt, String> {
        let bytes = self.bytes.as_slice();
        let Some(section) = self
            .layout
            .global(bytes, name.as_bytes())
            .and_then(|symbol| self.layout.defining_section(&symbol))
        else {
            return Ok(Attempt::Linked(None));
        };
        if self.linked[section] {
            return Ok(Attempt::Linked(None));
        }
        let sections = match self.closure(section)? {
            Closure::Sections(sections) => sections,
            // Nothing of the object is linked yet: it is linked whole, as
            // one without function sections. Marked linked once LLVM took
            // it ([`SplitObject::linked_whole`]): until then each lookup
            // tries again, and gets LLVM's reason, not "not defined".
            Closure::Uncarried(_) if !self.linked.contains(&true) => {
                return Ok(Attempt::Linked(Some(Link::Whole)));
            }
            Closure::Uncarried(reason) => return Err(reason),
        };
        let contents = Contents {
            globals: self.layout.globals_defined_in(bytes, &sections),
            fdes: self.layout.fdes_describing(bytes, &sections)?,
            sections,
        };
        let layout = &self.layout;
        if layout.is_saved()
            && !layout.fits(bytes, &contents.sections, &contents.globals, &contents.fdes)
        {
            return Ok(Attempt::Misfit);
        }
        let piece = Piece::write(bytes, &self.layout, &self.linked, &contents)?;
        for &section in &contents.sections {
            self.linked[section] = true;
        }
        Ok(Attempt::Linked(Some(Link::Piece(piece))))
    }

    /// Records that the whole object was linked: no lookup links any of it
    /// again.
    pub fn linked_whole(&mut self) {
        self.linked.fill(true);
    }

    /// The object's bytes, checked not to have changed since `send_binary`.
    pub fn bytes(&self) -> Result<&[u8], String> {
        match self.bytes.stale() {
            Some(reason) => Err(reason),
            None => Ok(self.bytes.as_slice()),
        }
    }

    /// `message` (an error of ORC's) with each section alias it names
    /// explained: the section of the object it stands for. ORC names the
    /// symbols a failed link left unresolved, and a piece that failed leaves
    /// its sections' aliases so for every later piece that uses them.
    pub fn explain_aliases(&self, message: &str) -> String {
        let bytes = self.bytes.as_slice();
        let mut explained = Vec::new();
        for (at, _) in message.match_indices(SECTION_ALIAS_PREFIX) {
            let digits = &message[at + SECTION_ALIAS_PREFIX.len()..];
            let end = digits
                .find(|character: char| !character.is_ascii_digit())
                .unwrap_or(digits.len());
            let Ok(index) = digits[..end].parse::<usize>() else {
                continue;
            };
            let Some(name) = self
                .layout
                .section(bytes, index)
                .and_then(|section| self.layout.section_name(bytes, &section))
            else {
                continue;
            };
            let line = format!(
                "{SECTION_ALIAS_PREFIX}{index} is the object's section '{}'",
                String::from_utf8_lossy(name)
            );
            if !explained.contains(&line) {
                explained.push(line);
            }
        }
        if explained.is_empty() {
            message.to_owned()
        } else {
            format!("{message} ({})", explained.join("; "))
        }
    }

    /// `first` and the sections not linked yet that its relocations reach,
    /// directly or not, in the object's order; or, when they reach a symbol
    /// a piece cannot carry, why.
    fn closure(&self, first: usize) -> Result<Closure, String> {
        let (layout, bytes) = (&self.layout, self.bytes.as_slice());
        let mut found = FxHashSet::default();
        found.insert(first);
        let mut pending = vec![first];
        while let Some(section) = pending.pop() {
            for relocation in layout.relocations(bytes, section)? {
                let target = layout.symbol(bytes, relocation.symbol)?;
                if let Err(what) = layout.carried(relocation.symbol, &target) {
                    let name = layout.symbol_name(bytes, &target).unwrap_or_default();
                    return Ok(Closure::Uncarried(format!(
                        "symbol '{}' is {what}, which a piece of the object cannot carry, and \
                         pieces of the object are linked already: compile without function \
                         sections to link the object whole",
                        String::from_utf8_lossy(name)
                    )));
                }
                // A piece carries its own copy of a pool's constants.
                if layout.pooled_constant(bytes, &target).is_some() {
                    continue;
                }
                let Some(defined_in) = layout.defining_section(&target) else {
                    continue;
                };
                if !self.linked[defined_in] && found.insert(defined_in) {
                    pending.push(defined_in);
                }
            }
        }
        let mut sections: Vec<usize> = found.into_iter().collect();
        sections.sort_unstable();
        Ok(Closure::Sections(sections))
    }
}

/// What a lookup of one of a split object's symbols links.
pub enum Link {
    /// A piece: an object file of the sections the symbol needs.
    Piece(Vec<u8>),
    /// The whole object ([`SplitObject::bytes`]): the symbol reaches a
    /// local symbol a piece cannot carry before anything of the object is
    /// linked.
    Whole,
}

/// The sections a piece would hold.
enum Closure {
    Sections(Vec<usize>),
    /// They reach a symbol a piece cannot carry: the message naming it.
    Uncarried(String),
}
