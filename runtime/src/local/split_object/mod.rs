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
//! COMDAT groups, unwind entries with personalities, ...) is linked whole, as
//! before; [`SplitObject::new`] decides. Nothing here is `unsafe`: it reads
//! bytes and writes bytes, and every read is bounds-checked, so a malformed
//! object is refused or left to LLVM's object reader, never a panic.

mod elf;
mod layout;
mod piece;
#[cfg(test)]
mod tests;

use rustc_hash::FxHashSet;

use self::{
    layout::Layout,
    piece::{Contents, Piece},
};
use super::object_bytes::ObjectBytes;

/// The name by which pieces linked later reach the local symbols of a
/// section linked before (followed by the section's index in the object).
const SECTION_ALIAS_PREFIX: &str = "__executor.section.";

/// A relocatable object and what of it is linked so far.
pub struct SplitObject {
    bytes: ObjectBytes,
    layout: Layout,
    linked: Vec<bool>,
}

impl SplitObject {
    /// The object, to be linked a piece at a time; or its bytes back when it
    /// is to be linked whole (see [`Layout::read`]).
    pub fn new(bytes: ObjectBytes) -> Result<Self, ObjectBytes> {
        match Layout::read(bytes.as_slice()) {
            Some(layout) => Ok(Self {
                linked: vec![false; layout.section_count()],
                layout,
                bytes,
            }),
            None => Err(bytes),
        }
    }

    /// An object file of the sections `name` needs that are not linked yet,
    /// and marks them linked (the caller adds the piece to the object's
    /// JITDylib); `None` when the object does not define `name` or it is
    /// linked already. An error names what in the object is malformed.
    pub fn piece_defining(&mut self, name: &str) -> Result<Option<Vec<u8>>, String> {
        if let Some(reason) = self.bytes.stale() {
            return Err(reason);
        }
        let bytes = self.bytes.as_slice();
        let Some(section) = self
            .layout
            .global(bytes, name.as_bytes())
            .and_then(|symbol| self.layout.defining_section(&symbol))
        else {
            return Ok(None);
        };
        if self.linked[section] {
            return Ok(None);
        }
        let sections = self.closure(section)?;
        let contents = Contents {
            globals: self.layout.globals_defined_in(bytes, &sections),
            fdes: self.layout.fdes_describing(bytes, &sections)?,
            sections,
        };
        let piece = Piece::write(bytes, &self.layout, &self.linked, &contents)?;
        for &section in &contents.sections {
            self.linked[section] = true;
        }
        Ok(Some(piece))
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
    /// directly or not, in the object's order.
    fn closure(&self, first: usize) -> Result<Vec<usize>, String> {
        let (layout, bytes) = (&self.layout, self.bytes.as_slice());
        let mut found = FxHashSet::default();
        found.insert(first);
        let mut pending = vec![first];
        while let Some(section) = pending.pop() {
            for relocation in layout.relocations(bytes, section)? {
                let target = layout.symbol(bytes, relocation.symbol)?;
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
        Ok(sections)
    }
}
