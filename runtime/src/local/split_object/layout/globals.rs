//! How a layout finds an object's defined global symbols: the one a lookup
//! names, and those a piece's sections define. The first lookups of each
//! kind scan the symbol table; after [`SCANNED_LOOKUPS`] of them, a table of
//! every global is built for the rest (a scan costs about a tenth of
//! building it). A layout saved by an earlier run holds both tables.

use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher;

use crate::local::split_object::{
    elf::{SHN_LORESERVE, SHN_UNDEF, STV_PROTECTED, SYMBOL_SIZE, Table, string_at, u16_in, u32_in},
    saved_layout::SavedLayout,
};

/// How many lookups of a kind scan the symbol table before its globals are
/// indexed for them.
const SCANNED_LOOKUPS: usize = 8;

/// What of an object a search for its globals reads.
pub struct SymbolTable<'a> {
    /// The symbol table's entries.
    pub entries: &'a [u8],
    /// Its string table.
    pub names: &'a [u8],
    pub first_global: usize,
    /// Whether each section is part of the program image.
    pub allocated: &'a [bool],
}

impl<'a> SymbolTable<'a> {
    /// The globals defined in an allocated section: each one's index, its
    /// section, and its entry.
    fn defined_globals(
        &self,
    ) -> impl DoubleEndedIterator<Item = (usize, usize, &'a [u8; SYMBOL_SIZE])> + '_ {
        let (entries, _) = self.entries.as_chunks::<SYMBOL_SIZE>();
        entries
            .iter()
            .enumerate()
            .skip(self.first_global)
            .filter_map(|(index, entry)| Some((index, self.defining_section(entry)?, entry)))
    }

    fn defining_section(&self, entry: &[u8; SYMBOL_SIZE]) -> Option<usize> {
        let section = u16_in(entry, 6);
        if section == SHN_UNDEF || section >= SHN_LORESERVE {
            return None;
        }
        let section = usize::from(section);
        (*self.allocated.get(section)?).then_some(section)
    }

    fn name(&self, entry: &[u8; SYMBOL_SIZE]) -> Option<&'a [u8]> {
        let whole = Table {
            offset: 0,
            size: self.names.len(),
        };
        string_at(self.names, whole, u32_in(entry, 0))
    }

    /// Whether `entry` names `name`: the terminator first, one byte, which
    /// tells the names of other lengths apart.
    fn has_name(&self, entry: &[u8; SYMBOL_SIZE], name: &[u8]) -> bool {
        let start = u32_in(entry, 0) as usize;
        let Some(end) = start.checked_add(name.len()) else {
            return false;
        };
        self.names.get(end) == Some(&0) && self.names.get(start..end) == Some(name)
    }

    /// Whether symbol `index` is a defined global called `name`.
    fn is_defined(&self, index: usize, name: &[u8]) -> bool {
        let (entries, _) = self.entries.as_chunks::<SYMBOL_SIZE>();
        entries.get(index).is_some_and(|entry| {
            index >= self.first_global
                && self.defining_section(entry).is_some()
                && self.has_name(entry, name)
        })
    }

    /// Whether every defined global is visible outside its object (default
    /// or protected visibility): each could then be looked up in a shared
    /// library linked from it, as in the object.
    pub fn every_global_visible(&self) -> bool {
        self.defined_globals()
            .all(|(_, _, entry)| matches!(entry[5] & 3, 0 | STV_PROTECTED))
    }

    /// Whether the object refers to a symbol of one of `names` that it does
    /// not define.
    pub fn refers_to_any(&self, names: &[&[u8]]) -> bool {
        let (entries, _) = self.entries.as_chunks::<SYMBOL_SIZE>();
        entries.iter().skip(self.first_global).any(|entry| {
            u16_in(entry, 6) == SHN_UNDEF
                && self.name(entry).is_some_and(|name| names.contains(&name))
        })
    }

    /// Each defined global's name and index.
    pub fn named_globals(&self) -> Vec<(&'a [u8], u32)> {
        self.defined_globals()
            .filter_map(|(index, _, entry)| Some((self.name(entry)?, u32::try_from(index).ok()?)))
            .collect()
    }

