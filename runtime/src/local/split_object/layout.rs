//! What split_object reads of an object once, when it is sent: whether it
//! can be split at all, where its tables are, which sections are part of the
//! program image and which relocation section belongs to each, the symbols
//! each section defines and the unwind entries describing it. Each table is
//! read in one pass over its bytes: `send_binary` of a large object is timed
//! against `dlopen` (docs/performance.md), which reads almost nothing.
//! Global names are looked up by scanning the symbol table until a program
//! has looked up enough of them to pay for hashing them all.

use rustc_hash::{FxHashMap, FxHasher};
use std::hash::Hasher;

use super::elf::{
    EM_X86_64, ET_REL, RELOCATION_SIZE, Relocation, SECTION_HEADER_SIZE, SHF_ALLOC, SHF_EXECINSTR,
    SHF_GROUP, SHF_LINK_ORDER, SHF_MERGE, SHF_STRINGS, SHF_TLS, SHF_WRITE, SHN_LORESERVE,
    SHN_UNDEF, SHN_XINDEX, SHT_GROUP, SHT_NOBITS, SHT_PROGBITS, SHT_REL, SHT_RELA, SHT_STRTAB,
    SHT_SYMTAB, SHT_SYMTAB_SHNDX, SHT_X86_64_UNWIND, STB_LOCAL, STT_FILE, STT_GNU_IFUNC,
    STT_SECTION, STT_TLS, SYMBOL_SIZE, Section, Symbol, Table, fixup_width, string_at, u16_at,
    u32_at, u64_at,
};

/// How many lookups by name scan the symbol table before its global names
/// are hashed (a scan costs about a tenth of hashing them all).
const SCANNED_LOOKUPS: usize = 8;

/// The largest section alignment of an object linked a piece at a time: a
/// compiler writes page alignment at most, and a piece is as large as its
/// alignments.
const MAX_ALIGNMENT: u64 = 1 << 16;

pub struct Layout {
    section_table: usize,
    section_count: usize,
    section_names: Table,
    symbols: Table,
    symbol_count: usize,
    first_global: usize,
    symbol_names: Table,
    /// Each section's relocation section, 0 for none (section indices fit in
    /// 16 bits: larger counts use extended numbering, linked whole).
    relocations_of: Vec<u16>,
    /// Whether each section is part of the program image (SHF_ALLOC).
    allocated: Vec<bool>,
    /// The global symbols each allocated section defines: section `s`'s
    /// are `globals[globals_start[s + 1]..globals_start[s + 2]]`.
    globals: Vec<u32>,
    globals_start: Vec<u32>,
    /// Whether each section defines local symbols (its section symbol too).
    defines_locals: Vec<bool>,
    eh_frame: Option<EhFrame>,
    global_names: GlobalNames,
}

