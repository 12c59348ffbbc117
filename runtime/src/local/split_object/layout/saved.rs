//! A layout saved by an earlier run (saved_layout.rs): what it holds, the
//! layout made from it, and the checks that keep it honest. A saved layout
//! is found by its object file's identity, which a file changed in place can
//! keep (written through a shared mapping, its times need not change), and
//! its file may be damaged; so [`Layout::from_saved`] checks the tables it
//! names against the object's headers, and [`Layout::fits`] checks what a
//! piece takes from it (its sections' relocation sections, the globals they
//! define, their unwind entries) against the object's own section headers
//! and symbols before the piece is written. A layout that does not fit is
//! read anew (split_object's `link_defining`).

use super::{Fde, FdeOrder, Layout, globals::Globals};
use crate::local::{
    object_bytes::FileIdentity,
    split_object::{
        elf::{
            RELOCATION_SIZE, SHF_ALLOC, SHT_RELA, SHT_STRTAB, SHT_SYMTAB, STB_LOCAL, SYMBOL_SIZE,
            Table, u16_at, u64_at,
        },
        saved_layout::{Header, SavedLayout, Tables},
    },
};

impl Layout {
    /// The layout `saved` holds, which an earlier [`Layout::read`] of the
    /// same object file found; `None` when it does not fit `bytes`: the
    /// object's section header table, its symbol and string tables and
    /// `.eh_frame` are not where it says.
    pub fn from_saved(bytes: &[u8], saved: SavedLayout) -> Option<Self> {
        let header = *saved.header();
        let table = |(offset, size): (u64, u64)| {
            Some(Table {
                offset: usize::try_from(offset).ok()?,
                size: usize::try_from(size).ok()?,
            })
        };
        let layout = Self {
            section_table: usize::try_from(header.section_table).ok()?,
            section_count: usize::try_from(header.section_count).ok()?,
            section_names: table(header.section_names)?,
            symbols: table(header.symbols)?,
            symbol_section: usize::try_from(header.symbol_section).ok()?,
            symbol_count: usize::try_from(header.symbol_count).ok()?,
            first_global: usize::try_from(header.first_global).ok()?,
            symbol_names: table(header.symbol_names)?,
            relocations_of: saved.relocations_of(),
            allocated: saved.allocated(),
            eh_frame: (header.eh_frame != 0).then_some(usize::try_from(header.eh_frame).ok()?),
            fde_order: header.fdes_ascending.then_some(FdeOrder::Ascending),
            globals: Globals::saved(saved),
        };
        layout.tables_fit(bytes).then_some(layout)
    }

    /// Whether the tables this layout names are the object's.
    fn tables_fit(&self, bytes: &[u8]) -> bool {
        let same = |index: usize, table: Table| {
            self.section(bytes, index)
                .and_then(|section| self.contents(bytes, &section))
                .is_some_and(|found| (found.offset, found.size) == (table.offset, table.size))
        };
        let Some(symbols) = self.section(bytes, self.symbol_section) else {
            return false;
        };
        let names = self.section(bytes, symbols.link as usize);
        let eh_frame_fits = self.eh_frame.is_none_or(|frame| {
            self.allocated.get(frame) == Some(&true)
                && self
                    .section(bytes, frame)
                    .and_then(|section| self.section_name(bytes, &section))
                    == Some(b".eh_frame")
                && self
                    .relocations_of
                    .get(frame)
                    .is_some_and(|&index| self.relocates(bytes, usize::from(index), frame))
        });
        u64_at(bytes, 40) == Some(self.section_table as u64)
            && u16_at(bytes, 60).map(usize::from) == Some(self.section_count)
            && self.relocations_of.len() == self.section_count
            && self.allocated.len() == self.section_count
            && u16_at(bytes, 62).is_some_and(|index| same(usize::from(index), self.section_names))
            && symbols.kind == SHT_SYMTAB
            && symbols.entry_size == SYMBOL_SIZE as u64
            && symbols.info as usize == self.first_global
            && self.symbol_count.checked_mul(SYMBOL_SIZE) == Some(self.symbols.size)
            && same(self.symbol_section, self.symbols)
            && names.is_some_and(|names| names.kind == SHT_STRTAB)
            && same(symbols.link as usize, self.symbol_names)
            && eh_frame_fits
    }

    /// Whether this layout was saved by an earlier run.
    pub fn is_saved(&self) -> bool {
        self.globals.saved_layout().is_some()
    }