    /// The defined globals by section: a counting sort (a list of (section,
    /// symbol) pairs to sort would be new memory, each of whose pages is a
    /// page fault, several times the size of the result).
    pub fn globals_by_section(&self) -> GlobalsBySection {
        // How many globals each section defines (`start[s + 1]` for section
        // `s`), then their running totals: the end of each section's globals.
        let mut start = vec![0u32; self.allocated.len() + 2];
        let mut count = 0;
        for (_, section, _) in self.defined_globals() {
            start[section + 1] += 1;
            count += 1;
        }
        for section in 1..start.len() {
            start[section] += start[section - 1];
        }
        // Then each global into its place, last first, so that a section's
        // end moves back to its start and its symbols stay in table order.
        let mut globals = vec![0; count];
        for (index, section, _) in self.defined_globals().rev() {
            let slot = &mut start[section + 1];
            *slot -= 1;
            // Symbols are counted in 32 bits (checked by `Layout::read`).
            globals[*slot as usize] = index as u32;
        }
        GlobalsBySection { globals, start }
    }
}

/// The global symbols each allocated section defines: section `s`'s are
/// `globals[start[s + 1]..start[s + 2]]`.
pub struct GlobalsBySection {
    pub globals: Vec<u32>,
    pub start: Vec<u32>,
}

/// Where a layout looks its globals up.
#[derive(Default)]
pub struct Globals {
    name_lookups: usize,
    /// Defined globals by the hash of their name, and whether two names
    /// had the same hash (a lookup then also scans).
    by_name: Option<(FxHashMap<u64, u32>, bool)>,
    section_lookups: usize,
    by_section: Option<GlobalsBySection>,
    saved: Option<SavedLayout>,
}

impl Globals {
    /// Those of a layout saved by an earlier run.
    pub fn saved(saved: SavedLayout) -> Self {
        Self {
            saved: Some(saved),
            ..Self::default()
        }
    }

    pub fn saved_layout(&self) -> Option<&SavedLayout> {
        self.saved.as_ref()
    }

    /// The index of the defined global called `name`.
    pub fn named(&mut self, table: &SymbolTable, name: &[u8]) -> Option<usize> {
        if let Some(saved) = &self.saved {
            return saved
                .globals_named(name)
                .map(|index| index as usize)
                .find(|&index| table.is_defined(index, name));
        }
        self.name_lookups += 1;
        if self.by_name.is_none() && self.name_lookups > SCANNED_LOOKUPS {
            let mut by_hash = FxHashMap::default();
            let mut collisions = false;
            for (name, index) in table.named_globals() {
                collisions |= *by_hash.entry(name_hash(name)).or_insert(index) != index;
            }
            self.by_name = Some((by_hash, collisions));
        }
        let Some((by_hash, collisions)) = &self.by_name else {
            return scan(table, name);
        };
        let hashed = by_hash
            .get(&name_hash(name))
            .map(|&index| index as usize)
            .filter(|&index| table.is_defined(index, name));
        if hashed.is_some() || !collisions {
            return hashed;
        }
        scan(table, name)
    }

    /// The global symbols each of `sections` (ascending) defines, in the
    /// order of the symbol table.
    pub fn defined_in(&mut self, table: &SymbolTable, sections: &[usize]) -> Vec<Vec<u32>> {
        if let Some(saved) = &self.saved {
            let found: Option<Vec<_>> = sections
                .iter()
                .map(|&section| saved.globals_of(section))
                .collect();
            if let Some(found) = found {
                return found;
            }
        }
        self.section_lookups += 1;
        if self.by_section.is_none() && self.section_lookups > SCANNED_LOOKUPS {
            self.by_section = Some(table.globals_by_section());
        }
        if let Some(index) = &self.by_section {
            return sections
                .iter()
                .map(|&section| {
                    let start = index.start[section + 1] as usize;
                    let end = index.start[section + 2] as usize;
                    index.globals[start..end].to_vec()
                })
                .collect();
        }
        let mut found = vec![Vec::new(); sections.len()];
        let (Some(&lowest), Some(&highest)) = (sections.first(), sections.last()) else {
            return found;
        };
        // Only each symbol's section index is read: the section is one of
        // `sections`, whose symbols `check_globals` checked.
        let (entries, _) = table.entries.as_chunks::<SYMBOL_SIZE>();
        for (index, entry) in entries.iter().enumerate().skip(table.first_global) {
            let section = usize::from(u16_in(entry, 6));
            if section < lowest || section > highest {
                continue;
            }
            if let Ok(position) = sections.binary_search(&section) {
                found[position].push(index as u32);
            }
        }
        found
    }
}

/// The first defined global called `name`, by reading every global's name.
fn scan(table: &SymbolTable, name: &[u8]) -> Option<usize> {
    let (entries, _) = table.entries.as_chunks::<SYMBOL_SIZE>();
    entries
        .iter()
        .enumerate()
        .skip(table.first_global)
        .filter(|(_, entry)| table.has_name(entry, name))
        .find(|(_, entry)| table.defining_section(entry).is_some())
        .map(|(index, _)| index)
}

fn name_hash(name: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name);
    hasher.finish()
}
