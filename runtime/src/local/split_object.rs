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
//! other by name: a global symbol keeps its name, and each local symbol of a
//! linked piece gets a hidden global alias (`__executor.local.N`, N its index
//! in the object's symbol table) that later pieces refer to. A global
//! variable is therefore linked once, with the first piece that reaches it,
//! and every kernel sees the same one, as in an object linked whole.
//!
//! What this does not take apart (no function sections, initializers, TLS,
//! COMDAT groups, unwind entries with personalities, ...) is linked whole, as
//! before; [`SplitObject::new`] decides. Nothing here is `unsafe`: it reads
//! bytes and writes bytes, and every read is bounds-checked, so a malformed
//! object is refused or left to LLVM's object reader, never a panic.

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;

const ELF_HEADER_SIZE: usize = 64;
const SECTION_HEADER_SIZE: usize = 64;
const SYMBOL_SIZE: usize = 24;
const RELOCATION_SIZE: usize = 24;

const ET_REL: u16 = 1;
const EM_X86_64: u16 = 62;

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOBITS: u32 = 8;
const SHT_REL: u32 = 9;
const SHT_GROUP: u32 = 17;
const SHT_SYMTAB_SHNDX: u32 = 18;
const SHT_X86_64_UNWIND: u32 = 0x7000_0001;

const SHF_ALLOC: u64 = 0x2;
const SHF_EXECINSTR: u64 = 0x4;
const SHF_INFO_LINK: u64 = 0x40;
const SHF_LINK_ORDER: u64 = 0x80;
const SHF_GROUP: u64 = 0x200;
const SHF_TLS: u64 = 0x400;

const SHN_UNDEF: u16 = 0;
const SHN_LORESERVE: u16 = 0xff00;
const SHN_ABS: u16 = 0xfff1;
const SHN_XINDEX: u16 = 0xffff;

const STB_LOCAL: u8 = 0;
const STB_GLOBAL: u8 = 1;
const STB_WEAK: u8 = 2;
const STT_NOTYPE: u8 = 0;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;
const STT_TLS: u8 = 6;
const STT_GNU_IFUNC: u8 = 10;
const STV_HIDDEN: u8 = 2;

/// Where the alias of a linked piece's local symbol is found by the pieces
/// linked after it (followed by the symbol's index in the object).
const LOCAL_ALIAS_PREFIX: &str = "__executor.local.";

/// The largest section alignment of an object linked a piece at a time.
const MAX_ALIGNMENT: u64 = 1 << 16;

/// Sections whose code runs when the object is loaded, not when a symbol is
/// looked up: an object with one is linked whole.
const LOAD_TIME_SECTIONS: [&str; 4] = [".ctors", ".dtors", ".init", ".fini"];

/// A relocatable object and what of it is linked so far.
pub struct SplitObject {
    bytes: Vec<u8>,
    layout: Layout,
    linked: Vec<bool>,
}

/// What [`SplitObject::new`] read of the object, once.
struct Layout {
    section_table: usize,
    section_count: usize,
    section_names: Table,
    symbols: Table,
    symbol_count: usize,
    symbol_names: Table,
    /// Each section's relocation section, 0 for none.
    relocations_of: Vec<u32>,
    /// Whether each section is part of the program image (SHF_ALLOC).
    allocated: Vec<bool>,
    first_global: usize,
    /// The symbols defined in each allocated section (index: `defined_start`).
    defined: Vec<u32>,
    defined_start: Vec<u32>,
    /// Defined global symbols by the hash of their name.
    globals: FxHashMap<u64, u32>,
    /// Whether two names had the same hash (a lookup then also scans).
    hash_collisions: bool,
    eh_frame: Option<EhFrame>,
}

/// The object's `.eh_frame`, taken apart by the section each entry describes.
struct EhFrame {
    section: usize,
    /// Each FDE: its offset, length and its CIE's offset, in the order of the
    /// sections they describe (index: `fde_start`).
    fdes: Vec<Fde>,
    fde_start: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Fde {
    offset: usize,
    length: usize,
    cie: usize,
    /// The relocation of its initial location, the function it describes.
    pc_begin: Relocation,
}

/// A byte range of the object.
#[derive(Clone, Copy, Default)]
struct Table {
    offset: usize,
    size: usize,
}

#[derive(Clone, Copy)]
struct Section {
    name: u32,
    kind: u32,
    flags: u64,
    offset: usize,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entry_size: u64,
}

#[derive(Clone, Copy)]
struct Symbol {
    name: u32,
    info: u8,
    other: u8,
    section: u16,
    value: u64,
    size: u64,
}

impl Symbol {
    fn binding(&self) -> u8 {
        self.info >> 4
    }
    fn kind(&self) -> u8 {
        self.info & 0xf
    }
}

#[derive(Clone, Copy)]
struct Relocation {
    offset: u64,
    symbol: usize,
    kind: u32,
    addend: i64,
}

fn read<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}
fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    read(bytes, at).map(u16::from_le_bytes)
}
fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    read(bytes, at).map(u32::from_le_bytes)
}
fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    read(bytes, at).map(u64::from_le_bytes)
}