    /// Whether what a piece of `sections` took from a saved layout is what
    /// the object says: each section is allocated, its relocation section
    /// names it and the symbol table, each of `globals` (by section) is a
    /// global it defines, and each of `fdes` describes one of them.
    pub fn fits(
        &self,
        bytes: &[u8],
        sections: &[usize],
        globals: &[Vec<u32>],
        fdes: &[Fde],
    ) -> bool {
        let section_fits = |section: usize| {
            let allocated = self
                .section(bytes, section)
                .is_some_and(|header| header.flags & SHF_ALLOC != 0);
            let relocations = match self.relocations_of[section] {
                // Compilers write a section's relocations next to it: the
                // section after it holds none of them.
                0 => !self.relocates(bytes, section + 1, section),
                index => self.relocates(bytes, usize::from(index), section),
            };
            allocated && relocations
        };
        let globals_fit = sections.iter().zip(globals).all(|(&section, defined)| {
            defined.iter().all(|&index| {
                let index = index as usize;
                self.symbol(bytes, index).is_ok_and(|symbol| {
                    index >= self.first_global
                        && symbol.binding() != STB_LOCAL
                        && usize::from(symbol.section) == section
                })
            })
        });
        let fdes_fit = fdes.iter().all(|fde| {
            self.eh_frame
                .and_then(|frame| self.relocation(bytes, frame, fde.relocation as usize).ok())
                .and_then(|relocation| self.symbol(bytes, relocation.symbol).ok())
                .is_some_and(|symbol| sections.contains(&usize::from(symbol.section)))
        });
        sections.iter().all(|&section| section_fits(section)) && globals_fit && fdes_fit
    }

    /// Whether section `index` is a relocation section of `section`'s, by
    /// the object's own header.
    fn relocates(&self, bytes: &[u8], index: usize, section: usize) -> bool {
        self.section(bytes, index).is_some_and(|header| {
            header.kind == SHT_RELA
                && header.info as usize == section
                && header.link as usize == self.symbol_section
        })
    }

    /// The saved layout of this object, the file of `identity` and
    /// `fingerprint`; `None` when its unwind entries cannot be tabled.
    pub fn save(&self, bytes: &[u8], identity: &FileIdentity, fingerprint: u64) -> Option<Vec<u8>> {
        let part = |table: Table| (table.offset as u64, table.size as u64);
        let header = Header {
            section_table: self.section_table as u64,
            section_count: self.section_count as u64,
            section_names: part(self.section_names),
            symbols: part(self.symbols),
            symbol_section: self.symbol_section as u64,
            symbol_count: self.symbol_count as u64,
            first_global: self.first_global as u64,
            symbol_names: part(self.symbol_names),
            eh_frame: self.eh_frame.unwrap_or(0) as u64,
            fdes_ascending: matches!(self.fde_order, Some(FdeOrder::Ascending)),
        };
        let fde_start = match self.fde_order {
            Some(FdeOrder::Ascending) => self.fde_starts(bytes)?,
            _ => Vec::new(),
        };
        let table = self.symbol_table(bytes);
        let by_section = table.globals_by_section();
        Some(SavedLayout::write(
            identity,
            fingerprint,
            &header,
            &Tables {
                relocations_of: &self.relocations_of,
                allocated: &self.allocated,
                globals: table.named_globals(),
                start: &by_section.start,
                by_section: &by_section.globals,
                fde_start,
            },
        ))
    }

    /// Where each section's unwind entries start among the relocations of
    /// `.eh_frame`, and where the last one's end (their sections ascend);
    /// none without `.eh_frame`.
    fn fde_starts(&self, bytes: &[u8]) -> Option<Vec<u32>> {
        let Some(frame) = self.eh_frame else {
            return Some(Vec::new());
        };
        let relocations = self.relocation_entries(bytes, frame).ok()?;
        let symbols = self.symbol_entries(bytes);
        let mut starts = vec![0u32; self.section_count + 1];
        for relocation in 0..relocations.len() / RELOCATION_SIZE {
            let section = self.fde_key(symbols, relocations, relocation).ok()?;
            // Entries of no allocated section come last, and belong to none.
            if let Some(count) = starts.get_mut(section as usize + 1) {
                *count += 1;
            }
        }
        for section in 1..starts.len() {
            starts[section] += starts[section - 1];
        }
        Some(starts)
    }
}