#[derive(Default)]
struct GlobalNames {
    lookups: usize,
    /// Defined global symbols by the hash of their name.
    by_hash: Option<FxHashMap<u64, u32>>,
    /// Whether two names had the same hash (a lookup then also scans).
    collisions: bool,
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

/// The object's `.eh_frame`, its entries by the section each describes.
pub struct EhFrame {
    pub section: usize,
    /// Each entry and the section it describes, in the order of sections
    /// (and within one section, of `.eh_frame`).
    fdes: Vec<(u32, Fde)>,
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
    /// extended section numbering, absolute or common symbols, unwind
    /// entries with a personality or an LSDA).
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
        for (index, header) in headers
            .chunks_exact(SECTION_HEADER_SIZE)
            .enumerate()
            .skip(1)
        {
            // A copy of fixed size, whose fields are read without checks.
            let header: [u8; SECTION_HEADER_SIZE] = header.try_into().ok()?;
            let field = |at: usize| {
                u64::from_le_bytes([
                    header[at],
                    header[at + 1],
                    header[at + 2],
                    header[at + 3],
                    header[at + 4],
                    header[at + 5],
                    header[at + 6],
                    header[at + 7],
                ])
            };
            // sh_type and sh_info are the low halves of 8-byte fields.
            let kind = field(0) >> 32;
            let flags = field(8);
            match kind as u32 {
                SHT_SYMTAB if symbol_table.is_none() => symbol_table = Some(index),
                SHT_RELA => {
                    let target = field(40) >> 32;
                    let slot = relocations_of.get_mut(usize::try_from(target).ok()?)?;
                    if *slot != 0 {
                        return None;
                    }
                    *slot = u16::try_from(index).ok()?;
                }
                SHT_SYMTAB | SHT_SYMTAB_SHNDX | SHT_REL | SHT_GROUP => return None,
                _ => {}
            }
            if flags & SHF_ALLOC == 0 {
                continue;
            }
            if flags & (SHF_TLS | SHF_GROUP | SHF_LINK_ORDER) != 0 || field(48) > MAX_ALIGNMENT {
                return None;
            }
            match kind as u32 {
                SHT_PROGBITS if flags & (SHF_EXECINSTR | SHF_WRITE) == 0 => {
                    read_only_data.push(index);
                }
                SHT_PROGBITS => code_sections += usize::from(flags & SHF_EXECINSTR != 0),
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
            symbol_count: 0,
            first_global: 0,
            symbol_names: Table::default(),
            relocations_of,
            allocated,
            globals: Vec::new(),
            globals_start: Vec::new(),
            defines_locals: Vec::new(),
            eh_frame: None,
            global_names: GlobalNames::default(),
        };
        let names = layout.section(bytes, usize::from(names_index))?;
        layout.section_names = layout.contents(bytes, &names)?;
        // Found by its name, as LLVM's linker finds it: otherwise no piece
        // would carry its entries, and nothing could unwind through the
        // functions it describes (exceptions, backtraces).
        for index in read_only_data {
            let section = layout.section(bytes, index)?;
            if layout.section_name(bytes, &section) == Some(b".eh_frame".as_slice()) {
                if eh_frame.is_some() {
                    return None;
                }
                eh_frame = Some(index);
            }
        }
        let symbol_table = layout.section(bytes, symbol_table?)?;
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
        layout.index_symbols(bytes)?;
        if let Some(section) = eh_frame {
            layout.eh_frame = Some(EhFrame::read(bytes, &layout, section)?);
        }
        Some(layout)
    }

    /// Which global symbols each allocated section defines, and which
    /// sections define local ones; no symbol of a kind a piece cannot carry.
    /// One pass over the table, then a counting sort of the globals (the
    /// last third of a table of function sections, whose section symbols
    /// are locals): a list of (section, symbol) pairs to sort would be new
    /// memory, each of whose pages is a page fault, several times the size
    /// of the result.
    fn index_symbols(&mut self, bytes: &[u8]) -> Option<()> {
        let entries = bytes
            .get(self.symbols.offset..self.symbols.offset + self.symbol_count * SYMBOL_SIZE)?
            .chunks_exact(SYMBOL_SIZE)
            .enumerate()
            .skip(1);
        // How many globals each section defines (`globals_start[s + 1]` for
        // section `s`), then their running totals: the end of each section's
        // globals in `globals`.
        let mut globals_start = vec![0u32; self.section_count + 2];
        let mut defines_locals = vec![false; self.section_count];
        let mut count = 0;
        for (index, entry) in entries.clone() {
            if let Some(section) = self.defining_allocated(index, entry)? {
                if index < self.first_global {
                    defines_locals[section] = true;
                } else {
                    globals_start[section + 1] += 1;
                    count += 1;
                }
            }
        }
        for section in 1..globals_start.len() {
            globals_start[section] += globals_start[section - 1];
        }
        // Then each global into its place, last first, so that a section's
        // end moves back to its start and its symbols stay in table order.
        self.globals = vec![0; count];
        for (index, entry) in entries.skip(self.first_global.saturating_sub(1)).rev() {
            if let Some(section) = self.defining_allocated(index, entry)? {
                let slot = &mut globals_start[section + 1];
                *slot -= 1;
                // Symbols are counted in 32 bits (checked by `read`).
                self.globals[*slot as usize] = index as u32;
            }
        }
        self.globals_start = globals_start;
        self.defines_locals = defines_locals;
        Some(())
    }

