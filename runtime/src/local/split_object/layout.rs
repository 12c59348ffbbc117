//! What split_object reads of an object, and when. `send_binary` of a large
//! object is timed against `dlopen` (docs/performance.md), which reads almost
//! nothing, so what is read when the object is sent is only what decides
//! whether it can be split at all: its section headers, its global symbols
//! and its unwind entries' framing, each in one pass without building
//! anything; and, with the last, whether the sections those entries describe
//! ascend, as compilers write them. What a piece needs (its symbol, the
//! globals its sections define) is looked up when the piece is written
//! (globals.rs); its unwind entries, by binary search (or, when their
//! sections do not ascend, in a table of them sorted at the first piece).
//!
//! An object of many sections sent again, in a later run, is not read: its
//! layout was saved ([`Layout::save`], saved_layout.rs) with the tables
//! those lookups need, and [`Layout::from_saved`] reads that instead.

mod globals;
mod saved;

use self::globals::{Globals, SymbolTable};
use super::eh_frame_check::{DescribedOrder, check_eh_frame};
use super::elf::{
    EM_X86_64, ET_REL, RELOCATION_SIZE, Relocation, SECTION_HEADER_SIZE, SHF_ALLOC, SHF_EXECINSTR,
    SHF_GROUP, SHF_LINK_ORDER, SHF_MERGE, SHF_STRINGS, SHF_TLS, SHF_WRITE, SHN_LORESERVE,
    SHN_UNDEF, SHN_XINDEX, SHT_GROUP, SHT_NOBITS, SHT_PROGBITS, SHT_REL, SHT_RELA, SHT_STRTAB,
    SHT_SYMTAB, SHT_SYMTAB_SHNDX, SHT_X86_64_UNWIND, STB_LOCAL, STT_FILE, STT_GNU_IFUNC,
    STT_SECTION, STT_TLS, SYMBOL_SIZE, Section, Symbol, Table, fixup_width, string_at, u16_at,
    u16_in, u32_at, u64_at, u64_in,
};

/// The largest section alignment of an object linked a piece at a time: a
/// compiler writes page alignment at most, and a piece is as large as its
/// alignments.
const MAX_ALIGNMENT: u64 = 1 << 16;

pub struct Layout {
    section_table: usize,
    section_count: usize,
    section_names: Table,
    symbols: Table,
    /// The symbol table's section.
    symbol_section: usize,
    symbol_count: usize,
    first_global: usize,
    symbol_names: Table,
    /// Each section's relocation section, 0 for none (section indices fit in
    /// 16 bits: larger counts use extended numbering, linked whole).
    relocations_of: Vec<u16>,
    /// Whether each section is part of the program image (SHF_ALLOC).
    allocated: Vec<bool>,
    /// `.eh_frame`, checked to hold only what a piece can carry.
    eh_frame: Option<usize>,
    globals: Globals,
    /// Found when the object is read if its entries' sections ascend;
    /// otherwise at the first piece that carries unwind entries.
    fde_order: Option<FdeOrder>,
}

/// How the unwind entries of a section are found among the relocations of
/// `.eh_frame`, one per entry (its initial location), in `.eh_frame`'s order.
enum FdeOrder {
    /// Those relocations name the sections in ascending order, as compilers
    /// write them: a section's are found by binary search.
    Ascending,
    /// Otherwise: (section, relocation) pairs sorted by section.
    Table(Vec<(u32, u32)>),
}

/// An entry of a pool of constants ([`Layout::pooled_constant`]).
pub struct PooledConstant {
    /// The pool's section.
    pub section: usize,
    /// Where the entry's bytes are in the object.
    pub bytes: std::ops::Range<usize>,
    /// Where its label is in the entry.
    pub label_offset: u64,
    /// The pool's alignment, which each entry has (as a linker merging the
    /// pool places them).
    pub align: u64,
}