fn name_hash(name: &[u8]) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write(name);
    hasher.finish()
}

impl SplitObject {
    /// The object, to be linked a piece at a time; or its bytes back when it
    /// is to be linked whole (not an x86-64 ELF relocatable object with more
    /// than one section of code, or holding something a piece cannot carry).
    pub fn new(bytes: Vec<u8>) -> Result<Self, Vec<u8>> {
        match Layout::read(&bytes) {
            Some(layout) => Ok(Self {
                linked: vec![false; layout.section_count],
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
        let Some(section) = self
            .layout
            .global(&self.bytes, name.as_bytes())
            .and_then(|symbol| self.layout.defining_section(&symbol))
        else {
            return Ok(None);
        };
        if self.linked[section] {
            return Ok(None);
        }
        let sections = self.closure(section)?;
        let piece = Piece::write(&self.bytes, &self.layout, &self.linked, &sections)?;
        for section in sections {
            self.linked[section] = true;
        }
        Ok(Some(piece))
    }

    /// `first` and the sections not linked yet that its relocations reach,
    /// directly or not, in the object's order.
    fn closure(&self, first: usize) -> Result<Vec<usize>, String> {
        let layout = &self.layout;
        let mut found = FxHashSet::default();
        found.insert(first);
        let mut pending = vec![first];
        while let Some(section) = pending.pop() {
            for relocation in layout.relocations(&self.bytes, section)? {
                let target = layout.symbol(&self.bytes, relocation.symbol)?;
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

impl Layout {
    fn read(bytes: &[u8]) -> Option<Self> {
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
        let mut layout = Self {
            section_table,
            section_count: 0,
            section_names: Table::default(),
            symbols: Table::default(),
            symbol_count: 0,
            symbol_names: Table::default(),
            relocations_of: Vec::new(),
            allocated: Vec::new(),
            first_global: 0,
            defined: Vec::new(),
            defined_start: Vec::new(),
            globals: FxHashMap::default(),
            hash_collisions: false,
            eh_frame: None,
        };
        // Extended numbering (a count or an index that does not fit in the
        // header) is kept in section 0: such objects are linked whole.
        let count = usize::from(u16_at(bytes, 60)?);
        let names_index = u16_at(bytes, 62)?;
        if count == 0 || names_index == SHN_XINDEX {
            return None;
        }
        bytes.get(
            section_table..section_table.checked_add(count.checked_mul(SECTION_HEADER_SIZE)?)?,
        )?;
        layout.section_count = count;
        let names = layout.section(bytes, usize::from(names_index))?;
        layout.section_names = layout.contents(bytes, &names)?;

        layout.relocations_of = vec![0; count];
        layout.allocated = vec![false; count];
        let mut symbol_table = None;
        let mut eh_frame = None;
        let mut code_sections = 0;
        for index in 1..count {
            let section = layout.section(bytes, index)?;
            match section.kind {
                SHT_SYMTAB if symbol_table.is_none() => symbol_table = Some(index),
                SHT_RELA => {
                    let target = usize::try_from(section.info).ok()?;
                    let slot = layout.relocations_of.get_mut(target)?;
                    if *slot != 0 {
                        return None;
                    }
                    *slot = u32::try_from(index).ok()?;
                }
                SHT_SYMTAB | SHT_SYMTAB_SHNDX | SHT_REL | SHT_GROUP => return None,
                _ => {}
            }
            if section.flags & SHF_ALLOC == 0 {
                continue;
            }
            // A larger alignment is not what a compiler writes (and would
            // make a piece that large).
            if section.flags & (SHF_TLS | SHF_GROUP | SHF_LINK_ORDER) != 0
                || section.align > MAX_ALIGNMENT
            {
                return None;
            }
            layout.allocated[index] = true;
            let name = layout.section_name(bytes, &section)?;
            if LOAD_TIME_SECTIONS
                .iter()
                .any(|prefix| name.starts_with(prefix.as_bytes()))
            {
                return None;
            }
            match section.kind {
                SHT_PROGBITS => {
                    layout.contents(bytes, &section)?;
                    if section.flags & SHF_EXECINSTR != 0 {
                        code_sections += 1;
                    }
                }
                SHT_NOBITS => {}
                SHT_X86_64_UNWIND if name == b".eh_frame" && eh_frame.is_none() => {
                    eh_frame = Some(index);
                }
                _ => return None,
            }
        }
        // One section of code holds every function: a piece would be all of it.
        if code_sections < 2 {
            return None;
        }
        let symbol_table = layout.section(bytes, symbol_table?)?;
        if usize::try_from(symbol_table.entry_size).ok()? != SYMBOL_SIZE {
            return None;
        }
        layout.symbols = layout.contents(bytes, &symbol_table)?;
        layout.symbol_count = layout.symbols.size / SYMBOL_SIZE;
        let symbol_names = layout.section(bytes, usize::try_from(symbol_table.link).ok()?)?;
        if symbol_names.kind != SHT_STRTAB {
            return None;
        }
        layout.symbol_names = layout.contents(bytes, &symbol_names)?;
        layout.index_symbols(bytes, usize::try_from(symbol_table.info).ok()?)?;
        if let Some(section) = eh_frame {
            layout.eh_frame = Some(EhFrame::read(bytes, &layout, section)?);
        }
        Some(layout)
    }

    /// Which symbols each section defines, and the global ones by name; none
    /// of a kind a piece cannot carry.
    fn index_symbols(&mut self, bytes: &[u8], first_global: usize) -> Option<()> {
        self.first_global = first_global;
        let mut counts = vec![0u32; self.section_count + 1];
        self.globals
            .reserve(self.symbol_count.saturating_sub(first_global));
        for index in 1..self.symbol_count {
            let symbol = self.symbol(bytes, index).ok()?;
            match (symbol.kind(), symbol.section) {
                (STT_TLS | STT_GNU_IFUNC, _) => return None,
                (STT_FILE, _) | (_, SHN_UNDEF) => continue,
                (_, SHN_ABS | SHN_LORESERVE..) => return None,
                _ => {}
            }
            let section = usize::from(symbol.section);
            if section >= self.section_count {
                return None;
            }
            let is_local = index < first_global;
            if is_local != (symbol.binding() == STB_LOCAL) {
                return None;
            }
            if !self.allocated[section] {
                continue;
            }
            counts[section + 1] += 1;
            if !is_local {
                let hash = name_hash(self.symbol_name(bytes, &symbol)?);
                let index = u32::try_from(index).ok()?;
                if self.globals.entry(hash).or_insert(index) != &index {
                    self.hash_collisions = true;
                }
            }
        }
        for section in 1..counts.len() {
            counts[section] += counts[section - 1];
        }
        let mut next = counts.clone();
        self.defined = vec![0; usize::try_from(counts[self.section_count]).ok()?];
        for index in 1..self.symbol_count {
            let symbol = self.symbol(bytes, index).ok()?;
            if symbol.kind() == STT_FILE || self.defining_section(&symbol).is_none() {
                continue;
            }
            let slot = &mut next[usize::from(symbol.section)];
            self.defined[usize::try_from(*slot).ok()?] = u32::try_from(index).ok()?;
            *slot += 1;
        }
        self.defined_start = counts;
        Some(())
    }

    fn section(&self, bytes: &[u8], index: usize) -> Option<Section> {
        if index >= self.section_count {
            return None;
        }
        let at = self.section_table + index * SECTION_HEADER_SIZE;
        Some(Section {
            name: u32_at(bytes, at)?,
            kind: u32_at(bytes, at + 4)?,
            flags: u64_at(bytes, at + 8)?,
            offset: usize::try_from(u64_at(bytes, at + 24)?).ok()?,
            size: u64_at(bytes, at + 32)?,
            link: u32_at(bytes, at + 40)?,
            info: u32_at(bytes, at + 44)?,
            align: u64_at(bytes, at + 48)?,
            entry_size: u64_at(bytes, at + 56)?,
        })
    }

    /// Where a section's bytes are, checked to be within the object.
    fn contents(&self, bytes: &[u8], section: &Section) -> Option<Table> {
        let size = usize::try_from(section.size).ok()?;
        bytes.get(section.offset..section.offset.checked_add(size)?)?;
        Some(Table {
            offset: section.offset,
            size,
        })
    }

    fn section_name<'a>(&self, bytes: &'a [u8], section: &Section) -> Option<&'a [u8]> {
        string_at(bytes, self.section_names, section.name)
    }

    fn symbol(&self, bytes: &[u8], index: usize) -> Result<Symbol, String> {
        let read = || {
            if index >= self.symbol_count {
                return None;
            }
            let at = self.symbols.offset + index * SYMBOL_SIZE;
            Some(Symbol {
                name: u32_at(bytes, at)?,
                info: *bytes.get(at + 4)?,
                other: *bytes.get(at + 5)?,
                section: u16_at(bytes, at + 6)?,
                value: u64_at(bytes, at + 8)?,
                size: u64_at(bytes, at + 16)?,
            })
        };
        read().ok_or_else(|| {
            format!(
                "a relocation names symbol {index}, and the symbol table has {}",
                self.symbol_count
            )
        })
    }

    fn symbol_name<'a>(&self, bytes: &'a [u8], symbol: &Symbol) -> Option<&'a [u8]> {
        string_at(bytes, self.symbol_names, symbol.name)
    }

    /// The allocated section that defines `symbol`, if any.
    fn defining_section(&self, symbol: &Symbol) -> Option<usize> {
        if symbol.section == SHN_UNDEF || symbol.section >= SHN_LORESERVE {
            return None;
        }
        let section = usize::from(symbol.section);
        (*self.allocated.get(section)?).then_some(section)
    }

    fn defined_in(&self, section: usize) -> &[u32] {
        let start = self.defined_start[section] as usize;
        let end = self.defined_start[section + 1] as usize;
        &self.defined[start..end]
    }

    /// The defined global symbol called `name`.
    fn global(&self, bytes: &[u8], name: &[u8]) -> Option<Symbol> {
        let named = |index: u32| {
            let symbol = self.symbol(bytes, index as usize).ok()?;
            (self.symbol_name(bytes, &symbol)? == name).then_some(symbol)
        };
        if let Some(symbol) = self
            .globals
            .get(&name_hash(name))
            .and_then(|&index| named(index))
        {
            return Some(symbol);
        }
        if !self.hash_collisions {
            return None;
        }
        (self.first_global..self.symbol_count)
            .filter_map(|index| u32::try_from(index).ok())
            .find_map(|index| named(index).filter(|symbol| self.defining_section(symbol).is_some()))
    }

    fn relocations(&self, bytes: &[u8], section: usize) -> Result<Vec<Relocation>, String> {
        let index = self.relocations_of[section] as usize;
        if index == 0 {
            return Ok(Vec::new());
        }
        let malformed = || format!("relocation section {index} is malformed");
        let table = self
            .section(bytes, index)
            .and_then(|header| self.contents(bytes, &header))
            .ok_or_else(malformed)?;
        (0..table.size / RELOCATION_SIZE)
            .map(|entry| {
                let at = table.offset + entry * RELOCATION_SIZE;
                let info = u64_at(bytes, at + 8).ok_or_else(malformed)?;
                Ok(Relocation {
                    offset: u64_at(bytes, at).ok_or_else(malformed)?,
                    symbol: usize::try_from(info >> 32).map_err(|_| malformed())?,
                    kind: info as u32,
                    addend: i64::from_le_bytes(read(bytes, at + 16).ok_or_else(malformed)?),
                })
            })
            .collect()
    }
}

/// The NUL-terminated string at `offset` of the string table `table`.
fn string_at(bytes: &[u8], table: Table, offset: u32) -> Option<&[u8]> {
    let start = table.offset.checked_add(usize::try_from(offset).ok()?)?;
    let within = bytes.get(start..table.offset + table.size)?;
    let end = within.iter().position(|&byte| byte == 0)?;
    Some(&within[..end])
}

impl EhFrame {
    /// The entries of `.eh_frame`, each FDE by the section it describes;
    /// `None` when an entry has a personality or an LSDA (a piece would have
    /// to carry what they point to) or is not what LLVM writes.
    fn read(bytes: &[u8], layout: &Layout, section: usize) -> Option<Self> {
        let contents = layout.contents(bytes, &layout.section(bytes, section)?)?;
        let frame = bytes.get(contents.offset..contents.offset + contents.size)?;
        let mut relocations = layout.relocations(bytes, section).ok()?;
        // LLVM writes them in order: sorting is a pass over them.
        relocations.sort_unstable_by_key(|relocation| relocation.offset);
        let mut relocations = relocations.into_iter().peekable();
        let mut entries = Vec::new();
        let mut cies = FxHashSet::default();
        let mut offset = 0;
        while offset + 4 <= frame.len() {
            let length = usize::try_from(u32_at(frame, offset)?).ok()?;
            if length == 0 {
                break;
            }
            // 0xffffffff: a 64-bit length, which LLVM does not write.
            let end = offset.checked_add(4)?.checked_add(length)?;
            if length == 0xffff_ffff || end > frame.len() || length < 4 {
                return None;
            }
            // The entry's relocations: how many, and the first.
            let (mut inside, mut first) = (0, None);
            while let Some(relocation) =
                relocations.next_if(|relocation| relocation.offset < end as u64)
            {
                if relocation.offset < offset as u64 {
                    return None;
                }
                inside += 1;
                first = first.or(Some(relocation));
            }
            let cie_pointer = usize::try_from(u32_at(frame, offset + 4)?).ok()?;
            if cie_pointer == 0 {
                if inside != 0 {
                    return None;
                }
                cies.insert(offset);
            } else {
                let cie = (offset + 4).checked_sub(cie_pointer)?;
                let (1, Some(pc_begin)) = (inside, first) else {
                    return None;
                };
                if pc_begin.offset != offset as u64 + 8 || !cies.contains(&cie) {
                    return None;
                }
                let target = layout.symbol(bytes, pc_begin.symbol).ok()?;
                let described = layout.defining_section(&target)?;
                let fde = Fde {
                    offset,
                    length: end - offset,
                    cie,
                    pc_begin,
                };
                entries.push((described, fde));
            }
            offset = end;
        }
        if relocations.next().is_some() {
            return None;
        }
        let mut fde_start = vec![0u32; layout.section_count + 1];
        for (described, _) in &entries {
            fde_start[described + 1] += 1;
        }
        for index in 1..fde_start.len() {
            fde_start[index] += fde_start[index - 1];
        }
        let mut next = fde_start.clone();
        let mut fdes = Vec::with_capacity(entries.len());
        fdes.resize(entries.len(), None);
        for (described, fde) in entries {
            fdes[next[described] as usize] = Some(fde);
            next[described] += 1;
        }
        Some(Self {
            section,
            fdes: fdes.into_iter().collect::<Option<_>>()?,
            fde_start,
        })
    }

    fn describing(&self, section: usize) -> &[Fde] {
        &self.fdes[self.fde_start[section] as usize..self.fde_start[section + 1] as usize]
    }
}

/// One piece being written: an ELF relocatable object of some of the
/// object's sections, their symbols and relocations, and the unwind entries
/// of their functions.
struct Piece<'a> {
    bytes: &'a [u8],
    layout: &'a Layout,
    linked: &'a [bool],
    /// The object's section index of each section of the piece (index 1 on).
    sections: &'a [usize],
    new_section: FxHashMap<usize, u16>,
    locals: Vec<[u8; SYMBOL_SIZE]>,
    globals: Vec<[u8; SYMBOL_SIZE]>,
    /// The object's symbol index to the piece's (locals) or to its index
    /// among the globals.
    new_symbol: FxHashMap<usize, SymbolRef>,
    names: StringTable,
}

#[derive(Clone, Copy)]
enum SymbolRef {
    Local(u32),
    Global(u32),
}

#[derive(Default)]
struct StringTable {
    bytes: Vec<u8>,
}

impl StringTable {
    fn add(&mut self, name: &[u8]) -> u32 {
        if self.bytes.is_empty() {
            self.bytes.push(0);
        }
        if name.is_empty() {
            return 0;
        }
        let at = self.bytes.len() as u32;
        self.bytes.extend_from_slice(name);
        self.bytes.push(0);
        at
    }
}

fn symbol_entry(
    name: u32,
    info: u8,
    other: u8,
    section: u16,
    value: u64,
    size: u64,
) -> [u8; SYMBOL_SIZE] {
    let mut entry = [0; SYMBOL_SIZE];
    entry[..4].copy_from_slice(&name.to_le_bytes());
    entry[4] = info;
    entry[5] = other;
    entry[6..8].copy_from_slice(&section.to_le_bytes());
    entry[8..16].copy_from_slice(&value.to_le_bytes());
    entry[16..].copy_from_slice(&size.to_le_bytes());
    entry
}

/// A section of the piece: its header fields and where its bytes come from.
struct OutSection {
    name: Vec<u8>,
    kind: u32,
    flags: u64,
    data: Vec<u8>,
    /// For NOBITS: the size without bytes.
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entry_size: u64,
}

impl<'a> Piece<'a> {
    fn write(
        bytes: &'a [u8],
        layout: &'a Layout,
        linked: &'a [bool],
        sections: &'a [usize],
    ) -> Result<Vec<u8>, String> {
        let mut piece = Piece {
            bytes,
            layout,
            linked,
            sections,
            new_section: FxHashMap::default(),
            locals: vec![[0; SYMBOL_SIZE]],
            globals: Vec::new(),
            new_symbol: FxHashMap::default(),
            names: StringTable::default(),
        };
        piece.names.add(b"");
        piece.define_symbols()?;
        piece.finish()
    }

    /// The piece's sections' own symbols: a section symbol each, their
    /// local symbols and a hidden global alias of each, their global ones.
    fn define_symbols(&mut self) -> Result<(), String> {
        let malformed = |what: &str| format!("malformed object: {what}");
        for (position, &section) in self.sections.iter().enumerate() {
            let index = u16::try_from(position + 1).map_err(|_| malformed("too many sections"))?;
            self.new_section.insert(section, index);
            let local = self.locals.len() as u32;
            self.locals
                .push(symbol_entry(0, STT_SECTION, 0, index, 0, 0));
            for &defined in self.layout.defined_in(section) {
                let defined = defined as usize;
                let symbol = self.layout.symbol(self.bytes, defined)?;
                if symbol.kind() == STT_SECTION {
                    self.new_symbol.insert(defined, SymbolRef::Local(local));
                }
            }
        }
        for &section in self.sections {
            let index = self.new_section[&section];
            for &defined in self.layout.defined_in(section) {
                let defined = defined as usize;
                let symbol = self.layout.symbol(self.bytes, defined)?;
                let name = self
                    .layout
                    .symbol_name(self.bytes, &symbol)
                    .ok_or_else(|| malformed("a symbol's name is outside its string table"))?;
                if symbol.binding() == STB_LOCAL {
                    if symbol.kind() != STT_SECTION {
                        let name = self.names.add(name);
                        self.new_symbol
                            .insert(defined, SymbolRef::Local(self.locals.len() as u32));
                        self.locals.push(symbol_entry(
                            name,
                            symbol.info,
                            symbol.other,
                            index,
                            symbol.value,
                            symbol.size,
                        ));
                    }
                    let alias = self
                        .names
                        .add(format!("{LOCAL_ALIAS_PREFIX}{defined}").as_bytes());
                    let kind = if symbol.kind() == STT_SECTION {
                        STT_NOTYPE
                    } else {
                        symbol.kind()
                    };
                    self.globals.push(symbol_entry(
                        alias,
                        (STB_GLOBAL << 4) | kind,
                        STV_HIDDEN,
                        index,
                        symbol.value,
                        symbol.size,
                    ));
                } else {
                    let name = self.names.add(name);
                    self.new_symbol
                        .insert(defined, SymbolRef::Global(self.globals.len() as u32));
                    self.globals.push(symbol_entry(
                        name,
                        symbol.info,
                        symbol.other,
                        index,
                        symbol.value,
                        symbol.size,
                    ));
                }
            }
        }
        Ok(())
    }

    /// The piece's symbol for the object's symbol `index`: one of its own,
    /// or a reference by name to one linked before or defined elsewhere.
    fn symbol_for(&mut self, index: usize) -> Result<SymbolRef, String> {
        if let Some(&found) = self.new_symbol.get(&index) {
            return Ok(found);
        }
        let symbol = self.layout.symbol(self.bytes, index)?;
        let name = self
            .layout
            .symbol_name(self.bytes, &symbol)
            .ok_or_else(|| {
                "malformed object: a symbol's name is outside its string table".to_owned()
            })?;
        let (name, binding) = match self.layout.defining_section(&symbol) {
            Some(section) if self.linked[section] => {
                if symbol.binding() == STB_LOCAL {
                    (
                        format!("{LOCAL_ALIAS_PREFIX}{index}").into_bytes(),
                        STB_GLOBAL,
                    )
                } else {
                    (name.to_vec(), symbol.binding())
                }
            }
            Some(_) => {
                return Err(format!(
                    "malformed object: symbol {index} is in a section the piece does not hold"
                ));
            }
            None if symbol.binding() == STB_WEAK => (name.to_vec(), STB_WEAK),
            None => (name.to_vec(), STB_GLOBAL),
        };
        let name = self.names.add(&name);
        let found = SymbolRef::Global(self.globals.len() as u32);
        self.globals
            .push(symbol_entry(name, binding << 4, 0, SHN_UNDEF, 0, 0));
        self.new_symbol.insert(index, found);
        Ok(found)
    }

    fn final_index(&self, symbol: SymbolRef) -> u64 {
        match symbol {
            SymbolRef::Local(index) => u64::from(index),
            SymbolRef::Global(index) => (self.locals.len() + index as usize) as u64,
        }
    }

    fn finish(mut self) -> Result<Vec<u8>, String> {
        let mut out_sections = Vec::new();
        // The relocations are written with symbol references resolved after
        // every symbol exists: (section position, relocation, symbol).
        let mut pending_relocations: Vec<(usize, Relocation, SymbolRef)> = Vec::new();
        for &section in self.sections {
            let header = self
                .layout
                .section(self.bytes, section)
                .ok_or_else(|| format!("malformed object: section {section}"))?;
            let name = self
                .layout
                .section_name(self.bytes, &header)
                .unwrap_or_default()
                .to_vec();
            let data = if header.kind == SHT_NOBITS {
                Vec::new()
            } else {
                let table = self.layout.contents(self.bytes, &header).ok_or_else(|| {
                    format!("malformed object: section {section} is outside the file")
                })?;
                self.bytes[table.offset..table.offset + table.size].to_vec()
            };
            out_sections.push(OutSection {
                name,
                kind: header.kind,
                flags: header.flags,
                data,
                size: header.size,
                link: 0,
                info: 0,
                align: header.align,
                entry_size: header.entry_size,
            });
        }
        for (position, &section) in self.sections.iter().enumerate() {
            for relocation in self.layout.relocations(self.bytes, section)? {
                let symbol = self.symbol_for(relocation.symbol)?;
                pending_relocations.push((position, relocation, symbol));
            }
        }
        let mut eh_relocations = Vec::new();
        let mut eh_frame = Vec::new();
        if let Some(frame) = &self.layout.eh_frame {
            let contents = self
                .layout
                .section(self.bytes, frame.section)
                .and_then(|header| self.layout.contents(self.bytes, &header))
                .ok_or_else(|| "malformed object: .eh_frame".to_owned())?;
            let frame_bytes = &self.bytes[contents.offset..contents.offset + contents.size];
            let mut copied_cies: FxHashMap<usize, usize> = FxHashMap::default();
            for &section in self.sections {
                for fde in frame.describing(section) {
                    let cie_at = match copied_cies.get(&fde.cie) {
                        Some(&at) => at,
                        None => {
                            let length = u32_at(frame_bytes, fde.cie).unwrap_or(0) as usize + 4;
                            let at = eh_frame.len();
                            eh_frame.extend_from_slice(&frame_bytes[fde.cie..fde.cie + length]);
                            copied_cies.insert(fde.cie, at);
                            at
                        }
                    };
                    let at = eh_frame.len();
                    eh_frame.extend_from_slice(&frame_bytes[fde.offset..fde.offset + fde.length]);
                    let cie_pointer = (at + 4 - cie_at) as u32;
                    eh_frame[at + 4..at + 8].copy_from_slice(&cie_pointer.to_le_bytes());
                    let symbol = self.symbol_for(fde.pc_begin.symbol)?;
                    eh_relocations.push((
                        Relocation {
                            offset: (at + 8) as u64,
                            ..fde.pc_begin
                        },
                        symbol,
                    ));
                }
            }
        }
        // Section indexes of the piece: its sections, then a relocation
        // section for each that has relocations, .eh_frame and its
        // relocations, the symbol table and the string tables.
        let symbol_table_index = {
            let relocated: FxHashSet<usize> = pending_relocations
                .iter()
                .map(|(position, ..)| *position)
                .collect();
            out_sections.len() + 1 + relocated.len() + if eh_frame.is_empty() { 0 } else { 2 }
        } as u32;
        let mut by_position: Vec<Vec<u8>> = vec![Vec::new(); self.sections.len()];
        for (position, relocation, symbol) in &pending_relocations {
            by_position[*position].extend_from_slice(&self.relocation_entry(relocation, *symbol));
        }
        for (position, table) in by_position.into_iter().enumerate() {
            if table.is_empty() {
                continue;
            }
            let name = [b".rela".as_slice(), &out_sections[position].name].concat();
            out_sections.push(relocation_section(
                name,
                table,
                symbol_table_index,
                position as u32 + 1,
            ));
        }
        if !eh_frame.is_empty() {
            let size = eh_frame.len() as u64;
            out_sections.push(OutSection {
                name: b".eh_frame".to_vec(),
                kind: SHT_X86_64_UNWIND,
                flags: SHF_ALLOC,
                data: eh_frame,
                size,
                link: 0,
                info: 0,
                align: 8,
                entry_size: 0,
            });
            let frame_index = out_sections.len() as u32;
            let mut table = Vec::new();
            for (relocation, symbol) in &eh_relocations {
                table.extend_from_slice(&self.relocation_entry(relocation, *symbol));
            }
            out_sections.push(relocation_section(
                b".rela.eh_frame".to_vec(),
                table,
                symbol_table_index,
                frame_index,
            ));
        }
        let first_global = self.locals.len() as u32;
        let mut symbols =
            Vec::with_capacity((self.locals.len() + self.globals.len()) * SYMBOL_SIZE);
        for entry in self.locals.iter().chain(&self.globals) {
            symbols.extend_from_slice(entry);
        }
        let symbol_size = symbols.len() as u64;
        out_sections.push(OutSection {
            name: b".symtab".to_vec(),
            kind: SHT_SYMTAB,
            flags: 0,
            data: symbols,
            size: symbol_size,
            link: symbol_table_index + 1,
            info: first_global,
            align: 8,
            entry_size: SYMBOL_SIZE as u64,
        });
        let names = std::mem::take(&mut self.names.bytes);
        let names_size = names.len() as u64;
        out_sections.push(OutSection {
            name: b".strtab".to_vec(),
            kind: SHT_STRTAB,
            flags: 0,
            data: names,
            size: names_size,
            link: 0,
            info: 0,
            align: 1,
            entry_size: 0,
        });
        Ok(write_object(out_sections))
    }

    fn relocation_entry(
        &self,
        relocation: &Relocation,
        symbol: SymbolRef,
    ) -> [u8; RELOCATION_SIZE] {
        let mut entry = [0; RELOCATION_SIZE];
        let info = (self.final_index(symbol) << 32) | u64::from(relocation.kind);
        entry[..8].copy_from_slice(&relocation.offset.to_le_bytes());
        entry[8..16].copy_from_slice(&info.to_le_bytes());
        entry[16..].copy_from_slice(&relocation.addend.to_le_bytes());
        entry
    }
}

fn relocation_section(name: Vec<u8>, table: Vec<u8>, symbols: u32, target: u32) -> OutSection {
    let size = table.len() as u64;
    OutSection {
        name,
        kind: SHT_RELA,
        flags: SHF_INFO_LINK,
        data: table,
        size,
        link: symbols,
        info: target,
        align: 8,
        entry_size: RELOCATION_SIZE as u64,
    }
}

/// An ELF64 x86-64 relocatable object of `sections` (section 0 and the
/// section name table are added here).
fn write_object(mut sections: Vec<OutSection>) -> Vec<u8> {
    let mut section_names = StringTable::default();
    section_names.add(b"");
    let name_offsets: Vec<u32> = sections
        .iter()
        .map(|section| section_names.add(&section.name))
        .collect();
    let names_name = section_names.add(b".shstrtab");
    let names_data = std::mem::take(&mut section_names.bytes);
    let names_size = names_data.len() as u64;
    sections.push(OutSection {
        name: Vec::new(),
        kind: SHT_STRTAB,
        flags: 0,
        data: names_data,
        size: names_size,
        link: 0,
        info: 0,
        align: 1,
        entry_size: 0,
    });
    let mut out = vec![0u8; ELF_HEADER_SIZE];
    let mut offsets = Vec::with_capacity(sections.len());
    for section in &sections {
        let align = section.align.max(1) as usize;
        out.resize(out.len().next_multiple_of(align), 0);
        offsets.push(out.len() as u64);
        out.extend_from_slice(&section.data);
    }
    out.resize(out.len().next_multiple_of(8), 0);
    let section_table = out.len() as u64;
    out.extend_from_slice(&[0; SECTION_HEADER_SIZE]);
    for (index, section) in sections.iter().enumerate() {
        let name = name_offsets.get(index).copied().unwrap_or(names_name);
        let mut header = [0u8; SECTION_HEADER_SIZE];
        header[..4].copy_from_slice(&name.to_le_bytes());
        header[4..8].copy_from_slice(&section.kind.to_le_bytes());
        header[8..16].copy_from_slice(&section.flags.to_le_bytes());
        header[24..32].copy_from_slice(&offsets[index].to_le_bytes());
        header[32..40].copy_from_slice(&section.size.to_le_bytes());
        header[40..44].copy_from_slice(&section.link.to_le_bytes());
        header[44..48].copy_from_slice(&section.info.to_le_bytes());
        header[48..56].copy_from_slice(&section.align.to_le_bytes());
        header[56..64].copy_from_slice(&section.entry_size.to_le_bytes());
        out.extend_from_slice(&header);
    }
    let count = (sections.len() + 1) as u16;
    out[..4].copy_from_slice(b"\x7fELF");
    out[4] = 2; // 64-bit
    out[5] = 1; // little-endian
    out[6] = 1; // ELF version
    out[16..18].copy_from_slice(&ET_REL.to_le_bytes());
    out[18..20].copy_from_slice(&EM_X86_64.to_le_bytes());
    out[20..24].copy_from_slice(&1u32.to_le_bytes());
    out[40..48].copy_from_slice(&section_table.to_le_bytes());
    out[52..54].copy_from_slice(&(ELF_HEADER_SIZE as u16).to_le_bytes());
    out[58..60].copy_from_slice(&(SECTION_HEADER_SIZE as u16).to_le_bytes());
    out[60..62].copy_from_slice(&count.to_le_bytes());
    out[62..64].copy_from_slice(&(count - 1).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn an_object_without_function_sections_is_linked_whole() {
        assert!(SplitObject::new(compile(SHARED_STATE, false)).is_err());
    }

    #[test]
    fn an_object_with_an_initializer_is_linked_whole() {
        assert!(SplitObject::new(compile(WITH_INITIALIZER, true)).is_err());
    }

    #[test]
    fn a_piece_holds_what_its_symbol_reaches_and_nothing_linked_before() {
        let Ok(mut object) = SplitObject::new(compile(SHARED_STATE, true)) else {
            panic!("an object with function sections is split");
        };
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
            if let Ok(mut split) = SplitObject::new(bytes) {
                for name in ["tens", "hundreds", "constant", "bump"] {
                    let _ = split.piece_defining(name);
                }
            }
        }
    }
}