    /// The allocated section that symbol `index` (its table entry `entry`)
    /// defines, if any; `None` for a symbol a piece cannot carry.
    #[inline]
    fn defining_allocated(&self, index: usize, entry: &[u8]) -> Option<Option<usize>> {
        // A copy of fixed size, whose fields are read without checks.
        let entry: [u8; SYMBOL_SIZE] = entry.try_into().ok()?;
        let info = entry[4];
        let section = u16::from_le_bytes([entry[6], entry[7]]);
        let kind = info & 0xf;
        if kind == STT_TLS || kind == STT_GNU_IFUNC {
            return None;
        }
        if kind == STT_FILE || section == SHN_UNDEF {
            return Some(None);
        }
        // Absolute, common or extended-index symbols.
        if section >= SHN_LORESERVE || (index < self.first_global) != (info >> 4 == STB_LOCAL) {
            return None;
        }
        let section = usize::from(section);
        Some(self.allocated.get(section)?.then_some(section))
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
        entry.and_then(Symbol::read).ok_or_else(|| {
            format!(
                "malformed object: a relocation names symbol {index}, and the symbol table has {}",
                self.symbol_count
            )
        })
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

    /// The global symbols `section` defines.
    pub fn globals_defined_in(&self, section: usize) -> &[u32] {
        let start = self.globals_start[section + 1] as usize;
        let end = self.globals_start[section + 2] as usize;
        &self.globals[start..end]
    }

    /// Whether `section` defines local symbols (its section symbol too).
    pub fn defines_locals(&self, section: usize) -> bool {
        self.defines_locals[section]
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

    pub fn eh_frame(&self) -> Option<&EhFrame> {
        self.eh_frame.as_ref()
    }

    /// The defined global symbol called `name`.
    pub fn global(&mut self, bytes: &[u8], name: &[u8]) -> Option<Symbol> {
        let names = &mut self.global_names;
        names.lookups += 1;
        if names.by_hash.is_none() && names.lookups > SCANNED_LOOKUPS {
            self.hash_global_names(bytes);
        }
        let Some(by_hash) = &self.global_names.by_hash else {
            return self.scan_globals(bytes, name);
        };
        let hashed = by_hash
            .get(&name_hash(name))
            .and_then(|&index| self.symbol(bytes, index as usize).ok())
            .filter(|symbol| self.symbol_name(bytes, symbol) == Some(name));
        if hashed.is_some() || !self.global_names.collisions {
            return hashed;
        }
        self.scan_globals(bytes, name)
    }

    /// The defined global symbols, with their indexes.
    fn defined_globals<'a>(
        &'a self,
        bytes: &'a [u8],
    ) -> impl Iterator<Item = (usize, Symbol)> + 'a {
        let entries = bytes
            .get(self.symbols.offset..self.symbols.offset + self.symbol_count * SYMBOL_SIZE)
            .unwrap_or_default();
        entries
            .chunks_exact(SYMBOL_SIZE)
            .enumerate()
            .skip(self.first_global)
            .filter_map(|(index, entry)| Some((index, Symbol::read(entry)?)))
            .filter(|(_, symbol)| self.defining_section(symbol).is_some())
    }

    fn scan_globals(&self, bytes: &[u8], name: &[u8]) -> Option<Symbol> {
        let names = bytes.get(self.symbol_names.offset..)?;
        self.defined_globals(bytes)
            .find(|(_, symbol)| {
                let start = symbol.name as usize;
                names.get(start..start + name.len()) == Some(name)
                    && names.get(start + name.len()) == Some(&0)
                    && start + name.len() < self.symbol_names.size
            })
            .map(|(_, symbol)| symbol)
    }