/// A frame description entry: where it is in `.eh_frame`, its CIE, and its
/// one relocation (of its initial location) in `.rela.eh_frame`.
#[derive(Clone, Copy)]
pub struct Fde {
    pub offset: u32,
    pub length: u32,
    pub cie: u32,
    pub relocation: u32,
}

impl Layout {
    /// The layout of an object to link a piece at a time; `None` for one to
    /// link whole (not an x86-64 ELF relocatable object with more than one
    /// section of code, or holding something a piece cannot carry:
    /// initializers, thread-local data, COMDAT groups, REL relocations,
    /// extended section numbering, global symbols [`Layout::carried`]
    /// refuses, unwind entries with a personality or an LSDA).
    pub fn read(bytes: &[u8]) -> Option<Self> {
        if bytes.get(..4)? != b"\x7fELF" || bytes.get(4..6)? != [2, 1] {
            return None;
        }
        if u16_at(bytes, 16)? != ET_REL
            || u16_at(bytes, 18)? != EM_X86_64
            || usize::from(u16_at(bytes, 58)?) != SECTION_HEADER_SIZE
        {
            return None;
        }
        let section_table = usize::try_from(u64_at(bytes, 40)?).ok()?;
        // Extended numbering (a count or an index that does not fit in the
        // header) is kept in section 0: such objects are linked whole.
        let section_count = usize::from(u16_at(bytes, 60)?);
        let names_index = u16_at(bytes, 62)?;
        if section_count == 0 || names_index == SHN_XINDEX {
            return None;
        }
        let headers = bytes.get(
            section_table
                ..section_table.checked_add(section_count.checked_mul(SECTION_HEADER_SIZE)?)?,
        )?;
        let mut relocations_of = vec![0; section_count];
        let mut allocated = vec![false; section_count];
        let mut symbol_table = None;
        let mut eh_frame = None;
        let mut code_sections = 0;
        // Candidates for GNU as's `.eh_frame`, which it writes as data
        // (SHT_PROGBITS) where LLVM writes SHT_X86_64_UNWIND.
        let mut read_only_data = Vec::new();
        // Candidates for legacy constructors and destructors (`.ctors`,
        // `.dtors`: tables of pointers, with relocations), which no piece
        // would link: the object is linked whole, where they are refused.
        let mut writable_data = Vec::new();
        // Fixed-size entries, whose fields are read without checks.
        let (headers, _) = headers.as_chunks::<SECTION_HEADER_SIZE>();
        for (index, header) in headers.iter().enumerate().skip(1) {
            let field = |at: usize| u64_in(header, at);
            // sh_type and sh_info are the low halves of 8-byte fields.
            let kind = field(0) >> 32;
            let flags = field(8);
            // Sections outside the program image: a symbol table, the
            // relocation sections, strings and the like.
            if flags & SHF_ALLOC == 0 {
                match kind as u32 {
                    SHT_RELA => {
                        let target = field(40) >> 32;
                        let slot = relocations_of.get_mut(usize::try_from(target).ok()?)?;
                        if *slot != 0 {
                            return None;
                        }
                        *slot = u16::try_from(index).ok()?;
                    }
                    SHT_SYMTAB if symbol_table.is_none() => symbol_table = Some(index),
                    SHT_SYMTAB | SHT_SYMTAB_SHNDX | SHT_REL | SHT_GROUP => return None,
                    _ => {}
                }
                continue;
            }
            if flags & (SHF_TLS | SHF_GROUP | SHF_LINK_ORDER) != 0 || field(48) > MAX_ALIGNMENT {
                return None;
            }
            match kind as u32 {
                SHT_PROGBITS if flags & (SHF_EXECINSTR | SHF_WRITE) == 0 => {
                    read_only_data.push(index);
                }
                SHT_PROGBITS if flags & SHF_EXECINSTR == 0 => writable_data.push(index),
                SHT_PROGBITS => code_sections += 1,
                SHT_NOBITS => {}
                SHT_X86_64_UNWIND if eh_frame.is_none() => eh_frame = Some(index),
                // Initializers (SHT_INIT_ARRAY, ...), notes and the like.
                _ => return None,
            }
            allocated[index] = true;
        }
        // One section of code holds every function: a piece would be all of it.
        if code_sections < 2 {
            return None;
        }
        let mut layout = Self {
            section_table,
            section_count,
            section_names: Table::default(),
            symbols: Table::default(),
            symbol_section: 0,
            symbol_count: 0,
            first_global: 0,
            symbol_names: Table::default(),
            relocations_of,
            allocated,
            eh_frame: None,
            globals: Globals::default(),
            fde_order: None,
        };
        let names = layout.section(bytes, usize::from(names_index))?;
        layout.section_names = layout.contents(bytes, &names)?;
        // Found by its name, as LLVM's linker finds it: otherwise no piece
        // would carry its entries, and nothing could unwind through the
        // functions it describes (exceptions, backtraces).
        for index in read_only_data {
            let section = layout.section(bytes, index)?;
            let name = layout.section_name(bytes, &section)?;
            if is_legacy_initializers(name) {
                return None;
            }
            if name == b".eh_frame" {
                if eh_frame.is_some() {
                    return None;
                }
                eh_frame = Some(index);
            }
        }
        // Only a table with relocations can hold pointers to functions.
        for index in writable_data {
            if layout.relocations_of[index] == 0 {
                continue;
            }
            let section = layout.section(bytes, index)?;
            if is_legacy_initializers(layout.section_name(bytes, &section)?) {
                return None;
            }
        }
        layout.symbol_section = symbol_table?;
        let symbol_table = layout.section(bytes, layout.symbol_section)?;
        if usize::try_from(symbol_table.entry_size).ok()? != SYMBOL_SIZE {
            return None;
        }
        layout.symbols = layout.contents(bytes, &symbol_table)?;
        layout.symbol_count = layout.symbols.size / SYMBOL_SIZE;
        u32::try_from(layout.symbol_count).ok()?;
        layout.first_global = usize::try_from(symbol_table.info).ok()?;
        let symbol_names = layout.section(bytes, usize::try_from(symbol_table.link).ok()?)?;
        if symbol_names.kind != SHT_STRTAB {
            return None;
        }
        layout.symbol_names = layout.contents(bytes, &symbol_names)?;
        layout.check_globals(bytes)?;
        if let Some(section) = eh_frame {
            let contents = layout.contents(bytes, &layout.section(bytes, section)?)?;
            let frame = bytes.get(contents.offset..contents.offset + contents.size)?;
            let relocations = layout.relocation_entries(bytes, section).ok()?;
            let symbols = layout.symbol_entries(bytes);
            let order = check_eh_frame(frame, relocations, |symbol| {
                layout.described_section(symbols, symbol as usize)
            })?;
            if order == DescribedOrder::Ascending {
                layout.fde_order = Some(FdeOrder::Ascending);
            }
        }
        layout.eh_frame = eh_frame;
        Some(layout)
    }

    /// `Some` when no global symbol is of a kind a piece cannot carry (see
    /// [`Layout::carried`]): one pass over the globals, the last third of a
    /// table of function sections. Local symbols are checked as pieces reach
    /// them.
    fn check_globals(&self, bytes: &[u8]) -> Option<()> {
        // Fixed-size entries, whose fields are read without checks.
        let (entries, _) = self.symbol_entries(bytes).as_chunks::<SYMBOL_SIZE>();
        let first = self.first_global.max(1);
        for (index, entry) in entries.iter().enumerate().skip(first) {
            let symbol = Symbol {
                info: entry[4],
                section: u16_in(entry, 6),
                ..Symbol::default()
            };
            self.carried(index, &symbol).ok()?;
        }
        Some(())
    }

    /// Whether a piece can carry symbol `index`; if not, what it is. A
    /// thread-local or indirect (ifunc) symbol, or an absolute, common or
    /// extended-index one, needs what only linking the object whole gives.
    #[inline]
    pub fn carried(&self, index: usize, symbol: &Symbol) -> Result<(), &'static str> {
        let kind = symbol.kind();
        if kind == STT_TLS {
            return Err("thread-local");
        }
        if kind == STT_GNU_IFUNC {
            return Err("an indirect function (ifunc)");
        }
        if kind == STT_FILE || symbol.section == SHN_UNDEF {
            return Ok(());
        }
        if symbol.section >= SHN_LORESERVE {
            return Err("absolute, common or of an extended section index");
        }
        if (index < self.first_global) != (symbol.binding() == STB_LOCAL) {
            return Err("bound otherwise than its place in the symbol table says");
        }
        Ok(())
    }

    pub fn section_count(&self) -> usize {
        self.section_count
    }

    pub fn section(&self, bytes: &[u8], index: usize) -> Option<Section> {
        if index >= self.section_count {
            return None;
        }
        Section::read(bytes.get(self.section_table + index * SECTION_HEADER_SIZE..)?)
    }

    /// Where a section's bytes are, checked to be within the object.
    pub fn contents(&self, bytes: &[u8], section: &Section) -> Option<Table> {
        let size = usize::try_from(section.size).ok()?;
        bytes.get(section.offset..section.offset.checked_add(size)?)?;
        Some(Table {
            offset: section.offset,
            size,
        })
    }

    pub fn section_name<'a>(&self, bytes: &'a [u8], section: &Section) -> Option<&'a [u8]> {
        string_at(bytes, self.section_names, section.name)
    }

    pub fn symbol(&self, bytes: &[u8], index: usize) -> Result<Symbol, String> {
        let entry = (index < self.symbol_count)
            .then(|| bytes.get(self.symbols.offset + index * SYMBOL_SIZE..))
            .flatten();
        entry
            .and_then(Symbol::read)
            .ok_or_else(|| self.missing_symbol(index))
    }

    fn missing_symbol(&self, index: usize) -> String {
        format!(
            "malformed object: a relocation names symbol {index}, and the symbol table has {}",
            self.symbol_count
        )
    }

    pub fn symbol_name<'a>(&self, bytes: &'a [u8], symbol: &Symbol) -> Option<&'a [u8]> {
        string_at(bytes, self.symbol_names, symbol.name)
    }

    /// The allocated section that defines `symbol`, if any.
    pub fn defining_section(&self, symbol: &Symbol) -> Option<usize> {
        if symbol.section == SHN_UNDEF || symbol.section >= SHN_LORESERVE {
            return None;
        }
        let section = usize::from(symbol.section);
        (*self.allocated.get(section)?).then_some(section)
    }

    /// The global symbols each of `sections` (ascending) defines, in the
    /// order of the symbol table.
    pub fn globals_defined_in(&mut self, bytes: &[u8], sections: &[usize]) -> Vec<Vec<u32>> {
        // Taken out for the call, which reads the rest of the layout.
        let mut globals = std::mem::take(&mut self.globals);
        let found = globals.defined_in(&self.symbol_table(bytes), sections);
        self.globals = globals;
        found
    }

    /// The constant `symbol` labels, when it is an entry of a pool of
    /// constants (a read-only section of fixed-size entries that a linker
    /// may merge, `.rodata.cst8` and the like) that a piece copies instead of
    /// linking the pool: a local label, not the section's symbol, whose
    /// relocations mean the entry it labels (as a linker merging the pool
    /// reads them), whatever their addend.
    pub fn pooled_constant(&self, bytes: &[u8], symbol: &Symbol) -> Option<PooledConstant> {
        if symbol.binding() != STB_LOCAL || symbol.kind() == STT_SECTION {
            return None;
        }
        let section = self.defining_section(symbol)?;
        let header = self.section(bytes, section)?;
        if header.kind != SHT_PROGBITS
            || header.flags & SHF_MERGE == 0
            || header.flags & (SHF_WRITE | SHF_EXECINSTR | SHF_STRINGS) != 0
            || header.entry_size == 0
            || header.entry_size > MAX_ALIGNMENT
        {
            return None;
        }
        let entry = symbol.value - symbol.value % header.entry_size;
        let contents = self.contents(bytes, &header)?;
        let start = contents.offset.checked_add(usize::try_from(entry).ok()?)?;
        let end = start.checked_add(usize::try_from(header.entry_size).ok()?)?;
        if end > contents.offset + contents.size {
            return None;
        }
        Some(PooledConstant {
            section,
            bytes: start..end,
            label_offset: symbol.value - entry,
            align: header.align.max(1),
        })
    }

    /// `.eh_frame`'s section, if the object has one.
    pub fn eh_frame(&self) -> Option<usize> {
        self.eh_frame
    }

    /// The unwind entries describing the functions of `sections`, in their
    /// order (and within one section, in `.eh_frame`'s).
    pub fn fdes_describing(
        &mut self,
        bytes: &[u8],
        sections: &[usize],
    ) -> Result<Vec<Fde>, String> {
        let Some(frame) = self.eh_frame else {
            return Ok(Vec::new());
        };
        let relocations = self.relocation_entries(bytes, frame)?;
        let count = relocations.len() / RELOCATION_SIZE;
        let symbols = self.symbol_entries(bytes);
        if self.fde_order.is_none() {
            self.fde_order = Some(self.order_fdes(symbols, relocations)?);
        }
        let mut fdes = Vec::new();
        for &section in sections {
            // A saved range past the relocations is damaged: not used.
            let saved = self
                .globals
                .saved_layout()
                .and_then(|saved| saved.fdes_of(section))
                .filter(|range| range.end <= count);
            let section = section as u32;
            let described: Vec<usize> = match &self.fde_order {
                _ if saved.is_some() => saved.into_iter().flatten().collect(),
                Some(FdeOrder::Table(table)) => {
                    let start = table.partition_point(|(described, _)| *described < section);
                    let end = table.partition_point(|(described, _)| *described <= section);
                    table[start..end]
                        .iter()
                        .map(|(_, relocation)| *relocation as usize)
                        .collect()
                }
                _ => {
                    // Every key was read by `order_fdes`: none fails here.
                    let key = |relocation| self.fde_key(symbols, relocations, relocation).ok();
                    let start = partition_point(count, |at| key(at) < Some(section));
                    let end = partition_point(count, |at| key(at) <= Some(section));
                    (start..end).collect()
                }
            };
            for relocation in described {
                fdes.push(self.fde(bytes, frame, relocations, relocation)?);
            }
        }
        Ok(fdes)
    }

    /// Whether the relocations of `.eh_frame` (`relocations`) name sections
    /// in ascending order; if not, the table of them by section.
    fn order_fdes(&self, symbols: &[u8], relocations: &[u8]) -> Result<FdeOrder, String> {
        let count = relocations.len() / RELOCATION_SIZE;
        let mut previous = 0;
        for relocation in 0..count {
            let key = self.fde_key(symbols, relocations, relocation)?;
            if key < previous {
                let mut table = Vec::with_capacity(count);
                for relocation in 0..count {
                    let key = self.fde_key(symbols, relocations, relocation)?;
                    if key != u32::MAX {
                        table.push((key, relocation as u32));
                    }
                }
                table.sort_by_key(|(described, _)| *described);
                return Ok(FdeOrder::Table(table));
            }
            previous = key;
        }
        Ok(FdeOrder::Ascending)
    }

    /// The section that unwind entry's relocation `relocation` names, or
    /// `u32::MAX` when no allocated section (an entry no piece carries).
    /// Only the symbol's section index is read: this runs for every entry.
    #[inline]
    fn fde_key(
        &self,
        symbols: &[u8],
        relocations: &[u8],
        relocation: usize,
    ) -> Result<u32, String> {
        // The symbol's index is the high half of the entry's 8-byte r_info.
        let at = relocation * RELOCATION_SIZE + 12;
        let index = u32_at(relocations, at)
            .ok_or_else(|| "malformed object: .rela.eh_frame".to_owned())?
            as usize;
        self.described_section(symbols, index)
            .ok_or_else(|| self.missing_symbol(index))
    }

    /// The allocated section symbol `index` is defined in, or `u32::MAX`
    /// when none; `None` when the symbol table (`symbols`) has no such
    /// symbol.
    #[inline]
    fn described_section(&self, symbols: &[u8], index: usize) -> Option<u32> {
        let (symbols, _) = symbols.as_chunks::<SYMBOL_SIZE>();
        let entry = symbols.get(index)?;
        let section = u16_in(entry, 6);
        // SHN_UNDEF and the reserved indexes are not allocated sections;
        // sections are counted in 16 bits (checked by `read`).
        let allocated = section != SHN_UNDEF
            && self
                .allocated
                .get(usize::from(section))
                .is_some_and(|&allocated| allocated);
        Some(if allocated {
            u32::from(section)
        } else {
            u32::MAX
        })
    }

    /// The symbol table's entries.
    fn symbol_entries<'a>(&self, bytes: &'a [u8]) -> &'a [u8] {
        bytes
            .get(self.symbols.offset..self.symbols.offset + self.symbol_count * SYMBOL_SIZE)
            .unwrap_or_default()
    }

    /// The unwind entry whose initial location is `.eh_frame`'s relocation
    /// `relocation` (`check_eh_frame` checked each is an entry's, 8 bytes
    /// into it, and that each entry's CIE is one).
    fn fde(
        &self,
        bytes: &[u8],
        frame: usize,
        relocations: &[u8],
        relocation: usize,
    ) -> Result<Fde, String> {
        let malformed = || "malformed object: an entry of .eh_frame".to_owned();
        let contents = self
            .section(bytes, frame)
            .and_then(|header| self.contents(bytes, &header))
            .ok_or_else(malformed)?;
        let frame_bytes = &bytes[contents.offset..contents.offset + contents.size];
        let offset = u64_at(relocations, relocation * RELOCATION_SIZE)
            .and_then(|at| at.checked_sub(8))
            .and_then(|at| u32::try_from(at).ok())
            .ok_or_else(malformed)?;
        let length = u32_at(frame_bytes, offset as usize)
            .and_then(|length| length.checked_add(4))
            .ok_or_else(malformed)?;
        let cie = u32_at(frame_bytes, offset as usize + 4)
            .and_then(|pointer| (offset + 4).checked_sub(pointer))
            .ok_or_else(malformed)?;
        Ok(Fde {
            offset,
            length,
            cie,
            relocation: relocation as u32,
        })
    }

    /// The defined global symbol called `name`.
    pub fn global(&mut self, bytes: &[u8], name: &[u8]) -> Option<Symbol> {
        // Taken out for the call, which reads the rest of the layout.
        let mut globals = std::mem::take(&mut self.globals);
        let index = globals.named(&self.symbol_table(bytes), name);
        self.globals = globals;
        self.symbol(bytes, index?).ok()
    }

    /// Whether a shared library linked from the object behaves as the object
    /// linked here: every global the object defines is visible outside it
    /// (the library exports each one), and it registers nothing to run at
    /// exit (a library's registrations go to the C library, which runs them
    /// at `exit` before the runtime has closed its sessions; an object's run
    /// at `close`).
    pub fn links_as_library(&self, bytes: &[u8]) -> bool {
        const AT_EXIT: [&[u8]; 6] = [
            b"atexit",
            b"on_exit",
            b"at_quick_exit",
            b"__cxa_atexit",
            b"__cxa_thread_atexit",
            b"__cxa_thread_atexit_impl",
        ];
        let table = self.symbol_table(bytes);
        table.every_global_visible() && !table.refers_to_any(&AT_EXIT)
    }

    /// What a search for the object's globals reads.
    fn symbol_table<'a>(&'a self, bytes: &'a [u8]) -> SymbolTable<'a> {
        let within = |table: Table, size: usize| {
            bytes
                .get(table.offset..table.offset + size)
                .unwrap_or_default()
        };
        SymbolTable {
            entries: within(self.symbols, self.symbol_count * SYMBOL_SIZE),
            names: within(self.symbol_names, self.symbol_names.size),
            first_global: self.first_global,
            allocated: &self.allocated,
        }
    }

    /// The relocations of `section` (none when it has no relocation section),
    /// each checked to patch bytes of the section: LLVM's linker writes
    /// where a relocation says without checking, so one outside a piece's
    /// small allocation would corrupt or crash the process.
    pub fn relocations(&self, bytes: &[u8], section: usize) -> Result<Vec<Relocation>, String> {
        let entries = self.relocation_entries(bytes, section)?;
        if entries.is_empty() {
            return Ok(Vec::new());
        }
        let header = self
            .section(bytes, section)
            .ok_or_else(|| self.malformed_relocations(section))?;
        // Section contents without bytes in the file (SHT_NOBITS) have none
        // to patch.
        let size = if header.kind == SHT_NOBITS {
            0
        } else {
            header.size
        };
        entries
            .chunks_exact(RELOCATION_SIZE)
            .map(|entry| {
                let relocation =
                    Relocation::read(entry).ok_or_else(|| self.malformed_relocations(section))?;
                let patched = relocation.offset.checked_add(fixup_width(relocation.kind));
                if patched.is_none_or(|end| end > size) {
                    return Err(format!(
                        "malformed object: a relocation of section {section} patches offset {:#x}, \
                         outside the section's {size} bytes",
                        relocation.offset
                    ));
                }
                Ok(relocation)
            })
            .collect()
    }

    /// The relocation `index` of `section`.
    pub fn relocation(
        &self,
        bytes: &[u8],
        section: usize,
        index: usize,
    ) -> Result<Relocation, String> {
        self.relocation_entries(bytes, section)?
            .chunks_exact(RELOCATION_SIZE)
            .nth(index)
            .and_then(Relocation::read)
            .ok_or_else(|| self.malformed_relocations(section))
    }

    fn relocation_entries<'a>(&self, bytes: &'a [u8], section: usize) -> Result<&'a [u8], String> {
        let index = self.relocations_of[section] as usize;
        if index == 0 {
            return Ok(&[]);
        }
        self.section(bytes, index)
            .and_then(|header| self.contents(bytes, &header))
            .and_then(|table| bytes.get(table.offset..table.offset + table.size))
            .ok_or_else(|| self.malformed_relocations(section))
    }

    fn malformed_relocations(&self, section: usize) -> String {
        format!("malformed object: the relocation section of section {section} is outside the file")
    }
}

/// Whether a section of this name holds legacy constructors or destructors:
/// `.ctors`, `.dtors`, or one of them with a priority (`.ctors.00101`).
fn is_legacy_initializers(name: &[u8]) -> bool {
    [b".ctors".as_slice(), b".dtors"].iter().any(|legacy| {
        name.strip_prefix(*legacy)
            .is_some_and(|rest| rest.is_empty() || rest.first() == Some(&b'.'))
    })
}

/// The first of `0..count` for which `below` is false, `below` being true
/// for a prefix of it (as `slice::partition_point`, for a sequence that is
/// computed, not stored).
fn partition_point(count: usize, below: impl Fn(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if below(middle) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low
}