    fn hash_global_names(&mut self, bytes: &[u8]) {
        let mut by_hash = FxHashMap::default();
        let mut collisions = false;
        for (index, symbol) in self.defined_globals(bytes) {
            let (Some(name), Ok(index)) = (self.symbol_name(bytes, &symbol), u32::try_from(index))
            else {
                continue;
            };
            collisions |= *by_hash.entry(name_hash(name)).or_insert(index) != index;
        }
        self.global_names.by_hash = Some(by_hash);
        self.global_names.collisions = collisions;
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

fn name_hash(name: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name);
    hasher.finish()
}

impl EhFrame {
    /// The entries of `.eh_frame` by the section each describes; `None` when
    /// a CIE has a relocation (a personality) or an FDE has more than the one
    /// of its initial location (an LSDA): a piece would have to carry what
    /// they point to. Also `None` for what LLVM does not write (64-bit
    /// lengths, relocations out of order or outside every entry).
    fn read(bytes: &[u8], layout: &Layout, section: usize) -> Option<Self> {
        let contents = layout.contents(bytes, &layout.section(bytes, section)?)?;
        let frame = bytes.get(contents.offset..contents.offset + contents.size)?;
        let relocations = layout.relocation_entries(bytes, section).ok()?;
        let mut relocations = relocations
            .chunks_exact(RELOCATION_SIZE)
            .enumerate()
            .peekable();
        let mut cies = Vec::new();
        let mut entries = Vec::with_capacity(relocations.len());
        let mut offset = 0;
        while offset + 4 <= frame.len() {
            let length = usize::try_from(u32_at(frame, offset)?).ok()?;
            if length == 0 {
                break;
            }
            let end = offset.checked_add(4)?.checked_add(length)?;
            // 0xffffffff: a 64-bit length, which LLVM does not write.
            if length == 0xffff_ffff || end > frame.len() || length < 4 {
                return None;
            }
            let (mut inside, mut first) = (0, None);
            while let Some((index, entry)) =
                relocations.next_if(|(_, entry)| u64_at(entry, 0).is_some_and(|at| at < end as u64))
            {
                if u64_at(entry, 0)? < offset as u64 {
                    return None;
                }
                inside += 1;
                first = first.or(Some((index, entry)));
            }
            let cie_pointer = usize::try_from(u32_at(frame, offset + 4)?).ok()?;
            if cie_pointer == 0 {
                if inside != 0 {
                    return None;
                }
                cies.push(offset);
            } else {
                let cie = (offset + 4).checked_sub(cie_pointer)?;
                let (1, Some((index, entry))) = (inside, first) else {
                    return None;
                };
                let pc_begin = Relocation::read(entry)?;
                if pc_begin.offset != offset as u64 + 8 || cies.binary_search(&cie).is_err() {
                    return None;
                }
                let described =
                    layout.defining_section(&layout.symbol(bytes, pc_begin.symbol).ok()?)?;
                let fde = Fde {
                    offset: u32::try_from(offset).ok()?,
                    length: u32::try_from(end - offset).ok()?,
                    cie: u32::try_from(cie).ok()?,
                    relocation: u32::try_from(index).ok()?,
                };
                // Sections are counted in 16 bits (checked by `read`).
                entries.push((described as u32, fde));
            }
            offset = end;
        }
        if relocations.next().is_some() {
            return None;
        }
        // Compilers write the entries in the order of the functions, and so
        // of their sections: checked in one pass, and sorted only otherwise
        // (a sort of many entries allocates, and so faults in, scratch
        // memory of half their size).
        if !entries.is_sorted_by_key(|(described, _)| *described) {
            entries.sort_by_key(|(described, _)| *described);
        }
        Some(Self {
            section,
            fdes: entries,
        })
    }

    /// The entries describing `section`'s functions.
    pub fn describing(&self, section: usize) -> impl Iterator<Item = &Fde> {
        let section = section as u32;
        let start = self
            .fdes
            .partition_point(|(described, _)| *described < section);
        let end =
            start + self.fdes[start..].partition_point(|(described, _)| *described == section);
        self.fdes[start..end].iter().map(|(_, fde)| fde)
    }
}
